// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * FRWR registration of chunks (RFC 8166 section 3.4). Each endpoint owns a
 * pool of fast-registration MRs. A request's call or reply xdr_buf is
 * registered as up to three regions (head, pages, tail), one MR each,
 * with REG_MR work requests posted ahead of the SEND that advertises
 * them; LOCAL_INV takes the peer's access away once the reply is in, or
 * when a request ends without one. A request's registrations are kept in
 * an rpcrdma_chunks found by its rpc_rqst.
 */
#include <linux/slab.h>
#include <linux/sunrpc/sched.h>
#include <linux/sunrpc/xdr.h>

#include "xprt_rdma.h"

/* unsignaled REG_MR and LOCAL_INV only complete when they fail */
static void rpcrdma_unsignaled_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_ep *ep = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		rpcrdma_conn_broken(ep, "memory registration", -EIO);
}

/*
 * Up to @count MRs; fewer only costs chunked requests a wait for one.
 * Returns how many there are.
 */
int rpcrdma_mrs_create(struct rpcrdma_ep *ep, unsigned int count)
{
	const struct ib_device_attr *attrs = &ep->device->attrs;
	unsigned int i;

	ep->flush_cqe.done = rpcrdma_unsignaled_done;
	ep->mr_depth = min_t(unsigned int, attrs->max_fast_reg_page_list_len,
			     RPCRDMA_MAX_PAGES);
	for (i = 0; i < count; i++) {
		struct rpcrdma_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

		if (!mr)
			break;
		mr->sgl = kcalloc(ep->mr_depth, sizeof(*mr->sgl), GFP_KERNEL);
		if (!mr->sgl) {
			kfree(mr);
			break;
		}
		mr->mr = ib_alloc_mr(ep->pd, IB_MR_TYPE_MEM_REG, ep->mr_depth);
		if (IS_ERR(mr->mr)) {
			kfree(mr->sgl);
			kfree(mr);
			break;
		}
		list_add_tail(&mr->all, &ep->mr_all);
		list_add_tail(&mr->node, &ep->mr_free);
	}
	return i;
}

/* after the QP is drained: nothing can use the MRs any more */
void rpcrdma_mrs_destroy(struct rpcrdma_ep *ep)
{
	struct rpcrdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, &ep->mr_all, all) {
		if (mr->nents)
			ib_dma_unmap_sg(ep->device, mr->sgl, mr->nents,
					mr->dir);
		ib_dereg_mr(mr->mr);
		kfree(mr->sgl);
		kfree(mr);
	}
	INIT_LIST_HEAD(&ep->mr_all);
	INIT_LIST_HEAD(&ep->mr_free);
}

static struct rpcrdma_mr *rpcrdma_mr_get(struct rpcrdma_ep *ep)
{
	struct rpcrdma_mr *mr;

	spin_lock(&ep->mr_lock);
	mr = list_first_entry_or_null(&ep->mr_free, struct rpcrdma_mr, node);
	if (mr)
		list_del(&mr->node);
	spin_unlock(&ep->mr_lock);
	return mr;
}

static void rpcrdma_mr_put(struct rpcrdma_ep *ep, struct rpcrdma_mr *mr)
{
	spin_lock(&ep->mr_lock);
	list_add(&mr->node, &ep->mr_free);
	spin_unlock(&ep->mr_lock);
}

/* every MR of @ck unmapped and back in the pool; nothing posted uses them */
void rpcrdma_chunks_unmap(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck)
{
	unsigned int i;

	for (i = 0; i < ck->nr_mrs; i++) {
		struct rpcrdma_mr *mr = ck->mrs[i];

		if (mr->nents)
			ib_dma_unmap_sg(ep->device, mr->sgl, mr->nents,
					mr->dir);
		mr->nents = 0;
		rpcrdma_mr_put(ep, mr);
	}
	ck->nr_mrs = 0;
	ck->nr_read = 0;
}

/* @len bytes of @xdr's pages from @base; 0 if more than @max entries */
static int rpcrdma_sg_pages(struct rpcrdma_mr *mr, unsigned int max,
			    struct xdr_buf *xdr, bool reply, unsigned int len)
{
	unsigned int off = offset_in_page(xdr->page_base);
	unsigned int idx = xdr->page_base >> PAGE_SHIFT;
	int n = 0;

