#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma_fuzz_sys (issue 13) on rxe0 and siw0 at once: uverbs write and
# ioctl, rdma_ucm, umad, NLDEV (extra links on a veth pair and lo added and
# deleted while the others run), configfs and sysfs, from several workers,
# one in four unprivileged, random workers SIGKILLed and respawned. Then:
# the fuzzer exited 0 (no violation: unprivileged admin commands got EPERM,
# no worker hung or died on its own), every extra link is gone, `rdma res`
# is back to its count before the run (nothing leaked), and both devices
# still carry traffic (rc_pingpong on rxe0, rping on siw0). The regression
# cases of selftests/fuzz/sys/ (seed, calls, workers) are replayed first.
# FUZZ_SEED and FUZZ_SYS_CALLS (make fuzz: a million) override the default.
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

fuzz=$RDMA_KMOD_TOOLS/rdma_fuzz_sys
start=$(date +%s)
seed=${FUZZ_SEED:-1313}
calls=${FUZZ_SYS_CALLS:-25000}
factor=${RDMA_KMOD_TIME_FACTOR:-1}
[ -x "$fuzz" ] || die "no $fuzz (make tools)"

# The journals go to the run's output share: they survive a guest oops.
jdir=/mnt/out/fuzz_sys
mkdir -p $jdir 2>/dev/null || jdir=/tmp/fuzz_sys

siw_up || die "siw0 up"
rxe_up || die "rxe0 up"
modprobe ib_umad || bad "modprobe ib_umad: umad not fuzzed"
ip link add fzv0 type veth peer name fzv1 && ip link set fzv0 up && ip link set fzv1 up ||
	bad "veth pair for the extra links"
gi=$(ipv4_gid_index) || die "no IPv4 GID"
base=$(rdma res show 2>&1)
echo "before: $base"

# run_fuzz SEED CALLS WORKERS WHAT
run_fuzz() {
	# A million calls on the debug kernel take about an hour.
	max=$(( (300 + $2 / 100) * factor ))
	"$fuzz" --seed "$1" --calls "$2" --workers "$3" --journal "$jdir" \
		--devices rxe0,siw0 --link-netdevs fzv0,fzv1,lo --max-seconds $max \
		>/tmp/fuzz.out 2>&1
	rc=$?
	grep '^fuzz_sys: progress' /tmp/fuzz.out | tail -3
	grep -v '^fuzz_sys: progress' /tmp/fuzz.out | tail -20
	if [ $rc = 0 ]; then
		ok "$4: fuzzer exited 0"
	else
		bad "$4: fuzzer exited $rc"
		for j in "$jdir"/worker*.journal; do
			echo "  --- $j (ring of the latest calls)"; sort "$j" | tail -5
		done
	fi
}

# A case replays its fuzz run when it fits the run's budget (a long case
# only in long runs); a case with a targeted check (a tool of
# tools/fuzz/sys) runs that every time.
for case in "$RDMA_KMOD_SRC"/selftests/fuzz/sys/*.case; do
	[ -f "$case" ] || continue
	long_case=0 check_case=""
	# shellcheck disable=SC1090
	. "$case"
	echo "# regression case ${case##*/}: $description"
	# The checks assert our modules' fixes; the stock ones lack them.
	[ "${RDMA_KMOD_STACK:-ours}" = ours ] || check_case=""
	if [ -n "$check_case" ]; then
		# shellcheck disable=SC2086
		if "$RDMA_KMOD_TOOLS"/$check_case; then
			ok "case ${case##*/}: $check_case"
		else
			bad "case ${case##*/}: $check_case"
		fi
	fi
	if [ "$long_case" = 0 ] || [ "$calls" -ge "$calls_case" ]; then
		run_fuzz "$seed_case" "$calls_case" "$workers_case" "case ${case##*/}"
	fi
done

echo "# seed $seed, $calls calls"
t0=$(date +%s)
run_fuzz "$seed" "$calls" 4 "seed $seed"
echo "fuzz run: $(( $(date +%s) - t0 )) s"
grep -q '^fuzz_sys: seed ' /tmp/fuzz.out || bad "no summary line"

n=$(rdma link show | grep -c '^link fz')
expect_eq "extra links deleted" "$n" 0
ip link del fzv0 2>/dev/null

# The workers' files are closed; their objects go as the kernel releases
# them (rxe's QP cleanup runs from a work queue).
for _ in $(seq $((20 * factor))); do
	[ "$(rdma res show 2>&1)" = "$base" ] && break
	sleep 1
done
expect_eq "rdma res back to before the run (no leaked ctx/pd/cq/qp/mr/cm_id)" \
	"$(rdma res show 2>&1)" "$base"
[ "$(rdma res show 2>&1)" = "$base" ] || {
	rdma res show qp; rdma res show cm_id; rdma res show pd; rdma res show mr
}

pair "rc_pingpong on rxe0 after the fuzz" 60 ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 -- \
	ibv_rc_pingpong -d rxe0 -g "$gi" -n 20 192.0.2.1
rdma link delete rxe0 || bad "link delete rxe0"
# With rxe0 gone, rdma_cm resolves 192.0.2.1 to siw0.
pair "rping on siw0 after the fuzz" 60 rping -s -a 192.0.2.1 -C 3 -v -- \
	rping -c -a 192.0.2.1 -C 3 -v
rdma link delete siw0 || bad "link delete siw0"
echo "fuzz_sys.sh: $(( $(date +%s) - start )) s"
finish
