// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client's connection: rdma_cm address and route resolution, the PD,
 * CQs, QP and inline buffers of one endpoint, the CM private data of
 * RFC 8797, the connect worker, and teardown.
 *
 * An endpoint is built whole by the connect worker and destroyed whole by
 * ->close (or ->destroy): a reconnect starts from nothing, so it may use
 * another device, and a failed connect leaves nothing behind.
 */
#include <linux/module.h>
#include <linux/slab.h>

#include "rpcrdma.h"
#include "xprt_rdma.h"

static struct workqueue_struct *rpcrdma_conn_wq;

int rpcrdma_conn_init(void)
{
	/* reconnects may be what frees memory (NFS writeback) */
	rpcrdma_conn_wq = alloc_workqueue("rpcrdma_connect",
					  WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	return rpcrdma_conn_wq ? 0 : -ENOMEM;
}

void rpcrdma_conn_exit(void)
{
	destroy_workqueue(rpcrdma_conn_wq);
}

/*
 * The connection is unusable: have sunrpc close it (->close runs from its
 * autoclose work). Flushed completions only echo a close already under
 * way, so they are not news.
 */
void rpcrdma_conn_broken(struct rpcrdma_ep *ep, const char *what, int status)
{
	if (atomic_xchg(&ep->broken, 1))
		return;
	if (status)
		pr_info("rpcrdma: %s on %pISpc failed (%d), disconnecting\n",
			what, &ep->rx->xprt.addr, status);
	xprt_force_disconnect(&ep->rx->xprt);
}

/* ---- inline buffers ---------------------------------------------------- */

struct rpcrdma_sbuf *rpcrdma_sbuf_get(struct rpcrdma_ep *ep)
{
	struct rpcrdma_sbuf *sb;

	spin_lock(&ep->sbuf_lock);
	sb = list_first_entry_or_null(&ep->sbuf_free, struct rpcrdma_sbuf,
				      node);
	if (sb)
		list_del(&sb->node);
	spin_unlock(&ep->sbuf_lock);
	return sb;
}

void rpcrdma_sbuf_put(struct rpcrdma_ep *ep, struct rpcrdma_sbuf *sb)
{
	spin_lock(&ep->sbuf_lock);
	list_add(&sb->node, &ep->sbuf_free);
	spin_unlock(&ep->sbuf_lock);
}

static void rpcrdma_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_sbuf *sb = container_of(wc->wr_cqe,
					       struct rpcrdma_sbuf, cqe);
	struct rpcrdma_ep *ep = sb->ep;

	/* the call was copied into @sb: nothing else waits for this */
	rpcrdma_sbuf_put(ep, sb);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rpcrdma_conn_broken(ep, "send", -EIO);
}

int rpcrdma_post_recv(struct rpcrdma_ep *ep, struct rpcrdma_rbuf *rb)
{
	ib_dma_sync_single_for_device(ep->device, rb->dma, ep->recv_size,
				      DMA_FROM_DEVICE);
	return ib_post_recv(ep->id->qp, &rb->wr, NULL);
}

static void rpcrdma_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_rbuf *rb = container_of(wc->wr_cqe,
					       struct rpcrdma_rbuf, cqe);
	struct rpcrdma_ep *ep = rb->ep;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			rpcrdma_conn_broken(ep, "receive", -EIO);
		return;
	}
	ib_dma_sync_single_for_cpu(ep->device, rb->dma, ep->recv_size,
				   DMA_FROM_DEVICE);
	rpcrdma_reply_received(ep, rb->buf, wc);
	/* the reply was copied out: the buffer goes straight back */
	if (rpcrdma_post_recv(ep, rb))
		rpcrdma_conn_broken(ep, "receive repost", -EIO);
}

static void rpcrdma_bufs_free(struct rpcrdma_ep *ep)
{
	struct ib_device *dev = ep->device;
	unsigned int i;

	for (i = 0; i < ep->nr_rbufs; i++) {
		rpcrdma_unmap_buf(dev, ep->recv_size, DMA_FROM_DEVICE,
				  ep->rbufs[i].buf, ep->rbufs[i].dma);
	}
	kfree(ep->rbufs);
	ep->rbufs = NULL;
	ep->nr_rbufs = 0;
	for (i = 0; i < ep->nr_sbufs; i++) {
		rpcrdma_unmap_buf(dev, ep->send_size, DMA_TO_DEVICE,
				  ep->sbufs[i].buf, ep->sbufs[i].dma);
	}
	kfree(ep->sbufs);
	ep->sbufs = NULL;
	ep->nr_sbufs = 0;
	INIT_LIST_HEAD(&ep->sbuf_free);
}

