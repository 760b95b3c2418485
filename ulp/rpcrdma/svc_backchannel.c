// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The server side of the NFSv4.1+ backchannel (RFC 8167): nfsd sends its
 * callbacks (CB_RECALL, CB_LAYOUTRECALL...) over the connection the client
 * opened, through an rpc_xprt of the class "rdma backchannel" (ident
 * XPRT_TRANSPORT_BC_RDMA, ULP.md 7.1) that sunrpc creates when nfsd sets up
 * its callback client on one of our connections. Without it nfsd finds no
 * transport, marks the callback path down, and every SEQUENCE reply tells
 * the client so (SEQ4_STATUS_CB_PATH_DOWN; it rebinds its connection after
 * each call, and gets no delegations).
 *
 * Calls go inline (RDMA_MSG, no chunks) through the connection's send
 * buffers; the client's replies arrive among the forward calls and
 * svcr_recvfrom() hands them here.
 *
 * Lifetimes: the svc_xprt holds a reference to the rpc_xprt (xpt_bc_xprt,
 * put by sunrpc when the svc_xprt is freed); the rpc_xprt holds one to the
 * svc_xprt until sunrpc deletes that connection (->close), so a callback
 * never sends on a freed connection and neither keeps the other alive.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sunrpc/clnt.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/xprt.h>

#include "rpcrdma.h"
#include "svc_conn.h"

struct svcr_bc {
	struct rpc_xprt		xprt;	/* first: xprt_alloc() sizes the whole */
	spinlock_t		lock;
	struct svcr_xprt	*conn;	/* NULL once the connection is deleted */
};

static struct svcr_bc *to_bc(struct rpc_xprt *xprt)
{
	return container_of(xprt, struct svcr_bc, xprt);
}

/* nfsd bounds each callback with timeouts of its own */
static const struct rpc_timeout svcr_bc_timeout = {
	.to_initval	= 60 * HZ,
	.to_maxval	= 60 * HZ,
};

/* The connection with a reference for the caller, or NULL. */
static struct svcr_xprt *svcr_bc_conn_get(struct svcr_bc *bc)
{
	struct svcr_xprt *conn;

	spin_lock(&bc->lock);
	conn = bc->conn;
	if (conn)
		svc_xprt_get(&conn->xprt);
	spin_unlock(&bc->lock);
	return conn;
}

/* Calls and replies are small: one buffer for both, copied at send. */
static int svcr_bc_buf_alloc(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;
	void *buf;

	buf = kmalloc(rqst->rq_callsize + rqst->rq_rcvsize,
		      GFP_NOIO | __GFP_NOWARN);
	if (!buf)
		return -ENOMEM;
	rqst->rq_buffer = buf;
	rqst->rq_rbuffer = (u8 *)buf + rqst->rq_callsize;
	return 0;
}

static void svcr_bc_buf_free(struct rpc_task *task)
{
	kfree(task->tk_rqstp->rq_buffer);
}

/* The call behind an RDMA_MSG header, in one Send on the connection. */
static int svcr_bc_send_request(struct rpc_rqst *rqst)
{
	struct svcr_bc *bc = to_bc(rqst->rq_xprt);
	const struct xdr_buf *call = &rqst->rq_snd_buf;
	struct svcr_xprt *conn;
	struct svcr_send *s;
	__be32 *p;
	u32 len;
	int err;

	conn = svcr_bc_conn_get(bc);
	if (!conn)
		return -ENOTCONN;
	err = -ENOTCONN;
	if (test_bit(XPT_DEAD, &conn->xprt.xpt_flags))
		goto out;
	/* what we can send and what the client said it takes inline */
	err = -EMSGSIZE;
	len = RPCRDMA_HDRLEN_MIN + call->len;
	if (len > conn->send_size)
		goto out;
	err = -ENOTCONN;
	s = svcr_send_get(conn);
	if (!s)
		goto out;
	p = s->buf;
	p += rpcrdma_encode_inline_header(rqst->rq_xid, SVCR_BC_REQS, p) /
	     sizeof(*p);
	if (read_bytes_from_xdr_buf(call, 0, p, call->len)) {
		svcr_send_put(conn, s);
		err = -EIO;
		goto out;
	}
	s->sq_wrs = 0;
	rqst->rq_xtime = ktime_get();
	err = svcr_post_send(conn, s, len, false);
	if (err)
		err = -ENOTCONN;
	else
		rqst->rq_xmit_bytes_sent += len;
out:
	svc_xprt_put(&conn->xprt);
	return err;
}

/*
 * sunrpc deletes the connection (svc_delete_xprt, XPT_DEAD already set):
 * the last callback has been sent. Called too by sunrpc's own autoclose,
 * which leaves the connection to its owner.
 */
static void svcr_bc_close(struct rpc_xprt *xprt)
{
	struct svcr_bc *bc = to_bc(xprt);
	struct svcr_xprt *conn = NULL;

	spin_lock(&bc->lock);
	if (bc->conn && test_bit(XPT_DEAD, &bc->conn->xprt.xpt_flags)) {
		conn = bc->conn;
		bc->conn = NULL;
	}
	spin_unlock(&bc->lock);
	xprt_disconnect_done(xprt);
	if (conn)
		svc_xprt_put(&conn->xprt);
}

/*
 * A backchannel is never re-established from this side: a call made
 * after the connection went fails (soft, as nfsd makes them) instead of
 * reaching a ->connect that is not there.
 */
