/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * InfiniBand transport opcodes as rdma_rxe uses them: the wire opcode
 * numbers, which headers follow the BTH for each of them, and which send
 * work-request opcodes each QP type accepts.
 */
#ifndef RXE_OPCODE_H
#define RXE_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_pack.h>

/*
 * BTH byte 0: transport prefix (bits 7:5) | operation (bits 4:0). The wire
 * opcodes themselves (IB_OPCODE_RC_SEND_FIRST ...) are ib_pack.h's.
 */
#define IB_OPCODE_TRANSPORT_MASK	0xe0
#define IB_OPCODE_OP_MASK	0x1f

#define RXE_NUM_OPCODE		256

/*
 * The headers a packet may carry, in wire order (LRH and GRH before the
 * BTH). One list gives each its index into rxe_opcode_info.offset[]
 * (RXE_BTH ...) and its presence bit in the masks (RXE_BTH_MASK ...).
 */
#define RXE_HEADER_LIST(H)						\
	H(LRH) H(GRH) H(BTH) H(RETH) H(AETH) H(ATMETH) H(ATMACK)	\
	H(IETH) H(RDETH) H(DETH) H(IMMDT) H(PAYLOAD)

/*
 * What else the masks say about a packet, in bits above the header bits:
 *  REQ      a request, for the responder (else: for the completer)
 *  ACK      a response: ACK, atomic ACK or RDMA read response
 *  SEND, WRITE, READ, ATOMIC   the operation
 *  RWR      the responder takes a receive WQE for it (first packet of a
 *           send, last of an RDMA write with immediate)
 *  COMP     it completes that WQE: the responder posts a CQE
 *  START, MIDDLE, END          its place in the message
 *  LOOPBACK set by rxe_prepare(): the destination is a local device
 */
#define RXE_CLASS_LIST(C)						\
	C(REQ) C(ACK) C(SEND) C(WRITE) C(READ) C(ATOMIC) C(RWR) C(COMP)	\
	C(START) C(MIDDLE) C(END) C(LOOPBACK)

#define RXE_HDR_INDEX(h) RXE_##h,
enum rxe_hdr_type { RXE_HEADER_LIST(RXE_HDR_INDEX) NUM_HDR_TYPES };
#undef RXE_HDR_INDEX

#define RXE_CLASS_INDEX(c) RXE_CLASS_##c,
enum rxe_class_bit { RXE_CLASS_LIST(RXE_CLASS_INDEX) RXE_NUM_CLASS_BITS };
#undef RXE_CLASS_INDEX

/* Bits of rxe_opcode_info.mask and rxe_pkt_info.mask. */
#define RXE_HDR_BIT(h) RXE_##h##_MASK = BIT(RXE_##h),
#define RXE_CLASS_BIT(c) RXE_##c##_MASK = BIT(NUM_HDR_TYPES + RXE_CLASS_##c),
enum rxe_hdr_mask {
	RXE_HEADER_LIST(RXE_HDR_BIT)
	RXE_CLASS_LIST(RXE_CLASS_BIT)
	/* shorthands for tests of either operation */
	RXE_READ_OR_ATOMIC_MASK	= RXE_READ_MASK | RXE_ATOMIC_MASK,
	RXE_WRITE_OR_SEND_MASK	= RXE_WRITE_MASK | RXE_SEND_MASK,
	RXE_READ_OR_WRITE_MASK	= RXE_READ_MASK | RXE_WRITE_MASK,
};
#undef RXE_HDR_BIT
#undef RXE_CLASS_BIT

struct rxe_opcode_info {
	const char *name;
	u32 mask;		/* enum rxe_hdr_mask; 0: opcode unsupported */
	int length;		/* bytes of BTH + extension headers */
	int offset[NUM_HDR_TYPES];	/* from the BTH; 0 if absent */
};

extern const struct rxe_opcode_info rxe_opcode[RXE_NUM_OPCODE];

/*
 * What a send work request does, per QP type: the operations it moves
 * data with first, then how: inline data allowed, or purely local (local
 * invalidate, fast register, bind: no packet at all).
 */
enum rxe_wr_mask {
	WR_SEND_MASK		= BIT(0),
	WR_WRITE_MASK		= BIT(1),
	WR_READ_MASK		= BIT(2),
	WR_ATOMIC_MASK		= BIT(3),
	WR_INLINE_MASK		= BIT(4),
	WR_LOCAL_OP_MASK	= BIT(5),

	WR_WRITE_OR_SEND_MASK	= WR_WRITE_MASK | WR_SEND_MASK,
	WR_READ_OR_WRITE_MASK	= WR_READ_MASK | WR_WRITE_MASK,
	WR_READ_WRITE_OR_SEND_MASK = WR_READ_OR_WRITE_MASK | WR_SEND_MASK,
};

#define WR_MAX_QPT		IB_QPT_MAX
/* IB_WR_* opcodes indexable in rxe_wr_opcode_info[] */
#define RXE_NUM_WR_OPCODE	(IB_WR_REG_MR + 1)

struct rxe_wr_opcode_info {
	const char *name;
	u32 mask[WR_MAX_QPT];	/* enum rxe_wr_mask; 0: not allowed */
};

extern const struct rxe_wr_opcode_info rxe_wr_opcode_info[RXE_NUM_WR_OPCODE];

/* Mask for (wr opcode, QP type); 0 if the pair is not supported. */
static inline u32 rxe_wr_opcode_mask(u32 wr_opcode, enum ib_qp_type qpt)
{
	if (wr_opcode >= RXE_NUM_WR_OPCODE || (u32)qpt >= WR_MAX_QPT)
		return 0;
	return rxe_wr_opcode_info[wr_opcode].mask[qpt];
}

#endif /* RXE_OPCODE_H */
