// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_isert receive completions and the login phase. Until the final Login
 * Response every PDU is a Login Request, one at a time: it is staged for
 * get_login_rx (LIO's login thread for the first, its login_work for the
 * others, which we queue). After it, PDUs go in order to the RX thread
 * (isert_recv.c).
 */
#include <linux/slab.h>

#include "isert.h"

void isert_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct isert_rx *rx = container_of(wc->wr_cqe, struct isert_rx, cqe);
	struct isert_conn *ic = rx->ic;
	bool protocol_error = false;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			isert_err("receive failed: %s (%d)\n",
				  ib_wc_status_msg(wc->status), wc->status);
		isert_conn_down(ic);
		return;
	}
	rx->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(ic->ibdev, rx->dma, ISERT_RX_LEN,
				   DMA_FROM_DEVICE);

	spin_lock_bh(&ic->lock);
	if (ic->state == ISERT_DOWN) {
		/* closing: nobody takes it */
	} else if (ic->full_feature) {
		list_add_tail(&rx->node, &ic->rx_list);
		wake_up(&ic->rx_wait);
	} else if (ic->login_rx) {
		/* a second request before our response */
		protocol_error = true;
	} else {
		ic->login_rx = rx;
		complete(&ic->login_comp);
		if (ic->conn && ic->login_next)
			schedule_delayed_work(&ic->conn->login_work, 0);
	}
	spin_unlock_bh(&ic->lock);
	if (protocol_error) {
		isert_err("login request before the previous one was answered\n");
		isert_conn_down(ic);
	}
}

static void isert_login_first(struct iscsi_login *login,
			      const struct iscsi_login_req *req)
{
	/* what the rest of the login is checked against */
	login->leading_connection = !req->tsih;
	login->current_stage = ISCSI_LOGIN_CURRENT_STAGE(req->flags);
	login->version_min = req->min_version;
	login->version_max = req->max_version;
	memcpy(login->isid, req->isid, sizeof(login->isid));
	login->cmd_sn = be32_to_cpu(req->cmdsn);
	login->init_task_tag = req->itt;
	login->initial_exp_statsn = be32_to_cpu(req->exp_statsn);
	login->cid = be16_to_cpu(req->cid);
	login->tsih = be16_to_cpu(req->tsih);
}

int isert_login_recv(struct iscsit_conn *conn, struct iscsi_login *login)
{
	struct isert_conn *ic = conn->context;
	const struct iscsi_login_req *req;
	struct isert_rx *rx;
	u32 dlen;
	int ret;

	/* LIO's login timer interrupts a wait that lasts too long */
	ret = wait_for_completion_interruptible(&ic->login_comp);
	if (ret)
		return -1;
	spin_lock_bh(&ic->lock);
	reinit_completion(&ic->login_comp);
	rx = ic->state == ISERT_DOWN ? NULL : ic->login_rx;
	ic->login_rx = NULL;
	spin_unlock_bh(&ic->lock);
	if (!rx)
		return -1;

	ret = -1;
	req = rx->buf + sizeof(struct iser_ctrl);
	if (rx->len < ISERT_HDRS_LEN) {
		isert_err("login PDU of %u bytes\n", rx->len);
		goto out;
	}
	if ((((struct iser_ctrl *)rx->buf)->flags & 0xF0) != ISCSI_CTRL) {
		isert_err("iSER message 0x%02x instead of a Login Request\n",
			  ((struct iser_ctrl *)rx->buf)->flags);
		goto out;
	}
	dlen = ntoh24(req->dlength);
	if (req->hlength) {
		isert_err("login PDU with %u bytes of AHS\n", req->hlength * 4);
		goto out;
	}
	if (dlen > ISERT_RX_DATA_LEN ||
	    ISERT_HDRS_LEN + dlen > rx->len) {
		isert_err("login PDU declares %u data bytes but only %u bytes were received\n",
			  dlen, rx->len - min_t(u32, rx->len, ISERT_HDRS_LEN));
		goto out;
	}
	memcpy(login->req, req, ISCSI_HDR_LEN);
	if (login->first_request)
		isert_login_first(login, req);
	if (iscsi_target_check_login_request(conn, login) < 0)
		goto out;
	memset(login->req_buf, 0, MAX_KEY_VALUE_PAIRS);
	memcpy(login->req_buf, (void *)req + ISCSI_HDR_LEN, dlen);
	ret = 0;
out:
	if (isert_post_rx(ic, rx))
		ret = -1;
	return ret;
}

int isert_login_send(struct iscsit_conn *conn, struct iscsi_login *login,
		       u32 length)
{
	struct isert_conn *ic = conn->context;
	const struct iscsi_login_rsp *rsp = (void *)login->rsp;
	struct isert_tx *tx = &ic->login_tx;
	bool more;

	if (length > MAX_KEY_VALUE_PAIRS)
		return -1;
	isert_fill_iser_hdr(tx->buf);
	memcpy(tx->buf + sizeof(struct iser_ctrl), login->rsp, ISCSI_HDR_LEN);
	memcpy(tx->buf + ISERT_HDRS_LEN, login->rsp_buf, length);

	/*
	 * Set before the response leaves: the initiator's next PDU may come
	 * back before this function returns. A successful non-final response
	 * means LIO set up its login_work, which takes the next request.
	 */
	more = !login->login_complete && !rsp->status_class;
	spin_lock_bh(&ic->lock);
	if (login->login_complete)
		ic->full_feature = true;
	ic->login_next = more;
	spin_unlock_bh(&ic->lock);

	if (isert_post_tx(ic, tx, ISERT_HDRS_LEN + length, NULL, 0, 0))
		return -1;
	return 0;
}
