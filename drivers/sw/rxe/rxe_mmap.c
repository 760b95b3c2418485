// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe user ring mapping. A user queue comes with a cookie (struct
 * mminfo: an mmap offset and a size) that librxe passes back to mmap() on
 * the uverbs file; rxe_mmap() then maps the vmalloc_user ring.
 *
 * Cookies live in a per-device xarray indexed by page offset, so mmap()
 * finds its ring with one lookup. A cookie can be used once: mmap() takes
 * it out of the xarray, and from then on the vma's reference keeps the ring
 * alive, also after the queue and the device are gone.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/shmparam.h>
#include "rxe.h"

void rxe_mmap_init(struct rxe_dev *rxe)
{
	xa_init_flags(&rxe->mmaps, XA_FLAGS_LOCK_BH);
	/* page 0 is never a cookie: offsets start one SHMLBA in */
	rxe->mmap_next = ALIGN(PAGE_SIZE, SHMLBA);
}

static pgoff_t rxe_cookie_pgoff(const struct rxe_mmap_info *ip)
{
	return ip->info.offset >> PAGE_SHIFT;
}

static void rxe_cookie_free(struct kref *ref)
{
	struct rxe_mmap_info *ip = container_of(ref, struct rxe_mmap_info, ref);

	/*
	 * Unused cookies are still indexed (and their device alive: the queue
	 * that owned them was destroyed before the device). Used ones left the
	 * index for good in rxe_mmap() and must not touch the device again.
	 */
	if (!ip->mapped)
		xa_cmpxchg_bh(&ip->rxe->mmaps, rxe_cookie_pgoff(ip), ip, NULL,
			      GFP_ATOMIC);
	vfree(ip->obj);
	kfree(ip);
}

void rxe_mmap_put(struct rxe_mmap_info *ip)
{
	kref_put(&ip->ref, rxe_cookie_free);
}

struct rxe_mmap_info *rxe_create_mmap_info(struct rxe_dev *rxe, u32 size,
					   struct ib_udata *udata, void *obj)
{
	struct rxe_mmap_info *ip;

	if (!udata)
		return ERR_PTR(-EINVAL);

	ip = kzalloc(sizeof(*ip), GFP_KERNEL);
	if (!ip)
		return ERR_PTR(-ENOMEM);

	kref_init(&ip->ref);
	ip->rxe = rxe;
	ip->obj = obj;
	ip->context = rdma_udata_to_uverbs_attr_bundle(udata)->context;
	ip->info.size = PAGE_ALIGN(size);

	/* hand out offsets in SHMLBA steps so every ring maps aligned */
	xa_lock_bh(&rxe->mmaps);
	ip->info.offset = rxe->mmap_next;
	rxe->mmap_next += ALIGN(ip->info.size, SHMLBA);
	xa_unlock_bh(&rxe->mmaps);

	return ip;
}

int rxe_mmap_publish(struct rxe_mmap_info *ip)
{
	return xa_insert_bh(&ip->rxe->mmaps, rxe_cookie_pgoff(ip), ip,
			    GFP_KERNEL);
}

static void rxe_vma_open(struct vm_area_struct *vma)
{
	struct rxe_mmap_info *ip = vma->vm_private_data;

	kref_get(&ip->ref);
}

static void rxe_vma_close(struct vm_area_struct *vma)
{
	rxe_mmap_put(vma->vm_private_data);
}

static const struct vm_operations_struct rxe_vm_ops = {
	.open = rxe_vma_open,
	.close = rxe_vma_close,
};

/* Take the cookie at @pgoff out of the index, with a reference. */
static struct rxe_mmap_info *rxe_cookie_claim(struct rxe_dev *rxe,
					      struct ib_ucontext *uctx,
					      pgoff_t pgoff, unsigned long len)
{
	struct rxe_mmap_info *ip;

	xa_lock_bh(&rxe->mmaps);
	ip = xa_load(&rxe->mmaps, pgoff);
	/* a dying queue's cookie (ref 0) is unlinked by its release */
	if (ip && (ip->context != uctx || len > ip->info.size ||
		   !kref_get_unless_zero(&ip->ref)))
		ip = NULL;
	if (ip) {
		__xa_erase(&rxe->mmaps, pgoff);
		ip->mapped = true;
	}
	xa_unlock_bh(&rxe->mmaps);
	return ip;
}

int rxe_mmap(struct ib_ucontext *context, struct vm_area_struct *vma)
{
	struct rxe_dev *rxe = to_rdev(context->device);
	struct rxe_mmap_info *ip;
	int err;

	ip = rxe_cookie_claim(rxe, context, vma->vm_pgoff,
			      vma->vm_end - vma->vm_start);
	if (!ip)
		return -EINVAL;

	err = remap_vmalloc_range(vma, ip->obj, 0);
	if (err) {
		/* give the cookie back so that a later mmap() may succeed */
		xa_lock_bh(&rxe->mmaps);
		ip->mapped = false;
		if (__xa_insert(&rxe->mmaps, vma->vm_pgoff, ip, GFP_ATOMIC))
			ip->mapped = true;	/* lost: never reachable again */
		xa_unlock_bh(&rxe->mmaps);
		rxe_mmap_put(ip);
		return err;
	}

	/* the claim's reference now belongs to the vma */
	vma->vm_ops = &rxe_vm_ops;
	vma->vm_private_data = ip;
	return 0;
}
