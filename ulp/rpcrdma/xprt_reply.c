// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A received RPC-over-RDMA message: header checked, the server's credit
 * grant applied to the congestion window, the reply matched by XID to its
 * rpc_rqst, copied into the request's receive xdr_buf (RDMA_MSG) or found
 * already written there through its Reply chunk (RDMA_NOMSG), and
 * completed; when the request registered chunks, only once LOCAL_INV has
 * taken the server's access away. A call from the server (the NFSv4.1+
 * backchannel, RFC 8167) goes to xprt_backchannel.c instead.
 *
 * Runs from the receive CQ's work item: process context, one message at
 * a time per connection.
 */
#include <linux/highmem.h>
#include <linux/sunrpc/msg_prot.h>
#include <linux/sunrpc/xdr.h>

#include "xprt_rdma.h"

/* the most segments 6.1 puts in one chunk; more is a malformed header */
#define RPCRDMA_MAX_SEGS	16

/* the server's grant caps outstanding calls: 0 counts as 1 (RFC 8166 3.3) */
static void rpcrdma_update_credits(struct rpcrdma_ep *ep, u32 grant)
{
	struct rpc_xprt *xprt = &ep->rx->xprt;
	unsigned long cwnd;

	grant = clamp_t(u32, grant, 1, ep->max_requests);
	cwnd = (unsigned long)grant << RPC_CWNDSHIFT;
	if (READ_ONCE(xprt->cwnd) == cwnd)
		return;
	spin_lock(&xprt->transport_lock);
	xprt->cwnd = cwnd;
	spin_unlock(&xprt->transport_lock);
}

/*
 * A counted array of RDMA segments; NULL if it runs past @end. Adds the
 * segment lengths (what the server wrote) to *@written.
 */
static __be32 *rpcrdma_parse_segments(__be32 *p, __be32 *end, u32 *written)
{
	u32 n, i;

	if (p >= end)
		return NULL;
	n = be32_to_cpup(p++);
	if (n > RPCRDMA_MAX_SEGS || end - p < n * rpcrdma_segment_maxsz)
		return NULL;
	for (i = 0; i < n; i++, p += rpcrdma_segment_maxsz)
		*written += be32_to_cpu(p[1]);
	return p;
}

/*
 * Past the three chunk lists of a reply to the RPC message. A reply has
 * no Read list; Write chunks are skipped (none are offered yet); the
 * Reply chunk's written length goes to *@reply_len, *@has_reply says it
 * was there. NULL when the lists are malformed.
 */
static __be32 *rpcrdma_parse_chunk_lists(__be32 *p, __be32 *end,
					 u32 *reply_len, bool *has_reply)
{
	u32 ignored = 0;

	if (p >= end || *p++ != xdr_zero)
		return NULL;
	for (;;) {
		if (p >= end)
			return NULL;
		if (*p++ == xdr_zero)
			break;
		p = rpcrdma_parse_segments(p, end, &ignored);
		if (!p)
			return NULL;
	}
	if (p >= end)
		return NULL;
	*reply_len = 0;
	*has_reply = *p++ != xdr_zero;
	if (*has_reply)
		p = rpcrdma_parse_segments(p, end, reply_len);
	return p;
}

/* the page part of a reply; stops where a page cannot be had */
static unsigned int rpcrdma_copy_pages_in(struct xdr_buf *xdr, const u8 *src,
					  unsigned int len)
{
	unsigned int left = min(len, xdr->page_len);
	unsigned int off = offset_in_page(xdr->page_base);
	unsigned int idx = xdr->page_base >> PAGE_SHIFT;
	unsigned int copied = 0;

	while (left) {
		unsigned int n = min_t(unsigned int, left, PAGE_SIZE - off);
		void *va;

		/* some decoders leave their pages for the transport to add */
		if (!xdr->pages[idx]) {
			if (!(xdr->flags & XDRBUF_SPARSE_PAGES))
				break;
			xdr->pages[idx] = alloc_page(GFP_NOWAIT | __GFP_NOWARN);
			if (!xdr->pages[idx])
				break;
		}
		va = kmap_local_page(xdr->pages[idx]);
		memcpy(va + off, src, n);
		kunmap_local(va);
		flush_dcache_page(xdr->pages[idx]);
		src += n;
		copied += n;
		left -= n;
		off = 0;
		idx++;
	}
	return copied;
}

