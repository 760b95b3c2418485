/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe packets: the per-packet descriptor kept in skb->cb and the
 * InfiniBand transport headers carried in the UDP payload (RoCE v2).
 * All wire fields are big endian and may sit at any alignment.
 */
#ifndef RXE_HDR_H
#define RXE_HDR_H

#include <linux/build_bug.h>
#include <linux/skbuff.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <asm/unaligned.h>
#include "rxe_opcode.h"

struct rxe_dev;
struct rxe_qp;
struct rxe_send_wqe;

/*
 * Per-packet information. On receive it lives in skb->cb; on transmit the
 * sender keeps its own copy (IP output reuses skb->cb).
 */
struct rxe_pkt_info {
	struct rxe_dev *rxe;	/* device the packet belongs to */
	struct rxe_qp *qp;	/* rx: holds a reference (rxe_qp_put) */
	u8 *hdr;		/* start of the BTH */
	u32 mask;		/* enum rxe_hdr_mask */
	u32 psn;		/* BTH PSN */
	u16 pkey_index;
	u16 paylen;		/* BTH through ICRC inclusive */
	u8 port_num;
	u8 opcode;		/* BTH opcode */
	struct rxe_send_wqe *wqe;	/* tx: the WQE being sent (rxe_get_av) */
};

static_assert(sizeof(struct rxe_pkt_info) <= sizeof_field(struct sk_buff, cb));

#define SKB_TO_PKT(skb)	((struct rxe_pkt_info *)(skb)->cb)

static inline struct sk_buff *PKT_TO_SKB(struct rxe_pkt_info *pkt)
{
	return container_of((void *)pkt, struct sk_buff, cb);
}

/* Q_Key of the general services QP (QP1), IBA 13.5.3 */
#define GSI_QKEY		0x80010000

/* Invariant CRC trailing every packet */
#define RXE_ICRC_SIZE		4

/*
 * IBA global route header (struct ib_grh): what precedes the BTH of a
 * RoCE v1 frame, and the 40 bytes in front of every UD receive buffer.
 */
#define RXE_GRH_BYTES		40
#define RXE_GRH_IPVER		6
#define RXE_GRH_NXTHDR_BTH	0x1b

/* ---- wire layouts (documentation and sizes; access via helpers) ---- */

struct rxe_bth {
	u8 opcode;
	u8 flags;		/* SE | MigReq | PadCnt | TVer */
	__be16 pkey;
	__be32 qpn;		/* FECN | BECN | resv6 | DestQP */
	__be32 apsn;		/* AckReq | resv7 | PSN */
} __packed;

struct rxe_rdeth {
	__be32 een;		/* resv8 | EE context */
} __packed;

struct rxe_deth {
	__be32 qkey;
	__be32 sqp;		/* resv8 | SrcQP */
} __packed;

struct rxe_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

struct rxe_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 comp;
} __packed;

struct rxe_aeth {
	__be32 smsn;		/* syndrome | MSN */
} __packed;

struct rxe_atmack {
	__be64 orig;
} __packed;

struct rxe_immdt {
	__be32 imm;
} __packed;

struct rxe_ieth {
	__be32 rkey;
} __packed;

#define RXE_BTH_BYTES		sizeof(struct rxe_bth)
#define RXE_RDETH_BYTES		sizeof(struct rxe_rdeth)
#define RXE_DETH_BYTES		sizeof(struct rxe_deth)
#define RXE_RETH_BYTES		sizeof(struct rxe_reth)
#define RXE_ATMETH_BYTES	sizeof(struct rxe_atmeth)
#define RXE_AETH_BYTES		sizeof(struct rxe_aeth)
#define RXE_ATMACK_BYTES	sizeof(struct rxe_atmack)
#define RXE_IMMDT_BYTES		sizeof(struct rxe_immdt)
#define RXE_IETH_BYTES		sizeof(struct rxe_ieth)

static_assert(sizeof(struct rxe_bth) == 12);
static_assert(sizeof(struct rxe_rdeth) == 4);
static_assert(sizeof(struct rxe_deth) == 8);
static_assert(sizeof(struct rxe_reth) == 16);
static_assert(sizeof(struct rxe_atmeth) == 28);
static_assert(sizeof(struct rxe_aeth) == 4);
static_assert(sizeof(struct rxe_atmack) == 8);
static_assert(sizeof(struct rxe_immdt) == 4);
static_assert(sizeof(struct rxe_ieth) == 4);

