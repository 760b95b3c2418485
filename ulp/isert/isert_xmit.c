// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_isert sending: every response is a SEND from one of the connection's
 * slots (iSER header, BHS, small data copied in, larger data mapped from
 * LIO's buffer). READ data goes by RDMA WRITE chained before the SCSI
 * Response; the solicited part of WRITE data comes by RDMA READ. With the
 * RDMA extensions LIO frees no command on ExpStatSN: the completion of its
 * final response does.
 */
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "isert.h"

int isert_tx_init(struct isert_conn *ic, struct isert_tx *tx, u32 len)
{
	void *buf = kzalloc(len, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	tx->dma = ib_dma_map_single(ic->ibdev, buf, len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ic->ibdev, tx->dma)) {
		kfree(buf);
		return -ENOMEM;
	}
	tx->buf = buf;
	tx->buf_len = len;
	tx->ic = ic;
	tx->cqe.done = isert_tx_done;
	INIT_LIST_HEAD(&tx->node);
	return 0;
}

void isert_tx_exit(struct isert_conn *ic, struct isert_tx *tx)
{
	ib_dma_unmap_single(ic->ibdev, tx->dma, tx->buf_len, DMA_TO_DEVICE);
	kfree(tx->buf);
	tx->buf = NULL;
}

void isert_fill_iser_hdr(void *buf)
{
	struct iser_ctrl *iser = buf;

	memset(iser, 0, sizeof(*iser));
	iser->flags = ISCSI_CTRL;
}

/* Back to the pool; inflight: it had been counted as posted. */
static void isert_tx_put(struct isert_conn *ic, struct isert_tx *tx,
			 bool inflight)
{
	spin_lock_bh(&ic->tx_lock);
	tx->cmd = NULL;
	if (tx != &ic->login_tx)
		list_add(&tx->node, &ic->tx_free);
	if (inflight && !--ic->tx_inflight)
		wake_up(&ic->tx_wait);
	spin_unlock_bh(&ic->tx_lock);
}

static struct isert_tx *isert_tx_get(struct isert_conn *ic)
{
	struct isert_tx *tx = NULL;

	spin_lock_bh(&ic->tx_lock);
	if (!list_empty(&ic->tx_free)) {
		tx = list_first_entry(&ic->tx_free, struct isert_tx, node);
		list_del_init(&tx->node);
	}
	spin_unlock_bh(&ic->tx_lock);
	if (!tx)
		isert_err("no send slot free\n");
	return tx;
}

static void isert_tx_unmap_extra(struct isert_conn *ic, struct isert_tx *tx)
{
	if (tx->extra_len)
		ib_dma_unmap_single(ic->ibdev, tx->extra_dma, tx->extra_len,
				    DMA_TO_DEVICE);
	tx->extra_len = 0;
}

/*
 * Post a SEND of the first len bytes of tx's buffer, then extra (a kmalloc
 * buffer of LIO's that lives as long as the command). chain: work requests
 * that go before it (an RDMA WRITE chain), posted in the same call.
 */
static int isert_post_send_chain(struct isert_conn *ic, struct isert_tx *tx,
				 u32 len, void *extra, u32 extra_len,
				 u32 inv_rkey, struct rdma_rw_ctx *rw)
{
	int ret;

	tx->sge[0].addr = tx->dma;
	tx->sge[0].length = len;
	tx->sge[0].lkey = ic->pd->local_dma_lkey;
	tx->wr.num_sge = 1;
	tx->extra_len = 0;
	if (extra_len) {
		tx->extra_dma = ib_dma_map_single(ic->ibdev, extra, extra_len,
						  DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ic->ibdev, tx->extra_dma)) {
			isert_tx_put(ic, tx, false);
			return -ENOMEM;
		}
		tx->extra_len = extra_len;
		tx->sge[1].addr = tx->extra_dma;
		tx->sge[1].length = extra_len;
		tx->sge[1].lkey = ic->pd->local_dma_lkey;
		tx->wr.num_sge = 2;
	}
	ib_dma_sync_single_for_device(ic->ibdev, tx->dma, len, DMA_TO_DEVICE);
	tx->wr.next = NULL;
	tx->wr.wr_cqe = &tx->cqe;
	tx->wr.sg_list = tx->sge;
	tx->wr.send_flags = IB_SEND_SIGNALED;
	if (inv_rkey) {
		tx->wr.opcode = IB_WR_SEND_WITH_INV;
		tx->wr.ex.invalidate_rkey = inv_rkey;
	} else {
		tx->wr.opcode = IB_WR_SEND;
	}

	spin_lock_bh(&ic->tx_lock);
	ic->tx_inflight++;
	spin_unlock_bh(&ic->tx_lock);
	spin_lock_bh(&ic->lock);
	if (!ic->post_ok)
		ret = -ENOTCONN;
	else if (rw)
		ret = rdma_rw_ctx_post(rw, ic->qp, ic->port, NULL, &tx->wr);
	else
		ret = ib_post_send(ic->qp, &tx->wr, NULL);
	spin_unlock_bh(&ic->lock);
	if (ret) {
		isert_tx_unmap_extra(ic, tx);
		isert_tx_put(ic, tx, true);
	}
	return ret;
}

