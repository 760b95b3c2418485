#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Network namespaces and RDMA devices (issue 13, item 4), with the stock
# kernel's answers: in shared mode every namespace sees every device; the
# mode changes only while no other namespace exists (EBUSY); in exclusive
# mode a device of init_net is invisible from another namespace (rdma
# dev/link, /sys/class/infiniband, ibv_devices), whose `rdma dev set` and
# `rdma link delete` cannot name it and whose processes cannot open its
# uverbs file (EPERM); a link added from inside a namespace lands in
# init_net; rxe and siw devices cannot move to another namespace
# (EOPNOTSUPP, as upstream 6.1: they cannot disassociate their user
# contexts), so deleting a namespace never finds one of them in it.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

probe=$RDMA_KMOD_TOOLS/uverbs_isolation
[ -x "$probe" ] || die "$probe not built"

# in_ns NS CMD...: CMD's output in namespace NS (init: this one).
in_ns() {
	ns=$1
	shift
	if [ "$ns" = init ]; then "$@" 2>&1; else ip netns exec "$ns" "$@" 2>&1; fi
}

# devices NS: what NS sees: rdma dev names, rdma link names, the
# /sys/class/infiniband entries, ibv_devices' names, one line each.
devices() {
	echo "dev: $(in_ns "$1" rdma dev | awk '{print $2}' | tr -d : | xargs)"
	echo "link: $(in_ns "$1" rdma link | awk '{print $2}' | xargs)"
	echo "sysfs: $(in_ns "$1" ls /sys/class/infiniband | xargs)"
	echo "ibv_devices: $(in_ns "$1" ibv_devices | awk 'NR > 2 {print $1}' | xargs)"
}

modprobe ib_uverbs || die "modprobe ib_uverbs"
rxe_up || die "rxe0 up"
ip netns add t1 || die "ip netns add t1"
echo "--- shared mode"
init_view=$(devices init)
echo "$init_view"
expect_eq "shared: t1 sees init_net's devices" "$(devices t1)" "$init_view"
expect_eq "shared: uverbs from t1" "$(ip netns exec t1 "$probe" ctx | xargs)" "open: 0 get_context: 0"
expect_eq "shared: move rxe0" "$(rdma dev set rxe0 netns t1 2>&1)" "error: Operation not supported"
expect_eq "exclusive while t1 exists" "$(rdma system set netns exclusive 2>&1)" "error: Device or resource busy"
ip netns del t1
rdma system set netns exclusive || bad "set netns exclusive"
expect_eq "rdma system show" "$(rdma system show | awk '{print $1, $2}')" "netns exclusive"
ip netns add t1
echo "--- exclusive mode"
expect_eq "exclusive: init_net sees its devices" "$(devices init)" "$init_view"
expect_eq "exclusive: t1 sees none" "$(devices t1)" "dev: 
link: 
sysfs: 
ibv_devices: "
# The uverbs class is not per namespace (stock too): its entries stay.
in_ns t1 ls /sys/class/infiniband_verbs | xargs echo "t1 infiniband_verbs:"
expect_eq "exclusive: uverbs from t1" "$(in_ns t1 "$probe" ctx | xargs)" "open: EPERM"
expect_eq "exclusive: t1 cannot name rxe0" "$(in_ns t1 rdma dev set rxe0 name evil0)" "Wrong device name - rxe0"
expect_eq "exclusive: t1 cannot delete rxe0" "$(in_ns t1 rdma link delete rxe0)" "Wrong device name - rxe0"
expect_eq "exclusive: move rxe0" "$(rdma dev set rxe0 netns t1 2>&1)" "error: Operation not supported"
expect_eq "exclusive: rxe0 stayed" "$(devices init)" "$init_view"
expect_eq "shared while t1 exists" "$(rdma system set netns shared 2>&1)" "error: Device or resource busy"

echo "--- a link added from inside a namespace"
ip link add veth0 type veth peer name veth1 && ip link set veth1 netns t1 &&
	ip -n t1 link set veth1 up || bad "veth into t1"
in_ns t1 rdma link add rxe5 type rxe netdev veth1 || bad "rdma link add from t1"
rdma dev | grep -q ' rxe5:' && ok "rxe5 is in init_net" || bad "rxe5 not in init_net"
expect_eq "t1 sees no rxe5" "$(in_ns t1 rdma dev)" ""
rdma link delete rxe5 || bad "link delete rxe5"
rdma link delete rxe0 || bad "link delete rxe0"
if siw_up; then
	expect_eq "exclusive: move siw0" "$(rdma dev set siw0 netns t1 2>&1)" \
		"error: Operation not supported"
	rdma link delete siw0 || bad "link delete siw0"
fi
ip netns del t1
rdma system set netns shared || bad "set netns shared"
finish
