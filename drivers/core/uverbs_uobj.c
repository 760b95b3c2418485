// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Objects of a uverbs command file: one handle space (xarray) per type,
 * creation in two steps (reserve the handle, publish once the hardware
 * object exists), destruction of a single object and of everything when
 * the file is closed.
 *
 * Locking: commands hold ufile->cmd_rwsem for read and only ever look up
 * objects; destroys and the close teardown hold it for write, so a looked
 * up object stays alive for the whole command without per-object refs.
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#include "uverbs.h"

void ib_uverbs_init_ufile_objs(struct ib_uverbs_file *ufile)
{
	int i;

	for (i = 0; i < UVERBS_NUM_TYPES; i++)
		xa_init_flags(&ufile->objs[i], XA_FLAGS_ALLOC);
	spin_lock_init(&ufile->comp_files_lock);
	INIT_LIST_HEAD(&ufile->comp_files);
}

/*
 * size is that of the structure embedding the uobject at offset 0
 * (ib_ucq_object, ib_usrq_object, uverbs_uqp or the bare uobject).
 */
struct ib_uobject *uobj_alloc(struct uverbs_attr_bundle *attrs,
			      enum uverbs_type type, size_t size)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uobject *uobj;
	int ret;

	uobj = kzalloc(size, GFP_KERNEL);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	kref_init(&uobj->ref);
	INIT_LIST_HEAD(&uobj->list);
	uobj->ufile = ufile;
	uobj->context = attrs->context;
	uobj->type = type;

	/* A NULL entry reserves the id: lookups miss it until commit. */
	ret = xa_alloc(&ufile->objs[type], &uobj->id, NULL, xa_limit_32b,
		       GFP_KERNEL);
	if (ret) {
		kfree(uobj);
		return ERR_PTR(ret);
	}
	attrs->uobject = uobj;
	return uobj;
}

void uobj_alloc_commit(struct ib_uobject *uobj)
{
	void *old;

	old = xa_store(&uobj->ufile->objs[uobj->type], uobj->id, uobj,
		       GFP_KERNEL);
	WARN_ON(xa_is_err(old));
}

void uobj_alloc_abort(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->objs[uobj->type], uobj->id);
	kfree(uobj);
}

/* The object behind a handle of the given type, or NULL. */
void *uobj_get_obj(struct uverbs_attr_bundle *attrs, enum uverbs_type type,
		   u32 handle)
{
	struct ib_uobject *uobj;

	uobj = xa_load(&attrs->ufile->objs[type], handle);
	return uobj ? uobj->object : NULL;
}

void uobj_remove_commit(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->objs[uobj->type], uobj->id);
	kfree(uobj);
}

static int destroy_qp(struct ib_uobject *uobj, bool user_request,
		      struct uverbs_attr_bundle *attrs)
{
	struct ib_uqp_object *uqp =
		container_of(uobj, struct ib_uqp_object, uevent.uobject);
	struct uverbs_uqp *u = to_uverbs_uqp(uqp);
	struct uverbs_mcast_entry *mcast, *tmp;
	struct ib_qp *qp = uobj->object;
	int ret;

	/*
	 * Userspace must detach its multicast groups first; on close they
	 * are not objects of their own, so they are detached here.
	 */
	if (user_request) {
		if (!list_empty(&u->mcast_list))
			return -EBUSY;
	} else {
		list_for_each_entry_safe(mcast, tmp, &u->mcast_list, list) {
			ib_detach_mcast(qp, &mcast->gid, mcast->lid);
			list_del(&mcast->list);
			kfree(mcast);
		}
	}
	if (atomic_read(&qp->usecnt))
		return -EBUSY;

	ret = ib_destroy_qp_user(qp, &attrs->driver_udata);
	if (ret)
		return ret;
	ib_uverbs_release_uevent(&uqp->uevent);
	return 0;
}

static int destroy_srq(struct ib_uobject *uobj, struct uverbs_attr_bundle *attrs)
{
	struct ib_usrq_object *usrq =
		container_of(uobj, struct ib_usrq_object, uevent.uobject);
	struct ib_srq *srq = uobj->object;
	int ret;

	if (atomic_read(&srq->usecnt))
		return -EBUSY;
	ret = ib_destroy_srq_user(srq, &attrs->driver_udata);
	if (ret)
		return ret;
	ib_uverbs_release_uevent(&usrq->uevent);
	return 0;
}

static int destroy_cq(struct ib_uobject *uobj, struct uverbs_attr_bundle *attrs)
{
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	struct ib_cq *cq = uobj->object;
	struct ib_uverbs_completion_event_file *ev_file = cq->cq_context;
	int ret;

	if (atomic_read(&cq->usecnt))
		return -EBUSY;
	ret = ib_destroy_cq_user(cq, &attrs->driver_udata);
	if (ret)
		return ret;
	/* No more completions can arrive: drop the unread ones. */
	ib_uverbs_release_ucq(ucq, ev_file);
	return 0;
}

