// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srpt: a channel's life. An RDMA/CM connect request carries the
 * 56-byte login; it is checked, the channel's queues and LIO session made
 * and the SRP_LOGIN_RSP sent as the accept's private data (or an
 * SRP_LOGIN_REJ as the reject's). Whoever wants a channel gone (a
 * disconnect, a QP error, the portal group disabled, the device removed,
 * LIO dropping the ACL) calls srpt_ch_close(); its release work then
 * disconnects, drains the QP, waits for LIO's commands and frees it.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/unaligned.h>
#include <rdma/ib_cm.h>

#include "srpt.h"

static void srpt_release_work(struct work_struct *work);

struct srpt_cmd *srpt_cmd_get(struct srpt_ch *ch)
{
	struct srpt_cmd *cmd = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (!list_empty(&ch->free_cmds)) {
		cmd = list_first_entry(&ch->free_cmds, struct srpt_cmd,
				       free_node);
		list_del_init(&cmd->free_node);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	/* LIO's init leaves fields it reads (flags) as it finds them */
	if (cmd)
		memset(&cmd->se, 0, sizeof(cmd->se));
	return cmd;
}

/* The slot's data and its held receive buffer go back too. */
void srpt_cmd_put(struct srpt_cmd *cmd)
{
	struct srpt_ch *ch = cmd->ch;
	struct srpt_rx *rx = cmd->held_rx;
	unsigned long flags;

	srpt_release_data(cmd);
	cmd->held_rx = NULL;
	if (rx)
		srpt_post_rx(ch, rx);
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&cmd->free_node, &ch->free_cmds);
	spin_unlock_irqrestore(&ch->lock, flags);
}

int srpt_post_rx(struct srpt_ch *ch, struct srpt_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = srpt_max_req_size,
		.lkey = ch->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long flags;
	int ret = -ESHUTDOWN;

	if (rx->srq)
		return srpt_srq_post(rx);
	ib_dma_sync_single_for_device(ch->sdev->ibdev, rx->dma,
				      srpt_max_req_size, DMA_FROM_DEVICE);
	spin_lock_irqsave(&ch->lock, flags);
	if (!ch->dead)
		ret = ib_post_recv(ch->qp, &wr, NULL);
	spin_unlock_irqrestore(&ch->lock, flags);
	return ret;
}

static void srpt_free_bufs(struct srpt_ch *ch)
{
	struct ib_device *ibdev = ch->sdev->ibdev;
	unsigned int i;

	for (i = 0; ch->rx && i < ch->nr_rx; i++) {
		if (!ch->rx[i].buf)
			continue;
		ib_dma_unmap_single(ibdev, ch->rx[i].dma, srpt_max_req_size,
				    DMA_FROM_DEVICE);
		kfree(ch->rx[i].buf);
	}
	kfree(ch->rx);
	ch->rx = NULL;
	for (i = 0; ch->cmds && i < ch->nr_cmds; i++) {
		if (!ch->cmds[i].rsp)
			continue;
		ib_dma_unmap_single(ibdev, ch->cmds[i].rsp_dma, ch->rsp_size,
				    DMA_TO_DEVICE);
		kfree(ch->cmds[i].rsp);
	}
	kvfree(ch->cmds);
	ch->cmds = NULL;
}

static int srpt_alloc_bufs(struct srpt_ch *ch)
{
	struct ib_device *ibdev = ch->sdev->ibdev;
	unsigned int i;

	ch->rx = kcalloc(ch->nr_rx, sizeof(*ch->rx), GFP_KERNEL);
	ch->cmds = kvcalloc(ch->nr_cmds, sizeof(*ch->cmds), GFP_KERNEL);
	if (!ch->rx || !ch->cmds)
		return -ENOMEM;
	for (i = 0; i < ch->nr_rx; i++) {
		struct srpt_rx *rx = &ch->rx[i];

		rx->buf = kmalloc(srpt_max_req_size, GFP_KERNEL);
		if (!rx->buf)
			return -ENOMEM;
		rx->dma = ib_dma_map_single(ibdev, rx->buf, srpt_max_req_size,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, rx->dma)) {
			kfree(rx->buf);
			rx->buf = NULL;
			return -ENOMEM;
		}
		rx->ch = ch;
		rx->cqe.done = srpt_rx_done;
	}
	for (i = 0; i < ch->nr_cmds; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];

		cmd->rsp = kzalloc(ch->rsp_size, GFP_KERNEL);
		if (!cmd->rsp)
			return -ENOMEM;
		cmd->rsp_dma = ib_dma_map_single(ibdev, cmd->rsp, ch->rsp_size,
						 DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, cmd->rsp_dma)) {
			kfree(cmd->rsp);
			cmd->rsp = NULL;
			return -ENOMEM;
		}
		cmd->ch = ch;
		cmd->send_cqe.done = srpt_send_done;
		cmd->read_cqe.done = srpt_read_done;
		list_add_tail(&cmd->free_node, &ch->free_cmds);
	}
	return 0;
}

