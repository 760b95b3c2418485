/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw: Soft-iWARP. One RDMA device per Ethernet netdev; RDMAP/DDP/MPA over
 * in-kernel TCP sockets. Objects, their locking rules and the functions the
 * files share. Who owns what:
 *
 *   siw_main.c       module, parameters, `rdma link add`, netdev events
 *   siw_verbs.c      device/port queries, contexts, PDs, the ops table
 *   siw_mmap.c       rings shared with libsiw and their mmap keys
 *   siw_cq.c         CQs: CQE ring, poll, notification word
 *   siw_srq.c        shared receive queues
 *   siw_mem.c        STags: user, DMA and fast-registration MRs
 *   siw_qp.c         QP objects, the iWARP state machine, flushing
 *   siw_post.c       kernel consumers' post_send/post_recv
 *   siw_tx.c         per-QP transmit work: FPDUs, read responses
 *   siw_rx.c         per-QP receive work: FPDU parser and placement
 *   siw_term.c       Terminate messages out and in
 *   siw_cm.c         iw_* methods: listen, connect, accept, reject, close
 *   siw_mpa.c        MPA request/reply frames
 *   siw_hw_counters.c  `rdma statistic` counters
 */
#ifndef SIW_H
#define SIW_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/ib_umem.h>
#include <rdma/iw_cm.h>
#include <uapi/rdma/siw-abi.h>
#include "iwarp.h"

#define SIW_VENDOR_ID		0x626d74	/* "bmt", as upstream */
#define SIW_NODE_DESC		SIW_NODE_DESC_COMMON
#define SIW_MAX_QP		(1024 * 100)
#define SIW_MAX_QP_WR		(1024 * 32)
#define SIW_MAX_ORD_QP		128
#define SIW_MAX_IRD_QP		128
#define SIW_MAX_SGE_RD		1	/* a Read Request has one sink */
#define SIW_MAX_CQ		(1024 * 100)
#define SIW_MAX_CQE		(SIW_MAX_QP_WR * 100)
#define SIW_MAX_MR		(SIW_MAX_QP * 10)
#define SIW_MAX_PD		SIW_MAX_QP
#define SIW_MAX_SRQ		SIW_MAX_QP
#define SIW_MAX_SRQ_WR		(SIW_MAX_QP_WR * 10)
#define SIW_MAX_CONTEXT		SIW_MAX_PD
#define SIW_MAX_FAST_REG_PAGES	256
#define SIW_MAX_MR_SIZE		(~0ULL)
#define SIW_PORT_GID_TBL_LEN	1

/* MPA exchange: how long a peer may take to answer. */
#define SIW_MPA_TIMEOUT		(20 * HZ)

/* Module parameters (siw_main.c), upstream names and defaults. */
extern bool siw_mpa_crc_required;
extern bool siw_mpa_crc_strict;
extern bool siw_tcp_nagle;
extern bool siw_peer_to_peer;
extern u8 siw_mpa_version;

/* Zero-copy transmit switch and its counters (siw_debugfs.c). */
extern bool siw_zcopy;
extern atomic64_t siw_zcopy_pages;
extern atomic64_t siw_zcopy_bytes;
void siw_debugfs_init(void);
void siw_debugfs_exit(void);

extern struct workqueue_struct *siw_wq;		/* QP tx/rx work */
extern struct workqueue_struct *siw_cm_wq;	/* connection setup */

/* ---- counters (`rdma statistic show link siwN/1`) ---- */

enum siw_counter {
	SIW_CNT_RX_FPDUS,
	SIW_CNT_TX_FPDUS,
	SIW_CNT_RX_BAD_CRC,
	SIW_CNT_RX_BAD_HDR,		/* version, reserved bits, opcode */
	SIW_CNT_RX_BAD_LEN,		/* ULPDU length vs. header/payload */
	SIW_CNT_RX_BAD_STAG,
	SIW_CNT_RX_BAD_BOUNDS,
	SIW_CNT_RX_BAD_ACCESS,
	SIW_CNT_RX_BAD_QN,
	SIW_CNT_RX_BAD_MSN,
	SIW_CNT_RX_BAD_MO,
	SIW_CNT_RX_NO_RQE,
	SIW_CNT_RX_TOO_LONG,
	SIW_CNT_RX_IRD_EXCEEDED,
	SIW_CNT_RX_UNEXPECTED_RESP,
	SIW_CNT_TERM_SENT,
	SIW_CNT_TERM_RCVD,
	SIW_CNT_MPA_BAD_KEY,
	SIW_CNT_MPA_BAD_REV,
	SIW_CNT_MPA_MARKERS,
	SIW_CNT_MPA_BAD_PDLEN,
	SIW_CNT_MPA_CRC_MISMATCH,
	SIW_CNT_MPA_REJECT_SENT,
	SIW_CNT_MPA_REJECT_RCVD,
	SIW_CNT_MPA_TIMEOUT,
	SIW_CNT_CONN_ABORTED,
	SIW_NUM_COUNTERS
};

