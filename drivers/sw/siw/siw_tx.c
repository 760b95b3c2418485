// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw transmit: one work item per QP turns SQ work requests, answers to
 * inbound Read Requests and Terminates into FPDUs (RFC 5044 framing:
 * length, DDP/RDMAP header, payload, pad, CRC field) and hands them to
 * TCP without blocking. What goes out is a short list of segments:
 * pieces of the QP's buffer (headers, pad, CRC, copied payload) and, with
 * zero copy, payload pages handed to TCP by reference. A full socket
 * leaves the rest there, with a cursor at the exact byte, until
 * write_space kicks the work again. A Send or Write completes as soon as
 * TCP has taken all of it: copied if it is signalled (siw_tx_zcopy_ok).
 */
#include <linux/crc32c.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "siw.h"

#define SIW_TX_BUF_SIZE		(32 * 1024)
/* Largest payload of one FPDU; smaller when the TCP MSS is. */
#define SIW_MAX_FPDU_PAYLOAD	(16 * 1024)
/* Work requests handled per run before yielding the worker. */
#define SIW_TX_BUDGET		64
/*
 * Smallest payload piece sent by page reference: below about a KiB,
 * copying it is cheaper than a page reference and a TCP fragment.
 */
#define SIW_ZCOPY_MIN		1024

int siw_tx_init(struct siw_qp *qp)
{
	if (!qp->tx.buf) {
		qp->tx.buf = kvmalloc(SIW_TX_BUF_SIZE, GFP_KERNEL);
		if (!qp->tx.buf)
			return -ENOMEM;
	}
	return 0;
}

/* Drops all segments (and their page references) and empties the buffer. */
void siw_tx_reset(struct siw_qp *qp)
{
	u32 i;

	for (i = 0; i < qp->tx.nseg; i++)
		if (qp->tx.seg[i].page)
			put_page(qp->tx.seg[i].page);
	qp->tx.nseg = 0;
	qp->tx.seg_cur = 0;
	qp->tx.seg_sent = 0;
	qp->tx.buf_len = 0;
}

void siw_tx_ctx_release(struct siw_qp *qp)
{
	siw_tx_reset(qp);
	siw_wqe_put_mem(&qp->tx.wqe);
	siw_mem_put(qp->tx.rresp_mem);
	qp->tx.rresp_mem = NULL;
	qp->tx.kind = SIW_TX_NONE;
	kvfree(qp->tx.buf);
	qp->tx.buf = NULL;
}

static u16 siw_ctrl(u8 opcode, bool tagged, bool last)
{
	u16 c = iwarp_ctrl_version_bits() | opcode;

	if (tagged)
		c |= DDP_FLAG_TAGGED;
	if (last)
		c |= DDP_FLAG_LAST;
	return c;
}

/* Payload bytes one FPDU with a hdr_len header may carry on this socket. */
static u32 siw_fpdu_payload_max(struct socket *sock, u32 hdr_len)
{
	u32 mss = tcp_sk(sock->sk)->mss_cache;
	u32 room;

	if (mss < 256)
		mss = 256;
	room = min_t(u32, mss, SIW_MAX_FPDU_PAYLOAD + hdr_len + 8);
	/* header, up to 3 pad bytes and the CRC field around the payload */
	room -= hdr_len + 3 + MPA_CRC_SIZE;
	return room & ~3U;
}

/*
 * Takes len more bytes of the buffer for the stream; they join the last
 * segment when it ends right there. The caller made sure of the room.
 */
static u8 *siw_tx_put(struct siw_qp *qp, u32 len)
{
	struct siw_tx_seg *last = NULL;
	u8 *p = qp->tx.buf + qp->tx.buf_len;

	if (qp->tx.nseg)
		last = &qp->tx.seg[qp->tx.nseg - 1];
	if (!last || last->page || last->off + last->len != qp->tx.buf_len) {
		last = &qp->tx.seg[qp->tx.nseg++];
		last->page = NULL;
		last->off = qp->tx.buf_len;
		last->len = 0;
	}
	last->len += len;
	qp->tx.buf_len += len;
	return p;
}

/* Appends len bytes of page at off to the stream, by reference. */
static void siw_tx_put_page(struct siw_qp *qp, struct page *page, u32 off,
			    u32 len)
{
	struct siw_tx_seg *seg = &qp->tx.seg[qp->tx.nseg++];

	get_page(page);
	seg->page = page;
	seg->off = off;
	seg->len = len;
	atomic64_inc(&siw_zcopy_pages);
	atomic64_add(len, &siw_zcopy_bytes);
}

