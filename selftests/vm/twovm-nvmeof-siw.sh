#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# twovm-nvmeof on siw0 (upstream siw on the stock peer), a test of its own
# so that each transport's run fits the debug kernel's time limit.
exec sh "$RDMA_KMOD_SRC/selftests/vm/twovm-nvmeof.sh" siw
