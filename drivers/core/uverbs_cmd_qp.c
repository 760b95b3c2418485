// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * uverbs write() commands for completion queues, queue pairs, shared
 * receive queues and the kernel-side post/poll paths.
 *
 * Every handler runs with ufile->cmd_rwsem held by the dispatcher (for
 * write when it creates or destroys a uobject), so objects found through
 * uobj_get_obj() cannot go away while the handler uses them. Framing and
 * size checks of the core structures were done by ib_uverbs_run_write();
 * see uverbs.h for what ucore and driver_udata hold.
 */
#include <linux/capability.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/restrack.h>

#include "uverbs.h"

/* Legacy MODIFY_QP knows attribute bits up to DEST_QPN, ex up to RATE_LIMIT. */
#define UVERBS_LEGACY_QP_ATTR_MASK	(((u32)IB_QP_DEST_QPN << 1) - 1)
#define UVERBS_EX_QP_ATTR_MASK		(((u32)IB_QP_RATE_LIMIT << 1) - 1)

/* ------------------------------------------------------ common helpers */

/* The object's async events go to the context's async event file. */
static void uverbs_uevent_attach(struct uverbs_attr_bundle *attrs,
				 struct ib_uevent_object *uevent)
{
	struct ib_uverbs_async_event_file *ev_file = attrs->ufile->async_file;

	if (ev_file) {
		kref_get(&ev_file->ref);
		uevent->event_file = ev_file;
	}
}

static enum rdma_ah_attr_type uverbs_ah_type(struct ib_device *dev, u32 port)
{
	if (rdma_is_port_valid(dev, port) && rdma_protocol_roce(dev, port))
		return RDMA_AH_ATTR_TYPE_ROCE;
	return RDMA_AH_ATTR_TYPE_IB;
}

/*
 * User address vector to rdma_ah_attr. The port decides the AH type
 * (RoCE ports carry a dmac the core resolves later); the GRH is only
 * taken when userspace marked it valid.
 */
static void uverbs_fill_ah_attr(struct ib_device *dev,
				struct rdma_ah_attr *ah, u8 port, u16 dlid,
				u8 sl, u8 src_path_bits, u8 static_rate,
				bool is_global, const u8 *dgid, u32 flow_label,
				u8 sgid_index, u8 hop_limit, u8 traffic_class)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = uverbs_ah_type(dev, port);
	rdma_ah_set_dlid(ah, dlid);
	rdma_ah_set_sl(ah, sl);
	rdma_ah_set_path_bits(ah, src_path_bits);
	rdma_ah_set_static_rate(ah, static_rate);
	rdma_ah_set_port_num(ah, port);
	if (is_global) {
		rdma_ah_set_grh(ah, NULL, flow_label, sgid_index, hop_limit,
				traffic_class);
		rdma_ah_set_dgid_raw(ah, (void *)dgid);
	} else {
		rdma_ah_set_ah_flags(ah, 0);
	}
}

void ib_uverbs_ah_attr_from_user(struct ib_device *dev,
				 struct rdma_ah_attr *ah,
				 const struct ib_uverbs_ah_attr *uah)
{
	uverbs_fill_ah_attr(dev, ah, uah->port_num, uah->dlid, uah->sl,
			    uah->src_path_bits, uah->static_rate,
			    uah->is_global, uah->grh.dgid, uah->grh.flow_label,
			    uah->grh.sgid_index, uah->grh.hop_limit,
			    uah->grh.traffic_class);
}

static void uverbs_qp_dest_to_ah_attr(struct ib_device *dev,
				      struct rdma_ah_attr *ah,
				      const struct ib_uverbs_qp_dest *dest)
{
	uverbs_fill_ah_attr(dev, ah, dest->port_num, dest->dlid, dest->sl,
			    dest->src_path_bits, dest->static_rate,
			    dest->is_global, dest->dgid, dest->flow_label,
			    dest->sgid_index, dest->hop_limit,
			    dest->traffic_class);
}

static void uverbs_ah_attr_to_qp_dest(struct ib_uverbs_qp_dest *dest,
				      const struct rdma_ah_attr *ah)
{
	memset(dest, 0, sizeof(*dest));
	dest->dlid = rdma_ah_get_dlid(ah);
	dest->sl = rdma_ah_get_sl(ah);
	dest->src_path_bits = ah->type == RDMA_AH_ATTR_TYPE_IB ?
			      ah->ib.src_path_bits : 0;
	dest->static_rate = rdma_ah_get_static_rate(ah);
	dest->port_num = rdma_ah_get_port_num(ah);
	dest->is_global = !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH);
	if (dest->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		memcpy(dest->dgid, grh->dgid.raw, sizeof(dest->dgid));
		dest->flow_label = grh->flow_label;
		dest->sgid_index = grh->sgid_index;
		dest->hop_limit = grh->hop_limit;
		dest->traffic_class = grh->traffic_class;
	}
}

/* ------------------------------------------------------------------ CQ */

struct uverbs_cq_req {
	u64 user_handle;
	u32 cqe;
	u32 comp_vector;
	s32 comp_channel;
	u32 flags;
};

