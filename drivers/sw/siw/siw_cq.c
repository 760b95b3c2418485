// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw completion queues. CQEs live in a ring owned by the VALID flag of
 * each slot (ABI.md §4.10): the kernel fills slot cq_put % num_cqe only
 * while its flag is clear and sets VALID last; the consumer (libsiw, or
 * siw_poll_cq for kernel CQs) clears it. The notification word after the
 * ring is armed by the consumer and disarmed by the kernel when it fires.
 */
#include <linux/log2.h>
#include "siw.h"

static const enum ib_wc_opcode siw_wc_opcode[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE] = IB_WC_RDMA_WRITE,
	[SIW_OP_READ] = IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV] = IB_WC_RDMA_READ,
	[SIW_OP_SEND] = IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM] = IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP] = IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE] = IB_WC_RECV,
	[SIW_OP_READ_RESPONSE] = IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG] = IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR] = IB_WC_REG_MR,
};

static const enum ib_wc_status siw_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

int siw_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_cq *cq = to_siw_cq(base);
	struct siw_uresp_create_cq uresp = {};
	struct siw_ucontext *uctx;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > SIW_MAX_CQE)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cq) > SIW_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	cq->kernel_verbs = !udata;
	cq->num_cqe = roundup_pow_of_two(attr->cqe);
	cq->key = SIW_INVAL_UOBJ_KEY;
	cq->ring = siw_ring_alloc(cq->num_cqe * sizeof(struct siw_cqe) +
				  sizeof(struct siw_cq_ctrl), !!udata);
	if (!cq->ring) {
		err = -ENOMEM;
		goto err_count;
	}
	cq->queue = cq->ring->mem;
	cq->notify = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	cq->id = (u32)atomic_read(&sdev->num_cq);
	base->cqe = cq->num_cqe;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
		err = siw_ring_publish(uctx, cq->ring, &cq->key);
		if (err)
			goto err_ring;
		uresp.cq_id = cq->id;
		uresp.num_cqe = cq->num_cqe;
		uresp.cq_key = cq->key;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_key;
	}
	return 0;

err_key:
	siw_ring_unpublish(uctx, cq->key);
err_ring:
	siw_ring_put(cq->ring);
err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

int siw_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct siw_cq *cq = to_siw_cq(base);
	struct siw_ucontext *uctx;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct siw_ucontext,
						 base_ucontext);
		siw_ring_unpublish(uctx, cq->key);
	}
	siw_ring_put(cq->ring);
	atomic_dec(&to_siw_dev(base->device)->num_cq);
	return 0;
}

/* Should this CQE raise an event? Disarms the CQ if so. */
static bool siw_cq_notify_now(struct siw_cq *cq, bool solicited)
{
	u32 *flags = &cq->notify->flags;
	u32 f = READ_ONCE(*flags);

	for (;;) {
		u32 old;

		if (!(f & SIW_NOTIFY_NEXT_COMPLETION) &&
		    !((f & SIW_NOTIFY_SOLICITED) && solicited))
			return false;
		old = cmpxchg(flags, f, SIW_NOTIFY_NOT);
		if (old == f)
			return true;
		f = old;
	}
}

static int siw_cqe_add(struct siw_qp *qp, struct siw_cq *cq,
		       const struct siw_cqe *src, bool solicited)
{
	struct siw_cqe *cqe;
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	cqe = &cq->queue[cq->cq_put % cq->num_cqe];
	if (READ_ONCE(cqe->flags) & SIW_WQE_VALID) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->base_cq.event_handler) {
			struct ib_event ev = {
				.device = cq->base_cq.device,
				.element.cq = &cq->base_cq,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->base_cq.event_handler(&ev,
						  cq->base_cq.cq_context);
		}
		return -ENOMEM;
	}
	cqe->id = src->id;
	cqe->opcode = src->opcode;
	cqe->status = src->status;
	cqe->bytes = src->bytes;
	cqe->imm_data = 0;
	cqe->inval_stag = src->inval_stag;
	if (cq->kernel_verbs)
		cqe->base_qp = &qp->base_qp;
	else
		cqe->qp_id = qp->id;
	/* the consumer owns the slot once it sees VALID */
	smp_store_release(&cqe->flags, src->flags | SIW_WQE_VALID);
	cq->cq_put++;
	notify = siw_cq_notify_now(cq, solicited);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->base_cq.comp_handler)
		cq->base_cq.comp_handler(&cq->base_cq, cq->base_cq.cq_context);
	return 0;
}

