/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe: Soft-RoCE, RDMA over Converged Ethernet v2 in software.
 */
#ifndef RXE_H
#define RXE_H

#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include "rxe_param.h"

struct rxe_port {
	struct ib_port_attr attr;
	spinlock_t lock;	/* guards attr.state / attr.phys_state */
};

struct rxe_dev {
	struct ib_device ib_dev;	/* first: ib_alloc_device() */
	struct ib_device_attr attr;
	struct rxe_port port;
	/* Held (with a tracked reference) until dealloc_driver. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
};

static inline struct rxe_dev *to_rdev(struct ib_device *dev)
{
	return dev ? container_of(dev, struct rxe_dev, ib_dev) : NULL;
}

/* rxe.c */
int rxe_add(struct net_device *ndev, const char *ibdev_name);

/* rxe_net.c */
int rxe_net_init(void);
void rxe_net_exit(void);
void rxe_port_up(struct rxe_dev *rxe);
void rxe_port_down(struct rxe_dev *rxe);
void rxe_set_port_state(struct rxe_dev *rxe);
void rxe_set_mtu(struct rxe_dev *rxe, unsigned int ndev_mtu);

/* rxe_verbs.c */
int rxe_register_device(struct rxe_dev *rxe, const char *ibdev_name);

#endif /* RXE_H */
