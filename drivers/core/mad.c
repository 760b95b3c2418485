// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD layer: a GSI QP (QP1) on every MAD-capable port and an SMI QP
 * (QP0) on InfiniBand ones, kernel MAD agents registered on them,
 * request/response matching by TID, response timeouts with retries, the
 * device's right of first refusal on what arrives, and address handles
 * back to a MAD's sender. Kernel RMPP (segmentation and reassembly) is in
 * mad_rmpp.c, the directed-route rules and local SMPs in mad_smi.c.
 *
 * Handlers run in process context: receive and send completions from the
 * CQ's workqueue, timeouts and cancellations from ib_mad_wq. They may not
 * unregister their own agent.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>

#include "core_priv.h"
#include "mad_priv.h"

LIST_HEAD(ib_mad_port_list);
DEFINE_SPINLOCK(ib_mad_port_list_lock);
static atomic_t ib_mad_client_id = ATOMIC_INIT(0);
struct workqueue_struct *ib_mad_wq;
static struct ib_client mad_client;

static void mad_timeout_work(struct work_struct *work);

/* ------------------------------------------------------------ helpers */

static struct ib_mad_port *mad_find_port(struct ib_device *device,
					 u32 port_num)
{
	struct ib_mad_port *port, *found = NULL;

	spin_lock(&ib_mad_port_list_lock);
	list_for_each_entry(port, &ib_mad_port_list, list) {
		if (port->device == device && port->port_num == port_num) {
			found = port;
			break;
		}
	}
	spin_unlock(&ib_mad_port_list_lock);
	return found;
}

int ib_response_mad(const struct ib_mad_hdr *hdr)
{
	return (hdr->method & IB_MGMT_METHOD_RESP) ||
	       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == IB_MGMT_CLASS_BM &&
		(hdr->attr_mod & IB_BM_ATTR_MOD_RESP));
}
EXPORT_SYMBOL(ib_response_mad);

static bool mad_class_is_vendor2(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

int ib_is_mad_class_rmpp(u8 mgmt_class)
{
	return mgmt_class == IB_MGMT_CLASS_SUBN_ADM ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	       mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	       mgmt_class == IB_MGMT_CLASS_BIS ||
	       mad_class_is_vendor2(mgmt_class);
}
EXPORT_SYMBOL(ib_is_mad_class_rmpp);

int ib_get_mad_data_offset(u8 mgmt_class)
{
	if (mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		return IB_MGMT_SA_HDR;
	if (mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	    mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	    mgmt_class == IB_MGMT_CLASS_BIS)
		return IB_MGMT_DEVICE_HDR;
	if (mad_class_is_vendor2(mgmt_class))
		return IB_MGMT_VENDOR_HDR;
	return IB_MGMT_MAD_HDR;
}
EXPORT_SYMBOL(ib_get_mad_data_offset);

int ib_mad_kernel_rmpp_agent(const struct ib_mad_agent *agent)
{
	return agent->rmpp_version && !(agent->flags & IB_MAD_USER_RMPP);
}
EXPORT_SYMBOL(ib_mad_kernel_rmpp_agent);

/* ------------------------------------------------------------ agents */

static bool reg_req_overlaps(const struct ib_mad_reg_req *a,
			     const struct ib_mad_reg_req *b)
{
	if (a->mgmt_class != b->mgmt_class ||
	    a->mgmt_class_version != b->mgmt_class_version)
		return false;
	if (mad_class_is_vendor2(a->mgmt_class) &&
	    memcmp(a->oui, b->oui, sizeof(a->oui)))
		return false;
	return bitmap_intersects(a->method_mask, b->method_mask,
				 IB_MGMT_MAX_METHODS);
}

static bool mad_class_is_smp(u8 mgmt_class)
{
	return mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	       mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
}

/* What a class registration must look like (SMP classes: QP0 only). */
static bool reg_req_valid(const struct ib_mad_reg_req *req,
			  ib_mad_recv_handler recv_handler, bool smi)
{
	static const u8 zero_oui[3];

	if (!recv_handler || !req->mgmt_class ||
	    mad_class_is_smp(req->mgmt_class) != smi)
		return false;
	/* Range-2 vendor classes are told apart by their OUI. */
	if (mad_class_is_vendor2(req->mgmt_class) &&
	    !memcmp(req->oui, zero_oui, sizeof(zero_oui)))
		return false;
	return true;
}

struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device,
					   u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context,
					   u32 registration_flags)
{
	struct ib_mad_agent_priv *priv, *other;
	bool smi = qp_type == IB_QPT_SMI;
	struct ib_mad_queue *queue;
	struct ib_mad_port *port;
	int ret;

	if (qp_type != IB_QPT_GSI && !smi)
		return ERR_PTR(-EINVAL);
	if (smi && !rdma_cap_ib_smi(device, port_num))
		return ERR_PTR(-EPROTONOSUPPORT);
	if (registration_flags & ~IB_MAD_REG_FLAGS_MASK)
		return ERR_PTR(-EINVAL);
	/* User RMPP needs a class: as upstream, refused for send-only agents. */
	if (!mad_reg_req && (registration_flags & IB_MAD_USER_RMPP))
		return ERR_PTR(-EINVAL);
	if (rmpp_version && (rmpp_version != IB_MGMT_RMPP_VERSION ||
			     (mad_reg_req &&
			      !ib_is_mad_class_rmpp(mad_reg_req->mgmt_class))))
		return ERR_PTR(-EINVAL);
	if (mad_reg_req && !reg_req_valid(mad_reg_req, recv_handler, smi))
		return ERR_PTR(-EINVAL);

	port = mad_find_port(device, port_num);
	if (!port)
		return ERR_PTR(-ENODEV);
	queue = smi ? &port->smi : &port->gsi;
	if (!queue->qp)
		return ERR_PTR(-EPROTONOSUPPORT);

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	if (mad_reg_req) {
		priv->reg_req = kmemdup(mad_reg_req, sizeof(*mad_reg_req),
					GFP_KERNEL);
		if (!priv->reg_req) {
			ret = -ENOMEM;
			goto err_free;
		}
	}
	priv->port = port;
	priv->queue = queue;
	priv->agent.device = device;
	priv->agent.qp = queue->qp;
	priv->agent.recv_handler = recv_handler;
	priv->agent.send_handler = send_handler;
	priv->agent.context = context;
	priv->agent.flags = registration_flags;
	priv->agent.port_num = port_num;
	priv->agent.rmpp_version = rmpp_version;
	INIT_LIST_HEAD(&priv->agent.mad_agent_sec_list);
	spin_lock_init(&priv->lock);
	INIT_LIST_HEAD(&priv->send_list);
	INIT_DELAYED_WORK(&priv->timed_work, mad_timeout_work);
	mad_rmpp_agent_init(priv);
	refcount_set(&priv->refcount, 1);
	init_completion(&priv->comp);

	spin_lock_irq(&port->lock);
	if (port->dying) {
		ret = -ENODEV;
		goto err_unlock;
	}
	if (priv->reg_req) {
		list_for_each_entry(other, &port->agents, port_entry) {
			if (other->queue == queue && other->reg_req &&
			    reg_req_overlaps(other->reg_req, priv->reg_req)) {
				/* As upstream: a method has one owner per port. */
				ret = -EINVAL;
				goto err_unlock;
			}
		}
	}
	/* 0 is never handed out: a TID with zero high bits is unmatched. */
	do {
		priv->agent.hi_tid = atomic_inc_return(&ib_mad_client_id);
	} while (!priv->agent.hi_tid);
	list_add_tail(&priv->port_entry, &port->agents);
	spin_unlock_irq(&port->lock);
	return &priv->agent;

err_unlock:
	spin_unlock_irq(&port->lock);
err_free:
	kfree(priv->reg_req);
	kfree(priv);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_register_mad_agent);

/* ------------------------------------------------------------ sends */

/* Runs the send handler of a finished send and drops its agent ref. */
void mad_complete_send(struct ib_mad_send_wr_priv *wr)
{
	struct ib_mad_agent_priv *priv = wr->agent_priv;
	struct ib_mad_send_wc send_wc = {
		.send_buf = &wr->send_buf,
		.status = wr->status,
	};

	if (wr->rmpp_ctl)
		mad_rmpp_ctl_sent(wr);
	else if (priv->agent.send_handler)
		priv->agent.send_handler(&priv->agent, &send_wc);
	agent_put(priv);
}

/* Make the timeout work run no later than @expires. Agent lock held. */
void mad_arm_timer(struct ib_mad_agent_priv *priv, unsigned long expires)
{
	struct delayed_work *dw = &priv->timed_work;
	long delay = (long)(expires - jiffies);

	if (timer_pending(&dw->timer)) {
		if (time_before_eq(dw->timer.expires, expires))
			return;
	} else if (work_pending(&dw->work)) {
		return;		/* queued to run now */
	}
	mod_delayed_work(ib_mad_wq, dw, delay > 0 ? delay : 0);
}

static void mad_send_done(struct ib_cq *cq, struct ib_wc *wc);

/* Hand a send to the QP, or park it if the send queue is full. Port lock held. */
int mad_post_wr(struct ib_mad_queue *queue, struct ib_mad_send_wr_priv *wr)
{
	struct ib_mad_port *port = queue->port;
	struct ib_device *dev = port->device;
	int ret;

	if (queue->send_count >= IB_MAD_SEND_DEPTH) {
		list_add_tail(&wr->port_list, &queue->send_overflow);
		wr->overflow = true;
		return 0;
	}

	wr->dma_addr = ib_dma_map_single(dev, wr->mad, IB_MGMT_MAD_SIZE,
					 DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, wr->dma_addr))
		return -ENOMEM;
	wr->sge.addr = wr->dma_addr;
	wr->sge.length = IB_MGMT_MAD_SIZE;
	wr->sge.lkey = port->pd->local_dma_lkey;
	wr->cqe.done = mad_send_done;
	memset(&wr->wr, 0, sizeof(wr->wr));
	wr->wr.wr.wr_cqe = &wr->cqe;
	wr->wr.wr.sg_list = &wr->sge;
	wr->wr.wr.num_sge = 1;
	wr->wr.wr.opcode = IB_WR_SEND;
	wr->wr.wr.send_flags = IB_SEND_SIGNALED;
	wr->wr.ah = wr->send_buf.ah;
	wr->wr.remote_qpn = wr->remote_qpn;
	wr->wr.remote_qkey = IB_QP1_QKEY;
	wr->wr.pkey_index = wr->pkey_index;

	ret = ib_post_send(queue->qp, &wr->wr.wr, NULL);
	if (ret) {
		ib_dma_unmap_single(dev, wr->dma_addr, IB_MGMT_MAD_SIZE,
				    DMA_TO_DEVICE);
		return ret;
	}
	queue->send_count++;
	return 0;
}

