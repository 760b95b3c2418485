// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel verbs API test: two RC QPs on one device, connected to each other
 * through the device's IPv4 RoCE v2 GID, exchange send-with-immediate,
 * RDMA write, RDMA read, compare-and-swap and fetch-and-add through a
 * fast-registered MR, then prove that a write through an invalidated rkey
 * completes with a remote access error and leaves the target untouched.
 * Every check compares bytes. Loading succeeds only if all checks pass;
 * the verdicts go to the kernel log as "rdma_verbs_test: PASS|FAIL ...".
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

MODULE_DESCRIPTION("rdma-kmod kernel verbs self test (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static char *dev_name_param = "rxe0";
module_param_named(dev, dev_name_param, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test");
static bool roce_v1_param;
module_param_named(roce_v1, roce_v1_param, bool, 0444);
MODULE_PARM_DESC(roce_v1, "use the IPv4 RoCE v1 GID (default: RoCE v2)");

#define BUF_SIZE	(4 * PAGE_SIZE)
#define SEND_LEN	3000	/* more than one 1024-byte MTU packet */
#define XFER_LEN	8192
#define TIMEOUT		(5 * HZ)

struct vt_op {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

struct vt_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qa, *qb;
	struct ib_mr *mr;	/* fast-reg MR over b_buf */
	void *a_buf, *b_buf;
	u64 a_dma, b_dma;
	struct scatterlist b_sg;
	bool b_sg_mapped;
	int gid_index;
	int failures;
	/* ops live as long as the QPs: a late flush may still complete one */
	struct vt_op ops[16];
	int nops;
};

static void vt_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vt_op *op = container_of(wc->wr_cqe, struct vt_op, cqe);

	op->wc = *wc;
	complete(&op->done);
}

static struct vt_op *vt_new_op(struct vt_ctx *c)
{
	struct vt_op *op = &c->ops[c->nops];

	/* callers are a fixed sequence well under ARRAY_SIZE(c->ops) */
	if (c->nops < ARRAY_SIZE(c->ops) - 1)
		c->nops++;
	op->cqe.done = vt_done;
	init_completion(&op->done);
	memset(&op->wc, 0, sizeof(op->wc));
	return op;
}

/* Waits for @op; returns its status, or -ETIMEDOUT. */
static int vt_wait(struct vt_op *op)
{
	if (!wait_for_completion_timeout(&op->done, TIMEOUT))
		return -ETIMEDOUT;
	return op->wc.status;
}

static void vt_verdict(struct vt_ctx *c, const char *name, bool ok,
		       const char *why)
{
	if (ok) {
		pr_info("rdma_verbs_test: PASS %s\n", name);
		return;
	}
	c->failures++;
	pr_err("rdma_verbs_test: FAIL %s: %s\n", name, why);
}

static int vt_find_gid(struct vt_ctx *c)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < 16; i++) {
		attr = rdma_get_gid_attr(c->dev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == (roce_v1_param ? IB_GID_TYPE_ROCE :
				       IB_GID_TYPE_ROCE_UDP_ENCAP) &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			rdma_put_gid_attr(attr);
			return i;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

static struct ib_qp *vt_create_qp(struct vt_ctx *c)
{
	struct ib_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = 32,
			.max_send_sge = 2,
			.max_recv_sge = 2,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};

	return ib_create_qp(c->pd, &init);
}

static int vt_connect(struct vt_ctx *c, struct ib_qp *qp, u32 dest_qpn)
{
	const struct ib_gid_attr *sgid;
	struct ib_qp_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.pkey_index = 0;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_ATOMIC;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	sgid = rdma_get_gid_attr(c->dev, 1, c->gid_index);
	if (IS_ERR(sgid))
		return PTR_ERR(sgid);
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 0x123;
	attr.max_dest_rd_atomic = 4;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, (union ib_gid *)&sgid->gid, 0,
			c->gid_index, 64, 0);
	/* Loopback on one port: our own MAC is the destination MAC. */
	err = rdma_read_gid_l2_fields(sgid, NULL, attr.ah_attr.roce.dmac);
	rdma_put_gid_attr(sgid);
	if (err)
		return err;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x123;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 4;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

static void vt_fill(void *buf, size_t len, u8 seed)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed + i * 7);
}

