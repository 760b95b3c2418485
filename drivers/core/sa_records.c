// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SA records between their host structures (ib_sa.h) and the wire. Each
 * record type is a list of fields: where the field starts on the wire (in
 * bits from the first bit of the record, most significant bit first), how
 * wide it is there, and which host member holds it in which form. Bits not
 * described are reserved and go out as zero.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <rdma/ib_sa.h>

#include "sa.h"

enum sa_host_form {
	SA_U8,		/* a value in a u8 */
	SA_BE16,	/* a value in a __be16 */
	SA_BE32,	/* a value in a __be32 */
	SA_BE64,	/* a value in a __be64 */
	SA_RAW,		/* bytes copied as they are (byte aligned) */
};

struct sa_field {
	u16	host;		/* offset of the host member */
	u8	form;		/* enum sa_host_form */
	u16	bit;		/* first wire bit */
	u16	width;		/* wire bits */
};

#define F(type, member, form, bit, width) \
	{ offsetof(type, member), form, bit, width }

/* PathRecord, IBA 15.2.5.16 (64 bytes). */
static const struct sa_field path_fields[] = {
	F(struct sa_path_rec, service_id, SA_BE64, 0, 64),
	F(struct sa_path_rec, dgid, SA_RAW, 64, 128),
	F(struct sa_path_rec, sgid, SA_RAW, 192, 128),
	F(struct sa_path_rec, ib.dlid, SA_BE16, 320, 16),
	F(struct sa_path_rec, ib.slid, SA_BE16, 336, 16),
	F(struct sa_path_rec, ib.raw_traffic, SA_U8, 352, 1),
	F(struct sa_path_rec, flow_label, SA_BE32, 356, 20),
	F(struct sa_path_rec, hop_limit, SA_U8, 376, 8),
	F(struct sa_path_rec, traffic_class, SA_U8, 384, 8),
	F(struct sa_path_rec, reversible, SA_U8, 392, 1),
	F(struct sa_path_rec, numb_path, SA_U8, 393, 7),
	F(struct sa_path_rec, pkey, SA_BE16, 400, 16),
	F(struct sa_path_rec, qos_class, SA_BE16, 416, 12),
	F(struct sa_path_rec, sl, SA_U8, 428, 4),
	F(struct sa_path_rec, mtu_selector, SA_U8, 432, 2),
	F(struct sa_path_rec, mtu, SA_U8, 434, 6),
	F(struct sa_path_rec, rate_selector, SA_U8, 440, 2),
	F(struct sa_path_rec, rate, SA_U8, 442, 6),
	F(struct sa_path_rec, packet_life_time_selector, SA_U8, 448, 2),
	F(struct sa_path_rec, packet_life_time, SA_U8, 450, 6),
	F(struct sa_path_rec, preference, SA_U8, 456, 8),
};

/* MCMemberRecord, IBA 15.2.5.17 (52 bytes used). */
static const struct sa_field mcmember_fields[] = {
	F(struct ib_sa_mcmember_rec, mgid, SA_RAW, 0, 128),
	F(struct ib_sa_mcmember_rec, port_gid, SA_RAW, 128, 128),
	F(struct ib_sa_mcmember_rec, qkey, SA_BE32, 256, 32),
	F(struct ib_sa_mcmember_rec, mlid, SA_BE16, 288, 16),
	F(struct ib_sa_mcmember_rec, mtu_selector, SA_U8, 304, 2),
	F(struct ib_sa_mcmember_rec, mtu, SA_U8, 306, 6),
	F(struct ib_sa_mcmember_rec, traffic_class, SA_U8, 312, 8),
	F(struct ib_sa_mcmember_rec, pkey, SA_BE16, 320, 16),
	F(struct ib_sa_mcmember_rec, rate_selector, SA_U8, 336, 2),
	F(struct ib_sa_mcmember_rec, rate, SA_U8, 338, 6),
	F(struct ib_sa_mcmember_rec, packet_life_time_selector, SA_U8, 344, 2),
	F(struct ib_sa_mcmember_rec, packet_life_time, SA_U8, 346, 6),
	F(struct ib_sa_mcmember_rec, sl, SA_U8, 352, 4),
	F(struct ib_sa_mcmember_rec, flow_label, SA_BE32, 356, 20),
	F(struct ib_sa_mcmember_rec, hop_limit, SA_U8, 376, 8),
	F(struct ib_sa_mcmember_rec, scope, SA_U8, 384, 4),
	F(struct ib_sa_mcmember_rec, join_state, SA_U8, 388, 4),
	F(struct ib_sa_mcmember_rec, proxy_join, SA_U8, 392, 1),
};

