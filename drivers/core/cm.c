// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * IB connection manager (IBA vol 1 ch. 12) over the GSI MAD service.
 *
 * Concurrency model: one global spinlock (cm.lock) protects every table
 * and every cm_id's protocol state; it is never taken from the MAD
 * layer's completion handlers, which only queue work.  All received
 * messages, send completions and timewait expiries are processed on one
 * ordered workqueue, which serialises consumer callbacks.  Callbacks run
 * without locks held.  A cm_id's memory lives until its last reference
 * (consumer, in-flight sends, running work) is dropped.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/hashtable.h>
#include <linux/random.h>
#include <linux/wait.h>
#include <linux/sched.h>
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_cm.h>

#include "cm_msgs.h"

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("InfiniBand connection manager");
MODULE_LICENSE("Dual BSD/GPL");

#define CM_LID_PERMISSIVE	0xFFFF
#define CM_TIMEWAIT_MAX_MS	10000

struct cm_device;

struct cm_port {
	struct cm_device	*cm_dev;
	/*
	 * Taken around every use of mad_agent: a receive work still queued
	 * when the device goes away must not start a send on an agent that
	 * is being unregistered (its last reference may already be gone).
	 */
	spinlock_t		agent_lock;
	struct ib_mad_agent	*mad_agent;	/* NULL once going down */
	u32			port_num;
};

struct cm_device {
	struct list_head	list;
	struct ib_device	*ib_device;
	u8			ack_delay;
	bool			going_down;
	struct cm_port		*port[];	/* index port_num - 1 */
};

struct cm_av {
	struct cm_port		*port;
	struct rdma_ah_attr	ah_attr;
	u16			pkey_index;
	u8			timeout;
	bool			valid;
};

struct cm_id_private;

/* One MAD we sent; context[0] of its send buffer. */
struct cm_msg {
	struct work_struct	work;
	struct ib_mad_send_buf	*send_buf;
	struct ib_ah		*ah;
	struct cm_id_private	*cm_id_priv;	/* holds a reference, or NULL */
	enum ib_wc_status	status;
};

struct cm_id_private {
	struct ib_cm_id		id;
	struct hlist_node	local_node;
	struct list_head	listen_node;
	struct list_head	conn_node;
	struct list_head	sidr_node;
	bool			in_local, in_listen, in_conn, in_sidr;
	refcount_t		refs;
	int			listen_sharecount;

	/* Where our MADs go (for the passive side: back to the sender). */
	struct cm_av		av;
	/* What the QP is connected to (ib_cm_init_qp_attr RTR). */
	struct rdma_ah_attr	qp_ah_attr;
	bool			qp_ah_valid;

	struct cm_msg		*msg;		/* outstanding request */
	__be64			tid;
	__be64			remote_ca_guid;
	union ib_gid		remote_gid;	/* SIDR duplicate detection */
	u32			local_qpn;
	u32			remote_qpn;
	u32			sq_psn;
	u32			rq_psn;
	enum ib_qp_type		qp_type;
	enum ib_mtu		path_mtu;
	u16			pkey;
	u8			responder_resources;
	u8			initiator_depth;
	u8			retry_count;
	u8			rnr_retry_count;
	u8			service_timeout;
	u8			target_ack_delay;
	u8			max_cm_retries;
	int			timeout_ms;

	/* Callback bookkeeping (under cm.lock). */
	bool			destroying;
	bool			cb_running;
	struct task_struct	*cb_task;
	/*
	 * A listener: new connections whose first event is being handed to
	 * its handler, and the task doing it (the work queue is ordered).
	 */
	int			req_busy;
	struct task_struct	*req_task;
};

struct cm_timewait {
	struct list_head	list;
	struct delayed_work	work;
	__be32			local_id;
	__be32			remote_id;
	__be64			remote_ca_guid;
	u32			remote_qpn;
};

struct cm_work {
	struct work_struct	work;
	struct cm_port		*port;
	struct ib_mad_recv_wc	*mad_recv_wc;
	/* USER_ESTABLISHED from ib_cm_notify */
	struct cm_id_private	*cm_id_priv;
};

static struct {
	spinlock_t		lock;
	struct list_head	devices;
	DECLARE_HASHTABLE(local_ids, 8);
	struct list_head	listeners;
	struct list_head	conns;
	struct list_head	sidrs;
	struct list_head	timewaits;
	u32			next_id;
	u32			id_xor;
	u64			next_service_id;
	struct workqueue_struct	*wq;
	wait_queue_head_t	cb_wait;
	bool			stopping;
} cm;

static struct ib_client cm_client;

/* ---- small helpers ---- */

static inline struct cm_id_private *to_priv(struct ib_cm_id *id)
{
	return container_of(id, struct cm_id_private, id);
}

/* 4.096us * 2^t, rounded to ms. */
static int cm_convert_to_ms(int t)
{
	return 1 << max(t - 8, 0);
}

/* Local ACK timeout from the CA ack delay and the packet life time. */
static u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	int t = packet_life_time + 1;

	if (t >= ca_ack_delay)
		t += (ca_ack_delay >= t - 1);
	else
		t = ca_ack_delay + (t >= ca_ack_delay - 1);
	return min(t, 31);
}

static void cm_get_id(struct cm_id_private *p)
{
	refcount_inc(&p->refs);
}

static void cm_put_id(struct cm_id_private *p)
{
	if (!refcount_dec_and_test(&p->refs))
		return;
	if (p->av.valid)
		rdma_destroy_ah_attr(&p->av.ah_attr);
	if (p->qp_ah_valid)
		rdma_destroy_ah_attr(&p->qp_ah_attr);
	kfree(p);
}

/* Caller holds cm.lock. */
static struct cm_id_private *cm_find_local(__be32 local_id)
{
	struct cm_id_private *p;

	hash_for_each_possible(cm.local_ids, p, local_node,
			       (__force u32)local_id)
		if (p->id.local_id == local_id)
			return p;
	return NULL;
}

/* Caller holds cm.lock. */
static struct cm_id_private *cm_find_conn(__be32 remote_id, __be64 guid)
{
	struct cm_id_private *p;

	list_for_each_entry(p, &cm.conns, conn_node)
		if (p->id.remote_id == remote_id && p->remote_ca_guid == guid)
			return p;
	return NULL;
}

static struct cm_timewait *cm_find_timewait(__be32 remote_id, __be64 guid)
{
	struct cm_timewait *tw;

	list_for_each_entry(tw, &cm.timewaits, list)
		if (tw->remote_id == remote_id && tw->remote_ca_guid == guid)
			return tw;
	return NULL;
}

/* Caller holds cm.lock. */
static void cm_conn_insert(struct cm_id_private *p)
{
	if (!p->in_conn) {
		list_add_tail(&p->conn_node, &cm.conns);
		p->in_conn = true;
	}
}

static void cm_conn_remove(struct cm_id_private *p)
{
	if (p->in_conn) {
		list_del(&p->conn_node);
		p->in_conn = false;
	}
}

static struct cm_port *cm_get_port(struct ib_device *device, u32 port_num)
{
	struct cm_device *cm_dev = ib_get_client_data(device, &cm_client);

	if (!cm_dev || !rdma_is_port_valid(device, port_num))
		return NULL;
	return cm_dev->port[port_num - 1];
}

static u16 cm_pkey_index(struct ib_device *device, u32 port_num, u16 pkey)
{
	u16 index = 0;

	if (rdma_protocol_roce(device, port_num))
		return 0;
	if (ib_find_cached_pkey(device, port_num, pkey, &index))
		return 0;
	return index;
}

/* ---- sending ---- */

static void cm_free_msg(struct cm_msg *msg)
{
	if (msg->ah)
		rdma_destroy_ah(msg->ah, 0);
	if (msg->send_buf)
		ib_free_send_mad(msg->send_buf);
	if (msg->cm_id_priv)
		cm_put_id(msg->cm_id_priv);
	kfree(msg);
}

static void cm_send_done_work(struct work_struct *work);

/*
 * Allocate a MAD addressed by ah_attr (or, with wc/grh, back to the sender
 * of a received MAD) on port.  May be called under cm.lock.
 */
static struct cm_msg *cm_alloc_msg(struct cm_port *port,
				   struct rdma_ah_attr *ah_attr, u16 pkey_index,
				   const struct ib_wc *wc,
				   const struct ib_grh *grh,
				   struct cm_id_private *p)
{
	struct ib_mad_send_buf *send_buf = ERR_PTR(-ENODEV);
	struct ib_mad_agent *agent;
	unsigned long flags;
	struct cm_msg *msg;
	struct ib_ah *ah;

	msg = kzalloc(sizeof(*msg), GFP_ATOMIC);
	if (!msg)
		return ERR_PTR(-ENOMEM);
	INIT_WORK(&msg->work, cm_send_done_work);

	/*
	 * The send buffer holds a reference on the agent: taken under
	 * agent_lock, it keeps the agent (and so its QP's PD) alive for the
	 * address handle below, which may sleep.
	 */
	spin_lock_irqsave(&port->agent_lock, flags);
	agent = port->mad_agent;
	if (agent)
		send_buf = ib_create_send_mad(agent, 1,
					      wc ? wc->pkey_index : pkey_index,
					      0, IB_MGMT_MAD_HDR,
					      IB_MGMT_MAD_DATA, GFP_ATOMIC,
					      IB_MGMT_BASE_VERSION);
	spin_unlock_irqrestore(&port->agent_lock, flags);
	if (IS_ERR(send_buf)) {
		kfree(msg);
		return ERR_CAST(send_buf);
	}
	msg->send_buf = send_buf;

	if (wc)
		ah = ib_create_ah_from_wc(agent->qp->pd, wc, grh,
					  port->port_num);
	else
		ah = rdma_create_ah(agent->qp->pd, ah_attr, 0);
	if (IS_ERR(ah)) {
		cm_free_msg(msg);
		return ERR_CAST(ah);
	}
	msg->ah = ah;
	msg->send_buf->ah = ah;
	msg->send_buf->context[0] = msg;
	if (p) {
		cm_get_id(p);
		msg->cm_id_priv = p;
	}
	return msg;
}

static u8 *cm_format_hdr(struct cm_msg *msg, __be16 attr_id, __be64 tid)
{
	struct ib_mad *mad = msg->send_buf->mad;

	memset(mad, 0, sizeof(*mad));
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_CM;
	mad->mad_hdr.class_version = CM_CLASS_VERSION;
	mad->mad_hdr.method = IB_MGMT_METHOD_SEND;
	mad->mad_hdr.tid = tid;
	mad->mad_hdr.attr_id = attr_id;
	return mad->data;
}

