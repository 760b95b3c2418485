// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_iser: send side, called by libiscsi under its session locks (never
 * sleeps). Each PDU is one signaled SEND of the iSER header and the BHS,
 * plus its data: a control PDU's (Login, Text) copied behind the headers,
 * a command's immediate and unsolicited data gathered from its buffer.
 * A command with data registers its buffer with one fast-registration MR;
 * the iSER header names it for the target's RDMA WRITE (read) or RDMA READ
 * of the solicited rest (write, its VA past the unsolicited bytes, as Linux
 * targets expect). The MR is invalidated when the task is freed, unless the
 * target's SEND_WITH_INV did it.
 *
 * Send queue entries are counted (ic->sq_credits): a task takes all it
 * needs, its LOCAL_INV included, before it posts anything, so a command is
 * sent whole or not at all (libiscsi then requeues it).
 */
#include <linux/slab.h>
#include <scsi/scsi_cmnd.h>

#include "iser.h"

static bool iser_take_credits(struct iser_conn *ic, u32 n)
{
	if (atomic_sub_return(n, &ic->sq_credits) >= 0)
		return true;
	atomic_add(n, &ic->sq_credits);
	return false;
}

static void iser_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct iser_tx *tx = container_of(wc->wr_cqe, struct iser_tx, cqe);
	struct iser_conn *ic = tx->ic;

	ib_dma_unmap_single(ic->ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	atomic_inc(&ic->sq_credits);
	if (tx->put_task)
		iscsi_put_task(tx->put_task);
	kfree(tx);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		iser_err("send failed: %s (%d)\n", ib_wc_status_msg(wc->status),
			 wc->status);
		iser_conn_fail(ic);
	}
}

void iser_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct iser_conn *ic = container_of(wc->wr_cqe, struct iser_conn,
					    reg_cqe);

	atomic_inc(&ic->sq_credits);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		iser_err("registration work request failed: %s (%d)\n",
			 ib_wc_status_msg(wc->status), wc->status);
		iser_conn_fail(ic);
	}
}

/* A SEND of the headers and @copy bytes behind them, mapped, unposted. */
static struct iser_tx *iser_tx_new(struct iser_conn *ic, u32 copy)
{
	struct iser_tx *tx;

	tx = kzalloc(struct_size(tx, hdrs, ISER_HDRS_LEN + copy), GFP_ATOMIC);
	if (!tx)
		return NULL;
	tx->cqe.done = iser_tx_done;
	tx->ic = ic;
	tx->len = ISER_HDRS_LEN + copy;
	((struct iser_ctrl *)tx->hdrs)->flags = ISCSI_CTRL;
	return tx;
}

static int iser_tx_map(struct iser_conn *ic, struct iser_tx *tx)
{
	tx->dma = ib_dma_map_single(ic->ibdev, tx->hdrs, tx->len, DMA_TO_DEVICE);
	return ib_dma_mapping_error(ic->ibdev, tx->dma) ? -ENOMEM : 0;
}

static void iser_tx_free(struct iser_conn *ic, struct iser_tx *tx)
{
	if (tx->dma)
		ib_dma_unmap_single(ic->ibdev, tx->dma, tx->len, DMA_TO_DEVICE);
	kfree(tx);
}

/* The BHS behind the iSER header of @tx. */
static void *iser_tx_bhs(struct iser_tx *tx)
{
	return tx->hdrs + sizeof(struct iser_ctrl);
}

/* @tx as a signaled SEND of its headers (and a second, data SGE). */
static void iser_send_wr(struct iser_conn *ic, struct iser_tx *tx, int nsge)
{
	tx->sge[0].addr = tx->dma;
	tx->sge[0].length = tx->len;
	tx->sge[0].lkey = ic->pd->local_dma_lkey;
	tx->wr.next = NULL;
	tx->wr.wr_cqe = &tx->cqe;
	tx->wr.sg_list = tx->sge;
	tx->wr.num_sge = nsge;
	tx->wr.opcode = IB_WR_SEND;
	tx->wr.send_flags = IB_SEND_SIGNALED;
}

/* Frees the SENDs of a chain from @w on (none of them posted). */
static void iser_tx_free_chain(struct iser_conn *ic, struct ib_send_wr *w)
{
	struct ib_send_wr *next;

	for (; w; w = next) {
		next = w->next;
		iser_tx_free(ic, container_of(w, struct iser_tx, wr));
	}
}

