// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs. CREATE_QP, its extended form and QP/CREATE make the QP in
 * one function; DESTROY_QP and QP/DESTROY answer the same event count.
 * QUERY_QP, MODIFY_QP (and extended), multicast attach/detach are write()
 * only in rdma-core 44. Posting lives in uverbs_std_post.c.
 */
#include <linux/capability.h>
#include <linux/slab.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* Legacy MODIFY_QP knows attribute bits up to DEST_QPN, ex up to RATE_LIMIT. */
#define UVERBS_LEGACY_QP_ATTR_MASK	(((u32)IB_QP_DEST_QPN << 1) - 1)
#define UVERBS_EX_QP_ATTR_MASK		(((u32)IB_QP_RATE_LIMIT << 1) - 1)

#define UVERBS_QP_CREATE_FLAGS_OK					\
	(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |			\
	 IB_QP_CREATE_CROSS_CHANNEL | IB_QP_CREATE_MANAGED_SEND |	\
	 IB_QP_CREATE_MANAGED_RECV | IB_QP_CREATE_SCATTER_FCS |		\
	 IB_QP_CREATE_CVLAN_STRIPPING | IB_QP_CREATE_SOURCE_QPN |	\
	 IB_QP_CREATE_PCI_WRITE_END_PADDING)

/* What the three QP creates ask, whatever the protocol. */
struct uverbs_qp_req {
	u64		user_handle;
	u32		create_flags;
	u32		source_qpn;
	u8		qp_type;
	bool		sq_sig_all;
	struct ib_qp_cap cap;		/* in: asked; out: granted */
	struct ib_pd	*pd;
	struct ib_cq	*send_cq;
	struct ib_cq	*recv_cq;
	struct ib_srq	*srq;
	u16		event_fd_attr;	/* ioctl EVENT_FD attribute */
};