static int cm_post(struct cm_msg *msg, int timeout_ms, int retries)
{
	int ret;

	msg->send_buf->timeout_ms = timeout_ms;
	msg->send_buf->retries = retries;
	ret = ib_post_send_mad(msg->send_buf, NULL);
	return ret;
}

/* Cancel the outstanding request of p (its completion frees it). */
static void cm_cancel_msg(struct cm_id_private *p)
{
	if (p->msg) {
		ib_cancel_mad(p->msg->send_buf);
		p->msg = NULL;
	}
}

static void cm_form_tid(struct cm_id_private *p)
{
	struct cm_port *port = p->av.port;
	unsigned long flags;
	u64 hi = 0;

	spin_lock_irqsave(&port->agent_lock, flags);
	if (port->mad_agent)
		hi = port->mad_agent->hi_tid;
	spin_unlock_irqrestore(&port->agent_lock, flags);

	p->tid = cpu_to_be64((hi << 32) | (__force u32)p->id.local_id);
}

static void cm_copy_private(u8 *d, int off, const void *data, u8 len)
{
	if (data && len)
		memcpy(d + off, data, len);
}

/* ---- timewait ---- */

static void cm_timewait_work(struct work_struct *work);

/* Caller holds cm.lock.  Moves p to TIMEWAIT and arms its expiry. */
static void cm_enter_timewait(struct cm_id_private *p)
{
	struct cm_timewait *tw;
	int ms;

	cm_cancel_msg(p);
	cm_conn_remove(p);
	p->id.state = IB_CM_TIMEWAIT;
	tw = kzalloc(sizeof(*tw), GFP_ATOMIC);
	ms = min(cm_convert_to_ms(p->av.timeout), CM_TIMEWAIT_MAX_MS);
	if (!tw) {
		/* Without a record we cannot reject stale peers: just idle. */
		p->id.state = IB_CM_IDLE;
		return;
	}
	tw->local_id = p->id.local_id;
	tw->remote_id = p->id.remote_id;
	tw->remote_ca_guid = p->remote_ca_guid;
	tw->remote_qpn = p->remote_qpn;
	INIT_DELAYED_WORK(&tw->work, cm_timewait_work);
	list_add_tail(&tw->list, &cm.timewaits);
	queue_delayed_work(cm.wq, &tw->work, msecs_to_jiffies(ms));
}

/* Caller holds cm.lock. */
static void cm_reset_to_idle(struct cm_id_private *p)
{
	cm_cancel_msg(p);
	cm_conn_remove(p);
	p->id.state = IB_CM_IDLE;
}

/* ---- callbacks ---- */

static void cm_destroy_id(struct cm_id_private *p, int err);

/*
 * Deliver event to p's handler (workqueue context, caller holds a
 * reference).  A non-zero return destroys the id.
 */
static void cm_deliver(struct cm_id_private *p, struct ib_cm_event *event)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cm.lock, flags);
	if (p->destroying) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	p->cb_running = true;
	p->cb_task = current;
	spin_unlock_irqrestore(&cm.lock, flags);

	ret = p->id.cm_handler(&p->id, event);

	spin_lock_irqsave(&cm.lock, flags);
	p->cb_running = false;
	p->cb_task = NULL;
	spin_unlock_irqrestore(&cm.lock, flags);
	wake_up_all(&cm.cb_wait);

	if (ret)
		cm_destroy_id(p, ret);
}

/*
 * A REQ or SIDR REQ borrows the listener's handler and context for the new
 * id: the listener's destruction waits until that first event is handled,
 * since its owner may free the context once ib_destroy_cm_id() returns.
 * Caller holds cm.lock.
 */
static void cm_listen_borrow(struct cm_id_private *listen)
{
	cm_get_id(listen);
	listen->req_busy++;
	listen->req_task = current;
}

static void cm_listen_return(struct cm_id_private *listen)
{
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	if (!--listen->req_busy)
		listen->req_task = NULL;
	spin_unlock_irqrestore(&cm.lock, flags);
	wake_up_all(&cm.cb_wait);
	cm_put_id(listen);
}

/* ---- cm_id lifetime ---- */

struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler, void *context)
{
	struct cm_id_private *p;
	unsigned long flags;
	__be32 id;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	p->id.state = IB_CM_IDLE;
	p->id.lap_state = IB_CM_LAP_UNINIT;
	p->id.device = device;
	p->id.cm_handler = cm_handler;
	p->id.context = context;
	p->id.remote_cm_qpn = 1;
	refcount_set(&p->refs, 1);
	INIT_LIST_HEAD(&p->listen_node);
	INIT_LIST_HEAD(&p->conn_node);
	INIT_LIST_HEAD(&p->sidr_node);

	spin_lock_irqsave(&cm.lock, flags);
	do {
		id = (__force __be32)(cm.next_id++ ^ cm.id_xor);
	} while (!id || cm_find_local(id));
	p->id.local_id = id;
	hash_add(cm.local_ids, &p->local_node, (__force u32)id);
	p->in_local = true;
	spin_unlock_irqrestore(&cm.lock, flags);
	return &p->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

static int cm_send_rej_locked(struct cm_id_private *p,
			      enum ib_cm_rej_reason reason, const void *ari,
			      u8 ari_length, const void *data, u8 len);
static int cm_send_dreq_locked(struct cm_id_private *p, const void *data,
			       u8 len);
static int cm_send_drep_locked(struct cm_id_private *p, const void *data,
			       u8 len);
static int cm_send_sidr_rep_locked(struct cm_id_private *p,
				   struct ib_cm_sidr_rep_param *param);

static void cm_destroy_id(struct cm_id_private *p, int err)
{
	struct ib_cm_sidr_rep_param sidr = { .status = IB_SIDR_REJECT };
	__be64 guid = p->id.device->node_guid;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	if (p->destroying) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	if (p->id.state == IB_CM_LISTEN && --p->listen_sharecount > 0) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	p->destroying = true;
retest:
	switch (p->id.state) {
	case IB_CM_LISTEN:
		if (p->in_listen) {
			list_del(&p->listen_node);
			p->in_listen = false;
		}
		p->id.state = IB_CM_IDLE;
		break;
	case IB_CM_SIDR_REQ_SENT:
		cm_cancel_msg(p);
		p->id.state = IB_CM_IDLE;
		break;
	case IB_CM_SIDR_REQ_RCVD:
		cm_send_sidr_rep_locked(p, &sidr);
		break;
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		cm_send_rej_locked(p, IB_CM_REJ_TIMEOUT, &guid, sizeof(guid),
				   NULL, 0);
		break;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_send_rej_locked(p, err == -ENOMEM ? IB_CM_REJ_NO_RESOURCES :
				   IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		if (p->id.state != IB_CM_IDLE && p->id.state != IB_CM_TIMEWAIT)
			cm_reset_to_idle(p);
		break;
	case IB_CM_ESTABLISHED:
		if (!cm_send_dreq_locked(p, NULL, 0))
			goto retest;
		cm_enter_timewait(p);
		break;
	case IB_CM_DREQ_SENT:
		cm_enter_timewait(p);
		break;
	case IB_CM_DREQ_RCVD:
		cm_send_drep_locked(p, NULL, 0);
		if (p->id.state == IB_CM_DREQ_RCVD)
			cm_enter_timewait(p);
		break;
	case IB_CM_TIMEWAIT:
	case IB_CM_IDLE:
		break;
	}
	/* Requests in flight are cancelled; their completions drop refs. */
	cm_cancel_msg(p);
	cm_conn_remove(p);
	if (p->in_sidr) {
		list_del(&p->sidr_node);
		p->in_sidr = false;
	}
	if (p->in_local) {
		hash_del(&p->local_node);
		p->in_local = false;
	}
	spin_unlock_irqrestore(&cm.lock, flags);

	/* No callback may be running once we return (unless it is us). */
	if (p->cb_task != current)
		wait_event(cm.cb_wait, !READ_ONCE(p->cb_running));
	/* A listener: nor a new id's first event (unless that is us). */
	wait_event(cm.cb_wait, !READ_ONCE(p->req_busy) ||
		   READ_ONCE(p->req_task) == current);
	cm_put_id(p);
}

void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	cm_destroy_id(to_priv(cm_id), 0);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

/* ---- listen ---- */

/* Caller holds cm.lock. */
static struct cm_id_private *cm_find_listen(struct ib_device *device,
					    __be64 service_id)
{
	struct cm_id_private *p;

	list_for_each_entry(p, &cm.listeners, listen_node)
		if (p->id.device == device && p->id.service_id == service_id)
			return p;
	return NULL;
}

/* Caller holds cm.lock. */
static int cm_listen_locked(struct cm_id_private *p, __be64 service_id)
{
	if (p->id.state != IB_CM_IDLE)
		return -EINVAL;
	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		do {
			service_id = cpu_to_be64(cm.next_service_id++);
		} while (cm_find_listen(p->id.device, service_id));
	} else if (cm_find_listen(p->id.device, service_id)) {
		return -EBUSY;
	}
	p->id.service_id = service_id;
	p->id.state = IB_CM_LISTEN;
	p->listen_sharecount = 1;
	list_add_tail(&p->listen_node, &cm.listeners);
	p->in_listen = true;
	return 0;
}

int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&cm.lock, flags);
	ret = cm_listen_locked(to_priv(cm_id), service_id);
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_listen);

struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cm_id_private *p, *old;
	struct ib_cm_id *id;
	unsigned long flags;
	int ret;

	id = ib_create_cm_id(device, cm_handler, NULL);
	if (IS_ERR(id))
		return id;
	p = to_priv(id);

	spin_lock_irqsave(&cm.lock, flags);
	old = service_id == IB_CM_ASSIGN_SERVICE_ID ? NULL :
	      cm_find_listen(device, service_id);
	if (old) {
		if (old->id.cm_handler != cm_handler || old->destroying) {
			spin_unlock_irqrestore(&cm.lock, flags);
			ib_destroy_cm_id(id);
			return ERR_PTR(-EINVAL);
		}
		old->listen_sharecount++;
		spin_unlock_irqrestore(&cm.lock, flags);
		ib_destroy_cm_id(id);
		return &old->id;
	}
	ret = cm_listen_locked(p, service_id);
	spin_unlock_irqrestore(&cm.lock, flags);
	if (ret) {
		ib_destroy_cm_id(id);
		return ERR_PTR(ret);
	}
	return id;
}
EXPORT_SYMBOL(ib_cm_insert_listen);

/*
 * Forget the address vectors set up by a failed ib_send_cm_req/sidr_req.
 * Called without cm.lock; the id is IDLE so nothing else uses them.
 */
