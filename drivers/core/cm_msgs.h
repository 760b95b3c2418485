/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Wire layout of the IB CM messages (IBA vol 1 ch. 12.6): byte offsets
 * relative to the start of the MAD data (after the 24-byte MAD header).
 * Sub-byte fields are given as (byte, bits skipped from the MSB, width).
 */
#ifndef RDMA_KMOD_CM_MSGS_H
#define RDMA_KMOD_CM_MSGS_H

#include <linux/types.h>
#include <asm/unaligned.h>

#define CM_CLASS_VERSION	2

/* Value of "message MRAed/rejected" fields. */
enum cm_msg_response {
	CM_MSG_RESPONSE_REQ	= 0,
	CM_MSG_RESPONSE_REP	= 1,
	CM_MSG_RESPONSE_OTHER	= 2,
};

/* REQ */
#define REQ_LOCAL_COMM_ID	0
#define REQ_SERVICE_ID		8
#define REQ_LOCAL_CA_GUID	16
#define REQ_LOCAL_QKEY		28
#define REQ_LOCAL_QPN		32	/* 24 bits, then responder resources */
#define REQ_RESP_RESOURCES	35
#define REQ_LOCAL_EECN		36
#define REQ_INIT_DEPTH		39
#define REQ_REMOTE_EECN		40
#define REQ_BYTE43		43	/* remote CM resp timeout:5, transport:2, e2e fc:1 */
#define REQ_STARTING_PSN	44	/* 24 bits, then byte 47 */
#define REQ_BYTE47		47	/* local CM resp timeout:5, retry count:3 */
#define REQ_PKEY		48
#define REQ_BYTE50		50	/* MTU:4, RDC exists:1, RNR retry:3 */
#define REQ_BYTE51		51	/* max CM retries:4, SRQ:1, ext transport:3 */
#define REQ_PRI_LOCAL_LID	52
#define REQ_PRI_REMOTE_LID	54
#define REQ_PRI_LOCAL_GID	56
#define REQ_PRI_REMOTE_GID	72
#define REQ_PRI_FLOW_LABEL	88	/* 20 bits of a be32 */
#define REQ_PRI_RATE		91	/* low 6 bits */
#define REQ_PRI_TCLASS		92
#define REQ_PRI_HOP_LIMIT	93
#define REQ_PRI_BYTE94		94	/* SL:4, subnet local:1 */
#define REQ_PRI_ACK_TIMEOUT	95	/* top 5 bits */
#define REQ_ALT_LOCAL_LID	96
#define REQ_PRIVATE_DATA	140

/* MRA */
#define MRA_LOCAL_COMM_ID	0
#define MRA_REMOTE_COMM_ID	4
#define MRA_MSG_MRAED		8	/* top 2 bits */
#define MRA_SERVICE_TIMEOUT	9	/* top 5 bits */
#define MRA_PRIVATE_DATA	10

/* REJ */
#define REJ_LOCAL_COMM_ID	0
#define REJ_REMOTE_COMM_ID	4
#define REJ_MSG_REJECTED	8	/* top 2 bits */
#define REJ_ARI_LENGTH		9	/* top 7 bits */
#define REJ_REASON		10
#define REJ_ARI			12
#define REJ_PRIVATE_DATA	84

/* REP */
#define REP_LOCAL_COMM_ID	0
#define REP_REMOTE_COMM_ID	4
#define REP_LOCAL_QKEY		8
#define REP_LOCAL_QPN		12	/* 24 bits */
#define REP_LOCAL_EECN		16
#define REP_STARTING_PSN	20	/* 24 bits */
#define REP_RESP_RESOURCES	24
#define REP_INIT_DEPTH		25
#define REP_BYTE26		26	/* target ack delay:5, failover:2, e2e fc:1 */
#define REP_BYTE27		27	/* RNR retry:3, SRQ:1 */
#define REP_LOCAL_CA_GUID	28	/* only 4-byte aligned */
#define REP_PRIVATE_DATA	36

/* RTU, DREQ, DREP */
#define RTU_LOCAL_COMM_ID	0
#define RTU_REMOTE_COMM_ID	4
#define RTU_PRIVATE_DATA	8
#define DREQ_LOCAL_COMM_ID	0
#define DREQ_REMOTE_COMM_ID	4
#define DREQ_REMOTE_QPN		8	/* 24 bits */
#define DREQ_PRIVATE_DATA	12
#define DREP_LOCAL_COMM_ID	0
#define DREP_REMOTE_COMM_ID	4
#define DREP_PRIVATE_DATA	8

/* SIDR */
#define SIDR_REQ_REQUEST_ID	0
#define SIDR_REQ_PKEY		4
#define SIDR_REQ_SERVICE_ID	8
#define SIDR_REQ_PRIVATE_DATA	16
#define SIDR_REP_REQUEST_ID	0
#define SIDR_REP_STATUS		4
#define SIDR_REP_INFO_LENGTH	5
#define SIDR_REP_QPN		8	/* 24 bits */
#define SIDR_REP_SERVICE_ID	12	/* only 4-byte aligned */
#define SIDR_REP_QKEY		20
#define SIDR_REP_INFO		24
#define SIDR_REP_PRIVATE_DATA	96

/* Accessors on the MAD data area (d = mad->data). */
static inline u8 cm_get_bits(const u8 *d, int off, int skip, int width)
{
	return (d[off] >> (8 - skip - width)) & ((1 << width) - 1);
}

static inline void cm_set_bits(u8 *d, int off, int skip, int width, u8 val)
{
	u8 mask = ((1 << width) - 1) << (8 - skip - width);

	d[off] = (d[off] & ~mask) | ((val << (8 - skip - width)) & mask);
}

static inline u16 cm_get16(const u8 *d, int off)
{
	return get_unaligned_be16(d + off);
}

static inline void cm_set16(u8 *d, int off, u16 val)
{
	put_unaligned_be16(val, d + off);
}

static inline u32 cm_get32(const u8 *d, int off)
{
	return get_unaligned_be32(d + off);
}

static inline void cm_set32(u8 *d, int off, u32 val)
{
	put_unaligned_be32(val, d + off);
}

/* A 24-bit field in the three most significant bytes of a be32. */
static inline u32 cm_get24(const u8 *d, int off)
{
	return get_unaligned_be32(d + off) >> 8;
}

static inline void cm_set24(u8 *d, int off, u32 val)
{
	d[off] = (val >> 16) & 0xff;
	d[off + 1] = (val >> 8) & 0xff;
	d[off + 2] = val & 0xff;
}

/* 64-bit identifiers kept in network order. */
static inline __be64 cm_get_be64(const u8 *d, int off)
{
	return get_unaligned((const __be64 *)(d + off));
}

static inline void cm_set_be64(u8 *d, int off, __be64 val)
{
	put_unaligned(val, (__be64 *)(d + off));
}

static inline __be32 cm_get_be32(const u8 *d, int off)
{
	return get_unaligned((const __be32 *)(d + off));
}

static inline void cm_set_be32(u8 *d, int off, __be32 val)
{
	put_unaligned(val, (__be32 *)(d + off));
}

#endif /* RDMA_KMOD_CM_MSGS_H */
