// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA READ/WRITE contexts for kernel ULPs (target drivers and the like):
 * map a local scatterlist, build the RDMA work requests that move it to
 * or from a remote (addr, rkey), post them, and undo it all afterwards.
 *
 * IB and RoCE read and write straight from SGEs with the PD's local DMA
 * lkey. iWARP needs a registered MR for the sink of an RDMA READ, so
 * there each WR gets a fast-registration MR from the QP's pool, chained
 * as [LOCAL_INV] -> REG_MR -> RDMA op.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rw.h>
#include <rdma/mr_pool.h>
#include "core_priv.h"

enum {
	RDMA_RW_SINGLE_WR,
	RDMA_RW_MULTI_WR,
	RDMA_RW_MR,
};

static bool rdma_rw_force_mr;
module_param_named(force_mr, rdma_rw_force_mr, bool, 0);
MODULE_PARM_DESC(force_mr, "Force usage of MRs for RDMA READ/WRITE operations");

/* Largest page list one rw MR maps. */
#define RDMA_RW_MAX_MR_PAGES	256

/* RC QPs carry no port before RTR: judge by the device's first port. */
static u32 rw_port(struct ib_device *dev, u32 port_num)
{
	return rdma_is_port_valid(dev, port_num) ? port_num :
		rdma_start_port(dev);
}

static bool rdma_rw_can_use_mr(struct ib_device *dev, u32 port_num)
{
	if (rdma_protocol_iwarp(dev, rw_port(dev, port_num)))
		return true;
	if (dev->attrs.max_sgl_rd)
		return true;
	return rdma_rw_force_mr &&
	       (dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS);
}

static bool rdma_rw_io_needs_mr(struct ib_device *dev, u32 port_num,
				enum dma_data_direction dir, int dma_nents)
{
	if (dir == DMA_FROM_DEVICE) {
		if (rdma_protocol_iwarp(dev, rw_port(dev, port_num)))
			return true;
		/* Reads of many SGEs are slow on some devices. */
		if (dev->attrs.max_sgl_rd && dma_nents > dev->attrs.max_sgl_rd)
			return true;
	}
	return rdma_rw_force_mr &&
	       (dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS);
}

static u32 rdma_rw_fr_page_list_len(struct ib_device *dev)
{
	return min_t(u32, dev->attrs.max_fast_reg_page_list_len,
		     RDMA_RW_MAX_MR_PAGES);
}

/*
 * A fresh key for the registration about to be posted. Every WR naming
 * the MR after the REG_MR must carry it, the invalidation of a Read
 * with Invalidate too: one of the old key fails, and the MR would stay
 * valid (no map_mr_sg on it then). need_inval: nothing in the chain
 * invalidates the MR, so its next user must (LOCAL_INV).
 */
static void rdma_rw_update_lkey(struct rdma_rw_reg_ctx *reg, bool need_inval)
{
	reg->mr->need_inval = need_inval;
	ib_update_fast_reg_key(reg->mr, ib_inc_rkey(reg->mr->lkey));
	reg->reg_wr.key = reg->mr->lkey;
	reg->sge.lkey = reg->mr->lkey;
	if (reg->wr.wr.opcode == IB_WR_RDMA_READ_WITH_INV)
		reg->wr.wr.ex.invalidate_rkey = reg->mr->lkey;
}

/* Registers up to one MR's worth of sg; returns WRs used or -errno. */
static int rdma_rw_init_one_mr(struct ib_qp *qp, u32 port_num,
			       struct rdma_rw_reg_ctx *reg,
			       struct scatterlist *sg, u32 sg_cnt, u32 offset)
{
	u32 pages_per_mr = rdma_rw_fr_page_list_len(qp->pd->device);
	u32 nents = min(sg_cnt, pages_per_mr);
	int count = 0, ret;

	reg->mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
	if (!reg->mr)
		return -EAGAIN;

	if (reg->mr->need_inval) {
		memset(&reg->inv_wr, 0, sizeof(reg->inv_wr));
		reg->inv_wr.opcode = IB_WR_LOCAL_INV;
		reg->inv_wr.ex.invalidate_rkey = reg->mr->lkey;
		reg->inv_wr.next = &reg->reg_wr.wr;
		count++;
	} else {
		reg->inv_wr.next = NULL;
	}

	ret = ib_map_mr_sg(reg->mr, sg, nents, &offset, PAGE_SIZE);
	if (ret < 0 || ret < (int)nents) {
		ib_mr_pool_put(qp, &qp->rdma_mrs, reg->mr);
		return -EINVAL;
	}

