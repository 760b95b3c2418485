/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Types of the objects userspace names through /dev/infiniband/uverbsN:
 * the type classes (objects behind a numeric handle or behind a file
 * descriptor) and the per-type descriptions drivers and the core declare
 * with UVERBS_TYPE_ALLOC_IDR() / UVERBS_TYPE_ALLOC_FD(). Declarations and
 * semantics are upstream 6.1's; the implementation is ib_uverbs'.
 */
#ifndef _UVERBS_TYPES_
#define _UVERBS_TYPES_

#include <linux/kernel.h>
#include <rdma/ib_verbs.h>

struct uverbs_obj_type;
struct uverbs_api_object;

/* How a command holds an object it looked up. */
enum rdma_lookup_mode {
	/* Shared: any number of readers at a time. */
	UVERBS_LOOKUP_READ,
	/* Exclusive: no other command holds the object. */
	UVERBS_LOOKUP_WRITE,
	/*
	 * Found for destruction: the object is not locked yet; destroying it
	 * takes it exclusively.
	 */
	UVERBS_LOOKUP_DESTROY,
};

/*
 * What one type class does with its objects. The core calls, in order:
 *   creation:    alloc_begin, then alloc_commit (visible to userspace) or,
 *                on failure, alloc_abort (after destroy_hw if the driver
 *                object was made);
 *   use:         lookup_get, lookup_put (same mode);
 *   destruction: lookup_get, destroy_hw, remove_handle, lookup_put.
 * The command holds a reference on the ufile throughout.
 */
struct uverbs_obj_type_class {
	struct ib_uobject *(*alloc_begin)(const struct uverbs_api_object *obj,
					  struct uverbs_attr_bundle *attrs);
	/* Takes over the caller's reference on uobj. */
	void (*alloc_commit)(struct ib_uobject *uobj);
	/* Leaves the caller's reference to the caller. */
	void (*alloc_abort)(struct ib_uobject *uobj);

	struct ib_uobject *(*lookup_get)(const struct uverbs_api_object *obj,
					 struct ib_uverbs_file *ufile, s64 id,
					 enum rdma_lookup_mode mode);
	void (*lookup_put)(struct ib_uobject *uobj, enum rdma_lookup_mode mode);
	/* Leaves the caller's reference to the caller. */
	int __must_check (*destroy_hw)(struct ib_uobject *uobj,
				       enum rdma_remove_reason why,
				       struct uverbs_attr_bundle *attrs);
	void (*remove_handle)(struct ib_uobject *uobj);
	void (*swap_uobjects)(struct ib_uobject *obj_old,
			      struct ib_uobject *obj_new);
};

/* One object type: its class and the size of the uobject to allocate. */
struct uverbs_obj_type {
	const struct uverbs_obj_type_class * const type_class;
	size_t	     obj_size;
};

/* An object behind a numeric handle (PD, CQ, QP, a driver's objects...). */
struct uverbs_obj_idr_type {
	struct uverbs_obj_type  type;

	/*
	 * Destroys the driver object behind uobj. For RDMA_REMOVE_DESTROY it
	 * may refuse (e.g. -EBUSY while in use) and must then leave
	 * everything as it was; for any other reason it must succeed.
	 */
	int __must_check (*destroy_object)(struct ib_uobject *uobj,
					   enum rdma_remove_reason why,
					   struct uverbs_attr_bundle *attrs);
};

struct ib_uobject *rdma_lookup_get_uobject(const struct uverbs_api_object *obj,
					   struct ib_uverbs_file *ufile, s64 id,
					   enum rdma_lookup_mode mode,
					   struct uverbs_attr_bundle *attrs);
void rdma_lookup_put_uobject(struct ib_uobject *uobj,
			     enum rdma_lookup_mode mode);
struct ib_uobject *rdma_alloc_begin_uobject(const struct uverbs_api_object *obj,
					    struct uverbs_attr_bundle *attrs);
void rdma_alloc_abort_uobject(struct ib_uobject *uobj,
			      struct uverbs_attr_bundle *attrs,
			      bool hw_obj_valid);
void rdma_alloc_commit_uobject(struct ib_uobject *uobj,
			       struct uverbs_attr_bundle *attrs);
void rdma_assign_uobject(struct ib_uobject *to_uobj,
			 struct ib_uobject *new_uobj,
			 struct uverbs_attr_bundle *attrs);

/*
 * Keeps the uobject's memory (not the object's handle or its driver
 * object) alive; uverbs_uobject_put() drops it.
 */
static inline void uverbs_uobject_get(struct ib_uobject *uobject)
{
	kref_get(&uobject->ref);
}
void uverbs_uobject_put(struct ib_uobject *uobject);

/*
 * An object that is a file descriptor (completion channel, async event
 * file, a driver's event files). The file's private_data is the uobject;
 * fops->release must call uverbs_uobject_fd_release().
 */
struct uverbs_obj_fd_type {
	struct uverbs_obj_type  type;
	/* Called once: when the file is closed or the ufile is torn down. */
	void (*destroy_object)(struct ib_uobject *uobj,
			       enum rdma_remove_reason why);
	const struct file_operations	*fops;
	const char			*name;
	int				flags;
};

extern const struct uverbs_obj_type_class uverbs_idr_class;
extern const struct uverbs_obj_type_class uverbs_fd_class;
int uverbs_uobject_fd_release(struct inode *inode, struct file *filp);

/* 0, or a compile error when cond holds (usable in initializers). */
#define UVERBS_BUILD_BUG_ON(cond) (sizeof(char[1 - 2 * !!(cond)]) -	\
				   sizeof(char))

#define UVERBS_TYPE_ALLOC_FD(_obj_size, _destroy_object, _fops, _name,	\
			     _flags)					\
	((&((const struct uverbs_obj_fd_type)				\
	 {.type = {							\
		.type_class = &uverbs_fd_class,				\
		.obj_size = (_obj_size) +				\
			UVERBS_BUILD_BUG_ON((_obj_size) <		\
					    sizeof(struct ib_uobject)),	\
	 },								\
	 .destroy_object = _destroy_object,				\
	 .fops = _fops,							\
	 .name = _name,							\
	 .flags = _flags}))->type)

#define UVERBS_TYPE_ALLOC_IDR_SZ(_size, _destroy_object)		\
	((&((const struct uverbs_obj_idr_type)				\
	 {.type = {							\
		.type_class = &uverbs_idr_class,			\
		.obj_size = (_size) +					\
			UVERBS_BUILD_BUG_ON((_size) <			\
					    sizeof(struct ib_uobject))	\
	 },								\
	 .destroy_object = _destroy_object,}))->type)

#define UVERBS_TYPE_ALLOC_IDR(_destroy_object)				\
	UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_uobject), _destroy_object)

#endif
