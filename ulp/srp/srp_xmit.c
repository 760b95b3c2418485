// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: SCSI commands as SRP_CMD IUs, their responses, and the SCSI error
 * handler's task management.
 *
 * Data descriptors: with fast registration (the default) the whole buffer
 * is one FRWR MR, so one direct descriptor (the host's virt_boundary_mask
 * makes the block layer hand over only page-contiguous lists); without it
 * the global rkey: one direct descriptor, or an indirect table of one
 * direct descriptor per entry, inline in the IU or (allow_ext_sg) in a
 * separate buffer. Small writes go as immediate data when the target
 * offered it at login.
 */
#include <linux/blk-mq.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_tcq.h>

#include "srp.h"

struct srp_map {
	struct ib_reg_wr reg;
	bool use_reg;
	u32 len;			/* bytes of the IU to send */
};

static struct ib_device *srp_ibdev(struct srp_chan *ch)
{
	return ch->target->port->sdev->ibdev;
}

/* An MR whose REG_MR was never posted needs no invalidation. */
static void srp_drop_mr(struct srp_chan *ch, struct srp_priv *priv)
{
	unsigned long flags;

	if (!priv->mr)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&priv->mr->node, &ch->mr_free);
	spin_unlock_irqrestore(&ch->lock, flags);
	priv->mr = NULL;
}

/* Gives back what srp_queuecommand() took (priv->ch already cleared). */
void srp_unmap(struct srp_chan *ch, struct scsi_cmnd *sc)
{
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct ib_device *dev = srp_ibdev(ch);
	unsigned long flags;

	if (priv->iu) {
		srp_iu_release(ch, priv->iu);
		priv->iu = NULL;
	}
	if (priv->mr) {
		struct ib_send_wr inv = {
			.wr_cqe = &ch->reg_cqe,
			.opcode = IB_WR_LOCAL_INV,
			.send_flags = IB_SEND_SIGNALED,
			.ex.invalidate_rkey = priv->mr->mr->rkey,
		};

		spin_lock_irqsave(&ch->lock, flags);
		/* ahead of the MR's next REG_MR on this send queue */
		if (ch->live && ib_post_send(ch->qp, &inv, NULL))
			srp_err_rl("LOCAL_INV could not be posted\n");
		if (ch->mrs)
			list_add_tail(&priv->mr->node, &ch->mr_free);
		spin_unlock_irqrestore(&ch->lock, flags);
		priv->mr = NULL;
	}
	if (priv->ext) {
		ib_dma_unmap_single(dev, priv->ext_dma, priv->ext_len,
				    DMA_TO_DEVICE);
		kfree(priv->ext);
		priv->ext = NULL;
	}
	if (priv->nents) {
		ib_dma_unmap_sg(dev, scsi_sglist(sc), scsi_sg_count(sc),
				sc->sc_data_direction);
		priv->nents = 0;
	}
}

/* True when @sc was outstanding on @ch and is now the caller's to finish. */
bool srp_claim(struct srp_chan *ch, struct scsi_cmnd *sc)
{
	struct srp_priv *priv = scsi_cmd_priv(sc);
	unsigned long flags;
	bool mine;

	spin_lock_irqsave(&ch->lock, flags);
	mine = priv->ch == ch;
	if (mine)
		priv->ch = NULL;
	spin_unlock_irqrestore(&ch->lock, flags);
	return mine;
}

static void srp_set_fmt(struct srp_cmd *cmd, struct scsi_cmnd *sc, u8 fmt,
			u8 count)
{
	if (sc->sc_data_direction == DMA_TO_DEVICE) {
		cmd->buf_fmt = fmt << 4;
		cmd->data_out_desc_cnt = count;
	} else {
		cmd->buf_fmt = fmt;
		cmd->data_in_desc_cnt = count;
	}
}

static int srp_map_fr(struct srp_chan *ch, struct scsi_cmnd *sc,
		      struct srp_cmd *cmd, struct srp_map *m)
{
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_direct_buf *d = (void *)cmd->add_data;
	struct ib_mr *mr = priv->mr->mr;
	int n;

