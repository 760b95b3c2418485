/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe verbs objects. Every object embeds its ib_* core object (which
 * ib_core allocates with the size given by INIT_RDMA_OBJ_SIZE) and a pool
 * element: the element gives it an index (QPN, SRQ number, AH number, MR
 * key index) and a reference count, so that the packet path can look
 * objects up and keep them alive without holding locks.
 */
#ifndef RXE_VERBS_H
#define RXE_VERBS_H

#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>
#include "rxe_task.h"

struct rxe_dev;
struct rxe_queue;
struct rxe_mmap_info;

/* ---- object pools (rxe_pool.c) ---- */

enum rxe_elem_type {
	RXE_TYPE_UC,
	RXE_TYPE_PD,
	RXE_TYPE_AH,
	RXE_TYPE_SRQ,
	RXE_TYPE_QP,
	RXE_TYPE_CQ,
	RXE_TYPE_MR,
	RXE_TYPE_MW,
	RXE_NUM_TYPES,
};

struct rxe_pool_elem {
	struct rxe_pool *pool;
	void *obj;			/* the rxe_* object containing this */
	struct kref ref_cnt;
	struct completion complete;	/* ref_cnt reached zero */
	u32 index;
};

struct rxe_pool {
	struct rxe_dev *rxe;
	const char *name;
	enum rxe_elem_type type;
	size_t elem_offset;		/* of the rxe_pool_elem in the object */
	void (*cleanup)(struct rxe_pool_elem *elem);
	unsigned int max_elem;
	atomic_t num_elem;
	struct xarray xa;		/* index -> elem, NULL until finalized */
	struct xa_limit limit;
	u32 next;			/* cyclic allocation hint */
};

/*
 * Index ranges (stock-compatible). MR and MW key indexes do not overlap,
 * so an rkey tells by itself whether it names an MR or an MW.
 */
#define RXE_MIN_QP_INDEX	16
#define RXE_MAX_QP_INDEX	0x000fffff
#define RXE_MIN_SRQ_INDEX	0x00020001
#define RXE_MAX_SRQ_INDEX	0x000fffff
#define RXE_MIN_MR_INDEX	0x00000001
#define RXE_MAX_MR_INDEX	0x0007ffff
#define RXE_MIN_MW_INDEX	0x00080001
#define RXE_MAX_MW_INDEX	0x000fffff

static inline bool rxe_rkey_is_mw(u32 rkey)
{
	u32 index = rkey >> 8;

	return index >= RXE_MIN_MW_INDEX && index <= RXE_MAX_MW_INDEX;
}

void rxe_pool_init(struct rxe_dev *rxe, struct rxe_pool *pool,
		   enum rxe_elem_type type);
/* Warns (no crash) about leaked elements; called at dealloc_driver. */
void rxe_pool_cleanup(struct rxe_pool *pool);

/*
 * Give a core-allocated object an index and an initial reference. The
 * index is reserved but lookups fail until rxe_finalize().
 */
int __rxe_add_to_pool(struct rxe_pool *pool, struct rxe_pool_elem *elem,
		      void *obj, bool sleepable);
#define rxe_add_to_pool(pool, obj)					\
	__rxe_add_to_pool(pool, &(obj)->elem, obj, true)
#define rxe_add_to_pool_atomic(pool, obj)				\
	__rxe_add_to_pool(pool, &(obj)->elem, obj, false)

/* Make the object visible to rxe_pool_get_index(). */
void __rxe_finalize(struct rxe_pool_elem *elem);
#define rxe_finalize(obj) __rxe_finalize(&(obj)->elem)

/* Look up by index; returns the object with a reference, or NULL. */
void *rxe_pool_get_index(struct rxe_pool *pool, u32 index);

/* Returns 0 if the object is already dying (no reference taken). */
int __rxe_get(struct rxe_pool_elem *elem);
#define rxe_get(obj) __rxe_get(&(obj)->elem)
int __rxe_put(struct rxe_pool_elem *elem);
#define rxe_put(obj) __rxe_put(&(obj)->elem)
static inline unsigned int __rxe_read(struct rxe_pool_elem *elem)
{
	return kref_read(&elem->ref_cnt);
}
#define rxe_read(obj) __rxe_read(&(obj)->elem)

