// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel ULP self test: what NFS over RDMA, iSER or an NVMe target do,
 * on any device (RoCE or iWARP). A client and a server in this module
 * connect through rdma_cm to addr:port; the client registers a buffer
 * with a fast-registration MR and passes its address and rkey in the
 * connect private data (REG_MR posted once connected); the server receives a Send, then moves data with
 * rdma_rw_ctx (RDMA WRITE into the client's buffer, RDMA READ out of it,
 * through MRs where the device needs them, as on iWARP), and the client
 * disconnects. Every check compares bytes. Loading succeeds only if all
 * checks pass; the verdicts go to the kernel log as
 * "rdma_cm_kern_test: PASS|FAIL ...". With hold=1 the connection and its
 * objects stay until rmmod, for `rdma resource show` to list.
 */
#include <linux/module.h>
#include <linux/inet.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>

MODULE_DESCRIPTION("rdma-kmod kernel rdma_cm/rdma_rw self test (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static char *addr_param = "192.0.2.1";
module_param_named(addr, addr_param, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of the RDMA device to test");
static int port_param = 7470;
module_param_named(port, port_param, int, 0444);
MODULE_PARM_DESC(port, "TCP port space port to listen on");
static bool hold_param;
module_param_named(hold, hold_param, bool, 0444);
MODULE_PARM_DESC(hold, "keep the connection until rmmod (for `rdma res show`)");

#define CLI_BUF		(4 * PAGE_SIZE)	/* client's remotely accessible buffer */
#define XFER_LEN	(2 * PAGE_SIZE + 100)	/* spans several pages */
#define READ_OFF	(2 * PAGE_SIZE + 512)	/* server reads from here on */
#define READ_LEN	1000
#define MSG_LEN		3000
#define TIMEOUT		(20 * HZ)

/* What the client tells the server in its connect private data. */
struct ckt_buf_desc {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

struct ckt_op {
	struct ib_cqe cqe;
	struct ib_wc wc;
	bool done;
};

struct ckt_ctx;

struct ckt_side {
	struct ckt_ctx *c;
	const char *name;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	void *msg;			/* Send/Receive buffer */
	u64 msg_dma;
	u32 events;			/* BIT(event) seen */
	int last_status;
};

struct ckt_ctx {
	struct ckt_side cli, srv;
	struct rdma_cm_id *listen_id;
	wait_queue_head_t wq;
	/* the client's remotely accessible buffer */
	void *cbuf;
	struct scatterlist csg;
	int csg_mapped;
	struct ib_mr *cmr;
	struct ckt_buf_desc desc;	/* as the server received it */
	/* the server's local buffer for rdma_rw */
	void *sbuf;
	struct scatterlist ssg;
	int failures;
	const char *step;		/* of the connection setup, for the log */
	struct ckt_op *srv_recv;	/* posted before the accept */
	struct ckt_op ops[8];
	int nops;
};

static void ckt_verdict(struct ckt_ctx *c, const char *what, bool pass,
			const char *detail)
{
	if (pass) {
		pr_info("rdma_cm_kern_test: PASS %s\n", what);
		return;
	}
	c->failures++;
	pr_err("rdma_cm_kern_test: FAIL %s: %s\n", what, detail);
}

/* ---- rdma_cm events ---- */

static int ckt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct ckt_side *s = id->context;
	struct ckt_ctx *c = s->c;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* the listener's context came along: this id is the server's */
		if (c->srv.id || ev->param.conn.private_data_len <
					 sizeof(c->desc))
			return -EINVAL;	/* rejects and destroys the new id */
		memcpy(&c->desc, ev->param.conn.private_data, sizeof(c->desc));
		c->srv.id = id;
	}
	s->last_status = ev->status;
	s->events |= BIT(ev->event);
	wake_up(&c->wq);
	return 0;
}

/* Waits for event on side s; false on timeout or an error event. */
static bool ckt_wait_event(struct ckt_ctx *c, struct ckt_side *s,
			   enum rdma_cm_event_type event)
{
	wait_event_timeout(c->wq, s->events & BIT(event), TIMEOUT);
	if (s->events & BIT(event))
		return true;
	pr_err("rdma_cm_kern_test: %s: no %s (events %#x, status %d)\n",
	       s->name, rdma_event_msg(event), s->events, s->last_status);
	return false;
}

/* ---- completions ---- */

static void ckt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ckt_op *op = container_of(wc->wr_cqe, struct ckt_op, cqe);
	struct ckt_ctx *c = cq->cq_context;

	op->wc = *wc;
	smp_store_release(&op->done, true);
	wake_up(&c->wq);
}

