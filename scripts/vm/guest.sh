#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# PID 1 in the test VM after switch_root (host root, read-only over 9p).
# Reads the run's settings from the writable share (run.env), installs our
# modules where modprobe finds them, runs the tests, cleans up, scans dmesg
# for splats and powers off. Results go to the share: results, rc, dmesg.txt.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# The host root stays reachable under /srv: the tree under test may live in
# a directory the tmpfs mounts below hide (a CI clone in /tmp, say).
mount --bind / /srv
for d in /tmp /run /var/tmp /var/log /root /mnt; do mount -t tmpfs tmpfs $d; done
mkdir -p /mnt/out /dev/pts /dev/shm
mount -t 9p -o trans=virtio,version=9p2000.L out /mnt/out
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
OUT=/mnt/out
. $OUT/run.env
# The debug kernel's module tree is in its cache on the host, not in
# /lib/modules: it goes there on a tmpfs (the host's trees do not fit it).
if [ -n "$RDMA_KMOD_MODROOT" ]; then
	mount -t tmpfs tmpfs /lib/modules
	mkdir -p /lib/modules/$KVER
	mount --bind /srv$RDMA_KMOD_MODROOT/lib/modules/$KVER /lib/modules/$KVER
fi
# As systemd does at boot: configfs is a module, its mount point comes with it.
modprobe configfs && mount -t configfs configfs /sys/kernel/config
export KVER RDMA_KMOD_SRC RDMA_KMOD_TOOLS RDMA_KMOD_STACK RDMA_KMOD_ROLE RDMA_KMOD_PEER_IP RDMA_KMOD_PEER_STACK RDMA_KMOD_COMPAT_STATUS RDMA_KMOD_SHARED=$OUT
export HOME=/root
exec > $OUT/guest.log 2>&1
if [ ! -d "$RDMA_KMOD_SRC/scripts" ]; then
	mkdir -p "$RDMA_KMOD_SRC"
	mount --bind "/srv$RDMA_KMOD_SRC" "$RDMA_KMOD_SRC"
fi
# Test-only modules built for the kernel we run (the debug one) replace the
# tree's (built for the stock one) where the tests look for them.
[ -n "$RDMA_KMOD_KMOD_DIR" ] &&
	mount --bind "/srv$RDMA_KMOD_KMOD_DIR" "$RDMA_KMOD_SRC/selftests/kmod"
. $RDMA_KMOD_SRC/scripts/vm/splats.sh

log() { echo "guest: $*"; echo "guest: $*" > /dev/console; }

finish() {
	dmesg > $OUT/dmesg.txt
	echo "$1" > $OUT/rc
	sync
	busybox poweroff -f
}

# The run's modules go to updates/ of an overlay over the stock module tree:
# ours, or on the stock stack the reference modules it lacks (upstream siw).
install_modules() {
	mods=/lib/modules/$KVER
	mkdir -p /run/mods/upper /run/mods/work
	mount -t overlay overlay -o lowerdir=$mods,upperdir=/run/mods/upper,workdir=/run/mods/work $mods ||
		return 1
	mkdir -p $mods/updates
	cp $RDMA_KMOD_MODULES/*.ko $mods/updates/ || return 1
	# modules.dep and friends were made on the host (run.sh).
	cp $RDMA_KMOD_MODULES.dep/modules.* $mods/ || return 1
}

# Ours, and the in-tree RDMA modules we do not provide blocked with a clear
# message.
install_ours() {
	install_modules || return 1
	mkdir -p /run/modprobe.d
	cp -a /etc/modprobe.d/. /run/modprobe.d/ 2>/dev/null
	mount --bind /run/modprobe.d /etc/modprobe.d
	sh $RDMA_KMOD_SRC/scripts/blocklist.sh $KVER $mods/updates > /etc/modprobe.d/rdma-kmod.conf
}

# Every loaded RDMA module must be ours (from updates/): built out of tree,
# as ours and the rebuilt consumers are, so its taint has the O flag; the
# stock ones have none. Reading sysfs instead of a modinfo per module (an
# exec costs up to a second under TCG, twice a test).
check_no_intree() {
	bad=""
	for m in $INTREE_NAMES $OUR_MODS; do
		[ -d /sys/module/$m ] || continue
		read -r taint 2>/dev/null < /sys/module/$m/taint || taint=""
		case "$taint" in
		*O*) ;;
		*) bad="$bad $m" ;;
		esac
	done
	[ -z "$bad" ] && return 0
	log "in-tree RDMA module(s) loaded:$bad"
	return 1
}

# What a test may leave behind: rdma links, rdma_cm configfs directories
# (they pin rdma_cm).
drop_leftovers() {
	for l in $(rdma link show 2>/dev/null | awk '$1 == "link" { sub("/.*", "", $2); print $2 }' | sort -u); do
		rdma link delete "$l" 2>/dev/null
	done
	for d in /sys/kernel/config/rdma_cm/*/; do
		[ -d "$d" ] && rmdir "$d"
	done
}

