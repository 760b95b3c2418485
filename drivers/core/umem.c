// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Pinning of user memory for memory regions. The pages are pinned long
 * term, charged to the owning mm's pinned_vm against RLIMIT_MEMLOCK, and
 * kept in an scatter/gather table mapped for the device's DMA.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <linux/capability.h>
#include <rdma/ib_umem.h>
#include "core_priv.h"

/* Access that lets the device (or a peer) write the pages. */
static bool umem_access_writable(int access)
{
	return access & (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			 IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND);
}

static void umem_unpin(struct ib_umem *umem, bool dirty)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sg(umem->sgt_append.sgt.sgl, sg,
		    umem->sgt_append.sgt.orig_nents, i)
		unpin_user_page_range_dirty_lock(sg_page(sg),
						 DIV_ROUND_UP(sg->length,
							      PAGE_SIZE),
						 dirty);
	sg_free_append_table(&umem->sgt_append);
}

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access)
{
	unsigned long npages, left, lock_limit, new_pinned, cur_base;
	unsigned int gup_flags = FOLL_LONGTERM;
	unsigned long dma_attrs = 0;
	struct page **page_list;
	struct ib_umem *umem;
	struct mm_struct *mm;
	int ret;

	/* No on-demand paging in this stack. */
	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EOPNOTSUPP);
	if (addr + size < addr || PAGE_ALIGN(addr + size) < addr + size)
		return ERR_PTR(-EINVAL);
	if (!can_do_mlock())
		return ERR_PTR(-EPERM);
	/* User memory of the calling process only. */
	if (!current->mm)
		return ERR_PTR(-EINVAL);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->ibdev = device;
	umem->length = size;
	umem->address = addr;
	umem->iova = addr;
	umem->writable = umem_access_writable(access);
	mm = current->mm;
	umem->owning_mm = mm;
	mmgrab(mm);

	npages = ib_umem_num_pages(umem);
	if (npages == 0 || npages > UINT_MAX) {
		ret = -EINVAL;
		goto err_mm;
	}

	page_list = (struct page **)__get_free_page(GFP_KERNEL);
	if (!page_list) {
		ret = -ENOMEM;
		goto err_mm;
	}

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	new_pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (new_pinned > lock_limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOMEM;
		goto err_account;
	}

	if (umem->writable)
		gup_flags |= FOLL_WRITE;
	cur_base = addr & PAGE_MASK;
	left = npages;
	while (left) {
		unsigned long batch = min_t(unsigned long, left,
					    PAGE_SIZE / sizeof(struct page *));
		long pinned;

		cond_resched();
		pinned = pin_user_pages_fast(cur_base, batch, gup_flags,
					     page_list);
		if (pinned < 0) {
			ret = pinned;
			goto err_unpin;
		}
		if (!pinned) {
			ret = -EFAULT;
			goto err_unpin;
		}
		cur_base += pinned * PAGE_SIZE;
		left -= pinned;
		/* Merges physically contiguous runs into one entry. */
		ret = sg_alloc_append_table_from_pages(&umem->sgt_append,
						       page_list, pinned, 0,
						       pinned << PAGE_SHIFT,
						       ib_dma_max_seg_size(device),
						       left, GFP_KERNEL);
		if (ret) {
			unpin_user_pages_dirty_lock(page_list, pinned, false);
			goto err_unpin;
		}
	}

	if (access & IB_ACCESS_RELAXED_ORDERING)
		dma_attrs |= DMA_ATTR_WEAK_ORDERING;
	ret = ib_dma_map_sg_attrs(device, umem->sgt_append.sgt.sgl,
				  umem->sgt_append.sgt.orig_nents,
				  DMA_BIDIRECTIONAL, dma_attrs);
	if (ret <= 0) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	umem->sgt_append.sgt.nents = ret;
	free_page((unsigned long)page_list);
	return umem;

err_unpin:
	umem_unpin(umem, false);
err_account:
	atomic64_sub(npages, &mm->pinned_vm);
	free_page((unsigned long)page_list);
err_mm:
	mmdrop(mm);
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_get);

void ib_umem_release(struct ib_umem *umem)
{
	if (!umem)
		return;
	ib_dma_unmap_sg_attrs(umem->ibdev, umem->sgt_append.sgt.sgl,
			      umem->sgt_append.sgt.orig_nents,
			      DMA_BIDIRECTIONAL, 0);
	/* The device may have written any page it could write. */
	umem_unpin(umem, umem->writable);
	atomic64_sub(ib_umem_num_pages(umem), &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL(ib_umem_release);

int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset,
		      size_t length)
{
	size_t copied;

	if (offset > umem->length || length > umem->length - offset)
		return -EINVAL;
	copied = sg_pcopy_to_buffer(umem->sgt_append.sgt.sgl,
				    umem->sgt_append.sgt.orig_nents, dst,
				    length, offset + ib_umem_offset(umem));
	return copied == length ? 0 : -EINVAL;
}
EXPORT_SYMBOL(ib_umem_copy_from);