static struct ckt_op *ckt_new_op(struct ckt_ctx *c)
{
	struct ckt_op *op = &c->ops[c->nops];

	/* callers are a fixed sequence well under ARRAY_SIZE(c->ops) */
	if (c->nops < ARRAY_SIZE(c->ops) - 1)
		c->nops++;
	op->cqe.done = ckt_done;
	op->done = false;
	return op;
}

/* Waits for op; returns its status, or -ETIMEDOUT. */
static int ckt_wait_op(struct ckt_ctx *c, struct ckt_op *op)
{
	if (!wait_event_timeout(c->wq, smp_load_acquire(&op->done), TIMEOUT))
		return -ETIMEDOUT;
	return op->wc.status;
}

/* ---- setup ---- */

/* PD, CQ, Send/Receive buffer and QP (with rdma_rw contexts) of side s. */
static int ckt_side_res(struct ckt_ctx *c, struct ckt_side *s)
{
	struct ib_device *dev = s->id->device;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_rdma_ctxs = 2,
		},
		.port_num = s->id->port_num,
	};

	s->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(s->pd)) {
		int err = PTR_ERR(s->pd);

		s->pd = NULL;
		return err;
	}
	s->cq = ib_alloc_cq(dev, c, 64, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(s->cq)) {
		int err = PTR_ERR(s->cq);

		s->cq = NULL;
		return err;
	}
	s->msg = kzalloc(MSG_LEN, GFP_KERNEL);
	if (!s->msg)
		return -ENOMEM;
	s->msg_dma = ib_dma_map_single(dev, s->msg, MSG_LEN,
				       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, s->msg_dma)) {
		s->msg_dma = 0;
		return -ENOMEM;
	}
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	return rdma_create_qp(s->id, s->pd, &init);
}

