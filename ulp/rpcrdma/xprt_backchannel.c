// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The backchannel of the client transport (RFC 8167): NFSv4.1+ servers
 * send callbacks (CB_NULL, CB_SEQUENCE, CB_RECALL, ...) on the client's
 * own connection, as RDMA_MSG with no chunks, and take the replies the
 * same way.
 *
 * A received call is copied out of its receive buffer (which is reposted
 * at once) into an rpc_rqst of a pool preallocated by ->bc_setup, then
 * queued to the NFS callback service (xprt->bc_serv). The service answers
 * through ->send_request (xprt_marshal.c sends it inline) and gives the
 * rqst back with ->bc_free_rqst. The pool is the transport's, not the
 * connection's: it needs no DMA mapping and survives reconnects.
 *
 * xprt->bc_pa_lock guards bc_pa_list, bc_alloc_count and the rx->bc_*
 * counts; a call may arrive on the receive CQ's work item while a
 * callback thread returns an rqst.
 */
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/sunrpc/bc_xprt.h>
#include <linux/sunrpc/svc.h>

#include "xprt_rdma.h"

/* one pooled rqst and the page each way it owns */
struct rpcrdma_bc_rqst {
	struct rpc_rqst rqst;
	void *rcv;			/* the call, from its XID on */
	void *snd;			/* the reply the service encodes */
};

static struct rpcrdma_bc_rqst *bc_rqst(struct rpc_rqst *rqst)
{
	return container_of(rqst, struct rpcrdma_bc_rqst, rqst);
}

/* what the service saw and wrote is forgotten before the next call */
static void rpcrdma_bc_reset(struct rpcrdma_bc_rqst *br)
{
	xdr_buf_init(&br->rqst.rq_rcv_buf, br->rcv, PAGE_SIZE);
	xdr_buf_init(&br->rqst.rq_snd_buf, br->snd, PAGE_SIZE);
	br->rqst.rq_private_buf = br->rqst.rq_rcv_buf;
	br->rqst.rq_reply_bytes_recvd = 0;
	br->rqst.rq_xmit_bytes_sent = 0;
}

static void rpcrdma_bc_free_one(struct rpcrdma_bc_rqst *br)
{
	free_page((unsigned long)br->rcv);
	free_page((unsigned long)br->snd);
	kfree(br);
}

static struct rpcrdma_bc_rqst *rpcrdma_bc_alloc_one(struct rpc_xprt *xprt)
{
	struct rpcrdma_bc_rqst *br = kzalloc(sizeof(*br), GFP_KERNEL);

	if (!br)
		return NULL;
	br->rcv = (void *)__get_free_page(GFP_KERNEL);
	br->snd = (void *)__get_free_page(GFP_KERNEL);
	if (!br->rcv || !br->snd) {
		rpcrdma_bc_free_one(br);
		return NULL;
	}
	br->rqst.rq_xprt = xprt;
	INIT_LIST_HEAD(&br->rqst.rq_bc_list);
	rpcrdma_bc_reset(br);
	return br;
}

/*
 * Twice the rqsts of the slots a session asks for: the server may send
 * its next call as soon as it has our reply, before the callback thread
 * has given that reply's rqst back.
 */
static unsigned int rpcrdma_bc_pool_size(unsigned int reqs)
{
	return 2 * clamp_t(unsigned int, reqs, RPCRDMA_BC_SLOTS,
			   RPCRDMA_BC_MAX_CREDITS);
}

/* idle rqsts beyond what is wanted onto @doomed; bc_pa_lock held */
static void rpcrdma_bc_trim(struct rpcrdma_xprt *rx, struct list_head *doomed)
{
	struct rpc_xprt *xprt = &rx->xprt;
	struct rpc_rqst *rqst;

	while (rx->bc_total > rx->bc_wanted) {
		rqst = list_first_entry_or_null(&xprt->bc_pa_list,
						struct rpc_rqst, rq_bc_pa_list);
		if (!rqst)
			break;
		list_move(&rqst->rq_bc_pa_list, doomed);
		xprt->bc_alloc_count--;
		atomic_dec(&xprt->bc_slot_count);
		rx->bc_total--;
	}
}

