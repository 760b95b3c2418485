// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Receiving calls: the receive buffers, their completions, the
 * RPC-over-RDMA header parser and xpo_recvfrom / xpo_release_ctxt.
 *
 * A connection owns rq_depth + credits receive buffers: rq_depth stay
 * posted, and the rest let recvfrom repost at once while the request it
 * hands to sunrpc keeps its buffer (its chunk lists are needed again at
 * sendto) until xpo_release_ctxt.
 *
 * The parser reads only words inside the bytes received; every count
 * taken from the wire is checked against what is left before it is used.
 */
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/xdr.h>

#include "rpcrdma.h"
#include "svc_conn.h"

static void svcr_recv_done(struct ib_cq *cq, struct ib_wc *wc);

int svcr_recv_alloc(struct svcr_xprt *conn)
{
	u32 i;

	conn->recvs = kcalloc(conn->nr_recvs, sizeof(*conn->recvs),
			      GFP_KERNEL);
	if (!conn->recvs)
		return -ENOMEM;
	for (i = 0; i < conn->nr_recvs; i++) {
		struct svcr_recv *rc = &conn->recvs[i];
		void *buf;

		if (rpcrdma_map_buf(conn->dev, conn->recv_size, DMA_FROM_DEVICE,
				    &buf, &rc->dma))
			return -ENOMEM;
		/* buf set means mapped: svcr_recv_free() relies on it */
		rc->buf = buf;
		rc->conn = conn;
		rc->cqe.done = svcr_recv_done;
		list_add_tail(&rc->node, &conn->recv_free);
	}
	return 0;
}

void svcr_recv_free(struct svcr_xprt *conn)
{
	u32 i;

	if (!conn->recvs)
		return;
	for (i = 0; i < conn->nr_recvs; i++) {
		struct svcr_recv *rc = &conn->recvs[i];

		if (!rc->buf)
			break;
		rpcrdma_unmap_buf(conn->dev, conn->recv_size, DMA_FROM_DEVICE,
				  rc->buf, rc->dma);
	}
	kfree(conn->recvs);
	conn->recvs = NULL;
	INIT_LIST_HEAD(&conn->recv_free);
	INIT_LIST_HEAD(&conn->recv_ready);
}

static void svcr_recv_put(struct svcr_xprt *conn, struct svcr_recv *rc)
{
	spin_lock_bh(&conn->lock);
	list_add(&rc->node, &conn->recv_free);
	spin_unlock_bh(&conn->lock);
}

/* Post free buffers until rq_depth receives are outstanding. */
int svcr_recv_refill(struct svcr_xprt *conn)
{
	for (;;) {
		struct ib_recv_wr wr = { };
		struct ib_sge sge;
		struct svcr_recv *rc;
		int err;

		if (atomic_inc_return(&conn->rq_posted) > conn->rq_depth)
			break;
		spin_lock_bh(&conn->lock);
		rc = list_first_entry_or_null(&conn->recv_free,
					      struct svcr_recv, node);
		if (rc)
			list_del(&rc->node);
		spin_unlock_bh(&conn->lock);
		if (!rc)
			break;

		ib_dma_sync_single_for_device(conn->dev, rc->dma,
					      conn->recv_size, DMA_FROM_DEVICE);
		sge.addr = rc->dma;
		sge.length = conn->recv_size;
		sge.lkey = conn->pd->local_dma_lkey;
		wr.wr_cqe = &rc->cqe;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = ib_post_recv(conn->qp, &wr, NULL);
		if (err) {
			atomic_dec(&conn->rq_posted);
			svcr_recv_put(conn, rc);
			return err;
		}
	}
	atomic_dec(&conn->rq_posted);
	return 0;
}

/* CQ context: must not sleep. */
static void svcr_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcr_recv *rc = container_of(wc->wr_cqe, struct svcr_recv, cqe);
	struct svcr_xprt *conn = rc->conn;

	atomic_dec(&conn->rq_posted);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info("svcrdma: receive on %pISpc failed: %s\n",
				&conn->xprt.xpt_remote,
				ib_wc_status_msg(wc->status));
		spin_lock_bh(&conn->lock);
		list_add(&rc->node, &conn->recv_free);
		if (conn->accepted && !conn->closing)
			svc_xprt_deferred_close(&conn->xprt);
		spin_unlock_bh(&conn->lock);
		return;
	}
	svcr_count_recv();
	rc->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(conn->dev, rc->dma, conn->recv_size,
				   DMA_FROM_DEVICE);
	spin_lock_bh(&conn->lock);
	list_add_tail(&rc->node, &conn->recv_ready);
	if (!conn->closing) {
		set_bit(XPT_DATA, &conn->xprt.xpt_flags);
		svc_xprt_enqueue(&conn->xprt);
	}
	spin_unlock_bh(&conn->lock);
}

