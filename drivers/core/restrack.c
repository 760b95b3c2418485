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

/* One root per device, looked up by device index. */
static DEFINE_XARRAY(roots);

int rdma_restrack_init(struct ib_device *dev)
{
	struct rdma_restrack_root *rt;
	int ret;

	rt = kzalloc(sizeof(*rt), GFP_KERNEL);
	if (!rt)
		return -ENOMEM;
	ret = xa_err(xa_store(&roots, dev->index, rt, GFP_KERNEL));
	if (ret)
		kfree(rt);
	return ret;
}

void rdma_restrack_clean(struct ib_device *dev)
{
	if (dev->index)
		kfree(xa_erase(&roots, dev->index));
}

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type)
{
	struct rdma_restrack_root *rt = xa_load(&roots, dev->index);

	if (!rt || type >= RDMA_RESTRACK_MAX)
		return 0;
	return atomic_read(&rt->count[type]);
}
EXPORT_SYMBOL(rdma_restrack_count);
