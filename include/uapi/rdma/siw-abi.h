/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Software iWARP (siw): udata of the verbs commands and the layout of the
 * send/receive/completion queue elements that the kernel and libsiw share
 * through mmap()ed rings. rdma-kmod's own header; ABI identical to the 6.1
 * kernel's (selftests/host/uapi_layout.sh).
 */
#ifndef RDMA_KMOD_UAPI_SIW_ABI_H
#define RDMA_KMOD_UAPI_SIW_ABI_H

#include <linux/types.h>

#define SIW_NODE_DESC_COMMON	"Software iWARP stack"
#define SIW_ABI_VERSION		1
#define SIW_MAX_SGE		6
/* mmap keys are handed out below this; one past it means "no mapping" */
#define SIW_UOBJ_MAX_KEY	0x08FFFF
#define SIW_INVAL_UOBJ_KEY	(SIW_UOBJ_MAX_KEY + 1)

/* --- driver udata of the verbs commands --- */

struct siw_uresp_alloc_ctx {
	__u32 dev_id;
	__u32 pad;
};

struct siw_uresp_create_cq {
	__u32 cq_id;
	__u32 num_cqe;
	__aligned_u64 cq_key;	/* mmap offset of the CQE ring */
};

struct siw_uresp_create_qp {
	__u32 qp_id;
	__u32 num_sqe;
	__u32 num_rqe;
	__u32 pad;
	__aligned_u64 sq_key;
	__aligned_u64 rq_key;
};

struct siw_uresp_create_srq {
	__u32 num_rqe;
	__u32 pad;
	__aligned_u64 srq_key;
};

struct siw_ureq_reg_mr {
	__u8 stag_key;		/* low 8 bits of the STag, chosen by the user */
	__u8 reserved[3];
	__u32 pad;
};

struct siw_uresp_reg_mr {
	__u32 stag;
	__u32 pad;
};

/* --- queue elements --- */

enum siw_opcode {
	SIW_OP_WRITE,
	SIW_OP_READ,
	SIW_OP_READ_LOCAL_INV,
	SIW_OP_SEND,
	SIW_OP_SEND_WITH_IMM,
	SIW_OP_SEND_REMOTE_INV,
	SIW_OP_FETCH_AND_ADD,
	SIW_OP_COMP_AND_SWAP,
	SIW_OP_RECEIVE,
	/* from here on, only the kernel generates these */
	SIW_OP_READ_RESPONSE,
	SIW_OP_INVAL_STAG,
	SIW_OP_REG_MR,
	SIW_NUM_OPCODES
};

struct siw_sge {
	__aligned_u64 laddr;
	__u32 length;
	__u32 lkey;
};

/* Inline payload lives in sge[1..]; sge[0].length carries its size. */
#define SIW_MAX_INLINE	(sizeof(struct siw_sge) * (SIW_MAX_SGE - 1))

#if SIW_MAX_SGE < 2
#error "siw needs SIW_MAX_SGE >= 2 for inline data"
#endif

/* siw_sqe.flags / siw_rqe.flags / siw_cqe.flags */
enum siw_wqe_flags {
	/* ownership bit: set by the producer, cleared by the consumer */
	SIW_WQE_VALID = 1,
	SIW_WQE_INLINE = (1 << 1),
	SIW_WQE_SIGNALLED = (1 << 2),
	SIW_WQE_SOLICITED = (1 << 3),
	SIW_WQE_READ_FENCE = (1 << 4),
	SIW_WQE_REM_INVAL = (1 << 5),
	SIW_WQE_COMPLETED = (1 << 6)
};

struct siw_sqe {
	__aligned_u64 id;
	__u16 flags;
	__u8 num_sge;
	__u8 opcode;		/* enum siw_opcode */
	__u32 rkey;
	union {
		__aligned_u64 raddr;
		__aligned_u64 base_mr;	/* SIW_OP_REG_MR */
	};
	union {
		struct siw_sge sge[SIW_MAX_SGE];
		__aligned_u64 access;	/* SIW_OP_REG_MR */
	};
};

struct siw_rqe {
	__aligned_u64 id;
	__u16 flags;
	__u8 num_sge;
	__u8 opcode;
	__u32 unused;
	struct siw_sge sge[SIW_MAX_SGE];
};

/* siw_cq_ctrl.flags: armed state of the CQ, shared with the user */
enum siw_notify_flags {
	SIW_NOTIFY_NOT = (0),
	SIW_NOTIFY_SOLICITED = (1 << 0),
	SIW_NOTIFY_NEXT_COMPLETION = (1 << 1),
	SIW_NOTIFY_MISSED_EVENTS = (1 << 2),
	SIW_NOTIFY_ALL = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION |
			 SIW_NOTIFY_MISSED_EVENTS
};

enum siw_wc_status {
	SIW_WC_SUCCESS,
	SIW_WC_LOC_LEN_ERR,
	SIW_WC_LOC_PROT_ERR,
	SIW_WC_LOC_QP_OP_ERR,
	SIW_WC_WR_FLUSH_ERR,
	SIW_WC_BAD_RESP_ERR,
	SIW_WC_LOC_ACCESS_ERR,
	SIW_WC_REM_ACCESS_ERR,
	SIW_WC_REM_INV_REQ_ERR,
	SIW_WC_GENERAL_ERR,
	SIW_NUM_WC_STATUS
};

struct siw_cqe {
	__aligned_u64 id;
	__u8 flags;
	__u8 opcode;
	__u16 status;		/* enum siw_wc_status */
	__u32 bytes;
	union {
		__aligned_u64 imm_data;
		__u32 inval_stag;
	};
	/* the kernel keeps its QP pointer here; users see the QP id */
	union {
		struct ib_qp *base_qp;
		__aligned_u64 qp_id;
	};
};

/* Sits right behind the CQE ring in the CQ mapping. */
struct siw_cq_ctrl {
	__u32 flags;
	__u32 pad;
};

#endif /* RDMA_KMOD_UAPI_SIW_ABI_H */
