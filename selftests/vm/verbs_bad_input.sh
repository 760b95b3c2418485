#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Malformed uverbs write()s and MR limits (tools/tests/uverbs_bad_input_test.cpp)
# and malformed RDMA_VERBS_IOCTL calls (uverbs_ioctl_test.cpp) on rxe0:
# upstream errnos, RLIMIT_MEMLOCK enforced, CAP_IPC_LOCK exempt.
. "$(dirname "$0")/../lib.sh"

bin=${RDMA_KMOD_SRC:-.}/build/tools/rdma_uverbs_tests
[ -x "$bin" ] || die "$bin missing: run 'make tools'"
# path_mtu 4096 (verbs_objects_test.cpp) needs a netdev MTU >= 4096 + headers.
ip link set eth0 mtu 9000 || bad "eth0 mtu 9000"
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
if "$bin" --gtest_color=no; then ok "rdma_uverbs_tests"; else bad "rdma_uverbs_tests"; fi
rdma link delete rxe0 || bad "link delete"
ip link set eth0 mtu 1500 || bad "eth0 mtu 1500"
finish
