// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel ULP self test: what NFS over RDMA, iSER or an NVMe target do,
 * on any device (RoCE or iWARP). A client and a server in this module
 * connect through rdma_cm to addr:port; the client registers a buffer
 * with a fast-registration MR and passes its address and rkey in the
 * connect private data (REG_MR posted once connected); the server receives a Send, then moves data with
 * rdma_rw_ctx (RDMA WRITE into the client's buffer, RDMA READ out of it,
 * through MRs where the device needs them, as on iWARP), and the client
 * disconnects. Then the multi-segment transfers of an NVMe or SCSI
 * target (see "multi-segment rdma_rw" below). Every check compares
 * bytes. Loading succeeds only if all
 * checks pass; the verdicts go to the kernel log as
 * "rdma_cm_kern_test: PASS|FAIL ...". With hold=1 the connection and its
 * objects stay until rmmod, for `rdma resource show` to list.
 */
#include <linux/module.h>
#include <linux/inet.h>
#include <linux/mm.h>
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

/* A remotely accessible client buffer, as the server learns it. */
struct ckt_buf_desc {
	__be64 addr;
	__be32 rkey;
	__be32 len;
};

/* The multi-segment tests' client buffers. */
enum { CKT_SCAT, CKT_LARGE, CKT_NR_PBUF };

/* What the client tells the server in its connect private data. */
struct ckt_conn_priv {
	struct ckt_buf_desc buf;		/* cbuf */
	struct ckt_buf_desc pb[CKT_NR_PBUF];	/* ckt_ctx.pb */
};

/*
 * Memory as an array of pages, byte 0 at first_off in pages[0]: the
 * server's pages for multi-segment lists and the client's buffers
 * behind them (with their scatterlist and MR).
 */
struct ckt_pbuf {
	struct page **pages;
	u32 npages;
	u32 first_off;
	u32 len;			/* bytes from first_off on */
	struct page *block;		/* a higher-order allocation, if any */
	unsigned int order;
	struct scatterlist *sgl;
	int nents;
	int mapped;
	struct ib_mr *mr;
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
	struct ckt_pbuf pb[CKT_NR_PBUF];	/* more client buffers */
	struct ckt_conn_priv desc;	/* as the server received it */
	/* the server's local buffers for rdma_rw */
	void *sbuf;
	struct scatterlist ssg;
	struct ckt_pbuf spb;		/* single pages, no list of its own */
	struct scatterlist *ssgl;	/* built per transfer from spb */
	int failures;
	const char *step;		/* of the connection setup, for the log */
	struct ckt_op *srv_recv;	/* posted before the accept */
	struct ckt_op ops[64];
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
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		/* kept: the id stays bound until rmmod destroys it */
		pr_info("rdma_cm_kern_test: %s%s: device removal, id on %s\n",
			s->name, id == c->listen_id ? " listener" : "",
			id->device ? dev_name(&id->device->dev) : "no device");
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

	/*
	 * Callers are a fixed sequence under ARRAY_SIZE(c->ops) and stop
	 * at their first failure, so no slot is reused while a late
	 * completion may still land in it.
	 */
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
			/* a long list takes many WRs where no MR is used */
			.max_send_wr = 64,
			.max_recv_wr = 4,
			.max_send_sge = min_t(u32, dev->attrs.max_send_sge, 16),
			.max_recv_sge = 1,
			/* a list longer than one MR's pages takes several */
			.max_rdma_ctxs = 4,
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
	c->desc.buf.addr = cpu_to_be64(c->cmr->iova);
	c->desc.buf.rkey = cpu_to_be32(c->cmr->rkey);
	c->desc.buf.len = cpu_to_be32(CLI_BUF);
	return 0;
}

/* Makes a client MR valid for remote read and write. */
static int ckt_client_reg(struct ckt_ctx *c, struct ib_mr *mr)
{
	struct ckt_op *op = ckt_new_op(c);
	struct ib_reg_wr reg = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &op->cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = mr,
		.key = mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int err;

	err = ib_post_send(c->cli.id->qp, &reg.wr, NULL);
	if (!err)
		err = ckt_wait_op(c, op);
	return err > 0 ? -EIO : err;
}

/* ---- page-array buffers ---- */

