// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm multicast on InfiniBand ports (part of rdma_cm.ko): the group is
 * joined through the SA (ib_sa_join_multicast(), an MCMemberRecord Set).
 *
 * The MGID is the IP group mapped the way IPoIB maps it (RFC 4391: the
 * partition's P_Key, the low bits of the IP group), except that ids of the
 * UDP port space put 0x01 in the signature byte where IPoIB has 0x1b, so
 * that rdma_cm's groups are not IPoIB's (as the stock stack does, so that
 * both agree on the group). An IPv6 address that already is an MGID the
 * SA handed out (ff1x:a01b::) is taken as is. A group the join creates
 * takes the SL, flow label, traffic class, MTU and rate of the partition's
 * IPoIB broadcast group and the id's Q_Key.
 *
 * The SA's answers come in a callback that may sleep; it only records the
 * outcome and queues the id's event, which rdma_cm's work queue delivers:
 * MULTICAST_JOIN, or MULTICAST_ERROR for a failed join or a membership
 * lost later (port events).
 */
#include <linux/slab.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "cma_priv.h"

#define CMA_IB_MC_SIGNATURE	0x01
/* ff1x:a01b::/32: an MGID the SA assigned, used as given. */
#define CMA_IB_SA_MGID_MASK	cpu_to_be32(0xff10ffff)
#define CMA_IB_SA_MGID		cpu_to_be32(0xff10a01b)

static void cma_ib_mgid(struct rdma_id_private *id_priv,
			const struct sockaddr *addr, union ib_gid *mgid)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	unsigned char map[MAX_ADDR_LEN];

	if (addr->sa_family == AF_INET6) {
		const struct in6_addr *a6 =
			&((const struct sockaddr_in6 *)addr)->sin6_addr;

		if ((a6->s6_addr32[0] & CMA_IB_SA_MGID_MASK) == CMA_IB_SA_MGID) {
			memcpy(mgid->raw, a6->s6_addr, sizeof(mgid->raw));
			return;
		}
		ipv6_ib_mc_map(a6, dev_addr->broadcast, map);
	} else {
		ip_ib_mc_map(((const struct sockaddr_in *)addr)->sin_addr.s_addr,
			     dev_addr->broadcast, map);
	}
	/* bytes 4..19 of the hardware address are the MGID */
	if (id_priv->id.ps == RDMA_PS_UDP)
		map[7] = CMA_IB_MC_SIGNATURE;
	memcpy(mgid->raw, map + 4, sizeof(mgid->raw));
}

/*
 * Every answer of the SA (the join, and a later loss of the membership:
 * port events) becomes an event; one not delivered yet is replaced.
 */
static int cma_ib_mc_done(int status, struct ib_sa_multicast *multicast)
{
	struct cma_multicast *mc = multicast->context;
	struct rdma_id_private *id_priv = mc->id_priv;
	struct rdma_cm_event ev = {}, old = {};
	unsigned long flags;
	int ret = status;

	if (!ret)
		ret = ib_init_ah_from_mcmember(id_priv->id.device,
					       id_priv->id.port_num,
					       &multicast->rec, NULL,
					       IB_GID_TYPE_IB,
					       &ev.param.ud.ah_attr);
	if (ret) {
		ev.event = RDMA_CM_EVENT_MULTICAST_ERROR;
		ev.status = ret;
	} else {
		ev.event = RDMA_CM_EVENT_MULTICAST_JOIN;
		ev.param.ud.qp_num = 0xffffff;
		ev.param.ud.qkey = be32_to_cpu(multicast->rec.qkey);
	}

	spin_lock_irqsave(&id_priv->lock, flags);
	ev.param.ud.private_data = mc->event.param.ud.private_data;
	if (mc->ib_pending)
		old = mc->event;
	mc->event = ev;
	mc->ib_pending = true;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	rdma_destroy_ah_attr(&old.param.ud.ah_attr);

	cma_id_get(id_priv);
	if (!queue_work(cma_wq, &mc->work))
		cma_id_put(id_priv);
	return 0;
}

/* Delivers the pending event, if any, from rdma_cm's work queue. */
static void cma_ib_mc_work(struct work_struct *work)
{
	struct cma_multicast *mc = container_of(work, struct cma_multicast,
						work);
	struct rdma_id_private *id_priv = mc->id_priv;
	struct rdma_cm_event ev;
	unsigned long flags;
	bool pending;

	spin_lock_irqsave(&id_priv->lock, flags);
	pending = mc->ib_pending;
	ev = mc->event;
	/* the AH's GID reference is ours now */
	memset(&mc->event.param.ud.ah_attr, 0,
	       sizeof(mc->event.param.ud.ah_attr));
	mc->ib_pending = false;
	spin_unlock_irqrestore(&id_priv->lock, flags);

	if (pending) {
		mutex_lock(&id_priv->handler_mutex);
		if (READ_ONCE(id_priv->state) != RDMA_CM_DESTROYING &&
		    READ_ONCE(id_priv->state) != RDMA_CM_DEVICE_REMOVAL)
			cma_cm_event_handler(id_priv, &ev);
		mutex_unlock(&id_priv->handler_mutex);
		rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	}
	cma_id_put(id_priv);
}

int cma_ib_join(struct rdma_id_private *id_priv, struct cma_multicast *mc,
		u8 join_state)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	struct rdma_cm_id *id = &id_priv->id;
	struct ib_sa_mcmember_rec rec;
	union ib_gid bcast_mgid;
	ib_sa_comp_mask mask;
	int ret;

	/* The partition's broadcast group gives the group's parameters. */
	ib_addr_get_mgid(dev_addr, &bcast_mgid);
	ret = ib_sa_get_mcmember_rec(id->device, id->port_num, &bcast_mgid,
				     &rec);
	if (ret)
		return ret;

	cma_ib_mgid(id_priv, (struct sockaddr *)&mc->addr, &mc->mgid);
	rec.mgid = mc->mgid;
	rec.port_gid = dev_addr->sgid_attr->gid;
	rec.pkey = cpu_to_be16(ib_addr_get_pkey(dev_addr));
	rec.qkey = cpu_to_be32(id_priv->qkey);
	rec.join_state = join_state;
	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE |
	       IB_SA_MCMEMBER_REC_QKEY | IB_SA_MCMEMBER_REC_SL |
	       IB_SA_MCMEMBER_REC_FLOW_LABEL |
	       IB_SA_MCMEMBER_REC_TRAFFIC_CLASS;

	INIT_WORK(&mc->work, cma_ib_mc_work);
	mc->sa_mc = ib_sa_join_multicast(&cma_sa_client, id->device,
					 id->port_num, &rec, mask, GFP_KERNEL,
					 cma_ib_mc_done, mc);
	if (IS_ERR(mc->sa_mc)) {
		ret = PTR_ERR(mc->sa_mc);
		mc->sa_mc = NULL;
		return ret;
	}
	return 0;
}

/* Waits for a callback in progress; none comes after. */
void cma_ib_leave(struct cma_multicast *mc)
{
	ib_sa_free_multicast(mc->sa_mc);
	mc->sa_mc = NULL;
}