/* CQ and QP; a send queue the device refuses is halved down to 16. */
static int srpt_create_queues(struct srpt_ch *ch, u32 sq_size)
{
	const struct ib_device_attr *a = &ch->sdev->ibdev->attrs;
	struct ib_qp_init_attr qa;
	int ret;

	for (;;) {
		ch->max_send_wr = min_t(u32, sq_size / 2, a->max_qp_wr);
		/* with an SRQ the credits bound the receives that land here */
		ch->cq_size = 2 * ch->ring + ch->max_send_wr + 2;
		ch->cq = ib_cq_pool_get(ch->sdev->ibdev, ch->cq_size, -1,
					IB_POLL_WORKQUEUE);
		if (IS_ERR(ch->cq)) {
			ret = PTR_ERR(ch->cq);
			ch->cq = NULL;
		} else {
			memset(&qa, 0, sizeof(qa));
			qa.qp_context = ch;
			qa.send_cq = ch->cq;
			qa.recv_cq = ch->cq;
			qa.sq_sig_type = IB_SIGNAL_REQ_WR;
			qa.qp_type = IB_QPT_RC;
			qa.port_num = ch->cm_id->port_num;
			qa.cap.max_send_wr = ch->max_send_wr;
			/* one per descriptor of the commands a channel holds */
			qa.cap.max_rdma_ctxs = min_t(u32, sq_size / 2,
						     2 * ch->nr_cmds);
			qa.cap.max_send_sge = a->max_send_sge;
			if (ch->srq) {
				qa.srq = ch->srq->srq;
			} else {
				qa.cap.max_recv_wr = ch->nr_rx;
				qa.cap.max_recv_sge = 1;
			}
			ret = rdma_create_qp(ch->cm_id, ch->sdev->pd, &qa);
			if (!ret) {
				ch->qp = ch->cm_id->qp;
				atomic_set(&ch->sq_avail,
					   ch->max_send_wr > 2 * SRPT_SQ_RESERVE ?
					   ch->max_send_wr - SRPT_SQ_RESERVE :
					   ch->max_send_wr / 2);
				return 0;
			}
			ib_cq_pool_put(ch->cq, ch->cq_size);
			ch->cq = NULL;
		}
		if (sq_size <= 16)
			return ret;
		sq_size = max_t(u32, sq_size / 2, 16);
	}
}

static void srpt_destroy_queues(struct srpt_ch *ch)
{
	if (ch->qp)
		rdma_destroy_qp(ch->cm_id);
	ch->qp = NULL;
	if (ch->cq)
		ib_cq_pool_put(ch->cq, ch->cq_size);
	ch->cq = NULL;
}

static void srpt_ch_unlink(struct srpt_ch *ch)
{
	mutex_lock(&srpt_mutex);
	list_del(&ch->node);
	mutex_unlock(&srpt_mutex);
	wake_up_all(&srpt_ch_wait);
}

/*
 * Session name for the ACL lookup: an RDMA/CM login to a port named by
 * GUID is known by the target-side address; one named by GID by the
 * initiator port ID, with and then without "0x".
 */
static int srpt_make_session(struct srpt_ch *ch, enum srpt_name_form form)
{
	struct se_session *sess;
	const char *name = ch->sess_name;

	if (form == SRPT_FORM_GUID)
		snprintf(ch->sess_name, sizeof(ch->sess_name), "%pIS",
			 &ch->cm_id->route.addr.src_addr);
	else
		snprintf(ch->sess_name, sizeof(ch->sess_name), "0x%016llx%016llx",
			 get_unaligned_be64(ch->i_port_id),
			 get_unaligned_be64(ch->i_port_id + 8));
	sess = target_setup_session(&ch->stpg->tpg, 0, 0, TARGET_PROT_NORMAL,
				    name, ch, NULL);
	if (IS_ERR(sess) && form == SRPT_FORM_GID) {
		name += 2;
		sess = target_setup_session(&ch->stpg->tpg, 0, 0,
					    TARGET_PROT_NORMAL, name, ch, NULL);
	}
	if (IS_ERR(sess)) {
		pr_info(SRPT_NAME ": no ACL for initiator %s on target port %s\n",
			ch->sess_name, ch->stpg->swwn->name);
		return PTR_ERR(sess);
	}
	if (name != ch->sess_name)
		memmove(ch->sess_name, name, strlen(name) + 1);
	ch->sess = sess;
	return 0;
}