/* Send with immediate a -> b, bigger than the path MTU. */
static void vt_test_send(struct vt_ctx *c)
{
	struct vt_op *sop = vt_new_op(c), *rop = vt_new_op(c);
	struct ib_sge ssge = { c->a_dma, SEND_LEN, c->pd->local_dma_lkey };
	struct ib_sge rsge = { c->b_dma, BUF_SIZE, c->pd->local_dma_lkey };
	struct ib_recv_wr rwr = { .wr_cqe = &rop->cqe, .sg_list = &rsge,
				  .num_sge = 1 };
	struct ib_send_wr swr = { .wr_cqe = &sop->cqe, .sg_list = &ssge,
				  .num_sge = 1, .opcode = IB_WR_SEND_WITH_IMM,
				  .send_flags = IB_SEND_SIGNALED,
				  .ex.imm_data = cpu_to_be32(0xfeedbeef) };
	int err;

	vt_fill(c->a_buf, SEND_LEN, 1);
	memset(c->b_buf, 0, BUF_SIZE);
	err = ib_post_recv(c->qb, &rwr, NULL);
	if (!err)
		err = ib_post_send(c->qa, &swr, NULL);
	if (err) {
		vt_verdict(c, "send", false, "post failed");
		return;
	}
	err = vt_wait(sop);
	if (!err)
		err = vt_wait(rop);
	vt_verdict(c, "send", !err && rop->wc.byte_len == SEND_LEN &&
		   rop->wc.opcode == IB_WC_RECV &&
		   (rop->wc.wc_flags & IB_WC_WITH_IMM) &&
		   rop->wc.ex.imm_data == cpu_to_be32(0xfeedbeef) &&
		   sop->wc.opcode == IB_WC_SEND &&
		   !memcmp(c->a_buf, c->b_buf, SEND_LEN),
		   "completion or bytes differ");
}

/* Fast-register b_buf for remote write/read/atomic. */
static void vt_test_reg_mr(struct vt_ctx *c)
{
	struct vt_op *op = vt_new_op(c);
	struct ib_reg_wr wr = {
		.wr = { .wr_cqe = &op->cqe, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC,
	};
	int n, err;

	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, BUF_SIZE / PAGE_SIZE);
	if (IS_ERR(c->mr)) {
		c->mr = NULL;
		vt_verdict(c, "reg_mr", false, "ib_alloc_mr failed");
		return;
	}
	sg_init_one(&c->b_sg, c->b_buf, BUF_SIZE);
	if (ib_dma_map_sg(c->dev, &c->b_sg, 1, DMA_BIDIRECTIONAL) != 1) {
		vt_verdict(c, "reg_mr", false, "dma map failed");
		return;
	}
	c->b_sg_mapped = true;
	n = ib_map_mr_sg(c->mr, &c->b_sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		vt_verdict(c, "reg_mr", false, "ib_map_mr_sg failed");
		return;
	}
	ib_update_fast_reg_key(c->mr, 0x5a);
	wr.mr = c->mr;
	wr.key = c->mr->rkey;
	err = ib_post_send(c->qb, &wr.wr, NULL);
	if (!err)
		err = vt_wait(op);
	vt_verdict(c, "reg_mr", !err && op->wc.opcode == IB_WC_REG_MR &&
		   c->mr->length == BUF_SIZE, "registration failed");
}