# kmemleak (debug kernel): records of unreferenced objects allocated by one
# of this run's modules (ours and the rebuilt consumers: a "[module]" frame),
# or by a module unloaded since (an address no symbol resolves: the run loads
# and unloads RDMA modules, the stock ones it uses stay). Other records are
# the stock kernel's: counted, not failed, kept in the run's log. An object is reported once its
# contents stayed the same over two scans and it is 5 s old; "clear" keeps
# the next test from seeing it again.
KMEMLEAK=/sys/kernel/debug/kmemleak
leaks() { # NAME SCANS: fails (1) on leaks of ours
	[ -e $KMEMLEAK ] || return 0
	# One scan after each test (40 s on the debug kernel under TCG, two
	# were half of the suite's time): a test's leak is reported after the
	# next test, whose scan is its second. The last check scans twice.
	ks=$(date +%s)
	for _ in $(seq "$2"); do echo scan > $KMEMLEAK; done
	ks=$(($(date +%s) - ks))
	cat $KMEMLEAK > /tmp/kmemleak.all
	echo clear > $KMEMLEAK
	awk -v mods=" $OUR_MODS " '
	function flush() { if (rec != "" && ours) printf "%s", rec; rec = ""; ours = 0 }
	/^unreferenced object/ { flush() }
	{ rec = rec $0 "\n" }
	/^    \[</ {
		if (match($0, /\[[A-Za-z0-9_]+\]$/)) {
			if (index(mods, " " substr($0, RSTART + 1, RLENGTH - 2) " ")) ours = 1
		} else if ($0 ~ /\] 0x[0-9a-f]+$/) {
			ours = 1
		}
	}
	END { flush() }' /tmp/kmemleak.all > /tmp/kmemleak.ours
	all=$(grep -c '^unreferenced object' /tmp/kmemleak.all)
	ours=$(grep -c '^unreferenced object' /tmp/kmemleak.ours)
	echo "kmemleak after $1: $all unreferenced objects, $ours of this run's modules (scans ${ks} s; from this test or the one before)"
	# Every record, for the run's log.
	[ "$all" = 0 ] || { echo "=== after $1"; cat /tmp/kmemleak.all; } >> $OUT/kmemleak.txt
	[ "$ours" = 0 ] && return 0
	echo "FAIL: kmemleak: $ours unreferenced objects allocated by this run's modules (during this test or the one before)"
	head -c 8000 /tmp/kmemleak.ours
	return 1
}

# The kernel's reports since line $1 of dmesg (with the lines around them in
# guest.log); fails (1) on any.
reports_since() {
	dmesg | tail -n +$(($1 + 1)) > /tmp/test.dmesg
	splats /tmp/test.dmesg > /tmp/test.splats || return 0
	first=$(head -n 1 /tmp/test.splats)
	echo "FAIL: kernel report: $first"
	n=$(grep -n -F -m 1 -e "$first" /tmp/test.dmesg | cut -d: -f1)
	chain=$(splat_chain /tmp/test.dmesg "$n")
	[ -z "$chain" ] || echo "FAIL: call chain: $chain"
	sed -n "$((n > 3 ? n - 3 : 1)),$((n + 60))p" /tmp/test.dmesg
	return 1
}

cleanup() {
	drop_leftovers
	# Unload everything RDMA, users first; a few passes settle the order.
	all="$UNLOAD_ORDER $INTREE_NAMES $OUR_MODS"
	for pass in 1 2 3 4 5; do
		left=""
		for m in $all; do
			[ -d /sys/module/$m ] || continue
			rmmod $m 2>/dev/null || left="$left $m"
		done
		[ -z "$left" ] && return 0
		sleep 1
	done
	log "could not unload:$left"
	return 1
}

modprobe virtio_net
ip link set lo up
ip link set eth0 up
ip addr add $RDMA_KMOD_IP/24 dev eth0
ip addr add $RDMA_KMOD_IP6/64 dev eth0 nodad

OUR_MODS=$(cd $RDMA_KMOD_MODULES 2>/dev/null && ls *.ko 2>/dev/null | sed 's/\.ko$//; s/-/_/g')
# Once a run: a walk of the kernel's module tree over 9p.
INTREE_NAMES=$(sh $RDMA_KMOD_SRC/scripts/blocklist.sh --names $KVER)
# Users first: the distribution's consumers (rebuilt ones on our stack), then
# the core; any other RDMA module still loaded comes last (cleanup retries).
UNLOAD_ORDER="nvme_rdma nvmet_rdma smc_diag smc rds_rdma 9pnet_rdma ib_srp ib_isert ib_srpt
 rdma_ucm ib_ipoib ib_iser rpcrdma xprtrdma svcrdma ib_umad mlx5_ib mlx4_ib irdma iw_cxgb4 ocrdma
 qedr usnic_verbs ib_mthca hfi1 ib_qib rdmavt ib_uverbs rdma_rxe siw rdma_cm iw_cm ib_cm ib_core"