int isert_post_tx(struct isert_conn *ic, struct isert_tx *tx, u32 len,
		  void *extra, u32 extra_len, u32 inv_rkey)
{
	return isert_post_send_chain(ic, tx, len, extra, extra_len, inv_rkey,
				     NULL);
}

/* LIO is done with the command once its final response left. */
static void isert_cmd_done(struct isert_conn *ic, struct iscsit_cmd *cmd)
{
	struct iscsit_conn *conn = cmd->conn;

	spin_lock_bh(&conn->cmd_lock);
	if (!list_empty(&cmd->i_conn_node))
		list_del_init(&cmd->i_conn_node);
	spin_unlock_bh(&conn->cmd_lock);
	iscsit_free_cmd(cmd, false);
}

void isert_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct isert_tx *tx = container_of(wc->wr_cqe, struct isert_tx, cqe);
	struct isert_conn *ic = tx->ic;
	struct iscsit_cmd *cmd = tx->cmd;
	enum isert_tx_kind kind = tx->kind;
	bool ok = wc->status == IB_WC_SUCCESS;

	isert_tx_unmap_extra(ic, tx);
	isert_tx_put(ic, tx, true);
	if (!ok && wc->status != IB_WC_WR_FLUSH_ERR)
		isert_err("send failed: %s (%d)\n", ib_wc_status_msg(wc->status),
			  wc->status);

	switch (kind) {
	case ISERT_TX_FREE_CMD:
		/* flushed: the command stays listed, LIO's close frees it */
		if (ok)
			isert_cmd_done(ic, cmd);
		break;
	case ISERT_TX_LOGOUT:
		complete(&ic->logout_sent);
		break;
	default:
		break;
	}
	if (!ok)
		isert_conn_down(ic);
}

/*
 * Who frees a command once its final response is out: with the RDMA
 * extensions we do, on the SEND's completion; without them (a discovery
 * session) LIO does when ExpStatSN acknowledges it, as for TCP.
 */
static enum isert_tx_kind isert_final_kind(struct iscsit_conn *conn)
{
	return conn->sess->sess_ops->RDMAExtensions ? ISERT_TX_FREE_CMD :
		ISERT_TX_KEEP_CMD;
}

static u32 isert_inv_rkey(struct isert_conn *ic, struct iscsit_cmd *cmd)
{
	struct isert_cmd *icmd = isert_cmd(cmd);

	if (!ic->remote_inv || cmd->iscsi_opcode != ISCSI_OP_SCSI_CMD)
		return 0;
	return icmd->read_stag ? icmd->read_stag : icmd->write_stag;
}