/* Other channels of this I_T nexus: kept (MULTI) or logged out. */
static u8 srpt_multichannel(struct srpt_ch *ch, u8 req_flags)
{
	struct srpt_ch *o;
	u8 flag = SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
	bool keep = (req_flags & 3) == SRP_MULTICHAN_MULTI;

	mutex_lock(&srpt_mutex);
	list_for_each_entry(o, &srpt_channels, node) {
		if (o == ch || o->stpg != ch->stpg ||
		    memcmp(o->i_port_id, ch->i_port_id, 16) ||
		    memcmp(o->t_port_id, ch->t_port_id, 16))
			continue;
		if (keep) {
			flag = SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
		} else {
			flag = SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
			srpt_ch_close(o);
		}
	}
	mutex_unlock(&srpt_mutex);
	return flag;
}

static struct srpt_tpg *srpt_find_tpg(struct srpt_port *sp,
				      enum srpt_name_form *form)
{
	struct srpt_tpg *stpg;
	int f;

	for (f = 0; f < SRPT_NR_FORMS; f++) {
		if (!sp->wwn[f])
			continue;
		list_for_each_entry(stpg, &sp->wwn[f]->tpgs, node)
			if (stpg->enabled) {
				*form = f;
				return stpg;
			}
	}
	return NULL;
}

static int srpt_reject(struct rdma_cm_id *id, u64 tag, u32 reason)
{
	struct srp_login_rej rej = {
		.opcode = SRP_LOGIN_REJ,
		.reason = cpu_to_be32(reason),
		.tag = tag,
		.buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				       SRP_BUF_FORMAT_INDIRECT),
	};

	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	/* nonzero: rdma_cm destroys the request's id */
	return -ECONNREFUSED;
}