/* nr_sbufs/nr_rbufs count only buffers fully set up, for bufs_free */
static int rpcrdma_bufs_alloc(struct rpcrdma_ep *ep, unsigned int nr_send,
			      unsigned int nr_recv)
{
	struct ib_device *dev = ep->device;
	u32 lkey = ep->pd->local_dma_lkey;
	unsigned int i;

	ep->sbufs = kcalloc(nr_send, sizeof(*ep->sbufs), GFP_KERNEL);
	ep->rbufs = kcalloc(nr_recv, sizeof(*ep->rbufs), GFP_KERNEL);
	if (!ep->sbufs || !ep->rbufs)
		goto err;
	for (i = 0; i < nr_send; i++) {
		struct rpcrdma_sbuf *sb = &ep->sbufs[i];

		if (rpcrdma_map_buf(dev, ep->send_size, DMA_TO_DEVICE,
				    &sb->buf, &sb->dma))
			goto err;
		sb->ep = ep;
		sb->cqe.done = rpcrdma_send_done;
		sb->sge.addr = sb->dma;
		sb->sge.lkey = lkey;
		sb->wr.wr_cqe = &sb->cqe;
		sb->wr.sg_list = &sb->sge;
		sb->wr.num_sge = 1;
		sb->wr.opcode = IB_WR_SEND;
		sb->wr.send_flags = IB_SEND_SIGNALED;
		list_add_tail(&sb->node, &ep->sbuf_free);
		ep->nr_sbufs++;
	}
	for (i = 0; i < nr_recv; i++) {
		struct rpcrdma_rbuf *rb = &ep->rbufs[i];

		if (rpcrdma_map_buf(dev, ep->recv_size, DMA_FROM_DEVICE,
				    &rb->buf, &rb->dma))
			goto err;
		rb->ep = ep;
		rb->cqe.done = rpcrdma_recv_done;
		rb->sge.addr = rb->dma;
		rb->sge.length = ep->recv_size;
		rb->sge.lkey = lkey;
		rb->wr.wr_cqe = &rb->cqe;
		rb->wr.sg_list = &rb->sge;
		rb->wr.num_sge = 1;
		ep->nr_rbufs++;
	}
	return 0;

err:
	rpcrdma_bufs_free(ep);
	return -ENOMEM;
}

/* ---- rdma_cm ------------------------------------------------------------ */

static void rpcrdma_cm_finish(struct rpcrdma_ep *ep, int status)
{
	ep->cm_status = status;
	complete(&ep->cm_done);
}

static void rpcrdma_save_peer_priv(struct rpcrdma_ep *ep,
				   const struct rdma_conn_param *param)
{
	const struct rpcrdma_connect_private *pp = param->private_data;

	/* anything else means the RFC 8166 default sizes */
	if (pp && param->private_data_len >= sizeof(*pp) &&
	    pp->cp_magic == rpcrdma_cmp_magic &&
	    pp->cp_version == RPCRDMA_CMP_VERSION) {
		ep->peer_priv = *pp;
		ep->peer_priv_valid = true;
	}
}

/*
 * Runs under the id's handler lock. Until the connection is up it only
 * reports to the connect worker; afterwards a lost connection or device
 * is handed to sunrpc, whose ->close tears the endpoint down (never here:
 * destroying the id from its own handler would deadlock).
 */
