// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE v2 invariant CRC (IBA annex A17.3.3): CRC-32 over the IP, UDP and
 * transport headers with every field a router may change replaced by ones,
 * preceded by eight 0xff bytes standing in for the absent masked LRH, then
 * over the rest of the packet up to the ICRC itself.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include "rxe_net.h"

/* Largest pseudo header: IPv4 with options (60) + UDP + BTH. */
#define RXE_ICRC_PSEUDO_MAX	(60 + sizeof(struct udphdr) + RXE_BTH_BYTES)

/*
 * Computes the ICRC of the packet described by @pkt in @skb, whose IP
 * header starts at skb_network_header() and whose UDP header immediately
 * precedes pkt->hdr. Returns the value as it is sent (already inverted).
 */
static int rxe_icrc_calc(struct sk_buff *skb, struct rxe_pkt_info *pkt,
			 u32 *icrc)
{
	static const u8 masked_lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	u8 buf[RXE_ICRC_PSEUDO_MAX];
	u8 *nh = skb_network_header(skb);
	struct udphdr *udph;
	unsigned int iplen;
	u32 crc;

	if (pkt->paylen < RXE_BTH_BYTES + RXE_ICRC_SIZE)
		return -EINVAL;

	if (skb->protocol == htons(ETH_P_IP)) {
		struct iphdr *iph = (struct iphdr *)buf;

		iplen = ((struct iphdr *)nh)->ihl * 4;
		if (iplen < sizeof(*iph) || iplen > 60)
			return -EINVAL;
		memcpy(buf, nh, iplen);
		iph->tos = 0xff;
		iph->ttl = 0xff;
		iph->check = htons(0xffff);
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)buf;

		iplen = sizeof(*ip6h);
		memcpy(buf, nh, iplen);
		/* traffic class and flow label: all bits after the version */
		buf[0] |= 0x0f;
		buf[1] = 0xff;
		buf[2] = 0xff;
		buf[3] = 0xff;
		ip6h->hop_limit = 0xff;
	} else {
		return -EINVAL;
	}

	/* The UDP header must sit right before the BTH inside the buffer. */
	if (pkt->hdr - sizeof(*udph) < nh + iplen ||
	    pkt->hdr + pkt->paylen > skb_tail_pointer(skb))
		return -EINVAL;
	udph = (struct udphdr *)(buf + iplen);
	memcpy(udph, pkt->hdr - sizeof(*udph), sizeof(*udph));
	udph->check = htons(0xffff);

	memcpy(buf + iplen + sizeof(*udph), pkt->hdr, RXE_BTH_BYTES);
	/* BTH byte 4: FECN, BECN and reserved bits (IBA: resv8a) */
	buf[iplen + sizeof(*udph) + 4] = 0xff;

	crc = crc32_le(~0U, masked_lrh, sizeof(masked_lrh));
	crc = crc32_le(crc, buf, iplen + sizeof(*udph) + RXE_BTH_BYTES);
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
