// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues. CREATE_CQ, its extended form and CQ/CREATE make the
 * CQ in one function; DESTROY_CQ and CQ/DESTROY answer the same event
 * counts. RESIZE_CQ, REQ_NOTIFY_CQ and POLL_CQ are write() only in
 * rdma-core 44 (rxe and siw poll their rings in userspace).
 */
#include <linux/slab.h>
#include <rdma/restrack.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* What the three CQ creates ask, whatever the protocol. */
struct uverbs_cq_req {
	u64	user_handle;
	u32	cqe;
	u32	comp_vector;
	u32	flags;
	/* Completion channel, with a reference the CQ takes over; or NULL. */
	struct ib_uverbs_completion_event_file *channel;
	u16	event_fd_attr;	/* ioctl EVENT_FD attribute, if passed */
};

static int uverbs_free_cq(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	struct ib_cq *cq = uobj->object;
	struct ib_uverbs_completion_event_file *channel = cq->cq_context;
	int ret;

	if (atomic_read(&cq->usecnt))
		return -EBUSY;
	ret = ib_destroy_cq_user(cq, &attrs->driver_udata);
	if (ret)
		return ret;
	/* No more completions can arrive: drop the unread ones. */
	ib_uverbs_release_ucq(ucq, channel);
	return 0;
}

/*
 * Makes the CQ of uobj (begun by the caller, who commits or aborts it).
 * On failure the channel reference is the caller's again.
 */
static int uverbs_make_cq(struct uverbs_attr_bundle *attrs,
			  struct ib_uobject *uobj,
			  const struct uverbs_cq_req *req)
{
	struct ib_device *ib_dev = attrs->context->device;
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);
	struct ib_cq_init_attr cq_attr = {};
	struct ib_cq *cq;
	int ret;

	/* Vector 0 always exists, even if a driver left the count at 0. */
	if (req->comp_vector &&
	    req->comp_vector >= ib_dev->num_comp_vectors)
		return -EINVAL;
	if (!ib_dev->ops.create_cq || !ib_dev->ops.destroy_cq)
		return -EOPNOTSUPP;

	uobj->user_handle = req->user_handle;
	INIT_LIST_HEAD(&ucq->comp_list);
	cq = rdma_zalloc_drv_obj(ib_dev, ib_cq);
	if (!cq)
		return -ENOMEM;
	cq->device = ib_dev;
	cq->uobject = ucq;
	cq->comp_handler = ib_uverbs_comp_handler;
	cq->event_handler = ib_uverbs_cq_event_handler;
	/* The comp handler and uverbs_free_cq find the channel here. */
	cq->cq_context = req->channel;
	cq->comp_vector = req->comp_vector;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, NULL);

	cq_attr.cqe = req->cqe;
	cq_attr.comp_vector = req->comp_vector;
	cq_attr.flags = req->flags;
	ret = ib_dev->ops.create_cq(cq, &cq_attr, &attrs->driver_udata);
	if (ret) {
		rdma_restrack_del(&cq->res);
		kfree(cq);
		return ret;
	}
	rdma_restrack_add(&cq->res);
	uobj->object = cq;
	uverbs_uevent_attach(attrs, &ucq->uevent, req->event_fd_attr);
	return 0;
}

/* write(): the channel named by fd, or none for a negative fd. */
static int uverbs_write_channel(struct uverbs_attr_bundle *attrs, s32 fd,
				struct uverbs_cq_req *req)
{
	struct ib_uobject *uobj;

	req->channel = NULL;
	if (fd < 0)
		return 0;
	uobj = uverbs_get_uobj(attrs, UVERBS_OBJECT_COMP_CHANNEL, fd,
			       UVERBS_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uverbs_uobject_get(uobj);
	uobj_put_read(uobj);
	req->channel = container_of(uobj,
				    struct ib_uverbs_completion_event_file,
				    uobj);
	return 0;
}

/* CREATE_CQ and EX_CREATE_CQ: the legacy answer is the ex one's base. */
static int uverbs_write_create_cq(struct uverbs_attr_bundle *attrs,
				  struct uverbs_cq_req *req, s32 channel_fd,
				  bool is_ex)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uobject *uobj;
	struct ib_device *ib_dev;
	int ret;