/* ---- device ---- */

struct siw_device {
	struct ib_device base_dev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct ib_device_attr attrs;
	u32 vendor_part_id;

	spinlock_t lock;		/* port state, cep list */
	enum ib_port_state state;
	struct list_head cep_list;	/* every endpoint of this device */
	bool netdev_gone;		/* unregistering: no new endpoints */

	struct xarray qp_xa;		/* QPN -> siw_qp */
	struct xarray mem_xa;		/* STag index -> siw_mem */
	u32 mem_next;

	atomic_t num_ctx;
	atomic_t num_pd;
	atomic_t num_qp;
	atomic_t num_cq;
	atomic_t num_srq;
	atomic_t num_mr;

	atomic64_t cnt[SIW_NUM_COUNTERS];
};

static inline struct siw_device *to_siw_dev(struct ib_device *base)
{
	return container_of(base, struct siw_device, base_dev);
}

static inline void siw_count(struct siw_device *sdev, enum siw_counter c)
{
	atomic64_inc(&sdev->cnt[c]);
}

/* ---- rings shared with userspace (siw_mmap.c) ---- */

/*
 * Ring memory outlives its queue while userspace still maps it: the queue,
 * the key table and every vma each hold a reference.
 */
struct siw_ring {
	struct kref ref;
	void *mem;		/* vmalloc_user() for user, vzalloc() for kernel */
	size_t size;
};

struct siw_ucontext {
	struct ib_ucontext base_ucontext;
	struct siw_device *sdev;
	struct xarray mmap_xa;		/* page offset index -> siw_ring */
};

static inline struct siw_ucontext *to_siw_ctx(struct ib_ucontext *base)
{
	return container_of(base, struct siw_ucontext, base_ucontext);
}

struct siw_ring *siw_ring_alloc(size_t size, bool user);
void siw_ring_put(struct siw_ring *ring);
int siw_ring_publish(struct siw_ucontext *uctx, struct siw_ring *ring,
		     u64 *key);
void siw_ring_unpublish(struct siw_ucontext *uctx, u64 key);
int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);
void siw_mmap_init(struct siw_ucontext *uctx);
void siw_mmap_cleanup(struct siw_ucontext *uctx);

/* ---- PD ---- */

struct siw_pd {
	struct ib_pd base_pd;
};

/* ---- memory (STags) ---- */

enum siw_mem_type {
	SIW_MEM_USER,		/* pinned user pages */
	SIW_MEM_DMA,		/* all of kernel memory (get_dma_mr) */
	SIW_MEM_FAST,		/* fast registration page list */
};

struct siw_mem {
	struct kref ref;
	struct siw_device *sdev;
	struct ib_pd *pd;
	enum siw_mem_type type;
	u32 stag;		/* index << 8 | key */
	bool valid;		/* usable (a fast-reg MR starts invalid) */
	bool is_mr;
	int perms;		/* IB_ACCESS_* */
	u64 va;			/* first byte */
	u64 len;

	/* SIW_MEM_USER */
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	unsigned long first_off;	/* offset of va in pages[0] */

	/*
	 * SIW_MEM_FAST. ib_map_mr_sg() may run while the MR is still valid
	 * (a LOCAL_INV posted, not executed yet): it fills the staged list,
	 * which the REG_MR work request makes current.
	 */
	u64 *pbl;			/* page addresses (kernel virtual) */
	u32 pbl_max;
	u32 pbl_num;
	u32 page_size;
	u64 *pbl_staged;
	u32 pbl_staged_num;
	u32 page_size_staged;
	bool pbl_staged_new;		/* mapped since the last REG_MR */
};

struct siw_mr {
	struct ib_mr base_mr;
	struct siw_mem *mem;
};

static inline struct siw_mr *to_siw_mr(struct ib_mr *base)
{
	return container_of(base, struct siw_mr, base_mr);
}

static inline u32 siw_stag_index(u32 stag)
{
	return stag >> 8;
}

struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg);
int siw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int nents,
		  unsigned int *sg_off);
int siw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);
struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag);
void siw_mem_put(struct siw_mem *mem);
int siw_mem_check(struct siw_mem *mem, struct ib_pd *pd, int perms,
		  u64 addr, u32 len);
