// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iw_cm: the iWARP connection manager.
 *
 * A consumer (rdma_cm) drives an iw_cm_id through listen, connect, accept,
 * reject and disconnect; the iWARP driver does the TCP/MPA work through the
 * iw_* methods of its ib_device and reports progress by calling the id's
 * event_handler, from any context. Each such event is copied into an entry
 * of the id's preallocated pool and queued; a work item per id delivers the
 * queued events in order to the consumer's cm_handler, in process context.
 *
 * States: IDLE -> LISTEN (listener), IDLE -> CONN_SENT -> ESTABLISHED
 * (active), CONN_RECV -> ESTABLISHED (an id made for a CONNECT_REQUEST),
 * ESTABLISHED -> CLOSING -> IDLE (disconnect, close), and DESTROYING.
 *
 * Lifetime: an id is refcounted. The creator, the driver (add_ref/rem_ref)
 * and a queued delivery each hold a reference; the last one frees it.
 * iw_destroy_cm_id() returns once the cm_handler is not running and can
 * never run again for the id, and the id's QP reference is dropped; the
 * driver may still hold the id a little longer (its events are then
 * dropped). Module unload waits for every id to be freed.
 *
 * Port mapping (iwpmd): not done. Every iWARP driver we know sets
 * IW_F_NO_PORT_MAP; a driver without it gets the consumer's addresses
 * unmapped (m_local_addr = local_addr, m_remote_addr = remote_addr).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("iWARP CM");
MODULE_LICENSE("Dual BSD/GPL");

/* Events one connection can have in flight: reply/established, disconnect, close. */
#define IWCM_CONN_EVENTS	4
/* A listener's pool grows with its backlog, within reason. */
#define IWCM_MAX_LISTEN_EVENTS	4096

enum iw_cm_state {
	IW_CM_STATE_IDLE,
	IW_CM_STATE_LISTEN,
	IW_CM_STATE_CONN_RECV,
	IW_CM_STATE_CONN_SENT,
	IW_CM_STATE_ESTABLISHED,
	IW_CM_STATE_CLOSING,
	IW_CM_STATE_DESTROYING,
};

/* One queued driver event, with its own copy of the private data. */
struct iwcm_event_ent {
	struct list_head list;
	struct iw_cm_event ev;
	u8 pdata[U8_MAX];
};

struct iwcm_id_private {
	struct iw_cm_id id;
	spinlock_t lock;		/* all fields below */
	enum iw_cm_state state;
	struct ib_qp *qp;
	refcount_t refcount;
	struct list_head free_ents;
	struct list_head pending;	/* events waiting for delivery */
	struct work_struct work;
	bool work_queued;
	/* No more calls of cm_handler (destroy started). */
	bool drop_events;
	/* cm_handler is running; destroy waits for it to return. */
	bool in_handler;
	struct task_struct *handler_task;
	/* A connect/accept/reject is with the driver (no reply yet). */
	bool connect_wait;
	wait_queue_head_t wait;
};

static struct workqueue_struct *iwcm_wq;
/* Ids not freed yet: module unload waits for zero. */
static atomic_t iwcm_live_ids = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(iwcm_live_wait);
/* Events dropped because an id's pool was empty. */
static atomic_t iwcm_dropped_events = ATOMIC_INIT(0);

static int default_backlog = 256;

