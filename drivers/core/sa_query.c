// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA client: SubnAdm (class 0x03) queries from kernel consumers to the
 * subnet manager of an InfiniBand port.
 *
 * Every IB port gets a GSI MAD agent and an address handle to the SM (the
 * port's SM LID and SL, the P_Key index of the default partition), rebuilt
 * whenever a port event says the SM, the LID or the P_Keys may have
 * changed and dropped while the port is down. A query is one MAD send
 * with retries: the caller's timeout is spread over SA_ATTEMPTS attempts.
 * Its id (handed back to the caller) lives in an xarray until the query
 * is over, which is what lets ib_sa_cancel_query() find it safely.
 *
 * The callback of a query runs exactly once, from the MAD layer's process
 * context (callers may sleep): with the answer, or with -ETIMEDOUT, -EINTR
 * (cancelled, or the device went away), -EINVAL (the SA answered with an
 * error status) or -EIO (the send failed). Ports without an SA (RoCE, iWARP)
 * answer -ENODEV at once, without a callback.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"
#include "sa.h"

#define SA_ATTEMPTS	4	/* tries per query, timeout split evenly */
#define SA_MIN_TRY_MS	20

/* The address handle to a port's SM; queries in flight hold a reference. */
struct sa_sm_ah {
	struct kref	ref;
	struct ib_ah	*ah;
	u16		pkey_index;
};

struct sa_device;

struct sa_port {
	struct sa_device	*sdev;
	u32			port_num;
	struct ib_mad_agent	*agent;		/* NULL: no SA on this port */
	spinlock_t		lock;		/* sm_ah */
	struct sa_sm_ah		*sm_ah;
	struct work_struct	refresh;
};

struct sa_device {
	struct ib_device	*device;
	struct ib_event_handler	handler;
	spinlock_t		lock;		/* starts, dying */
	unsigned int		starts;		/* queries being started */
	bool			dying;
	struct completion	started;	/* starts dropped to 0, dying */
	struct rcu_head		rcu;
	u32			nports;
	struct sa_port		ports[];	/* index: port number - 1 */
};

/* What differs between record types: how an answer reaches the caller. */
struct sa_query_ops {
	void (*deliver)(struct ib_sa_query *q, int status,
			const struct ib_sa_mad *mad);
	void (*release)(struct ib_sa_query *q);
};

struct ib_sa_query {
	const struct sa_query_ops *ops;
	struct ib_sa_client	*client;
	struct sa_port		*port;
	struct ib_mad_send_buf	*buf;
	struct sa_sm_ah		*sm_ah;
	u32			id;
	bool			delivered;
};

struct sa_path_query {
	struct ib_sa_query	q;
	void (*callback)(int status, struct sa_path_rec *resp, int num_prs,
			 void *context);
	void			*context;
	enum sa_path_rec_type	type;
};

struct sa_guidinfo_query {
	struct ib_sa_query	q;
	void (*callback)(int status, struct ib_sa_guidinfo_rec *resp,
			 void *context);
	void			*context;
};

struct sa_mcmember_query {
	struct ib_sa_query	q;
	void (*callback)(int status, struct ib_sa_mcmember_rec *resp,
			 void *context);
	void			*context;
};

static struct ib_client sa_client;
static DEFINE_XARRAY_FLAGS(sa_queries, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
static u32 sa_next_id;
static atomic_t sa_tid = ATOMIC_INIT(0);
static struct workqueue_struct *sa_wq;

/* ------------------------------------------------------------ clients */

void ib_sa_register_client(struct ib_sa_client *client)
{
	atomic_set(&client->users, 1);
	init_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_register_client);

static void sa_client_put(struct ib_sa_client *client)
{
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

/* Waits until every query and join of @client has called back. */
void ib_sa_unregister_client(struct ib_sa_client *client)
{
	sa_client_put(client);
	wait_for_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_unregister_client);

/* ------------------------------------------------------------ SM AH */

static void sa_sm_ah_release(struct kref *ref)
{
	struct sa_sm_ah *sm_ah = container_of(ref, struct sa_sm_ah, ref);

	rdma_destroy_ah(sm_ah->ah, RDMA_DESTROY_AH_SLEEPABLE);
	kfree(sm_ah);
}

static void sa_sm_ah_put(struct sa_sm_ah *sm_ah)
{
	if (sm_ah)
		kref_put(&sm_ah->ref, sa_sm_ah_release);
}

static void sa_port_set_ah(struct sa_port *port, struct sa_sm_ah *sm_ah)
{
	struct sa_sm_ah *old;

	spin_lock_irq(&port->lock);
	old = port->sm_ah;
	port->sm_ah = sm_ah;
	spin_unlock_irq(&port->lock);
	sa_sm_ah_put(old);
}

/* The SM as the port sees it now, or NULL while the port is not active. */
static struct sa_sm_ah *sa_build_sm_ah(struct sa_port *port)
{
	struct ib_device *device = port->sdev->device;
	struct rdma_ah_attr attr = {};
	struct ib_port_attr pattr;
	struct sa_sm_ah *sm_ah;
	u16 pkey_index;

	if (ib_query_port(device, port->port_num, &pattr) ||
	    pattr.state != IB_PORT_ACTIVE || !pattr.sm_lid)
		return NULL;
	if (ib_find_cached_pkey(device, port->port_num, IB_DEFAULT_PKEY_FULL,
				&pkey_index)) {
		dev_warn(&device->dev,
			 "port %u: no default P_Key, SA queries use index 0\n",
			 port->port_num);
		pkey_index = 0;
	}
	sm_ah = kzalloc(sizeof(*sm_ah), GFP_KERNEL);
	if (!sm_ah)
		return NULL;
	kref_init(&sm_ah->ref);
	sm_ah->pkey_index = pkey_index;
	attr.type = rdma_ah_find_type(device, port->port_num);
	rdma_ah_set_port_num(&attr, port->port_num);
	rdma_ah_set_dlid(&attr, pattr.sm_lid);
	rdma_ah_set_sl(&attr, pattr.sm_sl);
	sm_ah->ah = rdma_create_ah(port->agent->qp->pd, &attr,
				   RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(sm_ah->ah)) {
		dev_warn(&device->dev, "port %u: no AH to the SM: %ld\n",
			 port->port_num, PTR_ERR(sm_ah->ah));
		kfree(sm_ah);
		return NULL;
	}
	return sm_ah;
}

static void sa_refresh_work(struct work_struct *work)
{
	struct sa_port *port = container_of(work, struct sa_port, refresh);

	sa_port_set_ah(port, sa_build_sm_ah(port));
}

static void sa_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct sa_device *sdev = container_of(handler, struct sa_device,
					      handler);
	struct sa_port *port;
	u32 p = event->element.port_num;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		break;
	default:
		return;
	}
	if (p < 1 || p > sdev->nports || !sdev->ports[p - 1].agent)
		return;
	port = &sdev->ports[p - 1];
	/* Down: no new query may use the old SM; up: build it anew. */
	if (event->event == IB_EVENT_PORT_ERR)
		sa_port_set_ah(port, NULL);
	queue_work(sa_wq, &port->refresh);
}

/* ------------------------------------------------------------ queries */

/*
 * The port of a query being started, or NULL if it has no SA. Until
 * sa_port_put() the device's removal waits: its MAD agent stays usable.
 */
static struct sa_port *sa_port_get(struct ib_device *device, u32 port_num)
{
	struct sa_port *port = NULL;
	struct sa_device *sdev;
	unsigned long flags;

	rcu_read_lock();
	sdev = ib_get_client_data(device, &sa_client);
	if (sdev && port_num >= 1 && port_num <= sdev->nports &&
	    sdev->ports[port_num - 1].agent) {
		spin_lock_irqsave(&sdev->lock, flags);
		if (!sdev->dying) {
			sdev->starts++;
			port = &sdev->ports[port_num - 1];
		}
		spin_unlock_irqrestore(&sdev->lock, flags);
	}
	rcu_read_unlock();
	return port;
}

static void sa_port_put(struct sa_port *port)
{
	struct sa_device *sdev = port->sdev;
	unsigned long flags;

	spin_lock_irqsave(&sdev->lock, flags);
	if (!--sdev->starts && sdev->dying)
		complete(&sdev->started);
	spin_unlock_irqrestore(&sdev->lock, flags);
}

bool sa_port_has_sa(struct ib_device *device, u32 port_num)
{
	struct sa_port *port = sa_port_get(device, port_num);

	if (port)
		sa_port_put(port);
	return port;
}

/*
 * Prepares @q for @port: takes the SM AH, allocates the MAD and fills its
 * header. The caller packs the record into sa_query_mad(q)->data.
 */
static int sa_query_init(struct ib_sa_query *q, struct sa_port *port,
			 struct ib_sa_client *client, u16 attr_id, u8 method,
			 ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
			 gfp_t gfp_mask)
{
	struct ib_mad_agent *agent = port->agent;
	struct ib_sa_mad *mad;
	unsigned long flags;
	u32 try_ms;

	spin_lock_irqsave(&port->lock, flags);
	q->sm_ah = port->sm_ah;
	if (q->sm_ah)
		kref_get(&q->sm_ah->ref);
	spin_unlock_irqrestore(&port->lock, flags);
	if (!q->sm_ah)
		return -EAGAIN;		/* port down or no SM known yet */

	q->buf = ib_create_send_mad(agent, 1, q->sm_ah->pkey_index, 0,
				    IB_MGMT_SA_HDR, IB_MGMT_SA_DATA, gfp_mask,
				    IB_MGMT_BASE_VERSION);
	if (IS_ERR(q->buf)) {
		int ret = PTR_ERR(q->buf);

		sa_sm_ah_put(q->sm_ah);
		return ret;
	}
	q->port = port;
	q->client = client;
	q->buf->ah = q->sm_ah->ah;
	q->buf->context[0] = q;
	try_ms = max_t(unsigned long, timeout_ms / SA_ATTEMPTS,
		       SA_MIN_TRY_MS);
	q->buf->timeout_ms = try_ms;
	q->buf->retries = SA_ATTEMPTS - 1;

	mad = q->buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	mad->mad_hdr.class_version = IB_SA_CLASS_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.attr_id = cpu_to_be16(attr_id);
	mad->mad_hdr.tid = cpu_to_be64((u64)agent->hi_tid << 32 |
				       (u32)atomic_inc_return(&sa_tid));
	mad->sa_hdr.comp_mask = comp_mask;
	return 0;
}

static struct ib_sa_mad *sa_query_mad(struct ib_sa_query *q)
{
	return q->buf->mad;
}

/* Undoes sa_query_init() for a query that was never sent. */
static void sa_query_unprepare(struct ib_sa_query *q)
{
	ib_free_send_mad(q->buf);
	sa_sm_ah_put(q->sm_ah);
}

/*
 * Sends a prepared query. From here on the callback will run and the
 * query is freed after it; returns its id, or an error (nothing sent, no
 * callback, @q freed by the caller).
 */
static int sa_query_send(struct ib_sa_query *q, gfp_t gfp_mask,
			 struct ib_sa_query **query)
{
	u32 id;
	int ret;

	ret = xa_alloc_cyclic_irq(&sa_queries, &q->id, q, xa_limit_31b,
				  &sa_next_id, gfp_mask);
	if (ret < 0)
		return ret;
	id = q->id;
	atomic_inc(&q->client->users);
	if (query)
		*query = q;
	ret = ib_post_send_mad(q->buf, NULL);
	if (ret) {
		xa_erase_irq(&sa_queries, id);
		sa_client_put(q->client);
		return ret;
	}
	return id;
}

/*
 * Starts query @q (its ops and callback set by the caller): @rec packed by
 * @pack as the record of @attr_id/@method. Returns the query id, or an
 * error after which the caller frees @q (no callback then).
 */
static int sa_query_issue(struct ib_sa_query *q, struct ib_device *device,
			  u32 port_num, struct ib_sa_client *client,
			  u16 attr_id, u8 method, ib_sa_comp_mask comp_mask,
			  unsigned long timeout_ms, gfp_t gfp_mask,
			  void (*pack)(const void *rec, void *attribute),
			  const void *rec, struct ib_sa_query **query)
{
	struct sa_port *port = sa_port_get(device, port_num);
	int ret;

	if (!port)
		return -ENODEV;
	ret = sa_query_init(q, port, client, attr_id, method, comp_mask,
			    timeout_ms, gfp_mask);
	if (ret)
		goto out;
	pack(rec, sa_query_mad(q)->data);
	ret = sa_query_send(q, gfp_mask, query);
	if (ret < 0)
		sa_query_unprepare(q);
out:
	sa_port_put(port);
	return ret;
}

/* The MAD layer is done with the query: call back if nobody did, free. */
static void sa_send_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *wc)
{
	struct ib_sa_query *q = wc->send_buf->context[0];
	struct ib_sa_client *client = q->client;
	int status;

	if (!q->delivered) {
		switch (wc->status) {
		case IB_WC_RESP_TIMEOUT_ERR:
			status = -ETIMEDOUT;
			break;
		case IB_WC_WR_FLUSH_ERR:
			status = -EINTR;
			break;
		default:
			status = -EIO;
			break;
		}
		q->delivered = true;
		q->ops->deliver(q, status, NULL);
	}
	xa_erase_irq(&sa_queries, q->id);
	ib_free_send_mad(q->buf);
	sa_sm_ah_put(q->sm_ah);
	q->ops->release(q);
	sa_client_put(client);
}

