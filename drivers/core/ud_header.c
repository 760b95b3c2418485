// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Table-driven header (un)packing and the UD datagram header builder of
 * include/rdma/ib_pack.h. Hardware drivers that send QP0/QP1 (or RoCE GSI)
 * packets through a raw send queue build their headers here.
 *
 * Bit positions follow the IBA convention: word N, bit 0 is the most
 * significant bit of byte 4*N. The lengths written by ib_ud_header_init()
 * leave immediate data out, as the stock kernel does.
 */
#include <linux/module.h>
#include <linux/bits.h>
#include <linux/ip.h>
#include <asm/unaligned.h>
#include <net/checksum.h>
#include <rdma/ib_pack.h>

/* Writes the low @width (<= 64) bits of @val at bit @pos of @buf. */
static void bits_put(u8 *buf, unsigned int pos, unsigned int width, u64 val)
{
	while (width) {
		unsigned int room = 8 - pos % 8;
		unsigned int n = min(width, room);
		unsigned int shift = room - n;
		u8 mask = GENMASK(n - 1, 0) << shift;
		u8 *p = buf + pos / 8;

		*p = (*p & ~mask) | (((val >> (width - n)) << shift) & mask);
		pos += n;
		width -= n;
	}
}

static u64 bits_get(const u8 *buf, unsigned int pos, unsigned int width)
{
	u64 val = 0;

	while (width) {
		unsigned int room = 8 - pos % 8;
		unsigned int n = min(width, room);

		val = (val << n) |
		      ((buf[pos / 8] >> (room - n)) & GENMASK(n - 1, 0));
		pos += n;
		width -= n;
	}
	return val;
}

/* Host-side values are u8 or big endian, whatever their alignment. */
static u64 value_load(const void *p, size_t size)
{
	switch (size) {
	case 1:
		return *(const u8 *)p;
	case 2:
		return get_unaligned_be16(p);
	case 4:
		return get_unaligned_be32(p);
	case 8:
		return get_unaligned_be64(p);
	}
	return 0;
}

static void value_store(void *p, size_t size, u64 val)
{
	switch (size) {
	case 1:
		*(u8 *)p = val;
		break;
	case 2:
		put_unaligned_be16(val, p);
		break;
	case 4:
		put_unaligned_be32(val, p);
		break;
	case 8:
		put_unaligned_be64(val, p);
		break;
	}
}

static unsigned int field_pos(const struct ib_field *f)
{
	return f->offset_words * 32 + f->offset_bits;
}

/* Fields wider than 64 bits are byte strings on byte boundaries. */
static bool wide_ok(const struct ib_field *f)
{
	if (field_pos(f) % 8 || f->size_bits % 8) {
		pr_warn_once("ib_pack: field %s is not byte aligned\n",
			     f->field_name);
		return false;
	}
	return true;
}

void ib_pack(const struct ib_field *desc, int desc_len, void *structure,
	     void *buf)
{
	int i;

	for (i = 0; i < desc_len; i++) {
		const struct ib_field *f = &desc[i];
		void *val = structure + f->struct_offset_bytes;
		unsigned int pos = field_pos(f);

		if (f->size_bits <= 64) {
			bits_put(buf, pos, f->size_bits,
				 f->struct_size_bytes ?
				 value_load(val, f->struct_size_bytes) : 0);
		} else if (wide_ok(f)) {
			if (f->struct_size_bytes)
				memcpy(buf + pos / 8, val, f->size_bits / 8);
			else
				memset(buf + pos / 8, 0, f->size_bits / 8);
		}
	}
}
EXPORT_SYMBOL(ib_pack);

void ib_unpack(const struct ib_field *desc, int desc_len, void *buf,
	       void *structure)
{
	int i;

	for (i = 0; i < desc_len; i++) {
		const struct ib_field *f = &desc[i];
		void *val = structure + f->struct_offset_bytes;
		unsigned int pos = field_pos(f);

		if (!f->struct_size_bytes)
			continue;
		if (f->size_bits <= 64)
			value_store(val, f->struct_size_bytes,
				    bits_get(buf, pos, f->size_bits));
		else if (wide_ok(f))
			memcpy(val, buf + pos / 8, f->size_bits / 8);
	}
}
EXPORT_SYMBOL(ib_unpack);

/* A member of struct ib_ud_header at word/bit of its own header. */
#define UD(hdr, member, word, bit, bits) {				\
	.struct_offset_bytes = offsetof(struct ib_ud_header, hdr.member), \
	.struct_size_bytes = sizeof_field(struct ib_ud_header, hdr.member), \
	.offset_words = word, .offset_bits = bit, .size_bits = bits,	\
	.field_name = #hdr ":" #member }
#define UD_RSVD(word, bit, bits) {					\
	RESERVED, .offset_words = word, .offset_bits = bit, .size_bits = bits }

