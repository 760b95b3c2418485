// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw receive: one work item per QP reads the TCP stream (tcp_read_sock
 * under the socket lock) and parses FPDUs with state kept across segment
 * boundaries: header, payload placed straight from the skb into its
 * target (tagged: the STag's memory at TO; untagged Send: the receive
 * WQE's SGEs; Read Response: the sink of the oldest outstanding Read),
 * then pad and CRC. Every protocol violation is counted, answered with a
 * Terminate and ends the stream; nothing from the wire is trusted.
 */
#include <linux/crc32c.h>
#include <linux/skbuff.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "siw.h"

void siw_rx_ctx_release(struct siw_qp *qp)
{
	siw_mem_put(qp->rx.mem);
	qp->rx.mem = NULL;
	siw_wqe_put_mem(&qp->rx.wqe);
	qp->rx.have_rqe = false;
}

static int siw_rx_fail(struct siw_qp *qp, enum siw_counter cnt, u8 layer,
		       u8 etype, u8 ecode)
{
	struct siw_rx_ctx *rx = &qp->rx;

	siw_count(qp->sdev, cnt);
	siw_term_set(qp, layer, etype, ecode, rx->hdr,
		     min_t(u32, rx->hdr_have, sizeof(struct iwarp_read_req)));
	rx->state = SIW_RX_DEAD;
	return -EPROTO;
}

/* Why a tagged access failed, as a Terminate (siw_mem_check codes). */
static int siw_rx_tagged_fail(struct siw_qp *qp, int err)
{
	switch (err) {
	case -EPERM:
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_ACCESS, TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_PROTECTION,
				   RDMAP_ECODE_ACCESS_RIGHTS);
	case -ERANGE:
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_BOUNDS, TERM_LAYER_DDP,
				   DDP_ETYPE_TAGGED_BUF,
				   DDP_ECODE_T_BASE_BOUNDS);
	case -EACCES:
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_STAG, TERM_LAYER_DDP,
				   DDP_ETYPE_TAGGED_BUF,
				   DDP_ECODE_T_STAG_NOT_ASSOC);
	default:
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_STAG, TERM_LAYER_DDP,
				   DDP_ETYPE_TAGGED_BUF,
				   DDP_ECODE_T_INVALID_STAG);
	}
}

/* Same for the source of a Read Request: RDMAP remote protection. */
static int siw_rx_read_fail(struct siw_qp *qp, int err)
{
	static const struct { int err; u8 ecode; enum siw_counter cnt; } m[] = {
		{ -EPERM, RDMAP_ECODE_ACCESS_RIGHTS, SIW_CNT_RX_BAD_ACCESS },
		{ -ERANGE, RDMAP_ECODE_BASE_BOUNDS, SIW_CNT_RX_BAD_BOUNDS },
		{ -EACCES, RDMAP_ECODE_STAG_NOT_ASSOC, SIW_CNT_RX_BAD_STAG },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(m); i++)
		if (m[i].err == err)
			return siw_rx_fail(qp, m[i].cnt, TERM_LAYER_RDMAP,
					   RDMAP_ETYPE_REMOTE_PROTECTION,
					   m[i].ecode);
	return siw_rx_fail(qp, SIW_CNT_RX_BAD_STAG, TERM_LAYER_RDMAP,
			   RDMAP_ETYPE_REMOTE_PROTECTION,
			   RDMAP_ECODE_INVALID_STAG);
}

/* Looks up (or keeps) the memory behind stag and checks the access. */
static int siw_rx_mem(struct siw_qp *qp, u32 stag, int perms, u64 addr,
		      u32 len)
{
	struct siw_rx_ctx *rx = &qp->rx;

	if (!rx->mem || rx->mem->stag != stag) {
		siw_mem_put(rx->mem);
		rx->mem = siw_mem_get(qp->sdev, stag);
		if (!rx->mem)
			return -ENOENT;
	}
	return siw_mem_check(rx->mem, qp->base_qp.pd, perms, addr, len);
}

/* ---- header ---- */

