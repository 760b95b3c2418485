/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The client transport's own structures, shared by its xprt_*.c files.
 *
 * One rpcrdma_xprt per sunrpc transport. The connection (rdma_cm id, PD,
 * CQs, QP and the DMA-mapped inline buffers) lives in an rpcrdma_ep that
 * is built by the connect worker and torn down whole by ->close, so a
 * reconnect may land on another device.
 */
#ifndef RDMA_KMOD_RPCRDMA_XPRT_RDMA_H
#define RDMA_KMOD_RPCRDMA_XPRT_RDMA_H

#include <linux/completion.h>
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/xprt.h>
#include <linux/sunrpc/rpc_rdma.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* Limits of the 6.1 client (ULP.md 7.3, 7.4) */
#define RPCRDMA_DEF_SLOTS		128
#define RPCRDMA_MIN_SLOTS		4
#define RPCRDMA_MAX_SLOTS		16384
#define RPCRDMA_DEF_INLINE		4096
#define RPCRDMA_MIN_INLINE		1024
#define RPCRDMA_MAX_INLINE		65536
#define RPCRDMA_MAX_PADDING		4096
#define RPCRDMA_MEMREG_FRWR		5
#define RPCRDMA_MEMREG_MAX		6

/* rdma_cm waits: 6.1 resolves with 5 s timeouts */
#define RPCRDMA_RESOLVE_MS		5000
/* a connect the CM never answers is given up after this long */
#define RPCRDMA_CONNECT_WAIT		(30 * HZ)

/* receives kept posted beyond one per slot: server-initiated calls */
#define RPCRDMA_EXTRA_RECVS		8
/* send buffers beyond one per slot: sends still awaiting completion */
#define RPCRDMA_EXTRA_SENDS		8

/*
 * Backchannel (xprt_backchannel.c): session slots offered in CREATE_SESSION,
 * and the most calls the server may have outstanding, which the extra
 * receives and sends above must cover.
 */
#define RPCRDMA_BC_SLOTS		2
#define RPCRDMA_BC_MAX_CREDITS		4

/* tunables, xprt_sysctl.c */
extern unsigned int rpcrdma_slot_table_entries;
extern unsigned int rpcrdma_max_inline_read;
extern unsigned int rpcrdma_max_inline_write;

/* counters printed in the mountstats "xprt: rdma" line, in that order */
struct rpcrdma_stats {
	unsigned long read_chunk_count;
	unsigned long write_chunk_count;
	unsigned long reply_chunk_count;
	unsigned long long total_rdma_request;
	unsigned long long total_rdma_reply;
	unsigned long long pullup_copy_count;
	unsigned long long fixup_copy_count;
	unsigned long hardway_register_count;
	unsigned long failed_marshal_count;
	unsigned long bad_reply_count;
	unsigned long nomsg_call_count;
	unsigned long mrs_recycled;
	unsigned long mrs_orphaned;
	unsigned long mrs_allocated;
	unsigned long local_inv_needed;
	unsigned long empty_sendctx_q;
};

struct rpcrdma_ep;

/* a chunk's page list holds at most a 1 MiB payload plus a page */
#define RPCRDMA_MAX_PAGES		257
/* one xdr_buf is registered as up to three regions: head, pages, tail */
#define RPCRDMA_XDR_REGIONS		3
/* a request registers its call (Read chunk) and its reply (Reply chunk) */
#define RPCRDMA_REQ_MAX_MRS		(2 * RPCRDMA_XDR_REGIONS)
/* FRWR MRs per endpoint, per slot */
#define RPCRDMA_MRS_PER_SLOT		2

/* one FRWR memory region, xprt_frwr.c */
struct rpcrdma_mr {
	struct list_head node;		/* ep->mr_free while idle */
	struct list_head all;		/* ep->mr_all, for teardown */
	struct ib_mr *mr;
	struct scatterlist *sgl;
	int nents;			/* DMA-mapped entries; 0 if none */
	enum dma_data_direction dir;
	struct ib_reg_wr reg_wr;
	struct ib_send_wr inv_wr;
};

/* an RDMA segment as it goes on the wire */
struct rpcrdma_seg {
	u32 handle;
	u32 length;
	u64 offset;
};