/*
 * Destroy path: unpublish the index, drop the initial reference, wait
 * (sleepable) or poll briefly (atomic, e.g. AH destroy from softirq) for
 * the other references to go, then run the pool's cleanup hook. The memory
 * itself belongs to ib_core, which frees it after the destroy op returns.
 */
int __rxe_cleanup(struct rxe_pool_elem *elem, bool sleepable);
#define rxe_cleanup(obj) __rxe_cleanup(&(obj)->elem, true)
#define rxe_cleanup_ah(obj, sleepable) __rxe_cleanup(&(obj)->elem, sleepable)

/* ---- objects ---- */

struct rxe_ucontext {
	struct ib_ucontext ibuc;
	struct rxe_pool_elem elem;
};

struct rxe_pd {
	struct ib_pd ibpd;
	struct rxe_pool_elem elem;
};

struct rxe_ah {
	struct ib_ah ibah;
	struct rxe_pool_elem elem;
	struct rxe_av av;
	bool is_user;
	int ah_num;		/* elem.index, given to librxe as ah_num */
};

/* A CQ slot: kernel CQs hold an ib_wc, user CQs the uverbs layout. */
struct rxe_cqe {
	union {
		struct ib_wc ibwc;
		struct ib_uverbs_wc uibwc;
	};
};

struct rxe_cq {
	struct ib_cq ibcq;
	struct rxe_pool_elem elem;
	struct rxe_queue *queue;
	spinlock_t cq_lock;	/* producer side + notify */
	u8 notify;		/* IB_CQ_NEXT_COMP / IB_CQ_SOLICITED, or 0 */
	bool is_user;
	bool is_dying;		/* destroy started: no more events */
	atomic_t num_wq;	/* QPs using it */
};

enum wqe_state {
	wqe_state_posted,
	wqe_state_processing,
	wqe_state_pending,
	wqe_state_done,
	wqe_state_error,
};

struct rxe_sq {
	int max_wr;
	int max_sge;
	int max_inline;
	spinlock_t sq_lock;	/* kernel post_send (producer) */
	struct rxe_queue *queue;
};

struct rxe_rq {
	int max_wr;
	int max_sge;
	spinlock_t producer_lock;	/* kernel post_recv */
	spinlock_t consumer_lock;	/* responder */
	struct rxe_queue *queue;
};

struct rxe_srq {
	struct ib_srq ibsrq;
	struct rxe_pool_elem elem;
	struct rxe_pd *pd;
	struct rxe_rq rq;
	u32 srq_num;
	int limit;		/* SRQ_LIMIT_REACHED armed when non-zero */
	int error;
};

/* Transport state of a QP (finer than the IB state in attr.qp_state). */
enum rxe_qp_state {
	QP_STATE_RESET,
	QP_STATE_INIT,
	QP_STATE_READY,		/* RTR/RTS */
	QP_STATE_DRAIN,		/* SQD requested, not yet drained */
	QP_STATE_DRAINED,	/* SQD, drained */
	QP_STATE_ERROR,
};

/* Requester (rxe_req.c): walks the SQ, builds and sends request packets. */
struct rxe_req_info {
	enum rxe_qp_state state;
	int wqe_index;		/* next SQ slot to process */
	u32 psn;		/* next PSN to send */
	int opcode;		/* last opcode sent, -1 at start */
	atomic_t rd_atomic;	/* outstanding read/atomic credits left */
	int wait_fence;
	int need_rd_atomic;
	int wait_psn;
	int need_retry;
	int wait_for_rnr_timer;
	int noack_pkts;
	struct rxe_task task;
};

/* Completer (rxe_comp.c): consumes ACKs/responses, completes send WQEs. */
struct rxe_comp_info {
	enum rxe_qp_state state;
	u32 psn;		/* next PSN expected to be acknowledged */
	int opcode;
	int timeout;		/* retransmit timer fired */
	int timeout_retry;
	int started_retry;
	u32 retry_cnt;
	u32 rnr_retry;
	struct rxe_task task;
};

