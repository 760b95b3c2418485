// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting work requests. Kernel consumers' WR lists are written into the
 * same rings libsiw uses, so one transmit and one receive path serve both.
 * For user QPs post_send(qp, NULL) is the doorbell (a write() of POST_SEND
 * with no WRs) and non-empty lists are refused: libsiw owns those rings.
 */
#include "siw.h"

static int siw_wr_opcode(const struct ib_send_wr *wr, u8 *op)
{
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
		*op = SIW_OP_WRITE;
		break;
	case IB_WR_RDMA_READ:
		*op = SIW_OP_READ;
		break;
	case IB_WR_RDMA_READ_WITH_INV:
		*op = SIW_OP_READ_LOCAL_INV;
		break;
	case IB_WR_SEND:
		*op = SIW_OP_SEND;
		break;
	case IB_WR_SEND_WITH_INV:
		*op = SIW_OP_SEND_REMOTE_INV;
		break;
	case IB_WR_LOCAL_INV:
		*op = SIW_OP_INVAL_STAG;
		break;
	case IB_WR_REG_MR:
		*op = SIW_OP_REG_MR;
		break;
	default:
		/* no immediate data and no atomics in iWARP (RFC 5040) */
		return -EINVAL;
	}
	return 0;
}

static int siw_sqe_fill(struct siw_qp *qp, struct siw_sqe *sqe,
			const struct ib_send_wr *wr)
{
	u16 flags = 0;
	u8 op;
	int i, err;

	err = siw_wr_opcode(wr, &op);
	if (err)
		return err;
	if (wr->num_sge < 0 || wr->num_sge > (int)qp->max_send_sge)
		return -EINVAL;

	memset(sqe, 0, sizeof(*sqe));
	sqe->id = wr->wr_id;
	sqe->opcode = op;
	if (wr->send_flags & IB_SEND_SIGNALED)
		flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= SIW_WQE_READ_FENCE;

	switch (op) {
	case SIW_OP_REG_MR:
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		goto done;
	case SIW_OP_INVAL_STAG:
		sqe->rkey = wr->ex.invalidate_rkey;
		goto done;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		/* one sink per Read Request */
		if (wr->num_sge > SIW_MAX_SGE_RD)
			return -EINVAL;
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		/* the unused second SGE carries the STag to invalidate */
		if (op == SIW_OP_READ_LOCAL_INV)
			sqe->sge[1].lkey = wr->ex.invalidate_rkey;
		break;
	case SIW_OP_WRITE:
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case SIW_OP_SEND_REMOTE_INV:
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if ((wr->send_flags & IB_SEND_INLINE) &&
	    (op == SIW_OP_WRITE || op == SIW_OP_SEND ||
	     op == SIW_OP_SEND_REMOTE_INV)) {
		u8 *p = (u8 *)&sqe->sge[1];
		u32 len = 0;

		for (i = 0; i < wr->num_sge; i++) {
			u32 l = wr->sg_list[i].length;

			if (l > SIW_MAX_INLINE - len)
				return -EINVAL;
			/* kernel SGE addresses are kernel virtual here */
			memcpy(p + len, (void *)(uintptr_t)wr->sg_list[i].addr,
			       l);
			len += l;
		}
		sqe->sge[0].length = len;
		sqe->num_sge = len ? 1 : 0;
		flags |= SIW_WQE_INLINE;
		goto done;
	}

	for (i = 0; i < wr->num_sge; i++) {
		sqe->sge[i].laddr = wr->sg_list[i].addr;
		sqe->sge[i].length = wr->sg_list[i].length;
		sqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sqe->num_sge = wr->num_sge;
done:
	/* published by the caller with the VALID bit */
	sqe->flags = flags;
	return 0;
}

int siw_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base);
	enum siw_qp_state state;
	unsigned long flags;
	int err = 0;

	state = READ_ONCE(qp->state);
	if (!qp->kernel_verbs) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		/* doorbell: the tx work looks at the ring (or flushes it) */
		if (state == SIW_QP_STATE_RTS ||
		    state == SIW_QP_STATE_CLOSING ||
		    state == SIW_QP_STATE_ERROR)
			siw_qp_kick_tx(qp);
		return 0;
	}

	/* IB allows posting sends in RTS; in ERR they complete flushed */
	if (state != SIW_QP_STATE_RTS && state != SIW_QP_STATE_ERROR &&
	    state != SIW_QP_STATE_CLOSING) {
		*bad_wr = wr;
		return -ENOTCONN;
	}

	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_sqe *sqe = &qp->sendq[qp->sq_put % qp->num_sqe];
		struct siw_sqe tmp;

		if (READ_ONCE(sqe->flags) & SIW_WQE_VALID) {
			err = -ENOMEM;
			break;
		}
		err = siw_sqe_fill(qp, &tmp, wr);
		if (err)
			break;
		memcpy(sqe, &tmp, sizeof(*sqe));
		smp_store_release(&sqe->flags, tmp.flags | SIW_WQE_VALID);
		qp->sq_put++;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (err)
		*bad_wr = wr;
	/* completions (also flush ones) come from the tx work, never here */
	siw_qp_kick_tx(qp);
	return err;
}

int siw_rqe_fill(struct siw_rqe *rqe, const struct ib_recv_wr *wr,
		 u32 max_sge)
{
	int i;

	if (wr->num_sge < 0 || wr->num_sge > (int)max_sge)
		return -EINVAL;
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	rqe->opcode = SIW_OP_RECEIVE;
	rqe->unused = 0;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	smp_store_release(&rqe->flags, SIW_WQE_VALID);
	return 0;
}

int siw_post_receive(struct ib_qp *base, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base);
	unsigned long flags;
	int err = 0;

	if (!qp->kernel_verbs || qp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = &qp->recvq[qp->rq_put % qp->num_rqe];

		if (READ_ONCE(rqe->flags) & SIW_WQE_VALID) {
			err = -ENOMEM;
			break;
		}
		err = siw_rqe_fill(rqe, wr, qp->max_recv_sge);
		if (err)
			break;
		qp->rq_put++;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (err)
		*bad_wr = wr;
	/* in ERR the rx work flushes what was just posted */
	if (siw_qp_state_is(qp, SIW_QP_STATE_ERROR))
		siw_qp_kick_rx(qp);
	return err;
}
