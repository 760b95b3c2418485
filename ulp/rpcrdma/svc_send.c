// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sending replies: the send buffers, xpo_sendto and the RDMA_ERROR
 * replies of ULP.md 7.6.
 *
 * A reply goes inline: the transport header and the whole RPC reply are
 * copied into one pre-mapped send buffer of send_size bytes (the smaller
 * of max_req_size and what the client said it can receive). A reply that
 * does not fit gets ERR_CHUNK until the Write and Reply chunk path
 * (RDMA Write with rdma_rw_ctx) exists.
 */
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/xdr.h>

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

		buf = kmalloc(conn->send_size, GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		s->dma = ib_dma_map_single(conn->dev, buf, conn->send_size,
					   DMA_TO_DEVICE);
		if (ib_dma_mapping_error(conn->dev, s->dma)) {
			kfree(buf);
			return -ENOMEM;
		}
		/* buf set means mapped: svcr_send_free() relies on it */
		s->buf = buf;
		s->conn = conn;
		s->cqe.done = svcr_send_done;
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
		ib_dma_unmap_single(conn->dev, s->dma, conn->send_size,
				    DMA_TO_DEVICE);
		kfree(s->buf);
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
static struct svcr_send *svcr_send_get(struct svcr_xprt *conn)
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

static void svcr_send_put(struct svcr_xprt *conn, struct svcr_send *s)
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

	atomic_add(s->sq_wrs, &conn->sq_avail);
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
	svcr_send_put(conn, s);
}

/* Post one Send of the first @len bytes of @s's buffer. */
static int svcr_post_send(struct svcr_xprt *conn, struct svcr_send *s,
			  u32 len)
{
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
	s->sq_wrs = 1;

	/* the send buffers never outnumber the send queue: this cannot wrap */
	atomic_sub(s->sq_wrs, &conn->sq_avail);
	err = ib_post_send(conn->qp, &s->wr, NULL);
	if (err) {
		atomic_add(s->sq_wrs, &conn->sq_avail);
		pr_info("svcrdma: post send on %pISpc failed: %d\n",
			&conn->xprt.xpt_remote, err);
		svc_xprt_deferred_close(&conn->xprt);
		svcr_send_put(conn, s);
	}
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
	svcr_post_send(conn, s, (u8 *)p - (u8 *)s->buf);
}

/*
 * Echo the call's Write list with every segment's length 0: none of it
 * was written, the reply is inline. Returns the next free word.
 */
static __be32 *svcr_echo_write_list(__be32 *p, const struct svcr_recv *rc)
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
				*p++ = xdr_zero;	/* length written */
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

int svcr_sendto(struct svc_rqst *rqstp)
{
	struct svcr_xprt *conn = to_svcr(rqstp->rq_xprt);
	struct svcr_recv *rc = rqstp->rq_xprt_ctxt;
	struct xdr_buf *res = &rqstp->rq_res;
	struct svcr_send *s;
	__be32 *p, xid;
	u32 hdr;

	if (svc_xprt_is_dead(&conn->xprt))
		return -ENOTCONN;
	s = svcr_send_get(conn);
	if (!s)
		return -ENOTCONN;

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
	*p++ = rdma_msg;
	*p++ = xdr_zero;			/* read list */
	p = svcr_echo_write_list(p, rc);
	*p++ = xdr_zero;			/* no reply chunk used */
	hdr = (u8 *)p - (u8 *)s->buf;

	if (res->len > conn->send_size - hdr) {
		/* TODO Write/Reply chunks: until then this reply cannot go */
		svcr_send_put(conn, s);
		if (rc)
			svcr_send_error(conn, rc, err_chunk);
		return -EMSGSIZE;
	}
	if (read_bytes_from_xdr_buf(res, 0, (u8 *)s->buf + hdr, res->len)) {
		svcr_send_put(conn, s);
		return -EIO;
	}
	return svcr_post_send(conn, s, hdr + res->len);
}

/*
 * nfsd marks a READ-like payload here; while Write chunks are not done
 * it stays in rq_res and goes inline with the rest.
 */
int svcr_result_payload(struct svc_rqst *rqstp, unsigned int offset,
			unsigned int length)
{
	return 0;
}
