// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Building and sending an RPC-over-RDMA version 1 call (RFC 8166 section
 * 4): the transport header, then the RPC call pulled up behind it into one
 * DMA-mapped send buffer, sent with a single SEND.
 *
 * A call that fits the negotiated inline size goes with three empty chunk
 * lists. A call too big for it goes as RDMA_NOMSG, the whole call in a
 * position-zero Read chunk; a reply that might not fit inline gets a Reply
 * chunk covering the whole receive buffer (RFC 8166 3.5). Chunks are
 * registered with FRWR (xprt_frwr.c).
 *
 * Our replies to the server's backchannel calls (RFC 8167) go the same
 * inline way, never with chunks.
 */
#include <linux/highmem.h>
#include <linux/slab.h>
#include <linux/sunrpc/xdr.h>

#include "rpcrdma.h"
#include "xprt_rdma.h"

/* the page part of @xdr into @dst; returns bytes copied */
static unsigned int rpcrdma_copy_pages_out(const struct xdr_buf *xdr, u8 *dst)
{
	unsigned int left = xdr->page_len;
	unsigned int off = offset_in_page(xdr->page_base);
	struct page **pp;

	if (!left)
		return 0;
	pp = xdr->pages + (xdr->page_base >> PAGE_SHIFT);
	while (left) {
		unsigned int n = min_t(unsigned int, left, PAGE_SIZE - off);
		void *va = kmap_local_page(*pp);

		memcpy(dst, va + off, n);
		kunmap_local(va);
		dst += n;
		left -= n;
		off = 0;
		pp++;
	}
	return xdr->page_len;
}

/* head, pages and tail of the call into one contiguous buffer */
static unsigned int rpcrdma_pullup(const struct xdr_buf *xdr, u8 *dst)
{
	unsigned int len = xdr->head[0].iov_len;

	memcpy(dst, xdr->head[0].iov_base, len);
	len += rpcrdma_copy_pages_out(xdr, dst + len);
	memcpy(dst + len, xdr->tail[0].iov_base, xdr->tail[0].iov_len);
	return len + xdr->tail[0].iov_len;
}

static unsigned int rpcrdma_call_len(const struct xdr_buf *xdr)
{
	return xdr->head[0].iov_len + xdr->page_len + xdr->tail[0].iov_len;
}

/* room a Reply chunk takes in the header: discriminator, count, segments */
#define RPCRDMA_REPLY_CHUNK_MAX \
	((2 + RPCRDMA_XDR_REGIONS * rpcrdma_segment_maxsz) * sizeof(__be32))

static unsigned int rpcrdma_xdr_room(const struct xdr_buf *xdr)
{
	return xdr->head[0].iov_len + xdr->page_len + xdr->tail[0].iov_len;
}

static struct rpcrdma_chunks *rpcrdma_chunks_get(struct rpcrdma_xprt *rx,
						 struct rpc_rqst *rqst)
{
	struct rpcrdma_chunks *ck = rpcrdma_chunks_find(rx, rqst);

	if (ck)
		return ck;
	ck = kzalloc(sizeof(*ck), GFP_NOFS);
	if (!ck)
		return NULL;
	ck->rqst = rqst;
	ck->rx = rx;
	init_completion(&ck->inv_done);
	ck->inv_cqe.done = rpcrdma_reply_invalidated;
	spin_lock(&rx->chunks_lock);
	hash_add(rx->chunks, &ck->node, (unsigned long)rqst);
	spin_unlock(&rx->chunks_lock);
	return ck;
}