static void cm_undo_av(struct cm_id_private *p)
{
	unsigned long flags;
	bool av, qp;

	spin_lock_irqsave(&cm.lock, flags);
	av = p->av.valid;
	qp = p->qp_ah_valid;
	p->av.valid = false;
	p->qp_ah_valid = false;
	spin_unlock_irqrestore(&cm.lock, flags);
	if (av)
		rdma_destroy_ah_attr(&p->av.ah_attr);
	if (qp)
		rdma_destroy_ah_attr(&p->qp_ah_attr);
}

/* ---- REQ ---- */

static struct cm_port *cm_port_for_path(struct ib_device *device,
					struct sa_path_rec *path,
					const struct ib_gid_attr *sgid_attr)
{
	u32 port_num;
	u16 index;

	if (sgid_attr)
		return cm_get_port(device, sgid_attr->port_num);
	if (ib_find_gid(device, &path->sgid, &port_num, &index))
		return NULL;
	return cm_get_port(device, port_num);
}

int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cm_id_private *p = to_priv(cm_id);
	struct sa_path_rec *path = param->primary_path;
	struct rdma_ah_attr ah_attr;
	struct cm_device *cm_dev;
	struct cm_port *port;
	struct cm_msg *msg;
	unsigned long flags;
	u8 ack_timeout;
	u8 *d;
	int ret;

	if (!path || param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	if (param->qp_type != IB_QPT_RC && param->qp_type != IB_QPT_UC)
		return -EINVAL;
	port = cm_port_for_path(cm_id->device, path, param->ppath_sgid_attr);
	if (!port)
		return -EINVAL;
	cm_dev = port->cm_dev;

	ret = ib_init_ah_attr_from_path(cm_id->device, port->port_num, path,
					&ah_attr, param->ppath_sgid_attr);
	if (ret)
		return ret;

	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id->state != IB_CM_IDLE || p->av.valid) {
		ret = -EINVAL;
		goto err_unlock;
	}
	p->av.port = port;
	p->av.ah_attr = ah_attr;
	p->av.valid = true;
	p->av.pkey_index = cm_pkey_index(cm_id->device, port->port_num,
					 be16_to_cpu(path->pkey));
	ack_timeout = cm_ack_timeout(cm_dev->ack_delay, path->packet_life_time);
	/* Refined from the peer's target ACK delay when the REP arrives. */
	p->av.timeout = path->packet_life_time + 1;
	rdma_copy_ah_attr(&p->qp_ah_attr, &ah_attr);
	p->qp_ah_valid = true;

	cm_id->service_id = param->service_id;
	p->timeout_ms = cm_convert_to_ms(path->packet_life_time) * 2 +
			cm_convert_to_ms(param->remote_cm_response_timeout);
	p->max_cm_retries = param->max_cm_retries;
	p->local_qpn = param->qp_num;
	/*
	 * PSN bookkeeping follows the stock CM so that both ends agree: the
	 * REQ's starting PSN is what the active side receives with, the
	 * REP's what it sends with (and the reverse on the passive side).
	 */
	p->rq_psn = param->starting_psn;
	p->qp_type = param->qp_type;
	p->path_mtu = path->mtu;
	p->pkey = be16_to_cpu(path->pkey);
	p->responder_resources = param->responder_resources;
	p->initiator_depth = param->initiator_depth;
	p->retry_count = param->retry_count;
	p->rnr_retry_count = param->rnr_retry_count;
	cm_form_tid(p);

	msg = cm_alloc_msg(port, &p->av.ah_attr, p->av.pkey_index, NULL, NULL,
			   p);
	if (IS_ERR(msg)) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_undo_av(p);
		return PTR_ERR(msg);
	}
	d = cm_format_hdr(msg, CM_REQ_ATTR_ID, p->tid);
	cm_set_be32(d, REQ_LOCAL_COMM_ID, cm_id->local_id);
	cm_set_be64(d, REQ_SERVICE_ID, param->service_id);
	cm_set_be64(d, REQ_LOCAL_CA_GUID, cm_id->device->node_guid);
	cm_set24(d, REQ_LOCAL_QPN, param->qp_num);
	d[REQ_RESP_RESOURCES] = param->responder_resources;
	d[REQ_INIT_DEPTH] = param->initiator_depth;
	cm_set_bits(d, REQ_BYTE43, 0, 5, param->remote_cm_response_timeout);
	cm_set_bits(d, REQ_BYTE43, 5, 2, param->qp_type == IB_QPT_UC ? 1 : 0);
	cm_set_bits(d, REQ_BYTE43, 7, 1, param->flow_control);
	cm_set24(d, REQ_STARTING_PSN, param->starting_psn);
	cm_set_bits(d, REQ_BYTE47, 0, 5, param->local_cm_response_timeout);
	cm_set_bits(d, REQ_BYTE47, 5, 3, param->retry_count);
	cm_set16(d, REQ_PKEY, be16_to_cpu(path->pkey));
	cm_set_bits(d, REQ_BYTE50, 0, 4, path->mtu);
	cm_set_bits(d, REQ_BYTE50, 5, 3, param->rnr_retry_count);
	cm_set_bits(d, REQ_BYTE51, 0, 4, param->max_cm_retries);
	cm_set_bits(d, REQ_BYTE51, 4, 1, param->srq);
	if (path->hop_limit <= 1) {
		cm_set16(d, REQ_PRI_LOCAL_LID,
			 be32_to_cpu(sa_path_get_slid(path)) & 0xffff);
		cm_set16(d, REQ_PRI_REMOTE_LID,
			 be32_to_cpu(sa_path_get_dlid(path)) & 0xffff);
	} else {
		/* Routed: the remote LID is unknown (as the stock CM does). */
		cm_set16(d, REQ_PRI_LOCAL_LID, CM_LID_PERMISSIVE);
		cm_set16(d, REQ_PRI_REMOTE_LID, CM_LID_PERMISSIVE);
	}
	memcpy(d + REQ_PRI_LOCAL_GID, path->sgid.raw, 16);
	memcpy(d + REQ_PRI_REMOTE_GID, path->dgid.raw, 16);
	cm_set32(d, REQ_PRI_FLOW_LABEL, be32_to_cpu(path->flow_label) << 12);
	cm_set_bits(d, REQ_PRI_RATE, 2, 6, path->rate);
	d[REQ_PRI_TCLASS] = path->traffic_class;
	d[REQ_PRI_HOP_LIMIT] = path->hop_limit;
	cm_set_bits(d, REQ_PRI_BYTE94, 0, 4, path->sl);
	cm_set_bits(d, REQ_PRI_BYTE94, 4, 1, path->hop_limit <= 1);
	cm_set_bits(d, REQ_PRI_ACK_TIMEOUT, 0, 5, ack_timeout);
	cm_copy_private(d, REQ_PRIVATE_DATA, param->private_data,
			param->private_data_len);

	ret = cm_post(msg, p->timeout_ms, p->max_cm_retries);
	if (ret) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_free_msg(msg);
		cm_undo_av(p);
		return ret;
	}
	p->msg = msg;
	cm_id->state = IB_CM_REQ_SENT;
	spin_unlock_irqrestore(&cm.lock, flags);
	return 0;

err_unlock:
	spin_unlock_irqrestore(&cm.lock, flags);
	rdma_destroy_ah_attr(&ah_attr);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

/* ---- replies without a cm_id ---- */

static void cm_issue_rej(struct cm_port *port, struct ib_mad_recv_wc *rwc,
			 enum ib_cm_rej_reason reason,
			 enum cm_msg_response rejected, const void *ari,
			 u8 ari_length)
{
	const u8 *rd = rwc->recv_buf.mad->data;
	struct cm_msg *msg;
	u8 *d;

	msg = cm_alloc_msg(port, NULL, 0, rwc->wc, rwc->recv_buf.grh, NULL);
	if (IS_ERR(msg))
		return;
	d = cm_format_hdr(msg, CM_REJ_ATTR_ID, rwc->recv_buf.mad->mad_hdr.tid);
	/* Swap the comm IDs of the message we answer. */
	cm_set_be32(d, REJ_REMOTE_COMM_ID, cm_get_be32(rd, 0));
	cm_set_be32(d, REJ_LOCAL_COMM_ID, cm_get_be32(rd, 4));
	if (rejected == CM_MSG_RESPONSE_REQ)
		cm_set_be32(d, REJ_LOCAL_COMM_ID, 0);
	cm_set_bits(d, REJ_MSG_REJECTED, 0, 2, rejected);
	cm_set16(d, REJ_REASON, reason);
	if (ari && ari_length) {
		ari_length = min_t(u8, ari_length, IB_CM_REJ_ARI_LENGTH);
		cm_set_bits(d, REJ_ARI_LENGTH, 0, 7, ari_length);
		memcpy(d + REJ_ARI, ari, ari_length);
	}
	if (cm_post(msg, 0, 0))
		cm_free_msg(msg);
}

static void cm_issue_drep(struct cm_port *port, struct ib_mad_recv_wc *rwc)
{
	const u8 *rd = rwc->recv_buf.mad->data;
	struct cm_msg *msg;
	u8 *d;

	msg = cm_alloc_msg(port, NULL, 0, rwc->wc, rwc->recv_buf.grh, NULL);
	if (IS_ERR(msg))
		return;
	d = cm_format_hdr(msg, CM_DREP_ATTR_ID,
			  rwc->recv_buf.mad->mad_hdr.tid);
	cm_set_be32(d, DREP_LOCAL_COMM_ID, cm_get_be32(rd, DREQ_REMOTE_COMM_ID));
	cm_set_be32(d, DREP_REMOTE_COMM_ID, cm_get_be32(rd, DREQ_LOCAL_COMM_ID));
	if (cm_post(msg, 0, 0))
		cm_free_msg(msg);
}

/* ---- REJ / MRA / REP / RTU / DREQ / DREP sends ---- */

static struct cm_msg *cm_msg_for(struct cm_id_private *p, __be16 attr,
				 u8 **d, bool track)
{
	struct cm_msg *msg;

	if (!p->av.valid)
		return ERR_PTR(-EINVAL);
	msg = cm_alloc_msg(p->av.port, &p->av.ah_attr, p->av.pkey_index,
			   NULL, NULL, track ? p : NULL);
	if (IS_ERR(msg))
		return msg;
	*d = cm_format_hdr(msg, attr, p->tid);
	return msg;
}

