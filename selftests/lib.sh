# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared by the VM selftests (sourced, not run): result counting and checks.
# Few execs on purpose: each costs 0.1-0.5 s under TCG.

fails=0
# The guest's uptime after each step says where a test's time goes (read,
# not date: no exec).
ok() {
	read -r _up _ < /proc/uptime
	echo "ok:   $1 [${_up%.*} s]"
}
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

# slow_kernel: true where the runner stretches the tests' time (the debug
# kernel): tests run fewer iterations there, over the same paths.
slow_kernel() {
	[ "${RDMA_KMOD_TIME_FACTOR:-1}" != 1 ]
}

# expected FILE: a recorded answer (selftests/vm/expected/) as this VM
# gives it: rxe and siw offer a completion vector per CPU, and the files
# were recorded in VMs of two.
expected() {
	sed "s/\(num_comp_vectors:[[:space:]]*\)2\$/\1$(nproc)/" "$1"
}

# rxe0 on eth0, created fresh.
rxe_up() {
	modprobe rdma_rxe || return 1
	modprobe ib_uverbs || return 1
	rdma link add rxe0 type rxe netdev eth0 || return 1
}

# gid_index_of GID [TYPE]: the index of GID (as sysfs prints it, so
# ::ffff:a.b.c.d for IPv4) whose gid_attrs/types entry is TYPE ("RoCE v2"
# unless given; "IB/RoCE v1" for RoCE v1). Our rxe has a v1 and a v2 entry
# per address, the stock one v2 only, so tests pick by type, never by value
# alone. Shell builtins only.
gid_index_of() {
	want=$1 wtype=${2:-RoCE v2}
	for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
		read -r g <"$f" 2>/dev/null || continue
		[ "$g" = "$want" ] || continue
		gix=${f##*/}
		read -r gty <"/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$gix" 2>/dev/null || continue
		[ "$gty" = "$wtype" ] && { echo "$gix"; return 0; }
	done
	return 1
}

# pair NAME TIMEOUT SERVER-CMD... -- CLIENT-CMD...: runs a server in the
# background and the client against it; both must exit 0. A client turned
# away (see pair_once) gets a fresh pair. A perftest pair whose own rdma_cm
# handshake failed (its sync messages flushed on both ends, seen rarely on
# siw loopback, cause not found; perftest posts those receives before it
# connects) is run once more, with the first attempt's output shown.
pair() {
	name=$1 pair_limit=$2
	shift 2
	srv=""
	while [ "$1" != "--" ]; do srv="$srv $1"; shift; done
	shift
	for attempt in 1 2; do
		pair_once "$@"
		[ $crc = 0 ] && [ $src = 0 ] && break
		[ $attempt = 1 ] && grep -qE 'Failed to (sync|exchange data) between' \
			/tmp/pair.srv /tmp/pair.cli || break
		echo "note: $name: perftest's own handshake failed; once more"
		echo "  --- server:"; cat /tmp/pair.srv
		echo "  --- client:"; cat /tmp/pair.cli
	done
	if [ $crc = 0 ] && [ $src = 0 ]; then
		ok "$name"
	else
		bad "$name (client $crc, server $src)"
		echo "  --- server:"; cat /tmp/pair.srv
		echo "  --- client:"; cat /tmp/pair.cli
	fi
}

# rping_short OUTPUT CMD...: true (and says so) when CMD is an rping -v -C N
# whose OUTPUT has fewer than N verified pings: rping exits 0 even when it
# gave up early (a connection that ended, a peer that never answered).
rping_short() {
	rs_out=$1
	shift
	[ "$1" = rping ] || return 1
	case " $* " in *" -v "*) ;; *) return 1 ;; esac
	rs_want=$(echo "$*" | sed -n 's/.* -C \([0-9]*\).*/\1/p')
	[ -n "$rs_want" ] || return 1
	rs_got=$(grep -c "ping data: " "$rs_out")
	[ "$rs_got" -lt "$rs_want" ] || return 1
	echo "rping: exit 0, but $rs_got of $rs_want pings verified"
}