/* BTH field masks */
#define BTH_SE_MASK		0x80
#define BTH_MIG_MASK		0x40
#define BTH_PAD_MASK		0x30
#define BTH_PAD_SHIFT		4
#define BTH_TVER_MASK		0x0f
#define BTH_DEF_PKEY		0xffff
#define BTH_FECN_MASK		0x80000000
#define BTH_BECN_MASK		0x40000000
#define BTH_RESV6A_MASK		0x3f000000
#define BTH_QPN_MASK		0x00ffffff
#define BTH_ACK_MASK		0x80000000
#define BTH_RESV7_MASK		0x7f000000
#define BTH_PSN_MASK		0x00ffffff

#define RXE_QPN_MASK		0x00ffffff
#define RXE_PSN_MASK		0x00ffffff

/* AETH: syndrome in the high byte, MSN in the low 24 bits */
#define AETH_SYN_MASK		0xff000000
#define AETH_SYN_SHIFT		24
#define AETH_MSN_MASK		0x00ffffff

/*
 * The syndrome byte: a type in bits 7:5 and a code in bits 4:0 whose
 * meaning depends on the type. Listed type by type, each with its codes.
 */
#define AETH_CODE_MASK		0x1f
enum aeth_syndrome {
	AETH_TYPE_MASK		= 0xe0,
	/* ACK; the code is a credit count, or none for "unlimited" */
	AETH_ACK		= 0x00,
	AETH_ACK_UNLIMITED	= 0x1f,
	/* RNR NAK; the code is the RNR timer */
	AETH_RNR_NAK		= 0x20,
	/* NAK; the code says why */
	AETH_NAK		= 0x60,
	AETH_NAK_PSN_SEQ_ERROR	= 0x60,
	AETH_NAK_INVALID_REQ	= 0x61,
	AETH_NAK_REM_ACC_ERR	= 0x62,
	AETH_NAK_REM_OP_ERR	= 0x63,
	AETH_NAK_INV_RD_REQ	= 0x64,
	/* reserved type */
	AETH_RSVD		= 0x40,
};

/* DETH source QP */
#define DETH_SQP_MASK		0x00ffffff
/* RDETH EE context */
#define RDETH_EEN_MASK		0x00ffffff

/* ---- generic helpers ---- */

/* Start of header @type within the packet (pkt->opcode must be valid). */
static inline u8 *rxe_hdr_at(struct rxe_pkt_info *pkt, enum rxe_hdr_type type)
{
	return pkt->hdr + rxe_opcode[pkt->opcode].offset[type];
}

/* Update the bits of @mask in a big-endian 32-bit word. */
static inline void rxe_be32_update(u8 *p, u32 mask, u32 val)
{
	u32 w = get_unaligned_be32(p);

	put_unaligned_be32((w & ~mask) | (val & mask), p);
}

/* ---- BTH (always at pkt->hdr) ---- */

static inline u8 bth_opcode(struct rxe_pkt_info *pkt)
{
	return pkt->hdr[0];
}

static inline void bth_set_opcode(struct rxe_pkt_info *pkt, u8 opcode)
{
	pkt->hdr[0] = opcode;
}

static inline u8 bth_se(struct rxe_pkt_info *pkt)
{
	return !!(pkt->hdr[1] & BTH_SE_MASK);
}

static inline void bth_set_se(struct rxe_pkt_info *pkt, int se)
{
	if (se)
		pkt->hdr[1] |= BTH_SE_MASK;
	else
		pkt->hdr[1] &= ~BTH_SE_MASK;
}

static inline u8 bth_mig(struct rxe_pkt_info *pkt)
{
	return !!(pkt->hdr[1] & BTH_MIG_MASK);
}

static inline void bth_set_mig(struct rxe_pkt_info *pkt, u8 mig)
{
	if (mig)
		pkt->hdr[1] |= BTH_MIG_MASK;
	else
		pkt->hdr[1] &= ~BTH_MIG_MASK;
}

static inline u8 bth_pad(struct rxe_pkt_info *pkt)
{
	return (pkt->hdr[1] & BTH_PAD_MASK) >> BTH_PAD_SHIFT;
}

static inline void bth_set_pad(struct rxe_pkt_info *pkt, u8 pad)
{
	pkt->hdr[1] = (pkt->hdr[1] & ~BTH_PAD_MASK) |
		      ((pad << BTH_PAD_SHIFT) & BTH_PAD_MASK);
}

static inline u8 bth_tver(struct rxe_pkt_info *pkt)
{
	return pkt->hdr[1] & BTH_TVER_MASK;
}

static inline void bth_set_tver(struct rxe_pkt_info *pkt, u8 tver)
{
	pkt->hdr[1] = (pkt->hdr[1] & ~BTH_TVER_MASK) | (tver & BTH_TVER_MASK);
}

static inline u16 bth_pkey(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be16(pkt->hdr + 2);
}

static inline void bth_set_pkey(struct rxe_pkt_info *pkt, u16 pkey)
{
	put_unaligned_be16(pkey, pkt->hdr + 2);
}