bool siw_sqe_is_signalled(struct siw_qp *qp, const struct siw_sqe *sqe)
{
	return qp->sig_all || (sqe->flags & SIW_WQE_SIGNALLED);
}

/* Errors complete every WQE; successes only signalled ones. */
int siw_sqe_complete(struct siw_qp *qp, const struct siw_sqe *sqe, u32 bytes,
		     enum siw_wc_status status)
{
	struct siw_cqe cqe = {};

	if (!qp->scq)
		return 0;
	if (status == SIW_WC_SUCCESS && !siw_sqe_is_signalled(qp, sqe))
		return 0;
	cqe.id = sqe->id;
	cqe.opcode = sqe->opcode < SIW_NUM_OPCODES ? sqe->opcode : SIW_OP_SEND;
	cqe.status = status;
	cqe.bytes = status == SIW_WC_SUCCESS ? bytes : 0;
	return siw_cqe_add(qp, qp->scq, &cqe, false);
}

int siw_rqe_complete(struct siw_qp *qp, const struct siw_sqe *rqe, u32 bytes,
		     u32 inval_stag, bool solicited,
		     enum siw_wc_status status)
{
	struct siw_cqe cqe = {};

	if (!qp->rcq)
		return 0;
	cqe.id = rqe->id;
	cqe.opcode = SIW_OP_RECEIVE;
	cqe.status = status;
	cqe.bytes = status == SIW_WC_SUCCESS ? bytes : 0;
	if (inval_stag && status == SIW_WC_SUCCESS) {
		cqe.flags = SIW_WQE_REM_INVAL;
		cqe.inval_stag = inval_stag;
	}
	return siw_cqe_add(qp, qp->rcq, &cqe, solicited);
}

static void siw_cqe_to_wc(const struct siw_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->id;
	wc->status = cqe->status < SIW_NUM_WC_STATUS ?
		     siw_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
	wc->opcode = cqe->opcode < SIW_NUM_OPCODES ?
		     siw_wc_opcode[cqe->opcode] : IB_WC_SEND;
	wc->byte_len = cqe->bytes;
	wc->qp = cqe->base_qp;
	if (cqe->flags & SIW_WQE_REM_INVAL) {
		wc->ex.invalidate_rkey = cqe->inval_stag;
		wc->wc_flags = IB_WC_WITH_INVALIDATE;
	}
}

int siw_poll_cq(struct ib_cq *base, int num, struct ib_wc *wc)
{
	struct siw_cq *cq = to_siw_cq(base);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < num; i++) {
		struct siw_cqe *cqe = &cq->queue[cq->cq_get % cq->num_cqe];

		if (!(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID))
			break;
		siw_cqe_to_wc(cqe, &wc[i]);
		WRITE_ONCE(cqe->flags, 0);
		cq->cq_get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

int siw_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct siw_cq *cq = to_siw_cq(base);
	struct siw_cqe *cqe;
	u32 arm;

	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm = SIW_NOTIFY_SOLICITED;
	else
		arm = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;
	/* full barrier: the arm must be visible before we look for CQEs */
	smp_store_mb(cq->notify->flags, arm);

	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		cqe = &cq->queue[READ_ONCE(cq->cq_get) % cq->num_cqe];
		if (READ_ONCE(cqe->flags) & SIW_WQE_VALID)
			return 1;
	}
	return 0;
}