static int siw_rx_parse_ctrl(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_ctrl *c = (struct iwarp_ctrl *)rx->hdr;
	u16 ctrl = be16_to_cpu(c->ddp_rdmap_ctrl);
	u32 mpa_len = be16_to_cpu(c->mpa_len);
	u8 op = ctrl & RDMAP_MASK_OPCODE;
	bool want_tagged;

	rx->tagged = ctrl & DDP_FLAG_TAGGED;
	rx->last = ctrl & DDP_FLAG_LAST;
	rx->opcode = op;
	rx->fpdu_len = mpa_len;

	if (((ctrl & DDP_MASK_VERSION) >> 8) != DDP_VERSION)
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_HDR, TERM_LAYER_DDP,
				   rx->tagged ? DDP_ETYPE_TAGGED_BUF :
						DDP_ETYPE_UNTAGGED_BUF,
				   rx->tagged ? DDP_ECODE_T_VERSION :
						DDP_ECODE_UT_VERSION);
	if (((ctrl & RDMAP_MASK_VERSION) >> 6) != RDMAP_VERSION)
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_HDR, TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_OPERATION,
				   RDMAP_ECODE_VERSION);

	switch (op) {
	case RDMAP_RDMA_WRITE:
	case RDMAP_RDMA_READ_RESP:
		want_tagged = true;
		rx->hdr_len = sizeof(struct iwarp_tagged_hdr);
		break;
	case RDMAP_RDMA_READ_REQ:
		want_tagged = false;
		rx->hdr_len = sizeof(struct iwarp_read_req);
		break;
	case RDMAP_SEND:
	case RDMAP_SEND_INVAL:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_SE_INVAL:
	case RDMAP_TERMINATE:
		want_tagged = false;
		rx->hdr_len = sizeof(struct iwarp_untagged_hdr);
		break;
	default:
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_HDR, TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_OPERATION,
				   RDMAP_ECODE_OPCODE);
	}
	if (want_tagged != rx->tagged ||
	    ((op == RDMAP_RDMA_READ_REQ || op == RDMAP_TERMINATE) &&
	     !rx->last))
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_HDR, TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_OPERATION,
				   RDMAP_ECODE_OPCODE);

	/* the ULPDU length must cover the header, and fit what follows it */
	if (mpa_len + MPA_HDR_SIZE < rx->hdr_len ||
	    (op == RDMAP_RDMA_READ_REQ &&
	     mpa_len + MPA_HDR_SIZE != rx->hdr_len) ||
	    (op == RDMAP_TERMINATE &&
	     mpa_len + MPA_HDR_SIZE - rx->hdr_len > TERM_MAX_BODY))
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_LEN, TERM_LAYER_LLP,
				   LLP_ETYPE_MPA, LLP_ECODE_MARKER_LEN);
	return 0;
}

static int siw_rx_untagged_check(struct siw_qp *qp, u32 qn)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_untagged_hdr *h = (void *)rx->hdr;

	if (be32_to_cpu(h->qn) != qn)
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_QN, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_INVALID_QN);
	if (be32_to_cpu(h->msn) != rx->msn[qn])
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_MSN, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_INVALID_MSN_RANGE);
	return 0;
}

static int siw_rx_write_begin(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_tagged_hdr *h = (void *)rx->hdr;
	int err;

	rx->to = be64_to_cpu(h->to);
	/* a zero-length Write (e.g. an RTR) names no memory */
	if (!rx->data_left)
		return 0;
	err = siw_rx_mem(qp, be32_to_cpu(h->stag), IB_ACCESS_REMOTE_WRITE,
			 rx->to, rx->data_left);
	return err ? siw_rx_tagged_fail(qp, err) : 0;
}

