#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The distribution's hardware RDMA drivers rebuilt on our core (make compat)
# load on our ib_core and unload cleanly, without hardware: all this machine
# can show of them. Their non-RDMA dependencies (mlx4_core, cxgb4, qed,
# enic, be2net, ice) come from the stock kernel. A driver that was not
# rebuilt into this run's updates/ is skipped (run.sh puts what make compat
# built there, beside our modules). compat_load does the other consumers.
. "$(dirname "$0")/../lib.sh"

upd=/lib/modules/$(uname -r)/updates
tried=0
for m in rdmavt hfi1 ib_qib ib_mthca mlx4_ib mlx5_ib irdma iw_cxgb4 ocrdma \
	 qedr usnic_verbs; do
	if [ ! -f $upd/$m.ko ]; then
		echo "skip: $m was not rebuilt"
		continue
	fi
	tried=$((tried + 1))
	if ! modprobe $m; then
		bad "modprobe $m"
		continue
	fi
	if grep -q "^$m " /proc/modules; then
		ok "$m loaded"
	else
		bad "$m is not in /proc/modules after modprobe"
	fi
	if modprobe -r $m && ! grep -q "^$m " /proc/modules; then
		ok "$m unloaded"
	else
		bad "modprobe -r $m"
	fi
done
[ $tried -gt 0 ] || echo "no rebuilt hardware driver in $upd"
finish
