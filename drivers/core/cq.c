// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: the plain verbs (ib_create_cq and friends), the
 * ib_alloc_cq() API whose completions are dispatched to wc->wr_cqe->done()
 * from softirq, a workqueue or the caller, and the per-device pools of
 * shared CQs (ib_cq_pool_get/put).
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/irq_poll.h>
#include "core_priv.h"

/* Work completions handled per poll_cq() call. */
#define IB_POLL_BATCH			16
#define IB_POLL_BATCH_DIRECT		8
/* Completions handled per softirq / work item run before yielding. */
#define IB_POLL_BUDGET_IRQ		256
#define IB_POLL_BUDGET_WORKQUEUE	65536
/* Re-arm and learn whether completions slipped in meanwhile. */
#define IB_POLL_FLAGS	(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)
/* Smallest CQ a pool allocates. */
#define IB_MAX_SHARED_CQ_SZ		4096U

struct workqueue_struct *ib_comp_wq;
struct workqueue_struct *ib_comp_unbound_wq;
/* A general work queue for drivers and ULPs (exported as upstream). */
struct workqueue_struct *ib_wq;
EXPORT_SYMBOL_GPL(ib_wq);

int ib_cq_init(void)
{
	ib_wq = alloc_workqueue("ib-wq", 0, 0);
	if (!ib_wq)
		return -ENOMEM;
	ib_comp_wq = alloc_workqueue("ib-comp-wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!ib_comp_wq) {
		destroy_workqueue(ib_wq);
		return -ENOMEM;
	}
	ib_comp_unbound_wq = alloc_workqueue("ib-comp-unb-wq",
					     WQ_UNBOUND | WQ_HIGHPRI |
					     WQ_MEM_RECLAIM,
					     WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_comp_unbound_wq) {
		destroy_workqueue(ib_comp_wq);
		destroy_workqueue(ib_wq);
		return -ENOMEM;
	}
	return 0;
}

void ib_cq_cleanup(void)
{
	destroy_workqueue(ib_comp_unbound_wq);
	destroy_workqueue(ib_comp_wq);
	destroy_workqueue(ib_wq);
}

/* ------------------------------------------------------------ plain CQs */

struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	struct ib_cq *cq;
	int ret;

	if (!device->ops.create_cq)
		return ERR_PTR(-EOPNOTSUPP);
	cq = rdma_zalloc_drv_obj(device, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = device;
	cq->comp_vector = cq_attr->comp_vector;
	cq->cq_context = cq_context;
	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);

	ret = device->ops.create_cq(cq, cq_attr, NULL);
	if (!ret) {
		rdma_restrack_add(&cq->res);
		return cq;
	}
	rdma_restrack_del(&cq->res);
	kfree(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_create_cq);

int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period)
{
	/* A pool CQ's settings belong to every ULP sharing it. */
	if (cq->shared || !cq->device->ops.modify_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.modify_cq(cq, cq_count, cq_period);
}
EXPORT_SYMBOL(rdma_set_cq_moderation);

int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	if (cq->shared || !cq->device->ops.resize_cq)
		return -EOPNOTSUPP;
	return cq->device->ops.resize_cq(cq, cqe, NULL);
}
EXPORT_SYMBOL(ib_resize_cq);

int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata)
{
	int ret;

	/* Pool CQs go back with ib_cq_pool_put(). */
	if (WARN_ON_ONCE(cq->shared))
		return -EOPNOTSUPP;
	if (atomic_read(&cq->usecnt))
		return -EBUSY;
	ret = cq->device->ops.destroy_cq(cq, udata);
	if (ret)
		return ret;
	rdma_restrack_del(&cq->res);
	kfree(cq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_cq_user);

/* ------------------------------------------------------------ polling */

/*
 * Polls up to budget completions (-1: until empty) in batches of
 * 'batch' and runs each one's done() callback.
 */
static int __ib_process_cq(struct ib_cq *cq, int budget, struct ib_wc *wcs,
			   int batch)
{
	int completed = 0;
	int n, i;

	for (;;) {
		int want = batch;

		if (budget >= 0)
			want = min(batch, budget - completed);
		if (want <= 0)
			break;
		n = ib_poll_cq(cq, want, wcs);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			if (wc->wr_cqe)
				wc->wr_cqe->done(cq, wc);
			else
				/* A flushed WR may lack a cqe; success may not. */
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		completed += n;
		if (n < want)
			break;
	}
	return completed;
}

int ib_process_cq_direct(struct ib_cq *cq, int budget)
{
	struct ib_wc wcs[IB_POLL_BATCH_DIRECT];

	WARN_ON_ONCE(cq->poll_ctx != IB_POLL_DIRECT);
	return __ib_process_cq(cq, budget, wcs, IB_POLL_BATCH_DIRECT);
}
EXPORT_SYMBOL(ib_process_cq_direct);

static void ib_cq_completion_direct(struct ib_cq *cq, void *private)
{
	WARN_ONCE(1, "got unsolicited completion for CQ 0x%p\n", cq);
}

static int ib_poll_handler(struct irq_poll *iop, int budget)
{
	struct ib_cq *cq = container_of(iop, struct ib_cq, iop);
	int done = __ib_process_cq(cq, budget, cq->wc, IB_POLL_BATCH);

	/* Budget used up: irq_poll calls again by itself. */
	if (done >= budget)
		return done;
	irq_poll_complete(&cq->iop);
	/* > 0: completions arrived before the CQ was re-armed. */
	if (ib_req_notify_cq(cq, IB_POLL_FLAGS) > 0)
		irq_poll_sched(&cq->iop);
	return done;
}

static void ib_cq_poll_work(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, work);
	int done = __ib_process_cq(cq, IB_POLL_BUDGET_WORKQUEUE, cq->wc,
				   IB_POLL_BATCH);

	/* Requeue rather than loop: other CQs share the workqueue. */
	if (done < IB_POLL_BUDGET_WORKQUEUE &&
	    ib_req_notify_cq(cq, IB_POLL_FLAGS) <= 0)
		return;
	queue_work(cq->comp_wq, &cq->work);
}