static int cm_send_rej_locked(struct cm_id_private *p,
			      enum ib_cm_rej_reason reason, const void *ari,
			      u8 ari_length, const void *data, u8 len)
{
	enum ib_cm_state state = p->id.state;
	struct cm_msg *msg;
	u8 *d;
	int ret;

	switch (state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		break;
	default:
		return -EINVAL;
	}
	msg = cm_msg_for(p, CM_REJ_ATTR_ID, &d, false);
	if (IS_ERR(msg))
		ret = PTR_ERR(msg);
	else
		ret = 0;
	if (!ret) {
		cm_set_be32(d, REJ_REMOTE_COMM_ID, p->id.remote_id);
		switch (state) {
		case IB_CM_REQ_RCVD:
			cm_set_be32(d, REJ_LOCAL_COMM_ID, 0);
			cm_set_bits(d, REJ_MSG_REJECTED, 0, 2,
				    CM_MSG_RESPONSE_REQ);
			break;
		case IB_CM_MRA_REQ_SENT:
			cm_set_be32(d, REJ_LOCAL_COMM_ID, p->id.local_id);
			cm_set_bits(d, REJ_MSG_REJECTED, 0, 2,
				    CM_MSG_RESPONSE_REQ);
			break;
		case IB_CM_REP_RCVD:
		case IB_CM_MRA_REP_SENT:
			cm_set_be32(d, REJ_LOCAL_COMM_ID, p->id.local_id);
			cm_set_bits(d, REJ_MSG_REJECTED, 0, 2,
				    CM_MSG_RESPONSE_REP);
			break;
		default:
			cm_set_be32(d, REJ_LOCAL_COMM_ID, p->id.local_id);
			cm_set_bits(d, REJ_MSG_REJECTED, 0, 2,
				    CM_MSG_RESPONSE_OTHER);
			break;
		}
		cm_set16(d, REJ_REASON, reason);
		if (ari && ari_length) {
			cm_set_bits(d, REJ_ARI_LENGTH, 0, 7, ari_length);
			memcpy(d + REJ_ARI, ari, ari_length);
		}
		cm_copy_private(d, REJ_PRIVATE_DATA, data, len);
		ret = cm_post(msg, 0, 0);
		if (ret)
			cm_free_msg(msg);
	}

	if (state == IB_CM_REP_SENT || state == IB_CM_MRA_REP_RCVD)
		cm_enter_timewait(p);
	else
		cm_reset_to_idle(p);
	return ret;
}

int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		   void *ari, u8 ari_length, const void *private_data,
		   u8 private_data_len)
{
	unsigned long flags;
	int ret;

	if ((private_data && private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE) ||
	    (ari && ari_length > IB_CM_REJ_ARI_LENGTH))
		return -EINVAL;
	spin_lock_irqsave(&cm.lock, flags);
	ret = cm_send_rej_locked(to_priv(cm_id), reason, ari, ari_length,
				 private_data, private_data_len);
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

static int cm_send_mra_locked(struct cm_id_private *p, u8 service_timeout,
			      enum cm_msg_response mraed, const void *data,
			      u8 len)
{
	struct cm_msg *msg;
	u8 *d;
	int ret;

	msg = cm_msg_for(p, CM_MRA_ATTR_ID, &d, false);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	cm_set_be32(d, MRA_LOCAL_COMM_ID, p->id.local_id);
	cm_set_be32(d, MRA_REMOTE_COMM_ID, p->id.remote_id);
	cm_set_bits(d, MRA_MSG_MRAED, 0, 2, mraed);
	cm_set_bits(d, MRA_SERVICE_TIMEOUT, 0, 5, service_timeout);
	cm_copy_private(d, MRA_PRIVATE_DATA, data, len);
	ret = cm_post(msg, 0, 0);
	if (ret)
		cm_free_msg(msg);
	return ret;
}

int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout,
		   const void *private_data, u8 private_data_len)
{
	struct cm_id_private *p = to_priv(cm_id);
	bool delay = service_timeout & IB_CM_MRA_FLAG_DELAY;
	enum cm_msg_response mraed;
	enum ib_cm_state next;
	unsigned long flags;
	int ret = 0;

	if (private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE)
		return -EINVAL;
	service_timeout &= ~IB_CM_MRA_FLAG_DELAY;

	spin_lock_irqsave(&cm.lock, flags);
	switch (cm_id->state) {
	case IB_CM_REQ_RCVD:
		mraed = CM_MSG_RESPONSE_REQ;
		next = IB_CM_MRA_REQ_SENT;
		break;
	case IB_CM_REP_RCVD:
		mraed = CM_MSG_RESPONSE_REP;
		next = IB_CM_MRA_REP_SENT;
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	if (!delay) {
		ret = cm_send_mra_locked(p, service_timeout, mraed,
					 private_data, private_data_len);
		if (ret)
			goto out;
	}
	cm_id->state = next;
	p->service_timeout = service_timeout;
out:
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cm_id_private *p = to_priv(cm_id);
	struct cm_device *cm_dev;
	struct cm_msg *msg;
	unsigned long flags;
	u8 *d;
	int ret;

	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;

	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id->state != IB_CM_REQ_RCVD &&
	    cm_id->state != IB_CM_MRA_REQ_SENT) {
		ret = -EINVAL;
		goto out;
	}
	cm_dev = p->av.port->cm_dev;
	msg = cm_msg_for(p, CM_REP_ATTR_ID, &d, true);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto out;
	}
	cm_set_be32(d, REP_LOCAL_COMM_ID, cm_id->local_id);
	cm_set_be32(d, REP_REMOTE_COMM_ID, cm_id->remote_id);
	cm_set24(d, REP_LOCAL_QPN, param->qp_num);
	cm_set24(d, REP_STARTING_PSN, param->starting_psn);
	d[REP_RESP_RESOURCES] = param->responder_resources;
	d[REP_INIT_DEPTH] = param->initiator_depth;
	cm_set_bits(d, REP_BYTE26, 0, 5, cm_dev->ack_delay);
	cm_set_bits(d, REP_BYTE26, 5, 2, param->failover_accepted);
	cm_set_bits(d, REP_BYTE26, 7, 1, param->flow_control);
	cm_set_bits(d, REP_BYTE27, 0, 3, param->rnr_retry_count);
	cm_set_bits(d, REP_BYTE27, 3, 1, param->srq);
	cm_set_be64(d, REP_LOCAL_CA_GUID, cm_id->device->node_guid);
	cm_copy_private(d, REP_PRIVATE_DATA, param->private_data,
			param->private_data_len);

	ret = cm_post(msg, p->timeout_ms, p->max_cm_retries);
	if (ret) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_free_msg(msg);
		return ret;
	}
	p->msg = msg;
	cm_id->state = IB_CM_REP_SENT;
	p->initiator_depth = param->initiator_depth;
	p->responder_resources = param->responder_resources;
	p->rq_psn = param->starting_psn;
	p->local_qpn = param->qp_num;
	p->rnr_retry_count = param->rnr_retry_count;
out:
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

static int cm_send_rtu_locked(struct cm_id_private *p, const void *data,
			      u8 len)
{
	struct cm_msg *msg;
	u8 *d;
	int ret;

	msg = cm_msg_for(p, CM_RTU_ATTR_ID, &d, false);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	cm_set_be32(d, RTU_LOCAL_COMM_ID, p->id.local_id);
	cm_set_be32(d, RTU_REMOTE_COMM_ID, p->id.remote_id);
	cm_copy_private(d, RTU_PRIVATE_DATA, data, len);
	ret = cm_post(msg, 0, 0);
	if (ret)
		cm_free_msg(msg);
	return ret;
}

int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data,
		   u8 private_data_len)
{
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE)
		return -EINVAL;
	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id->state != IB_CM_REP_RCVD &&
	    cm_id->state != IB_CM_MRA_REP_SENT) {
		ret = -EINVAL;
		goto out;
	}
	ret = cm_send_rtu_locked(to_priv(cm_id), private_data,
				 private_data_len);
	if (!ret)
		cm_id->state = IB_CM_ESTABLISHED;
out:
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

static int cm_send_dreq_locked(struct cm_id_private *p, const void *data,
			       u8 len)
{
	struct cm_msg *msg;
	u8 *d;
	int ret;

	if (p->id.state != IB_CM_ESTABLISHED)
		return -EINVAL;
	msg = cm_msg_for(p, CM_DREQ_ATTR_ID, &d, true);
	if (IS_ERR(msg)) {
		cm_enter_timewait(p);
		return PTR_ERR(msg);
	}
	cm_set_be32(d, DREQ_LOCAL_COMM_ID, p->id.local_id);
	cm_set_be32(d, DREQ_REMOTE_COMM_ID, p->id.remote_id);
	cm_set24(d, DREQ_REMOTE_QPN, p->remote_qpn);
	cm_copy_private(d, DREQ_PRIVATE_DATA, data, len);
	ret = cm_post(msg, p->timeout_ms, p->max_cm_retries);
	if (ret) {
		cm_free_msg(msg);
		cm_enter_timewait(p);
		return ret;
	}
	p->msg = msg;
	p->id.state = IB_CM_DREQ_SENT;
	return 0;
}

int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_DREQ_PRIVATE_DATA_SIZE)
		return -EINVAL;
	spin_lock_irqsave(&cm.lock, flags);
	ret = cm_send_dreq_locked(to_priv(cm_id), private_data,
				  private_data_len);
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

static int cm_send_drep_locked(struct cm_id_private *p, const void *data,
			       u8 len)
{
	struct cm_msg *msg;
	u8 *d;
	int ret;

	if (p->id.state != IB_CM_DREQ_RCVD)
		return -EINVAL;
	msg = cm_msg_for(p, CM_DREP_ATTR_ID, &d, false);
	if (IS_ERR(msg)) {
		cm_enter_timewait(p);
		return PTR_ERR(msg);
	}
	cm_set_be32(d, DREP_LOCAL_COMM_ID, p->id.local_id);
	cm_set_be32(d, DREP_REMOTE_COMM_ID, p->id.remote_id);
	cm_copy_private(d, DREP_PRIVATE_DATA, data, len);
	ret = cm_post(msg, 0, 0);
	if (ret)
		cm_free_msg(msg);
	cm_enter_timewait(p);
	return ret;
}

