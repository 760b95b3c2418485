// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe rings: allocation (vmalloc_user, so user queues can be mapped),
 * registration for mmap, resize and release. Layout in rxe_queue.h and
 * rdma_user_rxe.h.
 */
#include <linux/cache.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "rxe.h"

/* More slots than any rxe limit allows; keeps the size math in range. */
#define RXE_QUEUE_MAX_SLOTS	(1U << 20)

struct rxe_queue *rxe_queue_init(struct rxe_dev *rxe, int *num_elem,
				 unsigned int elem_size,
				 enum rxe_queue_type type)
{
	struct rxe_queue *q;
	unsigned int num_slots;

	if (*num_elem < 0 || *num_elem >= RXE_QUEUE_MAX_SLOTS || !elem_size)
		return NULL;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;

	q->rxe = rxe;
	q->type = type;

	/* one slot always stays free so that full differs from empty */
	num_slots = roundup_pow_of_two(*num_elem + 1);
	q->elem_size = roundup_pow_of_two(max_t(unsigned int, elem_size,
						cache_line_size()));
	q->log2_elem_size = order_base_2(q->elem_size);
	q->index_mask = num_slots - 1;
	q->buf_size = sizeof(struct rxe_queue_buf) +
		      (size_t)num_slots * q->elem_size;

	q->buf = vmalloc_user(q->buf_size);
	if (!q->buf)
		goto err_free;

	q->buf->log2_elem_size = q->log2_elem_size;
	q->buf->index_mask = q->index_mask;

	*num_elem = num_slots - 1;
	return q;

err_free:
	kfree(q);
	return NULL;
}

int rxe_queue_do_mmap_info(struct rxe_dev *rxe, struct ib_udata *udata,
			   struct mminfo __user *outbuf, struct rxe_queue *q)
{
	struct rxe_mmap_info *ip;
	int err;

	if (!outbuf)
		return 0;

	ip = rxe_create_mmap_info(rxe, q->buf_size, udata, q->buf);
	if (IS_ERR(ip))
		return PTR_ERR(ip);

	if (copy_to_user(outbuf, &ip->info, sizeof(ip->info))) {
		/* the buffer stays the queue's: free only the descriptor */
		kfree(ip);
		return -EFAULT;
	}

	err = rxe_mmap_publish(ip);
	if (err) {
		kfree(ip);
		return err;
	}

	q->ip = ip;
	return 0;
}

static void rxe_queue_free(struct rxe_queue *q)
{
	if (q->ip)
		rxe_mmap_put(q->ip);
	else
		vfree(q->buf);
	kfree(q);
}

void rxe_queue_cleanup(struct rxe_queue *q)
{
	if (q)
		rxe_queue_free(q);
}

/* Move the queued entries of @q into the empty @nq; both locks held. */
static int rxe_queue_copy(struct rxe_queue *q, struct rxe_queue *nq)
{
	u32 prod = queue_get_producer(q);
	u32 cons = queue_get_consumer(q);
	u32 count = (prod - cons) & q->index_mask;
	size_t len = min(q->elem_size, nq->elem_size);
	u32 i;

	if (count > nq->index_mask)
		return -EINVAL;

	for (i = 0; i < count; i++) {
		memcpy(queue_addr_from_index(nq, i),
		       queue_addr_from_index(q, cons + i), len);
	}

	nq->prod = count;
	nq->cons = 0;
	nq->buf->producer_index = count;
	nq->buf->consumer_index = 0;
	return 0;
}

int rxe_queue_resize(struct rxe_queue *q, int *num_elem,
		     unsigned int elem_size, struct ib_udata *udata,
		     struct mminfo __user *outbuf,
		     spinlock_t *producer_lock, spinlock_t *consumer_lock)
{
	struct rxe_queue *nq;
	struct rxe_queue tmp;
	unsigned long flags;
	int new_num = *num_elem;
	int err;

	nq = rxe_queue_init(q->rxe, &new_num, elem_size, q->type);
	if (!nq)
		return -ENOMEM;

	err = rxe_queue_do_mmap_info(q->rxe, udata, outbuf, nq);
	if (err)
		goto err_free;

	/*
	 * Lock order producer then consumer (as rxe_qp.c does for the RQ);
	 * irqsave: CQ producers may run in any context.
	 */
	local_irq_save(flags);
	if (producer_lock)
		spin_lock(producer_lock);
	if (consumer_lock)
		spin_lock(consumer_lock);

	err = rxe_queue_copy(q, nq);
	if (!err) {
		/* q keeps its address (callers hold it); nq takes the old ring */
		tmp = *q;
		*q = *nq;
		*nq = tmp;
	}

	if (consumer_lock)
		spin_unlock(consumer_lock);
	if (producer_lock)
		spin_unlock(producer_lock);
	local_irq_restore(flags);

	if (err)
		goto err_free;

	*num_elem = new_num;
	rxe_queue_free(nq);
	return 0;

err_free:
	rxe_queue_free(nq);
	return err;
}
