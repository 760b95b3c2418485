// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe memory regions: key handling, the iova -> kernel address
 * translation every data copy goes through, and the MR side of the local
 * operations (fast register, local invalidate).
 *
 * rxe "DMA" is virtual (ib_uses_virt_dma), so every address an MR resolves
 * to is a kernel virtual address: a DMA MR maps iova 1:1, a user MR keeps
 * page_address() of each pinned page (amd64 has no highmem), and a
 * fast-reg MR keeps the page-size blocks ib_sg_to_pages() handed us.
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include "rxe.h"

/* Low 8 bits of a key: the consumer-owned variant, never @last_key's. */
u8 rxe_get_next_key(u32 last_key)
{
	u8 key;

	do {
		key = get_random_u32() & 0xff;
	} while (key == (last_key & 0xff));

	return key;
}

/* Keys are index << 8 | variant; lkey == rkey for every rxe MR. */
static void rxe_mr_init(int access, struct rxe_mr *mr)
{
	u32 key = mr->elem.index << 8 | rxe_get_next_key(-1);

	mr->lkey = key;
	mr->rkey = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->access = access;
	mr->state = RXE_MR_STATE_INVALID;
	mr->page_shift = PAGE_SHIFT;
	mr->page_mask = PAGE_SIZE - 1;
	atomic_set(&mr->num_mw, 0);
}

void rxe_mr_init_dma(int access, struct rxe_mr *mr)
{
	rxe_mr_init(access, mr);
	mr->ibmr.type = IB_MR_TYPE_DMA;
	mr->state = RXE_MR_STATE_VALID;
}

/* Record the kernel address of every pinned page, in order. */
static int rxe_mr_fill_user_pages(struct rxe_mr *mr, struct ib_umem *umem)
{
	struct scatterlist *sg;
	unsigned int i, j;
	u32 n = 0;

	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		unsigned int npages = sg->length >> PAGE_SHIFT;
		struct page *page = sg_page(sg);

		for (j = 0; j < npages; j++) {
			void *va = page_address(nth_page(page, j));

			if (n >= mr->max_pages || !va)
				return -EFAULT;
			mr->pages[n++] = (u64)(uintptr_t)va;
		}
	}
	if (n != mr->max_pages)
		return -EFAULT;
	mr->num_pages = n;
	return 0;
}

int rxe_mr_init_user(struct rxe_dev *rxe, u64 start, u64 length, u64 iova,
		     int access, struct rxe_mr *mr)
{
	struct ib_umem *umem;
	size_t npages;
	int err;

	if (!length || iova + length < iova || start + length < start)
		return -EINVAL;

	rxe_mr_init(access, mr);

	umem = ib_umem_get(&rxe->ib_dev, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_release;
	}
	mr->max_pages = npages;

	err = rxe_mr_fill_user_pages(mr, umem);
	if (err)
		goto err_free;

	mr->umem = umem;
	/* iova of the start of pages[0]: iova and start share the offset */
	mr->ibmr_iova_base = iova - ib_umem_offset(umem);
	mr->ibmr.type = IB_MR_TYPE_USER;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->state = RXE_MR_STATE_VALID;
	return 0;

err_free:
	kvfree(mr->pages);
	mr->pages = NULL;
	mr->max_pages = 0;
	mr->num_pages = 0;
err_release:
	ib_umem_release(umem);
	return err;
}

int rxe_mr_init_fast(int max_pages, struct rxe_mr *mr)
{
	if (max_pages <= 0)
		return -EINVAL;

	rxe_mr_init(0, mr);

	mr->pages = kvcalloc(max_pages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	mr->max_pages = max_pages;
	mr->num_pages = 0;
	mr->ibmr.type = IB_MR_TYPE_MEM_REG;
	/* usable only after an IB_WR_REG_MR WQE has been executed */
	mr->state = RXE_MR_STATE_FREE;
	return 0;
}

/* ib_sg_to_pages() callback: one page-size block per call. */
int rxe_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	if (unlikely(mr->num_pages >= mr->max_pages))
		return -ENOMEM;

	mr->pages[mr->num_pages++] = addr;
	return 0;
}

int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		  int sg_nents, unsigned int *sg_offset)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	u64 page_size = ibmr->page_size;
	int n;

	if (!page_size || !is_power_of_2(page_size) ||
	    page_size < SZ_4K || !mr->pages)
		return -EINVAL;

	mr->num_pages = 0;
	mr->page_shift = ilog2(page_size);
	mr->page_mask = page_size - 1;

	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rxe_mr_set_page);

	/* ib_sg_to_pages set ibmr->iova inside the block at pages[0] */
	if (n > 0) {
		mr->page_offset = ibmr->iova & mr->page_mask;
		mr->ibmr_iova_base = ibmr->iova - mr->page_offset;
	}
	return n;
}