static inline u32 bth_qpn(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(pkt->hdr + 4) & BTH_QPN_MASK;
}

static inline void bth_set_qpn(struct rxe_pkt_info *pkt, u32 qpn)
{
	rxe_be32_update(pkt->hdr + 4, BTH_QPN_MASK, qpn);
}

static inline int bth_fecn(struct rxe_pkt_info *pkt)
{
	return !!(get_unaligned_be32(pkt->hdr + 4) & BTH_FECN_MASK);
}

static inline void bth_set_fecn(struct rxe_pkt_info *pkt, int set)
{
	rxe_be32_update(pkt->hdr + 4, BTH_FECN_MASK, set ? BTH_FECN_MASK : 0);
}

static inline int bth_becn(struct rxe_pkt_info *pkt)
{
	return !!(get_unaligned_be32(pkt->hdr + 4) & BTH_BECN_MASK);
}

static inline void bth_set_becn(struct rxe_pkt_info *pkt, int set)
{
	rxe_be32_update(pkt->hdr + 4, BTH_BECN_MASK, set ? BTH_BECN_MASK : 0);
}

static inline u8 bth_resv6a(struct rxe_pkt_info *pkt)
{
	return (get_unaligned_be32(pkt->hdr + 4) & BTH_RESV6A_MASK) >> 24;
}

static inline void bth_set_resv6a(struct rxe_pkt_info *pkt)
{
	rxe_be32_update(pkt->hdr + 4, BTH_RESV6A_MASK, 0);
}

static inline int bth_ack(struct rxe_pkt_info *pkt)
{
	return !!(get_unaligned_be32(pkt->hdr + 8) & BTH_ACK_MASK);
}

static inline void bth_set_ack(struct rxe_pkt_info *pkt, int ack)
{
	rxe_be32_update(pkt->hdr + 8, BTH_ACK_MASK, ack ? BTH_ACK_MASK : 0);
}

static inline void bth_set_resv7(struct rxe_pkt_info *pkt)
{
	rxe_be32_update(pkt->hdr + 8, BTH_RESV7_MASK, 0);
}

static inline u32 bth_psn(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(pkt->hdr + 8) & BTH_PSN_MASK;
}

static inline void bth_set_psn(struct rxe_pkt_info *pkt, u32 psn)
{
	rxe_be32_update(pkt->hdr + 8, BTH_PSN_MASK, psn);
}

/* Write a whole BTH; reserved bits and FECN/BECN are cleared, TVer 0. */
static inline void bth_init(struct rxe_pkt_info *pkt, u8 opcode, int se,
			    int mig, int pad, u16 pkey, u32 qpn, int ack_req,
			    u32 psn)
{
	u8 *p = pkt->hdr;

	p[0] = opcode;
	p[1] = (se ? BTH_SE_MASK : 0) | (mig ? BTH_MIG_MASK : 0) |
	       ((pad << BTH_PAD_SHIFT) & BTH_PAD_MASK);
	put_unaligned_be16(pkey, p + 2);
	put_unaligned_be32(qpn & BTH_QPN_MASK, p + 4);
	put_unaligned_be32((ack_req ? BTH_ACK_MASK : 0) | (psn & BTH_PSN_MASK),
			   p + 8);
}

/* ---- RDETH ---- */

static inline u32 rdeth_een(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_RDETH)) & RDETH_EEN_MASK;
}

static inline void rdeth_set_een(struct rxe_pkt_info *pkt, u32 een)
{
	put_unaligned_be32(een & RDETH_EEN_MASK, rxe_hdr_at(pkt, RXE_RDETH));
}

/* ---- DETH ---- */

static inline u32 deth_qkey(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_DETH));
}

static inline void deth_set_qkey(struct rxe_pkt_info *pkt, u32 qkey)
{
	put_unaligned_be32(qkey, rxe_hdr_at(pkt, RXE_DETH));
}

static inline u32 deth_sqp(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_DETH) + 4) &
	       DETH_SQP_MASK;
}

static inline void deth_set_sqp(struct rxe_pkt_info *pkt, u32 sqp)
{
	put_unaligned_be32(sqp & DETH_SQP_MASK, rxe_hdr_at(pkt, RXE_DETH) + 4);
}

/* ---- RETH ---- */

static inline u64 reth_va(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be64(rxe_hdr_at(pkt, RXE_RETH));
}

static inline void reth_set_va(struct rxe_pkt_info *pkt, u64 va)
{
	put_unaligned_be64(va, rxe_hdr_at(pkt, RXE_RETH));
}

static inline u32 reth_rkey(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_RETH) + 8);
}

