#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 12, item 4: every consumer scripts/compat/build.sh rebuilt on our
# core (status.txt: "built") loads with modprobe, its stock non-RDMA
# dependencies included (mlx5_core, nvme-fabrics, sunrpc, ...), shows in
# /proc/modules from updates/ with only our RDMA modules beside it, and
# unloads cleanly. The hardware drivers (rdmavt, mlx5_ib, mlx4_ib, irdma,
# ...) are compat_hw_load's: without hardware, loading and unloading them
# is all this machine can show. Blocked consumers are listed with their
# reason. On the stock stack the same list (scripts/compat/consumers.txt)
# loads the in-tree modules: the reference.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

hw=" rdmavt mlx5_ib mlx4_ib irdma iw_cxgb4 ocrdma qedr usnic_verbs ib_mthca hfi1 ib_qib "
all=$(sed -e 's/#.*//' "$RDMA_KMOD_SRC/scripts/compat/consumers.txt" | awk 'NF { print $1 }')
rdma_names=$(sh "$RDMA_KMOD_SRC/scripts/blocklist.sh" --names "$KVER")
list=""
for m in $all; do
	case "$hw" in *" $m "*) continue ;; esac
	if [ "$RDMA_KMOD_STACK" = ours ]; then
		st=$(compat_status "$m")
		case "$st" in
		built) ;;
		"") echo "note: $m: no compat result (make compat)"; continue ;;
		*) echo "note: $m: $st"; continue ;;
		esac
	fi
	list="$list $m"
done
[ -n "$list" ] || { echo "note: no consumer rebuilt yet"; finish; exit; }

for m in $list; do
	u=$(echo "$m" | tr - _)
	if ! modprobe "$m"; then
		bad "modprobe $m"
		dmesg | tail -5
		continue
	fi
	grep -q "^$u " /proc/modules && ok "$m loaded" || bad "$m not in /proc/modules"
	if [ "$RDMA_KMOD_STACK" = ours ]; then
		from_updates "$u" && ok "$m from updates/" || bad "$m is $(modinfo -n "$u")"
		# Everything RDMA that came with it is ours or rebuilt.
		intree=""
		for r in $rdma_names; do
			[ -d "/sys/module/$r" ] && ! from_updates "$r" && intree="$intree $r"
		done
		[ -z "$intree" ] || bad "in-tree RDMA module(s) loaded with $m:$intree"
	fi
	if modprobe -r "$m"; then
		grep -q "^$u " /proc/modules && bad "$m still loaded after modprobe -r" ||
			ok "$m unloaded"
	else
		bad "modprobe -r $m"
	fi
done
finish
