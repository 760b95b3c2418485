/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * iWARP on the wire: MPA connection setup (RFC 5044 §7, enhanced mode of
 * RFC 6581), MPA framing, DDP (RFC 5041) and RDMAP (RFC 5040) headers and
 * the Terminate error codes. Everything here is big-endian on the wire.
 */
#ifndef SIW_IWARP_H
#define SIW_IWARP_H

#include <linux/types.h>

/* ---- MPA request/reply frames (RFC 5044 §7.1) ---- */

#define MPA_KEY_SIZE		16
#define MPA_KEY_REQ		"MPA ID Req Frame"
#define MPA_KEY_REP		"MPA ID Rep Frame"
/* RFC 5044: private data of a request or reply is at most 512 bytes. */
#define MPA_MAX_PRIVDATA	512

#define MPA_REVISION_1		1
#define MPA_REVISION_2		2

/* bits of mpa_rr.bits */
#define MPA_RR_FLAG_MARKERS	0x8000
#define MPA_RR_FLAG_CRC		0x4000
#define MPA_RR_FLAG_REJECT	0x2000
#define MPA_RR_FLAG_ENHANCED	0x1000	/* RFC 6581 */
#define MPA_RR_FLAG_GSO_EXP	0x0800	/* siw private, ignored by peers */
#define MPA_RR_RESERVED		0x0700
#define MPA_RR_MASK_REVISION	0x00ff

struct mpa_rr {
	u8 key[MPA_KEY_SIZE];
	__be16 bits;
	__be16 pd_len;
} __packed;

/*
 * Enhanced mode: the first 4 private data bytes carry IRD/ORD and the
 * peer-to-peer ("ready to receive") negotiation; pd_len counts them.
 */
struct mpa_v2_data {
	__be16 ird;
	__be16 ord;
} __packed;

#define MPA_V2_PEER_TO_PEER	0x8000	/* in ird */
#define MPA_V2_SEND_RTR		0x4000	/* in ird: zero-length Send RTR */
#define MPA_V2_WRITE_RTR	0x8000	/* in ord: zero-length Write RTR */
#define MPA_V2_READ_RTR		0x4000	/* in ord: zero-length Read RTR */
#define MPA_V2_MASK_IRD_ORD	0x3fff

/* ---- FPDU framing ---- */

#define MPA_HDR_SIZE		2	/* ULPDU length */
#define MPA_CRC_SIZE		4	/* always present; 0 without CRC */
#define MPA_MAX_ULPDU		0xffff

/* ---- DDP/RDMAP control (the 16 bits after the MPA length) ---- */

#define DDP_FLAG_TAGGED		0x8000
#define DDP_FLAG_LAST		0x4000
#define DDP_MASK_RESERVED	0x3c00
#define DDP_MASK_VERSION	0x0300
#define DDP_VERSION		1
#define RDMAP_MASK_VERSION	0x00c0
#define RDMAP_VERSION		1
#define RDMAP_MASK_RESERVED	0x0030
#define RDMAP_MASK_OPCODE	0x000f

static inline u16 iwarp_ctrl_version_bits(void)
{
	return (DDP_VERSION << 8) | (RDMAP_VERSION << 6);
}

enum rdmap_opcode {
	RDMAP_RDMA_WRITE = 0,
	RDMAP_RDMA_READ_REQ = 1,
	RDMAP_RDMA_READ_RESP = 2,
	RDMAP_SEND = 3,
	RDMAP_SEND_INVAL = 4,
	RDMAP_SEND_SE = 5,
	RDMAP_SEND_SE_INVAL = 6,
	RDMAP_TERMINATE = 7,
	RDMAP_NUM_OPCODES
};

/* Untagged queue numbers (RFC 5040 §5). */
enum ddp_qn {
	RDMAP_UNTAGGED_QN_SEND = 0,
	RDMAP_UNTAGGED_QN_RDMA_READ = 1,
	RDMAP_UNTAGGED_QN_TERMINATE = 2,
	RDMAP_UNTAGGED_QN_COUNT = 3
};

struct iwarp_ctrl {
	__be16 mpa_len;		/* ULPDU length: headers after it + payload */
	__be16 ddp_rdmap_ctrl;
} __packed;

/* RDMA Write, Read Response */
struct iwarp_tagged_hdr {
	struct iwarp_ctrl ctrl;
	__be32 stag;
	__be64 to;
} __packed;