/* GuidInfoRecord, IBA 15.2.5.18 (72 bytes). */
static const struct sa_field guidinfo_fields[] = {
	F(struct ib_sa_guidinfo_rec, lid, SA_BE16, 0, 16),
	F(struct ib_sa_guidinfo_rec, block_num, SA_U8, 16, 8),
	F(struct ib_sa_guidinfo_rec, res1, SA_U8, 24, 8),
	F(struct ib_sa_guidinfo_rec, res2, SA_BE32, 32, 32),
	F(struct ib_sa_guidinfo_rec, guid_info_list, SA_RAW, 64, 512),
};

#undef F

static u64 sa_host_get(const void *host, const struct sa_field *f)
{
	const void *p = host + f->host;

	switch (f->form) {
	case SA_U8:
		return *(const u8 *)p;
	case SA_BE16:
		return be16_to_cpu(*(const __be16 *)p);
	case SA_BE32:
		return be32_to_cpu(*(const __be32 *)p);
	default:
		return be64_to_cpu(*(const __be64 *)p);
	}
}

static void sa_host_set(void *host, const struct sa_field *f, u64 v)
{
	void *p = host + f->host;

	switch (f->form) {
	case SA_U8:
		*(u8 *)p = v;
		break;
	case SA_BE16:
		*(__be16 *)p = cpu_to_be16(v);
		break;
	case SA_BE32:
		*(__be32 *)p = cpu_to_be32(v);
		break;
	default:
		*(__be64 *)p = cpu_to_be64(v);
		break;
	}
}

/* The @width low bits of @v into the wire, starting at bit @bit. */
static void sa_wire_put(u8 *wire, unsigned int bit, unsigned int width, u64 v)
{
	unsigned int i, pos;

	for (i = 0; i < width; i++) {
		pos = bit + i;
		if (v & (1ULL << (width - 1 - i)))
			wire[pos / 8] |= 0x80 >> (pos % 8);
		else
			wire[pos / 8] &= ~(0x80 >> (pos % 8));
	}
}

static u64 sa_wire_get(const u8 *wire, unsigned int bit, unsigned int width)
{
	unsigned int i, pos;
	u64 v = 0;

	for (i = 0; i < width; i++) {
		pos = bit + i;
		v = (v << 1) | !!(wire[pos / 8] & (0x80 >> (pos % 8)));
	}
	return v;
}

static void sa_pack(const struct sa_field *f, unsigned int n,
		    const void *host, u8 *wire, size_t wire_len)
{
	memset(wire, 0, wire_len);
	for (; n; n--, f++) {
		if (f->form == SA_RAW)
			memcpy(wire + f->bit / 8, host + f->host, f->width / 8);
		else
			sa_wire_put(wire, f->bit, f->width, sa_host_get(host, f));
	}
}

static void sa_unpack(const struct sa_field *f, unsigned int n,
		      const u8 *wire, void *host)
{
	for (; n; n--, f++) {
		if (f->form == SA_RAW)
			memcpy(host + f->host, wire + f->bit / 8, f->width / 8);
		else
			sa_host_set(host, f, sa_wire_get(wire, f->bit, f->width));
	}
}

/*
 * Only IB records carry LIDs on the wire; an OPA record goes out in its IB
 * form, a RoCE record (whose union holds a MAC) with LIDs 0.
 */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute)
{
	struct sa_path_rec ib;

	if (rec->rec_type == SA_PATH_REC_TYPE_OPA) {
		sa_convert_path_opa_to_ib(&ib, rec);
	} else {
		ib = *rec;
		if (rec->rec_type != SA_PATH_REC_TYPE_IB)
			memset(&ib.ib, 0, sizeof(ib.ib));
	}
	sa_pack(path_fields, ARRAY_SIZE(path_fields), &ib, attribute,
		SA_PATH_REC_BYTES);
}
EXPORT_SYMBOL(ib_sa_pack_path);

/* The result is an IB record; flags and type-specific extras are clear. */
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	sa_unpack(path_fields, ARRAY_SIZE(path_fields), attribute, rec);
}
EXPORT_SYMBOL(ib_sa_unpack_path);

void sa_pack_mcmember(const void *rec, void *attribute)
{
	sa_pack(mcmember_fields, ARRAY_SIZE(mcmember_fields), rec, attribute,
		SA_MCMEMBER_REC_BYTES);
}

void sa_unpack_mcmember(const void *attribute, struct ib_sa_mcmember_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	sa_unpack(mcmember_fields, ARRAY_SIZE(mcmember_fields), attribute, rec);
}

void sa_pack_guidinfo(const void *rec, void *attribute)
{
	sa_pack(guidinfo_fields, ARRAY_SIZE(guidinfo_fields), rec, attribute,
		SA_GUIDINFO_REC_BYTES);
}

void sa_unpack_guidinfo(const void *attribute, struct ib_sa_guidinfo_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	sa_unpack(guidinfo_fields, ARRAY_SIZE(guidinfo_fields), attribute,
		  rec);
}
