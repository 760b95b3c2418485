// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a QP does after creation, write() only in rdma-core 44: QUERY_QP,
 * MODIFY_QP and its extended form, ATTACH/DETACH_MCAST, and OPEN_QP (XRC
 * target QPs, which need the XRC domains we lack).
 */
#include <linux/slab.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* Legacy MODIFY_QP knows attribute bits up to DEST_QPN, ex up to RATE_LIMIT. */
#define UVERBS_LEGACY_QP_ATTR_MASK	(((u32)IB_QP_DEST_QPN << 1) - 1)
#define UVERBS_EX_QP_ATTR_MASK		(((u32)IB_QP_RATE_LIMIT << 1) - 1)

static int uverbs_open_qp(struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

static void uverbs_fill_query_qp(struct ib_uverbs_query_qp_resp *resp,
				 const struct ib_qp_attr *attr,
				 const struct ib_qp_init_attr *init)
{
	uverbs_ah_attr_to_qp_dest(&resp->dest, &attr->ah_attr);
	uverbs_ah_attr_to_qp_dest(&resp->alt_dest, &attr->alt_ah_attr);
	resp->max_send_wr = init->cap.max_send_wr;
	resp->max_recv_wr = init->cap.max_recv_wr;
	resp->max_send_sge = init->cap.max_send_sge;
	resp->max_recv_sge = init->cap.max_recv_sge;
	resp->max_inline_data = init->cap.max_inline_data;
	resp->qkey = attr->qkey;
	resp->rq_psn = attr->rq_psn;
	resp->sq_psn = attr->sq_psn;
	resp->dest_qp_num = attr->dest_qp_num;
	resp->qp_access_flags = attr->qp_access_flags;
	resp->pkey_index = attr->pkey_index;
	resp->alt_pkey_index = attr->alt_pkey_index;
	resp->qp_state = attr->qp_state;
	resp->cur_qp_state = attr->cur_qp_state;
	resp->path_mtu = attr->path_mtu;
	resp->path_mig_state = attr->path_mig_state;
	resp->sq_draining = attr->sq_draining;
	resp->max_rd_atomic = attr->max_rd_atomic;
	resp->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp->min_rnr_timer = attr->min_rnr_timer;
	resp->port_num = attr->port_num;
	resp->timeout = attr->timeout;
	resp->retry_cnt = attr->retry_cnt;
	resp->rnr_retry = attr->rnr_retry;
	resp->alt_port_num = attr->alt_port_num;
	resp->alt_timeout = attr->alt_timeout;
	resp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
}

static int uverbs_query_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_qp_resp resp = {};
	struct ib_qp_init_attr *init;
	struct ib_uverbs_query_qp cmd;
	struct ib_qp_attr *attr;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	int ret;

	qp = uverbs_cmd_obj(attrs, cmd, qp_handle, UVERBS_OBJECT_QP, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	init = kzalloc(sizeof(*init), GFP_KERNEL);
	if (!attr || !init) {
		ret = -ENOMEM;
		goto out;
	}
	ret = ib_query_qp(qp, attr, cmd.attr_mask, init);
	if (ret)
		goto out;
	uverbs_fill_query_qp(&resp, attr, init);
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out:
	kfree(init);
	kfree(attr);
	uobj_put_read(uobj);
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

/*
 * The port rules of an address vector change; 0 or -EINVAL. Updates
 * *mask and the request's port when a new primary AV implies its port.
 */
static int uverbs_check_qp_ports(struct ib_qp *qp,
				 struct ib_uverbs_modify_qp *base, u32 *mask)
{
	struct ib_device *dev = qp->device;

	if ((*mask & IB_QP_PORT) && !rdma_is_port_valid(dev, base->port_num))
		return -EINVAL;
	if (*mask & IB_QP_AV) {
		if (!rdma_is_port_valid(dev, base->dest.port_num))
			return -EINVAL;
		if ((*mask & IB_QP_STATE) && base->qp_state == IB_QPS_RTR) {
			/*
			 * INIT->RTR cannot change the port: the AV must use
			 * the one chosen at RESET->INIT.
			 */
			if (qp->port && base->dest.port_num != qp->port)
				return -EINVAL;
		} else if (*mask & IB_QP_PORT) {
			if (base->port_num != base->dest.port_num)
				return -EINVAL;
		} else {
			/* A new primary AV (SQD->SQD) implies its port. */
			*mask |= IB_QP_PORT;
			base->port_num = base->dest.port_num;
		}
	}
	if ((*mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(dev, base->alt_port_num) ||
	     base->alt_port_num != base->alt_dest.port_num))
		return -EINVAL;
	return 0;
}

static void uverbs_fill_qp_attr(struct ib_device *dev, struct ib_qp_attr *attr,
				const struct ib_uverbs_ex_modify_qp *cmd,
				u32 mask)
{
	const struct ib_uverbs_modify_qp *base = &cmd->base;

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
}

static int uverbs_do_modify_qp(struct uverbs_attr_bundle *attrs,
			       struct ib_uverbs_ex_modify_qp *cmd)
{
	struct ib_uverbs_modify_qp *base = &cmd->base;
	struct ib_qp_attr *attr = NULL;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	u32 mask = base->attr_mask;
	int ret;

	qp = uverbs_get_obj(attrs, UVERBS_OBJECT_QP, base->qp_handle, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = -EINVAL;
	if ((mask & IB_QP_STATE) && base->qp_state > IB_QPS_ERR)
		goto out;
	if ((mask & IB_QP_CUR_STATE) && base->cur_qp_state > IB_QPS_ERR)
		goto out;
	ret = uverbs_check_qp_ports(qp, base, &mask);
	if (ret)
		goto out;

	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr) {
		ret = -ENOMEM;
		goto out;
	}
	uverbs_fill_qp_attr(qp->device, attr, cmd, mask);
	ret = ib_modify_qp_with_udata(qp, attr,
				      uverbs_modify_qp_mask(qp->qp_type, mask),
				      &attrs->driver_udata);
out:
	kfree(attr);
	uobj_put_read(uobj);
	return ret;
}

static int uverbs_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int ret;

	ret = uverbs_request(attrs, &cmd.base, sizeof(cmd.base));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UVERBS_LEGACY_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	return uverbs_do_modify_qp(attrs, &cmd);
}

static int uverbs_ex_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.base.attr_mask & ~UVERBS_EX_QP_ATTR_MASK)
		return -EOPNOTSUPP;
	ret = uverbs_do_modify_qp(attrs, &cmd);
	if (ret)
		return ret;
	if (!attrs->ucore.outlen)
		return 0;
	resp.response_length = min_t(size_t, attrs->ucore.outlen,
				     sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ------------------------------------------------------------ multicast */

/*
 * Attachments are remembered on the QP's uobject so that close can detach
 * them; attaching twice to the same group is a successful no-op. Both
 * commands share the request layout.
 */
static int uverbs_mcast(struct uverbs_attr_bundle *attrs, bool attach)
{
	struct uverbs_mcast_entry *mcast, *found = NULL;
	struct ib_uverbs_attach_mcast cmd;
	struct ib_uobject *uobj;
	struct uverbs_uqp *u;
	struct ib_qp *qp;
	int ret;

	BUILD_BUG_ON(sizeof(cmd) != sizeof(struct ib_uverbs_detach_mcast));
	qp = uverbs_cmd_obj(attrs, cmd, qp_handle, UVERBS_OBJECT_QP, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	u = to_uverbs_uqp(qp->uobject);

	mutex_lock(&u->mcast_lock);
	list_for_each_entry(mcast, &u->mcast_list, list) {
		if (mcast->lid == cmd.mlid &&
		    !memcmp(mcast->gid.raw, cmd.gid, sizeof(cmd.gid))) {
			found = mcast;
			break;
		}
	}
	if (!attach) {
		ret = -EINVAL;
		if (found) {
			ret = ib_detach_mcast(qp, &found->gid, found->lid);
			if (!ret) {
				list_del(&found->list);
				kfree(found);
			}
		}
	} else if (!found) {
		mcast = kmalloc(sizeof(*mcast), GFP_KERNEL);
		ret = -ENOMEM;
		if (mcast) {
			mcast->lid = cmd.mlid;
			memcpy(mcast->gid.raw, cmd.gid, sizeof(mcast->gid.raw));
			ret = ib_attach_mcast(qp, &mcast->gid, cmd.mlid);
			if (ret)
				kfree(mcast);
			else
				list_add_tail(&mcast->list, &u->mcast_list);
		}
	}
	mutex_unlock(&u->mcast_lock);
	uobj_put_read(uobj);
	return ret;
}

static int uverbs_attach_mcast(struct uverbs_attr_bundle *attrs)
{
	return uverbs_mcast(attrs, true);
}

static int uverbs_detach_mcast(struct uverbs_attr_bundle *attrs)
{
	return uverbs_mcast(attrs, false);
}

const struct uapi_definition uverbs_def_qp_attr[] = {
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_QP,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_QUERY_QP,
				     uverbs_query_qp,
				     UAPI_WRITE_IO(query_qp, query_qp_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_MODIFY_QP,
				     uverbs_modify_qp,
				     UAPI_WRITE_UDATA_REQ(modify_qp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_OPEN_QP,
				     uverbs_open_qp,
				     UAPI_WRITE_UDATA_IO(open_qp, create_qp_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_ATTACH_MCAST,
				     uverbs_attach_mcast,
				     UAPI_WRITE_REQ(attach_mcast),
				     UAPI_DEF_METHOD_NEEDS_FN(attach_mcast)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DETACH_MCAST,
				     uverbs_detach_mcast,
				     UAPI_WRITE_REQ(detach_mcast),
				     UAPI_DEF_METHOD_NEEDS_FN(detach_mcast)),
		DECLARE_UVERBS_WRITE_EX(IB_USER_VERBS_EX_CMD_MODIFY_QP,
					uverbs_ex_modify_qp,
					UAPI_WRITE_EX(offsetofend(struct ib_uverbs_ex_modify_qp,
								  base),
						      offsetofend(struct ib_uverbs_ex_modify_qp_resp,
								  response_length)))),
	{},
};
