/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private state of the MAD layer (mad.c): the GSI QP of every MAD-capable
 * port and the SMI QP of an InfiniBand one, the agents registered on them
 * and their outstanding sends; kernel RMPP (mad_rmpp.c) keeps its
 * transfers in the same structures, the SMI (mad_smi.c) its local SMPs.
 */
#ifndef RDMA_KMOD_MAD_PRIV_H
#define RDMA_KMOD_MAD_PRIV_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

/*
 * Receive buffers kept posted on each GSI QP and the send queue depth: the
 * stock defaults, so the CQ and QP sizes in rdma res match.
 */
#define IB_MAD_RECV_DEPTH	512
#define IB_MAD_SEND_DEPTH	128

/* Segments an RMPP receiver lets the sender have in flight. */
#define IB_MAD_RMPP_WINDOW	(IB_MAD_RECV_DEPTH / 8)

/* The registration flags ib_register_mad_agent() accepts. */
#define IB_MAD_REG_FLAGS_MASK	IB_MAD_USER_RMPP

struct ib_mad_port;

/* One management QP of a port (QP0 or QP1) and its rings. */
struct ib_mad_queue {
	struct ib_mad_port	*port;
	struct ib_qp		*qp;		/* NULL: the port has no such QP */
	struct ib_mad_agent	*reply_agent;	/* IB: answers for the port */

	/* under port->lock */
	struct list_head	recv_posted;	/* buffers owned by the QP */
	unsigned int		recv_count;
	unsigned int		send_count;	/* WRs on the send queue */
	struct list_head	send_overflow;	/* waiting for send queue room */

	/* retries a refill that found no memory (no completion will) */
	struct delayed_work	refill_work;
};

/* One MAD-capable port: its PD, CQ, QP1 (and QP0) and registered agents. */
struct ib_mad_port {
	struct list_head	list;		/* ib_mad_port_list */
	struct ib_device	*device;
	u32			port_num;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_mad_queue	gsi;
	struct ib_mad_queue	smi;

	spinlock_t		lock;		/* everything below, queues' rings */
	struct list_head	agents;
	bool			dying;

	/* QP0 sends that do not go to the QP as they are (mad_smi.c) */
	struct list_head	smi_jobs;
	struct work_struct	smi_work;
	atomic64_t		smi_drops;	/* SMPs the DR rules discarded */
};

/* Where a QP0 send goes once the SMI looked at it (mad_smi.c). */
enum mad_smi_route {
	MAD_ROUTE_WIRE,		/* to the QP as it is */
	MAD_ROUTE_LOCAL,	/* to this node's SMA/SM: never on the wire */
	MAD_ROUTE_DISCARD,	/* dropped and counted; the send "completes" */
	MAD_ROUTE_BY_LID,	/* LID-routed: local if to our own LID */
};

struct ib_mad_agent_priv {
	struct ib_mad_agent	agent;
	struct ib_mad_reg_req	*reg_req;	/* NULL: responses only */
	struct ib_mad_port	*port;
	struct ib_mad_queue	*queue;		/* &port->gsi or &port->smi */
	struct list_head	port_entry;

	spinlock_t		lock;		/* send_list, wr state */
	struct list_head	send_list;	/* outstanding send_wrs */
	struct delayed_work	timed_work;	/* response timeouts */
	struct list_head	rmpp_recvs;	/* RMPP receptions (mad_rmpp.c) */
	struct delayed_work	rmpp_work;	/* their expiry */
	bool			dying;

	refcount_t		refcount;
	struct completion	comp;
};

/*
 * An outstanding send. It stays on the agent's send_list until done: the
 * send WR completed (or never reached the QP) and no response is awaited
 * any more (answered, timed out or cancelled).
 */
struct ib_mad_send_wr_priv {
	struct ib_mad_send_buf	send_buf;
	struct ib_mad_agent_priv *agent_priv;
	struct list_head	agent_list;	/* agent's send_list */
	struct list_head	port_list;	/* send_overflow or smi_jobs */
	struct ib_cqe		cqe;
	struct ib_ud_wr		wr;
	struct ib_sge		sge;
	u64			dma_addr;
	__be64			tid;
	u32			remote_qpn;
	u16			pkey_index;

