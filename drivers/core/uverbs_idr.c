// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_idr_class: objects named by a handle, one handle space per file
 * for all types (the lowest free number, as the stock kernel hands out).
 * A handle is reserved when the object is begun and points to it only
 * once committed, so nothing finds a half-made object.
 */
#include <linux/slab.h>

#include "uverbs.h"

static struct ib_uobject *idr_alloc_begin(const struct uverbs_api_object *obj,
					  struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	u32 id;
	int ret;

	uobj = uverbs_new_uobject(obj, attrs);
	if (IS_ERR(uobj))
		return uobj;
	ret = xa_alloc(&attrs->ufile->idr, &id, NULL, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		uverbs_uobject_put(uobj);
		return ERR_PTR(ret);
	}
	uobj->id = id;
	return uobj;
}

static void idr_alloc_commit(struct ib_uobject *uobj)
{
	void *old;

	uverbs_publish_uobject(uobj);
	/* Replacing the reservation allocates nothing. */
	old = xa_store(&uobj->ufile->idr, uobj->id, uobj, GFP_KERNEL);
	WARN_ON(old);
}

static void idr_alloc_abort(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->idr, uobj->id);
}

static struct ib_uobject *idr_lookup_get(const struct uverbs_api_object *obj,
					 struct ib_uverbs_file *ufile, s64 id,
					 enum rdma_lookup_mode mode)
{
	struct ib_uobject *uobj;

	if (id < 0)
		return ERR_PTR(-EINVAL);
	if (id > INT_MAX)
		return ERR_PTR(-ENOENT);

	rcu_read_lock();
	uobj = xa_load(&ufile->idr, id);
	if (uobj && !kref_get_unless_zero(&uobj->ref))
		uobj = NULL;
	rcu_read_unlock();
	if (!uobj)
		return ERR_PTR(-ENOENT);

	/* A handle of another type is not a missing one (stock: EINVAL). */
	if (obj && uobj->uapi_object != obj) {
		uverbs_uobject_put(uobj);
		return ERR_PTR(-EINVAL);
	}
	return uobj;
}

static void idr_lookup_put(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
	uverbs_uobject_put(uobj);
}

static int idr_destroy_hw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_idr_type *type =
		uverbs_idr_type(uobj->uapi_object);
	int ret;

	ret = type->destroy_object(uobj, why, attrs);
	if (ret)
		return ret;
	uobj->object = NULL;
	return 0;
}

static void idr_remove_handle(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->idr, uobj->id);
}

const struct uverbs_obj_type_class uverbs_idr_class = {
	.alloc_begin	= idr_alloc_begin,
	.alloc_commit	= idr_alloc_commit,
	.alloc_abort	= idr_alloc_abort,
	.lookup_get	= idr_lookup_get,
	.lookup_put	= idr_lookup_put,
	.destroy_hw	= idr_destroy_hw,
	.remove_handle	= idr_remove_handle,
};
EXPORT_SYMBOL(uverbs_idr_class);
