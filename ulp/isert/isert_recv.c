// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_isert full-feature receive: LIO's RX thread sits in get_rx_pdu and
 * handles the PDUs the completion handler queued, in arrival order, with
 * iscsi_target_mod's exported helpers. Immediate and unsolicited data are
 * copied from the receive buffer into the command's buffer; the rest of a
 * WRITE comes by RDMA READ (isert_fetch_write_data).
 */
#include <linux/slab.h>

#include "isert.h"

static void isert_cmd_take_stags(struct iscsit_cmd *cmd, struct isert_conn *ic,
				 const struct iser_ctrl *iser)
{
	struct isert_cmd *icmd = isert_cmd(cmd);

	icmd->cmd = cmd;
	icmd->ic = ic;
	icmd->rw_live = false;
	icmd->read_stag = 0;
	icmd->write_stag = 0;
	if (iser->flags & ISER_RSV) {
		icmd->read_stag = be32_to_cpu(iser->read_stag);
		icmd->read_va = be64_to_cpu(iser->read_va);
	}
	if (iser->flags & ISER_WSV) {
		icmd->write_stag = be32_to_cpu(iser->write_stag);
		icmd->write_va = be64_to_cpu(iser->write_va);
	}
}

static void isert_mark_all_data(struct iscsit_cmd *cmd)
{
	spin_lock_bh(&cmd->istate_lock);
	cmd->cmd_flags |= ICF_GOT_LAST_DATAOUT;
	cmd->i_state = ISTATE_RECEIVED_LAST_DATAOUT;
	spin_unlock_bh(&cmd->istate_lock);
}

static int isert_scsi_cmd(struct isert_conn *ic, const struct iser_ctrl *iser,
			  struct iscsi_scsi_req *hdr, const void *data, u32 dlen)
{
	struct iscsit_conn *conn = ic->conn;
	struct iscsit_cmd *cmd;
	int ret, cmdsn;
	bool dump;

	cmd = iscsit_allocate_cmd(conn, TASK_INTERRUPTIBLE);
	if (!cmd)
		return iscsit_add_reject(conn, ISCSI_REASON_BOOKMARK_NO_RESOURCES,
					 (unsigned char *)hdr);
	if (iscsit_setup_scsi_cmd(conn, cmd, (unsigned char *)hdr) < 0)
		return 0;	/* rejected, the reject is queued */
	isert_cmd_take_stags(cmd, ic, iser);

	ret = iscsit_process_scsi_cmd(conn, cmd, hdr);
	if (ret < 0)
		return ret;
	dump = ret > 0;		/* a check condition instead of the data */
	if (!cmd->immediate_data)
		return 0;

	if (!dump) {
		struct se_cmd *se = &cmd->se_cmd;
		u32 room = se->data_length - cmd->write_data_done;
		u32 n = min(room, dlen);

		if (sg_pcopy_from_buffer(se->t_data_sg, se->t_data_nents, data,
					 n, cmd->write_data_done) != n)
			return -1;
		cmd->write_data_done += n;
		if (cmd->write_data_done == se->data_length)
			isert_mark_all_data(cmd);
	}

	/* with its data received the command takes its place in CmdSN order */
	cmdsn = iscsit_sequence_cmd(conn, cmd, (unsigned char *)hdr, hdr->cmdsn);
	if (cmdsn == CMDSN_ERROR_CANNOT_RECOVER)
		return -1;
	if (cmd->sense_reason || cmdsn == CMDSN_LOWER_THAN_EXP)
		target_put_sess_cmd(&cmd->se_cmd);
	else if (cmd->unsolicited_data)
		iscsit_set_unsolicited_dataout(cmd);
	return 0;
}

static int isert_data_out(struct isert_conn *ic, struct iscsi_data *hdr,
			  const void *data, u32 dlen)
{
	struct iscsit_cmd *cmd = NULL;
	struct se_cmd *se;
	u32 offset;

	if (iscsit_check_dataout_hdr(ic->conn, hdr, &cmd) < 0 || !cmd)
		return 0;	/* rejected or for a command no longer here */
	se = &cmd->se_cmd;
	offset = be32_to_cpu(hdr->offset);
	if (offset > se->data_length || dlen > se->data_length - offset) {
		isert_err("Data-Out of %u bytes at %u beyond the command's %u\n",
			  dlen, offset, se->data_length);
		return -1;
	}
	if (sg_pcopy_from_buffer(se->t_data_sg, se->t_data_nents, data, dlen,
				 offset) != dlen)
		return -1;
	return iscsit_check_dataout_payload(cmd, hdr, false) < 0 ? -1 : 0;
}