	sg_init_table(mr->sgl, max);
	while (len) {
		unsigned int chunk = min_t(unsigned int, len, PAGE_SIZE - off);

		if (n == max)
			return 0;
		/* some decoders leave their pages for the transport to add */
		if (!xdr->pages[idx] && reply &&
		    (xdr->flags & XDRBUF_SPARSE_PAGES))
			xdr->pages[idx] = alloc_page(GFP_NOFS | __GFP_NOWARN);
		if (!xdr->pages[idx])
			return 0;
		sg_set_page(&mr->sgl[n++], xdr->pages[idx++], chunk, off);
		len -= chunk;
		off = 0;
	}
	sg_mark_end(&mr->sgl[n - 1]);
	return n;
}

/* @mr's first @nents entries DMA-mapped, mapped by the MR, key bumped */
static int rpcrdma_mr_register(struct rpcrdma_ep *ep, struct rpcrdma_mr *mr,
			       int nents, bool reply, struct rpcrdma_seg *seg)
{
	struct ib_device *dev = ep->device;
	int dma_nents;

	mr->dir = reply ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	dma_nents = ib_dma_map_sg(dev, mr->sgl, nents, mr->dir);
	if (!dma_nents)
		return -EIO;
	mr->nents = nents;
	if (ib_map_mr_sg(mr->mr, mr->sgl, dma_nents, NULL, PAGE_SIZE) !=
	    dma_nents)
		return -EIO;
	/* a new key: a late access through the old one is refused */
	ib_update_fast_reg_key(mr->mr, ib_inc_rkey(mr->mr->rkey));

	memset(&mr->reg_wr, 0, sizeof(mr->reg_wr));
	mr->reg_wr.wr.opcode = IB_WR_REG_MR;
	mr->reg_wr.wr.wr_cqe = &ep->flush_cqe;
	mr->reg_wr.mr = mr->mr;
	mr->reg_wr.key = mr->mr->rkey;
	mr->reg_wr.access = reply ?
		IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE :
		IB_ACCESS_REMOTE_READ;
	seg->handle = mr->mr->rkey;
	seg->length = mr->mr->length;
	seg->offset = mr->mr->iova;
	return 0;
}

/*
 * One region (a kvec when @iov, else @len bytes of the pages) as the next
 * MR of @ck, its REG_MR linked at **@link.
 */
static int rpcrdma_register_region(struct rpcrdma_ep *ep,
				   struct rpcrdma_chunks *ck,
				   struct xdr_buf *xdr, const struct kvec *iov,
				   unsigned int len, bool reply,
				   struct ib_send_wr ***link)
{
	struct rpcrdma_mr *mr;
	int nents, err;

	if (ck->nr_mrs == RPCRDMA_REQ_MAX_MRS)
		return -EMSGSIZE;
	mr = rpcrdma_mr_get(ep);
	if (!mr)
		return -ENOBUFS;
	/* owned by @ck from here: rpcrdma_chunks_unmap() returns it */
	ck->mrs[ck->nr_mrs++] = mr;
	if (iov) {
		/* kmalloc'ed or direct-mapped: physically contiguous */
		sg_init_one(mr->sgl, iov->iov_base, len);
		nents = 1;
	} else {
		nents = rpcrdma_sg_pages(mr, ep->mr_depth, xdr, reply, len);
		if (!nents)
			return -EMSGSIZE;
	}
	err = rpcrdma_mr_register(ep, mr, nents, reply,
				  &ck->segs[ck->nr_mrs - 1]);
	if (err)
		return err;
	**link = &mr->reg_wr.wr;
	*link = &mr->reg_wr.wr.next;
	return 0;
}

/*
 * The first @len bytes of @xdr registered (the call, or with @reply the
 * reply buffer), as MRs appended to @ck. On error the caller unmaps @ck;
 * nothing was posted.
 */
int rpcrdma_register_xdr(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck,
			 struct xdr_buf *xdr, unsigned int len, bool reply,
			 struct ib_send_wr ***link)
{
	unsigned int n;
	int err;

