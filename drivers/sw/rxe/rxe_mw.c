// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe memory windows, types 1 and 2: allocation, the IB_WR_BIND_MW
 * local operation with the checks of IBA 10.6.7, invalidation and the rkey
 * lookup of the responder.
 *
 * A bound window holds a reference on its MR and counts in mr->num_mw, so
 * the MR cannot be deregistered under it. A type-2 window remembers the QP
 * it was bound through only as an identity for rkey checks: holding a QP
 * reference would make destroying that QP wait for the window.
 */
#include "rxe.h"

#define RXE_MW_ACCESS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC | IB_ZERO_BASED)

int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibmw->device);
	struct rxe_pd *pd = to_rpd(ibmw->pd);
	struct rxe_mw *mw = to_rmw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!rxe_get(pd))
		return -EINVAL;

	err = rxe_add_to_pool(&rxe->mw_pool, mw);
	if (err) {
		rxe_put(pd);
		return err;
	}

	spin_lock_init(&mw->lock);
	mw->rkey = mw->elem.index << 8 | rxe_get_next_key(-1);
	ibmw->rkey = mw->rkey;
	/* type 1 is usable as soon as bound; type 2 waits for a bind WQE */
	mw->state = ibmw->type == IB_MW_TYPE_2 ? RXE_MW_STATE_FREE :
						 RXE_MW_STATE_VALID;
	mw->qp = NULL;
	mw->mr = NULL;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;

	rxe_finalize(mw);
	return 0;
}

/* Detach the window from MR and QP; returns the MR reference to drop. */
static struct rxe_mr *rxe_mw_unbind_locked(struct rxe_mw *mw)
{
	struct rxe_mr *mr = mw->mr;

	mw->mr = NULL;
	mw->qp = NULL;
	mw->access = 0;
	mw->addr = 0;
	mw->length = 0;
	return mr;
}

static void rxe_mw_drop_mr(struct rxe_mr *mr)
{
	if (!mr)
		return;
	atomic_dec(&mr->num_mw);
	rxe_put(mr);
}

int rxe_dealloc_mw(struct ib_mw *ibmw)
{
	rxe_cleanup(to_rmw(ibmw));
	return 0;
}

/* Pool hook: runs once no reference is left. */
void rxe_mw_cleanup(struct rxe_pool_elem *elem)
{
	struct rxe_mw *mw = container_of(elem, struct rxe_mw, elem);
	struct rxe_pd *pd = rxe_mw_pd(mw);
	struct rxe_mr *mr;

	spin_lock_bh(&mw->lock);
	mr = rxe_mw_unbind_locked(mw);
	mw->state = RXE_MW_STATE_INVALID;
	spin_unlock_bh(&mw->lock);

	rxe_mw_drop_mr(mr);
	if (pd)
		rxe_put(pd);
}

struct rxe_bind_args {
	u64 addr;
	u64 length;
	u32 access;
	u32 rkey;
};

/* The checks of IBA 10.6.7 (bind), under mw->lock. */
static int rxe_check_bind_mw(struct rxe_qp *qp, struct rxe_mw *mw,
			     struct rxe_mr *mr, const struct rxe_bind_args *b)
{
	/* C10-72: window, region and QP share one PD */
	if (rxe_mw_pd(mw) != qp->pd)
		return -EINVAL;

	if (mw->ibmw.type == IB_MW_TYPE_1) {
		if (mw->state != RXE_MW_STATE_VALID)
			return -EINVAL;
		/* type 1 windows cannot be zero based */
		if (b->access & IB_ZERO_BASED)
			return -EINVAL;
	} else {
		/* o10-37.2.30: a type 2 window must be free to be bound */
		if (mw->state != RXE_MW_STATE_FREE)
			return -EINVAL;
		/* o10-37.2.40: and needs a non-empty range of an MR */
		if (!mr || !b->length)
			return -EINVAL;
	}

	/* a zero-length type 1 bind just unbinds */
	if (!mr)
		return 0;

