// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw shared receive queues: an RQE ring like a QP's RQ (VALID-flag
 * handshake), consumed by the receive work of every QP attached to it.
 */
#include <linux/log2.h>
#include "siw.h"

int siw_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_srq *srq = to_siw_srq(base);
	struct ib_srq_attr *attr = &init->attr;
	struct siw_uresp_create_srq uresp = {};
	struct siw_ucontext *uctx;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > SIW_MAX_SRQ_WR ||
	    attr->max_sge > SIW_MAX_SGE || attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_srq) > SIW_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	srq->kernel_verbs = !udata;
	srq->num_rqe = roundup_pow_of_two(attr->max_wr);
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	srq->armed = !!srq->limit;
	srq->key = SIW_INVAL_UOBJ_KEY;
	srq->ring = siw_ring_alloc(srq->num_rqe * sizeof(struct siw_rqe),
				   !!udata);
	if (!srq->ring) {
		err = -ENOMEM;
		goto err_count;
	}
	srq->recvq = srq->ring->mem;
	attr->max_wr = srq->num_rqe;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
		err = siw_ring_publish(uctx, srq->ring, &srq->key);
		if (err)
			goto err_ring;
		uresp.num_rqe = srq->num_rqe;
		uresp.srq_key = srq->key;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_key;
	}
	return 0;

err_key:
	siw_ring_unpublish(uctx, srq->key);
err_ring:
	siw_ring_put(srq->ring);
err_count:
	atomic_dec(&sdev->num_srq);
	return err;
}

int siw_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&srq->lock, flags);
	/* the ring cannot be resized: it is mapped by userspace */
	if (mask & IB_SRQ_MAX_WR) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->num_rqe) {
			err = -EINVAL;
			goto out;
		}
		srq->limit = attr->srq_limit;
		srq->armed = !!attr->srq_limit;
	}
out:
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

int siw_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->num_rqe;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int siw_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);
	struct siw_ucontext *uctx;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
		siw_ring_unpublish(uctx, srq->key);
	}
	siw_ring_put(srq->ring);
	atomic_dec(&to_siw_dev(base->device)->num_srq);
	return 0;
}

int siw_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;
	int err = 0;

	if (!srq->kernel_verbs) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = &srq->recvq[srq->rq_put % srq->num_rqe];

		if (READ_ONCE(rqe->flags) & SIW_WQE_VALID) {
			err = -ENOMEM;
			break;
		}
		err = siw_rqe_fill(rqe, wr, srq->max_sge);
		if (err)
			break;
		srq->rq_put++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