static inline void reth_set_rkey(struct rxe_pkt_info *pkt, u32 rkey)
{
	put_unaligned_be32(rkey, rxe_hdr_at(pkt, RXE_RETH) + 8);
}

static inline u32 reth_len(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_RETH) + 12);
}

static inline void reth_set_len(struct rxe_pkt_info *pkt, u32 len)
{
	put_unaligned_be32(len, rxe_hdr_at(pkt, RXE_RETH) + 12);
}

/* ---- AtomicETH ---- */

static inline u64 atmeth_va(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be64(rxe_hdr_at(pkt, RXE_ATMETH));
}

static inline void atmeth_set_va(struct rxe_pkt_info *pkt, u64 va)
{
	put_unaligned_be64(va, rxe_hdr_at(pkt, RXE_ATMETH));
}

static inline u32 atmeth_rkey(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_ATMETH) + 8);
}

static inline void atmeth_set_rkey(struct rxe_pkt_info *pkt, u32 rkey)
{
	put_unaligned_be32(rkey, rxe_hdr_at(pkt, RXE_ATMETH) + 8);
}

static inline u64 atmeth_swap_add(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be64(rxe_hdr_at(pkt, RXE_ATMETH) + 12);
}

static inline void atmeth_set_swap_add(struct rxe_pkt_info *pkt, u64 v)
{
	put_unaligned_be64(v, rxe_hdr_at(pkt, RXE_ATMETH) + 12);
}

static inline u64 atmeth_comp(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be64(rxe_hdr_at(pkt, RXE_ATMETH) + 20);
}

static inline void atmeth_set_comp(struct rxe_pkt_info *pkt, u64 v)
{
	put_unaligned_be64(v, rxe_hdr_at(pkt, RXE_ATMETH) + 20);
}

/* ---- AETH ---- */

static inline u8 aeth_syn(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_AETH)) >> AETH_SYN_SHIFT;
}

static inline void aeth_set_syn(struct rxe_pkt_info *pkt, u8 syn)
{
	rxe_be32_update(rxe_hdr_at(pkt, RXE_AETH), AETH_SYN_MASK,
			(u32)syn << AETH_SYN_SHIFT);
}

static inline u32 aeth_msn(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_AETH)) & AETH_MSN_MASK;
}

static inline void aeth_set_msn(struct rxe_pkt_info *pkt, u32 msn)
{
	rxe_be32_update(rxe_hdr_at(pkt, RXE_AETH), AETH_MSN_MASK, msn);
}

/* ---- AtomicAckETH ---- */

static inline u64 atmack_orig(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be64(rxe_hdr_at(pkt, RXE_ATMACK));
}

static inline void atmack_set_orig(struct rxe_pkt_info *pkt, u64 orig)
{
	put_unaligned_be64(orig, rxe_hdr_at(pkt, RXE_ATMACK));
}

/* ---- ImmDt: opaque, kept in network order end to end ---- */

static inline __be32 immdt_imm(struct rxe_pkt_info *pkt)
{
	return get_unaligned((__be32 *)rxe_hdr_at(pkt, RXE_IMMDT));
}

static inline void immdt_set_imm(struct rxe_pkt_info *pkt, __be32 imm)
{
	put_unaligned(imm, (__be32 *)rxe_hdr_at(pkt, RXE_IMMDT));
}

/* ---- IETH ---- */

static inline u32 ieth_rkey(struct rxe_pkt_info *pkt)
{
	return get_unaligned_be32(rxe_hdr_at(pkt, RXE_IETH));
}

static inline void ieth_set_rkey(struct rxe_pkt_info *pkt, u32 rkey)
{
	put_unaligned_be32(rkey, rxe_hdr_at(pkt, RXE_IETH));
}

/* ---- PSN arithmetic (24-bit, modular) ---- */

/* <0, 0, >0 as PSN @a is before, equal to, after @b (within 2^23). */
static inline int psn_compare(u32 a, u32 b)
{
	return (s32)((a - b) << 8);
}

/* ---- payload ---- */

/* Bytes of BTH plus extension headers of this packet's opcode. */
static inline size_t header_size(struct rxe_pkt_info *pkt)
{
	return rxe_opcode[pkt->opcode].length;
}

static inline void *payload_addr(struct rxe_pkt_info *pkt)
{
	return pkt->hdr + rxe_opcode[pkt->opcode].offset[RXE_PAYLOAD];
}

/* Payload bytes, without the pad and the ICRC. */
static inline size_t payload_size(struct rxe_pkt_info *pkt)
{
	return pkt->paylen - rxe_opcode[pkt->opcode].offset[RXE_PAYLOAD] -
	       bth_pad(pkt) - RXE_ICRC_SIZE;
}

#endif /* RXE_HDR_H */