/*
 * The SCSI Response of cmd, with its sense data. rw: an RDMA WRITE chain
 * of the READ data to post before it.
 */
static int isert_send_scsi_rsp(struct isert_conn *ic, struct iscsit_cmd *cmd,
			       bool new_statsn, struct rdma_rw_ctx *rw)
{
	struct iscsit_conn *conn = cmd->conn;
	struct se_cmd *se = &cmd->se_cmd;
	struct isert_tx *tx = isert_tx_get(ic);
	struct iscsi_scsi_rsp *hdr;
	u32 len = ISERT_HDRS_LEN;
	int ret;

	if (!tx)
		return -ENOMEM;
	isert_fill_iser_hdr(tx->buf);
	hdr = tx->buf + sizeof(struct iser_ctrl);
	iscsit_build_rsp_pdu(cmd, conn, new_statsn, hdr);
	if (se->sense_buffer &&
	    (se->se_cmd_flags & (SCF_TRANSPORT_TASK_SENSE | SCF_EMULATED_TASK_SENSE))) {
		/* SenseLength (2 bytes), the sense, padding to 4 */
		u32 sense = min_t(u32, se->scsi_sense_length,
				  ISERT_TX_INLINE - 2 - 3);
		u8 *p = tx->buf + ISERT_HDRS_LEN;

		put_unaligned_be16(sense, p);
		memcpy(p + 2, se->sense_buffer, sense);
		memset(p + 2 + sense, 0, -(sense + 2) & 3);
		hton24(hdr->dlength, sense + 2);
		len += ALIGN(sense + 2, 4);
	}
	tx->cmd = cmd;
	tx->kind = isert_final_kind(conn);
	spin_lock_bh(&cmd->istate_lock);
	cmd->i_state = ISTATE_SENT_STATUS;
	spin_unlock_bh(&cmd->istate_lock);
	/* not touched after a successful post: the completion frees it */
	ret = isert_post_send_chain(ic, tx, len, NULL, 0,
				    isert_inv_rkey(ic, cmd), rw);
	if (ret)
		isert_err("cannot send a SCSI Response: %d\n", ret);
	return ret;
}

int isert_send_status(struct iscsit_conn *conn, struct iscsit_cmd *cmd)
{
	return isert_send_scsi_rsp(conn->context, cmd, true, NULL);
}

int isert_send_read_data(struct iscsit_conn *conn, struct iscsit_cmd *cmd)
{
	struct isert_conn *ic = conn->context;
	struct isert_cmd *icmd = isert_cmd(cmd);
	struct se_cmd *se = &cmd->se_cmd;
	struct rdma_rw_ctx *rw = NULL;
	int ret;

	if (se->data_length && se->t_data_nents) {
		if (!icmd->read_stag) {
			isert_err("READ data but no Read STag from the initiator\n");
			return -EINVAL;
		}
		ret = rdma_rw_ctx_init(&icmd->rw, ic->qp, ic->port,
				       se->t_data_sg, se->t_data_nents, 0,
				       icmd->read_va, icmd->read_stag,
				       DMA_TO_DEVICE);
		if (ret < 0) {
			isert_err("cannot map %u bytes of READ data: %d\n",
				  se->data_length, ret);
			return ret;
		}
		icmd->rw_live = true;
		icmd->rw_dir = DMA_TO_DEVICE;
		rw = &icmd->rw;
	}
	/* the context is destroyed with the command (unmap_cmd) */
	return isert_send_scsi_rsp(ic, cmd, true, rw);
}

static void isert_rw_destroy(struct isert_conn *ic, struct isert_cmd *icmd)
{
	struct se_cmd *se = &icmd->cmd->se_cmd;

	if (!icmd->rw_live)
		return;
	icmd->rw_live = false;
	rdma_rw_ctx_destroy(&icmd->rw, ic->qp, ic->port, se->t_data_sg,
			    se->t_data_nents, icmd->rw_dir);
}

