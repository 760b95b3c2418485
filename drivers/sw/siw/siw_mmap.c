// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rings shared with libsiw. A user CQ, SQ, RQ or SRQ is vmalloc_user()
 * memory published under a key (an mmap offset, page aligned, unique per
 * context, never SIW_INVAL_UOBJ_KEY). libsiw maps each key right after the
 * create; destroying the queue withdraws the key, and the memory lives on
 * until the last vma closes.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "siw.h"

/* The page index SIW_INVAL_UOBJ_KEY would have: never handed out. */
#define SIW_INVAL_KEY_INDEX	(SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT)

struct siw_ring *siw_ring_alloc(size_t size, bool user)
{
	struct siw_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	ring->size = PAGE_ALIGN(size);
	ring->mem = user ? vmalloc_user(ring->size) : vzalloc(ring->size);
	if (!ring->mem) {
		kfree(ring);
		return NULL;
	}
	kref_init(&ring->ref);
	return ring;
}

static void siw_ring_release(struct kref *ref)
{
	struct siw_ring *ring = container_of(ref, struct siw_ring, ref);

	vfree(ring->mem);
	kfree(ring);
}

void siw_ring_put(struct siw_ring *ring)
{
	if (ring)
		kref_put(&ring->ref, siw_ring_release);
}

void siw_mmap_init(struct siw_ucontext *uctx)
{
	xa_init_flags(&uctx->mmap_xa, XA_FLAGS_ALLOC);
	/* keep the index of SIW_INVAL_UOBJ_KEY from ever being used */
	xa_store(&uctx->mmap_xa, SIW_INVAL_KEY_INDEX, XA_ZERO_ENTRY,
		 GFP_KERNEL);
}

void siw_mmap_cleanup(struct siw_ucontext *uctx)
{
	struct siw_ring *ring;
	unsigned long idx;

	xa_for_each(&uctx->mmap_xa, idx, ring)
		siw_ring_put(ring);
	xa_destroy(&uctx->mmap_xa);
}

/* The table takes its own reference on ring. */
int siw_ring_publish(struct siw_ucontext *uctx, struct siw_ring *ring,
		     u64 *key)
{
	u32 idx;
	int err;

	kref_get(&ring->ref);
	err = xa_alloc(&uctx->mmap_xa, &idx, ring,
		       XA_LIMIT(0, U32_MAX >> PAGE_SHIFT), GFP_KERNEL);
	if (err) {
		siw_ring_put(ring);
		return err;
	}
	*key = (u64)idx << PAGE_SHIFT;
	return 0;
}

void siw_ring_unpublish(struct siw_ucontext *uctx, u64 key)
{
	struct siw_ring *ring;

	if (key == SIW_INVAL_UOBJ_KEY)
		return;
	ring = xa_erase(&uctx->mmap_xa, key >> PAGE_SHIFT);
	siw_ring_put(ring);
}

static void siw_vma_open(struct vm_area_struct *vma)
{
	struct siw_ring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
}

static void siw_vma_close(struct vm_area_struct *vma)
{
	siw_ring_put(vma->vm_private_data);
}

static const struct vm_operations_struct siw_vm_ops = {
	.open = siw_vma_open,
	.close = siw_vma_close,
};

int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	struct siw_ucontext *uctx = to_siw_ctx(ctx);
	size_t size = vma->vm_end - vma->vm_start;
	struct siw_ring *ring;
	int err;

	if (vma->vm_pgoff > U32_MAX >> PAGE_SHIFT)
		return -EINVAL;

	xa_lock(&uctx->mmap_xa);
	ring = xa_load(&uctx->mmap_xa, vma->vm_pgoff);
	if (ring)
		kref_get(&ring->ref);
	xa_unlock(&uctx->mmap_xa);
	if (!ring)
		return -EINVAL;

	if (size > ring->size) {
		err = -EINVAL;
		goto err_put;
	}
	err = remap_vmalloc_range(vma, ring->mem, 0);
	if (err)
		goto err_put;

	/* the reference taken above belongs to the vma now */
	vma->vm_ops = &siw_vm_ops;
	vma->vm_private_data = ring;
	return 0;

err_put:
	siw_ring_put(ring);
	return err;
}
