#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Runs the C++ NLDEV/sysfs suites (tools/, built by `make tools`) in the guest:
# Enumerate, LinkLifecycle, Gid, PortState, NetdevRemoval, BadInput (plus the
# host-side ParseUnit checks); MultiDevice is core_multidevice.sh's (split off
# so that each stays well within the per-test limit on the debug kernel,
# where the whole set took 651 s on a free machine). Extra arguments go to
# the gtest binary, e.g. --gtest_filter='Gid.*'; so does $CORE_TESTS_FILTER.
set -u

tools=${RDMA_KMOD_TOOLS:-${RDMA_KMOD_SRC:-.}/build/tools}
bin=$tools/rdma_core_tests
if [ ! -x "$bin" ]; then
	echo "core_tests: $bin is missing: run 'make tools' on the host first"
	exit 1
fi
echo "core_tests: $bin on stack ${RDMA_KMOD_STACK:-unknown}"
exec "$bin" --gtest_color=no --gtest_filter="${CORE_TESTS_FILTER:--MultiDevice.*}" "$@"
