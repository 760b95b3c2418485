# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# siw: bandwidth 3 rounds, profiles of bulk and small messages, event counts.
. "$RDMA_KMOD_SRC/Documentation/wip/prof/common.sh"
siw_start
for r in 1 2 3; do
	for t in ib_send_bw ib_write_bw ib_read_bw; do echo "BW $r $t $(pt "$D" $t 65536 1000)"; done
done
for t in ib_send_lat ib_read_lat; do
	timeout 300 $t $D -s 2 -n 1000 >/dev/null 2>&1 &
	sleep 2
	perf stat -a -e 'sched:sched_switch,sched:sched_wakeup,workqueue:workqueue_execute_start,irq:softirq_entry,timer:timer_expire_entry,timer:hrtimer_expire_entry,net:net_dev_xmit,tcp:tcp_probe' -o /tmp/st.txt -- timeout 300 $t $D -s 2 -n 1000 $PEER >/dev/null 2>&1
	wait
	echo "=== COUNTS $t 1000 iters (incl. connection setup) ==="; grep -E '[0-9]+ +[a-z_]+:' /tmp/st.txt | awk '{print $1, $2}'
done
for t in ib_send_lat ib_read_lat; do ptp "$D" $t 2 3000 "siw-$t-2"; done
for t in ib_send_bw ib_write_bw ib_read_bw; do ptp "$D" $t 65536 2000 "siw-$t-64k"; done
rdma link delete siw0