static int isert_nop_out(struct isert_conn *ic, struct iscsi_nopout *hdr,
			 const void *data, u32 dlen)
{
	struct iscsit_conn *conn = ic->conn;
	struct iscsit_cmd *cmd = NULL;

	/* a ping wants an answer; a reply to our NOP-In has no command */
	if (hdr->ttt == cpu_to_be32(0xFFFFFFFF)) {
		cmd = iscsit_allocate_cmd(conn, TASK_INTERRUPTIBLE);
		if (!cmd)
			return iscsit_add_reject(conn, ISCSI_REASON_BOOKMARK_NO_RESOURCES,
						 (unsigned char *)hdr);
	}
	if (iscsit_setup_nop_out(conn, cmd, hdr) < 0)
		return 0;
	if (cmd && dlen) {
		/* echoed back in the NOP-In */
		cmd->buf_ptr = kmemdup_nul(data, dlen, GFP_KERNEL);
		if (!cmd->buf_ptr) {
			iscsit_free_cmd(cmd, false);
			return -1;
		}
		cmd->buf_ptr_size = dlen;
	}
	return iscsit_process_nop_out(conn, cmd, hdr);
}

static int isert_text(struct isert_conn *ic, struct iscsi_text *hdr,
		      const void *data, u32 dlen)
{
	struct iscsit_conn *conn = ic->conn;
	struct iscsit_cmd *cmd;

	/* a continuation asks for the next part of a long response */
	if (hdr->ttt != cpu_to_be32(0xFFFFFFFF))
		cmd = iscsit_find_cmd_from_itt(conn, hdr->itt);
	else
		cmd = iscsit_allocate_cmd(conn, TASK_INTERRUPTIBLE);
	if (!cmd)
		return iscsit_add_reject(conn, ISCSI_REASON_BOOKMARK_NO_RESOURCES,
					 (unsigned char *)hdr);
	if (iscsit_setup_text_cmd(conn, cmd, hdr) < 0)
		return 0;
	kfree(cmd->text_in_ptr);
	cmd->text_in_ptr = NULL;
	if (dlen) {
		cmd->text_in_ptr = kzalloc(ALIGN(dlen, 4) + 1, GFP_KERNEL);
		if (!cmd->text_in_ptr)
			return -1;
		memcpy(cmd->text_in_ptr, data, dlen);
	}
	return iscsit_process_text_cmd(conn, cmd, hdr);
}

static int isert_other(struct isert_conn *ic, struct iscsi_hdr *hdr)
{
	struct iscsit_conn *conn = ic->conn;
	struct iscsit_cmd *cmd;
	u8 op = hdr->opcode & ISCSI_OPCODE_MASK;

	switch (op) {
	case ISCSI_OP_SCSI_TMFUNC:
	case ISCSI_OP_LOGOUT:
		cmd = iscsit_allocate_cmd(conn, TASK_INTERRUPTIBLE);
		if (!cmd)
			return iscsit_add_reject(conn, ISCSI_REASON_BOOKMARK_NO_RESOURCES,
						 (unsigned char *)hdr);
		if (op == ISCSI_OP_SCSI_TMFUNC)
			return iscsit_handle_task_mgt_cmd(conn, cmd, (unsigned char *)hdr);
		/* positive: LIO's TCP RX thread would wait for the response */
		return min(iscsit_handle_logout_cmd(conn, cmd, (unsigned char *)hdr), 0);
	case ISCSI_OP_SNACK:
		return iscsit_handle_snack(conn, (unsigned char *)hdr);
	default:
		/* at ErrorRecoveryLevel 0 nothing else can be done */
		isert_err("unknown iSCSI opcode 0x%02x: closing the connection\n",
			  hdr->opcode);
		return -1;
	}
}