static int uverbs_free_qp(struct ib_uobject *uobj, enum rdma_remove_reason why,
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
	if (why == RDMA_REMOVE_DESTROY) {
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

static bool uverbs_qp_type_ok(u8 qp_type)
{
	switch (qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_RAW_PACKET:
	case IB_QPT_XRC_INI:
	case IB_QPT_DRIVER:
		return true;
	default:
		return false;
	}
}

/* Checks that need no object: type, privileges, flags. */
static int uverbs_check_qp_req(const struct uverbs_qp_req *req)
{
	if (req->qp_type == IB_QPT_XRC_TGT)
		return -EOPNOTSUPP;	/* no XRC domains here */
	if (!uverbs_qp_type_ok(req->qp_type))
		return -EINVAL;
	if (req->qp_type == IB_QPT_RAW_PACKET && !capable(CAP_NET_RAW))
		return -EPERM;
	if (req->create_flags & ~UVERBS_QP_CREATE_FLAGS_OK)
		return -EINVAL;
	if ((req->create_flags & IB_QP_CREATE_SOURCE_QPN) &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	return 0;
}

/*
 * Makes the QP of uobj (begun by the caller, who commits or aborts it);
 * req->cap comes back with what the driver granted.
 */
static int uverbs_make_qp(struct uverbs_attr_bundle *attrs,
			  struct ib_uobject *uobj, struct uverbs_qp_req *req)
{
	struct ib_device *ib_dev = attrs->context->device;
	struct uverbs_uqp *uqp =
		container_of(uobj, struct uverbs_uqp, uqp.uevent.uobject);
	struct ib_qp_init_attr init = {};
	struct ib_qp *qp;

	if (!ib_dev->ops.create_qp)
		return -EOPNOTSUPP;
	if (req->srq && req->srq->srq_type == IB_SRQT_XRC)
		return -EINVAL;

	uobj->user_handle = req->user_handle;
	mutex_init(&uqp->mcast_lock);
	INIT_LIST_HEAD(&uqp->mcast_list);

	init.event_handler = ib_uverbs_qp_event_handler;
	init.qp_context = attrs->ufile;
	init.send_cq = req->send_cq;
	init.recv_cq = req->recv_cq;
	init.srq = req->srq;
	init.sq_sig_type = req->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init.qp_type = req->qp_type;
	init.create_flags = req->create_flags;
	init.source_qpn = req->source_qpn;
	init.cap = req->cap;
	if (req->qp_type == IB_QPT_XRC_INI) {
		init.cap.max_recv_wr = 0;
		init.cap.max_recv_sge = 0;
	}

	qp = ib_create_qp_user(ib_dev, req->pd, &init, &attrs->driver_udata,
			       &uqp->uqp, KBUILD_MODNAME);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	uobj->object = qp;
	uverbs_uevent_attach(attrs, &uqp->uqp.uevent, req->event_fd_attr);
	/* The driver wrote back the capabilities it actually provides. */
	req->cap = init.cap;
	return 0;
}

/* write(): the objects a create names by handle, held until it is done. */
struct uverbs_held {
	struct ib_uobject	*uobj[4];
	unsigned int		n;
};

static void *uverbs_hold(struct uverbs_attr_bundle *attrs,
			 struct uverbs_held *held, u16 object_id, u32 handle)
{
	void *obj = uverbs_get_obj(attrs, object_id, handle,
				   &held->uobj[held->n]);

	if (!IS_ERR(obj))
		held->n++;
	return obj;
}

static void uverbs_release_held(struct uverbs_held *held)
{
	while (held->n)
		uobj_put_read(held->uobj[--held->n]);
}

static int uverbs_write_qp_objects(struct uverbs_attr_bundle *attrs,
				   const struct ib_uverbs_ex_create_qp *cmd,
				   struct uverbs_qp_req *req,
				   struct uverbs_held *held)
{
	req->pd = uverbs_hold(attrs, held, UVERBS_OBJECT_PD, cmd->pd_handle);
	if (IS_ERR(req->pd))
		return PTR_ERR(req->pd);
	req->send_cq = uverbs_hold(attrs, held, UVERBS_OBJECT_CQ,
				   cmd->send_cq_handle);
	if (IS_ERR(req->send_cq))
		return PTR_ERR(req->send_cq);
	if (cmd->qp_type == IB_QPT_XRC_INI) {
		req->recv_cq = NULL;
		req->srq = NULL;
		return 0;
	}
	if (cmd->is_srq) {
		req->srq = uverbs_hold(attrs, held, UVERBS_OBJECT_SRQ,
				       cmd->srq_handle);
		if (IS_ERR(req->srq))
			return PTR_ERR(req->srq);
	}
	req->recv_cq = req->send_cq;
	if (cmd->recv_cq_handle != cmd->send_cq_handle) {
		req->recv_cq = uverbs_hold(attrs, held, UVERBS_OBJECT_CQ,
					   cmd->recv_cq_handle);
		if (IS_ERR(req->recv_cq))
			return PTR_ERR(req->recv_cq);
	}
	return 0;
}

/* cmd is the ex layout; legacy CREATE_QP fills its common prefix. */
static int uverbs_write_create_qp(struct uverbs_attr_bundle *attrs,
				  const struct ib_uverbs_ex_create_qp *cmd,
				  bool is_ex)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct uverbs_qp_req req = {
		.user_handle = cmd->user_handle,
		.create_flags = cmd->create_flags,
		.source_qpn = cmd->source_qpn,
		.qp_type = cmd->qp_type,
		.sq_sig_all = cmd->sq_sig_all,
		.cap = {
			.max_send_wr = cmd->max_send_wr,
			.max_recv_wr = cmd->max_recv_wr,
			.max_send_sge = cmd->max_send_sge,
			.max_recv_sge = cmd->max_recv_sge,
			.max_inline_data = cmd->max_inline_data,
		},
		.event_fd_attr = UVERBS_ATTR_CREATE_QP_EVENT_FD,
	};
	struct uverbs_held held = {};
	struct ib_uobject *uobj;
	struct ib_device *ib_dev;
	int ret;

	ret = uverbs_check_qp_req(&req);
	if (ret)
		return ret;
	if (cmd->comp_mask & ~IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return -EINVAL;
	if (cmd->comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return -EOPNOTSUPP;	/* no RSS indirection tables */

	ret = uverbs_write_qp_objects(attrs, cmd, &req, &held);
	if (ret)
		goto out;
	uobj = uobj_alloc(UVERBS_OBJECT_QP, attrs, &ib_dev);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	ret = uverbs_make_qp(attrs, uobj, &req);
	if (ret) {
		uobj_alloc_abort(uobj, attrs);
		goto out;
	}
	uobj_finalize_uobj_create(uobj, attrs);

	resp.base.qp_handle = uobj->id;
	resp.base.qpn = ((struct ib_qp *)uobj->object)->qp_num;
	resp.base.max_send_wr = req.cap.max_send_wr;
	resp.base.max_recv_wr = req.cap.max_recv_wr;
	resp.base.max_send_sge = req.cap.max_send_sge;
	resp.base.max_recv_sge = req.cap.max_recv_sge;
	resp.base.max_inline_data = req.cap.max_inline_data;
	if (is_ex) {
		resp.response_length = min_t(size_t, attrs->ucore.outlen,
					     sizeof(resp));
		ret = uverbs_response(attrs, &resp, sizeof(resp));
	} else {
		ret = uverbs_response(attrs, &resp.base, sizeof(resp.base));
	}
out:
	uverbs_release_held(&held);
	return ret;
}

static int uverbs_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp ex = {};
	struct ib_uverbs_create_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ex.user_handle = cmd.user_handle;
	ex.pd_handle = cmd.pd_handle;
	ex.send_cq_handle = cmd.send_cq_handle;
	ex.recv_cq_handle = cmd.recv_cq_handle;
	ex.srq_handle = cmd.srq_handle;
	ex.max_send_wr = cmd.max_send_wr;
	ex.max_recv_wr = cmd.max_recv_wr;
	ex.max_send_sge = cmd.max_send_sge;
	ex.max_recv_sge = cmd.max_recv_sge;
	ex.max_inline_data = cmd.max_inline_data;
	ex.sq_sig_all = cmd.sq_sig_all;
	ex.qp_type = cmd.qp_type;
	ex.is_srq = cmd.is_srq;
	return uverbs_write_create_qp(attrs, &ex, false);
}

static int uverbs_ex_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.reserved)
		return -EINVAL;
	return uverbs_write_create_qp(attrs, &cmd, true);
}

/* The verbs object of an optional ioctl attribute, or NULL. */
static void *uverbs_opt_obj(struct uverbs_attr_bundle *attrs, u16 idx)
{
	void *obj = uverbs_attr_get_obj(attrs, idx);

	return IS_ERR(obj) ? NULL : obj;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QP_CREATE)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj =
		uverbs_attr_get_uobject(attrs, UVERBS_ATTR_CREATE_QP_HANDLE);
	struct uverbs_qp_req req = {
		.event_fd_attr = UVERBS_ATTR_CREATE_QP_EVENT_FD,
	};
	struct ib_uverbs_qp_cap cap;
	u64 flags;
	int ret;

	ret = uverbs_copy_from_or_zero(&cap, attrs, UVERBS_ATTR_CREATE_QP_CAP);
	if (!ret)
		ret = uverbs_copy_from(&req.user_handle, attrs,
				       UVERBS_ATTR_CREATE_QP_USER_HANDLE);
	if (!ret)
		ret = uverbs_get_const(&req.qp_type, attrs,
				       UVERBS_ATTR_CREATE_QP_TYPE);
	if (!ret)
		ret = uverbs_get_flags64(&flags, attrs,
					 UVERBS_ATTR_CREATE_QP_FLAGS,
					 IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |
					 IB_UVERBS_QP_CREATE_SCATTER_FCS |
					 IB_UVERBS_QP_CREATE_CVLAN_STRIPPING |
					 IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING |
					 IB_UVERBS_QP_CREATE_SQ_SIG_ALL);
	if (ret)
		return ret;
	/* The uverbs flags are the kernel's, but for SQ_SIG_ALL. */
	req.sq_sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	req.create_flags = flags & ~(u64)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	if (uverbs_attr_is_valid(attrs, UVERBS_ATTR_CREATE_QP_SOURCE_QPN)) {
		ret = uverbs_copy_from(&req.source_qpn, attrs,
				       UVERBS_ATTR_CREATE_QP_SOURCE_QPN);
		if (ret)
			return ret;
		req.create_flags |= IB_QP_CREATE_SOURCE_QPN;
	}
	ret = uverbs_check_qp_req(&req);
	if (ret)
		return ret;

	req.cap.max_send_wr = cap.max_send_wr;
	req.cap.max_recv_wr = cap.max_recv_wr;
	req.cap.max_send_sge = cap.max_send_sge;
	req.cap.max_recv_sge = cap.max_recv_sge;
	req.cap.max_inline_data = cap.max_inline_data;
	req.pd = uverbs_opt_obj(attrs, UVERBS_ATTR_CREATE_QP_PD_HANDLE);
	req.send_cq = uverbs_opt_obj(attrs,
				     UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE);
	req.recv_cq = uverbs_opt_obj(attrs,
				     UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE);
	req.srq = uverbs_opt_obj(attrs, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE);
	/* Every type we make has a PD and a send queue. */
	if (!req.pd || !req.send_cq)
		return -EINVAL;
	if (req.qp_type == IB_QPT_XRC_INI) {
		req.recv_cq = NULL;
		req.srq = NULL;
	} else if (!req.recv_cq) {
		return -EINVAL;
	}

	ret = uverbs_make_qp(attrs, uobj, &req);
	if (ret)
		return ret;
	uverbs_finalize_uobj_create(attrs, UVERBS_ATTR_CREATE_QP_HANDLE);

	cap.max_send_wr = req.cap.max_send_wr;
	cap.max_recv_wr = req.cap.max_recv_wr;
	cap.max_send_sge = req.cap.max_send_sge;
	cap.max_recv_sge = req.cap.max_recv_sge;
	cap.max_inline_data = req.cap.max_inline_data;
	ret = uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap,
			     sizeof(cap));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM,
			      &((struct ib_qp *)uobj->object)->qp_num,
			      sizeof(u32));
}

