// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel verbs on PDs, AHs, SRQs and QPs: object creation around the
 * driver methods, use counts between objects, resource tracking, the IBA
 * QP state table, RoCE address resolution and queue draining.
 */
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/export.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/arp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <rdma/rw.h>
#include "core_priv.h"

/* The texts ULPs print for a failed completion. */
const char *__attribute_const__ ib_wc_status_msg(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:		return "success";
	case IB_WC_WR_FLUSH_ERR:	return "WR flushed";
	/* Detected by the local side. */
	case IB_WC_LOC_LEN_ERR:		return "local length error";
	case IB_WC_LOC_QP_OP_ERR:	return "local QP operation error";
	case IB_WC_LOC_EEC_OP_ERR:	return "local EE context operation error";
	case IB_WC_LOC_PROT_ERR:	return "local protection error";
	case IB_WC_LOC_ACCESS_ERR:	return "local access error";
	case IB_WC_LOC_RDD_VIOL_ERR:	return "local RDD violation error";
	case IB_WC_MW_BIND_ERR:		return "memory bind operation error";
	/* Reported by the responder. */
	case IB_WC_REM_INV_REQ_ERR:	return "remote invalid request error";
	case IB_WC_REM_ACCESS_ERR:	return "remote access error";
	case IB_WC_REM_OP_ERR:		return "remote operation error";
	case IB_WC_REM_INV_RD_REQ_ERR:	return "remote invalid RD request";
	case IB_WC_REM_ABORT_ERR:	return "operation aborted";
	case IB_WC_BAD_RESP_ERR:	return "bad response error";
	/* Transport and context failures. */
	case IB_WC_RETRY_EXC_ERR:	return "transport retry counter exceeded";
	case IB_WC_RNR_RETRY_EXC_ERR:	return "RNR retry counter exceeded";
	case IB_WC_RESP_TIMEOUT_ERR:	return "response timeout error";
	case IB_WC_INV_EECN_ERR:	return "invalid EE context number";
	case IB_WC_INV_EEC_STATE_ERR:	return "invalid EE context state";
	case IB_WC_FATAL_ERR:		return "fatal error";
	case IB_WC_GENERAL_ERR:		return "general error";
	}
	return "unrecognized status";
}
EXPORT_SYMBOL(ib_wc_status_msg);

/* ------------------------------------------------------------ PD */

struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller)
{
	int mr_access_flags = 0;
	struct ib_pd *pd;
	int ret;

	if (!device->ops.alloc_pd)
		return ERR_PTR(-EOPNOTSUPP);
	pd = rdma_zalloc_drv_obj(device, ib_pd);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->device = device;
	pd->flags = flags;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, caller);

	ret = device->ops.alloc_pd(pd, NULL);
	if (ret) {
		rdma_restrack_del(&pd->res);
		kfree(pd);
		return ERR_PTR(ret);
	}
	rdma_restrack_add(&pd->res);

	if (device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		pd->local_dma_lkey = device->local_dma_lkey;
	else
		mr_access_flags |= IB_ACCESS_LOCAL_WRITE;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY) {
		pr_warn("%s: enabling unsafe global rkey\n", caller);
		mr_access_flags |= IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_WRITE;
	}

	if (mr_access_flags) {
		struct ib_mr *mr;

		/* No device-wide lkey: cover all memory with a DMA MR. */
		if (!device->ops.get_dma_mr) {
			ib_dealloc_pd(pd);
			return ERR_PTR(-EOPNOTSUPP);
		}
		mr = device->ops.get_dma_mr(pd, mr_access_flags);
		if (IS_ERR(mr)) {
			ib_dealloc_pd(pd);
			return ERR_CAST(mr);
		}
		mr->device = device;
		mr->pd = pd;
		mr->type = IB_MR_TYPE_DMA;
		mr->uobject = NULL;
		mr->need_inval = false;
		pd->__internal_mr = mr;
		if (!(device->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
			pd->local_dma_lkey = mr->lkey;
		if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
			pd->unsafe_global_rkey = mr->rkey;
	}
	return pd;
}
EXPORT_SYMBOL(__ib_alloc_pd);

int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata)
{
	int ret;

	if (pd->__internal_mr) {
		ret = pd->device->ops.dereg_mr(pd->__internal_mr, NULL);
		if (ret)
			return ret;
		pd->__internal_mr = NULL;
	}
	ret = pd->device->ops.dealloc_pd(pd, udata);
	if (ret)
		return ret;
	rdma_restrack_del(&pd->res);
	kfree(pd);
	return 0;
}
EXPORT_SYMBOL(ib_dealloc_pd_user);

/* ------------------------------------------------------------ AH attrs */

void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr)
{
	if (ah_attr->grh.sgid_attr) {
		rdma_put_gid_attr(ah_attr->grh.sgid_attr);
		ah_attr->grh.sgid_attr = NULL;
	}
}
EXPORT_SYMBOL(rdma_destroy_ah_attr);

/* @dst becomes @src; @ref: @dst holds a reference of its own on the GID. */
static void ah_attr_assign(struct rdma_ah_attr *dst,
			   const struct rdma_ah_attr *src, bool ref)
{
	*dst = *src;
	if (ref && dst->grh.sgid_attr)
		rdma_hold_gid_attr(dst->grh.sgid_attr);
}

void rdma_copy_ah_attr(struct rdma_ah_attr *dest,
		       const struct rdma_ah_attr *src)
{
	ah_attr_assign(dest, src, true);
}
EXPORT_SYMBOL(rdma_copy_ah_attr);

