// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw memory: every MR is an STag (24-bit index, 8-bit key) naming a
 * siw_mem. User MRs are pinned pages, the DMA MR is all of kernel memory
 * (a soft device's DMA addresses are kernel virtual addresses), fast
 * registration MRs are page lists filled by map_mr_sg and made valid by
 * a REG_MR work request. Lookups take a reference, so deregistration
 * never pulls memory from under data in flight.
 */
#include <linux/highmem.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "siw.h"

#define SIW_STAG_MAX_INDEX	0xffffff

static void siw_mem_release(struct kref *ref)
{
	struct siw_mem *mem = container_of(ref, struct siw_mem, ref);

	if (mem->umem)
		ib_umem_release(mem->umem);
	kvfree(mem->pages);
	kfree(mem->pbl);
	kfree(mem->pbl_staged);
	atomic_dec(&mem->sdev->num_mr);
	kfree(mem);
}

void siw_mem_put(struct siw_mem *mem)
{
	if (mem)
		kref_put(&mem->ref, siw_mem_release);
}

struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag)
{
	struct siw_mem *mem;

	xa_lock(&sdev->mem_xa);
	mem = xa_load(&sdev->mem_xa, siw_stag_index(stag));
	if (mem && !kref_get_unless_zero(&mem->ref))
		mem = NULL;
	xa_unlock(&sdev->mem_xa);
	/* the index matched; the consumer's key byte must too */
	if (mem && READ_ONCE(mem->stag) != stag) {
		siw_mem_put(mem);
		mem = NULL;
	}
	return mem;
}

/*
 * May pd reach [addr, addr + len) of mem with perms? 0, or the reason:
 * -ENOENT no such valid STag, -EACCES other PD, -EPERM missing rights,
 * -ERANGE out of bounds.
 */
int siw_mem_check(struct siw_mem *mem, struct ib_pd *pd, int perms,
		  u64 addr, u32 len)
{
	if (!READ_ONCE(mem->valid))
		return -ENOENT;
	if (mem->pd != pd)
		return -EACCES;
	if ((mem->perms & perms) != perms)
		return -EPERM;
	if (addr < mem->va || addr - mem->va > mem->len ||
	    len > mem->len - (addr - mem->va))
		return -ERANGE;
	return 0;
}

/* Kernel address of addr inside mem, and how many bytes follow it there. */
void *siw_mem_kmap(struct siw_mem *mem, u64 addr, u32 *chunk,
		   struct page **page)
{
	u64 off;

	*page = NULL;
	switch (mem->type) {
	case SIW_MEM_DMA:
		*chunk = U32_MAX;
		return (void *)(uintptr_t)addr;
	case SIW_MEM_FAST: {
		u64 base = mem->va & ~((u64)mem->page_size - 1);
		u64 idx;

		off = addr - base;
		idx = div_u64(off, mem->page_size);
		if (idx >= mem->pbl_num)
			return NULL;
		off -= idx * mem->page_size;
		*chunk = mem->page_size - off;
		return (void *)(uintptr_t)(mem->pbl[idx] + off);
	}
	case SIW_MEM_USER:
		off = addr - mem->va + mem->first_off;
		if ((off >> PAGE_SHIFT) >= mem->npages)
			return NULL;
		*page = mem->pages[off >> PAGE_SHIFT];
		*chunk = PAGE_SIZE - (off & ~PAGE_MASK);
		return kmap_local_page(*page) + (off & ~PAGE_MASK);
	}
	return NULL;
}

void siw_mem_kunmap(void *p, struct page *page, bool written)
{
	if (!page)
		return;
	if (written)
		flush_dcache_page(page);
	kunmap_local(p);
}

/*
 * The page holding addr inside mem if TCP may take a reference to it
 * (sendpage_ok: not slab memory, which must be copied), else NULL. *off
 * is addr's offset in that page and *chunk the bytes from there that
 * are contiguous in it, set either way so a caller can copy that piece
 * instead.
 */
struct page *siw_mem_page(struct siw_mem *mem, u64 addr, u32 *off,
			  u32 *chunk)
{
	struct page *page = NULL;
	u32 len;
	void *p;

	p = siw_mem_kmap(mem, addr, &len, &page);
	if (!p) {
		*off = 0;
		*chunk = PAGE_SIZE - offset_in_page(addr);
		return NULL;
	}
	*off = offset_in_page(p);
	/* a fast-registration page may be smaller than a CPU page */
	*chunk = min_t(u32, len, PAGE_SIZE - *off);
	if (page) {
		/* user memory: the mapping only told us the offset */
		siw_mem_kunmap(p, page, false);
	} else if (virt_addr_valid(p)) {
		/* kernel virtual address of a linear-mapped page */
		page = virt_to_page(p);
	}
	return page && sendpage_ok(page) ? page : NULL;
}