static void sa_recv_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_buf *send_buf,
			    struct ib_mad_recv_wc *recv_wc)
{
	const struct ib_sa_mad *mad = (void *)recv_wc->recv_buf.mad;
	struct ib_sa_query *q;

	if (send_buf && recv_wc->wc->status == IB_WC_SUCCESS) {
		q = send_buf->context[0];
		q->delivered = true;
		/* As upstream: any SA error status reads as -EINVAL. */
		q->ops->deliver(q, mad->mad_hdr.status ? -EINVAL : 0, mad);
	}
	ib_free_recv_mad(recv_wc);
}

void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
	struct ib_sa_query *q;
	unsigned long flags;

	xa_lock_irqsave(&sa_queries, flags);
	q = xa_load(&sa_queries, id);
	/* Still in the table: its send buffer is alive. */
	if (q && q == query)
		ib_cancel_mad(q->buf);
	xa_unlock_irqrestore(&sa_queries, flags);
}
EXPORT_SYMBOL(ib_sa_cancel_query);

/* ------------------------------------------------------------ PathRecord */

static void sa_path_deliver(struct ib_sa_query *q, int status,
			    const struct ib_sa_mad *mad)
{
	struct sa_path_query *pq = container_of(q, struct sa_path_query, q);
	struct sa_path_rec rec, opa;

	if (!mad) {
		pq->callback(status, NULL, 0, pq->context);
		return;
	}
	/* An answer, even one with an error status, carries a record. */
	ib_sa_unpack_path((void *)mad->data, &rec);
	if (pq->type == SA_PATH_REC_TYPE_OPA) {
		sa_convert_path_ib_to_opa(&opa, &rec);
		pq->callback(status, &opa, 1, pq->context);
		return;
	}
	pq->callback(status, &rec, 1, pq->context);
}

