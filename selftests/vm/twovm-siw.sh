#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Issue 5: Soft-iWARP interop on the wire. This VM (ours) and the peer
# (stock kernel with upstream siw, scripts/peer/upstream-siw.sh) run the same
# steps in lockstep, each side once as server and once as client, with MPA
# CRC off and then on (siw's mpa_crc_required parameter, the same on both
# sides): rping -C 20 -v and rping -S 65535 -C 10 -v (data verified),
# ib_write_bw -R, ib_read_bw -R. On ours, the payload of the large
# transfers must go out by zero copy with CRC off and never with CRC on
# (/sys/kernel/debug/siw/zcopy_bytes).
# Both ends must exit 0. Where the side runs upstream siw, its debug line
# "enter RTS: crc=y|n" proves what MPA negotiated. A step whose server is
# upstream siw, or where only the upstream side failed, is retried (twice at
# most): the reference has two races of its own that these VMs hit, also
# with upstream siw on both ends. (1) It stalls as the responder (see
# watch_stall). (2) Its last Send of perftest's closing handshake completes
# in error (status 2) although the other side got it: that side exits at
# once, and the FIN reaches upstream before its tx work has completed the
# WQE (seen with upstream as server and as client).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

siw_up || die "siw0 up"
wait_peer
mine=$(ip -4 -o addr show eth0 | awk '{ sub("/.*", "", $4); print $4 }')