void rdma_replace_ah_attr(struct rdma_ah_attr *old,
			  const struct rdma_ah_attr *new)
{
	rdma_destroy_ah_attr(old);
	ah_attr_assign(old, new, true);
}
EXPORT_SYMBOL(rdma_replace_ah_attr);

/* The reference @src held travels with it. */
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src)
{
	rdma_destroy_ah_attr(dest);
	ah_attr_assign(dest, src, false);
	src->grh.sgid_attr = NULL;
}
EXPORT_SYMBOL(rdma_move_ah_attr);

/* Fills the GRH of @attr; the caller's reference on @sgid_attr moves in. */
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr)
{
	rdma_ah_set_grh(attr, dgid, flow_label, sgid_attr->index, hop_limit,
			traffic_class);
	attr->grh.sgid_attr = sgid_attr;
}
EXPORT_SYMBOL(rdma_move_grh_sgid_attr);

static int rdma_check_ah_attr(struct ib_device *device,
			      struct rdma_ah_attr *ah_attr)
{
	if (!rdma_is_port_valid(device, ah_attr->port_num))
		return -EINVAL;
	/* RoCE addresses are IP addresses: the GRH is mandatory. */
	if ((ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE ||
	     rdma_is_grh_required(device, ah_attr->port_num)) &&
	    !(ah_attr->ah_flags & IB_AH_GRH))
		return -EINVAL;
	if (ah_attr->grh.sgid_attr) {
		const struct ib_gid_attr *sgid_attr = ah_attr->grh.sgid_attr;

		if (sgid_attr->index != ah_attr->grh.sgid_index ||
		    sgid_attr->port_num != ah_attr->port_num)
			return -EINVAL;
	}
	return 0;
}

/*
 * Makes ah_attr->grh.sgid_attr point at the source GID entry, taking a
 * reference if the caller did not supply one. *filled says whether
 * rdma_unfill_sgid_attr() must drop it again.
 */
static int rdma_fill_sgid_attr(struct ib_device *device,
			       struct rdma_ah_attr *ah_attr, bool *filled)
{
	const struct ib_gid_attr *sgid_attr;
	int ret;

	*filled = false;
	ret = rdma_check_ah_attr(device, ah_attr);
	if (ret)
		return ret;
	if (!(ah_attr->ah_flags & IB_AH_GRH) || ah_attr->grh.sgid_attr)
		return 0;

	sgid_attr = rdma_get_gid_attr(device, ah_attr->port_num,
				      ah_attr->grh.sgid_index);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	ah_attr->grh.sgid_attr = sgid_attr;
	*filled = true;
	return 0;
}

static void rdma_unfill_sgid_attr(struct rdma_ah_attr *ah_attr, bool filled)
{
	if (filled)
		rdma_destroy_ah_attr(ah_attr);
}

/* Takes a reference on ah_attr's sgid_attr and drops the one on old. */
static const struct ib_gid_attr *
rdma_update_sgid_attr(struct rdma_ah_attr *ah_attr,
		      const struct ib_gid_attr *old)
{
	const struct ib_gid_attr *new = NULL;

	if (ah_attr->ah_flags & IB_AH_GRH && ah_attr->grh.sgid_attr) {
		new = ah_attr->grh.sgid_attr;
		rdma_hold_gid_attr(new);
	}
	if (old)
		rdma_put_gid_attr(old);
	return new;
}

/* ------------------------------------------------------------ RoCE L2 */

/* How long a neighbour (ARP/ND) resolution may take, as upstream's 2 s. */
#define RESOLVE_STEP_MS		10
#define RESOLVE_STEPS		200

static bool gid_is_multicast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

static bool gid_is_link_local(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	return a->s6_addr32[0] == htonl(0xfe800000) && a->s6_addr32[1] == 0;
}

/* Neighbour of daddr through dst, waiting for ARP/ND if allowed. */
static int resolve_neigh(struct dst_entry *dst, const void *daddr, u8 *dmac)
{
	struct neighbour *n;
	int ret = -EHOSTUNREACH;
	int i;

	n = dst_neigh_lookup(dst, daddr);
	if (!n)
		return -ENODATA;
	for (i = 0; i <= RESOLVE_STEPS; i++) {
		u8 state = READ_ONCE(n->nud_state);

		if (state & NUD_VALID) {
			neigh_ha_snapshot(dmac, n, n->dev);
			ret = 0;
			break;
		}
		if (i == 0)
			neigh_event_send(n, NULL);	/* starts a probe */
		else if (state & NUD_FAILED)
			break;
		msleep(RESOLVE_STEP_MS);
	}
	neigh_release(n);
	return ret;
}

static int resolve_ipv4(struct net_device *ndev, const struct in6_addr *sip,
			const struct in6_addr *dip, u8 *dmac, u8 *hop_limit)
{
	struct net *net = dev_net(ndev);
	struct flowi4 fl4 = {};
	struct rtable *rt;
	bool local;
	int ret;

	fl4.daddr = dip->s6_addr32[3];
	if (ipv6_addr_v4mapped(sip))
		fl4.saddr = sip->s6_addr32[3];
	fl4.flowi4_oif = ndev->ifindex;

	rcu_read_lock();
	local = __ip_dev_find(net, fl4.daddr, false);
	rcu_read_unlock();

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt)) {
		if (!local)
			return PTR_ERR(rt);
		ether_addr_copy(dmac, ndev->dev_addr);
		return 0;
	}
	*hop_limit = ip4_dst_hoplimit(&rt->dst);
	if (local || rt->rt_type == RTN_LOCAL) {
		/* Loopback: the frame goes to our own port. */
		ether_addr_copy(dmac, ndev->dev_addr);
		ret = 0;
	} else if (rt->dst.dev != ndev) {
		ret = -EHOSTUNREACH;
	} else {
		ret = resolve_neigh(&rt->dst, &fl4.daddr, dmac);
	}
	ip_rt_put(rt);
	return ret;
}

