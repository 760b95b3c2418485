// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe receive demultiplexer: validates a RoCE packet handed up by
 * rxe_net.c (UDP socket, RoCE v1 frame hook or loopback; the network header
 * is the IP header for v2, the GRH for v1) and passes it, with a reference on
 * its destination QP, to that QP's responder (requests) or completer
 * (responses). Anything that fails a check is dropped silently, as a
 * channel adapter drops malformed or misaddressed packets, and counted:
 * P_Key/Q_Key violations in the port attributes (IBA 10.9.3/10.2.4),
 * everything else per reason in rxe->rx_drops.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include "rxe.h"

/*
 * The packet's destination GID: the GRH's for RoCE v1, the destination IP
 * address (IPv4-mapped for IPv4) for RoCE v2.
 */
static int rxe_pkt_dgid(struct sk_buff *skb, union ib_gid *dgid)
{
	const struct ib_grh *grh;

	if (skb->protocol == htons(ETH_P_IBOE))
		memcpy(dgid, &((struct ib_grh *)skb_network_header(skb))->dgid,
		       sizeof(*dgid));
	else if (skb->protocol == htons(ETH_P_IP))
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dgid);
	else if (skb->protocol == htons(ETH_P_IPV6))
		memcpy(dgid, &ipv6_hdr(skb)->daddr, sizeof(*dgid));
	else if (skb->protocol == htons(ETH_P_SIB) && (grh = sib_rx_grh(skb)))
		memcpy(dgid, &grh->dgid, sizeof(*dgid));
	else
		return -EINVAL;
	return 0;
}

static bool rxe_gid_is_multicast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		return ipv4_is_multicast(a->s6_addr32[3]);
	return ipv6_addr_is_multicast(a);
}

/*
 * The destination address must be one of the port's GIDs of the packet's
 * RoCE version, or a multicast group (matched against the attached QPs by
 * rxe_rcv_mcast()).
 */
static int rxe_chk_dgid(struct rxe_dev *rxe, struct sk_buff *skb,
			bool loopback)
{
	const struct ib_gid_attr *attr;
	union ib_gid dgid;

	if (unlikely(rxe->sib))
		return sib_chk_dgid(rxe, skb);
	if (rxe_pkt_dgid(skb, &dgid))
		return -EINVAL;
	if (rxe_gid_is_multicast(&dgid))
		return 0;

	/*
	 * From the wire, the GID must belong to the receiving interface (the
	 * rxe netdev or a VLAN on it); looped back, any of the port's does.
	 */
	attr = rdma_find_gid_by_port(&rxe->ib_dev, &dgid,
				     skb->protocol == htons(ETH_P_IBOE) ?
				     IB_GID_TYPE_ROCE :
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
				     loopback ? NULL : skb->dev);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	rdma_put_gid_attr(attr);
	return 0;
}

/* The packet's transport (RC/UC/UD prefix) must be the QP's type. */
static bool rxe_chk_qp_type(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u8 tr = pkt->opcode & IB_OPCODE_TRANSPORT_MASK;

	switch (qp_type(qp)) {
	case IB_QPT_RC:
		return tr == IB_OPCODE_RC;
	case IB_QPT_UC:
		return tr == IB_OPCODE_UC;
	case IB_QPT_UD:
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		return tr == IB_OPCODE_UD;
	default:
		return false;
	}
}

/*
 * Requests need a receiving QP (RTR, RTS or SQD); responses need a QP
 * that has sent something and is still waiting for it (RTS, or SQD while
 * it drains).
 */
static bool rxe_chk_qp_state(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	enum ib_qp_state state = READ_ONCE(qp->attr.qp_state);

	if (pkt->mask & RXE_REQ_MASK)
		return state == IB_QPS_RTR || state == IB_QPS_RTS ||
		       state == IB_QPS_SQD;
	return state == IB_QPS_RTS || state == IB_QPS_SQD;
}

/*
 * P_Keys match if the low 15 bits agree (a RoCE port has only 0xffff; a
 * sib port checks its table).
 */