if [ "$RDMA_KMOD_STACK" = ours ]; then
	install_ours || { log "module install failed"; finish 1; }
elif ls $RDMA_KMOD_MODULES/*.ko >/dev/null 2>&1; then
	install_modules || { log "reference module install failed"; finish 1; }
fi

if [ -n "$RDMA_KMOD_SHELL" ]; then
	setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1'
	finish 0
fi

# A slow kernel stretches the tests' own limits: a `timeout` first in their
# PATH multiplies each duration by RDMA_KMOD_TIME_FACTOR (run.sh --env).
if [ "${RDMA_KMOD_TIME_FACTOR:-1}" != 1 ]; then
	mkdir -p /run/rdma-kmod-bin
	ln -sf $RDMA_KMOD_SRC/scripts/vm/stretch-timeout.sh /run/rdma-kmod-bin/timeout
	export RDMA_KMOD_TIME_FACTOR PATH=/run/rdma-kmod-bin:$PATH
fi

status=0 dead_link=""
cd $RDMA_KMOD_SRC
: > $OUT/results
: > $OUT/times
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
# What boot leaked is nobody's test.
leaks boot 2 > /dev/null
for t in $RDMA_KMOD_TESTS; do
	name=$(basename $t .sh)
	log "test $name"
	# run.sh names the test that was running if the VM runs out of time.
	echo "$name" > $OUT/current
	t0=$(date +%s)
	read -r up _ < /proc/uptime
	echo "=== $name [${up%.*} s]"
	if [ "$RDMA_KMOD_STACK" = ours ] && ! check_no_intree; then
		echo "FAIL: $name (in-tree module loaded before)" >> $OUT/results; status=1; continue
	fi
	# Both VMs start a two-VM test together, however long the one before
	# took on either side (a server that gave up waiting fails the test).
	case "$name" in
	twovm-*)
		if [ -n "$dead_link" ]; then
			echo "FAIL: $name (not run: the link to the peer died in $dead_link)" >> $OUT/results
			status=1
			continue
		fi
		[ -z "${RDMA_KMOD_PEER_IP:-}" ] ||
			(. $RDMA_KMOD_SRC/selftests/lib.sh && peer_barrier) ||
			echo "guest: no barrier with the peer before $name"
		;;
	esac
	from=$(dmesg | wc -l)
	/usr/bin/timeout -k 5 $RDMA_KMOD_TEST_TIMEOUT sh $t
	case $? in
	0) r=PASS ;;
	124|137) r=FAIL; echo "FAIL: $name timed out after ${RDMA_KMOD_TEST_TIMEOUT}s" ;;
	*) r=FAIL ;;
	esac
	if [ "$RDMA_KMOD_STACK" = ours ] && ! check_no_intree; then r=FAIL; fi
	# Each test leaves no device behind for the next one.
	drop_leftovers
	# What the kernel reported during the test fails it, PENDING or not.
	kr=0
	leaks $name 1 || kr=1
	reports_since $from || kr=1
	[ $kr = 1 ] && r=FAIL
	# A two-VM test that failed with the peer gone silent on eth0 (seen:
	# the stock VM's virtio-net TX queue stalled for good) ends the two-VM
	# tests of this VM: each would wait out its limit.
	case "$r$name" in
	FAILtwovm-*)
		[ -z "${RDMA_KMOD_PEER_IP:-}" ] ||
			busybox ping -c 5 -W 3 "$RDMA_KMOD_PEER_IP" > /dev/null 2>&1 ||
			busybox ping -c 5 -W 3 "$RDMA_KMOD_PEER_IP" > /dev/null 2>&1 ||
			{ dead_link=$name; echo "guest: the peer does not answer pings after $name"; }
		;;
	esac
	# A test listed in selftests/vm/PENDING documents work not done yet:
	# its failure is reported (XFAIL) but does not fail the run.
	if [ $r = FAIL ] && [ $kr = 0 ] &&
	   grep -q "^$name[[:space:]]" selftests/vm/PENDING 2>/dev/null; then
		r=XFAIL
	fi
	echo "$r: $name" >> $OUT/results
	echo "$name $(( $(date +%s) - t0 ))" >> $OUT/times
	# Why, in the results too: CI shows only the end of the output.
	if [ $r != PASS ]; then
		sed -n "/^=== $name /,\$p" $OUT/guest.log >/tmp/test.out
		{ grep -A3 '^FAIL: ' /tmp/test.out || tail -4 /tmp/test.out; } |
			head -12 | sed 's/^/    /' >> $OUT/results
	fi
	[ $r = FAIL ] && status=1
done
echo "the final unload" > $OUT/current

from=$(dmesg | wc -l)
cleanup || { echo "FAIL: unload" >> $OUT/results; status=1; }
# Leaks that show once the modules are gone.
leaks unload 2 || { echo "FAIL: kmemleak after unload" >> $OUT/results; status=1; }
reports_since $from || { echo "FAIL: kernel report during unload" >> $OUT/results; status=1; }
finish $status