static int siw_rx_rresp_begin(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_tagged_hdr *h = (void *)rx->hdr;
	struct siw_sqe sqe;
	unsigned long flags;
	bool have;
	u64 end;
	int err;

	spin_lock_irqsave(&qp->orq_lock, flags);
	have = qp->orq_get != qp->orq_put;
	if (have)
		sqe = qp->orq[qp->orq_get % SIW_MAX_ORD_QP];
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	if (!have)
		return siw_rx_fail(qp, SIW_CNT_RX_UNEXPECTED_RESP,
				   TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_OPERATION,
				   RDMAP_ECODE_OPCODE);

	rx->to = be64_to_cpu(h->to);
	if (!rx->data_left)
		return 0;
	/* the response must land inside the sink the Read named */
	end = sqe.sge[0].laddr + sqe.sge[0].length;
	if (!sqe.num_sge || be32_to_cpu(h->stag) != sqe.sge[0].lkey)
		return siw_rx_tagged_fail(qp, -ENOENT);
	if (rx->to < sqe.sge[0].laddr || rx->to > end ||
	    rx->data_left > end - rx->to)
		return siw_rx_tagged_fail(qp, -ERANGE);
	err = siw_rx_mem(qp, sqe.sge[0].lkey, IB_ACCESS_LOCAL_WRITE, rx->to,
			 rx->data_left);
	return err ? siw_rx_tagged_fail(qp, err) : 0;
}

static int siw_rx_send_begin(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_untagged_hdr *h = (void *)rx->hdr;
	u32 mo = be32_to_cpu(h->mo);
	int i, err;

	err = siw_rx_untagged_check(qp, RDMAP_UNTAGGED_QN_SEND);
	if (err)
		return err;

	if (!rx->have_rqe) {
		if (mo)
			return siw_rx_fail(qp, SIW_CNT_RX_BAD_MO,
					   TERM_LAYER_DDP,
					   DDP_ETYPE_UNTAGGED_BUF,
					   DDP_ECODE_UT_INVALID_MO);
		memset(&rx->wqe, 0, sizeof(rx->wqe));
		if (!siw_rq_get(qp, &rx->wqe.sqe, &rx->rqe_from_srq))
			return siw_rx_fail(qp, SIW_CNT_RX_NO_RQE,
					   TERM_LAYER_DDP,
					   DDP_ETYPE_UNTAGGED_BUF,
					   DDP_ECODE_UT_INVALID_MSN_NOBUF);
		rx->have_rqe = true;
		if (rx->wqe.sqe.num_sge > SIW_MAX_SGE)
			return siw_rx_fail(qp, SIW_CNT_RX_TOO_LONG,
					   TERM_LAYER_RDMAP,
					   RDMAP_ETYPE_CATASTROPHIC,
					   RDMAP_ECODE_UNSPECIFIED);
		for (i = 0; i < rx->wqe.sqe.num_sge; i++)
			rx->wqe.bytes += rx->wqe.sqe.sge[i].length;
		rx->inval_stag = 0;
	}
	if (mo != rx->wqe.processed)
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_MO, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_INVALID_MO);
	if (rx->data_left > rx->wqe.bytes - rx->wqe.processed)
		return siw_rx_fail(qp, SIW_CNT_RX_TOO_LONG, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_MSG_TOOLONG);
	if (rx->opcode == RDMAP_SEND_INVAL || rx->opcode == RDMAP_SEND_SE_INVAL)
		rx->inval_stag = be32_to_cpu(h->inval_stag);
	return 0;
}

static int siw_rx_hdr_done(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;

	if (qp->mpa_crc)
		rx->crc = crc32c(~0U, rx->hdr, rx->hdr_len);
	rx->data_left = rx->fpdu_len + MPA_HDR_SIZE - rx->hdr_len;
	rx->pad = (4 - ((rx->fpdu_len + MPA_HDR_SIZE) & 3)) & 3;
	rx->trailer_have = 0;
	rx->state = SIW_RX_DATA;

	switch (rx->opcode) {
	case RDMAP_RDMA_WRITE:
		return siw_rx_write_begin(qp);
	case RDMAP_RDMA_READ_RESP:
		return siw_rx_rresp_begin(qp);
	case RDMAP_SEND:
	case RDMAP_SEND_INVAL:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_SE_INVAL:
		return siw_rx_send_begin(qp);
	default:
		/* Read Request and Terminate act once the CRC checked out */
		return 0;
	}
}

