// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pulling a call's Read chunk with RDMA Read (rdma_rw_ctx), straight into
 * the request's pages, from xpo_recvfrom (an svc thread: it sleeps until
 * the Reads complete).
 *
 * Supported: one Read chunk, i.e. every read segment at one position.
 * Position zero with RDMA_NOMSG is the whole call (a long call); a
 * position P > 0 with RDMA_MSG is a bulk payload (NFS WRITE data) that
 * goes between inline bytes [0, P) and [P, end), with the XDR padding the
 * client does not send put back as zeros (RFC 8166 3.4.6).
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/svc_xprt.h>
#include <linux/sunrpc/xdr.h>

#include "svc_conn.h"

struct svcr_read_wait {
	struct ib_cqe		cqe;
	struct completion	done;
	int			status;
};

/* CQ context: must not sleep. */
static void svcr_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcr_read_wait *w =
		container_of(wc->wr_cqe, struct svcr_read_wait, cqe);

	w->status = wc->status == IB_WC_SUCCESS ? 0 : -EIO;
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info("svcrdma: RDMA Read failed: %s\n",
			ib_wc_status_msg(wc->status));
	complete(&w->done);
}

/* One context reading @len bytes at @remote into stream bytes from @pos. */
static int svcr_read_segment(struct svcr_xprt *conn, struct svc_rqst *rqstp,
			     u32 pos, u32 len, u32 handle, u64 remote,
			     struct list_head *list, u32 *sq_wrs)
{
	u32 max = len / PAGE_SIZE + 2, n = 0;
	struct svcr_rw *rw;
	int ret;

	rw = kzalloc(sizeof(*rw), GFP_KERNEL);
	if (!rw)
		return -ENOMEM;
	rw->sg = kmalloc_array(max, sizeof(*rw->sg), GFP_KERNEL);
	if (!rw->sg) {
		kfree(rw);
		return -ENOMEM;
	}
	sg_init_table(rw->sg, max);
	while (len) {
		u32 off = offset_in_page(pos);
		u32 take = min_t(u32, len, PAGE_SIZE - off);

		sg_set_page(&rw->sg[n++], rqstp->rq_pages[pos >> PAGE_SHIFT],
			    take, off);
		pos += take;
		len -= take;
	}
	sg_mark_end(&rw->sg[n - 1]);
	rw->nents = n;
	rw->dir = DMA_FROM_DEVICE;
	ret = rdma_rw_ctx_init(&rw->ctx, conn->qp, conn->port_num, rw->sg, n,
			       0, remote, handle, DMA_FROM_DEVICE);
	if (ret < 0) {
		svcr_rw_free_one(conn, rw, false);
		return ret;
	}
	*sq_wrs += ret;
	list_add_tail(&rw->node, list);
	svcr_count_read();
	return 0;
}

/* Post the Reads, the last one signalled, and sleep until it completes. */
static int svcr_read_post(struct svcr_xprt *conn, struct list_head *list,
			  u32 sq_wrs)
{
	struct svcr_read_wait w = { };
	const struct ib_send_wr *bad;
	struct ib_send_wr *first;
	int err;

	w.cqe.done = svcr_read_done;
	init_completion(&w.done);
	err = svcr_sq_reserve(conn, sq_wrs);
	if (err)
		return err;
	first = svcr_rw_chain(conn, list, NULL, &w.cqe);
	err = ib_post_send(conn->qp, first, &bad);
	if (err) {
		/*
		 * Reads already posted write our pages until the flush, and
		 * the signalled last one was not posted: nothing to wait for.
		 */
		if (bad != first)
			svcr_rw_orphan(conn, list);
		svcr_sq_release(conn, sq_wrs);
		return err;
	}
	/* completes with a flush error at the latest when the QP closes */
	wait_for_completion(&w.done);
	svcr_sq_release(conn, sq_wrs);
	return w.status;
}

/*
 * Returns 0 with rq_arg describing the call, -EINVAL for a chunk we
 * refuse (ERR_CHUNK), another -errno when the Reads failed (the caller
 * closes the connection).
 */
int svcr_read_chunk(struct svc_rqst *rqstp, struct svcr_recv *rc)
{
	struct svcr_xprt *conn = to_svcr(rqstp->rq_xprt);
	const __be32 *item = (const __be32 *)rc->buf + rpcrdma_fixed_maxsz;
	const u8 *inl = (const u8 *)rc->buf + rc->hdr_len;
	u32 inl_len = rc->len - rc->hdr_len;
	u32 position = 0, chunk_len = 0, pad = 0, total, npages, i, pos;
	u32 sq_wrs = 0;
	LIST_HEAD(list);
	int err;

	/* first pass: one position, the chunk's length, where it goes */
	for (i = 0; i < rc->rlist_cnt; i++) {
		u32 pos_i = be32_to_cpu(item[1]);
		u32 len_i = be32_to_cpu(item[3]);

		if (i && pos_i != position)
			return -EINVAL;		/* a second Read chunk */
		position = pos_i;
		if (len_i > RPCSVC_MAXPAYLOAD ||
		    chunk_len > RPCSVC_MAXPAYLOAD - len_i)
			return -EINVAL;
		chunk_len += len_i;
		item += 1 + rpcrdma_readseg_maxsz;
	}
	if (rc->proc == rdma_nomsg) {
		/* the whole call is in the chunk; nothing inline counts */
		if (position)
			return -EINVAL;
		inl_len = 0;
		total = chunk_len;
	} else {
		if (!position || position % 4 || position > inl_len)
			return -EINVAL;
		pad = xdr_align_size(chunk_len) - chunk_len;
		total = inl_len + chunk_len + pad;
	}
	if (!total)
		return -EINVAL;
	/* the call's pages, and one left for the reply at least */
	npages = DIV_ROUND_UP(total, PAGE_SIZE);
	if (&rqstp->rq_pages[npages + 1] > rqstp->rq_page_end)
		return -EINVAL;

	/* second pass: a context per segment, reading into place */
	item = (const __be32 *)rc->buf + rpcrdma_fixed_maxsz;
	pos = position;
	for (i = 0; i < rc->rlist_cnt; i++) {
		u32 handle, len;
		u64 remote;

		xdr_decode_rdma_segment((__be32 *)item + 2, &handle, &len,
					&remote);
		item += 1 + rpcrdma_readseg_maxsz;
		if (!len)
			continue;
		err = svcr_read_segment(conn, rqstp, pos, len, handle, remote,
					&list, &sq_wrs);
		if (err)
			goto out;
		pos += len;
	}
	if (!list_empty(&list)) {
		err = svcr_read_post(conn, &list, sq_wrs);
		if (err)
			goto out;
	}

	/* the inline bytes around the chunk, after the Reads unmapped */
	svcr_rw_release(conn, &list);
	if (rc->proc == rdma_msg) {
		svcr_arg_copy(rqstp, 0, inl, position);
		svcr_arg_copy(rqstp, position + chunk_len, NULL, pad);
		svcr_arg_copy(rqstp, position + chunk_len + pad,
			      inl + position, inl_len - position);
	}
	svcr_arg_set(rqstp, total);
	return 0;

out:
	svcr_rw_release(conn, &list);
	return err == -EMSGSIZE ? -EINVAL : (err ? err : -EIO);
}