	if (mr_pd(mr) != qp->pd || mr->state != RXE_MR_STATE_VALID)
		return -EINVAL;
	if (mr->access & IB_ZERO_BASED)
		return -EINVAL;
	/* C10-73: the MR must allow binding */
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EINVAL;
	/* C10-74: remote write/atomic need local write on the MR */
	if ((b->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	/* C10-75: the window lies inside the region */
	if (b->addr < mr->ibmr.iova || b->length > mr->ibmr.length ||
	    b->addr - mr->ibmr.iova > mr->ibmr.length - b->length)
		return -EINVAL;

	return 0;
}

/* Execute an IB_WR_BIND_MW WQE. Returns 0 or -EINVAL (MW_BIND_ERR). */
int rxe_bind_mw(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rxe_mr *mr = NULL, *old_mr;
	struct rxe_bind_args b;
	u32 mw_rkey, mr_lkey;
	struct rxe_mw *mw;
	int err;

	/* the WQE may sit in a user-writable ring: read it once */
	mw_rkey = READ_ONCE(wqe->wr.wr.mw.mw_rkey);
	mr_lkey = READ_ONCE(wqe->wr.wr.mw.mr_lkey);
	b.addr = READ_ONCE(wqe->wr.wr.mw.addr);
	b.length = READ_ONCE(wqe->wr.wr.mw.length);
	b.access = READ_ONCE(wqe->wr.wr.mw.access) & RXE_MW_ACCESS;
	b.rkey = READ_ONCE(wqe->wr.wr.mw.rkey);

	mw = rxe_pool_get_index(&rxe->mw_pool, mw_rkey >> 8);
	if (!mw)
		return -EINVAL;

	if (b.length) {
		mr = rxe_pool_get_index(&rxe->mr_pool, mr_lkey >> 8);
		if (!mr || mr->lkey != mr_lkey) {
			err = -EINVAL;
			goto out;
		}
	}

	spin_lock_bh(&mw->lock);
	if (mw->rkey != mw_rkey) {
		err = -EINVAL;
		goto out_unlock;
	}
	err = rxe_check_bind_mw(qp, mw, mr, &b);
	if (err)
		goto out_unlock;

	old_mr = rxe_mw_unbind_locked(mw);
	/* the consumer owns the low 8 bits of the rkey */
	mw->rkey = (mw->rkey & ~0xffU) | (b.rkey & 0xff);
	mw->ibmw.rkey = mw->rkey;
	mw->access = b.access;
	mw->addr = b.addr;
	mw->length = b.length;
	if (mr) {
		/* the lookup reference becomes the window's */
		atomic_inc(&mr->num_mw);
		mw->mr = mr;
		mr = NULL;
	}
	if (mw->ibmw.type == IB_MW_TYPE_2)
		mw->qp = qp;
	mw->state = RXE_MW_STATE_VALID;
	spin_unlock_bh(&mw->lock);

	rxe_mw_drop_mr(old_mr);
	goto out;

out_unlock:
	spin_unlock_bh(&mw->lock);
out:
	if (mr)
		rxe_put(mr);
	rxe_put(mw);
	return err;
}

/* IB_WR_LOCAL_INV or an incoming send-with-invalidate naming a window. */
int rxe_invalidate_mw(struct rxe_qp *qp, u32 rkey)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rxe_mr *mr = NULL;
	struct rxe_mw *mw;
	int err = 0;

	mw = rxe_pool_get_index(&rxe->mw_pool, rkey >> 8);
	if (!mw)
		return -EINVAL;

	spin_lock_bh(&mw->lock);
	/* type 1 windows are only unbound by a zero-length bind */
	if (mw->rkey != rkey || mw->ibmw.type != IB_MW_TYPE_2 ||
	    mw->state != RXE_MW_STATE_VALID) {
		err = -EINVAL;
	} else {
		mr = rxe_mw_unbind_locked(mw);
		mw->state = RXE_MW_STATE_FREE;
	}
	spin_unlock_bh(&mw->lock);

	rxe_mw_drop_mr(mr);
	rxe_put(mw);
	return err;
}

/*
 * Responder lookup of an rkey naming a window usable by @qp with @access;
 * returns it with a reference, or NULL. Read mw->mr/addr under mw->lock.
 */
struct rxe_mw *rxe_lookup_mw(struct rxe_qp *qp, int access, u32 rkey)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rxe_mw *mw;
	bool ok;

	mw = rxe_pool_get_index(&rxe->mw_pool, rkey >> 8);
	if (!mw)
		return NULL;

	spin_lock_bh(&mw->lock);
	ok = mw->rkey == rkey && rxe_mw_pd(mw) == qp->pd &&
	     (mw->ibmw.type != IB_MW_TYPE_2 || mw->qp == qp) &&
	     mw->length && mw->mr &&
	     (access & mw->access) == access &&
	     mw->state == RXE_MW_STATE_VALID;
	spin_unlock_bh(&mw->lock);

	if (!ok) {
		rxe_put(mw);
		return NULL;
	}
	return mw;
}

struct rxe_mr *rxe_mw_to_mr(struct rxe_mw *mw, u64 va, u64 length,
			    u64 *iova)
{
	struct rxe_mr *mr = NULL;
	u64 start;

	spin_lock_bh(&mw->lock);
	if (mw->state != RXE_MW_STATE_VALID || !mw->mr)
		goto out;

	start = (mw->access & IB_ZERO_BASED) ? 0 : mw->addr;
	if (va < start || length > mw->length ||
	    va - start > mw->length - length)
		goto out;

	if (!rxe_get(mw->mr))
		goto out;
	mr = mw->mr;
	*iova = mw->addr + (va - start);
out:
	spin_unlock_bh(&mw->lock);
	return mr;
}