int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	unsigned long flags;
	int ret;

	if (private_data_len > IB_CM_DREP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	spin_lock_irqsave(&cm.lock, flags);
	ret = cm_send_drep_locked(to_priv(cm_id), private_data,
				  private_data_len);
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

/* ---- SIDR sends ---- */

int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param)
{
	struct cm_id_private *p = to_priv(cm_id);
	struct rdma_ah_attr ah_attr;
	struct cm_port *port;
	struct cm_msg *msg;
	unsigned long flags;
	u8 *d;
	int ret;

	if (!param->path ||
	    param->private_data_len > IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	port = cm_port_for_path(cm_id->device, param->path, param->sgid_attr);
	if (!port)
		return -EINVAL;
	ret = ib_init_ah_attr_from_path(cm_id->device, port->port_num,
					param->path, &ah_attr,
					param->sgid_attr);
	if (ret)
		return ret;

	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id->state != IB_CM_IDLE || p->av.valid) {
		spin_unlock_irqrestore(&cm.lock, flags);
		rdma_destroy_ah_attr(&ah_attr);
		return -EINVAL;
	}
	p->av.port = port;
	p->av.ah_attr = ah_attr;
	p->av.valid = true;
	p->av.pkey_index = cm_pkey_index(cm_id->device, port->port_num,
					 be16_to_cpu(param->path->pkey));
	p->av.timeout = param->path->packet_life_time + 1;
	cm_id->service_id = param->service_id;
	p->timeout_ms = param->timeout_ms;
	p->max_cm_retries = param->max_cm_retries;
	cm_form_tid(p);

	msg = cm_msg_for(p, CM_SIDR_REQ_ATTR_ID, &d, true);
	if (IS_ERR(msg)) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_undo_av(p);
		return PTR_ERR(msg);
	}
	cm_set_be32(d, SIDR_REQ_REQUEST_ID, cm_id->local_id);
	cm_set16(d, SIDR_REQ_PKEY, be16_to_cpu(param->path->pkey));
	cm_set_be64(d, SIDR_REQ_SERVICE_ID, param->service_id);
	cm_copy_private(d, SIDR_REQ_PRIVATE_DATA, param->private_data,
			param->private_data_len);
	ret = cm_post(msg, p->timeout_ms, p->max_cm_retries);
	if (ret) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_free_msg(msg);
		cm_undo_av(p);
		return ret;
	}
	p->msg = msg;
	cm_id->state = IB_CM_SIDR_REQ_SENT;
	spin_unlock_irqrestore(&cm.lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

static int cm_send_sidr_rep_locked(struct cm_id_private *p,
				   struct ib_cm_sidr_rep_param *param)
{
	struct cm_msg *msg;
	u8 *d;
	int ret;

	if (p->id.state != IB_CM_SIDR_REQ_RCVD)
		return -EINVAL;
	msg = cm_msg_for(p, CM_SIDR_REP_ATTR_ID, &d, false);
	if (IS_ERR(msg)) {
		ret = PTR_ERR(msg);
		goto out;
	}
	cm_set_be32(d, SIDR_REP_REQUEST_ID, p->id.remote_id);
	d[SIDR_REP_STATUS] = param->status;
	cm_set24(d, SIDR_REP_QPN, param->qp_num);
	cm_set_be64(d, SIDR_REP_SERVICE_ID, p->id.service_id);
	cm_set32(d, SIDR_REP_QKEY, param->qkey);
	if (param->info && param->info_length) {
		d[SIDR_REP_INFO_LENGTH] = param->info_length;
		memcpy(d + SIDR_REP_INFO, param->info, param->info_length);
	}
	cm_copy_private(d, SIDR_REP_PRIVATE_DATA, param->private_data,
			param->private_data_len);
	ret = cm_post(msg, 0, 0);
	if (ret)
		cm_free_msg(msg);
out:
	p->id.state = IB_CM_IDLE;
	if (p->in_sidr) {
		list_del(&p->sidr_node);
		p->in_sidr = false;
	}
	return ret;
}

int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param)
{
	unsigned long flags;
	int ret;

	if (param->info_length > IB_CM_SIDR_REP_INFO_LENGTH ||
	    param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE)
		return -EINVAL;
	spin_lock_irqsave(&cm.lock, flags);
	ret = cm_send_sidr_rep_locked(to_priv(cm_id), param);
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

/* ---- QP attributes and notify ---- */

int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct cm_id_private *p = to_priv(cm_id);
	enum ib_cm_state s;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&cm.lock, flags);
	s = cm_id->state;
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		if (s == IB_CM_IDLE || s == IB_CM_LISTEN || s == IB_CM_TIMEWAIT ||
		    s >= IB_CM_DREQ_SENT || !p->av.valid) {
			ret = -EINVAL;
			break;
		}
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS |
				IB_QP_PKEY_INDEX | IB_QP_PORT;
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
		if (p->responder_resources)
			qp_attr->qp_access_flags |= IB_ACCESS_REMOTE_READ |
						    IB_ACCESS_REMOTE_ATOMIC;
		qp_attr->pkey_index = p->av.pkey_index;
		qp_attr->port_num = p->av.port->port_num;
		break;
	case IB_QPS_RTR:
		if (s != IB_CM_REQ_RCVD && s != IB_CM_MRA_REQ_SENT &&
		    s != IB_CM_REP_RCVD && s != IB_CM_MRA_REP_SENT &&
		    s != IB_CM_REP_SENT && s != IB_CM_MRA_REP_RCVD &&
		    s != IB_CM_ESTABLISHED) {
			ret = -EINVAL;
			break;
		}
		*qp_attr_mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
				IB_QP_DEST_QPN | IB_QP_RQ_PSN;
		qp_attr->ah_attr = p->qp_ah_valid ? p->qp_ah_attr :
						    p->av.ah_attr;
		qp_attr->path_mtu = p->path_mtu;
		qp_attr->dest_qp_num = p->remote_qpn;
		qp_attr->rq_psn = p->rq_psn;
		if (p->qp_type == IB_QPT_RC) {
			*qp_attr_mask |= IB_QP_MAX_DEST_RD_ATOMIC |
					 IB_QP_MIN_RNR_TIMER;
			qp_attr->max_dest_rd_atomic = p->responder_resources;
			qp_attr->min_rnr_timer = 0;
		}
		break;
	case IB_QPS_RTS:
		/* The passive side goes to RTS before it sends the REP. */
		if (s != IB_CM_REQ_RCVD && s != IB_CM_MRA_REQ_SENT &&
		    s != IB_CM_REP_RCVD && s != IB_CM_MRA_REP_SENT &&
		    s != IB_CM_REP_SENT && s != IB_CM_MRA_REP_RCVD &&
		    s != IB_CM_ESTABLISHED) {
			ret = -EINVAL;
			break;
		}
		*qp_attr_mask = IB_QP_STATE | IB_QP_SQ_PSN;
		qp_attr->sq_psn = p->sq_psn;
		if (p->qp_type == IB_QPT_RC) {
			*qp_attr_mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					 IB_QP_RNR_RETRY |
					 IB_QP_MAX_QP_RD_ATOMIC;
			qp_attr->timeout = p->av.timeout;
			qp_attr->retry_cnt = p->retry_count;
			qp_attr->rnr_retry = p->rnr_retry_count;
			qp_attr->max_rd_atomic = p->initiator_depth;
		}
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

static void cm_established_work(struct work_struct *work);

int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	struct cm_id_private *p = to_priv(cm_id);
	struct cm_work *w;
	unsigned long flags;
	int ret = 0;

	if (event == IB_EVENT_PATH_MIG)
		return 0;
	if (event != IB_EVENT_COMM_EST)
		return -EINVAL;

	spin_lock_irqsave(&cm.lock, flags);
	if (cm_id->state == IB_CM_ESTABLISHED) {
		ret = -EISCONN;
	} else if (cm_id->state != IB_CM_REP_SENT &&
		   cm_id->state != IB_CM_MRA_REP_RCVD) {
		ret = -EINVAL;
	} else {
		w = kzalloc(sizeof(*w), GFP_ATOMIC);
		if (!w) {
			ret = -ENOMEM;
		} else {
			/* The event goes out from the workqueue, in order. */
			cm_cancel_msg(p);
			cm_id->state = IB_CM_ESTABLISHED;
			cm_get_id(p);
			w->cm_id_priv = p;
			INIT_WORK(&w->work, cm_established_work);
			queue_work(cm.wq, &w->work);
		}
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_notify);

static void cm_established_work(struct work_struct *work)
{
	struct cm_work *w = container_of(work, struct cm_work, work);
	struct ib_cm_event event = { .event = IB_CM_USER_ESTABLISHED };

	cm_deliver(w->cm_id_priv, &event);
	cm_put_id(w->cm_id_priv);
	kfree(w);
}

/* ---- receive handlers (workqueue context) ---- */

/* Look up a cm_id by our local comm ID (and, if non-zero, remote ID). */
static struct cm_id_private *cm_acquire(__be32 local_id, __be32 remote_id)
{
	struct cm_id_private *p;

	p = cm_find_local(local_id);
	if (!p || p->destroying || (remote_id && p->id.remote_id != remote_id))
		return NULL;
	cm_get_id(p);
	return p;
}

static void cm_path_from_req(struct sa_path_rec *path, const u8 *d,
			     struct cm_id_private *p,
			     const struct ib_gid_attr *gattr)
{
	memset(path, 0, sizeof(*path));
	if (gattr)
		path->rec_type = sa_conv_gid_to_pathrec_type(gattr->gid_type);
	else
		path->rec_type = SA_PATH_REC_TYPE_IB;
	/* The REQ's "local" is the remote end from our point of view. */
	memcpy(path->dgid.raw, d + REQ_PRI_LOCAL_GID, 16);
	memcpy(path->sgid.raw, d + REQ_PRI_REMOTE_GID, 16);
	path->service_id = cm_get_be64(d, REQ_SERVICE_ID);
	path->flow_label = cpu_to_be32(cm_get32(d, REQ_PRI_FLOW_LABEL) >> 12);
	path->hop_limit = d[REQ_PRI_HOP_LIMIT];
	path->traffic_class = d[REQ_PRI_TCLASS];
	path->reversible = 1;
	path->pkey = cpu_to_be16(cm_get16(d, REQ_PKEY));
	path->sl = cm_get_bits(d, REQ_PRI_BYTE94, 0, 4);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = cm_get_bits(d, REQ_BYTE50, 0, 4);
	path->rate_selector = IB_SA_EQ;
	path->rate = cm_get_bits(d, REQ_PRI_RATE, 2, 6);
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = cm_get_bits(d, REQ_PRI_ACK_TIMEOUT, 0, 5);
	if (path->packet_life_time)
		path->packet_life_time--;
	if (sa_path_is_roce(path)) {
		memcpy(path->roce.dmac, p->av.ah_attr.roce.dmac, ETH_ALEN);
		path->roce.route_resolved = true;
	} else {
		sa_path_set_dlid(path, cm_get16(d, REQ_PRI_LOCAL_LID));
		sa_path_set_slid(path, cm_get16(d, REQ_PRI_REMOTE_LID));
	}
	path->flags = IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL;
}