/*
 * Ends the FPDU whose header (hdr_len bytes, mpa_len still to be filled
 * in) is at hdr and whose payload_len payload bytes were put behind it:
 * pad and CRC field. With CRC all of it is in the buffer in one piece
 * (zero copy is off then), so the CRC covers hdr onwards.
 */
static void siw_fpdu_end(struct siw_qp *qp, u8 *hdr, u32 hdr_len,
			 u32 payload_len)
{
	struct iwarp_ctrl *c = (struct iwarp_ctrl *)hdr;
	u32 len = hdr_len + payload_len;
	u32 pad = (4 - (len & 3)) & 3;
	__le32 crc = 0;
	u8 *tail;

	c->mpa_len = cpu_to_be16(hdr_len - MPA_HDR_SIZE + payload_len);
	tail = siw_tx_put(qp, pad + MPA_CRC_SIZE);
	memset(tail, 0, pad);
	if (qp->mpa_crc)
		crc = siw_crc_final(crc32c(~0U, hdr, len + pad));
	memcpy(tail + pad, &crc, MPA_CRC_SIZE);
	siw_count(qp->sdev, SIW_CNT_TX_FPDUS);
}

/*
 * Segments a piece of payload may still take: the page itself, a copied
 * piece after it and the FPDU's trailer must fit behind it.
 */
#define SIW_TX_SEGS_RESERVED	3

/*
 * Is there room for an FPDU of hdr_len and n payload bytes? The buffer
 * must take it all, as any piece may have to be copied (slab memory,
 * pieces below SIW_ZCOPY_MIN); pieces by reference are only taken while
 * the segment list has room (siw_tx_put_mem), so a header, one copied
 * piece and the trailer are all an FPDU is sure to need there.
 */
static bool siw_tx_room(struct siw_qp *qp, u32 hdr_len, u32 n)
{
	return qp->tx.buf_len + hdr_len + n + 3 + MPA_CRC_SIZE <=
		       SIW_TX_BUF_SIZE &&
	       qp->tx.nseg + SIW_TX_SEGS_RESERVED <= SIW_TX_MAX_SEGS;
}

/*
 * Zero copy only without MPA CRC: the CRC is computed when the FPDU is
 * framed, but TCP may retransmit from the pages after the work request
 * completed and the application changed them, and the peer would then
 * see a CRC error. Inline data and Read Requests are always copied, and
 * so are signalled Sends and Writes (siw_tx_frame_sqe): their completion
 * hands the buffer back, while TCP (or, on loopback, the peer's receive
 * queue) may still hold its pages, and a reused buffer would go out
 * changed.
 */
static bool siw_tx_zcopy_ok(struct siw_qp *qp)
{
	return READ_ONCE(siw_zcopy) && !qp->mpa_crc;
}

/*
 * Puts len payload bytes of mem at addr into the stream: page by page by
 * reference where zc allows and the piece is large enough, else copied.
 */
static int siw_tx_put_mem(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
			  u32 len, bool zc)
{
	if (!zc)
		return siw_mem_copy(mem, addr, siw_tx_put(qp, len), len, false);
	while (len) {
		struct page *page;
		u32 off, n;
		int err;

		page = siw_mem_page(mem, addr, &off, &n);
		n = min(n, len);
		if (page && n >= SIW_ZCOPY_MIN &&
		    qp->tx.nseg + SIW_TX_SEGS_RESERVED <= SIW_TX_MAX_SEGS) {
			siw_tx_put_page(qp, page, off, n);
		} else {
			err = siw_mem_copy(mem, addr, siw_tx_put(qp, n), n,
					   false);
			if (err)
				return err;
		}
		addr += n;
		len -= n;
	}
	return 0;
}