/* One received PDU; negative: the connection cannot go on. */
static int isert_rx_pdu(struct isert_conn *ic, struct isert_rx *rx)
{
	const struct iser_ctrl *iser = rx->buf;
	struct iscsi_hdr *hdr = rx->buf + sizeof(*iser);
	u32 ahs, dlen, got;
	void *data;
	u8 op;

	if (rx->len < ISERT_HDRS_LEN) {
		isert_err("PDU of %u bytes\n", rx->len);
		return -1;
	}
	switch (iser->flags & 0xF0) {
	case ISCSI_CTRL:
		break;
	case ISER_HELLO:
	case ISER_HELLORPLY:
		isert_err("iSER Hello (0x%02x) not supported: dropped\n",
			  iser->flags);
		return 0;
	default:
		pr_warn_ratelimited(DRV_NAME ": unknown iSER opcode 0x%02x\n",
				    iser->flags);
		break;
	}
	ahs = hdr->hlength * 4;
	dlen = ntoh24(hdr->dlength);
	got = rx->len - (u32)ISERT_HDRS_LEN;
	got = got > ahs ? got - ahs : 0;
	if (ahs > ISERT_RX_AHS_ROOM + ISERT_RX_DATA_LEN || dlen > got) {
		isert_err("PDU declares %u data bytes but only %u bytes were received\n",
			  dlen, got);
		return -1;
	}
	data = (void *)hdr + ISCSI_HDR_LEN + ahs;
	op = hdr->opcode & ISCSI_OPCODE_MASK;

	if (ic->conn->sess->sess_ops->SessionType &&
	    op != ISCSI_OP_TEXT && op != ISCSI_OP_LOGOUT) {
		isert_err("Got illegal opcode 0x%02x in SessionType=Discovery\n", op);
		return iscsit_add_reject(ic->conn, ISCSI_REASON_PROTOCOL_ERROR,
					 (unsigned char *)hdr);
	}
	switch (op) {
	case ISCSI_OP_SCSI_CMD:
		return isert_scsi_cmd(ic, iser, (void *)hdr, data, dlen);
	case ISCSI_OP_SCSI_DATA_OUT:
		return isert_data_out(ic, (void *)hdr, data, dlen);
	case ISCSI_OP_NOOP_OUT:
		return isert_nop_out(ic, (void *)hdr, data, dlen);
	case ISCSI_OP_TEXT:
		return isert_text(ic, (void *)hdr, data, dlen);
	default:
		return isert_other(ic, hdr);
	}
}

static struct isert_rx *isert_next_rx(struct isert_conn *ic)
{
	struct isert_rx *rx = NULL;

	spin_lock_bh(&ic->lock);
	if (!list_empty(&ic->rx_list)) {
		rx = list_first_entry(&ic->rx_list, struct isert_rx, node);
		list_del_init(&rx->node);
	}
	spin_unlock_bh(&ic->lock);
	return rx;
}

/*
 * LIO's RX thread. Returning ends the connection: LIO then closes it
 * (a signal from LIO's side, or our side going down, or a PDU that
 * cannot be handled).
 */
void isert_rx_thread(struct iscsit_conn *conn)
{
	struct isert_conn *ic = conn->context;
	struct isert_rx *rx;

	/*
	 * A normal session moves data by RDMA only with the extensions
	 * negotiated (a discovery session leaves them out: its responses are
	 * freed by LIO on ExpStatSN, see isert_final_kind); digests have no
	 * place in iSER. Such a session ends before its first PDU.
	 */
	if ((!conn->sess->sess_ops->SessionType &&
	     !conn->sess->sess_ops->RDMAExtensions) ||
	    conn->conn_ops->HeaderDigest || conn->conn_ops->DataDigest) {
		isert_err("session negotiated RDMAExtensions=%s, digests %u/%u: closing\n",
			  conn->sess->sess_ops->RDMAExtensions ? "Yes" : "No",
			  conn->conn_ops->HeaderDigest, conn->conn_ops->DataDigest);
		isert_conn_down(ic);
		return;
	}

	for (;;) {
		if (wait_event_interruptible(ic->rx_wait,
					     !list_empty(&ic->rx_list) ||
					     READ_ONCE(ic->state) == ISERT_DOWN))
			return;
		/* what came after the connection failed is not handled */
		if (READ_ONCE(ic->state) == ISERT_DOWN)
			return;
		rx = isert_next_rx(ic);
		if (!rx)
			continue;
		/*
		 * LIO closes the connection when we return; what it queued
		 * (a Reject) may still leave, the close lets sends finish.
		 */
		if (isert_rx_pdu(ic, rx) < 0)
			return;
		if (isert_post_rx(ic, rx))
			return;
	}
}