	req->event_fd_attr = UVERBS_ATTR_CREATE_CQ_EVENT_FD;
	uobj = uobj_alloc(UVERBS_OBJECT_CQ, attrs, &ib_dev);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = uverbs_write_channel(attrs, channel_fd, req);
	if (!ret) {
		ret = uverbs_make_cq(attrs, uobj, req);
		if (ret && req->channel)
			uverbs_uobject_put(&req->channel->uobj);
	}
	if (ret) {
		uobj_alloc_abort(uobj, attrs);
		return ret;
	}
	uobj_finalize_uobj_create(uobj, attrs);

	resp.base.cq_handle = uobj->id;
	resp.base.cqe = ((struct ib_cq *)uobj->object)->cqe;
	if (!is_ex)
		return uverbs_response(attrs, &resp.base, sizeof(resp.base));
	resp.response_length = min_t(size_t, attrs->ucore.outlen, sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int uverbs_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_cq cmd;
	struct uverbs_cq_req req = {};
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	req.user_handle = cmd.user_handle;
	req.cqe = cmd.cqe;
	req.comp_vector = cmd.comp_vector;
	return uverbs_write_create_cq(attrs, &req, cmd.comp_channel, false);
}

static int uverbs_ex_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_cq cmd;
	struct uverbs_cq_req req = {};
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;
	req.user_handle = cmd.user_handle;
	req.cqe = cmd.cqe;
	req.comp_vector = cmd.comp_vector;
	req.flags = cmd.flags;
	return uverbs_write_create_cq(attrs, &req, cmd.comp_channel, true);
}

static int UVERBS_HANDLER(UVERBS_METHOD_CQ_CREATE)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_CQ_HANDLE);
	struct uverbs_cq_req req = {
		.event_fd_attr = UVERBS_ATTR_CREATE_CQ_EVENT_FD,
	};
	struct ib_uobject *channel;
	int ret;

	ret = uverbs_copy_from(&req.cqe, attrs, UVERBS_ATTR_CREATE_CQ_CQE);
	if (!ret)
		ret = uverbs_copy_from(&req.user_handle, attrs,
				       UVERBS_ATTR_CREATE_CQ_USER_HANDLE);
	if (!ret)
		ret = uverbs_copy_from(&req.comp_vector, attrs,
				       UVERBS_ATTR_CREATE_CQ_COMP_VECTOR);
	if (!ret)
		ret = uverbs_get_flags32(&req.flags, attrs,
					 UVERBS_ATTR_CREATE_CQ_FLAGS,
					 IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
					 IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN);
	if (ret)
		return ret;

	channel = uverbs_attr_get_uobject(attrs,
					  UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL);
	if (!IS_ERR(channel)) {
		uverbs_uobject_get(channel);
		req.channel = container_of(channel,
				struct ib_uverbs_completion_event_file, uobj);
	}
	ret = uverbs_make_cq(attrs, uobj, &req);
	if (ret) {
		if (req.channel)
			uverbs_uobject_put(channel);
		return ret;
	}
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_CQ_HANDLE);
	return uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_CQ_RESP_CQE,
			      &((struct ib_cq *)uobj->object)->cqe,
			      sizeof(u32));
}

/* Events userspace has read for a destroyed CQ (it waits for their acks). */
static void uverbs_cq_destroy_resp(struct ib_uobject *uobj,
				   struct ib_uverbs_destroy_cq_resp *resp)
{
	struct ib_ucq_object *ucq =
		container_of(uobj, struct ib_ucq_object, uevent.uobject);

	resp->comp_events_reported = ucq->comp_events_reported;
	resp->async_events_reported = ucq->uevent.events_reported;
}

static int uverbs_destroy_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uverbs_destroy_by_handle(attrs, UVERBS_OBJECT_CQ, cmd.cq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uverbs_cq_destroy_resp(uobj, &resp);
	uobj_put_destroy(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int UVERBS_HANDLER(UVERBS_METHOD_CQ_DESTROY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_cq_resp resp = {};

	uverbs_cq_destroy_resp(uverbs_attr_get_uobject(attrs,
				UVERBS_ATTR_DESTROY_CQ_HANDLE), &resp);
	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_CQ_RESP, &resp,
			      sizeof(resp));
}

/* ------------------------------------------------- write()-only verbs */

static int uverbs_resize_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_uverbs_resize_cq cmd;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret = -EINVAL;

	cq = uverbs_cmd_obj(attrs, cmd, cq_handle, UVERBS_OBJECT_CQ, &uobj);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	if (cmd.cqe)
		ret = cq->device->ops.resize_cq(cq, cmd.cqe,
						&attrs->driver_udata);
	resp.cqe = cq->cqe;
	uobj_put_read(uobj);
	return ret ? ret : uverbs_response(attrs, &resp, sizeof(resp));
}

