// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srpt: what goes to the initiator. A WRITE's data is fetched with
 * RDMA READs (write_pending) before LIO executes it; a READ's data goes
 * with RDMA WRITEs chained in front of the SRP_RSP SEND (queue_data_in).
 * Every response returns the credit of its request plus those of IUs
 * that got none. A response's completion lets its command go.
 */
#include <linux/slab.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"

bool srpt_sq_take(struct srpt_ch *ch, unsigned int n)
{
	if (atomic_sub_return(n, &ch->sq_avail) < 0) {
		atomic_add(n, &ch->sq_avail);
		return false;
	}
	return true;
}

void srpt_sq_give(struct srpt_ch *ch, unsigned int n)
{
	atomic_add(n, &ch->sq_avail);
}

void srpt_release_data(struct srpt_cmd *cmd)
{
	struct srpt_ch *ch = cmd->ch;
	unsigned int i;

	for (i = 0; i < cmd->n_rw; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (rw->live)
			rdma_rw_ctx_destroy(&rw->ctx, ch->qp,
					    ch->cm_id->port_num, rw->sg,
					    rw->nents, cmd->rw_dir);
		target_free_sgl(rw->sg, rw->nents);
	}
	if (cmd->rw && cmd->rw != &cmd->rw_one)
		kfree(cmd->rw);
	cmd->rw = NULL;
	cmd->n_rw = 0;
	cmd->rw_wrs = 0;
	cmd->is_tmf = false;
	cmd->lio = false;
}

/* Posts under the lock that the release work's drain takes. */
static int srpt_post(struct srpt_ch *ch, struct ib_send_wr *wr)
{
	unsigned long flags;
	int ret = -ESHUTDOWN;

	spin_lock_irqsave(&ch->lock, flags);
	if (!ch->dead)
		ret = ib_post_send(ch->qp, wr, NULL);
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

/* The response is done with (sent, flushed or never posted). */
static void srpt_cmd_done(struct srpt_cmd *cmd)
{
	if (cmd->lio)
		transport_generic_free_cmd(&cmd->se, 0);
	else
		srpt_cmd_put(cmd);
}

/* SRP_RSP into the command's buffer; returns its length. */
static u32 srpt_build_rsp(struct srpt_cmd *cmd, u8 status, const u8 *sense,
			  u32 sense_len, int tmf_code)
{
	struct srpt_ch *ch = cmd->ch;
	struct srp_rsp *r = cmd->rsp;
	u32 room = min(ch->rsp_size, ch->max_ti_iu_len) - sizeof(*r);
	u32 len = sizeof(*r);

	memset(r, 0, sizeof(*r));
	r->opcode = SRP_RSP;
	r->req_lim_delta = cpu_to_be32(1 + atomic_xchg(&ch->credit_back, 0));
	r->tag = cmd->tag;
	r->status = status;
	if (tmf_code >= 0) {
		r->flags |= SRP_RSP_FLAG_RSPVALID;
		r->resp_data_len = cpu_to_be32(4);
		memset(r->data, 0, 4);
		r->data[3] = tmf_code;
		return len + 4;
	}
	if (sense && sense_len) {
		sense_len = min(sense_len, room);
		r->flags |= SRP_RSP_FLAG_SNSVALID;
		r->sense_data_len = cpu_to_be32(sense_len);
		memcpy(r->data, sense, sense_len);
		len += sense_len;
	}
	if (cmd->lio) {
		struct se_cmd *se = &cmd->se;
		__be32 res = cpu_to_be32(se->residual_count);
		bool in = se->data_direction == DMA_FROM_DEVICE;

		if (se->se_cmd_flags & SCF_UNDERFLOW_BIT) {
			r->flags |= in ? SRP_RSP_FLAG_DIUNDER : SRP_RSP_FLAG_DOUNDER;
			if (in)
				r->data_in_res_cnt = res;
			else
				r->data_out_res_cnt = res;
		} else if (se->se_cmd_flags & SCF_OVERFLOW_BIT) {
			r->flags |= in ? SRP_RSP_FLAG_DIOVER : SRP_RSP_FLAG_DOOVER;
			if (in)
				r->data_in_res_cnt = res;
			else
				r->data_out_res_cnt = res;
		}
	}
	return len;
}

/*
 * Sends the response, behind the RDMA WRITEs of the data if @with_data.
 * -EAGAIN: no room in the send queue (LIO tries again); otherwise the
 * command is done with when this returns or its SEND completes.
 */
static int srpt_post_rsp(struct srpt_cmd *cmd, u32 len, bool with_data,
			 bool must)
{
	struct srpt_ch *ch = cmd->ch;
	struct ib_sge sge = {
		.addr = cmd->rsp_dma,
		.length = len,
		.lkey = ch->sdev->pd->local_dma_lkey,
	};
	struct ib_send_wr send = {
		.wr_cqe = &cmd->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_send_wr *first = &send;
	unsigned int need = 1 + (with_data ? cmd->rw_wrs : 0);
	int i, ret;

	if (must)
		atomic_sub(need, &ch->sq_avail);
	else if (!srpt_sq_take(ch, need))
		return -EAGAIN;
	cmd->sq_taken = need;
	ib_dma_sync_single_for_device(ch->sdev->ibdev, cmd->rsp_dma, len,
				      DMA_TO_DEVICE);
	if (with_data)
		for (i = cmd->n_rw - 1; i >= 0; i--)
			first = rdma_rw_ctx_wrs(&cmd->rw[i].ctx, ch->qp,
						ch->cm_id->port_num, NULL, first);
	ret = srpt_post(ch, first);
	if (ret) {
		if (ret != -ESHUTDOWN)
			srpt_err("%s: posting a response failed: %d\n",
				 ch->sess_name, ret);
		srpt_sq_give(ch, need);
		cmd->sq_taken = 0;
		srpt_ch_close(ch);
		srpt_cmd_done(cmd);
	}
	return 0;
}

/* A response of our own (BUSY, task management): it must go out. */
int srpt_send_rsp(struct srpt_cmd *cmd, u8 status, const u8 *sense,
		  u32 sense_len, int tmf_code)
{
	u32 len = srpt_build_rsp(cmd, status, sense, sense_len, tmf_code);

	return srpt_post_rsp(cmd, len, false, true);
}

void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    send_cqe);
	struct srpt_ch *ch = cmd->ch;

	srpt_sq_give(ch, cmd->sq_taken);
	cmd->sq_taken = 0;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			srpt_err("%s: sending a response failed: %s\n",
				 ch->sess_name, ib_wc_status_msg(wc->status));
		srpt_ch_close(ch);
	}
	srpt_cmd_done(cmd);
}