static void rpcrdma_bc_free_list(struct list_head *list)
{
	struct rpc_rqst *rqst, *next;

	list_for_each_entry_safe(rqst, next, list, rq_bc_pa_list) {
		list_del(&rqst->rq_bc_pa_list);
		rpcrdma_bc_free_one(bc_rqst(rqst));
	}
}

/* ->bc_setup: the NFS client starts a session's callback service */
int rpcrdma_bc_setup(struct rpc_xprt *xprt, unsigned int min_reqs)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);
	unsigned int i, n = rpcrdma_bc_pool_size(min_reqs);
	struct rpcrdma_bc_rqst *br;
	LIST_HEAD(fresh);

	for (i = 0; i < n; i++) {
		br = rpcrdma_bc_alloc_one(xprt);
		if (!br) {
			rpcrdma_bc_free_list(&fresh);
			return -ENOMEM;
		}
		list_add(&br->rqst.rq_bc_pa_list, &fresh);
	}
	spin_lock_bh(&xprt->bc_pa_lock);
	list_splice_tail(&fresh, &xprt->bc_pa_list);
	xprt->bc_alloc_count += n;
	atomic_add(n, &xprt->bc_slot_count);
	rx->bc_total += n;
	rx->bc_wanted += n;
	spin_unlock_bh(&xprt->bc_pa_lock);
	return 0;
}

/* ->bc_destroy: the session went; rqsts still out are freed on return */
void rpcrdma_bc_destroy(struct rpc_xprt *xprt, unsigned int max_reqs)
{
	struct rpcrdma_xprt *rx = rpcx(xprt);
	unsigned int n = rpcrdma_bc_pool_size(max_reqs);
	LIST_HEAD(doomed);

	spin_lock_bh(&xprt->bc_pa_lock);
	rx->bc_wanted -= min(n, rx->bc_wanted);
	rpcrdma_bc_trim(rx, &doomed);
	spin_unlock_bh(&xprt->bc_pa_lock);
	rpcrdma_bc_free_list(&doomed);
}

/* ->destroy: every rqst handed out held a transport reference */
void rpcrdma_bc_release_all(struct rpcrdma_xprt *rx)
{
	struct rpc_xprt *xprt = &rx->xprt;
	LIST_HEAD(doomed);

	spin_lock_bh(&xprt->bc_pa_lock);
	rx->bc_wanted = 0;
	rpcrdma_bc_trim(rx, &doomed);
	WARN_ON_ONCE(rx->bc_total);
	spin_unlock_bh(&xprt->bc_pa_lock);
	rpcrdma_bc_free_list(&doomed);
}

/*
 * ->bc_free_rqst: the callback service is done with @rqst (its reply
 * sent, or the call dropped). Drops the reference the call took.
 */
void rpcrdma_bc_free_rqst(struct rpc_rqst *rqst)
{
	struct rpc_xprt *xprt = rqst->rq_xprt;
	struct rpcrdma_xprt *rx = rpcx(xprt);
	struct rpcrdma_bc_rqst *br = bc_rqst(rqst);
	bool keep;

	clear_bit(RPC_BC_PA_IN_USE, &rqst->rq_bc_pa_state);
	rpcrdma_bc_reset(br);
	spin_lock_bh(&xprt->bc_pa_lock);
	keep = rx->bc_total <= rx->bc_wanted;
	if (keep) {
		list_add_tail(&rqst->rq_bc_pa_list, &xprt->bc_pa_list);
		xprt->bc_alloc_count++;
		atomic_inc(&xprt->bc_slot_count);
	} else {
		rx->bc_total--;
	}
	spin_unlock_bh(&xprt->bc_pa_lock);
	if (!keep)
		rpcrdma_bc_free_one(br);
	xprt_put(xprt);
}

size_t rpcrdma_bc_maxpayload(struct rpc_xprt *xprt)
{
	unsigned int inl = READ_ONCE(rpcx(xprt)->bc_inline);

	/* before the first connection only RFC 8166's default is safe */
	if (!inl)
		inl = RPCRDMA_V1_DEF_INLINE_SIZE;
	/* a call or reply, with our header, fits a send, a receive, a page */
	return min_t(unsigned int, inl, PAGE_SIZE) - RPCRDMA_HDRLEN_MIN;
}

