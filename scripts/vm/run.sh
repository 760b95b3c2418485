#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Boots the stock Debian kernel in QEMU (TCG) on the host's root file system
# (read-only 9p) and runs selftests in it, on our modules (--stack ours) or
# on the stock in-tree RDMA stack (--stack stock). With --kernel-flavour debug
# the VMs on our stack boot the debug kernel (scripts/debug-kernel/) instead,
# and each test is also checked with kmemleak. See Documentation/testing.md.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/vm/splats.sh"
usage() {
	cat <<USAGE
usage: $0 [--kver KVER] [--stack ours|stock] [--modules-dir DIR]
          [--kernel-flavour stock|debug]
          (--cmd 'SHELL TEXT' | --test NAME ... | --all | --shell)
          [--two-vm [--peer-stack ours|stock]] [--log FILE] [--verbose] [--timeout SEC]
          [--test-timeout SEC] [--env NAME=VALUE ...] [--journal DIR]
--env exports NAME=VALUE to the tests in both VMs (a long fuzz run, say).
--journal copies the VMs' results to DIR while they run, and run.sh's status
at the end (scripts/debug-kernel/records.sh reads it).
Exit 0 only if every test passed, dmesg shows no splat and our modules unloaded.
USAGE
}
KVER=$("$top/scripts/kver.sh")
stack=ours peer_stack=stock modules_dir="" cmd="" tests="" all=0 shell=0 twovm=0
log="" verbose=0 timeout="" test_timeout="" envs=() journal=""
# seconds from start to the guest script (RDMA_KMOD_BOOT_LIMIT: for tests of it)
boot_limit=${RDMA_KMOD_BOOT_LIMIT:-}
# the debug VM's memory (RDMA_KMOD_DEBUG_MEM: kmemleak's scan time grows with it)
debug_mem=${RDMA_KMOD_DEBUG_MEM:-4G}
flavour=${RDMA_KMOD_KERNEL_FLAVOUR:-stock}
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--kernel-flavour) flavour=$2; shift ;;
	--stack) stack=$2; shift ;;
	--peer-stack) peer_stack=$2; shift ;;
	--modules-dir) modules_dir=$2; shift ;;
	--cmd) cmd=$2; shift ;;
	--test) tests="$tests $2"; shift ;;
	--all) all=1 ;;
	--shell) shell=1 ;;
	--two-vm) twovm=1 ;;
	--log) log=$2; shift ;;
	--verbose) verbose=1 ;;
	--timeout) timeout=$2; shift ;;
	--test-timeout) test_timeout=$2; shift ;;
	--journal) journal=$2; shift ;;
	--env)
		[[ "$2" =~ ^[A-Za-z_][A-Za-z0-9_]*=[A-Za-z0-9_.,:/+-]*$ ]] ||
			{ echo "run.sh: --env wants NAME=VALUE (value without spaces or quotes): $2" >&2; exit 2; }
		envs+=("export $2"); shift ;;
	-h|--help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
case "$stack$peer_stack" in ours*|stock*) ;; *) usage >&2; exit 2 ;; esac
case "$flavour" in stock|debug) ;; *) usage >&2; exit 2 ;; esac

kernel=/boot/vmlinuz-$KVER
[ -r "$kernel" ] || { echo "run.sh: no $kernel (run scripts/setup.sh)" >&2; exit 2; }
vmdir=$top/build/vm
mkdir -p "$vmdir/logs"
initrd=$vmdir/initrd-$KVER.gz
"$top/scripts/vm/mkinitrd.sh" "$KVER" "$initrd" || exit 2
[ -n "$log" ] || log=$vmdir/logs/$(date +%Y%m%d-%H%M%S)-$$.log