static int uverbs_create_cq(struct uverbs_attr_bundle *attrs,
			    const struct uverbs_cq_req *req, bool is_ex)
{
	struct ib_device *ib_dev = attrs->context->device;
	struct ib_uverbs_completion_event_file *ev_file = NULL;
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_cq_init_attr cq_attr = {};
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int ret;

	/* Vector 0 always exists, even if a driver left the count at 0. */
	if (req->comp_vector &&
	    req->comp_vector >= ib_dev->num_comp_vectors)
		return -EINVAL;
	if (!ib_dev->ops.create_cq || !ib_dev->ops.destroy_cq)
		return -EOPNOTSUPP;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_CQ, sizeof(*ucq));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);
	uobj->user_handle = req->user_handle;
	INIT_LIST_HEAD(&ucq->comp_list);
	INIT_LIST_HEAD(&ucq->uevent.event_list);

	if (req->comp_channel >= 0) {
		ev_file = ib_uverbs_lookup_comp_file(req->comp_channel,
						     attrs->ufile);
		if (!ev_file) {
			ret = -EINVAL;
			goto err_uobj;
		}
	}

	cq = rdma_zalloc_drv_obj(ib_dev, ib_cq);
	if (!cq) {
		ret = -ENOMEM;
		goto err_ev;
	}
	cq->device = ib_dev;
	cq->uobject = ucq;
	cq->comp_handler = ib_uverbs_comp_handler;
	cq->event_handler = ib_uverbs_cq_event_handler;
	/* uverbs_uobj.c and the comp handler expect the channel here. */
	cq->cq_context = ev_file;
	cq->comp_vector = req->comp_vector;
	atomic_set(&cq->usecnt, 0);
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, NULL);

	cq_attr.cqe = req->cqe;
	cq_attr.comp_vector = req->comp_vector;
	cq_attr.flags = req->flags;
	ret = ib_dev->ops.create_cq(cq, &cq_attr, &attrs->driver_udata);
	if (ret)
		goto err_free;
	rdma_restrack_add(&cq->res);

	uobj->object = cq;
	uverbs_uevent_attach(attrs, &ucq->uevent);

	resp.base.cq_handle = uobj->id;
	resp.base.cqe = cq->cqe;
	if (is_ex) {
		resp.response_length = min_t(size_t, attrs->ucore.outlen,
					     sizeof(resp));
		ret = uverbs_response(attrs, &resp, sizeof(resp));
	} else {
		ret = uverbs_response(attrs, &resp.base, sizeof(resp.base));
	}
	if (ret)
		goto err_destroy;

	uobj_alloc_commit(uobj);
	return 0;

err_destroy:
	ib_dev->ops.destroy_cq(cq, &attrs->driver_udata);
	rdma_restrack_del(&cq->res);
	kfree(cq);
	/* Drops events already queued and both event file references. */
	ib_uverbs_release_ucq(ucq, ev_file);
	uobj_alloc_abort(uobj);
	return ret;
err_free:
	rdma_restrack_del(&cq->res);
	kfree(cq);
err_ev:
	if (ev_file)
		ib_uverbs_comp_file_put(ev_file);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_create_cq(struct uverbs_attr_bundle *attrs)
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
	req.comp_channel = cmd.comp_channel;
	return uverbs_create_cq(attrs, &req, false);
}

int ib_uverbs_ex_create_cq(struct uverbs_attr_bundle *attrs)
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
	req.comp_channel = cmd.comp_channel;
	req.flags = cmd.flags;
	return uverbs_create_cq(attrs, &req, true);
}

int ib_uverbs_resize_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_uverbs_resize_cq cmd;
	struct ib_cq *cq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	cq = uobj_get_obj(attrs, UVERBS_TYPE_CQ, cmd.cq_handle);
	if (!cq)
		return -ENOENT;
	if (!cq->device->ops.resize_cq)
		return -EOPNOTSUPP;
	if (!cmd.cqe)
		return -EINVAL;

	ret = cq->device->ops.resize_cq(cq, cmd.cqe, &attrs->driver_udata);
	if (ret)
		return ret;
	resp.cqe = cq->cqe;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_req_notify_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_req_notify_cq cmd;
	struct ib_cq *cq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	cq = uobj_get_obj(attrs, UVERBS_TYPE_CQ, cmd.cq_handle);
	if (!cq)
		return -ENOENT;
	if (!cq->device->ops.req_notify_cq)
		return -EOPNOTSUPP;

	/* A positive value only reports missed events, not asked for here. */
	ret = ib_req_notify_cq(cq, cmd.solicited_only ?
			       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
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
int ib_uverbs_poll_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_poll_cq_resp resp = {};
	struct ib_uverbs_poll_cq cmd;
	struct ib_uverbs_wc uwc;
	struct ib_wc wc;
	size_t room;
	u32 ne;
	int ret;

	struct ib_cq *cq;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	cq = uobj_get_obj(attrs, UVERBS_TYPE_CQ, cmd.cq_handle);
	if (!cq)
		return -ENOENT;
	if (!cq->device->ops.poll_cq)
		return -EOPNOTSUPP;
	if (attrs->ucore.outlen < sizeof(resp))
		return -ENOSPC;

	room = (attrs->ucore.outlen - sizeof(resp)) / sizeof(uwc);
	ne = min_t(size_t, cmd.ne, room);
	while (resp.count < ne) {
		ret = ib_poll_cq(cq, 1, &wc);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
		uverbs_wc_to_user(&uwc, &wc);
		ret = uverbs_copy_out(attrs, sizeof(resp) +
				      resp.count * sizeof(uwc),
				      &uwc, sizeof(uwc));
		if (ret)
			return ret;
		resp.count++;
	}
	return uverbs_copy_out(attrs, 0, &resp, sizeof(resp));
}

