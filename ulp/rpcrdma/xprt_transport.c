// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client transport as sunrpc sees it: the "rdma" xprt_class (netids
 * rdma and rdma6), transport creation and the rpc_xprt_ops table. The
 * connection, marshalling and reply handling live in xprt_conn.c,
 * xprt_marshal.c and xprt_reply.c, the NFSv4.1+ backchannel in
 * xprt_backchannel.c.
 */
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sunrpc/addr.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/sched.h>

#include "rpcrdma.h"
#include "xprt_rdma.h"

/* ULP.md 7.4: 60 s RPC timeout, no transport-level retries */
static const struct rpc_timeout rpcrdma_default_timeout = {
	.to_initval	= 60 * HZ,
	.to_maxval	= 60 * HZ,
};

#define RPCRDMA_BIND_TIMEOUT		(60 * HZ)
#define RPCRDMA_INIT_REEST_TO		(5 * HZ)
#define RPCRDMA_MAX_REEST_TO		(30 * HZ)
#define RPCRDMA_IDLE_DISC_TO		(5 * 60 * HZ)
/*
 * 1 MiB plus a page, as 6.1 advertises (ULP.md 7.4): NFS then picks 1 MiB
 * rsize/wsize, whose calls go in position-zero Read chunks and replies in
 * Reply chunks (xprt_marshal.c).
 */
#define RPCRDMA_MAX_PAYLOAD		(257 << PAGE_SHIFT)

void rpcrdma_format_addresses(struct rpc_xprt *xprt)
{
	struct sockaddr *sap = (struct sockaddr *)&xprt->addr;
	const char *netid = sap->sa_family == AF_INET6 ? "rdma6" : "rdma";
	char buf[128];

	/* the same strings the socket transports give: /proc/mounts uses them */
	rpc_ntop(sap, buf, sizeof(buf));
	xprt->address_strings[RPC_DISPLAY_ADDR] = kstrdup(buf, GFP_KERNEL);
	snprintf(buf, sizeof(buf), "%u", rpc_get_port(sap));
	xprt->address_strings[RPC_DISPLAY_PORT] = kstrdup(buf, GFP_KERNEL);
	xprt->address_strings[RPC_DISPLAY_PROTO] = "rdma";
	if (sap->sa_family == AF_INET6)
		snprintf(buf, sizeof(buf), "%pi6",
			 &((struct sockaddr_in6 *)sap)->sin6_addr);
	else
		snprintf(buf, sizeof(buf), "%08x",
			 ntohl(((struct sockaddr_in *)sap)->sin_addr.s_addr));
	xprt->address_strings[RPC_DISPLAY_HEX_ADDR] = kstrdup(buf, GFP_KERNEL);
	snprintf(buf, sizeof(buf), "%4hx", rpc_get_port(sap));
	xprt->address_strings[RPC_DISPLAY_HEX_PORT] = kstrdup(buf, GFP_KERNEL);
	xprt->address_strings[RPC_DISPLAY_NETID] = netid;
}

/* PROTO and NETID point at constants; the others were allocated */
static void rpcrdma_free_port_strings(struct rpc_xprt *xprt)
{
	kfree(xprt->address_strings[RPC_DISPLAY_PORT]);
	xprt->address_strings[RPC_DISPLAY_PORT] = NULL;
	kfree(xprt->address_strings[RPC_DISPLAY_HEX_PORT]);
	xprt->address_strings[RPC_DISPLAY_HEX_PORT] = NULL;
}

void rpcrdma_free_addresses(struct rpc_xprt *xprt)
{
	kfree(xprt->address_strings[RPC_DISPLAY_ADDR]);
	xprt->address_strings[RPC_DISPLAY_ADDR] = NULL;
	kfree(xprt->address_strings[RPC_DISPLAY_HEX_ADDR]);
	xprt->address_strings[RPC_DISPLAY_HEX_ADDR] = NULL;
	rpcrdma_free_port_strings(xprt);
}

static void rpcrdma_set_port(struct rpc_xprt *xprt, unsigned short port)
{
	struct sockaddr *sap = (struct sockaddr *)&xprt->addr;
	char buf[8];

	rpc_set_port(sap, port);
	rpcrdma_free_port_strings(xprt);
	/* rpcbind's reply runs in rpciod, maybe on behalf of writeback */
	snprintf(buf, sizeof(buf), "%u", port);
	xprt->address_strings[RPC_DISPLAY_PORT] = kstrdup(buf, GFP_NOFS);
	snprintf(buf, sizeof(buf), "%4hx", port);
	xprt->address_strings[RPC_DISPLAY_HEX_PORT] = kstrdup(buf, GFP_NOFS);
}

/*
 * xprt_connect() calls this with XPRT_LOCKED held by @task; the lock is
 * handed to the connect worker so nothing sends or closes meanwhile.
 */
static void rpcrdma_connect(struct rpc_xprt *xprt, struct rpc_task *task)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);
	unsigned long delay = 0;

	/* false only if @task lost the lock; the worker copes either way */
	xprt_lock_connect(xprt, task, rx);
	if (rx->was_connected) {
		delay = xprt_reconnect_delay(xprt);
		xprt_reconnect_backoff(xprt, RPCRDMA_INIT_REEST_TO);
	}
	rpcrdma_conn_schedule(rx, delay);
}