static int resolve_ipv6(struct net_device *ndev, const struct in6_addr *sip,
			const struct in6_addr *dip, u8 *dmac, u8 *hop_limit)
{
	struct net *net = dev_net(ndev);
	struct flowi6 fl6 = {};
	struct dst_entry *dst;
	bool local;
	int ret;

	fl6.daddr = *dip;
	fl6.saddr = *sip;
	fl6.flowi6_oif = ndev->ifindex;
	local = ipv6_chk_addr(net, dip, NULL, 0);

	dst = ip6_route_output(net, NULL, &fl6);
	if (dst->error) {
		ret = dst->error;
		dst_release(dst);
		if (!local)
			return ret;
		ether_addr_copy(dmac, ndev->dev_addr);
		return 0;
	}
	*hop_limit = ip6_dst_hoplimit(dst);
	if (local || (dst->dev->flags & IFF_LOOPBACK)) {
		ether_addr_copy(dmac, ndev->dev_addr);
		ret = 0;
	} else if (dst->dev != ndev) {
		ret = -EHOSTUNREACH;
	} else {
		ret = resolve_neigh(dst, &fl6.daddr, dmac);
	}
	dst_release(dst);
	return ret;
}

/*
 * Fills ah_attr->roce.dmac for the destination GID: multicast and RoCEv1
 * link-local GIDs map directly, everything else goes through the route
 * and the neighbour table of the source GID's netdev. May sleep.
 */
int ib_resolve_eth_dmac(struct ib_device *device,
			struct rdma_ah_attr *ah_attr)
{
	struct ib_global_route *grh = rdma_ah_retrieve_grh(ah_attr);
	const struct in6_addr *dip = (const struct in6_addr *)grh->dgid.raw;
	const struct ib_gid_attr *sgid_attr;
	struct net_device *ndev;
	bool filled = false;
	u8 hop_limit;
	int ret;

	if (!rdma_is_port_valid(device, ah_attr->port_num))
		return -EINVAL;
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE)
		return 0;
	if (!(ah_attr->ah_flags & IB_AH_GRH))
		return -EINVAL;

	if (gid_is_multicast(&grh->dgid)) {
		if (ipv6_addr_v4mapped(dip))
			ip_eth_mc_map(dip->s6_addr32[3], ah_attr->roce.dmac);
		else
			ipv6_eth_mc_map(dip, ah_attr->roce.dmac);
		return 0;
	}

	ret = rdma_fill_sgid_attr(device, ah_attr, &filled);
	if (ret)
		return ret;
	sgid_attr = grh->sgid_attr;

	if (sgid_attr->gid_type == IB_GID_TYPE_ROCE &&
	    gid_is_link_local(&grh->dgid)) {
		rdma_get_ll_mac((struct in6_addr *)grh->dgid.raw,
				ah_attr->roce.dmac);
		goto out;
	}

	rcu_read_lock();
	ndev = rcu_dereference(sgid_attr->ndev);
	if (ndev)
		dev_hold(ndev);
	rcu_read_unlock();
	if (!ndev) {
		ret = -ENODEV;
		goto out;
	}

	hop_limit = grh->hop_limit;
	if (ipv6_addr_v4mapped(dip))
		ret = resolve_ipv4(ndev, (const struct in6_addr *)
				   sgid_attr->gid.raw, dip,
				   ah_attr->roce.dmac, &hop_limit);
	else
		ret = resolve_ipv6(ndev, (const struct in6_addr *)
				   sgid_attr->gid.raw, dip,
				   ah_attr->roce.dmac, &hop_limit);
	/* RoCEv2 packets are routable: their TTL comes from the route. */
	if (!ret && sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		grh->hop_limit = hop_limit;
	dev_put(ndev);
out:
	rdma_unfill_sgid_attr(ah_attr, filled);
	return ret;
}
EXPORT_SYMBOL(ib_resolve_eth_dmac);

/* ------------------------------------------------------------ AH */

static struct ib_ah *_rdma_create_ah(struct ib_pd *pd,
				     struct rdma_ah_attr *ah_attr, u32 flags,
				     struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct rdma_ah_init_attr init_attr = {};
	struct ib_ah *ah;
	int ret;

	might_sleep_if(flags & RDMA_CREATE_AH_SLEEPABLE);
	if (!device->ops.create_ah && !(udata && device->ops.create_user_ah))
		return ERR_PTR(-EOPNOTSUPP);

	ah = rdma_zalloc_drv_obj_gfp(device, ib_ah,
				     (flags & RDMA_CREATE_AH_SLEEPABLE) ?
				     GFP_KERNEL : GFP_ATOMIC);
	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->device = device;
	ah->pd = pd;
	ah->type = ah_attr->type;
	ah->sgid_attr = rdma_update_sgid_attr(ah_attr, NULL);
	init_attr.ah_attr = ah_attr;
	init_attr.flags = flags;

	if (udata && device->ops.create_user_ah)
		ret = device->ops.create_user_ah(ah, &init_attr, udata);
	else
		ret = device->ops.create_ah(ah, &init_attr, udata);
	if (ret) {
		if (ah->sgid_attr)
			rdma_put_gid_attr(ah->sgid_attr);
		kfree(ah);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return ah;
}

static bool mac_is_zero(const u8 *mac)
{
	return is_zero_ether_addr(mac);
}

struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags)
{
	struct ib_ah *ah;
	bool filled;
	int ret;

	ret = rdma_fill_sgid_attr(pd->device, ah_attr, &filled);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * Kernel consumers normally pass a resolved address; resolve one
	 * that lacks the MAC when we are allowed to sleep.
	 */
	if (ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE &&
	    mac_is_zero(ah_attr->roce.dmac) &&
	    (flags & RDMA_CREATE_AH_SLEEPABLE)) {
		ret = ib_resolve_eth_dmac(pd->device, ah_attr);
		if (ret) {
			ah = ERR_PTR(ret);
			goto out;
		}
	}
	ah = _rdma_create_ah(pd, ah_attr, flags, NULL);
out:
	rdma_unfill_sgid_attr(ah_attr, filled);
	return ah;
}
EXPORT_SYMBOL(rdma_create_ah);