static void cm_req_handler(struct cm_work *w)
{
	struct ib_mad_recv_wc *rwc = w->mad_recv_wc;
	struct ib_device *device = w->port->cm_dev->ib_device;
	const u8 *d = rwc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_REQ_RECEIVED };
	struct ib_cm_req_event_param *req = &event.param.req_rcvd;
	struct cm_id_private *p, *listen, *old;
	__be32 remote_id = cm_get_be32(d, REQ_LOCAL_COMM_ID);
	__be64 guid = cm_get_be64(d, REQ_LOCAL_CA_GUID);
	__be64 service_id = cm_get_be64(d, REQ_SERVICE_ID);
	u32 remote_qpn = cm_get24(d, REQ_LOCAL_QPN);
	struct sa_path_rec path;
	struct ib_cm_id *id;
	unsigned long flags;
	u8 transport;
	u16 pkey = 0xffff;
	int ret;

	transport = cm_get_bits(d, REQ_BYTE43, 5, 2);
	if (transport > 1) {
		cm_issue_rej(w->port, rwc, IB_CM_REJ_INVALID_TRANSPORT_TYPE,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		return;
	}

	id = ib_create_cm_id(device, NULL, NULL);
	if (IS_ERR(id))
		return;
	p = to_priv(id);
	p->av.port = w->port;
	ret = ib_init_ah_attr_from_wc(device, w->port->port_num, rwc->wc,
				      rwc->recv_buf.grh, &p->av.ah_attr);
	if (ret)
		goto destroy;
	p->av.valid = true;
	p->av.pkey_index = rwc->wc->pkey_index;
	ib_query_pkey(device, w->port->port_num, rwc->wc->pkey_index, &pkey);

	spin_lock_irqsave(&cm.lock, flags);
	/* A duplicate of a REQ we already have, or of a finished one. */
	old = cm_find_conn(remote_id, guid);
	if (old) {
		if (old->id.state == IB_CM_MRA_REQ_SENT)
			cm_send_mra_locked(old, old->service_timeout,
					   CM_MSG_RESPONSE_REQ, NULL, 0);
		spin_unlock_irqrestore(&cm.lock, flags);
		goto destroy;
	}
	if (cm_find_timewait(remote_id, guid)) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_issue_rej(w->port, rwc, IB_CM_REJ_STALE_CONN,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		goto destroy;
	}
	/* The peer's QP is still connected to one of ours: stale. */
	list_for_each_entry(old, &cm.conns, conn_node) {
		if (old->remote_qpn == remote_qpn &&
		    old->remote_ca_guid == guid &&
		    old->id.state == IB_CM_ESTABLISHED) {
			spin_unlock_irqrestore(&cm.lock, flags);
			cm_issue_rej(w->port, rwc, IB_CM_REJ_STALE_CONN,
				     CM_MSG_RESPONSE_REQ, NULL, 0);
			goto destroy;
		}
	}
	listen = cm_find_listen(device, service_id);
	if (!listen || listen->destroying) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_issue_rej(w->port, rwc, IB_CM_REJ_INVALID_SERVICE_ID,
			     CM_MSG_RESPONSE_REQ, NULL, 0);
		goto destroy;
	}
	cm_listen_borrow(listen);
	id->cm_handler = listen->id.cm_handler;
	id->context = listen->id.context;
	id->service_id = service_id;
	id->remote_id = remote_id;
	id->state = IB_CM_REQ_RCVD;
	p->remote_ca_guid = guid;
	p->remote_qpn = remote_qpn;
	p->tid = rwc->recv_buf.mad->mad_hdr.tid;
	p->qp_type = transport ? IB_QPT_UC : IB_QPT_RC;
	p->sq_psn = cm_get24(d, REQ_STARTING_PSN);
	/* Provisional until our REP says otherwise (a QP may reach RTR first). */
	p->rq_psn = p->sq_psn;
	p->responder_resources = d[REQ_INIT_DEPTH];
	p->initiator_depth = d[REQ_RESP_RESOURCES];
	p->path_mtu = cm_get_bits(d, REQ_BYTE50, 0, 4);
	p->pkey = cm_get16(d, REQ_PKEY);
	p->retry_count = cm_get_bits(d, REQ_BYTE47, 5, 3);
	p->rnr_retry_count = cm_get_bits(d, REQ_BYTE50, 5, 3);
	p->max_cm_retries = cm_get_bits(d, REQ_BYTE51, 0, 4);
	p->timeout_ms = cm_convert_to_ms(cm_get_bits(d, REQ_BYTE47, 0, 5));
	cm_conn_insert(p);
	spin_unlock_irqrestore(&cm.lock, flags);

	cm_path_from_req(&path, d, p, p->av.ah_attr.grh.sgid_attr);
	ret = ib_init_ah_attr_from_path(device, w->port->port_num, &path,
					&p->qp_ah_attr,
					p->av.ah_attr.grh.sgid_attr);
	if (!ret)
		p->qp_ah_valid = true;
	p->av.timeout = path.packet_life_time + 1;

	req->listen_id = &listen->id;
	req->bth_pkey = pkey;
	req->port = w->port->port_num;
	req->primary_path = &path;
	req->alternate_path = NULL;
	req->ppath_sgid_attr = p->av.ah_attr.grh.sgid_attr;
	req->remote_ca_guid = guid;
	req->remote_qkey = cm_get32(d, REQ_LOCAL_QKEY);
	req->remote_qpn = remote_qpn;
	req->qp_type = p->qp_type;
	req->starting_psn = p->sq_psn;
	req->responder_resources = d[REQ_INIT_DEPTH];
	req->initiator_depth = d[REQ_RESP_RESOURCES];
	req->local_cm_response_timeout = cm_get_bits(d, REQ_BYTE43, 0, 5);
	req->flow_control = cm_get_bits(d, REQ_BYTE43, 7, 1);
	req->remote_cm_response_timeout = cm_get_bits(d, REQ_BYTE47, 0, 5);
	req->retry_count = p->retry_count;
	req->rnr_retry_count = p->rnr_retry_count;
	req->srq = cm_get_bits(d, REQ_BYTE51, 4, 1);
	event.private_data = (void *)(d + REQ_PRIVATE_DATA);

	cm_get_id(p);
	cm_deliver(p, &event);
	cm_put_id(p);
	cm_listen_return(listen);
	return;

destroy:
	ib_destroy_cm_id(id);
}

static void cm_rep_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_REP_RECEIVED };
	struct ib_cm_rep_event_param *rep = &event.param.rep_rcvd;
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, REP_REMOTE_COMM_ID), 0);
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_issue_rej(w->port, w->mad_recv_wc, IB_CM_REJ_INVALID_COMM_ID,
			     CM_MSG_RESPONSE_REP, NULL, 0);
		return;
	}
	switch (p->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		break;
	case IB_CM_ESTABLISHED:
		/* Our RTU got lost: repeat it. */
		if (p->id.remote_id == cm_get_be32(d, REP_LOCAL_COMM_ID))
			cm_send_rtu_locked(p, NULL, 0);
		goto drop;
	case IB_CM_MRA_REP_SENT:
		cm_send_mra_locked(p, p->service_timeout, CM_MSG_RESPONSE_REP,
				   NULL, 0);
		goto drop;
	default:
		goto drop;
	}
	p->id.remote_id = cm_get_be32(d, REP_LOCAL_COMM_ID);
	p->remote_ca_guid = cm_get_be64(d, REP_LOCAL_CA_GUID);
	if (cm_find_conn(p->id.remote_id, p->remote_ca_guid)) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_issue_rej(w->port, w->mad_recv_wc, IB_CM_REJ_STALE_CONN,
			     CM_MSG_RESPONSE_REP, NULL, 0);
		cm_put_id(p);
		return;
	}
	p->remote_qpn = cm_get24(d, REP_LOCAL_QPN);
	p->sq_psn = cm_get24(d, REP_STARTING_PSN);
	p->initiator_depth = d[REP_RESP_RESOURCES];
	p->responder_resources = d[REP_INIT_DEPTH];
	p->target_ack_delay = cm_get_bits(d, REP_BYTE26, 0, 5);
	p->av.timeout = cm_ack_timeout(p->target_ack_delay,
				       p->av.timeout ? p->av.timeout - 1 : 0);
	p->rnr_retry_count = cm_get_bits(d, REP_BYTE27, 0, 3);
	cm_cancel_msg(p);
	cm_conn_insert(p);
	p->id.state = IB_CM_REP_RCVD;
	spin_unlock_irqrestore(&cm.lock, flags);

	rep->remote_ca_guid = p->remote_ca_guid;
	rep->remote_qkey = cm_get32(d, REP_LOCAL_QKEY);
	rep->remote_qpn = p->remote_qpn;
	rep->starting_psn = p->sq_psn;
	rep->responder_resources = d[REP_INIT_DEPTH];
	rep->initiator_depth = d[REP_RESP_RESOURCES];
	rep->target_ack_delay = p->target_ack_delay;
	rep->failover_accepted = cm_get_bits(d, REP_BYTE26, 5, 2);
	rep->flow_control = cm_get_bits(d, REP_BYTE26, 7, 1);
	rep->rnr_retry_count = p->rnr_retry_count;
	rep->srq = cm_get_bits(d, REP_BYTE27, 3, 1);
	event.private_data = (void *)(d + REP_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
	return;
drop:
	spin_unlock_irqrestore(&cm.lock, flags);
	cm_put_id(p);
}

static void cm_rtu_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_RTU_RECEIVED };
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, RTU_REMOTE_COMM_ID),
		       cm_get_be32(d, RTU_LOCAL_COMM_ID));
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	if (p->id.state != IB_CM_REP_SENT &&
	    p->id.state != IB_CM_MRA_REP_RCVD) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_put_id(p);
		return;
	}
	cm_cancel_msg(p);
	p->id.state = IB_CM_ESTABLISHED;
	spin_unlock_irqrestore(&cm.lock, flags);

	event.private_data = (void *)(d + RTU_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
}

static void cm_dreq_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_DREQ_RECEIVED };
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, DREQ_REMOTE_COMM_ID),
		       cm_get_be32(d, DREQ_LOCAL_COMM_ID));
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		/* Our DREP may have been lost: answer anyway. */
		cm_issue_drep(w->port, w->mad_recv_wc);
		return;
	}
	if (cm_get24(d, DREQ_REMOTE_QPN) != p->local_qpn)
		goto drop;
	switch (p->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_DREQ_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(p);
		break;
	case IB_CM_ESTABLISHED:
		break;
	case IB_CM_TIMEWAIT:
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_issue_drep(w->port, w->mad_recv_wc);
		cm_put_id(p);
		return;
	default:
		goto drop;
	}
	p->id.state = IB_CM_DREQ_RCVD;
	spin_unlock_irqrestore(&cm.lock, flags);

	event.private_data = (void *)(d + DREQ_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
	return;
drop:
	spin_unlock_irqrestore(&cm.lock, flags);
	cm_put_id(p);
}

