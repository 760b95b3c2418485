// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The DEVICE object's context verbs: GET_CONTEXT (write() and ioctl),
 * QUERY_CONTEXT, INFO_HANDLES, and INVOKE_WRITE's declaration (it runs in
 * uverbs_write.c).
 *
 * GET_CONTEXT through write() comes with the file's async event file (its
 * fd in the answer); through ioctl it does not, and libibverbs then makes
 * one with ASYNC_EVENT/ALLOC (ABI.md 4.5).
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* A new context, not yet visible; attrs->context points to it. */
static struct ib_ucontext *uverbs_new_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_device *ib_dev = ufile->ib_dev;
	struct ib_ucontext *ucontext;
	int ret;

	lockdep_assert_held(&ufile->ucontext_lock);
	if (ufile->ucontext)
		return ERR_PTR(-EINVAL);
	if (ib_dev->ops.size_ib_ucontext < sizeof(*ucontext))
		return ERR_PTR(-EOPNOTSUPP);
	ucontext = rdma_zalloc_drv_obj(ib_dev, ib_ucontext);
	if (!ucontext)
		return ERR_PTR(-ENOMEM);
	ucontext->device = ib_dev;
	ucontext->ufile = ufile;
	xa_init_flags(&ucontext->mmap_xa, XA_FLAGS_ALLOC);
	/* The driver reaches its context through the udata. */
	attrs->context = ucontext;

	rdma_restrack_new(&ucontext->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&ucontext->res, NULL);
	ret = ib_dev->ops.alloc_ucontext(ucontext, &attrs->driver_udata);
	if (ret) {
		/* Drops the creator reference set_name took. */
		rdma_restrack_del(&ucontext->res);
		attrs->context = NULL;
		kfree(ucontext);
		return ERR_PTR(ret);
	}
	return ucontext;
}

static void uverbs_drop_context(struct uverbs_attr_bundle *attrs,
				struct ib_ucontext *ucontext)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;

	if (ib_dev->ops.dealloc_ucontext)
		ib_dev->ops.dealloc_ucontext(ucontext);
	rdma_restrack_del(&ucontext->res);
	xa_destroy(&ucontext->mmap_xa);
	attrs->context = NULL;
	kfree(ucontext);
}

static void uverbs_publish_context(struct uverbs_attr_bundle *attrs,
				   struct ib_ucontext *ucontext)
{
	rdma_restrack_add(&ucontext->res);
	/* mmap() and the commands read it without ucontext_lock. */
	smp_store_release(&attrs->ufile->ucontext, ucontext);
}

static int uverbs_write_get_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context cmd;
	struct ib_ucontext *ucontext;
	struct ib_uobject *async;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	mutex_lock(&ufile->ucontext_lock);
	ucontext = uverbs_new_context(attrs);
	if (IS_ERR(ucontext)) {
		ret = PTR_ERR(ucontext);
		goto out;
	}
	async = uverbs_alloc_uobj(attrs, UVERBS_OBJECT_ASYNC_EVENT);
	if (IS_ERR(async)) {
		ret = PTR_ERR(async);
		goto err_context;
	}
	ib_uverbs_init_async_event_file(
		container_of(async, struct ib_uverbs_async_event_file, uobj),
		ufile->ib_dev);

	/* Write mode only: the async fd comes with the context. */
	resp.async_fd = async->id;
	resp.num_comp_vectors = ufile->ib_dev->num_comp_vectors;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_async;

	uverbs_uobject_get(async);
	ufile->default_async_file =
		container_of(async, struct ib_uverbs_async_event_file, uobj);
	uverbs_publish_context(attrs, ucontext);
	/* Committed (its fd installed) once the command succeeded. */
	uobj_finalize_uobj_create(async, attrs);
	goto out;

err_async:
	rdma_alloc_abort_uobject(async, attrs, true);
err_context:
	uverbs_drop_context(attrs, ucontext);
out:
	mutex_unlock(&ufile->ucontext_lock);
	return ret;
}

/* What GET_CONTEXT and QUERY_CONTEXT answer besides the driver. */
static int uverbs_copy_context_info(struct uverbs_attr_bundle *attrs,
				    u16 vectors_attr, u16 support_attr)
{
	u32 vectors = attrs->ufile->ib_dev->num_comp_vectors;
	u64 support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	int ret;

	ret = uverbs_copy_to(attrs, vectors_attr, &vectors, sizeof(vectors));
	if (IS_UVERBS_COPY_ERR(ret))
		return ret;
	ret = uverbs_copy_to(attrs, support_attr, &support, sizeof(support));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_GET_CONTEXT)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_ucontext *ucontext;
	int ret;

	mutex_lock(&ufile->ucontext_lock);
	ucontext = uverbs_new_context(attrs);
	if (IS_ERR(ucontext)) {
		ret = PTR_ERR(ucontext);
		goto out;
	}
	ret = uverbs_copy_context_info(attrs,
				       UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS,
				       UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT);
	if (ret)
		uverbs_drop_context(attrs, ucontext);
	else
		uverbs_publish_context(attrs, ucontext);