	n = ib_map_mr_sg(mr, scsi_sglist(sc), priv->nents, NULL, PAGE_SIZE);
	if (n != priv->nents) {
		srp_err_rl("%d of %d S/G entries fit one MR\n", n, priv->nents);
		return -EINVAL;
	}
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	m->reg.wr.opcode = IB_WR_REG_MR;
	m->reg.wr.wr_cqe = &ch->reg_cqe;
	m->reg.wr.send_flags = IB_SEND_SIGNALED;
	m->reg.mr = mr;
	m->reg.key = mr->rkey;
	m->reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_WRITE;
	m->use_reg = true;
	d->va = cpu_to_be64(mr->iova);
	d->key = cpu_to_be32(mr->rkey);
	d->len = cpu_to_be32(mr->length);
	srp_set_fmt(cmd, sc, SRP_DATA_DESC_DIRECT, 1);
	m->len = sizeof(*cmd) + sizeof(*d);
	return 0;
}

/* The global rkey: a direct descriptor, or an indirect table. */
static int srp_map_global(struct srp_chan *ch, struct srp_iu *iu,
			  struct scsi_cmnd *sc, struct srp_cmd *cmd,
			  struct srp_map *m)
{
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_target *t = ch->target;
	u32 rkey = t->port->sdev->global_rkey;
	struct ib_device *dev = srp_ibdev(ch);
	struct srp_indirect_buf *ind = (void *)cmd->add_data;
	struct srp_direct_buf *list;
	struct scatterlist *sg;
	u32 inline_n, room;
	int i;

	if (priv->nents == 1) {
		struct srp_direct_buf *d = (void *)cmd->add_data;

		d->va = cpu_to_be64(sg_dma_address(scsi_sglist(sc)));
		d->key = cpu_to_be32(rkey);
		d->len = cpu_to_be32(sg_dma_len(scsi_sglist(sc)));
		srp_set_fmt(cmd, sc, SRP_DATA_DESC_DIRECT, 1);
		m->len = sizeof(*cmd) + sizeof(*d);
		return 0;
	}
	room = (ch->max_it_iu_len - sizeof(*cmd) - sizeof(*ind)) /
	       sizeof(struct srp_direct_buf);
	inline_n = min(t->cmd_sg_entries, room);
	if (priv->nents <= inline_n) {
		list = ind->desc_list;
		ind->table_desc.va = cpu_to_be64(iu->dma + sizeof(*cmd) +
						 sizeof(*ind));
		m->len = sizeof(*cmd) + sizeof(*ind) +
			 priv->nents * sizeof(*list);
		srp_set_fmt(cmd, sc, SRP_DATA_DESC_INDIRECT, priv->nents);
	} else {
		if (!t->allow_ext_sg)
			return -EINVAL;
		priv->ext_len = priv->nents * sizeof(*list);
		priv->ext = kmalloc(priv->ext_len, GFP_ATOMIC);
		if (!priv->ext)
			return -ENOMEM;
		list = priv->ext;
		ind->table_desc.va = 0;	/* set once mapped, below */
		m->len = sizeof(*cmd) + sizeof(*ind);
		/* no descriptor inline: the target fetches the table */
		srp_set_fmt(cmd, sc, SRP_DATA_DESC_INDIRECT, 0);
	}
	scsi_for_each_sg(sc, sg, priv->nents, i) {
		list[i].va = cpu_to_be64(sg_dma_address(sg));
		list[i].key = cpu_to_be32(rkey);
		list[i].len = cpu_to_be32(sg_dma_len(sg));
	}
	if (priv->ext) {
		priv->ext_dma = ib_dma_map_single(dev, priv->ext, priv->ext_len,
						  DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, priv->ext_dma)) {
			kfree(priv->ext);
			priv->ext = NULL;
			return -ENOMEM;
		}
		ind->table_desc.va = cpu_to_be64(priv->ext_dma);
	}
	ind->table_desc.key = cpu_to_be32(rkey);
	ind->table_desc.len = cpu_to_be32(priv->nents * sizeof(*list));
	ind->len = cpu_to_be32(scsi_bufflen(sc));
	return 0;
}

