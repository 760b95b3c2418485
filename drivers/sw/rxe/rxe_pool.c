// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe object numbering: one xarray per object type hands out
 * indices, finds an object by index with a reference, and lets a destroy
 * wait until the last reference has gone.
 *
 * The xarray's own (irq-safe) lock covers insert, erase and the
 * reference a lookup takes, so once an index is erased no lookup can
 * reach the object any more and ib_core may free it right after the
 * destroy verb returns, without waiting for an RCU grace period.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include "rxe.h"

/* A destroy that may not sleep (AH from atomic) spins this long at most. */
#define RXE_POOL_SPIN_US	200000
/* A sleeping destroy stuck on a leaked reference complains this often. */
#define RXE_POOL_NAG		(10 * HZ)

/*
 * The device's pools, in the order objects depend on each other: a
 * ucontext before the PD, the PD before CQs, SRQs and QPs, ... They are
 * checked in reverse order at teardown. Each row names the rxe_dev member
 * it describes, so adding a type is one line here and one in rxe_dev.
 */
static const struct rxe_pool_row {
	size_t member;
	struct rxe_pool_desc desc;
} rxe_pool_rows[] = {
#define ROW(m, lo, hi, n, fn) \
	{ offsetof(struct rxe_dev, m##_pool), { #m, lo, hi, n, fn } }
	ROW(uc,  1, RXE_DEFAULT_MAX_VALUE, RXE_DEFAULT_MAX_VALUE, NULL),
	ROW(pd,  1, RXE_MAX_PD, RXE_MAX_PD, NULL),
	ROW(cq,  1, RXE_MAX_CQ, RXE_MAX_CQ, rxe_cq_cleanup),
	ROW(srq, RXE_MIN_SRQ_INDEX, RXE_MAX_SRQ_INDEX, RXE_MAX_SRQ,
	    rxe_srq_cleanup),
	ROW(qp,  RXE_MIN_QP_INDEX, RXE_MAX_QP_INDEX, RXE_MAX_QP, rxe_qp_cleanup),
	ROW(ah,  1, RXE_MAX_AH, RXE_MAX_AH, NULL),
	ROW(mr,  RXE_MIN_MR_INDEX, RXE_MAX_MR_INDEX, RXE_MAX_MR, rxe_mr_cleanup),
	ROW(mw,  RXE_MIN_MW_INDEX, RXE_MAX_MW_INDEX, RXE_MAX_MW, rxe_mw_cleanup),
#undef ROW
};

static struct rxe_pool *rxe_pool_at(struct rxe_dev *rxe, size_t member)
{
	return (struct rxe_pool *)((char *)rxe + member);
}

void rxe_init_pools(struct rxe_dev *rxe)
{
	const struct rxe_pool_row *row;
	struct rxe_pool *pool;

	for (row = rxe_pool_rows; row < rxe_pool_rows + ARRAY_SIZE(rxe_pool_rows);
	     row++) {
		pool = rxe_pool_at(rxe, row->member);
		memset(pool, 0, sizeof(*pool));
		pool->desc = &row->desc;
		pool->rxe = rxe;
		pool->cursor = row->desc.first;
		xa_init_flags(&pool->xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	}
	/* the mmap cookies belong to user contexts: ready them alongside */
	rxe_mmap_init(rxe);
}

/* dealloc_driver (rxe_verbs.c) and the failed-add path (rxe.c). */
void rxe_cleanup_pools(struct rxe_dev *rxe)
{
	int i = ARRAY_SIZE(rxe_pool_rows);
	struct rxe_pool *pool;
	unsigned int left;

	while (i--) {
		pool = rxe_pool_at(rxe, rxe_pool_rows[i].member);
		left = atomic_read(&pool->count);
		if (left || !xa_empty(&pool->xa))
			pr_warn("rdma_rxe: %s pool destroyed with %u objects left\n",
				pool->desc->name, left);
		xa_destroy(&pool->xa);
	}
	xa_destroy(&rxe->mmaps);
}

static int rxe_pool_reserve(struct rxe_pool *pool, u32 *index, gfp_t gfp)
{
	struct xa_limit range = XA_LIMIT(pool->desc->first, pool->desc->last);
	unsigned long flags;
	int err;

	/* storing NULL reserves the slot; rxe_pool_publish() fills it */
	if (gfpflags_allow_blocking(gfp)) {
		might_sleep();
		return xa_alloc_cyclic_irq(&pool->xa, index, NULL, range,
					   &pool->cursor, gfp);
	}
	xa_lock_irqsave(&pool->xa, flags);
	err = __xa_alloc_cyclic(&pool->xa, index, NULL, range, &pool->cursor,
				gfp);
	xa_unlock_irqrestore(&pool->xa, flags);
	return err;
}

int rxe_pool_add(struct rxe_pool *pool, struct rxe_pool_elem *elem,
		 void *obj, gfp_t gfp)
{
	int err;

	if (WARN_ON(!pool->desc))
		return -EINVAL;

	/* count first, so racing creates cannot overshoot the cap */
	if (atomic_inc_return(&pool->count) > pool->desc->cap) {
		atomic_dec(&pool->count);
		return -EINVAL;
	}

	elem->obj = obj;
	elem->pool = pool;
	init_completion(&elem->complete);
	kref_init(&elem->ref_cnt);

	err = rxe_pool_reserve(pool, &elem->index, gfp);
	if (err >= 0)
		return 0;

	atomic_dec(&pool->count);
	/* a full index space is "no room", as the stock driver answers */
	return err == -EBUSY ? -ENOSPC : err;
}

void rxe_pool_publish(struct rxe_pool_elem *elem)
{
	struct xarray *xa = &elem->pool->xa;
	unsigned long flags;
	void *was;

	/* the slot was reserved by rxe_pool_add(): nothing to allocate */
	xa_lock_irqsave(xa, flags);
	was = __xa_store(xa, elem->index, elem, GFP_ATOMIC);
	xa_unlock_irqrestore(xa, flags);
	WARN_ON(xa_is_err(was));
}

void *rxe_pool_get_index(struct rxe_pool *pool, u32 index)
{
	struct rxe_pool_elem *elem;
	unsigned long flags;
	bool alive;

	xa_lock_irqsave(&pool->xa, flags);
	elem = xa_load(&pool->xa, index);
	alive = elem && kref_get_unless_zero(&elem->ref_cnt);
	xa_unlock_irqrestore(&pool->xa, flags);

	return alive ? elem->obj : NULL;
}

int rxe_elem_get(struct rxe_pool_elem *elem)
{
	return kref_get_unless_zero(&elem->ref_cnt);
}

static void rxe_elem_last_ref(struct kref *kref)
{
	complete(&container_of(kref, struct rxe_pool_elem, ref_cnt)->complete);
}

int rxe_elem_put(struct rxe_pool_elem *elem)
{
	return kref_put(&elem->ref_cnt, rxe_elem_last_ref);
}

/* Wait for the last reference; 0, or -ETIMEDOUT from a bounded spin. */
static int rxe_elem_drain(struct rxe_pool_elem *elem, bool may_sleep)
{
	const char *name = elem->pool->desc->name;
	unsigned int us;

	while (may_sleep &&
	       !wait_for_completion_timeout(&elem->complete, RXE_POOL_NAG))
		pr_warn("rdma_rxe: %s#%u: destroy waiting for %u references\n",
			name, elem->index, kref_read(&elem->ref_cnt));
	if (may_sleep)
		return 0;

	/* the packet path holds its references only briefly: poll */
	for (us = 0; us < RXE_POOL_SPIN_US; us++, udelay(1))
		if (try_wait_for_completion(&elem->complete))
			return 0;
	pr_warn("rdma_rxe: %s#%u: destroyed with %u references left\n",
		name, elem->index, kref_read(&elem->ref_cnt));
	return -ETIMEDOUT;
}

int rxe_pool_remove(struct rxe_pool_elem *elem, bool may_sleep)
{
	struct rxe_pool *pool = elem->pool;
	unsigned long flags;
	int err;

	/* withdraw the index first: from here no lookup finds the object */
	xa_lock_irqsave(&pool->xa, flags);
	__xa_erase(&pool->xa, elem->index);
	xa_unlock_irqrestore(&pool->xa, flags);

	rxe_elem_put(elem);
	err = rxe_elem_drain(elem, may_sleep);

	if (pool->desc->cleanup)
		pool->desc->cleanup(elem);
	atomic_dec(&pool->count);
	return err;
}
