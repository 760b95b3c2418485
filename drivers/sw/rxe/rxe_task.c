// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe task executor: runs a QP's requester/completer/responder on a
 * module workqueue (or inline in the caller) so that each of them never
 * runs concurrently with itself.
 *
 * State machine (task->lock):
 *   IDLE     --sched/run-->  BUSY (work queued, or running inline)
 *   BUSY     --sched/run-->  ARMED (run once more after the current pass)
 *   BUSY/ARMED --disable-->  DRAINING --pass ends--> DRAINED
 *   IDLE     --disable-->    DRAINED
 *   DRAINED  --enable-->     IDLE (then BUSY again if asked meanwhile)
 *   any      --cleanup-->    INVALID (terminal)
 */
#include <linux/sched.h>
#include "rxe.h"

/*
 * Calls of the function in one pass before yielding the CPU: the rest is
 * requeued, so one busy QP cannot hog a worker (or a softirq).
 */
#define RXE_TASK_MAX_LOOPS	1024

static struct workqueue_struct *rxe_wq;

/*
 * WQ_MEM_RECLAIM: QPs are modified and destroyed from the reclaim-safe
 * workqueues of the CMs and ULPs (ib_cm's handlers, rdma_cm, ipoib's own),
 * and both wait for the QP's task here (rxe_disable_task(),
 * rxe_cleanup_task()); a worker of such a queue may only wait for work of
 * another one (the workqueue code warns otherwise). The tasks also carry
 * the I/O of the block ULPs (SRP, iSER, NVMe-oF) that reclaim may wait on,
 * so they need the rescuer thread as much.
 */
int rxe_alloc_wq(void)
{
	rxe_wq = alloc_workqueue("rxe_wq", WQ_UNBOUND | WQ_MEM_RECLAIM,
				 WQ_MAX_ACTIVE);
	return rxe_wq ? 0 : -ENOMEM;
}

void rxe_destroy_wq(void)
{
	destroy_workqueue(rxe_wq);
	rxe_wq = NULL;
}

/*
 * One pass: called with the task BUSY (this context owns it). Runs the
 * function until it goes idle and nobody re-armed it, the task is being
 * disabled, or the loop budget is spent (then requeue, staying BUSY).
 */
static void do_task(struct rxe_task *task)
{
	unsigned int loops = 0;
	unsigned long flags;
	bool requeue = false;
	bool drained = false;
	bool done = false;
	int ret;

	/*
	 * The transport functions were written for softirq context (the
	 * receive path runs them inline from there); give them the same
	 * context from the workqueue.
	 */
	local_bh_disable();
	while (!done) {
		spin_lock_irqsave(&task->lock, flags);
		if (task->state == TASK_STATE_DRAINING) {
			task->state = TASK_STATE_DRAINED;
			spin_unlock_irqrestore(&task->lock, flags);
			wake_up_all(&task->waitq);
			break;
		}
		spin_unlock_irqrestore(&task->lock, flags);

		ret = task->func(task->qp);
		task->ret = ret;

		spin_lock_irqsave(&task->lock, flags);
		switch (task->state) {
		case TASK_STATE_BUSY:
			if (ret) {
				task->state = TASK_STATE_IDLE;
				task->num_done++;
				done = true;
			} else if (++loops >= RXE_TASK_MAX_LOOPS) {
				requeue = true;
				done = true;
			}
			break;
		case TASK_STATE_ARMED:
			/* asked again during the call: one more round */
			task->state = TASK_STATE_BUSY;
			if (++loops >= RXE_TASK_MAX_LOOPS) {
				requeue = true;
				done = true;
			}
			break;
		case TASK_STATE_DRAINING:
			task->state = TASK_STATE_DRAINED;
			drained = true;
			done = true;
			break;
		default:
			WARN_ONCE(1, "rxe task %s in state %d while running\n",
				  task->name, task->state);
			done = true;
			break;
		}
		spin_unlock_irqrestore(&task->lock, flags);
		if (drained)
			wake_up_all(&task->waitq);
	}
	local_bh_enable();

	if (requeue)
		queue_work(rxe_wq, &task->work);
}

