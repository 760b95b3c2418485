// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `rdma resource show <object>`: the NLDEV RES_{QP,CM_ID,CQ,MR,PD,CTX,SRQ}_GET
 * doits and dumps, one entry per object restrack.c tracks on the device.
 *
 * A dump lists the table in id order and resumes after the last id it sent
 * (cb->args[0]), so objects created or destroyed between the parts neither
 * repeat nor shift the others. Each object is reported under a reference
 * taken in the table (rdma_restrack_next), which its destroy waits for.
 */
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "core_priv.h"
#include "cma_priv.h"

struct nldev_res_type {
	enum rdma_restrack_type type;
	u32 table_attr;
	u32 entry_attr;
	u32 id_attr;		/* selects one object in a doit */
	bool per_port;		/* QP, CM_ID: requests name a port */
	int (*fill)(struct sk_buff *msg, struct rdma_restrack_entry *res,
		    bool admin);
	u32 (*port)(struct rdma_restrack_entry *res);
};

/* 0 when the object is not (yet) bound to a port. */
static u32 res_qp_port(struct rdma_restrack_entry *res)
{
	return container_of(res, struct ib_qp, res)->port;
}

static u32 res_cm_id_port(struct rdma_restrack_entry *res)
{
	return container_of(res, struct rdma_id_private, res)->id.port_num;
}

static u32 res_ctxn(struct ib_uobject *uobj)
{
	return uobj->context->res.id;
}

static bool qp_is_connected(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC;
}

static int fill_res_qp(struct sk_buff *msg, struct rdma_restrack_entry *res,
		       bool admin)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr = {};
	int err;

	err = ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_PATH_MIG_STATE |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN | IB_QP_SQ_PSN, &init);
	if (err)
		return err;

	if (qp->port && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, qp->port))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num))
		return -EMSGSIZE;
	if (qp_is_connected(qp->qp_type) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, attr.dest_qp_num) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, attr.rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, attr.sq_psn))
		return -EMSGSIZE;
	if (qp_is_connected(qp->qp_type) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
		       attr.path_mig_state))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, attr.qp_state))
		return -EMSGSIZE;
	if (res->user && qp->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->res.id))
		return -EMSGSIZE;
	return 0;
}

/* Addresses go out whole, as the sockaddr_storage userspace decodes. */
static int put_sockaddr(struct sk_buff *msg, u32 attr,
			const struct sockaddr_storage *addr)
{
	if (!addr->ss_family)
		return 0;
	return nla_put(msg, attr, sizeof(struct __kernel_sockaddr_storage),
		       addr);
}

static int fill_res_cm_id(struct sk_buff *msg,
			  struct rdma_restrack_entry *res, bool admin)
{
	struct rdma_id_private *id_priv =
		container_of(res, struct rdma_id_private, res);
	struct rdma_cm_id *id = &id_priv->id;

	if (id->port_num &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, id->port_num))
		return -EMSGSIZE;
	if (id_priv->qp_num &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, id_priv->qp_num) ||
	     nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, id->qp_type)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PS, id->ps) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE,
		       READ_ONCE(id_priv->state)))
		return -EMSGSIZE;
	if (put_sockaddr(msg, RDMA_NLDEV_ATTR_RES_SRC_ADDR,
			 &id->route.addr.src_addr))
		return -EMSGSIZE;
	if (id->route.addr.dst_addr.ss_family) {
		if (put_sockaddr(msg, RDMA_NLDEV_ATTR_RES_DST_ADDR,
				 &id->route.addr.dst_addr))
			return -EMSGSIZE;
	} else if (id->route.addr.src_addr.ss_family && id_priv->cma_dev) {
		/*
		 * No peer (a listener, an id bound to this device): the any
		 * address of the source's family. A wildcard listener's
		 * per-device entry (cma.c's shadow) has none, as upstream's.
		 */
		struct sockaddr_storage any = {
			.ss_family = id->route.addr.src_addr.ss_family };

		if (put_sockaddr(msg, RDMA_NLDEV_ATTR_RES_DST_ADDR, &any))
			return -EMSGSIZE;
	}
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CM_IDN, res->id))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_cq(struct sk_buff *msg, struct rdma_restrack_entry *res,
		       bool admin)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&cq->usecnt), RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	/* Only kernel CQs are polled by the core. */
	if (!res->user &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_POLL_CTX, cq->poll_ctx))
		return -EMSGSIZE;
	/* No adaptive interrupt moderation here: always off. */
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, 0) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, res->id))
		return -EMSGSIZE;
	if (res->user && cq->uobject &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN,
			res_ctxn(&cq->uobject->uevent.uobject)))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_mr(struct sk_buff *msg, struct rdma_restrack_entry *res,
		       bool admin)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	/* Keys grant access to memory: only for CAP_NET_ADMIN. */
	if (admin &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id))
		return -EMSGSIZE;
	if (res->user && mr->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->res.id))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_pd(struct sk_buff *msg, struct rdma_restrack_entry *res,
		       bool admin)
{
	struct ib_pd *pd = container_of(res, struct ib_pd, res);

	if (admin) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY,
				pd->local_dma_lkey))
			return -EMSGSIZE;
		if ((pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) &&
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY,
				pd->unsafe_global_rkey))
			return -EMSGSIZE;
	}
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&pd->usecnt), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, res->id))
		return -EMSGSIZE;
	if (res->user && pd->uobject &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res_ctxn(pd->uobject)))
		return -EMSGSIZE;
	return 0;
}