/* Puts len bytes at message offset off of the WQE's SGEs into the stream. */
static int siw_wqe_gather(struct siw_qp *qp, struct siw_wqe *wqe, u32 off,
			  u32 len, bool zc)
{
	struct siw_sqe *sqe = &wqe->sqe;
	int i, err;

	if (sqe->flags & SIW_WQE_INLINE) {
		memcpy(siw_tx_put(qp, len), (u8 *)&sqe->sge[1] + off, len);
		return 0;
	}
	for (i = 0; i < sqe->num_sge && len; i++) {
		struct siw_sge *sge = &sqe->sge[i];
		u32 n;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min(len, sge->length - off);
		err = siw_tx_put_mem(qp, wqe->mem[i], sge->laddr + off, n, zc);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EFAULT : 0;
}

/* ---- starting work requests ---- */

static bool siw_user_opcode_ok(u8 op)
{
	return op == SIW_OP_WRITE || op == SIW_OP_READ ||
	       op == SIW_OP_SEND || op == SIW_OP_SEND_REMOTE_INV;
}

/* Resolves the SGEs of a Send/Write; 0 or the completion status. */
static int siw_wqe_resolve(struct siw_qp *qp, struct siw_wqe *wqe)
{
	struct siw_sqe *sqe = &wqe->sqe;
	u64 total = 0;
	int i;

	wqe->bytes = 0;
	wqe->processed = 0;
	if (sqe->flags & SIW_WQE_INLINE) {
		if (sqe->sge[0].length > SIW_MAX_INLINE)
			return SIW_WC_LOC_LEN_ERR;
		wqe->bytes = sqe->sge[0].length;
		return 0;
	}
	if (sqe->num_sge > SIW_MAX_SGE)
		return SIW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < sqe->num_sge; i++) {
		struct siw_sge *sge = &sqe->sge[i];

		if (!sge->length)
			continue;
		wqe->mem[i] = siw_mem_get(qp->sdev, sge->lkey);
		if (!wqe->mem[i] ||
		    siw_mem_check(wqe->mem[i], qp->base_qp.pd, 0, sge->laddr,
				  sge->length))
			return SIW_WC_LOC_PROT_ERR;
		total += sge->length;
	}
	if (total > U32_MAX)
		return SIW_WC_LOC_LEN_ERR;
	wqe->bytes = total;
	return 0;
}

/* A local error ends the QP: the work request fails, the rest flushes. */
static void siw_tx_local_error(struct siw_qp *qp, struct siw_sqe *sqe,
			       enum siw_wc_status status)
{
	siw_qp_local_error(qp, sqe, status);
	siw_wqe_put_mem(&qp->tx.wqe);
	qp->tx.kind = SIW_TX_NONE;
}

static int siw_do_local_op(struct siw_qp *qp, struct siw_sqe *sqe)
{
	int err;

	if (sqe->opcode == SIW_OP_REG_MR)
		err = siw_mem_reg(qp->sdev, qp->base_qp.pd,
				  (struct ib_mr *)(uintptr_t)sqe->base_mr,
				  sqe->rkey, (int)sqe->access);
	else
		err = siw_mem_invalidate(qp->sdev, qp->base_qp.pd, sqe->rkey);
	if (err) {
		siw_tx_local_error(qp, sqe, SIW_WC_LOC_PROT_ERR);
		return err;
	}
	siw_sqe_complete(qp, sqe, 0, SIW_WC_SUCCESS);
	return 0;
}

/* Frames a Read Request and parks the WQE in the ORQ. */
static void siw_tx_read_req(struct siw_qp *qp, struct siw_sqe *sqe)
{
	struct iwarp_read_req *rr;
	unsigned long flags;

	siw_tx_reset(qp);
	rr = (struct iwarp_read_req *)siw_tx_put(qp, sizeof(*rr));
	memset(rr, 0, sizeof(*rr));
	rr->hdr.ctrl.ddp_rdmap_ctrl =
		cpu_to_be16(siw_ctrl(RDMAP_RDMA_READ_REQ, false, true));
	rr->hdr.qn = cpu_to_be32(RDMAP_UNTAGGED_QN_RDMA_READ);
	rr->hdr.msn = cpu_to_be32(++qp->tx.msn[RDMAP_UNTAGGED_QN_RDMA_READ]);
	rr->hdr.mo = 0;
	if (sqe->num_sge) {
		rr->sink_stag = cpu_to_be32(sqe->sge[0].lkey);
		rr->sink_to = cpu_to_be64(sqe->sge[0].laddr);
		rr->read_size = cpu_to_be32(sqe->sge[0].length);
	}
	rr->source_stag = cpu_to_be32(sqe->rkey);
	rr->source_to = cpu_to_be64(sqe->raddr);
	siw_fpdu_end(qp, (u8 *)rr, sizeof(*rr), 0);

	spin_lock_irqsave(&qp->orq_lock, flags);
	qp->orq[qp->orq_put % SIW_MAX_ORD_QP] = *sqe;
	qp->orq_put++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
}

