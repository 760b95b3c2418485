// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe shared receive queues: attribute checks, the ring (shared with
 * librxe for user SRQs) and its resize. The responder consumes it.
 */
#include <linux/uaccess.h>
#include "rxe.h"

/* IBA lets a create ask for 0 WRs/SGEs; rxe gives at least these. */
#define RXE_MIN_SRQ_WR	1
#define RXE_MIN_SRQ_SGE	1

static size_t rxe_srq_wqe_size(int max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct ib_sge);
}

int rxe_srq_chk_init(struct rxe_dev *rxe, struct ib_srq_init_attr *init)
{
	struct ib_srq_attr *attr = &init->attr;

	if (init->srq_type != IB_SRQT_BASIC) {
		pr_debug("rdma_rxe: SRQ type %d not supported\n",
			 init->srq_type);
		return -EOPNOTSUPP;
	}

	if (attr->max_wr > rxe->attr.max_srq_wr) {
		pr_debug("rdma_rxe: max_wr %u > %d\n", attr->max_wr,
			 rxe->attr.max_srq_wr);
		return -EINVAL;
	}
	if (attr->max_wr < RXE_MIN_SRQ_WR)
		attr->max_wr = RXE_MIN_SRQ_WR;

	if (attr->max_sge > rxe->attr.max_srq_sge) {
		pr_debug("rdma_rxe: max_sge %u > %d\n", attr->max_sge,
			 rxe->attr.max_srq_sge);
		return -EINVAL;
	}
	if (attr->max_sge < RXE_MIN_SRQ_SGE)
		attr->max_sge = RXE_MIN_SRQ_SGE;

	if (attr->srq_limit > attr->max_wr) {
		pr_debug("rdma_rxe: srq_limit %u > max_wr %u\n",
			 attr->srq_limit, attr->max_wr);
		return -EINVAL;
	}

	return 0;
}

int rxe_srq_from_init(struct rxe_dev *rxe, struct rxe_srq *srq,
		      struct ib_srq_init_attr *init, struct ib_udata *udata,
		      struct rxe_create_srq_resp __user *uresp)
{
	enum rxe_queue_type type;
	struct rxe_queue *q;
	int max_wr;
	int err;

	srq->srq_num = srq->elem.index;
	srq->limit = init->attr.srq_limit;
	srq->error = 0;
	srq->rq.max_sge = init->attr.max_sge;
	spin_lock_init(&srq->rq.producer_lock);
	spin_lock_init(&srq->rq.consumer_lock);

	max_wr = init->attr.max_wr;
	type = udata ? QUEUE_TYPE_FROM_CLIENT : QUEUE_TYPE_KERNEL;
	q = rxe_queue_init(rxe, &max_wr, rxe_srq_wqe_size(srq->rq.max_sge),
			   type);
	if (!q)
		return -ENOMEM;

	err = rxe_queue_do_mmap_info(rxe, udata, uresp ? &uresp->mi : NULL, q);
	if (err)
		goto err_queue;

	if (uresp && put_user(srq->srq_num, &uresp->srq_num)) {
		err = -EFAULT;
		goto err_queue;
	}

	/*
	 * The SRQ keeps its PD alive; rxe_srq_cleanup() lets go. Whoever sets
	 * srq->pd holds that reference (create_srq may have done it).
	 */
	if (!srq->pd) {
		struct rxe_pd *pd = to_rpd(srq->ibsrq.pd);

		if (!pd || !rxe_get(pd)) {
			err = -EINVAL;
			goto err_queue;
		}
		srq->pd = pd;
	}

	srq->rq.queue = q;
	srq->rq.max_wr = max_wr;
	init->attr.max_wr = max_wr;
	return 0;

err_queue:
	rxe_queue_cleanup(q);
	return err;
}

int rxe_srq_chk_attr(struct rxe_dev *rxe, struct rxe_srq *srq,
		     struct ib_srq_attr *attr, enum ib_srq_attr_mask mask)
{
	if (srq->error) {
		pr_debug("rdma_rxe: SRQ#%u in error\n", srq->srq_num);
		return -EINVAL;
	}

	if (mask & IB_SRQ_MAX_WR) {
		if (attr->max_wr > rxe->attr.max_srq_wr) {
			pr_debug("rdma_rxe: max_wr %u > %d\n", attr->max_wr,
				 rxe->attr.max_srq_wr);
			return -EINVAL;
		}
		if (attr->max_wr < RXE_MIN_SRQ_WR)
			attr->max_wr = RXE_MIN_SRQ_WR;
		/* an armed limit must stay below the new size */
		if (srq->limit && attr->max_wr < srq->limit) {
			pr_debug("rdma_rxe: max_wr %u < srq_limit %d\n",
				 attr->max_wr, srq->limit);
			return -EINVAL;
		}
	}

	if (mask & IB_SRQ_LIMIT) {
		u32 max_wr = (mask & IB_SRQ_MAX_WR) ? attr->max_wr :
						      (u32)srq->rq.max_wr;

		if (attr->srq_limit > max_wr) {
			pr_debug("rdma_rxe: srq_limit %u > max_wr %u\n",
				 attr->srq_limit, max_wr);
			return -EINVAL;
		}
	}

	return 0;
}

int rxe_srq_from_attr(struct rxe_dev *rxe, struct rxe_srq *srq,
		      struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		      struct rxe_modify_srq_cmd *ucmd, struct ib_udata *udata)
{
	struct mminfo __user *mi = NULL;
	int max_wr;
	int err;

	if (mask & IB_SRQ_MAX_WR) {
		if (udata) {
			/* librxe tells where the new mminfo goes */
			if (!ucmd || !ucmd->mmap_info_addr)
				return -EINVAL;
			mi = u64_to_user_ptr(ucmd->mmap_info_addr);
		}

		max_wr = attr->max_wr;
		err = rxe_queue_resize(srq->rq.queue, &max_wr,
				       rxe_srq_wqe_size(srq->rq.max_sge),
				       udata, mi, &srq->rq.producer_lock,
				       &srq->rq.consumer_lock);
		if (err)
			return err;
		srq->rq.max_wr = max_wr;
		attr->max_wr = max_wr;
	}

	if (mask & IB_SRQ_LIMIT)
		srq->limit = attr->srq_limit;

	return 0;
}

void rxe_srq_cleanup(struct rxe_pool_elem *elem)
{
	struct rxe_srq *srq = container_of(elem, struct rxe_srq, elem);

	if (srq->pd) {
		rxe_put(srq->pd);
		srq->pd = NULL;
	}

	if (srq->rq.queue) {
		rxe_queue_cleanup(srq->rq.queue);
		srq->rq.queue = NULL;
	}
}
