// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe completion queues: the ring, its resize, and posting a
 * completion with the notification it may trigger.
 */
#include <linux/spinlock.h>
#include "rxe.h"

int rxe_cq_chk_attr(struct rxe_dev *rxe, struct rxe_cq *cq, int cqe,
		    int comp_vector)
{
	if (cqe <= 0) {
		pr_debug("rdma_rxe: cqe %d must be positive\n", cqe);
		return -EINVAL;
	}

	if (cqe > rxe->attr.max_cqe) {
		pr_debug("rdma_rxe: cqe %d > max_cqe %d\n", cqe,
			 rxe->attr.max_cqe);
		return -EINVAL;
	}

	/* comp_vector was checked by ib_core against num_comp_vectors */

	/* resize: the queued completions must still fit */
	if (cq && cq->queue && cqe < queue_count(cq->queue)) {
		pr_debug("rdma_rxe: cqe %d < %u queued completions\n", cqe,
			 queue_count(cq->queue));
		return -EINVAL;
	}

	return 0;
}

int rxe_cq_from_init(struct rxe_dev *rxe, struct rxe_cq *cq, int cqe,
		     int comp_vector, struct ib_udata *udata,
		     struct rxe_create_cq_resp __user *uresp)
{
	enum rxe_queue_type type;
	int err;

	type = udata ? QUEUE_TYPE_TO_CLIENT : QUEUE_TYPE_KERNEL;
	cq->queue = rxe_queue_init(rxe, &cqe, sizeof(struct rxe_cqe), type);
	if (!cq->queue)
		return -ENOMEM;

	err = rxe_queue_do_mmap_info(rxe, udata, uresp ? &uresp->mi : NULL,
				     cq->queue);
	if (err)
		goto err_queue;

	spin_lock_init(&cq->cq_lock);
	cq->is_user = !!udata;
	cq->is_dying = false;
	cq->notify = 0;
	atomic_set(&cq->num_wq, 0);
	cq->ibcq.cqe = cqe;
	return 0;

err_queue:
	rxe_queue_cleanup(cq->queue);
	cq->queue = NULL;
	return err;
}

int rxe_cq_resize_queue(struct rxe_cq *cq, int new_cqe,
			struct rxe_resize_cq_resp __user *uresp,
			struct ib_udata *udata)
{
	int err;

	/* cq_lock covers the producer (rxe_cq_post) and kernel pollers */
	err = rxe_queue_resize(cq->queue, &new_cqe, sizeof(struct rxe_cqe),
			       udata, uresp ? &uresp->mi : NULL, NULL,
			       &cq->cq_lock);
	if (err)
		return err;

	cq->ibcq.cqe = new_cqe;
	return 0;
}

static void rxe_cq_event(struct rxe_cq *cq, enum ib_event_type type)
{
	struct ib_event ev;

	if (!cq->ibcq.event_handler)
		return;

	ev.device = cq->ibcq.device;
	ev.element.cq = &cq->ibcq;
	ev.event = type;
	cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

int rxe_cq_post(struct rxe_cq *cq, struct rxe_cqe *cqe, int solicited)
{
	unsigned long flags;
	bool notify = false;
	bool dying;

	spin_lock_irqsave(&cq->cq_lock, flags);

	dying = cq->is_dying;
	if (unlikely(queue_full(cq->queue))) {
		spin_unlock_irqrestore(&cq->cq_lock, flags);
		if (!dying)
			rxe_cq_event(cq, IB_EVENT_CQ_ERR);
		return -EBUSY;
	}

	memcpy(queue_producer_addr(cq->queue), cqe, sizeof(*cqe));
	queue_advance_producer(cq->queue);

	/* an armed CQ fires once, then the consumer must re-arm it */
	if (!dying && ((cq->notify & IB_CQ_NEXT_COMP) ||
		       ((cq->notify & IB_CQ_SOLICITED) && solicited))) {
		cq->notify = 0;
		notify = true;
	}

	spin_unlock_irqrestore(&cq->cq_lock, flags);

	/* unlocked: handlers may poll or re-arm this CQ */
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);

	return 0;
}

void rxe_cq_disable(struct rxe_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->cq_lock, flags);
	cq->is_dying = true;
	spin_unlock_irqrestore(&cq->cq_lock, flags);
}

void rxe_cq_cleanup(struct rxe_pool_elem *elem)
{
	struct rxe_cq *cq = container_of(elem, struct rxe_cq, elem);

	if (cq->queue) {
		rxe_queue_cleanup(cq->queue);
		cq->queue = NULL;
	}
}
