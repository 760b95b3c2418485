// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rdma_cm side of the server transport: the listener xpo_create
 * makes (wildcard address, afonly, backlog 10), CONNECT_REQUEST queueing
 * a new connection on it, xpo_accept turning that into a live transport
 * (resources, then rdma_accept with our CM private data, ULP.md 7.5), and
 * the CM events that close a connection.
 *
 * Lifetimes: the connect request handler runs under the listening id's
 * handler lock, so destroying that id in xpo_detach waits for it; events
 * on a connection id run under its own handler lock, which xpo_accept
 * takes around rdma_accept, so "accepted" and "peer_gone" cannot race.
 */
#include <linux/slab.h>
#include <linux/sunrpc/svc_xprt.h>
#include <net/net_namespace.h>

#include "svc_conn.h"

static void svcr_xprt_init_common(struct svcr_xprt *x)
{
	spin_lock_init(&x->lock);
	INIT_LIST_HEAD(&x->pending);
	INIT_LIST_HEAD(&x->pending_node);
	INIT_LIST_HEAD(&x->recv_free);
	INIT_LIST_HEAD(&x->recv_ready);
	INIT_LIST_HEAD(&x->send_free);
	INIT_LIST_HEAD(&x->rw_orphans);
	init_waitqueue_head(&x->send_wait);
}

/* What the client's private data says (RFC 8797); 1 KiB if it says nothing. */
static void svcr_parse_private(struct svcr_xprt *conn,
			       const struct rdma_conn_param *param)
{
	const struct rpcrdma_connect_private *pd = param->private_data;

	conn->peer_recv_size = RPCRDMA_V1_DEF_INLINE_SIZE;
	conn->snd_w_inv_ok = false;
	if (!pd || param->private_data_len < sizeof(*pd))
		return;
	if (pd->cp_magic != rpcrdma_cmp_magic ||
	    pd->cp_version != RPCRDMA_CMP_VERSION)
		return;
	conn->peer_recv_size = rpcrdma_decode_buffer_size(pd->cp_recv_size);
	conn->snd_w_inv_ok = !!(pd->cp_flags & RPCRDMA_CMP_F_SND_W_INV_OK);
}

static int svcr_conn_request(struct svcr_xprt *l, struct rdma_cm_id *id,
			     struct rdma_cm_event *ev)
{
	sa_family_t af = id->route.addr.dst_addr.ss_family;
	struct ib_device *dev = id->device;
	struct svcr_xprt *conn;
	unsigned int ird;

	/* sunrpc only knows IP addresses (no AF_IB) */
	if (af != AF_INET && af != AF_INET6)
		return -EAFNOSUPPORT;

	/* RDMA Reads we may issue: our cap, the device's, the client's IRD */
	ird = min_t(unsigned int, READ_ONCE(svcr_max_ord),
		    dev->attrs.max_qp_init_rd_atom);
	if (ev->param.conn.responder_resources)
		ird = min_t(unsigned int, ird,
			    ev->param.conn.responder_resources);
	if (!ird) {
		pr_info("svcrdma: %s cannot issue RDMA Reads, refusing\n",
			dev_name(&dev->dev));
		return -EINVAL;
	}

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	svcr_xprt_init_common(conn);
	conn->cm_id = id;
	conn->initiator_depth = ird;
	svcr_parse_private(conn, &ev->param.conn);
	/* From here on this id's events find the connection, not the listener */
	id->context = conn;

	spin_lock_bh(&l->lock);
	if (l->closing) {
		spin_unlock_bh(&l->lock);
		id->context = l;
		kfree(conn);
		/* non-zero: rdma_cm rejects and destroys the new id */
		return -ECONNREFUSED;
	}
	list_add_tail(&conn->pending_node, &l->pending);
	set_bit(XPT_CONN, &l->xprt.xpt_flags);
	svc_xprt_enqueue(&l->xprt);
	spin_unlock_bh(&l->lock);
	return 0;
}

static void svcr_conn_event(struct svcr_xprt *conn, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		break;
	default:
		return;
	}
	spin_lock_bh(&conn->lock);
	if (!conn->accepted)
		conn->peer_gone = true;
	else if (!conn->closing)
		svc_xprt_deferred_close(&conn->xprt);
	spin_unlock_bh(&conn->lock);
}

static void svcr_listener_event(struct svcr_xprt *l, struct rdma_cm_event *ev)
{
	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL &&
	    ev->event != RDMA_CM_EVENT_ADDR_CHANGE)
		return;
	/* a listener bound to a device that goes away is of no more use */
	pr_info("svcrdma: listener %pISpc lost its device (%s)\n",
		&l->xprt.xpt_local, rdma_event_msg(ev->event));
	spin_lock_bh(&l->lock);
	if (!l->closing)
		svc_xprt_deferred_close(&l->xprt);
	spin_unlock_bh(&l->lock);
}

/* May sleep: rdma_cm calls it from its own work context. */
static int svcr_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct svcr_xprt *x = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return svcr_conn_request(x, id, ev);
	if (x->listener)
		svcr_listener_event(x, ev);
	else
		svcr_conn_event(x, ev);
	/* connection ids are destroyed by xpo_free, never by rdma_cm */
	return 0;
}

struct svc_xprt *svcr_create(struct svc_serv *serv, struct net *net,
			     struct sockaddr *sa, int salen, int flags)
{
	struct rdma_cm_id *id;
	struct svcr_xprt *l;
	int err;

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return ERR_PTR(-EAFNOSUPPORT);

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	svcr_xprt_init_common(l);
	l->listener = true;