/* The driver's completion interrupt: hand polling to softirq or worker. */
static void ib_cq_kick(struct ib_cq *cq, void *private)
{
	if (cq->poll_ctx == IB_POLL_SOFTIRQ)
		irq_poll_sched(&cq->iop);
	else
		queue_work(cq->comp_wq, &cq->work);
}

/* Stops the polling context so the CQ can go. */
static void ib_cq_stop_polling(struct ib_cq *cq)
{
	if (cq->poll_ctx == IB_POLL_SOFTIRQ)
		irq_poll_disable(&cq->iop);
	else if (cq->poll_ctx != IB_POLL_DIRECT)
		cancel_work_sync(&cq->work);
}

struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller)
{
	struct ib_cq_init_attr cq_attr = {
		.cqe = nr_cqe,
		.comp_vector = comp_vector,
	};
	struct ib_cq *cq;
	int ret;

	if (!dev->ops.create_cq)
		return ERR_PTR(-EOPNOTSUPP);
	if (poll_ctx > IB_POLL_DIRECT || nr_cqe <= 0)
		return ERR_PTR(-EINVAL);
	cq = rdma_zalloc_drv_obj(dev, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = dev;
	cq->cq_context = private;
	cq->poll_ctx = poll_ctx;
	cq->comp_vector = comp_vector;
	atomic_set(&cq->usecnt, 0);
	cq->wc = kmalloc_array(IB_POLL_BATCH, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc) {
		ret = -ENOMEM;
		goto err_free_cq;
	}
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);

	/* The handler is in place before the driver can report anything. */
	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		cq->comp_handler = ib_cq_completion_direct;
		break;
	case IB_POLL_SOFTIRQ:
		cq->comp_handler = ib_cq_kick;
		irq_poll_init(&cq->iop, IB_POLL_BUDGET_IRQ, ib_poll_handler);
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		cq->comp_handler = ib_cq_kick;
		INIT_WORK(&cq->work, ib_cq_poll_work);
		cq->comp_wq = poll_ctx == IB_POLL_WORKQUEUE ?
			      ib_comp_wq : ib_comp_unbound_wq;
		break;
	}
	cq->interrupt = poll_ctx != IB_POLL_DIRECT;

	ret = dev->ops.create_cq(cq, &cq_attr, NULL);
	if (ret)
		goto err_free_wc;
	rdma_restrack_add(&cq->res);
	if (cq->interrupt)
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return cq;

err_free_wc:
	rdma_restrack_del(&cq->res);
	ib_cq_stop_polling(cq);
	kfree(cq->wc);
err_free_cq:
	kfree(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_alloc_cq);

/* Completion vectors worth spreading over: no more than online CPUs. */
static unsigned int usable_comp_vectors(struct ib_device *dev)
{
	unsigned int n = min_t(unsigned int, dev->num_comp_vectors,
			       num_online_cpus());

	return n ? n : 1;
}

struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller)
{
	static atomic_t counter;
	int comp_vector = 0;

	if (dev->num_comp_vectors > 1)
		comp_vector = (unsigned int)atomic_inc_return(&counter) %
			      usable_comp_vectors(dev);
	return __ib_alloc_cq(dev, private, nr_cqe, comp_vector, poll_ctx,
			     caller);
}
EXPORT_SYMBOL(__ib_alloc_cq_any);