/* ->close: sunrpc's autoclose work, XPRT_LOCKED held, may sleep */
static void rpcrdma_close(struct rpc_xprt *xprt)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);

	rpcrdma_ep_destroy(rx);
	/* outstanding calls are retransmitted on the next connection */
	xprt->connect_cookie++;
	xprt_disconnect_done(xprt);
}

static void rpcrdma_destroy(struct rpc_xprt *xprt)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);

	rpcrdma_conn_cancel(rx);
	rpcrdma_ep_destroy(rx);
	rpcrdma_bc_release_all(rx);
	rpcrdma_free_addresses(xprt);
	xprt_free(xprt);
	module_put(THIS_MODULE);
}

static void rpcrdma_inject_disconnect(struct rpc_xprt *xprt)
{
	xprt_force_disconnect(xprt);
}

static int rpcrdma_send_request(struct rpc_rqst *rqst)
{
	struct rpc_xprt *xprt = rqst->rq_xprt;

	if (!xprt_connected(xprt))
		return -ENOTCONN;
	/*
	 * A backchannel reply (its rqst is one of xprt_backchannel.c's,
	 * in use): the server's call was its credit (RFC 8167), so it
	 * takes none of the forward window.
	 */
	if (bc_prealloc(rqst))
		return rpcrdma_bc_send_reply(rpcx(xprt), rqst);
	/* a slot in the credit window, or wait for one */
	if (!xprt_request_get_cong(xprt, rqst))
		return -EBADSLT;
	/* the start of the RTT (and the end of the backlog) mountstats shows */
	rqst->rq_xtime = ktime_get();
	return rpcrdma_marshal_and_send(rpcx(xprt), rqst);
}

static int rpcrdma_get_srcaddr(struct rpc_xprt *xprt, char *buf,
			       size_t buflen)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);
	struct sockaddr_storage ss;
	int len;

	spin_lock(&rx->stats_lock);
	ss = rx->srcaddr;
	spin_unlock(&rx->stats_lock);
	if (ss.ss_family == AF_UNSPEC)
		return -ENOTCONN;
	len = rpc_ntop((struct sockaddr *)&ss, buf, buflen);
	return len ? len : -EINVAL;
}

static unsigned short rpcrdma_get_srcport(struct rpc_xprt *xprt)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);
	unsigned short port;

	spin_lock(&rx->stats_lock);
	port = rx->srcaddr.ss_family == AF_UNSPEC ? 0 :
	       rpc_get_port((struct sockaddr *)&rx->srcaddr);
	spin_unlock(&rx->stats_lock);
	return port;
}

/* the 27-number line nfs-utils' mountstats parses (ULP.md 7.4) */
static void rpcrdma_print_stats(struct rpc_xprt *xprt, struct seq_file *seq)
{
	const struct rpcrdma_stats *st = &rpcx(xprt)->stats;
	long idle = 0;

	if (xprt_connected(xprt))
		idle = (long)(jiffies - xprt->last_used) / HZ;
	seq_printf(seq, "\txprt:\trdma 0 %lu %lu %lu %ld %lu %lu %lu %llu %llu ",
		   xprt->stat.bind_count, xprt->stat.connect_count,
		   xprt->stat.connect_time / HZ, idle, xprt->stat.sends,
		   xprt->stat.recvs, xprt->stat.bad_xids, xprt->stat.req_u,
		   xprt->stat.bklog_u);
	seq_printf(seq, "%lu %lu %lu %llu %llu %llu %llu %lu %lu %lu ",
		   st->read_chunk_count, st->write_chunk_count,
		   st->reply_chunk_count, st->total_rdma_request,
		   st->total_rdma_reply, st->pullup_copy_count,
		   st->fixup_copy_count, st->hardway_register_count,
		   st->failed_marshal_count, st->bad_reply_count);
	seq_printf(seq, "%lu %lu %lu %lu %lu %lu 0\n",
		   st->nomsg_call_count, st->mrs_recycled, st->mrs_orphaned,
		   st->mrs_allocated, st->local_inv_needed,
		   st->empty_sendctx_q);
}

/* swap over NFS/RDMA is not offered */
static int rpcrdma_enable_swap(struct rpc_xprt *xprt)
{
	return -EINVAL;
}

static void rpcrdma_disable_swap(struct rpc_xprt *xprt)
{
}