/*
 * Posts a chain. A refusal after part of it went out leaves the connection
 * inconsistent: it fails (from a work item: iscsi_conn_failure() takes the
 * frwd_lock the caller holds); the caller frees what was not posted.
 */
static int iser_post(struct iser_conn *ic, struct ib_send_wr *first,
		     const struct ib_send_wr **bad)
{
	int ret = -ENOTCONN;

	*bad = first;
	spin_lock_bh(&ic->post_lock);
	if (ic->post_ok)
		ret = ib_post_send(ic->qp, first, bad);
	spin_unlock_bh(&ic->post_lock);
	if (ret && *bad != first)
		schedule_work(&ic->fail_work);
	return ret;
}

int iser_alloc_pdu(struct iscsi_task *task, u8 opcode)
{
	struct iser_task *it = task->dd_data;

	task->hdr = (struct iscsi_hdr *)it->bhs;
	task->hdr_max = sizeof(it->bhs);
	return 0;
}

int iser_init_task(struct iscsi_task *task)
{
	struct iser_iconn *iic = task->conn->dd_data;
	struct iser_task *it = task->dd_data;

	it->ic = iic->ic;
	it->slot = NULL;
	it->inv_credit = 0;
	it->sent = false;
	return it->ic ? 0 : -ENOTCONN;
}

/* Login, Text, NOP-Out, TMF, Logout: headers and data in one buffer. */
static int iser_xmit_control(struct iscsi_task *task)
{
	struct iser_task *it = task->dd_data;
	struct iser_conn *ic = it->ic;
	u8 op = task->hdr->opcode & ISCSI_OPCODE_MASK;
	const struct ib_send_wr *bad;
	struct iser_tx *tx;
	int ret;

	if (task->hdr_len != ISCSI_HDR_LEN)
		return -EINVAL;
	tx = iser_tx_new(ic, task->data_count);
	if (!tx)
		return -ENOMEM;
	memcpy(iser_tx_bhs(tx), task->hdr, ISCSI_HDR_LEN);
	if (task->data_count)
		memcpy(tx->hdrs + ISER_HDRS_LEN, task->data, task->data_count);
	ret = iser_tx_map(ic, tx);
	if (ret)
		goto free;
	/* the response must find the login buffer, not a small one */
	if ((op == ISCSI_OP_LOGIN || op == ISCSI_OP_TEXT) && !ic->rx_posted) {
		ret = iser_post_login_rx(ic);
		if (ret)
			goto free;
	}
	if (!iser_take_credits(ic, 1)) {
		ret = -ENOBUFS;
		goto free;
	}
	/* libiscsi frees a task that gets no response once it is sent */
	if (task->hdr->itt == RESERVED_ITT)
		tx->put_task = task;
	iser_send_wr(ic, tx, 1);
	ret = iser_post(ic, &tx->wr, &bad);
	if (ret) {
		atomic_inc(&ic->sq_credits);
		goto free;
	}
	return 0;
free:
	iser_tx_free(ic, tx);
	return ret;
}

/* Lets go of @slot: sg unmapped, free for the next task (mr_lock held). */
static void iser_slot_release(struct iser_conn *ic, struct iser_mr_slot *slot)
{
	if (slot->mapped)
		ib_dma_unmap_sg(ic->ibdev, slot->sg, slot->sg_count, slot->dir);
	slot->mapped = false;
	slot->valid = false;
	slot->busy = false;
}

/* A free MR slot with @sc's buffer mapped and loaded into it, or NULL. */
static struct iser_mr_slot *iser_map_task(struct iser_conn *ic,
					  struct scsi_cmnd *sc)
{
	struct iser_mr_slot *slot = NULL;
	unsigned int i;
	int nents, n;

	spin_lock_bh(&ic->mr_lock);
	for (i = 0; i < ic->nr_slots; i++) {
		if (!ic->slots[i].busy) {
			slot = &ic->slots[i];
			slot->busy = true;
			break;
		}
	}
	spin_unlock_bh(&ic->mr_lock);
	if (!slot)
		return NULL;

