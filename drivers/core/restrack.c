// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Resource tracking for `rdma resource`: per-device object counts by type.
 * The object verbs add and remove entries; until they land, all are zero.
 */
#include <linux/atomic.h>
#include <linux/slab.h>
#include "core_priv.h"

struct rdma_restrack_root {
	atomic_t count[RDMA_RESTRACK_MAX];
};

int rdma_restrack_init(struct ib_device *dev)
{
	dev->res = kzalloc(sizeof(*dev->res), GFP_KERNEL);
	return dev->res ? 0 : -ENOMEM;
}

void rdma_restrack_clean(struct ib_device *dev)
{
	kfree(dev->res);
	dev->res = NULL;
}

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type)
{
	struct rdma_restrack_root *rt = dev->res;

	if (!rt || type >= RDMA_RESTRACK_MAX)
		return 0;
	return atomic_read(&rt->count[type]);
}
EXPORT_SYMBOL(rdma_restrack_count);
