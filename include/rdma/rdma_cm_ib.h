/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rdma_cm calls that only make sense on InfiniBand (and RoCE) ports. */
#ifndef RDMA_KMOD_RDMA_CM_IB_H
#define RDMA_KMOD_RDMA_CM_IB_H

#include <rdma/rdma_cm.h>

/* Use @path_rec as the route of @id instead of resolving one. */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec);

/* The Q_Key of rdma_cm's UD and multicast ids (RDMA_PS_UDP/IPOIB). */
#define RDMA_UDP_QKEY 0x01234567

#endif /* RDMA_KMOD_RDMA_CM_IB_H */