/*
 * One chunk: a segment count and that many segments, all inside
 * [*p, end). Returns the segment count, or -EINVAL.
 */
static int svcr_parse_chunk(__be32 **p, __be32 *end, u32 *total_segs)
{
	u32 nsegs;

	if (end - *p < 1)
		return -EINVAL;
	nsegs = be32_to_cpup((*p)++);
	if (!nsegs || nsegs > SVCR_MAX_SEGS - *total_segs)
		return -EINVAL;
	if ((end - *p) / rpcrdma_segment_maxsz < nsegs)
		return -EINVAL;
	*p += nsegs * rpcrdma_segment_maxsz;
	*total_segs += nsegs;
	return nsegs;
}

/* An XDR optional-data discriminator: 0 or 1, anything else is garbage. */
static int svcr_parse_bool(__be32 **p, __be32 *end)
{
	if (end - *p < 1)
		return -EINVAL;
	switch (be32_to_cpup((*p)++)) {
	case 0:
		return 0;
	case 1:
		return 1;
	default:
		return -EINVAL;
	}
}

/*
 * Fill in rc's header fields. Returns 0 for a call to process,
 * -ENODATA for one to drop silently, -EPROTONOSUPPORT for a version we
 * do not speak (ERR_VERS) and -EINVAL for ERR_CHUNK.
 */
static int svcr_parse_header(struct svcr_recv *rc)
{
	__be32 *start = rc->buf;
	__be32 *end = start + rc->len / sizeof(__be32);
	__be32 *p = start;
	u32 segs = 0;
	int more, n;

	/* too short to echo XID and version: nothing sensible to answer */
	if (rc->len < 2 * sizeof(__be32))
		return -ENODATA;
	if (start[1] != rpcrdma_version)
		return -EPROTONOSUPPORT;
	if (rc->len < rpcrdma_fixed_maxsz * sizeof(__be32))
		return -EINVAL;
	rc->proc = start[3];
	switch (be32_to_cpu(rc->proc)) {
	case RDMA_MSG:
	case RDMA_NOMSG:
		break;
	case RDMA_DONE:
	case RDMA_ERROR:
		return -ENODATA;
	default:
		return -EINVAL;
	}
	p += rpcrdma_fixed_maxsz;
	rc->pay_set = false;

	/* read list: items of position + segment */
	rc->rlist_cnt = 0;
	while ((more = svcr_parse_bool(&p, end)) == 1) {
		if (end - p < rpcrdma_readseg_maxsz ||
		    ++rc->rlist_cnt > SVCR_MAX_SEGS)
			return -EINVAL;
		p += rpcrdma_readseg_maxsz;
	}
	if (more < 0)
		return more;

	/* write list: chunks of counted segments */
	rc->wlist_off = 0;
	rc->wlist_cnt = 0;
	while ((more = svcr_parse_bool(&p, end)) == 1) {
		if (!rc->wlist_off)
			rc->wlist_off = (p - start) * sizeof(__be32);
		n = svcr_parse_chunk(&p, end, &segs);
		if (n < 0)
			return n;
		rc->wlist_cnt++;
	}
	if (more < 0)
		return more;

	/* reply chunk: optional, one counted chunk */
	rc->rchunk_off = 0;
	more = svcr_parse_bool(&p, end);
	if (more < 0)
		return more;
	if (more) {
		rc->rchunk_off = (p - start) * sizeof(__be32);
		n = svcr_parse_chunk(&p, end, &segs);
		if (n < 0)
			return n;
	}
	rc->hdr_len = (p - start) * sizeof(__be32);

	/* RDMA_NOMSG carries the call in a position-zero Read chunk */
	if (rc->proc == rdma_nomsg && !rc->rlist_cnt)
		return -EINVAL;
	/* RDMA_MSG must have an RPC message after the header */
	if (rc->proc == rdma_msg && rc->hdr_len >= rc->len)
		return -EINVAL;
	return 0;
}

