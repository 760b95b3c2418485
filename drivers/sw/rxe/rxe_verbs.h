/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe verbs objects.
 *
 * Layout rule for every object: the ib_* core object comes first (ib_core
 * allocates it with INIT_RDMA_OBJ_SIZE and requires offset 0), then the
 * object's own state grouped by the code that uses it, and the pool handle
 * (rxe_pool.h) last, as only create, lookup and destroy touch it.
 *
 * The file runs from the QP's internals (what its three executors keep),
 * to the objects that own rings (CQ, SRQ, QP), to the memory objects (MR,
 * MW), to the plain ones (context, PD, AH), and ends with the casts.
 */
#ifndef RXE_VERBS_H
#define RXE_VERBS_H

#include <linux/interrupt.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>
#include "rxe_task.h"
#include "rxe_pool.h"

struct rxe_dev;
struct rxe_queue;
struct rxe_mmap_info;

/* ==== inside a QP ==== */

/*
 * Progress of a send WQE (wqe->state): the requester moves it from posted
 * to processing while it sends, to pending once all is sent and an ACK is
 * due, and the completer finishes it as done or error.
 */
enum wqe_state {
	wqe_state_posted,
	wqe_state_processing,
	wqe_state_pending,
	wqe_state_done,
	wqe_state_error,
};

/*
 * What the executors make of the IB state: RTR and RTS are one "ready",
 * SQD is split into draining and drained. Kept per executor, under
 * qp->state_lock, next to the IB state in qp->attr.qp_state.
 */
enum rxe_qp_state {
	QP_STATE_RESET,
	QP_STATE_INIT,
	QP_STATE_READY,
	QP_STATE_DRAIN,
	QP_STATE_DRAINED,
	QP_STATE_ERROR,
};

/* Requester (rxe_req.c): turns SQ WQEs into request packets. */
struct rxe_req_info {
	struct rxe_task task;
	enum rxe_qp_state state;

	/* where it stands in the SQ and in the PSN space */
	int wqe_index;
	u32 psn;
	int opcode;		/* of the last packet sent, -1 before any */
	int noack_pkts;		/* sent since the last ACK request */

	/* why it is holding back, each set by the check that stopped it */
	int wait_fence;
	int wait_psn;
	int wait_for_rnr_timer;
	int need_rd_atomic;
	int need_retry;
	atomic_t rd_atomic;	/* read/atomic credits still free */
};

/* Completer (rxe_comp.c): ACKs and responses in, send completions out. */
struct rxe_comp_info {
	struct rxe_task task;
	enum rxe_qp_state state;
	u32 psn;		/* oldest PSN not acknowledged yet */
	int opcode;

	/* retransmission bookkeeping */
	u32 retry_cnt;
	u32 rnr_retry;
	int timeout;		/* set by the retransmit timer */
	int timeout_retry;
	int started_retry;
};

/*
 * A responder resource: an RDMA read or atomic the responder executed,
 * remembered so that a duplicate request is answered by replaying it.
 */
enum rdatm_res_state {
	rdatm_res_state_next,
	rdatm_res_state_new,
	rdatm_res_state_replay,
};

struct resp_res {
	u32 first_psn;
	u32 last_psn;
	u32 cur_psn;
	int type;		/* RXE_READ_MASK or RXE_ATOMIC_MASK */
	enum rdatm_res_state state;
	int replay;
	union {
		struct {
			u64 va;		/* next byte to send */
			u32 resid;	/* bytes still to send */
			u64 va_org;
			u32 length;
			u32 rkey;
		} read;
		struct {
			u64 orig_val;	/* what the atomic found */
		} atomic;
	};
};

/* Responder (rxe_resp.c): runs incoming requests, answers with ACKs. */
struct rxe_resp_info {
	struct rxe_task task;
	enum rxe_qp_state state;

	/* sequence state */
	u32 psn;		/* next request PSN expected */
	u32 ack_psn;
	u32 msn;
	int opcode;		/* of the last request accepted */
	int sent_psn_nak;

	/* the outcome of the request being handled */
	enum ib_wc_status status;
	u8 aeth_syndrome;
	int drop_msg;
	int goto_error;

	/* where an RDMA write, read or atomic lands */
	struct rxe_mr *mr;
	u32 rkey;
	u64 va;
	u64 offset;
	u32 length;
	u32 resid;

