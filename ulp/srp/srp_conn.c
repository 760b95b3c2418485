// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: one SRP channel over rdma_cm. The thread that connects (an
 * add_target write, the rport's reconnect) does the work: the CM handler
 * only records what happened and wakes it, so nothing it allocates can race
 * with a teardown after a timeout (rdma_destroy_id waits for a running
 * handler, and the handler touches nothing after it).
 *
 * SRP over RDMA/CM carries the login in the connect's private data, in the
 * 56-byte layout that fills what rdma_cm leaves of an IB CM REQ; the target
 * answers with SRP_LOGIN_RSP in the accept, or SRP_LOGIN_REJ in the reject.
 */
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "srp.h"

/* What the handler saw, for the waiting thread. */
static void srp_cm_report(struct srp_chan *ch, int status)
{
	ch->status = status;
	complete(&ch->done);
}

static void srp_cm_rejected(struct srp_chan *ch, struct rdma_cm_event *ev)
{
	const struct srp_login_rej *rej = ev->param.conn.private_data;
	struct srp_target *t = ch->target;

	if (rej && ev->param.conn.private_data_len >= sizeof(*rej) &&
	    rej->opcode == SRP_LOGIN_REJ) {
		u32 reason = be32_to_cpu(rej->reason);

		if (reason == SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE)
			shost_printk(KERN_WARNING, t->shost,
				     "requested max_it_iu_len too large\n");
		else
			shost_printk(KERN_WARNING, t->shost,
				     "SRP LOGIN from %pI6 to %pISpc REJECTED, reason 0x%08x\n",
				     t->sgid.raw, &t->dest, reason);
	} else if (ev->status > 0) {
		shost_printk(KERN_WARNING, t->shost, "REJ reason 0x%x (%s)\n",
			     ev->status, rdma_reject_msg(ch->cm_id, ev->status));
	} else {
		shost_printk(KERN_WARNING, t->shost, "connection rejected (%d)\n",
			     ev->status);
	}
	srp_cm_report(ch, -ECONNRESET);
}

static int srp_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct srp_chan *ch = id->context;
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rdma_resolve_route(id, SRP_CM_TIMEOUT_MS);
		if (ret)
			srp_cm_report(ch, ret);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		srp_cm_report(ch, 0);
		break;
	case RDMA_CM_EVENT_ESTABLISHED: {
		u8 len = ev->param.conn.private_data_len;

		len = min_t(u8, len, sizeof(ch->login_rsp));
		memset(ch->login_rsp, 0, sizeof(ch->login_rsp));
		if (ev->param.conn.private_data)
			memcpy(ch->login_rsp, ev->param.conn.private_data, len);
		ch->login_rsp_len = len;
		ch->connected = true;
		srp_cm_report(ch, 0);
		break;
	}
	case RDMA_CM_EVENT_REJECTED:
		srp_cm_rejected(ch, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		srp_cm_report(ch, ev->status < 0 ? ev->status : -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		srp_chan_error(ch);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* the remove path destroys the id; rdma_cm waits for it */
		srp_chan_error(ch);
		srp_cm_report(ch, -ENODEV);
		srp_queue_remove(ch->target);
		break;
	default:
		break;
	}
	return 0;
}

/* A transport error on a live channel: the rport blocks and reconnects. */
void srp_chan_error(struct srp_chan *ch)
{
	struct srp_target *t = ch->target;
	unsigned long flags;
	bool was_live;

	spin_lock_irqsave(&ch->lock, flags);
	was_live = ch->live;
	ch->live = false;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (was_live)
		queue_work(system_long_wq, &t->tl_err_work);
}

static int srp_wait(struct srp_chan *ch)
{
	if (!wait_for_completion_timeout(&ch->done,
					 msecs_to_jiffies(SRP_LOGIN_WAIT_MS)))
		return -ETIMEDOUT;
	return ch->status;
}

