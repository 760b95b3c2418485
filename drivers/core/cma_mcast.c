// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm multicast: rdma_join_multicast()/rdma_leave_multicast(). On
 * InfiniBand ports the group is joined through the SA (cma_ib_mcast.c);
 * the rest of this file is RoCE's.
 *
 * RoCE has no subnet administrator to join through: a join is local. The
 * group's MGID is derived from the IP multicast address, the address
 * handle a sender needs is built from the id's route, and the netdev joins
 * the IP group (IGMP/MLD) so that RoCE v2 packets to it are received, also
 * from this host (IP multicast loopback). The MULTICAST_JOIN event is
 * delivered from rdma_cm's work queue, never from inside the join call.
 * Attaching a QP to the group is the consumer's business (librdmacm does
 * it on the event).
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <rdma/ib_cache.h>

#include "cma_priv.h"

/*
 * The MGID of an IP group: an IPv6 group is its own MGID; an IPv4 group is
 * IPv4-mapped for RoCE v2 (the packets go to that IPv4 address), and
 * ff0e::ffff:a.b.c.d for RoCE v1, as upstream, so peers agree on it.
 */
static void cma_mcast_mgid(const struct sockaddr *addr, enum ib_gid_type type,
			   union ib_gid *mgid)
{
	if (addr->sa_family == AF_INET6) {
		memcpy(mgid->raw, &((const struct sockaddr_in6 *)addr)->sin6_addr,
		       sizeof(mgid->raw));
		return;
	}
	ipv6_addr_set_v4mapped(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
			       (struct in6_addr *)mgid->raw);
	if (type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		mgid->raw[0] = 0xff;
		mgid->raw[1] = 0x0e;
	}
}