static struct ctl_table_header *iwcm_ctl_table_hdr;
static struct ctl_table iwcm_ctl_table[] = {
	{
		.procname	= "default_backlog",
		.data		= &default_backlog,
		.maxlen		= sizeof(default_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{ }
};

static struct iwcm_id_private *to_priv(struct iw_cm_id *cm_id)
{
	return container_of(cm_id, struct iwcm_id_private, id);
}

/* ------------------------------------------------------------ lifetime */

static void free_ents(struct list_head *head)
{
	struct iwcm_event_ent *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, head, list) {
		list_del(&ent->list);
		kfree(ent);
	}
}

/* Adds @n entries to the id's pool. */
static int alloc_ents(struct iwcm_id_private *priv, int n)
{
	struct iwcm_event_ent *ent;
	unsigned long flags;
	LIST_HEAD(ents);

	while (n--) {
		ent = kzalloc(sizeof(*ent), GFP_KERNEL);
		if (!ent) {
			free_ents(&ents);
			return -ENOMEM;
		}
		list_add(&ent->list, &ents);
	}
	spin_lock_irqsave(&priv->lock, flags);
	list_splice(&ents, &priv->free_ents);
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

static void iwcm_get(struct iwcm_id_private *priv)
{
	refcount_inc(&priv->refcount);
}

/* May run in any context (the driver's rem_ref). */
static void iwcm_put(struct iwcm_id_private *priv)
{
	if (!refcount_dec_and_test(&priv->refcount))
		return;
	WARN_ON(!list_empty(&priv->pending));
	free_ents(&priv->free_ents);
	kfree(priv);
	if (atomic_dec_and_test(&iwcm_live_ids))
		wake_up(&iwcm_live_wait);
}

static void iwcm_add_ref(struct iw_cm_id *cm_id)
{
	iwcm_get(to_priv(cm_id));
}

static void iwcm_rem_ref(struct iw_cm_id *cm_id)
{
	iwcm_put(to_priv(cm_id));
}

static int cm_event_handler(struct iw_cm_id *cm_id, struct iw_cm_event *event);
static void cm_work_handler(struct work_struct *work);

static struct iwcm_id_private *create_id(struct ib_device *device,
					 iw_cm_handler cm_handler,
					 void *context)
{
	struct iwcm_id_private *priv;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);

	priv->id.device = device;
	priv->id.cm_handler = cm_handler;
	priv->id.context = context;
	priv->id.event_handler = cm_event_handler;
	priv->id.add_ref = iwcm_add_ref;
	priv->id.rem_ref = iwcm_rem_ref;
	priv->state = IW_CM_STATE_IDLE;
	spin_lock_init(&priv->lock);
	refcount_set(&priv->refcount, 1);
	INIT_LIST_HEAD(&priv->free_ents);
	INIT_LIST_HEAD(&priv->pending);
	INIT_WORK(&priv->work, cm_work_handler);
	init_waitqueue_head(&priv->wait);
	atomic_inc(&iwcm_live_ids);

	if (alloc_ents(priv, IWCM_CONN_EVENTS)) {
		iwcm_put(priv);
		return ERR_PTR(-ENOMEM);
	}
	return priv;
}

struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	struct iwcm_id_private *priv;

	priv = create_id(device, cm_handler, context);
	if (IS_ERR(priv))
		return ERR_CAST(priv);
	return &priv->id;
}
EXPORT_SYMBOL(iw_create_cm_id);

/* ------------------------------------------------------------ helpers */

/* Takes the id's QP reference for @qpn; the QP is the consumer's. */
static int get_qp(struct iwcm_id_private *priv, u32 qpn)
{
	struct ib_device *dev = priv->id.device;
	struct ib_qp *qp;
	unsigned long flags;

	if (!dev->ops.iw_get_qp || !dev->ops.iw_add_ref || !dev->ops.iw_rem_ref)
		return -EOPNOTSUPP;
	qp = dev->ops.iw_get_qp(dev, qpn);
	if (!qp)
		return -EINVAL;
	dev->ops.iw_add_ref(qp);
	spin_lock_irqsave(&priv->lock, flags);
	WARN_ON(priv->qp);
	priv->qp = qp;
	spin_unlock_irqrestore(&priv->lock, flags);
	return 0;
}

/* Drops the id's QP reference, if any. Process context. */
static void put_qp(struct iwcm_id_private *priv)
{
	struct ib_qp *qp;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	qp = priv->qp;
	priv->qp = NULL;
	spin_unlock_irqrestore(&priv->lock, flags);
	if (qp)
		priv->id.device->ops.iw_rem_ref(qp);
}

static void end_connect_wait(struct iwcm_id_private *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->connect_wait = false;
	spin_unlock_irqrestore(&priv->lock, flags);
	wake_up_all(&priv->wait);
}

static bool connect_done(struct iwcm_id_private *priv)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&priv->lock, flags);
	done = !priv->connect_wait;
	spin_unlock_irqrestore(&priv->lock, flags);
	return done;
}

static bool handler_idle(struct iwcm_id_private *priv)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&priv->lock, flags);
	idle = !priv->in_handler;
	spin_unlock_irqrestore(&priv->lock, flags);
	return idle;
}

/* No port mapper: the wire uses the consumer's addresses. */
static void set_wire_addrs(struct iw_cm_id *cm_id)
{
	cm_id->m_local_addr = cm_id->local_addr;
	cm_id->m_remote_addr = cm_id->remote_addr;
	cm_id->mapped = false;
}