	slot->sg = scsi_sglist(sc);
	slot->sg_count = scsi_sg_count(sc);
	slot->dir = sc->sc_data_direction;
	nents = ib_dma_map_sg(ic->ibdev, slot->sg, slot->sg_count, slot->dir);
	if (!nents)
		goto release;
	slot->mapped = true;
	/* the host's virt_boundary makes every element but the ends whole pages */
	n = ib_map_mr_sg(slot->mr, slot->sg, nents, NULL, PAGE_SIZE);
	if (n != nents) {
		iser_err("buffer of %u bytes in %d elements does not fit one MR (%d)\n",
			 scsi_bufflen(sc), nents, n);
		goto release;
	}
	/* a new key each time: a late access with the old one fails */
	ib_update_fast_reg_key(slot->mr, ib_inc_rkey(slot->mr->rkey));
	return slot;
release:
	spin_lock_bh(&ic->mr_lock);
	iser_slot_release(ic, slot);
	spin_unlock_bh(&ic->mr_lock);
	return NULL;
}

/*
 * The unsolicited Data-Out PDUs (beyond the immediate data), chained after
 * *@tail. On failure the caller frees the chain and rewinds unsol_r2t.
 */
static int iser_chain_dataouts(struct iscsi_task *task, struct ib_mr *mr,
			       struct ib_send_wr **tail)
{
	struct iser_task *it = task->dd_data;
	struct iscsi_r2t_info *r2t = &task->unsol_r2t;
	struct iser_conn *ic = it->ic;
	struct iser_tx *tx;
	u32 off;

	while (r2t->sent < r2t->data_length) {
		tx = iser_tx_new(ic, 0);
		if (!tx)
			return -ENOMEM;
		off = r2t->data_offset + r2t->sent;
		iscsi_prep_data_out_pdu(task, r2t, iser_tx_bhs(tx));
		if (iser_tx_map(ic, tx)) {
			iser_tx_free(ic, tx);
			return -ENOMEM;
		}
		iser_send_wr(ic, tx, 2);
		tx->sge[1].addr = mr->iova + off;
		tx->sge[1].length = r2t->data_count;
		tx->sge[1].lkey = mr->lkey;
		r2t->sent += r2t->data_count;
		(*tail)->next = &tx->wr;
		*tail = &tx->wr;
	}
	return 0;
}

static int iser_xmit_scsi(struct iscsi_task *task)
{
	struct iser_task *it = task->dd_data;
	struct iser_conn *ic = it->ic;
	struct scsi_cmnd *sc = task->sc;
	struct iscsi_conn *conn = task->conn;
	struct iscsi_r2t_info *r2t = &task->unsol_r2t;
	u32 len = scsi_bufflen(sc), unsol = 0, nout = 0, need, posted;
	bool write = sc->sc_data_direction == DMA_TO_DEVICE;
	u32 saved_sent = r2t->sent, saved_datasn = r2t->datasn;
	struct ib_send_wr *first, *tail, *w;
	const struct ib_send_wr *bad;
	struct ib_reg_wr reg = {};
	struct iser_tx *cmd;
	struct iser_ctrl *ih;
	struct ib_mr *mr = NULL;
	int ret;

	if (task->hdr_len != ISCSI_HDR_LEN)
		return -EINVAL;	/* no AHS: the host takes 16-byte CDBs */
	if (write) {
		unsol = task->imm_count + r2t->data_length;
		if (r2t->data_length > r2t->sent)
			nout = DIV_ROUND_UP(r2t->data_length - r2t->sent,
					    conn->max_xmit_dlength);
	}
	need = 1 + nout + (len ? 2 : 0);
	if (!iser_take_credits(ic, need))
		return -ENOBUFS;
	if (len) {
		it->slot = iser_map_task(ic, sc);
		if (!it->slot) {
			ret = -ENOBUFS;
			goto undo;
		}
		mr = it->slot->mr;
	}

	cmd = iser_tx_new(ic, 0);
	if (!cmd) {
		ret = -ENOMEM;
		goto undo;
	}
	ih = (struct iser_ctrl *)cmd->hdrs;
	memcpy(iser_tx_bhs(cmd), task->hdr, ISCSI_HDR_LEN);
	if (len && !write) {
		ih->flags |= ISER_RSV;
		ih->read_stag = cpu_to_be32(mr->rkey);
		ih->read_va = cpu_to_be64(mr->iova);
	} else if (len > unsol) {
		ih->flags |= ISER_WSV;
		ih->write_stag = cpu_to_be32(mr->rkey);
		ih->write_va = cpu_to_be64(mr->iova + unsol);
	}
	ret = iser_tx_map(ic, cmd);
	if (ret) {
		iser_tx_free(ic, cmd);
		goto undo;
	}
	iser_send_wr(ic, cmd, task->imm_count ? 2 : 1);
	if (task->imm_count) {
		cmd->sge[1].addr = mr->iova;
		cmd->sge[1].length = task->imm_count;
		cmd->sge[1].lkey = mr->lkey;
	}
	tail = &cmd->wr;
	ret = iser_chain_dataouts(task, mr, &tail);
	if (ret) {
		iser_tx_free_chain(ic, &cmd->wr);
		goto undo;
	}

	first = &cmd->wr;
	if (mr) {
		reg.wr.wr_cqe = &ic->reg_cqe;
		reg.wr.opcode = IB_WR_REG_MR;
		reg.wr.send_flags = IB_SEND_SIGNALED;
		reg.wr.next = &cmd->wr;
		reg.mr = mr;
		reg.key = mr->rkey;
		reg.access = IB_ACCESS_LOCAL_WRITE |
			     (write ? IB_ACCESS_REMOTE_READ : IB_ACCESS_REMOTE_WRITE);
		first = &reg.wr;
		it->slot->valid = true;
	}
	ret = iser_post(ic, first, &bad);
	if (ret) {
		/* what went out completes (flushed) and returns its credit */
		posted = 0;
		for (w = first; w != bad; w = w->next)
			posted++;
		need -= posted;
		iser_tx_free_chain(ic, bad == first ? &cmd->wr : (struct ib_send_wr *)bad);
		goto undo;
	}
	if (mr)
		it->inv_credit = 1;
	if (write)
		conn->txdata_octets += unsol;
	it->sent = true;
	return 0;

undo:
	atomic_add(need, &ic->sq_credits);
	r2t->sent = saved_sent;
	r2t->datasn = saved_datasn;
	if (it->slot) {
		spin_lock_bh(&ic->mr_lock);
		iser_slot_release(ic, it->slot);
		spin_unlock_bh(&ic->mr_lock);
		it->slot = NULL;
	}
	return ret;
}