int mr_check_range(struct rxe_mr *mr, u64 iova, size_t length)
{
	if (mr->ibmr.type == IB_MR_TYPE_DMA)
		return 0;

	if (iova < mr->ibmr.iova || length > mr->ibmr.length ||
	    iova - mr->ibmr.iova > mr->ibmr.length - length)
		return -EFAULT;

	return 0;
}

/*
 * Kernel address of @iova in a page-list MR and how many bytes follow it
 * in the same block. The caller has range-checked @iova.
 */
static void *rxe_mr_page_va(struct rxe_mr *mr, u64 iova, unsigned int *room)
{
	u64 off = iova - mr->ibmr_iova_base;
	u64 idx = off >> mr->page_shift;
	u64 in_page = off & mr->page_mask;

	if (unlikely(iova < mr->ibmr_iova_base || idx >= mr->num_pages))
		return NULL;

	*room = (mr->page_mask + 1) - in_page;
	return (void *)(uintptr_t)(mr->pages[idx] + in_page);
}

int rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *addr,
		unsigned int length, enum rxe_mr_copy_dir dir)
{
	if (!length)
		return 0;

	if (mr->ibmr.type == IB_MR_TYPE_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (dir == RXE_TO_MR_OBJ)
			memcpy(va, addr, length);
		else
			memcpy(addr, va, length);
		return 0;
	}

	if (mr_check_range(mr, iova, length))
		return -EFAULT;

	while (length) {
		unsigned int room, bytes;
		void *va = rxe_mr_page_va(mr, iova, &room);

		if (!va)
			return -EFAULT;
		bytes = min(length, room);
		if (dir == RXE_TO_MR_OBJ)
			memcpy(va, addr, bytes);
		else
			memcpy(addr, va, bytes);
		iova += bytes;
		addr += bytes;
		length -= bytes;
	}
	return 0;
}

/*
 * The SGE list may live in a ring userspace can write, so each SGE is read
 * once into a local copy and the count is clamped to the array bound.
 */
static u32 rxe_dma_num_sge(struct rxe_dma_info *dma)
{
	return min_t(u32, READ_ONCE(dma->num_sge), RXE_MAX_SGE);
}

int copy_data(struct rxe_pd *pd, int access, struct rxe_dma_info *dma,
	      void *addr, int length, enum rxe_mr_copy_dir dir)
{
	u32 num_sge = rxe_dma_num_sge(dma);
	u32 cur = dma->cur_sge;
	u32 offset = dma->sge_offset;
	u32 resid = dma->resid;
	struct rxe_mr *mr = NULL;
	int err = 0;

	if (length == 0)
		return 0;
	if (length < 0 || (u32)length > resid)
		return -EINVAL;

	while (length > 0) {
		struct rxe_sge sge;
		unsigned int bytes;

		if (cur >= num_sge) {
			err = -ENOSPC;
			goto out;
		}
		sge = dma->sge[cur];
		if (offset >= sge.length) {
			/* this SGE is used up (or empty): no lkey lookup */
			if (mr) {
				rxe_put(mr);
				mr = NULL;
			}
			cur++;
			offset = 0;
			continue;
		}
		if (!mr) {
			mr = lookup_mr(pd, access, sge.lkey, RXE_LOOKUP_LOCAL);
			if (!mr) {
				err = -EINVAL;
				goto out;
			}
		}
		bytes = min_t(u32, length, sge.length - offset);
		err = rxe_mr_copy(mr, sge.addr + offset, addr, bytes, dir);
		if (err)
			goto out;
		offset += bytes;
		resid -= bytes;
		length -= bytes;
		addr += bytes;
	}

	dma->cur_sge = cur;
	dma->sge_offset = offset;
	dma->resid = resid;
out:
	if (mr)
		rxe_put(mr);
	return err;
}

/* Skip @length bytes of the SGE list without copying (e.g. acked data). */
int advance_dma_data(struct rxe_dma_info *dma, unsigned int length)
{
	u32 num_sge = rxe_dma_num_sge(dma);
	u32 cur = dma->cur_sge;
	u32 offset = dma->sge_offset;
	u32 resid = dma->resid;

	if (length > resid)
		return -EINVAL;

	while (length) {
		u32 sge_len, bytes;

		if (cur >= num_sge)
			return -ENOSPC;
		sge_len = READ_ONCE(dma->sge[cur].length);
		if (offset >= sge_len) {
			cur++;
			offset = 0;
			continue;
		}
		bytes = min_t(u32, length, sge_len - offset);
		offset += bytes;
		resid -= bytes;
		length -= bytes;
	}

	dma->cur_sge = cur;
	dma->sge_offset = offset;
	dma->resid = resid;
	return 0;
}

void *iova_to_vaddr(struct rxe_mr *mr, u64 iova, int length)
{
	unsigned int room;
	void *va;

	if (mr->state != RXE_MR_STATE_VALID || length <= 0)
		return NULL;

	if (mr->ibmr.type == IB_MR_TYPE_DMA)
		return (void *)(uintptr_t)iova;

	if (mr_check_range(mr, iova, length))
		return NULL;

	va = rxe_mr_page_va(mr, iova, &room);
	if (!va || room < (unsigned int)length)
		return NULL;
	return va;
}