int ib_uverbs_destroy_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uobj_destroy_by_handle(attrs, UVERBS_TYPE_CQ, cmd.cq_handle,
				     &uobj);
	if (ret)
		return ret;
	/* Unread events were dropped by the destroy: these were all read. */
	ucq = container_of(uobj, struct ib_ucq_object, uevent.uobject);
	resp.comp_events_reported = ucq->comp_events_reported;
	resp.async_events_reported = ucq->uevent.events_reported;
	uobj_remove_commit(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ------------------------------------------------------------------ QP */

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

#define UVERBS_QP_CREATE_FLAGS_OK					\
	(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |			\
	 IB_QP_CREATE_CROSS_CHANNEL | IB_QP_CREATE_MANAGED_SEND |	\
	 IB_QP_CREATE_MANAGED_RECV | IB_QP_CREATE_SCATTER_FCS |		\
	 IB_QP_CREATE_CVLAN_STRIPPING | IB_QP_CREATE_SOURCE_QPN |	\
	 IB_QP_CREATE_PCI_WRITE_END_PADDING)

/* cmd is the ex layout; legacy CREATE_QP fills its common prefix. */
static int uverbs_create_qp(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_ex_create_qp *cmd,
			    bool is_ex)
{
	struct ib_device *ib_dev = attrs->context->device;
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_cq *scq = NULL, *rcq = NULL;
	struct ib_qp_init_attr init = {};
	struct ib_srq *srq = NULL;
	struct ib_uobject *uobj;
	struct uverbs_uqp *uqp;
	struct ib_pd *pd;
	struct ib_qp *qp;
	int ret;

	if (cmd->qp_type == IB_QPT_XRC_TGT)
		return -EOPNOTSUPP;	/* no XRC domains here */
	if (!uverbs_qp_type_ok(cmd->qp_type))
		return -EINVAL;
	if (cmd->qp_type == IB_QPT_RAW_PACKET && !capable(CAP_NET_RAW))
		return -EPERM;
	if (cmd->comp_mask & ~IB_UVERBS_CREATE_QP_SUP_COMP_MASK)
		return -EINVAL;
	if (cmd->comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE)
		return -EOPNOTSUPP;	/* no RSS indirection tables */
	if (cmd->create_flags & ~UVERBS_QP_CREATE_FLAGS_OK)
		return -EINVAL;
	if ((cmd->create_flags & IB_QP_CREATE_SOURCE_QPN) &&
	    !capable(CAP_NET_RAW))
		return -EPERM;
	if (!ib_dev->ops.create_qp)
		return -EOPNOTSUPP;

	pd = uobj_get_obj(attrs, UVERBS_TYPE_PD, cmd->pd_handle);
	scq = uobj_get_obj(attrs, UVERBS_TYPE_CQ, cmd->send_cq_handle);
	if (!pd || !scq)
		return -ENOENT;
	if (cmd->qp_type != IB_QPT_XRC_INI) {
		if (cmd->is_srq) {
			srq = uobj_get_obj(attrs, UVERBS_TYPE_SRQ,
					   cmd->srq_handle);
			if (!srq)
				return -ENOENT;
			if (srq->srq_type == IB_SRQT_XRC)
				return -EINVAL;
		}
		if (cmd->recv_cq_handle != cmd->send_cq_handle) {
			rcq = uobj_get_obj(attrs, UVERBS_TYPE_CQ,
					   cmd->recv_cq_handle);
			if (!rcq)
				return -ENOENT;
		} else {
			rcq = scq;
		}
	}

	uobj = uobj_alloc(attrs, UVERBS_TYPE_QP, sizeof(*uqp));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct uverbs_uqp, uqp.uevent.uobject);
	uobj->user_handle = cmd->user_handle;
	INIT_LIST_HEAD(&uqp->uqp.uevent.event_list);
	uverbs_uqp_init(uqp);

	init.event_handler = ib_uverbs_qp_event_handler;
	init.qp_context = attrs->ufile;
	init.send_cq = scq;
	init.recv_cq = rcq;
	init.srq = srq;
	init.sq_sig_type = cmd->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	init.qp_type = cmd->qp_type;
	init.create_flags = cmd->create_flags;
	init.source_qpn = cmd->source_qpn;
	init.cap.max_send_wr = cmd->max_send_wr;
	init.cap.max_send_sge = cmd->max_send_sge;
	init.cap.max_inline_data = cmd->max_inline_data;
	if (cmd->qp_type != IB_QPT_XRC_INI) {
		init.cap.max_recv_wr = cmd->max_recv_wr;
		init.cap.max_recv_sge = cmd->max_recv_sge;
	}

	qp = ib_create_qp_user(ib_dev, pd, &init, &attrs->driver_udata,
			       &uqp->uqp, KBUILD_MODNAME);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		goto err_uobj;
	}
	uobj->object = qp;
	uverbs_uevent_attach(attrs, &uqp->uqp.uevent);

	/* The driver wrote back the capabilities it actually provides. */
	resp.base.qp_handle = uobj->id;
	resp.base.qpn = qp->qp_num;
	resp.base.max_send_wr = init.cap.max_send_wr;
	resp.base.max_recv_wr = init.cap.max_recv_wr;
	resp.base.max_send_sge = init.cap.max_send_sge;
	resp.base.max_recv_sge = init.cap.max_recv_sge;
	resp.base.max_inline_data = init.cap.max_inline_data;
	if (is_ex) {
		resp.response_length = min_t(size_t, attrs->ucore.outlen,
					     sizeof(resp));
		ret = uverbs_response(attrs, &resp, sizeof(resp));
	} else {
		ret = uverbs_response(attrs, &resp.base, sizeof(resp.base));
	}
	if (ret)
		goto err_destroy;

	uobj_alloc_commit(uobj);
	return 0;

