/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private state of the MAD layer (mad.c): one GSI QP per MAD-capable port,
 * the agents registered on it and their outstanding sends.
 */
#ifndef RDMA_KMOD_MAD_PRIV_H
#define RDMA_KMOD_MAD_PRIV_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>

/*
 * Receive buffers kept posted on each GSI QP and the send queue depth: the
 * stock defaults, so the CQ and QP sizes in rdma res match.
 */
#define IB_MAD_RECV_DEPTH	512
#define IB_MAD_SEND_DEPTH	128

/* The registration flags ib_register_mad_agent() accepts. */
#define IB_MAD_REG_FLAGS_MASK	IB_MAD_USER_RMPP

/* One MAD-capable port: its PD, CQ, GSI QP and registered agents. */
struct ib_mad_port {
	struct list_head	list;		/* ib_mad_port_list */
	struct ib_device	*device;
	u32			port_num;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct ib_mad_agent	*reply_agent;	/* IB: answers nobody's MADs */

	spinlock_t		lock;		/* everything below */
	struct list_head	agents;
	struct list_head	recv_posted;	/* buffers owned by the QP */
	unsigned int		recv_count;
	unsigned int		send_count;	/* WRs on the send queue */
	struct list_head	send_overflow;	/* waiting for send queue room */
	bool			dying;
};

struct ib_mad_agent_priv {
	struct ib_mad_agent	agent;
	struct ib_mad_reg_req	*reg_req;	/* NULL: responses only */
	struct ib_mad_port	*port;
	struct list_head	port_entry;

	spinlock_t		lock;		/* send_list, wr state */
	struct list_head	send_list;	/* outstanding send_wrs */
	struct delayed_work	timed_work;	/* response timeouts */
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
	struct list_head	port_list;	/* port's send_overflow */
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

	u8			mad[IB_MGMT_MAD_SIZE] __aligned(8);
};

/* A receive buffer: network header area + one MAD. */
struct ib_mad_recv_priv {
	struct list_head	list;		/* port->recv_posted */
	struct ib_mad_port	*port;
	struct ib_cqe		cqe;
	u64			dma_addr;
	struct ib_wc		wc;
	struct ib_mad_recv_wc	recv_wc;
	struct {
		struct ib_grh	grh;
		u8		mad[IB_MGMT_MAD_SIZE];
	} buf;
};

#endif /* RDMA_KMOD_MAD_PRIV_H */