static int siw_rx_hdr(struct siw_qp *qp, struct sk_buff *skb, u32 off,
		      u32 avail)
{
	struct siw_rx_ctx *rx = &qp->rx;
	u32 want = rx->hdr_have < sizeof(struct iwarp_ctrl) ?
		   sizeof(struct iwarp_ctrl) : rx->hdr_len;
	u32 n = min(avail, want - rx->hdr_have);
	int err;

	if (skb_copy_bits(skb, off, rx->hdr + rx->hdr_have, n))
		return -EFAULT;
	rx->hdr_have += n;
	if (rx->hdr_have == sizeof(struct iwarp_ctrl) && !rx->hdr_len) {
		err = siw_rx_parse_ctrl(qp);
		if (err)
			return err;
	}
	if (rx->hdr_len && rx->hdr_have == rx->hdr_len) {
		err = siw_rx_hdr_done(qp);
		if (err)
			return err;
	}
	return n;
}

/* ---- payload ---- */

static int siw_rx_place(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
			struct sk_buff *skb, u32 off, u32 len)
{
	while (len) {
		struct page *page;
		u32 chunk;
		void *p;
		int err;

		p = siw_mem_kmap(mem, addr, &chunk, &page);
		if (!p)
			return -EFAULT;
		chunk = min(chunk, len);
		err = skb_copy_bits(skb, off, p, chunk);
		if (!err && qp->mpa_crc)
			qp->rx.crc = crc32c(qp->rx.crc, p, chunk);
		siw_mem_kunmap(p, page, true);
		if (err)
			return err;
		addr += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

/* Places len bytes of a Send at its current offset into the RQE's SGEs. */
static int siw_rx_place_send(struct siw_qp *qp, struct sk_buff *skb, u32 off,
			     u32 len)
{
	struct siw_wqe *wqe = &qp->rx.wqe;
	u32 pos = wqe->processed;
	int i, err;

	for (i = 0; i < wqe->sqe.num_sge && len; i++) {
		struct siw_sge *sge = &wqe->sqe.sge[i];
		u32 n;

		if (pos >= sge->length) {
			pos -= sge->length;
			continue;
		}
		if (!wqe->mem[i]) {
			wqe->mem[i] = siw_mem_get(qp->sdev, sge->lkey);
			if (!wqe->mem[i] ||
			    siw_mem_check(wqe->mem[i], qp->base_qp.pd,
					  IB_ACCESS_LOCAL_WRITE, sge->laddr,
					  sge->length)) {
				/* our own receive buffer is bad */
				siw_rqe_complete(qp, &wqe->sqe, 0, 0, false,
						 SIW_WC_LOC_PROT_ERR);
				siw_wqe_put_mem(wqe);
				qp->rx.have_rqe = false;
				return siw_rx_fail(qp, SIW_CNT_RX_BAD_ACCESS,
						   TERM_LAYER_RDMAP,
						   RDMAP_ETYPE_CATASTROPHIC,
						   RDMAP_ECODE_UNSPECIFIED);
			}
		}
		n = min(len, sge->length - pos);
		err = siw_rx_place(qp, wqe->mem[i], sge->laddr + pos, skb,
				   off, n);
		if (err)
			return err;
		wqe->processed += n;
		off += n;
		len -= n;
		pos = 0;
	}
	return len ? -EFAULT : 0;
}

static int siw_rx_data(struct siw_qp *qp, struct sk_buff *skb, u32 off,
		       u32 avail)
{
	struct siw_rx_ctx *rx = &qp->rx;
	u32 n = min(avail, rx->data_left);
	int err = 0;

	switch (rx->opcode) {
	case RDMAP_RDMA_WRITE:
	case RDMAP_RDMA_READ_RESP:
		err = siw_rx_place(qp, rx->mem, rx->to, skb, off, n);
		rx->to += n;
		break;
	case RDMAP_TERMINATE:
		/* the body lands behind the header, bounded by the parser */
		err = skb_copy_bits(skb, off, rx->hdr + rx->hdr_have, n);
		if (!err && qp->mpa_crc)
			rx->crc = crc32c(rx->crc, rx->hdr + rx->hdr_have, n);
		rx->hdr_have += n;
		break;
	default:
		err = siw_rx_place_send(qp, skb, off, n);
		break;
	}
	if (err)
		return err;
	rx->data_left -= n;
	if (!rx->data_left)
		rx->state = SIW_RX_TRAILER;
	return n;
}

/* ---- end of an FPDU ---- */

static int siw_rx_read_req(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	struct iwarp_read_req *rr = (void *)rx->hdr;
	u32 size = be32_to_cpu(rr->read_size);
	u32 src = be32_to_cpu(rr->source_stag);
	u64 src_to = be64_to_cpu(rr->source_to);
	struct siw_sqe *e;
	unsigned long flags;
	int err;

	err = siw_rx_untagged_check(qp, RDMAP_UNTAGGED_QN_RDMA_READ);
	if (err)
		return err;
	if (be32_to_cpu(rr->hdr.mo))
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_MO, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_INVALID_MO);
	if (size) {
		err = siw_rx_mem(qp, src, IB_ACCESS_REMOTE_READ, src_to, size);
		if (err)
			return siw_rx_read_fail(qp, err);
	}

	spin_lock_irqsave(&qp->irq_lock, flags);
	if (qp->irq_put - qp->irq_get >= qp->irq_size) {
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		return siw_rx_fail(qp, SIW_CNT_RX_IRD_EXCEEDED, TERM_LAYER_DDP,
				   DDP_ETYPE_UNTAGGED_BUF,
				   DDP_ECODE_UT_INVALID_MSN_NOBUF);
	}
	e = &qp->irq[qp->irq_put % SIW_MAX_IRD_QP];
	memset(e, 0, sizeof(*e));
	e->opcode = SIW_OP_READ_RESPONSE;
	e->rkey = be32_to_cpu(rr->sink_stag);
	e->raddr = be64_to_cpu(rr->sink_to);
	e->num_sge = 1;
	e->sge[0].lkey = src;
	e->sge[0].laddr = src_to;
	e->sge[0].length = size;
	qp->irq_put++;
	spin_unlock_irqrestore(&qp->irq_lock, flags);

	rx->msn[RDMAP_UNTAGGED_QN_RDMA_READ]++;
	siw_qp_kick_tx(qp);
	return 0;
}

static int siw_rx_rresp_done(struct siw_qp *qp)
{
	struct siw_sqe sqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->orq_lock, flags);
	sqe = qp->orq[qp->orq_get % SIW_MAX_ORD_QP];
	qp->orq_get++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);

	siw_mem_put(qp->rx.mem);
	qp->rx.mem = NULL;
	/*
	 * The consumer counts on the sink being invalid once the Read
	 * completed: an STag that cannot be invalidated (a stale key) is
	 * a local error, as it is for LOCAL_INV, not a quiet success.
	 */
	if (sqe.opcode == SIW_OP_READ_LOCAL_INV &&
	    siw_mem_invalidate(qp->sdev, qp->base_qp.pd, sqe.sge[1].lkey)) {
		siw_qp_local_error(qp, &sqe, SIW_WC_LOC_PROT_ERR);
		return -EPROTO;
	}
	siw_sqe_complete(qp, &sqe, sqe.num_sge ? sqe.sge[0].length : 0,
			 SIW_WC_SUCCESS);
	/* an ORD slot is free, a fence may have lifted */
	siw_qp_kick_tx(qp);
	return 0;
}