static const struct ib_field lrh_layout[] = {		/* IBA 7.7 */
	UD(lrh, virtual_lane, 0, 0, 4),
	UD(lrh, link_version, 0, 4, 4),
	UD(lrh, service_level, 0, 8, 4),
	UD_RSVD(0, 12, 2),
	UD(lrh, link_next_header, 0, 14, 2),
	UD(lrh, destination_lid, 0, 16, 16),
	UD_RSVD(1, 0, 5),
	UD(lrh, packet_length, 1, 5, 11),
	UD(lrh, source_lid, 1, 16, 16),
};

static const struct ib_field eth_layout[] = {
	UD(eth, dmac_h, 0, 0, 32),
	UD(eth, dmac_l, 1, 0, 16),
	UD(eth, smac_h, 1, 16, 16),
	UD(eth, smac_l, 2, 0, 32),
	UD(eth, type, 3, 0, 16),
};

static const struct ib_field vlan_layout[] = {		/* 802.1Q */
	UD(vlan, tag, 0, 0, 16),
	UD(vlan, type, 0, 16, 16),
};

static const struct ib_field grh_layout[] = {		/* IBA 8.3, IPv6 */
	UD(grh, ip_version, 0, 0, 4),
	UD(grh, traffic_class, 0, 4, 8),
	UD(grh, flow_label, 0, 12, 20),
	UD(grh, payload_length, 1, 0, 16),
	UD(grh, next_header, 1, 16, 8),
	UD(grh, hop_limit, 1, 24, 8),
	UD(grh, source_gid, 2, 0, 128),
	UD(grh, destination_gid, 6, 0, 128),
};

static const struct ib_field ip4_layout[] = {		/* RFC 791 */
	UD(ip4, ver, 0, 0, 4),
	UD(ip4, hdr_len, 0, 4, 4),
	UD(ip4, tos, 0, 8, 8),
	UD(ip4, tot_len, 0, 16, 16),
	UD(ip4, id, 1, 0, 16),
	UD(ip4, frag_off, 1, 16, 16),
	UD(ip4, ttl, 2, 0, 8),
	UD(ip4, protocol, 2, 8, 8),
	UD(ip4, check, 2, 16, 16),
	UD(ip4, saddr, 3, 0, 32),
	UD(ip4, daddr, 4, 0, 32),
};

static const struct ib_field udp_layout[] = {		/* RFC 768 */
	UD(udp, sport, 0, 0, 16),
	UD(udp, dport, 0, 16, 16),
	UD(udp, length, 1, 0, 16),
	UD(udp, csum, 1, 16, 16),
};

static const struct ib_field bth_layout[] = {		/* IBA 9.2 */
	UD(bth, opcode, 0, 0, 8),
	UD(bth, solicited_event, 0, 8, 1),
	UD(bth, mig_req, 0, 9, 1),
	UD(bth, pad_count, 0, 10, 2),
	UD(bth, transport_header_version, 0, 12, 4),
	UD(bth, pkey, 0, 16, 16),
	UD_RSVD(1, 0, 8),
	UD(bth, destination_qpn, 1, 8, 24),
	UD(bth, ack_req, 2, 0, 1),
	UD_RSVD(2, 1, 7),
	UD(bth, psn, 2, 8, 24),
};

static const struct ib_field deth_layout[] = {		/* IBA 9.3.3 */
	UD(deth, qkey, 0, 0, 32),
	UD_RSVD(1, 0, 8),
	UD(deth, source_qpn, 1, 8, 24),
};

/* One header of the stack, in wire order. */
struct ud_part {
	const struct ib_field *layout;
	int nfields;
	int bytes;
	size_t present;		/* offset of its *_present flag */
};

#define UD_PART(name, len, flag) {					\
	.layout = name##_layout, .nfields = ARRAY_SIZE(name##_layout),	\
	.bytes = len, .present = offsetof(struct ib_ud_header, flag) }

static const struct ud_part ud_parts[] = {
	UD_PART(lrh, IB_LRH_BYTES, lrh_present),
	UD_PART(eth, IB_ETH_BYTES, eth_present),
	UD_PART(vlan, IB_VLAN_BYTES, vlan_present),
	UD_PART(grh, IB_GRH_BYTES, grh_present),
	UD_PART(ip4, IB_IP4_BYTES, ipv4_present),
	UD_PART(udp, IB_UDP_BYTES, udp_present),
};

__sum16 ib_ud_ip4_csum(struct ib_ud_header *header)
{
	struct ib_ud_header hdr = { .ip4 = header->ip4 };
	u8 buf[IB_IP4_BYTES];

	hdr.ip4.check = 0;
	ib_pack(ip4_layout, ARRAY_SIZE(ip4_layout), &hdr, buf);
	return ip_fast_csum(buf, IB_IP4_BYTES / 4);
}
EXPORT_SYMBOL(ib_ud_ip4_csum);

int ib_ud_header_init(int payload_bytes, int lrh_present, int eth_present,
		      int vlan_present, int grh_present, int ip_version,
		      int udp_present, int immediate_present,
		      struct ib_ud_header *header)
{
	int pad = (4 - payload_bytes) & 3;
	/* BTH to ICRC: what every outer header counts */
	int tail = IB_BTH_BYTES + IB_DETH_BYTES + payload_bytes + pad +
		   IB_ICRC_BYTES;
	int l4 = udp_present ? IB_UDP_BYTES : 0;