int srpt_login(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct srp_login_req_rdma *req = ev->param.conn.private_data;
	struct rdma_conn_param cp = {};
	struct srp_login_rsp rsp = {};
	union ib_gid gid;
	enum srpt_name_form form = SRPT_FORM_GID;
	struct srpt_port *sp = NULL;
	struct srpt_tpg *stpg = NULL;
	struct srpt_dev *sdev;
	struct srpt_ch *ch;
	u32 it_iu_len, reason, sq_size, rsp_size;
	bool use_srq = false;
	u16 imm_off;
	unsigned int i;
	int ret;

	if (!req || ev->param.conn.private_data_len < sizeof(*req)) {
		srpt_err("login with %u bytes of private data, not %zu\n",
			 ev->param.conn.private_data_len, sizeof(*req));
		return -EINVAL;
	}
	it_iu_len = be32_to_cpu(req->req_it_iu_len);
	if (rdma_query_gid(id->device, id->port_num, 0, &gid))
		memset(&gid, 0, sizeof(gid));
	pr_info(SRPT_NAME " Received SRP_LOGIN_REQ with i_port_id %pI6, t_port_id %pI6 and it_iu_len %d on port %d (guid=%pI6); pkey %#04x\n",
		req->initiator_port_id, req->target_port_id, it_iu_len,
		id->port_num, gid.raw, 0xffff);
	if (req->opcode != SRP_LOGIN_REQ) {
		srpt_err("login request with opcode 0x%02x\n", req->opcode);
		return srpt_reject(id, req->tag, SRPT_REJ_NO_CHANNEL);
	}
	if (it_iu_len < 64 || it_iu_len > srpt_max_req_size) {
		srpt_err("rejected SRP_LOGIN_REQ: it_iu_len %u not in [64, %d]\n",
			 it_iu_len, srpt_max_req_size);
		return srpt_reject(id, req->tag, SRPT_REJ_IU_TOO_LONG);
	}
	if (get_unaligned_be64(req->target_port_id) != srpt_guid ||
	    get_unaligned_be64(req->target_port_id + 8) != srpt_guid) {
		srpt_err("rejected SRP_LOGIN_REQ: t_port_id %pI6 is not ours (0x%016llx)\n",
			 req->target_port_id, srpt_guid);
		return srpt_reject(id, req->tag, SRPT_REJ_NO_NEXUS);
	}

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return srpt_reject(id, req->tag, SRPT_REJ_NO_RESOURCES);
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->free_cmds);
	INIT_WORK(&ch->release_work, srpt_release_work);
	ch->cm_id = id;
	ch->state = SRPT_CH_CONNECTING;
	ch->in_login = true;
	memcpy(ch->i_port_id, req->initiator_port_id, 16);
	memcpy(ch->t_port_id, req->target_port_id, 16);

	mutex_lock(&srpt_mutex);
	list_for_each_entry(sdev, &srpt_devs, node)
		if (sdev->ibdev == id->device && id->port_num >= 1 &&
		    id->port_num <= sdev->nr_ports) {
			sp = &sdev->port[id->port_num - 1];
			stpg = srpt_find_tpg(sp, &form);
			break;
		}
	if (stpg) {
		ch->sdev = sp->sdev;
		ch->sport = sp;
		ch->stpg = stpg;
		sq_size = stpg->sq_size;
		rsp_size = stpg->max_rsp_size;
		use_srq = stpg->use_srq;
		/* immediate data would pin buffers of the shared queue */
		imm_off = use_srq ? 0 : be16_to_cpu(req->imm_data_offset);
		/* from now on disabling the group waits for this login */
		list_add_tail(&ch->node, &srpt_channels);
	}
	mutex_unlock(&srpt_mutex);
	if (!stpg) {
		pr_info(SRPT_NAME ": rejected login: target port %s has not yet been enabled\n",
			sp ? sp->name[SRPT_FORM_GID] : dev_name(&id->device->dev));
		kfree(ch);
		return srpt_reject(id, req->tag, SRPT_REJ_NO_RESOURCES);
	}

	reason = SRPT_REJ_NO_RESOURCES;
	ch->ring = min_t(u32, SRPT_RING_MAX, sp->sdev->ibdev->attrs.max_qp_wr / 2);
	/*
	 * A credit comes back with a response, its slot and receive buffer
	 * only when LIO lets the command go: twice the credits cover both.
	 */
	ch->nr_rx = 2 * ch->ring;
	ch->nr_cmds = 2 * ch->ring;
	if (use_srq) {
		ch->srq = srpt_srq_get(sp->sdev);
		if (!ch->srq)
			goto err_nosrq;
		ch->nr_rx = 0;
	}
	ch->max_ti_iu_len = it_iu_len;
	ch->rsp_size = rsp_size;
	ret = srpt_alloc_bufs(ch);
	if (ret)
		goto err_bufs;
	ret = srpt_create_queues(ch, sq_size);
	if (ret) {
		srpt_err("cannot create the queues of a channel: %d\n", ret);
		goto err_bufs;
	}
	ret = srpt_make_session(ch, form);
	if (ret) {
		if (ret != -ENOMEM)
			reason = SRPT_REJ_CHANNEL_LIMIT;
		goto err_queues;
	}
	for (i = 0; i < ch->nr_rx; i++) {
		ret = srpt_post_rx(ch, &ch->rx[i]);
		if (ret)
			goto err_sess;
	}

	rsp.opcode = SRP_LOGIN_RSP;
	rsp.tag = req->tag;
	rsp.req_lim_delta = cpu_to_be32(ch->ring);
	rsp.max_it_iu_len = cpu_to_be32(srpt_max_req_size);
	rsp.max_ti_iu_len = cpu_to_be32(it_iu_len);
	rsp.buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				  SRP_BUF_FORMAT_INDIRECT);
	rsp.rsp_flags = srpt_multichannel(ch, req->req_flags);
	if ((req->req_flags & SRP_IMMED_REQUESTED) &&
	    imm_off >= sizeof(struct srp_cmd) && imm_off < srpt_max_req_size) {
		ch->imm_offset = imm_off;
		rsp.rsp_flags |= SRP_LOGIN_RSP_IMMED_SUPP;
	}

	cp.private_data = &rsp;
	cp.private_data_len = sizeof(rsp);
	cp.responder_resources = min_t(u32, 4, sp->sdev->ibdev->attrs.max_qp_rd_atom);
	cp.initiator_depth = min_t(u32, 4, sp->sdev->ibdev->attrs.max_qp_init_rd_atom);
	cp.rnr_retry_count = 7;
	cp.flow_control = 1;
	id->context = ch;
	ret = rdma_accept(id, &cp);
	if (ret) {
		srpt_err("rdma_accept: %d\n", ret);
		id->context = NULL;
		goto err_sess_noreject;
	}

	spin_lock_irq(&ch->lock);
	ch->in_login = false;
	if (ch->close_pending) {
		ch->state = SRPT_CH_CLOSING;
		queue_work(srpt_wq, &ch->release_work);
	}
	spin_unlock_irq(&ch->lock);
	pr_info(SRPT_NAME ": accepted login of %s on %s (%u credits%s)\n",
		ch->sess_name, ch->stpg->swwn->name, ch->ring,
		ch->imm_offset ? ", immediate data" : "");
	return 0;

