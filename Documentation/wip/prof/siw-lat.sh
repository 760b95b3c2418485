# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# siw small-message latency: 3 rounds, then scheduling trace of ib_read_lat.
. "$RDMA_KMOD_SRC/Documentation/wip/prof/common.sh"
siw_start
echo "#bytes iters tmin tmax typical avg stdev p99 p99.9"
for r in 1 2 3; do
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		echo "LAT $r $t $(pt "$D" $t 2 1000)"
	done
done
# scheduler: wake-up to run delay of every task during ib_read_lat
timeout 300 ib_read_lat $D -s 2 -n 1000 >/dev/null 2>&1 &
sleep 2
perf record -q -a -e sched:sched_wakeup -e sched:sched_switch -e workqueue:workqueue_execute_start -e timer:timer_expire_entry -e timer:hrtimer_expire_entry -e tcp:tcp_retransmit_skb -o /tmp/s.data -- timeout 300 ib_read_lat $D -s 2 -n 1000 $PEER 2>&1 | grep -E "^ *2 +[0-9]"
wait
perf script -i /tmp/s.data -F comm,pid,time,event,trace 2>/dev/null > /tmp/s.txt
wc -l /tmp/s.txt
echo "=== event counts ==="
event_counts /tmp/s.txt
echo "=== workqueue functions ==="
grep workqueue_execute_start /tmp/s.txt | sed 's/.*function //' | sort | uniq -c | sort -rn | head
echo "=== timer functions ==="
grep -E 'timer_expire_entry' /tmp/s.txt | grep -o 'function=[^ ]*' | sort | uniq -c | sort -rn | head
echo "=== wakeup->run delay per woken comm (us): n p50 p99 max ==="
awk '
{ t=$3; sub(":","",t); t=t*1e6 }
/sched:sched_wakeup:/ { for(i=1;i<=NF;i++) if ($i ~ /^pid=/) { p=substr($i,5) } ; if (!(p in w)) w[p]=t; cm=$0; sub(/.*comm=/,"",cm); sub(/ .*/,"",cm); nm[p]=cm }
/sched:sched_switch:/ { s=$0; sub(/.*next_pid=/,"",s); sub(/ .*/,"",s); if (s in w) { d=t-w[s]; c=nm[s]; sub(/[0-9:\/]+$/,"",c); n[c]++; v[c, n[c]]=d; if (d>mx[c]) mx[c]=d; delete w[s] } }
END { for (c in n) { m=n[c]; for(i=1;i<=m;i++) a[i]=v[c,i]; asort(a); printf "%s %d %.1f %.1f %.1f\n", c, m, a[int(m*0.5)+1], a[int(m*0.99)+1], mx[c]; delete a } }' /tmp/s.txt
echo "=== the 5 longest wake-up delays, with context ==="
awk '
{ t=$3; sub(":","",t); t=t*1e6 }
/sched:sched_wakeup:/ { for(i=1;i<=NF;i++) if ($i ~ /^pid=/) { p=substr($i,5) } ; if (!(p in w)) { w[p]=t; wl[p]=NR } }
/sched:sched_switch:/ { s=$0; sub(/.*next_pid=/,"",s); sub(/ .*/,"",s); if (s in w) { printf "%.1f %d %d\n", t-w[s], wl[s], NR; delete w[s] } }' /tmp/s.txt | sort -rn | head -5 > /tmp/top
while read d a b; do echo "--- delay $d us (lines $a..$b)"; sed -n "$((a-3)),$((b<a+40?b:a+40))p" /tmp/s.txt | cut -c1-220; done < /tmp/top
[ "$RDMA_KMOD_STACK" = ours ] || [ -n "${PROF_EXPERIMENTS:-}" ] || { rdma link delete siw0; exit 0; }
echo "=== wakeup granularity experiment ==="
cat /sys/kernel/debug/sched/wakeup_granularity_ns /sys/kernel/debug/sched/latency_ns /sys/kernel/debug/sched/min_granularity_ns 2>&1
echo 0 > /sys/kernel/debug/sched/wakeup_granularity_ns
for r in 1 2 3; do
	for t in ib_read_lat; do echo "LATWG0 $r $t $(pt "$D" $t 2 1000)"; done
done
echo 1000000 > /sys/kernel/debug/sched/wakeup_granularity_ns
echo "=== kworkers (and siw kthreads) reniced to -20 ==="
for p in $(pgrep kworker) $(pgrep siw_tx); do renice -n -20 -p $p >/dev/null 2>&1; done
for r in 1 2 3; do
	for t in ib_send_lat ib_read_lat; do echo "LATNICE $r $t $(pt "$D" $t 2 1000)"; done
done
rdma link delete siw0
