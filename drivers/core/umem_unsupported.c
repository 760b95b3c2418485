// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * umem kinds this stack does not offer: on-demand paging and dma-buf
 * backed regions. Drivers built with them (mlx5) link and load; a request
 * that reaches these calls fails with -EOPNOTSUPP, which user space gets
 * from the registration, as from a device without the capability. Nothing
 * is ever created, so release and unmap have nothing to do.
 */
#include <linux/module.h>
#include <linux/err.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>

struct ib_umem_odp *
ib_umem_odp_get(struct ib_device *device, unsigned long addr, size_t size,
		int access, const struct mmu_interval_notifier_ops *ops)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_umem_odp_get);

struct ib_umem_odp *ib_umem_odp_alloc_implicit(struct ib_device *device,
					       int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_umem_odp_alloc_implicit);

struct ib_umem_odp *
ib_umem_odp_alloc_child(struct ib_umem_odp *root_umem, unsigned long addr,
			size_t size,
			const struct mmu_interval_notifier_ops *ops)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_umem_odp_alloc_child);

void ib_umem_odp_release(struct ib_umem_odp *umem_odp)
{
	WARN_ON_ONCE(umem_odp);
}
EXPORT_SYMBOL(ib_umem_odp_release);

/* Fails without taking umem_mutex, as a failed fault would. */
int ib_umem_odp_map_dma_and_lock(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bcnt, u64 access_mask, bool fault)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_umem_odp_map_dma_and_lock);

void ib_umem_odp_unmap_dma_pages(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bound)
{
}
EXPORT_SYMBOL(ib_umem_odp_unmap_dma_pages);

struct ib_umem_dmabuf *ib_umem_dmabuf_get(struct ib_device *device,
					  unsigned long offset, size_t size,
					  int fd, int access,
					  const struct dma_buf_attach_ops *ops)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_umem_dmabuf_get);

struct ib_umem_dmabuf *ib_umem_dmabuf_get_pinned(struct ib_device *device,
						 unsigned long offset,
						 size_t size, int fd,
						 int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_umem_dmabuf_get_pinned);

int ib_umem_dmabuf_map_pages(struct ib_umem_dmabuf *umem_dmabuf)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_umem_dmabuf_map_pages);

void ib_umem_dmabuf_unmap_pages(struct ib_umem_dmabuf *umem_dmabuf)
{
}
EXPORT_SYMBOL(ib_umem_dmabuf_unmap_pages);

void ib_umem_dmabuf_release(struct ib_umem_dmabuf *umem_dmabuf)
{
	WARN_ON_ONCE(umem_dmabuf);
}
EXPORT_SYMBOL(ib_umem_dmabuf_release);
