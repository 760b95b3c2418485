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
#
# sysfs (the infiniband class is tagged by namespace): in shared mode each
# other namespace has its own entry of every device, present and future,
# whose files read (and node_desc writes) the device, without its hardware
# counters, renamed with it and gone with it (a netdev removed); in
# exclusive mode an entry is only in the sysfs of the device's namespace.
# A device that can move (selftests/kmod/rdma_fake_ib.ko movable=1; on the
# stock stack as built by scripts/kmod-stock.sh, skipped without it) moves
# with `rdma dev set DEV netns NS` in exclusive mode only, its netlink and
# sysfs presence with it; renamed and moved on from inside its namespace;
# back in init_net when its namespace is deleted; unloaded while away.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

probe=$RDMA_KMOD_TOOLS/uverbs_isolation
[ -x "$probe" ] || die "$probe not built"
kdir=$RDMA_KMOD_SRC/selftests/kmod
[ "${RDMA_KMOD_STACK:-ours}" = stock ] && kdir=$RDMA_KMOD_SRC/build/kmod-stock

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

# sysfs_ls NS: the entries of /sys/class/infiniband NS sees, on one line.
sysfs_ls() {
	in_ns "$1" ls /sys/class/infiniband | xargs
}

# view NS DEV: DEV's class directory as NS's sysfs shows it: the file
# names, the port's (but for the hardware counters and ib_cm's counter
# directories, which stay with the device's own entry) and what they read.
view() {
	in_ns "$1" sh -c 'cd /sys/class/infiniband/$0 || exit
		echo "files: $(ls | xargs)"
		echo "port 1: $(ls ports/1 | grep -v -e ^hw_counters -e ^cm_ | xargs)"
		for f in node_type node_guid sys_image_guid fw_ver node_desc \
			 ports/1/state ports/1/phys_state ports/1/rate ports/1/lid \
			 ports/1/link_layer ports/1/cap_mask ports/1/gids/0 \
			 ports/1/gids/1 ports/1/gid_attrs/types/0 \
			 ports/1/gid_attrs/ndevs/0 ports/1/pkeys/0 parent; do
			[ -e $f ] && echo "$f: $(cat $f 2>&1)"
		done' "$2"
}

# set_mode MODE: `rdma system set netns MODE`; a namespace just deleted is
# cleaned up asynchronously (EBUSY until then), so it is tried for 20 s.
set_mode() {
	for i in $(seq 40); do
		out=$(rdma system set netns "$1" 2>&1) && return 0
		case "$out" in *busy*) sleep 0.5 ;; *) break ;; esac
	done
	echo "$out"
	return 1
}