static int rpcrdma_cm_handler(struct rdma_cm_id *id,
			      struct rdma_cm_event *ev)
{
	struct rpcrdma_ep *ep = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rpcrdma_cm_finish(ep, 0);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		rpcrdma_cm_finish(ep, -EPROTO);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		rpcrdma_cm_finish(ep, -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rpcrdma_save_peer_priv(ep, &ev->param.conn);
		ep->established = true;
		rpcrdma_cm_finish(ep, 0);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
		rpcrdma_cm_finish(ep, -ENETUNREACH);
		break;
	case RDMA_CM_EVENT_REJECTED:
		rpcrdma_cm_finish(ep, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rpcrdma_cm_finish(ep, -ENOTCONN);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_info("rpcrdma: removing device %s for %pISpc\n",
			ep->device ? ep->device->name : "?",
			&ep->rx->xprt.addr);
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (ep->established)
			rpcrdma_conn_broken(ep, NULL, 0);
		else
			rpcrdma_cm_finish(ep, -ECONNABORTED);
		break;
	default:
		break;
	}
	return 0;
}

/* wait for the event the last rdma_cm call asked for */
static int rpcrdma_cm_wait(struct rpcrdma_ep *ep, unsigned long timeout)
{
	if (!wait_for_completion_timeout(&ep->cm_done, timeout))
		return -ETIMEDOUT;
	return ep->cm_status;
}

static int rpcrdma_resolve(struct rpcrdma_ep *ep)
{
	struct rpc_xprt *xprt = &ep->rx->xprt;
	unsigned long wait = msecs_to_jiffies(RPCRDMA_RESOLVE_MS) + 5 * HZ;
	int err;

	reinit_completion(&ep->cm_done);
	err = rdma_resolve_addr(ep->id, NULL, (struct sockaddr *)&xprt->addr,
				RPCRDMA_RESOLVE_MS);
	if (err)
		return err;
	err = rpcrdma_cm_wait(ep, wait);
	if (err)
		return err;
	reinit_completion(&ep->cm_done);
	err = rdma_resolve_route(ep->id, RPCRDMA_RESOLVE_MS);
	if (err)
		return err;
	return rpcrdma_cm_wait(ep, wait);
}

/* FRWR is how chunks get registered; 6.1 refuses devices without it */
static int rpcrdma_check_device(struct ib_device *dev)
{
	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    !dev->attrs.max_fast_reg_page_list_len) {
		pr_err("rpcrdma: 'frwr' mode is not supported by device %s\n",
		       dev->name);
		return -EINVAL;
	}
	if (dev->attrs.max_send_sge < 3) {
		pr_err("rpcrdma: HCA provides only %u send SGEs\n",
		       dev->attrs.max_send_sge);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Send work requests a request may have queued at once: REG_MR for each
 * MR, the SEND, LOCAL_INV for each MR.
 */
#define RPCRDMA_WRS_PER_REQ		(1 + 2 * RPCRDMA_REQ_MAX_MRS)

static unsigned int rpcrdma_send_wrs(struct rpcrdma_ep *ep)
{
	return ep->nr_sbufs * RPCRDMA_WRS_PER_REQ;
}

/* one slot per credit, trimmed until the queues fit the device */
static void rpcrdma_size_queues(struct rpcrdma_ep *ep)
{
	const struct ib_device_attr *attrs = &ep->device->attrs;
	int room = min(attrs->max_qp_wr, attrs->max_cqe) - 1;
	int fit = room / RPCRDMA_WRS_PER_REQ - RPCRDMA_EXTRA_SENDS;

	fit = min(fit, room - RPCRDMA_EXTRA_RECVS);
	ep->max_requests = ep->rx->max_requests;
	if (fit < (int)ep->max_requests)
		ep->max_requests = max(fit, RPCRDMA_MIN_SLOTS);
	ep->send_size = clamp_t(unsigned int,
				READ_ONCE(rpcrdma_max_inline_write),
				RPCRDMA_MIN_INLINE, RPCRDMA_MAX_INLINE);
	ep->recv_size = clamp_t(unsigned int,
				READ_ONCE(rpcrdma_max_inline_read),
				RPCRDMA_MIN_INLINE, RPCRDMA_MAX_INLINE);
}

static void rpcrdma_qp_event(struct ib_event *event, void *context)
{
	struct rpcrdma_ep *ep = context;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_DEVICE_FATAL:
		rpcrdma_conn_broken(ep, ib_event_msg(event->event), -EIO);
		break;
	default:
		break;
	}
}

static int rpcrdma_create_qp(struct rpcrdma_ep *ep)
{
	struct ib_qp_init_attr attr = {
		.event_handler	= rpcrdma_qp_event,
		.qp_context	= ep,
		.send_cq	= ep->scq,
		.recv_cq	= ep->rcq,
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
	};

	/* one more of each for ib_drain_qp()'s marker */
	attr.cap.max_send_wr = rpcrdma_send_wrs(ep) + 1;
	attr.cap.max_recv_wr = ep->nr_rbufs + 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return rdma_create_qp(ep->id, ep->pd, &attr);
}

static int rpcrdma_post_all_recvs(struct rpcrdma_ep *ep)
{
	unsigned int i;
	int err;

	for (i = 0; i < ep->nr_rbufs; i++) {
		err = rpcrdma_post_recv(ep, &ep->rbufs[i]);
		if (err)
			return err;
	}
	return 0;
}

static int rpcrdma_cm_connect(struct rpcrdma_ep *ep)
{
	const struct ib_device_attr *attrs = &ep->device->attrs;
	struct rdma_conn_param param = {
		.private_data		= &ep->our_priv,
		.private_data_len	= sizeof(ep->our_priv),
		.initiator_depth	= 0,
		.responder_resources	= min(attrs->max_qp_rd_atom, 255),
		.retry_count		= 6,
		.rnr_retry_count	= 0,
		.flow_control		= 0,
	};
	int err;

	ep->our_priv.cp_magic = rpcrdma_cmp_magic;
	ep->our_priv.cp_version = RPCRDMA_CMP_VERSION;
	ep->our_priv.cp_flags = RPCRDMA_CMP_F_SND_W_INV_OK;
	ep->our_priv.cp_send_size = rpcrdma_encode_buffer_size(ep->send_size);
	ep->our_priv.cp_recv_size = rpcrdma_encode_buffer_size(ep->recv_size);

	reinit_completion(&ep->cm_done);
	err = rdma_connect(ep->id, &param);
	if (err)
		return err;
	return rpcrdma_cm_wait(ep, RPCRDMA_CONNECT_WAIT);
}

/* inline limits are the smaller of ours and the peer's (RFC 8797) */
static void rpcrdma_set_inline(struct rpcrdma_ep *ep)
{
	unsigned int peer_recv = RPCRDMA_V1_DEF_INLINE_SIZE;
	unsigned int peer_send = RPCRDMA_V1_DEF_INLINE_SIZE;

	if (ep->peer_priv_valid) {
		peer_recv = rpcrdma_decode_buffer_size(ep->peer_priv.cp_recv_size);
		peer_send = rpcrdma_decode_buffer_size(ep->peer_priv.cp_send_size);
	}
	ep->inline_send = min(ep->send_size, peer_recv);
	ep->inline_recv = min(ep->recv_size, peer_send);
	/* what the backchannel can offer a session (bc_maxpayload) */
	WRITE_ONCE(ep->rx->bc_inline, min(ep->inline_send, ep->inline_recv));
}

/* drain and destroy the QP: after this no completion handler runs */
static void rpcrdma_qp_close(struct rpcrdma_ep *ep)
{
	ib_drain_qp(ep->id->qp);
	rdma_destroy_qp(ep->id);
}

static struct rpcrdma_ep *rpcrdma_ep_open(struct rpcrdma_xprt *rx)
{
	struct rpc_xprt *xprt = &rx->xprt;
	struct rpcrdma_ep *ep;
	struct ib_device *dev;
	int err;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->rx = rx;
	init_completion(&ep->cm_done);
	spin_lock_init(&ep->sbuf_lock);
	INIT_LIST_HEAD(&ep->sbuf_free);
	spin_lock_init(&ep->mr_lock);
	INIT_LIST_HEAD(&ep->mr_free);
	INIT_LIST_HEAD(&ep->mr_all);

