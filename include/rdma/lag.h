/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RoCE over a bonded netdev (LAG): which slave port a RoCE v2 address
 * handle transmits on, chosen by the bond's own hash.
 */
#ifndef RDMA_KMOD_LAG_H
#define RDMA_KMOD_LAG_H

#include <net/lag.h>

struct ib_device;
struct rdma_ah_attr;

enum rdma_lag_flags {
	/* Hash over every slave, not only the active ones. */
	RDMA_LAG_FLAGS_HASH_ALL_SLAVES = 1 << 0
};

/* Drops the reference rdma_lag_get_ah_roce_slave() returned (or NULL). */
void rdma_lag_put_ah_roce_slave(struct net_device *xmit_slave);
/*
 * The slave of the bond behind @ah_attr's source GID that the bond would
 * send the AH's packets on, referenced; NULL when the GID is not on a bond
 * or the AH is not RoCE v2.
 */
struct net_device *rdma_lag_get_ah_roce_slave(struct ib_device *device,
					      struct rdma_ah_attr *ah_attr,
					      gfp_t flags);

#endif /* RDMA_KMOD_LAG_H */