# pair_once CLIENT-CMD... (for pair, server command in $srv): sets crc, src.
# A client turned away while its server runs (refused: not listening yet on
# a loaded host; REJECTED: not listening again yet, as perftest -R's server
# between its two connections; a SIDR answer of 1, no such service: udaddy's
# server not listening yet) gets a fresh pair, the client a second later
# each time: a server left in a half-done exchange would wait for a client
# that is gone. Line-buffered: a pair killed at its limit shows how far it got.
pair_once() {
	po_delay=1
	for po_try in 1 2 3 4 5 6; do
		# shellcheck disable=SC2086
		timeout "$pair_limit" stdbuf -oL $srv >/tmp/pair.srv 2>&1 &
		spid=$!
		sleep $po_delay
		if timeout "$pair_limit" stdbuf -oL "$@" >/tmp/pair.cli 2>&1; then crc=0; else crc=$?; fi
		[ $crc != 0 ] && [ $po_try != 6 ] && kill -0 $spid 2>/dev/null &&
			grep -qiE 'refused|REJECTED|connect to|Unexpected CM event .* 8$|event: UNREACHABLE, error: 1$' /tmp/pair.cli || break
		echo "note: $name: client turned away (try $po_try): a fresh pair"
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		po_delay=$((po_delay + 1))
	done
	if wait $spid; then src=0; else src=$?; fi
	# rping's server may exit 255 at its end: its CM thread reads the event
	# channel that the main thread, done, already destroyed (EBADF: a race
	# of rping's own, no kernel returns that for an open file). With the
	# disconnect seen and every ping verified (below), it passed.
	case "$srv" in
	" rping "*)
		[ $src = 255 ] && grep -q "DISCONNECT EVENT" /tmp/pair.srv &&
			[ "$(tail -n 1 /tmp/pair.srv)" = "rdma_get_cm_event: Bad file descriptor" ] &&
			src=0 && echo "note: $name: rping server's EBADF at its end (its own race)"
		;;
	esac
	[ $crc = 0 ] && rping_short /tmp/pair.cli "$@" >>/tmp/pair.cli && crc=1
	# shellcheck disable=SC2086
	[ $src = 0 ] && rping_short /tmp/pair.srv $srv >>/tmp/pair.srv && src=1
	return 0
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

# wait_gone PID SECONDS: true once PID has exited.
wait_gone() {
	for _ in $(seq "$2"); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 1
	done
	return 1
}

# kern_cm_test ADDR: selftests/kmod/rdma_cm_kern_test.ko (a kernel ULP's
# rdma_cm connection, Send, rdma_rw WRITE and READ on the device of ADDR,
# bytes compared) loads only if every check passed; built against our
# ib_core, so on our stack only.
kern_cm_test() {
	ko=$RDMA_KMOD_SRC/selftests/kmod/rdma_cm_kern_test.ko
	modprobe rdma_cm || { bad "modprobe rdma_cm"; return; }
	if insmod "$ko" addr="$1"; then
		ok "kernel ULP over rdma_cm on $1: all checks passed"
		rmmod rdma_cm_kern_test || bad "rmmod rdma_cm_kern_test"
	else
		bad "rdma_cm_kern_test on $1"
	fi
	dmesg | grep 'rdma_cm_kern_test:' | tail -40 | sed 's/^\[[^]]*\] //'
}

# wait_res WHAT REGEX [TRIES]: until `rdma res show WHAT` has a matching
# line, polled every 0.5 s (60 times unless TRIES).
wait_res() {
	for _ in $(seq "${3:-60}"); do
		rdma res show $1 2>/dev/null | grep -qE "$2" && return 0
		sleep 0.5
	done
	return 1
}

# wait_tcp_listen PORT [TRIES]: until a TCP socket (a kernel one too, as
# siw's listeners) listens on PORT (0.3 s per try, 100 tries by default).
# The remote address of a listener is 8 zeros in tcp, 32 in tcp6 (qperf
# listens on ::).
wait_tcp_listen() {
	wtl=$(printf ':%04X 0*:0000 0A' "$1")
	i=0
	until grep -q "$wtl" /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt "${2:-100}" ] || return 1
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