/*
 * The inline reply into head, pages and tail of the receive buffer, in
 * that order. Returns the bytes placed; a reply too big for the buffer is
 * cut short and the RPC decoder rejects it.
 */
static unsigned int rpcrdma_copy_reply(struct rpcrdma_stats *st,
				       struct xdr_buf *xdr, const u8 *src,
				       unsigned int len)
{
	unsigned int n, want, copied;

	n = min_t(unsigned int, len, xdr->head[0].iov_len);
	memcpy(xdr->head[0].iov_base, src, n);
	copied = n;
	if (copied == len)
		return copied;

	want = min(len - copied, xdr->page_len);
	n = rpcrdma_copy_pages_in(xdr, src + copied, want);
	copied += n;
	st->fixup_copy_count += n;
	/* never let tail bytes land where missing pages should have been */
	if (copied == len || n < want)
		return copied;

	n = min_t(unsigned int, len - copied, xdr->tail[0].iov_len);
	memcpy(xdr->tail[0].iov_base, src + copied, n);
	st->fixup_copy_count += n;
	return copied + n;
}

static void rpcrdma_finish_rqst(struct rpc_rqst *rqst, unsigned int copied)
{
	struct rpc_xprt *xprt = rqst->rq_xprt;

	spin_lock(&xprt->queue_lock);
	xprt_complete_rqst(rqst->rq_task, copied);
	xprt_unpin_rqst(rqst);
	spin_unlock(&xprt->queue_lock);
}

/* the signaled LOCAL_INV of a request's chunks completed (send CQ) */
void rpcrdma_reply_invalidated(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_chunks *ck = container_of(wc->wr_cqe,
						 struct rpcrdma_chunks,
						 inv_cqe);
	struct rpcrdma_ep *ep = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rpcrdma_conn_broken(ep, "LOCAL_INV", -EIO);
	if (!ck->complete_rpc) {
		/* buf_free waits for this, then frees @ck */
		complete(&ck->inv_done);
		return;
	}
	rpcrdma_chunks_unmap(ep, ck);
	rpcrdma_finish_rqst(ck->rqst, ck->copied);
}

/* what a reply for @xid brought: inline bytes, or a Reply chunk's length */
struct rpcrdma_reply {
	__be32 xid;
	const u8 *body;
	unsigned int body_len;
	bool nomsg;
	u32 reply_len;
	u32 done_rkey;		/* invalidated by the server's SEND, or 0 */
};

/* hand the reply to the request waiting for it */
static void rpcrdma_complete_reply(struct rpcrdma_ep *ep,
				   const struct rpcrdma_reply *r)
{
	struct rpcrdma_xprt *rx = ep->rx;
	struct rpc_xprt *xprt = &rx->xprt;
	struct rpcrdma_chunks *ck;
	struct rpc_rqst *rqst;
	unsigned int copied;

	spin_lock(&xprt->queue_lock);
	rqst = xprt_lookup_rqst(xprt, r->xid);
	if (!rqst) {
		/* late reply to a call already answered or given up */
		spin_unlock(&xprt->queue_lock);
		return;
	}
	/* keeps the request from being released while we work unlocked */
	xprt_pin_rqst(rqst);
	spin_unlock(&xprt->queue_lock);

	ck = rpcrdma_chunks_find(rx, rqst);
	if (ck && (!ck->nr_mrs || ck->ep_gen != READ_ONCE(rx->ep_gen)))
		ck = NULL;
	if (r->nomsg) {
		/* written in place through the Reply chunk we offered */
		if (!ck || ck->nr_mrs == ck->nr_read) {
			rx->stats.bad_reply_count++;
			rqst->rq_task->tk_status = -EIO;
			copied = 0;
		} else {
			copied = min(r->reply_len,
				     rqst->rq_private_buf.head[0].iov_len +
				     rqst->rq_private_buf.page_len +
				     rqst->rq_private_buf.tail[0].iov_len);
			rx->stats.total_rdma_reply += r->reply_len;
		}
	} else {
		copied = rpcrdma_copy_reply(&rx->stats, &rqst->rq_private_buf,
					    r->body, r->body_len);
	}
	if (ck) {
		ck->copied = copied;
		ck->complete_rpc = true;
		/* the LOCAL_INV completion finishes the request */
		if (!rpcrdma_chunks_invalidate(ep, ck, r->done_rkey))
			return;
		rpcrdma_chunks_unmap(ep, ck);
	}
	rpcrdma_finish_rqst(rqst, copied);
}

