/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User memory pinned for an MR (umem.c). Pages count against the owner's
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK, as upstream.
 */
#ifndef RDMA_KMOD_IB_UMEM_H
#define RDMA_KMOD_IB_UMEM_H

#include <linux/scatterlist.h>
#include <linux/mm_types.h>
#include <rdma/ib_verbs.h>

struct ib_umem {
	struct ib_device	*ibdev;
	struct mm_struct	*owning_mm;	/* holds an mmgrab() */
	u64			iova;
	size_t			length;
	unsigned long		address;
	u32			writable:1;
	u32			is_odp:1;
	u32			is_dmabuf:1;
	/* One entry per pinned page run; pages hold a pin_user_pages ref. */
	struct sg_append_table	sgt_append;
};

/* Offset of the start of the region inside its first page. */
static inline int ib_umem_offset(struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

static inline size_t ib_umem_num_pages(struct ib_umem *umem)
{
	return (PAGE_ALIGN(umem->address + umem->length) -
		ALIGN_DOWN(umem->address, PAGE_SIZE)) >> PAGE_SHIFT;
}

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access);
void ib_umem_release(struct ib_umem *umem);
int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset,
		      size_t length);

#endif /* RDMA_KMOD_IB_UMEM_H */
