// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receive on a sib port: frames of ethertype ETH_P_SIB from the cable's
 * netdev. The link layer checks (VCRC, LVer, LNH, PktLen, DLID, port
 * state, GRH) happen here; the packet then joins rxe's receive path
 * (rxe_rcv: P_Key, QP, ICRC...) with skb->data at the BTH and the network
 * header at the LRH. Also what the responder asks of a received LRH/GRH.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include "rxe.h"

#define SIB_BTH_QPN_MASK	0xffffff

/*
 * Ours: a LID of the port's range, a multicast LID (the group is checked
 * against attached QPs later) or the permissive LID, which only directed
 * route SMPs to QP0 may carry (IBA 7.11.1).
 */
static bool sib_dlid_ok(struct rxe_dev *rxe, u16 dlid, u32 dqpn)
{
	u16 lid = READ_ONCE(rxe->port.attr.lid);
	u8 lmc = READ_ONCE(rxe->port.attr.lmc);

	if (dlid == SIB_LID_PERMISSIVE)
		return dqpn == 0;
	if (dlid >= SIB_LID_MCAST_FIRST)
		return dqpn == SIB_BTH_QPN_MASK;
	return lid && dlid && (dlid >> lmc) == (lid >> lmc);
}

/* VL15 (SMPs) is all an INIT port takes; data needs ARMED or ACTIVE. */
static bool sib_state_ok(struct rxe_dev *rxe, const u8 *lrh)
{
	enum ib_port_state state = READ_ONCE(rxe->port.attr.state);

	if (lrh[0] >> 4 == 15)
		return state >= IB_PORT_INIT;
	return state == IB_PORT_ARMED || state == IB_PORT_ACTIVE;
}

static bool sib_grh_ok(const struct ib_grh *grh, unsigned int paylen)
{
	return rxe_grh_ok(grh) && be16_to_cpu(grh->paylen) == paylen;
}

/* The cable's other end is whoever sends us valid IB frames. */
static void sib_learn_peer(struct sib_port *sp, struct sk_buff *skb)
{
	const u8 *src = eth_hdr(skb)->h_source;
	u64 mac;

	if (!is_valid_ether_addr(src))
		return;
	mac = ether_addr_to_u64(src);
	if (atomic64_read(&sp->peer_mac) != mac)
		atomic64_set(&sp->peer_mac, mac);
}

/*
 * Checks the link layer of the packet at @lrh, @len bytes through the
 * ICRC; returns the LRH+GRH length or a negative drop reason.
 */
static int sib_check_lrh(struct rxe_dev *rxe, const u8 *lrh,
			 unsigned int len)
{
	unsigned int hlen;
	u8 lnh = lrh[1] & 3;
	u8 vl = lrh[0] >> 4;
	u16 slid;
	u32 dqpn;

	if ((lrh[0] & 0xf) != 0 ||
	    (lnh != SIB_LNH_LOCAL && lnh != SIB_LNH_GLOBAL))
		return -RXE_DROP_LRH;	/* LVer, or a raw packet */
	/* VL0 is the one data VL (VLCap 1): others are malformed */
	if (vl != 0 && vl != 15)
		return -RXE_DROP_LRH;
	hlen = SIB_LRH_BYTES + (lnh == SIB_LNH_GLOBAL ? RXE_GRH_BYTES : 0);
	if (len < hlen + RXE_BTH_BYTES + RXE_ICRC_SIZE)
		return -RXE_DROP_LENGTH;
	dqpn = get_unaligned_be32(lrh + hlen + 4) & SIB_BTH_QPN_MASK;
	if (!sib_dlid_ok(rxe, get_unaligned_be16(lrh + 2), dqpn))
		return -RXE_DROP_DLID;
	/*
	 * So is a permissive SLID (a port without a LID sends SMPs only);
	 * a multicast LID names no sender and cannot be answered.
	 */
	slid = get_unaligned_be16(lrh + 6);
	if (slid == SIB_LID_PERMISSIVE ? dqpn != 0 :
	    slid >= SIB_LID_MCAST_FIRST)
		return -RXE_DROP_DLID;
	if (!sib_state_ok(rxe, lrh))
		return -RXE_DROP_PORT_STATE;
	if (lnh == SIB_LNH_GLOBAL &&
	    !sib_grh_ok((const void *)(lrh + SIB_LRH_BYTES),
			len - hlen))
		return -RXE_DROP_GRH;
	return hlen;
}

/* Softirq; skb->data is at the LRH. */
static int sib_rcv(struct sk_buff *skb, struct net_device *dev,
		   struct packet_type *pt, struct net_device *orig_dev)
{
	struct sib_port *sp = container_of(pt, struct sib_port, pt);
	struct rxe_dev *rxe = sp->rxe;
	struct rxe_pkt_info *pkt;
	unsigned int len;
	int hlen;

	/* a promiscuous netdev (tcpdump) also passes other hosts' frames */
	if (skb->pkt_type == PACKET_OTHERHOST)
		goto drop;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (!ib_device_try_get(&rxe->ib_dev))
		goto drop;
	/* header accessors and payload copies need linear data */
	if (skb_linearize(skb))
		goto drop_put;