static int fill_res_ctx(struct sk_buff *msg, struct rdma_restrack_entry *res,
			bool admin)
{
	return nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res->id) ?
		-EMSGSIZE : 0;
}

/* One element of an SRQ's QP list: a single QPN or a range of them. */
static int put_qpn_range(struct sk_buff *msg, u32 min, u32 max)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (min == max) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, min))
			goto cancel;
	} else if (nla_put_u32(msg, RDMA_NLDEV_ATTR_MIN_RANGE, min) ||
		   nla_put_u32(msg, RDMA_NLDEV_ATTR_MAX_RANGE, max)) {
		goto cancel;
	}
	nla_nest_end(msg, entry);
	return 0;

cancel:
	nla_nest_cancel(msg, entry);
	return -EMSGSIZE;
}

/* The QPs that receive through @srq, as runs of consecutive numbers. */
static int fill_srq_qps(struct sk_buff *msg, struct ib_srq *srq)
{
	struct rdma_restrack_entry *res;
	u32 min = 0, max = 0;
	struct nlattr *table;
	bool any = false;
	u64 pos = 0;
	int err = 0;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP);
	if (!table)
		return -EMSGSIZE;
	while ((res = rdma_restrack_next(srq->device, RDMA_RESTRACK_QP, &pos))) {
		struct ib_qp *qp = container_of(res, struct ib_qp, res);
		u32 qpn = qp->qp_num;
		bool mine = qp->srq == srq;

		rdma_restrack_put(res);
		if (mine) {
			if (any && qpn == max + 1) {
				max = qpn;
			} else {
				if (any)
					err = put_qpn_range(msg, min, max);
				if (err)
					break;
				min = qpn;
				max = qpn;
				any = true;
			}
		}
	}
	if (!err && any)
		err = put_qpn_range(msg, min, max);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int fill_res_srq(struct sk_buff *msg, struct rdma_restrack_entry *res,
			bool admin)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SRQN, res->id) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, srq->srq_type) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->res.id))
		return -EMSGSIZE;
	if (srq->srq_type != IB_SRQT_BASIC && srq->ext.cq &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, srq->ext.cq->res.id))
		return -EMSGSIZE;
	return fill_srq_qps(msg, srq);
}

