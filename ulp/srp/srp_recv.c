// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: the IU rings of a channel. Receives carry SRP_RSP (commands and
 * task management), SRP_CRED_REQ, SRP_AER_REQ and SRP_T_LOGOUT from the
 * target; every IU is checked against the bytes that arrived before a field
 * is read. Sends carry our requests; a send IU comes back to the free list
 * when its completion arrives.
 *
 * Credits (req_lim) count the target's receive buffers: a command leaves one
 * for task management, requests answering the target need none.
 */
#include "srp.h"

/* Caps what deltas from the target can add up to. */
#define SRP_REQ_LIM_MAX		(1 << 20)

int srp_post_recv(struct srp_chan *ch, struct srp_iu *iu)
{
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = iu->size,
		.lkey = ch->target->port->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(ch->qp, &wr, NULL);
}

/* The caller holds ch->lock. */
struct srp_iu *srp_get_tx(struct srp_chan *ch, enum srp_iu_kind kind)
{
	unsigned int keep_iu = 0;
	int keep_credit = -1;
	struct srp_iu *iu;

	lockdep_assert_held(&ch->lock);
	switch (kind) {
	case SRP_IU_CMD:
		keep_iu = SRP_RESERVED_IUS;
		keep_credit = 1;
		break;
	case SRP_IU_TMF:
		keep_iu = 1;
		keep_credit = 0;
		break;
	case SRP_IU_RSP:
		break;
	}
	if (ch->tx_nfree <= keep_iu)
		return NULL;
	if (keep_credit >= 0) {
		if (ch->req_lim <= keep_credit) {
			ch->target->zero_req_lim++;
			return NULL;
		}
		ch->req_lim--;
	}
	iu = list_first_entry(&ch->tx_free, struct srp_iu, node);
	list_del(&iu->node);
	ch->tx_nfree--;
	atomic_set(&iu->refs, 1);
	return iu;
}

void srp_put_tx(struct srp_chan *ch, struct srp_iu *iu)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&iu->node, &ch->tx_free);
	ch->tx_nfree++;
	spin_unlock_irqrestore(&ch->lock, flags);
}

void srp_iu_release(struct srp_chan *ch, struct srp_iu *iu)
{
	if (atomic_dec_and_test(&iu->refs))
		srp_put_tx(ch, iu);
}

/* Sends @len bytes of @iu, after @first (a REG_MR) when given. */
int srp_post_send(struct srp_chan *ch, struct srp_iu *iu, u32 len,
		  struct ib_send_wr *first)
{
	struct srp_dev *sd = ch->target->port->sdev;
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = len,
		.lkey = sd->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(sd->ibdev, iu->dma, len, DMA_TO_DEVICE);
	if (first) {
		first->next = &wr;
		return ib_post_send(ch->qp, first, NULL);
	}
	return ib_post_send(ch->qp, &wr, NULL);
}

static void srp_wc_error(struct srp_chan *ch, struct ib_wc *wc,
			 const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		srp_err_rl("failed %s status %s (%d) on channel %u\n", what,
			   ib_wc_status_msg(wc->status), wc->status, ch->index);
	srp_chan_error(ch);
}

void srp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srp_iu *iu = container_of(wc->wr_cqe, struct srp_iu, cqe);
	struct srp_chan *ch = iu->ch;

	if (wc->status != IB_WC_SUCCESS)
		srp_wc_error(ch, wc, "SEND");
	srp_iu_release(ch, iu);
}

void srp_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srp_chan *ch = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS)
		srp_wc_error(ch, wc, wc->opcode == IB_WC_LOCAL_INV ?
			     "LOCAL_INV" : "REG_MR");
}