/*
 * Multi-segment rdma_rw: what an NVMe or SCSI target moves for a large
 * I/O. The client offers two more buffers, as a host does: "scattered",
 * single pages with the first one entered at an offset (a bio's pages in
 * one fast-registration MR), and "large", one contiguous block whose MR
 * uses pages big enough for the device's page list to cover it. The
 * server builds lists of its own single pages (as sgl_alloc() does),
 * with offsets, and writes and reads them with rdma_rw; on iWARP a list
 * longer than one MR's pages takes several chained MRs.
 */
#define SCAT_PAGES	96
#define SCAT_OFF	512		/* where the scattered buffer starts */
#define LARGE_ORDER	9		/* 2 MiB */
#define SRV_PAGES	512
#define GUARD		64		/* bytes checked untouched either side */

/* Address of byte pos of b, and how many bytes follow it in its page. */
static u8 *ckt_pb_at(struct ckt_pbuf *b, u32 pos, u32 *room)
{
	u32 abs = b->first_off + pos;

	*room = PAGE_SIZE - offset_in_page(abs);
	return (u8 *)page_address(b->pages[abs >> PAGE_SHIFT]) +
	       offset_in_page(abs);
}

static u8 ckt_pattern(u8 seed, u32 i)
{
	return (u8)(seed + i * 7 + (i >> 8));
}

/*
 * Writes the pattern of seed into bytes [pos, pos + len) of b, or with
 * check compares them; the pattern restarts at pos.
 */
static bool ckt_pb_pattern(struct ckt_pbuf *b, u32 pos, u32 len, u8 seed,
			   bool check)
{
	u32 i = 0;

	while (i < len) {
		u32 room, n, k;
		u8 *p = ckt_pb_at(b, pos + i, &room);

		n = min(room, len - i);
		for (k = 0; k < n; k++, i++) {
			if (!check)
				p[k] = ckt_pattern(seed, i);
			else if (p[k] != ckt_pattern(seed, i))
				return false;
		}
	}
	return true;
}

/* The GUARD bytes either side of [pos, pos + len), inside b, with seed. */
static bool ckt_pb_guard(struct ckt_pbuf *b, u32 pos, u32 len, u8 seed,
			 bool check)
{
	u32 before = min_t(u32, pos, GUARD);
	u32 end = pos + len;
	u32 after = min_t(u32, b->len - end, GUARD);

	return ckt_pb_pattern(b, pos - before, before, seed, check) &&
	       ckt_pb_pattern(b, end, after, seed ^ 0x5a, check);
}

/* Hands a client buffer to the CPU (for_cpu) or back to the device. */
static void ckt_pb_sync(struct ckt_ctx *c, struct ckt_pbuf *b, bool for_cpu)
{
	struct ib_device *dev = c->cli.id->device;
	struct scatterlist *sg;
	int i;

	for_each_sg(b->sgl, sg, b->mapped, i) {
		if (for_cpu)
			ib_dma_sync_single_for_cpu(dev, sg_dma_address(sg),
						   sg_dma_len(sg),
						   DMA_BIDIRECTIONAL);
		else
			ib_dma_sync_single_for_device(dev, sg_dma_address(sg),
						      sg_dma_len(sg),
						      DMA_BIDIRECTIONAL);
	}
}

/* npages single pages, or with order one block of that order. */
static int ckt_pb_alloc(struct ckt_pbuf *b, u32 npages, unsigned int order)
{
	u32 i;

	b->pages = kcalloc(npages, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	b->order = order;
	if (order) {
		b->block = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
		if (!b->block)
			return -ENOMEM;
		for (i = 0; i < npages; i++)
			b->pages[i] = nth_page(b->block, i);
		b->npages = npages;
		return 0;
	}
	for (i = 0; i < npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i])
			return -ENOMEM;
		b->npages++;
	}
	return 0;
}

static void ckt_pb_free(struct ib_device *dev, struct ckt_pbuf *b)
{
	u32 i;

	if (b->mr)
		ib_dereg_mr(b->mr);
	if (b->mapped)
		ib_dma_unmap_sg(dev, b->sgl, b->nents, DMA_BIDIRECTIONAL);
	kfree(b->sgl);
	if (b->block)
		__free_pages(b->block, b->order);
	else
		for (i = 0; i < b->npages; i++)
			__free_page(b->pages[i]);
	kfree(b->pages);
}

/*
 * A client buffer in one MR: "scattered" is SCAT_PAGES single pages in
 * as many entries, the first from SCAT_OFF on; "large" one entry of a
 * 2 MiB block, mapped with pages of the smallest size (from PAGE_SIZE
 * up) the device's page list can cover it with.
 */
