#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `rdma resource show qp|cm_id|cq|mr|pd|ctx|srq` (NLDEV RES_*_GET) on rxe0
# and siw0, with user objects from res_hold (tools/bin) and rping, and the
# kernel's own (the MAD layer's GSI QP on rxe): the lines iproute2 prints,
# the id filters (doit), -j, and a 300-PD dump that spans several netlink
# messages. Expected lines are what the stock kernel prints (--stack stock).
set -u
. "$RDMA_KMOD_SRC/selftests/lib.sh"

hold=$RDMA_KMOD_TOOLS/res_hold
a4=192.0.2.1
[ -x "$hold" ] || die "$hold not built"

# has DESC REGEX CMD...: CMD's output has a line matching REGEX (ERE);
# iproute2 ends each line with a blank, left out before matching.
has() {
	hd=$1 hre=$2
	shift 2
	hout=$("$@" 2>&1 | sed 's/ $//')
	if printf '%s\n' "$hout" | grep -qE "$hre"; then
		ok "$hd"
	else
		bad "$hd"
		echo "  --- $*; want /$hre/:"
		printf '%s\n' "$hout" | head -20
	fi
}

# show CMD...: prints the command and its output (the log is the reference).
show() {
	echo "--- $*"
	"$@" 2>&1 | head -40
}