/*
 * The chunks one request registered on one connection: the call as a
 * position-zero Read chunk, the reply buffer as a Reply chunk. Found by
 * rqst in rx->chunks; its MRs are live only while ep_gen is rx->ep_gen.
 */
struct rpcrdma_chunks {
	struct hlist_node node;
	struct rpc_rqst *rqst;
	struct rpcrdma_xprt *rx;
	u64 ep_gen;
	struct rpcrdma_mr *mrs[RPCRDMA_REQ_MAX_MRS];
	struct rpcrdma_seg segs[RPCRDMA_REQ_MAX_MRS];
	unsigned int nr_read;		/* mrs[0, nr_read): the call */
	unsigned int nr_mrs;		/* mrs[nr_read, nr_mrs): the reply */
	/* the signaled LOCAL_INV that ends the registration */
	struct ib_cqe inv_cqe;
	struct completion inv_done;
	bool complete_rpc;		/* its completion completes the RPC */
	unsigned int copied;		/* reply length for that completion */
};

/* a receive buffer, posted for the whole life of its endpoint */
struct rpcrdma_rbuf {
	struct ib_cqe cqe;
	struct rpcrdma_ep *ep;
	void *buf;
	u64 dma;
	struct ib_sge sge;
	struct ib_recv_wr wr;
};

/* a send buffer: transport header and the pulled-up RPC call */
struct rpcrdma_sbuf {
	struct ib_cqe cqe;
	struct rpcrdma_ep *ep;
	struct list_head node;		/* on ep->sbuf_free while idle */
	void *buf;
	u64 dma;
	struct ib_sge sge;
	struct ib_send_wr wr;
};

struct rpcrdma_ep {
	struct rpcrdma_xprt *rx;
	struct rdma_cm_id *id;
	struct ib_device *device;	/* id's, from route resolution on */
	struct ib_pd *pd;
	struct ib_cq *scq;
	struct ib_cq *rcq;
	atomic_t broken;		/* close already asked for */

	/* the connect worker waits here for the CM event it asked for */
	struct completion cm_done;
	int cm_status;
	/* set by the CM handler once the connection is up */
	bool established;
	struct rpcrdma_connect_private peer_priv;
	bool peer_priv_valid;
	/* our side of the CM private data; kept for the whole connect */
	struct rpcrdma_connect_private our_priv;

	unsigned int max_requests;	/* credits we ask for */
	unsigned int recv_size;		/* our receive buffers */
	unsigned int send_size;		/* our send buffers */
	unsigned int inline_send;	/* largest call sent inline */
	unsigned int inline_recv;	/* largest reply the peer may send inline */

	struct rpcrdma_rbuf *rbufs;
	unsigned int nr_rbufs;
	struct rpcrdma_sbuf *sbufs;
	unsigned int nr_sbufs;
	spinlock_t sbuf_lock;		/* sbuf_free */
	struct list_head sbuf_free;

	/* FRWR, xprt_frwr.c */
	spinlock_t mr_lock;		/* mr_free */
	struct list_head mr_free;
	struct list_head mr_all;
	unsigned int mr_depth;		/* pages one MR maps */
	/* completions of unsignaled WRs only come when flushed */
	struct ib_cqe flush_cqe;
};

struct rpcrdma_xprt {
	struct rpc_xprt xprt;		/* first: xprt_alloc() sizes us */
	/*
	 * Changed only by the connect worker and ->close, both of which
	 * hold XPRT_LOCKED; senders hold it too.
	 */
	struct rpcrdma_ep *ep;
	/*
	 * Taken by whoever sets or clears ep, and by buf_free when it must
	 * invalidate a request's MRs; ep_gen counts endpoints torn down.
	 */
	struct mutex ep_mutex;
	u64 ep_gen;
	spinlock_t chunks_lock;		/* chunks */
	DECLARE_HASHTABLE(chunks, 6);
	struct delayed_work connect_work;
	bool was_connected;		/* a later connect is a reconnect */
	unsigned int max_requests;

	spinlock_t stats_lock;		/* stats, srcaddr */
	struct rpcrdma_stats stats;
	struct sockaddr_storage srcaddr;

