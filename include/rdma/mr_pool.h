/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Per-QP pools of fast-registration MRs (mr.c), as upstream: kept on a
 * list of the QP, protected by qp->mr_lock, counted in qp->mrs_used.
 */
#ifndef RDMA_KMOD_MR_POOL_H
#define RDMA_KMOD_MR_POOL_H

#include <rdma/ib_verbs.h>

/* Takes an MR off the pool; NULL when it is empty. Any context. */
struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list);
/* Gives an MR from ib_mr_pool_get() back. Any context. */
void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		    struct ib_mr *mr);
/* Fills the pool with nr MRs of the type (integrity MRs unsupported). */
int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg);
/* Deregisters every MR left in the pool. */
void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list);

#endif /* RDMA_KMOD_MR_POOL_H */