	ep->id = rdma_create_id(xprt->xprt_net, rpcrdma_cm_handler, ep,
				RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(ep->id)) {
		err = PTR_ERR(ep->id);
		goto err_free;
	}
	err = rpcrdma_resolve(ep);
	if (err)
		goto err_id;
	/* kept: the id's device may be gone from it before teardown ends */
	ep->device = dev = ep->id->device;
	err = rpcrdma_check_device(dev);
	if (err)
		goto err_id;
	rpcrdma_size_queues(ep);

	ep->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ep->pd)) {
		err = PTR_ERR(ep->pd);
		goto err_id;
	}
	err = rpcrdma_bufs_alloc(ep, ep->max_requests + RPCRDMA_EXTRA_SENDS,
				 ep->max_requests + RPCRDMA_EXTRA_RECVS);
	if (err)
		goto err_pd;
	/* fewer MRs than asked for only makes chunked calls wait for one */
	if (rpcrdma_mrs_create(ep, ep->max_requests * RPCRDMA_MRS_PER_SLOT) <
	    ep->max_requests * RPCRDMA_MRS_PER_SLOT)
		pr_info_once("rpcrdma: fewer FRWR MRs than slots on %s\n",
			     dev->name);
	/* failed unsignaled WRs complete too: room for all of them */
	ep->scq = ib_alloc_cq_any(dev, ep, rpcrdma_send_wrs(ep) + 1,
				  IB_POLL_WORKQUEUE);
	if (IS_ERR(ep->scq)) {
		err = PTR_ERR(ep->scq);
		goto err_bufs;
	}
	ep->rcq = ib_alloc_cq_any(dev, ep, ep->nr_rbufs + 1, IB_POLL_WORKQUEUE);
	if (IS_ERR(ep->rcq)) {
		err = PTR_ERR(ep->rcq);
		goto err_scq;
	}
	err = rpcrdma_create_qp(ep);
	if (err)
		goto err_rcq;
	err = rpcrdma_post_all_recvs(ep);
	if (err)
		goto err_qp;
	err = rpcrdma_cm_connect(ep);
	if (err)
		goto err_connect;
	rpcrdma_set_inline(ep);
	return ep;

