// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm over iWARP (part of rdma_cm.ko): ids on iWARP devices connect
 * through iw_cm, which drives the driver's TCP connection and MPA exchange.
 *
 * The route is the IP route, so rdma_resolve_route completes at once and
 * there are no path records. The TCP connection carries the addresses: the
 * private data goes to the peer as is (no cma_hdr). IRD/ORD travel as
 * responder_resources/initiator_depth. The driver moves the QP to RTS
 * itself when MPA completes; the active side gets ESTABLISHED directly
 * (no CONNECT_RESPONSE/ACCEPT round as on IB).
 */
#include <linux/netdevice.h>
#include <rdma/ib_addr.h>

#include "cma_priv.h"

bool cma_iw_port_on_ndev(struct ib_device *device, u32 port,
			 struct net_device *ndev)
{
	struct net_device *port_ndev = ib_device_get_netdev(device, port);
	bool match = port_ndev && port_ndev == ndev;

	dev_put(port_ndev);
	return match;
}

/* The port of @device bound to netdev @ifindex (the first one if none is). */
static u32 cma_iw_port_of(struct ib_device *device, int ifindex)
{
	struct net_device *ndev;
	u32 port;

	rdma_for_each_port(device, port) {
		ndev = ib_device_get_netdev(device, port);
		if (ndev && ndev->ifindex == ifindex) {
			dev_put(ndev);
			return port;
		}
		dev_put(ndev);
	}
	return rdma_start_port(device);
}