static bool srp_want_imm(struct srp_chan *ch, struct scsi_cmnd *sc)
{
	u32 len = scsi_bufflen(sc);

	return ch->use_imm && sc->sc_data_direction == DMA_TO_DEVICE &&
	       len && len <= srp_max_imm_data &&
	       SRP_IMM_OFFSET + len <= ch->max_it_iu_len;
}

static int srp_build_cmd(struct srp_chan *ch, struct srp_iu *iu,
			 struct scsi_cmnd *sc, struct srp_map *m)
{
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_target *t = ch->target;
	struct srp_cmd *cmd = iu->buf;

	memset(cmd, 0, sizeof(*cmd) + sizeof(struct srp_indirect_buf));
	cmd->opcode = SRP_CMD;
	cmd->tag = priv->wire_tag;
	int_to_scsilun(sc->device->lun, &cmd->lun);
	memcpy(cmd->cdb, sc->cmnd, min_t(unsigned int, sc->cmd_len, 16));
	m->len = sizeof(*cmd);
	if (!scsi_bufflen(sc) || sc->sc_data_direction == DMA_NONE)
		return 0;
	if (srp_want_imm(ch, sc)) {
		struct srp_imm_buf *imm = (void *)cmd->add_data;
		u32 len = scsi_bufflen(sc);

		imm->len = cpu_to_be32(len);
		if (sg_copy_to_buffer(scsi_sglist(sc), scsi_sg_count(sc),
				      iu->buf + SRP_IMM_OFFSET, len) != len)
			return -EINVAL;
		cmd->buf_fmt = SRP_DATA_DESC_IMM << 4;
		m->len = SRP_IMM_OFFSET + len;
		return 0;
	}
	if (!priv->nents)
		return -EINVAL;
	if (priv->mr)
		return srp_map_fr(ch, sc, cmd, m);
	if (!t->port->sdev->has_global_rkey)
		return -EINVAL;
	return srp_map_global(ch, iu, sc, cmd, m);
}

int srp_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *sc)
{
	struct srp_target *t = host_to_target(shost);
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_map m = {};
	struct srp_chan *ch;
	struct srp_iu *iu;
	unsigned long flags;
	bool reg;
	u32 utag;
	int ret;

	ret = srp_chkready(t->rport);
	if (ret) {
		sc->result = ret;
		scsi_done(sc);
		return 0;
	}
	if (scsi_bufflen(sc) > SRP_MAX_XFER) {
		sc->result = DID_ERROR << 16;
		scsi_done(sc);
		return 0;
	}
	utag = blk_mq_unique_tag(scsi_cmd_to_rq(sc));
	ch = &t->ch[blk_mq_unique_tag_to_hwq(utag) % t->nr_ch];
	priv->ch = NULL;
	priv->iu = NULL;
	priv->mr = NULL;
	priv->ext = NULL;
	priv->nents = 0;

	if (scsi_sg_count(sc) && !srp_want_imm(ch, sc)) {
		priv->nents = ib_dma_map_sg(srp_ibdev(ch), scsi_sglist(sc),
					    scsi_sg_count(sc),
					    sc->sc_data_direction);
		if (!priv->nents)
			return SCSI_MLQUEUE_HOST_BUSY;
	}
	reg = priv->nents && t->fr &&
	      (srp_register_always || priv->nents > 1 ||
	       !t->port->sdev->has_global_rkey);

	spin_lock_irqsave(&ch->lock, flags);
	iu = ch->live ? srp_get_tx(ch, SRP_IU_CMD) : NULL;
	if (iu && reg) {
		priv->mr = list_first_entry_or_null(&ch->mr_free,
						    struct srp_mr, node);
		if (priv->mr)
			list_del(&priv->mr->node);
	}
	ch->seq++;
	priv->wire_tag = (__force u64)cpu_to_be64((u64)(ch->seq & 0x7fffffff) << 32 |
						   utag);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!iu || (reg && !priv->mr))
		goto busy;

	ret = srp_build_cmd(ch, iu, sc, &m);
	if (ret) {
		srp_err_rl("cannot map a %u-byte command: %d\n",
			   scsi_bufflen(sc), ret);
		goto fail;
	}
	spin_lock_irqsave(&ch->lock, flags);
	if (!ch->live) {
		spin_unlock_irqrestore(&ch->lock, flags);
		goto busy;
	}
	priv->ch = ch;
	priv->iu = iu;
	atomic_set(&iu->refs, 2);
	ret = srp_post_send(ch, iu, m.len, m.use_reg ? &m.reg.wr : NULL);
	if (ret) {
		priv->ch = NULL;
		priv->iu = NULL;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret) {
		srp_err_rl("ib_post_send failed: %d\n", ret);
		goto busy;
	}
	return 0;