void *siw_mem_kmap(struct siw_mem *mem, u64 addr, u32 *chunk,
		   struct page **page);
void siw_mem_kunmap(void *p, struct page *page, bool written);
int siw_mem_copy(struct siw_mem *mem, u64 addr, void *buf, u32 len,
		 bool to_mem);
struct page *siw_mem_page(struct siw_mem *mem, u64 addr, u32 *off,
			  u32 *chunk);
int siw_mem_invalidate(struct siw_device *sdev, struct ib_pd *pd, u32 stag);
int siw_mem_reg(struct siw_device *sdev, struct ib_pd *pd,
		struct ib_mr *ibmr, u32 key, int access);

/* ---- CQ ---- */

struct siw_cq {
	struct ib_cq base_cq;
	spinlock_t lock;
	struct siw_cqe *queue;
	struct siw_cq_ctrl *notify;	/* right behind queue[num_cqe] */
	struct siw_ring *ring;
	u64 key;			/* user mmap key, or SIW_INVAL_UOBJ_KEY */
	u32 num_cqe;
	u32 cq_put;
	u32 cq_get;
	u32 id;
	bool kernel_verbs;
};

static inline struct siw_cq *to_siw_cq(struct ib_cq *base)
{
	return container_of(base, struct siw_cq, base_cq);
}

int siw_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int siw_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int siw_poll_cq(struct ib_cq *cq, int num, struct ib_wc *wc);
int siw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

/* ---- SRQ ---- */

struct siw_srq {
	struct ib_srq base_srq;
	spinlock_t lock;
	struct siw_rqe *recvq;
	struct siw_ring *ring;
	u64 key;
	u32 num_rqe;
	u32 rq_put;		/* kernel consumers */
	u32 rq_get;
	u32 max_sge;
	u32 limit;
	bool armed;		/* limit event pending */
	bool kernel_verbs;
};

static inline struct siw_srq *to_siw_srq(struct ib_srq *base)
{
	return container_of(base, struct siw_srq, base_srq);
}

int siw_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int siw_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siw_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int siw_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int siw_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);

/* ---- QP ---- */

/* The iWARP QP states (RFC 5040 §6.1 verbs model). */
enum siw_qp_state {
	SIW_QP_STATE_IDLE,	/* RESET, INIT */
	SIW_QP_STATE_RTR,
	SIW_QP_STATE_RTS,	/* connected */
	SIW_QP_STATE_CLOSING,	/* SQD: graceful close in progress */
	SIW_QP_STATE_TERMINATE,	/* a Terminate is going out */
	SIW_QP_STATE_ERROR,
};

/*
 * A work request the kernel took over from a ring: a private copy, so a
 * user rewriting its ring cannot change what is being processed, plus the
 * memory references its SGEs resolved to.
 */
struct siw_wqe {
	struct siw_sqe sqe;		/* an RQE is kept in the same layout */
	struct siw_mem *mem[SIW_MAX_SGE];
	u32 bytes;			/* total length */
	u32 processed;			/* bytes sent / placed so far */
	u16 status;			/* enum siw_wc_status */
	bool active;
};

/*
 * One piece of the byte stream being sent: bytes of the tx buffer, or
 * payload handed to TCP by page reference (zero copy; the segment holds
 * a page reference until it is reset).
 */
struct siw_tx_seg {
	struct page *page;		/* NULL: tx buffer at off */
	u32 off;
	u32 len;
};

#define SIW_TX_MAX_SEGS		128

/* What the transmit side is working on. */
enum siw_tx_kind {
	SIW_TX_NONE,
	SIW_TX_SQE,		/* a Send/Write/Read Request of the SQ */
	SIW_TX_READ_RESP,	/* an inbound Read Request being answered */
};

struct siw_tx_ctx {
	enum siw_tx_kind kind;
	struct siw_wqe wqe;		/* SQ work request in flight */
	struct siw_sqe rresp;		/* read response in flight */
	struct siw_mem *rresp_mem;
	u32 rresp_done;
	u32 msn[RDMAP_UNTAGGED_QN_COUNT];	/* last MSN sent per queue */
	u8 *buf;			/* headers, copied payload, trailers */
	u32 buf_len;			/* bytes of buf in use */
	/* what goes to TCP next, in order; a cursor resumes after -EAGAIN */
	struct siw_tx_seg seg[SIW_TX_MAX_SEGS];
	u16 nseg;
	u16 seg_cur;			/* segment being sent */
	u32 seg_sent;			/* bytes of seg[seg_cur] already sent */
	bool sq_fenced;			/* waiting for reads before a fence */
};