struct ib_ah *rdma_create_user_ah(struct ib_pd *pd,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata)
{
	struct ib_ah *ah;
	bool filled;
	int ret;

	ret = rdma_fill_sgid_attr(pd->device, ah_attr, &filled);
	if (ret)
		return ERR_PTR(ret);
	if (ah_attr->type == RDMA_AH_ATTR_TYPE_ROCE) {
		ret = ib_resolve_eth_dmac(pd->device, ah_attr);
		if (ret) {
			ah = ERR_PTR(ret);
			goto out;
		}
	}
	ah = _rdma_create_ah(pd, ah_attr, RDMA_CREATE_AH_SLEEPABLE, udata);
out:
	rdma_unfill_sgid_attr(ah_attr, filled);
	return ah;
}
EXPORT_SYMBOL(rdma_create_user_ah);

int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	bool filled;
	int ret;

	if (ah->type != ah_attr->type)
		return -EINVAL;
	ret = rdma_fill_sgid_attr(ah->device, ah_attr, &filled);
	if (ret)
		return ret;
	ret = ah->device->ops.modify_ah ?
		ah->device->ops.modify_ah(ah, ah_attr) : -EOPNOTSUPP;
	if (!ret)
		ah->sgid_attr = rdma_update_sgid_attr(ah_attr, ah->sgid_attr);
	rdma_unfill_sgid_attr(ah_attr, filled);
	return ret;
}
EXPORT_SYMBOL(rdma_modify_ah);

int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	ah_attr->grh.sgid_attr = NULL;
	return ah->device->ops.query_ah ?
		ah->device->ops.query_ah(ah, ah_attr) : -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_query_ah);

int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata)
{
	const struct ib_gid_attr *sgid_attr = ah->sgid_attr;
	struct ib_pd *pd = ah->pd;
	int ret;

	might_sleep_if(flags & RDMA_DESTROY_AH_SLEEPABLE);
	if (!ah->device->ops.destroy_ah)
		return -EOPNOTSUPP;
	ret = ah->device->ops.destroy_ah(ah, flags);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	if (sgid_attr)
		rdma_put_gid_attr(sgid_attr);
	kfree(ah);
	return 0;
}
EXPORT_SYMBOL(rdma_destroy_ah_user);

/* ------------------------------------------------------------ SRQ */

struct ib_srq *ib_create_srq_user(struct ib_pd *pd,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject,
				  struct ib_udata *udata)
{
	struct ib_device *device = pd->device;
	struct ib_srq *srq;
	int ret;

	if (!device->ops.create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	/* No XRC domains in this stack. */
	if (srq_init_attr->srq_type == IB_SRQT_XRC)
		return ERR_PTR(-EOPNOTSUPP);
	if (ib_srq_has_cq(srq_init_attr->srq_type) && !srq_init_attr->ext.cq)
		return ERR_PTR(-EINVAL);

	srq = rdma_zalloc_drv_obj(device, ib_srq);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->device = device;
	srq->pd = pd;
	srq->uobject = uobject;
	srq->event_handler = srq_init_attr->event_handler;
	srq->srq_context = srq_init_attr->srq_context;
	srq->srq_type = srq_init_attr->srq_type;
	atomic_set(&srq->usecnt, 0);
	if (ib_srq_has_cq(srq->srq_type)) {
		srq->ext.cq = srq_init_attr->ext.cq;
		atomic_inc(&srq->ext.cq->usecnt);
	}
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_parent_name(&srq->res, &pd->res);

	ret = device->ops.create_srq(srq, srq_init_attr, udata);
	if (ret) {
		rdma_restrack_del(&srq->res);
		atomic_dec(&pd->usecnt);
		if (ib_srq_has_cq(srq->srq_type))
			atomic_dec(&srq->ext.cq->usecnt);
		kfree(srq);
		return ERR_PTR(ret);
	}
	rdma_restrack_add(&srq->res);
	return srq;
}
EXPORT_SYMBOL(ib_create_srq_user);

int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask)
{
	if (!srq->device->ops.modify_srq)
		return -EOPNOTSUPP;
	return srq->device->ops.modify_srq(srq, srq_attr, srq_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_srq);

int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr)
{
	if (!srq->device->ops.query_srq)
		return -EOPNOTSUPP;
	return srq->device->ops.query_srq(srq, srq_attr);
}
EXPORT_SYMBOL(ib_query_srq);

int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata)
{
	int ret;

	if (atomic_read(&srq->usecnt))
		return -EBUSY;
	ret = srq->device->ops.destroy_srq(srq, udata);
	if (ret)
		return ret;
	atomic_dec(&srq->pd->usecnt);
	if (ib_srq_has_cq(srq->srq_type))
		atomic_dec(&srq->ext.cq->usecnt);
	rdma_restrack_del(&srq->res);
	kfree(srq);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_srq_user);

/* ------------------------------------------------------------ QP */

