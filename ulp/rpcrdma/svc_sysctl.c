// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /proc/sys/sunrpc/svc_rdma/: the server transport's tunables and
 * counters, with the names, defaults and ranges of 6.1 (ULP.md 7.3).
 * The tunables are read when a connection is accepted; counters print
 * as a decimal and any write sets them back to zero.
 */
#include <linux/atomic.h>
#include <linux/sysctl.h>

#include "svc_conn.h"

int svcr_max_requests = 64;
int svcr_max_req_size = 4096;
int svcr_max_ord = 16;

static int min_max_requests = 4, max_max_requests = 16384;
static int min_max_req_size = 4096, max_max_req_size = 65536;
static int min_ord = 1, max_ord = 255;

static atomic64_t stat_read, stat_recv, stat_write, stat_sq_starve;

/* The counters 6.1 keeps only for their names: always zero. */
static int stat_obsolete;

void svcr_count_recv(void)
{
	atomic64_inc(&stat_recv);
}

void svcr_count_read(void)
{
	atomic64_inc(&stat_read);
}

void svcr_count_write(void)
{
	atomic64_inc(&stat_write);
}

void svcr_count_sq_starve(void)
{
	atomic64_inc(&stat_sq_starve);
}

static int svcr_counter_handler(struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	atomic64_t *counter = table->data;
	unsigned long snap;
	struct ctl_table tmp = {
		.data = &snap,
		.maxlen = sizeof(snap),
	};

	if (write) {
		/* whatever was written, the counter starts over */
		atomic64_set(counter, 0);
		*ppos += *lenp;
		return 0;
	}
	snap = (unsigned long)atomic64_read(counter);
	return proc_doulongvec_minmax(&tmp, 0, buffer, lenp, ppos);
}

#define SVCR_TUNABLE(_name, _var, _min, _max)			\
	{							\
		.procname	= _name,			\
		.data		= &(_var),			\
		.maxlen		= sizeof(int),			\
		.mode		= 0644,				\
		.proc_handler	= proc_dointvec_minmax,		\
		.extra1		= &(_min),			\
		.extra2		= &(_max),			\
	}

#define SVCR_COUNTER(_name, _var)				\
	{							\
		.procname	= _name,			\
		.data		= &(_var),			\
		.maxlen		= sizeof(_var),			\
		.mode		= 0644,				\
		.proc_handler	= svcr_counter_handler,		\
	}

#define SVCR_OBSOLETE(_name)					\
	{							\
		.procname	= _name,			\
		.data		= &stat_obsolete,		\
		.maxlen		= sizeof(int),			\
		.mode		= 0644,				\
		.proc_handler	= proc_dointvec_minmax,		\
		.extra1		= SYSCTL_ZERO,			\
		.extra2		= SYSCTL_ZERO,			\
	}

static struct ctl_table svcr_sysctl_table[] = {
	SVCR_TUNABLE("max_requests", svcr_max_requests,
		     min_max_requests, max_max_requests),
	SVCR_TUNABLE("max_req_size", svcr_max_req_size,
		     min_max_req_size, max_max_req_size),
	SVCR_TUNABLE("max_outbound_read_requests", svcr_max_ord,
		     min_ord, max_ord),
	SVCR_COUNTER("rdma_stat_read", stat_read),
	SVCR_COUNTER("rdma_stat_recv", stat_recv),
	SVCR_COUNTER("rdma_stat_write", stat_write),
	SVCR_COUNTER("rdma_stat_sq_starve", stat_sq_starve),
	SVCR_OBSOLETE("rdma_stat_rq_starve"),
	SVCR_OBSOLETE("rdma_stat_rq_poll"),
	SVCR_OBSOLETE("rdma_stat_rq_prod"),
	SVCR_OBSOLETE("rdma_stat_sq_poll"),
	SVCR_OBSOLETE("rdma_stat_sq_prod"),
	{ }
};

static struct ctl_table_header *svcr_sysctl_header;

int svcr_sysctl_init(void)
{
	svcr_sysctl_header = register_sysctl("sunrpc/svc_rdma",
					     svcr_sysctl_table);
	return svcr_sysctl_header ? 0 : -ENOMEM;
}

void svcr_sysctl_exit(void)
{
	unregister_sysctl_table(svcr_sysctl_header);
	svcr_sysctl_header = NULL;
}