	unsigned long		expires;	/* jiffies, when awaiting */
	unsigned long		timeout;	/* jiffies per attempt */
	int			retries_left;
	enum ib_wc_status	status;
	bool			on_qp;		/* send not completed yet */
	bool			wait_resp;	/* response still awaited */
	bool			in_handler;	/* response being delivered */
	bool			overflow;	/* on port->send_overflow */
	bool			posted_once;
	u8			smi_route;	/* enum mad_smi_route (QP0) */

	/*
	 * Kernel RMPP (mad_rmpp.c), under the agent lock. mad[] is then
	 * the wire image of the segment being sent, its data copied from
	 * seg_data while the send is off the QP.
	 */
	bool			rmpp;		/* an active RMPP transfer */
	bool			rmpp_ctl;	/* our ACK, STOP or ABORT */
	u8			*seg_data;	/* seg_count * seg_size bytes */
	u32			seg_sent;	/* last segment put on the QP */
	u32			seg_acked;	/* last one acknowledged */
	u32			seg_window;	/* NewWindowLast granted */
	int			max_retries;	/* retries per window */

	u8			mad[IB_MGMT_MAD_SIZE] __aligned(8);
};

/* A receive buffer: network header area + one MAD. */
struct ib_mad_recv_priv {
	struct list_head	list;		/* queue->recv_posted */
	struct ib_mad_port	*port;
	struct ib_mad_queue	*queue;
	bool			local;		/* an SMP that never left the node */
	struct ib_cqe		cqe;
	u64			dma_addr;
	struct ib_wc		wc;
	struct ib_mad_recv_wc	recv_wc;
	struct {
		struct ib_grh	grh;
		u8		mad[IB_MGMT_MAD_SIZE];
	} buf;
};

extern struct workqueue_struct *ib_mad_wq;
/* every open port (mad.c); the lock is taken with interrupts on */
extern struct list_head ib_mad_port_list;
extern spinlock_t ib_mad_port_list_lock;

static inline void agent_get(struct ib_mad_agent_priv *priv)
{
	refcount_inc(&priv->refcount);
}

static inline void agent_put(struct ib_mad_agent_priv *priv)
{
	if (refcount_dec_and_test(&priv->refcount))
		complete(&priv->comp);
}

static inline bool send_wr_idle(const struct ib_mad_send_wr_priv *wr)
{
	return !wr->on_qp && !wr->wait_resp && !wr->in_handler;
}

/* mad.c */
void mad_complete_send(struct ib_mad_send_wr_priv *wr);
int mad_post_wr(struct ib_mad_queue *queue, struct ib_mad_send_wr_priv *wr);
void mad_wr_send_completed(struct ib_mad_send_wr_priv *wr,
			   enum ib_wc_status status);
void mad_handle_recv(struct ib_mad_queue *queue, struct ib_mad_recv_priv *rp);
void mad_arm_timer(struct ib_mad_agent_priv *priv, unsigned long expires);
void mad_repost(struct ib_mad_send_wr_priv *wr);
int mad_wc_sgid(const struct ib_wc *wc, const struct ib_grh *grh,
		union ib_gid *sgid);

/* mad_smi.c */
int mad_smi_send_route(struct ib_mad_port *port,
		       struct ib_mad_send_wr_priv *wr);
void mad_smi_queue_job(struct ib_mad_port *port,
		       struct ib_mad_send_wr_priv *wr);
bool mad_smi_recv_ok(struct ib_mad_port *port, struct ib_smp *smp);
void mad_smi_work(struct work_struct *work);
void mad_smi_debugfs_init(void);
void mad_smi_debugfs_exit(void);

/* mad_rmpp.c */
int mad_rmpp_alloc_send(struct ib_mad_send_wr_priv *wr, gfp_t gfp);
void *mad_rmpp_segment(struct ib_mad_send_wr_priv *wr, int seg_num);
void mad_rmpp_start_send(struct ib_mad_send_wr_priv *wr);
bool mad_rmpp_next_seg(struct ib_mad_send_wr_priv *wr);
void mad_rmpp_rewind(struct ib_mad_send_wr_priv *wr);
void mad_rmpp_ctl_sent(struct ib_mad_send_wr_priv *wr);
struct ib_mad_recv_priv *mad_rmpp_recv(struct ib_mad_agent_priv *priv,
				       struct ib_mad_recv_priv *rp);
void mad_rmpp_agent_init(struct ib_mad_agent_priv *priv);
void mad_rmpp_agent_stop(struct ib_mad_agent_priv *priv);

#endif /* RDMA_KMOD_MAD_PRIV_H */