/*
 * A send (first time or again) to where it goes: the QP, or the SMI's
 * work for what QP0 must not put on the wire as it is. Port lock held.
 */
static int mad_submit_wr(struct ib_mad_queue *queue,
			 struct ib_mad_send_wr_priv *wr)
{
	if (queue->port->dying)
		return -ENODEV;
	if (wr->smi_route != MAD_ROUTE_WIRE) {
		mad_smi_queue_job(queue->port, wr);
		return 0;
	}
	return mad_post_wr(queue, wr);
}

/* The send WR of @wr is finished (completed, failed or flushed). */
void mad_wr_send_completed(struct ib_mad_send_wr_priv *wr,
			   enum ib_wc_status status)
{
	struct ib_mad_agent_priv *priv = wr->agent_priv;
	unsigned long flags;
	bool done = false, next = false;

	spin_lock_irqsave(&priv->lock, flags);
	wr->on_qp = false;
	if (status != IB_WC_SUCCESS) {
		if (wr->status == IB_WC_SUCCESS)
			wr->status = status;
		wr->wait_resp = false;
	} else if (wr->wait_resp && wr->rmpp && mad_rmpp_next_seg(wr)) {
		wr->on_qp = true;	/* the next segment of the window */
		next = true;
	} else if (wr->wait_resp) {
		wr->expires = jiffies + wr->timeout;
		mad_arm_timer(priv, wr->expires);
	}
	if (send_wr_idle(wr)) {
		list_del(&wr->agent_list);
		done = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (next)
		mad_repost(wr);
	if (done)
		mad_complete_send(wr);
}

/* Posts a send again (already marked on_qp); a failure completes it. */
void mad_repost(struct ib_mad_send_wr_priv *wr)
{
	struct ib_mad_queue *queue = wr->agent_priv->queue;
	struct ib_mad_port *port = queue->port;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&port->lock, flags);
	ret = mad_submit_wr(queue, wr);
	spin_unlock_irqrestore(&port->lock, flags);
	if (ret)
		mad_wr_send_completed(wr, IB_WC_GENERAL_ERR);
}

static void mad_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_send_wr_priv *wr =
		container_of(wc->wr_cqe, struct ib_mad_send_wr_priv, cqe);
	struct ib_mad_queue *queue = wr->agent_priv->queue;
	struct ib_mad_port *port = queue->port;
	struct ib_mad_send_wr_priv *next, *tmp;
	LIST_HEAD(failed);
	unsigned long flags;

	ib_dma_unmap_single(port->device, wr->dma_addr, IB_MGMT_MAD_SIZE,
			    DMA_TO_DEVICE);

	/* A send queue slot is free: start parked sends. */
	spin_lock_irqsave(&port->lock, flags);
	queue->send_count--;
	while (queue->send_count < IB_MAD_SEND_DEPTH &&
	       !list_empty(&queue->send_overflow)) {
		next = list_first_entry(&queue->send_overflow,
					struct ib_mad_send_wr_priv, port_list);
		list_del(&next->port_list);
		next->overflow = false;
		if (mad_post_wr(queue, next))
			list_add_tail(&next->port_list, &failed);
	}
	spin_unlock_irqrestore(&port->lock, flags);

	mad_wr_send_completed(wr, wc->status);
	list_for_each_entry_safe(next, tmp, &failed, port_list) {
		list_del(&next->port_list);
		mad_wr_send_completed(next, IB_WC_GENERAL_ERR);
	}
}

struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active,
					   int hdr_len, int data_len,
					   gfp_t gfp_mask,
					   u8 base_version)
{
	struct ib_mad_agent_priv *priv =
		container_of(mad_agent, struct ib_mad_agent_priv, agent);
	struct ib_mad_send_wr_priv *wr;

	if (base_version != IB_MGMT_BASE_VERSION || hdr_len < 0 ||
	    data_len < 0)
		return ERR_PTR(-EINVAL);
	if (rmpp_active) {
		/* Segmented here: the header must hold the RMPP header. */
		if (!ib_mad_kernel_rmpp_agent(mad_agent) ||
		    hdr_len < IB_MGMT_RMPP_HDR || hdr_len >= IB_MGMT_MAD_SIZE)
			return ERR_PTR(-EINVAL);
	} else if (hdr_len + data_len > IB_MGMT_MAD_SIZE) {
		return ERR_PTR(-EINVAL);
	}

	wr = kzalloc(sizeof(*wr), gfp_mask);
	if (!wr)
		return ERR_PTR(-ENOMEM);
	wr->agent_priv = priv;
	wr->remote_qpn = remote_qpn;
	wr->pkey_index = pkey_index;
	INIT_LIST_HEAD(&wr->agent_list);
	INIT_LIST_HEAD(&wr->port_list);
	wr->send_buf.mad = wr->mad;
	wr->send_buf.mad_agent = mad_agent;
	wr->send_buf.hdr_len = hdr_len;
	wr->send_buf.data_len = data_len;
	wr->send_buf.seg_count = 1;
	wr->send_buf.seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	if (rmpp_active && mad_rmpp_alloc_send(wr, gfp_mask)) {
		kfree(wr);
		return ERR_PTR(-ENOMEM);
	}
	/* The agent lives as long as any of its send buffers. */
	agent_get(priv);
	return &wr->send_buf;
}
EXPORT_SYMBOL(ib_create_send_mad);

void ib_free_send_mad(struct ib_mad_send_buf *send_buf)
{
	struct ib_mad_send_wr_priv *wr;
	struct ib_mad_agent_priv *priv;

	if (!send_buf)
		return;
	wr = container_of(send_buf, struct ib_mad_send_wr_priv, send_buf);
	priv = wr->agent_priv;
	kvfree(wr->seg_data);
	kfree(wr);
	agent_put(priv);
}
EXPORT_SYMBOL(ib_free_send_mad);

void *ib_get_rmpp_segment(struct ib_mad_send_buf *send_buf, int seg_num)
{
	struct ib_mad_send_wr_priv *wr =
		container_of(send_buf, struct ib_mad_send_wr_priv, send_buf);

	if (wr->rmpp)
		return mad_rmpp_segment(wr, seg_num);
	if (seg_num != 1)
		return NULL;
	return (u8 *)send_buf->mad + send_buf->hdr_len;
}
EXPORT_SYMBOL(ib_get_rmpp_segment);

static int mad_post_one(struct ib_mad_send_buf *send_buf)
{
	struct ib_mad_send_wr_priv *wr =
		container_of(send_buf, struct ib_mad_send_wr_priv, send_buf);
	struct ib_mad_agent_priv *priv = wr->agent_priv;
	struct ib_mad_queue *queue = priv->queue;
	struct ib_mad_port *port = priv->port;
	unsigned long flags;
	int ret;

	if (!send_buf->mad_agent || !send_buf->ah ||
	    send_buf->timeout_ms < 0 || send_buf->retries < 0)
		return -EINVAL;
	if (send_buf->ah->device != port->device)
		return -EINVAL;

	wr->tid = ((struct ib_mad_hdr *)wr->mad)->tid;
	wr->timeout = msecs_to_jiffies(send_buf->timeout_ms);
	wr->retries_left = send_buf->retries;
	send_buf->retries = 0;
	wr->status = IB_WC_SUCCESS;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->dying || wr->on_qp || wr->wait_resp || wr->in_handler) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return priv->dying ? -ENODEV : -EBUSY;
	}
	/* QP0: the directed-route step, and whether it leaves the node */
	wr->smi_route = MAD_ROUTE_WIRE;
	if (queue == &port->smi) {
		ret = mad_smi_send_route(port, wr);
		if (ret < 0) {
			spin_unlock_irqrestore(&priv->lock, flags);
			return ret;
		}
		wr->smi_route = ret;
	}
	wr->on_qp = true;
	/* An RMPP send waits for its ACKs even without a response. */
	wr->wait_resp = send_buf->timeout_ms > 0 || wr->rmpp;
	if (wr->rmpp)
		mad_rmpp_start_send(wr);
	list_add_tail(&wr->agent_list, &priv->send_list);
	agent_get(priv);
	spin_unlock_irqrestore(&priv->lock, flags);

	spin_lock_irqsave(&port->lock, flags);
	ret = mad_submit_wr(queue, wr);
	spin_unlock_irqrestore(&port->lock, flags);
	if (!ret)
		return 0;

	spin_lock_irqsave(&priv->lock, flags);
	list_del(&wr->agent_list);
	wr->on_qp = false;
	wr->wait_resp = false;
	spin_unlock_irqrestore(&priv->lock, flags);
	agent_put(priv);
	return ret;
}