static int ckt_post_recv(struct ckt_side *s, struct ckt_op *op)
{
	struct ib_sge sge = {
		.addr = s->msg_dma,
		.length = MSG_LEN,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_cqe = &op->cqe, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(s->id->qp, &wr, NULL);
}

static int ckt_post_send(struct ckt_side *s, struct ckt_op *op, u32 len)
{
	struct ib_sge sge = {
		.addr = s->msg_dma,
		.length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &op->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	return ib_post_send(s->id->qp, &wr, NULL);
}

/*
 * The client's buffer, mapped into a fast-registration MR before the
 * connection (its iova and rkey go into the private data); the REG_MR
 * itself can only be posted once the QP is connected.
 */
static int ckt_client_mr(struct ckt_ctx *c)
{
	struct ib_device *dev = c->cli.id->device;
	int n, err;

	c->cbuf = kzalloc(CLI_BUF, GFP_KERNEL);
	if (!c->cbuf)
		return -ENOMEM;
	sg_init_one(&c->csg, c->cbuf, CLI_BUF);
	n = ib_dma_map_sg(dev, &c->csg, 1, DMA_BIDIRECTIONAL);
	if (n <= 0)
		return -ENOMEM;
	c->csg_mapped = n;
	c->cmr = ib_alloc_mr(c->cli.pd, IB_MR_TYPE_MEM_REG,
			     CLI_BUF / PAGE_SIZE);
	if (IS_ERR(c->cmr)) {
		err = PTR_ERR(c->cmr);
		c->cmr = NULL;
		return err;
	}
	n = ib_map_mr_sg(c->cmr, &c->csg, c->csg_mapped, NULL, PAGE_SIZE);
	if (n != c->csg_mapped)
		return n < 0 ? n : -EINVAL;
	c->desc.addr = cpu_to_be64(c->cmr->iova);
	c->desc.rkey = cpu_to_be32(c->cmr->rkey);
	c->desc.len = cpu_to_be32(CLI_BUF);
	return 0;
}

/* Makes the client's MR valid for remote read and write. */
static int ckt_client_reg(struct ckt_ctx *c)
{
	struct ckt_op *op = ckt_new_op(c);
	struct ib_reg_wr reg = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &op->cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = c->cmr,
		.key = c->cmr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int err;

	err = ib_post_send(c->cli.id->qp, &reg.wr, NULL);
	if (!err)
		err = ckt_wait_op(c, op);
	return err > 0 ? -EIO : err;
}

/* Client: resolve, resources, MR, connect; server: accept. */
static int ckt_connect(struct ckt_ctx *c)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port_param) };
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct ckt_buf_desc desc;
	int err;

	if (!in4_pton(addr_param, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;

	c->step = "listen";
	c->listen_id = rdma_create_id(&init_net, ckt_cm_handler, &c->srv,
				      RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->listen_id)) {
		err = PTR_ERR(c->listen_id);
		c->listen_id = NULL;
		return err;
	}
	err = rdma_bind_addr(c->listen_id, (struct sockaddr *)&sin);
	if (!err)
		err = rdma_listen(c->listen_id, 4);
	if (err)
		return err;

	c->step = "resolve";
	c->cli.id = rdma_create_id(&init_net, ckt_cm_handler, &c->cli,
				   RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(c->cli.id)) {
		err = PTR_ERR(c->cli.id);
		c->cli.id = NULL;
		return err;
	}
	err = rdma_resolve_addr(c->cli.id, NULL, (struct sockaddr *)&sin,
				5000);
	if (err || !ckt_wait_event(c, &c->cli, RDMA_CM_EVENT_ADDR_RESOLVED))
		return err ?: -ETIMEDOUT;
	err = rdma_resolve_route(c->cli.id, 5000);
	if (err || !ckt_wait_event(c, &c->cli, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return err ?: -ETIMEDOUT;
	c->step = "client resources";
	err = ckt_side_res(c, &c->cli);
	c->step = "client MR";
	if (!err)
		err = ckt_client_mr(c);
	if (err)
		return err;
	desc = c->desc;
	param.private_data = &desc;
	param.private_data_len = sizeof(desc);
	c->step = "connect";
	err = rdma_connect(c->cli.id, &param);
	if (err || !ckt_wait_event(c, &c->srv, RDMA_CM_EVENT_CONNECT_REQUEST))
		return err ?: -ETIMEDOUT;

	/* the server accepts outside its handler, as ULPs may */
	c->step = "server resources";
	err = ckt_side_res(c, &c->srv);
	c->srv_recv = ckt_new_op(c);
	if (!err)
		err = ckt_post_recv(&c->srv, c->srv_recv);
	if (err)
		return err;
	param.private_data = NULL;
	param.private_data_len = 0;
	c->step = "accept";
	rdma_lock_handler(c->srv.id);
	err = rdma_accept(c->srv.id, &param);
	rdma_unlock_handler(c->srv.id);
	if (err)
		return err;
	c->step = "established";
	if (!ckt_wait_event(c, &c->cli, RDMA_CM_EVENT_ESTABLISHED) ||
	    !ckt_wait_event(c, &c->srv, RDMA_CM_EVENT_ESTABLISHED))
		return -ETIMEDOUT;
	c->step = "REG_MR";
	return ckt_client_reg(c);
}

/* ---- the checks ---- */

static void ckt_fill(u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7 + (i >> 8));
}

static bool ckt_check(const u8 *p, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (p[i] != (u8)(seed + i * 7 + (i >> 8)))
			return false;
	return true;
}

/* Client Send → server Receive (posted before accept). */
static void ckt_test_send(struct ckt_ctx *c)
{
	struct ckt_op *send = ckt_new_op(c);
	struct ckt_op *recv = c->srv_recv;
	struct ib_device *dev = c->srv.id->device;
	int err, rerr;

	ckt_fill(c->cli.msg, MSG_LEN, 0x31);
	ib_dma_sync_single_for_device(c->cli.id->device, c->cli.msg_dma,
				      MSG_LEN, DMA_TO_DEVICE);
	err = ckt_post_send(&c->cli, send, MSG_LEN);
	if (!err)
		err = ckt_wait_op(c, send);
	rerr = ckt_wait_op(c, recv);
	ib_dma_sync_single_for_cpu(dev, c->srv.msg_dma, MSG_LEN,
				   DMA_FROM_DEVICE);
	ckt_verdict(c, "send", !err && !rerr && recv->wc.byte_len == MSG_LEN &&
		    ckt_check(c->srv.msg, MSG_LEN, 0x31),
		    "send/receive failed or bytes differ");
}

/*
 * rdma_rw from the server: dir DMA_TO_DEVICE writes sbuf[0, len) to the
 * client's buffer at off, DMA_FROM_DEVICE reads it from there.
 */
static int ckt_rw(struct ckt_ctx *c, enum dma_data_direction dir, u32 off,
		  u32 len)
{
	struct ckt_side *s = &c->srv;
	struct ckt_op *op = ckt_new_op(c);
	struct rdma_rw_ctx rw;
	int ret;

	sg_init_one(&c->ssg, c->sbuf, len);
	ret = rdma_rw_ctx_init(&rw, s->id->qp, s->id->port_num, &c->ssg, 1, 0,
			       be64_to_cpu(c->desc.addr) + off,
			       be32_to_cpu(c->desc.rkey), dir);
	if (ret < 0)
		return ret;
	ret = rdma_rw_ctx_post(&rw, s->id->qp, s->id->port_num, &op->cqe,
			       NULL);
	if (!ret)
		ret = ckt_wait_op(c, op);
	rdma_rw_ctx_destroy(&rw, s->id->qp, s->id->port_num, &c->ssg, 1, dir);
	return ret > 0 ? -EIO : ret;
}

/*
 * Server RDMA WRITE into the client's buffer, then a Send: the client
 * sees the written bytes once the Send has arrived (RDMAP/IB ordering;
 * an iWARP Write completes when handed to TCP, not when placed).
 */
static void ckt_test_write(struct ckt_ctx *c)
{
	struct ckt_op *recv = ckt_new_op(c);
	struct ckt_op *send = ckt_new_op(c);
	int err;

	err = ckt_post_recv(&c->cli, recv);
	ckt_fill(c->sbuf, XFER_LEN, 0x52);
	if (!err)
		err = ckt_rw(c, DMA_TO_DEVICE, 0, XFER_LEN);
	if (!err)
		err = ckt_post_send(&c->srv, send, 16);
	if (!err)
		err = ckt_wait_op(c, send);
	if (!err)
		err = ckt_wait_op(c, recv);
	ib_dma_sync_single_for_cpu(c->cli.id->device, sg_dma_address(&c->csg),
				   CLI_BUF, DMA_BIDIRECTIONAL);
	ckt_verdict(c, "rdma_rw write", !err &&
		    ckt_check(c->cbuf, XFER_LEN, 0x52),
		    "rdma_rw WRITE failed or bytes differ");
}

/* Server RDMA READ out of the client's buffer (through an MR on iWARP). */
static void ckt_test_read(struct ckt_ctx *c)
{
	int err;

	ckt_fill(c->cbuf + READ_OFF, READ_LEN, 0x73);
	ib_dma_sync_single_for_device(c->cli.id->device,
				      sg_dma_address(&c->csg), CLI_BUF,
				      DMA_BIDIRECTIONAL);
	memset(c->sbuf, 0, READ_LEN);
	err = ckt_rw(c, DMA_FROM_DEVICE, READ_OFF, READ_LEN);
	ckt_verdict(c, "rdma_rw read", !err &&
		    ckt_check(c->sbuf, READ_LEN, 0x73),
		    "rdma_rw READ failed or bytes differ");
}

/*
 * The client disconnects; the server answers its DISCONNECTED with its
 * own rdma_disconnect, as ULPs do (on IB CM that sends the DREP the
 * client waits for).
 */
static void ckt_test_disconnect(struct ckt_ctx *c)
{
	int err = rdma_disconnect(c->cli.id);
	bool got = false;

	if (!err && ckt_wait_event(c, &c->srv, RDMA_CM_EVENT_DISCONNECTED)) {
		rdma_disconnect(c->srv.id);
		got = ckt_wait_event(c, &c->cli, RDMA_CM_EVENT_DISCONNECTED);
	}
	ckt_verdict(c, "disconnect", !err && got,
		    "no DISCONNECTED on both sides");
}

/* ---- teardown ---- */

static void ckt_side_free(struct ckt_side *s)
{
	if (!s->id)
		return;
	if (s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->cq)
		ib_free_cq(s->cq);
	if (s->msg_dma)
		ib_dma_unmap_single(s->id->device, s->msg_dma, MSG_LEN,
				    DMA_BIDIRECTIONAL);
	kfree(s->msg);
}

static void ckt_teardown(struct ckt_ctx *c)
{
	/* ids first: no more events then; QPs drain into their CQs */
	if (c->listen_id)
		rdma_destroy_id(c->listen_id);
	if (c->cmr)
		ib_dereg_mr(c->cmr);
	if (c->csg_mapped)
		ib_dma_unmap_sg(c->cli.id->device, &c->csg, 1,
				DMA_BIDIRECTIONAL);
	ckt_side_free(&c->cli);
	ckt_side_free(&c->srv);
	if (c->srv.id)
		rdma_destroy_id(c->srv.id);
	if (c->cli.id)
		rdma_destroy_id(c->cli.id);
	if (c->srv.pd)
		ib_dealloc_pd(c->srv.pd);
	if (c->cli.pd)
		ib_dealloc_pd(c->cli.pd);
	kfree(c->cbuf);
	kfree(c->sbuf);
}

/* The connection kept for hold=1. */
static struct ckt_ctx *held;

static int __init rdma_cm_kern_test_init(void)
{
	struct ckt_ctx *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->cli.name = "client";
	c->srv.name = "server";
	c->cli.c = c;
	c->srv.c = c;
	init_waitqueue_head(&c->wq);
	c->sbuf = kzalloc(XFER_LEN, GFP_KERNEL);

	err = c->sbuf ? ckt_connect(c) : -ENOMEM;
	ckt_verdict(c, "connect", !err, "rdma_cm connection not established");
	if (err) {
		pr_err("rdma_cm_kern_test: connect: %s: %d\n", c->step, err);
	} else {
		pr_info("rdma_cm_kern_test: on %s (%s)\n",
			dev_name(&c->cli.id->device->dev),
			rdma_protocol_iwarp(c->cli.id->device,
					    c->cli.id->port_num) ?
			"iWARP" : "RoCE");
		ckt_test_send(c);
		ckt_test_write(c);
		ckt_test_read(c);
		if (hold_param && !c->failures) {
			held = c;
			pr_info("rdma_cm_kern_test: holding the connection\n");
			return 0;
		}
		ckt_test_disconnect(c);
	}
	ckt_teardown(c);
	err = c->failures ? -EIO : 0;
	pr_info("rdma_cm_kern_test: %s (%d failures)\n",
		err ? "FAILED" : "ALL PASSED", c->failures);
	kfree(c);
	return err;
}

static void __exit rdma_cm_kern_test_exit(void)
{
	if (!held)
		return;
	ckt_test_disconnect(held);
	ckt_teardown(held);
	kfree(held);
}

module_init(rdma_cm_kern_test_init);
module_exit(rdma_cm_kern_test_exit);