err_destroy:
	ib_destroy_qp_user(qp, &attrs->driver_udata);
	ib_uverbs_release_uevent(&uqp->uqp.uevent);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_create_qp(struct uverbs_attr_bundle *attrs)
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
	return uverbs_create_qp(attrs, &ex, false);
}

int ib_uverbs_ex_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.reserved)
		return -EINVAL;
	return uverbs_create_qp(attrs, &cmd, true);
}

/* Opening a shareable XRC target QP needs XRC domains, which we lack. */
int ib_uverbs_open_qp(struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

int ib_uverbs_query_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_qp_init_attr *init;
	struct ib_uverbs_query_qp cmd;
	struct ib_qp_attr *attr;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle);
	if (!qp)
		return -ENOENT;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!attr || !init) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ib_query_qp(qp, attr, cmd.attr_mask, init);
	if (ret)
		goto out;

	uverbs_ah_attr_to_qp_dest(&resp.dest, &attr->ah_attr);
	uverbs_ah_attr_to_qp_dest(&resp.alt_dest, &attr->alt_ah_attr);
	resp.max_send_wr = init->cap.max_send_wr;
	resp.max_recv_wr = init->cap.max_recv_wr;
	resp.max_send_sge = init->cap.max_send_sge;
	resp.max_recv_sge = init->cap.max_recv_sge;
	resp.max_inline_data = init->cap.max_inline_data;
	resp.qkey = attr->qkey;
	resp.rq_psn = attr->rq_psn;
	resp.sq_psn = attr->sq_psn;
	resp.dest_qp_num = attr->dest_qp_num;
	resp.qp_access_flags = attr->qp_access_flags;
	resp.pkey_index = attr->pkey_index;
	resp.alt_pkey_index = attr->alt_pkey_index;
	resp.qp_state = attr->qp_state;
	resp.cur_qp_state = attr->cur_qp_state;
	resp.path_mtu = attr->path_mtu;
	resp.path_mig_state = attr->path_mig_state;
	resp.sq_draining = attr->sq_draining;
	resp.max_rd_atomic = attr->max_rd_atomic;
	resp.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp.min_rnr_timer = attr->min_rnr_timer;
	resp.port_num = attr->port_num;
	resp.timeout = attr->timeout;
	resp.retry_cnt = attr->retry_cnt;
	resp.rnr_retry = attr->rnr_retry;
	resp.alt_port_num = attr->alt_port_num;
	resp.alt_timeout = attr->alt_timeout;
	resp.sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;

	ret = uverbs_response(attrs, &resp, sizeof(resp));
out:
	kfree(init);
	kfree(attr);
	return ret;
}