static bool rxe_chk_pkey(struct rxe_pkt_info *pkt)
{
	if (unlikely(pkt->rxe->sib))
		return sib_pkey_ok(pkt->rxe, bth_pkey(pkt));
	return (bth_pkey(pkt) & 0x7fff) == (RXE_DEFAULT_PKEY & 0x7fff);
}

/*
 * IBA 13.5.3.1 on a sib port: QP0 takes 256-byte MADs on VL15 only, and
 * VL15 carries nothing else (the LRH is at the network header). QP1 takes
 * 256-byte MADs too: a shorter or longer datagram is no GMP, and would
 * reach the MAD layer as a truncated MAD.
 */
static bool sib_rx_vl15_ok(struct rxe_pkt_info *pkt, u32 qpn)
{
	bool vl15 = skb_network_header(PKT_TO_SKB(pkt))[0] >> 4 == 15;

	if (qpn > 1)
		return !vl15;
	if (vl15 != (qpn == 0))
		return false;
	return payload_size(pkt) == IB_MGMT_MAD_SIZE;
}

/* IBA error counters are 16 bits wide and stop at their maximum. */
static void rxe_port_cntr_inc(struct rxe_dev *rxe, u32 *cntr)
{
	struct rxe_port *port = &rxe->port;
	unsigned long flags;

	spin_lock_irqsave(&port->lock, flags);
	if (*cntr < 0xffff)
		(*cntr)++;
	spin_unlock_irqrestore(&port->lock, flags);
}

/*
 * PortInfo.P_KeyViolations (the SM may reset it) and, on a sib port, the
 * PMA's PortRcvConstraintErrors source, which never goes back.
 */
static void rxe_count_pkey_viol(struct rxe_dev *rxe)
{
	rxe_port_cntr_inc(rxe, &rxe->port.attr.bad_pkey_cntr);
	if (rxe->sib)
		atomic64_inc(&rxe->sib->ctr.pkey_viol);
}

/*
 * On a sib port a QP other than QP0/QP1 belongs to the partition at its
 * P_Key index: a packet of another partition is a P_Key violation even
 * if the port's table holds its key.
 */
static bool sib_chk_qp_pkey(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	if (likely(!pkt->rxe->sib) || qp_num(qp) <= 1)
		return true;
	return sib_qp_pkey_ok(pkt->rxe, READ_ONCE(qp->attr.pkey_index),
			      bth_pkey(pkt));
}

static bool rxe_chk_qkey(struct rxe_qp *qp, struct rxe_pkt_info *pkt)
{
	u32 qkey;

	/* QP0 takes any Q_Key (IBA 13.5.3.1); so do connected QPs */
	if (qp_type(qp) != IB_QPT_UD && qp_type(qp) != IB_QPT_GSI)
		return true;
	qkey = qp_num(qp) == 1 ? GSI_QKEY : qp->attr.qkey;
	return deth_qkey(pkt) == qkey;
}

/*
 * Checks the headers; on success pkt->qp holds a QP reference. A failure
 * is counted here.
 */
