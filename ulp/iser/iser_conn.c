// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_iser: the RDMA connection under an iSCSI endpoint. rdma_cm resolves,
 * connects and reports; this file owns the connection's verbs resources
 * and their lifetime (iser.h says who holds references).
 *
 * Locking: ic->mutex orders the CM handler, ep_disconnect, stop_conn and the
 * release against each other. rdma_destroy_id() waits for a running
 * handler, so it is never called with ic->mutex held, and the release frees
 * the verbs resources before it: rdma_cm's device removal waits for the
 * destroy, the device must see nothing of ours after it.
 */
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "iser.h"

static void iser_qp_event(struct ib_event *ev, void *ctx)
{
	iser_err("QP event %s (%d)\n", ib_event_msg(ev->event), ev->event);
}

static void iser_fail_work(struct work_struct *w)
{
	iser_conn_fail(container_of(w, struct iser_conn, fail_work));
}

/*
 * Fails the bound iSCSI connection, if any: from process context or a CQ's
 * softirq, never with interrupts off (libiscsi's locks are _bh ones).
 */
void iser_conn_fail(struct iser_conn *ic)
{
	spin_lock_bh(&ic->iconn_lock);
	if (ic->iconn)
		iscsi_conn_failure(ic->iconn, ISCSI_ERR_CONN_FAILED);
	spin_unlock_bh(&ic->iconn_lock);
}

static int iser_login_rx_alloc(struct iser_conn *ic)
{
	u32 len = ISER_HDRS_LEN + ISER_LOGIN_DATA_LEN;
	void *buf = kmalloc(len, GFP_KERNEL);
	u64 dma;

	if (!buf)
		return -ENOMEM;
	dma = ib_dma_map_single(ic->ibdev, buf, len, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ic->ibdev, dma)) {
		kfree(buf);
		return -ENOMEM;
	}
	iser_rx_init(ic, &ic->login_rx, buf, dma, len);
	return 0;
}

/* PD, CQ, QP and the login buffer, once the route is known. */
static int iser_create_res(struct iser_conn *ic)
{
	const struct ib_device_attr *a = &ic->ibdev->attrs;
	struct ib_qp_init_attr qa = {};
	u32 sq = min_t(u32, ISER_SQ_SIZE, a->max_qp_wr);
	u32 rq = min_t(u32, ISER_MAX_CMDS + 2, a->max_qp_wr);
	unsigned int pages;
	int ret;

	if (!(a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS)) {
		iser_err("IB device does not support memory registrations\n");
		return -EOPNOTSUPP;
	}
	pages = DIV_ROUND_UP(iser_max_sectors * 512, PAGE_SIZE) + 1;
	ic->mr_pages = min_t(u32, pages, a->max_fast_reg_page_list_len);
	if (ic->mr_pages < 2)
		return -EOPNOTSUPP;

	ic->pd = ib_alloc_pd(ic->ibdev, 0);
	if (IS_ERR(ic->pd)) {
		ret = PTR_ERR(ic->pd);
		ic->pd = NULL;
		return ret;
	}
	ic->cq_size = sq + rq;
	ic->cq = ib_alloc_cq(ic->ibdev, ic, ic->cq_size, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(ic->cq)) {
		ret = PTR_ERR(ic->cq);
		ic->cq = NULL;
		return ret;
	}
	qa.event_handler = iser_qp_event;
	qa.qp_context = ic;
	qa.send_cq = ic->cq;
	qa.recv_cq = ic->cq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = sq;
	qa.cap.max_recv_wr = rq;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	ret = rdma_create_qp(ic->cm_id, ic->pd, &qa);
	if (ret)
		return ret;
	ic->qp = ic->cm_id->qp;
	/* one send entry stays free for ib_drain_qp() */
	atomic_set(&ic->sq_credits, sq - 1);
	ret = iser_login_rx_alloc(ic);
	if (ret)
		return ret;
	spin_lock_bh(&ic->post_lock);
	ic->post_ok = true;
	spin_unlock_bh(&ic->post_lock);
	return 0;
}

