// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The kmalloc'ed, DMA-mapped buffers both transports send and receive
 * inline messages from.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rpcrdma.h"

int rpcrdma_map_buf(struct ib_device *dev, unsigned int size,
		    enum dma_data_direction dir, void **buf, u64 *dma)
{
	*buf = kmalloc(size, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *buf, size, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

void rpcrdma_unmap_buf(struct ib_device *dev, unsigned int size,
		       enum dma_data_direction dir, void *buf, u64 dma)
{
	ib_dma_unmap_single(dev, dma, size, dir);
	kfree(buf);
}
