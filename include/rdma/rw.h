/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Generic RDMA READ/WRITE of a scatterlist to or from a remote buffer
 * (rw.c), upstream 6.1 API: a context turns the local scatterlist into
 * the fewest RDMA work requests the QP allows, registering MRs where the
 * transport needs them (iWARP reads) or the ib_core.force_mr parameter
 * says so. Signature (T10-PI) contexts need IBK_INTEGRITY_HANDOVER, which
 * none of our devices has: they fail with -EOPNOTSUPP there.
 */
#ifndef RDMA_KMOD_RW_H
#define RDMA_KMOD_RW_H

#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/mr_pool.h>

struct rdma_rw_reg_ctx {
	struct ib_sge		sge;
	struct ib_rdma_wr	wr;
	struct ib_reg_wr	reg_wr;
	struct ib_send_wr	inv_wr;
	struct ib_mr		*mr;
};

struct rdma_rw_ctx {
	u32			nr_ops;	/* RDMA READ/WRITE WRs */
	u8			type;	/* private to rw.c */
	union {
		/* One SGE, one WR. */
		struct {
			struct ib_sge		sge;
			struct ib_rdma_wr	wr;
		} single;
		/* Several WRs of up to max_{read,write}_sge SGEs each. */
		struct {
			struct ib_sge		*sges;
			struct ib_rdma_wr	*wrs;
		} map;
		/* One registered MR per WR. */
		struct rdma_rw_reg_ctx *reg;
	};
};

int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir);
void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir);
int rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg,
			       u32 sg_cnt, struct scatterlist *prot_sg,
			       u32 prot_sg_cnt, struct ib_sig_attrs *sig_attrs,
			       u64 remote_addr, u32 rkey,
			       enum dma_data_direction dir);
void rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg,
				   u32 sg_cnt, struct scatterlist *prot_sg,
				   u32 prot_sg_cnt,
				   enum dma_data_direction dir);
struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe,
				   struct ib_send_wr *chain_wr);
int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr);

unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages);
/* Send queue entries @max_rdma_ctxs contexts may need on @port_num. */
unsigned int rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				 unsigned int max_rdma_ctxs, u32 create_flags);
/* Called by ib_create_qp() for attr->cap.max_rdma_ctxs. */
void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr);
int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr);
void rdma_rw_cleanup_mrs(struct ib_qp *qp);

#endif /* RDMA_KMOD_RW_H */
