// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sending replies: the send buffers, xpo_sendto, xpo_result_payload and
 * the RDMA_ERROR replies of ULP.md 7.6.
 *
 * The transport header and whatever of the reply goes inline are copied
 * into one pre-mapped send buffer of send_size bytes (the smaller of
 * max_req_size and what the client said it can receive). The payload
 * nfsd marked with xpo_result_payload goes to the call's first Write
 * chunk, without its XDR padding; if the call has a Reply chunk the rest
 * of the reply goes there and the header says RDMA_NOMSG (svc_rw.c does
 * the RDMA Writes, posted in front of the Send). A reply that fits
 * nowhere gets ERR_CHUNK.
 *
 * The Writes read the reply's pages in place, and sunrpc reuses them once
 * sendto returns: a sender with Writes waits for its Send to complete.
 */
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/xdr.h>

#include "rpcrdma.h"
#include "svc_conn.h"

static void svcr_send_done(struct ib_cq *cq, struct ib_wc *wc);

int svcr_send_alloc(struct svcr_xprt *conn)
{
	u32 i;

	conn->sends = kcalloc(conn->nr_sends, sizeof(*conn->sends),
			      GFP_KERNEL);
	if (!conn->sends)
		return -ENOMEM;
	for (i = 0; i < conn->nr_sends; i++) {
		struct svcr_send *s = &conn->sends[i];
		void *buf;

		if (rpcrdma_map_buf(conn->dev, conn->send_size, DMA_TO_DEVICE,
				    &buf, &s->dma))
			return -ENOMEM;
		/* buf set means mapped: svcr_send_free() relies on it */
		s->buf = buf;
		s->conn = conn;
		s->cqe.done = svcr_send_done;
		INIT_LIST_HEAD(&s->rw_list);
		init_completion(&s->done);
		list_add_tail(&s->node, &conn->send_free);
	}
	return 0;
}

void svcr_send_free(struct svcr_xprt *conn)
{
	u32 i;

	if (!conn->sends)
		return;
	for (i = 0; i < conn->nr_sends; i++) {
		struct svcr_send *s = &conn->sends[i];

		if (!s->buf)
			break;
		rpcrdma_unmap_buf(conn->dev, conn->send_size, DMA_TO_DEVICE,
				  s->buf, s->dma);
	}
	kfree(conn->sends);
	conn->sends = NULL;
	INIT_LIST_HEAD(&conn->send_free);
}

static struct svcr_send *svcr_send_try_get(struct svcr_xprt *conn)
{
	struct svcr_send *s;

	spin_lock_bh(&conn->lock);
	s = list_first_entry_or_null(&conn->send_free, struct svcr_send,
				     node);
	if (s)
		list_del(&s->node);
	spin_unlock_bh(&conn->lock);
	return s;
}

/* Sleeps until a send buffer is free; NULL once the transport closes. */
struct svcr_send *svcr_send_get(struct svcr_xprt *conn)
{
	struct svcr_send *s = svcr_send_try_get(conn);

	if (s)
		return s;
	svcr_count_sq_starve();
	wait_event(conn->send_wait, (s = svcr_send_try_get(conn)) ||
		   READ_ONCE(conn->closing) ||
		   svc_xprt_is_dead(&conn->xprt));
	return s;
}

void svcr_send_put(struct svcr_xprt *conn, struct svcr_send *s)
{
	spin_lock_bh(&conn->lock);
	list_add(&s->node, &conn->send_free);
	spin_unlock_bh(&conn->lock);
	wake_up(&conn->send_wait);
}

/* CQ context: must not sleep. */
static void svcr_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcr_send *s = container_of(wc->wr_cqe, struct svcr_send, cqe);
	struct svcr_xprt *conn = s->conn;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info("svcrdma: send on %pISpc failed: %s\n",
				&conn->xprt.xpt_remote,
				ib_wc_status_msg(wc->status));
		spin_lock_bh(&conn->lock);
		if (conn->accepted && !conn->closing)
			svc_xprt_deferred_close(&conn->xprt);
		spin_unlock_bh(&conn->lock);
	}
	/* the Writes ahead of this Send are done too (RC ordering) */
	svcr_rw_release(conn, &s->rw_list);
	svcr_sq_release(conn, s->sq_wrs);
	if (s->waited)
		complete(&s->done);
	else
		svcr_send_put(conn, s);
}

/* Take @n send queue slots, sleeping while the queue is full. */
int svcr_sq_reserve(struct svcr_xprt *conn, u32 n)
{
	bool counted = false;

	if (n > conn->sq_size)
		return -EMSGSIZE;
	while (atomic_sub_return(n, &conn->sq_avail) < 0) {
		atomic_add(n, &conn->sq_avail);
		if (!counted) {
			svcr_count_sq_starve();
			counted = true;
		}
		wait_event(conn->send_wait,
			   atomic_read(&conn->sq_avail) >= n ||
			   READ_ONCE(conn->closing) ||
			   svc_xprt_is_dead(&conn->xprt));
		if (READ_ONCE(conn->closing) || svc_xprt_is_dead(&conn->xprt))
			return -ENOTCONN;
	}
	return 0;
}