int rxe_mr_do_atomic_op(struct rxe_mr *mr, u64 iova, int opcode,
			u64 compare, u64 swap_add, u64 *orig_val)
{
	u64 *va, old;

	if (iova & (sizeof(u64) - 1))
		return -EINVAL;

	va = iova_to_vaddr(mr, iova, sizeof(u64));
	if (!va)
		return -EFAULT;

	/* the low 5 opcode bits name the operation for any transport */
	switch (opcode & 0x1f) {
	case IB_OPCODE_COMPARE_SWAP:
		old = cmpxchg(va, compare, swap_add);
		break;
	case IB_OPCODE_FETCH_ADD:
		old = READ_ONCE(*va);
		while (!try_cmpxchg(va, &old, old + swap_add))
			;
		break;
	default:
		return -EINVAL;
	}

	*orig_val = old;
	return 0;
}

/* Look a key up on @pd: returns the MR with a reference, or NULL. */
struct rxe_mr *lookup_mr(struct rxe_pd *pd, int access, u32 key,
			 enum rxe_mr_lookup_type type)
{
	struct rxe_dev *rxe = to_rdev(pd->ibpd.device);
	struct rxe_mr *mr;

	mr = rxe_pool_get_index(&rxe->mr_pool, key >> 8);
	if (!mr)
		return NULL;

	if ((type == RXE_LOOKUP_LOCAL && mr->lkey != key) ||
	    (type == RXE_LOOKUP_REMOTE && mr->rkey != key) ||
	    mr_pd(mr) != pd || (access & mr->access) != access ||
	    mr->state != RXE_MR_STATE_VALID) {
		rxe_put(mr);
		return NULL;
	}
	return mr;
}

/* IB_WR_LOCAL_INV or an incoming send-with-invalidate naming an MR. */
int rxe_invalidate_mr(struct rxe_qp *qp, u32 key)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rxe_mr *mr;
	int err = 0;

	mr = rxe_pool_get_index(&rxe->mr_pool, key >> 8);
	if (!mr)
		return -EINVAL;

	if ((mr->lkey != key && mr->rkey != key) || mr_pd(mr) != qp->pd) {
		err = -EINVAL;
		goto out;
	}
	/* windows bound to it keep it registered (IBA 10.6.7.2.6) */
	if (atomic_read(&mr->num_mw) > 0) {
		err = -EINVAL;
		goto out;
	}
	/* only fast-register MRs can be invalidated */
	if (mr->ibmr.type != IB_MR_TYPE_MEM_REG) {
		err = -EINVAL;
		goto out;
	}
	mr->state = RXE_MR_STATE_FREE;
out:
	rxe_put(mr);
	return err;
}

/* Execute an IB_WR_REG_MR WQE (kernel QPs only: it carries a pointer). */
int rxe_reg_fast_mr(struct rxe_qp *qp, struct rxe_send_wqe *wqe)
{
	struct rxe_mr *mr;
	u32 key, access;

	if (qp->is_user || !wqe->wr.wr.reg.mr)
		return -EINVAL;

	mr = to_rmr(wqe->wr.wr.reg.mr);
	key = wqe->wr.wr.reg.key;
	access = wqe->wr.wr.reg.access;

	if (mr->ibmr.type != IB_MR_TYPE_MEM_REG ||
	    mr->state != RXE_MR_STATE_FREE || mr_pd(mr) != qp->pd)
		return -EINVAL;
	/* the consumer owns only the low 8 bits of the key */
	if ((mr->lkey & ~0xffU) != (key & ~0xffU))
		return -EINVAL;

	mr->access = access;
	mr->lkey = key;
	mr->rkey = key;
	/* the ULP may have moved ibmr.iova since rxe_map_mr_sg */
	mr->ibmr_iova_base = mr->ibmr.iova - mr->page_offset;
	mr->state = RXE_MR_STATE_VALID;
	return 0;
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	/* bound windows must be deallocated first (IBA 10.6.7.2.6) */
	if (atomic_read(&mr->num_mw) > 0)
		return -EINVAL;

	mr->state = RXE_MR_STATE_INVALID;
	rxe_cleanup(mr);
	kfree(mr);
	return 0;
}

/* Pool hook: runs once no reference is left; tolerates a half init. */
void rxe_mr_cleanup(struct rxe_pool_elem *elem)
{
	struct rxe_mr *mr = container_of(elem, struct rxe_mr, elem);
	struct rxe_pd *pd = mr_pd(mr);

	if (pd)
		rxe_put(pd);
	if (mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = NULL;
	}
	kvfree(mr->pages);
	mr->pages = NULL;
	mr->num_pages = 0;
	mr->max_pages = 0;
}