/* rdma_resolve_route() on iWARP: nothing to resolve, report it. */
void cma_iw_route_work(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, route_work);
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };

	mutex_lock(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
			   RDMA_CM_ROUTE_RESOLVED))
		goto out;
	if (cma_cm_event_handler(id_priv, &event)) {
		cma_id_put(id_priv);
		destroy_id_handler_unlock(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

int cma_iw_init_qp_attr(struct rdma_id_private *id_priv,
			struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	int ret = 0;

	if (id_priv->cm_id_iw) {
		ret = iw_cm_init_qp_attr(id_priv->cm_id_iw, qp_attr,
					 qp_attr_mask);
	} else {
		/* No connection yet: no remote access. */
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	}
	qp_attr->port_num = id_priv->id.port_num;
	*qp_attr_mask |= IB_QP_PORT;
	return ret;
}

/* The settings an iw_cm_id takes from its rdma_cm id. */
static void cma_iw_set_id(struct iw_cm_id *cm_id,
			  struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	struct sockaddr *dst = cma_dst_addr(id_priv);

	memcpy(&cm_id->local_addr, src, rdma_addr_size(src));
	memcpy(&cm_id->remote_addr, dst, rdma_addr_size(dst));
	cm_id->tos = cma_tos(id_priv);
	cm_id->tos_set = id_priv->tos_set;
	cm_id->afonly = id_priv->afonly;
}

static void cma_iw_conn_param(struct iw_cm_conn_param *iw_param,
			      struct rdma_id_private *id_priv,
			      const struct rdma_conn_param *conn_param)
{
	iw_param->ord = conn_param->initiator_depth;
	iw_param->ird = conn_param->responder_resources;
	iw_param->private_data = conn_param->private_data;
	iw_param->private_data_len = conn_param->private_data_len;
	/* The id's QP, or for a user QP the number userspace passed. */
	iw_param->qpn = id_priv->qp_num;
}

/* The outcome of a connect, as rdma_cm reports it. */
static enum rdma_cm_event_type cma_iw_reply_event(int status)
{
	switch (status) {
	case 0:
		return RDMA_CM_EVENT_ESTABLISHED;
	case -ECONNRESET:
	case -ECONNREFUSED:
		return RDMA_CM_EVENT_REJECTED;
	case -ETIMEDOUT:
		return RDMA_CM_EVENT_UNREACHABLE;
	default:
		return RDMA_CM_EVENT_CONNECT_ERROR;
	}
}

/* Events of a connecting or connected id. */
static int cma_iw_handler(struct iw_cm_id *iw_id, struct iw_cm_event *iw_event)
{
	struct rdma_id_private *id_priv = iw_id->context;
	struct rdma_cm_event event = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT)
		goto out;

	switch (iw_event->event) {
	case IW_CM_EVENT_CLOSE:
		if (!cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				   RDMA_CM_DISCONNECT))
			goto out;
		event.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	case IW_CM_EVENT_CONNECT_REPLY:
		/* The addresses the connection really uses. */
		if (iw_event->local_addr.ss_family)
			memcpy(cma_src_addr(id_priv), &iw_event->local_addr,
			       rdma_addr_size((struct sockaddr *)&iw_event->local_addr));
		if (iw_event->remote_addr.ss_family)
			memcpy(cma_dst_addr(id_priv), &iw_event->remote_addr,
			       rdma_addr_size((struct sockaddr *)&iw_event->remote_addr));
		event.event = cma_iw_reply_event(iw_event->status);
		event.param.conn.initiator_depth = iw_event->ird;
		event.param.conn.responder_resources = iw_event->ord;
		break;
	case IW_CM_EVENT_ESTABLISHED:
		event.event = RDMA_CM_EVENT_ESTABLISHED;
		event.param.conn.initiator_depth = iw_event->ird;
		event.param.conn.responder_resources = iw_event->ord;
		break;
	default:
		/* DISCONNECT: the CLOSE that follows is what we report. */
		goto out;
	}

	event.status = iw_event->status;
	event.param.conn.private_data = iw_event->private_data;
	event.param.conn.private_data_len = iw_event->private_data_len;
	ret = cma_cm_event_handler(id_priv, &event);
	if (ret) {
		/* iw_cm destroys iw_id itself on our non-zero return. */
		id_priv->cm_id_iw = NULL;
		destroy_id_handler_unlock(id_priv);
		return ret;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* Addresses and device of a new connection's id. */
static int cma_iw_setup_conn_id(struct rdma_id_private *conn_id,
				struct iw_cm_id *cm_id,
				const struct iw_cm_event *iw_event)
{
	struct rdma_dev_addr *dev_addr = &conn_id->id.route.addr.dev_addr;
	const struct sockaddr *laddr =
		(const struct sockaddr *)&iw_event->local_addr;
	const struct sockaddr *raddr =
		(const struct sockaddr *)&iw_event->remote_addr;
	int ret;

	if (!rdma_addr_size(laddr) || !rdma_addr_size(raddr))
		return -EAFNOSUPPORT;
	memcpy(cma_src_addr(conn_id), laddr, rdma_addr_size(laddr));
	memcpy(cma_dst_addr(conn_id), raddr, rdma_addr_size(raddr));
	ret = rdma_translate_ip(laddr, dev_addr);
	if (ret)
		return ret;
	conn_id->id.port_num = cma_iw_port_of(cm_id->device,
					      dev_addr->bound_dev_if);
	return cma_attach_to_device(conn_id, cm_id->device);
}

/* A listener's iw_cm_id got a request: a new rdma_cm id reports it. */
static int cma_iw_req_handler(struct iw_cm_id *cm_id,
			      struct iw_cm_event *iw_event)
{
	struct rdma_id_private *listen_id = cm_id->context, *conn_id;
	struct rdma_cm_event event = {};
	int ret;

	/* The listen lasts while its iw_cm_id does: no reference needed. */
	mutex_lock_nested(&listen_id->handler_mutex, CMA_LOCK_LISTENER);
	if (READ_ONCE(listen_id->state) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto out;
	}

	conn_id = __rdma_create_id(listen_id->id.route.addr.dev_addr.net,
				   listen_id->id.event_handler,
				   listen_id->id.context, listen_id->id.ps,
				   IB_QPT_RC);
	if (IS_ERR(conn_id)) {
		ret = PTR_ERR(conn_id);
		goto out;
	}
	mutex_lock_nested(&conn_id->handler_mutex, CMA_LOCK_REQ_ID);
	conn_id->state = RDMA_CM_CONNECT;
	conn_id->afonly = listen_id->afonly;
	conn_id->tos = listen_id->tos;
	conn_id->tos_set = listen_id->tos_set;

	ret = cma_iw_setup_conn_id(conn_id, cm_id, iw_event);
	if (ret)
		goto err;
	conn_id->cm_id_iw = cm_id;
	cm_id->context = conn_id;
	cm_id->cm_handler = cma_iw_handler;

	event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	event.param.conn.private_data = iw_event->private_data;
	event.param.conn.private_data_len = iw_event->private_data_len;
	event.param.conn.initiator_depth = iw_event->ird;
	event.param.conn.responder_resources = iw_event->ord;
	ret = cma_cm_event_handler(conn_id, &event);
	if (ret)
		goto err;

	mutex_unlock(&conn_id->handler_mutex);
out:
	mutex_unlock(&listen_id->handler_mutex);
	return ret;

err:
	/* Our non-zero return makes iw_cm destroy cm_id and refuse the peer. */
	conn_id->cm_id_iw = NULL;
	mutex_unlock(&listen_id->handler_mutex);
	destroy_id_handler_unlock(conn_id);
	return ret;
}

int cma_iw_listen(struct rdma_id_private *id_priv, struct cma_listen_ent *ent)
{
	struct iw_cm_id *cm_id;
	int ret;

	/* iWARP is TCP: a UD id can have no QP there, so no listen either. */
	if (id_priv->id.qp_type != IB_QPT_RC)
		return 0;

	cm_id = iw_create_cm_id(ent->cma_dev->device, cma_iw_req_handler, id_priv);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	cma_iw_set_id(cm_id, id_priv);
	ret = iw_cm_listen(cm_id, id_priv->backlog);
	if (ret) {
		iw_destroy_cm_id(cm_id);
		return ret;
	}
	ent->iw_id = cm_id;
	return 0;
}

int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param = {};
	struct iw_cm_id *cm_id;
	int ret;

	if (!conn_param || id_priv->id.qp_type != IB_QPT_RC)
		return -EINVAL;

	cm_id = iw_create_cm_id(id_priv->id.device, cma_iw_handler, id_priv);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	cma_iw_set_id(cm_id, id_priv);

	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		goto err;
	cma_iw_conn_param(&iw_param, id_priv, conn_param);
	/* Set first: the reply may come before iw_cm_connect() returns. */
	id_priv->cm_id_iw = cm_id;
	ret = iw_cm_connect(cm_id, &iw_param);
	if (ret) {
		id_priv->cm_id_iw = NULL;
		goto err;
	}
	return 0;
err:
	iw_destroy_cm_id(cm_id);
	return ret;
}

int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param)
{
	struct iw_cm_conn_param iw_param = {};
	int ret;

	/* No accept on the active side: it is ESTABLISHED already. */
	if (!conn_param)
		return -EINVAL;
	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		return ret;
	cma_iw_conn_param(&iw_param, id_priv, conn_param);
	return iw_cm_accept(id_priv->cm_id_iw, &iw_param);
}