static void sa_path_release(struct ib_sa_query *q)
{
	kfree(container_of(q, struct sa_path_query, q));
}

static const struct sa_query_ops sa_path_ops = {
	.deliver = sa_path_deliver,
	.release = sa_path_release,
};

static void sa_pack_path(const void *rec, void *attribute)
{
	ib_sa_pack_path((struct sa_path_rec *)rec, attribute);
}

int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query)
{
	struct sa_path_query *pq;
	int ret;

	pq = kzalloc(sizeof(*pq), gfp_mask);
	if (!pq)
		return -ENOMEM;
	pq->q.ops = &sa_path_ops;
	pq->callback = callback;
	pq->context = context;
	pq->type = rec->rec_type;
	ret = sa_query_issue(&pq->q, device, port_num, client,
			     IB_SA_ATTR_PATH_REC, IB_MGMT_METHOD_GET, comp_mask,
			     timeout_ms, gfp_mask, sa_pack_path, rec, query);
	if (ret < 0)
		kfree(pq);
	return ret;
}
EXPORT_SYMBOL(ib_sa_path_rec_get);

/* ------------------------------------------------------------ GuidInfoRecord */

static void sa_guidinfo_deliver(struct ib_sa_query *q, int status,
				const struct ib_sa_mad *mad)
{
	struct sa_guidinfo_query *gq =
		container_of(q, struct sa_guidinfo_query, q);
	struct ib_sa_guidinfo_rec rec;

	if (status || !mad) {
		gq->callback(status, NULL, gq->context);
		return;
	}
	sa_unpack_guidinfo(mad->data, &rec);
	gq->callback(0, &rec, gq->context);
}

