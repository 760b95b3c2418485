// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The two CRCs of an IB packet (IBA 7.8). ICRC: the CRC-32 RoCE uses, over
 * the LRH with the fields a switch may change as ones (VL) for a local
 * packet; a global one (with a GRH) may cross routers, which rewrite the
 * whole LRH, so its LRH counts as eight 0xff bytes (what RoCE feeds too)
 * and its GRH has TClass, FlowLabel and HopLmt as ones. Then the BTH with
 * Resv8a as ones and the rest up to the ICRC. VCRC: CRC-16 with
 * polynomial 0x100B over the whole packet, ICRC included, recomputed on
 * every link.
 */
#include <linux/crc32.h>
#include "rxe.h"

/* LRH + GRH + BTH: the part of the packet that has variant fields */
#define SIB_ICRC_HDR_MAX	(SIB_LRH_BYTES + RXE_GRH_BYTES + RXE_BTH_BYTES)

int sib_icrc_calc(struct sk_buff *skb, struct rxe_pkt_info *pkt, u32 *icrc)
{
	u8 buf[SIB_ICRC_HDR_MAX];
	u8 *lrh = skb_network_header(skb);
	unsigned int hlen;
	u32 crc;

	if (pkt->hdr < lrh + SIB_LRH_BYTES ||
	    pkt->paylen < RXE_BTH_BYTES + RXE_ICRC_SIZE ||
	    pkt->hdr + pkt->paylen > skb_tail_pointer(skb))
		return -EINVAL;
	hlen = pkt->hdr - lrh;
	if (hlen != SIB_LRH_BYTES && hlen != SIB_LRH_BYTES + RXE_GRH_BYTES)
		return -EINVAL;

	memcpy(buf, lrh, hlen + RXE_BTH_BYTES);
	if (hlen > SIB_LRH_BYTES) {
		memset(buf, 0xff, SIB_LRH_BYTES);
		rxe_icrc_mask_grh(buf + SIB_LRH_BYTES);
	} else {
		buf[0] |= 0xf0;			/* LRH.VL */
	}
	buf[hlen + 4] = 0xff;			/* BTH.Resv8a */

	crc = crc32_le(~0U, buf, hlen + RXE_BTH_BYTES);
	crc = crc32_le(crc, pkt->hdr + RXE_BTH_BYTES,
		       pkt->paylen - RXE_BTH_BYTES - RXE_ICRC_SIZE);
	*icrc = ~crc;
	return 0;
}

/*
 * Bit-reflected, as the ICRC: bytes enter least significant bit first, so
 * the polynomial 0x100B is used mirrored (0xD008). Seed all ones, result
 * inverted, sent least significant byte first like the ICRC.
 */
#define SIB_VCRC_POLY_REFLECTED	0xd008

static u16 sib_vcrc_table[256];

void sib_crc_init(void)
{
	unsigned int i, bit;
	u16 v;

	for (i = 0; i < 256; i++) {
		v = i;
		for (bit = 0; bit < 8; bit++)
			v = (v & 1) ? (v >> 1) ^ SIB_VCRC_POLY_REFLECTED :
				      v >> 1;
		sib_vcrc_table[i] = v;
	}
}

u16 sib_vcrc(const u8 *buf, unsigned int len)
{
	u16 crc = 0xffff;

	while (len--)
		crc = (crc >> 8) ^ sib_vcrc_table[(crc ^ *buf++) & 0xff];
	return ~crc;
}
