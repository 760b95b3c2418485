// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues. CREATE_SRQ, CREATE_XSRQ and SRQ/CREATE make the
 * SRQ in one function; DESTROY_SRQ and SRQ/DESTROY answer the same event
 * count. MODIFY_SRQ and QUERY_SRQ are write() only in rdma-core 44. Only
 * basic SRQs: XRC ones need XRC domains, tag matching a driver with it.
 */
#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* What the three SRQ creates ask, whatever the protocol. */
struct uverbs_srq_req {
	u64		user_handle;
	u32		srq_type;
	struct ib_srq_attr attr;	/* in: asked; out: granted */
	struct ib_pd	*pd;
	u16		event_fd_attr;	/* ioctl EVENT_FD attribute */
};

static int uverbs_free_srq(struct ib_uobject *uobj, enum rdma_remove_reason why,
			   struct uverbs_attr_bundle *attrs)
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

static int uverbs_check_srq_type(u32 srq_type)
{
	if (srq_type == IB_SRQT_XRC || srq_type == IB_SRQT_TM)
		return -EOPNOTSUPP;
	return srq_type == IB_SRQT_BASIC ? 0 : -EINVAL;
}

/* Makes the SRQ of uobj (begun by the caller, who commits or aborts it). */
static int uverbs_make_srq(struct uverbs_attr_bundle *attrs,
			   struct ib_uobject *uobj, struct uverbs_srq_req *req)
{
	struct ib_usrq_object *usrq =
		container_of(uobj, struct ib_usrq_object, uevent.uobject);
	struct ib_srq_init_attr init = {};
	struct ib_srq *srq;

	uobj->user_handle = req->user_handle;
	init.event_handler = ib_uverbs_srq_event_handler;
	init.srq_context = attrs->ufile;
	init.srq_type = IB_SRQT_BASIC;
	init.attr = req->attr;

	srq = ib_create_srq_user(req->pd, &init, usrq, &attrs->driver_udata);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	uobj->object = srq;
	uverbs_uevent_attach(attrs, &usrq->uevent, req->event_fd_attr);
	req->attr = init.attr;
	return 0;
}

static int uverbs_write_create_srq(struct uverbs_attr_bundle *attrs,
				   struct uverbs_srq_req *req, u32 pd_handle)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_device *ib_dev;
	int ret;

	ret = uverbs_check_srq_type(req->srq_type);
	if (ret)
		return ret;
	req->pd = uverbs_get_obj(attrs, UVERBS_OBJECT_PD, pd_handle, &pd_uobj);
	if (IS_ERR(req->pd))
		return PTR_ERR(req->pd);
	uobj = uobj_alloc(UVERBS_OBJECT_SRQ, attrs, &ib_dev);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_pd;
	}
	req->event_fd_attr = UVERBS_ATTR_CREATE_SRQ_EVENT_FD;
	ret = uverbs_make_srq(attrs, uobj, req);
	if (ret) {
		uobj_alloc_abort(uobj, attrs);
		goto out_pd;
	}
	uobj_finalize_uobj_create(uobj, attrs);

	resp.srq_handle = uobj->id;
	resp.max_wr = req->attr.max_wr;
	resp.max_sge = req->attr.max_sge;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

static int uverbs_create_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_srq cmd;
	struct uverbs_srq_req req = { .srq_type = IB_SRQT_BASIC };
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	req.user_handle = cmd.user_handle;
	req.attr.max_wr = cmd.max_wr;
	req.attr.max_sge = cmd.max_sge;
	req.attr.srq_limit = cmd.srq_limit;
	return uverbs_write_create_srq(attrs, &req, cmd.pd_handle);
}

static int uverbs_create_xsrq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_xsrq cmd;
	struct uverbs_srq_req req = {};
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	req.user_handle = cmd.user_handle;
	req.srq_type = cmd.srq_type;
	req.attr.max_wr = cmd.max_wr;
	req.attr.max_sge = cmd.max_sge;
	req.attr.srq_limit = cmd.srq_limit;
	return uverbs_write_create_srq(attrs, &req, cmd.pd_handle);
}

static int UVERBS_HANDLER(UVERBS_METHOD_SRQ_CREATE)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_SRQ_HANDLE);
	struct uverbs_srq_req req = {
		.event_fd_attr = UVERBS_ATTR_CREATE_SRQ_EVENT_FD,
	};
	int ret;

	ret = uverbs_get_const(&req.srq_type, attrs,
			       UVERBS_ATTR_CREATE_SRQ_TYPE);
	if (!ret)
		ret = uverbs_check_srq_type(req.srq_type);
	if (!ret)
		ret = uverbs_copy_from(&req.user_handle, attrs,
				       UVERBS_ATTR_CREATE_SRQ_USER_HANDLE);
	if (!ret)
		ret = uverbs_copy_from(&req.attr.max_wr, attrs,
				       UVERBS_ATTR_CREATE_SRQ_MAX_WR);
	if (!ret)
		ret = uverbs_copy_from(&req.attr.max_sge, attrs,
				       UVERBS_ATTR_CREATE_SRQ_MAX_SGE);
	if (!ret)
		ret = uverbs_copy_from(&req.attr.srq_limit, attrs,
				       UVERBS_ATTR_CREATE_SRQ_LIMIT);
	if (ret)
		return ret;
	req.pd = uverbs_attr_get_obj(attrs, UVERBS_ATTR_CREATE_SRQ_PD_HANDLE);
	if (IS_ERR(req.pd))
		return -EINVAL;

	ret = uverbs_make_srq(attrs, uobj, &req);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_SRQ_HANDLE);

	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR,
			     &req.attr.max_wr, sizeof(req.attr.max_wr));
	if (ret)
		return ret;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE,
			     &req.attr.max_sge, sizeof(req.attr.max_sge));
	return IS_UVERBS_COPY_ERR(ret) ? ret : 0;
}

