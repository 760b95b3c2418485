// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration verbs for kernel consumers: fast-registration MRs,
 * mapping scatterlists onto an MR's page list, deregistration, and the
 * identity "DMA mapping" of software devices.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>
#include "core_priv.h"

/* The core's part of a kernel MR the driver just created. */
void ib_mr_init_kernel(struct ib_mr *mr, struct ib_pd *pd,
		       enum ib_mr_type mr_type)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->dm = NULL;
	mr->uobject = NULL;
	mr->sig_attrs = NULL;
	mr->type = mr_type;
	mr->need_inval = false;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_parent_name(&mr->res, &pd->res);
	rdma_restrack_add(&mr->res);
}

struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg)
{
	struct ib_mr *mr;

	if (!pd->device->ops.alloc_mr)
		return ERR_PTR(-EOPNOTSUPP);
	/* Integrity MRs come from ib_alloc_mr_integrity() only. */
	if (mr_type == IB_MR_TYPE_INTEGRITY)
		return ERR_PTR(-EINVAL);

	mr = pd->device->ops.alloc_mr(pd, mr_type, max_num_sg);
	if (!IS_ERR(mr))
		ib_mr_init_kernel(mr, pd, mr_type);
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr);

/*
 * A kernel ULP registers memory of the current process (rds with ODP):
 * the driver's user-MR path without a uverbs request behind it.
 */
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			     u64 virt_addr, int access_flags)
{
	struct ib_mr *mr;
	int ret;

	ret = ib_check_mr_access(pd->device, access_flags);
	if (ret)
		return ERR_PTR(ret);
	if (!pd->device->ops.reg_user_mr)
		return ERR_PTR(-EOPNOTSUPP);
	mr = pd->device->ops.reg_user_mr(pd, start, length, virt_addr,
					 access_flags, NULL);
	if (IS_ERR(mr))
		return mr;
	ib_mr_init_kernel(mr, pd, IB_MR_TYPE_USER);
	return mr;
}
EXPORT_SYMBOL(ib_reg_user_mr);

/* Prefetch/paging hints; only drivers with on-demand paging take them. */
int ib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice, u32 flags,
		 struct ib_sge *sg_list, u32 num_sge)
{
	const struct ib_device_ops *ops = &pd->device->ops;

	if (!ops->advise_mr)
		return -EOPNOTSUPP;
	/* No range, nothing to prefetch. */
	return num_sge ? ops->advise_mr(pd, advice, flags, sg_list, num_sge, NULL) : 0;
}
EXPORT_SYMBOL(ib_advise_mr);

int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata)
{
	struct ib_sig_attrs *sig_attrs = mr->sig_attrs;
	struct ib_pd *pd = mr->pd;
	int ret;

	/* As upstream: the entry goes first, the driver may free mr. */
	rdma_restrack_del(&mr->res);
	ret = mr->device->ops.dereg_mr(mr, udata);
	if (!ret) {
		atomic_dec(&pd->usecnt);
		kfree(sig_attrs);
	}
	return ret;
}
EXPORT_SYMBOL(ib_dereg_mr_user);