/* A responder resource: a remembered RDMA read or atomic for replay. */
enum rdatm_res_state {
	rdatm_res_state_next,
	rdatm_res_state_new,
	rdatm_res_state_replay,
};

struct resp_res {
	int type;		/* RXE_READ_MASK or RXE_ATOMIC_MASK */
	int replay;
	u32 first_psn;
	u32 last_psn;
	u32 cur_psn;
	enum rdatm_res_state state;
	union {
		struct {
			u64 orig_val;
		} atomic;
		struct {
			u64 va_org;
			u32 rkey;
			u32 length;
			u64 va;
			u32 resid;
		} read;
	};
};

/* Responder (rxe_resp.c): executes incoming requests, sends ACKs. */
struct rxe_resp_info {
	enum rxe_qp_state state;
	u32 msn;
	u32 psn;		/* next expected request PSN */
	u32 ack_psn;
	int opcode;		/* last request opcode accepted */
	int drop_msg;
	int goto_error;
	int sent_psn_nak;
	enum ib_wc_status status;
	u8 aeth_syndrome;

	/* receive WQE being filled (RQ slot, or copy of an SRQ WQE) */
	struct rxe_recv_wqe *wqe;

	/* RDMA write / read / atomic target of the current message */
	u64 va;
	u64 offset;
	struct rxe_mr *mr;
	u32 resid;
	u32 rkey;
	u32 length;

	/* an SRQ WQE is copied here so the SRQ slot is freed at once */
	struct {
		struct rxe_recv_wqe wqe;
		struct ib_sge sge[RXE_MAX_SGE];
	} srq_wqe;

	/* responder resources, max_dest_rd_atomic of them, a ring */
	struct resp_res *resources;
	unsigned int res_head;
	unsigned int res_tail;
	struct resp_res *res;

	struct rxe_task task;
};

struct rxe_qp {
	struct ib_qp ibqp;
	struct rxe_pool_elem elem;
	struct ib_qp_attr attr;	/* current attributes; attr.qp_state */
	unsigned int valid;
	unsigned int mtu;	/* path MTU in bytes */
	bool is_user;

	struct rxe_pd *pd;
	struct rxe_srq *srq;
	struct rxe_cq *scq;
	struct rxe_cq *rcq;

	enum ib_sig_type sq_sig_type;

	struct rxe_sq sq;
	struct rxe_rq rq;

	u16 src_port;		/* UDP source port, hashed from the QPN */

	struct rxe_av pri_av;
	struct rxe_av alt_av;

	atomic_t mcg_num;	/* multicast groups attached */

	struct sk_buff_head req_pkts;	/* requests for the responder */
	struct sk_buff_head resp_pkts;	/* responses for the completer */

	struct rxe_req_info req;
	struct rxe_comp_info comp;
	struct rxe_resp_info resp;

	atomic_t ssn;
	atomic_t skb_out;	/* sent skbs not yet freed: tx throttle */
	int need_req_skb;	/* requester throttled, wake it on free */
	int need_resp_skb;	/* read replies throttled, likewise */

	/* RC retransmission (comp) and RNR wait (req) timers */
	struct timer_list retrans_timer;
	u64 qp_timeout_jiffies;
	struct timer_list rnr_nak_timer;

	spinlock_t state_lock;	/* attr.qp_state and the *_info.state */
};

enum rxe_mr_state {
	RXE_MR_STATE_INVALID,
	RXE_MR_STATE_FREE,
	RXE_MR_STATE_VALID,
};

enum rxe_mr_copy_dir {
	RXE_TO_MR_OBJ,		/* copy into the MR's memory */
	RXE_FROM_MR_OBJ,	/* copy out of the MR's memory */
};

enum rxe_mr_lookup_type {
	RXE_LOOKUP_LOCAL,	/* by lkey */
	RXE_LOOKUP_REMOTE,	/* by rkey */
};

