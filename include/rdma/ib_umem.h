/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User memory pinned for an MR (drivers/core/umem.c). Pages count against
 * the owner's RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK, as upstream. The
 * scatterlist is DMA mapped for the device; hardware drivers walk it in
 * blocks of a page size they support (rdma/iter.h).
 *
 * dma-buf backed regions (ib_umem_dmabuf_*) are not offered by this stack:
 * the calls answer -EOPNOTSUPP, as an upstream kernel built without
 * dma-buf support does.
 */
#ifndef IB_UMEM_H
#define IB_UMEM_H

#include <linux/list.h>
#include <linux/scatterlist.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

struct ib_ucontext;
struct ib_umem_odp;
struct dma_buf_attach_ops;

struct ib_umem {
	struct ib_device	*ibdev;
	struct mm_struct	*owning_mm;	/* holds an mmgrab() */
	u64			iova;		/* device address of address */
	size_t			length;
	unsigned long		address;
	u32			writable : 1;
	u32			is_odp : 1;
	u32			is_dmabuf : 1;
	struct work_struct	work;
	/* One entry per pinned page run; pages hold a pin_user_pages ref. */
	struct sg_append_table	sgt_append;
};

struct ib_umem_dmabuf {
	struct ib_umem umem;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	struct scatterlist *first_sg;
	struct scatterlist *last_sg;
	unsigned long first_sg_offset;
	unsigned long last_sg_trim;
	void *private;
	u8 pinned : 1;
};

static inline struct ib_umem_dmabuf *to_ib_umem_dmabuf(struct ib_umem *umem)
{
	return container_of(umem, struct ib_umem_dmabuf, umem);
}

/* Offset of the start of the region inside its first page. */
static inline int ib_umem_offset(struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

/* Offset of the region's DMA start inside a block of @pgsz. */
static inline unsigned long ib_umem_dma_offset(struct ib_umem *umem,
					       unsigned long pgsz)
{
	return (sg_dma_address(umem->sgt_append.sgt.sgl) +
		ib_umem_offset(umem)) & (pgsz - 1);
}

/* Blocks of @pgsz, aligned in IOVA space, that cover the region. */
static inline size_t ib_umem_num_dma_blocks(struct ib_umem *umem,
					    unsigned long pgsz)
{
	u64 first = ALIGN_DOWN(umem->iova, pgsz);
	u64 end = ALIGN(umem->iova + umem->length, pgsz);

	return (size_t)((end - first) / pgsz);
}

static inline size_t ib_umem_num_pages(struct ib_umem *umem)
{
	return ib_umem_num_dma_blocks(umem, PAGE_SIZE);
}

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access);
void ib_umem_release(struct ib_umem *umem);
int ib_umem_copy_from(void *dst, struct ib_umem *umem, size_t offset,
		      size_t length);
unsigned long ib_umem_find_best_pgsz(struct ib_umem *umem,
				     unsigned long pgsz_bitmap,
				     u64 virt);

/*
 * Like ib_umem_find_best_pgsz(), for hardware that takes a page list plus
 * an offset into the first page: @pgoff_bitmask are the address bits the
 * offset can express. 0 if no size in @pgsz_bitmap works.
 */
static inline unsigned long ib_umem_find_best_pgoff(struct ib_umem *umem,
						    unsigned long pgsz_bitmap,
						    u64 pgoff_bitmask)
{
	dma_addr_t start = sg_dma_address(umem->sgt_append.sgt.sgl) +
			   ib_umem_offset(umem);

	return ib_umem_find_best_pgsz(umem, pgsz_bitmap,
				      start & pgoff_bitmask);
}

struct ib_umem_dmabuf *ib_umem_dmabuf_get(struct ib_device *device,
					  unsigned long offset, size_t size,
					  int fd, int access,
					  const struct dma_buf_attach_ops *ops);
struct ib_umem_dmabuf *ib_umem_dmabuf_get_pinned(struct ib_device *device,
						 unsigned long offset,
						 size_t size, int fd,
						 int access);
int ib_umem_dmabuf_map_pages(struct ib_umem_dmabuf *umem_dmabuf);
void ib_umem_dmabuf_unmap_pages(struct ib_umem_dmabuf *umem_dmabuf);
void ib_umem_dmabuf_release(struct ib_umem_dmabuf *umem_dmabuf);

#endif /* IB_UMEM_H */
