// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe object pools: per-type index allocation, lookup by index with
 * a reference, and a destroy path that waits for every reference.
 *
 * The xarray lock (irq-safe) serialises insert, erase and the reference
 * grab of a lookup. Lookups therefore never touch an object whose index
 * was already erased, so ib_core may free it as soon as __rxe_cleanup()
 * returns without an RCU grace period.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include "rxe.h"

struct rxe_type_info {
	const char *name;
	size_t elem_offset;
	void (*cleanup)(struct rxe_pool_elem *elem);
	u32 min_index;
	u32 max_index;
	u32 max_elem;
};

static const struct rxe_type_info rxe_type_info[RXE_NUM_TYPES] = {
	[RXE_TYPE_UC] = {
		.name = "uc",
		.elem_offset = offsetof(struct rxe_ucontext, elem),
		.min_index = 1,
		.max_index = RXE_DEFAULT_MAX_VALUE,
		.max_elem = RXE_DEFAULT_MAX_VALUE,
	},
	[RXE_TYPE_PD] = {
		.name = "pd",
		.elem_offset = offsetof(struct rxe_pd, elem),
		.min_index = 1,
		.max_index = RXE_MAX_PD,
		.max_elem = RXE_MAX_PD,
	},
	[RXE_TYPE_AH] = {
		.name = "ah",
		.elem_offset = offsetof(struct rxe_ah, elem),
		.min_index = 1,
		.max_index = RXE_MAX_AH,
		.max_elem = RXE_MAX_AH,
	},
	[RXE_TYPE_SRQ] = {
		.name = "srq",
		.elem_offset = offsetof(struct rxe_srq, elem),
		.cleanup = rxe_srq_cleanup,
		.min_index = RXE_MIN_SRQ_INDEX,
		.max_index = RXE_MAX_SRQ_INDEX,
		.max_elem = RXE_MAX_SRQ,
	},
	[RXE_TYPE_QP] = {
		.name = "qp",
		.elem_offset = offsetof(struct rxe_qp, elem),
		.cleanup = rxe_qp_cleanup,
		.min_index = RXE_MIN_QP_INDEX,
		.max_index = RXE_MAX_QP_INDEX,
		.max_elem = RXE_MAX_QP,
	},
	[RXE_TYPE_CQ] = {
		.name = "cq",
		.elem_offset = offsetof(struct rxe_cq, elem),
		.cleanup = rxe_cq_cleanup,
		.min_index = 1,
		.max_index = RXE_MAX_CQ,
		.max_elem = RXE_MAX_CQ,
	},
	[RXE_TYPE_MR] = {
		.name = "mr",
		.elem_offset = offsetof(struct rxe_mr, elem),
		.cleanup = rxe_mr_cleanup,
		.min_index = RXE_MIN_MR_INDEX,
		.max_index = RXE_MAX_MR_INDEX,
		.max_elem = RXE_MAX_MR,
	},
	[RXE_TYPE_MW] = {
		.name = "mw",
		.elem_offset = offsetof(struct rxe_mw, elem),
		.cleanup = rxe_mw_cleanup,
		.min_index = RXE_MIN_MW_INDEX,
		.max_index = RXE_MAX_MW_INDEX,
		.max_elem = RXE_MAX_MW,
	},
};

/* Upper bound for the wait of a non-sleepable destroy (AH from atomic). */
#define RXE_POOL_ATOMIC_WAIT_US		200000
/* Complain about a destroy stuck on a leaked reference this often. */
#define RXE_POOL_WAIT_WARN_JIFFIES	(10 * HZ)

void rxe_pool_init(struct rxe_dev *rxe, struct rxe_pool *pool,
		   enum rxe_elem_type type)
{
	const struct rxe_type_info *info = &rxe_type_info[type];

