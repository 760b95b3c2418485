// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory regions and windows: REG_MR and ALLOC_MW (write() only in
 * rdma-core 44), REG_DMABUF_MR, QUERY_MR and ADVISE_MR (ioctl only), and
 * destruction through DEREG_MR / MR/DESTROY and DEALLOC_MW / MW/DESTROY.
 * A device method a driver lacks answers EOPNOTSUPP, as the stock kernel
 * does for rxe and siw (dma-buf MRs, prefetch advice, rereg).
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* ------------------------------------------------------------ MR */

static int uverbs_free_mr(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	return ib_dereg_mr_user(uobj->object, &attrs->driver_udata);
}

static int uverbs_check_mr_access(struct ib_device *ib_dev, u32 flags)
{
	if (flags & ~(u32)IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/* Remote writes and atomics land in memory: local write is implied. */
	if ((flags & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(flags & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((flags & IB_ACCESS_ON_DEMAND) &&
	    !(ib_dev->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		return -EOPNOTSUPP;
	return 0;
}

/* What the core keeps of a user MR the driver made. */
static void uverbs_init_user_mr(struct ib_mr *mr, struct ib_pd *pd,
				struct ib_uobject *uobj, u64 iova, u64 length)
{
	mr->device = pd->device;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_USER;
	mr->dm = NULL;
	mr->sig_attrs = NULL;
	mr->uobject = uobj;
	mr->iova = iova;
	mr->length = length;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	rdma_restrack_add(&mr->res);
	uobj->object = mr;
}

static int uverbs_reg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_reg_mr cmd;
	struct ib_device *ib_dev;
	struct ib_mr *mr;
	struct ib_pd *pd;
	int ret;

	pd = uverbs_cmd_obj(attrs, cmd, pd_handle, UVERBS_OBJECT_PD, &pd_uobj);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	/* The IOVA must sit at the same offset in its page as the buffer. */
	ret = -EINVAL;
	if ((cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		goto out_pd;
	ret = uverbs_check_mr_access(pd->device, cmd.access_flags);
	if (ret)
		goto out_pd;

	uobj = uobj_alloc(UVERBS_OBJECT_MR, attrs, &ib_dev);
	mr = IS_ERR(uobj) ? ERR_CAST(uobj) :
	     ib_dev->ops.reg_user_mr(pd, cmd.start, cmd.length, cmd.hca_va,
				     cmd.access_flags, &attrs->driver_udata);
	if (IS_ERR(mr)) {
		if (!IS_ERR(uobj))
			uobj_alloc_abort(uobj, attrs);
		ret = PTR_ERR(mr);
		goto out_pd;
	}
	uverbs_init_user_mr(mr, pd, uobj, cmd.hca_va, cmd.length);
	uobj_finalize_uobj_create(uobj, attrs);

	resp.mr_handle = uobj->id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

/* No driver of ours can change an MR in place; libibverbs reports it. */
static int uverbs_rereg_mr(struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

static int uverbs_dereg_mr(struct uverbs_attr_bundle *attrs)
{
	return uverbs_write_destroy(attrs, UVERBS_OBJECT_MR);
}

static int UVERBS_HANDLER(UVERBS_METHOD_REG_DMABUF_MR)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd;
	struct ib_mr *mr;
	struct ib_device *ib_dev;
	u64 offset, length, iova;
	u32 access;
	int fd, ret;

	pd = uverbs_attr_get_obj(attrs, UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE);
	ib_dev = pd->device;

	if (!ib_dev->ops.reg_user_mr_dmabuf)
		return -EOPNOTSUPP;
	ret = uverbs_copy_from(&offset, attrs,
			       UVERBS_ATTR_REG_DMABUF_MR_OFFSET);
	if (!ret)
		ret = uverbs_copy_from(&length, attrs,
				       UVERBS_ATTR_REG_DMABUF_MR_LENGTH);
	if (!ret)
		ret = uverbs_copy_from(&iova, attrs,
				       UVERBS_ATTR_REG_DMABUF_MR_IOVA);
	if (!ret)
		ret = uverbs_copy_from(&fd, attrs, UVERBS_ATTR_REG_DMABUF_MR_FD);
	if (!ret)
		ret = uverbs_get_flags32(&access, attrs,
					 UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS,
					 IB_ACCESS_SUPPORTED);
	if (ret)
		return ret;
	/* Same page offset, as for REG_MR. */
	if ((offset & ~PAGE_MASK) != (iova & ~PAGE_MASK))
		return -EINVAL;
	ret = uverbs_check_mr_access(ib_dev, access);
	if (ret)
		return ret;

	mr = ib_dev->ops.reg_user_mr_dmabuf(pd, offset, length, iova, fd,
					    access, &attrs->driver_udata);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	uverbs_init_user_mr(mr, pd,
			    uverbs_attr_get_uobject(attrs,
					UVERBS_ATTR_REG_DMABUF_MR_HANDLE),
			    iova, length);
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_REG_DMABUF_MR_HANDLE);

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY,
			     &mr->lkey, sizeof(mr->lkey));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY,
			      &mr->rkey, sizeof(mr->rkey));
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_MR)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_mr *mr = uverbs_attr_get_obj(attrs, UVERBS_ATTR_QUERY_MR_HANDLE);
	int ret;

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_LKEY, &mr->lkey,
			     sizeof(mr->lkey));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_RKEY, &mr->rkey,
			     sizeof(mr->rkey));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_LENGTH,
			     &mr->length, sizeof(mr->length));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_MR_RESP_IOVA, &mr->iova,
			     sizeof(mr->iova));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_ADVISE_MR)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *pd = uverbs_attr_get_obj(attrs,
					       UVERBS_ATTR_ADVISE_MR_PD_HANDLE);
	enum ib_uverbs_advise_mr_advice advice;
	struct ib_sge *sg_list;
	int num_sge, ret;
	u32 flags;

	if (!pd->device->ops.advise_mr)
		return -EOPNOTSUPP;
	ret = uverbs_get_const(&advice, attrs, UVERBS_ATTR_ADVISE_MR_ADVICE);
	if (ret)
		return ret;
	ret = uverbs_get_flags32(&flags, attrs, UVERBS_ATTR_ADVISE_MR_FLAGS,
				 IB_UVERBS_ADVISE_MR_FLAG_FLUSH);
	if (ret)
		return ret;
	num_sge = uverbs_attr_ptr_get_array_size(attrs,
			UVERBS_ATTR_ADVISE_MR_SGE_LIST, sizeof(struct ib_sge));
	if (num_sge <= 0)
		return num_sge ? num_sge : -EINVAL;
	sg_list = uverbs_attr_get_alloced_ptr(attrs,
					      UVERBS_ATTR_ADVISE_MR_SGE_LIST);
	return pd->device->ops.advise_mr(pd, advice, flags, sg_list, num_sge,
					 attrs);
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_ADVISE_MR,
	UVA_IDR(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, PD, READ, UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_ADVISE_MR_ADVICE,
		  enum ib_uverbs_advise_mr_advice, UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_ADVISE_MR_FLAGS, enum ib_uverbs_advise_mr_flag,
		  UA_MANDATORY),
	UVERBS_ATTR_PTR_IN(UVERBS_ATTR_ADVISE_MR_SGE_LIST,
			   UVERBS_ATTR_MIN_SIZE(sizeof(struct ib_uverbs_sge)),
			   UA_MANDATORY, UA_ALLOC_AND_COPY));

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QUERY_MR,
	UVA_IDR(UVERBS_ATTR_QUERY_MR_HANDLE, MR, READ, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_QUERY_MR_RESP_LKEY, u32, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_QUERY_MR_RESP_RKEY, u32, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, u64, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_QUERY_MR_RESP_IOVA, u64, UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_REG_DMABUF_MR,
	UVA_IDR(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, MR, NEW, UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, PD, READ, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_REG_DMABUF_MR_IOVA, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_REG_DMABUF_MR_FD, u32, UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, enum ib_access_flags,
		  UA_OPTIONAL),
	UVA_OUT(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, u32, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, u32, UA_MANDATORY),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	UVERBS_METHOD_MR_DESTROY,
	UVA_IDR(UVERBS_ATTR_DESTROY_MR_HANDLE, MR, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_MR,
			    UVERBS_TYPE_ALLOC_IDR(uverbs_free_mr),
			    &UVERBS_METHOD(UVERBS_METHOD_ADVISE_MR),
			    &UVERBS_METHOD(UVERBS_METHOD_QUERY_MR),
			    &UVERBS_METHOD(UVERBS_METHOD_REG_DMABUF_MR),
			    &UVERBS_METHOD(UVERBS_METHOD_MR_DESTROY));

/* ------------------------------------------------------------ MW */

static int uverbs_free_mw(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
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

static int uverbs_alloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_alloc_mw cmd;
	struct ib_device *ib_dev;
	struct ib_mw *mw = NULL;
	struct ib_pd *pd;
	int ret = -EINVAL;

	pd = uverbs_cmd_obj(attrs, cmd, pd_handle, UVERBS_OBJECT_PD, &pd_uobj);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	if (cmd.mw_type != IB_MW_TYPE_1 && cmd.mw_type != IB_MW_TYPE_2)
		goto out_pd;
	uobj = uobj_alloc(UVERBS_OBJECT_MW, attrs, &ib_dev);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_pd;
	}
	mw = rdma_zalloc_drv_obj(ib_dev, ib_mw);
	ret = -ENOMEM;
	if (mw) {
		mw->device = ib_dev;
		mw->pd = pd;
		mw->uobject = uobj;
		mw->type = cmd.mw_type;
		ret = ib_dev->ops.alloc_mw(mw, &attrs->driver_udata);
	}
	if (ret) {
		kfree(mw);
		uobj_alloc_abort(uobj, attrs);
		goto out_pd;
	}
	atomic_inc(&pd->usecnt);
	uobj->object = mw;
	uobj_finalize_uobj_create(uobj, attrs);

	resp.mw_handle = uobj->id;
	resp.rkey = mw->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

static int uverbs_dealloc_mw(struct uverbs_attr_bundle *attrs)
{
	return uverbs_write_destroy(attrs, UVERBS_OBJECT_MW);
}

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	UVERBS_METHOD_MW_DESTROY,
	UVA_IDR(UVERBS_ATTR_DESTROY_MW_HANDLE, MW, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_MW,
			    UVERBS_TYPE_ALLOC_IDR(uverbs_free_mw),
			    &UVERBS_METHOD(UVERBS_METHOD_MW_DESTROY));

const struct uapi_definition uverbs_def_mr[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_MR,
				      UAPI_DEF_OBJ_NEEDS_FN(dereg_mr)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_MR,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_REG_MR, uverbs_reg_mr,
				     UAPI_WRITE_UDATA_IO(reg_mr, reg_mr_resp),
				     UAPI_DEF_METHOD_NEEDS_FN(reg_user_mr)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_REREG_MR,
				     uverbs_rereg_mr,
				     UAPI_WRITE_UDATA_IO(rereg_mr,
							 rereg_mr_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DEREG_MR,
				     uverbs_dereg_mr,
				     UAPI_WRITE_REQ(dereg_mr))),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_MW,
				      UAPI_DEF_OBJ_NEEDS_FN(alloc_mw)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_MW,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_ALLOC_MW,
				     uverbs_alloc_mw,
				     UAPI_WRITE_UDATA_IO(alloc_mw, alloc_mw_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DEALLOC_MW,
				     uverbs_dealloc_mw,
				     UAPI_WRITE_REQ(dealloc_mw))),
	{},
};