static const struct nldev_res_type nldev_res_types[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_RES_QP_GET] = {
		RDMA_RESTRACK_QP, RDMA_NLDEV_ATTR_RES_QP,
		RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_LQPN,
		true, fill_res_qp, res_qp_port },
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = {
		RDMA_RESTRACK_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID,
		RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY, RDMA_NLDEV_ATTR_RES_CM_IDN,
		true, fill_res_cm_id, res_cm_id_port },
	[RDMA_NLDEV_CMD_RES_CQ_GET] = {
		RDMA_RESTRACK_CQ, RDMA_NLDEV_ATTR_RES_CQ,
		RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_CQN,
		false, fill_res_cq },
	[RDMA_NLDEV_CMD_RES_MR_GET] = {
		RDMA_RESTRACK_MR, RDMA_NLDEV_ATTR_RES_MR,
		RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MRN,
		false, fill_res_mr },
	[RDMA_NLDEV_CMD_RES_PD_GET] = {
		RDMA_RESTRACK_PD, RDMA_NLDEV_ATTR_RES_PD,
		RDMA_NLDEV_ATTR_RES_PD_ENTRY, RDMA_NLDEV_ATTR_RES_PDN,
		false, fill_res_pd },
	[RDMA_NLDEV_CMD_RES_CTX_GET] = {
		RDMA_RESTRACK_CTX, RDMA_NLDEV_ATTR_RES_CTX,
		RDMA_NLDEV_ATTR_RES_CTX_ENTRY, RDMA_NLDEV_ATTR_RES_CTXN,
		false, fill_res_ctx },
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = {
		RDMA_RESTRACK_SRQ, RDMA_NLDEV_ATTR_RES_SRQ,
		RDMA_NLDEV_ATTR_RES_SRQ_ENTRY, RDMA_NLDEV_ATTR_RES_SRQN,
		false, fill_res_srq },
	/*
	 * *_GET_RAW: rxe and siw have no raw hardware contexts; the stock
	 * kernel answers -EINVAL for them (fill NULL).
	 */
};

/*
 * A user object is seen from its owner's pid namespace and from the
 * initial one, where its pid means something; kernel objects everywhere.
 */
static bool res_visible(const struct rdma_restrack_entry *res)
{
	struct pid_namespace *ns = task_active_pid_ns(current);

	if (!res->user || !res->task || ns == &init_pid_ns)
		return true;
	return ns == task_active_pid_ns(res->task);
}

static int fill_res_owner(struct sk_buff *msg,
			  const struct rdma_restrack_entry *res)
{
	if (res->user) {
		if (res->task &&
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID,
				task_pid_vnr(res->task)))
			return -EMSGSIZE;
		return 0;
	}
	if (res->kern_name &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_KERN_NAME, res->kern_name))
		return -EMSGSIZE;
	return 0;
}

/* The object's attributes, then its owner: the order iproute2 prints. */
static int fill_res_one(struct sk_buff *msg, const struct nldev_res_type *t,
			struct rdma_restrack_entry *res, bool admin)
{
	int err = t->fill(msg, res, admin);

	return err ?: fill_res_owner(msg, res);
}

/* A dump entry: nested, and left out whole when it does not fit. */
static int fill_res_entry(struct sk_buff *msg, const struct nldev_res_type *t,
			  struct rdma_restrack_entry *res, bool admin)
{
	struct nlattr *entry;
	int err;

	entry = nla_nest_start_noflag(msg, t->entry_attr);
	if (!entry)
		return -EMSGSIZE;
	err = fill_res_one(msg, t, res, admin);
	if (err) {
		nla_nest_cancel(msg, entry);
		return err;
	}
	nla_nest_end(msg, entry);
	return 0;
}

static const struct nldev_res_type *nldev_res_type(u32 op)
{
	if (op >= RDMA_NLDEV_NUM_OPS || !nldev_res_types[op].fill)
		return NULL;
	return &nldev_res_types[op];
}

/*
 * Parses an object request: the device (referenced) with *port set, 0 when
 * the request names none; or an ERR_PTR.
 */
static struct ib_device *nldev_res_device(struct sk_buff *skb,
					  const struct nlmsghdr *nlh,
					  struct nlattr **tb, u32 *port,
					  struct netlink_ext_ack *extack)
{
	struct ib_device *device;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return ERR_PTR(err);
	device = nldev_device(skb, tb);
	if (!device)
		return ERR_PTR(-EINVAL);

	*port = 0;
	if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		*port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
		if (!rdma_is_port_valid(device, *port)) {
			ib_device_put(device);
			return ERR_PTR(-EINVAL);
		}
	}
	return device;
}

/*
 * QPs are filed under their number, except when it was taken (GSI QPs share
 * QPN 1 across ports): then search, preferring the QP on @port.
 */