void svcr_sq_release(struct svcr_xprt *conn, u32 n)
{
	atomic_add(n, &conn->sq_avail);
	wake_up(&conn->send_wait);
}

/*
 * Post @s's RDMA Writes (s->rw_list, s->sq_wrs slots) and then one Send
 * of the first @len bytes of its buffer. With @wait, returns only after
 * the Send completed. @s is given back in every case.
 */
int svcr_post_send(struct svcr_xprt *conn, struct svcr_send *s, u32 len,
		   bool wait)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr *first;
	int err;

	ib_dma_sync_single_for_device(conn->dev, s->dma, len, DMA_TO_DEVICE);
	s->sge.addr = s->dma;
	s->sge.length = len;
	s->sge.lkey = conn->pd->local_dma_lkey;
	memset(&s->wr, 0, sizeof(s->wr));
	s->wr.wr_cqe = &s->cqe;
	s->wr.sg_list = &s->sge;
	s->wr.num_sge = 1;
	s->wr.opcode = IB_WR_SEND;
	s->wr.send_flags = IB_SEND_SIGNALED;
	s->sq_wrs += 1;
	s->waited = wait;
	reinit_completion(&s->done);

	err = svcr_sq_reserve(conn, s->sq_wrs);
	if (err)
		goto err_put;
	first = svcr_rw_chain(conn, &s->rw_list, &s->wr, NULL);
	err = ib_post_send(conn->qp, first, &bad);
	if (err) {
		pr_info("svcrdma: post send on %pISpc failed: %d\n",
			&conn->xprt.xpt_remote, err);
		svc_xprt_deferred_close(&conn->xprt);
		/* Writes already on the queue read their pages until the flush */
		if (bad != first)
			svcr_rw_orphan(conn, &s->rw_list);
		svcr_sq_release(conn, s->sq_wrs);
		goto err_put;
	}
	if (wait) {
		wait_for_completion(&s->done);
		svcr_send_put(conn, s);
	}
	return 0;

err_put:
	svcr_rw_release(conn, &s->rw_list);
	svcr_send_put(conn, s);
	return err;
}

/*
 * RDMA_ERROR for the call in @rc: echoes its XID and version (7.6);
 * ERR_VERS names version 1 as the lowest and highest we speak.
 */
void svcr_send_error(struct svcr_xprt *conn, const struct svcr_recv *rc,
		     __be32 err)
{
	const __be32 *call = rc->buf;
	struct svcr_send *s;
	__be32 *p;

	s = svcr_send_get(conn);
	if (!s)
		return;
	p = s->buf;
	*p++ = call[0];
	*p++ = call[1];
	*p++ = cpu_to_be32(conn->credits);
	*p++ = rdma_error;
	*p++ = err;
	if (err == err_vers) {
		*p++ = rpcrdma_version;
		*p++ = rpcrdma_version;
	}
	s->sq_wrs = 0;
	svcr_post_send(conn, s, (u8 *)p - (u8 *)s->buf, false);
}

/*
 * The Write list of the reply: the call's chunks with each segment's
 * length set to what was written: @lens for the first chunk (NULL: none
 * of it), 0 for the others. Returns the next free word.
 */
static __be32 *svcr_encode_write_list(__be32 *p, const struct svcr_recv *rc,
				      const u32 *lens)
{
	const __be32 *w;
	u32 chunk, nsegs, i;

	if (rc && rc->wlist_cnt) {
		w = (const __be32 *)((const u8 *)rc->buf + rc->wlist_off);
		for (chunk = 0; chunk < rc->wlist_cnt; chunk++) {
			/* the parser checked these counts against the buffer */
			nsegs = be32_to_cpup(w++);
			*p++ = xdr_one;
			*p++ = cpu_to_be32(nsegs);
			for (i = 0; i < nsegs; i++) {
				*p++ = w[0];		/* handle */
				*p++ = cpu_to_be32(chunk == 0 && lens ?
						   lens[i] : 0);
				*p++ = w[2];		/* offset */
				*p++ = w[3];
				w += rpcrdma_segment_maxsz;
			}
			w++;	/* the next chunk's discriminator */
		}
	}
	*p++ = xdr_zero;
	return p;
}

