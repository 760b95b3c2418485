/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The server transport's objects, shared by the svc_*.c files: one
 * struct svcr_xprt per listener or connection (embedding the sunrpc
 * svc_xprt), and the receive and send contexts a connection owns.
 */
#ifndef RDMA_KMOD_SVC_CONN_H
#define RDMA_KMOD_SVC_CONN_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/rpc_rdma.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

/* Receives posted beyond the credits granted (room for a reposting lag). */
#define SVCR_RECV_EXTRA		8
/* Send contexts beyond the credits (error replies, a reply racing a repost). */
#define SVCR_SEND_EXTRA		8
/*
 * Callbacks outstanding on the backchannel (svc_backchannel.c): receives
 * for their replies are posted beyond the credits too.
 */
#define SVCR_BC_REQS		2
/* Linux clients never send more than 16 segments in a header (7.6). */
#define SVCR_MAX_SEGS		16
/* The listen backlog of 7.5. */
#define SVCR_LISTEN_BACKLOG	10

struct svcr_xprt;

/* One receive buffer; on the rq_xprt_ctxt of a request while it runs. */
struct svcr_recv {
	struct list_head	node;		/* free or ready list */
	struct ib_cqe		cqe;
	struct svcr_xprt	*conn;
	void			*buf;
	u64			dma;
	u32			len;		/* bytes received */
	/* what the header parser found, as offsets into buf */
	u32			hdr_len;	/* transport header length */
	u32			wlist_off;	/* first write chunk, 0 = none */
	u32			wlist_cnt;
	u32			rchunk_off;	/* reply chunk's count word, 0 = none */
	u32			rlist_cnt;	/* read chunk segments */
	__be32			proc;
	/* the reply's DDP payload for the first Write chunk (result_payload) */
	bool			pay_set;
	u32			pay_off;
	u32			pay_len;
};

/* One RDMA Read or Write context: one chunk segment. */
struct svcr_rw {
	struct list_head	node;
	struct rdma_rw_ctx	ctx;
	struct scatterlist	*sg;
	u32			nents;
	enum dma_data_direction	dir;
};

/* A byte range of an xdr_buf. */
struct svcr_range {
	u32			off;
	u32			len;
};

/* One send buffer with its transport header and the inline RPC reply. */
struct svcr_send {
	struct list_head	node;
	struct ib_cqe		cqe;
	struct svcr_xprt	*conn;
	void			*buf;
	u64			dma;
	struct ib_sge		sge;
	struct ib_send_wr	wr;
	unsigned int		sq_wrs;		/* send queue slots this send holds */
	struct list_head	rw_list;	/* RDMA Writes ahead of this Send */
	struct completion	done;		/* for a sender that must wait */
	bool			waited;
};

struct svcr_xprt {
	struct svc_xprt		xprt;
	struct rdma_cm_id	*cm_id;
	bool			listener;

	/* protects the lists, and the flags below on a listener */
	spinlock_t		lock;
	struct list_head	pending;	/* listener: connections to accept */
	struct list_head	pending_node;	/* connection: on the listener's */
	bool			closing;	/* svc is tearing this down */
	bool			peer_gone;	/* CM said goodbye before accept */
	bool			accepted;	/* svc_xprt initialised, accept sent */
	bool			xprt_inited;	/* svc_xprt_init() done */

	/* what the client's CM private data said (7.5) */
	unsigned int		peer_recv_size;	/* largest reply it takes inline */
	bool			snd_w_inv_ok;
	u32			sq_size;	/* send queue slots in all */
	u8			initiator_depth;

	/* connection resources */
	struct ib_device	*dev;
	u32			port_num;
	struct ib_pd		*pd;
	struct ib_cq		*rcq;
	struct ib_cq		*scq;
	struct ib_qp		*qp;
	u32			credits;	/* granted in every reply */
	u32			recv_size;	/* our inline receive size */
	u32			send_size;	/* our inline send size */
	u32			rq_depth;	/* receives kept posted */
	atomic_t		rq_posted;

