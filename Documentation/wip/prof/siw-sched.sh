# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# siw: does a wake-up of the worker (kworker or siw_tx) preempt the
# busy-polling perftest at once, or does it wait for scheduler ticks?
# Counted from the event order (wake-up, tick_sched_timer expiries, switch
# in), which a host that starves the VM does not change.
. "$RDMA_KMOD_SRC/Documentation/wip/prof/common.sh"
siw_start
echo "siw_wq=$(grep -l siw_wq /sys/bus/workqueue/devices/*/ 2>/dev/null)"
for t in ib_read_lat ib_send_lat; do
	timeout 30000 $t $D -s 2 -n 2000 >/dev/null 2>&1 &
	sleep 3
	perf record -q -a -e sched:sched_wakeup -e sched:sched_switch -e timer:hrtimer_expire_entry -o /tmp/s.data -- timeout 30000 $t $D -s 2 -n 2000 $PEER 2>&1 | grep -E "^ *2 +[0-9]" | sed "s/^/LAT $t /"
	wait
	perf script -i /tmp/s.data -F comm,pid,event,trace 2>/dev/null > /tmp/s.txt
	echo "=== $t: wake-ups by woken task: ticks between wake-up and running (0 = preempted at once) ==="
	awk '
	/sched:sched_wakeup:/ { c=$0; sub(/.*comm=/,"",c); sub(/ .*/,"",c); p=$0; sub(/.*pid=/,"",p); sub(/ .*/,"",p); if (!(p in pend)) { pend[p]=1; tk[p]=0; nm[p]=c } }
	/hrtimer_expire_entry:/ && /tick_sched_timer/ { for (p in pend) tk[p]++ }
	/sched:sched_switch:/ { n=$0; sub(/.*next_pid=/,"",n); sub(/ .*/,"",n); if (n in pend) { c=nm[n]; sub(/[0-9]+$/,"",c); k=tk[n] > 2 ? "3+" : tk[n]; h[c " " k]++; tot[c]++; delete pend[n] } }
	END { for (x in h) { split(x, a, " "); if (tot[a[1]] >= 50) printf "%-20s ticks=%s %6d of %6d\n", a[1], a[2], h[x], tot[a[1]] } }' /tmp/s.txt | sort
	rm -f /tmp/s.data /tmp/s.txt
done
ps -eo pid,ni,comm | grep -E 'kworker|siw' | head -20
rdma link delete siw0