	/* backchannel pool counts, under xprt.bc_pa_lock */
	unsigned int bc_wanted;		/* rqsts the sessions asked for */
	unsigned int bc_total;		/* allocated: idle or with the service */
	unsigned long bc_dropped;	/* calls that could not be queued */
	/* min(inline_send, inline_recv) of the last connection, or 0 */
	unsigned int bc_inline;
};

static inline struct rpcrdma_xprt *rpcx(struct rpc_xprt *xprt)
{
	return container_of(xprt, struct rpcrdma_xprt, xprt);
}

/* xprt_conn.c */
int rpcrdma_conn_init(void);
void rpcrdma_conn_exit(void);
void rpcrdma_conn_setup(struct rpcrdma_xprt *rx);
void rpcrdma_conn_schedule(struct rpcrdma_xprt *rx, unsigned long delay);
void rpcrdma_conn_cancel(struct rpcrdma_xprt *rx);
void rpcrdma_ep_destroy(struct rpcrdma_xprt *rx);
int rpcrdma_post_recv(struct rpcrdma_ep *ep, struct rpcrdma_rbuf *rb);
struct rpcrdma_sbuf *rpcrdma_sbuf_get(struct rpcrdma_ep *ep);
void rpcrdma_sbuf_put(struct rpcrdma_ep *ep, struct rpcrdma_sbuf *sb);
void rpcrdma_conn_broken(struct rpcrdma_ep *ep, const char *what, int status);

/* xprt_frwr.c */
int rpcrdma_mrs_create(struct rpcrdma_ep *ep, unsigned int count);
void rpcrdma_mrs_destroy(struct rpcrdma_ep *ep);
int rpcrdma_register_xdr(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck,
			 struct xdr_buf *xdr, unsigned int len, bool reply,
			 struct ib_send_wr ***chain);
void rpcrdma_chunks_unmap(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck);
int rpcrdma_chunks_invalidate(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck,
			      u32 done_rkey);
struct rpcrdma_chunks *rpcrdma_chunks_find(struct rpcrdma_xprt *rx,
					   struct rpc_rqst *rqst);
void rpcrdma_chunks_forget(struct rpcrdma_xprt *rx, struct rpcrdma_chunks *ck);
void rpcrdma_buf_free(struct rpc_task *task);

/* xprt_marshal.c */
int rpcrdma_marshal_and_send(struct rpcrdma_xprt *rx, struct rpc_rqst *rqst);
int rpcrdma_send_inline(struct rpcrdma_xprt *rx, struct rpcrdma_ep *ep,
			struct rpc_rqst *rqst, u32 credits);
int rpcrdma_bc_send_reply(struct rpcrdma_xprt *rx, struct rpc_rqst *rqst);

/* xprt_backchannel.c: NFSv4.1+ callbacks on our connection (RFC 8167) */
#if IS_ENABLED(CONFIG_SUNRPC_BACKCHANNEL)
int rpcrdma_bc_setup(struct rpc_xprt *xprt, unsigned int min_reqs);
void rpcrdma_bc_destroy(struct rpc_xprt *xprt, unsigned int max_reqs);
void rpcrdma_bc_free_rqst(struct rpc_rqst *rqst);
size_t rpcrdma_bc_maxpayload(struct rpc_xprt *xprt);
unsigned int rpcrdma_bc_num_slots(struct rpc_xprt *xprt);
void rpcrdma_bc_release_all(struct rpcrdma_xprt *rx);
u32 rpcrdma_bc_credits(struct rpcrdma_xprt *rx);
void rpcrdma_bc_call_received(struct rpcrdma_xprt *rx, const void *msg,
			      unsigned int len);
#else
static inline void rpcrdma_bc_release_all(struct rpcrdma_xprt *rx)
{
}

static inline u32 rpcrdma_bc_credits(struct rpcrdma_xprt *rx)
{
	return 1;
}

static inline void rpcrdma_bc_call_received(struct rpcrdma_xprt *rx,
					    const void *msg, unsigned int len)
{
}
#endif

/* xprt_reply.c */
void rpcrdma_reply_received(struct rpcrdma_ep *ep, void *buf,
			    const struct ib_wc *wc);
void rpcrdma_reply_invalidated(struct ib_cq *cq, struct ib_wc *wc);

/* xprt_sysctl.c */
int rpcrdma_sysctl_init(void);
void rpcrdma_sysctl_exit(void);

#endif
