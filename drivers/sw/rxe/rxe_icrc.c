// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE invariant CRC (IBA annexes A16/A17): CRC-32 over the network and
 * transport headers with every field a router may change replaced by ones,
 * preceded by eight 0xff bytes standing in for the absent masked LRH, then
 * over the rest of the packet up to the ICRC itself. The network headers
 * are the GRH for RoCE v1, the IP and UDP headers for RoCE v2.
 */
#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "rxe.h"

/* Largest pseudo header: IPv4 with options (60) + UDP + BTH. */
#define RXE_ICRC_PSEUDO_MAX	(60 + sizeof(struct udphdr) + RXE_BTH_BYTES)

/*
 * IPv6 header and IBA GRH share a layout: traffic class and flow label
 * (every bit after the version) and the hop limit are variant. Also used
 * for the GRH of an IB packet (sib_crc.c).
 */
void rxe_icrc_mask_grh(u8 *hdr)
{
	hdr[0] |= 0x0f;
	hdr[1] = 0xff;
	hdr[2] = 0xff;
	hdr[3] = 0xff;
	hdr[7] = 0xff;
}

/*
 * Computes the ICRC of the packet described by @pkt in @skb, whose network
 * header (IP or, for RoCE v1, GRH) starts at skb_network_header(); for RoCE
 * v2 the UDP header immediately precedes pkt->hdr. Returns the value as it
 * is sent (already inverted).
 */
static int rxe_icrc_calc(struct sk_buff *skb, struct rxe_pkt_info *pkt,
			 u32 *icrc)
{
	static const u8 masked_lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	u8 buf[RXE_ICRC_PSEUDO_MAX];
	u8 *nh = skb_network_header(skb);
	unsigned int nlen, hlen;
	struct udphdr *udph;
	u32 crc;

	if (pkt->paylen < RXE_BTH_BYTES + RXE_ICRC_SIZE)
		return -EINVAL;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = (struct iphdr *)buf;

		nlen = ((struct iphdr *)nh)->ihl * 4;
		if (nlen < sizeof(*iph) || nlen > 60)
			return -EINVAL;
		memcpy(buf, nh, nlen);
		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = htons(0xffff);
	} else if (skb->protocol == htons(ETH_P_IPV6) ||
		   skb->protocol == htons(ETH_P_IBOE)) {
		nlen = sizeof(struct ipv6hdr);
		memcpy(buf, nh, nlen);
		rxe_icrc_mask_grh(buf);
	} else if (skb->protocol == htons(ETH_P_SIB)) {
		return sib_icrc_calc(skb, pkt, icrc);
	} else {
		return -EINVAL;
	}

	/* RoCE v2: the UDP header sits right before the BTH */
	hlen = nlen;
	if (skb->protocol != htons(ETH_P_IBOE)) {
		if (pkt->hdr - sizeof(*udph) < nh + nlen)
			return -EINVAL;
		udph = (struct udphdr *)(buf + nlen);
		memcpy(udph, pkt->hdr - sizeof(*udph), sizeof(*udph));
		udph->check = htons(0xffff);
		hlen += sizeof(*udph);
	} else if (pkt->hdr != nh + nlen) {
		return -EINVAL;
	}
	if (pkt->hdr + pkt->paylen > skb_tail_pointer(skb))
		return -EINVAL;

	memcpy(buf + hlen, pkt->hdr, RXE_BTH_BYTES);
	/* BTH byte 4: FECN, BECN and reserved bits (IBA: resv8a) */
	buf[hlen + 4] = 0xff;

	crc = crc32_le(~0U, masked_lrh, sizeof(masked_lrh));
	crc = crc32_le(crc, buf, hlen + RXE_BTH_BYTES);
	crc = crc32_le(crc, pkt->hdr + RXE_BTH_BYTES,
		       pkt->paylen - RXE_BTH_BYTES - RXE_ICRC_SIZE);
	*icrc = ~crc;
	return 0;
}

static u8 *rxe_icrc_ptr(struct rxe_pkt_info *pkt)
{
	return pkt->hdr + pkt->paylen - RXE_ICRC_SIZE;
}

/* 0 if the packet's ICRC is right, else -EINVAL. */
int rxe_icrc_check(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	u32 icrc;

	if (rxe_icrc_calc(skb, pkt, &icrc))
		return -EINVAL;
	/* crc32_le is bit-reflected: the value goes out least byte first */
	if (get_unaligned_le32(rxe_icrc_ptr(pkt)) != icrc)
		return -EINVAL;
	return 0;
}

/* Fills in the ICRC; the IP and UDP headers must be final already. */
void rxe_icrc_generate(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	u32 icrc;

	if (WARN_ON_ONCE(rxe_icrc_calc(skb, pkt, &icrc)))
		icrc = 0;
	put_unaligned_le32(icrc, rxe_icrc_ptr(pkt));
}