	memset(&reg->reg_wr, 0, sizeof(reg->reg_wr));
	reg->reg_wr.wr.opcode = IB_WR_REG_MR;
	reg->reg_wr.mr = reg->mr;
	reg->reg_wr.access = IB_ACCESS_LOCAL_WRITE;
	if (rdma_protocol_iwarp(qp->device, rw_port(qp->device, port_num)))
		reg->reg_wr.access |= IB_ACCESS_REMOTE_WRITE;
	count++;

	reg->sge.addr = reg->mr->iova;
	reg->sge.length = reg->mr->length;
	return count;
}

/* The head of one registration's chain: its LOCAL_INV if it has one. */
static struct ib_send_wr *rw_reg_head(struct rdma_rw_reg_ctx *reg)
{
	return reg->inv_wr.next ? &reg->inv_wr : &reg->reg_wr.wr;
}

/* Puts back the first @n MRs of a registration context and its array. */
static void rw_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 n)
{
	while (n--)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[n].mr);
	kfree(ctx->reg);
}

/* RDMA WRITE for DMA_TO_DEVICE, RDMA READ (perhaps invalidating) else. */
static enum ib_wr_opcode rw_opcode(enum dma_data_direction dir, bool inval)
{
	if (dir == DMA_TO_DEVICE)
		return IB_WR_RDMA_WRITE;
	return inval ? IB_WR_RDMA_READ_WITH_INV : IB_WR_RDMA_READ;
}

/* Every WR this file builds is set up here, from zero. */
static void rw_wr_set(struct ib_rdma_wr *w, enum ib_wr_opcode op,
		      struct ib_sge *sges, u32 nsge, u64 raddr, u32 rkey)
{
	*w = (struct ib_rdma_wr) {
		.wr.opcode = op,
		.wr.sg_list = sges,
		.wr.num_sge = nsge,
		.remote_addr = raddr,
		.rkey = rkey,
	};
}

/* SGEs straight on the DMA addresses, the first @offset bytes skipped. */
static void rw_fill_sges(struct ib_sge *sge, struct scatterlist *sg, u32 n,
			 u32 offset, u32 lkey)
{
	for (; n; n--, sge++, sg = sg_next(sg), offset = 0) {
		sge->addr = sg_dma_address(sg) + offset;
		sge->length = sg_dma_len(sg) - offset;
		sge->lkey = lkey;
	}
}

static struct scatterlist *rw_sg_skip(struct scatterlist *sg, u32 n)
{
	while (n--)
		sg = sg_next(sg);
	return sg;
}

/*
 * One MR per page_list_len entries of sg, each op chained as
 * [LOCAL_INV] -> REG_MR -> RDMA op, the ops one after the other.
 */
static int rdma_rw_init_mr_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg,
			       u32 sg_cnt, u32 offset, u64 remote_addr,
			       u32 rkey, enum dma_data_direction dir)
{
	u32 per_mr = rdma_rw_fr_page_list_len(qp->pd->device);
	/* iWARP: the read's completion also frees the MR (key set at post). */
	enum ib_wr_opcode op = rw_opcode(dir, rdma_protocol_iwarp(qp->device,
					 rw_port(qp->device, port_num)));
	struct ib_send_wr **link = NULL;
	int ret, total = 0;
	u32 i;

	if (!per_mr)
		return -EOPNOTSUPP;
	ctx->nr_ops = DIV_ROUND_UP(sg_cnt, per_mr);
	ctx->reg = kcalloc(ctx->nr_ops, sizeof(*ctx->reg), GFP_KERNEL);
	if (!ctx->reg)
		return -ENOMEM;

	for (i = 0; i < ctx->nr_ops; i++) {
		struct rdma_rw_reg_ctx *reg = &ctx->reg[i];
		u32 n = min(sg_cnt, per_mr);

		ret = rdma_rw_init_one_mr(qp, port_num, reg, sg, sg_cnt,
					  offset);
		if (ret < 0) {
			rw_put_mrs(ctx, qp, i);
			return ret;
		}
		total += ret + 1;
		rw_wr_set(&reg->wr, op, &reg->sge, 1, remote_addr, rkey);
		reg->reg_wr.wr.next = &reg->wr.wr;
		if (link)
			*link = rw_reg_head(reg);
		link = &reg->wr.wr.next;

		remote_addr += reg->sge.length;
		sg = rw_sg_skip(sg, n);
		sg_cnt -= n;
		offset = 0;
	}
	ctx->type = RDMA_RW_MR;
	return total;
}

