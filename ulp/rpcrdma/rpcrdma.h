/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rpcrdma.ko's halves as the module's entry points see them: the client
 * transport (xprt_*.c) and the server transport (svc_*.c).
 */
#ifndef RDMA_KMOD_RPCRDMA_H
#define RDMA_KMOD_RPCRDMA_H

#include <linux/dma-direction.h>

struct ib_device;
struct rpc_xprt;

/* one kmalloc'ed buffer mapped for @dir; 0 or -ENOMEM (*buf NULL then) */
int rpcrdma_map_buf(struct ib_device *dev, unsigned int size,
		    enum dma_data_direction dir, void **buf, u64 *dma);
void rpcrdma_unmap_buf(struct ib_device *dev, unsigned int size,
		       enum dma_data_direction dir, void *buf, u64 dma);

/*
 * xprt->address_strings from xprt->addr, as the socket transports make
 * them (the backchannel's too); and their release.
 */
void rpcrdma_format_addresses(struct rpc_xprt *xprt);
void rpcrdma_free_addresses(struct rpc_xprt *xprt);

int rpcrdma_xprt_init(void);
void rpcrdma_xprt_exit(void);

int rpcrdma_svc_init(void);
void rpcrdma_svc_exit(void);

#endif