fail:
	srp_put_tx(ch, iu);
	srp_drop_mr(ch, priv);
	srp_unmap(ch, sc);
	sc->result = DID_ERROR << 16;
	scsi_done(sc);
	return 0;
busy:
	if (iu) {
		spin_lock_irqsave(&ch->lock, flags);
		ch->req_lim++;
		spin_unlock_irqrestore(&ch->lock, flags);
		srp_put_tx(ch, iu);
	}
	srp_drop_mr(ch, priv);
	srp_unmap(ch, sc);
	return SCSI_MLQUEUE_HOST_BUSY;
}

/* An SRP_RSP for a command (srp_recv.c checked it is a whole srp_rsp). */
void srp_complete_rsp(struct srp_chan *ch, struct srp_rsp *rsp, u32 len)
{
	struct srp_target *t = ch->target;
	u64 tag = be64_to_cpu((__force __be64)rsp->tag);
	u32 utag = lower_32_bits(tag);
	struct srp_priv *priv;
	struct scsi_cmnd *sc;
	unsigned long flags;
	bool mine;
	u32 off, n;

	sc = blk_mq_unique_tag_to_hwq(utag) == ch->index ?
	     scsi_host_find_tag(t->shost, utag) : NULL;
	if (!sc) {
		srp_err_rl("Null scmnd for RSP w/tag %#016llx received on ch %u\n",
			   tag, ch->index);
		return;
	}
	priv = scsi_cmd_priv(sc);
	spin_lock_irqsave(&ch->lock, flags);
	mine = priv->ch == ch && priv->wire_tag == rsp->tag;
	if (mine)
		priv->ch = NULL;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!mine) {
		srp_err_rl("stale response w/tag %#016llx on ch %u dropped\n",
			   tag, ch->index);
		return;
	}

	sc->result = rsp->status;
	if (rsp->flags & SRP_RSP_FLAG_SNSVALID) {
		off = be32_to_cpu(rsp->resp_data_len);
		n = min_t(u32, be32_to_cpu(rsp->sense_data_len),
			  SCSI_SENSE_BUFFERSIZE);
		if (off <= len - sizeof(*rsp)) {
			n = min(n, len - (u32)sizeof(*rsp) - off);
			memcpy(sc->sense_buffer, rsp->data + off, n);
		}
	}
	n = 0;
	if (sc->sc_data_direction == DMA_FROM_DEVICE &&
	    (rsp->flags & SRP_RSP_FLAG_DIUNDER))
		n = be32_to_cpu(rsp->data_in_res_cnt);
	else if (sc->sc_data_direction == DMA_TO_DEVICE &&
		 (rsp->flags & SRP_RSP_FLAG_DOUNDER))
		n = be32_to_cpu(rsp->data_out_res_cnt);
	if (n)
		scsi_set_resid(sc, min(n, scsi_bufflen(sc)));
	srp_unmap(ch, sc);
	scsi_done(sc);
}

struct srp_fail_ctx {
	struct srp_chan *only;
	struct scsi_device *sdev;
	int result;
};