/* The objects a QP pins while it exists: its PD, CQs and SRQ. */
static void ib_qp_pin_parents(struct ib_qp *qp, bool pin)
{
	atomic_t *cnt[] = {
		qp->pd ? &qp->pd->usecnt : NULL,
		qp->send_cq ? &qp->send_cq->usecnt : NULL,
		qp->recv_cq ? &qp->recv_cq->usecnt : NULL,
		qp->srq ? &qp->srq->usecnt : NULL,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cnt); i++) {
		if (cnt[i])
			atomic_add(pin ? 1 : -1, cnt[i]);
	}
}

static void ib_qp_usecnt_inc(struct ib_qp *qp)
{
	ib_qp_pin_parents(qp, true);
}

static void ib_qp_usecnt_dec(struct ib_qp *qp)
{
	ib_qp_pin_parents(qp, false);
}

static struct ib_qp *create_qp(struct ib_device *dev, struct ib_pd *pd,
			       struct ib_qp_init_attr *attr,
			       struct ib_udata *udata,
			       struct ib_uqp_object *uobj, const char *caller)
{
	struct ib_qp *qp;
	int ret;

	if (!dev->ops.create_qp)
		return ERR_PTR(-EOPNOTSUPP);
	/* No XRC domains in this stack. */
	if (attr->qp_type == IB_QPT_XRC_TGT || attr->xrcd)
		return ERR_PTR(-EOPNOTSUPP);

	qp = rdma_zalloc_drv_obj_numa(dev, ib_qp);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	/* Set before the driver sees it: drivers read these back. */
	qp->real_qp = qp;
	qp->device = dev;
	qp->uobject = uobj;
	qp->qp_type = attr->qp_type;
	qp->port = attr->port_num;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_context = attr->qp_context;
	qp->event_handler = attr->event_handler;
	atomic_set(&qp->usecnt, 0);
	INIT_LIST_HEAD(&qp->open_list);
	INIT_LIST_HEAD(&qp->xrcd_list);
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->sig_mrs);
	INIT_LIST_HEAD(&qp->rdma_mrs);

	rdma_restrack_new(&qp->res, RDMA_RESTRACK_QP);
	rdma_restrack_set_name(&qp->res, udata ? NULL : caller);
	ret = dev->ops.create_qp(qp, attr, udata);
	if (ret) {
		rdma_restrack_del(&qp->res);
		kfree(qp);
		return ERR_PTR(ret);
	}
	/* The driver may have substituted CQs (e.g. none for an XRC QP). */
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	rdma_restrack_add(&qp->res);
	return qp;
}

struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller)
{
	struct ib_qp *qp;

	qp = create_qp(dev, pd, attr, udata, uobj, caller);
	if (IS_ERR(qp))
		return qp;
	ib_qp_usecnt_inc(qp);
	return qp;
}
EXPORT_SYMBOL(ib_create_qp_user);

struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller)
{
	struct ib_device *device = pd->device;
	struct ib_qp *qp;

	if ((qp_init_attr->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    !(device->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return ERR_PTR(-EINVAL);
	/* Room in the send queue for the rdma_rw contexts' WRs. */
	if (qp_init_attr->cap.max_rdma_ctxs)
		rdma_rw_init_qp(device, qp_init_attr);

	qp = create_qp(device, pd, qp_init_attr, NULL, NULL, caller);
	if (IS_ERR(qp))
		return qp;
	ib_qp_usecnt_inc(qp);
	if (qp_init_attr->cap.max_rdma_ctxs) {
		int ret = rdma_rw_init_mrs(qp, qp_init_attr);

		if (ret) {
			ib_destroy_qp(qp);
			return ERR_PTR(ret);
		}
	}
	qp->max_write_sge = qp_init_attr->cap.max_send_sge;
	qp->max_read_sge = min_t(u32, qp_init_attr->cap.max_send_sge,
				 device->attrs.max_sge_rd);
	if (qp_init_attr->create_flags & IB_QP_CREATE_INTEGRITY_EN)
		qp->integrity_en = true;
	return qp;
}
EXPORT_SYMBOL(ib_create_qp_kernel);

/*
 * The QP state transition table of IBA 1.4 section 10.3.1 ("QP state
 * transitions") / 11.2.5.2: for every allowed transition, the attributes
 * a QP of each type must and may supply.
 */
struct qp_transition {
	bool valid;
	u32 req[IB_QPT_MAX];
	u32 opt[IB_QPT_MAX];
};

#define RC_LIKE(x)	[IB_QPT_RC] = (x), [IB_QPT_UC] = (x), \
			[IB_QPT_XRC_INI] = (x), [IB_QPT_XRC_TGT] = (x)
#define UD_LIKE(x)	[IB_QPT_UD] = (x), [IB_QPT_SMI] = (x), [IB_QPT_GSI] = (x)
#define MGMT(x)		[IB_QPT_SMI] = (x), [IB_QPT_GSI] = (x)

/* Attributes every connected QP may change once it can send. */
#define PATH_OPT	(IB_QP_CUR_STATE | IB_QP_ALT_PATH | \
			 IB_QP_ACCESS_FLAGS | IB_QP_PATH_MIG_STATE)
/* What SQD -> SQD may change on every connected type ... */
#define SQD_REPATH	(IB_QP_AV | IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			 IB_QP_PKEY_INDEX | IB_QP_PATH_MIG_STATE)
/* ... and on those with a requester. */
#define SQD_RETRY	(IB_QP_PORT | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
			 IB_QP_RNR_RETRY)

static const struct qp_transition qp_table[IB_QPS_ERR + 1][IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.req = {
				RC_LIKE(IB_QP_PKEY_INDEX | IB_QP_PORT |
					IB_QP_ACCESS_FLAGS),
				[IB_QPT_UD] = IB_QP_PKEY_INDEX | IB_QP_PORT |
					      IB_QP_QKEY,
				[IB_QPT_RAW_PACKET] = IB_QP_PORT,
				MGMT(IB_QP_PKEY_INDEX | IB_QP_QKEY),
			},
		},
	},
	[IB_QPS_INIT] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.opt = {
				RC_LIKE(IB_QP_PKEY_INDEX | IB_QP_PORT |
					IB_QP_ACCESS_FLAGS),
				[IB_QPT_UD] = IB_QP_PKEY_INDEX | IB_QP_PORT |
					      IB_QP_QKEY,
				MGMT(IB_QP_PKEY_INDEX | IB_QP_QKEY),
			},
		},
		[IB_QPS_RTR] = {
			.valid = true,
			.req = {
				[IB_QPT_UC] = IB_QP_AV | IB_QP_PATH_MTU |
					      IB_QP_DEST_QPN | IB_QP_RQ_PSN,
				[IB_QPT_XRC_INI] = IB_QP_AV | IB_QP_PATH_MTU |
						   IB_QP_DEST_QPN |
						   IB_QP_RQ_PSN,
				[IB_QPT_RC] = IB_QP_AV | IB_QP_PATH_MTU |
					      IB_QP_DEST_QPN | IB_QP_RQ_PSN |
					      IB_QP_MAX_DEST_RD_ATOMIC |
					      IB_QP_MIN_RNR_TIMER,
				[IB_QPT_XRC_TGT] = IB_QP_AV | IB_QP_PATH_MTU |
						   IB_QP_DEST_QPN |
						   IB_QP_RQ_PSN |
						   IB_QP_MAX_DEST_RD_ATOMIC |
						   IB_QP_MIN_RNR_TIMER,
			},
			.opt = {
				RC_LIKE(IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS |
					IB_QP_PKEY_INDEX),
				UD_LIKE(IB_QP_PKEY_INDEX | IB_QP_QKEY),
			},
		},
	},
	[IB_QPS_RTR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.req = {
				UD_LIKE(IB_QP_SQ_PSN),
				[IB_QPT_UC] = IB_QP_SQ_PSN,
				[IB_QPT_RC] = IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					      IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
					      IB_QP_MAX_QP_RD_ATOMIC,
				[IB_QPT_XRC_INI] = IB_QP_TIMEOUT |
						   IB_QP_RETRY_CNT |
						   IB_QP_RNR_RETRY |
						   IB_QP_SQ_PSN |
						   IB_QP_MAX_QP_RD_ATOMIC,
				[IB_QPT_XRC_TGT] = IB_QP_TIMEOUT |
						   IB_QP_SQ_PSN,
			},
			.opt = {
				UD_LIKE(IB_QP_CUR_STATE | IB_QP_QKEY),
				[IB_QPT_UC] = PATH_OPT,
				[IB_QPT_XRC_INI] = PATH_OPT,
				[IB_QPT_RC] = PATH_OPT | IB_QP_MIN_RNR_TIMER,
				[IB_QPT_XRC_TGT] = PATH_OPT |
						   IB_QP_MIN_RNR_TIMER,
			},
		},
	},
	[IB_QPS_RTS] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.opt = {
				UD_LIKE(IB_QP_CUR_STATE | IB_QP_QKEY),
				[IB_QPT_UC] = PATH_OPT,
				[IB_QPT_XRC_INI] = PATH_OPT,
				[IB_QPT_RC] = PATH_OPT | IB_QP_MIN_RNR_TIMER,
				[IB_QPT_XRC_TGT] = PATH_OPT |
						   IB_QP_MIN_RNR_TIMER,
				[IB_QPT_RAW_PACKET] = IB_QP_RATE_LIMIT,
			},
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.opt = {
				UD_LIKE(IB_QP_EN_SQD_ASYNC_NOTIFY),
				RC_LIKE(IB_QP_EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[IB_QPS_SQD] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.opt = {
				UD_LIKE(IB_QP_CUR_STATE | IB_QP_QKEY),
				[IB_QPT_UC] = PATH_OPT,
				[IB_QPT_XRC_INI] = PATH_OPT,
				[IB_QPT_RC] = PATH_OPT | IB_QP_MIN_RNR_TIMER,
				[IB_QPT_XRC_TGT] = PATH_OPT |
						   IB_QP_MIN_RNR_TIMER,
			},
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.opt = {
				UD_LIKE(IB_QP_PKEY_INDEX | IB_QP_QKEY),
				/* A drained QP may be re-pathed and retuned. */
				[IB_QPT_UC] = SQD_REPATH,
				[IB_QPT_RC] = SQD_REPATH | SQD_RETRY |
					      IB_QP_MAX_QP_RD_ATOMIC |
					      IB_QP_MAX_DEST_RD_ATOMIC |
					      IB_QP_MIN_RNR_TIMER,
				[IB_QPT_XRC_INI] = SQD_REPATH | SQD_RETRY |
						   IB_QP_MAX_QP_RD_ATOMIC,
				[IB_QPT_XRC_TGT] = SQD_REPATH | IB_QP_PORT |
						   IB_QP_TIMEOUT |
						   IB_QP_MAX_DEST_RD_ATOMIC |
						   IB_QP_MIN_RNR_TIMER,
			},
		},
	},
	[IB_QPS_SQE] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.opt = {
				UD_LIKE(IB_QP_CUR_STATE | IB_QP_QKEY),
				[IB_QPT_UC] = IB_QP_CUR_STATE |
					      IB_QP_ACCESS_FLAGS,
			},
		},
	},
	[IB_QPS_ERR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
	},
};