# ipv4_gid_index [TYPE]: the GID index of our IPv4 address on rxe0
# (192.0.2.1, or .2 on the peer VM of the two-VM mode), of TYPE ("RoCE v2"
# unless given), once the table has it.
ipv4_gid_index() {
	h=c000:0201
	[ "${RDMA_KMOD_PEER_IP:-}" = 192.0.2.1 ] && h=c000:0202
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		gid_index_of 0000:0000:0000:0000:0000:ffff:$h "${1:-RoCE v2}" && return 0
		sleep 0.5
	done
	return 1
}

# siw0 on eth0 from a freshly loaded siw (its per-load device counter is
# what ibv_devinfo shows as vendor_part_id); arguments are siw module
# parameters. Also the verbs and rdma_cm user interfaces.
siw_up() {
	# ib_uverbs must be registered before rdma_cm: clients are removed
	# in reverse order, and ib_uverbs waits for the processes' files
	# while their rdma_cm ids still wait for DEVICE_REMOVAL (the stock
	# stack hangs the same way). A test before may have loaded rdma_cm
	# first (ours loads ib_uverbs on demand), so reload it after.
	modprobe -r rdma_ucm 2>/dev/null
	modprobe -r siw 2>/dev/null
	modprobe siw "$@" || return 1
	modprobe ib_uverbs || return 1
	modprobe rdma_ucm || return 1
	rdma link add siw0 type siw netdev eth0
}

# peer_exchange WORD: in two-VM tests, a barrier that also swaps one word:
# returns once the other VM has called peer_exchange too and prints its
# WORD. vm1 listens on TCP 7600, the peer knocks; 10 minutes at most.
peer_exchange() {
	if [ "$RDMA_KMOD_ROLE" = client ]; then
		echo "$1" | timeout 600 busybox nc -l -p 7600 2>/dev/null
		return
	fi
	for _ in $(seq 1200); do
		got=$(echo "$1" | busybox nc -w 2 "$RDMA_KMOD_PEER_IP" 7600 2>/dev/null) &&
			[ -n "$got" ] && { echo "$got"; return 0; }
		sleep 0.5
	done
	return 1
}

# peer_barrier: the next step starts only after both VMs finished the last.
peer_barrier() {
	[ -n "$(peer_exchange x)" ]
}

# wait_peer: the two-VM peer answers pings (up to a minute).
wait_peer() {
	wpn=0
	until busybox ping -c 1 -W 1 "$RDMA_KMOD_PEER_IP" >/dev/null 2>&1; do
		wpn=$((wpn + 1))
		# the debug kernel's side boots and loads its modules slowly
		[ $wpn -lt $((60 * ${RDMA_KMOD_TIME_FACTOR:-1})) ] ||
			die "peer $RDMA_KMOD_PEER_IP unreachable"
	done
}

# ulp_ours NAME...: on our stack, each module NAME loaded is our ulp/ one
# (in updates/, our description), not a rebuilt in-tree consumer.
ulp_ours() {
	[ "$RDMA_KMOD_STACK" = ours ] || return 0
	for nm in "$@"; do
		from_updates "$nm" && modinfo -F description "$nm" | grep -q rdma-kmod &&
			ok "$nm loaded is ours" || bad "$nm loaded is not ours"
	done
}

# peer_agree STATE WHAT (two-VM mode): after wait_peer, swaps STATE ("ready"
# or why not) with the peer; dies if this side cannot run WHAT, and ends
# the test here (finish, exit) if the peer cannot.
peer_agree() {
	pa_other=$(peer_exchange "$1")
	[ "$1" = ready ] || die "$2 not usable here"
	[ "$pa_other" = ready ] && return 0
	echo "note: the peer cannot run it ($pa_other)"
	finish
	exit
}

