// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe user queue mapping. Creating a user queue hands userspace an
 * (offset, size) cookie; its mmap() of the uverbs file with that offset
 * lands in rxe_mmap(), which maps the vmalloc_user ring. Each cookie can
 * be mapped once; the mapping keeps the ring alive after the queue dies.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/shmparam.h>
#include "rxe.h"

void rxe_mmap_init(struct rxe_dev *rxe)
{
	spin_lock_init(&rxe->pending_lock);
	INIT_LIST_HEAD(&rxe->pending_mmaps);
	spin_lock_init(&rxe->mmap_offset_lock);
	rxe->mmap_offset = 0;
}

void rxe_mmap_release(struct kref *ref)
{
	struct rxe_mmap_info *ip = container_of(ref, struct rxe_mmap_info, ref);
	struct rxe_dev *rxe = ip->rxe;

	/*
	 * Never mapped: still findable by its cookie. A mapped entry left the
	 * list for good (the device may be gone when its last vma closes);
	 * nobody else changes our list linkage once the count is zero.
	 */
	if (!list_empty(&ip->pending_mmaps)) {
		spin_lock_bh(&rxe->pending_lock);
		list_del_init(&ip->pending_mmaps);
		spin_unlock_bh(&rxe->pending_lock);
	}

	vfree(ip->obj);
	kfree(ip);
}

static void rxe_vma_open(struct vm_area_struct *vma)
{
	struct rxe_mmap_info *ip = vma->vm_private_data;

	kref_get(&ip->ref);
}

static void rxe_vma_close(struct vm_area_struct *vma)
{
	struct rxe_mmap_info *ip = vma->vm_private_data;

	kref_put(&ip->ref, rxe_mmap_release);
}

static const struct vm_operations_struct rxe_vm_ops = {
	.open = rxe_vma_open,
	.close = rxe_vma_close,
};

int rxe_mmap(struct ib_ucontext *context, struct vm_area_struct *vma)
{
	struct rxe_dev *rxe = to_rdev(context->device);
	unsigned long offset = vma->vm_pgoff << PAGE_SHIFT;
	unsigned long size = vma->vm_end - vma->vm_start;
	struct rxe_mmap_info *ip, *found = NULL;
	int err;

	spin_lock_bh(&rxe->pending_lock);
	list_for_each_entry(ip, &rxe->pending_mmaps, pending_mmaps) {
		if (ip->context != context || ip->info.offset != offset)
			continue;
		if (size > ip->info.size)
			break;
		/* the queue may be dying: its release then unlinks it */
		if (!kref_get_unless_zero(&ip->ref))
			break;
		/* claimed: a second mmap() of the same cookie fails */
		list_del_init(&ip->pending_mmaps);
		found = ip;
		break;
	}
	spin_unlock_bh(&rxe->pending_lock);

	if (!found)
		return -EINVAL;

	err = remap_vmalloc_range(vma, found->obj, 0);
	if (err) {
		spin_lock_bh(&rxe->pending_lock);
		list_add(&found->pending_mmaps, &rxe->pending_mmaps);
		spin_unlock_bh(&rxe->pending_lock);
		kref_put(&found->ref, rxe_mmap_release);
		return err;
	}

	/* the reference taken above now belongs to this vma */
	vma->vm_ops = &rxe_vm_ops;
	vma->vm_private_data = found;
	return 0;
}

struct rxe_mmap_info *rxe_create_mmap_info(struct rxe_dev *rxe, u32 size,
					   struct ib_udata *udata, void *obj)
{
	struct rxe_mmap_info *ip;

	if (!udata)
		return ERR_PTR(-EINVAL);

	ip = kmalloc(sizeof(*ip), GFP_KERNEL);
	if (!ip)
		return ERR_PTR(-ENOMEM);

	size = PAGE_ALIGN(size);

	spin_lock_bh(&rxe->mmap_offset_lock);
	if (rxe->mmap_offset == 0)
		rxe->mmap_offset = ALIGN(PAGE_SIZE, SHMLBA);
	ip->info.offset = rxe->mmap_offset;
	rxe->mmap_offset += ALIGN(size, SHMLBA);
	spin_unlock_bh(&rxe->mmap_offset_lock);

	INIT_LIST_HEAD(&ip->pending_mmaps);
	ip->info.size = size;
	ip->info.pad = 0;
	ip->context = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	ip->rxe = rxe;
	ip->obj = obj;
	kref_init(&ip->ref);

	return ip;
}