# The debug kernel: its image, release and module tree from the cache; our
# modules and the consumers built for it in build/debug/KVER
# (scripts/debug-kernel/modules.sh); more memory (KASAN's shadow, kmemleak's
# records) and time (TCG runs it several times slower than the stock one).
if [ "$flavour" = debug ]; then
	ddir=$("$top/scripts/debug-kernel/build.sh" --print-dir) ||
		{ echo "run.sh: build the debug kernel first (scripts/debug-kernel/build.sh)" >&2; exit 2; }
	dkver=$(cat "$ddir/kver")
	dinitrd=$vmdir/initrd-$dkver.gz
	"$top/scripts/vm/mkinitrd.sh" "$dkver" "$dinitrd" "$ddir/modroot" || exit 2
	dbuild=$top/build/debug/$dkver
	[ -d "$dbuild/src/selftests/kmod" ] ||
		{ echo "run.sh: no $dbuild/src (scripts/debug-kernel/modules.sh)" >&2; exit 2; }
	# Measured under TCG: a test takes 2-8 times as long as on the stock
	# kernel (core_tests 318 s, verbs_loopback 176 s, cm_loopback 158 s,
	# siw_loopback 109 s, verbs_kernel 68 s): three times the stock limit
	# per test, five times per VM.
	: "${timeout:=10500}" "${test_timeout:=1800}" "${boot_limit:=600}" "${off_limit:=600}"
	# The tests' own timeouts stretch likewise (scripts/vm/stretch-timeout.sh).
	envs=("export RDMA_KMOD_TIME_FACTOR=4" "${envs[@]}")
fi
# A VM's limit is a guard against hangs, not a budget: make check's one-VM
# suite (about 1300 s alone) runs beside the two-VM suites and slows down.
: "${timeout:=3600}" "${test_timeout:=600}" "${boot_limit:=300}" "${off_limit:=120}"

# What a VM of stack $1 boots: vkver, vkernel, vinitrd, vmodroot (holding
# lib/modules/vkver), vmem, vsmp, vappend; where our modules (vtree), the
# consumers (vcompat) and the test-only modules (vkmod) built for it are.
# One CPU on the stock kernel: make check runs three VMs on two cores, and
# a VM of two CPUs there spends its time waiting for the other's interrupts
# (two side by side ran six tests in 436 s with two CPUs each, 321 s with
# one: Documentation/testing.md). RDMA_KMOD_VM_SMP overrides it.
vm_kernel() {
	if [ "$flavour" = debug ] && [ "$1" = ours ]; then
		vkver=$dkver vkernel=$ddir/bzImage vinitrd=$dinitrd vmodroot=$ddir/modroot
		vmem=$debug_mem vsmp=${RDMA_KMOD_VM_SMP:-2}
		vtree=$dbuild/src vcompat=$dbuild/compat vkmod=$dbuild/src/selftests/kmod
		# Every KASAN report, not the first only; room for all of dmesg;
		# no RCU stall or hung task warnings from TCG's slowness alone;
		# no native NVMe multipath: lockdep reports a lock order problem
		# of the stock nvme_core's there (selftests/nvmeof.sh), and the
		# first test to load nvme_core (compat_load) decides for all;
		# 4-level paging: one boot in several of KASAN on TCG's 5-level
		# paging reported wild accesses in the direct map from its first
		# millisecond on (Documentation/testing.md). Soft lockups after
		# 120 s, not 20: a debug VM starved of host CPU for tens of
		# seconds reported them from the network stack and workqueues.
		vappend="acpi=noirq kasan_multi_shot log_buf_len=16M rcupdate.rcu_cpu_stall_timeout=120 sysctl.kernel.hung_task_timeout_secs=600 nvme_core.multipath=N no5lvl watchdog_thresh=60"
	else
		vkver=$KVER vkernel=$kernel vinitrd=$initrd vmodroot=/ vmem=2G vappend=""
		vsmp=${RDMA_KMOD_VM_SMP:-1}
		vtree=$top vcompat=$top/build/compat/$KVER vkmod=""
	fi
}