static void srp_iu_free(struct srp_chan *ch, struct srp_iu *iu,
			enum dma_data_direction dir)
{
	if (!iu->buf)
		return;
	ib_dma_unmap_single(ch->target->port->sdev->ibdev, iu->dma, iu->size,
			    dir);
	kfree(iu->buf);
	iu->buf = NULL;
}

static int srp_iu_alloc(struct srp_chan *ch, struct srp_iu *iu, u32 size,
			enum dma_data_direction dir)
{
	struct ib_device *dev = ch->target->port->sdev->ibdev;

	iu->buf = kzalloc(size, GFP_KERNEL);
	if (!iu->buf)
		return -ENOMEM;
	iu->dma = ib_dma_map_single(dev, iu->buf, size, dir);
	if (ib_dma_mapping_error(dev, iu->dma)) {
		kfree(iu->buf);
		iu->buf = NULL;
		return -ENOMEM;
	}
	iu->size = size;
	iu->ch = ch;
	return 0;
}

static void srp_rings_free(struct srp_chan *ch)
{
	unsigned int i;

	if (ch->tx) {
		for (i = 0; i < ch->target->tx_count; i++)
			srp_iu_free(ch, &ch->tx[i], DMA_TO_DEVICE);
		kfree(ch->tx);
		ch->tx = NULL;
	}
	if (ch->rx) {
		for (i = 0; i < ch->nr_rx; i++)
			srp_iu_free(ch, &ch->rx[i], DMA_FROM_DEVICE);
		kfree(ch->rx);
		ch->rx = NULL;
	}
	ch->nr_rx = 0;
	INIT_LIST_HEAD(&ch->tx_free);
	ch->tx_nfree = 0;
	if (ch->mrs) {
		for (i = 0; i < ch->target->tx_count; i++)
			if (ch->mrs[i].mr)
				ib_dereg_mr(ch->mrs[i].mr);
		kfree(ch->mrs);
		ch->mrs = NULL;
	}
	INIT_LIST_HEAD(&ch->mr_free);
}

static int srp_tx_alloc(struct srp_chan *ch)
{
	struct srp_target *t = ch->target;
	struct srp_dev *sd = t->port->sdev;
	unsigned int i;
	int ret;

	ch->tx = kcalloc(t->tx_count, sizeof(*ch->tx), GFP_KERNEL);
	if (!ch->tx)
		return -ENOMEM;
	for (i = 0; i < t->tx_count; i++) {
		ret = srp_iu_alloc(ch, &ch->tx[i], t->req_it_iu_len,
				   DMA_TO_DEVICE);
		if (ret)
			return ret;
		ch->tx[i].cqe.done = srp_send_done;
		list_add_tail(&ch->tx[i].node, &ch->tx_free);
		ch->tx_nfree++;
	}
	if (!t->fr)
		return 0;
	ch->mrs = kcalloc(t->tx_count, sizeof(*ch->mrs), GFP_KERNEL);
	if (!ch->mrs)
		return -ENOMEM;
	for (i = 0; i < t->tx_count; i++) {
		struct ib_mr *mr = ib_alloc_mr(sd->pd, IB_MR_TYPE_MEM_REG,
					       sd->mr_pages);

		if (IS_ERR(mr))
			return PTR_ERR(mr);
		ch->mrs[i].mr = mr;
		list_add_tail(&ch->mrs[i].node, &ch->mr_free);
	}
	return 0;
}

