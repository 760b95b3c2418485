/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rpcrdma.ko's halves as the module's entry points see them: the client
 * transport (xprt_*.c) and the server transport (svc_*.c).
 */
#ifndef RDMA_KMOD_RPCRDMA_H
#define RDMA_KMOD_RPCRDMA_H

int rpcrdma_xprt_init(void);
void rpcrdma_xprt_exit(void);

int rpcrdma_svc_init(void);
void rpcrdma_svc_exit(void);

#endif