static void iser_rx_ring_free(struct iser_conn *ic)
{
	if (!ic->rx)
		return;
	ib_dma_unmap_single(ic->ibdev, ic->rx[0].dma,
			    ic->nr_rx * ic->rx[0].len, DMA_FROM_DEVICE);
	kfree(ic->rx_bufs);
	kfree(ic->rx);
	ic->rx = NULL;
	ic->rx_bufs = NULL;
	ic->nr_rx = 0;
}

static void iser_slots_free(struct iser_conn *ic)
{
	unsigned int i;

	if (!ic->slots)
		return;
	/* tasks that still own a slot only unmap and let go from now on */
	iser_slots_release_all(ic);
	for (i = 0; i < ic->nr_slots; i++)
		if (ic->slots[i].mr)
			ib_dereg_mr(ic->slots[i].mr);
	kfree(ic->slots);
	ic->slots = NULL;
	ic->nr_slots = 0;
}

/* Moves the QP to error and waits until every completion was handled. */
static void iser_drain(struct iser_conn *ic)
{
	spin_lock_bh(&ic->post_lock);
	ic->post_ok = false;
	spin_unlock_bh(&ic->post_lock);
	if (ic->qp && !ic->drained) {
		ib_drain_qp(ic->qp);
		ic->drained = true;
	}
}

/* Every verbs resource, in reverse order of creation (ic->mutex held). */
static void iser_free_res(struct iser_conn *ic)
{
	iser_drain(ic);
	if (ic->qp) {
		ib_destroy_qp(ic->qp);
		ic->qp = NULL;
		if (ic->cm_id)
			ic->cm_id->qp = NULL;
	}
	iser_slots_free(ic);
	iser_rx_ring_free(ic);
	if (ic->login_rx.buf) {
		ib_dma_unmap_single(ic->ibdev, ic->login_rx.dma,
				    ic->login_rx.len, DMA_FROM_DEVICE);
		kfree(ic->login_rx.buf);
		ic->login_rx.buf = NULL;
	}
	if (ic->cq) {
		ib_free_cq(ic->cq);
		ic->cq = NULL;
	}
	if (ic->pd) {
		ib_dealloc_pd(ic->pd);
		ic->pd = NULL;
	}
}

static void iser_set_state(struct iser_conn *ic, enum iser_state s, int err)
{
	ic->state = s;
	if (err && !ic->error)
		ic->error = err;
	wake_up_all(&ic->waitq);
}

static int iser_connect(struct iser_conn *ic)
{
	struct rdma_conn_param p = {};
	struct iser_cm_hdr hdr = {};

	/* real virtual addresses; the target may invalidate our rkeys */
	hdr.flags = ISER_ZBVA_NOT_SUP;
	p.private_data = &hdr;
	p.private_data_len = sizeof(hdr);
	p.responder_resources = ic->ibdev->attrs.max_qp_rd_atom;
	p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 6;
	return rdma_connect_locked(ic->cm_id, &p);
}

static void iser_established(struct iser_conn *ic,
			     const struct rdma_cm_event *ev)
{
	const struct iser_cm_hdr *h = ev->param.conn.private_data;

	/* No private data in the accept: a target that never invalidates. */
	ic->remote_inv = ev->param.conn.private_data_len >= sizeof(*h) &&
			 !(h->flags & ISERT_SEND_W_INV_NOT_USED);
	iser_set_state(ic, ISER_UP, 0);
}

/*
 * The device goes away. Unbound, the connection gives everything back now
 * and asks rdma_cm to destroy its id (return 1); bound, the iSCSI layer's
 * own cleanup (ep_disconnect, stop_conn) releases it, and rdma_cm waits.
 */
