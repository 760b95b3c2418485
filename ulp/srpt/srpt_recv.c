// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srpt: information units from the initiator. An SRP_CMD is checked
 * against its IU before anything is allocated: the additional CDB, the
 * descriptors and the data length (16 MiB at most) must fit; what does
 * not gets SCSI BUSY back, as the stock target answers a command whose
 * descriptors it cannot use. Good ones get one data buffer per
 * descriptor with its rdma_rw context, and go to LIO.
 */
#include <linux/slab.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>

#include "srpt.h"

/* Bytes of an IU the tag can be read from: answerable by tag. */
#define SRPT_IU_TAG_END 16

static void srpt_drop_iu(struct srpt_ch *ch, struct srpt_rx *rx)
{
	/* its credit goes back with the next response */
	atomic_inc(&ch->credit_back);
	srpt_post_rx(ch, rx);
}

/* SRP task attribute (low 3 bits) to LIO's; reserved values are simple. */
static const u8 srpt_attr_map[8] = {
	[0] = TCM_SIMPLE_TAG, [1] = TCM_HEAD_TAG, [2] = TCM_ORDERED_TAG,
	[3] = TCM_SIMPLE_TAG, [4] = TCM_ACA_TAG, [5] = TCM_SIMPLE_TAG,
	[6] = TCM_SIMPLE_TAG, [7] = TCM_SIMPLE_TAG,
};

/* One data buffer and rdma_rw context per descriptor, chained for LIO. */
static int srpt_map_descs(struct srpt_ch *ch, struct srpt_cmd *cmd,
			  const struct srp_direct_buf *d, unsigned int n,
			  enum dma_data_direction rw_dir)
{
	struct srpt_rw *prev = NULL;
	unsigned int i;
	int ret;

	if (n == 1) {
		cmd->rw = &cmd->rw_one;
		memset(cmd->rw, 0, sizeof(*cmd->rw));
	} else {
		cmd->rw = kcalloc(n, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		rw->va = be64_to_cpu(d[i].va);
		rw->rkey = be32_to_cpu(d[i].key);
		rw->len = be32_to_cpu(d[i].len);
		ret = target_alloc_sgl(&rw->sg, &rw->nents, rw->len, false,
				       i < n - 1);
		if (ret)
			return ret;
		cmd->n_rw = i + 1;
		if (prev)
			sg_chain(prev->sg, prev->nents + 1, rw->sg);
		ret = rdma_rw_ctx_init(&rw->ctx, ch->qp, ch->cm_id->port_num,
				       rw->sg, rw->nents, 0, rw->va, rw->rkey,
				       rw_dir);
		if (ret < 0)
			return ret;
		rw->live = true;
		cmd->rw_wrs += ret;	/* taken from the send queue when posted */
		prev = rw;
	}
	return 0;
}

/*
 * Checks the data part of an SRP_CMD of @len bytes and sets up its
 * buffers; *sg and *nents are what LIO gets. Errors: nothing set up that
 * srpt_release_data does not undo.
 */
static int srpt_parse_data(struct srpt_ch *ch, struct srpt_cmd *cmd,
			   struct srpt_rx *rx, u32 len,
			   enum dma_data_direction *dir, u32 *data_len,
			   struct scatterlist **sg, unsigned int *nents)
{
	struct srp_cmd *sc = rx->buf;
	u8 fmt_out = sc->buf_fmt >> 4, fmt_in = sc->buf_fmt & 0xf;
	u32 off = sizeof(*sc) + (sc->add_cdb_len & ~3);
	const struct srp_direct_buf *d;
	unsigned int n, cnt, i;
	u8 fmt;
	u64 sum = 0;
	int ret;

	*sg = NULL;
	*nents = 0;
	*data_len = 0;
	if (off > len) {
		srpt_err("SRP_CMD: additional CDB (%u bytes) past the IU (%u bytes)\n",
			 sc->add_cdb_len & ~3, len);
		return -EINVAL;
	}
	if (scsi_command_size(sc->cdb) > 16 + (sc->add_cdb_len & ~3)) {
		srpt_err("SRP_CMD: CDB 0x%02x longer than what came\n",
			 sc->cdb[0]);
		return -EINVAL;
	}
	if (fmt_out && fmt_in) {
		srpt_err("SRP_CMD: bidirectional commands are not supported\n");
		return -EINVAL;
	}
	fmt = fmt_out ? fmt_out : fmt_in;
	*dir = fmt_out ? DMA_TO_DEVICE : fmt_in ? DMA_FROM_DEVICE : DMA_NONE;
	cnt = fmt_out ? sc->data_out_desc_cnt : sc->data_in_desc_cnt;