	/*
	 * The receive WQE being filled: an RQ slot, or srq_wqe, the copy of
	 * an SRQ WQE taken so that the SRQ slot is released at once.
	 */
	struct rxe_recv_wqe *wqe;
	struct {
		struct rxe_recv_wqe wqe;
		struct ib_sge sge[RXE_MAX_SGE];
	} srq_wqe;

	/* ring of max_dest_rd_atomic responder resources */
	struct resp_res *resources;
	struct resp_res *res;	/* the one in use */
	unsigned int res_head;
	unsigned int res_tail;
};

/* ==== objects with rings ==== */

/* A CQ slot: an ib_wc for kernel CQs, the uverbs layout for user CQs. */
struct rxe_cqe {
	union {
		struct ib_wc ibwc;
		struct ib_uverbs_wc uibwc;
	};
};

struct rxe_cq {
	struct ib_cq ibcq;
	struct rxe_queue *queue;
	spinlock_t cq_lock;	/* producer side and notify */
	u8 notify;		/* IB_CQ_NEXT_COMP, IB_CQ_SOLICITED or 0 */
	bool is_dying;		/* destroy began: raise no more events */
	bool is_user;
	atomic_t num_wq;	/* QPs completing into it */
	struct rxe_pool_elem elem;
};

/* Send queue of a QP. */
struct rxe_sq {
	struct rxe_queue *queue;
	spinlock_t sq_lock;	/* kernel post_send, the producer */
	int max_wr;
	int max_sge;
	int max_inline;
};

/* Receive queue of a QP, or the queue of an SRQ. */
struct rxe_rq {
	struct rxe_queue *queue;
	spinlock_t producer_lock;	/* kernel post_recv */
	spinlock_t consumer_lock;	/* the responder */
	int max_wr;
	int max_sge;
};

struct rxe_srq {
	struct ib_srq ibsrq;
	struct rxe_rq rq;
	struct rxe_pd *pd;
	u32 srq_num;
	int limit;		/* SRQ_LIMIT_REACHED is armed while non-zero */
	int error;
	struct rxe_pool_elem elem;
};

struct rxe_qp {
	struct ib_qp ibqp;

	/* attributes as modify_qp left them; attr.qp_state is the IB state */
	struct ib_qp_attr attr;
	spinlock_t state_lock;	/* attr.qp_state and the executors' state */
	unsigned int valid;
	unsigned int mtu;	/* path MTU in bytes */
	enum ib_sig_type sq_sig_type;
	bool is_user;

	/* the objects it was created with */
	struct rxe_pd *pd;
	struct rxe_cq *scq;
	struct rxe_cq *rcq;
	struct rxe_srq *srq;
	struct rxe_sq sq;
	struct rxe_rq rq;

	/* addressing */
	struct rxe_av pri_av;
	struct rxe_av alt_av;
	u16 src_port;		/* UDP source port, a hash of the QPN */
	atomic_t mcg_num;	/* multicast groups it is attached to */

	/* the three executors and the packets queued for two of them */
	struct rxe_req_info req;
	struct rxe_comp_info comp;
	struct rxe_resp_info resp;
	struct sk_buff_head req_pkts;	/* requests, for the responder */
	struct sk_buff_head resp_pkts;	/* responses, for the completer */
	atomic_t ssn;

	/* transmit throttle (rxe_net.h) */
	atomic_t skb_out;
	int need_req_skb;
	int need_resp_skb;

	/* RC timers: retransmission (completer), RNR wait (requester) */
	struct timer_list retrans_timer;
	struct timer_list rnr_nak_timer;
	u64 qp_timeout_jiffies;

	struct rxe_pool_elem elem;
};

/* ==== memory objects ==== */

/* Which way rxe_mr_copy() and copy_data() move bytes. */
enum rxe_mr_copy_dir {
	RXE_TO_MR_OBJ,		/* into the MR's memory */
	RXE_FROM_MR_OBJ,	/* out of the MR's memory */
};

enum rxe_mr_state {
	RXE_MR_STATE_INVALID,
	RXE_MR_STATE_FREE,
	RXE_MR_STATE_VALID,
};

/*
 * An MR. Only rxe_mr.c knows how the page list is laid out; everyone else
 * goes through its functions (rxe_loc.h).
 */