static int siw_rx_send_done(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	bool se = rx->opcode == RDMAP_SEND_SE ||
		  rx->opcode == RDMAP_SEND_SE_INVAL;
	int err = 0;

	if (rx->inval_stag)
		err = siw_mem_invalidate(qp->sdev, qp->base_qp.pd,
					 rx->inval_stag);
	siw_rqe_complete(qp, &rx->wqe.sqe, rx->wqe.processed,
			 err ? 0 : rx->inval_stag, se,
			 err ? SIW_WC_REM_INV_REQ_ERR : SIW_WC_SUCCESS);
	siw_wqe_put_mem(&rx->wqe);
	rx->have_rqe = false;
	rx->msn[RDMAP_UNTAGGED_QN_SEND]++;
	if (err)
		return siw_rx_fail(qp, SIW_CNT_RX_BAD_STAG, TERM_LAYER_RDMAP,
				   RDMAP_ETYPE_REMOTE_OPERATION,
				   RDMAP_ECODE_CANNOT_INVALIDATE);
	return 0;
}

static int siw_rx_fpdu_done(struct siw_qp *qp)
{
	struct siw_rx_ctx *rx = &qp->rx;
	int err = 0;

	siw_count(qp->sdev, SIW_CNT_RX_FPDUS);
	switch (rx->opcode) {
	case RDMAP_RDMA_WRITE:
		break;
	case RDMAP_RDMA_READ_RESP:
		if (rx->last)
			err = siw_rx_rresp_done(qp);
		break;
	case RDMAP_RDMA_READ_REQ:
		err = siw_rx_read_req(qp);
		break;
	case RDMAP_TERMINATE:
		rx->state = SIW_RX_DEAD;
		siw_term_rcvd(qp, rx->hdr + sizeof(struct iwarp_untagged_hdr),
			      rx->hdr_have - sizeof(struct iwarp_untagged_hdr));
		return -ECONNRESET;
	default:
		if (rx->last)
			err = siw_rx_send_done(qp);
		break;
	}
	if (err)
		return err;
	rx->state = SIW_RX_HDR;
	rx->hdr_have = 0;
	rx->hdr_len = 0;
	return 0;
}