static u32 siw_orq_count(struct siw_qp *qp)
{
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&qp->orq_lock, flags);
	n = qp->orq_put - qp->orq_get;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	return n;
}

/*
 * Takes the next SQ work request. Returns false when there is nothing to
 * do now (empty, waiting for read responses, or a local error).
 */
static bool siw_tx_next_sqe(struct siw_qp *qp)
{
	struct siw_wqe *wqe = &qp->tx.wqe;
	struct siw_sqe sqe;
	int status;

	if (!siw_sq_peek(qp, &sqe))
		return false;
	if (!qp->kernel_verbs && !siw_user_opcode_ok(sqe.opcode)) {
		siw_sq_consume(qp);
		siw_tx_local_error(qp, &sqe, SIW_WC_LOC_QP_OP_ERR);
		return false;
	}
	/* a fenced request waits for every read ahead of it */
	if ((sqe.flags & SIW_WQE_READ_FENCE) && siw_orq_count(qp))
		return false;

	switch (sqe.opcode) {
	case SIW_OP_REG_MR:
	case SIW_OP_INVAL_STAG:
		siw_sq_consume(qp);
		return !siw_do_local_op(qp, &sqe);
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		if (siw_orq_count(qp) >= qp->orq_size)
			return false;
		if (sqe.num_sge > SIW_MAX_SGE_RD) {
			siw_sq_consume(qp);
			siw_tx_local_error(qp, &sqe, SIW_WC_LOC_QP_OP_ERR);
			return false;
		}
		siw_sq_consume(qp);
		siw_tx_read_req(qp, &sqe);
		return true;
	case SIW_OP_WRITE:
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
		break;
	default:
		siw_sq_consume(qp);
		siw_tx_local_error(qp, &sqe, SIW_WC_LOC_QP_OP_ERR);
		return false;
	}

	siw_sq_consume(qp);
	memset(wqe, 0, sizeof(*wqe));
	wqe->sqe = sqe;
	status = siw_wqe_resolve(qp, wqe);
	if (status) {
		siw_tx_local_error(qp, &wqe->sqe, status);
		return false;
	}
	if (sqe.opcode != SIW_OP_WRITE)
		qp->tx.msn[RDMAP_UNTAGGED_QN_SEND]++;
	qp->tx.kind = SIW_TX_SQE;
	return true;
}

/* Frames as much of the current Send/Write as fits into the buffer. */
static int siw_tx_frame_sqe(struct siw_qp *qp, struct socket *sock)
{
	struct siw_wqe *wqe = &qp->tx.wqe;
	struct siw_sqe *sqe = &wqe->sqe;
	bool tagged = sqe->opcode == SIW_OP_WRITE;
	u32 hdr_len = tagged ? sizeof(struct iwarp_tagged_hdr) :
			       sizeof(struct iwarp_untagged_hdr);
	u32 max = siw_fpdu_payload_max(sock, hdr_len);
	bool zc = !(sqe->flags & SIW_WQE_INLINE) &&
		  !siw_sqe_is_signalled(qp, sqe) && siw_tx_zcopy_ok(qp);

	siw_tx_reset(qp);
	do {
		u32 n = min(wqe->bytes - wqe->processed, max);
		bool last = wqe->processed + n == wqe->bytes;
		u8 *fpdu;
		int err;

		if (!siw_tx_room(qp, hdr_len, n))
			break;
		fpdu = siw_tx_put(qp, hdr_len);
		if (tagged) {
			struct iwarp_tagged_hdr *h = (void *)fpdu;

			h->ctrl.ddp_rdmap_ctrl =
				cpu_to_be16(siw_ctrl(RDMAP_RDMA_WRITE, true,
						     last));
			h->stag = cpu_to_be32(sqe->rkey);
			h->to = cpu_to_be64(sqe->raddr + wqe->processed);
		} else {
			struct iwarp_untagged_hdr *h = (void *)fpdu;
			bool se = sqe->flags & SIW_WQE_SOLICITED;
			u8 op;

			if (sqe->opcode == SIW_OP_SEND_REMOTE_INV)
				op = se ? RDMAP_SEND_SE_INVAL :
					  RDMAP_SEND_INVAL;
			else
				op = se ? RDMAP_SEND_SE : RDMAP_SEND;
			h->ctrl.ddp_rdmap_ctrl =
				cpu_to_be16(siw_ctrl(op, false, last));
			h->inval_stag = sqe->opcode == SIW_OP_SEND_REMOTE_INV ?
					cpu_to_be32(sqe->rkey) : 0;
			h->qn = cpu_to_be32(RDMAP_UNTAGGED_QN_SEND);
			h->msn = cpu_to_be32(qp->tx.msn[RDMAP_UNTAGGED_QN_SEND]);
			h->mo = cpu_to_be32(wqe->processed);
		}
		err = siw_wqe_gather(qp, wqe, wqe->processed, n, zc);
		if (err)
			return err;
		siw_fpdu_end(qp, fpdu, hdr_len, n);
		wqe->processed += n;
	} while (wqe->processed < wqe->bytes);
	return 0;
}