# wait_dev NAME [gone]: until init_net's `rdma dev` lists (or no longer
# lists) NAME, for 20 s; device removal and namespace cleanup are queued.
wait_dev() {
	for i in $(seq 40); do
		if rdma dev | grep -q " $1: "; then
			[ $# = 1 ] && return 0
		else
			[ $# = 2 ] && return 0
		fi
		sleep 0.5
	done
	return 1
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

echo "--- shared mode: sysfs, per namespace"
main=$(view init rxe0)
echo "$main"
expect_eq "shared: t1's rxe0 reads as init_net's" "$(view t1 rxe0)" "$main"
in_ns init test -d /sys/class/infiniband/rxe0/ports/1/hw_counters &&
	ok "init_net's rxe0 has hw_counters" || bad "init_net's rxe0 has no hw_counters"
in_ns t1 test -e /sys/class/infiniband/rxe0/ports/1/hw_counters &&
	bad "t1's rxe0 has hw_counters" || ok "t1's rxe0 has no hw_counters"
in_ns t1 sh -c 'echo t1-wrote-this > /sys/class/infiniband/rxe0/node_desc' ||
	bad "write node_desc in t1"
expect_eq "node_desc written through t1's entry" \
	"$(cat /sys/class/infiniband/rxe0/node_desc)" "t1-wrote-this"
expect_eq "a fresh sysfs in a new namespace" \
	"$(unshare -nm sh -c 'mount -t sysfs none /sys && ls /sys/class/infiniband' | xargs)" "rxe0"
rdma dev set rxe0 name rxe9 || bad "rename rxe0"
expect_eq "t1's entry renamed with the device" "$(sysfs_ls t1)" "rxe9"
rdma dev set rxe9 name rxe0 || bad "rename rxe9"
ip link add veth2 type veth peer name veth3 && ip link set veth2 up || bad "veth2"
rdma link add rxe6 type rxe netdev veth2 || bad "rdma link add rxe6"
expect_eq "a device added later appears in t1" "$(sysfs_ls t1)" "rxe0 rxe6"
expect_eq "t1's rxe6 reads as init_net's" "$(view t1 rxe6)" "$(view init rxe6)"
ip netns add t2
expect_eq "a namespace added later has every device" "$(sysfs_ls t2)" "rxe0 rxe6"
ip link del veth2
wait_dev rxe6 gone || bad "rxe6 still there after its netdev went"
expect_eq "the netdev's removal took rxe6 from t1" "$(sysfs_ls t1)" "rxe0"
ip netns del t2
ip netns del t1
set_mode exclusive || bad "set netns exclusive"
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

echo "--- a device that can move"
if [ -f "$kdir/rdma_fake_ib.ko" ]; then
	# cm/rdma_cm attach to it too: they leave and come back on each move.
	modprobe rdma_ucm || bad "modprobe rdma_ucm"
	insmod "$kdir/rdma_fake_ib.ko" movable=1 || die "insmod rdma_fake_ib"
	ip netns add t2 && ip netns attach init 1 || bad "namespaces t2, init"
	rdma dev set fakeib0 netns t1 || bad "move fakeib0 to t1"
	expect_eq "init_net after the move" "$(devices init)" "dev: 
link: 
sysfs: 
ibv_devices: "
	expect_eq "t1 after the move" "$(devices t1)" "dev: fakeib0
link: fakeib0/1
sysfs: fakeib0
ibv_devices: "
	expect_eq "fakeib0 read in t1" \
		"$(in_ns t1 cat /sys/class/infiniband/fakeib0/node_desc /sys/class/infiniband/fakeib0/ports/1/state)" \
		"rdma-kmod fake IB
4: ACTIVE"
	expect_eq "t2 sees nothing" "$(sysfs_ls t2)" ""
	in_ns t1 rdma dev set fakeib0 name fakeib7 || bad "rename in t1"
	expect_eq "renamed in t1" "$(sysfs_ls t1)" "fakeib7"
	expect_eq "init_net cannot name it" "$(rdma dev set fakeib7 netns t2 2>&1)" \
		"Wrong device name - fakeib7"
	in_ns t1 rdma dev set fakeib7 netns t2 || bad "move from t1 to t2"
	expect_eq "t1 after the move to t2" "$(sysfs_ls t1)" ""
	expect_eq "t2 after the move to t2" "$(sysfs_ls t2) $(in_ns t2 rdma dev | awk '{print $2}')" \
		"fakeib7 fakeib7:"
	in_ns t2 rdma dev set fakeib7 netns init || bad "move from t2 to init_net"
	expect_eq "back in init_net" "$(sysfs_ls init) $(sysfs_ls t2)" "fakeib7 "
	rdma dev set fakeib7 name fakeib0 || bad "rename in init_net"
	rdma dev set fakeib0 netns t2 || bad "move fakeib0 to t2"
	ip netns del t2
	wait_dev fakeib0 && ok "deleting t2 returned fakeib0" || bad "fakeib0 not back"
	expect_eq "init_net's sysfs after t2 went" "$(sysfs_ls init)" "fakeib0"
	expect_eq "fakeib0 read in init_net" \
		"$(cat /sys/class/infiniband/fakeib0/ports/1/state)" "4: ACTIVE"
	rdma dev set fakeib0 netns t1 || bad "move fakeib0 to t1 again"
	rmmod rdma_fake_ib || bad "rmmod rdma_fake_ib with fakeib0 in t1"
	expect_eq "t1 after the unload" "$(devices t1)" "dev: 
link: 
sysfs: 
ibv_devices: "
	ip netns del init
else
	echo "no $kdir/rdma_fake_ib.ko (scripts/kmod-stock.sh on stock): skipped"
fi
ip netns del t1
set_mode shared || bad "set netns shared"

if [ -f "$kdir/rdma_fake_ib.ko" ]; then
	echo "--- shared mode: a movable device stays"
	insmod "$kdir/rdma_fake_ib.ko" movable=1 || die "insmod rdma_fake_ib"
	ip netns add t1
	expect_eq "shared: move fakeib0" "$(rdma dev set fakeib0 netns t1 2>&1)" \
		"error: Operation not supported"
	expect_eq "shared: t1 sees fakeib0" "$(sysfs_ls t1)" "fakeib0"
	ip netns del t1
	rmmod rdma_fake_ib || bad "rmmod rdma_fake_ib"
fi
finish