	memset(pool, 0, sizeof(*pool));
	pool->rxe = rxe;
	pool->name = info->name;
	pool->type = type;
	pool->elem_offset = info->elem_offset;
	pool->cleanup = info->cleanup;
	pool->max_elem = info->max_elem;
	atomic_set(&pool->num_elem, 0);
	xa_init_flags(&pool->xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	pool->limit = XA_LIMIT(info->min_index, info->max_index);
	pool->next = info->min_index;

	/* user mmap state belongs to ucontexts; set it up with their pool */
	if (type == RXE_TYPE_UC)
		rxe_mmap_init(rxe);
}

void rxe_pool_cleanup(struct rxe_pool *pool)
{
	unsigned int left = atomic_read(&pool->num_elem);

	if (left || !xa_empty(&pool->xa))
		pr_warn("rdma_rxe: %s pool destroyed with %u objects left\n",
			pool->name, left);
	xa_destroy(&pool->xa);
}

int __rxe_add_to_pool(struct rxe_pool *pool, struct rxe_pool_elem *elem,
		      void *obj, bool sleepable)
{
	unsigned long flags;
	int err;

	if (WARN_ON(!pool->name))
		return -EINVAL;

	if (atomic_inc_return(&pool->num_elem) > pool->max_elem) {
		err = -EINVAL;
		goto err_cnt;
	}

	elem->pool = pool;
	elem->obj = obj;
	kref_init(&elem->ref_cnt);
	init_completion(&elem->complete);

	/* a NULL entry reserves the index; lookups see it only once final */
	if (sleepable) {
		might_sleep();
		err = xa_alloc_cyclic_irq(&pool->xa, &elem->index, NULL,
					  pool->limit, &pool->next, GFP_KERNEL);
	} else {
		xa_lock_irqsave(&pool->xa, flags);
		err = __xa_alloc_cyclic(&pool->xa, &elem->index, NULL,
					pool->limit, &pool->next, GFP_ATOMIC);
		xa_unlock_irqrestore(&pool->xa, flags);
	}
	if (err < 0)
		goto err_cnt;

	return 0;

err_cnt:
	atomic_dec(&pool->num_elem);
	return err == -EBUSY ? -ENOSPC : err;
}

void __rxe_finalize(struct rxe_pool_elem *elem)
{
	struct rxe_pool *pool = elem->pool;
	unsigned long flags;
	void *old;

	xa_lock_irqsave(&pool->xa, flags);
	/* the slot exists already: the store allocates nothing */
	old = __xa_store(&pool->xa, elem->index, elem, GFP_ATOMIC);
	xa_unlock_irqrestore(&pool->xa, flags);
	WARN_ON(xa_is_err(old));
}

void *rxe_pool_get_index(struct rxe_pool *pool, u32 index)
{
	struct rxe_pool_elem *elem;
	unsigned long flags;
	void *obj = NULL;

	xa_lock_irqsave(&pool->xa, flags);
	elem = xa_load(&pool->xa, index);
	if (elem && kref_get_unless_zero(&elem->ref_cnt))
		obj = elem->obj;
	xa_unlock_irqrestore(&pool->xa, flags);

	return obj;
}

static void rxe_elem_release(struct kref *kref)
{
	struct rxe_pool_elem *elem =
		container_of(kref, struct rxe_pool_elem, ref_cnt);

	complete(&elem->complete);
}

int __rxe_get(struct rxe_pool_elem *elem)
{
	return kref_get_unless_zero(&elem->ref_cnt);
}

int __rxe_put(struct rxe_pool_elem *elem)
{
	return kref_put(&elem->ref_cnt, rxe_elem_release);
}

static int rxe_wait_refs(struct rxe_pool_elem *elem, bool sleepable)
{
	unsigned int waited;

	if (sleepable) {
		while (!wait_for_completion_timeout(&elem->complete,
						    RXE_POOL_WAIT_WARN_JIFFIES))
			pr_warn("rdma_rxe: %s#%u: destroy waiting for %u references\n",
				elem->pool->name, elem->index,
				kref_read(&elem->ref_cnt));
		return 0;
	}

	/* references taken by the packet path are short-lived: poll */
	for (waited = 0; waited < RXE_POOL_ATOMIC_WAIT_US; waited++) {
		if (try_wait_for_completion(&elem->complete))
			return 0;
		udelay(1);
	}
	pr_warn("rdma_rxe: %s#%u: destroyed with %u references left\n",
		elem->pool->name, elem->index, kref_read(&elem->ref_cnt));
	return -ETIMEDOUT;
}

int __rxe_cleanup(struct rxe_pool_elem *elem, bool sleepable)
{
	struct rxe_pool *pool = elem->pool;
	unsigned long flags;
	int err;

	/* unpublish first: no lookup can take a new reference after this */
	xa_lock_irqsave(&pool->xa, flags);
	__xa_erase(&pool->xa, elem->index);
	xa_unlock_irqrestore(&pool->xa, flags);

	__rxe_put(elem);
	err = rxe_wait_refs(elem, sleepable);

	if (pool->cleanup)
		pool->cleanup(elem);

	atomic_dec(&pool->num_elem);
	return err;
}
