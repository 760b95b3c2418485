# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# NVMe over Fabrics on RDMA for the VM selftests (sourced after lib.sh, not
# run): an nvmet target with an RDMA port and what a host does with it.
# ../shared/reference/ULP.md §8-§10.2 has the facts these steps rely on.

NVMEOF_NQN=testnqn
NVMEOF_CFS=/sys/kernel/config/nvmet
NVMEOF_IMG=/tmp/nvmeof.img

# nvmeof_target_up ADDR: a 128 MiB loop device on tmpfs as namespace 1 of
# subsystem testnqn (any host), port 1 trtype rdma on ADDR:4420. nvmet
# loads nvmet-rdma itself (alias nvmet-transport-1) when the port gets its
# subsystem.
nvmeof_target_up() {
	modprobe loop && modprobe nvmet || return 1
	NVMEOF_MARK=$(dmesg | wc -l)
	truncate -s 128M $NVMEOF_IMG || return 1
	NVMEOF_LOOP=$(losetup -f --show $NVMEOF_IMG) || return 1
	s=$NVMEOF_CFS/subsystems/$NVMEOF_NQN p=$NVMEOF_CFS/ports/1
	mkdir $s && echo 1 >$s/attr_allow_any_host &&
		mkdir $s/namespaces/1 &&
		echo -n "$NVMEOF_LOOP" >$s/namespaces/1/device_path &&
		echo 1 >$s/namespaces/1/enable &&
		mkdir $p && echo rdma >$p/addr_trtype && echo ipv4 >$p/addr_adrfam &&
		echo "$1" >$p/addr_traddr && echo 4420 >$p/addr_trsvcid &&
		ln -s $s $p/subsystems/$NVMEOF_NQN || return 1
	# The port is enabled when the link is made: its listener is up now.
	wait_for_dmesg "nvmet_rdma: enabling port 1 ($1:4420)" 30
}

# nvmeof_target_down: the port, the namespace, the subsystem, the loop
# device, then the modules; what is not there is skipped.
nvmeof_target_down() {
	s=$NVMEOF_CFS/subsystems/$NVMEOF_NQN p=$NVMEOF_CFS/ports/1
	[ -L $p/subsystems/$NVMEOF_NQN ] && rm $p/subsystems/$NVMEOF_NQN
	[ -d $p ] && rmdir $p
	[ -d $s/namespaces/1 ] && echo 0 >$s/namespaces/1/enable && rmdir $s/namespaces/1
	[ -d $s ] && rmdir $s
	[ -n "${NVMEOF_LOOP:-}" ] && losetup -d "$NVMEOF_LOOP"
	rm -f $NVMEOF_IMG
	NVMEOF_LOOP=""
	modprobe -r nvmet_rdma nvmet
}

# wait_for_dmesg TEXT SECONDS: until the kernel log has TEXT (fixed string)
# after line NVMEOF_MARK.
wait_for_dmesg() {
	for _ in $(seq "$2"); do
		dmesg | tail -n +$((NVMEOF_MARK + 1)) | grep -qF "$1" && return 0
		sleep 1
	done
	echo "not in dmesg after $2 s: $1"
	return 1
}

# nvmeof_host ADDR: discovery, connect, a file system made, used and
# checked, fio with crc32c verification over the raw namespace, then the
# controller disconnected. Sets NVMEOF_SUM to the md5 of the first 32 MiB
# of the namespace as the host read it after fio (the target compares).
nvmeof_host() {
	a=$1
	NVMEOF_SUM=""
	# On the debug kernel lockdep reports a lock-order problem inside the
	# stock nvme_core's native multipath (partition_scan_work flushed under
	# the disk's open_mutex when the last opener closes a removed
	# namespace; no RDMA code involved): there the host runs without it,
	# from the kernel command line (scripts/vm/run.sh), since any test may
	# be the first to load nvme_core.
	case $(uname -r) in
	*-rdma-kmod-debug)
		modprobe nvme_core &&
			[ "$(cat /sys/module/nvme_core/parameters/multipath)" = N ] ||
			{ bad "nvme_core without native multipath on the debug kernel"; return 1; } ;;
	esac
	# The stock host registers no memory for a single-segment I/O: the
	# stock rxe can fail a fast registration ("mr->lkey ... not free"),
	# after which the host's error recovery tripped a WARNING in stock
	# rxe's QP destroy and the stock VM's network died (the stock SRP
	# peer runs with never_register=1 for the same bug).
	nr_opt=""
	[ "$RDMA_KMOD_STACK" = stock ] && nr_opt=register_always=N
	modprobe nvme-rdma $nr_opt || { bad "modprobe nvme-rdma"; return 1; }
	NVMEOF_MARK=$(dmesg | wc -l)
	hostnqn=nqn.2014-08.org.nvmexpress:uuid:$(cat /proc/sys/kernel/random/uuid)
	if nvmeof_try /tmp/nvme.disc nvme discover -t rdma -a "$a" -s 4420 -q "$hostnqn" &&
	   grep -q '^trtype: *rdma' /tmp/nvme.disc &&
	   grep -q "^subnqn: *$NVMEOF_NQN\$" /tmp/nvme.disc &&
	   grep -q "^traddr: *$a\$" /tmp/nvme.disc &&
	   grep -q '^rdma_cms: *rdma-cm' /tmp/nvme.disc; then
		ok "nvme discover -t rdma -a $a: $NVMEOF_NQN (rdma, rdma-cm)"
	else
		bad "nvme discover -t rdma -a $a"
		cat /tmp/nvme.disc
	fi
	# A broken transport fails the I/O within 30 s instead of the default
	# 600 s of reconnects, so a regression is a failed test, not a hung VM.
	if ! nvmeof_try /tmp/nvme.conn nvme connect -t rdma -a "$a" -s 4420 -n $NVMEOF_NQN -q "$hostnqn" \
		--ctrl-loss-tmo=30 --reconnect-delay=2; then
		bad "nvme connect -t rdma -a $a -n $NVMEOF_NQN"
		cat /tmp/nvme.conn
		return 1
	fi
	ctrl=""
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat $c/subsysnqn 2>/dev/null)" = $NVMEOF_NQN ] && ctrl=$c
	done
	expect_eq "controller transport" "$(cat $ctrl/transport 2>/dev/null)" rdma
	expect_eq "controller state" "$(cat $ctrl/state 2>/dev/null)" live
	wait_for_dmesg "new ctrl: NQN \"$NVMEOF_NQN\", addr $a:4420" 1 &&
		ok "host log: new ctrl $NVMEOF_NQN at $a:4420" || bad "no 'new ctrl' line"
	# The namespace shows up once the controller's scan ran.
	dev=""
	for _ in $(seq 30); do
		for b in /sys/block/nvme*n1; do
			[ -e "$b" ] && dev=/dev/${b##*/}
		done
		[ -n "$dev" ] && [ -b "$dev" ] && break
		sleep 1
	done
	if [ -b "$dev" ]; then
		nvmeof_io "$dev"
	else
		bad "no namespace block device"
	fi
	if nvme disconnect -n $NVMEOF_NQN >/tmp/nvme.disc 2>&1 &&
	   grep -q "disconnected 1 controller" /tmp/nvme.disc; then
		ok "nvme disconnect -n $NVMEOF_NQN: 1 controller"
	else
		bad "nvme disconnect"
		cat /tmp/nvme.disc
	fi
	modprobe -r nvme-rdma || bad "modprobe -r nvme-rdma"
}