static int siw_rx_trailer(struct siw_qp *qp, struct sk_buff *skb, u32 off,
			  u32 avail)
{
	struct siw_rx_ctx *rx = &qp->rx;
	u32 want = rx->pad + MPA_CRC_SIZE;
	u32 n = min(avail, want - rx->trailer_have);
	int err;

	if (skb_copy_bits(skb, off, rx->trailer + rx->trailer_have, n))
		return -EFAULT;
	rx->trailer_have += n;
	if (rx->trailer_have < want)
		return n;

	if (qp->mpa_crc) {
		__le32 crc;

		rx->crc = crc32c(rx->crc, rx->trailer, rx->pad);
		crc = siw_crc_final(rx->crc);
		if (memcmp(&crc, rx->trailer + rx->pad, MPA_CRC_SIZE))
			return siw_rx_fail(qp, SIW_CNT_RX_BAD_CRC,
					   TERM_LAYER_LLP, LLP_ETYPE_MPA,
					   LLP_ECODE_CRC);
	}
	err = siw_rx_fpdu_done(qp);
	return err ? err : n;
}

static int siw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			unsigned int off, size_t len)
{
	struct siw_qp *qp = desc->arg.data;
	struct siw_rx_ctx *rx = &qp->rx;
	size_t done = 0;

	while (done < len) {
		u32 avail = min_t(size_t, len - done, U32_MAX);
		int n;

		switch (rx->state) {
		case SIW_RX_HDR:
			n = siw_rx_hdr(qp, skb, off + done, avail);
			break;
		case SIW_RX_DATA:
			n = siw_rx_data(qp, skb, off + done, avail);
			break;
		case SIW_RX_TRAILER:
			n = siw_rx_trailer(qp, skb, off + done, avail);
			break;
		default:
			/* the stream is dead: swallow what still comes */
			return len;
		}
		if (n < 0) {
			rx->state = SIW_RX_DEAD;
			return len;
		}
		done += n;
	}
	return len;
}

void siw_rx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, rx_work);
	read_descriptor_t desc = { .count = 1 };
	enum siw_qp_state state;
	struct socket *sock;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	sock = qp->sock;
	state = qp->state;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (state == SIW_QP_STATE_ERROR) {
		siw_mem_put(qp->rx.mem);
		qp->rx.mem = NULL;
		siw_rq_flush(qp);
		return;
	}
	if (!sock)
		return;

	desc.arg.data = qp;
	lock_sock(sock->sk);
	tcp_read_sock(sock->sk, &desc, siw_rx_actor);
	release_sock(sock->sk);
}
