// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains: ALLOC_PD (write() only in rdma-core 44), and their
 * destruction through DEALLOC_PD or PD/DESTROY, both ending in the type's
 * destroy_object.
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

static int uverbs_free_pd(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uobj->object;

	/* MRs, QPs, AHs... of the PD go first (close retries it later). */
	if (atomic_read(&pd->usecnt))
		return -EBUSY;
	return ib_dealloc_pd_user(pd, &attrs->driver_udata);
}

/* The driver's PD for uobj, or an ERR_PTR. */
static struct ib_pd *uverbs_new_pd(struct ib_device *ib_dev,
				   struct ib_uobject *uobj,
				   struct ib_udata *udata)
{
	struct ib_pd *pd = rdma_zalloc_drv_obj(ib_dev, ib_pd);
	int ret;

	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->device = ib_dev;
	pd->uobject = uobj;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, NULL);
	ret = ib_dev->ops.alloc_pd(pd, udata);
	if (ret) {
		rdma_restrack_del(&pd->res);
		kfree(pd);
		return ERR_PTR(ret);
	}
	rdma_restrack_add(&pd->res);
	return pd;
}

static int uverbs_alloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd cmd;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	int ret = uverbs_request(attrs, &cmd, sizeof(cmd));

	uobj = ret ? ERR_PTR(ret) :
	       uverbs_alloc_uobj(attrs, UVERBS_OBJECT_PD);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = uverbs_new_pd(attrs->context->device, uobj, &attrs->driver_udata);
	if (IS_ERR(pd)) {
		uobj_alloc_abort(uobj, attrs);
		return PTR_ERR(pd);
	}
	uobj->object = pd;
	uobj_finalize_uobj_create(uobj, attrs);

	resp.pd_handle = uobj->id;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int uverbs_dealloc_pd(struct uverbs_attr_bundle *attrs)
{
	return uverbs_write_destroy(attrs, UVERBS_OBJECT_PD);
}

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	UVERBS_METHOD_PD_DESTROY,
	UVA_IDR(UVERBS_ATTR_DESTROY_PD_HANDLE, PD, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_PD,
			    UVERBS_TYPE_ALLOC_IDR(uverbs_free_pd),
			    &UVERBS_METHOD(UVERBS_METHOD_PD_DESTROY));

const struct uapi_definition uverbs_def_pd[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_PD,
				      UAPI_DEF_OBJ_NEEDS_FN(alloc_pd)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_PD,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_ALLOC_PD,
				     uverbs_alloc_pd,
				     UAPI_WRITE_UDATA_IO(alloc_pd, alloc_pd_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DEALLOC_PD,
				     uverbs_dealloc_pd,
				     UAPI_WRITE_REQ(dealloc_pd))),
	{},
};
