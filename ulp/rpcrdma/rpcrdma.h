/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rpcrdma.ko's halves as the module's entry points see them: the client
 * transport (xprt_*.c) and the server transport (svc_*.c).
 */
#ifndef RDMA_KMOD_RPCRDMA_H
#define RDMA_KMOD_RPCRDMA_H

#include <linux/dma-direction.h>
#include <linux/sunrpc/xdr.h>
#include <linux/sunrpc/rpc_rdma.h>

struct ib_device;
struct rpc_xprt;

/* one kmalloc'ed buffer mapped for @dir; 0 or -ENOMEM (*buf NULL then) */
int rpcrdma_map_buf(struct ib_device *dev, unsigned int size,
		    enum dma_data_direction dir, void **buf, u64 *dma);
void rpcrdma_unmap_buf(struct ib_device *dev, unsigned int size,
		       enum dma_data_direction dir, void *buf, u64 dma);

/*
 * An RDMA_MSG header with three empty chunk lists at @p (the client's
 * inline calls, the server's callbacks); returns its length.
 */
static inline unsigned int rpcrdma_encode_inline_header(__be32 xid,
							u32 credits, __be32 *p)
{
	*p++ = xid;
	*p++ = rpcrdma_version;
	*p++ = cpu_to_be32(credits);
	*p++ = rdma_msg;
	*p++ = xdr_zero;	/* read list */
	*p++ = xdr_zero;	/* write list */
	*p = xdr_zero;		/* reply chunk */
	return RPCRDMA_HDRLEN_MIN;
}

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