static void rxe_task_work(struct work_struct *work)
{
	do_task(container_of(work, struct rxe_task, work));
}

void rxe_init_task(struct rxe_task *task, struct rxe_qp *qp,
		   int (*func)(struct rxe_qp *qp), const char *name)
{
	INIT_WORK(&task->work, rxe_task_work);
	spin_lock_init(&task->lock);
	init_waitqueue_head(&task->waitq);
	task->state = TASK_STATE_IDLE;
	task->resume_armed = false;
	task->qp = qp;
	task->func = func;
	task->ret = 0;
	task->num_sched = 0;
	task->num_done = 0;
	task->name = name;
}

/*
 * Request a run. Returns true if the caller now owns the task (IDLE ->
 * BUSY) and must start a pass; otherwise the running pass sees ARMED, or
 * the task is disabled and remembers the request for rxe_enable_task().
 */
static bool task_claim(struct rxe_task *task)
{
	unsigned long flags;
	bool claimed = false;

	spin_lock_irqsave(&task->lock, flags);
	switch (task->state) {
	case TASK_STATE_IDLE:
		task->state = TASK_STATE_BUSY;
		task->num_sched++;
		claimed = true;
		break;
	case TASK_STATE_BUSY:
		task->state = TASK_STATE_ARMED;
		break;
	case TASK_STATE_DRAINING:
	case TASK_STATE_DRAINED:
		task->resume_armed = true;
		break;
	default:
		/* ARMED: already will run again; INVALID: gone for good */
		break;
	}
	spin_unlock_irqrestore(&task->lock, flags);
	return claimed;
}

void rxe_run_task(struct rxe_task *task)
{
	if (task_claim(task))
		do_task(task);
}

void rxe_sched_task(struct rxe_task *task)
{
	if (task_claim(task))
		queue_work(rxe_wq, &task->work);
}

static bool task_stopped(struct rxe_task *task)
{
	unsigned long flags;
	bool stopped;

	spin_lock_irqsave(&task->lock, flags);
	stopped = task->state == TASK_STATE_DRAINED ||
		  task->state == TASK_STATE_INVALID;
	spin_unlock_irqrestore(&task->lock, flags);
	return stopped;
}

void rxe_disable_task(struct rxe_task *task)
{
	unsigned long flags;

	might_sleep();
	spin_lock_irqsave(&task->lock, flags);
	switch (task->state) {
	case TASK_STATE_IDLE:
		task->state = TASK_STATE_DRAINED;
		break;
	case TASK_STATE_BUSY:
	case TASK_STATE_ARMED:
		/* a pending ARMED run is kept for rxe_enable_task() */
		if (task->state == TASK_STATE_ARMED)
			task->resume_armed = true;
		task->state = TASK_STATE_DRAINING;
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&task->lock, flags);

	wait_event(task->waitq, task_stopped(task));
	/* a requeued or queued-but-not-started work item is now harmless */
	flush_work(&task->work);
}

void rxe_enable_task(struct rxe_task *task)
{
	unsigned long flags;
	bool resume = false;

	spin_lock_irqsave(&task->lock, flags);
	if (task->state == TASK_STATE_DRAINED) {
		resume = task->resume_armed;
		task->resume_armed = false;
		task->state = resume ? TASK_STATE_BUSY : TASK_STATE_IDLE;
		if (resume)
			task->num_sched++;
	}
	spin_unlock_irqrestore(&task->lock, flags);

	if (resume)
		queue_work(rxe_wq, &task->work);
}

void rxe_cleanup_task(struct rxe_task *task)
{
	unsigned long flags;

	/* never initialised (QP create failed early) */
	if (!task->func)
		return;

	rxe_disable_task(task);

	spin_lock_irqsave(&task->lock, flags);
	task->state = TASK_STATE_INVALID;
	task->resume_armed = false;
	spin_unlock_irqrestore(&task->lock, flags);
	cancel_work_sync(&task->work);
}