static int vt_rdma(struct vt_ctx *c, enum ib_wr_opcode opcode, u64 offset,
		   u32 len, struct vt_op **opp)
{
	struct vt_op *op = *opp = vt_new_op(c);
	struct ib_sge sge = { c->a_dma, len, c->pd->local_dma_lkey };
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = &op->cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = c->mr->iova + offset,
		.rkey = c->mr->rkey,
	};
	int err;

	err = ib_post_send(c->qa, &wr.wr, NULL);
	return err ? err : vt_wait(op);
}

static void vt_test_write_read(struct vt_ctx *c)
{
	struct vt_op *op;
	int err;

	vt_fill(c->a_buf, XFER_LEN, 3);
	memset(c->b_buf, 0, BUF_SIZE);
	err = vt_rdma(c, IB_WR_RDMA_WRITE, 100, XFER_LEN, &op);
	vt_verdict(c, "rdma_write", !err && op->wc.opcode == IB_WC_RDMA_WRITE &&
		   !memcmp(c->a_buf, (u8 *)c->b_buf + 100, XFER_LEN),
		   "completion or bytes differ");

	vt_fill((u8 *)c->b_buf + 8, XFER_LEN, 5);
	memset(c->a_buf, 0, BUF_SIZE);
	err = vt_rdma(c, IB_WR_RDMA_READ, 8, XFER_LEN, &op);
	vt_verdict(c, "rdma_read", !err && op->wc.opcode == IB_WC_RDMA_READ &&
		   op->wc.byte_len == XFER_LEN &&
		   !memcmp(c->a_buf, (u8 *)c->b_buf + 8, XFER_LEN),
		   "completion or bytes differ");
}

static int vt_atomic(struct vt_ctx *c, enum ib_wr_opcode opcode, u64 cmp_add,
		     u64 swap, struct vt_op **opp)
{
	struct vt_op *op = *opp = vt_new_op(c);
	struct ib_sge sge = { c->a_dma, 8, c->pd->local_dma_lkey };
	struct ib_atomic_wr wr = {
		.wr = { .wr_cqe = &op->cqe, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = c->mr->iova + 64,
		.compare_add = cmp_add,
		.swap = swap,
		.rkey = c->mr->rkey,
	};
	int err;

	err = ib_post_send(c->qa, &wr.wr, NULL);
	return err ? err : vt_wait(op);
}

static void vt_test_atomics(struct vt_ctx *c)
{
	u64 *target = (u64 *)((u8 *)c->b_buf + 64);
	u64 *orig = c->a_buf;
	struct vt_op *op;
	int err;

	*target = 1000;
	*orig = 0;
	err = vt_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, 1000, 2000, &op);
	vt_verdict(c, "cmp_swap", !err && op->wc.opcode == IB_WC_COMP_SWAP &&
		   *orig == 1000 && *target == 2000, "values differ");

	*orig = 0;
	err = vt_atomic(c, IB_WR_ATOMIC_CMP_AND_SWP, 1, 3000, &op);
	vt_verdict(c, "cmp_swap_miss", !err && *orig == 2000 &&
		   *target == 2000, "values differ");

	*orig = 0;
	err = vt_atomic(c, IB_WR_ATOMIC_FETCH_AND_ADD, 5, 0, &op);
	vt_verdict(c, "fetch_add", !err && op->wc.opcode == IB_WC_FETCH_ADD &&
		   *orig == 2000 && *target == 2005, "values differ");
}

/* Invalidate the rkey at b, then a's write through it must fail. */
static void vt_test_invalidated_rkey(struct vt_ctx *c)
{
	struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV,
				  .send_flags = IB_SEND_SIGNALED };
	struct vt_op *op = vt_new_op(c);
	int err;

	inv.wr_cqe = &op->cqe;
	inv.ex.invalidate_rkey = c->mr->rkey;
	err = ib_post_send(c->qb, &inv, NULL);
	if (!err)
		err = vt_wait(op);
	vt_verdict(c, "local_inv", !err && op->wc.opcode == IB_WC_LOCAL_INV,
		   "invalidate failed");

	vt_fill(c->a_buf, 256, 9);
	memset(c->b_buf, 0x77, BUF_SIZE);
	err = vt_rdma(c, IB_WR_RDMA_WRITE, 0, 256, &op);
	vt_verdict(c, "write_after_inv",
		   err == IB_WC_REM_ACCESS_ERR &&
		   !memchr_inv(c->b_buf, 0x77, BUF_SIZE),
		   "write through an invalid rkey was not refused");
}

