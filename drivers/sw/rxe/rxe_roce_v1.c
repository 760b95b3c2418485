// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE v1 (IBA annex A16): the IBA packet after an Ethernet header of
 * ethertype 0x8915 (ETH_P_IBOE), starting with a 40-byte GRH, then the BTH
 * and the rest exactly as in RoCE v2. Not routable: the destination MAC
 * comes from the address vector, the frame goes straight to the netdev.
 * Received frames arrive through one packet_type per rxe netdev and join
 * the common receive path (rxe_rcv) once the GRH has been checked.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/netdevice.h>
#include "rxe.h"

/* GRH hop limit when the address vector leaves it 0 */
#define RXE_V1_HOP_LIMIT	64

/*
 * A GRH from @av in front of what @skb holds (PayLen: all of it). RoCE v1
 * and sib AVs both keep their SGID in sgid_addr (rxe_av_fill_ip_info(),
 * sib_av_from_attr()).
 */
void rxe_push_grh(struct rxe_av *av, struct sk_buff *skb, u8 hop_limit)
{
	struct ib_grh *grh = skb_push(skb, sizeof(*grh));
	u32 vtf = RXE_GRH_IPVER << 28 | (u32)av->grh.traffic_class << 20 |
		  (av->grh.flow_label & 0xfffff);

	grh->version_tclass_flow = cpu_to_be32(vtf);
	grh->paylen = htons(skb->len - sizeof(*grh));
	grh->next_hdr = RXE_GRH_NXTHDR_BTH;
	grh->hop_limit = hop_limit;
	memcpy(grh->sgid.raw, &av->sgid_addr._sockaddr_in6.sin6_addr,
	       sizeof(grh->sgid.raw));
	memcpy(grh->dgid.raw, av->grh.dgid.raw, sizeof(grh->dgid.raw));
}

/* IPVer 6 and the BTH next: the rest of a GRH is the sender's business. */
bool rxe_grh_ok(const struct ib_grh *grh)
{
	return be32_to_cpu(grh->version_tclass_flow) >> 28 == RXE_GRH_IPVER &&
	       grh->next_hdr == RXE_GRH_NXTHDR_BTH;
}

/* Puts GRH and Ethernet header in front of the BTH; may set LOOPBACK. */
int rxe_prepare_v1(struct rxe_av *av, struct rxe_pkt_info *pkt,
		   struct sk_buff *skb)
{
	struct net_device *ndev = pkt->rxe->ndev;
	int err;

	rxe_push_grh(av, skb, av->grh.hop_limit ?: RXE_V1_HOP_LIMIT);
	skb_reset_network_header(skb);
	skb->protocol = htons(ETH_P_IBOE);

	err = dev_hard_header(skb, ndev, ETH_P_IBOE, av->dmac, ndev->dev_addr,
			      skb->len);
	if (err < 0)
		return -EINVAL;
	skb_reset_mac_header(skb);

	/*
	 * ib_resolve_eth_dmac() gives a destination on this host our own
	 * MAC: such a frame would never come back from the wire.
	 */
	if (ether_addr_equal(av->dmac, ndev->dev_addr))
		pkt->mask |= RXE_LOOPBACK_MASK;
	return 0;
}

/*
 * The wire does not bring our own multicast frames back: QPs of this
 * device attached to the group get a copy through loopback.
 */
static void rxe_v1_mcast_self(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	const struct ib_grh *grh = (const void *)skb_network_header(skb);
	struct rxe_dev *rxe = pkt->rxe;
	struct sk_buff *copy;

	if (!rxe_mcast_has_group(rxe, &grh->dgid) ||
	    !ib_device_try_get(&rxe->ib_dev))
		return;
	copy = skb_clone(skb, GFP_ATOMIC);
	if (!copy) {
		ib_device_put(&rxe->ib_dev);
		return;
	}
	rxe_loop_deliver(copy, pkt, rxe);
}

/* Sends a frame rxe_prepare_v1() built; consumes the skb. */
int rxe_send_v1(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	int err;

	if (is_multicast_ether_addr(eth_hdr(skb)->h_dest))
		rxe_v1_mcast_self(skb, pkt);
	/* the qdisc layer keeps its own control block in skb->cb */
	memset(skb->cb, 0, sizeof(skb->cb));
	err = dev_queue_xmit(skb);
	return net_xmit_eval(err) ? -EAGAIN : 0;
}

/*
 * Softirq; skb->data is at the GRH. The smallest RoCE v1 frame (GRH, BTH,
 * ICRC: 56 bytes after the Ethernet header) is longer than the Ethernet
 * minimum, so the GRH's PayLen must account for every byte after it.
 */
static int rxe_v1_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	struct rxe_pkt_info *pkt;
	const struct ib_grh *grh;
	struct rxe_dev *rxe;
	unsigned int paylen;

	/* a promiscuous netdev (tcpdump) also passes other hosts' frames */
	if (skb->pkt_type == PACKET_OTHERHOST)
		goto drop;
	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	rxe = rxe_net_get_dev(dev);
	if (!rxe)
		goto drop;
	/* header accessors and payload copies need linear data */
	if (skb_linearize(skb))
		goto drop_put;

	if (skb->len < RXE_GRH_BYTES + RXE_BTH_BYTES + RXE_ICRC_SIZE) {
		rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
		goto drop_put;
	}
	grh = (const void *)skb->data;
	if (!rxe_grh_ok(grh)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_GRH);
		goto drop_put;
	}
	paylen = be16_to_cpu(grh->paylen);
	if (paylen != skb->len - RXE_GRH_BYTES) {
		rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
		goto drop_put;
	}
	skb_reset_network_header(skb);
	/* from here on skb->data is the BTH, as for RoCE v2 */
	__skb_pull(skb, RXE_GRH_BYTES);

	pkt = SKB_TO_PKT(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->rxe = rxe;
	pkt->hdr = skb->data;
	pkt->mask = RXE_GRH_MASK;
	pkt->paylen = paylen;
	pkt->port_num = 1;

	rxe_rcv(skb);
	/* queued packets keep the device alive through their QP */
	ib_device_put(&rxe->ib_dev);
	return NET_RX_SUCCESS;

drop_put:
	ib_device_put(&rxe->ib_dev);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

/* The receive hook of one rxe netdev (frames on VLANs above it too). */
void rxe_v1_pt_init(struct packet_type *pt, struct net_device *ndev)
{
	memset(pt, 0, sizeof(*pt));
	pt->type = htons(ETH_P_IBOE);
	pt->dev = ndev;
	pt->func = rxe_v1_rcv;
}
