# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared by the VM selftests (sourced, not run): result counting and checks.
# Few execs on purpose: each costs 0.1-0.5 s under TCG.

fails=0
ok() { echo "ok:   $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		bad "$1"
		printf '  --- got:\n%s\n  --- want:\n%s\n' "$2" "$3"
	fi
}

# rxe0 on eth0, created fresh.
rxe_up() {
	modprobe rdma_rxe || return 1
	modprobe ib_uverbs || return 1
	rdma link add rxe0 type rxe netdev eth0 || return 1
}

# The RoCE v2 GID index of an address as it shows in the GID table
# (::ffff:a.b.c.d for IPv4), read with shell builtins only.
gid_index_of() {
	want=$1
	for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		read -r g <"$f" 2>/dev/null || continue
		[ "$g" = "$want" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

# pair NAME TIMEOUT SERVER-CMD... -- CLIENT-CMD...: runs a server in the
# background and the client against it; both must exit 0. A client refused
# because the server is not listening yet (a loaded host starts it slowly)
# tries again while the server runs.
pair() {
	name=$1 t=$2
	shift 2
	srv=""
	while [ "$1" != "--" ]; do srv="$srv $1"; shift; done
	shift
	# shellcheck disable=SC2086
	timeout "$t" $srv >/tmp/pair.srv 2>&1 &
	spid=$!
	sleep 1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		if timeout "$t" "$@" >/tmp/pair.cli 2>&1; then crc=0; else crc=$?; fi
		[ $crc != 0 ] && kill -0 $spid 2>/dev/null &&
			grep -qiE 'refused|REJECTED' /tmp/pair.cli || break
		sleep 2
	done
	if wait $spid; then src=0; else src=$?; fi
	if [ $crc = 0 ] && [ $src = 0 ]; then
		ok "$name"
	else
		bad "$name (client $crc, server $src)"
		echo "  --- server:"; cat /tmp/pair.srv
		echo "  --- client:"; cat /tmp/pair.cli
	fi
}

# wait_for FILE PATTERN [TRIES]: until FILE has a line matching PATTERN
# (0.3 s per try, 100 tries by default).
wait_for() {
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt "${3:-100}" ] || return 1
		sleep 0.3
	done
}

finish() {
	echo "$fails failed"
	[ $fails = 0 ]
}

# die MESSAGE: a failure that makes the rest of the test pointless.
die() {
	bad "$1"
	finish
	exit 1
}

# The RoCE v2 GID index of our IPv4 address on rxe0 (192.0.2.1, or .2 on
# the peer VM of the two-VM mode), once the table has it.
ipv4_gid_index() {
	h=c000:0201
	[ "${RDMA_KMOD_PEER_IP:-}" = 192.0.2.1 ] && h=c000:0202
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		gid_index_of 0000:0000:0000:0000:0000:ffff:$h && return 0
		sleep 0.5
	done
	return 1
}