int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf)
{
	struct ib_mad_send_buf *next;
	int ret;

	/* A posted buffer may complete and be freed at once: read on first. */
	for (; send_buf; send_buf = next) {
		next = send_buf->next;
		ret = mad_post_one(send_buf);
		if (ret) {
			if (bad_send_buf)
				*bad_send_buf = send_buf;
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL(ib_post_send_mad);

int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms)
{
	struct ib_mad_send_wr_priv *wr;
	struct ib_mad_agent_priv *priv;
	unsigned long flags;

	if (!send_buf)
		return -EINVAL;
	wr = container_of(send_buf, struct ib_mad_send_wr_priv, send_buf);
	priv = wr->agent_priv;

	spin_lock_irqsave(&priv->lock, flags);
	if (!wr->wait_resp) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	if (!timeout_ms) {
		/*
		 * Cancel. The caller may hold locks its send handler takes,
		 * so the completion is reported from the timeout work.
		 */
		wr->wait_resp = false;
		wr->status = IB_WC_WR_FLUSH_ERR;
		if (send_wr_idle(wr))
			mod_delayed_work(ib_mad_wq, &priv->timed_work, 0);
	} else {
		wr->timeout = msecs_to_jiffies(timeout_ms);
		send_buf->timeout_ms = timeout_ms;
		if (!wr->on_qp) {
			wr->expires = jiffies + wr->timeout;
			mod_delayed_work(ib_mad_wq, &priv->timed_work, 0);
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_modify_mad);

/*
 * Response timeouts, retries and cancelled sends. Re-arms itself for the
 * earliest remaining expiry.
 */
static void mad_timeout_work(struct work_struct *work)
{
	struct ib_mad_agent_priv *priv =
		container_of(to_delayed_work(work), struct ib_mad_agent_priv,
			     timed_work);
	struct ib_mad_send_wr_priv *wr, *tmp;
	unsigned long now = jiffies, next = 0;
	bool have_next = false;
	LIST_HEAD(resend);
	LIST_HEAD(done);
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(wr, tmp, &priv->send_list, agent_list) {
		if (send_wr_idle(wr)) {
			list_move_tail(&wr->agent_list, &done);
			continue;
		}
		if (!wr->wait_resp || wr->on_qp || wr->in_handler)
			continue;
		if (time_before(now, wr->expires)) {
			if (!have_next || time_before(wr->expires, next))
				next = wr->expires;
			have_next = true;
			continue;
		}
		if (wr->retries_left > 0 && !priv->dying) {
			wr->retries_left--;
			wr->send_buf.retries++;
			wr->on_qp = true;
			if (wr->rmpp)
				mad_rmpp_rewind(wr);
			list_add_tail(&wr->port_list, &resend);
			continue;
		}
		wr->wait_resp = false;
		wr->status = IB_WC_RESP_TIMEOUT_ERR;
		list_move_tail(&wr->agent_list, &done);
	}
	if (have_next)
		mod_delayed_work(ib_mad_wq, &priv->timed_work,
				 time_after(next, now) ? next - now : 0);
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(wr, tmp, &resend, port_list) {
		list_del_init(&wr->port_list);
		mad_repost(wr);
	}
	list_for_each_entry_safe(wr, tmp, &done, agent_list) {
		list_del_init(&wr->agent_list);
		mad_complete_send(wr);
	}
}

void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent)
{
	struct ib_mad_agent_priv *priv =
		container_of(mad_agent, struct ib_mad_agent_priv, agent);
	struct ib_mad_port *port = priv->port;
	struct ib_mad_send_wr_priv *wr, *tmp;
	LIST_HEAD(parked);
	LIST_HEAD(done);
	unsigned long flags;

	/* No more receives dispatched to it. */
	spin_lock_irqsave(&port->lock, flags);
	list_del(&priv->port_entry);
	spin_unlock_irqrestore(&port->lock, flags);

	/* Flush what never reached the send queue. */
	spin_lock_irqsave(&port->lock, flags);
	list_for_each_entry_safe(wr, tmp, &priv->queue->send_overflow,
				 port_list) {
		if (wr->agent_priv != priv)
			continue;
		list_move_tail(&wr->port_list, &parked);
		wr->overflow = false;
	}
	spin_unlock_irqrestore(&port->lock, flags);
	list_for_each_entry_safe(wr, tmp, &parked, port_list) {
		list_del_init(&wr->port_list);
		mad_wr_send_completed(wr, IB_WC_WR_FLUSH_ERR);
	}

	/* Stop waiting for responses; sends on the QP complete on their own. */
	spin_lock_irqsave(&priv->lock, flags);
	priv->dying = true;
	list_for_each_entry_safe(wr, tmp, &priv->send_list, agent_list) {
		if (wr->wait_resp) {
			wr->wait_resp = false;
			wr->status = IB_WC_WR_FLUSH_ERR;
		}
		if (send_wr_idle(wr))
			list_move_tail(&wr->agent_list, &done);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	list_for_each_entry_safe(wr, tmp, &done, agent_list) {
		list_del_init(&wr->agent_list);
		mad_complete_send(wr);
	}

	agent_put(priv);
	wait_for_completion(&priv->comp);
	cancel_delayed_work_sync(&priv->timed_work);
	mad_rmpp_agent_stop(priv);
	kfree(priv->reg_req);
	kfree(priv);
}
EXPORT_SYMBOL(ib_unregister_mad_agent);

/* ------------------------------------------------------------ receives */

void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc)
{
	struct ib_mad_recv_buf *buf, *tmp;

	if (!mad_recv_wc)
		return;
	/* A reassembled RMPP message: the segments after the first. */
	list_for_each_entry_safe(buf, tmp, &mad_recv_wc->rmpp_list, list) {
		if (buf != &mad_recv_wc->recv_buf)
			kfree(container_of(buf, struct ib_mad_recv_priv,
					   recv_wc.recv_buf));
	}
	kfree(container_of(mad_recv_wc, struct ib_mad_recv_priv, recv_wc));
}
EXPORT_SYMBOL(ib_free_recv_mad);

static void mad_recv_done(struct ib_cq *cq, struct ib_wc *wc);

static int mad_post_recv(struct ib_mad_queue *queue)
{
	struct ib_mad_port *port = queue->port;
	struct ib_device *dev = port->device;
	struct ib_mad_recv_priv *rp;
	struct ib_recv_wr rwr = {};
	struct ib_sge sge;
	unsigned long flags;
	int ret;

	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp)
		return -ENOMEM;
	rp->port = port;
	rp->queue = queue;
	rp->cqe.done = mad_recv_done;
	rp->dma_addr = ib_dma_map_single(dev, &rp->buf, sizeof(rp->buf),
					 DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, rp->dma_addr)) {
		kfree(rp);
		return -ENOMEM;
	}
	sge.addr = rp->dma_addr;
	sge.length = sizeof(rp->buf);
	sge.lkey = port->pd->local_dma_lkey;
	rwr.wr_cqe = &rp->cqe;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;

	spin_lock_irqsave(&port->lock, flags);
	if (port->dying) {
		ret = -ENODEV;
	} else {
		list_add_tail(&rp->list, &queue->recv_posted);
		queue->recv_count++;
		ret = ib_post_recv(queue->qp, &rwr, NULL);
		if (ret) {
			list_del(&rp->list);
			queue->recv_count--;
		}
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (ret) {
		ib_dma_unmap_single(dev, rp->dma_addr, sizeof(rp->buf),
				    DMA_FROM_DEVICE);
		kfree(rp);
	}
	return ret;
}

static void mad_refill_recv(struct ib_mad_queue *queue)
{
	unsigned int count;
	unsigned long flags;
	int ret;

	for (;;) {
		spin_lock_irqsave(&queue->port->lock, flags);
		count = queue->recv_count;
		spin_unlock_irqrestore(&queue->port->lock, flags);
		if (count >= IB_MAD_RECV_DEPTH)
			return;
		ret = mad_post_recv(queue);
		if (ret == -ENOMEM)
			break;
		if (ret)
			return;
	}
	/*
	 * Short of memory: the buffers still posted refill as they complete,
	 * but an empty ring gets no completion, so a timer tries again.
	 */
	if (!count)
		queue_delayed_work(ib_mad_wq, &queue->refill_work, HZ / 10);
}

static void mad_refill_work(struct work_struct *work)
{
	mad_refill_recv(container_of(to_delayed_work(work),
				     struct ib_mad_queue, refill_work));
}

static bool reg_req_matches(const struct ib_mad_reg_req *req,
			    const struct ib_mad_hdr *hdr,
			    const struct ib_mad *mad)
{
	if (req->mgmt_class != hdr->mgmt_class ||
	    req->mgmt_class_version != hdr->class_version ||
	    !test_bit(hdr->method & 0x7f, req->method_mask))
		return false;
	if (mad_class_is_vendor2(hdr->mgmt_class)) {
		const struct ib_vendor_mad *vmad = (const void *)mad;

		return !memcmp(req->oui, vmad->oui, sizeof(req->oui));
	}
	return true;
}

/* The agent of @queue a received MAD goes to, with a reference held. */
static struct ib_mad_agent_priv *mad_find_agent(struct ib_mad_queue *queue,
						const struct ib_mad *mad)
{
	const struct ib_mad_hdr *hdr = &mad->mad_hdr;
	struct ib_mad_agent_priv *priv, *found = NULL;
	struct ib_mad_port *port = queue->port;
	unsigned long flags;
	u32 hi_tid;

	spin_lock_irqsave(&port->lock, flags);
	if (ib_response_mad(hdr)) {
		hi_tid = be64_to_cpu(hdr->tid) >> 32;
		list_for_each_entry(priv, &port->agents, port_entry) {
			if (priv->queue == queue &&
			    priv->agent.hi_tid == hi_tid &&
			    priv->agent.recv_handler) {
				found = priv;
				break;
			}
		}
	} else {
		list_for_each_entry(priv, &port->agents, port_entry) {
			if (priv->queue == queue && priv->reg_req &&
			    reg_req_matches(priv->reg_req, hdr, mad)) {
				found = priv;
				break;
			}
		}
	}
	if (found)
		agent_get(found);
	spin_unlock_irqrestore(&port->lock, flags);
	return found;
}

/*
 * Takes the outstanding request a response answers out of the timeouts
 * (never a response: as upstream, one does not answer another).
 */
static struct ib_mad_send_wr_priv *
mad_claim_request(struct ib_mad_agent_priv *priv, const struct ib_mad_hdr *hdr)
{
	struct ib_mad_send_wr_priv *wr;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry(wr, &priv->send_list, agent_list) {
		const struct ib_mad_hdr *req = (const void *)wr->mad;

		if (wr->wait_resp && !wr->in_handler && wr->tid == hdr->tid &&
		    req->mgmt_class == hdr->mgmt_class &&
		    !ib_response_mad(req)) {
			wr->wait_resp = false;
			wr->in_handler = true;
			spin_unlock_irqrestore(&priv->lock, flags);
			return wr;
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return NULL;
}

static void mad_reply_sent(struct ib_mad_agent *agent,
			   struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/*
 * The way back to a MAD's sender. A directed-route SMP goes back with
 * the permissive DLID (IBA 14.2.2: its return path, not a LID, leads).
 */
static struct ib_ah *mad_reply_ah(struct ib_mad_port *port,
				  struct ib_mad_recv_priv *rp, bool dr)
{
	const struct ib_grh *grh = rp->wc.wc_flags & IB_WC_GRH ?
				   &rp->buf.grh : NULL;
	struct rdma_ah_attr attr;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_wc(port->device, port->port_num, &rp->wc,
				      grh, &attr);
	if (ret)
		return ERR_PTR(ret);
	if (dr)
		rdma_ah_set_dlid(&attr, be16_to_cpu(IB_LID_PERMISSIVE));
	ah = rdma_create_ah(port->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&attr);
	return ah;
}

/*
 * Sends @mad back to where @rp came from through the queue's reply
 * agent; a DR answer takes its returning step in mad_post_one().
 */
static void mad_send_reply(struct ib_mad_queue *queue,
			   struct ib_mad_recv_priv *rp, const void *mad,
			   u16 pkey_index)
{
	struct ib_mad_port *port = queue->port;
	const struct ib_mad_hdr *hdr = mad;
	struct ib_mad_agent_priv *agent = NULL;
	struct ib_mad_send_buf *buf;
	unsigned long flags;
	struct ib_ah *ah;

	/* The port's removal unregisters the agent: hold it meanwhile. */
	spin_lock_irqsave(&port->lock, flags);
	if (!port->dying && queue->reply_agent) {
		agent = container_of(queue->reply_agent,
				     struct ib_mad_agent_priv, agent);
		agent_get(agent);
	}
	spin_unlock_irqrestore(&port->lock, flags);
	if (!agent)
		return;
	ah = mad_reply_ah(port, rp, hdr->mgmt_class ==
			  IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE);
	if (IS_ERR(ah))
		goto out;
	buf = ib_create_send_mad(&agent->agent, rp->wc.src_qp, pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		goto err_ah;
	memcpy(buf->mad, mad, IB_MGMT_MAD_SIZE);
	buf->ah = ah;
	if (!ib_post_send_mad(buf, NULL))
		goto out;
	ib_free_send_mad(buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	agent_put(agent);
}

/*
 * On an IB port a Get or Set that no agent takes is answered here, as the
 * stock kernel does: a GetResp saying "method/attribute unsupported", the
 * D bit set for a directed-route SMP. (On RoCE the stock kernel lets the
 * sender time out; so do we: no reply agent there.)
 */
static void mad_reply_unsupported(struct ib_mad_queue *queue,
				  struct ib_mad_recv_priv *rp)
{
	struct ib_mad_hdr *hdr = (void *)rp->buf.mad;
	u16 status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;

	if (hdr->method != IB_MGMT_METHOD_GET &&
	    hdr->method != IB_MGMT_METHOD_SET)
		return;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		status |= be16_to_cpu(IB_SMP_DIRECTION);
	/* the request is not needed any more: it becomes the answer */
	hdr->method = IB_MGMT_METHOD_GET_RESP;
	hdr->status = cpu_to_be16(status);
	mad_send_reply(queue, rp, hdr, rp->wc.pkey_index);
}

enum mad_offer_result {
	MAD_OFFER_DONE,		/* answered, consumed or refused: drop */
	MAD_OFFER_PASS,		/* the device leaves it to the agents */
};

/*
 * The device's right of first refusal (IBA 13.4.x, as upstream): its
 * process_mad sees every MAD QP0 and QP1 receive before any agent.
 */
static enum mad_offer_result mad_offer_to_device(struct ib_mad_queue *queue,
						 struct ib_mad_recv_priv *rp)
{
	struct ib_mad_port *port = queue->port;
	struct ib_device *dev = port->device;
	size_t out_size = sizeof(struct ib_mad);
	u16 out_pkey_index = rp->wc.pkey_index;
	struct ib_mad *out;
	int ret;

	if (!dev->ops.process_mad)
		return MAD_OFFER_PASS;
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!out)
		return MAD_OFFER_DONE;
	ret = dev->ops.process_mad(dev, 0, port->port_num, &rp->wc,
				   rp->wc.wc_flags & IB_WC_GRH ?
				   &rp->buf.grh : NULL,
				   (const struct ib_mad *)rp->buf.mad, out,
				   &out_size, &out_pkey_index);
	if (!(ret & IB_MAD_RESULT_SUCCESS)) {
		/* FAILURE (an M_Key violation): no answer at all */
		ret = MAD_OFFER_DONE;
	} else if (ret & IB_MAD_RESULT_CONSUMED) {
		ret = MAD_OFFER_DONE;
	} else if (ret & IB_MAD_RESULT_REPLY) {
		mad_send_reply(queue, rp, out, out_pkey_index);
		ret = MAD_OFFER_DONE;
	} else {
		ret = MAD_OFFER_PASS;
	}
	kfree(out);
	return ret;
}

/*
 * Agents that do RMPP themselves reassemble the answer: its first segment
 * completes the request, the later segments of an active RMPP transfer
 * still go to the agent, as upstream delivers them.
 */
static bool mad_user_rmpp_segment(const struct ib_mad_agent_priv *priv,
				  const struct ib_mad *mad)
{
	const struct ib_rmpp_mad *rmpp = (const void *)mad;

	return !ib_mad_kernel_rmpp_agent(&priv->agent) &&
	       ib_is_mad_class_rmpp(mad->mad_hdr.mgmt_class) &&
	       (rmpp->rmpp_hdr.rmpp_rtime_flags & IB_MGMT_RMPP_FLAG_ACTIVE);
}

/*
 * IBA 13.5.3 / 14.2: SMP classes on QP0 only, and only they. Every MAD is
 * 256 bytes: a shorter datagram would go up as a truncated MAD (and an
 * RMPP segment of it as a whole one).
 */
static bool mad_recv_valid(struct ib_mad_queue *queue,
			   const struct ib_mad_recv_priv *rp)
{
	const struct ib_mad_hdr *hdr = (const void *)rp->buf.mad;

	if (rp->wc.byte_len != sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE ||
	    hdr->base_version != IB_MGMT_BASE_VERSION)
		return false;
	return mad_class_is_smp(hdr->mgmt_class) ==
	       (queue == &queue->port->smi);
}

/*
 * One MAD received on @queue (or an SMP of ours for this node, @rp->local,
 * whose directed-route step was taken when it was sent). Process context;
 * consumes @rp.
 */
void mad_handle_recv(struct ib_mad_queue *queue, struct ib_mad_recv_priv *rp)
{
	struct ib_mad *mad = (struct ib_mad *)rp->buf.mad;
	const struct ib_mad_hdr *hdr = &mad->mad_hdr;
	struct ib_mad_port *port = queue->port;
	struct ib_mad_send_wr_priv *wr = NULL;
	struct ib_mad_agent_priv *priv;
	unsigned long flags;
	bool done;

	if (!mad_recv_valid(queue, rp))
		goto drop;
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE &&
	    !rp->local && !mad_smi_recv_ok(port, (struct ib_smp *)mad))
		goto drop;

	rp->recv_wc.wc = &rp->wc;
	rp->recv_wc.recv_buf.grh = &rp->buf.grh;
	rp->recv_wc.recv_buf.mad = mad;
	INIT_LIST_HEAD(&rp->recv_wc.rmpp_list);
	list_add(&rp->recv_wc.recv_buf.list, &rp->recv_wc.rmpp_list);
	rp->recv_wc.mad_len = IB_MGMT_MAD_SIZE;
	rp->recv_wc.mad_seg_size = IB_MGMT_MAD_SIZE;

	if (mad_offer_to_device(queue, rp) == MAD_OFFER_DONE)
		goto drop;

	priv = mad_find_agent(queue, mad);
	if (!priv) {
		if (!ib_response_mad(hdr))
			mad_reply_unsupported(queue, rp);
		goto drop;
	}
	/* Kernel RMPP takes segments until the whole message is there. */
	rp = mad_rmpp_recv(priv, rp);
	if (!rp) {
		agent_put(priv);
		return;
	}
	mad = (struct ib_mad *)rp->buf.mad;
	hdr = &mad->mad_hdr;
	if (ib_response_mad(hdr)) {
		wr = mad_claim_request(priv, hdr);
		if (!wr && !mad_user_rmpp_segment(priv, mad)) {
			agent_put(priv);
			ib_free_recv_mad(&rp->recv_wc);
			return;
		}
	}

	priv->agent.recv_handler(&priv->agent, wr ? &wr->send_buf : NULL,
				 &rp->recv_wc);

	if (wr) {
		/* Answered: the request completes once its send did too. */
		spin_lock_irqsave(&priv->lock, flags);
		wr->in_handler = false;
		done = send_wr_idle(wr);
		if (done)
			list_del_init(&wr->agent_list);
		spin_unlock_irqrestore(&priv->lock, flags);
		if (done)
			mad_complete_send(wr);
	}
	agent_put(priv);
	return;

drop:
	kfree(rp);
}

static void mad_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_recv_priv *rp =
		container_of(wc->wr_cqe, struct ib_mad_recv_priv, cqe);
	struct ib_mad_queue *queue = rp->queue;
	struct ib_mad_port *port = rp->port;
	unsigned long flags;
	bool dying;

	spin_lock_irqsave(&port->lock, flags);
	list_del(&rp->list);
	queue->recv_count--;
	dying = port->dying;
	spin_unlock_irqrestore(&port->lock, flags);

	ib_dma_unmap_single(port->device, rp->dma_addr, sizeof(rp->buf),
			    DMA_FROM_DEVICE);
	if (dying || wc->status != IB_WC_SUCCESS) {
		kfree(rp);
		return;
	}
	rp->wc = *wc;
	rp->wc.wr_cqe = NULL;
	mad_refill_recv(queue);
	mad_handle_recv(queue, rp);
}

/* ------------------------------------------------------------ ports */

static int mad_qp_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.qkey = IB_QP1_QKEY;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_QKEY);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static void mad_queue_free_bufs(struct ib_mad_queue *queue)
{
	struct ib_mad_recv_priv *rp, *tmp;

	/* The CQ is gone: nobody else touches the list any more. */
	list_for_each_entry_safe(rp, tmp, &queue->recv_posted, list) {
		list_del(&rp->list);
		ib_dma_unmap_single(queue->port->device, rp->dma_addr,
				    sizeof(rp->buf), DMA_FROM_DEVICE);
		kfree(rp);
	}
	queue->recv_count = 0;
}

/* QP0 or QP1 of @port, in RTS with its receive ring filled. */
static int mad_queue_open(struct ib_mad_port *port, struct ib_mad_queue *queue,
			  enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {};
	struct ib_qp *qp;
	int ret;

	init.send_cq = port->cq;
	init.recv_cq = port->cq;
	init.sq_sig_type = IB_SIGNAL_ALL_WR;
	init.cap.max_send_wr = IB_MAD_SEND_DEPTH;
	init.cap.max_recv_wr = IB_MAD_RECV_DEPTH;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.qp_type = type;
	init.port_num = port->port_num;
	init.qp_context = port;
	qp = ib_create_qp(port->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = mad_qp_to_rts(qp);
	if (ret)
		goto err_qp;
	queue->qp = qp;
	ret = mad_post_recv(queue);
	if (ret)
		goto err_qp;
	mad_refill_recv(queue);
	return 0;

err_qp:
	queue->qp = NULL;
	ib_destroy_qp(qp);
	return ret;
}

static void mad_queue_init(struct ib_mad_port *port, struct ib_mad_queue *queue)
{
	queue->port = port;
	INIT_LIST_HEAD(&queue->recv_posted);
	INIT_LIST_HEAD(&queue->send_overflow);
	INIT_DELAYED_WORK(&queue->refill_work, mad_refill_work);
}

/* The agent that answers for the port on an IB port's QP (none on RoCE). */
static void mad_queue_reply_agent(struct ib_mad_port *port,
				  struct ib_mad_queue *queue,
				  enum ib_qp_type type)
{
	struct ib_mad_agent *agent;

	if (!queue->qp || !rdma_protocol_ib(port->device, port->port_num))
		return;
	agent = ib_register_mad_agent(port->device, port->port_num, type,
				      NULL, 0, mad_reply_sent, NULL, NULL, 0);
	if (!IS_ERR(agent))
		queue->reply_agent = agent;
}

static struct ib_mad_port *mad_port_open(struct ib_device *device,
					 u32 port_num)
{
	struct ib_mad_port *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	port->device = device;
	port->port_num = port_num;
	spin_lock_init(&port->lock);
	INIT_LIST_HEAD(&port->agents);
	mad_queue_init(port, &port->gsi);
	mad_queue_init(port, &port->smi);
	INIT_LIST_HEAD(&port->smi_jobs);
	INIT_WORK(&port->smi_work, mad_smi_work);
	atomic64_set(&port->smi_drops, 0);

	port->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(port->pd)) {
		ret = PTR_ERR(port->pd);
		goto err_free;
	}
	/*
	 * One CQ for the port's QPs (each completion names its queue): room
	 * for the GSI's queues, twice that with an SMI beside it (RoCE ports
	 * show 1023 entries in `rdma res show cq`, as upstream).
	 */
	port->cq = ib_alloc_cq(device, port,
			       (rdma_cap_ib_smi(device, port_num) ? 2 : 1) *
			       (IB_MAD_RECV_DEPTH + IB_MAD_SEND_DEPTH), 0,
			       IB_POLL_UNBOUND_WORKQUEUE);
	if (IS_ERR(port->cq)) {
		ret = PTR_ERR(port->cq);
		goto err_pd;
	}

	/* without QP0 the port still has its GSI */
	if (rdma_cap_ib_smi(device, port_num)) {
		ret = mad_queue_open(port, &port->smi, IB_QPT_SMI);
		if (ret)
			dev_warn(&device->dev, "port %u: no SMI QP: %d\n",
				 port_num, ret);
	}
	ret = mad_queue_open(port, &port->gsi, IB_QPT_GSI);
	if (ret)
		goto err_smi;

	spin_lock(&ib_mad_port_list_lock);
	list_add_tail(&port->list, &ib_mad_port_list);
	spin_unlock(&ib_mad_port_list_lock);

	mad_queue_reply_agent(port, &port->gsi, IB_QPT_GSI);
	mad_queue_reply_agent(port, &port->smi, IB_QPT_SMI);
	return port;

err_smi:
	spin_lock_irq(&port->lock);
	port->dying = true;
	spin_unlock_irq(&port->lock);
	cancel_delayed_work_sync(&port->smi.refill_work);
	if (port->smi.qp)
		ib_destroy_qp(port->smi.qp);
	ib_free_cq(port->cq);
	mad_queue_free_bufs(&port->gsi);
	mad_queue_free_bufs(&port->smi);
err_pd:
	ib_dealloc_pd(port->pd);
err_free:
	kfree(port);
	return ERR_PTR(ret);
}

static void mad_port_close(struct ib_mad_port *port)
{
	unsigned long flags;

	spin_lock(&ib_mad_port_list_lock);
	list_del(&port->list);
	spin_unlock(&ib_mad_port_list_lock);

	spin_lock_irqsave(&port->lock, flags);
	port->dying = true;
	spin_unlock_irqrestore(&port->lock, flags);
	/* their sends still queued for the SMI's work finish there */
	if (port->gsi.reply_agent)
		ib_unregister_mad_agent(port->gsi.reply_agent);
	if (port->smi.reply_agent)
		ib_unregister_mad_agent(port->smi.reply_agent);
	flush_work(&port->smi_work);
	/* dying: a refill posts no more, nor rearms */
	cancel_delayed_work_sync(&port->gsi.refill_work);
	cancel_delayed_work_sync(&port->smi.refill_work);
	/* Clients unregister their agents before we are removed. */
	spin_lock_irqsave(&port->lock, flags);
	WARN_ON(!list_empty(&port->agents));
	WARN_ON(!list_empty(&port->smi_jobs));
	spin_unlock_irqrestore(&port->lock, flags);

	ib_destroy_qp(port->gsi.qp);
	if (port->smi.qp)
		ib_destroy_qp(port->smi.qp);
	ib_free_cq(port->cq);
	mad_queue_free_bufs(&port->gsi);
	mad_queue_free_bufs(&port->smi);
	ib_dealloc_pd(port->pd);
	kfree(port);
}

struct ib_mad_device {
	u32			nports;
	struct ib_mad_port	*ports[];
};

static int ib_mad_add_one(struct ib_device *device)
{
	struct ib_mad_device *md;
	struct ib_mad_port *port;
	unsigned int opened = 0;
	u32 p;

	md = kzalloc(struct_size(md, ports, rdma_end_port(device) + 1),
		     GFP_KERNEL);
	if (!md)
		return -ENOMEM;
	md->nports = rdma_end_port(device) + 1;

	rdma_for_each_port(device, p) {
		if (!rdma_cap_ib_mad(device, p))
			continue;
		port = mad_port_open(device, p);
		if (IS_ERR(port)) {
			dev_err(&device->dev, "port %u: no GSI QP: %ld\n", p,
				PTR_ERR(port));
			continue;
		}
		md->ports[p] = port;
		opened++;
	}
	if (!opened) {
		kfree(md);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(device, &mad_client, md);
	return 0;
}

static void ib_mad_remove_one(struct ib_device *device, void *client_data)
{
	struct ib_mad_device *md = client_data;
	u32 p;

	if (!md)
		return;
	for (p = 0; p < md->nports; p++)
		if (md->ports[p])
			mad_port_close(md->ports[p]);
	kfree(md);
}

static struct ib_client mad_client = {
	.name = "mad",
	.add = ib_mad_add_one,
	.remove = ib_mad_remove_one,
};

int ib_mad_init(void)
{
	int ret;

	ib_mad_wq = alloc_workqueue("ib_mad", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!ib_mad_wq)
		return -ENOMEM;
	mad_smi_debugfs_init();
	ret = ib_register_client(&mad_client);
	if (ret) {
		mad_smi_debugfs_exit();
		destroy_workqueue(ib_mad_wq);
	}
	return ret;
}

void ib_mad_cleanup(void)
{
	ib_unregister_client(&mad_client);
	mad_smi_debugfs_exit();
	destroy_workqueue(ib_mad_wq);
}

/* ------------------------------------------------------------ AH from WC */

static bool roce4_hdr_valid(const struct iphdr *iph)
{
	return iph->version == 4 && iph->ihl == 5 &&
	       !ip_fast_csum((const void *)iph, 5);
}

int ib_get_rdma_header_version(const union rdma_network_hdr *hdr)
{
	const struct ipv6hdr *ip6h = (const struct ipv6hdr *)&hdr->ibgrh;

	/* An IPv4 header sits in the last 20 bytes and checksums to 0. */
	if (roce4_hdr_valid(&hdr->roce4grh))
		return 4;
	return ip6h->version == 6 ? 6 : 0;
}
EXPORT_SYMBOL(ib_get_rdma_header_version);

int ib_get_gids_from_rdma_hdr(const union rdma_network_hdr *hdr,
			      enum rdma_network_type net_type,
			      union ib_gid *sgid, union ib_gid *dgid)
{
	const struct iphdr *iph = &hdr->roce4grh;

	switch (net_type) {
	case RDMA_NETWORK_IPV4:
		if (!roce4_hdr_valid(iph))
			return -EINVAL;
		ipv6_addr_set_v4mapped(iph->saddr, (struct in6_addr *)sgid);
		ipv6_addr_set_v4mapped(iph->daddr, (struct in6_addr *)dgid);
		return 0;
	case RDMA_NETWORK_IPV6:
	case RDMA_NETWORK_IB:
	case RDMA_NETWORK_ROCE_V1:
		*sgid = hdr->ibgrh.sgid;
		*dgid = hdr->ibgrh.dgid;
		return 0;
	}
	return -EINVAL;
}
EXPORT_SYMBOL(ib_get_gids_from_rdma_hdr);

static enum rdma_network_type wc_net_type(const struct ib_wc *wc,
					  const struct ib_grh *grh)
{
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		return wc->network_hdr_type;
	switch (ib_get_rdma_header_version((const void *)grh)) {
	case 4:
		return RDMA_NETWORK_IPV4;
	case 6:
		return RDMA_NETWORK_IPV6;
	}
	return RDMA_NETWORK_ROCE_V1;
}

/* The sender's GID of a MAD that came with a network header. */
int mad_wc_sgid(const struct ib_wc *wc, const struct ib_grh *grh,
		union ib_gid *sgid)
{
	union ib_gid dgid;

	return ib_get_gids_from_rdma_hdr((const void *)grh,
					 wc_net_type(wc, grh), sgid, &dgid);
}

static int init_roce_ah_attr(struct ib_device *device, u32 port_num,
			     const struct ib_wc *wc, const struct ib_grh *grh,
			     struct rdma_ah_attr *ah_attr)
{
	const union rdma_network_hdr *nh = (const void *)grh;
	enum rdma_network_type net_type = wc_net_type(wc, grh);
	const struct ib_gid_attr *sgid_attr;
	enum ib_gid_type gid_type;
	union ib_gid sgid, dgid;
	u32 flow = 0;
	u8 tclass;
	int ret;

	if (!grh)
		return -EINVAL;
	ret = ib_get_gids_from_rdma_hdr(nh, net_type, &sgid, &dgid);
	if (ret)
		return ret;
	gid_type = net_type == RDMA_NETWORK_ROCE_V1 ? IB_GID_TYPE_ROCE :
		   IB_GID_TYPE_ROCE_UDP_ENCAP;
	/* The packet's destination is one of our GIDs: reply from it. */
	sgid_attr = rdma_find_gid_by_port(device, &dgid, gid_type, port_num,
					  NULL);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	if (net_type == RDMA_NETWORK_IPV4) {
		tclass = nh->roce4grh.tos;
	} else {
		u32 vtf = be32_to_cpu(grh->version_tclass_flow);

		flow = vtf & 0xFFFFF;
		tclass = (vtf >> 20) & 0xFF;
	}
	ah_attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_sl(ah_attr, wc->sl);
	rdma_ah_set_grh(ah_attr, &sgid, flow, sgid_attr->index, 0xFF, tclass);
	ah_attr->grh.sgid_attr = sgid_attr;

	if ((wc->wc_flags & IB_WC_WITH_SMAC) &&
	    is_valid_ether_addr(wc->smac)) {
		ether_addr_copy(ah_attr->roce.dmac, wc->smac);
		return 0;
	}
	ret = ib_resolve_eth_dmac(device, ah_attr);
	if (ret)
		rdma_destroy_ah_attr(ah_attr);
	return ret;
}

int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;
	u32 flow;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	if (ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE)
		return init_roce_ah_attr(device, port_num, wc, grh, ah_attr);

	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_sl(ah_attr, wc->sl);
	rdma_ah_set_dlid(ah_attr, wc->slid);
	rdma_ah_set_path_bits(ah_attr, wc->dlid_path_bits);
	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;
	if (!grh)
		return -EINVAL;
	sgid_attr = rdma_find_gid_by_port(device, &grh->dgid, IB_GID_TYPE_IB,
					  port_num, NULL);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	flow = be32_to_cpu(grh->version_tclass_flow);
	rdma_ah_set_grh(ah_attr, (union ib_gid *)&grh->sgid, flow & 0xFFFFF,
			sgid_attr->index, 0xFF, (flow >> 20) & 0xFF);
	ah_attr->grh.sgid_attr = sgid_attr;
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_wc);

struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num)
{
	struct rdma_ah_attr ah_attr;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh, &ah_attr);
	if (ret)
		return ERR_PTR(ret);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&ah_attr);
	return ah;
}
EXPORT_SYMBOL(ib_create_ah_from_wc);