static int modify_qp_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* ------------------------------------------------------------ destroy */

/*
 * Ends whatever the id is doing, according to its state, and marks it
 * DESTROYING: the driver's later events for it are dropped.
 */
static void teardown(struct iwcm_id_private *priv)
{
	struct iw_cm_id *cm_id = &priv->id;
	struct ib_device *dev = cm_id->device;
	enum iw_cm_state state;
	struct ib_qp *qp;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	state = priv->state;
	priv->state = IW_CM_STATE_DESTROYING;
	qp = priv->qp;
	spin_unlock_irqrestore(&priv->lock, flags);

	switch (state) {
	case IW_CM_STATE_LISTEN:
		dev->ops.iw_destroy_listen(cm_id);
		break;
	case IW_CM_STATE_ESTABLISHED:
	case IW_CM_STATE_CLOSING:
		/* Abrupt: the driver tears the connection down. */
		if (qp)
			modify_qp_state(qp, IB_QPS_ERR);
		break;
	case IW_CM_STATE_CONN_RECV:
		/* A request nobody accepted: the driver refuses it. */
		dev->ops.iw_reject(cm_id, NULL, 0);
		break;
	case IW_CM_STATE_DESTROYING:
		WARN_ONCE(1, "iw_cm: id destroyed twice\n");
		break;
	default:
		break;
	}
	put_qp(priv);
}

/* Stops deliveries and waits for a running cm_handler to return. */
static void stop_events(struct iwcm_id_private *priv)
{
	unsigned long flags;
	bool self;

	spin_lock_irqsave(&priv->lock, flags);
	priv->drop_events = true;
	self = priv->in_handler && priv->handler_task == current;
	spin_unlock_irqrestore(&priv->lock, flags);

	/* Destroying an id from its own handler would wait for ourselves. */
	if (WARN_ONCE(self, "iw_cm: id destroyed from its own cm_handler\n"))
		return;
	wait_event(priv->wait, handler_idle(priv));
}

void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	struct iwcm_id_private *priv = to_priv(cm_id);

	stop_events(priv);
	/* A connect or accept with the driver ends with its reply event. */
	wait_event(priv->wait, connect_done(priv));
	teardown(priv);
	iwcm_put(priv);
}
EXPORT_SYMBOL(iw_destroy_cm_id);

/*
 * The cm_handler returned non-zero: destroy the id from the delivery work.
 * No wait for a pending connect: its reply would be delivered by this very
 * work, and it is dropped anyway once the id is DESTROYING.
 */
static void destroy_from_handler(struct iwcm_id_private *priv)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	priv->drop_events = true;
	priv->connect_wait = false;
	spin_unlock_irqrestore(&priv->lock, flags);
	wake_up_all(&priv->wait);
	teardown(priv);
	iwcm_put(priv);
}

/* ------------------------------------------------------------ consumer API */

int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	struct ib_device *dev = cm_id->device;
	unsigned long flags;
	int ret;

	if (!dev->ops.iw_create_listen || !dev->ops.iw_destroy_listen)
		return -EOPNOTSUPP;
	if (backlog <= 0)
		backlog = READ_ONCE(default_backlog);
	if (backlog <= 0)
		backlog = 1;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state != IW_CM_STATE_IDLE) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return -EINVAL;
	}
	priv->state = IW_CM_STATE_LISTEN;
	spin_unlock_irqrestore(&priv->lock, flags);

	/* One pool entry per pending connection request. */
	ret = alloc_ents(priv, min(backlog, IWCM_MAX_LISTEN_EVENTS));
	if (ret)
		goto err;
	set_wire_addrs(cm_id);
	ret = dev->ops.iw_create_listen(cm_id, backlog);
	if (ret)
		goto err;
	return 0;
err:
	spin_lock_irqsave(&priv->lock, flags);
	priv->state = IW_CM_STATE_IDLE;
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(iw_cm_listen);

/* Moves CONN_RECV/IDLE ids into a driver call; @from: the required state. */
static int begin_driver_call(struct iwcm_id_private *priv,
			     enum iw_cm_state from, enum iw_cm_state to)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state != from || priv->connect_wait)
		ret = -EINVAL;
	else {
		priv->state = to;
		priv->connect_wait = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}