static void sa_guidinfo_release(struct ib_sa_query *q)
{
	kfree(container_of(q, struct sa_guidinfo_query, q));
}

static const struct sa_query_ops sa_guidinfo_ops = {
	.deliver = sa_guidinfo_deliver,
	.release = sa_guidinfo_release,
};

int ib_sa_guid_info_rec_query(struct ib_sa_client *client,
			      struct ib_device *device, u32 port_num,
			      struct ib_sa_guidinfo_rec *rec,
			      ib_sa_comp_mask comp_mask, u8 method,
			      unsigned long timeout_ms, gfp_t gfp_mask,
			      void (*callback)(int status,
					       struct ib_sa_guidinfo_rec *resp,
					       void *context),
			      void *context, struct ib_sa_query **sa_query)
{
	struct sa_guidinfo_query *gq;
	int ret;

	if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET &&
	    method != IB_SA_METHOD_DELETE)
		return -EINVAL;
	gq = kzalloc(sizeof(*gq), gfp_mask);
	if (!gq)
		return -ENOMEM;
	gq->q.ops = &sa_guidinfo_ops;
	gq->callback = callback;
	gq->context = context;
	ret = sa_query_issue(&gq->q, device, port_num, client,
			     IB_SA_ATTR_GUID_INFO_REC, method, comp_mask,
			     timeout_ms, gfp_mask, sa_pack_guidinfo, rec,
			     sa_query);
	if (ret < 0)
		kfree(gq);
	return ret;
}
EXPORT_SYMBOL(ib_sa_guid_info_rec_query);