# step NAME SERVER-ROLE TIMEOUT CMD... (two-VM mode): the VM whose role is
# SERVER-ROLE runs CMD, the other runs CMD PEER_IP, retrying while the
# server is not listening yet (TCP: "Couldn't connect to"; rdma_cm: REJ
# with reason 8, invalid service ID) or ARP is slow under load (rdma_cm
# address resolution timeout). Both must exit 0; output in /tmp/step.out.
step() {
	name=$1 srole=$2 step_limit=$3
	shift 3
	# perftest gives up before its exchange when it cannot time the CPU
	# (under TCG its clock samples can scatter: "Correlation coefficient
	# r^2 ... < 0.9"); its peer then fails the exchange. Both run once
	# more, the server after such a failed exchange, the client after
	# either.
	if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
		side=server
		for _ in 1 2; do
			timeout "$step_limit" "$@" >/tmp/step.out 2>&1
			rc=$?
			[ $rc != 0 ] && grep -qE 'Failed to (sync|exchange data) between' \
				/tmp/step.out || break
			echo "note: $name: perftest's exchange failed; once more"
			cat /tmp/step.out
		done
	else
		side=client
		# Until the server listens: a refused TCP connect, a CM reject
		# 8 (no such service), as each tool words it (rc_soak:
		# "rdma_connect: Connection refused"); longer on a slow kernel.
		for _ in $(seq $((10 * ${RDMA_KMOD_TIME_FACTOR:-1}))); do
			sleep 1
			timeout "$step_limit" "$@" "$RDMA_KMOD_PEER_IP" >/tmp/step.out 2>&1
			rc=$?
			[ $rc = 0 ] && break
			grep -qiE "connect to|rdma_connect: Connection refused|EVENT_REJECTED, error:? 8|Unexpected CM event .* 8\$|EVENT_ADDR_ERROR|Can't produce a report|Failed to (sync|exchange data) between" \
				/tmp/step.out || break
			grep -qE "Can't produce a report|Failed to (sync|exchange data) between" /tmp/step.out &&
				{ echo "note: $name: perftest failed before its test; once more"; cat /tmp/step.out; }
		done
	fi
	if [ $rc = 0 ]; then
		ok "$name ($side on $RDMA_KMOD_STACK)"
	else
		bad "$name ($side on $RDMA_KMOD_STACK, exit $rc)"
		cat /tmp/step.out
	fi
}

# compat_status NAME: "built" or "blocked REASON" for a distribution consumer
# as scripts/compat/build.sh left it (status.txt; names with - or _ alike);
# nothing when there is no result.
compat_status() {
	[ -r "${RDMA_KMOD_COMPAT_STATUS:-}" ] || return 0
	awk -F'\t' -v m="$1" 'BEGIN { gsub("-", "_", m) }
		{ n = $1; gsub("-", "_", n) }
		n == m { print $2 ($3 != "" ? " " $3 : ""); exit }' "$RDMA_KMOD_COMPAT_STATUS"
}

# need_module NAME...: the distribution's consumers a test uses. On our
# stack each must be the one rebuilt on our core (in updates/, next to our
# modules); otherwise the test ends here naming why (status.txt).
need_module() {
	[ "$RDMA_KMOD_STACK" = ours ] || return 0
	for nm in "$@"; do
		from_updates "$nm" && continue
		nm_why=$(compat_status "$nm")
		die "$nm is not rebuilt on our core: ${nm_why:-no result, run make compat}"
	done
}

# from_updates NAME: true when the loaded module NAME is the updates/ one.
from_updates() {
	case "$(modinfo -n "$1" 2>/dev/null)" in */updates/*) return 0 ;; esac
	return 1
}

# is_build MODULE FILE: the loaded MODULE was built as FILE: the GNU build
# id in its sysfs notes ends the note (Debian's kernel gives modules without
# MODULE_VERSION no srcversion to compare).
is_build() {
	_id=$(readelf -n "$2" 2>/dev/null | sed -n 's/.*Build ID: //p')
	_note=$(od -An -tx1 -v "/sys/module/$(echo "$1" | tr - _)/notes/.note.gnu.build-id" 2>/dev/null |
		tr -d ' \n')
	[ -n "$_id" ] && [ "${_note%"$_id"}" != "$_note" ]
}