static int uverbs_destroy_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uverbs_destroy_by_handle(attrs, UVERBS_OBJECT_SRQ,
					cmd.srq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	resp.events_reported = uverbs_uevent_reported(uobj);
	uobj_put_destroy(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int UVERBS_HANDLER(UVERBS_METHOD_SRQ_DESTROY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_srq_resp resp = {
		.events_reported = uverbs_uevent_reported(
			uverbs_attr_get_uobject(attrs,
						UVERBS_ATTR_DESTROY_SRQ_HANDLE)),
	};

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_SRQ_RESP, &resp,
			      sizeof(resp));
}

static int uverbs_modify_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	struct ib_srq *srq;
	int ret;

	srq = uverbs_cmd_obj(attrs, cmd, srq_handle, UVERBS_OBJECT_SRQ, &uobj);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	ret = -EINVAL;
	if (cmd.attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		goto out;
	ret = -EOPNOTSUPP;
	if (srq->device->ops.modify_srq) {
		attr.max_wr = cmd.max_wr;
		attr.srq_limit = cmd.srq_limit;
		/* Direct call: rxe reads its resize request from udata. */
		ret = srq->device->ops.modify_srq(srq, &attr, cmd.attr_mask,
						  &attrs->driver_udata);
	}
out:
	uobj_put_read(uobj);
	return ret;
}

static int uverbs_query_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	struct ib_srq *srq;
	int ret;

	srq = uverbs_cmd_obj(attrs, cmd, srq_handle, UVERBS_OBJECT_SRQ, &uobj);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	ret = ib_query_srq(srq, &attr);
	uobj_put_read(uobj);
	if (ret)
		return ret;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_SRQ_CREATE,
	UVA_IDR(UVERBS_ATTR_CREATE_SRQ_HANDLE, SRQ, NEW, UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_CREATE_SRQ_PD_HANDLE, PD, READ, UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_CREATE_SRQ_XRCD_HANDLE, XRCD, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_SRQ_CQ_HANDLE, CQ, READ, UA_OPTIONAL),
	UVA_CONST(UVERBS_ATTR_CREATE_SRQ_TYPE, enum ib_uverbs_srq_type,
		  UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_SRQ_USER_HANDLE, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_SRQ_MAX_WR, u32, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_SRQ_MAX_SGE, u32, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_SRQ_LIMIT, u32, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_SRQ_MAX_NUM_TAGS, u32, UA_OPTIONAL),
	UVA_EVENT_FD(UVERBS_ATTR_CREATE_SRQ_EVENT_FD),
	UVA_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_WR, u32, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_MAX_SGE, u32, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_CREATE_SRQ_RESP_SRQ_NUM, u32, UA_OPTIONAL),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_SRQ_DESTROY,
	UVA_OUT(UVERBS_ATTR_DESTROY_SRQ_RESP, struct ib_uverbs_destroy_srq_resp,
		UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_DESTROY_SRQ_HANDLE, SRQ, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(
	UVERBS_OBJECT_SRQ,
	UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_usrq_object), uverbs_free_srq),
	&UVERBS_METHOD(UVERBS_METHOD_SRQ_DESTROY),
	&UVERBS_METHOD(UVERBS_METHOD_SRQ_CREATE));

const struct uapi_definition uverbs_def_srq[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_SRQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_srq)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_SRQ,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_SRQ,
				     uverbs_create_srq,
				     UAPI_WRITE_UDATA_IO(create_srq,
							 create_srq_resp),
				     UAPI_DEF_METHOD_NEEDS_FN(create_srq)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_XSRQ,
				     uverbs_create_xsrq,
				     UAPI_WRITE_UDATA_IO(create_xsrq,
							 create_srq_resp),
				     UAPI_DEF_METHOD_NEEDS_FN(create_srq)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DESTROY_SRQ,
				     uverbs_destroy_srq,
				     UAPI_WRITE_IO(destroy_srq,
						   destroy_srq_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_MODIFY_SRQ,
				     uverbs_modify_srq,
				     UAPI_WRITE_UDATA_REQ(modify_srq)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_QUERY_SRQ,
				     uverbs_query_srq,
				     UAPI_WRITE_IO(query_srq, query_srq_resp))),
	{},
};