/* The Reply chunk of the reply, its segments' lengths from @lens. */
static __be32 *svcr_encode_reply_chunk(__be32 *p, const struct svcr_recv *rc,
				       const u32 *lens)
{
	const __be32 *w;
	u32 nsegs, i;

	if (!lens) {
		*p++ = xdr_zero;
		return p;
	}
	w = (const __be32 *)((const u8 *)rc->buf + rc->rchunk_off);
	nsegs = be32_to_cpup(w++);
	*p++ = xdr_one;
	*p++ = cpu_to_be32(nsegs);
	for (i = 0; i < nsegs; i++) {
		*p++ = w[0];
		*p++ = cpu_to_be32(lens[i]);
		*p++ = w[2];
		*p++ = w[3];
		w += rpcrdma_segment_maxsz;
	}
	return p;
}

int svcr_sendto(struct svc_rqst *rqstp)
{
	struct svcr_xprt *conn = to_svcr(rqstp->rq_xprt);
	struct svcr_recv *rc = rqstp->rq_xprt_ctxt;
	struct xdr_buf *res = &rqstp->rq_res;
	u32 wlens[SVCR_MAX_SEGS], rlens[SVCR_MAX_SEGS];
	struct svcr_range ranges[2];
	bool wchunk, rchunk;
	u32 nranges, inl, hdr, i;
	struct svcr_send *s;
	__be32 *p, xid;
	u8 *dst;
	int err;

	if (svc_xprt_is_dead(&conn->xprt))
		return -ENOTCONN;

	wchunk = rc && rc->wlist_cnt && rc->pay_set &&
		 rc->pay_off <= res->len && rc->pay_len <= res->len - rc->pay_off;
	rchunk = rc && rc->rchunk_off;
	/* what is not the Write chunk's payload (nor its XDR padding) */
	if (wchunk) {
		u32 pad_end = min_t(u32, res->len, rc->pay_off +
				    xdr_align_size(rc->pay_len));

		ranges[0].off = 0;
		ranges[0].len = rc->pay_off;
		ranges[1].off = pad_end;
		ranges[1].len = res->len - pad_end;
		nranges = 2;
	} else {
		ranges[0].off = 0;
		ranges[0].len = res->len;
		nranges = 1;
	}
	for (inl = 0, i = 0; i < nranges; i++)
		inl += ranges[i].len;

	s = svcr_send_get(conn);
	if (!s)
		return -ENOTCONN;
	s->sq_wrs = 0;

	if (wchunk) {
		struct svcr_range pay = { rc->pay_off, rc->pay_len };

		err = svcr_rw_write_chunk(conn, (__be32 *)((u8 *)rc->buf +
							   rc->wlist_off),
					  res, &pay, 1, wlens, &s->rw_list,
					  &s->sq_wrs);
		if (err)
			goto err_refuse;
	}
	if (rchunk) {
		err = svcr_rw_write_chunk(conn, (__be32 *)((u8 *)rc->buf +
							   rc->rchunk_off),
					  res, ranges, nranges, rlens,
					  &s->rw_list, &s->sq_wrs);
		if (err)
			goto err_refuse;
	}

	/*
	 * A deferred request comes back without its receive buffer: its
	 * XID is the RPC reply's first word, and it offered no chunks we
	 * still know about.
	 */
	if (rc)
		xid = ((__be32 *)rc->buf)[0];
	else
		xid = *(__be32 *)res->head[0].iov_base;

	p = s->buf;
	*p++ = xid;
	*p++ = rpcrdma_version;
	*p++ = cpu_to_be32(conn->credits);
	*p++ = rchunk ? rdma_nomsg : rdma_msg;
	*p++ = xdr_zero;			/* read list */
	p = svcr_encode_write_list(p, rc, wchunk ? wlens : NULL);
	p = svcr_encode_reply_chunk(p, rc, rchunk ? rlens : NULL);
	hdr = (u8 *)p - (u8 *)s->buf;

	if (!rchunk) {
		if (inl > conn->send_size - hdr) {
			err = -EMSGSIZE;
			goto err_refuse;
		}
		dst = (u8 *)s->buf + hdr;
		for (i = 0; i < nranges; i++) {
			if (read_bytes_from_xdr_buf(res, ranges[i].off, dst,
						    ranges[i].len)) {
				err = -EIO;
				goto err_refuse;
			}
			dst += ranges[i].len;
		}
		hdr += inl;
	}
	return svcr_post_send(conn, s, hdr, !list_empty(&s->rw_list));

err_refuse:
	svcr_rw_release(conn, &s->rw_list);
	svcr_send_put(conn, s);
	if (rc)
		svcr_send_error(conn, rc, err_chunk);
	return err;
}

/*
 * nfsd marks the bulk payload of a READ-like reply. The first such
 * payload of a call that offered Write chunks goes to the first one; any
 * other stays inline with the rest of the reply.
 */
int svcr_result_payload(struct svc_rqst *rqstp, unsigned int offset,
			unsigned int length)
{
	struct svcr_recv *rc = rqstp->rq_xprt_ctxt;

	if (!rc || !rc->wlist_cnt || rc->pay_set)
		return 0;
	rc->pay_set = true;
	rc->pay_off = offset;
	rc->pay_len = length;
	return 0;
}
