// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs_fd_class: objects that are files (completion channels, async
 * event files, drivers' event files). The handle is the fd; the file's
 * private_data is the uobject and uobj->object the file.
 *
 * The file exists from alloc_begin on (holding a uobject and a ufile
 * reference) but gets its fd only on commit. Such an object is alive while
 * it is on the ufile's list: closing the file destroys it then, and so
 * does the ufile's teardown, after which the open file answers as closed.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>

#include "uverbs.h"

static struct ib_uobject *fd_alloc_begin(const struct uverbs_api_object *obj,
					 struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_obj_fd_type *type = uverbs_fd_type(obj);
	struct ib_uobject *uobj;
	struct file *filp;
	int fd;

	uobj = uverbs_new_uobject(obj, attrs);
	if (IS_ERR(uobj))
		return uobj;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		uverbs_uobject_put(uobj);
		return ERR_PTR(fd);
	}
	filp = anon_inode_getfile(type->name, type->fops, uobj, type->flags);
	if (IS_ERR(filp)) {
		put_unused_fd(fd);
		uverbs_uobject_put(uobj);
		return ERR_CAST(filp);
	}
	/* The file's references, dropped by uverbs_uobject_fd_release(). */
	uverbs_uobject_get(uobj);
	kref_get(&attrs->ufile->ref);
	uobj->id = fd;
	uobj->object = filp;
	return uobj;
}

static void fd_alloc_commit(struct ib_uobject *uobj)
{
	uverbs_publish_uobject(uobj);
	fd_install(uobj->id, uobj->object);
}

/* Never had an fd: dropping the file only releases its references. */
static void fd_alloc_abort(struct ib_uobject *uobj)
{
	put_unused_fd(uobj->id);
	fput(uobj->object);
}

/*
 * Only shared use, by fd number: a file of this type's fops, of this
 * ufile. Anything else is a bad fd to the caller (stock: EBADF).
 */
static struct ib_uobject *fd_lookup_get(const struct uverbs_api_object *obj,
					struct ib_uverbs_file *ufile, s64 id,
					enum rdma_lookup_mode mode)
{
	struct ib_uobject *uobj;
	struct file *filp;

	if (mode != UVERBS_LOOKUP_READ)
		return ERR_PTR(-EOPNOTSUPP);
	if (id < 0 || id > INT_MAX)
		return ERR_PTR(-EBADF);
	filp = fget(id);
	if (!filp)
		return ERR_PTR(-EBADF);
	uobj = filp->private_data;
	if (!obj || filp->f_op != uverbs_fd_type(obj)->fops ||
	    uobj->ufile != ufile) {
		fput(filp);
		return ERR_PTR(-EBADF);
	}
	/* The file reference keeps it; a uobject reference for symmetry. */
	uverbs_uobject_get(uobj);
	return uobj;
}

static void fd_lookup_put(struct ib_uobject *uobj, enum rdma_lookup_mode mode)
{
	struct file *filp = uobj->object;

	uverbs_uobject_put(uobj);
	fput(filp);
}

static int fd_destroy_hw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			 struct uverbs_attr_bundle *attrs)
{
	uverbs_fd_type(uobj->uapi_object)->destroy_object(uobj, why);
	return 0;
}

static void fd_remove_handle(struct ib_uobject *uobj)
{
	/* The fd is the file's: it goes when userspace closes it. */
}

const struct uverbs_obj_type_class uverbs_fd_class = {
	.alloc_begin	= fd_alloc_begin,
	.alloc_commit	= fd_alloc_commit,
	.alloc_abort	= fd_alloc_abort,
	.lookup_get	= fd_lookup_get,
	.lookup_put	= fd_lookup_put,
	.destroy_hw	= fd_destroy_hw,
	.remove_handle	= fd_remove_handle,
};
EXPORT_SYMBOL(uverbs_fd_class);

/* The release of every fd object's file_operations. */
int uverbs_uobject_fd_release(struct inode *inode, struct file *filp)
{
	struct ib_uobject *uobj = filp->private_data;
	struct ib_uverbs_file *ufile = uobj->ufile;
	bool alive;

	down_read(&ufile->hw_destroy_rwsem);
	spin_lock(&ufile->uobjects_lock);
	alive = !list_empty(&uobj->list);
	spin_unlock(&ufile->uobjects_lock);
	if (alive)
		WARN_ON(uverbs_destroy_uobject_locked(uobj, RDMA_REMOVE_CLOSE,
						      NULL));
	up_read(&ufile->hw_destroy_rwsem);

	uverbs_uobject_put(uobj);
	ib_uverbs_ufile_put(ufile);
	return 0;
}
EXPORT_SYMBOL(uverbs_uobject_fd_release);