static void vt_teardown(struct vt_ctx *c)
{
	if (c->qa && !IS_ERR(c->qa))
		ib_drain_qp(c->qa);
	if (c->qb && !IS_ERR(c->qb))
		ib_drain_qp(c->qb);
	if (c->qa && !IS_ERR(c->qa))
		ib_destroy_qp(c->qa);
	if (c->qb && !IS_ERR(c->qb))
		ib_destroy_qp(c->qb);
	if (c->mr)
		ib_dereg_mr(c->mr);
	if (c->b_sg_mapped)
		ib_dma_unmap_sg(c->dev, &c->b_sg, 1, DMA_BIDIRECTIONAL);
	if (c->a_dma)
		ib_dma_unmap_single(c->dev, c->a_dma, BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	if (c->b_dma)
		ib_dma_unmap_single(c->dev, c->b_dma, BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	if (c->cq && !IS_ERR(c->cq))
		ib_free_cq(c->cq);
	if (c->pd && !IS_ERR(c->pd))
		ib_dealloc_pd(c->pd);
	kfree(c->a_buf);
	kfree(c->b_buf);
	ib_device_put(c->dev);
}

static int vt_setup(struct vt_ctx *c)
{
	c->gid_index = vt_find_gid(c);
	if (c->gid_index < 0)
		return c->gid_index;
	c->a_buf = kzalloc(BUF_SIZE, GFP_KERNEL);
	c->b_buf = kzalloc(BUF_SIZE, GFP_KERNEL);
	if (!c->a_buf || !c->b_buf)
		return -ENOMEM;
	c->a_dma = ib_dma_map_single(c->dev, c->a_buf, BUF_SIZE,
				     DMA_BIDIRECTIONAL);
	c->b_dma = ib_dma_map_single(c->dev, c->b_buf, BUF_SIZE,
				     DMA_BIDIRECTIONAL);
	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(c->dev, NULL, 128, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq))
		return PTR_ERR(c->cq);
	c->qa = vt_create_qp(c);
	if (IS_ERR(c->qa))
		return PTR_ERR(c->qa);
	c->qb = vt_create_qp(c);
	if (IS_ERR(c->qb))
		return PTR_ERR(c->qb);
	if (vt_connect(c, c->qa, c->qb->qp_num) ||
	    vt_connect(c, c->qb, c->qa->qp_num))
		return -EINVAL;
	return 0;
}

static int __init rdma_verbs_test_init(void)
{
	struct vt_ctx *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->dev = ib_device_get_by_name(dev_name_param, RDMA_DRIVER_UNKNOWN);
	if (!c->dev) {
		pr_err("rdma_verbs_test: FAIL setup: no device %s\n",
		       dev_name_param);
		kfree(c);
		return -ENODEV;
	}

	err = vt_setup(c);
	vt_verdict(c, "setup", !err, "pd/cq/qp creation or connect failed");
	if (!err) {
		vt_test_send(c);
		vt_test_reg_mr(c);
		if (c->mr) {
			vt_test_write_read(c);
			vt_test_atomics(c);
			vt_test_invalidated_rkey(c);
		}
	}
	vt_teardown(c);
	err = c->failures ? -EIO : 0;
	pr_info("rdma_verbs_test: %s (%d failures)\n",
		err ? "FAILED" : "ALL PASSED", c->failures);
	kfree(c);
	return err;
}

static void __exit rdma_verbs_test_exit(void)
{
}

module_init(rdma_verbs_test_init);
module_exit(rdma_verbs_test_exit);