/* Without MRs: as many SGEs per WR as the QP takes for the direction. */
static int rdma_rw_init_map_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				struct scatterlist *sg, u32 sg_cnt, u32 offset,
				u64 remote_addr, u32 rkey,
				enum dma_data_direction dir)
{
	u32 per_wr = dir == DMA_TO_DEVICE ? qp->max_write_sge :
		     qp->max_read_sge;
	struct ib_rdma_wr *w;
	u32 i, k;

	if (!per_wr)
		return -EINVAL;
	ctx->nr_ops = DIV_ROUND_UP(sg_cnt, per_wr);
	ctx->map.sges = kcalloc(sg_cnt, sizeof(*ctx->map.sges), GFP_KERNEL);
	ctx->map.wrs = kcalloc(ctx->nr_ops, sizeof(*ctx->map.wrs), GFP_KERNEL);
	if (!ctx->map.sges || !ctx->map.wrs) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
		return -ENOMEM;
	}

	rw_fill_sges(ctx->map.sges, sg, sg_cnt, offset, qp->pd->local_dma_lkey);
	for (i = 0, k = 0; i < ctx->nr_ops; i++) {
		u32 n = min(sg_cnt - k, per_wr);

		w = &ctx->map.wrs[i];
		rw_wr_set(w, rw_opcode(dir, false), &ctx->map.sges[k], n,
			  remote_addr, rkey);
		for (; n; n--)
			remote_addr += ctx->map.sges[k++].length;
		if (i)
			ctx->map.wrs[i - 1].wr.next = &w->wr;
	}
	ctx->type = RDMA_RW_MULTI_WR;
	return ctx->nr_ops;
}

static int rdma_rw_init_single_wr(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				  struct scatterlist *sg, u32 offset,
				  u64 remote_addr, u32 rkey,
				  enum dma_data_direction dir)
{
	rw_fill_sges(&ctx->single.sge, sg, 1, offset, qp->pd->local_dma_lkey);
	rw_wr_set(&ctx->single.wr, rw_opcode(dir, false), &ctx->single.sge, 1,
		  remote_addr, rkey);
	ctx->nr_ops = 1;
	ctx->type = RDMA_RW_SINGLE_WR;
	return 1;
}

/*
 * Maps sg (from byte sg_offset on) and prepares the WRs moving it to
 * (DMA_TO_DEVICE: RDMA WRITE) or from (DMA_FROM_DEVICE: RDMA READ) the
 * remote buffer. Returns the number of WRs the post will use, or -errno.
 */
int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	struct ib_device *dev = qp->pd->device;
	struct scatterlist *first = sg;
	u32 nents;
	int ret;

	ret = ib_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!ret)
		return -ENOMEM;
	nents = ret;

	/* Skip whole entries covered by the offset. */
	for (;;) {
		u32 len = sg_dma_len(sg);

		if (sg_offset < len)
			break;
		sg = sg_next(sg);
		sg_offset -= len;
		nents--;
		if (!sg || !nents) {
			ret = -EINVAL;
			goto out_unmap;
		}
	}

	if (rdma_rw_io_needs_mr(dev, port_num, dir, nents))
		ret = rdma_rw_init_mr_wrs(ctx, qp, port_num, sg, nents,
					  sg_offset, remote_addr, rkey, dir);
	else if (nents > 1)
		ret = rdma_rw_init_map_wrs(ctx, qp, sg, nents, sg_offset,
					   remote_addr, rkey, dir);
	else
		ret = rdma_rw_init_single_wr(ctx, qp, sg, sg_offset,
					     remote_addr, rkey, dir);
	if (ret < 0)
		goto out_unmap;
	return ret;

out_unmap:
	ib_dma_unmap_sg(dev, first, sg_cnt, dir);
	return ret;
}
EXPORT_SYMBOL(rdma_rw_ctx_init);

/*
 * The WR chain of ctx, ending in chain_wr if given, else in a signaled
 * WR that completes through cqe.
 */
struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *head, *tail;
	u32 i;

	if (ctx->type == RDMA_RW_SINGLE_WR) {
		head = &ctx->single.wr.wr;
		tail = head;
	} else if (ctx->type == RDMA_RW_MULTI_WR) {
		head = &ctx->map.wrs[0].wr;
		tail = &ctx->map.wrs[ctx->nr_ops - 1].wr;
	} else if (ctx->type == RDMA_RW_MR) {
		/* A Read with Invalidate frees its MR; others leave it valid. */
		for (i = 0; i < ctx->nr_ops; i++)
			rdma_rw_update_lkey(&ctx->reg[i],
					    ctx->reg[i].wr.wr.opcode !=
					    IB_WR_RDMA_READ_WITH_INV);
		head = rw_reg_head(&ctx->reg[0]);
		tail = &ctx->reg[ctx->nr_ops - 1].wr.wr;
	} else {
		WARN_ON_ONCE(1);
		return NULL;
	}

	if (!chain_wr) {
		tail->wr_cqe = cqe;
		tail->send_flags |= IB_SEND_SIGNALED;
	} else {
		tail->next = chain_wr;
	}
	return head;
}
EXPORT_SYMBOL(rdma_rw_ctx_wrs);

int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first;

	first = rdma_rw_ctx_wrs(ctx, qp, port_num, cqe, chain_wr);
	if (!first)
		return -EINVAL;
	return ib_post_send(qp, first, NULL);
}
EXPORT_SYMBOL(rdma_rw_ctx_post);

void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir)
{
	if (ctx->type == RDMA_RW_MR) {
		rw_put_mrs(ctx, qp, ctx->nr_ops);
	} else if (ctx->type == RDMA_RW_MULTI_WR) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
	} else if (ctx->type != RDMA_RW_SINGLE_WR) {
		WARN_ON_ONCE(1);
		return;
	}
	ib_dma_unmap_sg(qp->pd->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy);

/*
 * Signature contexts move data through an integrity MR of a QP created
 * with IB_QP_CREATE_INTEGRITY_EN; without IBK_INTEGRITY_HANDOVER (every
 * device of ours) no such QP exists, and ULPs only ask when the device
 * advertised it.
 */
int rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg,
			       u32 sg_cnt, struct scatterlist *prot_sg,
			       u32 prot_sg_cnt, struct ib_sig_attrs *sig_attrs,
			       u64 remote_addr, u32 rkey,
			       enum dma_data_direction dir)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_rw_ctx_signature_init);

/* Nothing to undo: rdma_rw_ctx_signature_init() never succeeds. */
void rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg,
				   u32 sg_cnt, struct scatterlist *prot_sg,
				   u32 prot_sg_cnt,
				   enum dma_data_direction dir)
{
	WARN_ON_ONCE(1);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy_signature);

/* How many rw contexts' worth of WRs an I/O of maxpages pages needs. */
unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages)
{
	u32 per_op;

	if (rdma_rw_can_use_mr(device, port_num))
		per_op = rdma_rw_fr_page_list_len(device);
	else
		per_op = device->attrs.max_sge_rd;
	return per_op ? DIV_ROUND_UP(maxpages, per_op) : maxpages;
}
EXPORT_SYMBOL(rdma_rw_mr_factor);

unsigned int rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				 unsigned int max_rdma_ctxs, u32 create_flags)
{
	unsigned int per_ctx = 1;

	/*
	 * With MRs each context may also post REG_MR and LOCAL_INV; an
	 * integrity context always registers.
	 */
	if (rdma_rw_can_use_mr(dev, port_num) ||
	    (create_flags & IB_QP_CREATE_INTEGRITY_EN))
		per_ctx += 2;
	return per_ctx * max_rdma_ctxs;
}
EXPORT_SYMBOL(rdma_rw_max_send_wr);

void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr)
{
	attr->cap.max_send_wr += rdma_rw_max_send_wr(dev, attr->port_num,
						     attr->cap.max_rdma_ctxs,
						     attr->create_flags);
	if (dev->attrs.max_qp_wr > 0)
		attr->cap.max_send_wr = min_t(u32, attr->cap.max_send_wr,
					      dev->attrs.max_qp_wr);
}

int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr)
{
	struct ib_device *dev = qp->pd->device;

	if (!attr->cap.max_rdma_ctxs || !rdma_rw_can_use_mr(dev, attr->port_num))
		return 0;
	return ib_mr_pool_init(qp, &qp->rdma_mrs, attr->cap.max_rdma_ctxs,
			       IB_MR_TYPE_MEM_REG,
			       rdma_rw_fr_page_list_len(dev), 0);
}

void rdma_rw_cleanup_mrs(struct ib_qp *qp)
{
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
}