static bool srp_fail_one(struct scsi_cmnd *sc, void *data)
{
	struct srp_fail_ctx *ctx = data;
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_chan *ch = READ_ONCE(priv->ch);

	if (!ch || (ctx->only && ch != ctx->only) ||
	    (ctx->sdev && sc->device != ctx->sdev))
		return true;
	if (srp_claim(ch, sc)) {
		srp_unmap(ch, sc);
		sc->result = ctx->result;
		scsi_done(sc);
	}
	return true;
}

/* Finishes the outstanding commands (of channel @only, or all). */
void srp_fail_all(struct srp_target *t, struct srp_chan *only, int result)
{
	struct srp_fail_ctx ctx = { .only = only, .result = result };

	if (!t->host_added)
		return;
	scsi_host_busy_iter(t->shost, srp_fail_one, &ctx);
}

static int srp_send_tmf(struct srp_chan *ch, u64 lun, u8 func, u64 task_tag)
{
	struct srp_target *t = ch->target;
	struct srp_tsk_mgmt *tm;
	unsigned long flags;
	struct srp_iu *iu;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	iu = ch->live ? srp_get_tx(ch, SRP_IU_TMF) : NULL;
	if (!iu) {
		spin_unlock_irqrestore(&ch->lock, flags);
		return -ENOTCONN;
	}
	tm = iu->buf;
	memset(tm, 0, sizeof(*tm));
	tm->opcode = SRP_TSK_MGMT;
	int_to_scsilun(lun, &tm->lun);
	tm->tsk_mgmt_func = func;
	tm->task_tag = task_tag;
	tm->tag = (__force u64)cpu_to_be64(SRP_TAG_TMF | ++t->tmf_seq);
	ch->tmf_tag = tm->tag;
	ch->tmf_status = -1;
	reinit_completion(&ch->tmf_done);
	ret = srp_post_send(ch, iu, sizeof(*tm), NULL);
	if (ret)
		ch->tmf_tag = 0;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret) {
		srp_put_tx(ch, iu);
		return ret;
	}
	wait_for_completion_timeout(&ch->tmf_done,
				    msecs_to_jiffies(SRP_TMF_WAIT_MS));
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->tmf_tag) {
		ch->tmf_tag = 0;	/* no answer: a late one is dropped */
		ret = -ETIMEDOUT;
	} else {
		ret = ch->tmf_status ? -EIO : 0;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

int srp_abort(struct scsi_cmnd *sc)
{
	struct srp_target *t = host_to_target(sc->device->host);
	struct srp_priv *priv = scsi_cmd_priv(sc);
	struct srp_chan *ch = READ_ONCE(priv->ch);
	int ret;

	shost_printk(KERN_ERR, t->shost, "SRP abort called\n");
	if (!ch)
		return SUCCESS;
	ret = srp_send_tmf(ch, sc->device->lun, SRP_TSK_ABORT_TASK,
			   priv->wire_tag);
	if (!ret) {
		/* the target will not answer the command any more */
		if (srp_claim(ch, sc))
			srp_unmap(ch, sc);
		return SUCCESS;
	}
	if (t->rport->state == SRP_RPORT_LOST)
		return FAST_IO_FAIL;
	return FAILED;
}

int srp_reset_device(struct scsi_cmnd *sc)
{
	struct srp_target *t = host_to_target(sc->device->host);
	struct srp_fail_ctx ctx = {
		.sdev = sc->device,
		.result = DID_RESET << 16,
	};

	shost_printk(KERN_ERR, t->shost, "SRP reset_device called\n");
	if (srp_send_tmf(&t->ch[0], sc->device->lun, SRP_TSK_LUN_RESET, 0))
		return FAILED;
	scsi_host_busy_iter(t->shost, srp_fail_one, &ctx);
	return SUCCESS;
}

int srp_reset_host(struct scsi_cmnd *sc)
{
	struct srp_target *t = host_to_target(sc->device->host);

	shost_printk(KERN_ERR, t->shost, "SRP reset_host called\n");
	return srp_reconnect_rport(t->rport) == 0 ? SUCCESS : FAILED;
}