/*
 * The call is laid out as one byte stream over rq_pages[0...]: the head
 * is page 0, the rest are rq_arg's pages. svcr_arg_copy() writes stream
 * bytes, svcr_arg_set() describes the first @len of them in rq_arg.
 */
void svcr_arg_copy(struct svc_rqst *rqstp, u32 pos, const void *src, u32 n)
{
	while (n) {
		u32 off = offset_in_page(pos);
		u32 take = min_t(u32, n, PAGE_SIZE - off);
		u8 *dst = page_address(rqstp->rq_pages[pos >> PAGE_SHIFT]);

		if (src) {
			memcpy(dst + off, src, take);
			src = (const u8 *)src + take;
		} else {
			memset(dst + off, 0, take);
		}
		pos += take;
		n -= take;
	}
}

void svcr_arg_set(struct svc_rqst *rqstp, u32 len)
{
	struct xdr_buf *arg = &rqstp->rq_arg;
	u32 head = min_t(u32, len, PAGE_SIZE);
	u32 npages = DIV_ROUND_UP(len, PAGE_SIZE);

	arg->head[0].iov_base = page_address(rqstp->rq_pages[0]);
	arg->head[0].iov_len = head;
	arg->pages = &rqstp->rq_pages[1];
	arg->page_base = 0;
	arg->page_len = len - head;
	arg->tail[0].iov_base = NULL;
	arg->tail[0].iov_len = 0;
	arg->len = len;
	arg->buflen = len;

	/* the reply is built in the pages after the call's */
	rqstp->rq_respages = &rqstp->rq_pages[max(npages, 1U)];
	rqstp->rq_next_page = rqstp->rq_respages + 1;
}

int svcr_recvfrom(struct svc_rqst *rqstp)
{
	struct svc_xprt *xprt = rqstp->rq_xprt;
	struct svcr_xprt *conn = to_svcr(xprt);
	struct svcr_recv *rc;
	int err;

	rqstp->rq_xprt_ctxt = NULL;

	spin_lock_bh(&conn->lock);
	rc = list_first_entry_or_null(&conn->recv_ready, struct svcr_recv,
				      node);
	if (rc)
		list_del(&rc->node);
	else
		clear_bit(XPT_DATA, &xprt->xpt_flags);
	spin_unlock_bh(&conn->lock);
	/* lets another thread take the next call while we handle this one */
	svc_xprt_received(xprt);
	if (!rc)
		return 0;

	if (svcr_recv_refill(conn))
		svc_xprt_deferred_close(xprt);

	err = svcr_parse_header(rc);
	switch (err) {
	case 0:
		break;
	case -EPROTONOSUPPORT:
		svcr_send_error(conn, rc, err_vers);
		goto drop;
	case -ENODATA:
		goto drop;
	default:
		svcr_send_error(conn, rc, err_chunk);
		goto drop;
	}
	/* the client's answer to one of nfsd's callbacks */
	if (svcr_bc_reply(conn, rc))
		goto drop;

	if (rc->rlist_cnt) {
		/* pull the chunk's bytes with RDMA Read, sleeping */
		err = svcr_read_chunk(rqstp, rc);
		if (err == -EINVAL) {
			svcr_send_error(conn, rc, err_chunk);
			goto drop;
		}
		if (err) {
			svc_xprt_deferred_close(xprt);
			goto drop;
		}
	} else {
		u32 len = rc->len - rc->hdr_len;

		svcr_arg_copy(rqstp, 0, (u8 *)rc->buf + rc->hdr_len, len);
		svcr_arg_set(rqstp, len);
	}
	rqstp->rq_xprt_ctxt = rc;
	rqstp->rq_prot = IPPROTO_MAX;
	svc_xprt_copy_addrs(rqstp, xprt);
	return rqstp->rq_arg.len;

drop:
	svcr_recv_put(conn, rc);
	svcr_recv_refill(conn);
	return 0;
}

void svcr_release_ctxt(struct svc_xprt *xprt, void *ctxt)
{
	struct svcr_xprt *conn = to_svcr(xprt);
	struct svcr_recv *rc = ctxt;

	if (!rc)
		return;
	svcr_recv_put(conn, rc);
	if (!READ_ONCE(conn->closing))
		svcr_recv_refill(conn);
}