void ib_free_cq(struct ib_cq *cq)
{
	int ret;

	if (WARN_ON_ONCE(atomic_read(&cq->usecnt)))
		return;
	if (WARN_ON_ONCE(cq->cqe_used))
		return;

	ib_cq_stop_polling(cq);
	ret = cq->device->ops.destroy_cq(cq, NULL);
	WARN_ONCE(ret, "destroy of kernel CQ shouldn't fail\n");
	rdma_restrack_del(&cq->res);
	kfree(cq->wc);
	kfree(cq);
}
EXPORT_SYMBOL(ib_free_cq);

/* ------------------------------------------------------------ CQ pools */

/* One list of shared CQs per poll context. */
void ib_cq_pool_init(struct ib_device *dev)
{
	struct list_head *l;

	spin_lock_init(&dev->cq_pools_lock);
	for (l = dev->cq_pools; l < dev->cq_pools + ARRAY_SIZE(dev->cq_pools); l++)
		INIT_LIST_HEAD(l);
}

/* The device is going: every pool CQ must be back (cqe_used == 0). */
void ib_cq_pool_cleanup(struct ib_device *dev)
{
	struct list_head *l;
	struct ib_cq *cq;

	for (l = dev->cq_pools; l < dev->cq_pools + ARRAY_SIZE(dev->cq_pools); l++) {
		while ((cq = list_first_entry_or_null(l, struct ib_cq,
						      pool_entry))) {
			WARN_ON(cq->cqe_used);
			list_del(&cq->pool_entry);
			cq->cqe_used = 0;
			cq->shared = false;
			ib_free_cq(cq);
		}
	}
}

/* Adds one CQ per usable completion vector to the pool of poll_ctx. */
static int ib_alloc_cqs(struct ib_device *dev, unsigned int nr_cqes,
			enum ib_poll_context poll_ctx)
{
	unsigned int nr_vectors = usable_comp_vectors(dev);
	unsigned int cqe = max(nr_cqes, IB_MAX_SHARED_CQ_SZ);
	struct ib_cq *cq, *n;
	LIST_HEAD(tmp_list);
	unsigned int i;
	int ret;

	if (dev->attrs.max_cqe > 0)
		cqe = min_t(unsigned int, cqe, dev->attrs.max_cqe);
	if (cqe < nr_cqes)
		return -EINVAL;

	for (i = 0; i < nr_vectors; i++) {
		cq = ib_alloc_cq(dev, NULL, cqe, i, poll_ctx);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			goto err;
		}
		cq->shared = true;
		list_add_tail(&cq->pool_entry, &tmp_list);
	}

	spin_lock_irq(&dev->cq_pools_lock);
	list_splice(&tmp_list, &dev->cq_pools[poll_ctx]);
	spin_unlock_irq(&dev->cq_pools_lock);
	return 0;

err:
	list_for_each_entry_safe(cq, n, &tmp_list, pool_entry) {
		list_del(&cq->pool_entry);
		cq->shared = false;
		ib_free_cq(cq);
	}
	return ret;
}

struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint,
			     enum ib_poll_context poll_ctx)
{
	static atomic_t next_vector = ATOMIC_INIT(-1);
	unsigned int nr_vectors = usable_comp_vectors(dev);
	unsigned int vector;
	struct ib_cq *cq, *found;
	int tries, ret;

	if (WARN_ON_ONCE(poll_ctx > IB_POLL_LAST_POOL_TYPE))
		return ERR_PTR(-EINVAL);

	if (comp_vector_hint < 0)
		vector = (unsigned int)atomic_inc_return(&next_vector) %
			 nr_vectors;
	else
		vector = comp_vector_hint % nr_vectors;

	/* A fresh batch of CQs always has room, unless the driver shrank it. */
	for (tries = 0; ; tries++) {
		found = NULL;
		spin_lock_irq(&dev->cq_pools_lock);
		list_for_each_entry(cq, &dev->cq_pools[poll_ctx], pool_entry) {
			if (cq->comp_vector != vector)
				continue;
			if (cq->cqe_used + nr_cqe > cq->cqe)
				continue;
			cq->cqe_used += nr_cqe;
			found = cq;
			break;
		}
		spin_unlock_irq(&dev->cq_pools_lock);
		if (found)
			return found;
		if (tries)
			return ERR_PTR(-ENOMEM);

		/* Nothing with room on that vector: grow the pool. */
		ret = ib_alloc_cqs(dev, nr_cqe, poll_ctx);
		if (ret)
			return ERR_PTR(ret);
	}
}
EXPORT_SYMBOL(ib_cq_pool_get);

void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	if (WARN_ON_ONCE(nr_cqe > cq->cqe_used))
		return;
	spin_lock_irq(&cq->device->cq_pools_lock);
	cq->cqe_used -= nr_cqe;
	spin_unlock_irq(&cq->device->cq_pools_lock);
}
EXPORT_SYMBOL(ib_cq_pool_put);
