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

int rdma_user_mmap_entry_insert_range(struct ib_ucontext *ucontext,
				      struct rdma_user_mmap_entry *entry,
				      size_t length, u32 min_pgoff,
				      u32 max_pgoff)
{
	struct xarray *xa = &ucontext->mmap_xa;
	unsigned long start = min_pgoff, idx, last, i;
	size_t npages = DIV_ROUND_UP(length, PAGE_SIZE);
	int ret = 0;

	if (!npages || min_pgoff > max_pgoff)
		return -EINVAL;
	kref_init(&entry->ref);
	entry->ucontext = ucontext;
	entry->driver_removed = false;
	entry->npages = npages;

	mutex_lock(&rdma_mmap_insert_lock);
	for (;;) {
		last = start + npages - 1;
		if (last < start || last > max_pgoff) {
			ret = -ENOMEM;
			goto out;
		}
		idx = start;
		if (!xa_find(xa, &idx, last, XA_PRESENT))
			break;
		/* Taken: try just past the entry found. */
		start = idx + 1;
		if (!start)
			goto nomem;
	}
	for (i = start; i <= last; i++) {
		ret = xa_err(xa_store(xa, i, entry, GFP_KERNEL));
		if (ret) {
			while (i-- > start)
				xa_erase(xa, i);
			goto out;
		}
	}
	entry->start_pgoff = start;
	goto out;
nomem:
	ret = -ENOMEM;
out:
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

/* The entry starting at pgoff, with a reference; NULL if none. */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get_pgoff(struct ib_ucontext *ucontext,
			       unsigned long pgoff)
{
	struct rdma_user_mmap_entry *entry;

	if (pgoff > U32_MAX)
		return NULL;
	xa_lock(&ucontext->mmap_xa);
	entry = xa_load(&ucontext->mmap_xa, pgoff);
	if (entry && (entry->start_pgoff != pgoff || entry->driver_removed ||
		      !kref_get_unless_zero(&entry->ref)))
		entry = NULL;
	xa_unlock(&ucontext->mmap_xa);
	return entry;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get_pgoff);

/* The entry a mapping asks for: its offset, and exactly its length. */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *ucontext,
			 struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;

	if (!(vma->vm_flags & VM_SHARED))
		return NULL;
	entry = rdma_user_mmap_entry_get_pgoff(ucontext, vma->vm_pgoff);
	if (entry && entry->npages != vma_pages(vma)) {
		rdma_user_mmap_entry_put(entry);
		return NULL;
	}
	return entry;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get);

static void rdma_user_mmap_entry_free(struct kref *kref)
{
	struct rdma_user_mmap_entry *entry =
		container_of(kref, struct rdma_user_mmap_entry, ref);
	struct ib_ucontext *ucontext = entry->ucontext;
	unsigned long i;

	for (i = 0; i < entry->npages; i++)
		xa_erase(&ucontext->mmap_xa, entry->start_pgoff + i);
	if (ucontext->device->ops.mmap_free)
		ucontext->device->ops.mmap_free(entry);
}

void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *entry)
{
	kref_put(&entry->ref, rdma_user_mmap_entry_free);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_put);

void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *entry)
{
	if (!entry)
		return;
	xa_lock(&entry->ucontext->mmap_xa);
	entry->driver_removed = true;
	xa_unlock(&entry->ucontext->mmap_xa);
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

	if (vma->vm_end - vma->vm_start != size)
		return -EINVAL;
	/* Device memory is shared by nature; a private copy makes no sense. */
	if (!(vma->vm_flags & VM_SHARED))
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