/* XRC QPs have no use for some attributes IBA otherwise requires. */
static int uverbs_modify_qp_mask(enum ib_qp_type qp_type, int mask)
{
	switch (qp_type) {
	case IB_QPT_XRC_INI:
		return mask & ~(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	case IB_QPT_XRC_TGT:
		return mask & ~(IB_QP_MAX_QP_RD_ATOMIC | IB_QP_RETRY_CNT |
				IB_QP_RNR_RETRY);
	default:
		return mask;
	}
}

static int uverbs_modify_qp(struct uverbs_attr_bundle *attrs,
			    struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ib_uverbs_modify_qp *base = &cmd->base;
	struct ib_qp_attr *attr;
	struct ib_device *dev;
	struct ib_qp *qp;
	u32 mask;
	int ret;

	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, base->qp_handle);
	if (!qp)
		return -ENOENT;
	dev = qp->device;
	mask = base->attr_mask;

	if ((mask & IB_QP_STATE) && base->qp_state > IB_QPS_ERR)
		return -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && base->cur_qp_state > IB_QPS_ERR)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && !rdma_is_port_valid(dev, base->port_num))
		return -EINVAL;

	if (mask & IB_QP_AV) {
		if (!rdma_is_port_valid(dev, base->dest.port_num))
			return -EINVAL;
		if ((mask & IB_QP_STATE) && base->qp_state == IB_QPS_RTR) {
			/*
			 * INIT->RTR cannot change the port: the AV must use
			 * the one chosen at RESET->INIT.
			 */
			if (qp->port && base->dest.port_num != qp->port)
				return -EINVAL;
		} else if (mask & IB_QP_PORT) {
			if (base->port_num != base->dest.port_num)
				return -EINVAL;
		} else {
			/* A new primary AV (SQD->SQD) implies its port. */
			mask |= IB_QP_PORT;
			base->port_num = base->dest.port_num;
		}
	}
	if ((mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(dev, base->alt_port_num) ||
	     base->alt_port_num != base->alt_dest.port_num))
		return -EINVAL;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;

	if (mask & IB_QP_STATE)
		attr->qp_state = base->qp_state;
	if (mask & IB_QP_CUR_STATE)
		attr->cur_qp_state = base->cur_qp_state;
	if (mask & IB_QP_PATH_MTU)
		attr->path_mtu = base->path_mtu;
	if (mask & IB_QP_PATH_MIG_STATE)
		attr->path_mig_state = base->path_mig_state;
	if (mask & IB_QP_QKEY)
		attr->qkey = base->qkey;
	if (mask & IB_QP_RQ_PSN)
		attr->rq_psn = base->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		attr->sq_psn = base->sq_psn;
	if (mask & IB_QP_DEST_QPN)
		attr->dest_qp_num = base->dest_qp_num;
	if (mask & IB_QP_ACCESS_FLAGS)
		attr->qp_access_flags = base->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		attr->pkey_index = base->pkey_index;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		attr->en_sqd_async_notify = base->en_sqd_async_notify;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		attr->max_rd_atomic = base->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		attr->max_dest_rd_atomic = base->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		attr->min_rnr_timer = base->min_rnr_timer;
	if (mask & IB_QP_PORT)
		attr->port_num = base->port_num;
	if (mask & IB_QP_TIMEOUT)
		attr->timeout = base->timeout;
	if (mask & IB_QP_RETRY_CNT)
		attr->retry_cnt = base->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		attr->rnr_retry = base->rnr_retry;
	if (mask & IB_QP_ALT_PATH) {
		attr->alt_port_num = base->alt_port_num;
		attr->alt_timeout = base->alt_timeout;
		attr->alt_pkey_index = base->alt_pkey_index;
		uverbs_qp_dest_to_ah_attr(dev, &attr->alt_ah_attr,
					  &base->alt_dest);
	}
	if (mask & IB_QP_AV)
		uverbs_qp_dest_to_ah_attr(dev, &attr->ah_attr, &base->dest);
	if (mask & IB_QP_RATE_LIMIT)
		attr->rate_limit = cmd->rate_limit;

	ret = ib_modify_qp_with_udata(qp, attr,
				      uverbs_modify_qp_mask(qp->qp_type, mask),
				      &attrs->driver_udata);
	kfree(attr);
	return ret;
}

int ib_uverbs_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret;

	ret = uverbs_request(attrs, &cmd.base, sizeof(cmd.base));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UVERBS_LEGACY_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	return uverbs_modify_qp(attrs, &cmd);
}

int ib_uverbs_ex_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UVERBS_EX_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	ret = uverbs_modify_qp(attrs, &cmd);
	if (ret)
		return ret;
	if (!attrs->ucore.outlen)
		return 0;
	resp.response_length = min_t(size_t, attrs->ucore.outlen,
				     sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/*
 * Destroys a QP or SRQ by handle; *events_reported gets the async events
 * userspace has read for it, which libibverbs waits to have acked.
 */
static int uverbs_destroy_uevent_obj(struct uverbs_attr_bundle *attrs,
				     enum uverbs_type type, u32 handle,
				     u32 *events_reported)
{
	struct ib_uevent_object *uevent;
	struct ib_uobject *uobj;
	int ret;

	ret = uobj_destroy_by_handle(attrs, type, handle, &uobj);
	if (ret)
		return ret;
	uevent = container_of(uobj, struct ib_uevent_object, uobject);
	*events_reported = uevent->events_reported;
	uobj_remove_commit(uobj);
	return 0;
}

int ib_uverbs_destroy_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_destroy_uevent_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle,
					&resp.events_reported);
	if (ret)
		return ret;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ----------------------------------------------------- posting via write */

/*
 * Layout after the 24-byte post command: wr_count WRs of wqe_size bytes,
 * then sge_count SGEs (16 bytes each) consumed by the WRs in order.
 * Returns the byte offset (within the core request) of the SGE array.
 */
static int uverbs_post_layout(struct uverbs_attr_bundle *attrs, size_t hdr,
			      u32 wr_count, u32 sge_count, u32 wqe_size,
			      size_t min_wqe, size_t *sge_off)
{
	size_t wrs, sges, total;

	if (wqe_size < min_wqe)
		return -EINVAL;
	if (check_mul_overflow((size_t)wr_count, (size_t)wqe_size, &wrs) ||
	    check_mul_overflow((size_t)sge_count,
			       sizeof(struct ib_uverbs_sge), &sges) ||
	    check_add_overflow(hdr, wrs, &total) ||
	    check_add_overflow(total, sges, &total) ||
	    total > attrs->ucore.inlen)
		return -EINVAL;
	*sge_off = hdr + wrs;
	return 0;
}

