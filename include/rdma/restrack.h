/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Resource tracking: which objects a device has, for `rdma resource`.
 * The object verbs fill it in; until then every count is zero.
 */
#ifndef RDMA_KMOD_RESTRACK_H
#define RDMA_KMOD_RESTRACK_H

#include <linux/types.h>

struct ib_device;

enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_COUNTER,
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type);

#endif /* RDMA_KMOD_RESTRACK_H */