/* The driver refused a connect/accept: back to IDLE without a QP. */
static void driver_call_failed(struct iwcm_id_private *priv,
			       enum iw_cm_state expect)
{
	unsigned long flags;

	put_qp(priv);
	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == expect)
		priv->state = IW_CM_STATE_IDLE;
	spin_unlock_irqrestore(&priv->lock, flags);
	end_connect_wait(priv);
}

int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	int ret;

	ret = begin_driver_call(priv, IW_CM_STATE_CONN_RECV,
				IW_CM_STATE_IDLE);
	if (ret)
		return ret;
	ret = cm_id->device->ops.iw_reject(cm_id, private_data,
					   private_data_len);
	end_connect_wait(priv);
	return ret;
}
EXPORT_SYMBOL(iw_cm_reject);

int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	int ret;

	/* Stays CONN_RECV until the driver reports ESTABLISHED. */
	ret = begin_driver_call(priv, IW_CM_STATE_CONN_RECV,
				IW_CM_STATE_CONN_RECV);
	if (ret)
		return ret;
	ret = get_qp(priv, iw_param->qpn);
	if (ret) {
		/* Still a pending request: destroy or reject refuses it. */
		end_connect_wait(priv);
		return ret;
	}
	ret = cm_id->device->ops.iw_accept(cm_id, iw_param);
	if (ret)
		goto err;
	return 0;
err:
	driver_call_failed(priv, IW_CM_STATE_CONN_RECV);
	return ret;
}
EXPORT_SYMBOL(iw_cm_accept);

int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	struct ib_device *dev = cm_id->device;
	int ret;

	if (!dev->ops.iw_connect)
		return -EOPNOTSUPP;
	ret = begin_driver_call(priv, IW_CM_STATE_IDLE, IW_CM_STATE_CONN_SENT);
	if (ret)
		return ret;
	ret = get_qp(priv, iw_param->qpn);
	if (ret)
		goto err;
	set_wire_addrs(cm_id);
	/* The reply (or failure) comes as a CONNECT_REPLY event. */
	ret = dev->ops.iw_connect(cm_id, iw_param);
	if (ret)
		goto err;
	return 0;
err:
	driver_call_failed(priv, IW_CM_STATE_CONN_SENT);
	return ret;
}
EXPORT_SYMBOL(iw_cm_connect);

int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	struct ib_qp *qp = NULL;
	unsigned long flags;
	int ret = 0;

	/* Not while a connect or accept is still with the driver. */
	wait_event(priv->wait, connect_done(priv));

	spin_lock_irqsave(&priv->lock, flags);
	switch (priv->state) {
	case IW_CM_STATE_ESTABLISHED:
		priv->state = IW_CM_STATE_CLOSING;
		qp = priv->qp;
		if (qp)
			priv->id.device->ops.iw_add_ref(qp);
		else
			ret = -EINVAL;
		break;
	case IW_CM_STATE_CLOSING:	/* the peer closed first */
	case IW_CM_STATE_IDLE:		/* connect or accept failed */
	case IW_CM_STATE_CONN_RECV:	/* a request never accepted */
		break;
	default:
		ret = -EINVAL;
		break;
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	if (qp) {
		/* SQD starts an orderly close, ERR a reset. */
		ret = modify_qp_state(qp, abrupt ? IB_QPS_ERR : IB_QPS_SQD);
		cm_id->device->ops.iw_rem_ref(qp);
	}
	return ret;
}
EXPORT_SYMBOL(iw_cm_disconnect);

int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	enum iw_cm_state state;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	state = priv->state;
	spin_unlock_irqrestore(&priv->lock, flags);

	switch (state) {
	case IW_CM_STATE_IDLE:
	case IW_CM_STATE_CONN_SENT:
	case IW_CM_STATE_CONN_RECV:
	case IW_CM_STATE_ESTABLISHED:
		break;
	default:
		return -EINVAL;
	}

	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		/* The peer may write and read our memory. */
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_READ;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		return 0;
	case IB_QPS_RTR:
	case IB_QPS_RTS:
		/* The driver moves the QP to RTS itself after MPA. */
		*qp_attr_mask = 0;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);

/* ------------------------------------------------------------ driver events */

/*
 * The driver's upcall, in any context: queue a copy of @event for the
 * delivery work. -ENOMEM (counted) when the id's pool is empty, -ENODEV
 * once the id is being destroyed: either way the event is not taken, and
 * a driver keeps what it gave with a CONNECT_REQUEST.
 */