static int uverbs_req_notify_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_req_notify_cq cmd;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	cq = uverbs_cmd_obj(attrs, cmd, cq_handle, UVERBS_OBJECT_CQ, &uobj);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	/* A positive value only reports missed events, not asked for here. */
	ret = ib_req_notify_cq(cq, cmd.solicited_only ?
			       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	uobj_put_read(uobj);
	return ret < 0 ? ret : 0;
}

static void uverbs_wc_to_user(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp ? wc->qp->qp_num : 0;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = wc->wc_flags;
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = (u16)wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = (u8)wc->port_num;
}

/*
 * Kernel-polled CQs (rxe and siw poll in userspace and never get here).
 * Only as many completions are taken as fit in the response buffer, so
 * none is consumed and then lost.
 */
static int uverbs_poll_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_poll_cq_resp resp = {};
	struct ib_uverbs_poll_cq cmd;
	struct ib_uverbs_wc uwc;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	struct ib_wc wc;
	size_t room;
	u32 ne;
	int ret;

	cq = uverbs_cmd_obj(attrs, cmd, cq_handle, UVERBS_OBJECT_CQ, &uobj);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	ret = -EOPNOTSUPP;
	if (!cq->device->ops.poll_cq)
		goto out;
	ret = 0;

	room = (attrs->ucore.outlen - sizeof(resp)) / sizeof(uwc);
	ne = min_t(size_t, cmd.ne, room);
	while (resp.count < ne) {
		ret = ib_poll_cq(cq, 1, &wc);
		if (ret <= 0)
			break;
		uverbs_wc_to_user(&uwc, &wc);
		ret = uverbs_copy_out(attrs, sizeof(resp) +
				      resp.count * sizeof(uwc),
				      &uwc, sizeof(uwc));
		if (ret)
			goto out;
		resp.count++;
	}
	ret = ret < 0 ? ret : uverbs_copy_out(attrs, 0, &resp, sizeof(resp));
out:
	uobj_put_read(uobj);
	return ret;
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_CQ_CREATE,
	UVA_IDR(UVERBS_ATTR_CREATE_CQ_HANDLE, CQ, NEW, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_CQ_CQE, u32, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, u32, UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_CREATE_CQ_FLAGS,
		  enum ib_uverbs_ex_create_cq_flags, UA_OPTIONAL),
	UVERBS_ATTR_FD(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL,
		       UVERBS_OBJECT_COMP_CHANNEL, UVERBS_ACCESS_READ,
		       UA_OPTIONAL),
	UVA_EVENT_FD(UVERBS_ATTR_CREATE_CQ_EVENT_FD),
	UVA_OUT(UVERBS_ATTR_CREATE_CQ_RESP_CQE, u32, UA_MANDATORY),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_CQ_DESTROY,
	UVA_OUT(UVERBS_ATTR_DESTROY_CQ_RESP, struct ib_uverbs_destroy_cq_resp,
		UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_DESTROY_CQ_HANDLE, CQ, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(
	UVERBS_OBJECT_CQ,
	UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct ib_ucq_object), uverbs_free_cq),
	&UVERBS_METHOD(UVERBS_METHOD_CQ_DESTROY),
	&UVERBS_METHOD(UVERBS_METHOD_CQ_CREATE));

const struct uapi_definition uverbs_def_cq[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_CQ,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_cq)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_CQ,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_CQ,
				     uverbs_create_cq,
				     UAPI_WRITE_UDATA_IO(create_cq,
							 create_cq_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DESTROY_CQ,
				     uverbs_destroy_cq,
				     UAPI_WRITE_IO(destroy_cq, destroy_cq_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_POLL_CQ, uverbs_poll_cq,
				     UAPI_WRITE_IO(poll_cq, poll_cq_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ,
				     uverbs_req_notify_cq,
				     UAPI_WRITE_REQ(req_notify_cq),
				     UAPI_DEF_METHOD_NEEDS_FN(req_notify_cq)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_RESIZE_CQ,
				     uverbs_resize_cq,
				     UAPI_WRITE_UDATA_IO(resize_cq,
							 resize_cq_resp),
				     UAPI_DEF_METHOD_NEEDS_FN(resize_cq)),
		DECLARE_UVERBS_WRITE_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ,
					uverbs_ex_create_cq,
					UAPI_WRITE_EX(sizeof(struct ib_uverbs_ex_create_cq),
						      offsetofend(struct ib_uverbs_ex_create_cq_resp,
								  response_length)))),
	{},
};
