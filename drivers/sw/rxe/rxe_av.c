// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe address vectors: where a QP's path or an AH sends to, kept with
 * the IP endpoints already resolved from the GIDs so the transmit path
 * does not redo it per packet. The source GID's type picks the RoCE
 * version: a RoCE v1 GID sends RoCE v1 frames, a RoCE v2 GID UDP/IP.
 */
#include <linux/etherdevice.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/ipv6.h>
#include "rxe.h"

/* RoCE v2 GIDs are IPv6 addresses; IPv4 ones are v4-mapped (::ffff:a.b.c.d). */
static bool rxe_gid_is_ipv4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

static u8 rxe_gid_attr_network_type(const struct ib_gid_attr *sgid_attr)
{
	return rxe_gid_is_ipv4(&sgid_attr->gid) ? RXE_NETWORK_TYPE_IPV4 :
						   RXE_NETWORK_TYPE_IPV6;
}

static int rxe_chk_ah_attr(struct rxe_dev *rxe, struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	u32 port_num = rdma_ah_get_port_num(attr);

	if (port_num != 1) {
		pr_debug("rdma_rxe: %s: bad AV port %u\n",
			 dev_name(&rxe->ib_dev.dev), port_num);
		return -EINVAL;
	}

	if (unlikely(rxe->sib))
		return sib_chk_ah_attr(rxe, attr);

	/* RoCE has no LIDs: every AV is routed by GID */
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !grh->sgid_attr) {
		pr_debug("rdma_rxe: %s: AV without GRH/source GID\n",
			 dev_name(&rxe->ib_dev.dev));
		return -EINVAL;
	}

	if (grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP &&
	    grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE) {
		pr_debug("rdma_rxe: %s: source GID is not RoCE v1 or v2\n",
			 dev_name(&rxe->ib_dev.dev));
		return -EINVAL;
	}

	return 0;
}

int rxe_av_chk_attr(struct rxe_qp *qp, struct rdma_ah_attr *attr)
{
	return rxe_chk_ah_attr(rxe_from_qp(qp), attr);
}

int rxe_ah_chk_attr(struct rxe_ah *ah, struct rdma_ah_attr *attr)
{
	/* pool membership comes first in create_ah; ibah.device may not */
	struct rxe_dev *rxe = ah->elem.pool ? ah->elem.pool->rxe :
					      to_rdev(ah->ibah.device);

	return rxe_chk_ah_attr(rxe, attr);
}

void rxe_av_from_attr(u32 port_num, struct rxe_av *av,
		      struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);

	if (attr->type == RDMA_AH_ATTR_TYPE_IB) {
		sib_av_from_attr(av, attr);
		return;
	}
	memset(av, 0, sizeof(*av));
	memcpy(av->grh.dgid.raw, grh->dgid.raw, sizeof(av->grh.dgid.raw));
	av->grh.flow_label = grh->flow_label;
	av->grh.sgid_index = grh->sgid_index;
	av->grh.hop_limit = grh->hop_limit;
	av->grh.traffic_class = grh->traffic_class;
	av->port_num = port_num;
	/* filled in by ib_core (rdma_addr / ib_resolve_eth_dmac) */
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
}

void rxe_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr)
{
	struct ib_global_route *grh = rdma_ah_retrieve_grh(attr);

	if (av->network_type == RXE_NETWORK_TYPE_IB) {
		sib_av_to_attr(av, attr);
		return;
	}
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(grh->dgid.raw, av->grh.dgid.raw, sizeof(grh->dgid.raw));
	grh->flow_label = av->grh.flow_label;
	grh->sgid_index = av->grh.sgid_index;
	grh->hop_limit = av->grh.hop_limit;
	grh->traffic_class = av->grh.traffic_class;
	rdma_ah_set_ah_flags(attr, IB_AH_GRH);
	rdma_ah_set_port_num(attr, av->port_num);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

static void rxe_gid_to_sockaddr(const union ib_gid *gid, bool ipv4,
				struct sockaddr_in *in4,
				struct sockaddr_in6 *in6)
{
	if (ipv4) {
		memset(in4, 0, sizeof(*in4));
		in4->sin_family = AF_INET;
		memcpy(&in4->sin_addr.s_addr, &gid->raw[12], 4);
	} else {
		memset(in6, 0, sizeof(*in6));
		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, gid->raw, sizeof(in6->sin6_addr));
	}
}