static int cm_event_handler(struct iw_cm_id *cm_id, struct iw_cm_event *event)
{
	struct iwcm_id_private *priv = to_priv(cm_id);
	struct iwcm_event_ent *ent;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state == IW_CM_STATE_DESTROYING) {
		ret = -ENODEV;
		goto out;
	}
	ent = list_first_entry_or_null(&priv->free_ents,
				       struct iwcm_event_ent, list);
	if (!ent) {
		ret = -ENOMEM;
		goto out;
	}
	list_del(&ent->list);

	ent->ev = *event;
	ent->ev.private_data = NULL;
	if (event->private_data_len && event->private_data) {
		memcpy(ent->pdata, event->private_data,
		       event->private_data_len);
		ent->ev.private_data = ent->pdata;
	} else {
		ent->ev.private_data_len = 0;
	}
	list_add_tail(&ent->list, &priv->pending);
	if (!priv->work_queued) {
		priv->work_queued = true;
		iwcm_get(priv);
		queue_work(iwcm_wq, &priv->work);
	}
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	if (ret == -ENOMEM)
		pr_warn_ratelimited("iw_cm: event %d dropped, no free entry (%d dropped so far)\n",
				    event->event,
				    atomic_inc_return(&iwcm_dropped_events));
	return ret;
}

/*
 * Calls @handler_priv's consumer handler for @cm_id (the id itself, or the
 * new id of a CONNECT_REQUEST) unless destroy has started. Returns the
 * handler's verdict; when it was not called, 0 and *@dropped set.
 */
static int deliver(struct iwcm_id_private *handler_priv,
		   struct iw_cm_id *cm_id, struct iw_cm_event *event,
		   bool *dropped)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&handler_priv->lock, flags);
	if (handler_priv->drop_events) {
		spin_unlock_irqrestore(&handler_priv->lock, flags);
		if (dropped)
			*dropped = true;
		return 0;
	}
	handler_priv->in_handler = true;
	handler_priv->handler_task = current;
	spin_unlock_irqrestore(&handler_priv->lock, flags);

	ret = cm_id->cm_handler(cm_id, event);

	spin_lock_irqsave(&handler_priv->lock, flags);
	handler_priv->in_handler = false;
	handler_priv->handler_task = NULL;
	spin_unlock_irqrestore(&handler_priv->lock, flags);
	wake_up_all(&handler_priv->wait);
	return ret;
}

/* A listener got a request: a new id in CONN_RECV goes to the consumer. */
static void conn_req_event(struct iwcm_id_private *lpriv,
			   struct iw_cm_event *event)
{
	struct iwcm_id_private *priv;
	struct iw_cm_id *cm_id;
	bool listening, dropped = false;
	unsigned long flags;

	spin_lock_irqsave(&lpriv->lock, flags);
	listening = lpriv->state == IW_CM_STATE_LISTEN;
	spin_unlock_irqrestore(&lpriv->lock, flags);

	priv = create_id(lpriv->id.device, lpriv->id.cm_handler,
			 lpriv->id.context);
	if (IS_ERR(priv)) {
		/* The driver times the request out. */
		pr_warn_ratelimited("iw_cm: no memory for a connection request\n");
		return;
	}
	cm_id = &priv->id;
	cm_id->provider_data = event->provider_data;
	cm_id->local_addr = event->local_addr;
	cm_id->remote_addr = event->remote_addr;
	cm_id->m_local_addr = event->local_addr;
	cm_id->m_remote_addr = event->remote_addr;
	cm_id->tos = lpriv->id.tos;
	cm_id->tos_set = lpriv->id.tos_set;
	cm_id->afonly = lpriv->id.afonly;
	priv->state = IW_CM_STATE_CONN_RECV;

	/*
	 * Refused by the consumer, or nobody to tell because the listener is
	 * going away: the new id's teardown rejects the request.
	 */
	if (!listening || deliver(lpriv, cm_id, event, &dropped) || dropped)
		destroy_from_handler(priv);
}

/* The active side's answer arrived (or the attempt failed). */
static int conn_reply_event(struct iwcm_id_private *priv,
			    struct iw_cm_event *event)
{
	unsigned long flags;
	bool ok = !event->status;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state != IW_CM_STATE_CONN_SENT) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	}
	if (ok) {
		priv->state = IW_CM_STATE_ESTABLISHED;
		priv->id.m_local_addr = event->local_addr;
		priv->id.m_remote_addr = event->remote_addr;
	} else {
		priv->state = IW_CM_STATE_IDLE;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (!ok)
		put_qp(priv);
	end_connect_wait(priv);
	return deliver(priv, &priv->id, event, NULL);
}

