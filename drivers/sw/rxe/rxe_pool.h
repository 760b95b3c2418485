/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe object indices and references (rxe_pool.c).
 *
 * Every verbs object is allocated by ib_core; rxe only numbers it. The
 * number (QPN, SRQ number, AH number, MR/MW key index) comes from a
 * per-type xarray, and the handle embedded in the object carries the
 * reference count the packet path uses to keep it alive without locks.
 */
#ifndef RXE_POOL_H
#define RXE_POOL_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/xarray.h>

struct rxe_dev;
struct rxe_pool;

/* Embedded in each object as "elem"; the containing object is obj. */
struct rxe_pool_elem {
	u32 index;
	void *obj;
	struct rxe_pool *pool;
	struct kref ref_cnt;
	struct completion complete;	/* signalled when ref_cnt hits 0 */
};

/* What tells one object type's numbering apart from another's. */
struct rxe_pool_desc {
	const char *name;
	u32 first;		/* lowest index handed out */
	u32 last;		/* highest index handed out */
	u32 cap;		/* objects alive at once */
	void (*cleanup)(struct rxe_pool_elem *elem);	/* after last ref */
};

struct rxe_pool {
	const struct rxe_pool_desc *desc;
	struct rxe_dev *rxe;
	struct xarray xa;	/* index -> elem; NULL while reserved */
	u32 cursor;		/* where the cyclic allocation resumes */
	atomic_t count;
};

/*
 * Key index ranges. MR and MW indexes are disjoint, so the index part of
 * an rkey (its upper 24 bits) says by itself which kind of object it is.
 */
#define RXE_MIN_QP_INDEX	16
#define RXE_MAX_QP_INDEX	0x000fffff
#define RXE_MIN_SRQ_INDEX	0x00020001
#define RXE_MAX_SRQ_INDEX	0x000fffff
#define RXE_MIN_MR_INDEX	0x00000001
#define RXE_MAX_MR_INDEX	0x0007ffff
#define RXE_MIN_MW_INDEX	0x00080001
#define RXE_MAX_MW_INDEX	0x000fffff

static inline bool rxe_rkey_is_mw(u32 rkey)
{
	return (rkey >> 8) >= RXE_MIN_MW_INDEX &&
	       (rkey >> 8) <= RXE_MAX_MW_INDEX;
}

/* All pools of a device at once: set up at add, checked empty at dealloc. */
void rxe_init_pools(struct rxe_dev *rxe);
void rxe_cleanup_pools(struct rxe_dev *rxe);

/*
 * Number a new object and hold its first reference. Lookups do not see it
 * until rxe_finalize(): a half-built object is never found by a packet.
 */
int rxe_pool_add(struct rxe_pool *pool, struct rxe_pool_elem *elem,
		 void *obj, gfp_t gfp);
#define rxe_add_to_pool(pool, obj) \
	rxe_pool_add(pool, &(obj)->elem, obj, GFP_KERNEL)
#define rxe_add_to_pool_atomic(pool, obj) \
	rxe_pool_add(pool, &(obj)->elem, obj, GFP_ATOMIC)

void rxe_pool_publish(struct rxe_pool_elem *elem);
#define rxe_finalize(obj) rxe_pool_publish(&(obj)->elem)

/* The object numbered index, with a reference taken; NULL if none. */
void *rxe_pool_get_index(struct rxe_pool *pool, u32 index);

/* rxe_get() answers 0 when the object is already on its way out. */
int rxe_elem_get(struct rxe_pool_elem *elem);
int rxe_elem_put(struct rxe_pool_elem *elem);
#define rxe_get(obj) rxe_elem_get(&(obj)->elem)
#define rxe_put(obj) rxe_elem_put(&(obj)->elem)

/*
 * Destroy: withdraw the number, drop the first reference and wait for the
 * others (sleeping, or briefly spinning when the caller may not sleep, as
 * an AH destroyed from softirq), then run the type's cleanup. ib_core owns
 * the memory and frees it once the destroy verb has returned.
 */
int rxe_pool_remove(struct rxe_pool_elem *elem, bool may_sleep);
#define rxe_cleanup(obj) rxe_pool_remove(&(obj)->elem, true)
#define rxe_cleanup_ah(obj, may_sleep) rxe_pool_remove(&(obj)->elem, may_sleep)

#endif /* RXE_POOL_H */