/* What the receive side is parsing. */
enum siw_rx_state {
	SIW_RX_HDR,		/* collecting the DDP/RDMAP header */
	SIW_RX_DATA,		/* placing payload */
	SIW_RX_TRAILER,		/* pad and CRC */
	SIW_RX_DEAD,		/* stream unusable, discard */
};

#define SIW_RX_HDR_MAX	(sizeof(struct iwarp_read_req) + TERM_MAX_BODY)

struct siw_rx_ctx {
	enum siw_rx_state state;
	u8 hdr[SIW_RX_HDR_MAX];
	u32 hdr_have;
	u32 hdr_len;		/* bytes of header for this opcode */
	u32 fpdu_len;		/* MPA ULPDU length */
	u32 data_left;		/* payload bytes still to place */
	u32 trailer_have;
	u32 pad;
	u8 trailer[4 + MPA_CRC_SIZE];
	u32 crc;
	u8 opcode;
	bool last;
	bool tagged;
	/* placement target of the current segment */
	struct siw_mem *mem;	/* tagged: the STag's memory */
	u64 to;			/* tagged: current target offset */
	struct siw_wqe wqe;	/* untagged Send: the receive WQE */
	bool have_rqe;
	bool rqe_from_srq;
	u32 inval_stag;
	u32 msn[RDMAP_UNTAGGED_QN_COUNT];	/* next MSN expected per queue */
	u32 mo;			/* next MO expected for the current Send */
	bool first_segment;
};

struct siw_term_info {
	u8 layer;
	u8 etype;
	u8 ecode;
	bool valid;
	/* the offending header, echoed back */
	u8 hdr[sizeof(struct iwarp_read_req)];
	u32 hdr_len;
	bool in_tx;		/* a local error, nothing to echo */
};

struct siw_cep;

struct siw_qp {
	struct ib_qp base_qp;
	struct siw_device *sdev;
	struct kref ref;
	struct completion qp_free;
	u32 id;

	spinlock_t lock;		/* state, sq_put, rq_put, conn */
	struct mutex modify_mutex;	/* serialises modify_qp */
	enum siw_qp_state state;
	enum ib_qp_state ib_state;	/* what query_qp reports */
	bool kernel_verbs;
	bool sig_all;
	int access;			/* IB_ACCESS_* remote rights */

	/* queues */
	struct siw_sqe *sendq;
	struct siw_ring *sq_ring;
	u64 sq_key;
	u32 num_sqe;
	u32 sq_put;			/* kernel posters */
	u32 sq_get;			/* tx work */
	u32 max_send_sge;
	u32 max_inline;

	struct siw_rqe *recvq;
	struct siw_ring *rq_ring;
	u64 rq_key;
	u32 num_rqe;
	u32 rq_put;
	u32 rq_get;			/* rx work */
	u32 max_recv_sge;
	struct siw_srq *srq;

	struct siw_cq *scq;
	struct siw_cq *rcq;

	/* outbound reads waiting for a response (tx adds, rx removes) */
	spinlock_t orq_lock;
	struct siw_sqe *orq;
	u32 orq_size;			/* ORD */
	u32 orq_put;
	u32 orq_get;

	/* inbound reads to answer (rx adds, tx removes) */
	spinlock_t irq_lock;
	struct siw_sqe *irq;
	u32 irq_size;			/* IRD */
	u32 irq_put;
	u32 irq_get;

	/* connection: set when the CM moves the QP to RTS */
	struct siw_cep *cep;
	struct socket *sock;
	bool mpa_crc;
	bool rtr_wait;			/* peer-to-peer: no sends before RTR */
	u16 rtr_ord_flags;		/* RTR we owe (MPA_V2_*_RTR), initiator */

	struct work_struct tx_work;
	struct siw_tx_ctx tx;
	struct work_struct rx_work;
	struct siw_rx_ctx rx;

	spinlock_t term_lock;
	struct siw_term_info term;	/* Terminate to send */
	bool term_sent;
	bool term_rcvd;
	u8 term_read_status;	/* the peer refused our oldest READ: its wc */
};

static inline struct siw_qp *to_siw_qp(struct ib_qp *base)
{
	return container_of(base, struct siw_qp, base_qp);
}

static inline struct siw_device *qp_sdev(struct siw_qp *qp)
{
	return qp->sdev;
}

int siw_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int siw_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
int siw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int siw_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
void siw_qp_get(struct siw_qp *qp);
void siw_qp_put(struct siw_qp *qp);
void siw_iw_add_ref(struct ib_qp *qp);
void siw_iw_rem_ref(struct ib_qp *qp);
struct ib_qp *siw_iw_get_qp(struct ib_device *dev, int id);