static int ckt_client_pbuf(struct ckt_ctx *c, int which)
{
	struct ib_device *dev = c->cli.id->device;
	struct ckt_pbuf *b = &c->pb[which];
	u32 max_pages = dev->attrs.max_fast_reg_page_list_len;
	u32 page_size = PAGE_SIZE;
	struct scatterlist *sg;
	int i, n, err;

	if (which == CKT_SCAT) {
		err = ckt_pb_alloc(b, SCAT_PAGES, 0);
		b->first_off = SCAT_OFF;
		b->nents = SCAT_PAGES;
	} else {
		err = ckt_pb_alloc(b, 1 << LARGE_ORDER, LARGE_ORDER);
		b->nents = 1;
	}
	if (err)
		return err;
	b->len = b->npages * PAGE_SIZE - b->first_off;
	while (page_size < SZ_1G && b->len / page_size > max_pages)
		page_size <<= 1;

	b->sgl = kcalloc(b->nents, sizeof(*b->sgl), GFP_KERNEL);
	if (!b->sgl)
		return -ENOMEM;
	sg_init_table(b->sgl, b->nents);
	if (which == CKT_LARGE)
		sg_set_page(b->sgl, b->block, b->len, 0);
	else
		for_each_sg(b->sgl, sg, b->nents, i)
			sg_set_page(sg, b->pages[i], PAGE_SIZE - (i ? 0 :
				    b->first_off), i ? 0 : b->first_off);
	n = ib_dma_map_sg(dev, b->sgl, b->nents, DMA_BIDIRECTIONAL);
	if (n <= 0)
		return -ENOMEM;
	b->mapped = n;

	b->mr = ib_alloc_mr(c->cli.pd, IB_MR_TYPE_MEM_REG,
			    DIV_ROUND_UP(b->len, page_size));
	if (IS_ERR(b->mr)) {
		err = PTR_ERR(b->mr);
		b->mr = NULL;
		return err;
	}
	n = ib_map_mr_sg(b->mr, b->sgl, b->mapped, NULL, page_size);
	if (n != b->mapped || b->mr->length != b->len)
		return n < 0 ? n : -EINVAL;
	c->desc.pb[which].addr = cpu_to_be64(b->mr->iova);
	c->desc.pb[which].rkey = cpu_to_be32(b->mr->rkey);
	c->desc.pb[which].len = cpu_to_be32(b->len);
	if (which == CKT_LARGE)
		pr_info("rdma_cm_kern_test: large buffer: MR of %u-byte pages\n",
			page_size);
	return 0;
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
	struct ckt_conn_priv desc;
	int i, err;

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
	c->step = "client scattered MR";
	if (!err)
		err = ckt_client_pbuf(c, CKT_SCAT);
	c->step = "client large MR";
	if (!err)
		err = ckt_client_pbuf(c, CKT_LARGE);
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
	err = ckt_client_reg(c, c->cmr);
	for (i = 0; i < CKT_NR_PBUF && !err; i++)
		err = ckt_client_reg(c, c->pb[i].mr);
	return err;
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
 * rdma_rw from the server: dir DMA_TO_DEVICE writes the list sg (nents
 * entries, from byte sg_off on) to the client at raddr/rkey,
 * DMA_FROM_DEVICE reads it from there. Returns 0, -errno or the failed
 * completion's status.
 */
static int ckt_rw(struct ckt_ctx *c, enum dma_data_direction dir,
		  struct scatterlist *sg, u32 nents, u32 sg_off, u64 raddr,
		  u32 rkey)
{
	struct ckt_side *s = &c->srv;
	struct ckt_op *op = ckt_new_op(c);
	struct rdma_rw_ctx rw;
	int ret;

	ret = rdma_rw_ctx_init(&rw, s->id->qp, s->id->port_num, sg, nents,
			       sg_off, raddr, rkey, dir);
	if (ret < 0)
		return ret;
	ret = rdma_rw_ctx_post(&rw, s->id->qp, s->id->port_num, &op->cqe,
			       NULL);
	if (!ret)
		ret = ckt_wait_op(c, op);
	rdma_rw_ctx_destroy(&rw, s->id->qp, s->id->port_num, sg, nents, dir);
	return ret;
}

/*
 * Server RDMA WRITE into the client's buffer, then a Send: the client
 * sees the written bytes once the Send has arrived (RDMAP/IB ordering;
 * an iWARP Write completes when handed to TCP, not when placed).
 */
static int ckt_write_placed(struct ckt_ctx *c, struct scatterlist *sg,
			    u32 nents, u32 sg_off, u64 raddr, u32 rkey)
{
	struct ckt_op *recv = ckt_new_op(c);
	struct ckt_op *send = ckt_new_op(c);
	int err;

	err = ckt_post_recv(&c->cli, recv);
	if (!err)
		err = ckt_rw(c, DMA_TO_DEVICE, sg, nents, sg_off, raddr, rkey);
	if (!err)
		err = ckt_post_send(&c->srv, send, 16);
	if (!err)
		err = ckt_wait_op(c, send);
	if (!err)
		err = ckt_wait_op(c, recv);
	return err;
}

static void ckt_test_write(struct ckt_ctx *c)
{
	int err;

	ckt_fill(c->sbuf, XFER_LEN, 0x52);
	sg_init_one(&c->ssg, c->sbuf, XFER_LEN);
	err = ckt_write_placed(c, &c->ssg, 1, 0, be64_to_cpu(c->desc.buf.addr),
			       be32_to_cpu(c->desc.buf.rkey));
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
	sg_init_one(&c->ssg, c->sbuf, READ_LEN);
	err = ckt_rw(c, DMA_FROM_DEVICE, &c->ssg, 1, 0,
		     be64_to_cpu(c->desc.buf.addr) + READ_OFF,
		     be32_to_cpu(c->desc.buf.rkey));
	ckt_verdict(c, "rdma_rw read", !err &&
		    ckt_check(c->sbuf, READ_LEN, 0x73),
		    "rdma_rw READ failed or bytes differ");
}

/* ---- multi-segment rdma_rw ---- */

/*
 * One transfer each way between the client buffer pb at roff and a list
 * of the server's single pages: its first entry starts first_off into
 * its page, each entry ends at a page end (the last at the data's end),
 * and rdma_rw starts sg_off bytes into the list; len bytes move.
 */
struct ckt_sg_case {
	const char *name;
	u8 pb;
	u32 roff;
	u32 len;
	u16 first_off;
	u16 sg_off;
};

static const struct ckt_sg_case ckt_sg_cases[] = {
	{ "1 page", CKT_SCAT, 0, 4096, 0, 0 },
	{ "8 KiB in 2 pages", CKT_SCAT, 4096 - SCAT_OFF, 8192, 0, 0 },
	{ "8 KiB in 2 pages again", CKT_SCAT, 0, 8192, 0, 0 },
	{ "3 entries from offset 512", CKT_SCAT, 100, 9000, 512, 0 },
	{ "sg_offset into the 2nd entry", CKT_SCAT, 8192, 10000, 0, 4396 },
	{ "92 pages", CKT_SCAT, 0, 92 * 4096, 0, 0 },
	{ "1 MiB in 256 pages", CKT_LARGE, 0, SZ_1M, 0, 0 },
	{ "257 pages", CKT_LARGE, 4096, 257 * 4096, 0, 0 },
	{ "300 entries from offset 2048", CKT_LARGE, 777, 300 * 4096 - 3000,
	  2048, 0 },
	{ "500 pages from sg_offset 100", CKT_LARGE, 12345, 499 * 4096, 0,
	  100 },
};

/* err: the transfer's (a completion status > 0, or -errno). */
static void ckt_sg_verdict(struct ckt_ctx *c, const char *what, int err,
			   bool bytes_ok)
{
	char detail[48];

	if (err)
		snprintf(detail, sizeof(detail), "failed (%d)", err);
	else
		snprintf(detail, sizeof(detail), "bytes differ");
	ckt_verdict(c, what, !err && bytes_ok, detail);
}

/* The server's list for tc in c->ssgl; returns its entries. */
static u32 ckt_srv_sgl(struct ckt_ctx *c, const struct ckt_sg_case *tc)
{
	u32 end = tc->first_off + tc->sg_off + tc->len;
	u32 nents = DIV_ROUND_UP(end, PAGE_SIZE);
	u32 i;

	sg_init_table(c->ssgl, nents);
	for (i = 0; i < nents; i++) {
		u32 off = i ? 0 : tc->first_off;
		u32 stop = min_t(u32, end - i * PAGE_SIZE, PAGE_SIZE);

		sg_set_page(&c->ssgl[i], c->spb.pages[i], stop - off, off);
	}
	return nents;
}

/* WRITE then READ of one case; false once the connection is unusable. */
static bool ckt_test_sg_case(struct ckt_ctx *c, const struct ckt_sg_case *tc,
			     u8 seed)
{
	struct ckt_pbuf *pb = &c->pb[tc->pb];
	u64 raddr = be64_to_cpu(c->desc.pb[tc->pb].addr) + tc->roff;
	u32 rkey = be32_to_cpu(c->desc.pb[tc->pb].rkey);
	u32 spos = tc->first_off + tc->sg_off;
	char what[80];
	u32 nents;
	int err;

	if (WARN_ON(tc->roff + tc->len > pb->len ||
		    DIV_ROUND_UP(spos + tc->len, PAGE_SIZE) > SRV_PAGES))
		return false;
	nents = ckt_srv_sgl(c, tc);

	/* WRITE: the client's bytes around the range must stay */
	ckt_pb_pattern(&c->spb, spos, tc->len, seed, false);
	ckt_pb_pattern(pb, tc->roff, tc->len, 0, false);
	ckt_pb_guard(pb, tc->roff, tc->len, seed + 1, false);
	ckt_pb_sync(c, pb, false);
	err = ckt_write_placed(c, c->ssgl, nents, tc->sg_off, raddr, rkey);
	ckt_pb_sync(c, pb, true);
	snprintf(what, sizeof(what), "rdma_rw write %s (%u entries)",
		 tc->name, nents);
	ckt_sg_verdict(c, what, err,
		       ckt_pb_pattern(pb, tc->roff, tc->len, seed, true) &&
		       ckt_pb_guard(pb, tc->roff, tc->len, seed + 1, true));
	if (err)
		return false;

	/* READ: the server's bytes around the range must stay */
	seed += 0x40;
	ckt_pb_pattern(pb, tc->roff, tc->len, seed, false);
	ckt_pb_sync(c, pb, false);
	ckt_pb_pattern(&c->spb, spos, tc->len, 0, false);
	ckt_pb_guard(&c->spb, spos, tc->len, seed + 1, false);
	err = ckt_rw(c, DMA_FROM_DEVICE, c->ssgl, nents, tc->sg_off, raddr,
		     rkey);
	snprintf(what, sizeof(what), "rdma_rw read %s (%u entries)",
		 tc->name, nents);
	ckt_sg_verdict(c, what, err,
		       ckt_pb_pattern(&c->spb, spos, tc->len, seed, true) &&
		       ckt_pb_guard(&c->spb, spos, tc->len, seed + 1, true));
	return !err;
}

static void ckt_test_sg(struct ckt_ctx *c)
{
	u32 i;

	c->ssgl = kcalloc(SRV_PAGES, sizeof(*c->ssgl), GFP_KERNEL);
	if (!c->ssgl || ckt_pb_alloc(&c->spb, SRV_PAGES, 0)) {
		ckt_verdict(c, "multi-segment rdma_rw", false, "no memory");
		return;
	}
	c->spb.len = SRV_PAGES * PAGE_SIZE;
	for (i = 0; i < ARRAY_SIZE(ckt_sg_cases); i++)
		if (!ckt_test_sg_case(c, &ckt_sg_cases[i], 0x11 * (i + 1)))
			break;
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
	int i;

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
	/* no QP left to place data into them */
	for (i = 0; i < CKT_NR_PBUF; i++)
		ckt_pb_free(c->cli.id ? c->cli.id->device : NULL, &c->pb[i]);
	ckt_pb_free(NULL, &c->spb);
	kfree(c->ssgl);
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
		ckt_test_sg(c);
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
	/*
	 * After DEVICE_REMOVAL the ids keep their device (rdma_cm waits for
	 * their destruction) and there is no peer left to disconnect from.
	 */
	if (!(held->cli.events & BIT(RDMA_CM_EVENT_DEVICE_REMOVAL)))
		ckt_test_disconnect(held);
	else if (!held->cli.id->device || !held->srv.id->device)
		pr_err("rdma_cm_kern_test: an id lost its device before rdma_destroy_id\n");
	ckt_teardown(held);
	kfree(held);
}

module_init(rdma_cm_kern_test_init);
module_exit(rdma_cm_kern_test_exit);
