// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Terminate messages (RFC 5040 §4.8, error codes §7, RFC 5044 §8): the
 * receive side records why the stream is unusable, the transmit work sends
 * the Terminate (untagged, queue 2) and the connection closes. A received
 * Terminate moves the QP to error.
 */
#include <linux/crc32c.h>
#include <asm/unaligned.h>
#include "siw.h"

/* Records the first error; later ones are consequences of it. */
void siw_term_set(struct siw_qp *qp, u8 layer, u8 etype, u8 ecode,
		  const void *hdr, u32 hdr_len)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->term_lock, flags);
	if (!qp->term.valid && !qp->term_rcvd) {
		qp->term.layer = layer;
		qp->term.etype = etype;
		qp->term.ecode = ecode;
		hdr_len = min_t(u32, hdr_len, sizeof(qp->term.hdr));
		if (hdr)
			memcpy(qp->term.hdr, hdr, hdr_len);
		qp->term.hdr_len = hdr ? hdr_len : 0;
		WRITE_ONCE(qp->term.valid, true);
	}
	spin_unlock_irqrestore(&qp->term_lock, flags);

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == SIW_QP_STATE_RTS || qp->state == SIW_QP_STATE_CLOSING)
		WRITE_ONCE(qp->state, SIW_QP_STATE_TERMINATE);
	qp->ib_state = IB_QPS_SQE;
	spin_unlock_irqrestore(&qp->lock, flags);
	siw_qp_kick_tx(qp);
}

/* Builds the Terminate FPDU into buf; returns its length. */
int siw_term_build(struct siw_qp *qp, u8 *buf, u32 size)
{
	struct iwarp_terminate *t = (struct iwarp_terminate *)buf;
	u32 len = sizeof(*t), hlen = 0, ulpdu, pad;
	__le32 crc = 0;
	u16 c;

	memset(t, 0, sizeof(*t));
	c = iwarp_ctrl_version_bits() | DDP_FLAG_LAST | RDMAP_TERMINATE;
	t->hdr.ctrl.ddp_rdmap_ctrl = cpu_to_be16(c);
	t->hdr.qn = cpu_to_be32(RDMAP_UNTAGGED_QN_TERMINATE);
	t->hdr.msn = cpu_to_be32(++qp->tx.msn[RDMAP_UNTAGGED_QN_TERMINATE]);
	t->layer_etype = (qp->term.layer << 4) | (qp->term.etype & 0xf);
	t->ecode = qp->term.ecode;

	/* echo the offending DDP header (without the MPA length) */
	if (qp->term.hdr_len > MPA_HDR_SIZE) {
		hlen = qp->term.hdr_len - MPA_HDR_SIZE;
		if (qp->term.hdr[MPA_HDR_SIZE] & (DDP_FLAG_TAGGED >> 8))
			hlen = min_t(u32, hlen, sizeof(struct iwarp_tagged_hdr) -
						 MPA_HDR_SIZE);
		else
			hlen = min_t(u32, hlen,
				     sizeof(struct iwarp_untagged_hdr) -
				     MPA_HDR_SIZE);
		t->hdrct = TERM_HDRCT_D;
		memcpy(buf + len, qp->term.hdr + MPA_HDR_SIZE, hlen);
		len += hlen;
	}
	ulpdu = len - MPA_HDR_SIZE;
	t->hdr.ctrl.mpa_len = cpu_to_be16(ulpdu);
	pad = (4 - (len & 3)) & 3;
	memset(buf + len, 0, pad);
	len += pad;
	if (qp->mpa_crc)
		crc = siw_crc_final(crc32c(~0U, buf, len));
	memcpy(buf + len, &crc, MPA_CRC_SIZE);
	siw_count(qp->sdev, SIW_CNT_TX_FPDUS);
	return len + MPA_CRC_SIZE;
}

/*
 * A Terminate that echoes one of our Read Requests refused it; for a
 * protection error (a bad or foreign STag, no remote read right, out of
 * bounds) the oldest outstanding READ completes with REM_ACCESS_ERR, as
 * the NAK does on RoCE. Anything else leaves it to the flush.
 */
static u8 siw_term_read_status(const u8 *body, u32 len)
{
	u32 off = sizeof(struct iwarp_terminate) -
		  sizeof(struct iwarp_untagged_hdr);
	u8 layer, etype;
	u16 ctrl;

	if (len < off || !(body[2] & TERM_HDRCT_D))
		return SIW_WC_SUCCESS;
	if (body[2] & TERM_HDRCT_M)
		off += 2;
	if (len < off + 2)
		return SIW_WC_SUCCESS;
	ctrl = get_unaligned_be16(body + off);
	if ((ctrl & DDP_FLAG_TAGGED) ||
	    (ctrl & RDMAP_MASK_OPCODE) != RDMAP_RDMA_READ_REQ)
		return SIW_WC_SUCCESS;
	layer = body[0] >> 4;
	etype = body[0] & 0xf;
	if ((layer == TERM_LAYER_RDMAP &&
	     etype == RDMAP_ETYPE_REMOTE_PROTECTION) ||
	    (layer == TERM_LAYER_DDP && etype == DDP_ETYPE_TAGGED_BUF))
		return SIW_WC_REM_ACCESS_ERR;
	return SIW_WC_SUCCESS;
}

void siw_term_rcvd(struct siw_qp *qp, const u8 *body, u32 len)
{
	unsigned long flags;

	siw_count(qp->sdev, SIW_CNT_TERM_RCVD);
	if (len >= 4)
		siw_dbg_qp(qp, "terminate: layer %u etype %u ecode 0x%02x\n",
			   body[0] >> 4, body[0] & 0xf, body[1]);
	spin_lock_irqsave(&qp->term_lock, flags);
	qp->term_rcvd = true;
	qp->term_read_status = siw_term_read_status(body, len);
	spin_unlock_irqrestore(&qp->term_lock, flags);
	siw_qp_event(qp, IB_EVENT_QP_FATAL);
	siw_qp_error(qp);
	siw_cm_qp_disconnect(qp, false);
}