/* ---- answering inbound Read Requests ---- */

static bool siw_tx_next_rresp(struct siw_qp *qp)
{
	unsigned long flags;
	bool got = false;

	spin_lock_irqsave(&qp->irq_lock, flags);
	if (qp->irq_get != qp->irq_put) {
		qp->tx.rresp = qp->irq[qp->irq_get % SIW_MAX_IRD_QP];
		qp->irq_get++;
		got = true;
	}
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	if (!got)
		return false;

	qp->tx.rresp_done = 0;
	qp->tx.rresp_mem = NULL;
	if (qp->tx.rresp.sge[0].length) {
		struct siw_sge *src = &qp->tx.rresp.sge[0];

		/* checked when the request came in; it may be gone since */
		qp->tx.rresp_mem = siw_mem_get(qp->sdev, src->lkey);
		if (!qp->tx.rresp_mem ||
		    siw_mem_check(qp->tx.rresp_mem, qp->base_qp.pd,
				  IB_ACCESS_REMOTE_READ, src->laddr,
				  src->length)) {
			siw_mem_put(qp->tx.rresp_mem);
			qp->tx.rresp_mem = NULL;
			siw_term_set(qp, TERM_LAYER_RDMAP,
				     RDMAP_ETYPE_REMOTE_PROTECTION,
				     RDMAP_ECODE_INVALID_STAG, NULL, 0);
			return false;
		}
	}
	qp->tx.kind = SIW_TX_READ_RESP;
	return true;
}

static int siw_tx_frame_rresp(struct siw_qp *qp, struct socket *sock)
{
	struct siw_sqe *rr = &qp->tx.rresp;
	u32 hdr_len = sizeof(struct iwarp_tagged_hdr);
	u32 max = siw_fpdu_payload_max(sock, hdr_len);
	u32 total = rr->sge[0].length;
	bool zc = siw_tx_zcopy_ok(qp);

	siw_tx_reset(qp);
	do {
		struct iwarp_tagged_hdr *h;
		u32 n = min(total - qp->tx.rresp_done, max);
		bool last = qp->tx.rresp_done + n == total;
		int err;

		if (!siw_tx_room(qp, hdr_len, n))
			break;
		h = (struct iwarp_tagged_hdr *)siw_tx_put(qp, hdr_len);
		h->ctrl.ddp_rdmap_ctrl =
			cpu_to_be16(siw_ctrl(RDMAP_RDMA_READ_RESP, true, last));
		h->stag = cpu_to_be32(rr->rkey);
		h->to = cpu_to_be64(rr->raddr + qp->tx.rresp_done);
		if (n) {
			err = siw_tx_put_mem(qp, qp->tx.rresp_mem,
					     rr->sge[0].laddr +
					     qp->tx.rresp_done, n, zc);
			if (err)
				return err;
		}
		siw_fpdu_end(qp, (u8 *)h, hdr_len, n);
		qp->tx.rresp_done += n;
	} while (qp->tx.rresp_done < total);
	return 0;
}

/* ---- the work ---- */

/*
 * Pushes the segments into TCP from the cursor on: 0 when all went (the
 * list is then reset), -EAGAIN, or an error. MSG_MORE while more follows
 * lets TCP fill whole segments across pieces.
 */