static int uverbs_copy_sges(struct uverbs_attr_bundle *attrs,
			    size_t sge_off, u32 first, u32 num,
			    struct ib_sge *sg)
{
	struct ib_uverbs_sge usge;
	u32 i;
	int ret;

	for (i = 0; i < num; i++) {
		ret = uverbs_copy_in(attrs, sge_off +
				     (size_t)(first + i) * sizeof(usge),
				     &usge, sizeof(usge));
		if (ret)
			return ret;
		sg[i].addr = usge.addr;
		sg[i].length = usge.length;
		sg[i].lkey = usge.lkey;
	}
	return 0;
}

static void uverbs_free_send_wrs(struct ib_send_wr *wr)
{
	struct ib_send_wr *next;

	while (wr) {
		next = wr->next;
		kfree(wr);
		wr = next;
	}
}

/*
 * One user send WR as the kernel WR of its opcode (rdma/atomic/ud),
 * with the SGE array placed after it in the same allocation.
 */
static struct ib_send_wr *
uverbs_build_send_wr(struct uverbs_attr_bundle *attrs, struct ib_qp *qp,
		     const struct ib_uverbs_send_wr *uwr, size_t sge_off,
		     u32 sge_first)
{
	struct ib_send_wr *wr;
	size_t size, wr_size;
	int ret;

	if (qp->qp_type == IB_QPT_UD) {
		if (uwr->opcode != IB_WR_SEND &&
		    uwr->opcode != IB_WR_SEND_WITH_IMM)
			return ERR_PTR(-EINVAL);
		wr_size = sizeof(struct ib_ud_wr);
	} else {
		switch (uwr->opcode) {
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
		case IB_WR_RDMA_READ:
			wr_size = sizeof(struct ib_rdma_wr);
			break;
		case IB_WR_ATOMIC_CMP_AND_SWP:
		case IB_WR_ATOMIC_FETCH_AND_ADD:
			wr_size = sizeof(struct ib_atomic_wr);
			break;
		case IB_WR_SEND:
		case IB_WR_SEND_WITH_IMM:
		case IB_WR_SEND_WITH_INV:
			wr_size = sizeof(struct ib_send_wr);
			break;
		default:
			return ERR_PTR(-EINVAL);
		}
	}

	size = ALIGN(wr_size, sizeof(struct ib_sge)) +
	       (size_t)uwr->num_sge * sizeof(struct ib_sge);
	wr = kzalloc(size, GFP_KERNEL);
	if (!wr)
		return ERR_PTR(-ENOMEM);

	if (qp->qp_type == IB_QPT_UD) {
		struct ib_ud_wr *ud = container_of(wr, struct ib_ud_wr, wr);

		ud->ah = uobj_get_obj(attrs, UVERBS_TYPE_AH, uwr->wr.ud.ah);
		if (!ud->ah) {
			ret = -ENOENT;
			goto err;
		}
		ud->remote_qpn = uwr->wr.ud.remote_qpn;
		ud->remote_qkey = uwr->wr.ud.remote_qkey;
	} else if (wr_size == sizeof(struct ib_rdma_wr)) {
		struct ib_rdma_wr *rdma = container_of(wr, struct ib_rdma_wr,
						       wr);

		rdma->remote_addr = uwr->wr.rdma.remote_addr;
		rdma->rkey = uwr->wr.rdma.rkey;
	} else if (wr_size == sizeof(struct ib_atomic_wr)) {
		struct ib_atomic_wr *atomic =
			container_of(wr, struct ib_atomic_wr, wr);

		atomic->remote_addr = uwr->wr.atomic.remote_addr;
		atomic->compare_add = uwr->wr.atomic.compare_add;
		atomic->swap = uwr->wr.atomic.swap;
		atomic->rkey = uwr->wr.atomic.rkey;
	}

	wr->wr_id = uwr->wr_id;
	wr->opcode = uwr->opcode;
	wr->send_flags = uwr->send_flags;
	if (uwr->opcode == IB_WR_SEND_WITH_IMM ||
	    uwr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wr->ex.imm_data = uwr->ex.imm_data;
	else if (uwr->opcode == IB_WR_SEND_WITH_INV)
		wr->ex.invalidate_rkey = uwr->ex.invalidate_rkey;

	wr->num_sge = uwr->num_sge;
	if (uwr->num_sge) {
		wr->sg_list = (void *)wr + ALIGN(wr_size,
						 sizeof(struct ib_sge));
		ret = uverbs_copy_sges(attrs, sge_off, sge_first,
				       uwr->num_sge, wr->sg_list);
		if (ret)
			goto err;
	}
	return wr;
err:
	kfree(wr);
	return ERR_PTR(ret);
}

/*
 * Also the doorbell of drivers with user-mapped send queues (rxe, siw):
 * wr_count 0 hands the driver an empty list, which tells it to look at
 * the queue userspace filled.
 */
int ib_uverbs_post_send(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_post_send_resp resp = {};
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *wr = NULL, **tail = &wr, *next;
	struct ib_uverbs_send_wr *uwr = NULL;
	struct ib_uverbs_post_send cmd;
	size_t sge_off;
	u32 i, sg_ind = 0;
	struct ib_qp *qp;
	int ret, ret2;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_post_layout(attrs, sizeof(cmd), cmd.wr_count,
				 cmd.sge_count, cmd.wqe_size,
				 sizeof(struct ib_uverbs_send_wr), &sge_off);
	if (ret)
		return ret;
	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle);
	if (!qp)
		return -ENOENT;
	if (!qp->device->ops.post_send)
		return -EOPNOTSUPP;

	if (cmd.wr_count) {
		uwr = kmalloc(sizeof(*uwr), GFP_KERNEL);
		if (!uwr)
			return -ENOMEM;
	}
	for (i = 0; i < cmd.wr_count; i++) {
		/* Bytes of a larger wqe_size beyond what we know are ignored. */
		ret = uverbs_copy_in(attrs, sizeof(cmd) +
				     (size_t)i * cmd.wqe_size,
				     uwr, sizeof(*uwr));
		if (ret)
			goto out;
		if (uwr->num_sge > cmd.sge_count - sg_ind) {
			ret = -EINVAL;
			goto out;
		}
		next = uverbs_build_send_wr(attrs, qp, uwr, sge_off, sg_ind);
		if (IS_ERR(next)) {
			ret = PTR_ERR(next);
			goto out;
		}
		sg_ind += uwr->num_sge;
		*tail = next;
		tail = &next->next;
	}

	ret = qp->device->ops.post_send(qp, wr, &bad_wr);
	if (ret) {
		/* 1-based index of the WR that failed; 0 if none was. */
		for (next = wr; next; next = next->next) {
			resp.bad_wr++;
			if (next == bad_wr)
				break;
		}
	}
	ret2 = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret2 && !ret)
		ret = ret2;