static int destroy_mw(struct ib_uobject *uobj)
{
	struct ib_mw *mw = uobj->object;
	struct ib_pd *pd = mw->pd;
	int ret = 0;

	if (mw->device->ops.dealloc_mw)
		ret = mw->device->ops.dealloc_mw(mw);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	kfree(mw);
	return 0;
}

static int destroy_pd(struct ib_uobject *uobj, struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uobj->object;

	if (atomic_read(&pd->usecnt))
		return -EBUSY;
	return ib_dealloc_pd_user(pd, &attrs->driver_udata);
}

int uobj_destroy_hw(struct ib_uobject *uobj, bool user_request,
		    struct uverbs_attr_bundle *attrs)
{
	switch (uobj->type) {
	case UVERBS_TYPE_QP:
		return destroy_qp(uobj, user_request, attrs);
	case UVERBS_TYPE_SRQ:
		return destroy_srq(uobj, attrs);
	case UVERBS_TYPE_AH:
		return rdma_destroy_ah_user(uobj->object,
					    RDMA_DESTROY_AH_SLEEPABLE,
					    &attrs->driver_udata);
	case UVERBS_TYPE_MW:
		return destroy_mw(uobj);
	case UVERBS_TYPE_MR:
		return ib_dereg_mr_user(uobj->object, &attrs->driver_udata);
	case UVERBS_TYPE_CQ:
		return destroy_cq(uobj, attrs);
	case UVERBS_TYPE_PD:
		return destroy_pd(uobj, attrs);
	default:
		WARN_ON(1);
		return -EINVAL;
	}
}

int uobj_destroy_by_handle(struct uverbs_attr_bundle *attrs,
			   enum uverbs_type type, u32 handle,
			   struct ib_uobject **uobj_out)
{
	struct ib_uobject *uobj;
	int ret;

	lockdep_assert_held_write(&attrs->ufile->cmd_rwsem);
	uobj = xa_load(&attrs->ufile->objs[type], handle);
	if (!uobj)
		return -ENOENT;	/* as upstream: no such handle in this file */
	ret = uobj_destroy_hw(uobj, true, attrs);
	if (ret)
		return ret;
	*uobj_out = uobj;
	return 0;
}

/*
 * Close of the command file (never concurrent with a command: write() and
 * mmap hold a file reference). Objects go in dependency order, then the
 * context; event files stay readable until their own fds are closed.
 */
void ib_uverbs_destroy_ufile(struct ib_uverbs_file *ufile)
{
	struct ib_uverbs_completion_event_file *comp_file;
	struct uverbs_attr_bundle attrs = {};
	struct ib_ucontext *ucontext;
	struct ib_uobject *uobj;
	unsigned long id;
	int type, ret;

	BUILD_BUG_ON(offsetof(struct ib_uevent_object, uobject) != 0);
	BUILD_BUG_ON(offsetof(struct ib_ucq_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct ib_usrq_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct ib_uqp_object, uevent) != 0);
	BUILD_BUG_ON(offsetof(struct uverbs_uqp, uqp) != 0);

	down_write(&ufile->cmd_rwsem);
	if (ufile->torn_down)
		goto out;
	ufile->torn_down = true;

	attrs.ufile = ufile;
	attrs.context = ufile->ucontext;
	for (type = 0; type < UVERBS_NUM_TYPES; type++) {
		xa_for_each(&ufile->objs[type], id, uobj) {
			memset(&attrs.driver_udata, 0,
			       sizeof(attrs.driver_udata));
			ret = uobj_destroy_hw(uobj, false, &attrs);
			if (ret) {
				/* Nothing else can be done: leak it. */
				pr_warn("ib_uverbs: leaking object type %d handle %lu: %d\n",
					type, id, ret);
				continue;
			}
			uobj_remove_commit(uobj);
		}
	}

	ucontext = ufile->ucontext;
	if (ucontext) {
		rdma_restrack_del(&ucontext->res);
		if (ufile->ib_dev->ops.dealloc_ucontext)
			ufile->ib_dev->ops.dealloc_ucontext(ucontext);
		ufile->ucontext = NULL;
		kfree(ucontext);
	}
	if (ufile->async_file) {
		ib_uverbs_async_file_shutdown(ufile->async_file);
		ib_uverbs_async_file_put(ufile->async_file);
		ufile->async_file = NULL;
	}
	spin_lock(&ufile->comp_files_lock);
	list_for_each_entry(comp_file, &ufile->comp_files, ufile_entry)
		ib_uverbs_comp_file_shutdown(comp_file);
	spin_unlock(&ufile->comp_files_lock);
out:
	up_write(&ufile->cmd_rwsem);
}