/*
 * An MR. The layout of the page list is private to rxe_mr.c; everyone
 * else goes through its access functions (rxe_loc.h).
 */
struct rxe_mr {
	struct ib_mr ibmr;	/* ibmr.iova/length/type/pd */
	struct rxe_pool_elem elem;
	struct ib_umem *umem;

	u32 lkey;
	u32 rkey;
	enum rxe_mr_state state;
	int access;
	atomic_t num_mw;	/* MWs bound to it */

	/* private to rxe_mr.c */
	unsigned int page_shift;
	u64 page_mask;
	u32 num_pages;		/* entries used */
	u32 max_pages;		/* entries allocated */
	u64 *pages;		/* kernel virtual address of each page */
	u64 ibmr_iova_base;	/* iova of pages[0] start (page aligned) */
	u32 page_offset;	/* fast reg: offset of ibmr.iova in pages[0] */
};

enum rxe_mw_state {
	RXE_MW_STATE_INVALID = RXE_MR_STATE_INVALID,
	RXE_MW_STATE_FREE = RXE_MR_STATE_FREE,
	RXE_MW_STATE_VALID = RXE_MR_STATE_VALID,
};

struct rxe_mw {
	struct ib_mw ibmw;	/* ibmw.type, ibmw.rkey */
	struct rxe_pool_elem elem;
	spinlock_t lock;
	enum rxe_mw_state state;
	struct rxe_qp *qp;	/* type 2: bound to this QP */
	struct rxe_mr *mr;	/* holds a reference while bound */
	u32 rkey;
	int access;
	u64 addr;
	u64 length;
};

/* ---- container_of helpers ---- */

static inline struct rxe_ucontext *to_ruc(struct ib_ucontext *uc)
{
	return uc ? container_of(uc, struct rxe_ucontext, ibuc) : NULL;
}

static inline struct rxe_pd *to_rpd(struct ib_pd *pd)
{
	return pd ? container_of(pd, struct rxe_pd, ibpd) : NULL;
}

static inline struct rxe_ah *to_rah(struct ib_ah *ah)
{
	return ah ? container_of(ah, struct rxe_ah, ibah) : NULL;
}

static inline struct rxe_cq *to_rcq(struct ib_cq *cq)
{
	return cq ? container_of(cq, struct rxe_cq, ibcq) : NULL;
}

static inline struct rxe_srq *to_rsrq(struct ib_srq *srq)
{
	return srq ? container_of(srq, struct rxe_srq, ibsrq) : NULL;
}

static inline struct rxe_qp *to_rqp(struct ib_qp *qp)
{
	return qp ? container_of(qp, struct rxe_qp, ibqp) : NULL;
}

static inline struct rxe_mr *to_rmr(struct ib_mr *mr)
{
	return mr ? container_of(mr, struct rxe_mr, ibmr) : NULL;
}

static inline struct rxe_mw *to_rmw(struct ib_mw *mw)
{
	return mw ? container_of(mw, struct rxe_mw, ibmw) : NULL;
}

static inline struct rxe_pd *rxe_ah_pd(struct rxe_ah *ah)
{
	return to_rpd(ah->ibah.pd);
}

static inline struct rxe_pd *mr_pd(struct rxe_mr *mr)
{
	return to_rpd(mr->ibmr.pd);
}

static inline struct rxe_pd *rxe_mw_pd(struct rxe_mw *mw)
{
	return to_rpd(mw->ibmw.pd);
}

static inline enum ib_qp_type qp_type(struct rxe_qp *qp)
{
	return qp->ibqp.qp_type;
}

static inline u32 qp_num(struct rxe_qp *qp)
{
	return qp->ibqp.qp_num;
}

static inline enum ib_qp_state qp_state(struct rxe_qp *qp)
{
	return qp->attr.qp_state;
}

static inline unsigned int qp_mtu(struct rxe_qp *qp)
{
	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC)
		return qp->attr.path_mtu;
	return IB_MTU_4096;
}

#endif /* RXE_VERBS_H */