/* Copies len bytes between buf and mem at addr; bounds already checked. */
int siw_mem_copy(struct siw_mem *mem, u64 addr, void *buf, u32 len,
		 bool to_mem)
{
	while (len) {
		struct page *page;
		u32 chunk;
		void *p;

		p = siw_mem_kmap(mem, addr, &chunk, &page);
		if (!p)
			return -EFAULT;
		chunk = min(chunk, len);
		if (to_mem)
			memcpy(p, buf, chunk);
		else
			memcpy(buf, p, chunk);
		siw_mem_kunmap(p, page, to_mem);
		addr += chunk;
		buf += chunk;
		len -= chunk;
	}
	return 0;
}

static struct siw_mem *siw_mem_alloc(struct siw_device *sdev,
				     struct ib_pd *pd, enum siw_mem_type type)
{
	struct siw_mem *mem;

	if (atomic_inc_return(&sdev->num_mr) > SIW_MAX_MR) {
		atomic_dec(&sdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem) {
		atomic_dec(&sdev->num_mr);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&mem->ref);
	mem->sdev = sdev;
	mem->pd = pd;
	mem->type = type;
	mem->is_mr = true;
	return mem;
}

/* Gives mem its STag index; key is the low byte chosen by the caller. */
static int siw_mem_add(struct siw_device *sdev, struct siw_mem *mem, u8 key)
{
	u32 idx;
	int err;

	err = xa_alloc_cyclic(&sdev->mem_xa, &idx, mem,
			      XA_LIMIT(1, SIW_STAG_MAX_INDEX), &sdev->mem_next,
			      GFP_KERNEL);
	if (err < 0)
		return err;
	mem->stag = idx << 8 | key;
	return 0;
}

static struct ib_mr *siw_mr_new(struct siw_mem *mem)
{
	struct siw_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return NULL;
	mr->mem = mem;
	mr->base_mr.lkey = mem->stag;
	mr->base_mr.rkey = mem->stag;
	return &mr->base_mr;
}

static void siw_mem_destroy(struct siw_mem *mem)
{
	xa_erase(&mem->sdev->mem_xa, siw_stag_index(mem->stag));
	siw_mem_put(mem);
}

struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_mem *mem;
	struct ib_mr *mr;
	int err;

	mem = siw_mem_alloc(sdev, pd, SIW_MEM_DMA);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->perms = access;
	mem->va = 0;
	mem->len = U64_MAX;
	err = siw_mem_add(sdev, mem, 0);
	if (err) {
		siw_mem_put(mem);
		return ERR_PTR(err);
	}
	mr = siw_mr_new(mem);
	if (!mr) {
		siw_mem_destroy(mem);
		return ERR_PTR(-ENOMEM);
	}
	WRITE_ONCE(mem->valid, true);
	return mr;
}

static int siw_umem_pages(struct siw_mem *mem)
{
	struct ib_umem *umem = mem->umem;
	struct sg_page_iter iter;
	unsigned long i = 0;

	mem->npages = ib_umem_num_pages(umem);
	mem->pages = kvcalloc(mem->npages, sizeof(*mem->pages), GFP_KERNEL);
	if (!mem->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i >= mem->npages)
			break;
		mem->pages[i++] = sg_page_iter_page(&iter);
	}
	if (i != mem->npages)
		return -EFAULT;
	mem->first_off = ib_umem_offset(umem);
	return 0;
}

struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_uresp_reg_mr uresp = {};
	struct siw_ureq_reg_mr ureq = {};
	struct siw_mem *mem;
	struct ib_mr *mr;
	int err;

	if (!len || len > SIW_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);
	/* upstream siw fails to pin such a range: EFAULT, not EINVAL */
	if (start + len < start)
		return ERR_PTR(-EFAULT);
	if (udata) {
		/* as upstream siw: the request carries the STag key */
		if (udata->inlen < sizeof(ureq))
			return ERR_PTR(-EINVAL);
		err = ib_copy_from_udata(&ureq, udata, sizeof(ureq));
		if (err)
			return ERR_PTR(err);
	}

	mem = siw_mem_alloc(sdev, pd, SIW_MEM_USER);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->perms = access;
	mem->va = iova;
	mem->len = len;
	mem->umem = ib_umem_get(pd->device, start, len, access);
	if (IS_ERR(mem->umem)) {
		err = PTR_ERR(mem->umem);
		mem->umem = NULL;
		goto err_put;
	}
	err = siw_umem_pages(mem);
	if (err)
		goto err_put;
	err = siw_mem_add(sdev, mem, ureq.stag_key);
	if (err)
		goto err_put;

	mr = siw_mr_new(mem);
	if (!mr) {
		err = -ENOMEM;
		goto err_destroy;
	}
	if (udata) {
		/* as upstream siw: no room for the STag, no MR */
		if (udata->outlen < sizeof(uresp)) {
			err = -EINVAL;
			goto err_mr;
		}
		uresp.stag = mem->stag;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_mr;
	}
	WRITE_ONCE(mem->valid, true);
	return mr;

