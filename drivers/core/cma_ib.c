// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm on InfiniBand ports (part of rdma_cm.ko): ids whose IP address
 * lives on an IPoIB interface.
 *
 * The interface's 20-byte hardware addresses carry the GIDs (QPN, then the
 * GID) and its broadcast address the P_Key (bytes 8-9): the RDMA port is
 * the one whose GID table holds our GID and whose P_Key table the P_Key.
 * The route is a PathRecord the subnet administrator answers (SGID, DGID,
 * P_Key, one reversible path); its LIDs, SL and MTU go into the CM REQ
 * and the QP's address vector. An incoming request names the port, P_Key
 * and GID it came to; ib_ipoib tells which of its interfaces that is and
 * whether it owns the destination IP, so that the listener is looked up
 * in that interface's network namespace.
 */
#include <linux/if_arp.h>
#include <linux/netdevice.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"

struct ib_sa_client cma_sa_client;

bool cma_ib_dev_addr(const struct rdma_dev_addr *dev_addr)
{
	return dev_addr->dev_type == ARPHRD_INFINIBAND;
}

/*
 * The GID entry of @port that the IPoIB address in @dev_addr names, if
 * the port also holds its P_Key; referenced, or an ERR_PTR.
 */
const struct ib_gid_attr *cma_ib_port_sgid(struct ib_device *device, u32 port,
					   struct rdma_dev_addr *dev_addr)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	u16 index;

	if (!rdma_protocol_ib(device, port))
		return ERR_PTR(-ENODEV);
	rdma_addr_get_sgid(dev_addr, &gid);
	attr = rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB, port, NULL);
	if (IS_ERR(attr))
		return attr;
	if (ib_find_cached_pkey(device, port, ib_addr_get_pkey(dev_addr),
				&index)) {
		rdma_put_gid_attr(attr);
		return ERR_PTR(-ENODEV);
	}
	return attr;
}

/* The P_Key index of the id's partition (its IPoIB interface's P_Key). */
int cma_ib_pkey_index(struct rdma_id_private *id_priv, u16 *index)
{
	struct rdma_cm_id *id = &id_priv->id;

	return ib_find_cached_pkey(id->device, id->port_num,
				   ib_addr_get_pkey(&id->route.addr.dev_addr),
				   index);
}

/* The Q_Key of the partition's IPoIB broadcast group, as the SA gave it. */
int cma_ib_ipoib_qkey(struct rdma_id_private *id_priv, u32 *qkey)
{
	struct rdma_cm_id *id = &id_priv->id;
	struct ib_sa_mcmember_rec rec;
	union ib_gid mgid;
	int ret;

	ib_addr_get_mgid(&id->route.addr.dev_addr, &mgid);
	ret = ib_sa_get_mcmember_rec(id->device, id->port_num, &mgid, &rec);
	if (ret)
		return ret;
	*qkey = be32_to_cpu(rec.qkey);
	return 0;
}

/* ------------------------------------------------------------ route */

static void cma_ib_path_done(int status, struct sa_path_rec *resp,
			     int num_prs, void *context)
{
	struct rdma_id_private *id_priv = context;

	id_priv->sa_status = status;
	if (!status && (!resp || num_prs < 1))
		id_priv->sa_status = -EHOSTUNREACH;
	if (!id_priv->sa_status)
		id_priv->sa_path = *resp;
	/* The query's reference is the work's now. */
	queue_work(cma_wq, &id_priv->route_work);
}

/* Delivers the SA's answer from rdma_cm's work queue. */
static void cma_ib_route_work(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, route_work);
	struct sa_path_rec *path = NULL;
	int status = id_priv->sa_status;

	if (!status) {
		path = kmemdup(&id_priv->sa_path, sizeof(*path), GFP_KERNEL);
		if (!path)
			status = -ENOMEM;
	}
	cma_route_finish(id_priv, path, status);
}

/*
 * rdma_resolve_route() on an InfiniBand port: a PathRecord Get for our GID
 * to the peer's, in the id's partition. The caller holds a reference for
 * the query, which its callback hands to the work.
 */
int cma_ib_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	ib_sa_comp_mask mask;
	struct sa_path_rec rec = {};
	int id;

	if (!dev_addr->sgid_attr)
		return -ENODEV;
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	rec.sgid = dev_addr->sgid_attr->gid;
	rdma_addr_get_dgid(dev_addr, &rec.dgid);
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.numb_path = 1;
	rec.reversible = 1;
	rec.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	mask = IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
	       IB_SA_PATH_REC_PKEY | IB_SA_PATH_REC_NUMB_PATH |
	       IB_SA_PATH_REC_REVERSIBLE | IB_SA_PATH_REC_SERVICE_ID;
	if (id_priv->tos_set) {
		rec.traffic_class = id_priv->tos;
		mask |= IB_SA_PATH_REC_TRAFFIC_CLASS;
	}

	INIT_WORK(&id_priv->route_work, cma_ib_route_work);
	id = ib_sa_path_rec_get(&cma_sa_client, id_priv->id.device,
				id_priv->id.port_num, &rec, mask, timeout_ms,
				GFP_KERNEL, cma_ib_path_done, id_priv,
				&id_priv->sa_query);
	if (id < 0)
		return id;
	id_priv->sa_query_id = id;
	return 0;
}

/* The id is being destroyed during its query: end the query now. */
void cma_ib_cancel_route(struct rdma_id_private *id_priv)
{
	if (id_priv->sa_query)
		ib_sa_cancel_query(id_priv->sa_query_id, id_priv->sa_query);
}

/* ------------------------------------------------------------ UD */

/* A SIDR REP's sender, addressed over the id's path. */
int cma_ib_ud_ah(struct rdma_id_private *id_priv, struct rdma_ah_attr *ah)
{
	struct rdma_cm_id *id = &id_priv->id;

	return ib_init_ah_attr_from_path(id->device, id->port_num,
					 id->route.path_rec, ah,
					 id->route.addr.dev_addr.sgid_attr);
}

/* ------------------------------------------------------------ passive */

/*
 * Where an incoming request on an InfiniBand port is going: our GID (the
 * REQ's remote GID, else the port's first), the P_Key it came with, and
 * the IPoIB interface that owns @dst. Both are returned referenced.
 */
int cma_ib_req_target(struct ib_device *device, u32 port,
		      const struct ib_cm_event *ev, const struct sockaddr *dst,
		      struct net_device **ndev,
		      const struct ib_gid_attr **sgid_attr)
{
	const struct ib_gid_attr *attr;
	union ib_gid gid;
	u16 pkey;

	if (ev->event == IB_CM_REQ_RECEIVED) {
		gid = ev->param.req_rcvd.primary_path->sgid;
		pkey = be16_to_cpu(ev->param.req_rcvd.primary_path->pkey);
		attr = rdma_find_gid_by_port(device, &gid, IB_GID_TYPE_IB,
					     port, NULL);
	} else {
		pkey = ev->param.sidr_req_rcvd.pkey;
		attr = rdma_get_gid_attr(device, port, 0);
		if (!IS_ERR(attr))
			gid = attr->gid;
	}
	if (IS_ERR(attr))
		return PTR_ERR(attr);

	*ndev = ib_get_net_dev_by_params(device, port, pkey, &gid, dst);
	if (!*ndev) {
		rdma_put_gid_attr(attr);
		return -EHOSTUNREACH;
	}
	*sgid_attr = attr;
	return 0;
}