/* header with the Read list and Reply chunk of @ck; returns its length */
static unsigned int rpcrdma_encode_chunked_header(struct rpcrdma_ep *ep,
						  struct rpc_rqst *rqst,
						  struct rpcrdma_chunks *ck,
						  __be32 *start)
{
	const struct rpcrdma_seg *seg = ck->segs;
	__be32 *p = start;
	unsigned int i;

	*p++ = rqst->rq_xid;
	*p++ = rpcrdma_version;
	*p++ = cpu_to_be32(ep->max_requests);
	*p++ = ck->nr_read ? rdma_nomsg : rdma_msg;
	/* the call, all of it at XDR position 0 */
	for (i = 0; i < ck->nr_read; i++, seg++) {
		*p++ = xdr_one;
		p = xdr_encode_read_segment(p, 0, seg->handle, seg->length,
					    seg->offset);
	}
	*p++ = xdr_zero;
	*p++ = xdr_zero;	/* no Write list */
	if (ck->nr_mrs > ck->nr_read) {
		*p++ = xdr_one;
		*p++ = cpu_to_be32(ck->nr_mrs - ck->nr_read);
		for (; i < ck->nr_mrs; i++, seg++)
			p = xdr_encode_rdma_segment(p, seg->handle, seg->length,
						    seg->offset);
	} else {
		*p++ = xdr_zero;
	}
	return (u8 *)p - (u8 *)start;
}

/*
 * A call with chunks. A retransmission on the same connection advertises
 * the registration it already has (the peer may still be using it); one
 * that needs different chunks than then ends the connection, whose
 * teardown takes every registration away.
 */
static int rpcrdma_send_chunked(struct rpcrdma_xprt *rx, struct rpcrdma_ep *ep,
				struct rpc_rqst *rqst, bool read, bool reply)
{
	unsigned int call_len = rpcrdma_call_len(&rqst->rq_snd_buf);
	struct ib_send_wr *first = NULL, **link = &first;
	struct rpcrdma_chunks *ck;
	struct rpcrdma_sbuf *sb;
	unsigned int hdr_len;
	bool fresh = false;
	int err;

	ck = rpcrdma_chunks_get(rx, rqst);
	if (!ck)
		return -ENOMEM;
	if (ck->nr_mrs && ck->ep_gen == rx->ep_gen) {
		if (read != !!ck->nr_read || reply != (ck->nr_mrs > ck->nr_read)) {
			rpcrdma_conn_broken(ep, "re-marshal with other chunks", 0);
			return -ENOTCONN;
		}
	} else {
		/* MRs of an earlier connection went with it */
		ck->nr_mrs = 0;
		ck->nr_read = 0;
		ck->ep_gen = rx->ep_gen;
		fresh = true;
		if (read) {
			err = rpcrdma_register_xdr(ep, ck, &rqst->rq_snd_buf,
						   call_len, false, &link);
			if (err)
				goto err_unmap;
			ck->nr_read = ck->nr_mrs;
		}
		if (reply) {
			err = rpcrdma_register_xdr(ep, ck, &rqst->rq_rcv_buf,
					rpcrdma_xdr_room(&rqst->rq_rcv_buf),
					true, &link);
			if (err)
				goto err_unmap;
		}
	}

	sb = rpcrdma_sbuf_get(ep);
	if (!sb) {
		rx->stats.empty_sendctx_q++;
		err = -ENOBUFS;
		goto err_unmap;
	}
	hdr_len = rpcrdma_encode_chunked_header(ep, rqst, ck, sb->buf);
	sb->sge.length = hdr_len;
	if (!read) {
		rpcrdma_pullup(&rqst->rq_snd_buf, sb->buf + hdr_len);
		sb->sge.length += call_len;
	}
	ib_dma_sync_single_for_device(ep->device, sb->dma, sb->sge.length,
				      DMA_TO_DEVICE);
	*link = &sb->wr;
	sb->wr.next = NULL;

	err = ib_post_send(ep->id->qp, first, NULL);
	if (err) {
		/* some REG_MR may be posted: the teardown reclaims the MRs */
		rpcrdma_sbuf_put(ep, sb);
		rpcrdma_conn_broken(ep, "post send", err);
		return -ENOTCONN;
	}
	if (read) {
		rx->stats.nomsg_call_count++;
		rx->stats.read_chunk_count++;
		rx->stats.total_rdma_request += call_len;
	}
	if (reply)
		rx->stats.reply_chunk_count++;
	rqst->rq_xmit_bytes_sent += call_len;
	return 0;

err_unmap:
	if (fresh)
		rpcrdma_chunks_unmap(ep, ck);
	if (err == -EMSGSIZE)
		rx->stats.failed_marshal_count++;
	return err;
}