static bool cma_is_mcast_addr(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return ipv4_is_multicast(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	if (addr->sa_family == AF_INET6)
		return ipv6_addr_is_multicast(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	return false;
}

/* IGMP/MLD membership of the netdev in the group; called without RTNL. */
static int cma_ip_membership(struct net *net, int ifindex,
			     const struct sockaddr *addr, bool join)
{
	struct net_device *ndev;
	int ret = 0;

	rtnl_lock();
	ndev = __dev_get_by_index(net, ifindex);
	if (!ndev) {
		ret = -ENODEV;
	} else if (addr->sa_family == AF_INET) {
		struct in_device *in_dev = __in_dev_get_rtnl(ndev);
		__be32 group = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;

		if (!in_dev)
			ret = -ENODEV;
		else if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
	} else {
		const struct in6_addr *group =
			&((const struct sockaddr_in6 *)addr)->sin6_addr;

		ret = join ? ipv6_dev_mc_inc(ndev, group) :
			     ipv6_dev_mc_dec(ndev, group);
	}
	rtnl_unlock();
	return ret;
}

static void cma_mcast_work(struct work_struct *work)
{
	struct cma_multicast *mc = container_of(work, struct cma_multicast,
						work);
	struct rdma_id_private *id_priv = mc->id_priv;

	/*
	 * A handler may not destroy its id from a multicast event: destroying
	 * waits for this very work (as upstream, which warns about it).
	 */
	mutex_lock(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_DESTROYING &&
	    READ_ONCE(id_priv->state) != RDMA_CM_DEVICE_REMOVAL)
		cma_cm_event_handler(id_priv, &mc->event);
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

/* The address handle a sender uses for the group, from the id's route. */
static int cma_mcast_ah(struct rdma_id_private *id_priv,
			struct cma_multicast *mc)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *sgid_attr = dev_addr->sgid_attr;
	struct rdma_ah_attr *ah = &mc->event.param.ud.ah_attr;
	u8 tos = cma_tos(id_priv);
	u8 hop_limit;

	hop_limit = sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
		    (dev_addr->hoplimit ? dev_addr->hoplimit : 64) : 1;
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, id_priv->id.port_num);
	rdma_ah_set_sl(ah, rt_tos2priority(tos));
	rdma_ah_set_grh(ah, &mc->mgid, 0, sgid_attr->index, hop_limit, tos);
	rdma_hold_gid_attr(sgid_attr);
	ah->grh.sgid_attr = sgid_attr;
	return ib_resolve_eth_dmac(id_priv->id.device, ah);
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *id_priv =
		container_of(id, struct rdma_id_private, id);
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	enum rdma_cm_state state = READ_ONCE(id_priv->state);
	struct cma_multicast *mc;
	unsigned long flags;
	int ret;

	if (!id->device || !dev_addr->sgid_attr ||
	    (state != RDMA_CM_ADDR_BOUND && state != RDMA_CM_ADDR_RESOLVED))
		return -EINVAL;
	if (id->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!rdma_protocol_roce(id->device, id->port_num) &&
	    !rdma_protocol_ib(id->device, id->port_num))
		return -EOPNOTSUPP;
	if (join_state != BIT(FULLMEMBER_JOIN) &&
	    join_state != BIT(SENDONLY_FULLMEMBER_JOIN))
		return -EINVAL;
	if (!cma_is_mcast_addr(addr))
		return -EINVAL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	mc->id_priv = id_priv;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	INIT_WORK(&mc->work, cma_mcast_work);
	mc->event.param.ud.private_data = context;
	ret = cma_set_default_qkey(id_priv);
	if (ret) {
		kfree(mc);
		return ret;
	}
	if (rdma_protocol_ib(id->device, id->port_num)) {
		/* Listed first: the SA's answer may come at once. */
		spin_lock_irqsave(&id_priv->lock, flags);
		list_add_tail(&mc->list, &id_priv->mc_list);
		spin_unlock_irqrestore(&id_priv->lock, flags);
		ret = cma_ib_join(id_priv, mc, join_state);
		if (!ret)
			return 0;
		spin_lock_irqsave(&id_priv->lock, flags);
		list_del(&mc->list);
		spin_unlock_irqrestore(&id_priv->lock, flags);
		kfree(mc);
		return ret;
	}
	cma_mcast_mgid(addr, dev_addr->sgid_attr->gid_type, &mc->mgid);

	ret = cma_mcast_ah(id_priv, mc);
	if (ret)
		goto err_ah;

	/* RoCE v2 packets to the group are IP packets: join it on the link. */
	if (join_state == BIT(FULLMEMBER_JOIN) &&
	    dev_addr->sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP) {
		ret = cma_ip_membership(dev_addr->net, dev_addr->bound_dev_if,
					addr, true);
		if (ret)
			goto err_ah;
		mc->ifindex = dev_addr->bound_dev_if;
	}

	mc->event.event = RDMA_CM_EVENT_MULTICAST_JOIN;
	mc->event.param.ud.private_data = context;
	mc->event.param.ud.qp_num = 0xffffff;
	mc->event.param.ud.qkey = id_priv->qkey;

	spin_lock_irqsave(&id_priv->lock, flags);
	list_add_tail(&mc->list, &id_priv->mc_list);
	spin_unlock_irqrestore(&id_priv->lock, flags);

	cma_id_get(id_priv);
	queue_work(cma_wq, &mc->work);
	return 0;

err_ah:
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	kfree(mc);
	return ret;
}
EXPORT_SYMBOL(rdma_join_multicast);

/* Not from the id's event handler: it waits for the join's event. */
static void cma_mcast_free(struct cma_multicast *mc)
{
	struct rdma_id_private *id_priv = mc->id_priv;

	/* Waits for the SA callback: it queues no work after this. */
	if (mc->sa_mc)
		cma_ib_leave(mc);
	if (cancel_work_sync(&mc->work))
		cma_id_put(id_priv);
	if (mc->ifindex)
		cma_ip_membership(id_priv->id.route.addr.dev_addr.net,
				  mc->ifindex, (struct sockaddr *)&mc->addr,
				  false);
	rdma_destroy_ah_attr(&mc->event.param.ud.ah_attr);
	kfree(mc);
}

void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv =
		container_of(id, struct rdma_id_private, id);
	struct cma_multicast *mc, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	list_for_each_entry(mc, &id_priv->mc_list, list) {
		if (!memcmp(&mc->addr, addr, rdma_addr_size(addr))) {
			list_del(&mc->list);
			found = mc;
			break;
		}
	}
	spin_unlock_irqrestore(&id_priv->lock, flags);
	if (found)
		cma_mcast_free(found);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/* Every group of an id that is being destroyed. */
void cma_leave_all_mcast(struct rdma_id_private *id_priv)
{
	struct cma_multicast *mc;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&id_priv->lock, flags);
		mc = list_first_entry_or_null(&id_priv->mc_list,
					      struct cma_multicast, list);
		if (mc)
			list_del(&mc->list);
		spin_unlock_irqrestore(&id_priv->lock, flags);
		if (!mc)
			return;
		cma_mcast_free(mc);
	}
}
