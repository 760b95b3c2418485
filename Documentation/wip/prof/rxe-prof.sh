# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rxe: latency 3 rounds, then profiles of bulk and small messages, and
# scheduling / workqueue / softirq counts per 1000 iterations.
. "$RDMA_KMOD_SRC/Documentation/wip/prof/common.sh"
rxe_start
echo "#bytes iters tmin tmax typical avg stdev p99 p99.9  | bw: bytes iters peak avg msgrate"
for r in 1 2 3; do
	for t in ib_send_lat ib_write_lat ib_read_lat; do echo "LAT $r $t $(pt "$D" $t 2 1000)"; done
	for t in ib_send_bw ib_write_bw ib_read_bw; do echo "BW $r $t $(pt "$D" $t 65536 1000)"; done
done
# event counts per run (1000 iterations)
for t in ib_send_lat ib_write_lat ib_read_lat; do
	timeout 300 $t $D -s 2 -n 1000 >/dev/null 2>&1 &
	sleep 2
	perf stat -a -e 'sched:sched_switch,sched:sched_wakeup,workqueue:workqueue_execute_start,irq:softirq_entry,irq:irq_handler_entry,timer:timer_expire_entry,timer:hrtimer_expire_entry,net:net_dev_xmit,net:netif_rx,skb:kfree_skb,skb:consume_skb' -o /tmp/st.txt -- timeout 300 $t $D -s 2 -n 1000 $PEER >/dev/null 2>&1
	wait
	echo "=== COUNTS $t 1000 iters ==="; grep -E '[0-9]+ +[a-z_]+:' /tmp/st.txt | awk '{print $1, $2}'
	timeout 300 $t $D -s 2 -n 1000 >/dev/null 2>&1 &
	sleep 2
	perf record -q -a -e workqueue:workqueue_execute_start -e irq:softirq_entry -o /tmp/w.data -- timeout 300 $t $D -s 2 -n 1000 $PEER >/dev/null 2>&1
	wait
	echo "=== WQ functions / softirq vectors $t ==="
	perf script -i /tmp/w.data -F event,trace 2>/dev/null | sed -e 's/.*function //' -e 's/.*vec=[0-9]* \[action=\([A-Z_]*\)\]/softirq \1/' | sort | uniq -c | sort -rn | head -8
done
for t in ib_send_lat ib_write_lat ib_read_lat; do ptp "$D" $t 2 3000 "$t-2"; done
for t in ib_send_bw ib_write_bw ib_read_bw; do ptp "$D" $t 65536 2000 "$t-64k"; done
rdma link delete rxe0
