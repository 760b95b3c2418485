# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Event counts per 1000 iterations of the 2-byte latency tests, siw and rxe:
# context switches, wake-ups, workqueue items (by function), softirqs (by
# vector). Counts do not depend on how fast the VM runs.
. "$RDMA_KMOD_SRC/Documentation/wip/prof/common.sh"
EV=sched:sched_switch,sched:sched_wakeup,workqueue:workqueue_execute_start,irq:softirq_entry,timer:timer_expire_entry,timer:hrtimer_expire_entry
count() {
	dargs=$1 t=$2 n=$3 tag=$4
	timeout 30000 $t $dargs -s 2 -n $n >/dev/null 2>&1 &
	sleep 3
	perf record -q -a -e "$EV" -o /tmp/c.data -- timeout 30000 $t $dargs -s 2 -n $n $PEER 2>&1 | grep -E "^ *2 +[0-9]" | sed "s/^/LAT $tag $t /"
	wait
	echo "=== COUNTS $tag $t n=$n ==="
	perf script -i /tmp/c.data -F comm,event,trace 2>/dev/null > /tmp/c.txt
	event_counts /tmp/c.txt
	echo "-- workqueue functions"
	grep workqueue_execute_start /tmp/c.txt | sed 's/.*function //' | sort | uniq -c | sort -rn | head -8
	echo "-- softirq vectors"
	grep softirq_entry /tmp/c.txt | grep -o 'action=[A-Z_]*' | sort | uniq -c | sort -rn | head -6
	echo "-- timers"
	grep -E 'timer_expire_entry' /tmp/c.txt | grep -o 'function=[^ ]*' | sort | uniq -c | sort -rn | head -6
	echo "-- switches to (next_comm)"
	grep sched_switch /tmp/c.txt | grep -o 'next_comm=[^ ]*' | sed 's/[0-9:\/]*$//' | sort | uniq -c | sort -rn | head -6
	rm -f /tmp/c.data /tmp/c.txt
}
siw_start
for t in ib_send_lat ib_write_lat ib_read_lat; do count "$D" $t 1000 siw; done
rdma link delete siw0
rxe_start
for t in ib_send_lat ib_write_lat ib_read_lat; do count "$D" $t 1000 rxe; done
rdma link delete rxe0
