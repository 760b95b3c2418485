/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * On-demand paging umems. This stack has no ODP: the calls exist for the
 * drivers that are built with ODP support (mlx5) and answer as a device
 * without the capability would see it: ib_umem_odp_get() and the
 * allocators fail with -EOPNOTSUPP, the mapping calls with -EOPNOTSUPP,
 * release of NULL is a no-op. Drivers only reach them after checking their
 * device's ODP capabilities; rdma-kmod's devices report none.
 */
#ifndef IB_UMEM_ODP_H
#define IB_UMEM_ODP_H

#include <linux/mmu_notifier.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

struct ib_umem_odp {
	struct ib_umem umem;
	struct mmu_interval_notifier notifier;
	struct pid *tgid;

	/* pfns of the pages mapped so far */
	unsigned long *pfn_list;
	/* their DMA addresses; the low two bits are ODP_*_ALLOWED_BIT */
	dma_addr_t		*dma_list;
	/* serialises mapping and unmapping, and the notifier sequence */
	struct mutex		umem_mutex;
	void			*private;	/* the driver's */

	int npages;
	/* the whole address space, a parent of children umems; no pages */
	bool is_implicit_odp;

	unsigned int		page_shift;
};

static inline struct ib_umem_odp *to_ib_umem_odp(struct ib_umem *umem)
{
	return container_of(umem, struct ib_umem_odp, umem);
}

static inline unsigned long ib_umem_start(struct ib_umem_odp *umem_odp)
{
	return umem_odp->notifier.interval_tree.start;
}

/* One past the last byte covered. */
static inline unsigned long ib_umem_end(struct ib_umem_odp *umem_odp)
{
	return umem_odp->notifier.interval_tree.last + 1;
}

static inline size_t ib_umem_odp_num_pages(struct ib_umem_odp *umem_odp)
{
	return (ib_umem_end(umem_odp) - ib_umem_start(umem_odp)) >>
	       umem_odp->page_shift;
}

#define ODP_READ_ALLOWED_BIT  (1<<0ULL)
#define ODP_WRITE_ALLOWED_BIT (1<<1ULL)

#define ODP_DMA_ADDR_MASK (~(ODP_READ_ALLOWED_BIT | ODP_WRITE_ALLOWED_BIT))

struct ib_umem_odp *
ib_umem_odp_get(struct ib_device *device, unsigned long addr, size_t size,
		int access, const struct mmu_interval_notifier_ops *ops);
struct ib_umem_odp *ib_umem_odp_alloc_implicit(struct ib_device *device,
					       int access);
struct ib_umem_odp *
ib_umem_odp_alloc_child(struct ib_umem_odp *root_umem, unsigned long addr,
			size_t size,
			const struct mmu_interval_notifier_ops *ops);
void ib_umem_odp_release(struct ib_umem_odp *umem_odp);

int ib_umem_odp_map_dma_and_lock(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bcnt, u64 access_mask, bool fault);

void ib_umem_odp_unmap_dma_pages(struct ib_umem_odp *umem_odp, u64 start_offset,
				 u64 bound);

#endif /* IB_UMEM_ODP_H */