out:
	uverbs_free_send_wrs(wr);
	kfree(uwr);
	return ret;
}

static void uverbs_free_recv_wrs(struct ib_recv_wr *wr)
{
	struct ib_recv_wr *next;

	while (wr) {
		next = wr->next;
		kfree(wr);
		wr = next;
	}
}

/* POST_RECV and POST_SRQ_RECV share the request layout. */
static struct ib_recv_wr *
uverbs_build_recv_wrs(struct uverbs_attr_bundle *attrs,
		      const struct ib_uverbs_post_recv *cmd)
{
	struct ib_recv_wr *list = NULL, **tail = &list, *wr;
	struct ib_uverbs_recv_wr uwr;
	u32 i, sg_ind = 0;
	size_t sge_off;
	int ret;

	ret = uverbs_post_layout(attrs, sizeof(*cmd), cmd->wr_count,
				 cmd->sge_count, cmd->wqe_size, sizeof(uwr),
				 &sge_off);
	if (ret)
		return ERR_PTR(ret);

	for (i = 0; i < cmd->wr_count; i++) {
		ret = uverbs_copy_in(attrs, sizeof(*cmd) +
				     (size_t)i * cmd->wqe_size,
				     &uwr, sizeof(uwr));
		if (ret)
			goto err;
		if (uwr.num_sge > cmd->sge_count - sg_ind) {
			ret = -EINVAL;
			goto err;
		}
		wr = kzalloc(ALIGN(sizeof(*wr), sizeof(struct ib_sge)) +
			     (size_t)uwr.num_sge * sizeof(struct ib_sge),
			     GFP_KERNEL);
		if (!wr) {
			ret = -ENOMEM;
			goto err;
		}
		*tail = wr;
		tail = &wr->next;

		wr->wr_id = uwr.wr_id;
		wr->num_sge = uwr.num_sge;
		if (uwr.num_sge) {
			wr->sg_list = (void *)wr +
				ALIGN(sizeof(*wr), sizeof(struct ib_sge));
			ret = uverbs_copy_sges(attrs, sge_off, sg_ind,
					       uwr.num_sge, wr->sg_list);
			if (ret)
				goto err;
		}
		sg_ind += uwr.num_sge;
	}
	return list;
err:
	uverbs_free_recv_wrs(list);
	return ERR_PTR(ret);
}

static u32 uverbs_bad_recv_index(const struct ib_recv_wr *list,
				 const struct ib_recv_wr *bad)
{
	u32 n = 0;

	for (; list; list = list->next) {
		n++;
		if (list == bad)
			break;
	}
	return n;
}

int ib_uverbs_post_recv(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_post_recv_resp resp = {};
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_uverbs_post_recv cmd;
	struct ib_recv_wr *wr;
	struct ib_qp *qp;
	int ret, ret2;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle);
	if (!qp)
		return -ENOENT;
	if (!qp->device->ops.post_recv)
		return -EOPNOTSUPP;

	wr = uverbs_build_recv_wrs(attrs, &cmd);
	if (IS_ERR(wr))
		return PTR_ERR(wr);
	ret = qp->device->ops.post_recv(qp, wr, &bad_wr);
	if (ret)
		resp.bad_wr = uverbs_bad_recv_index(wr, bad_wr);
	ret2 = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret2 && !ret)
		ret = ret2;
	uverbs_free_recv_wrs(wr);
	return ret;
}