bool ib_modify_qp_is_ok(enum ib_qp_state cur_state,
			enum ib_qp_state next_state, enum ib_qp_type type,
			enum ib_qp_attr_mask mask)
{
	const struct qp_transition *t;
	u32 req, opt;

	if ((unsigned int)cur_state > IB_QPS_ERR ||
	    (unsigned int)next_state > IB_QPS_ERR ||
	    (unsigned int)type >= IB_QPT_MAX)
		return false;
	/* CUR_STATE is only meaningful where the QP may have moved itself. */
	if ((mask & IB_QP_CUR_STATE) && cur_state != IB_QPS_RTS &&
	    cur_state != IB_QPS_SQD && cur_state != IB_QPS_SQE)
		return false;

	t = &qp_table[cur_state][next_state];
	if (!t->valid)
		return false;
	req = t->req[type];
	opt = t->opt[type];
	if ((mask & req) != req)
		return false;
	return !(mask & ~(req | opt | IB_QP_STATE));
}
EXPORT_SYMBOL(ib_modify_qp_is_ok);

static bool is_qp_type_connected(const struct ib_qp *qp)
{
	return qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC ||
	       qp->qp_type == IB_QPT_XRC_INI || qp->qp_type == IB_QPT_XRC_TGT;
}

/* A port that reports no P_Key table leaves the check to its driver. */
static bool pkey_index_ok(struct ib_device *dev, u32 port, u16 index)
{
	int len = dev->port_data[port].immutable.pkey_tbl_len;

	return len <= 0 || index < len;
}

/* Checks of attributes the core can judge without the driver. */
static int check_qp_attr(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int attr_mask, u32 port)
{
	struct ib_device *dev = qp->device;

	if ((attr_mask & IB_QP_PORT) && !rdma_is_port_valid(dev, port))
		return -EINVAL;
	if ((attr_mask & IB_QP_PKEY_INDEX) && rdma_is_port_valid(dev, port) &&
	    !pkey_index_ok(dev, port, attr->pkey_index))
		return -EINVAL;
	if ((attr_mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(dev, attr->alt_port_num) ||
	     !pkey_index_ok(dev, attr->alt_port_num, attr->alt_pkey_index)))
		return -EINVAL;
	if ((attr_mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	return 0;
}

static int _ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int attr_mask, struct ib_udata *udata)
{
	u32 port = (attr_mask & IB_QP_PORT) ? attr->port_num : qp->port;
	bool av_filled = false, alt_filled = false;
	int ret;

	if (!qp->device->ops.modify_qp)
		return -EOPNOTSUPP;
	ret = check_qp_attr(qp, attr, attr_mask, port);
	if (ret)
		return ret;

	if (attr_mask & IB_QP_AV) {
		ret = rdma_fill_sgid_attr(qp->device, &attr->ah_attr,
					  &av_filled);
		if (ret)
			return ret;
	}
	if (attr_mask & IB_QP_ALT_PATH) {
		/* The alternate path must use the primary's GID type. */
		ret = rdma_fill_sgid_attr(qp->device, &attr->alt_ah_attr,
					  &alt_filled);
		if (ret)
			goto out_av;
		if ((attr_mask & IB_QP_AV) &&
		    attr->ah_attr.grh.sgid_attr &&
		    attr->alt_ah_attr.grh.sgid_attr &&
		    attr->ah_attr.grh.sgid_attr->gid_type !=
		    attr->alt_ah_attr.grh.sgid_attr->gid_type) {
			ret = -EINVAL;
			goto out;
		}
	}

	/*
	 * A connected QP talks to one peer: resolve its MAC now. User
	 * addresses never carry one; kernel ones may already.
	 */
	if ((attr_mask & IB_QP_AV) &&
	    attr->ah_attr.type == RDMA_AH_ATTR_TYPE_ROCE &&
	    is_qp_type_connected(qp) &&
	    (udata || mac_is_zero(attr->ah_attr.roce.dmac))) {
		ret = ib_resolve_eth_dmac(qp->device, &attr->ah_attr);
		if (ret)
			goto out;
	}

	if (rdma_is_port_valid(qp->device, port) &&
	    rdma_ib_or_roce(qp->device, port)) {
		/* PSNs are 24 bits. */
		if (attr_mask & IB_QP_RQ_PSN)
			attr->rq_psn &= 0xffffff;
		if (attr_mask & IB_QP_SQ_PSN)
			attr->sq_psn &= 0xffffff;
	}

	ret = qp->device->ops.modify_qp(qp, attr, attr_mask, udata);
	if (ret)
		goto out;

	if (attr_mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (attr_mask & IB_QP_AV)
		qp->av_sgid_attr = rdma_update_sgid_attr(&attr->ah_attr,
							 qp->av_sgid_attr);
	if (attr_mask & IB_QP_ALT_PATH)
		qp->alt_path_sgid_attr =
			rdma_update_sgid_attr(&attr->alt_ah_attr,
					      qp->alt_path_sgid_attr);
out:
	if (attr_mask & IB_QP_ALT_PATH)
		rdma_unfill_sgid_attr(&attr->alt_ah_attr, alt_filled);
out_av:
	if (attr_mask & IB_QP_AV)
		rdma_unfill_sgid_attr(&attr->ah_attr, av_filled);
	return ret;
}

int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int attr_mask, struct ib_udata *udata)
{
	return _ib_modify_qp(qp->real_qp, attr, attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_qp_with_udata);

int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask)
{
	return _ib_modify_qp(qp->real_qp, qp_attr, qp_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_qp);

int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr)
{
	/* The driver reports addresses without GID references. */
	qp_attr->ah_attr.grh.sgid_attr = NULL;
	qp_attr->alt_ah_attr.grh.sgid_attr = NULL;
	if (!qp->device->ops.query_qp)
		return -EOPNOTSUPP;
	return qp->device->ops.query_qp(qp->real_qp, qp_attr, qp_attr_mask,
					qp_init_attr);
}
EXPORT_SYMBOL(ib_query_qp);

int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	const struct ib_gid_attr *alt_path_sgid_attr = qp->alt_path_sgid_attr;
	const struct ib_gid_attr *av_sgid_attr = qp->av_sgid_attr;
	int ret;

	WARN_ON_ONCE(qp->mrs_used > 0);
	/* Multicast attachments hold the QP. */
	if (atomic_read(&qp->usecnt))
		return -EBUSY;

	rdma_rw_cleanup_mrs(qp);
	/* `rdma res show qp` queries the driver: not once it destroyed it. */
	rdma_restrack_remove(&qp->res);
	ret = qp->device->ops.destroy_qp(qp, udata);
	if (ret) {
		rdma_restrack_add(&qp->res);
		return ret;
	}

	if (alt_path_sgid_attr)
		rdma_put_gid_attr(alt_path_sgid_attr);
	if (av_sgid_attr)
		rdma_put_gid_attr(av_sgid_attr);
	ib_qp_usecnt_dec(qp);
	rdma_restrack_del(&qp->res);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_qp_user);