static const struct rpc_xprt_ops rpcrdma_xprt_ops = {
	.reserve_xprt		= xprt_reserve_xprt_cong,
	.release_xprt		= xprt_release_xprt_cong,
	.alloc_slot		= xprt_alloc_slot,
	.free_slot		= xprt_free_slot,
	.release_request	= xprt_release_rqst_cong,
	.rpcbind		= rpcb_getport_async,
	.set_port		= rpcrdma_set_port,
	.connect		= rpcrdma_connect,
	.get_srcaddr		= rpcrdma_get_srcaddr,
	.get_srcport		= rpcrdma_get_srcport,
	.buf_alloc		= rpc_malloc,
	.buf_free		= rpcrdma_buf_free,
	.send_request		= rpcrdma_send_request,
	.wait_for_reply_request	= xprt_wait_for_reply_request_def,
	.close			= rpcrdma_close,
	.destroy		= rpcrdma_destroy,
	.print_stats		= rpcrdma_print_stats,
	.enable_swap		= rpcrdma_enable_swap,
	.disable_swap		= rpcrdma_disable_swap,
	.inject_disconnect	= rpcrdma_inject_disconnect,
#if IS_ENABLED(CONFIG_SUNRPC_BACKCHANNEL)
	/* NFSv4.1+ mounts need a backchannel (xprt_backchannel.c) */
	.bc_setup		= rpcrdma_bc_setup,
	.bc_maxpayload		= rpcrdma_bc_maxpayload,
	.bc_num_slots		= rpcrdma_bc_num_slots,
	.bc_free_rqst		= rpcrdma_bc_free_rqst,
	.bc_destroy		= rpcrdma_bc_destroy,
#endif
};

static struct xprt_class rpcrdma_xprt_class;

static struct rpc_xprt *rpcrdma_setup(struct xprt_create *args)
{
	struct sockaddr *sap = args->dstaddr;
	struct rpcrdma_xprt *rx;
	struct rpc_xprt *xprt;
	unsigned int slots;
	int err;

	if (args->addrlen > sizeof(xprt->addr))
		return ERR_PTR(-EBADF);
	if (sap->sa_family != AF_INET && sap->sa_family != AF_INET6)
		return ERR_PTR(-EAFNOSUPPORT);
	/* a backchannel on an nfsd connection is the server side's job */
	if (args->bc_xprt)
		return ERR_PTR(-EINVAL);
	/* each transport keeps the module it calls into */
	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-EIO);

	slots = clamp_t(unsigned int, READ_ONCE(rpcrdma_slot_table_entries),
			RPCRDMA_MIN_SLOTS, RPCRDMA_MAX_SLOTS);
	xprt = xprt_alloc(args->net, sizeof(*rx), slots, slots);
	if (!xprt) {
		err = -ENOMEM;
		goto err_module;
	}
	rx = rpcx(xprt);
	rx->max_requests = slots;
	spin_lock_init(&rx->stats_lock);
	mutex_init(&rx->ep_mutex);
	spin_lock_init(&rx->chunks_lock);
	hash_init(rx->chunks);
	rpcrdma_conn_setup(rx);
	rx->srcaddr.ss_family = AF_UNSPEC;
#if IS_ENABLED(CONFIG_SUNRPC_BACKCHANNEL)
	/* the pool is ours alone, xprt_backchannel.c */
	spin_lock_init(&xprt->bc_pa_lock);
	INIT_LIST_HEAD(&xprt->bc_pa_list);
#endif

	xprt->timeout = &rpcrdma_default_timeout;
	xprt->connect_timeout = xprt->timeout->to_initval;
	xprt->max_reconnect_timeout = RPCRDMA_MAX_REEST_TO;
	xprt->bind_timeout = RPCRDMA_BIND_TIMEOUT;
	xprt->reestablish_timeout = RPCRDMA_INIT_REEST_TO;
	xprt->idle_timeout = RPCRDMA_IDLE_DISC_TO;
	xprt->resvport = 0;
	xprt->prot = IPPROTO_TCP;
	xprt->xprt_class = &rpcrdma_xprt_class;
	xprt->addrlen = args->addrlen;
	memcpy(&xprt->addr, sap, args->addrlen);
	if (rpc_get_port(sap))
		xprt_set_bound(xprt);
	xprt->max_payload = RPCRDMA_MAX_PAYLOAD;
	/* one credit until the server's first reply grants more */
	xprt->cwnd = RPC_CWNDSCALE;
	xprt->ops = &rpcrdma_xprt_ops;
	rpcrdma_format_addresses(xprt);
	return xprt;

err_module:
	module_put(THIS_MODULE);
	return ERR_PTR(err);
}

static struct xprt_class rpcrdma_xprt_class = {
	.list	= LIST_HEAD_INIT(rpcrdma_xprt_class.list),
	.name	= "rdma",
	.owner	= THIS_MODULE,
	.ident	= XPRT_TRANSPORT_RDMA,
	.setup	= rpcrdma_setup,
	.netid	= { "rdma", "rdma6", "" },
};

int rpcrdma_xprt_init(void)
{
	int err;

	err = rpcrdma_conn_init();
	if (err)
		return err;
	err = xprt_register_transport(&rpcrdma_xprt_class);
	if (err)
		goto err_conn;
	err = rpcrdma_sysctl_init();
	if (err)
		goto err_class;
	return 0;

err_class:
	xprt_unregister_transport(&rpcrdma_xprt_class);
err_conn:
	rpcrdma_conn_exit();
	return err;
}

void rpcrdma_xprt_exit(void)
{
	rpcrdma_sysctl_exit();
	xprt_unregister_transport(&rpcrdma_xprt_class);
	rpcrdma_conn_exit();
}