/* ------------------------------------------------------------ MCMemberRecord */

static void sa_mcmember_deliver(struct ib_sa_query *q, int status,
				const struct ib_sa_mad *mad)
{
	struct sa_mcmember_query *mq =
		container_of(q, struct sa_mcmember_query, q);
	struct ib_sa_mcmember_rec rec;

	if (status || !mad) {
		mq->callback(status, NULL, mq->context);
		return;
	}
	sa_unpack_mcmember(mad->data, &rec);
	mq->callback(0, &rec, mq->context);
}

static void sa_mcmember_release(struct ib_sa_query *q)
{
	kfree(container_of(q, struct sa_mcmember_query, q));
}

static const struct sa_query_ops sa_mcmember_ops = {
	.deliver = sa_mcmember_deliver,
	.release = sa_mcmember_release,
};

int sa_mcmember_query(struct ib_sa_client *client, struct ib_device *device,
		      u32 port_num, u8 method,
		      const struct ib_sa_mcmember_rec *rec,
		      ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		      gfp_t gfp_mask,
		      void (*callback)(int status,
				       struct ib_sa_mcmember_rec *resp,
				       void *context),
		      void *context, struct ib_sa_query **query)
{
	struct sa_mcmember_query *mq;
	int ret;

	mq = kzalloc(sizeof(*mq), gfp_mask);
	if (!mq)
		return -ENOMEM;
	mq->q.ops = &sa_mcmember_ops;
	mq->callback = callback;
	mq->context = context;
	ret = sa_query_issue(&mq->q, device, port_num, client,
			     IB_SA_ATTR_MC_MEMBER_REC, method, comp_mask,
			     timeout_ms, gfp_mask, sa_pack_mcmember, rec, query);
	if (ret < 0)
		kfree(mq);
	return ret;
}