	switch (fmt) {
	case SRP_NO_DATA_DESC:
		return 0;
	case SRP_DATA_DESC_DIRECT:
		if (off + sizeof(*d) > len)
			goto short_iu;
		d = rx->buf + off;
		n = 1;
		break;
	case SRP_DATA_DESC_INDIRECT: {
		const struct srp_indirect_buf *ind = rx->buf + off;
		u32 tlen;

		if (off + sizeof(*ind) > len)
			goto short_iu;
		tlen = be32_to_cpu(ind->table_desc.len);
		n = tlen / sizeof(*d);
		if (!n || tlen % sizeof(*d) || n > cnt || n > SRPT_MAX_DESC ||
		    off + sizeof(*ind) + tlen > len) {
			srpt_err("SRP_CMD: %u bytes of descriptors (count %u) do not fit the IU (%u bytes)\n",
				 tlen, cnt, len);
			return -EINVAL;
		}
		d = ind->desc_list;
		sum = be32_to_cpu(ind->len);
		break;
	}
	case SRP_DATA_DESC_IMM: {
		const struct srp_imm_buf *imm = rx->buf + off;
		u32 ilen;

		if (*dir != DMA_TO_DEVICE || !ch->imm_offset) {
			srpt_err("SRP_CMD: immediate data not negotiated\n");
			return -EINVAL;
		}
		if (off + sizeof(*imm) > len)
			goto short_iu;
		ilen = be32_to_cpu(imm->len);
		if (!ilen || ilen > len || ch->imm_offset > len - ilen) {
			srpt_err("Received too few data - %u < %u\n",
				 len, ch->imm_offset + ilen);
			return -EINVAL;
		}
		sg_init_one(&cmd->imm_sg, rx->buf + ch->imm_offset, ilen);
		cmd->held_rx = rx;
		*sg = &cmd->imm_sg;
		*nents = 1;
		*data_len = ilen;
		return 0;
	}
	default:
		srpt_err("SRP_CMD: unsupported buffer format 0x%02x\n",
			 sc->buf_fmt);
		return -EINVAL;
	}

	/* direct or indirect: each descriptor sane, the total bounded */
	{
		u64 total = 0;

		for (i = 0; i < n; i++) {
			u32 l = be32_to_cpu(d[i].len);

			if (!l) {
				srpt_err("SRP_CMD: empty data descriptor\n");
				return -EINVAL;
			}
			total += l;
		}
		if (total > SRPT_MAX_DATA) {
			srpt_err("SRP_CMD: %llu bytes of data, more than %u\n",
				 total, SRPT_MAX_DATA);
			return -E2BIG;
		}
		if (fmt == SRP_DATA_DESC_INDIRECT && sum != total) {
			srpt_err("SRP_CMD: total length %llu, descriptors %llu\n",
				 sum, total);
			return -EINVAL;
		}
		*data_len = total;
	}
	cmd->rw_wrs = 0;
	cmd->rw_dir = *dir == DMA_TO_DEVICE ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	ret = srpt_map_descs(ch, cmd, d, n, cmd->rw_dir);
	if (ret) {
		srpt_err("SRP_CMD: cannot map %u bytes: %d\n", *data_len, ret);
		return ret;
	}
	*sg = cmd->rw[0].sg;
	for (i = 0; i < cmd->n_rw; i++)
		*nents += cmd->rw[i].nents;
	return 0;

short_iu:
	srpt_err("SRP_CMD: descriptor past the IU (%u bytes)\n", len);
	return -EINVAL;
}

static void srpt_handle_cmd(struct srpt_ch *ch, struct srpt_rx *rx,
			    struct srpt_cmd *cmd, u32 len)
{
	struct srp_cmd *sc = rx->buf;
	enum dma_data_direction dir = DMA_NONE;
	struct scatterlist *sg;
	unsigned int nents;
	u32 data_len;
	int ret;

	if (len < sizeof(*sc)) {
		srpt_err("SRP_CMD of %u bytes\n", len);
		goto busy;
	}
	ret = srpt_parse_data(ch, cmd, rx, len, &dir, &data_len, &sg, &nents);
	if (ret)
		goto busy;

	cmd->lio = true;
	ret = target_init_cmd(&cmd->se, ch->sess, cmd->sense,
			      scsilun_to_int(&sc->lun), data_len,
			      srpt_attr_map[sc->task_attr & 7], dir,
			      TARGET_SCF_ACK_KREF);
	if (ret) {
		/* the session is stopping: nobody waits for an answer */
		cmd->lio = false;
		if (!cmd->held_rx)
			srpt_post_rx(ch, rx);
		srpt_cmd_put(cmd);
		return;
	}
	cmd->se.tag = cmd->tag;
	ret = target_submit_prep(&cmd->se, sc->cdb, sg, nents, NULL, 0, NULL,
				 0, GFP_KERNEL);
	/* the CDB is copied: unless it holds the data, the IU is free */
	if (!cmd->held_rx)
		srpt_post_rx(ch, rx);
	if (ret)
		return;		/* LIO answered it */
	target_submit(&cmd->se);
	return;

busy:
	srpt_release_data(cmd);
	cmd->held_rx = NULL;
	srpt_post_rx(ch, rx);
	srpt_send_rsp(cmd, SAM_STAT_BUSY, NULL, 0, -1);
}

/* The task management functions SRP defines, as LIO knows them. */
static const struct {
	u8 srp;
	u8 lio;
} srpt_tmf_map[] = {
	{ SRP_TSK_ABORT_TASK, TMR_ABORT_TASK },
	{ SRP_TSK_ABORT_TASK_SET, TMR_ABORT_TASK_SET },
	{ SRP_TSK_CLEAR_TASK_SET, TMR_CLEAR_TASK_SET },
	{ SRP_TSK_LUN_RESET, TMR_LUN_RESET },
	{ SRP_TSK_CLEAR_ACA, TMR_CLEAR_ACA },
};

static int srpt_tmr_type(u8 func)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(srpt_tmf_map); i++)
		if (srpt_tmf_map[i].srp == func)
			return srpt_tmf_map[i].lio;
	return -1;
}