err_sess:
	srpt_reject(id, req->tag, reason);
err_sess_noreject:
	spin_lock_irq(&ch->lock);
	ch->dead = true;
	spin_unlock_irq(&ch->lock);
	/* receives were posted: their flushed completions come first */
	ib_drain_qp(ch->qp);
	target_remove_session(ch->sess);
	srpt_destroy_queues(ch);
	srpt_free_bufs(ch);
	srpt_ch_unlink(ch);
	kfree(ch);
	return -ECONNREFUSED;

err_queues:
	srpt_destroy_queues(ch);
err_nosrq:
err_bufs:
	srpt_free_bufs(ch);
	srpt_ch_unlink(ch);
	kfree(ch);
	return srpt_reject(id, req->tag, reason);
}

int srpt_ch_event(struct srpt_ch *ch, struct rdma_cm_event *ev)
{
	pr_debug(SRPT_NAME ": %s: %s (%d)\n", ch->sess_name,
		 rdma_event_msg(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		spin_lock_irq(&ch->lock);
		if (ch->state == SRPT_CH_CONNECTING)
			ch->state = SRPT_CH_LIVE;
		spin_unlock_irq(&ch->lock);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		srpt_ch_close(ch);
		break;
	default:
		break;
	}
	/* the release work destroys the id */
	return 0;
}

void srpt_ch_close(struct srpt_ch *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->in_login) {
		ch->close_pending = true;
	} else if (ch->state != SRPT_CH_CLOSING) {
		ch->state = SRPT_CH_CLOSING;
		queue_work(srpt_wq, &ch->release_work);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
}

static bool srpt_ch_matches(struct srpt_ch *ch, struct srpt_tpg *stpg,
			    struct srpt_dev *sdev)
{
	return (!stpg || ch->stpg == stpg) && (!sdev || ch->sdev == sdev);
}

/* Closes the channels of a portal group or of a device (NULL: any). */
void srpt_close_matching(struct srpt_tpg *stpg, struct srpt_dev *sdev)
{
	struct srpt_ch *ch;

	mutex_lock(&srpt_mutex);
	list_for_each_entry(ch, &srpt_channels, node)
		if (srpt_ch_matches(ch, stpg, sdev))
			srpt_ch_close(ch);
	mutex_unlock(&srpt_mutex);
}

static bool srpt_any_matching(struct srpt_tpg *stpg, struct srpt_dev *sdev)
{
	struct srpt_ch *ch;
	bool any = false;

	mutex_lock(&srpt_mutex);
	list_for_each_entry(ch, &srpt_channels, node) {
		if (srpt_ch_matches(ch, stpg, sdev)) {
			any = true;
			break;
		}
	}
	mutex_unlock(&srpt_mutex);
	return any;
}

/*
 * Closes the matching channels and sleeps until they are released. The
 * test takes srpt_mutex, which must not happen inside wait_event()'s
 * sleeping state (the debug kernel's might_sleep warning): wait_woken()
 * runs it awake and still sees a release that came in between.
 */
void srpt_close_matching_sync(struct srpt_tpg *stpg, struct srpt_dev *sdev)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	srpt_close_matching(stpg, sdev);
	add_wait_queue(&srpt_ch_wait, &wait);
	while (srpt_any_matching(stpg, sdev))
		wait_woken(&wait, TASK_UNINTERRUPTIBLE, MAX_SCHEDULE_TIMEOUT);
	remove_wait_queue(&srpt_ch_wait, &wait);
}

static void srpt_release_work(struct work_struct *work)
{
	struct srpt_ch *ch = container_of(work, struct srpt_ch, release_work);

	rdma_disconnect(ch->cm_id);
	/* what is posted from here on fails at once; the rest is flushed */
	spin_lock_irq(&ch->lock);
	ch->dead = true;
	spin_unlock_irq(&ch->lock);
	ib_drain_qp(ch->qp);

	target_stop_session(ch->sess);
	target_wait_for_sess_cmds(ch->sess);
	target_remove_session(ch->sess);

	srpt_destroy_queues(ch);
	rdma_destroy_id(ch->cm_id);
	if (atomic_read(&ch->dropped))
		pr_info(SRPT_NAME ": %s: %d information units dropped\n",
			ch->sess_name, atomic_read(&ch->dropped));
	pr_info(SRPT_NAME ": %s logged out of %s\n", ch->sess_name,
		ch->stpg->swwn->name);
	srpt_free_bufs(ch);
	srpt_ch_unlink(ch);
	kfree(ch);
}