/* The passive side's accept completed. */
static int established_event(struct iwcm_id_private *priv,
			     struct iw_cm_event *event)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state != IW_CM_STATE_CONN_RECV) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	}
	priv->state = IW_CM_STATE_ESTABLISHED;
	spin_unlock_irqrestore(&priv->lock, flags);
	end_connect_wait(priv);
	return deliver(priv, &priv->id, event, NULL);
}

/* The peer started an orderly close. */
static int disconnect_event(struct iwcm_id_private *priv,
			    struct iw_cm_event *event)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->state != IW_CM_STATE_ESTABLISHED) {
		/* We started it (CLOSING), or it is over already. */
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	}
	priv->state = IW_CM_STATE_CLOSING;
	spin_unlock_irqrestore(&priv->lock, flags);
	return deliver(priv, &priv->id, event, NULL);
}

/* The connection is gone: the QP is released, the id is IDLE again. */
static int close_event(struct iwcm_id_private *priv,
		       struct iw_cm_event *event)
{
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	switch (priv->state) {
	case IW_CM_STATE_ESTABLISHED:
	case IW_CM_STATE_CLOSING:
	/* A driver closing before its reply or ESTABLISHED: same cleanup. */
	case IW_CM_STATE_CONN_SENT:
	case IW_CM_STATE_CONN_RECV:
		priv->state = IW_CM_STATE_IDLE;
		break;
	default:
		spin_unlock_irqrestore(&priv->lock, flags);
		return 0;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	put_qp(priv);
	end_connect_wait(priv);
	return deliver(priv, &priv->id, event, NULL);
}

static int process_event(struct iwcm_id_private *priv,
			 struct iw_cm_event *event)
{
	switch (event->event) {
	case IW_CM_EVENT_CONNECT_REQUEST:
		conn_req_event(priv, event);
		return 0;
	case IW_CM_EVENT_CONNECT_REPLY:
		return conn_reply_event(priv, event);
	case IW_CM_EVENT_ESTABLISHED:
		return established_event(priv, event);
	case IW_CM_EVENT_DISCONNECT:
		return disconnect_event(priv, event);
	case IW_CM_EVENT_CLOSE:
		return close_event(priv, event);
	default:
		pr_warn_ratelimited("iw_cm: unknown event %d from the driver\n",
				    event->event);
		return 0;
	}
}

/* Delivers an id's queued events in order; holds a reference meanwhile. */
static void cm_work_handler(struct work_struct *work)
{
	struct iwcm_id_private *priv =
		container_of(work, struct iwcm_id_private, work);
	struct iwcm_event_ent *ent;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	while ((ent = list_first_entry_or_null(&priv->pending,
					       struct iwcm_event_ent, list))) {
		list_del(&ent->list);
		spin_unlock_irqrestore(&priv->lock, flags);

		ret = process_event(priv, &ent->ev);
		if (ret)
			destroy_from_handler(priv);

		spin_lock_irqsave(&priv->lock, flags);
		list_add(&ent->list, &priv->free_ents);
	}
	priv->work_queued = false;
	spin_unlock_irqrestore(&priv->lock, flags);
	iwcm_put(priv);
}

/* ------------------------------------------------------------ module */

static int __init iw_cm_init(void)
{
	iwcm_wq = alloc_workqueue("iw_cm_wq", WQ_MEM_RECLAIM, 0);
	if (!iwcm_wq)
		return -ENOMEM;
	iwcm_ctl_table_hdr = register_net_sysctl(&init_net, "net/iw_cm",
						 iwcm_ctl_table);
	if (!iwcm_ctl_table_hdr) {
		destroy_workqueue(iwcm_wq);
		return -ENOMEM;
	}
	return 0;
}

static void __exit iw_cm_cleanup(void)
{
	/* A driver may still hold destroyed ids for a moment. */
	wait_event(iwcm_live_wait, !atomic_read(&iwcm_live_ids));
	unregister_net_sysctl_table(iwcm_ctl_table_hdr);
	destroy_workqueue(iwcm_wq);
}

module_init(iw_cm_init);
module_exit(iw_cm_cleanup);