static int iser_device_removal(struct iser_conn *ic)
{
	bool bound;

	iser_conn_fail(ic);
	spin_lock_bh(&ic->iconn_lock);
	bound = ic->iconn;
	spin_unlock_bh(&ic->iconn_lock);
	if (ic->state == ISER_CONNECTING)
		iser_set_state(ic, ISER_FAILED, -ENODEV);
	else
		iser_set_state(ic, ISER_DOWN, -ENODEV);
	if (bound || ic->slots) {
		iser_drain(ic);
		return 0;
	}
	iser_free_res(ic);
	ic->cm_id = NULL;
	return 1;
}

static int iser_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct iser_conn *ic = id->context;
	int ret = 0, destroy = 0;

	iser_dbg(2, "%s (%d) status %d\n", rdma_event_msg(ev->event),
		 ev->event, ev->status);
	mutex_lock(&ic->mutex);
	if (!ic->cm_id)
		goto out;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (ic->state != ISER_CONNECTING)
			break;
		ret = rdma_resolve_route(id, ISER_CM_TIMEOUT_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (ic->state != ISER_CONNECTING)
			break;
		ic->ibdev = id->device;
		ret = iser_create_res(ic);
		if (!ret)
			ret = iser_connect(ic);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ic->state == ISER_CONNECTING)
			iser_established(ic, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		ret = ev->status < 0 ? ev->status : -ECONNREFUSED;
		if (ev->event == RDMA_CM_EVENT_REJECTED) {
			/* IB/RoCE give a CM reason, iWARP an errno */
			if (ev->status > 0)
				iser_err("rejected: %s\n",
					 rdma_reject_msg(id, ev->status));
			else
				iser_err("rejected (%d)\n", ev->status);
			ret = -ECONNREFUSED;
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (ic->state == ISER_UP) {
			iser_set_state(ic, ISER_DOWN, -ECONNRESET);
			iser_conn_fail(ic);
		}
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		destroy = iser_device_removal(ic);
		break;
	default:
		break;
	}
	if (ret) {
		if (ic->state == ISER_CONNECTING)
			iser_set_state(ic, ISER_FAILED, ret < 0 ? ret : -EIO);
		else
			iser_conn_fail(ic);
	}
out:
	mutex_unlock(&ic->mutex);
	return destroy;
}

struct iser_conn *iser_conn_create(struct sockaddr *dst)
{
	struct iser_conn *ic;
	int ret;

	ic = kzalloc(sizeof(*ic), GFP_KERNEL);
	if (!ic)
		return ERR_PTR(-ENOMEM);
	kref_init(&ic->ref);
	mutex_init(&ic->mutex);
	init_waitqueue_head(&ic->waitq);
	spin_lock_init(&ic->iconn_lock);
	spin_lock_init(&ic->mr_lock);
	spin_lock_init(&ic->post_lock);
	ic->state = ISER_CONNECTING;
	ic->reg_cqe.done = iser_reg_done;
	INIT_WORK(&ic->fail_work, iser_fail_work);

	ic->cm_id = rdma_create_id(&init_net, iser_cm_handler, ic, RDMA_PS_TCP,
				   IB_QPT_RC);
	if (IS_ERR(ic->cm_id)) {
		ret = PTR_ERR(ic->cm_id);
		kfree(ic);
		return ERR_PTR(ret);
	}
	ret = rdma_resolve_addr(ic->cm_id, NULL, dst, ISER_CM_TIMEOUT_MS);
	if (ret) {
		mutex_lock(&ic->mutex);
		iser_set_state(ic, ISER_FAILED, ret);
		mutex_unlock(&ic->mutex);
	}
	return ic;
}

static void iser_conn_release(struct kref *ref)
{
	struct iser_conn *ic = container_of(ref, struct iser_conn, ref);
	struct rdma_cm_id *id;

	cancel_work_sync(&ic->fail_work);
	mutex_lock(&ic->mutex);
	iser_free_res(ic);
	id = ic->cm_id;
	ic->cm_id = NULL;	/* a handler still running does nothing */
	mutex_unlock(&ic->mutex);
	if (id)
		rdma_destroy_id(id);
	kfree(ic);
}