/* ------------------------------------------------------------ devices */

static int sa_add_one(struct ib_device *device)
{
	struct sa_device *sdev;
	struct sa_port *port;
	unsigned int n = 0;
	u32 p;
	int ret;

	sdev = kzalloc(struct_size(sdev, ports, rdma_end_port(device)),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->device = device;
	sdev->nports = rdma_end_port(device);
	spin_lock_init(&sdev->lock);
	init_completion(&sdev->started);
	rdma_for_each_port(device, p) {
		port = &sdev->ports[p - 1];
		port->sdev = sdev;
		port->port_num = p;
		spin_lock_init(&port->lock);
		INIT_WORK(&port->refresh, sa_refresh_work);
		if (!rdma_cap_ib_sa(device, p))
			continue;
		port->agent = ib_register_mad_agent(device, p, IB_QPT_GSI, NULL,
						   0, sa_send_handler,
						   sa_recv_handler, sdev, 0);
		if (IS_ERR(port->agent)) {
			ret = PTR_ERR(port->agent);
			port->agent = NULL;
			goto err;
		}
		n++;
	}
	if (!n) {
		kfree(sdev);
		return -EOPNOTSUPP;
	}
	INIT_IB_EVENT_HANDLER(&sdev->handler, device, sa_event);
	ib_register_event_handler(&sdev->handler);
	ib_set_client_data(device, &sa_client, sdev);
	for (p = 0; p < sdev->nports; p++)
		if (sdev->ports[p].agent)
			queue_work(sa_wq, &sdev->ports[p].refresh);
	return 0;

err:
	for (p = 0; p < sdev->nports; p++)
		if (sdev->ports[p].agent)
			ib_unregister_mad_agent(sdev->ports[p].agent);
	kfree(sdev);
	return ret;
}

static void sa_remove_one(struct ib_device *device, void *client_data)
{
	struct sa_device *sdev = client_data;
	struct sa_port *port;
	bool wait;
	u32 p;

	ib_unregister_event_handler(&sdev->handler);
	spin_lock_irq(&sdev->lock);
	sdev->dying = true;
	wait = sdev->starts;
	spin_unlock_irq(&sdev->lock);
	if (wait)
		wait_for_completion(&sdev->started);
	for (p = 0; p < sdev->nports; p++) {
		port = &sdev->ports[p];
		if (!port->agent)
			continue;
		cancel_work_sync(&port->refresh);
		/* Every outstanding query calls back (-EINTR) and is freed. */
		ib_unregister_mad_agent(port->agent);
		sa_port_set_ah(port, NULL);
	}
	/* sa_port_get() may still be looking at it. */
	kfree_rcu(sdev, rcu);
}

static struct ib_client sa_client = {
	.name = "sa",
	.add = sa_add_one,
	.remove = sa_remove_one,
};

int ib_sa_init(void)
{
	int ret;

	sa_wq = alloc_ordered_workqueue("ib_sa", WQ_MEM_RECLAIM);
	if (!sa_wq)
		return -ENOMEM;
	ret = ib_register_client(&sa_client);
	if (ret)
		goto err_wq;
	ret = ib_sa_mcast_init();
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&sa_client);
err_wq:
	destroy_workqueue(sa_wq);
	return ret;
}

void ib_sa_cleanup(void)
{
	ib_sa_mcast_cleanup();
	ib_unregister_client(&sa_client);
	destroy_workqueue(sa_wq);
	WARN_ON(!xa_empty(&sa_queries));
}