int iser_xmit_task(struct iscsi_task *task)
{
	struct iser_task *it = task->dd_data;

	if (!it->ic)
		return -ENOTCONN;
	if (it->sent)
		return 0;
	return task->sc ? iser_xmit_scsi(task) : iser_xmit_control(task);
}

/*
 * The task is freed (libiscsi, session lock held): its MR is invalidated
 * unless the target did it, and goes back with its buffer unmapped.
 * Without a live QP nothing is posted: the connection's drain already ran.
 */
void iser_cleanup_task(struct iscsi_task *task)
{
	struct iser_task *it = task->dd_data;
	struct iser_mr_slot *slot = it->slot;
	struct iser_conn *ic = it->ic;
	struct ib_send_wr inv = {};
	bool posted = false;

	if (!slot)
		return;
	it->slot = NULL;
	spin_lock_bh(&ic->mr_lock);
	if (slot->valid) {
		inv.wr_cqe = &ic->reg_cqe;
		inv.opcode = IB_WR_LOCAL_INV;
		inv.send_flags = IB_SEND_SIGNALED;
		inv.ex.invalidate_rkey = slot->mr->rkey;
		spin_lock(&ic->post_lock);
		posted = ic->post_ok && !ib_post_send(ic->qp, &inv, NULL);
		spin_unlock(&ic->post_lock);
	}
	iser_slot_release(ic, slot);
	spin_unlock_bh(&ic->mr_lock);
	if (it->inv_credit && !posted)
		atomic_inc(&ic->sq_credits);
	it->inv_credit = 0;
}

/* The target's SEND_WITH_INV invalidated @rkey; false if it is none of ours. */
bool iser_remote_invalidated(struct iser_conn *ic, u32 rkey)
{
	unsigned int i;
	bool found = false;

	spin_lock_bh(&ic->mr_lock);
	for (i = 0; i < ic->nr_slots && !found; i++) {
		struct iser_mr_slot *s = &ic->slots[i];

		if (s->busy && s->valid && s->mr->rkey == rkey) {
			s->valid = false;
			found = true;
		}
	}
	spin_unlock_bh(&ic->mr_lock);
	if (!found)
		iser_err("Bogus remote invalidation for rkey %#x\n", rkey);
	return found;
}

/* At release no task owns a slot any more; say so if one still does. */
void iser_slots_release_all(struct iser_conn *ic)
{
	unsigned int i;

	spin_lock_bh(&ic->mr_lock);
	for (i = 0; i < ic->nr_slots; i++)
		if (WARN_ON_ONCE(ic->slots[i].busy && ic->slots[i].mapped))
			iser_slot_release(ic, &ic->slots[i]);
	spin_unlock_bh(&ic->mr_lock);
}
