// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_user_mmap_entry: the mmap offsets a driver hands to userspace as
 * cookies (rxe and siw keep their own; mlx5, irdma, qedr, efa use these),
 * and rdma_user_mmap_io() for mapping device memory behind one.
 *
 * An entry occupies npages consecutive page offsets of its context's
 * mmap_xa (every one of them points to it, so a new range never overlaps
 * an old one). The driver's insert holds the first reference, each lookup
 * and each mapping of it one more; rdma_user_mmap_entry_remove() drops the
 * driver's and hides the entry from lookups. The offsets are given back and
 * ops.mmap_free called when the last reference goes, i.e. once no mapping
 * of the entry is left.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

/* Serializes the search for a free offset range. */
static DEFINE_MUTEX(rdma_mmap_insert_lock);

/*
 * The first start >= from of npages free offsets ending at most at max;
 * -ENOMEM if there is none. Caller holds rdma_mmap_insert_lock.
 */
static int rdma_mmap_find_range(struct xarray *xa, unsigned long from,
				size_t npages, unsigned long max,
				unsigned long *start)
{
	unsigned long first = from, last, busy;

	for (;;) {
		if (check_add_overflow(first, npages - 1, &last) || last > max)
			return -ENOMEM;
		busy = first;
		if (!xa_find(xa, &busy, last, XA_PRESENT)) {
			*start = first;
			return 0;
		}
		/* Taken at busy: the range can only begin after it. */
		if (busy == ULONG_MAX)
			return -ENOMEM;
		first = busy + 1;
	}
}

int rdma_user_mmap_entry_insert_range(struct ib_ucontext *ucontext,
				      struct rdma_user_mmap_entry *entry,
				      size_t length, u32 min_pgoff,
				      u32 max_pgoff)
{
	struct xarray *xa = &ucontext->mmap_xa;
	size_t npages = DIV_ROUND_UP(length, PAGE_SIZE);
	unsigned long first, stored = 0;
	int ret;

	if (!npages || min_pgoff > max_pgoff)
		return -EINVAL;
	kref_init(&entry->ref);
	entry->ucontext = ucontext;
	entry->driver_removed = false;
	entry->npages = npages;

	mutex_lock(&rdma_mmap_insert_lock);
	ret = rdma_mmap_find_range(xa, min_pgoff, npages, max_pgoff, &first);
	while (!ret && stored < npages) {
		ret = xa_err(xa_store(xa, first + stored, entry, GFP_KERNEL));
		if (!ret)
			stored++;
	}
	/* A failure gives back what this range got. */
	while (ret && stored)
		xa_erase(xa, first + --stored);
	if (!ret)
		entry->start_pgoff = first;
	mutex_unlock(&rdma_mmap_insert_lock);
	return ret;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert_range);

int rdma_user_mmap_entry_insert(struct ib_ucontext *ucontext,
				struct rdma_user_mmap_entry *entry,
				size_t length)
{
	return rdma_user_mmap_entry_insert_range(ucontext, entry, length, 0,
						 U32_MAX);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert);

struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get_pgoff(struct ib_ucontext *ucontext,
			       unsigned long pgoff)
{
	struct rdma_user_mmap_entry *found = NULL, *me;

	/* Entries live at 32-bit offsets; and only by their first page. */
	if (pgoff <= U32_MAX) {
		xa_lock(&ucontext->mmap_xa);
		me = xa_load(&ucontext->mmap_xa, pgoff);
		if (me && me->start_pgoff == pgoff && !me->driver_removed &&
		    kref_get_unless_zero(&me->ref))
			found = me;
		xa_unlock(&ucontext->mmap_xa);
	}
	return found;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get_pgoff);

/* The entry a shared mapping asks for, if the mapping has its length. */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *ucontext,
			 struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *me = NULL;

	if (vma->vm_flags & VM_SHARED)
		me = rdma_user_mmap_entry_get_pgoff(ucontext, vma->vm_pgoff);
	if (me && me->npages != vma_pages(vma)) {
		rdma_user_mmap_entry_put(me);
		me = NULL;
	}
	return me;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get);

/* The last reference: the offsets are free again, the driver's memory too. */
static void rdma_mmap_entry_last_put(struct kref *kref)
{
	struct rdma_user_mmap_entry *me =
		container_of(kref, struct rdma_user_mmap_entry, ref);
	struct ib_ucontext *uctx = me->ucontext;
	unsigned long off = me->start_pgoff + me->npages;

	while (off-- > me->start_pgoff)
		xa_erase(&uctx->mmap_xa, off);
	if (uctx->device->ops.mmap_free)
		uctx->device->ops.mmap_free(me);
}

void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *entry)
{
	kref_put(&entry->ref, rdma_mmap_entry_last_put);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_put);

/* The driver is done with it: no new lookup finds it, mappings keep it. */
void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *entry)
{
	struct xarray *xa;

	if (!entry)
		return;
	xa = &entry->ucontext->mmap_xa;
	xa_lock(xa);
	entry->driver_removed = true;
	xa_unlock(xa);
	rdma_user_mmap_entry_put(entry);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_remove);

/* ------------------------------------------------ mapping device memory */

/* What a mapping made by rdma_user_mmap_io() holds. */
struct rdma_umap {
	struct rdma_user_mmap_entry *entry;	/* may be NULL */
};

static void rdma_umap_open(struct vm_area_struct *vma)
{
	struct rdma_umap *old = vma->vm_private_data, *priv;

	/* A copy (split or fork) holds the entry as well, or maps nothing. */
	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv) {
		zap_vma_ptes(vma, vma->vm_start, vma->vm_end - vma->vm_start);
		vma->vm_private_data = NULL;
		return;
	}
	priv->entry = old ? old->entry : NULL;
	if (priv->entry)
		kref_get(&priv->entry->ref);
	vma->vm_private_data = priv;
}

static void rdma_umap_close(struct vm_area_struct *vma)
{
	struct rdma_umap *priv = vma->vm_private_data;

	if (!priv)
		return;
	if (priv->entry)
		rdma_user_mmap_entry_put(priv->entry);
	kfree(priv);
}

/* Only whole mappings: a fault means the range was zapped. */
static vm_fault_t rdma_umap_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct rdma_umap_ops = {
	.open = rdma_umap_open,
	.close = rdma_umap_close,
	.fault = rdma_umap_fault,
};

int rdma_user_mmap_io(struct ib_ucontext *ucontext, struct vm_area_struct *vma,
		      unsigned long pfn, unsigned long size, pgprot_t prot,
		      struct rdma_user_mmap_entry *entry)
{
	struct rdma_umap *priv;
	int ret;

	/*
	 * The whole mapping, shared: device memory has no private copy to
	 * give.
	 */
	if (vma->vm_end - vma->vm_start != size ||
	    !(vma->vm_flags & VM_SHARED))
		return -EINVAL;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	vma->vm_page_prot = prot;
	ret = io_remap_pfn_range(vma, vma->vm_start, pfn, size, prot);
	if (ret) {
		kfree(priv);
		return ret;
	}
	if (entry) {
		kref_get(&entry->ref);
		priv->entry = entry;
	}
	vma->vm_private_data = priv;
	vma->vm_ops = &rdma_umap_ops;
	return 0;
}
EXPORT_SYMBOL(rdma_user_mmap_io);
