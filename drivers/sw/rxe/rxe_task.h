/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe per-QP executors. Each QP has three (requester, completer,
 * responder); each runs its function on the rxe workqueue, never
 * concurrently with itself. The function returns 0 while it has more to
 * do and non-zero once idle. It must not sleep: rxe_run_task() may call it
 * inline from softirq context.
 */
#ifndef RXE_TASK_H
#define RXE_TASK_H

#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct rxe_qp;

enum rxe_task_state {
	TASK_STATE_IDLE,	/* nothing running or queued */
	TASK_STATE_BUSY,	/* queued or running */
	TASK_STATE_ARMED,	/* running, and asked to run again */
	TASK_STATE_DRAINING,	/* disable requested while busy */
	TASK_STATE_DRAINED,	/* disabled: scheduling is ignored */
	TASK_STATE_INVALID,	/* cleaned up for good */
};

struct rxe_task {
	struct work_struct work;
	spinlock_t lock;		/* guards state */
	enum rxe_task_state state;
	bool resume_armed;	/* a sched came in while disabled */
	wait_queue_head_t waitq;	/* rxe_disable_task waits here */
	struct rxe_qp *qp;
	int (*func)(struct rxe_qp *qp);
	int ret;		/* last return of func */
	long num_sched;
	long num_done;
	const char *name;
};

/* Module-wide workqueue (rxe.c creates it at module init). */
int rxe_alloc_wq(void);
void rxe_destroy_wq(void);

void rxe_init_task(struct rxe_task *task, struct rxe_qp *qp,
		   int (*func)(struct rxe_qp *qp), const char *name);
/* Stop for good and wait for the function to finish; may sleep. */
void rxe_cleanup_task(struct rxe_task *task);
/* Run now in the caller's context if idle, otherwise make it run again. */
void rxe_run_task(struct rxe_task *task);
/* Run soon on the workqueue. Any context. */
void rxe_sched_task(struct rxe_task *task);
/* Stop running and wait until the function is not running; may sleep. */
void rxe_disable_task(struct rxe_task *task);
/* Undo rxe_disable_task; runs the task if it was asked to meanwhile. */
void rxe_enable_task(struct rxe_task *task);

/* The three transport functions (rxe_req.c, rxe_comp.c, rxe_resp.c). */
int rxe_requester(struct rxe_qp *qp);
int rxe_completer(struct rxe_qp *qp);
int rxe_responder(struct rxe_qp *qp);

#endif /* RXE_TASK_H */
