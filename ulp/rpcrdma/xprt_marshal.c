// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Building and sending an RPC-over-RDMA version 1 call (RFC 8166 section
 * 4): the transport header, then the RPC call pulled up behind it into one
 * DMA-mapped send buffer, sent with a single SEND.
 *
 * Only calls that fit the negotiated inline size go out so far; their
 * header carries three empty chunk lists.
 */
#include <linux/highmem.h>
#include <linux/sunrpc/xdr.h>

#include "xprt_rdma.h"

/* fixed header and three empty chunk lists, RDMA_MSG */
static unsigned int rpcrdma_encode_inline_header(struct rpcrdma_ep *ep,
						 struct rpc_rqst *rqst,
						 __be32 *p)
{
	*p++ = rqst->rq_xid;
	*p++ = rpcrdma_version;
	/* credits asked for: the most we can have outstanding */
	*p++ = cpu_to_be32(ep->max_requests);
	*p++ = rdma_msg;
	*p++ = xdr_zero;	/* read list */
	*p++ = xdr_zero;	/* write list */
	*p = xdr_zero;		/* reply chunk */
	return RPCRDMA_HDRLEN_MIN;
}

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

/*
 * Called from ->send_request, XPRT_LOCKED held, process context.
 * Returns 0 once the SEND is posted, or an errno sunrpc acts on.
 */
int rpcrdma_marshal_and_send(struct rpcrdma_xprt *rx, struct rpc_rqst *rqst)
{
	struct rpcrdma_ep *ep = rx->ep;
	unsigned int call_len, hdr_len;
	struct rpcrdma_sbuf *sb;
	int err;

	if (!ep)
		return -ENOTCONN;
	call_len = rpcrdma_call_len(&rqst->rq_snd_buf);
	if (RPCRDMA_HDRLEN_MIN + call_len > ep->inline_send) {
		/* Read chunks would carry it: not written yet */
		rx->stats.failed_marshal_count++;
		return -EMSGSIZE;
	}
	sb = rpcrdma_sbuf_get(ep);
	if (!sb) {
		/* sends still completing: sunrpc retries shortly */
		rx->stats.empty_sendctx_q++;
		return -ENOBUFS;
	}

	hdr_len = rpcrdma_encode_inline_header(ep, rqst, sb->buf);
	rpcrdma_pullup(&rqst->rq_snd_buf, sb->buf + hdr_len);
	rx->stats.pullup_copy_count += rqst->rq_snd_buf.page_len +
				       rqst->rq_snd_buf.tail[0].iov_len;
	sb->sge.length = hdr_len + call_len;
	ib_dma_sync_single_for_device(ep->id->device, sb->dma, sb->sge.length,
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