/*
 * RDMA_ERROR: the server could not take the call (bad version, or chunks
 * it could not use). Retransmitting would fail the same way, so the RPC
 * ends with EIO.
 */
static void rpcrdma_error_reply(struct rpcrdma_xprt *rx, __be32 *p,
				unsigned int len)
{
	struct rpc_xprt *xprt = &rx->xprt;
	struct rpc_rqst *rqst;

	rx->stats.bad_reply_count++;
	if (len < RPCRDMA_HDRLEN_ERR)
		return;
	pr_info_ratelimited("rpcrdma: server %pISpc sent %s for XID 0x%08x\n",
			    &xprt->addr,
			    p[4] == err_vers ? "ERR_VERS" : "ERR_CHUNK",
			    be32_to_cpu(p[0]));

	spin_lock(&xprt->queue_lock);
	rqst = xprt_lookup_rqst(xprt, p[0]);
	if (rqst) {
		rqst->rq_task->tk_status = -EIO;
		xprt_complete_rqst(rqst->rq_task, 0);
	}
	spin_unlock(&xprt->queue_lock);
}

/*
 * A backward-direction call (RFC 8167): RDMA_MSG with three empty chunk
 * lists (there are no chunks backward) whose RPC message is a CALL; NULL
 * for anything else. A call with chunks is taken for a reply and fails
 * there.
 */
static __be32 *rpcrdma_bc_call(__be32 *p, u32 len)
{
	__be32 *msg = p + rpcrdma_fixed_maxsz + 3;

	if (p[3] != rdma_msg || len < RPCRDMA_HDRLEN_MIN + 2 * sizeof(__be32))
		return NULL;
	if (p[4] != xdr_zero || p[5] != xdr_zero || p[6] != xdr_zero)
		return NULL;
	if (msg[1] != cpu_to_be32(RPC_CALL))
		return NULL;
	return msg;
}

void rpcrdma_reply_received(struct rpcrdma_ep *ep, void *buf,
			    const struct ib_wc *wc)
{
	struct rpcrdma_xprt *rx = ep->rx;
	u32 len = wc->byte_len;
	__be32 *p = buf;
	__be32 *end = buf + (len & ~3U);
	struct rpcrdma_reply r = { };
	bool has_reply = false;
	__be32 *body;

	if (len < rpcrdma_fixed_maxsz * sizeof(__be32))
		goto bad;
	if (p[1] != rpcrdma_version)
		goto bad;
	/* a call's credit value is no grant for our calls: checked first */
	body = rpcrdma_bc_call(p, len);
	if (body) {
		/* the header's XID is the RPC message's (RFC 8166 4.1) */
		if (body[0] != p[0])
			goto bad;
		rpcrdma_bc_call_received(rx, body,
					 len - ((u8 *)body - (u8 *)buf));
		return;
	}
	rpcrdma_update_credits(ep, be32_to_cpu(p[2]));

	switch (p[3]) {
	case rdma_msg:
	case rdma_nomsg:
		body = rpcrdma_parse_chunk_lists(p + rpcrdma_fixed_maxsz, end,
						 &r.reply_len, &has_reply);
		if (!body)
			goto bad;
		break;
	case rdma_error:
		rpcrdma_error_reply(rx, p, len);
		return;
	default:
		goto bad;
	}

	r.xid = p[0];
	r.body = (u8 *)body;
	r.body_len = len - ((u8 *)body - (u8 *)buf);
	r.nomsg = p[3] == rdma_nomsg;
	if (r.nomsg && !has_reply)
		goto bad;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		r.done_rkey = wc->ex.invalidate_rkey;
	rpcrdma_complete_reply(ep, &r);
	return;

bad:
	rx->stats.bad_reply_count++;
}