# Upstream siw logs the negotiated CRC at RTS (dynamic debug).
dyndbg=/sys/kernel/debug/dynamic_debug/control
if [ "$RDMA_KMOD_STACK" = stock ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	echo 'module siw format "enter RTS" +p' >$dyndbg || bad "siw dynamic debug"
	# the CM's events, for a failed step's dmesg below
	echo 'file siw_cm.c +p' >$dyndbg
fi
rts_count() { dmesg | grep -c "enter RTS: crc=$1"; }
zc_bytes=/sys/kernel/debug/siw/zcopy_bytes
if [ "$RDMA_KMOD_STACK" = ours ]; then
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
fi
zc_read() { if [ -r $zc_bytes ]; then read -r zc <$zc_bytes; else zc=0; fi; }

# watch_stall PID: kill the server PID when one of its TCP connections
# keeps the same unread bytes for 15 s: nothing will ever read them. This is
# how upstream 6.1 siw stalls as the responder: siw_accept sends the MPA
# reply before it hands the socket's data_ready callback to the QP, so a
# first FPDU that arrives in between wakes the CM, which ignores it, and
# the QP never sees it (the client waits for the answer, the server for
# the message). Minutes of timeout become seconds.
watch_stall() {
	last="" same=0
	while kill -0 "$1" 2>/dev/null; do
		sleep 5
		now=$(ss -tnH state established 2>/dev/null |
			awk '$1 > 0 && $3 !~ /:7600$/ { print $3, $4, $1 }')
		if [ -n "$now" ] && [ "$now" = "$last" ]; then
			same=$((same + 1))
		else
			same=0
		fi
		last=$now
		if [ $same -ge 3 ]; then
			echo "stalled: bytes unread in the server's socket for 15 s" \
				"(local, remote, bytes): $now"
			kill "$1"
			return
		fi
	done
}

# attempt SERVER-ROLE TIMEOUT CMD...: once both VMs are at the step, the VM
# whose role is SERVER-ROLE runs CMD, the other runs CMD PEER_IP once the
# server listens (retrying a refused connect). Sets rc and side. An rping also
# needs its -C count of verified pings (rping_short).
attempt() {
	srole=$1 t=$2
	shift 2
	peer_barrier || echo "note: peer did not come to the step"
	if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
		side=server
		timeout "$t" stdbuf -oL "$@" >/tmp/step.out 2>&1 &
		spid=$!
		watch_stall $spid >/tmp/step.stall 2>&1 &
		wpid=$!
		# A hung server: show where it sleeps before it is killed.
		( sleep $((t - 2)); for p in $(pgrep -x "$1"); do
			echo "--- $1 ($p) still running:"
			for s in /proc/$p/task/*/wchan; do read -r w <$s; echo "  $s: $w"; done
		  done; rdma res show cm_id; rdma res show qp; ss -tni ) >/tmp/step.diag 2>&1 &
		dpid=$!
		# The client connects once this server listens: a slow side
		# (the debug kernel) was not listening yet, and the stock
		# rping whose connect was refused hung until its timeout.
		wait_res cm_id 'state LISTEN' $((60 * ${RDMA_KMOD_TIME_FACTOR:-1}))
		peer_exchange listening >/dev/null
		wait $spid
		rc=$?
		kill $dpid $wpid 2>/dev/null
		wait $wpid 2>/dev/null
		[ $rc = 0 ] || cat /tmp/step.stall /tmp/step.diag
	else
		side=client
		peer_exchange x >/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			sleep 1
			t0=$(date +%s)
			timeout "$t" stdbuf -oL "$@" "$RDMA_KMOD_PEER_IP" >/tmp/step.out 2>&1
			rc=$?
			took=$(($(date +%s) - t0))
			echo "--- attempt rc $rc after $took s" >>/tmp/step.all
			cat /tmp/step.out >>/tmp/step.all
			# A quick failure is a refused connect: the server is
			# not listening yet. A later one is a real failure.
			[ $rc = 0 ] || [ $took -gt 15 ] && break
		done
	fi
	[ $rc = 0 ] && rping_short /tmp/step.out "$@" && rc=1
}

# step NAME SERVER-ROLE TIMEOUT CMD...: one attempt; both VMs then swap
# their exit status and stack. When upstream siw was the server and either
# end failed, or only the upstream end failed, the step runs again, at most
# twice more, said so in the output (see the header). A failure of ours
# with our siw serving is never retried.
step() {
	name=$1
	shift
	tries=0
	# For a failure's report: every client attempt's output (a quick
	# failure is retried and its output was lost), counters, dmesg.
	: >/tmp/step.all
	rdma statistic show link siw0/1 >/tmp/cnt0 2>&1
	d0=$(dmesg | wc -l)
	while :; do
		attempt "$@"
		other=$(peer_exchange "$rc:$RDMA_KMOD_STACK")
		orc=${other%%:*} ostack=${other#*:}
		[ $side = server ] && sstack=$RDMA_KMOD_STACK || sstack=$ostack
		# Did a side running ours fail? (Both VMs decide alike.)
		ours_failed=0
		[ $rc != 0 ] && [ "$RDMA_KMOD_STACK" = ours ] && ours_failed=1
		[ "$orc" != 0 ] && [ "$ostack" = ours ] && ours_failed=1
		{ [ $rc != 0 ] || [ "$orc" != 0 ]; } &&
			{ [ "$sstack" = stock ] || [ $ours_failed = 0 ]; } &&
			[ $tries -lt 2 ] || break
		tries=$((tries + 1))
		echo "note: $name: upstream siw serving or alone failing, exit $rc here, $orc there:"
		tail -8 /tmp/step.out
		echo "note: $name: retry $tries (upstream races, see the header)"
	done
	if [ $rc = 0 ]; then
		ok "$name ($side on $RDMA_KMOD_STACK)"
	else
		bad "$name ($side on $RDMA_KMOD_STACK, exit $rc)"
		tail -30 /tmp/step.out
		echo "=== counters before/after"
		cat /tmp/cnt0; rdma statistic show link siw0/1 2>&1
		echo "=== endpoints"; cat /sys/kernel/debug/siw/endpoints 2>/dev/null
		echo "=== all client attempts"; cat /tmp/step.all
		echo "=== dmesg since"; dmesg | tail -n +$((d0 + 1)) | tail -150
	fi
}

for crc in 0 1; do
	echo "$crc" >/sys/module/siw/parameters/mpa_crc_required ||
		bad "siw parameter mpa_crc_required"
	[ $crc = 1 ] && c=on || c=off
	y0=$(rts_count y) n0=$(rts_count n)
	zc_read
	zc0=$zc
	for srole in server client; do
		if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
			step "rping, CRC $c" $srole 120 rping -s -a "$mine" -C 20 -v
		else
			step "rping, CRC $c" $srole 120 rping -c -C 20 -v -a
		fi
		if [ "$RDMA_KMOD_ROLE" = "$srole" ]; then
			step "rping -S 65535, CRC $c" $srole 300 rping -s -a "$mine" -S 65535 -C 10 -v
		else
			step "rping -S 65535, CRC $c" $srole 300 rping -c -S 65535 -C 10 -v -a
		fi
		step "ib_write_bw -R, CRC $c" $srole 180 ib_write_bw -d siw0 -R -n 200
		step "ib_read_bw -R, CRC $c" $srole 180 ib_read_bw -d siw0 -R -n 200
	done
	if [ "$RDMA_KMOD_STACK" = ours ]; then
		zc_read
		zc=$((zc - zc0))
		if [ $crc = 1 ]; then
			[ $zc = 0 ] && ok "no zero copy with CRC on" ||
				bad "zero copy with CRC on ($zc bytes)"
		else
			[ $zc -gt 0 ] && ok "zero copy with CRC off ($zc bytes)" ||
				bad "no zero copy with CRC off"
		fi
	fi
	if [ "$RDMA_KMOD_STACK" = stock ]; then
		y=$(($(rts_count y) - y0)) n=$(($(rts_count n) - n0))
		if [ $crc = 1 ]; then
			[ $y -gt 0 ] && [ $n = 0 ] && ok "MPA CRC on ($y QPs)" ||
				bad "MPA CRC on: $y QPs with CRC, $n without"
		else
			[ $n -gt 0 ] && [ $y = 0 ] && ok "MPA CRC off ($n QPs)" ||
				bad "MPA CRC off: $n QPs without CRC, $y with"
		fi
	fi
done
echo 0 >/sys/module/siw/parameters/mpa_crc_required
sleep 2
rdma link delete siw0 || bad "link delete"
finish