static void cm_drep_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_DREP_RECEIVED };
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, DREP_REMOTE_COMM_ID),
		       cm_get_be32(d, DREP_LOCAL_COMM_ID));
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	if (p->id.state != IB_CM_DREQ_SENT &&
	    p->id.state != IB_CM_DREQ_RCVD) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_put_id(p);
		return;
	}
	cm_enter_timewait(p);
	spin_unlock_irqrestore(&cm.lock, flags);

	event.private_data = (void *)(d + DREP_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
}

static struct cm_id_private *cm_acquire_rejected(const u8 *d)
{
	__be32 local = cm_get_be32(d, REJ_REMOTE_COMM_ID);
	__be32 remote = cm_get_be32(d, REJ_LOCAL_COMM_ID);
	struct cm_timewait *tw;

	if (cm_get16(d, REJ_REASON) == IB_CM_REJ_TIMEOUT &&
	    cm_get_bits(d, REJ_ARI_LENGTH, 0, 7) >= 8) {
		struct cm_id_private *p;

		p = cm_find_conn(remote, cm_get_be64(d, REJ_ARI));
		if (p) {
			cm_get_id(p);
			return p;
		}
		tw = cm_find_timewait(remote, cm_get_be64(d, REJ_ARI));
		return tw ? cm_acquire(tw->local_id, 0) : NULL;
	}
	if (cm_get_bits(d, REJ_MSG_REJECTED, 0, 2) == CM_MSG_RESPONSE_REQ)
		return cm_acquire(local, 0);
	return cm_acquire(local, remote);
}

static void cm_rej_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_REJ_RECEIVED };
	enum ib_cm_rej_reason reason = cm_get16(d, REJ_REASON);
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire_rejected(d);
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	switch (p->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(p);
		fallthrough;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		if (reason == IB_CM_REJ_STALE_CONN)
			cm_enter_timewait(p);
		else
			cm_reset_to_idle(p);
		break;
	case IB_CM_DREQ_SENT:
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_ESTABLISHED:
		cm_enter_timewait(p);
		break;
	default:
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_put_id(p);
		return;
	}
	spin_unlock_irqrestore(&cm.lock, flags);

	event.param.rej_rcvd.reason = reason;
	event.param.rej_rcvd.ari_length = cm_get_bits(d, REJ_ARI_LENGTH, 0, 7);
	event.param.rej_rcvd.ari = (void *)(d + REJ_ARI);
	event.private_data = (void *)(d + REJ_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
}

static void cm_mra_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_MRA_RECEIVED };
	u8 mraed = cm_get_bits(d, MRA_MSG_MRAED, 0, 2);
	u8 service_timeout = cm_get_bits(d, MRA_SERVICE_TIMEOUT, 0, 5);
	struct cm_id_private *p;
	unsigned long flags;
	int timeout;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, MRA_REMOTE_COMM_ID), 0);
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	timeout = cm_convert_to_ms(service_timeout) +
		  cm_convert_to_ms(p->av.timeout);
	if (p->id.state == IB_CM_REQ_SENT && mraed == CM_MSG_RESPONSE_REQ) {
		p->id.state = IB_CM_MRA_REQ_RCVD;
	} else if (p->id.state == IB_CM_REP_SENT &&
		   mraed == CM_MSG_RESPONSE_REP) {
		p->id.state = IB_CM_MRA_REP_RCVD;
	} else {
		/* Repeated MRA: only extend the wait. */
		if ((p->id.state == IB_CM_MRA_REQ_RCVD ||
		     p->id.state == IB_CM_MRA_REP_RCVD) && p->msg)
			ib_modify_mad(p->msg->send_buf, timeout);
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_put_id(p);
		return;
	}
	if (p->msg)
		ib_modify_mad(p->msg->send_buf, timeout);
	if (mraed == CM_MSG_RESPONSE_REQ)
		p->id.remote_id = cm_get_be32(d, MRA_LOCAL_COMM_ID);
	spin_unlock_irqrestore(&cm.lock, flags);

	event.param.mra_rcvd.service_timeout = service_timeout;
	event.private_data = (void *)(d + MRA_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
}

static void cm_sidr_req_handler(struct cm_work *w)
{
	struct ib_mad_recv_wc *rwc = w->mad_recv_wc;
	struct ib_device *device = w->port->cm_dev->ib_device;
	const u8 *d = rwc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_SIDR_REQ_RECEIVED };
	struct ib_cm_sidr_req_event_param *sreq = &event.param.sidr_req_rcvd;
	struct ib_cm_sidr_rep_param rep = { .status = IB_SIDR_UNSUPPORTED };
	__be32 request_id = cm_get_be32(d, SIDR_REQ_REQUEST_ID);
	__be64 service_id = cm_get_be64(d, SIDR_REQ_SERVICE_ID);
	struct cm_id_private *p, *listen, *old;
	struct ib_cm_id *id;
	unsigned long flags;
	u16 pkey = 0xffff;

	id = ib_create_cm_id(device, NULL, NULL);
	if (IS_ERR(id))
		return;
	p = to_priv(id);
	p->av.port = w->port;
	if (ib_init_ah_attr_from_wc(device, w->port->port_num, rwc->wc,
				    rwc->recv_buf.grh, &p->av.ah_attr))
		goto destroy;
	p->av.valid = true;
	p->av.pkey_index = rwc->wc->pkey_index;
	ib_query_pkey(device, w->port->port_num, rwc->wc->pkey_index, &pkey);
	p->remote_gid = p->av.ah_attr.grh.dgid;
	p->tid = rwc->recv_buf.mad->mad_hdr.tid;
	id->remote_id = request_id;
	id->service_id = service_id;

	spin_lock_irqsave(&cm.lock, flags);
	list_for_each_entry(old, &cm.sidrs, sidr_node) {
		if (old->id.remote_id == request_id &&
		    !memcmp(&old->remote_gid, &p->remote_gid,
			    sizeof(p->remote_gid))) {
			spin_unlock_irqrestore(&cm.lock, flags);
			goto destroy;
		}
	}
	listen = cm_find_listen(device, service_id);
	id->state = IB_CM_SIDR_REQ_RCVD;
	if (!listen || listen->destroying) {
		cm_send_sidr_rep_locked(p, &rep);
		spin_unlock_irqrestore(&cm.lock, flags);
		goto destroy;
	}
	cm_listen_borrow(listen);
	list_add_tail(&p->sidr_node, &cm.sidrs);
	p->in_sidr = true;
	id->cm_handler = listen->id.cm_handler;
	id->context = listen->id.context;
	spin_unlock_irqrestore(&cm.lock, flags);

	sreq->listen_id = &listen->id;
	sreq->service_id = service_id;
	sreq->sgid_attr = p->av.ah_attr.grh.sgid_attr;
	sreq->bth_pkey = pkey;
	sreq->port = w->port->port_num;
	sreq->pkey = cm_get16(d, SIDR_REQ_PKEY);
	event.private_data = (void *)(d + SIDR_REQ_PRIVATE_DATA);
	cm_get_id(p);
	cm_deliver(p, &event);
	cm_put_id(p);
	cm_listen_return(listen);
	return;
destroy:
	ib_destroy_cm_id(id);
}

static void cm_sidr_rep_handler(struct cm_work *w)
{
	const u8 *d = w->mad_recv_wc->recv_buf.mad->data;
	struct ib_cm_event event = { .event = IB_CM_SIDR_REP_RECEIVED };
	struct ib_cm_sidr_rep_event_param *srep = &event.param.sidr_rep_rcvd;
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	p = cm_acquire(cm_get_be32(d, SIDR_REP_REQUEST_ID), 0);
	if (!p) {
		spin_unlock_irqrestore(&cm.lock, flags);
		return;
	}
	if (p->id.state != IB_CM_SIDR_REQ_SENT) {
		spin_unlock_irqrestore(&cm.lock, flags);
		cm_put_id(p);
		return;
	}
	cm_cancel_msg(p);
	p->id.state = IB_CM_IDLE;
	spin_unlock_irqrestore(&cm.lock, flags);

	srep->status = d[SIDR_REP_STATUS];
	srep->qkey = cm_get32(d, SIDR_REP_QKEY);
	srep->qpn = cm_get24(d, SIDR_REP_QPN);
	srep->info = (void *)(d + SIDR_REP_INFO);
	srep->info_len = min_t(u8, d[SIDR_REP_INFO_LENGTH],
			       IB_CM_SIDR_REP_INFO_LENGTH);
	srep->sgid_attr = p->av.ah_attr.grh.sgid_attr;
	event.private_data = (void *)(d + SIDR_REP_PRIVATE_DATA);
	cm_deliver(p, &event);
	cm_put_id(p);
}

static void cm_recv_work(struct work_struct *work)
{
	struct cm_work *w = container_of(work, struct cm_work, work);
	struct ib_mad_hdr *hdr = &w->mad_recv_wc->recv_buf.mad->mad_hdr;

	if (hdr->class_version != CM_CLASS_VERSION)
		goto out;
	switch (be16_to_cpu(hdr->attr_id)) {
	case 0x0010:
		cm_req_handler(w);
		break;
	case 0x0011:
		cm_mra_handler(w);
		break;
	case 0x0012:
		cm_rej_handler(w);
		break;
	case 0x0013:
		cm_rep_handler(w);
		break;
	case 0x0014:
		cm_rtu_handler(w);
		break;
	case 0x0015:
		cm_dreq_handler(w);
		break;
	case 0x0016:
		cm_drep_handler(w);
		break;
	case 0x0017:
		cm_sidr_req_handler(w);
		break;
	case 0x0018:
		cm_sidr_rep_handler(w);
		break;
	default:
		/* LAP/APR and unknown attributes are not supported. */
		break;
	}
out:
	ib_free_recv_mad(w->mad_recv_wc);
	kfree(w);
}

/* ---- send completions and timeouts ---- */

