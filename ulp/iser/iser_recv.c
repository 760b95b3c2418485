// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_iser: receive side. Every PDU the target sends is one RDMA SEND into a
 * posted buffer: iSER header, BHS, data segment (RFC 7145; no R2T or Data-In
 * PDUs: read data arrives by RDMA WRITE before its SCSI Response). Login and
 * Text responses, and everything in a discovery session, use the one large
 * login buffer, posted before each request; a normal session's full feature
 * phase uses one small buffer per command slot, reposted after each PDU.
 */
#include "iser.h"

static void iser_rx_done(struct ib_cq *cq, struct ib_wc *wc);

void iser_rx_init(struct iser_conn *ic, struct iser_rx *rx, void *buf,
		  u64 dma, u32 len)
{
	rx->cqe.done = iser_rx_done;
	rx->ic = ic;
	rx->buf = buf;
	rx->dma = dma;
	rx->len = len;
}

/* ic->post_lock held. */
static int iser_post_rx(struct iser_conn *ic, struct iser_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = rx->len,
		.lkey = ic->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (!ic->post_ok)
		return -ENOTCONN;
	return ib_post_recv(ic->qp, &wr, NULL);
}

/* Before a Login or Text request: its response lands in the login buffer. */
int iser_post_login_rx(struct iser_conn *ic)
{
	int ret = 0;

	spin_lock_bh(&ic->post_lock);
	if (!ic->login_posted) {
		ret = iser_post_rx(ic, &ic->login_rx);
		ic->login_posted = !ret;
	}
	spin_unlock_bh(&ic->post_lock);
	return ret;
}

/* Full feature phase of a normal session: every small buffer. */
int iser_post_rx_all(struct iser_conn *ic)
{
	unsigned int i;
	int ret = 0;

	spin_lock_bh(&ic->post_lock);
	if (!ic->rx_posted) {
		for (i = 0; i < ic->nr_rx && !ret; i++)
			ret = iser_post_rx(ic, &ic->rx[i]);
		ic->rx_posted = !ret;
	}
	spin_unlock_bh(&ic->post_lock);
	return ret;
}

/* Hands one received PDU to libiscsi; false if the connection must fail. */
static bool iser_rx_pdu(struct iser_conn *ic, struct iser_rx *rx,
			const struct ib_wc *wc)
{
	const struct iser_ctrl *ih = rx->buf;
	struct iscsi_hdr *hdr = rx->buf + sizeof(*ih);
	u32 got = wc->byte_len, ahs, dlen;
	char *data;
	int rc;

	if (got < ISER_HDRS_LEN) {
		iser_err("PDU of %u bytes, shorter than the headers\n", got);
		return false;
	}
	switch (ih->flags & 0xf0) {
	case ISCSI_CTRL:
		break;
	case ISER_HELLO:
	case ISER_HELLORPLY:
		/* Linux never negotiates them: a protocol error here */
		iser_err("iSER Hello/HelloReply (0x%x) not supported\n", ih->flags);
		return false;
	default:
		iser_dbg(1, "unknown iSER opcode 0x%x\n", ih->flags);
		break;
	}
	ahs = hdr->hlength * 4;
	dlen = ntoh24(hdr->dlength);
	if (ahs + dlen > got - ISER_HDRS_LEN) {
		iser_err("PDU declares %u data bytes but only %u bytes were received\n",
			 ahs + dlen, got - (u32)ISER_HDRS_LEN);
		return false;
	}
	data = dlen ? (char *)hdr + ISCSI_HDR_LEN + ahs : NULL;
	/* before the response completes its task and frees the MR */
	if ((wc->wc_flags & IB_WC_WITH_INVALIDATE) &&
	    !iser_remote_invalidated(ic, wc->ex.invalidate_rkey))
		return false;

	spin_lock(&ic->iconn_lock);
	if (ic->iconn) {
		rc = iscsi_complete_pdu(ic->iconn, hdr, data, dlen);
		/* a response to a command aborted meanwhile is no error */
		if (rc && rc != ISCSI_ERR_NO_SCSI_CMD)
			iscsi_conn_failure(ic->iconn, rc);
	}
	spin_unlock(&ic->iconn_lock);
	return true;
}

static void iser_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct iser_rx *rx = container_of(wc->wr_cqe, struct iser_rx, cqe);
	struct iser_conn *ic = rx->ic;
	bool login = rx == &ic->login_rx;
	int ret;

	if (login) {
		spin_lock(&ic->post_lock);
		ic->login_posted = false;
		spin_unlock(&ic->post_lock);
	}
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			iser_err("receive failed: %s (%d)\n",
				 ib_wc_status_msg(wc->status), wc->status);
			iser_conn_fail(ic);
		}
		return;
	}
	ib_dma_sync_single_for_cpu(ic->ibdev, rx->dma, rx->len, DMA_FROM_DEVICE);
	if (!iser_rx_pdu(ic, rx, wc)) {
		iser_conn_fail(ic);
		return;
	}
	ib_dma_sync_single_for_device(ic->ibdev, rx->dma, rx->len,
				      DMA_FROM_DEVICE);
	if (login)
		return;
	spin_lock(&ic->post_lock);
	ret = ic->post_ok ? iser_post_rx(ic, rx) : 0;
	spin_unlock(&ic->post_lock);
	/* after the unlock: post_lock nests inside iconn_lock */
	if (ret)
		iser_conn_fail(ic);
}
