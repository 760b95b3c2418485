// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client's /proc/sys/sunrpc/rdma_* tunables (ULP.md 7.3). 6.1 has them
 * only in kernels built with CONFIG_SUNRPC_DEBUG (Debian's is); the values
 * are read when a transport is created or connects.
 */
#include <linux/sysctl.h>

#include "xprt_rdma.h"

unsigned int rpcrdma_slot_table_entries = RPCRDMA_DEF_SLOTS;
unsigned int rpcrdma_max_inline_read = RPCRDMA_DEF_INLINE;
unsigned int rpcrdma_max_inline_write = RPCRDMA_DEF_INLINE;

#if IS_ENABLED(CONFIG_SUNRPC_DEBUG)

/* accepted but without effect, as in 6.1 */
static unsigned int rpcrdma_inline_write_padding;
static unsigned int rpcrdma_memreg_strategy = RPCRDMA_MEMREG_FRWR;
static int rpcrdma_pad_optimize;

static unsigned int min_slots = RPCRDMA_MIN_SLOTS;
static unsigned int max_slots = RPCRDMA_MAX_SLOTS;
static unsigned int min_inline = RPCRDMA_MIN_INLINE;
static unsigned int max_inline = RPCRDMA_MAX_INLINE;
static unsigned int zero;
static unsigned int max_padding = RPCRDMA_MAX_PADDING;
static unsigned int max_memreg = RPCRDMA_MEMREG_MAX;

static struct ctl_table rpcrdma_xprt_table[] = {
	{
		.procname	= "rdma_slot_table_entries",
		.data		= &rpcrdma_slot_table_entries,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &min_slots,
		.extra2		= &max_slots,
	},
	{
		.procname	= "rdma_max_inline_read",
		.data		= &rpcrdma_max_inline_read,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &min_inline,
		.extra2		= &max_inline,
	},
	{
		.procname	= "rdma_max_inline_write",
		.data		= &rpcrdma_max_inline_write,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &min_inline,
		.extra2		= &max_inline,
	},
	{
		.procname	= "rdma_inline_write_padding",
		.data		= &rpcrdma_inline_write_padding,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &zero,
		.extra2		= &max_padding,
	},
	{
		.procname	= "rdma_memreg_strategy",
		.data		= &rpcrdma_memreg_strategy,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &zero,
		.extra2		= &max_memreg,
	},
	{
		.procname	= "rdma_pad_optimize",
		.data		= &rpcrdma_pad_optimize,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{ }
};

static struct ctl_table_header *rpcrdma_xprt_sysctls;

int rpcrdma_sysctl_init(void)
{
	/* sunrpc owns the directory; this adds entries to it */
	rpcrdma_xprt_sysctls = register_sysctl("sunrpc", rpcrdma_xprt_table);
	return rpcrdma_xprt_sysctls ? 0 : -ENOMEM;
}

void rpcrdma_sysctl_exit(void)
{
	unregister_sysctl_table(rpcrdma_xprt_sysctls);
	rpcrdma_xprt_sysctls = NULL;
}

#else

int rpcrdma_sysctl_init(void)
{
	return 0;
}

void rpcrdma_sysctl_exit(void)
{
}

#endif