static int rxe_hdr_check(struct rxe_pkt_info *pkt)
{
	struct rxe_dev *rxe = pkt->rxe;
	enum rxe_rx_drop why;
	struct rxe_qp *qp;
	u32 qpn;

	if (bth_tver(pkt) != 0) {
		rxe_rx_drop_inc(rxe, RXE_DROP_TVER);
		return -EINVAL;
	}
	qpn = bth_qpn(pkt);
	/* QP0 does not exist on RoCE */
	if (qpn == 0 && !rxe->sib) {
		rxe_rx_drop_inc(rxe, RXE_DROP_QPN);
		return -EINVAL;
	}
	if (rxe->sib && !sib_rx_vl15_ok(pkt, qpn)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_VL15);
		return -EINVAL;
	}
	/* SMPs are sent with 0xffff and their P_Key is not checked */
	if (qpn != 0 && !rxe_chk_pkey(pkt)) {
		rxe_count_pkey_viol(rxe);
		return -EINVAL;
	}
	/* the QPs of a multicast group are checked one by one later */
	if (qpn == IB_MULTICAST_QPN)
		return 0;

	qp = rxe_qp_get_by_qpn(rxe, qpn);
	if (!qp) {
		rxe_rx_drop_inc(rxe, RXE_DROP_QPN);
		return -EINVAL;
	}
	if (!rxe_chk_qp_type(qp, pkt)) {
		why = RXE_DROP_QP_TYPE;
		goto err_put;
	}
	if (!rxe_chk_qp_state(qp, pkt)) {
		why = RXE_DROP_QP_STATE;
		goto err_put;
	}
	if (!sib_chk_qp_pkey(qp, pkt)) {
		rxe_count_pkey_viol(rxe);
		rxe_qp_put(qp);
		return -EINVAL;
	}
	if (!rxe_chk_qkey(qp, pkt)) {
		rxe_port_cntr_inc(rxe, &rxe->port.attr.qkey_viol_cntr);
		rxe_qp_put(qp);
		return -EINVAL;
	}
	pkt->qp = qp;
	return 0;

err_put:
	rxe_qp_put(qp);
	rxe_rx_drop_inc(rxe, why);
	return -EINVAL;
}

static void rxe_count_rcvd(struct rxe_dev *rxe, struct sk_buff *skb)
{
	rxe_counter_inc(rxe, RXE_CNT_RCVD_PKTS);
	if (skb->protocol == htons(ETH_P_IBOE))
		rxe_counter_inc(rxe, RXE_CNT_RCVD_PKTS_V1);
}

/*
 * A packet to QPN 0xffffff: one copy to each QP attached to the group of
 * its destination address that passes the checks a unicast QP would
 * (type, state, Q_Key). Consumes the skb; headers and ICRC are checked.
 */
static void rxe_rcv_mcast(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct rxe_dev *rxe = pkt->rxe;
	struct rxe_qp *qps[RXE_MAX_MCAST_QP_ATTACH];
	struct sk_buff *cskb;
	union ib_gid dgid;
	int n = 0, ok = 0;
	int i;

	/* only UD sends are addressed to a group */
	if ((pkt->mask & RXE_REQ_MASK) && !rxe_pkt_dgid(skb, &dgid) &&
	    rxe_gid_is_multicast(&dgid))
		n = rxe_mcast_get_qps(rxe, &dgid, qps, ARRAY_SIZE(qps));

	/* keep the QPs that accept the packet at the front of qps[] */
	for (i = 0; i < n; i++) {
		struct rxe_qp *qp = qps[i];

		if (!rxe_chk_qp_type(qp, pkt)) {
			rxe_rx_drop_inc(rxe, RXE_DROP_QP_TYPE);
		} else if (!rxe_chk_qp_state(qp, pkt)) {
			rxe_rx_drop_inc(rxe, RXE_DROP_QP_STATE);
		} else if (!sib_chk_qp_pkey(qp, pkt)) {
			rxe_count_pkey_viol(rxe);
		} else if (!rxe_chk_qkey(qp, pkt)) {
			rxe_port_cntr_inc(rxe,
					  &rxe->port.attr.qkey_viol_cntr);
		} else {
			qps[ok++] = qp;
			continue;
		}
		rxe_qp_put(qp);
	}
	if (!n)
		rxe_rx_drop_inc(rxe, RXE_DROP_QPN);
	if (!ok) {
		kfree_skb(skb);
		return;
	}

	rxe_count_rcvd(rxe, skb);
	/* the last QP takes the skb itself, the others a clone */
	for (i = 0; i < ok; i++) {
		cskb = i == ok - 1 ? skb : skb_clone(skb, GFP_ATOMIC);
		if (unlikely(!cskb)) {
			rxe_qp_put(qps[i]);
			continue;
		}
		/* the clone has its own copy of the control block */
		SKB_TO_PKT(cskb)->qp = qps[i];
		rxe_resp_queue_pkt(qps[i], cskb);
	}
}

