/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe: Soft-RoCE, RDMA over Converged Ethernet v2 in software.
 */
#ifndef RXE_H
#define RXE_H

#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <rdma/ib_verbs.h>
#include "rxe_param.h"
#include "rxe_hdr.h"
#include "rxe_opcode.h"
#include "rxe_queue.h"
#include "rxe_pool.h"
#include "rxe_verbs.h"
#include "rxe_net.h"
#include "rxe_task.h"
#include "sib.h"

struct rxe_port {
	struct ib_port_attr attr;
	spinlock_t lock;	/* guards attr: state, phys_state, error counters */
};

struct rxe_dev {
	struct ib_device ib_dev;	/* first: ib_alloc_device() */
	struct ib_device_attr attr;
	struct rxe_port port;
	/* Held (with a tracked reference) until dealloc_driver. */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	/* non-NULL: an InfiniBand port (sib.h), else RoCE */
	struct sib_port *sib;

	/* object numbering, one pool per type (rxe_pool.c's table) */
	struct rxe_pool uc_pool, pd_pool;
	struct rxe_pool cq_pool, srq_pool, qp_pool, ah_pool;
	struct rxe_pool mr_pool, mw_pool;

	/* cookies of user rings not yet mmap()ed, by page offset (rxe_mmap.c) */
	struct xarray mmaps;
	u64 mmap_next;		/* next offset to hand out; under xa_lock */

	atomic64_t stats_counters[RXE_NUM_OF_COUNTERS];
	/* receive drops by reason (not hw counters: stock has no such) */
	atomic64_t rx_drops[RXE_NUM_RX_DROPS];

	u32 qp_gsi_index;	/* set once QP1 exists (MAD work) */
	u32 qp_smi_index;	/* set once QP0 exists (sib only) */

	/* multicast groups by MGID (rxe_mcast.c) */
	struct mutex mcg_mutex;		/* attach/detach, netdev filter */
	spinlock_t mcg_lock;		/* mcg_tree and QP lists vs receive */
	struct rb_root mcg_tree;
	unsigned int num_mcg;
	unsigned int num_mca;		/* QP attachments, all groups */
};

static inline struct rxe_dev *to_rdev(struct ib_device *dev)
{
	return dev ? container_of(dev, struct rxe_dev, ib_dev) : NULL;
}

static inline struct rxe_dev *rxe_from_qp(struct rxe_qp *qp)
{
	return to_rdev(qp->ibqp.device);
}

#include "rxe_loc.h"

/* rxe.c */
int rxe_add(struct net_device *ndev, const char *ibdev_name, bool ib);
int rxe_newlink_common(const char *ibdev_name, struct net_device *ndev,
		       bool ib);

/* rxe_net.c */
int rxe_net_init(void);
void rxe_net_exit(void);
void rxe_port_up(struct rxe_dev *rxe);
void rxe_port_down(struct rxe_dev *rxe);
void rxe_set_port_state(struct rxe_dev *rxe);
void rxe_set_mtu(struct rxe_dev *rxe, unsigned int ndev_mtu);

/* rxe_verbs.c */
int rxe_register_device(struct rxe_dev *rxe, const char *ibdev_name);

/* rxe_hw_counters.c: ops alloc_hw_port_stats / get_hw_stats */
int rxe_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			u32 port, int index);
struct rdma_hw_stats *rxe_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						 u32 port_num);

#endif /* RXE_H */
