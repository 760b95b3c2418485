// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uobjects, whatever their class: how one is made, found, locked,
 * destroyed and freed, and the teardown of all of a file's objects.
 *
 * References: the command that creates a uobject holds the first one; on
 * commit it passes to the file's list, which drops it when the object is
 * destroyed. Lookups hold one while they use the object; an fd object's
 * file holds one for as long as it is open. The memory goes with the last
 * (after an RCU grace period: lookups find uobjects under RCU).
 *
 * Locks: usecnt counts the commands using an object shared (lookups for
 * READ); -1 marks one exclusive user (WRITE, or a destroy). A conflicting
 * lookup fails with -EBUSY instead of waiting, as upstream. Every command
 * holds ufile->hw_destroy_rwsem shared, the close teardown exclusively.
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#include "uverbs.h"

void ib_uverbs_init_ufile_objs(struct ib_uverbs_file *ufile)
{
	init_rwsem(&ufile->hw_destroy_rwsem);
	mutex_init(&ufile->ucontext_lock);
	spin_lock_init(&ufile->uobjects_lock);
	INIT_LIST_HEAD(&ufile->uobjects);
	xa_init_flags(&ufile->idr, XA_FLAGS_ALLOC);
}

static void uverbs_uobject_free(struct kref *ref)
{
	struct ib_uobject *uobj = container_of(ref, struct ib_uobject, ref);

	kfree_rcu(uobj, rcu);
}

void uverbs_uobject_put(struct ib_uobject *uobject)
{
	kref_put(&uobject->ref, uverbs_uobject_free);
}
EXPORT_SYMBOL(uverbs_uobject_put);

struct ib_uobject *uverbs_new_uobject(const struct uverbs_api_object *obj,
				      struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;

	/* Every object belongs to a context. */
	if (!attrs->context)
		return ERR_PTR(-EINVAL);
	uobj = kzalloc(obj->type_attrs->obj_size, GFP_KERNEL);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	kref_init(&uobj->ref);
	INIT_LIST_HEAD(&uobj->list);
	uobj->ufile = attrs->ufile;
	uobj->context = attrs->context;
	uobj->uapi_object = obj;
	/* Exclusively its creator's until committed. */
	atomic_set(&uobj->usecnt, -1);
	return uobj;
}

/* Committed: on the file's list, unlocked; takes the creator's ref. */
void uverbs_publish_uobject(struct ib_uobject *uobj)
{
	struct ib_uverbs_file *ufile = uobj->ufile;

	spin_lock(&ufile->uobjects_lock);
	list_add_tail(&uobj->list, &ufile->uobjects);
	spin_unlock(&ufile->uobjects_lock);
	atomic_set(&uobj->usecnt, 0);
}

void uverbs_forget_uobject(struct ib_uobject *uobj)
{
	struct ib_uverbs_file *ufile = uobj->ufile;
	bool listed;

	spin_lock(&ufile->uobjects_lock);
	listed = !list_empty(&uobj->list);
	list_del_init(&uobj->list);
	spin_unlock(&ufile->uobjects_lock);
	if (listed)
		uverbs_uobject_put(uobj);
}

int uverbs_lock_uobject(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
	switch (mode) {
	case UVERBS_LOOKUP_READ:
		return atomic_add_unless(&uobj->usecnt, 1, -1) ? 0 : -EBUSY;
	case UVERBS_LOOKUP_WRITE:
		return atomic_cmpxchg(&uobj->usecnt, 0, -1) ? -EBUSY : 0;
	case UVERBS_LOOKUP_DESTROY:
		return 0;	/* the destroy itself takes it */
	}
	return -EINVAL;
}

void uverbs_unlock_uobject(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
	if (mode == UVERBS_LOOKUP_READ)
		atomic_dec(&uobj->usecnt);
	else if (mode == UVERBS_LOOKUP_WRITE)
		atomic_set(&uobj->usecnt, 0);
}

struct ib_uobject *rdma_lookup_get_uobject(const struct uverbs_api_object *obj,
					   struct ib_uverbs_file *ufile, s64 id,
					   enum rdma_lookup_mode mode,
					   struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_type_class *class = &uverbs_idr_class;
	struct ib_uobject *uobj;
	int ret;

	/* NULL: an UVERBS_IDR_ANY_OBJECT attribute. */
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	if (obj) {
		if (obj->disabled || !obj->type_class)
			return ERR_PTR(-EINVAL);
		class = obj->type_class;
	}
	uobj = class->lookup_get(obj, ufile, id, mode);
	if (IS_ERR(uobj))
		return uobj;
	ret = uverbs_lock_uobject(uobj, mode);
	if (ret) {
		class->lookup_put(uobj, mode);
		return ERR_PTR(ret);
	}
	return uobj;
}

void rdma_lookup_put_uobject(struct ib_uobject *uobj,
			     enum rdma_lookup_mode mode)
{
	uverbs_unlock_uobject(uobj, mode);
	uobj->uapi_object->type_class->lookup_put(uobj, mode);
}