/*
 * Softirq (or loopback tasklet) context. skb->data is the BTH and the IP
 * header or GRH is at skb_network_header(); pkt->rxe, paylen, mask and port_num
 * are set by the caller. Always consumes the skb.
 */
void rxe_rcv(struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct rxe_dev *rxe = pkt->rxe;
	const struct rxe_opcode_info *info;

	pkt->qp = NULL;
	if (unlikely(pkt->paylen < RXE_BTH_BYTES + RXE_ICRC_SIZE ||
		     skb->len < pkt->paylen)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
		goto drop;
	}

	pkt->hdr = skb->data;
	pkt->opcode = bth_opcode(pkt);
	pkt->psn = bth_psn(pkt);
	info = &rxe_opcode[pkt->opcode];
	if (unlikely(!info->mask)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_OPCODE);
		goto drop;
	}
	pkt->mask |= info->mask;
	/* headers, pad and ICRC must fit: payload_size() is then >= 0 */
	if (unlikely(pkt->paylen < info->length + bth_pad(pkt) +
				   RXE_ICRC_SIZE)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
		goto drop;
	}

	if (unlikely(rxe_chk_dgid(rxe, skb,
				  pkt->mask & RXE_LOOPBACK_MASK))) {
		rxe_rx_drop_inc(rxe, RXE_DROP_DGID);
		goto drop;
	}
	if (unlikely(rxe_hdr_check(pkt)))
		goto drop;
	if (unlikely(rxe_icrc_check(skb, pkt))) {
		rxe_rx_drop_inc(rxe, RXE_DROP_ICRC);
		goto drop_qp;
	}

	if (!pkt->qp) {
		rxe_rcv_mcast(skb);
		return;
	}

	if (unlikely(skb_queue_len(pkt->mask & RXE_REQ_MASK ?
				   &pkt->qp->req_pkts : &pkt->qp->resp_pkts) >=
		     RXE_MAX_QUEUED_PKTS)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_QUEUE_FULL);
		/* an SMP lost for want of resources: VL15Dropped too */
		if (qp_type(pkt->qp) == IB_QPT_SMI)
			atomic64_inc(&rxe->sib->ctr.vl15_dropped);
		goto drop_qp;
	}
	rxe_count_rcvd(rxe, skb);

	if (pkt->mask & RXE_REQ_MASK)
		rxe_resp_queue_pkt(pkt->qp, skb);
	else
		rxe_comp_queue_pkt(pkt->qp, skb);
	return;

drop_qp:
	if (pkt->qp)
		rxe_qp_put(pkt->qp);
	pkt->qp = NULL;
drop:
	kfree_skb(skb);
}

static const char * const rxe_rx_drop_names[RXE_NUM_RX_DROPS] = {
	[RXE_DROP_LENGTH]	= "length",
	[RXE_DROP_OPCODE]	= "opcode",
	[RXE_DROP_TVER]		= "version",
	[RXE_DROP_DGID]		= "dgid",
	[RXE_DROP_QPN]		= "qpn",
	[RXE_DROP_QP_TYPE]	= "qp_type",
	[RXE_DROP_QP_STATE]	= "qp_state",
	[RXE_DROP_ICRC]		= "icrc",
	[RXE_DROP_QUEUE_FULL]	= "queue_full",
	[RXE_DROP_GRH]		= "grh",
	[RXE_DROP_LRH]		= "lrh",
	[RXE_DROP_VCRC]		= "vcrc",
	[RXE_DROP_DLID]		= "dlid",
	[RXE_DROP_PORT_STATE]	= "port_state",
	[RXE_DROP_VL15]		= "vl15",
};

/* One "reason count" line per reason, always all of them, fixed order. */
ssize_t rxe_rx_drops_show(struct rxe_dev *rxe, char *buf)
{
	int len = 0;
	int i;

	for (i = 0; i < RXE_NUM_RX_DROPS; i++)
		len += sysfs_emit_at(buf, len, "%s %lld\n",
				     rxe_rx_drop_names[i],
				     (s64)atomic64_read(&rxe->rx_drops[i]));
	return len;
}