void rxe_av_fill_ip_info(struct rxe_av *av, struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid_attr = attr->grh.sgid_attr;
	bool ipv4;

	/* sib_av_from_attr() filled in all an IB AV needs */
	if (av->network_type == RXE_NETWORK_TYPE_IB)
		return;

	/* RoCE v1 sends GIDs, not IP addresses: both kept raw, as IPv6 */
	if (sgid_attr && sgid_attr->gid_type == IB_GID_TYPE_ROCE) {
		av->network_type = RXE_NETWORK_TYPE_ROCE_V1;
		rxe_gid_to_sockaddr(&sgid_attr->gid, false,
				    &av->sgid_addr._sockaddr_in,
				    &av->sgid_addr._sockaddr_in6);
		rxe_gid_to_sockaddr(&attr->grh.dgid, false,
				    &av->dgid_addr._sockaddr_in,
				    &av->dgid_addr._sockaddr_in6);
		return;
	}

	/* chk_attr refuses AVs without one; classify by the dgid anyway */
	if (sgid_attr)
		av->network_type = rxe_gid_attr_network_type(sgid_attr);
	else
		av->network_type = rxe_gid_is_ipv4(&attr->grh.dgid) ?
				   RXE_NETWORK_TYPE_IPV4 :
				   RXE_NETWORK_TYPE_IPV6;
	ipv4 = av->network_type == RXE_NETWORK_TYPE_IPV4;

	if (sgid_attr)
		rxe_gid_to_sockaddr(&sgid_attr->gid, ipv4,
				    &av->sgid_addr._sockaddr_in,
				    &av->sgid_addr._sockaddr_in6);
	else
		memset(&av->sgid_addr, 0, sizeof(av->sgid_addr));
	rxe_gid_to_sockaddr(&attr->grh.dgid, ipv4,
			    &av->dgid_addr._sockaddr_in,
			    &av->dgid_addr._sockaddr_in6);
}

void rxe_init_av(struct rdma_ah_attr *attr, struct rxe_av *av)
{
	rxe_av_from_attr(rdma_ah_get_port_num(attr), av, attr);
	rxe_av_fill_ip_info(av, attr);
}

struct rxe_av *rxe_get_av(struct rxe_pkt_info *pkt, struct rxe_ah **ahp)
{
	struct rxe_qp *qp = pkt->qp;
	struct rxe_send_wqe *wqe = pkt->wqe;
	struct rxe_av *av;
	struct rxe_ah *ah;
	u32 ah_num;

	if (ahp)
		*ahp = NULL;

	if (!qp)
		return NULL;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC)
		return &qp->pri_av;

	if (!wqe)
		return NULL;

	ah_num = READ_ONCE(wqe->wr.wr.ud.ah_num);
	if (ah_num) {
		if (!ahp)
			return NULL;
		ah = rxe_pool_get_index(&rxe_from_qp(qp)->ah_pool, ah_num);
		if (!ah)
			return NULL;
		/* an AH can only be used on QPs of its own PD */
		if (rxe_ah_pd(ah) != qp->pd) {
			rxe_put(ah);
			return NULL;
		}
		*ahp = ah;
		return &ah->av;
	}

	/* legacy librxe: the AV itself is in the (user-written) WQE */
	if (rxe_from_qp(qp)->sib)
		return NULL;	/* and it is a RoCE one */
	av = &wqe->wr.wr.ud.av;
	if (av->network_type != RXE_NETWORK_TYPE_IPV4 &&
	    av->network_type != RXE_NETWORK_TYPE_IPV6)
		return NULL;
	return av;
}