struct ib_uobject *rdma_alloc_begin_uobject(const struct uverbs_api_object *obj,
					    struct uverbs_attr_bundle *attrs)
{
	if (IS_ERR(obj))
		return ERR_CAST(obj);
	if (obj->disabled || !obj->type_class)
		return ERR_PTR(-EOPNOTSUPP);
	return obj->type_class->alloc_begin(obj, attrs);
}

void rdma_alloc_commit_uobject(struct ib_uobject *uobj,
			       struct uverbs_attr_bundle *attrs)
{
	uobj->uapi_object->type_class->alloc_commit(uobj);
}

void rdma_alloc_abort_uobject(struct ib_uobject *uobj,
			      struct uverbs_attr_bundle *attrs,
			      bool hw_obj_valid)
{
	const struct uverbs_obj_type_class *class =
		uobj->uapi_object->type_class;

	/* The driver object was made: it goes first, and may not refuse. */
	if (hw_obj_valid)
		WARN_ON(class->destroy_hw(uobj, RDMA_REMOVE_ABORT, attrs));
	class->alloc_abort(uobj);
	uverbs_uobject_put(uobj);
}

int uverbs_destroy_uobject_locked(struct ib_uobject *uobj,
				  enum rdma_remove_reason why,
				  struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_type_class *class =
		uobj->uapi_object->type_class;
	int ret;

	if (why == RDMA_REMOVE_DESTROY) {
		if (atomic_cmpxchg(&uobj->usecnt, 0, -1))
			return -EBUSY;
	} else {
		atomic_set(&uobj->usecnt, -1);
	}
	ret = class->destroy_hw(uobj, why, attrs);
	if (ret) {
		if (why == RDMA_REMOVE_DESTROY)
			atomic_set(&uobj->usecnt, 0);
		return ret;
	}
	/* Dead: it stays locked, no lookup can find it again. */
	class->remove_handle(uobj);
	uverbs_forget_uobject(uobj);
	return 0;
}

/* ---------------------------------------------- helpers for write() */

struct ib_uobject *uverbs_get_uobj(struct uverbs_attr_bundle *attrs,
				   u16 object_id, s64 handle,
				   enum rdma_lookup_mode mode)
{
	return rdma_lookup_get_uobject(uobj_get_type(attrs, object_id),
				       attrs->ufile, handle, mode, attrs);
}

void *uverbs_get_obj(struct uverbs_attr_bundle *attrs, u16 object_id,
		     u32 handle, struct ib_uobject **uobj)
{
	*uobj = uverbs_get_uobj(attrs, object_id, handle, UVERBS_LOOKUP_READ);
	return IS_ERR(*uobj) ? ERR_CAST(*uobj) : (*uobj)->object;
}

void *uverbs_cmd_get_obj(struct uverbs_attr_bundle *attrs, void *cmd,
			 size_t len, size_t handle_off, u16 object_id,
			 struct ib_uobject **uobj)
{
	u32 handle;
	int ret;

	ret = uverbs_request(attrs, cmd, len);
	if (ret)
		return ERR_PTR(ret);
	memcpy(&handle, cmd + handle_off, sizeof(handle));
	return uverbs_get_obj(attrs, object_id, handle, uobj);
}

struct ib_uobject *uverbs_alloc_uobj(struct uverbs_attr_bundle *attrs,
				     u16 object_id)
{
	return rdma_alloc_begin_uobject(uobj_get_type(attrs, object_id), attrs);
}

struct ib_uobject *__uobj_get_destroy(const struct uverbs_api_object *obj,
				      u32 id, struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	int ret;

	uobj = rdma_lookup_get_uobject(obj, attrs->ufile, id,
				       UVERBS_LOOKUP_DESTROY, attrs);
	if (IS_ERR(uobj))
		return uobj;
	ret = uverbs_destroy_uobject_locked(uobj, RDMA_REMOVE_DESTROY, attrs);
	if (ret) {
		rdma_lookup_put_uobject(uobj, UVERBS_LOOKUP_DESTROY);
		return ERR_PTR(ret);
	}
	return uobj;
}

int __uobj_perform_destroy(const struct uverbs_api_object *obj, u32 id,
			   struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = __uobj_get_destroy(obj, id, attrs);

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	rdma_lookup_put_uobject(uobj, UVERBS_LOOKUP_DESTROY);
	return 0;
}

struct ib_uobject *uverbs_destroy_by_handle(struct uverbs_attr_bundle *attrs,
					    u16 object_id, u32 handle)
{
	return __uobj_get_destroy(uobj_get_type(attrs, object_id), handle,
				  attrs);
}

int uverbs_write_destroy(struct uverbs_attr_bundle *attrs, u16 object_id)
{
	u32 handle;
	int ret;

	ret = uverbs_request(attrs, &handle, sizeof(handle));
	if (ret)
		return ret;
	return uobj_perform_destroy(object_id, handle, attrs);
}