out:
	mutex_unlock(&ufile->ucontext_lock);
	return ret;
}

/* Only drivers with something to say answer (rxe and siw: EOPNOTSUPP). */
static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_CONTEXT)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_ucontext *ucontext = ib_uverbs_get_ucontext(attrs);
	int ret;

	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	if (!ucontext->device->ops.query_ucontext)
		return -EOPNOTSUPP;
	ret = uverbs_copy_context_info(attrs,
				       UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS,
				       UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT);
	if (ret)
		return ret;
	return ucontext->device->ops.query_ucontext(ucontext, attrs);
}

/*
 * The handles of one object type, as many as fit in HANDLES_LIST, and
 * their number in TOTAL_HANDLES. Both are needed though optional: without
 * a list nothing happens (EINVAL), without the count the list is written
 * and the absent attribute's ENOENT returned, as the stock kernel does.
 */
static int UVERBS_HANDLER(UVERBS_METHOD_INFO_HANDLES)(
	struct uverbs_attr_bundle *attrs)
{
	const struct uverbs_api_object *obj;
	u16 object_id;
	u32 *ids, n;
	int max, ret;

	max = uverbs_attr_ptr_get_array_size(attrs,
					     UVERBS_ATTR_INFO_HANDLES_LIST,
					     sizeof(u32));
	if (max < 0)
		return -EINVAL;
	ret = uverbs_get_const(&object_id, attrs, UVERBS_ATTR_INFO_OBJECT_ID);
	if (ret)
		return ret;
	obj = uapi_get_object(attrs->ufile->device->uapi, object_id);
	if (IS_ERR(obj))
		return PTR_ERR(obj);

	ids = uverbs_kcalloc(attrs, max ? max : 1, sizeof(*ids));
	if (IS_ERR(ids))
		return PTR_ERR(ids);
	n = uverbs_list_handles(attrs->ufile, obj, ids, max);

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_INFO_HANDLES_LIST, ids,
			     n * sizeof(*ids));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_INFO_TOTAL_HANDLES, &n,
			      sizeof(n));
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_INFO_HANDLES,
	UVA_OUT_ANY(UVERBS_ATTR_INFO_HANDLES_LIST, sizeof(u32), UA_OPTIONAL),
	UVA_OUT(UVERBS_ATTR_INFO_TOTAL_HANDLES, u32, UA_OPTIONAL),
	UVA_CONST(UVERBS_ATTR_INFO_OBJECT_ID, enum uverbs_default_objects,
		  UA_MANDATORY));

/* The driver answers through the udata; the core adds what it knows. */
DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_GET_CONTEXT,
	UVERBS_ATTR_UHW(),
	UVA_OUT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, u64, UA_OPTIONAL),
	UVA_OUT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, u32, UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QUERY_CONTEXT,
	UVA_OUT(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, u64, UA_OPTIONAL),
	UVA_OUT(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, u32, UA_OPTIONAL));

static int UVERBS_HANDLER(UVERBS_METHOD_INVOKE_WRITE)(
	struct uverbs_attr_bundle *attrs)
{
	return uverbs_invoke_write(attrs);
}

/* Sizes are the command's business: checked in uverbs_invoke_write(). */
DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_INVOKE_WRITE,
	UVA_CONST(UVERBS_ATTR_WRITE_CMD, enum ib_uverbs_write_cmds,
		  UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CORE_IN, UVERBS_ATTR_MIN_SIZE(0),
			   UA_OPTIONAL, UA_ALLOC_AND_COPY),
	UVA_OUT_ANY(UVERBS_ATTR_CORE_OUT, 0, UA_OPTIONAL),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_GLOBAL_METHODS(UVERBS_OBJECT_DEVICE,
			      &UVERBS_METHOD(UVERBS_METHOD_GET_CONTEXT),
			      &UVERBS_METHOD(UVERBS_METHOD_QUERY_CONTEXT),
			      &UVERBS_METHOD(UVERBS_METHOD_INVOKE_WRITE),
			      &UVERBS_METHOD(UVERBS_METHOD_INFO_HANDLES));

const struct uapi_definition uverbs_def_device[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_DEVICE),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_DEVICE,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_GET_CONTEXT,
				     uverbs_write_get_context,
				     UAPI_WRITE_UDATA_IO(get_context,
							 get_context_resp))),
	UAPI_DEF_CHAIN(uverbs_def_query),
	{},
};
