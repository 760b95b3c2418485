// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Compile-only: a made-up driver declaring its own uverbs objects and
 * methods the way upstream drivers do (mlx5_ib, efa, irdma, qedr), with
 * every attribute kind, both object classes, additions to core objects and
 * methods, support conditions, and the bundle accessors their handlers
 * call. Built by selftests/host/uverbs_decls.sh against our include/ and
 * Module.symvers: if it builds (W=1, warnings are errors), upstream
 * drivers' declarations compile against ours.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_types.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_std_types.h>

#define UVERBS_MODULE_NAME decls
#include <rdma/uverbs_named_ioctl.h>

enum decls_objects {
	DECLS_OBJ_THING = (1U << UVERBS_ID_NS_SHIFT),
	DECLS_OBJ_EVENTS,
};

enum decls_methods {
	DECLS_THING_ALLOC = (1U << UVERBS_ID_NS_SHIFT),
	DECLS_THING_FREE,
	DECLS_EVENTS_OPEN,
	DECLS_PD_PEEK,
};

enum decls_attrs {
	DECLS_A_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	DECLS_A_BLOB,
	DECLS_A_ANSWER,
	DECLS_A_CHOICE,
	DECLS_A_CQS,
	DECLS_A_DMABUF_FD,
	DECLS_A_ACCESS,
	DECLS_A_LEVEL,
	DECLS_A_ANY,
	DECLS_A_CAP,
};

struct decls_ucontext {
	u32 cookie;
	struct ib_ucontext ibucontext;
};

struct decls_event_file {
	struct ib_uobject uobj;
	wait_queue_head_t wait;
};

static int decls_thing_cleanup(struct ib_uobject *uobj,
			       enum rdma_remove_reason why,
			       struct uverbs_attr_bundle *attrs)
{
	return why == RDMA_REMOVE_DESTROY && uobj->object ? -EBUSY : 0;
}

static void decls_events_cleanup(struct ib_uobject *uobj,
				 enum rdma_remove_reason why)
{
	wake_up(&container_of(uobj, struct decls_event_file, uobj)->wait);
}

static const struct file_operations decls_event_fops = {
	.owner = THIS_MODULE,
	.release = uverbs_uobject_fd_release,
};

static int UVERBS_HANDLER(DECLS_THING_ALLOC)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, DECLS_A_HANDLE);
	struct ib_ucontext *uctx = ib_uverbs_get_ucontext(attrs);
	struct decls_ucontext *mine;
	struct ib_uverbs_qp_cap cap;
	struct ib_uobject **cqs;
	u64 blob, answer;
	void *copy;
	int fd, ncqs, choice, len, ret;
	u32 access;
	u8 level;

	if (IS_ERR(uctx))
		return PTR_ERR(uctx);
	mine = rdma_udata_to_drv_context(&attrs->driver_udata,
					 struct decls_ucontext, ibucontext);
	ret = uverbs_copy_from(&blob, attrs, DECLS_A_BLOB);
	if (!ret)
		ret = uverbs_copy_from_or_zero(&cap, attrs, DECLS_A_CAP);
	if (!ret)
		ret = uverbs_get_flags32(&access, attrs, DECLS_A_ACCESS,
					 IB_ACCESS_LOCAL_WRITE);
	if (!ret)
		ret = uverbs_get_const_default(&level, attrs, DECLS_A_LEVEL, 3);
	if (!ret && uverbs_attr_is_valid(attrs, DECLS_A_DMABUF_FD))
		ret = uverbs_get_raw_fd(&fd, attrs, DECLS_A_DMABUF_FD);
	if (ret)
		return ret;
	choice = uverbs_attr_get_enum_id(attrs, DECLS_A_CHOICE);
	ncqs = uverbs_attr_get_uobjs_arr(attrs, DECLS_A_CQS, &cqs);
	len = uverbs_attr_ptr_get_array_size(attrs, DECLS_A_BLOB, sizeof(u32));
	copy = uverbs_attr_get_alloced_ptr(attrs, DECLS_A_BLOB);
	if (IS_ERR(uverbs_zalloc(attrs, 64)) ||
	    IS_ERR(uverbs_kcalloc(attrs, 4, 32)) || IS_ERR(copy))
		return -ENOMEM;
	uobj->object = mine;
	uverbs_finalize_uobj_create(attrs, DECLS_A_HANDLE);
	answer = blob + choice + ncqs + len + uobj_get_object_id(uobj);
	ret = uverbs_copy_to(attrs, DECLS_A_ANSWER, &answer, sizeof(answer));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;
	return uverbs_copy_to_struct_or_zero(attrs, DECLS_A_CAP, &cap,
					     sizeof(cap));
}

static int UVERBS_HANDLER(DECLS_EVENTS_OPEN)(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs, DECLS_A_HANDLE);
	struct decls_event_file *ev =
		container_of(uobj, struct decls_event_file, uobj);

	init_waitqueue_head(&ev->wait);
	uverbs_uobject_get(uobj);
	uverbs_uobject_put(uobj);
	return 0;
}