err_mr:
	kfree(to_siw_mr(mr));
err_destroy:
	siw_mem_destroy(mem);
	return ERR_PTR(err);
err_put:
	siw_mem_put(mem);
	return ERR_PTR(err);
}

struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_mem *mem;
	struct ib_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_sg || max_sg > SIW_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mem = siw_mem_alloc(sdev, pd, SIW_MEM_FAST);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->pbl = kcalloc(max_sg, sizeof(*mem->pbl), GFP_KERNEL);
	mem->pbl_staged = kcalloc(max_sg, sizeof(*mem->pbl), GFP_KERNEL);
	if (!mem->pbl || !mem->pbl_staged) {
		err = -ENOMEM;
		goto err_put;
	}
	mem->pbl_max = max_sg;
	err = siw_mem_add(sdev, mem, 0);
	if (err)
		goto err_put;
	mr = siw_mr_new(mem);
	if (!mr) {
		siw_mem_destroy(mem);
		return ERR_PTR(-ENOMEM);
	}
	/* invalid until a REG_MR work request registers it */
	return mr;

err_put:
	siw_mem_put(mem);
	return ERR_PTR(err);
}

static int siw_set_page(struct ib_mr *base, u64 addr)
{
	struct siw_mem *mem = to_siw_mr(base)->mem;

	if (mem->pbl_staged_num >= mem->pbl_max)
		return -ENOMEM;
	mem->pbl_staged[mem->pbl_staged_num++] = addr;
	return 0;
}

int siw_map_mr_sg(struct ib_mr *base, struct scatterlist *sg, int nents,
		  unsigned int *sg_off)
{
	struct siw_mem *mem = to_siw_mr(base)->mem;

	/* staged only: a still valid registration keeps its pages */
	mem->pbl_staged_num = 0;
	mem->page_size_staged = base->page_size;
	mem->pbl_staged_new = true;
	return ib_sg_to_pages(base, sg, nents, sg_off, siw_set_page);
}

int siw_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct siw_mr *mr = to_siw_mr(base);

	WRITE_ONCE(mr->mem->valid, false);
	siw_mem_destroy(mr->mem);
	kfree(mr);
	return 0;
}

/* REG_MR work request: make a fast-registration MR valid under key. */
int siw_mem_reg(struct siw_device *sdev, struct ib_pd *pd,
		struct ib_mr *ibmr, u32 key, int access)
{
	struct siw_mem *mem = to_siw_mr(ibmr)->mem;

	if (mem->type != SIW_MEM_FAST || mem->pd != pd)
		return -EINVAL;
	if (siw_stag_index(key) != siw_stag_index(mem->stag))
		return -EINVAL;
	if (READ_ONCE(mem->valid))
		return -EBUSY;
	/* a REG_MR without a new mapping registers the current pages again */
	if (mem->pbl_staged_new) {
		swap(mem->pbl, mem->pbl_staged);
		mem->pbl_num = mem->pbl_staged_num;
		mem->page_size = mem->page_size_staged;
		mem->pbl_staged_new = false;
	}
	mem->stag = key;
	mem->perms = access;
	mem->va = ibmr->iova;
	mem->len = ibmr->length;
	ibmr->lkey = key;
	ibmr->rkey = key;
	/* publish the attributes before the STag becomes usable */
	smp_store_release(&mem->valid, true);
	return 0;
}

/*
 * Local invalidate or Send with Invalidate. Only fast-registration MRs
 * can be invalidated: -EINVAL no such STag, -EACCES other PD, -EPERM not
 * invalidatable.
 */
int siw_mem_invalidate(struct siw_device *sdev, struct ib_pd *pd, u32 stag)
{
	struct siw_mem *mem;
	int err = 0;

	mem = siw_mem_get(sdev, stag);
	if (!mem)
		return -EINVAL;
	if (mem->pd != pd)
		err = -EACCES;
	else if (mem->type != SIW_MEM_FAST)
		err = -EPERM;
	else
		WRITE_ONCE(mem->valid, false);
	siw_mem_put(mem);
	return err;
}