int uverbs_destroy_def_handler(struct uverbs_attr_bundle *attrs)
{
	return 0;
}
EXPORT_SYMBOL(uverbs_destroy_def_handler);

u32 uverbs_list_handles(struct ib_uverbs_file *ufile,
			const struct uverbs_api_object *obj, u32 *ids, u32 max)
{
	struct ib_uobject *uobj;
	u32 n = 0;

	spin_lock(&ufile->uobjects_lock);
	list_for_each_entry(uobj, &ufile->uobjects, list) {
		if (n == max)
			break;
		/* An fd object's number is no handle: the stock kernel says 0. */
		if (uobj->uapi_object == obj)
			ids[n++] = uverbs_is_fd_type(obj) ? 0 : uobj->id;
	}
	spin_unlock(&ufile->uobjects_lock);
	return n;
}

struct ib_ucontext *ib_uverbs_get_ucontext_file(struct ib_uverbs_file *ufile)
{
	struct ib_ucontext *ucontext = smp_load_acquire(&ufile->ucontext);

	if (READ_ONCE(ufile->torn_down))
		return ERR_PTR(-EIO);
	return ucontext ? ucontext : ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL(ib_uverbs_get_ucontext_file);

/* ---------------------------------------------- teardown */

/*
 * Destroys the file's objects of one class, newest first. An object that
 * refuses (something made after it still uses it) is tried again after
 * the others; what is left when nothing more goes is leaked with a
 * warning rather than freed under its users. A leaked object keeps its
 * uobject (and the caller keeps the ucontext): the driver object stays in
 * restrack, and `rdma res show` reads both through it. Returns how many
 * objects were leaked.
 */
static unsigned int uverbs_destroy_class(struct ib_uverbs_file *ufile,
				 const struct uverbs_obj_type_class *class,
				 enum rdma_remove_reason why,
				 struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj, *tmp;
	unsigned int leaked = 0;
	bool progress;

	do {
		progress = false;
		list_for_each_entry_safe_reverse(uobj, tmp, &ufile->uobjects,
						 list) {
			if (uobj->uapi_object->type_class != class)
				continue;
			memset(&attrs->driver_udata, 0,
			       sizeof(attrs->driver_udata));
			if (!uverbs_destroy_uobject_locked(uobj, why, attrs))
				progress = true;
		}
	} while (progress);

	list_for_each_entry_safe(uobj, tmp, &ufile->uobjects, list) {
		if (uobj->uapi_object->type_class != class)
			continue;
		pr_warn("ib_uverbs: leaking object type %u handle %d\n",
			uobj->uapi_object->id, uobj->id);
		class->remove_handle(uobj);
		/* Off the file's list, but its reference is never dropped. */
		spin_lock(&ufile->uobjects_lock);
		list_del_init(&uobj->list);
		spin_unlock(&ufile->uobjects_lock);
		leaked++;
	}
	return leaked;
}

void ib_uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			     enum rdma_remove_reason why)
{
	struct ib_uverbs_async_event_file *async;
	struct ib_ucontext *ucontext;
	unsigned int leaked = 0;
	struct uverbs_call *call;

	BUILD_BUG_ON(offsetof(struct ib_uevent_object, uobject) != 0);
	BUILD_BUG_ON(offsetof(struct ib_ucq_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct ib_usrq_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct ib_uqp_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct uverbs_uqp, uqp) != 0);

	call = uverbs_call_alloc(ufile, 0);

	down_write(&ufile->hw_destroy_rwsem);
	if (ufile->torn_down)
		goto out;
	WRITE_ONCE(ufile->torn_down, true);
	ucontext = ufile->ucontext;

	if (call) {
		call->bundle.context = ucontext;
		/* Objects with handles first: they may use the files. */
		leaked = uverbs_destroy_class(ufile, &uverbs_idr_class, why,
					      &call->bundle);
		leaked += uverbs_destroy_class(ufile, &uverbs_fd_class, why,
					       &call->bundle);
	} else {
		pr_warn("ib_uverbs: no memory to tear down a file's objects\n");
	}

	if (ucontext && leaked) {
		/* Leaked objects point at it (uobj->context): it stays. */
		rdma_restrack_del(&ucontext->res);
		ufile->ucontext = NULL;
	} else if (ucontext) {
		rdma_restrack_del(&ucontext->res);
		if (ufile->ib_dev->ops.dealloc_ucontext)
			ufile->ib_dev->ops.dealloc_ucontext(ucontext);
		WARN_ON(!xa_empty(&ucontext->mmap_xa));
		xa_destroy(&ucontext->mmap_xa);
		ufile->ucontext = NULL;
		kfree(ucontext);
	}
	async = ufile->default_async_file;
	ufile->default_async_file = NULL;
	if (async)
		uverbs_uobject_put(&async->uobj);
out:
	up_write(&ufile->hw_destroy_rwsem);
	if (call)
		uverbs_call_free(call);
}