static int siw_tx_send(struct siw_qp *qp, struct socket *sock)
{
	while (qp->tx.seg_cur < qp->tx.nseg) {
		struct siw_tx_seg *seg = &qp->tx.seg[qp->tx.seg_cur];
		u32 len = seg->len - qp->tx.seg_sent;
		int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		int rv;

		if (qp->tx.seg_cur + 1 < qp->tx.nseg)
			flags |= MSG_MORE;
		if (seg->page) {
			rv = kernel_sendpage(sock, seg->page,
					     seg->off + qp->tx.seg_sent, len,
					     flags);
		} else {
			struct kvec iov = {
				.iov_base = qp->tx.buf + seg->off +
					    qp->tx.seg_sent,
				.iov_len = len,
			};
			struct msghdr msg = { .msg_flags = flags };

			rv = kernel_sendmsg(sock, &msg, &iov, 1, len);
		}
		if (rv < 0)
			return rv;
		qp->tx.seg_sent += rv;
		if (qp->tx.seg_sent == seg->len) {
			qp->tx.seg_cur++;
			qp->tx.seg_sent = 0;
		}
	}
	siw_tx_reset(qp);
	return 0;
}

/* Everything of the current item is framed: is it finished? */
static bool siw_tx_item_done(struct siw_qp *qp)
{
	switch (qp->tx.kind) {
	case SIW_TX_SQE:
		if (qp->tx.wqe.processed < qp->tx.wqe.bytes)
			return false;
		siw_sqe_complete(qp, &qp->tx.wqe.sqe, qp->tx.wqe.bytes,
				 SIW_WC_SUCCESS);
		siw_wqe_put_mem(&qp->tx.wqe);
		break;
	case SIW_TX_READ_RESP:
		if (qp->tx.rresp_done < qp->tx.rresp.sge[0].length)
			return false;
		siw_mem_put(qp->tx.rresp_mem);
		qp->tx.rresp_mem = NULL;
		break;
	default:
		break;
	}
	qp->tx.kind = SIW_TX_NONE;
	return true;
}

static void siw_tx_fatal(struct siw_qp *qp)
{
	siw_qp_error(qp);
	siw_cm_qp_disconnect(qp, true);
}

void siw_tx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, tx_work);
	enum siw_qp_state state;
	struct socket *sock;
	unsigned long flags;
	int budget = SIW_TX_BUDGET;
	int err;

	spin_lock_irqsave(&qp->lock, flags);
	sock = qp->sock;
	state = qp->state;
	spin_unlock_irqrestore(&qp->lock, flags);

	if (state == SIW_QP_STATE_ERROR || !sock) {
		if (state == SIW_QP_STATE_ERROR)
			siw_sq_flush(qp);
		return;
	}

	while (budget--) {
		/* what is buffered goes first */
		err = siw_tx_send(qp, sock);
		if (err == -EAGAIN)
			return;	/* write_space kicks us */
		if (err) {
			siw_tx_fatal(qp);
			return;
		}

		/* a Terminate ends the stream */
		if (READ_ONCE(qp->term.valid) && !qp->term_sent) {
			siw_tx_reset(qp);
			siw_tx_put(qp, siw_term_build(qp, qp->tx.buf,
						      SIW_TX_BUF_SIZE));
			qp->term_sent = true;
			siw_count(qp->sdev, SIW_CNT_TERM_SENT);
			continue;
		}
		if (qp->term_sent) {
			siw_qp_error(qp);
			siw_cm_qp_disconnect(qp, false);
			return;
		}

		if (qp->tx.kind != SIW_TX_NONE && siw_tx_item_done(qp))
			continue;

		if (qp->tx.kind == SIW_TX_NONE &&
		    !siw_tx_next_rresp(qp) && !siw_tx_next_sqe(qp)) {
			if (READ_ONCE(qp->term.valid))
				continue;
			/* SQD: close once nothing is left to send or read */
			if (siw_qp_state_is(qp, SIW_QP_STATE_CLOSING) &&
			    !siw_orq_count(qp))
				siw_cm_qp_disconnect(qp, false);
			return;
		}

		switch (qp->tx.kind) {
		case SIW_TX_SQE:
			err = siw_tx_frame_sqe(qp, sock);
			break;
		case SIW_TX_READ_RESP:
			err = siw_tx_frame_rresp(qp, sock);
			break;
		default:
			/* a Read Request, framed whole when it was taken */
			err = 0;
			break;
		}
		if (err) {
			siw_tx_fatal(qp);
			return;
		}
	}
	/* more to do: let other work run first */
	siw_qp_kick_tx(qp);
}