/* State machine (siw_qp.c). */
struct siw_conn_params {
	struct socket *sock;
	struct siw_cep *cep;
	u32 ird;
	u32 ord;
	bool crc;
	bool rtr_wait;
	u16 rtr_ord_flags;
};
int siw_qp_connect(struct siw_qp *qp, const struct siw_conn_params *p);
void siw_qp_error(struct siw_qp *qp);
void siw_qp_llp_close(struct siw_qp *qp);
bool siw_qp_state_is(struct siw_qp *qp, enum siw_qp_state state);
void siw_qp_kick_tx(struct siw_qp *qp);
void siw_qp_kick_rx(struct siw_qp *qp);
void siw_qp_event(struct siw_qp *qp, enum ib_event_type type);
void siw_qp_local_error(struct siw_qp *qp, const struct siw_sqe *sqe,
			enum siw_wc_status status);
void siw_wqe_put_mem(struct siw_wqe *wqe);

/* Completions (siw_cq.c). */
int siw_sqe_complete(struct siw_qp *qp, const struct siw_sqe *sqe, u32 bytes,
		     enum siw_wc_status status);
int siw_rqe_complete(struct siw_qp *qp, const struct siw_sqe *rqe, u32 bytes,
		     u32 inval_stag, bool solicited,
		     enum siw_wc_status status);
bool siw_sqe_is_signalled(struct siw_qp *qp, const struct siw_sqe *sqe);

/* Kernel posting (siw_post.c). */
int siw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int siw_post_receive(struct ib_qp *qp, const struct ib_recv_wr *wr,
		     const struct ib_recv_wr **bad_wr);
int siw_rqe_fill(struct siw_rqe *rqe, const struct ib_recv_wr *wr,
		 u32 max_sge);

/* Ring consumption shared by tx, rx and flushing. */
bool siw_sq_peek(struct siw_qp *qp, struct siw_sqe *out);
void siw_sq_consume(struct siw_qp *qp);
bool siw_rq_get(struct siw_qp *qp, struct siw_sqe *out, bool *from_srq);
void siw_sq_flush(struct siw_qp *qp);
void siw_rq_flush(struct siw_qp *qp);

/* Transmit (siw_tx.c) and receive (siw_rx.c). */
void siw_tx_work(struct work_struct *work);
void siw_rx_work(struct work_struct *work);
void siw_tx_ctx_release(struct siw_qp *qp);
void siw_tx_reset(struct siw_qp *qp);
void siw_rx_ctx_release(struct siw_qp *qp);
int siw_tx_init(struct siw_qp *qp);

/* Terminate (siw_term.c). */
void siw_term_set(struct siw_qp *qp, u8 layer, u8 etype, u8 ecode,
		  const void *hdr, u32 hdr_len);
int siw_term_build(struct siw_qp *qp, u8 *buf, u32 size);
void siw_term_rcvd(struct siw_qp *qp, const u8 *body, u32 len);

/* Connection management (siw_cm.c). */
int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw_reject(struct iw_cm_id *id, const void *pdata, u8 plen);
int siw_create_listen(struct iw_cm_id *id, int backlog);
int siw_destroy_listen(struct iw_cm_id *id);
void siw_cm_qp_disconnect(struct siw_qp *qp, bool abrupt);
void siw_cm_qp_detach(struct siw_qp *qp);
void siw_cm_dev_abort(struct siw_device *sdev, bool gone);
int siw_cm_init(void);
void siw_cm_exit(void);
struct seq_file;
void siw_cm_show_endpoints(struct seq_file *m);

/* Counters (siw_hw_counters.c). */
struct rdma_hw_stats *siw_alloc_hw_port_stats(struct ib_device *dev,
					      u32 port);
int siw_get_hw_stats(struct ib_device *dev, struct rdma_hw_stats *stats,
		     u32 port, int index);

/* Verbs of siw_verbs.c used elsewhere. */
int siw_register_device(struct siw_device *sdev, const char *name);
void siw_port_event(struct siw_device *sdev, enum ib_event_type type);

/* CRC32c of MPA (RFC 5044 §6.1), as sent on the wire. */
static inline __le32 siw_crc_final(u32 crc)
{
	return cpu_to_le32(~crc);
}

#define siw_dbg_qp(qp, fmt, ...) \
	ibdev_dbg(&(qp)->sdev->base_dev, "QP[%u] " fmt, (qp)->id, ##__VA_ARGS__)

#endif /* SIW_H */