	/* Ethernet pads short frames: PktLen says where the packet ends */
	if (skb->len < SIB_LRH_BYTES + SIB_VCRC_SIZE)
		goto drop_len;
	len = (get_unaligned_be16(skb->data + 4) & 0x7ff) * 4;
	if (len < SIB_LRH_BYTES || len + SIB_VCRC_SIZE > skb->len)
		goto drop_len;
	sib_pma_count_rx(rxe, skb->data);
	if (get_unaligned_le16(skb->data + len) != sib_vcrc(skb->data, len)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_VCRC);
		goto drop_put;
	}
	hlen = sib_check_lrh(rxe, skb->data, len);
	if (hlen < 0) {
		rxe_rx_drop_inc(rxe, -hlen);
		goto drop_put;
	}
	sib_learn_peer(sp, skb);

	skb_reset_network_header(skb);
	/* from here on skb->data is the BTH, as for RoCE */
	__skb_pull(skb, hlen);
	pkt = SKB_TO_PKT(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->rxe = rxe;
	pkt->hdr = skb->data;
	pkt->paylen = len - hlen;
	pkt->port_num = 1;

	rxe_rcv(skb);
	/* queued packets keep the device alive through their QP */
	ib_device_put(&rxe->ib_dev);
	return NET_RX_SUCCESS;

drop_len:
	rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
drop_put:
	ib_device_put(&rxe->ib_dev);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* Registered while the device is (rxe_net's ib client). */
void sib_rx_start(struct rxe_dev *rxe)
{
	struct packet_type *pt = &rxe->sib->pt;

	memset(pt, 0, sizeof(*pt));
	pt->type = htons(ETH_P_SIB);
	pt->dev = rxe->ndev;
	pt->func = sib_rcv;
	dev_add_pack(pt);
}

/* Returns once no sib_rcv() runs for this device (synchronize_net). */
void sib_rx_stop(struct rxe_dev *rxe)
{
	dev_remove_pack(&rxe->sib->pt);
}

/* The GRH of a received packet (network header at its LRH), or NULL. */
const struct ib_grh *sib_rx_grh(struct sk_buff *skb)
{
	const u8 *lrh = skb_network_header(skb);

	if ((lrh[1] & 3) != SIB_LNH_GLOBAL)
		return NULL;
	return (const struct ib_grh *)(lrh + SIB_LRH_BYTES);
}

/*
 * IB packets are addressed by DLID (checked in sib_rcv); a GRH, when
 * there is one, must name one of our GIDs or a multicast group.
 */
int sib_chk_dgid(struct rxe_dev *rxe, struct sk_buff *skb)
{
	const struct ib_grh *grh = sib_rx_grh(skb);
	const struct ib_gid_attr *attr;

	if (!grh || grh->dgid.raw[0] == 0xff)
		return 0;
	attr = rdma_find_gid_by_port(&rxe->ib_dev, &grh->dgid, IB_GID_TYPE_IB,
				     1, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	rdma_put_gid_attr(attr);
	return 0;
}

/*
 * The P_Key index a management QP reports (IBA 13.5.3.2): the table entry
 * the packet's P_Key matched, a full member's before a limited one.
 */
static u16 sib_rx_pkey_index(struct rxe_dev *rxe, u16 pkey)
{
	u16 i, partial = 0;
	bool found = false;

	for (i = 0; i < SIB_PKEY_TBL_LEN; i++) {
		u16 entry = sib_pkey(rxe, i);

		if (entry == pkey)
			return i;
		if (!found && entry & 0x7fff &&
		    (entry & 0x7fff) == (pkey & 0x7fff)) {
			partial = i;
			found = true;
		}
	}
	return partial;
}

/*
 * The source of a received message in its completion: SLID, SL, the DLID
 * path bits, the P_Key index for QP0/QP1, and IB_WC_GRH only when a GRH
 * came (the 40 bytes in front of a UD message are then that GRH,
 * sib_rx_net_hdr()).
 */
void sib_rx_wc(struct sk_buff *skb, struct rxe_cqe *cqe, bool user)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct rxe_dev *rxe = pkt->rxe;
	struct rxe_qp *qp = pkt->qp;
	bool mgmt = qp && (qp_type(qp) == IB_QPT_GSI ||
			   qp_type(qp) == IB_QPT_SMI);
	const u8 *lrh = skb_network_header(skb);
	u16 dlid = get_unaligned_be16(lrh + 2);
	/* path bits select one of our LIDs: a group or 0xffff has none */
	u8 bits = dlid >= SIB_LID_MCAST_FIRST ? 0 :
		  dlid & ((1 << READ_ONCE(rxe->port.attr.lmc)) - 1);
	u16 slid = get_unaligned_be16(lrh + 6);
	u8 sl = lrh[1] >> 4;
	bool grh = sib_rx_grh(skb);

	if (user) {
		cqe->uibwc.slid = slid;
		cqe->uibwc.sl = sl;
		cqe->uibwc.dlid_path_bits = bits;
		if (mgmt)
			cqe->uibwc.pkey_index =
				sib_rx_pkey_index(rxe, bth_pkey(pkt));
		if (!grh)
			cqe->uibwc.wc_flags &= ~IB_WC_GRH;
	} else {
		cqe->ibwc.slid = slid;
		cqe->ibwc.sl = sl;
		cqe->ibwc.dlid_path_bits = bits;
		if (mgmt)
			cqe->ibwc.pkey_index =
				sib_rx_pkey_index(rxe, bth_pkey(pkt));
		if (!grh)
			cqe->ibwc.wc_flags &= ~IB_WC_GRH;
	}
}

/* The 40 bytes in front of a UD message: the GRH, or zeros without one. */
void sib_rx_net_hdr(struct sk_buff *skb, u8 *hdr)
{
	const struct ib_grh *grh = sib_rx_grh(skb);

	if (grh)
		memcpy(hdr, grh, RXE_GRH_BYTES);
	else
		memset(hdr, 0, RXE_GRH_BYTES);
}