err_connect:
	/* a connect given up on may still be in flight: stop the CM first */
	rdma_disconnect(ep->id);
err_qp:
	rpcrdma_qp_close(ep);
err_rcq:
	ib_free_cq(ep->rcq);
err_scq:
	ib_free_cq(ep->scq);
err_bufs:
	rpcrdma_mrs_destroy(ep);
	rpcrdma_bufs_free(ep);
err_pd:
	ib_dealloc_pd(ep->pd);
err_id:
	rdma_destroy_id(ep->id);
err_free:
	kfree(ep);
	return ERR_PTR(err);
}

/*
 * Caller holds XPRT_LOCKED (->close, ->destroy) so no sender uses the
 * endpoint. Sleeps.
 */
void rpcrdma_ep_destroy(struct rpcrdma_xprt *rx)
{
	struct rpcrdma_ep *ep;

	/* buf_free may be invalidating a request's MRs on this endpoint */
	mutex_lock(&rx->ep_mutex);
	ep = rx->ep;
	if (!ep) {
		mutex_unlock(&rx->ep_mutex);
		return;
	}
	rx->ep = NULL;
	spin_lock(&rx->stats_lock);
	rx->srcaddr.ss_family = AF_UNSPEC;
	spin_unlock(&rx->stats_lock);

	/* completions flushed from here on are expected, not news */
	atomic_set(&ep->broken, 1);
	rdma_disconnect(ep->id);
	rpcrdma_qp_close(ep);
	/* requests still holding MRs of this endpoint now know them gone */
	rx->ep_gen++;
	mutex_unlock(&rx->ep_mutex);
	ib_free_cq(ep->rcq);
	ib_free_cq(ep->scq);
	rpcrdma_mrs_destroy(ep);
	rpcrdma_bufs_free(ep);
	ib_dealloc_pd(ep->pd);
	rdma_destroy_id(ep->id);
	kfree(ep);
}

/* ---- the connect worker ------------------------------------------------- */

static void rpcrdma_connect_worker(struct work_struct *work)
{
	struct rpcrdma_xprt *rx = container_of(to_delayed_work(work),
					       struct rpcrdma_xprt,
					       connect_work);
	struct rpc_xprt *xprt = &rx->xprt;
	struct rpcrdma_ep *ep;
	int status;

	/* a close that raced with an earlier attempt left nothing behind */
	WARN_ON_ONCE(rx->ep);

	ep = rpcrdma_ep_open(rx);
	if (IS_ERR(ep)) {
		status = PTR_ERR(ep);
	} else {
		mutex_lock(&rx->ep_mutex);
		rx->ep = ep;
		mutex_unlock(&rx->ep_mutex);
		spin_lock(&rx->stats_lock);
		memcpy(&rx->srcaddr, &ep->id->route.addr.src_addr,
		       sizeof(rx->srcaddr));
		spin_unlock(&rx->stats_lock);

		spin_lock(&xprt->transport_lock);
		/* one credit until the server's first reply grants more */
		xprt->cwnd = RPC_CWNDSCALE;
		spin_unlock(&xprt->transport_lock);
		rx->was_connected = true;
		xprt->stat.connect_count++;
		xprt->stat.connect_time += (long)jiffies -
					   xprt->stat.connect_start;
		xprt_set_connected(xprt);
		/* callers go round again and find the transport connected */
		status = -EAGAIN;
	}
	xprt_clear_connecting(xprt);
	xprt_unlock_connect(xprt, rx);
	xprt_wake_pending_tasks(xprt, status);
}

void rpcrdma_conn_setup(struct rpcrdma_xprt *rx)
{
	INIT_DELAYED_WORK(&rx->connect_work, rpcrdma_connect_worker);
}

void rpcrdma_conn_schedule(struct rpcrdma_xprt *rx, unsigned long delay)
{
	queue_delayed_work(rpcrdma_conn_wq, &rx->connect_work, delay);
}

void rpcrdma_conn_cancel(struct rpcrdma_xprt *rx)
{
	cancel_delayed_work_sync(&rx->connect_work);
}