# nvmeof_try OUT CMD...: CMD with its output in OUT. When the target is
# upstream siw (NVMEOF_UPSTREAM_SIW=1) and the first command of a queue
# (the admin queue's or an I/O queue's: each is a connection of its own)
# timed out, once more: upstream 6.1 siw can lose the first FPDU after it
# accepts (twovm-siw.sh's watch_stall tells how), here the Fabrics Connect.
nvmeof_try() {
	o=$1
	shift
	"$@" >"$o" 2>&1 && return 0
	[ "${NVMEOF_UPSTREAM_SIW:-0}" = 1 ] &&
		dmesg | tail -n +$((NVMEOF_MARK + 1)) | grep -qE 'I/O 0 QID [0-9]+ timeout' || return 1
	echo "note: upstream siw lost the Connect capsule ($*); once more:"
	cat "$o"
	NVMEOF_MARK=$(dmesg | wc -l)
	"$@" >"$o" 2>&1
}

# fio_verify_bg NAME DEV OFFSET SECONDS: random 4 KiB writes with crc32c
# verification on 32 MiB of DEV from OFFSET for SECONDS, queue depth 16, in
# the background (FIO its pid, the report in /tmp/fio-NAME.out).
fio_verify_bg() {
	timeout 300 fio --name="$1" --filename="$2" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randwrite --bs=4k --offset="$3" --size=32M \
		--time_based --runtime="$4" --verify=crc32c \
		--output=/tmp/fio-"$1".out >/dev/null 2>&1 &
	FIO=$!
}

# nvmeof_io DEV: ext4 made, mounted, a file written and read back, fsck
# clean; then fio randwrite with crc32c verification over the first 32 MiB.
nvmeof_io() {
	d=$1
	head -c 1048576 /dev/urandom >/tmp/nvmeof.pat
	mkdir -p /tmp/nvmeof.mnt
	if mkfs.ext4 -q -F "$d" && fsck.ext4 -fn "$d" >/tmp/fsck.out 2>&1; then
		ok "mkfs.ext4 and fsck on $d"
	else
		bad "mkfs.ext4/fsck on $d"
		cat /tmp/fsck.out
	fi
	if mount -t ext4 "$d" /tmp/nvmeof.mnt && cp /tmp/nvmeof.pat /tmp/nvmeof.mnt/pat &&
	   umount /tmp/nvmeof.mnt && mount -t ext4 "$d" /tmp/nvmeof.mnt &&
	   cmp /tmp/nvmeof.pat /tmp/nvmeof.mnt/pat && umount /tmp/nvmeof.mnt &&
	   fsck.ext4 -fn "$d" >/tmp/fsck.out 2>&1; then
		ok "1 MiB file written, remounted, compared; fsck clean"
	else
		bad "file on the namespace"
		cat /tmp/fsck.out
		umount /tmp/nvmeof.mnt 2>/dev/null
	fi
	if fio --name=nvmeof --filename="$d" --direct=1 --ioengine=libaio --iodepth=16 \
		--rw=randwrite --bs=4k --size=32M --verify=crc32c --verify_fatal=1 \
		--output=/tmp/fio.out >/dev/null 2>&1 && grep -q 'err= 0' /tmp/fio.out; then
		ok "fio randwrite 32 MiB, --verify=crc32c"
	else
		bad "fio verify on $d"
		tail -20 /tmp/fio.out
	fi
	NVMEOF_SUM=$(dd if="$d" bs=1M count=32 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
}

# nvmeof_target_sum: md5 of the first 32 MiB of the backing device.
nvmeof_target_sum() {
	dd if="$NVMEOF_LOOP" bs=1M count=32 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1
}