	id = rdma_create_id(net, svcr_cm_handler, l, RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		err = PTR_ERR(id);
		goto err_free;
	}
	/* IPv4 and IPv6 wildcard listeners share the port (7.4) */
	err = rdma_set_afonly(id, 1);
	if (err)
		goto err_id;
	err = rdma_bind_addr(id, sa);
	if (err)
		goto err_id;
	l->cm_id = id;

	/* before rdma_listen: a connect request enqueues this transport */
	svc_xprt_init(net, &svcr_class, &l->xprt, serv);
	set_bit(XPT_LISTENER, &l->xprt.xpt_flags);
	svc_xprt_set_local(&l->xprt, (struct sockaddr *)&id->route.addr.src_addr,
			   salen);

	err = rdma_listen(id, SVCR_LISTEN_BACKLOG);
	if (err)
		goto err_net;
	return &l->xprt;

err_net:
	/* the only thing svc_xprt_init() took that needs giving back */
	put_net_track(l->xprt.xpt_net, &l->xprt.ns_tracker);
err_id:
	rdma_destroy_id(id);
err_free:
	kfree(l);
	return ERR_PTR(err);
}

/* Undo a connection that never became a sunrpc transport. */
static void svcr_refuse(struct svcr_xprt *conn)
{
	bool inited = conn->xprt_inited;

	/* destroying a not yet accepted id rejects the connection */
	svcr_conn_teardown(conn);
	if (inited)
		put_net_track(conn->xprt.xpt_net, &conn->xprt.ns_tracker);
	kfree(conn);
}

struct svc_xprt *svcr_accept(struct svc_xprt *xprt)
{
	struct svcr_xprt *l = to_svcr(xprt);
	struct rpcrdma_connect_private pdata;
	struct rdma_conn_param param = { };
	struct svcr_xprt *conn;
	struct sockaddr *sa;
	int err;

	spin_lock_bh(&l->lock);
	conn = list_first_entry_or_null(&l->pending, struct svcr_xprt,
					pending_node);
	if (conn)
		list_del_init(&conn->pending_node);
	/* left set, svc_xprt_received() queues the listener again */
	if (list_empty(&l->pending))
		clear_bit(XPT_CONN, &xprt->xpt_flags);
	spin_unlock_bh(&l->lock);
	if (!conn)
		return NULL;

	svc_xprt_init(xprt->xpt_net, &svcr_class, &conn->xprt,
		      xprt->xpt_server);
	conn->xprt_inited = true;
	/*
	 * Credits are RPC-over-RDMA's congestion control: without the flag
	 * svc_process() answers NFSv4 calls with PROG_MISMATCH.
	 */
	set_bit(XPT_CONG_CTRL, &conn->xprt.xpt_flags);
	sa = (struct sockaddr *)&conn->cm_id->route.addr.dst_addr;
	svc_xprt_set_remote(&conn->xprt, sa, svc_addr_len(sa));
	sa = (struct sockaddr *)&conn->cm_id->route.addr.src_addr;
	svc_xprt_set_local(&conn->xprt, sa, svc_addr_len(sa));

	err = svcr_conn_setup(conn);
	if (err)
		goto err_refuse;

	pdata.cp_magic = rpcrdma_cmp_magic;
	pdata.cp_version = RPCRDMA_CMP_VERSION;
	pdata.cp_flags = 0;
	pdata.cp_send_size = rpcrdma_encode_buffer_size(conn->recv_size);
	pdata.cp_recv_size = pdata.cp_send_size;
	param.private_data = &pdata;
	param.private_data_len = sizeof(pdata);
	param.initiator_depth = conn->initiator_depth;
	param.responder_resources = 0;
	/*
	 * The client's QP retries RNR NAKs for ever: a call that overtakes
	 * our receive repost waits instead of killing the connection.
	 */
	param.rnr_retry_count = 7;

	rdma_lock_handler(conn->cm_id);
	if (conn->peer_gone) {
		rdma_unlock_handler(conn->cm_id);
		err = -ECONNRESET;
		goto err_refuse;
	}
	err = rdma_accept(conn->cm_id, &param);
	if (!err) {
		spin_lock_bh(&conn->lock);
		conn->accepted = true;
		spin_unlock_bh(&conn->lock);
	}
	rdma_unlock_handler(conn->cm_id);
	if (err)
		goto err_refuse;
	return &conn->xprt;

err_refuse:
	pr_info("svcrdma: refused a connection from %pISpc: %d\n",
		&conn->cm_id->route.addr.dst_addr, err);
	svcr_refuse(conn);
	return NULL;
}

void svcr_listener_detach(struct svcr_xprt *l)
{
	spin_lock_bh(&l->lock);
	l->closing = true;
	spin_unlock_bh(&l->lock);
	/* waits for a connect request handler still running */
	if (l->cm_id) {
		rdma_destroy_id(l->cm_id);
		l->cm_id = NULL;
	}
}

void svcr_listener_free(struct svcr_xprt *l)
{
	struct svcr_xprt *conn, *next;

	svcr_listener_detach(l);
	/* nobody can add to the list now: refuse what nobody accepted */
	list_for_each_entry_safe(conn, next, &l->pending, pending_node) {
		list_del_init(&conn->pending_node);
		svcr_refuse(conn);
	}
	kfree(l);
}
