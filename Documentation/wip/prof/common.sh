# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Guest helpers for the profiling runs (Documentation/performance.md).
. "$RDMA_KMOD_SRC/selftests/lib.sh"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing 2>/dev/null
echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
PR="perf report --stdio --no-children --kallsyms=/proc/kallsyms"
# pt DEV-ARGS TEST SIZE ITERS [EXTRA...]: server in background, client line
pt() {
	dargs=$1 t=$2 s=$3 n=$4; shift 4
	timeout 300 $t $dargs -s $s -n $n "$@" >/dev/null 2>&1 &
	sleep 2
	timeout 300 $t $dargs -s $s -n $n "$@" $PEER 2>&1 | grep -E "^ *$s +[0-9]" | tail -1
	wait
}
# ptp DEV-ARGS TEST SIZE ITERS TAG: as pt, the client under perf record -a -g
ptp() {
	dargs=$1 t=$2 s=$3 n=$4 tag=$5
	timeout 300 $t $dargs -s $s -n $n >/dev/null 2>&1 &
	sleep 2
	perf record -q -a -g -e cpu-clock -o /tmp/$tag.data -- timeout 300 $t $dargs -s $s -n $n $PEER 2>&1 | grep -E "^ *$s +[0-9]" | tail -1
	wait
	echo "=== PROFILE $tag (flat, self) ==="
	$PR -i /tmp/$tag.data --sort sym -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -45
	echo "=== PROFILE $tag (by comm) ==="
	$PR -i /tmp/$tag.data --sort comm -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
	echo "=== PROFILE $tag (by dso) ==="
	$PR -i /tmp/$tag.data --sort dso -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12
	rm -f /tmp/$tag.data
}
# siw_start: siw0 up on eth0, the peer's address and perftest's device
# arguments set, the run's header printed.
siw_start() {
	siw_up || exit 1
	sleep 1
	PEER=192.0.2.1
	D="-d siw0 -R"
	echo "stack=$RDMA_KMOD_STACK nproc=$(nproc) $(uname -r)"
}
# rxe_start: rxe0 on eth0, perftest's device arguments (the RoCE v2 GID of
# 192.0.2.1) and the loopback peer set, the run's header printed.
rxe_start() {
	modprobe rdma_rxe && modprobe ib_uverbs && rdma link add rxe0 type rxe netdev eth0 || exit 1
	sleep 1
	g4=$(gid_index_of 0000:0000:0000:0000:0000:ffff:c000:0201) || exit 1
	D="-d rxe0 -x $g4 -F"
	PEER=127.0.0.1
	echo "stack=$RDMA_KMOD_STACK nproc=$(nproc) $(uname -r)"
}
# event_counts FILE: how many of each tracepoint a `perf script` dump holds
event_counts() {
	awk '{for(i=1;i<=NF;i++) if ($i ~ /^[a-z_]+:[a-z_]+:$/) {c[$i]++; break}} END{for(k in c) print c[k], k}' "$1" | sort -rn
}