/*
 * Called from ->send_request, XPRT_LOCKED held, process context.
 * Returns 0 once the SEND is posted, or an errno sunrpc acts on.
 */
int rpcrdma_marshal_and_send(struct rpcrdma_xprt *rx, struct rpc_rqst *rqst)
{
	struct rpcrdma_ep *ep = rx->ep;
	unsigned int call_len;
	bool read, reply;

	if (!ep)
		return -ENOTCONN;
	call_len = rpcrdma_call_len(&rqst->rq_snd_buf);
	/*
	 * A Reply chunk when the reply buffer, with the server's header,
	 * may outgrow its inline sends. For now only where pages are to be
	 * filled (READ, READLINK, ACLs): buffers sized for the worst case
	 * but answered briefly (EXCHANGE_ID) stay on the inline path,
	 * which is the one run against a server so far.
	 */
	reply = rqst->rq_rcv_buf.page_len &&
		RPCRDMA_HDRLEN_MIN + rpcrdma_xdr_room(&rqst->rq_rcv_buf) >
		ep->inline_recv;
	read = RPCRDMA_HDRLEN_MIN + call_len +
	       (reply ? RPCRDMA_REPLY_CHUNK_MAX : 0) > ep->inline_send;
	if (read || reply)
		return rpcrdma_send_chunked(rx, ep, rqst, read, reply);

	/* credits asked for: the most we can have outstanding */
	return rpcrdma_send_inline(rx, ep, rqst, ep->max_requests);
}

/*
 * @rqst's send buffer behind an RDMA_MSG header carrying @credits, in one
 * SEND. XPRT_LOCKED held, @ep is rx->ep. 0 once posted, or an errno.
 */
int rpcrdma_send_inline(struct rpcrdma_xprt *rx, struct rpcrdma_ep *ep,
			struct rpc_rqst *rqst, u32 credits)
{
	unsigned int call_len = rpcrdma_call_len(&rqst->rq_snd_buf);
	unsigned int hdr_len;
	struct rpcrdma_sbuf *sb;
	int err;

	sb = rpcrdma_sbuf_get(ep);
	if (!sb) {
		/* sends still completing: sunrpc retries shortly */
		rx->stats.empty_sendctx_q++;
		return -ENOBUFS;
	}

	hdr_len = rpcrdma_encode_inline_header(rqst->rq_xid, credits, sb->buf);
	rpcrdma_pullup(&rqst->rq_snd_buf, sb->buf + hdr_len);
	rx->stats.pullup_copy_count += rqst->rq_snd_buf.page_len +
				       rqst->rq_snd_buf.tail[0].iov_len;
	sb->sge.length = hdr_len + call_len;
	ib_dma_sync_single_for_device(ep->device, sb->dma, sb->sge.length,
				      DMA_TO_DEVICE);

	err = ib_post_send(ep->id->qp, &sb->wr, NULL);
	if (err) {
		rpcrdma_sbuf_put(ep, sb);
		rpcrdma_conn_broken(ep, "post send", err);
		return -ENOTCONN;
	}
	rqst->rq_xmit_bytes_sent += call_len;
	return 0;
}

/*
 * ->send_request for a backchannel reply: always inline, RFC 8167 has no
 * chunks in the backward direction, and its credit value is the grant
 * for the server's calls. (rq_connect_cookie cannot tell whether the call
 * came on this connection: rpc_run_bc_task resets it. A reply after a
 * reconnect finds the server's retransmission by XID, or nothing.)
 */
int rpcrdma_bc_send_reply(struct rpcrdma_xprt *rx, struct rpc_rqst *rqst)
{
	struct rpcrdma_ep *ep = rx->ep;

	if (!ep)
		return -ENOTCONN;
	/* bc_maxpayload keeps the service's replies below this */
	if (RPCRDMA_HDRLEN_MIN + rpcrdma_call_len(&rqst->rq_snd_buf) >
	    ep->inline_send) {
		rx->stats.failed_marshal_count++;
		return -EMSGSIZE;
	}
	return rpcrdma_send_inline(rx, ep, rqst, rpcrdma_bc_credits(rx));
}