	if (ip_version != 0 && ip_version != 4 && ip_version != 6)
		return -EINVAL;
	if (udp_present && !ip_version)
		return -EINVAL;
	if (payload_bytes < 0)
		return -EINVAL;

	memset(header, 0, sizeof(*header));
	header->lrh_present = lrh_present;
	header->eth_present = eth_present;
	header->vlan_present = vlan_present;
	/* the IPv4 header stands where the GRH would */
	header->grh_present = ip_version == 6 ||
			      (grh_present && ip_version != 4);
	header->ipv4_present = ip_version == 4;
	header->udp_present = udp_present;
	header->immediate_present = immediate_present;

	if (lrh_present) {
		int words = (IB_LRH_BYTES + tail +
			     (header->grh_present ? IB_GRH_BYTES : 0)) / 4;

		header->lrh.link_version = 0;
		header->lrh.link_next_header = header->grh_present ?
			IB_LNH_IBA_GLOBAL : IB_LNH_IBA_LOCAL;
		header->lrh.packet_length = cpu_to_be16(words);
	}
	if (vlan_present)
		header->eth.type = cpu_to_be16(ETH_P_8021Q);
	if (header->grh_present) {
		header->grh.ip_version = 6;
		header->grh.payload_length = cpu_to_be16(l4 + tail);
		header->grh.next_header = udp_present ? IPPROTO_UDP : 0x1b;
	}
	if (header->ipv4_present) {
		header->ip4.ver = 4;
		header->ip4.hdr_len = IB_IP4_BYTES / 4;
		header->ip4.tot_len = cpu_to_be16(IB_IP4_BYTES + l4 + tail);
		header->ip4.protocol = IPPROTO_UDP;
	}
	if (udp_present)
		header->udp.length = cpu_to_be16(IB_UDP_BYTES + tail);

	header->bth.opcode = immediate_present ?
		IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE : IB_OPCODE_UD_SEND_ONLY;
	header->bth.pad_count = pad;
	header->bth.transport_header_version = 0;
	return 0;
}
EXPORT_SYMBOL(ib_ud_header_init);

int ib_ud_header_pack(struct ib_ud_header *header, void *buf)
{
	int i, len = 0;

	for (i = 0; i < ARRAY_SIZE(ud_parts); i++) {
		const struct ud_part *p = &ud_parts[i];

		if (!*(int *)((void *)header + p->present))
			continue;
		ib_pack(p->layout, p->nfields, header, buf + len);
		len += p->bytes;
	}
	ib_pack(bth_layout, ARRAY_SIZE(bth_layout), header, buf + len);
	len += IB_BTH_BYTES;
	ib_pack(deth_layout, ARRAY_SIZE(deth_layout), header, buf + len);
	len += IB_DETH_BYTES;
	if (header->immediate_present) {
		memcpy(buf + len, &header->immediate_data,
		       sizeof(header->immediate_data));
		len += sizeof(header->immediate_data);
	}
	return len;
}
EXPORT_SYMBOL(ib_ud_header_pack);

int ib_ud_header_unpack(void *buf, struct ib_ud_header *header)
{
	/* only what the packet carries is set: no stale presence flags */
	memset(header, 0, sizeof(*header));
	ib_unpack(lrh_layout, ARRAY_SIZE(lrh_layout), buf, header);
	buf += IB_LRH_BYTES;
	if (header->lrh.link_version != 0) {
		pr_debug("ib_ud_header_unpack: LRH version %u\n",
			 header->lrh.link_version);
		return -EINVAL;
	}
	switch (header->lrh.link_next_header) {
	case IB_LNH_IBA_LOCAL:
		break;
	case IB_LNH_IBA_GLOBAL:
		header->grh_present = 1;
		ib_unpack(grh_layout, ARRAY_SIZE(grh_layout), buf, header);
		buf += IB_GRH_BYTES;
		if (header->grh.ip_version != 6) {
			pr_debug("ib_ud_header_unpack: GRH version %u\n",
				 header->grh.ip_version);
			return -EINVAL;
		}
		break;
	default:
		pr_debug("ib_ud_header_unpack: LNH %u\n",
			 header->lrh.link_next_header);
		return -EINVAL;
	}

	ib_unpack(bth_layout, ARRAY_SIZE(bth_layout), buf, header);
	buf += IB_BTH_BYTES;
	if (header->bth.opcode == IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE) {
		header->immediate_present = 1;
	} else if (header->bth.opcode != IB_OPCODE_UD_SEND_ONLY) {
		pr_debug("ib_ud_header_unpack: opcode %#x\n",
			 header->bth.opcode);
		return -EINVAL;
	}
	if (header->bth.transport_header_version != 0)
		return -EINVAL;

	ib_unpack(deth_layout, ARRAY_SIZE(deth_layout), buf, header);
	buf += IB_DETH_BYTES;
	if (header->immediate_present)
		memcpy(&header->immediate_data, buf,
		       sizeof(header->immediate_data));
	header->lrh_present = 1;
	return 0;
}
EXPORT_SYMBOL(ib_ud_header_unpack);