u32 uverbs_uevent_reported(struct ib_uobject *uobj)
{
	return container_of(uobj, struct ib_uevent_object,
			    uobject)->events_reported;
}

static int uverbs_destroy_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	uobj = uverbs_destroy_by_handle(attrs, UVERBS_OBJECT_QP, cmd.qp_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	resp.events_reported = uverbs_uevent_reported(uobj);
	uobj_put_destroy(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int UVERBS_HANDLER(UVERBS_METHOD_QP_DESTROY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_qp_resp resp = {
		.events_reported = uverbs_uevent_reported(
			uverbs_attr_get_uobject(attrs,
						UVERBS_ATTR_DESTROY_QP_HANDLE)),
	};

	return uverbs_copy_to(attrs, UVERBS_ATTR_DESTROY_QP_RESP, &resp,
			      sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QP_CREATE,
	UVA_IDR(UVERBS_ATTR_CREATE_QP_HANDLE, QP, NEW, UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_PD_HANDLE, PD, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, CQ, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, CQ, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, SRQ, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, XRCD, READ, UA_OPTIONAL),
	UVA_IDR(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, RWQ_IND_TBL, READ,
		UA_OPTIONAL),
	UVA_IN(UVERBS_ATTR_CREATE_QP_USER_HANDLE, u64, UA_MANDATORY),
	UVA_IN(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, u32, UA_OPTIONAL),
	UVERBS_ATTR_PTR_IN(UVERBS_ATTR_CREATE_QP_CAP,
			   UVERBS_ATTR_STRUCT(struct ib_uverbs_qp_cap,
					      max_inline_data),
			   UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_CREATE_QP_TYPE, enum ib_uverbs_qp_type,
		  UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_CREATE_QP_FLAGS, enum ib_uverbs_qp_create_flags,
		  UA_OPTIONAL),
	UVA_EVENT_FD(UVERBS_ATTR_CREATE_QP_EVENT_FD),
	UVERBS_ATTR_PTR_OUT(UVERBS_ATTR_CREATE_QP_RESP_CAP,
			    UVERBS_ATTR_STRUCT(struct ib_uverbs_qp_cap,
					       max_inline_data),
			    UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, u32, UA_MANDATORY),
	UVERBS_ATTR_UHW());

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QP_DESTROY,
	UVA_OUT(UVERBS_ATTR_DESTROY_QP_RESP, struct ib_uverbs_destroy_qp_resp,
		UA_MANDATORY),
	UVA_IDR(UVERBS_ATTR_DESTROY_QP_HANDLE, QP, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(
	UVERBS_OBJECT_QP,
	UVERBS_TYPE_ALLOC_IDR_SZ(sizeof(struct uverbs_uqp), uverbs_free_qp),
	&UVERBS_METHOD(UVERBS_METHOD_QP_DESTROY),
	&UVERBS_METHOD(UVERBS_METHOD_QP_CREATE));

const struct uapi_definition uverbs_def_qp[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_QP,
				      UAPI_DEF_OBJ_NEEDS_FN(destroy_qp)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_QP,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_QP,
				     uverbs_create_qp,
				     UAPI_WRITE_UDATA_IO(create_qp,
							 create_qp_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DESTROY_QP,
				     uverbs_destroy_qp,
				     UAPI_WRITE_IO(destroy_qp, destroy_qp_resp)),
		DECLARE_UVERBS_WRITE_EX(IB_USER_VERBS_EX_CMD_CREATE_QP,
					uverbs_ex_create_qp,
					UAPI_WRITE_EX(offsetofend(struct ib_uverbs_ex_create_qp,
								  comp_mask),
						      offsetofend(struct ib_uverbs_ex_create_qp_resp,
								  response_length)))),
	{},
};
