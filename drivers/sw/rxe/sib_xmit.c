// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Transmit on a sib port: what the engine built (BTH to ICRC) becomes an
 * IB packet (LRH, GRH if the AV is global, the P_Key of the QP's table
 * entry, ICRC, VCRC) in an Ethernet frame of ethertype ETH_P_SIB. A cable
 * joins two ports, so the frame goes to the port at the other end: its
 * MAC once a frame from it taught us, the broadcast address until then
 * and for multicast DLIDs. Packets to our own LIDs never leave the host.
 */
#include <linux/etherdevice.h>
#include "rxe.h"

#define SIB_VL15	15

unsigned int sib_headroom(struct rxe_av *av)
{
	return SIB_LRH_BYTES + (sib_av_lrh(av)->global ? RXE_GRH_BYTES : 0);
}

/*
 * IBA 9.2 / 10.9: a GSI send carries the P_Key its WR names; SMPs carry
 * the default one (not checked by their receiver); every other packet the
 * one at the QP's P_Key index.
 */
static u16 sib_tx_pkey(struct rxe_pkt_info *pkt)
{
	struct rxe_qp *qp = pkt->qp;
	u16 index = 0;

	if (qp && qp_type(qp) == IB_QPT_SMI)
		return SIB_DEFAULT_PKEY;
	if (qp && qp_type(qp) == IB_QPT_GSI && pkt->wqe)
		index = pkt->wqe->wr.wr.ud.pkey_index;
	else if (qp)
		index = qp->attr.pkey_index;
	return sib_pkey(pkt->rxe, index);
}

/*
 * LRH byte 0: VL and LVer 0 (VL15 for SMPs, whatever the SL: IBA 7.6.5;
 * VL0, the one data VL, otherwise); byte 1: SL and LNH.
 */
static void sib_push_lrh(struct rxe_av *av, struct sk_buff *skb, u16 slid,
			 bool smp)
{
	struct sib_av_lrh *a = sib_av_lrh(av);
	u8 *lrh = skb_push(skb, SIB_LRH_BYTES);

	lrh[0] = smp ? SIB_VL15 << 4 : 0;
	lrh[1] = (a->sl & 0xf) << 4 |
		 (a->global ? SIB_LNH_GLOBAL : SIB_LNH_LOCAL);
	memcpy(lrh + 2, &a->dlid, sizeof(a->dlid));
	/* PktLen: 4-byte words from the LRH through the ICRC */
	put_unaligned_be16((skb->len / 4) & 0x7ff, lrh + 4);
	put_unaligned_be16(slid, lrh + 6);
}

static bool sib_is_own_lid(u16 dlid, u16 lid, u8 lmc)
{
	return lid && dlid && dlid < SIB_LID_MCAST_FIRST &&
	       (dlid >> lmc) == (lid >> lmc);
}

/*
 * skb->data is the BTH, every transport header is filled in. Adds the
 * IB headers and trailers and the Ethernet header, or sets LOOPBACK.
 */
int sib_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		struct sk_buff *skb)
{
	struct rxe_dev *rxe = pkt->rxe;
	struct net_device *ndev = rxe->ndev;
	struct sib_av_lrh *a = sib_av_lrh(av);
	u16 dlid = be16_to_cpu(a->dlid);
	u16 lid = READ_ONCE(rxe->port.attr.lid);
	u8 lmc = READ_ONCE(rxe->port.attr.lmc);
	bool smp = pkt->qp && qp_type(pkt->qp) == IB_QPT_SMI;
	u8 dest[ETH_ALEN];
	u64 peer;
	u32 icrc;
	u16 vcrc;
	int err;

	bth_set_pkey(pkt, sib_tx_pkey(pkt));
	if (a->global)
		rxe_push_grh(av, skb, av->grh.hop_limit);
	/* no LID yet: only the permissive LID identifies us (IBA 7.11) */
	sib_push_lrh(av, skb, lid ? lid | (a->src_path_bits &
					   ((1 << lmc) - 1)) :
				    SIB_LID_PERMISSIVE, smp);
	skb_reset_network_header(skb);

	err = sib_icrc_calc(skb, pkt, &icrc);
	if (WARN_ON_ONCE(err))
		return err;
	put_unaligned_le32(icrc, pkt->hdr + pkt->paylen - RXE_ICRC_SIZE);
	/* over LRH..ICRC: computed before skb_put() makes room for it */
	vcrc = sib_vcrc(skb->data, skb->len);
	put_unaligned_le16(vcrc, skb_put(skb, SIB_VCRC_SIZE));

	if (sib_is_own_lid(dlid, lid, lmc)) {
		pkt->mask |= RXE_LOOPBACK_MASK;
		return 0;
	}

	peer = atomic64_read(&rxe->sib->peer_mac);
	if (!peer || dlid >= SIB_LID_MCAST_FIRST)
		eth_broadcast_addr(dest);
	else
		u64_to_ether_addr(peer, dest);
	skb->protocol = htons(ETH_P_SIB);
	err = dev_hard_header(skb, ndev, ETH_P_SIB, dest, ndev->dev_addr,
			      skb->len);
	if (err < 0)
		return -EINVAL;
	skb_reset_mac_header(skb);
	return 0;
}

/*
 * IBA 7.2: a port in INIT or ARMED sends SMPs (VL15) only, an ACTIVE one
 * everything; a DOWN port nothing. The permissive DLID is for SMPs only
 * (IBA 7.11.1).
 */
static bool sib_tx_allowed(struct rxe_dev *rxe, const u8 *lrh)
{
	enum ib_port_state state = READ_ONCE(rxe->port.attr.state);

	if (lrh[0] >> 4 == SIB_VL15)
		return state >= IB_PORT_INIT;
	return state == IB_PORT_ACTIVE &&
	       get_unaligned_be16(lrh + 2) != SIB_LID_PERMISSIVE;
}

/*
 * Sends a frame sib_prepare() built; consumes the skb. What the port may
 * not send is lost as on a dead link (RC retries it).
 */
int sib_send(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	int err;

	if (!sib_tx_allowed(pkt->rxe, skb_network_header(skb))) {
		atomic64_inc(&pkt->rxe->sib->ctr.xmit_discards);
		kfree_skb(skb);
		return 0;
	}
	sib_pma_count_tx(pkt->rxe, skb_network_header(skb));
	/* the qdisc layer keeps its own control block in skb->cb */
	memset(skb->cb, 0, sizeof(skb->cb));
	err = dev_queue_xmit(skb);
	return net_xmit_eval(err) ? -EAGAIN : 0;
}