struct rxe_mr {
	struct ib_mr ibmr;	/* ibmr.iova, length, type, pd */
	enum rxe_mr_state state;
	u32 lkey;
	u32 rkey;
	int access;
	atomic_t num_mw;	/* windows bound to it */
	struct ib_umem *umem;

	/* private to rxe_mr.c */
	u64 *pages;		/* kernel virtual address of each page */
	u32 num_pages;		/* entries in use */
	u32 max_pages;		/* entries allocated */
	unsigned int page_shift;
	u64 page_mask;
	u64 ibmr_iova_base;	/* iova where pages[0] starts */
	u32 page_offset;	/* fast reg: ibmr.iova's offset in pages[0] */

	struct rxe_pool_elem elem;
};

/* Whether lookup_mr() matches the lkey or the rkey. */
enum rxe_mr_lookup_type {
	RXE_LOOKUP_LOCAL,
	RXE_LOOKUP_REMOTE,
};

/* Windows go through the same three states as MRs. */
enum rxe_mw_state {
	RXE_MW_STATE_INVALID = RXE_MR_STATE_INVALID,
	RXE_MW_STATE_FREE = RXE_MR_STATE_FREE,
	RXE_MW_STATE_VALID = RXE_MR_STATE_VALID,
};

struct rxe_mw {
	struct ib_mw ibmw;	/* ibmw.type, ibmw.rkey */
	spinlock_t lock;
	enum rxe_mw_state state;
	u32 rkey;
	int access;
	/* the bound range, and what it is bound to */
	u64 addr;
	u64 length;
	struct rxe_mr *mr;	/* referenced while bound */
	struct rxe_qp *qp;	/* type 2 windows: the QP bound to */
	struct rxe_pool_elem elem;
};

/* ==== plain objects ==== */

struct rxe_ah {
	struct ib_ah ibah;
	struct rxe_av av;
	int ah_num;		/* elem.index, librxe's handle for it */
	bool is_user;
	struct rxe_pool_elem elem;
};

/* PDs and user contexts carry nothing beyond their number. */
struct rxe_pd {
	struct ib_pd ibpd;
	struct rxe_pool_elem elem;
};

struct rxe_ucontext {
	struct ib_ucontext ibuc;
	struct rxe_pool_elem elem;
};

/* ==== from the core's objects to ours ==== */

/*
 * One cast per object type; a NULL core pointer (an optional argument)
 * stays NULL.
 */
#define RXE_CAST(fn, ours, member, theirs)				\
static inline struct ours *fn(struct theirs *p)				\
{									\
	return p ? container_of(p, struct ours, member) : NULL;	\
}
RXE_CAST(to_ruc, rxe_ucontext, ibuc, ib_ucontext)
RXE_CAST(to_rpd, rxe_pd, ibpd, ib_pd)
RXE_CAST(to_rah, rxe_ah, ibah, ib_ah)
RXE_CAST(to_rcq, rxe_cq, ibcq, ib_cq)
RXE_CAST(to_rsrq, rxe_srq, ibsrq, ib_srq)
RXE_CAST(to_rqp, rxe_qp, ibqp, ib_qp)
RXE_CAST(to_rmr, rxe_mr, ibmr, ib_mr)
RXE_CAST(to_rmw, rxe_mw, ibmw, ib_mw)
#undef RXE_CAST

/* The PD an AH, MR or MW belongs to, as ib_core recorded it. */
#define rxe_ah_pd(ah)	to_rpd((ah)->ibah.pd)
#define mr_pd(mr)	to_rpd((mr)->ibmr.pd)
#define rxe_mw_pd(mw)	to_rpd((mw)->ibmw.pd)

/* Shorthands for what the transport asks of a QP most often. */
#define qp_type(qp)	((qp)->ibqp.qp_type)
#define qp_num(qp)	((qp)->ibqp.qp_num)
#define qp_state(qp)	((qp)->attr.qp_state)

/* Path MTU enum: RC and UC negotiate one, UD and GSI use the maximum. */
static inline unsigned int qp_mtu(struct rxe_qp *qp)
{
	bool connected = qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC;

	return connected ? qp->attr.path_mtu : IB_MTU_4096;
}

#endif /* RXE_VERBS_H */