static struct rdma_restrack_entry *res_find_qp(struct ib_device *device,
					       u32 qpn, u32 port)
{
	struct rdma_restrack_entry *res, *found = NULL;
	u64 pos = 0;

	res = rdma_restrack_get_byid(device, RDMA_RESTRACK_QP, qpn);
	if (res) {
		if (container_of(res, struct ib_qp, res)->qp_num == qpn)
			return res;
		rdma_restrack_put(res);
	}
	while ((res = rdma_restrack_next(device, RDMA_RESTRACK_QP, &pos))) {
		struct ib_qp *qp = container_of(res, struct ib_qp, res);

		if (qp->qp_num == qpn && (!found || qp->port == port)) {
			if (found)
				rdma_restrack_put(found);
			found = res;
			if (qp->port == port)
				break;
		} else {
			rdma_restrack_put(res);
		}
	}
	return found;
}

int nldev_res_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
		       struct netlink_ext_ack *extack)
{
	u32 op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct nldev_res_type *t = nldev_res_type(op);
	struct rdma_restrack_entry *res;
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port, id;
	int err;

	if (!t)
		return -EINVAL;
	device = nldev_res_device(skb, nlh, tb, &port, extack);
	if (IS_ERR(device))
		return PTR_ERR(device);

	err = -EINVAL;
	if (!tb[t->id_attr] || !!port != t->per_port)
		goto out_put_dev;
	id = nla_get_u32(tb[t->id_attr]);
	if (t->type == RDMA_RESTRACK_QP)
		res = res_find_qp(device, id, port);
	else
		res = rdma_restrack_get_byid(device, t->type, id);
	err = -ENOENT;
	if (!res)
		goto out_put_dev;
	if (!res_visible(res))
		goto out_put_res;

	err = -ENOMEM;
	msg = nldev_reply_new(skb, nlh, op, &rnlh);
	if (!msg)
		goto out_put_res;
	/* A doit answers with the object's attributes, not nested. */
	err = fill_nldev_handle(msg, device) ?:
	      fill_res_one(msg, t, res, netlink_capable(skb, CAP_NET_ADMIN));
	if (err) {
		nlmsg_free(msg);
		goto out_put_res;
	}
	rdma_restrack_put(res);
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_put_res:
	rdma_restrack_put(res);
out_put_dev:
	ib_device_put(device);
	return err;
}

/*
 * One message per part: the device, then the table with as many entries
 * as fit. cb->args[0] is the id to go on from, cb->args[1] set once a part
 * was sent (a device gone after that ends the dump quietly).
 */
int nldev_res_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	u32 op = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);
	const struct nldev_res_type *t = nldev_res_type(op);
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_restrack_entry *res;
	struct ib_device *device;
	unsigned int filled = 0;
	struct nlattr *table;
	struct nlmsghdr *nlh;
	u64 pos;
	u32 port;
	int err = 0;

	if (!t)
		return -EINVAL;
	if (cb->args[0] > U32_MAX)
		return 0;	/* the last id was sent */
	device = nldev_res_device(skb, cb->nlh, tb, &port, NULL);
	if (IS_ERR(device))
		return cb->args[1] ? 0 : PTR_ERR(device);

	nlh = nldev_dump_put(skb, cb, op);
	if (!nlh) {
		err = -EMSGSIZE;
		goto out_put_dev;
	}
	table = NULL;
	if (!fill_nldev_handle(skb, device))
		table = nla_nest_start_noflag(skb, t->table_attr);
	if (!table) {
		err = -EMSGSIZE;
		goto out_cancel;
	}

	pos = cb->args[0];
	while ((res = rdma_restrack_next(device, t->type, &pos))) {
		bool show = res_visible(res) &&
			    (!port || !t->port || t->port(res) == port);
		int ret = 0;

		if (show)
			ret = fill_res_entry(skb, t, res, admin);
		rdma_restrack_put(res);
		if (ret == -EMSGSIZE) {
			err = ret;
			break;
		}
		/* An object the driver cannot report (mid-destroy) is left out. */
		if (show && !ret)
			filled++;
		cb->args[0] = pos;
	}
	if (!filled) {
		/* Nothing more, or an entry larger than a whole part. */
		nlmsg_cancel(skb, nlh);
		ib_device_put(device);
		return err && !skb->len ? err : 0;
	}
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	cb->args[1] = 1;
	ib_device_put(device);
	return skb->len;

out_cancel:
	nlmsg_cancel(skb, nlh);
out_put_dev:
	ib_device_put(device);
	return err;
}
