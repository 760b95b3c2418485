// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA Write of parts of an RPC reply (an xdr_buf) into a client's chunk:
 * one rdma_rw_ctx per chunk segment, each over a scatterlist that points
 * straight at the reply's head, pages and tail. The contexts hang on the
 * send that follows them on the send queue and are destroyed when that
 * Send completes (RC completes the Writes before it).
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sunrpc/xdr.h>
#include <rdma/rw.h>

#include "svc_conn.h"

/*
 * Append sg entries for bytes [pos, pos + n) of @xdr at sg[*i]. Returns 0,
 * or -EMSGSIZE if the range runs past the buffer or past @max entries.
 */
static int svcr_xdr_to_sg(const struct xdr_buf *xdr, u32 pos, u32 n,
			  struct scatterlist *sg, u32 *i, u32 max)
{
	u32 hl = xdr->head[0].iov_len, pl = xdr->page_len;
	u32 take;

	if (n && pos < hl) {
		if (*i >= max)
			return -EMSGSIZE;
		take = min(n, hl - pos);
		sg_set_buf(&sg[(*i)++], (u8 *)xdr->head[0].iov_base + pos, take);
		pos += take;
		n -= take;
	}
	while (n && pos < hl + pl) {
		u32 poff = xdr->page_base + (pos - hl);
		u32 in_page = offset_in_page(poff);

		if (*i >= max)
			return -EMSGSIZE;
		take = min3(n, (u32)PAGE_SIZE - in_page, hl + pl - pos);
		sg_set_page(&sg[(*i)++], xdr->pages[poff >> PAGE_SHIFT], take,
			    in_page);
		pos += take;
		n -= take;
	}
	if (n) {
		u32 toff = pos - hl - pl;

		if (*i >= max || toff > xdr->tail[0].iov_len ||
		    n > xdr->tail[0].iov_len - toff)
			return -EMSGSIZE;
		sg_set_buf(&sg[(*i)++], (u8 *)xdr->tail[0].iov_base + toff, n);
	}
	return 0;
}

void svcr_rw_free_one(struct svcr_xprt *conn, struct svcr_rw *rw, bool inited)
{
	if (inited)
		rdma_rw_ctx_destroy(&rw->ctx, conn->qp, conn->port_num, rw->sg,
				    rw->nents, rw->dir);
	kfree(rw->sg);
	kfree(rw);
}

/* After their WRs completed (or never went): the contexts' mappings go. */
void svcr_rw_release(struct svcr_xprt *conn, struct list_head *list)
{
	struct svcr_rw *rw, *next;

	list_for_each_entry_safe(rw, next, list, node) {
		list_del(&rw->node);
		svcr_rw_free_one(conn, rw, true);
	}
}

/*
 * Prepare RDMA Writes of @ranges (in order, as one byte stream) of @xdr
 * into the chunk at @chunk (its segment count word, checked by the
 * header parser). Each segment's byte count goes to @lens. The contexts
 * join @list; their send queue cost is added to @sq_wrs. Returns 0, or
 * -EMSGSIZE when the chunk is too small, or another -errno.
 */
int svcr_rw_write_chunk(struct svcr_xprt *conn, const __be32 *chunk,
			const struct xdr_buf *xdr,
			const struct svcr_range *ranges, u32 nranges,
			u32 *lens, struct list_head *list, u32 *sq_wrs)
{
	u32 nsegs = be32_to_cpup(chunk);
	__be32 *p = (__be32 *)(chunk + 1);
	u32 left = 0, r = 0, roff = 0, seg;
	struct svcr_rw *rw;
	int ret;

	for (seg = 0; seg < nranges; seg++)
		left += ranges[seg].len;

	for (seg = 0; seg < nsegs; seg++) {
		u32 handle, seglen, want, max, n = 0;
		u64 offset;

		p = xdr_decode_rdma_segment(p, &handle, &seglen, &offset);
		want = min(seglen, left);
		lens[seg] = want;
		if (!want)
			continue;

		rw = kzalloc(sizeof(*rw), GFP_KERNEL);
		if (!rw)
			return -ENOMEM;
		/* pages spanned, plus head, tail and a range boundary */
		max = want / PAGE_SIZE + 8;
		rw->sg = kmalloc_array(max, sizeof(*rw->sg), GFP_KERNEL);
		if (!rw->sg) {
			kfree(rw);
			return -ENOMEM;
		}
		sg_init_table(rw->sg, max);

		/* this segment's bytes, possibly across a range boundary */
		left -= want;
		while (want) {
			u32 take;

			while (r < nranges && roff == ranges[r].len) {
				r++;
				roff = 0;
			}
			if (r == nranges) {
				ret = -EMSGSIZE;
				goto err_rw;
			}
			take = min(want, ranges[r].len - roff);
			ret = svcr_xdr_to_sg(xdr, ranges[r].off + roff, take,
					     rw->sg, &n, max);
			if (ret)
				goto err_rw;
			roff += take;
			want -= take;
		}
		sg_mark_end(&rw->sg[n - 1]);
		rw->nents = n;
		rw->dir = DMA_TO_DEVICE;

		ret = rdma_rw_ctx_init(&rw->ctx, conn->qp, conn->port_num,
				       rw->sg, n, 0, offset, handle,
				       DMA_TO_DEVICE);
		if (ret < 0)
			goto err_rw;
		*sq_wrs += ret;
		list_add_tail(&rw->node, list);
		svcr_count_write();
	}
	return left ? -EMSGSIZE : 0;

err_rw:
	svcr_rw_free_one(conn, rw, false);
	return ret;
}

/*
 * Chain every context's WRs in front of @last, or with @last NULL, end
 * the chain with the last context's WR signalled to @cqe. Returns the
 * first WR.
 */
struct ib_send_wr *svcr_rw_chain(struct svcr_xprt *conn,
				 struct list_head *list,
				 struct ib_send_wr *last, struct ib_cqe *cqe)
{
	struct svcr_rw *rw;

	list_for_each_entry_reverse(rw, list, node) {
		last = rdma_rw_ctx_wrs(&rw->ctx, conn->qp, conn->port_num,
				       last ? NULL : cqe, last);
	}
	return last;
}

/*
 * Contexts whose WRs were partly posted when a post failed: their memory
 * may still be read or written until the QP flushes, so they wait for
 * the teardown's drain.
 */
void svcr_rw_orphan(struct svcr_xprt *conn, struct list_head *list)
{
	spin_lock_bh(&conn->lock);
	list_splice_tail_init(list, &conn->rw_orphans);
	spin_unlock_bh(&conn->lock);
}