static int UVERBS_HANDLER(DECLS_PD_PEEK)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs, DECLS_A_ANY);

	return IS_ERR(pd) ? PTR_ERR(pd) : 0;
}

static const struct uverbs_attr_spec decls_choices[] = {
	[0] = { .type = UVERBS_ATTR_TYPE_PTR_IN, UVERBS_ATTR_NO_DATA() },
	[1] = { .type = UVERBS_ATTR_TYPE_PTR_IN, UVERBS_ATTR_TYPE(u64) },
};

DECLARE_UVERBS_NAMED_METHOD(
	DECLS_THING_ALLOC,
	UVERBS_ATTR_IDR(DECLS_A_HANDLE, DECLS_OBJ_THING, UVERBS_ACCESS_NEW,
			UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(DECLS_A_BLOB, UVERBS_ATTR_MIN_SIZE(sizeof(u64)),
			   UA_MANDATORY, UA_ALLOC_AND_COPY),
	UVERBS_ATTR_PTR_IN(DECLS_A_CAP,
			   UVERBS_ATTR_STRUCT(struct ib_uverbs_qp_cap,
					      max_recv_sge)),
	UVERBS_ATTR_PTR_OUT(DECLS_A_ANSWER, UVERBS_ATTR_TYPE(u64),
			    UA_OPTIONAL),
	UVERBS_ATTR_ENUM_IN(DECLS_A_CHOICE, decls_choices, UA_OPTIONAL),
	UVERBS_ATTR_IDRS_ARR(DECLS_A_CQS, UVERBS_OBJECT_CQ,
			     UVERBS_ACCESS_READ, 1, 8, UA_OPTIONAL),
	UVERBS_ATTR_RAW_FD(DECLS_A_DMABUF_FD, UA_OPTIONAL),
	UVERBS_ATTR_FLAGS_IN(DECLS_A_ACCESS, enum ib_access_flags),
	UVERBS_ATTR_CONST_IN(DECLS_A_LEVEL, u8),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	DECLS_THING_FREE,
	UVERBS_ATTR_IDR(DECLS_A_HANDLE, DECLS_OBJ_THING,
			UVERBS_ACCESS_DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	DECLS_EVENTS_OPEN,
	UVERBS_ATTR_FD(DECLS_A_HANDLE, DECLS_OBJ_EVENTS, UVERBS_ACCESS_NEW,
		       UA_MANDATORY));

DECLARE_UVERBS_NAMED_METHOD(
	DECLS_PD_PEEK,
	UVERBS_ATTR_IDR(DECLS_A_ANY, UVERBS_IDR_ANY_OBJECT,
			UVERBS_ACCESS_READ, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(DECLS_OBJ_THING,
			    UVERBS_TYPE_ALLOC_IDR(decls_thing_cleanup),
			    &UVERBS_METHOD(DECLS_THING_ALLOC),
			    &UVERBS_METHOD(DECLS_THING_FREE));

DECLARE_UVERBS_NAMED_OBJECT(
	DECLS_OBJ_EVENTS,
	UVERBS_TYPE_ALLOC_FD(sizeof(struct decls_event_file),
			     decls_events_cleanup, &decls_event_fops,
			     "[decls_events]", O_RDONLY),
	&UVERBS_METHOD(DECLS_EVENTS_OPEN));

ADD_UVERBS_METHODS(decls_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(DECLS_PD_PEEK));

ADD_UVERBS_ATTRIBUTES_SIMPLE(
	decls_query_context, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
	UVERBS_ATTR_PTR_OUT(DECLS_A_ANSWER, UVERBS_ATTR_TYPE(u64),
			    UA_OPTIONAL));

static bool decls_supported(struct ib_device *ibdev)
{
	return ibdev->ops.driver_id == RDMA_DRIVER_UNKNOWN;
}

const struct uapi_definition decls_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(DECLS_OBJ_THING,
				      UAPI_DEF_IS_OBJ_SUPPORTED(decls_supported)),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(DECLS_OBJ_EVENTS),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &decls_pd_methods,
				UAPI_DEF_OBJ_NEEDS_FN(alloc_pd)),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &decls_query_context),
	{},
};
EXPORT_SYMBOL(decls_uapi_defs);

/* What mmap-cookie drivers call. */
int decls_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
int decls_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry = rdma_user_mmap_entry_get(uctx, vma);
	int ret;

	if (!entry)
		return -EINVAL;
	ret = rdma_user_mmap_io(uctx, vma, 0, PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot), entry);
	rdma_user_mmap_entry_put(entry);
	return ret ?: (int)rdma_user_mmap_get_offset(entry);
}
EXPORT_SYMBOL(decls_mmap);

MODULE_DESCRIPTION("compile-only check of the uverbs declaration API");
MODULE_LICENSE("Dual BSD/GPL");