	struct svcr_recv	*recvs;
	u32			nr_recvs;
	struct list_head	recv_free;
	struct list_head	recv_ready;	/* completed, waiting for recvfrom */

	struct svcr_send	*sends;
	u32			nr_sends;
	struct list_head	send_free;
	atomic_t		sq_avail;
	wait_queue_head_t	send_wait;
	struct list_head	rw_orphans;	/* see svcr_rw_orphan() */

	struct work_struct	free_work;
};

static inline struct svcr_xprt *to_svcr(struct svc_xprt *xprt)
{
	return container_of(xprt, struct svcr_xprt, xprt);
}

/* svc_transport.c */
extern struct svc_xprt_class svcr_class;
extern struct workqueue_struct *svcr_wq;

/* svc_sysctl.c: the tunables (read at accept) and the counters */
extern int svcr_max_requests;
extern int svcr_max_req_size;
extern int svcr_max_ord;
void svcr_count_recv(void);
void svcr_count_read(void);
void svcr_count_write(void);
void svcr_count_sq_starve(void);
int svcr_sysctl_init(void);
void svcr_sysctl_exit(void);

/* svc_listen.c */
struct svc_xprt *svcr_create(struct svc_serv *serv, struct net *net,
			     struct sockaddr *sa, int salen, int flags);
struct svc_xprt *svcr_accept(struct svc_xprt *xprt);
void svcr_listener_detach(struct svcr_xprt *l);
void svcr_listener_free(struct svcr_xprt *l);

/* svc_qp.c */
int svcr_conn_setup(struct svcr_xprt *conn);
void svcr_conn_teardown(struct svcr_xprt *conn);

/* svc_recv.c */
int svcr_recv_alloc(struct svcr_xprt *conn);
void svcr_recv_free(struct svcr_xprt *conn);
int svcr_recv_refill(struct svcr_xprt *conn);
void svcr_arg_set(struct svc_rqst *rqstp, u32 len);
void svcr_arg_copy(struct svc_rqst *rqstp, u32 pos, const void *src, u32 n);
int svcr_recvfrom(struct svc_rqst *rqstp);
void svcr_release_ctxt(struct svc_xprt *xprt, void *ctxt);

/* svc_rw.c */
int svcr_rw_write_chunk(struct svcr_xprt *conn, const __be32 *chunk,
			const struct xdr_buf *xdr,
			const struct svcr_range *ranges, u32 nranges,
			u32 *lens, struct list_head *list, u32 *sq_wrs);
struct ib_send_wr *svcr_rw_chain(struct svcr_xprt *conn,
				 struct list_head *list,
				 struct ib_send_wr *last, struct ib_cqe *cqe);
void svcr_rw_release(struct svcr_xprt *conn, struct list_head *list);
void svcr_rw_free_one(struct svcr_xprt *conn, struct svcr_rw *rw,
		      bool inited);
void svcr_rw_orphan(struct svcr_xprt *conn, struct list_head *list);

/* svc_read.c */
int svcr_read_chunk(struct svc_rqst *rqstp, struct svcr_recv *rc);

/* svc_send.c */
int svcr_send_alloc(struct svcr_xprt *conn);
void svcr_send_free(struct svcr_xprt *conn);
struct svcr_send *svcr_send_get(struct svcr_xprt *conn);
void svcr_send_put(struct svcr_xprt *conn, struct svcr_send *s);
int svcr_post_send(struct svcr_xprt *conn, struct svcr_send *s, u32 len,
		   bool wait);
int svcr_sq_reserve(struct svcr_xprt *conn, u32 n);
void svcr_sq_release(struct svcr_xprt *conn, u32 n);
int svcr_sendto(struct svc_rqst *rqstp);
int svcr_result_payload(struct svc_rqst *rqstp, unsigned int offset,
			unsigned int length);
void svcr_send_error(struct svcr_xprt *conn, const struct svcr_recv *rc,
		     __be32 err);

/* svc_backchannel.c */
bool svcr_bc_reply(struct svcr_xprt *conn, const struct svcr_recv *rc);
int svcr_bc_init(void);
void svcr_bc_exit(void);

#endif