/* ------------------------------------------------------------ multicast */

/* IBA 4.1.1: multicast LIDs, and the permissive LID that is not one. */
#define IB_MCAST_LID_FIRST	0xc000
#define IB_LID_PERMISSIVE_HOST	0xffff

static bool is_valid_mcast_lid(struct ib_qp *qp, u16 lid)
{
	u32 port;

	/* Only InfiniBand ports address multicast groups by LID. */
	rdma_for_each_port(qp->device, port) {
		if (rdma_protocol_ib(qp->device, port) &&
		    (lid < IB_MCAST_LID_FIRST || lid == IB_LID_PERMISSIVE_HOST))
			return false;
	}
	return true;
}

/* Attach and detach check the same things and count on the QP. */
static int ib_mcast_op(struct ib_qp *qp, union ib_gid *gid, u16 lid,
		       bool attach)
{
	int (*op)(struct ib_qp *qp, union ib_gid *gid, u16 lid) =
		attach ? qp->device->ops.attach_mcast :
			 qp->device->ops.detach_mcast;
	int ret;

	if (!op)
		return -EOPNOTSUPP;
	if (qp->qp_type != IB_QPT_UD || !gid_is_multicast(gid) ||
	    !is_valid_mcast_lid(qp, lid))
		return -EINVAL;
	ret = op(qp, gid, lid);
	if (ret)
		return ret;
	if (attach)
		atomic_inc(&qp->usecnt);
	else
		atomic_dec(&qp->usecnt);
	return 0;
}

int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	return ib_mcast_op(qp, gid, lid, true);
}
EXPORT_SYMBOL(ib_attach_mcast);

int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	return ib_mcast_op(qp, gid, lid, false);
}
EXPORT_SYMBOL(ib_detach_mcast);

/* ------------------------------------------------------------ drain */

struct ib_drain_cqe {
	struct ib_cqe cqe;
	struct completion done;
};

static void ib_drain_qp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_drain_cqe *cqe = container_of(wc->wr_cqe,
						struct ib_drain_cqe, cqe);

	complete(&cqe->done);
}

/* Waits for the marker, polling ourselves when nobody else polls cq. */
static void wait_drain(struct ib_cq *cq, struct ib_drain_cqe *marker)
{
	if (cq->poll_ctx == IB_POLL_DIRECT) {
		while (!wait_for_completion_timeout(&marker->done, HZ / 10))
			ib_process_cq_direct(cq, -1);
	} else {
		wait_for_completion(&marker->done);
	}
}

/*
 * Moves the QP to the error state and posts a marker WR on one of its
 * queues: flushed after everything posted before it, its completion says
 * the queue is empty.
 */
static void ib_drain_queue(struct ib_qp *qp, bool sq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ib_drain_cqe marker = { .cqe.done = ib_drain_qp_done };
	struct ib_rdma_wr swr = {};
	struct ib_recv_wr rwr = {};
	const char *what = sq ? "send" : "recv";
	int ret;

	init_completion(&marker.done);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (!ret && sq) {
		swr.wr.wr_cqe = &marker.cqe;
		swr.wr.opcode = IB_WR_RDMA_WRITE;
		swr.wr.send_flags = IB_SEND_SIGNALED;
		ret = ib_post_send(qp, &swr.wr, NULL);
	} else if (!ret) {
		rwr.wr_cqe = &marker.cqe;
		ret = ib_post_recv(qp, &rwr, NULL);
	}
	if (ret) {
		WARN_ONCE(ret, "failed to drain %s queue: %d\n", what, ret);
		return;
	}
	wait_drain(sq ? qp->send_cq : qp->recv_cq, &marker);
}

void ib_drain_sq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_sq)
		qp->device->ops.drain_sq(qp);
	else
		ib_drain_queue(qp, true);
}
EXPORT_SYMBOL(ib_drain_sq);

void ib_drain_rq(struct ib_qp *qp)
{
	if (qp->device->ops.drain_rq)
		qp->device->ops.drain_rq(qp);
	else
		ib_drain_queue(qp, false);
}
EXPORT_SYMBOL(ib_drain_rq);

void ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_sq(qp);
	if (!qp->srq)
		ib_drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_qp);