int ib_uverbs_post_srq_recv(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_post_srq_recv_resp resp = {};
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_uverbs_post_srq_recv cmd;
	struct ib_uverbs_post_recv layout;
	struct ib_recv_wr *wr;
	struct ib_srq *srq;
	int ret, ret2;

	BUILD_BUG_ON(sizeof(cmd) != sizeof(layout));
	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	srq = uobj_get_obj(attrs, UVERBS_TYPE_SRQ, cmd.srq_handle);
	if (!srq)
		return -ENOENT;
	if (!srq->device->ops.post_srq_recv)
		return -EOPNOTSUPP;

	layout.response = cmd.response;
	layout.qp_handle = cmd.srq_handle;
	layout.wr_count = cmd.wr_count;
	layout.sge_count = cmd.sge_count;
	layout.wqe_size = cmd.wqe_size;
	wr = uverbs_build_recv_wrs(attrs, &layout);
	if (IS_ERR(wr))
		return PTR_ERR(wr);
	ret = srq->device->ops.post_srq_recv(srq, wr, &bad_wr);
	if (ret)
		resp.bad_wr = uverbs_bad_recv_index(wr, bad_wr);
	ret2 = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret2 && !ret)
		ret = ret2;
	uverbs_free_recv_wrs(wr);
	return ret;
}

/* ----------------------------------------------------------------- SRQ */

static int uverbs_create_srq(struct uverbs_attr_bundle *attrs,
			     const struct ib_uverbs_create_xsrq *cmd)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_srq_init_attr init = {};
	struct ib_usrq_object *usrq;
	struct ib_uobject *uobj;
	struct ib_srq *srq;
	struct ib_pd *pd;
	int ret;

	/* Only basic SRQs: XRC needs XRC domains, TM a driver that has it. */
	if (cmd->srq_type == IB_SRQT_XRC || cmd->srq_type == IB_SRQT_TM)
		return -EOPNOTSUPP;
	if (cmd->srq_type != IB_SRQT_BASIC)
		return -EINVAL;
	if (!attrs->context->device->ops.create_srq)
		return -EOPNOTSUPP;

	pd = uobj_get_obj(attrs, UVERBS_TYPE_PD, cmd->pd_handle);
	if (!pd)
		return -ENOENT;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_SRQ, sizeof(*usrq));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	usrq = container_of(uobj, struct ib_usrq_object, uevent.uobject);
	uobj->user_handle = cmd->user_handle;
	INIT_LIST_HEAD(&usrq->uevent.event_list);

	init.event_handler = ib_uverbs_srq_event_handler;
	init.srq_context = attrs->ufile;
	init.srq_type = IB_SRQT_BASIC;
	init.attr.max_wr = cmd->max_wr;
	init.attr.max_sge = cmd->max_sge;
	init.attr.srq_limit = cmd->srq_limit;

	srq = ib_create_srq_user(pd, &init, usrq, &attrs->driver_udata);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		goto err_uobj;
	}
	uobj->object = srq;
	uverbs_uevent_attach(attrs, &usrq->uevent);

	resp.srq_handle = uobj->id;
	resp.max_wr = init.attr.max_wr;
	resp.max_sge = init.attr.max_sge;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_destroy;

	uobj_alloc_commit(uobj);
	return 0;

err_destroy:
	ib_destroy_srq_user(srq, &attrs->driver_udata);
	ib_uverbs_release_uevent(&usrq->uevent);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_create_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_xsrq xcmd = {};
	struct ib_uverbs_create_srq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	xcmd.response = cmd.response;
	xcmd.user_handle = cmd.user_handle;
	xcmd.srq_type = IB_SRQT_BASIC;
	xcmd.pd_handle = cmd.pd_handle;
	xcmd.max_wr = cmd.max_wr;
	xcmd.max_sge = cmd.max_sge;
	xcmd.srq_limit = cmd.srq_limit;
	return uverbs_create_srq(attrs, &xcmd);
}

int ib_uverbs_create_xsrq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_xsrq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uverbs_create_srq(attrs, &cmd);
}

int ib_uverbs_modify_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_srq *srq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	srq = uobj_get_obj(attrs, UVERBS_TYPE_SRQ, cmd.srq_handle);
	if (!srq)
		return -ENOENT;
	if (!srq->device->ops.modify_srq)
		return -EOPNOTSUPP;

	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	/* Direct call: rxe reads its resize request from driver udata. */
	return srq->device->ops.modify_srq(srq, &attr, cmd.attr_mask,
					   &attrs->driver_udata);
}

int ib_uverbs_query_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_srq *srq;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	srq = uobj_get_obj(attrs, UVERBS_TYPE_SRQ, cmd.srq_handle);
	if (!srq)
		return -ENOENT;
	ret = ib_query_srq(srq, &attr);
	if (ret)
		return ret;
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_destroy_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_destroy_uevent_obj(attrs, UVERBS_TYPE_SRQ,
					cmd.srq_handle, &resp.events_reported);
	if (ret)
		return ret;
	return uverbs_response(attrs, &resp, sizeof(resp));
}
