// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Hardware page sizes for a pinned region (ib_umem_find_best_pgsz) and the
 * walk of a DMA-mapped scatterlist in blocks of one such size
 * (include/rdma/iter.h).
 *
 * A block size P can describe the region at IOVA virt when every P-aligned
 * IOVA block maps to a contiguous, P-aligned DMA block: the IOVA and the
 * DMA address of the region's start agree below P, and every place where
 * one DMA run ends and the next begins lies on a P boundary on both sides.
 */
#include <linux/module.h>
#include <linux/bitops.h>
#include <linux/scatterlist.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

/* Blocks of 2^bit needed for [virt, virt + length). */
static u64 blocks_needed(u64 virt, size_t length, unsigned int bit)
{
	return ((virt + length - 1) >> bit) - (virt >> bit) + 1;
}

unsigned long ib_umem_find_best_pgsz(struct ib_umem *umem,
				     unsigned long pgsz_bitmap,
				     u64 virt)
{
	struct scatterlist *sgl = umem->sgt_append.sgt.sgl;
	unsigned int nents = umem->sgt_append.sgt.nents;
	unsigned long best = 0;
	u64 fewest = U64_MAX;
	struct scatterlist *sg;
	unsigned int i, bit;
	u64 misalign;

	umem->iova = virt;
	if (!nents || !umem->length)
		return 0;

	/* any set bit here caps the block size at that bit */
	misalign = virt ^ (sg_dma_address(sgl) + ib_umem_offset(umem));
	for_each_sg(sgl, sg, nents, i) {
		if (i)
			misalign |= sg_dma_address(sg);
		if (i + 1 < nents)
			misalign |= sg_dma_address(sg) + sg_dma_len(sg);
	}
	if (misalign)
		pgsz_bitmap &= GENMASK_ULL(__ffs64(misalign), 0);

	/* among the sizes left, the smallest that needs the fewest blocks */
	for_each_set_bit(bit, &pgsz_bitmap, BITS_PER_LONG) {
		u64 n = blocks_needed(virt, umem->length, bit);

		if (n < fewest) {
			fewest = n;
			best = BIT(bit);
		}
	}
	return best;
}
EXPORT_SYMBOL(ib_umem_find_best_pgsz);

void __rdma_block_iter_start(struct ib_block_iter *biter,
			     struct scatterlist *sglist,
			     unsigned int nents,
			     unsigned long pgsz)
{
	memset(biter, 0, sizeof(*biter));
	biter->__sg = sglist;
	biter->__sg_nents = nents;
	biter->__pg_bit = __fls(pgsz);
}
EXPORT_SYMBOL(__rdma_block_iter_start);

bool __rdma_block_iter_next(struct ib_block_iter *biter)
{
	u64 size = BIT_ULL(biter->__pg_bit);
	u64 into_block;

	if (!biter->__sg_nents || !biter->__sg)
		return false;

	biter->__dma_addr = sg_dma_address(biter->__sg) + biter->__sg_advance;
	/* the next block starts at the next boundary, maybe in the next run */
	into_block = biter->__dma_addr & (size - 1);
	biter->__sg_advance += size - into_block;
	if (biter->__sg_advance >= sg_dma_len(biter->__sg)) {
		biter->__sg_advance = 0;
		biter->__sg = sg_next(biter->__sg);
		biter->__sg_nents--;
	}
	return true;
}
EXPORT_SYMBOL(__rdma_block_iter_next);
