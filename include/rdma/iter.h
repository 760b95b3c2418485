/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Walking a DMA-mapped scatterlist (or an umem's) in blocks aligned to a
 * page size the hardware supports, e.g. to fill a page list or MTT.
 * __rdma_block_iter_start/next live in drivers/core/umem_iter.c.
 */
#ifndef _RDMA_ITER_H_
#define _RDMA_ITER_H_

#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>

/* Iterator state; callers only read it through the helpers below. */
struct ib_block_iter {
	struct scatterlist *__sg;	/* entry holding the current block */
	dma_addr_t __dma_addr;		/* current position, unaligned */
	size_t __sg_numblocks;		/* blocks left (umem walks only) */
	unsigned int __sg_nents;	/* entries left */
	unsigned int __sg_advance;	/* bytes into __sg of the next block */
	unsigned int __pg_bit;		/* log2 of the block size */
};

void __rdma_block_iter_start(struct ib_block_iter *biter,
			     struct scatterlist *sglist,
			     unsigned int nents,
			     unsigned long pgsz);
bool __rdma_block_iter_next(struct ib_block_iter *biter);

/* DMA address of the current block, aligned down to the block size. */
static inline dma_addr_t
rdma_block_iter_dma_address(struct ib_block_iter *biter)
{
	return biter->__dma_addr & ~(BIT_ULL(biter->__pg_bit) - 1);
}

/* Every @pgsz block of the first @nents entries of @sglist. */
#define rdma_for_each_block(sglist, biter, nents, pgsz)		\
	for (__rdma_block_iter_start(biter, sglist, nents,	\
				     pgsz);			\
	     __rdma_block_iter_next(biter);)

static inline void __rdma_umem_block_iter_start(struct ib_block_iter *biter,
						struct ib_umem *umem,
						unsigned long pgsz)
{
	__rdma_block_iter_start(biter, umem->sgt_append.sgt.sgl,
				umem->sgt_append.sgt.nents, pgsz);
	/* blocks smaller than a page may start inside the first page */
	biter->__sg_advance = ib_umem_offset(umem) & ~(pgsz - 1);
	biter->__sg_numblocks = ib_umem_num_dma_blocks(umem, pgsz);
}

static inline bool __rdma_umem_block_iter_next(struct ib_block_iter *biter)
{
	return __rdma_block_iter_next(biter) && biter->__sg_numblocks--;
}

/*
 * Exactly ib_umem_num_dma_blocks(umem, pgsz) blocks, aligned to @pgsz,
 * covering the region. @pgsz is at most PAGE_SIZE or the answer of
 * ib_umem_find_best_pgsz().
 */
#define rdma_umem_for_each_dma_block(umem, biter, pgsz)		\
	for (__rdma_umem_block_iter_start(biter, umem, pgsz);	\
	     __rdma_umem_block_iter_next(biter);)

#endif /* _RDMA_ITER_H_ */