static int srp_rx_alloc(struct srp_chan *ch)
{
	unsigned int i, n = ch->target->tx_count;
	int ret;

	ch->rx = kcalloc(n, sizeof(*ch->rx), GFP_KERNEL);
	if (!ch->rx)
		return -ENOMEM;
	ch->nr_rx = n;
	for (i = 0; i < n; i++) {
		ret = srp_iu_alloc(ch, &ch->rx[i], ch->max_ti_iu_len,
				   DMA_FROM_DEVICE);
		if (ret)
			return ret;
		ch->rx[i].cqe.done = srp_recv_done;
		ret = srp_post_recv(ch, &ch->rx[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void srp_qp_event(struct ib_event *ev, void *ctx)
{
	pr_debug(DRV_NAME ": QP event %s (%d)\n", ib_event_msg(ev->event),
		 ev->event);
}

static int srp_qp_create(struct srp_chan *ch)
{
	struct srp_target *t = ch->target;
	struct srp_dev *sd = t->port->sdev;
	const struct ib_device_attr *a = &sd->ibdev->attrs;
	struct ib_qp_init_attr qa = {};
	u32 sq, rq;
	int ret;

	/* a SEND per IU, and with FRWR a REG_MR and a LOCAL_INV per MR */
	sq = t->tx_count * (t->fr ? 4 : 1) + 1;
	sq = min_t(u32, sq, a->max_qp_wr);
	rq = min_t(u32, t->tx_count + 1, a->max_qp_wr);
	ch->cq = ib_alloc_cq(sd->ibdev, ch, sq + rq, ch->comp_vector,
			     IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}
	qa.event_handler = srp_qp_event;
	qa.qp_context = ch;
	qa.send_cq = ch->cq;
	qa.recv_cq = ch->cq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = sq;
	qa.cap.max_recv_wr = rq;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	ret = rdma_create_qp(ch->cm_id, sd->pd, &qa);
	if (ret)
		return ret;
	ch->qp = ch->cm_id->qp;
	return 0;
}

static int srp_send_login(struct srp_chan *ch, bool multi)
{
	struct srp_target *t = ch->target;
	struct srp_login_req_rdma req = {};
	struct rdma_conn_param p = {};

	req.opcode = SRP_LOGIN_REQ;
	req.req_it_iu_len = cpu_to_be32(t->req_it_iu_len);
	req.req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				      SRP_BUF_FORMAT_INDIRECT);
	req.req_flags = multi ? SRP_MULTICHAN_MULTI : SRP_MULTICHAN_SINGLE;
	if (srp_use_imm_data) {
		req.req_flags |= SRP_IMMED_REQUESTED;
		req.imm_data_offset = cpu_to_be16(SRP_IMM_OFFSET);
	}
	memcpy(req.initiator_port_id, t->i_port_id, 16);
	memcpy(req.target_port_id, t->t_port_id, 16);

	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.flow_control = 1;
	p.responder_resources = 4;
	p.initiator_depth = 0;
	p.retry_count = t->tl_retry_count;
	p.rnr_retry_count = 7;
	return rdma_connect(ch->cm_id, &p);
}

/* The accept's SRP_LOGIN_RSP: sizes, credits, immediate data. */
static int srp_login_done(struct srp_chan *ch)
{
	const struct srp_login_rsp *rsp = (const void *)ch->login_rsp;
	struct srp_target *t = ch->target;
	u32 it, ti;

	if (ch->login_rsp_len < sizeof(*rsp) || rsp->opcode != SRP_LOGIN_RSP) {
		shost_printk(KERN_ERR, t->shost,
			     "no SRP_LOGIN_RSP in the accept (%u bytes, opcode 0x%02x)\n",
			     ch->login_rsp_len, ch->login_rsp[0]);
		return -EPROTO;
	}
	it = be32_to_cpu(rsp->max_it_iu_len);
	ti = be32_to_cpu(rsp->max_ti_iu_len);
	if (it < sizeof(struct srp_cmd) + sizeof(struct srp_direct_buf) ||
	    ti < sizeof(struct srp_rsp)) {
		shost_printk(KERN_ERR, t->shost,
			     "login response IU sizes %u/%u too small\n",
			     it, ti);
		return -EPROTO;
	}
	ch->max_it_iu_len = min(it, t->req_it_iu_len);
	/* a response larger than this only loses sense bytes beyond it */
	ch->max_ti_iu_len = min_t(u32, ti, 65536);
	ch->use_imm = srp_use_imm_data &&
		      (rsp->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP) &&
		      ch->max_it_iu_len > SRP_IMM_OFFSET;
	ch->req_lim = be32_to_cpu(rsp->req_lim_delta);
	return 0;
}

/*
 * Connects channel @ch and logs in; the first channel of a target asks the
 * target to drop other channels of this I_T nexus, the others to keep them.
 */
int srp_chan_connect(struct srp_chan *ch, bool multi)
{
	struct srp_target *t = ch->target;
	struct srp_dev *sd = t->port->sdev;
	unsigned long flags;
	int ret;

	ch->live = false;
	ch->connected = false;
	ch->drained = false;
	init_completion(&ch->done);
	ch->cm_id = rdma_create_id(&init_net, srp_cm_handler, ch, RDMA_PS_TCP,
				   IB_QPT_RC);
	if (IS_ERR(ch->cm_id)) {
		ret = PTR_ERR(ch->cm_id);
		ch->cm_id = NULL;
		return ret;
	}
	ret = rdma_resolve_addr(ch->cm_id,
				t->has_src ? (struct sockaddr *)&t->src : NULL,
				(struct sockaddr *)&t->dest, SRP_CM_TIMEOUT_MS);
	if (!ret)
		ret = srp_wait(ch);
	if (ret)
		goto fail;
	if (ch->cm_id->device != sd->ibdev) {
		shost_printk(KERN_ERR, t->shost,
			     "%pISpc is not reached through %s\n",
			     &t->dest, dev_name(&sd->ibdev->dev));
		ret = -EHOSTUNREACH;
		goto fail;
	}
	ret = srp_qp_create(ch);
	if (!ret)
		ret = srp_tx_alloc(ch);
	if (ret)
		goto fail;
	reinit_completion(&ch->done);
	ret = srp_send_login(ch, multi);
	if (!ret)
		ret = srp_wait(ch);
	if (!ret)
		ret = srp_login_done(ch);
	if (!ret)
		ret = srp_rx_alloc(ch);
	if (ret)
		goto fail;
	spin_lock_irqsave(&ch->lock, flags);
	ch->live = true;
	spin_unlock_irqrestore(&ch->lock, flags);
	return 0;
fail:
	srp_chan_free(ch);
	return ret;
}

/*
 * No more traffic on @ch: disconnect, wait for every completion, fail what
 * is still outstanding with @result. The resources stay (srp_chan_free).
 */
void srp_chan_stop(struct srp_chan *ch, int result)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->live = false;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ch->cm_id && ch->connected) {
		rdma_disconnect(ch->cm_id);
		ch->connected = false;
	}
	if (ch->qp && !ch->drained) {
		ib_drain_qp(ch->qp);
		ch->drained = true;
	}
	srp_fail_all(ch->target, ch, result);
	/* a TMF waiting on this channel gets no answer now */
	complete(&ch->tmf_done);
}

/* Everything of @ch, in reverse order of creation. */
void srp_chan_free(struct srp_chan *ch)
{
	srp_chan_stop(ch, DID_RESET << 16);
	srp_rings_free(ch);
	if (ch->qp) {
		rdma_destroy_qp(ch->cm_id);
		ch->qp = NULL;
	}
	if (ch->cq) {
		ib_free_cq(ch->cq);
		ch->cq = NULL;
	}
	if (ch->cm_id) {
		rdma_destroy_id(ch->cm_id);
		ch->cm_id = NULL;
	}
}

/*
 * All channels of a target. Channel 0 failing fails the whole; later ones
 * only lower the count (the stock behaviour), except on a reconnect where
 * the hardware queues already map to all of them.
 */
int srp_target_connect(struct srp_target *t, bool reconnect)
{
	unsigned int i;
	int ret;

	for (i = 0; i < t->nr_ch; i++) {
		ret = srp_chan_connect(&t->ch[i], i > 0);
		if (!ret)
			continue;
		if (i == 0 || reconnect) {
			shost_printk(KERN_ERR, t->shost,
				     "Connection %u/%u to %pISpc failed (%d)\n",
				     i, t->nr_ch, &t->dest, ret);
			while (i--)
				srp_chan_free(&t->ch[i]);
			return ret;
		}
		t->nr_ch = i;
		break;
	}
	return 0;
}

void srp_target_disconnect(struct srp_target *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_ch; i++)
		srp_chan_free(&t->ch[i]);
}