/* Process context: the last put frees the verbs resources. */
void iser_conn_put(struct iser_conn *ic)
{
	might_sleep();
	kref_put(&ic->ref, iser_conn_release);
}

/* ep_poll: 1 connected, 0 still connecting after @timeout_ms, or <0. */
int iser_conn_wait(struct iser_conn *ic, int timeout_ms)
{
	long t;

	t = wait_event_interruptible_timeout(ic->waitq,
					     ic->state != ISER_CONNECTING,
					     msecs_to_jiffies(timeout_ms));
	if (t < 0)
		return t;
	switch (READ_ONCE(ic->state)) {
	case ISER_UP:
		return 1;
	case ISER_CONNECTING:
		return 0;
	default:
		return ic->error ? ic->error : -ENOTCONN;
	}
}

/*
 * No more traffic: disconnect, drain, and forget the iSCSI connection.
 * After this no completion runs and no task can be sent here; the tasks'
 * MRs stay until the last reference goes (process context).
 */
void iser_conn_terminate(struct iser_conn *ic)
{
	mutex_lock(&ic->mutex);
	if (ic->state == ISER_UP && ic->cm_id)
		rdma_disconnect(ic->cm_id);
	if (ic->state == ISER_CONNECTING)
		iser_set_state(ic, ISER_FAILED, -ECONNABORTED);
	else if (ic->state == ISER_UP)
		iser_set_state(ic, ISER_DOWN, 0);
	iser_drain(ic);
	spin_lock_bh(&ic->iconn_lock);
	ic->iconn = NULL;
	spin_unlock_bh(&ic->iconn_lock);
	mutex_unlock(&ic->mutex);
}

/* Receive buffers and MRs for @cmds commands (bind_conn, process context). */
int iser_conn_bind_resources(struct iser_conn *ic, unsigned int cmds)
{
	u32 len = ISER_HDRS_LEN + ISER_RX_DATA_LEN;
	unsigned int i;
	u64 dma;
	int ret = 0;

	cmds = min_t(unsigned int, cmds, ISER_MAX_CMDS);
	mutex_lock(&ic->mutex);
	if (ic->state != ISER_UP || !ic->qp) {
		ret = -ENOTCONN;
		goto out;
	}
	if (!ic->rx) {
		ic->rx = kcalloc(cmds, sizeof(*ic->rx), GFP_KERNEL);
		ic->rx_bufs = kcalloc(cmds, len, GFP_KERNEL);
		if (!ic->rx || !ic->rx_bufs)
			goto nomem;
		dma = ib_dma_map_single(ic->ibdev, ic->rx_bufs, cmds * len,
					DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ic->ibdev, dma))
			goto nomem;	/* nothing of the ring is mapped */
		for (i = 0; i < cmds; i++)
			iser_rx_init(ic, &ic->rx[i], ic->rx_bufs + i * len,
				     dma + i * len, len);
		ic->nr_rx = cmds;
	}
	if (!ic->slots) {
		ic->slots = kcalloc(cmds, sizeof(*ic->slots), GFP_KERNEL);
		if (!ic->slots) {
			ret = -ENOMEM;
			goto out;
		}
		ic->nr_slots = cmds;
		for (i = 0; i < cmds; i++) {
			struct ib_mr *mr = ib_alloc_mr(ic->pd, IB_MR_TYPE_MEM_REG,
						       ic->mr_pages);

			if (IS_ERR(mr)) {
				ret = PTR_ERR(mr);
				iser_slots_free(ic);
				goto out;
			}
			ic->slots[i].mr = mr;
		}
	}
	goto out;
nomem:
	kfree(ic->rx_bufs);
	kfree(ic->rx);
	ic->rx = NULL;
	ic->rx_bufs = NULL;
	ret = -ENOMEM;
out:
	mutex_unlock(&ic->mutex);
	return ret;
}