static void isert_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct isert_cmd *icmd = container_of(wc->wr_cqe, struct isert_cmd,
					      read_cqe);
	struct iscsit_cmd *cmd = icmd->cmd;
	struct isert_conn *ic = icmd->ic;

	isert_rw_destroy(ic, icmd);
	if (wc->status != IB_WC_SUCCESS) {
		/* the command stays listed; closing the connection frees it */
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			isert_err("RDMA READ failed: %s (%d)\n",
				  ib_wc_status_msg(wc->status), wc->status);
		isert_conn_down(ic);
		return;
	}
	cmd->write_data_done = cmd->se_cmd.data_length;
	spin_lock_bh(&cmd->istate_lock);
	cmd->cmd_flags |= ICF_GOT_LAST_DATAOUT;
	cmd->i_state = ISTATE_RECEIVED_LAST_DATAOUT;
	spin_unlock_bh(&cmd->istate_lock);
	iscsit_stop_dataout_timer(cmd);
	target_execute_cmd(&cmd->se_cmd);
}

/* Fetch what the initiator did not send with the command: one RDMA READ chain. */
int isert_fetch_write_data(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
		      bool recovery)
{
	struct isert_conn *ic = conn->context;
	struct isert_cmd *icmd = isert_cmd(cmd);
	struct se_cmd *se = &cmd->se_cmd;
	int ret;

	if (!icmd->write_stag) {
		isert_err("WRITE data to fetch but no Write STag from the initiator\n");
		return -EINVAL;
	}
	if (cmd->write_data_done >= se->data_length)
		return 0;
	/* the initiator's Write VA already points past the data it sent */
	ret = rdma_rw_ctx_init(&icmd->rw, ic->qp, ic->port, se->t_data_sg,
			       se->t_data_nents, cmd->write_data_done,
			       icmd->write_va, icmd->write_stag,
			       DMA_FROM_DEVICE);
	if (ret < 0) {
		isert_err("cannot map %u bytes of WRITE data: %d\n",
			  se->data_length - cmd->write_data_done, ret);
		return ret;
	}
	icmd->rw_live = true;
	icmd->rw_dir = DMA_FROM_DEVICE;
	icmd->read_cqe.done = isert_read_done;

	spin_lock_bh(&ic->lock);
	ret = ic->post_ok ? rdma_rw_ctx_post(&icmd->rw, ic->qp, ic->port,
					     &icmd->read_cqe, NULL) : -ENOTCONN;
	spin_unlock_bh(&ic->lock);
	if (ret)
		isert_rw_destroy(ic, icmd);
	return ret;
}

void isert_cmd_unmap(struct iscsit_conn *conn, struct iscsit_cmd *cmd)
{
	struct isert_conn *ic = conn->context;

	if (ic && cmd->iscsi_opcode == ISCSI_OP_SCSI_CMD)
		isert_rw_destroy(ic, isert_cmd(cmd));
}

/* A control PDU built by LIO into the slot, with data from LIO's buffer. */
static int isert_send_ctrl(struct isert_conn *ic, struct iscsit_cmd *cmd,
			   struct isert_tx *tx, enum isert_tx_kind kind,
			   void *data, u32 dlen)
{
	int ret;

	tx->cmd = cmd;
	tx->kind = kind;
	/* exactly DataSegmentLength bytes: iSER carries no padding */
	ret = isert_post_send_chain(ic, tx, ISERT_HDRS_LEN, data, dlen, 0,
				    NULL);
	if (ret)
		isert_err("cannot send PDU 0x%02x: %d\n", cmd->iscsi_opcode, ret);
	return ret;
}