# start_hold DEV NPD: res_hold in the background; sets hpid rc init ud.
start_hold() {
	: >/tmp/hold.out
	"$hold" "$1" "$2" >/tmp/hold.out 2>&1 &
	hpid=$!
	wait_for /tmp/hold.out '^ready' 600 || { cat /tmp/hold.out; die "res_hold $1"; }
	line=$(grep '^rc=' /tmp/hold.out)
	rc=${line#rc=}; rc=${rc%% *}
	init=${line#*init=}; init=${init%% *}
	ud=${line#*ud=}
	echo "res_hold $1: pid $hpid rc $rc init $init ud $ud"
}

# kern_ulp DEV QPSTATE: a kernel ULP's objects (rdma_cm_kern_test hold=1,
# built against our ib_core: ours only) are listed with its module name.
kern_ulp() {
	[ "$RDMA_KMOD_STACK" = ours ] || return 0
	ko=$RDMA_KMOD_SRC/selftests/kmod/rdma_cm_kern_test.ko
	modprobe rdma_cm || { bad "modprobe rdma_cm"; return; }
	insmod "$ko" addr=$a4 hold=1 || { bad "rdma_cm_kern_test hold=1 on $1"; return; }
	# iproute2 cuts "[name" to 16 characters; rdma_create_qp's QPs are rdma_cm's.
	kn='comm \[rdma_cm_kern_tes'
	show rdma res show qp
	show rdma res show cm_id
	has "$1 kernel ULP: RC QP in $2" \
		"^link $1/1 lqpn [0-9]+ rqpn [0-9]+ type RC state $2 .*comm \[rdma_cm\]\$" \
		rdma res show qp
	has "$1 kernel ULP: listener" \
		"^link $1/1 cm-idn [0-9]+ state LISTEN ps TCP $kn src-addr $a4:7470 dst-addr 0.0.0.0:0\$" \
		rdma res show cm_id
	has "$1 kernel ULP: connected id" \
		"^link $1/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP $kn src-addr $a4:[0-9]+ dst-addr $a4:7470\$" \
		rdma res show cm_id
	# IB_POLL_SOFTIRQ (0), which iproute2 names DIRECT
	has "$1 kernel ULP: CQ" \
		"^dev $1 cqn [0-9]+ cqe [0-9]+ users 2 poll-ctx DIRECT adaptive-moderation off $kn\$" \
		rdma res show cq
	has "$1 kernel ULP: PD" "^dev $1 pdn [0-9]+ local_dma_lkey 0x[0-9a-f]+ users [0-9]+ $kn\$" \
		rdma res show pd
	rmmod rdma_cm_kern_test || bad "rmmod rdma_cm_kern_test"
	n=$(rdma res show pd dev "$1" | grep -c 'rdma_cm_kern_tes')
	expect_eq "$1 kernel ULP's objects gone after rmmod" "$n" 0
}

# rping_up DEV: an rping server listening and a client connected to it,
# running on (sets spid, cpid).
rping_up() {
	rping -s -a $a4 -P >/tmp/rping.srv 2>&1 &
	spid=$!
	wait_res cm_id "state LISTEN" || bad "$1: listening cm_id"
	rping -c -a $a4 -C 1000000 >/tmp/rping.cli 2>&1 &
	cpid=$!
	wait_res cm_id "state CONNECT.*pid $cpid" || bad "$1: connected cm_id"
	show rdma res show cm_id
}

stop() {
	kill "$@" 2>/dev/null
	for p in "$@"; do wait_gone "$p" 30 || bad "pid $p did not exit"; done
}

# ---------------------------------------------------------------- rxe0
rxe_up || die "rxe0 up"
ipv4_gid_index >/dev/null || die "no IPv4 GID"
modprobe rdma_ucm || die "modprobe rdma_ucm"
start_hold rxe0 300

show rdma res show
show rdma res show qp
show rdma -d res show qp
show rdma res show cq
show rdma -d res show cq
show rdma res show mr
show rdma res show pd dev rxe0 pdn 1
show rdma res show ctx
show rdma res show srq
show rdma -j res show qp lqpn "$rc"

own="pid $hpid comm res_hold"
has "qp: RC in RTS, connected to itself" \
	"^link rxe0/1 lqpn $rc rqpn $rc type RC state RTS rq-psn 1193046 sq-psn 1193046 path-mig-state MIGRATED pdn [0-9]+ $own\$" \
	rdma res show qp
has "qp: RC in INIT" "^link rxe0/1 lqpn $init rqpn 0 type RC state INIT rq-psn 0 sq-psn 0 path-mig-state MIGRATED pdn [0-9]+ $own\$" \
	rdma res show qp
has "qp: UD in RTS" "^link rxe0/1 lqpn $ud type UD state RTS sq-psn 6636321 pdn [0-9]+ $own\$" \
	rdma res show qp
has "qp: the MAD layer's GSI QP (kernel)" \
	"^link rxe0/1 lqpn 1 type GSI state RTS sq-psn [0-9]+ comm \[ib_core\]\$" rdma res show qp
has "qp filter lqpn (doit)" "^link rxe0/1 lqpn $rc rqpn $rc type RC state RTS" \
	rdma res show qp lqpn "$rc"
n=$(rdma res show qp lqpn "$rc" | grep -c .)
expect_eq "qp filter: one line" "$n" 1
has "qp -j" "\"lqpn\":$rc,\"rqpn\":$rc,\"type\":\"RC\",\"state\":\"RTS\"" \
	rdma -j res show qp lqpn "$rc"
# 16 CQEs asked for, rxe rounds up; 3 QPs send and receive through it.
has "cq: user CQ" "^dev rxe0 cqn [0-9]+ cqe 31 users 6 adaptive-moderation off ctxn [0-9]+ $own\$" \
	rdma res show cq
# IB_POLL_UNBOUND_WORKQUEUE (2), which iproute2 names WORKQUEUE
has "cq: kernel CQ (MAD)" \
	"^dev rxe0 cqn [0-9]+ cqe 1023 users 2 poll-ctx WORKQUEUE adaptive-moderation off comm \[ib_core\]\$" \
	rdma res show cq
has "mr: user MR" "^dev rxe0 mrn [0-9]+ rkey (0x[0-9a-f]+) lkey \\1 mrlen 4096 pdn [0-9]+ $own\$" \
	rdma res show mr
# The first PD has 3 QPs, the MR and the SRQ.
has "pd: user PD" "^dev rxe0 pdn [0-9]+ local_dma_lkey 0x0 users 5 ctxn [0-9]+ $own\$" \
	rdma res show pd
has "pd: kernel PD (lkey of the core's DMA MR)" \
	"^dev rxe0 pdn [0-9]+ local_dma_lkey 0x[1-9a-f][0-9a-f]* users 1 comm \[ib_core\]\$" \
	rdma res show pd
# Without CAP_NET_ADMIN the keys are left out, the rest is the same.
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
show $nobody rdma res show mr
has "mr: user MR, unprivileged caller (no keys)" \
	"^dev rxe0 mrn [0-9]+ mrlen 4096 pdn [0-9]+ $own\$" $nobody rdma res show mr
has "pd: user PD, unprivileged caller (no key)" \
	"^dev rxe0 pdn [0-9]+ users 5 ctxn [0-9]+ $own\$" $nobody rdma res show pd
has "ctx" "^dev rxe0 ctxn [0-9]+ $own\$" rdma res show ctx
has "srq" "^dev rxe0 srqn [0-9]+ type BASIC lqpn $init pdn [0-9]+ $own\$" rdma res show srq
has "raw qp dump: EINVAL (no raw contexts)" "Invalid argument" rdma -r res show qp
n=$(rdma res show pd dev rxe0 | grep -c "$own \?\$")
expect_eq "pd dump of 300 PDs (several netlink messages)" "$n" 300
n=$(rdma -j res show pd dev rxe0 | grep -o "\"pid\":$hpid" | grep -c .)
expect_eq "pd -j dump of 300 PDs" "$n" 300

# rdma_cm ids: a listener, then a connection in progress.
rping_up rxe0
show rdma -d res show cm_id
has "cm_id: listener" "^link rxe0/1 cm-idn [0-9]+ state LISTEN ps TCP pid $spid comm rping src-addr $a4:7174 dst-addr 0.0.0.0:0\$" \
	rdma res show cm_id
has "cm_id: client" "^link rxe0/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP pid $cpid comm rping src-addr $a4:[0-9]+ dst-addr $a4:7174\$" \
	rdma res show cm_id
has "cm_id: accepted" "^link rxe0/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP pid $spid comm rping src-addr $a4:7174 dst-addr $a4:[0-9]+\$" \
	rdma res show cm_id
show rdma res show qp
# A wildcard listener: one entry per device, no port, no peer (upstream's
# child ids; a listener bound to an address is the one above).
rping -s -P -p 7175 >/tmp/rping.any 2>&1 &
wpid=$!
wait_res cm_id "src-addr 0.0.0.0:7175" || bad "wildcard listener listed"
has "cm_id: wildcard listener" "^link rxe0/- cm-idn [0-9]+ state LISTEN ps TCP pid $wpid comm rping src-addr 0.0.0.0:7175\$" \
	rdma res show cm_id
stop $wpid
n=$(rdma res show cm_id | grep -c "pid $wpid ")
expect_eq "wildcard listener gone with its process" "$n" 0
stop $cpid $spid $hpid
n=$(rdma res show pd dev rxe0 | grep -c "pid $hpid")
expect_eq "pds gone with their process" "$n" 0
kern_ulp rxe0 RTS
rdma link delete rxe0 || bad "link delete rxe0"

# ---------------------------------------------------------------- siw0
siw_up || die "siw0 up"
start_hold siw0 3
show rdma res show
show rdma res show qp
show rdma res show cq
show rdma res show mr
show rdma res show pd
show rdma res show srq
own="pid $hpid comm res_hold"
# Upstream siw's query_qp reports every QP in RESET; ours its real state.
has "siw qp: RC in INIT" "^link siw0/1 lqpn $rc rqpn 0 type RC state (INIT|RESET) rq-psn 0 sq-psn 0 path-mig-state MIGRATED pdn [0-9]+ $own\$" \
	rdma res show qp
has "siw qp filter lqpn" "^link siw0/1 lqpn $init " rdma res show qp lqpn "$init"
has "siw mr" "^dev siw0 mrn [0-9]+ rkey 0x[0-9a-f]+ lkey 0x[0-9a-f]+ mrlen 4096 pdn [0-9]+ $own\$" \
	rdma res show mr
has "siw cq" "^dev siw0 cqn [0-9]+ cqe 16 users 4 adaptive-moderation off ctxn [0-9]+ $own\$" \
	rdma res show cq
has "siw srq" "^dev siw0 srqn [0-9]+ type BASIC lqpn $init pdn [0-9]+ $own\$" rdma res show srq
has "siw pd" "^dev siw0 pdn [0-9]+ local_dma_lkey 0x0 users 4 ctxn [0-9]+ $own\$" \
	rdma res show pd
n=$(rdma res show pd dev siw0 | grep -c "$own \?\$")
expect_eq "siw pd count" "$n" 3
rping_up siw0
show rdma res show qp
has "siw cm_id: client" "^link siw0/1 cm-idn [0-9]+ lqpn [0-9]+ qp-type RC state CONNECT ps TCP pid $cpid comm rping src-addr $a4:[0-9]+ dst-addr $a4:7174\$" \
	rdma res show cm_id
has "siw cm_id: listener" "^link siw0/1 cm-idn [0-9]+ state LISTEN ps TCP pid $spid comm rping src-addr $a4:7174 dst-addr 0.0.0.0:0\$" \
	rdma res show cm_id
has "siw qp: rping's RC" "^link siw0/1 lqpn [0-9]+ rqpn 0 type RC state (RTS|RESET) rq-psn 0 sq-psn 0 path-mig-state MIGRATED pdn [0-9]+ pid $cpid comm rping\$" \
	rdma res show qp
stop $cpid $spid $hpid
kern_ulp siw0 RTS
rdma link delete siw0 || bad "link delete siw0"
finish