	n = min_t(unsigned int, len, xdr->head[0].iov_len);
	if (n) {
		err = rpcrdma_register_region(ep, ck, xdr, &xdr->head[0], n,
					      reply, link);
		if (err)
			return err;
		len -= n;
	}
	n = min(len, xdr->page_len);
	if (n) {
		err = rpcrdma_register_region(ep, ck, xdr, NULL, n, reply,
					      link);
		if (err)
			return err;
		len -= n;
	}
	n = min_t(unsigned int, len, xdr->tail[0].iov_len);
	if (n) {
		err = rpcrdma_register_region(ep, ck, xdr, &xdr->tail[0], n,
					      reply, link);
		if (err)
			return err;
		len -= n;
	}
	return len ? -EMSGSIZE : 0;
}

/*
 * LOCAL_INV for each MR of @ck but the one the peer already invalidated
 * (@done_rkey; 0 for none), the last signaled to ck->inv_cqe. 0 when that
 * completion will come; otherwise none will (-ENODATA: nothing to do).
 */
int rpcrdma_chunks_invalidate(struct rpcrdma_ep *ep, struct rpcrdma_chunks *ck,
			      u32 done_rkey)
{
	struct ib_send_wr *first = NULL, **link = &first, *last = NULL;
	const struct ib_send_wr *bad;
	unsigned int i;
	int err;

	for (i = 0; i < ck->nr_mrs; i++) {
		struct rpcrdma_mr *mr = ck->mrs[i];
		struct ib_send_wr *wr = &mr->inv_wr;

		if (done_rkey && mr->mr->rkey == done_rkey)
			continue;
		memset(wr, 0, sizeof(*wr));
		wr->opcode = IB_WR_LOCAL_INV;
		wr->ex.invalidate_rkey = mr->mr->rkey;
		wr->wr_cqe = &ep->flush_cqe;
		*link = wr;
		link = &wr->next;
		last = wr;
	}
	if (!last)
		return -ENODATA;
	last->send_flags = IB_SEND_SIGNALED;
	last->wr_cqe = &ck->inv_cqe;
	/* a failed post stops at the bad WR: the signaled last is not posted */
	err = ib_post_send(ep->id->qp, first, &bad);
	if (err)
		rpcrdma_conn_broken(ep, "post LOCAL_INV", err);
	return err;
}

/* ---- a request's chunks, found by its rpc_rqst ------------------------- */

struct rpcrdma_chunks *rpcrdma_chunks_find(struct rpcrdma_xprt *rx,
					   struct rpc_rqst *rqst)
{
	struct rpcrdma_chunks *ck;

	spin_lock(&rx->chunks_lock);
	hash_for_each_possible(rx->chunks, ck, node, (unsigned long)rqst)
		if (ck->rqst == rqst)
			break;
	spin_unlock(&rx->chunks_lock);
	return ck;
}

void rpcrdma_chunks_forget(struct rpcrdma_xprt *rx, struct rpcrdma_chunks *ck)
{
	spin_lock(&rx->chunks_lock);
	hash_del(&ck->node);
	spin_unlock(&rx->chunks_lock);
	kfree(ck);
}

/*
 * ->buf_free. A request that ends with its MRs still registered (no
 * reply: killed, timed out) takes the peer's access away before its
 * buffers go back: LOCAL_INV, waited for. MRs of an endpoint already torn
 * down went with it.
 */
void rpcrdma_buf_free(struct rpc_task *task)
{
	struct rpc_rqst *rqst = task->tk_rqstp;
	struct rpcrdma_xprt *rx = rpcx(rqst->rq_xprt);
	struct rpcrdma_chunks *ck = rpcrdma_chunks_find(rx, rqst);

	if (ck) {
		mutex_lock(&rx->ep_mutex);
		if (ck->nr_mrs && rx->ep && ck->ep_gen == rx->ep_gen) {
			ck->complete_rpc = false;
			reinit_completion(&ck->inv_done);
			if (!rpcrdma_chunks_invalidate(rx->ep, ck, 0))
				wait_for_completion(&ck->inv_done);
			rpcrdma_chunks_unmap(rx->ep, ck);
		}
		mutex_unlock(&rx->ep_mutex);
		rpcrdma_chunks_forget(rx, ck);
	}
	rpc_free(task);
}
