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

/* Header kinds; rxe_opcode_info.offset[] is indexed by these. */
enum rxe_hdr_type {
	RXE_LRH,
	RXE_GRH,
	RXE_BTH,
	RXE_RETH,
	RXE_AETH,
	RXE_ATMETH,
	RXE_ATMACK,
	RXE_IETH,
	RXE_RDETH,
	RXE_DETH,
	RXE_IMMDT,
	RXE_PAYLOAD,
	NUM_HDR_TYPES
};

/*
 * rxe_opcode_info.mask and rxe_pkt_info.mask bits: the low bits say which
 * headers are present, the rest classify the packet.
 */
enum rxe_hdr_mask {
	RXE_LRH_MASK		= BIT(RXE_LRH),
	RXE_GRH_MASK		= BIT(RXE_GRH),	/* set: came over IP/UDP */
	RXE_BTH_MASK		= BIT(RXE_BTH),
	RXE_RETH_MASK		= BIT(RXE_RETH),
	RXE_AETH_MASK		= BIT(RXE_AETH),
	RXE_ATMETH_MASK		= BIT(RXE_ATMETH),
	RXE_ATMACK_MASK		= BIT(RXE_ATMACK),
	RXE_IETH_MASK		= BIT(RXE_IETH),
	RXE_RDETH_MASK		= BIT(RXE_RDETH),
	RXE_DETH_MASK		= BIT(RXE_DETH),
	RXE_IMMDT_MASK		= BIT(RXE_IMMDT),
	RXE_PAYLOAD_MASK	= BIT(RXE_PAYLOAD),

	/* a request: goes to the responder (else: to the completer) */
	RXE_REQ_MASK		= BIT(NUM_HDR_TYPES + 0),
	/* a response: ACK, atomic ACK or RDMA read response */
	RXE_ACK_MASK		= BIT(NUM_HDR_TYPES + 1),
	RXE_SEND_MASK		= BIT(NUM_HDR_TYPES + 2),
	RXE_WRITE_MASK		= BIT(NUM_HDR_TYPES + 3),
	RXE_READ_MASK		= BIT(NUM_HDR_TYPES + 4),
	RXE_ATOMIC_MASK		= BIT(NUM_HDR_TYPES + 5),
	/*
	 * The responder must take a receive WQE for this packet: first
	 * packet of a send, last packet of an RDMA write with immediate.
	 */
	RXE_RWR_MASK		= BIT(NUM_HDR_TYPES + 6),
	/*
	 * Last packet of a message that completes a receive WQE (sends and
	 * RDMA writes with immediate): the responder posts a CQE.
	 */
	RXE_COMP_MASK		= BIT(NUM_HDR_TYPES + 7),
	RXE_START_MASK		= BIT(NUM_HDR_TYPES + 8),
	RXE_MIDDLE_MASK		= BIT(NUM_HDR_TYPES + 9),
	RXE_END_MASK		= BIT(NUM_HDR_TYPES + 10),
	/* set by rxe_prepare(): destination is a local rxe device */
	RXE_LOOPBACK_MASK	= BIT(NUM_HDR_TYPES + 11),

	RXE_READ_OR_ATOMIC_MASK	= RXE_READ_MASK | RXE_ATOMIC_MASK,
	RXE_WRITE_OR_SEND_MASK	= RXE_WRITE_MASK | RXE_SEND_MASK,
	RXE_READ_OR_WRITE_MASK	= RXE_READ_MASK | RXE_WRITE_MASK,
};

struct rxe_opcode_info {
	const char *name;
	u32 mask;		/* enum rxe_hdr_mask; 0: opcode unsupported */
	int length;		/* bytes of BTH + extension headers */
	int offset[NUM_HDR_TYPES];	/* from the BTH; 0 if absent */
};

extern const struct rxe_opcode_info rxe_opcode[RXE_NUM_OPCODE];

/* What a send work request needs and may do, per QP type. */
enum rxe_wr_mask {
	WR_INLINE_MASK		= BIT(0),	/* may carry inline data */
	WR_ATOMIC_MASK		= BIT(1),
	WR_SEND_MASK		= BIT(2),
	WR_READ_MASK		= BIT(3),
	WR_WRITE_MASK		= BIT(4),
	WR_LOCAL_OP_MASK	= BIT(5),	/* no packet: local inv/reg/bind */

	WR_READ_OR_WRITE_MASK	= WR_READ_MASK | WR_WRITE_MASK,
	WR_WRITE_OR_SEND_MASK	= WR_WRITE_MASK | WR_SEND_MASK,
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