int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size)
{
	if (!mr->device->ops.map_mr_sg)
		return -EOPNOTSUPP;
	if (!is_power_of_2(page_size))
		return -EINVAL;
	mr->page_size = page_size;
	return mr->device->ops.map_mr_sg(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg);

/*
 * Splits the DMA ranges of sgl into mr->page_size pages and hands each
 * page address to set_page(). Only the first range may start inside a
 * page and only the last may end inside one, unless a range continues
 * its predecessor exactly; the walk stops at the first gap. Returns the
 * number of ranges mapped. When set_page() refuses (page list full), the
 * ranges so far are mapped and *sg_offset says where in the first
 * unmapped range to resume.
 */
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset_p,
		   int (*set_page)(struct ib_mr *, u64))
{
	const u64 page_size = mr->page_size;
	const u64 page_mask = ~(page_size - 1);
	unsigned int offset = sg_offset_p ? *sg_offset_p : 0;
	u64 prev_end = 0;
	struct scatterlist *sg;
	int i, ret;

	if (unlikely(sg_nents <= 0 || !page_size ||
		     offset > sg_dma_len(&sgl[0])))
		return -EINVAL;

	mr->iova = sg_dma_address(&sgl[0]) + offset;
	mr->length = 0;

	for_each_sg(sgl, sg, sg_nents, i) {
		u64 start = sg_dma_address(sg) + offset;
		u64 end = sg_dma_address(sg) + sg_dma_len(sg);
		u64 page = start & page_mask;

		if (i && ((prev_end & ~page_mask) || (start & ~page_mask))) {
			/* Unaligned boundary: only a seamless continuation. */
			if (prev_end != start)
				break;
			/* Its first page is the previous range's last. */
			page += page_size;
		}

		for (; page < end; page += page_size) {
			ret = set_page(mr, page);
			if (unlikely(ret < 0)) {
				u64 resume = max(page, start);

				mr->length += resume - start;
				if (sg_offset_p)
					*sg_offset_p = resume -
						       sg_dma_address(sg);
				return (i || resume > start) ? i : ret;
			}
		}

		mr->length += end - start;
		prev_end = end;
		offset = 0;
	}

	if (sg_offset_p)
		*sg_offset_p = 0;
	return i;
}
EXPORT_SYMBOL(ib_sg_to_pages);

int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents)
{
	struct scatterlist *s;
	int i;

	/* Software devices reach memory through kernel virtual addresses. */
	for_each_sg(sg, s, nents, i) {
		sg_dma_address(s) = (uintptr_t)sg_virt(s);
		sg_dma_len(s) = s->length;
	}
	return nents;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);

/* ------------------------------------------------------------ MR pools */

/*
 * A pool is a list of ready MRs on the QP, under qp->mr_lock taken with
 * interrupts off: ULPs get and put MRs from completion handlers.
 * qp->mrs_used counts the MRs out of all the QP's pools.
 */
struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list)
{
	unsigned long flags;
	struct ib_mr *mr;

	spin_lock_irqsave(&qp->mr_lock, flags);
	mr = list_first_entry_or_null(list, struct ib_mr, qp_entry);
	if (mr)
		list_del(&mr->qp_entry);
	qp->mrs_used += mr ? 1 : 0;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return mr;
}
EXPORT_SYMBOL(ib_mr_pool_get);

void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list,
		    struct ib_mr *mr)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	qp->mrs_used--;
	/* At the head: the MR used last is the one reused first. */
	list_add(&mr->qp_entry, list);
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}
EXPORT_SYMBOL(ib_mr_pool_put);

/* The MRs are allocated off the lock, then added at once. */
int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg)
{
	unsigned long flags;
	LIST_HEAD(fresh);
	int ret = 0;

	if (type == IB_MR_TYPE_INTEGRITY)
		return -EOPNOTSUPP;
	for (; nr > 0; nr--) {
		struct ib_mr *mr = ib_alloc_mr(qp->pd, type, max_num_sg);

		if (IS_ERR(mr)) {
			ret = PTR_ERR(mr);
			break;
		}
		list_add_tail(&mr->qp_entry, &fresh);
	}
	spin_lock_irqsave(&qp->mr_lock, flags);
	list_splice_tail(&fresh, list);
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	if (ret)
		ib_mr_pool_destroy(qp, list);
	return ret;
}
EXPORT_SYMBOL(ib_mr_pool_init);

void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list)
{
	struct ib_mr *mr, *next;
	unsigned long flags;
	LIST_HEAD(doomed);

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_splice_init(list, &doomed);
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	/* Deregistration may sleep: not under the lock. */
	list_for_each_entry_safe(mr, next, &doomed, qp_entry) {
		list_del(&mr->qp_entry);
		ib_dereg_mr(mr);
	}
}
EXPORT_SYMBOL(ib_mr_pool_destroy);