static void svcr_bc_connect(struct rpc_xprt *xprt, struct rpc_task *task)
{
	xprt_clear_connecting(xprt);
	xprt_wake_pending_tasks(xprt, -ENOTCONN);
}

static void svcr_bc_destroy(struct rpc_xprt *xprt)
{
	struct svcr_bc *bc = to_bc(xprt);

	if (bc->conn)
		svc_xprt_put(&bc->conn->xprt);
	rpcrdma_free_addresses(xprt);
	xprt_free(xprt);
	module_put(THIS_MODULE);
}

/* the fault injection of sunrpc has no business with another's connection */
static void svcr_bc_inject_disconnect(struct rpc_xprt *xprt)
{
}

static const struct rpc_xprt_ops svcr_bc_ops = {
	.reserve_xprt		= xprt_reserve_xprt,
	.release_xprt		= xprt_release_xprt,
	.alloc_slot		= xprt_alloc_slot,
	.free_slot		= xprt_free_slot,
	.buf_alloc		= svcr_bc_buf_alloc,
	.buf_free		= svcr_bc_buf_free,
	.send_request		= svcr_bc_send_request,
	.wait_for_reply_request	= xprt_wait_for_reply_request_def,
	.connect		= svcr_bc_connect,
	.close			= svcr_bc_close,
	.destroy		= svcr_bc_destroy,
	.inject_disconnect	= svcr_bc_inject_disconnect,
};

static struct xprt_class svcr_bc_class;

static struct rpc_xprt *svcr_bc_setup(struct xprt_create *args)
{
	struct svc_xprt *sx = args->bc_xprt;
	struct svcr_xprt *conn;
	struct rpc_xprt *xprt;
	struct svcr_bc *bc;

	/* only on a connection of ours */
	if (!sx || sx->xpt_class != &svcr_class || to_svcr(sx)->listener)
		return ERR_PTR(-EINVAL);
	if (args->addrlen > sizeof(xprt->addr))
		return ERR_PTR(-EBADF);
	conn = to_svcr(sx);
	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-EIO);
	xprt = xprt_alloc(args->net, sizeof(*bc), SVCR_BC_REQS, SVCR_BC_REQS);
	if (!xprt) {
		module_put(THIS_MODULE);
		return ERR_PTR(-ENOMEM);
	}
	bc = to_bc(xprt);
	spin_lock_init(&bc->lock);
	xprt->xprt_class = &svcr_bc_class;
	xprt->ops = &svcr_bc_ops;
	xprt->prot = XPRT_TRANSPORT_BC_RDMA;
	xprt->timeout = &svcr_bc_timeout;
	xprt->bind_timeout = 0;
	xprt->reestablish_timeout = 0;
	xprt->idle_timeout = 0;
	xprt->resvport = 0;
	xprt->max_payload = conn->send_size - RPCRDMA_HDRLEN_MIN;
	memcpy(&xprt->addr, args->dstaddr, args->addrlen);
	xprt->addrlen = args->addrlen;
	rpcrdma_format_addresses(xprt);
	xprt_set_bound(xprt);
	xprt_set_connected(xprt);

	svc_xprt_get(sx);
	bc->conn = conn;
	/* the svc_xprt's reference, put by sunrpc when it frees it */
	xprt_get(xprt);
	sx->xpt_bc_xprt = xprt;
	xprt->bc_xprt = sx;
	/* and the caller's */
	return xprt;
}

static struct xprt_class svcr_bc_class = {
	.list	= LIST_HEAD_INIT(svcr_bc_class.list),
	.name	= "rdma backchannel",
	.owner	= THIS_MODULE,
	.ident	= XPRT_TRANSPORT_BC_RDMA,
	.setup	= svcr_bc_setup,
	/* no netid to mount with; sunrpc's netid lookups need the end mark */
	.netid	= { "" },
};

/*
 * Called from svcr_recvfrom() for every message it parsed: true when @rc
 * was the reply to one of our callbacks (inline RDMA_MSG, no chunks, an
 * RPC REPLY), which is then consumed; a reply nobody waits for any more
 * is dropped. The caller recycles @rc.
 */
bool svcr_bc_reply(struct svcr_xprt *conn, const struct svcr_recv *rc)
{
	struct rpc_xprt *xprt = READ_ONCE(conn->xprt.xpt_bc_xprt);
	const __be32 *msg = (const __be32 *)((const u8 *)rc->buf + rc->hdr_len);
	u32 len = rc->len - rc->hdr_len;
	struct xdr_buf *dst;
	struct rpc_rqst *req;

	if (!xprt || rc->proc != rdma_msg || rc->rlist_cnt ||
	    rc->wlist_cnt || rc->rchunk_off)
		return false;
	if (len < 2 * sizeof(__be32) || msg[1] != rpc_reply)
		return false;

	spin_lock(&xprt->queue_lock);
	req = xprt_lookup_rqst(xprt, msg[0]);
	if (req) {
		dst = &req->rq_private_buf;
		*dst = req->rq_rcv_buf;
		if (len <= dst->head[0].iov_len) {
			memcpy(dst->head[0].iov_base, msg, len);
			xprt_complete_rqst(req->rq_task, len);
		}
	}
	spin_unlock(&xprt->queue_lock);
	return true;
}

int svcr_bc_init(void)
{
	return xprt_register_transport(&svcr_bc_class);
}

void svcr_bc_exit(void)
{
	xprt_unregister_transport(&svcr_bc_class);
}