static void srp_add_credits(struct srp_chan *ch, __be32 delta)
{
	unsigned long flags;
	u32 d = be32_to_cpu(delta);

	spin_lock_irqsave(&ch->lock, flags);
	ch->req_lim = min_t(u64, (u64)max(ch->req_lim, 0) + d, SRP_REQ_LIM_MAX);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/* SRP_CRED_RSP / SRP_AER_RSP: 16 bytes, opcode and the request's tag. */
static void srp_answer(struct srp_chan *ch, u8 opcode, u64 tag)
{
	struct srp_cred_rsp *r;
	unsigned long flags;
	struct srp_iu *iu;
	int ret = -ENOTCONN;

	spin_lock_irqsave(&ch->lock, flags);
	iu = ch->live ? srp_get_tx(ch, SRP_IU_RSP) : NULL;
	if (iu) {
		r = iu->buf;
		memset(r, 0, sizeof(*r));
		r->opcode = opcode;
		r->tag = tag;
		ret = srp_post_send(ch, iu, sizeof(*r), NULL);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret) {
		srp_err_rl("could not answer a target request (opcode 0x%02x): %d\n",
			   opcode, ret);
		if (iu)
			srp_put_tx(ch, iu);
	}
}

static void srp_tmf_rsp(struct srp_chan *ch, const struct srp_rsp *rsp,
			u32 len)
{
	u32 rlen = be32_to_cpu(rsp->resp_data_len);
	unsigned long flags;
	int status = -1;

	if ((rsp->flags & SRP_RSP_FLAG_RSPVALID) && rlen >= 4 &&
	    len >= sizeof(*rsp) + 4)
		status = rsp->data[3];
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->tmf_tag == rsp->tag) {
		ch->tmf_status = status;
		ch->tmf_tag = 0;
		complete(&ch->tmf_done);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
}

static void srp_handle_iu(struct srp_chan *ch, void *buf, u32 len)
{
	u8 opcode = *(u8 *)buf;

	switch (opcode) {
	case SRP_RSP: {
		struct srp_rsp *rsp = buf;

		if (len < sizeof(*rsp))
			goto short_iu;
		srp_add_credits(ch, rsp->req_lim_delta);
		if (rsp->tag & cpu_to_be64(SRP_TAG_TMF))
			srp_tmf_rsp(ch, rsp, len);
		else
			srp_complete_rsp(ch, rsp, len);
		break;
	}
	case SRP_CRED_REQ: {
		struct srp_cred_req *req = buf;

		if (len < sizeof(*req))
			goto short_iu;
		srp_add_credits(ch, req->req_lim_delta);
		srp_answer(ch, SRP_CRED_RSP, req->tag);
		break;
	}
	case SRP_AER_REQ: {
		struct srp_aer_req *req = buf;

		if (len < sizeof(*req))
			goto short_iu;
		srp_add_credits(ch, req->req_lim_delta);
		srp_err_rl("ignoring AER for LUN %llu\n",
			   scsilun_to_int(&req->lun));
		srp_answer(ch, SRP_AER_RSP, req->tag);
		break;
	}
	case SRP_T_LOGOUT:
		srp_err_rl("Got target logout request\n");
		break;
	default:
		srp_err_rl("Unhandled SRP opcode 0x%02x\n", opcode);
		break;
	}
	return;
short_iu:
	srp_err_rl("dropped a short IU (opcode 0x%02x, %u bytes)\n", opcode,
		   len);
}

void srp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srp_iu *iu = container_of(wc->wr_cqe, struct srp_iu, cqe);
	struct srp_chan *ch = iu->ch;
	struct ib_device *dev = ch->target->port->sdev->ibdev;
	u32 len = min(wc->byte_len, iu->size);
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		srp_wc_error(ch, wc, "RECV");
		return;
	}
	ib_dma_sync_single_for_cpu(dev, iu->dma, iu->size, DMA_FROM_DEVICE);
	if (len)
		srp_handle_iu(ch, iu->buf, len);
	ib_dma_sync_single_for_device(dev, iu->dma, iu->size, DMA_FROM_DEVICE);
	ret = srp_post_recv(ch, iu);
	if (ret) {
		srp_err_rl("cannot repost a receive: %d\n", ret);
		srp_chan_error(ch);
	}
}
