// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rpcrdma.ko: registers the server transport, then the client one (6.1's
 * order), and takes them away in reverse.
 */
#include <linux/module.h>

#include "rpcrdma.h"

static int __init rpcrdma_init(void)
{
	int err;

	err = rpcrdma_svc_init();
	if (err)
		return err;
	err = rpcrdma_xprt_init();
	if (err)
		goto err_svc;
	return 0;

err_svc:
	rpcrdma_svc_exit();
	return err;
}

static void __exit rpcrdma_exit(void)
{
	rpcrdma_xprt_exit();
	rpcrdma_svc_exit();
}

module_init(rpcrdma_init);
module_exit(rpcrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA transports for sunrpc (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
/* sunrpc asks for "rpc<netid>" (client) and "svc<class>" (server) */
MODULE_ALIAS("svcrdma");
MODULE_ALIAS("xprtrdma");
MODULE_ALIAS("rpcrdma6");