static void cm_send_done_work(struct work_struct *work)
{
	struct cm_msg *msg = container_of(work, struct cm_msg, work);
	struct cm_id_private *p = msg->cm_id_priv;
	struct ib_cm_event event = {};
	unsigned long flags;
	bool deliver = false;

	if (!p || msg->status == IB_WC_SUCCESS ||
	    msg->status == IB_WC_WR_FLUSH_ERR)
		goto free;

	spin_lock_irqsave(&cm.lock, flags);
	if (p->msg != msg || p->destroying) {
		spin_unlock_irqrestore(&cm.lock, flags);
		goto free;
	}
	p->msg = NULL;
	event.param.send_status = msg->status;
	switch (p->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		cm_reset_to_idle(p);
		event.event = IB_CM_REQ_ERROR;
		deliver = true;
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_reset_to_idle(p);
		event.event = IB_CM_REP_ERROR;
		deliver = true;
		break;
	case IB_CM_DREQ_SENT:
		cm_enter_timewait(p);
		event.event = IB_CM_DREQ_ERROR;
		deliver = true;
		break;
	case IB_CM_SIDR_REQ_SENT:
		p->id.state = IB_CM_IDLE;
		event.event = IB_CM_SIDR_REQ_ERROR;
		deliver = true;
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&cm.lock, flags);
	if (deliver) {
		cm_get_id(p);
		cm_deliver(p, &event);
		cm_put_id(p);
	}
free:
	cm_free_msg(msg);
}

static void cm_send_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *send_wc)
{
	struct cm_msg *msg = send_wc->send_buf->context[0];

	msg->status = send_wc->status;
	queue_work(cm.wq, &msg->work);
}

static void cm_recv_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_buf *send_buf,
			    struct ib_mad_recv_wc *mad_recv_wc)
{
	struct cm_work *w;

	w = kzalloc(sizeof(*w), GFP_ATOMIC);
	if (!w) {
		ib_free_recv_mad(mad_recv_wc);
		return;
	}
	w->port = agent->context;
	w->mad_recv_wc = mad_recv_wc;
	INIT_WORK(&w->work, cm_recv_work);
	queue_work(cm.wq, &w->work);
}

/* ---- timewait expiry ---- */

static void cm_timewait_work(struct work_struct *work)
{
	struct cm_timewait *tw = container_of(to_delayed_work(work),
					      struct cm_timewait, work);
	struct ib_cm_event event = { .event = IB_CM_TIMEWAIT_EXIT };
	struct cm_id_private *p;
	unsigned long flags;

	spin_lock_irqsave(&cm.lock, flags);
	list_del(&tw->list);
	p = cm_acquire(tw->local_id, 0);
	if (p && p->id.state != IB_CM_TIMEWAIT) {
		cm_put_id(p);
		p = NULL;
	}
	if (p)
		p->id.state = IB_CM_IDLE;
	spin_unlock_irqrestore(&cm.lock, flags);
	kfree(tw);
	if (p) {
		cm_deliver(p, &event);
		cm_put_id(p);
	}
}

/* ---- devices ---- */

static int cm_add_one(struct ib_device *device)
{
	struct ib_mad_reg_req reg_req = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = CM_CLASS_VERSION,
	};
	struct cm_device *cm_dev;
	unsigned long flags;
	bool any = false;
	u32 i;
	int ret;

	cm_dev = kzalloc(struct_size(cm_dev, port, device->phys_port_cnt),
			 GFP_KERNEL);
	if (!cm_dev)
		return -ENOMEM;
	cm_dev->ib_device = device;
	cm_dev->ack_delay = device->attrs.local_ca_ack_delay;
	set_bit(IB_MGMT_METHOD_SEND, reg_req.method_mask);

	rdma_for_each_port(device, i) {
		struct cm_port *port;

		if (!rdma_cap_ib_cm(device, i))
			continue;
		port = kzalloc(sizeof(*port), GFP_KERNEL);
		if (!port) {
			ret = -ENOMEM;
			goto err;
		}
		port->cm_dev = cm_dev;
		spin_lock_init(&port->agent_lock);
		port->port_num = i;
		cm_dev->port[i - 1] = port;
		port->mad_agent = ib_register_mad_agent(device, i, IB_QPT_GSI,
							&reg_req, 0,
							cm_send_handler,
							cm_recv_handler,
							port, 0);
		if (IS_ERR(port->mad_agent)) {
			ret = PTR_ERR(port->mad_agent);
			port->mad_agent = NULL;
			goto err;
		}
		any = true;
	}
	if (!any) {
		ret = -EOPNOTSUPP;
		goto err;
	}
	ib_set_client_data(device, &cm_client, cm_dev);
	spin_lock_irqsave(&cm.lock, flags);
	list_add_tail(&cm_dev->list, &cm.devices);
	spin_unlock_irqrestore(&cm.lock, flags);
	return 0;

err:
	rdma_for_each_port(device, i) {
		struct cm_port *port = cm_dev->port[i - 1];

		if (!port)
			continue;
		if (port->mad_agent)
			ib_unregister_mad_agent(port->mad_agent);
		kfree(port);
	}
	kfree(cm_dev);
	return ret;
}

static void cm_remove_one(struct ib_device *device, void *client_data)
{
	struct cm_device *cm_dev = client_data;
	struct ib_mad_agent *agent;
	unsigned long flags;
	u32 i;

	if (!cm_dev)
		return;
	spin_lock_irqsave(&cm.lock, flags);
	cm_dev->going_down = true;
	list_del(&cm_dev->list);
	spin_unlock_irqrestore(&cm.lock, flags);

	rdma_for_each_port(device, i) {
		struct cm_port *port = cm_dev->port[i - 1];

		if (!port)
			continue;
		spin_lock_irqsave(&port->agent_lock, flags);
		agent = port->mad_agent;
		port->mad_agent = NULL;
		spin_unlock_irqrestore(&port->agent_lock, flags);
		/* Flushes our sends; their completions are queued to cm.wq. */
		if (agent)
			ib_unregister_mad_agent(agent);
	}
	flush_workqueue(cm.wq);
	rdma_for_each_port(device, i)
		kfree(cm_dev->port[i - 1]);
	kfree(cm_dev);
}

static struct ib_client cm_client = {
	.name	= "cm",
	.add	= cm_add_one,
	.remove	= cm_remove_one,
};

/* ---- reject reason text ---- */

/* The texts ULPs print for a REJ reason. */
const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	switch (reason) {
	/* The peer's resources. */
	case IB_CM_REJ_NO_QP:
		return "no QP";
	case IB_CM_REJ_NO_EEC:
		return "no EEC";
	case IB_CM_REJ_NO_RESOURCES:
		return "no resources";
	case IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES:
		return "insufficient resp resources";
	case IB_CM_REJ_TIMEOUT:
		return "timeout";
	/* The request itself. */
	case IB_CM_REJ_UNSUPPORTED:
		return "unsupported";
	case IB_CM_REJ_INVALID_SERVICE_ID:
		return "invalid service ID";
	case IB_CM_REJ_INVALID_TRANSPORT_TYPE:
		return "invalid transport type";
	case IB_CM_REJ_INVALID_MTU:
		return "invalid MTU";
	case IB_CM_REJ_INVALID_RNR_RETRY:
		return "invalid RNR retry";
	case IB_CM_REJ_INVALID_CLASS_VERSION:
		return "invalid class version";
	case IB_CM_REJ_CONSUMER_DEFINED:
		return "consumer defined";
	case IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED:
		return "vendor option is not supported";
	/* Communication ids. */
	case IB_CM_REJ_INVALID_COMM_ID:
		return "invalid comm ID";
	case IB_CM_REJ_INVALID_COMM_INSTANCE:
		return "invalid comm instance";
	case IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID:
		return "duplicate local comm ID";
	case IB_CM_REJ_STALE_CONN:
		return "stale conn";
	case IB_CM_REJ_RDC_NOT_EXIST:
		return "RDC not exist";
	/* The primary path. */
	case IB_CM_REJ_INVALID_GID:
		return "invalid GID";
	case IB_CM_REJ_INVALID_LID:
		return "invalid LID";
	case IB_CM_REJ_INVALID_SL:
		return "invalid SL";
	case IB_CM_REJ_INVALID_TRAFFIC_CLASS:
		return "invalid traffic class";
	case IB_CM_REJ_INVALID_HOP_LIMIT:
		return "invalid hop limit";
	case IB_CM_REJ_INVALID_PACKET_RATE:
		return "invalid packet rate";
	case IB_CM_REJ_INVALID_FLOW_LABEL:
		return "invalid flow label";
	/* The alternate path. */
	case IB_CM_REJ_INVALID_ALT_GID:
		return "invalid alt GID";
	case IB_CM_REJ_INVALID_ALT_LID:
		return "invalid alt LID";
	case IB_CM_REJ_INVALID_ALT_SL:
		return "invalid alt SL";
	case IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS:
		return "invalid alt traffic class";
	case IB_CM_REJ_INVALID_ALT_HOP_LIMIT:
		return "invalid alt hop limit";
	case IB_CM_REJ_INVALID_ALT_PACKET_RATE:
		return "invalid alt packet rate";
	case IB_CM_REJ_INVALID_ALT_FLOW_LABEL:
		return "invalid alt flow label";
	/* Redirection. */
	case IB_CM_REJ_PORT_CM_REDIRECT:
		return "port CM redirect";
	case IB_CM_REJ_PORT_REDIRECT:
		return "port redirect";
	}
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);

/* ---- module ---- */

static int __init ib_cm_init(void)
{
	int ret;

	spin_lock_init(&cm.lock);
	INIT_LIST_HEAD(&cm.devices);
	hash_init(cm.local_ids);
	INIT_LIST_HEAD(&cm.listeners);
	INIT_LIST_HEAD(&cm.conns);
	INIT_LIST_HEAD(&cm.sidrs);
	INIT_LIST_HEAD(&cm.timewaits);
	init_waitqueue_head(&cm.cb_wait);
	get_random_bytes(&cm.id_xor, sizeof(cm.id_xor));
	cm.next_id = 1;
	cm.next_service_id = 0x0200000000000000ULL | get_random_u32();

	cm.wq = alloc_ordered_workqueue("ib_cm", WQ_MEM_RECLAIM);
	if (!cm.wq)
		return -ENOMEM;
	ret = ib_register_client(&cm_client);
	if (ret) {
		destroy_workqueue(cm.wq);
		return ret;
	}
	return 0;
}

static void __exit ib_cm_cleanup(void)
{
	struct cm_timewait *tw;
	unsigned long flags;

	ib_unregister_client(&cm_client);

	/* Expire every timewait record now; each frees itself. */
	spin_lock_irqsave(&cm.lock, flags);
	list_for_each_entry(tw, &cm.timewaits, list)
		mod_delayed_work(cm.wq, &tw->work, 0);
	spin_unlock_irqrestore(&cm.lock, flags);
	destroy_workqueue(cm.wq);
}

module_init(ib_cm_init);
module_exit(ib_cm_cleanup);