static int isert_send_logout_rsp(struct isert_conn *ic, struct iscsit_conn *conn,
				 struct iscsit_cmd *cmd, struct isert_tx *tx)
{
	iscsit_build_logout_rsp(cmd, conn, tx->buf + sizeof(struct iser_ctrl));
	reinit_completion(&ic->logout_sent);
	spin_lock_bh(&cmd->istate_lock);
	cmd->i_state = ISTATE_SENT_STATUS;
	spin_unlock_bh(&cmd->istate_lock);
	if (isert_send_ctrl(ic, cmd, tx, ISERT_TX_LOGOUT, NULL, 0))
		return -1;
	/* the response must be out before LIO closes the connection */
	wait_for_completion_timeout(&ic->logout_sent,
				    msecs_to_jiffies(ISERT_TX_LINGER_MS));
	if (!iscsit_logout_post_handler(cmd, conn))
		return -ECONNRESET;
	return 0;
}

int isert_send_queued(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
			 int state)
{
	struct isert_conn *ic = conn->context;
	enum isert_tx_kind kind = isert_final_kind(conn);
	struct isert_tx *tx;
	void *hdr, *data = NULL;
	u32 dlen = 0;
	int ret;

	switch (state) {
	case ISTATE_SEND_STATUS:
	case ISTATE_SEND_STATUS_RECOVERY:
		ret = isert_send_scsi_rsp(ic, cmd, state == ISTATE_SEND_STATUS,
					  NULL);
		goto out;
	default:
		break;
	}

	tx = isert_tx_get(ic);
	if (!tx)
		return -ENOMEM;
	isert_fill_iser_hdr(tx->buf);
	hdr = tx->buf + sizeof(struct iser_ctrl);
	switch (state) {
	case ISTATE_SEND_LOGOUTRSP:
		return isert_send_logout_rsp(ic, conn, cmd, tx);
	case ISTATE_SEND_NOPIN:
		iscsit_build_nopin_rsp(cmd, conn, hdr, true);
		data = cmd->buf_ptr;
		dlen = cmd->buf_ptr_size;
		break;
	case ISTATE_SEND_REJECT:
		iscsit_build_reject(cmd, conn, hdr);
		data = cmd->buf_ptr;	/* the rejected header */
		dlen = ISCSI_HDR_LEN;
		break;
	case ISTATE_SEND_TASKMGTRSP:
		iscsit_build_task_mgt_rsp(cmd, conn, hdr);
		/* a reassignment (ERL 2) moves the task before the answer */
		if (iscsit_tmr_post_handler(cmd, conn))
			pr_warn_ratelimited(DRV_NAME ": task management post handling failed\n");
		break;
	case ISTATE_SEND_TEXTRSP:
		ret = iscsit_build_text_rsp(cmd, conn, hdr, ISCSI_INFINIBAND);
		if (ret < 0)
			goto put;
		data = cmd->buf_ptr;
		dlen = ret;
		if (!(((struct iscsi_text_rsp *)hdr)->flags & ISCSI_FLAG_CMD_FINAL))
			kind = ISERT_TX_KEEP_CMD;
		break;
	default:
		isert_err("cannot send state %d of opcode 0x%02x\n", state,
			  cmd->iscsi_opcode);
		ret = -EINVAL;
		goto put;
	}
	spin_lock_bh(&cmd->istate_lock);
	cmd->i_state = ISTATE_SENT_STATUS;
	spin_unlock_bh(&cmd->istate_lock);
	ret = isert_send_ctrl(ic, cmd, tx, kind, dlen ? data : NULL, dlen);
out:
	if (ret)
		return ret;
	return atomic_read(&conn->check_immediate_queue) ? 1 : 0;
put:
	isert_tx_put(ic, tx, false);
	return ret;
}

int isert_send_immediate(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
			  int state)
{
	switch (state) {
	case ISTATE_REMOVE:
		spin_lock_bh(&conn->cmd_lock);
		list_del_init(&cmd->i_conn_node);
		spin_unlock_bh(&conn->cmd_lock);
		iscsit_free_cmd(cmd, false);
		return 0;
	default:
		/* R2Ts and unsolicited NOP-Ins are not used with iSER */
		isert_err("unexpected immediate state %d of opcode 0x%02x\n",
			  state, cmd->iscsi_opcode);
		return -EINVAL;
	}
}