void srpt_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    read_cqe);
	struct srpt_ch *ch = cmd->ch;

	srpt_sq_give(ch, cmd->sq_taken);
	cmd->sq_taken = 0;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			srpt_err("%s: RDMA READ of a WRITE's data failed: %s\n",
				 ch->sess_name, ib_wc_status_msg(wc->status));
		srpt_ch_close(ch);
		transport_generic_request_failure(&cmd->se,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	target_execute_cmd(&cmd->se);
}

int srpt_write_pending(struct se_cmd *se)
{
	struct srpt_cmd *cmd = srpt_cmd(se);
	struct srpt_ch *ch = cmd->ch;
	struct ib_send_wr *first = NULL;
	int i, ret;

	/* immediate data came with the command */
	if (!cmd->n_rw) {
		target_execute_cmd(se);
		return 0;
	}
	if (READ_ONCE(ch->dead))
		return -EIO;
	if (!srpt_sq_take(ch, cmd->rw_wrs))
		return -EAGAIN;
	cmd->sq_taken = cmd->rw_wrs;
	for (i = cmd->n_rw - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&cmd->rw[i].ctx, ch->qp,
					ch->cm_id->port_num,
					i == cmd->n_rw - 1 ? &cmd->read_cqe : NULL,
					first);
	ret = srpt_post(ch, first);
	if (ret) {
		srpt_sq_give(ch, cmd->sq_taken);
		cmd->sq_taken = 0;
		srpt_ch_close(ch);
		return -EIO;
	}
	return 0;
}

static int srpt_queue_rsp(struct se_cmd *se, bool with_data)
{
	struct srpt_cmd *cmd = srpt_cmd(se);
	u32 len;

	if (READ_ONCE(cmd->ch->dead)) {
		srpt_cmd_done(cmd);
		return 0;
	}
	len = srpt_build_rsp(cmd, se->scsi_status, se->sense_buffer,
			     se->scsi_sense_length, -1);
	return srpt_post_rsp(cmd, len, with_data && cmd->n_rw, false);
}

int srpt_queue_data_in(struct se_cmd *se)
{
	return srpt_queue_rsp(se, true);
}

int srpt_queue_status(struct se_cmd *se)
{
	return srpt_queue_rsp(se, false);
}

void srpt_queue_tm_rsp(struct se_cmd *se)
{
	struct srpt_cmd *cmd = srpt_cmd(se);
	int code;

	switch (se->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
		code = SRPT_TMF_COMPLETE;
		break;
	case TMR_FUNCTION_REJECTED:
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		code = SRPT_TMF_NOT_SUPPORTED;
		break;
	default:
		code = SRPT_TMF_FAILED;
		break;
	}
	if (READ_ONCE(cmd->ch->dead)) {
		srpt_cmd_done(cmd);
		return;
	}
	srpt_send_rsp(cmd, 0, NULL, 0, code);
}

/* LIO answers nothing for it and lets it go: release_cmd cleans up. */
void srpt_aborted_task(struct se_cmd *se)
{
}