# The modules a VM gets in updates/: for our stack every .ko built in the
# tree; for the stock stack the test-only reference modules the stock kernel
# lacks (upstream siw, scripts/peer/upstream-siw.sh), when they build.
gather_modules() {
	local dir=$1 vstack=$2 KVER=$vkver
	mkdir -p "$dir"
	if [ "$vstack" = stock ]; then
		local ko
		ko=$("$top/scripts/peer/upstream-siw.sh" --kver "$KVER") ||
			{ echo "run.sh: no upstream siw for the stock stack" >&2; return 0; }
		cp "$ko" "$dir/"
	elif [ -n "$modules_dir" ]; then
		find "$modules_dir" -name '*.ko' -exec cp {} "$dir/" \;
	else
		find "$vtree/drivers" "$vtree/ulp" -name '*.ko' -exec cp {} "$dir/" \; 2>/dev/null
	fi
	# Our stack also gets the distribution's consumers rebuilt on our core
	# (make compat, scripts/compat/build.sh), and the list of what built or
	# why not, for the tests that need one (need_module in selftests/lib.sh).
	# A --modules-dir is the whole set (an installed package's, say).
	if [ "$vstack" = ours ] && [ -z "$modules_dir" ] && [ -s "$vcompat/status.txt" ]; then
		cp "$vcompat/status.txt" "$dir.compat-status"
		# our own ULP of the same name (ulp/, when built) wins
		find "$vcompat/modules" -name '*.ko' -exec cp -n {} "$dir/" \; 2>/dev/null
	fi
	if [ -z "$(ls "$dir")" ]; then
		[ "$vstack" = stock ] && return 0
		echo "run.sh: no modules built (run make)" >&2; return 1
	fi
	# depmod over 9p in the guest takes minutes; on the host, seconds.
	local root=$dir.root mods=$dir.root/lib/modules/$KVER
	local base=${vmodroot%/}/lib/modules/$KVER
	mkdir -p "$mods/updates" "$dir.dep"
	ln -s "$base/kernel" "$mods/kernel"
	cp "$base"/modules.order "$base"/modules.builtin* "$mods/"
	cp "$dir"/*.ko "$mods/updates/"
	depmod -b "$root" "$KVER" || return 1
	cp "$mods"/modules.* "$dir.dep/"
	rm -rf "$root"
}

# Resolve test names to paths. With --all in two-VM mode, a twovm test runs
# against the peer stacks its "# peer-stacks: ..." line names (stock if it
# has none).
peer_stacks() {
	local s
	s=$(sed -n 's/^# peer-stacks: *//p' "$1" | head -n 1)
	echo " ${s:-stock} "
}
list=""
if [ $all = 1 ]; then
	for f in "$top"/selftests/vm/*.sh; do
		case "$(basename "$f")" in
		twovm-*)
			[ $twovm = 1 ] || continue
			case "$(peer_stacks "$f")" in
			*" $peer_stack "*) list="$list $f" ;;
			esac
			;;
		*) [ $twovm = 1 ] || list="$list $f" ;;
		esac
	done
fi
for t in $tests; do
	if [ -f "$t" ]; then list="$list $(cd "$(dirname "$t")" && pwd)/$(basename "$t")"
	elif [ -f "$top/selftests/vm/$t.sh" ]; then list="$list $top/selftests/vm/$t.sh"
	else echo "run.sh: no such selftest: $t" >&2; exit 2
	fi
done

# A test that powers its peer VM off ends that VM's run: it goes last.
first="" last=""
for t in $list; do
	if grep -q '^# rdma-kmod: powers-off-peer' "$t"; then
		last="$last $t"
	else
		first="$first $t"
	fi
done
list="$first$last"
[ "$(echo $last | wc -w)" -le 1 ] ||
	{ echo "run.sh: only one peer-powering-off test per run:$last" >&2; exit 2; }

run_dir=$(mktemp -d "$vmdir/run.XXXXXX")
trap 'rm -rf "$run_dir"' EXIT
if [ -n "$cmd" ]; then
	printf '%s\n' "$cmd" > "$run_dir/cmd.sh"
	list="$list $run_dir/cmd.sh"
fi
[ -n "$list" ] || [ $shell = 1 ] || { usage >&2; exit 2; }

# One VM per side; UDP socket link between them (or to nowhere for one VM).
base_port=$(( 20000 + ($$ % 2000) * 4 ))
start_vm() { # side(1|2) stack role ip ip6 peer_ip peer_stack
	local side=$1 vstack=$2 role=$3 out=$run_dir/vm$1
	local vkver vkernel vinitrd vmodroot vmem vsmp vappend vtree vcompat vkmod
	vm_kernel "$vstack"
	mkdir -p "$out"
	gather_modules "$out/modules" "$vstack" || return 1
	cat > "$out/run.env" <<ENV
KVER=$vkver
RDMA_KMOD_MODROOT=$( [ "$vmodroot" != / ] && echo "$vmodroot")
RDMA_KMOD_KMOD_DIR=$vkmod
RDMA_KMOD_SRC=$top
RDMA_KMOD_TOOLS=$top/build/tools
RDMA_KMOD_STACK=$vstack
RDMA_KMOD_ROLE=$role
RDMA_KMOD_IP=$4
RDMA_KMOD_IP6=$5
RDMA_KMOD_PEER_IP=$6
RDMA_KMOD_PEER_STACK=$7
RDMA_KMOD_MODULES=/mnt/out/modules
RDMA_KMOD_COMPAT_STATUS=/mnt/out/modules.compat-status
RDMA_KMOD_TESTS="$(for t in $list; do case $t in $run_dir/*) echo -n " /mnt/out/../cmd.sh" ;; *) echo -n " $t" ;; esac; done)"
RDMA_KMOD_TEST_TIMEOUT=$test_timeout
RDMA_KMOD_SHELL=$( [ $shell = 1 ] && echo 1)
ENV
	[ ${#envs[@]} = 0 ] || printf '%s\n' "${envs[@]}" >> "$out/run.env"
	[ -n "$cmd" ] && cp "$run_dir/cmd.sh" "$out/cmd.sh" &&
		sed -i 's, /mnt/out/../cmd.sh, /mnt/out/cmd.sh,' "$out/run.env"
	local lport=$((base_port + side)) rport=$((base_port + 3 - side))
	[ $twovm = 1 ] || rport=$((base_port + 3))
	local console=(-chardev "file,id=con,path=$out/console.txt" -serial chardev:con)
	[ $shell = 1 ] && console=(-chardev stdio,id=con,signal=off -serial chardev:con)
	# no_timer_check: a boot starved of host CPU failed the IO-APIC
	# timer check and panicked ("IO-APIC + timer doesn't work").
	local qemu=(timeout -k 10 "$timeout" qemu-system-x86_64 -machine pc -accel tcg,thread=multi
		-cpu max -smp "$vsmp" -m "$vmem" -nodefaults -display none -vga none -no-reboot
		-kernel "$vkernel" -initrd "$vinitrd"
		-append "console=ttyS0,115200 panic=-1 oops=panic quiet rdinit=/init tsc=reliable no_timer_check mitigations=off $vappend RDMA_KMOD_GUEST=$top/scripts/vm/guest.sh"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$out,mount_tag=out,security_model=none"
		-netdev "socket,id=n0,udp=127.0.0.1:$rport,localaddr=127.0.0.1:$lport"
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:5$side"
		"${console[@]}")
	if [ $shell = 1 ]; then
		"${qemu[@]}" < /dev/stdin
		return
	fi
	"${qemu[@]}" < /dev/null > "$out/qemu.txt" 2>&1 &
	local qpid=$! waited=0
	# A kernel that never reaches the guest (seen on the debug kernel: a
	# flood of KASAN reports from its first millisecond, in one boot of
	# several) ends here, not at the VM's time limit hours later.
	while [ ! -e "$out/guest.log" ] && kill -0 $qpid 2>/dev/null; do
		sleep 5
		waited=$((waited + 5))
		[ $waited -lt "$boot_limit" ] && continue
		echo "no guest after ${boot_limit}s" > "$out/bootfail"
		kill $qpid
		break
	done
	# A peer its test powers off on purpose goes at once, as a pulled plug
	# (the stock kernel's own power-off once locked up in softirq under
	# siw traffic, holding the suite until the VM's time limit); a guest
	# that ended its tests has off_limit seconds to power off.
	local ended=0
	while kill -0 $qpid 2>/dev/null; do
		if [ -s "$out/poweroff" ]; then
			kill $qpid
			break
		fi
		if [ -s "$out/rc" ]; then
			ended=$((ended + 1))
			if [ $ended -gt "$off_limit" ]; then
				echo "no power-off ${off_limit} s after its tests ended" > "$out/stuck"
				kill $qpid
				break
			fi
		fi
		sleep 1
	done
	wait $qpid
}

# The journal: what the VMs' results say so far, every 15 s, so that a run
# killed with its caller still tells which tests passed.
journal_copy() {
	local out side
	for out in "$run_dir"/vm*; do
		side=$(basename "$out")
		[ -s "$out/results" ] || continue
		cp "$out/results" "$journal/$side.results.tmp" &&
			mv "$journal/$side.results.tmp" "$journal/$side.results"
	done
}
jpid=""
if [ -n "$journal" ]; then
	mkdir -p "$journal" || exit 2
	while sleep 15 && kill -0 $$ 2>/dev/null; do journal_copy; done &
	jpid=$!
fi

start=$(date +%s)
if [ $twovm = 1 ]; then
	start_vm 2 "$peer_stack" server 192.0.2.2 2001:db8::2 192.0.2.1 "$stack" &
	peer=$!
	start_vm 1 "$stack" client 192.0.2.1 2001:db8::1 192.0.2.2 "$peer_stack"
	wait $peer
else
	start_vm 1 "$stack" single 192.0.2.1 2001:db8::1 "" ""
fi
qrc=$?
if [ -n "$jpid" ]; then
	kill $jpid
	wait $jpid 2>/dev/null
	journal_copy
fi

# Collect: results, guest output, dmesg; decide.
status=0
: > "$log"
for out in "$run_dir"/vm*; do
	side=$(basename "$out")
	{
		echo "##### $side console"; cat "$out/console.txt" "$out/qemu.txt" 2>/dev/null
		echo "##### $side guest output"; cat "$out/guest.log" 2>/dev/null
		echo "##### $side dmesg"; cat "$out/dmesg.txt" 2>/dev/null
		[ -s "$out/kmemleak.txt" ] && { echo "##### $side kmemleak"; cat "$out/kmemleak.txt"; }
		# rdma_fuzz_sys's journals (fuzz_sys.sh): the calls that ran last,
		# which name the culprit if the guest died under the fuzzer.
		for j in "$out"/fuzz_sys/worker*.journal; do
			[ -s "$j" ] || continue
			echo "##### $side fuzz journal ${j##*/} (latest calls)"
			tr -d '\000' < "$j" | sed 's/ *$//' | grep . | sort -t' ' -k3.2,3n -k1,1n | tail -8
		done
	} >> "$log"
	[ $verbose = 1 ] && cat "$out/guest.log" 2>/dev/null
	[ $shell = 1 ] && continue
	# A VM its test powered off on purpose (scripts/vm/poweroff-now.sh) did
	# not clean up or unload; only the last test may do that.
	if [ -s "$out/poweroff" ]; then
		off=$(cat "$out/poweroff")
		echo "$side: powered off on purpose by $off (no cleanup or unload there)"
		case "$list" in
		*/"$off".sh) ;;
		*) echo "FAIL: $side powered off by $off before its later tests"; status=1 ;;
		esac
	fi
	if [ -s "$out/bootfail" ]; then
		echo "FAIL: $side never started its tests: $(cat "$out/bootfail"); the console's first report:"
		grep -m 3 -E 'BUG:|WARNING:|Kernel panic' "$out/console.txt"
		status=1
		continue
	fi
	if [ ! -s "$out/rc" ]; then
		echo "FAIL: $side did not finish (qemu rc $qrc, timeout ${timeout}s?)" \
			"while running $(cat "$out/current" 2>/dev/null)"
		status=1
		# What did finish, and how long each took, says where the time went.
		sed "s/^/$side before: /" "$out/results" 2>/dev/null
		sort -k2 -n -r "$out/times" 2>/dev/null | head -8 | sed "s/^/$side slowest: /"
		continue
	fi
	[ "$(cat "$out/rc")" = 0 ] || status=1
	if [ -s "$out/stuck" ]; then
		echo "FAIL: $side $(cat "$out/stuck"); the console's first report:"
		grep -m 3 -E 'BUG:|WARNING:|rcu: INFO|Kernel panic' "$out/console.txt"
		status=1
	fi
	[ "$side" = vm1 ] && cat "$out/results"
	[ "$side" = vm1 ] || sed "s/^/peer: /" "$out/results"
	sort -k2 -n -r "$out/times" 2>/dev/null | head -5 | sed "s/^/$side slowest: /" | tee -a "$log"
	splats=$(splats "$out/dmesg.txt")
	if [ -n "$splats" ]; then
		echo "FAIL: $side kernel splat:"; echo "$splats" | head -20; status=1
	fi
done
[ -n "$cmd" ] && [ $verbose = 0 ] && cat "$run_dir/vm1/guest.log" 2>/dev/null
echo "run.sh: $(( $(date +%s) - start ))s, log $log, status $status"
[ -z "$journal" ] || echo "$status" > "$journal/status"
exit $status
