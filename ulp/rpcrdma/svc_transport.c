// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The server transport ("rdma"): not yet written (issue 14). */
#include "rpcrdma.h"

int rpcrdma_svc_init(void)
{
	return 0;
}

void rpcrdma_svc_exit(void)
{
}