static void srpt_handle_tmf(struct srpt_ch *ch, struct srpt_rx *rx,
			    struct srpt_cmd *cmd, u32 len)
{
	struct srp_tsk_mgmt *tm = rx->buf;
	struct scsi_lun lun;
	u64 task_tag;
	int type, ret;

	if (len < sizeof(*tm)) {
		srpt_err("SRP_TSK_MGMT of %u bytes\n", len);
		srpt_post_rx(ch, rx);
		srpt_send_rsp(cmd, 0, NULL, 0, SRPT_TMF_FAILED);
		return;
	}
	type = srpt_tmr_type(tm->tsk_mgmt_func);
	lun = tm->lun;
	task_tag = tm->task_tag;
	cmd->tmf_func = tm->tsk_mgmt_func;
	srpt_post_rx(ch, rx);
	if (type < 0) {
		srpt_err("unsupported task management function 0x%02x\n",
			 cmd->tmf_func);
		srpt_send_rsp(cmd, 0, NULL, 0, SRPT_TMF_NOT_SUPPORTED);
		return;
	}
	cmd->is_tmf = true;
	cmd->lio = true;
	ret = target_submit_tmr(&cmd->se, ch->sess, NULL, scsilun_to_int(&lun),
				NULL, type, GFP_KERNEL, task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		cmd->lio = false;
		srpt_send_rsp(cmd, 0, NULL, 0, SRPT_TMF_FAILED);
	}
}

static void srpt_handle_iu(struct srpt_ch *ch, struct srpt_rx *rx, u32 len)
{
	struct srpt_cmd *cmd;
	u8 op = *(u8 *)rx->buf;

	if (len < SRPT_IU_TAG_END) {
		srpt_err("%s: information unit of %u bytes dropped\n",
			 ch->sess_name, len);
		atomic_inc(&ch->dropped);
		srpt_drop_iu(ch, rx);
		return;
	}
	switch (op) {
	case SRP_CMD:
	case SRP_TSK_MGMT:
		cmd = srpt_cmd_get(ch);
		if (!cmd) {
			srpt_err("%s: no command slot: the initiator exceeds its credits\n",
				 ch->sess_name);
			atomic_inc(&ch->dropped);
			srpt_drop_iu(ch, rx);
			return;
		}
		cmd->tag = ((struct srp_cmd *)rx->buf)->tag;
		if (op == SRP_CMD)
			srpt_handle_cmd(ch, rx, cmd, len);
		else
			srpt_handle_tmf(ch, rx, cmd, len);
		return;
	case SRP_CRED_RSP:
	case SRP_AER_RSP:
		/* answers to requests we never send; they use no credit */
		srpt_post_rx(ch, rx);
		return;
	case SRP_I_LOGOUT:
		srpt_err("Not yet implemented: SRP_I_LOGOUT\n");
		break;
	case SRP_RSP:
		srpt_err("Received SRP_RSP\n");
		break;
	default:
		srpt_err("received IU with unknown opcode 0x%x\n", op);
		break;
	}
	atomic_inc(&ch->dropped);
	srpt_drop_iu(ch, rx);
}

void srpt_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rx *rx = container_of(wc->wr_cqe, struct srpt_rx, cqe);
	/* an SRQ's buffer tells its channel by the QP it came on */
	struct srpt_ch *ch = rx->ch ? rx->ch : wc->qp ? wc->qp->qp_context : NULL;

	if (!ch) {
		srpt_err("SRQ receive without its QP dropped\n");
		srpt_srq_post(rx);
		return;
	}
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			srpt_err("%s: receive failed: %s\n", ch->sess_name,
				 ib_wc_status_msg(wc->status));
		if (rx->srq)
			srpt_srq_post(rx);
		srpt_ch_close(ch);
		return;
	}
	ib_dma_sync_single_for_cpu(ch->sdev->ibdev, rx->dma,
				   srpt_max_req_size, DMA_FROM_DEVICE);
	if (READ_ONCE(ch->dead)) {
		/* a shared buffer goes back; a channel's own dies with it */
		if (rx->srq)
			srpt_srq_post(rx);
		return;
	}
	srpt_handle_iu(ch, rx, min_t(u32, wc->byte_len, srpt_max_req_size));
}