unsigned int rpcrdma_bc_num_slots(struct rpc_xprt *xprt)
{
	return RPCRDMA_BC_SLOTS;
}

/*
 * The credit value of our backward replies: how many calls the server may
 * have outstanding (RFC 8167). Half the pool, see above, and never more
 * than the receives kept posted for calls.
 */
u32 rpcrdma_bc_credits(struct rpcrdma_xprt *rx)
{
	unsigned int wanted = READ_ONCE(rx->bc_wanted);

	BUILD_BUG_ON(RPCRDMA_BC_MAX_CREDITS > RPCRDMA_EXTRA_RECVS ||
		     RPCRDMA_BC_MAX_CREDITS > RPCRDMA_EXTRA_SENDS);
	return clamp_t(unsigned int, wanted / 2, 1, RPCRDMA_BC_MAX_CREDITS);
}

/* back to the pool unused; bc_pa_lock not held */
static void rpcrdma_bc_unget(struct rpc_xprt *xprt, struct rpc_rqst *rqst)
{
	spin_lock_bh(&xprt->bc_pa_lock);
	list_add(&rqst->rq_bc_pa_list, &xprt->bc_pa_list);
	xprt->bc_alloc_count++;
	spin_unlock_bh(&xprt->bc_pa_lock);
}

static void rpcrdma_bc_drop(struct rpcrdma_xprt *rx, unsigned int len,
			    const char *why)
{
	unsigned long dropped;

	spin_lock_bh(&rx->xprt.bc_pa_lock);
	dropped = ++rx->bc_dropped;
	spin_unlock_bh(&rx->xprt.bc_pa_lock);
	pr_info_ratelimited("rpcrdma: %pISpc: backchannel call of %u bytes dropped (%s), %lu so far\n",
			    &rx->xprt.addr, len, why, dropped);
}

/*
 * A backward call: @msg is its RPC message (XID first), @len bytes, in a
 * receive buffer about to be reposted. Dropped (and counted) when nobody
 * serves callbacks yet, the pool is empty or the call cannot fit; the
 * server retransmits or marks the backchannel down.
 */
void rpcrdma_bc_call_received(struct rpcrdma_xprt *rx, const void *msg,
			      unsigned int len)
{
	struct rpc_xprt *xprt = &rx->xprt;
	struct svc_serv *serv = READ_ONCE(xprt->bc_serv);
	struct rpc_rqst *rqst = NULL;

	if (serv && len <= PAGE_SIZE) {
		spin_lock_bh(&xprt->bc_pa_lock);
		rqst = list_first_entry_or_null(&xprt->bc_pa_list,
						struct rpc_rqst, rq_bc_pa_list);
		if (rqst) {
			list_del(&rqst->rq_bc_pa_list);
			xprt->bc_alloc_count--;
		}
		spin_unlock_bh(&xprt->bc_pa_lock);
	}
	if (!rqst) {
		rpcrdma_bc_drop(rx, len, !serv ? "no callback service" :
				len > PAGE_SIZE ? "too long" :
				"no free request");
		return;
	}
	/* given back by rpcrdma_bc_free_rqst; none left: ->destroy is near */
	if (!xprt_get(xprt)) {
		rpcrdma_bc_unget(xprt, rqst);
		return;
	}

	memcpy(rqst->rq_rcv_buf.head[0].iov_base, msg, len);
	rqst->rq_rcv_buf.len = len;
	rqst->rq_private_buf = rqst->rq_rcv_buf;
	rqst->rq_xid = *(const __be32 *)msg;
	set_bit(RPC_BC_PA_IN_USE, &rqst->rq_bc_pa_state);

	spin_lock_bh(&serv->sv_cb_lock);
	list_add_tail(&rqst->rq_bc_list, &serv->sv_cb_list);
	spin_unlock_bh(&serv->sv_cb_lock);
	wake_up(&serv->sv_cb_waitq);
}