/* Send*, Read Request, Terminate */
struct iwarp_untagged_hdr {
	struct iwarp_ctrl ctrl;
	__be32 inval_stag;	/* Send with Invalidate, else reserved (0) */
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

struct iwarp_read_req {
	struct iwarp_untagged_hdr hdr;
	__be32 sink_stag;
	__be64 sink_to;
	__be32 read_size;
	__be32 source_stag;
	__be64 source_to;
} __packed;

/* Terminate: control word, then what its Hdrct bits announce. */
struct iwarp_terminate {
	struct iwarp_untagged_hdr hdr;
	u8 layer_etype;		/* layer in bits 7:4, error type in 3:0 */
	u8 ecode;
	u8 hdrct;		/* TERM_HDRCT_* */
	u8 reserved;
} __packed;

#define TERM_HDRCT_M	0x80	/* DDP segment length follows */
#define TERM_HDRCT_D	0x40	/* the terminated DDP header follows */
#define TERM_HDRCT_R	0x20	/* the terminated RDMAP header follows */

/* Bytes of the Read Request body after the untagged header. */
#define RDMAP_READ_REQ_BODY	(sizeof(struct iwarp_read_req) - \
				 sizeof(struct iwarp_untagged_hdr))
/* Largest Terminate we accept: control, segment length, both headers. */
#define TERM_MAX_BODY		(4 + 2 + sizeof(struct iwarp_untagged_hdr) - \
				 MPA_HDR_SIZE + RDMAP_READ_REQ_BODY)

/* ---- Terminate layer / error type / error code (RFC 5040 §7, 5044 §8) ---- */

enum term_layer {
	TERM_LAYER_RDMAP = 0,
	TERM_LAYER_DDP = 1,
	TERM_LAYER_LLP = 2
};

enum rdmap_etype {
	RDMAP_ETYPE_CATASTROPHIC = 0,
	RDMAP_ETYPE_REMOTE_PROTECTION = 1,
	RDMAP_ETYPE_REMOTE_OPERATION = 2
};

/*
 * RDMAP error codes (RFC 5040 7.4), grouped by what the receiver found
 * wrong: the STag, the access through it, the message, or worse.
 */
enum rdmap_ecode {
	RDMAP_ECODE_INVALID_STAG = 0x00,
	RDMAP_ECODE_STAG_NOT_ASSOC = 0x03,
	RDMAP_ECODE_CANNOT_INVALIDATE = 0x09,

	RDMAP_ECODE_ACCESS_RIGHTS = 0x02,
	RDMAP_ECODE_BASE_BOUNDS = 0x01,
	RDMAP_ECODE_TO_WRAP = 0x04,

	RDMAP_ECODE_OPCODE = 0x06,
	RDMAP_ECODE_VERSION = 0x05,

	RDMAP_ECODE_CATASTROPHIC_STREAM = 0x07,
	RDMAP_ECODE_CATASTROPHIC_GLOBAL = 0x08,
	RDMAP_ECODE_UNSPECIFIED = 0xff
};

enum ddp_etype {
	DDP_ETYPE_CATASTROPHIC = 0,
	DDP_ETYPE_TAGGED_BUF = 1,
	DDP_ETYPE_UNTAGGED_BUF = 2,
	DDP_ETYPE_RSVD = 3
};

/*
 * DDP error codes (RFC 5041 7.2). The two buffer models number their
 * errors independently, so the same value means different things; what
 * the codes share is listed side by side.
 */
enum ddp_ecode {
	/* the STag (tagged) or queue (untagged) names nothing usable */
	DDP_ECODE_T_INVALID_STAG = 0x00,
	DDP_ECODE_T_STAG_NOT_ASSOC = 0x02,
	DDP_ECODE_UT_INVALID_QN = 0x01,
	DDP_ECODE_UT_INVALID_MSN_NOBUF = 0x02,
	DDP_ECODE_UT_INVALID_MSN_RANGE = 0x03,
	/* the data would land outside the buffer */
	DDP_ECODE_T_BASE_BOUNDS = 0x01,
	DDP_ECODE_T_TO_WRAP = 0x03,
	DDP_ECODE_UT_INVALID_MO = 0x04,
	DDP_ECODE_UT_MSG_TOOLONG = 0x05,
	/* wrong DDP version */
	DDP_ECODE_T_VERSION = 0x04,
	DDP_ECODE_UT_VERSION = 0x06
};

enum llp_etype {
	LLP_ETYPE_MPA = 0
};

enum llp_ecode {
	LLP_ECODE_TCP_CLOSED = 0x01,
	LLP_ECODE_CRC = 0x02,
	LLP_ECODE_MARKER_LEN = 0x03,
	LLP_ECODE_INVALID_REQ_RESP = 0x04,
	LLP_ECODE_LOCAL_CATASTROPHIC = 0x05,
	LLP_ECODE_INSUFFICIENT_IRD = 0x06,
	LLP_ECODE_NO_MATCHING_RTR = 0x07
};

#endif /* SIW_IWARP_H */
