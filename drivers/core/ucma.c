// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_ucm: /dev/infiniband/rdma_cm, librdmacm's door into rdma_cm.
 *
 * Every command is one write() of {struct rdma_ucm_cmd_hdr, payload}; the
 * answer goes to the user pointer named in the payload. Events are fetched
 * with the GET_EVENT command (blocking unless O_NONBLOCK) and poll() says
 * when one is queued. Each open file owns the ids created on it; closing it
 * destroys them all.
 *
 * Lifetimes: a context (one per rdma_cm id) is looked up by number in
 * ctx_table and pinned by ctx->ref for the duration of a command. Whoever
 * destroys it first makes it unfindable, drops the base reference and
 * waits for the command references to go before rdma_destroy_id(). The
 * contexts of incoming connections stay unpublished (reserved number, not
 * on any list) until userspace fetches their CONNECT_REQUEST event; until
 * then the pending event owns them.
 *
 * Lock order: ctx->mutex -> rdma_cm handler lock -> file->mut -> xa_lock.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/device.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/poll.h>
#include <linux/xarray.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/cred.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/sysctl.h>
#include <asm/unaligned.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_user_cm.h>
#include "core_priv.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("RDMA userspace connection manager access");
MODULE_LICENSE("Dual BSD/GPL");
/* NLDEV GET_CHARDEV("rdma_cm") loads us on demand. */
MODULE_ALIAS("rdma-client-rdma_cm");

static unsigned int max_backlog = 1024;

static struct ctl_table_header *ucma_ctl_table_hdr;
static struct ctl_table ucma_ctl_table[] = {
	{
		.procname	= "max_backlog",
		.data		= &max_backlog,
		.maxlen		= sizeof(max_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	{ }
};

struct ucma_file {
	struct mutex		mut;		/* ctx_list and event_list */
	struct file		*filp;
	struct list_head	ctx_list;
	struct list_head	event_list;
	wait_queue_head_t	poll_wait;
};

struct ucma_context {
	u32			id;
	struct completion	comp;		/* ref reached zero */
	refcount_t		ref;
	int			events_reported;
	atomic_t		backlog;
	/* Changed only by MIGRATE_ID, under both files' mut. */
	struct ucma_file	*file;
	struct rdma_cm_id	*cm_id;
	struct mutex		mutex;		/* commands on this id; mc_list */
	u64			uid;
	bool			closing;	/* under ctx_table's lock */
	struct list_head	list;		/* in file->ctx_list */
	struct list_head	mc_list;
	struct work_struct	close_work;
};

struct ucma_multicast {
	struct ucma_context	*ctx;
	u32			id;
	int			events_reported;
	u64			uid;
	u8			join_state;
	struct list_head	list;		/* in ctx->mc_list */
	struct sockaddr_storage	addr;
};

struct ucma_event {
	struct ucma_context	*ctx;
	struct ucma_context	*conn_req_ctx;
	struct ucma_multicast	*mc;
	struct list_head	list;
	struct rdma_ucm_event_resp resp;
};

/* AF_IB address as librdmacm reads it (QUERY GID); 48 bytes. */
struct ucma_sockaddr_ib {
	unsigned short		sib_family;
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	u8			sib_addr[16] __aligned(8);
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

static DEFINE_XARRAY_ALLOC(ctx_table);
static DEFINE_XARRAY_ALLOC(multicast_table);

static const struct file_operations ucma_fops;
static int ucma_destroy_private_ctx(struct ucma_context *ctx);

/* ------------------------------------------------------------ contexts */

static struct ucma_context *ucma_get_ctx(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx;

	xa_lock(&ctx_table);
	ctx = xa_load(&ctx_table, id);
	if (!ctx)
		ctx = ERR_PTR(-ENOENT);
	else if (ctx->file != file)
		ctx = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&ctx->ref))
		ctx = ERR_PTR(-ENXIO);	/* torn down by device removal */
	xa_unlock(&ctx_table);
	return ctx;
}

static void ucma_put_ctx(struct ucma_context *ctx)
{
	if (refcount_dec_and_test(&ctx->ref))
		complete(&ctx->comp);
}

/* Commands that need the id bound to a device. */
static struct ucma_context *ucma_get_ctx_dev(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx = ucma_get_ctx(file, id);

	if (IS_ERR(ctx))
		return ctx;
	if (!ctx->cm_id->device) {
		ucma_put_ctx(ctx);
		return ERR_PTR(-EINVAL);
	}
	return ctx;
}

/* Drops the base reference, waits out commands, then destroys the id. */
static void ucma_close_id(struct work_struct *work)
{
	struct ucma_context *ctx =
		container_of(work, struct ucma_context, close_work);

	ucma_put_ctx(ctx);
	wait_for_completion(&ctx->comp);
	rdma_destroy_id(ctx->cm_id);
	ctx->cm_id = NULL;
}

static struct ucma_context *ucma_alloc_ctx(struct ucma_file *file)
{
	struct ucma_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;

	INIT_WORK(&ctx->close_work, ucma_close_id);
	init_completion(&ctx->comp);
	refcount_set(&ctx->ref, 1);
	mutex_init(&ctx->mutex);
	INIT_LIST_HEAD(&ctx->list);
	INIT_LIST_HEAD(&ctx->mc_list);
	ctx->file = file;

	/* Reserve a number now; the context becomes findable later. */
	if (xa_alloc(&ctx_table, &ctx->id, NULL, xa_limit_32b, GFP_KERNEL)) {
		kfree(ctx);
		return NULL;
	}
	return ctx;
}

/* Makes a fully set up context reachable by commands. file->mut held. */
static void ucma_publish_ctx(struct ucma_context *ctx)
{
	list_add_tail(&ctx->list, &ctx->file->ctx_list);
	xa_store(&ctx_table, ctx->id, ctx, GFP_KERNEL);
}

/* ------------------------------------------------------------ conversions */

static void ucma_copy_ah_attr(struct ib_uverbs_ah_attr *dst,
			      const struct rdma_ah_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->dlid = rdma_ah_get_dlid(src);
	dst->sl = rdma_ah_get_sl(src);
	if (src->type == RDMA_AH_ATTR_TYPE_IB)
		dst->src_path_bits = src->ib.src_path_bits;
	dst->static_rate = rdma_ah_get_static_rate(src);
	dst->port_num = rdma_ah_get_port_num(src);
	dst->is_global = !!(rdma_ah_get_ah_flags(src) & IB_AH_GRH);
	if (dst->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(src);

		memcpy(dst->grh.dgid, grh->dgid.raw, sizeof(dst->grh.dgid));
		dst->grh.flow_label = grh->flow_label;
		dst->grh.sgid_index = grh->sgid_index;
		dst->grh.hop_limit = grh->hop_limit;
		dst->grh.traffic_class = grh->traffic_class;
	}
}

static void ucma_copy_qp_attr(struct ib_uverbs_qp_attr *dst,
			      const struct ib_qp_attr *src)
{
	dst->qp_state = src->qp_state;
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;
	dst->max_send_wr = src->cap.max_send_wr;
	dst->max_recv_wr = src->cap.max_recv_wr;
	dst->max_send_sge = src->cap.max_send_sge;
	dst->max_recv_sge = src->cap.max_recv_sge;
	dst->max_inline_data = src->cap.max_inline_data;
	ucma_copy_ah_attr(&dst->ah_attr, &src->ah_attr);
	ucma_copy_ah_attr(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
	memset(dst->reserved, 0, sizeof(dst->reserved));
}

static void ucma_copy_user_path(struct ib_user_path_rec *dst,
				struct sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(dst->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(dst->sgid));
	dst->dlid = htons(ntohl(sa_path_get_dlid(src)));
	dst->slid = htons(ntohl(sa_path_get_slid(src)));
	dst->raw_traffic = sa_path_get_raw_traffic(src);
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time_selector = src->packet_life_time_selector;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
}

static void ucma_copy_conn_param(struct rdma_cm_id *id,
				 struct rdma_conn_param *dst,
				 struct rdma_ucm_conn_param *src)
{
	dst->private_data = src->private_data;
	dst->private_data_len = src->private_data_len;
	dst->responder_resources = src->responder_resources;
	dst->initiator_depth = src->initiator_depth;
	dst->flow_control = src->flow_control;
	dst->retry_count = src->retry_count;
	dst->rnr_retry_count = src->rnr_retry_count;
	dst->srq = src->srq;
	dst->qp_num = src->qp_num;
	/* Only AF_IB users may pick the Q_Key; IP ids get rdma_cm's. */
	dst->qkey = id->route.addr.src_addr.ss_family == AF_IB ? src->qkey : 0;
}

/* ------------------------------------------------------------ events */

static void ucma_fill_event(struct ucma_event *uevent, struct rdma_cm_id *id,
			    struct rdma_cm_event *event)
{
	struct rdma_ucm_event_resp *resp = &uevent->resp;
	bool mc_event = event->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
			event->event == RDMA_CM_EVENT_MULTICAST_ERROR;

	resp->event = event->event;
	resp->status = event->status;
	if (id->qp_type == IB_QPT_UD) {
		struct rdma_ucm_ud_param *dst = &resp->param.ud;
		struct rdma_ud_param *src = &event->param.ud;

		/* For multicast events private_data is the join's context. */
		if (!mc_event && src->private_data && src->private_data_len) {
			memcpy(dst->private_data, src->private_data,
			       src->private_data_len);
			dst->private_data_len = src->private_data_len;
		}
		ucma_copy_ah_attr(&dst->ah_attr, &src->ah_attr);
		dst->qp_num = src->qp_num;
		dst->qkey = src->qkey;
	} else {
		struct rdma_ucm_conn_param *dst = &resp->param.conn;
		struct rdma_conn_param *src = &event->param.conn;

		if (src->private_data && src->private_data_len) {
			memcpy(dst->private_data, src->private_data,
			       src->private_data_len);
			dst->private_data_len = src->private_data_len;
		}
		dst->responder_resources = src->responder_resources;
		dst->initiator_depth = src->initiator_depth;
		dst->flow_control = src->flow_control;
		dst->retry_count = src->retry_count;
		dst->rnr_retry_count = src->rnr_retry_count;
		dst->srq = src->srq;
		dst->qp_num = src->qp_num;
	}
	resp->ece.vendor_id = event->ece.vendor_id;
	resp->ece.attr_mod = event->ece.attr_mod;
}

static void ucma_queue_event(struct ucma_file *file, struct ucma_event *uevent)
{
	mutex_lock(&file->mut);
	list_add_tail(&uevent->list, &file->event_list);
	mutex_unlock(&file->mut);
	wake_up_interruptible(&file->poll_wait);
}

/* A new connection on a listener: cm_id is the new id rdma_cm made. */
static int ucma_connect_event_handler(struct rdma_cm_id *cm_id,
				      struct rdma_cm_event *event)
{
	struct ucma_context *listen_ctx = cm_id->context;
	struct ucma_context *ctx;
	struct ucma_event *uevent;

	if (!atomic_add_unless(&listen_ctx->backlog, -1, 0))
		return -ENOMEM;

	ctx = ucma_alloc_ctx(listen_ctx->file);
	if (!ctx)
		goto err_backlog;
	uevent = kzalloc(sizeof(*uevent), GFP_KERNEL);
	if (!uevent)
		goto err_ctx;

	ctx->cm_id = cm_id;
	cm_id->context = ctx;

	uevent->ctx = listen_ctx;
	uevent->conn_req_ctx = ctx;
	uevent->resp.uid = listen_ctx->uid;
	uevent->resp.id = ctx->id;
	ucma_fill_event(uevent, cm_id, event);
	/* The listener's file: it cannot migrate while we hold its handler. */
	ucma_queue_event(listen_ctx->file, uevent);
	return 0;

err_ctx:
	xa_erase(&ctx_table, ctx->id);
	kfree(ctx);
err_backlog:
	atomic_inc(&listen_ctx->backlog);
	/* Non-zero: rdma_cm destroys the new id itself. */
	return -ENOMEM;
}

static int ucma_event_handler(struct rdma_cm_id *cm_id,
			      struct rdma_cm_event *event)
{
	struct ucma_context *ctx = cm_id->context;
	struct ucma_event *uevent;

	if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucma_connect_event_handler(cm_id, event);

	/*
	 * A new connection has no uid until userspace accepts it; its early
	 * errors are dropped (the accept then fails), as upstream does.
	 */
	if (READ_ONCE(ctx->uid)) {
		uevent = kzalloc(sizeof(*uevent), GFP_KERNEL);
		if (uevent) {
			uevent->ctx = ctx;
			if (event->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
			    event->event == RDMA_CM_EVENT_MULTICAST_ERROR) {
				uevent->mc = (struct ucma_multicast *)
					     event->param.ud.private_data;
				uevent->resp.uid = uevent->mc->uid;
				uevent->resp.id = uevent->mc->id;
			} else {
				uevent->resp.uid = ctx->uid;
				uevent->resp.id = ctx->id;
			}
			ucma_fill_event(uevent, cm_id, event);
			ucma_queue_event(ctx->file, uevent);
		}
	}

	/*
	 * The device is going away: rdma_cm waits for every id on it, so do
	 * not wait for userspace to destroy this one.
	 */
	if (event->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		xa_lock(&ctx_table);
		if (!ctx->closing)
			queue_work(system_unbound_wq, &ctx->close_work);
		xa_unlock(&ctx_table);
	}
	return 0;
}

/* Removes the pending events of a context; returns events_reported. */
static int ucma_cleanup_ctx_events(struct ucma_context *ctx)
{
	struct ucma_event *uevent, *tmp;
	LIST_HEAD(conn_reqs);
	int events_reported;

	mutex_lock(&ctx->file->mut);
	list_for_each_entry_safe(uevent, tmp, &ctx->file->event_list, list) {
		if (uevent->ctx != ctx)
			continue;
		if (uevent->resp.event == RDMA_CM_EVENT_CONNECT_REQUEST)
			list_move_tail(&uevent->list, &conn_reqs);
		else {
			list_del(&uevent->list);
			kfree(uevent);
		}
	}
	events_reported = ctx->events_reported;
	mutex_unlock(&ctx->file->mut);

	/* Never fetched, so never published: these connections are ours. */
	list_for_each_entry_safe(uevent, tmp, &conn_reqs, list) {
		list_del(&uevent->list);
		ucma_destroy_private_ctx(uevent->conn_req_ctx);
		kfree(uevent);
	}
	return events_reported;
}

static void ucma_cleanup_mc_events(struct ucma_multicast *mc)
{
	struct ucma_file *file = mc->ctx->file;
	struct ucma_event *uevent, *tmp;

	mutex_lock(&file->mut);
	list_for_each_entry_safe(uevent, tmp, &file->event_list, list) {
		if (uevent->mc != mc)
			continue;
		list_del(&uevent->list);
		kfree(uevent);
	}
	mutex_unlock(&file->mut);
}

/* The id is already destroyed: no more multicast events can come. */
static void ucma_cleanup_multicast(struct ucma_context *ctx)
{
	struct ucma_multicast *mc, *tmp;

	mutex_lock(&ctx->mutex);
	list_for_each_entry_safe(mc, tmp, &ctx->mc_list, list) {
		list_del(&mc->list);
		xa_erase(&multicast_table, mc->id);
		kfree(mc);
	}
	mutex_unlock(&ctx->mutex);
}

/*
 * The context must already be unfindable (its table slot reserved-empty or
 * never filled). Returns the number of events userspace fetched for it.
 */
static int ucma_destroy_private_ctx(struct ucma_context *ctx)
{
	int events_reported;

	xa_lock(&ctx_table);
	ctx->closing = true;
	xa_unlock(&ctx_table);

	cancel_work_sync(&ctx->close_work);
	if (refcount_read(&ctx->ref))
		ucma_close_id(&ctx->close_work);

	events_reported = ucma_cleanup_ctx_events(ctx);
	ucma_cleanup_multicast(ctx);

	mutex_lock(&ctx->file->mut);
	list_del_init(&ctx->list);
	mutex_unlock(&ctx->file->mut);

	xa_erase(&ctx_table, ctx->id);
	mutex_destroy(&ctx->mutex);
	kfree(ctx);
	return events_reported;
}

/* ------------------------------------------------------------ commands */

static int ucma_get_qp_type(struct rdma_ucm_create_id *cmd,
			    enum ib_qp_type *qp_type)
{
	switch (cmd->ps) {
	case RDMA_PS_TCP:
		*qp_type = IB_QPT_RC;
		return 0;
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
		*qp_type = IB_QPT_UD;
		return 0;
	case RDMA_PS_IB:
		*qp_type = cmd->qp_type;
		return 0;
	default:
		return -EINVAL;
	}
}

static ssize_t ucma_create_id(struct ucma_file *file, const char __user *inbuf,
			      int in_len, int out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct rdma_ucm_create_id cmd;
	struct ucma_context *ctx;
	struct rdma_cm_id *cm_id;
	enum ib_qp_type qp_type;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	ret = ucma_get_qp_type(&cmd, &qp_type);
	if (ret)
		return ret;

	ctx = ucma_alloc_ctx(file);
	if (!ctx)
		return -ENOMEM;
	ctx->uid = cmd.uid;

	cm_id = rdma_create_user_id(ucma_event_handler, ctx, cmd.ps, qp_type);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err_ctx;
	}
	ctx->cm_id = cm_id;

	resp.id = ctx->id;
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp))) {
		ucma_destroy_private_ctx(ctx);
		return -EFAULT;
	}

	mutex_lock(&file->mut);
	ucma_publish_ctx(ctx);
	mutex_unlock(&file->mut);
	return 0;

err_ctx:
	xa_erase(&ctx_table, ctx->id);
	kfree(ctx);
	return ret;
}

static ssize_t ucma_destroy_id(struct ucma_file *file, const char __user *inbuf,
			       int in_len, int out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_context *ctx;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	xa_lock(&ctx_table);
	ctx = xa_load(&ctx_table, cmd.id);
	if (!ctx) {
		ctx = ERR_PTR(-ENOENT);
	} else if (ctx->file != file) {
		ctx = ERR_PTR(-EINVAL);
	} else {
		/* Keep the number reserved but unfindable until freed. */
		__xa_store(&ctx_table, ctx->id, NULL, 0);
	}
	xa_unlock(&ctx_table);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	resp.events_reported = ucma_destroy_private_ctx(ctx);
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

static ssize_t ucma_bind_ip(struct ucma_file *file, const char __user *inbuf,
			    int in_len, int out_len)
{
	struct rdma_ucm_bind_ip cmd;
	struct ucma_context *ctx;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (!rdma_addr_size_in6(&cmd.addr))
		return -EINVAL;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_bind(struct ucma_file *file, const char __user *inbuf,
			 int in_len, int out_len)
{
	struct rdma_ucm_bind cmd;
	struct ucma_context *ctx;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (cmd.reserved || !cmd.addr_size ||
	    cmd.addr_size != rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&cmd.addr);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/* RESOLVE_IP and RESOLVE_ADDR differ only in how the addresses come in. */
static ssize_t ucma_resolve(struct ucma_file *file, u32 id,
			    struct sockaddr *src, struct sockaddr *dst,
			    u32 timeout_ms)
{
	struct ucma_context *ctx;
	int ret;

	ctx = ucma_get_ctx(file, id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_resolve_addr(ctx->cm_id, src, dst, timeout_ms);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_resolve_ip(struct ucma_file *file, const char __user *inbuf,
			       int in_len, int out_len)
{
	struct rdma_ucm_resolve_ip cmd;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if ((cmd.src_addr.sin6_family && !rdma_addr_size_in6(&cmd.src_addr)) ||
	    !rdma_addr_size_in6(&cmd.dst_addr))
		return -EINVAL;

	return ucma_resolve(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			    (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static ssize_t ucma_resolve_addr(struct ucma_file *file,
				 const char __user *inbuf,
				 int in_len, int out_len)
{
	struct rdma_ucm_resolve_addr cmd;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (cmd.reserved ||
	    (cmd.src_size && cmd.src_size != rdma_addr_size_kss(&cmd.src_addr)) ||
	    !cmd.dst_size || cmd.dst_size != rdma_addr_size_kss(&cmd.dst_addr))
		return -EINVAL;

	return ucma_resolve(file, cmd.id, (struct sockaddr *)&cmd.src_addr,
			    (struct sockaddr *)&cmd.dst_addr, cmd.timeout_ms);
}

static ssize_t ucma_resolve_route(struct ucma_file *file,
				  const char __user *inbuf,
				  int in_len, int out_len)
{
	struct rdma_ucm_resolve_route cmd;
	struct ucma_context *ctx;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_resolve_route(ctx->cm_id, cmd.timeout_ms);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

/* At most sizeof(sockaddr_in6) of an address: QUERY_ROUTE's fixed slots. */
static void ucma_copy_addr_in6(struct sockaddr_in6 *dst,
			       const struct sockaddr_storage *src)
{
	int size = rdma_addr_size((const struct sockaddr *)src);

	memcpy(dst, src, min_t(int, size, sizeof(*dst)));
}

static ssize_t ucma_query_route(struct ucma_file *file,
				const char __user *inbuf,
				int in_len, int out_len)
{
	struct rdma_ucm_query_route_resp resp;
	struct rdma_ucm_query cmd;
	struct ucma_context *ctx;
	struct rdma_cm_id *id;
	int ret = 0;

	if (out_len < offsetof(struct rdma_ucm_query_route_resp, ibdev_index))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	memset(&resp, 0, sizeof(resp));
	mutex_lock(&ctx->mutex);
	id = ctx->cm_id;
	ucma_copy_addr_in6(&resp.src_addr, &id->route.addr.src_addr);
	ucma_copy_addr_in6(&resp.dst_addr, &id->route.addr.dst_addr);
	if (!id->device)
		goto out;

	resp.node_guid = (__force __u64)id->device->node_guid;
	resp.ibdev_index = id->device->index;
	resp.port_num = id->port_num;

	if (rdma_protocol_iwarp(id->device, id->port_num)) {
		struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;

		rdma_addr_get_sgid(dev_addr,
				   (union ib_gid *)&resp.ib_route[0].sgid);
		rdma_addr_get_dgid(dev_addr,
				   (union ib_gid *)&resp.ib_route[0].dgid);
	} else {
		resp.num_paths = id->route.num_pri_alt_paths;
		if (resp.num_paths > 2)
			resp.num_paths = 2;
		if (resp.num_paths >= 2)
			ucma_copy_user_path(&resp.ib_route[1],
					    &id->route.path_rec[1]);
		if (resp.num_paths >= 1) {
			ucma_copy_user_path(&resp.ib_route[0],
					    &id->route.path_rec[0]);
		} else {
			/* Not routed yet: the GIDs follow from the IPs. */
			rdma_ip2gid((struct sockaddr *)&id->route.addr.src_addr,
				    (union ib_gid *)&resp.ib_route[0].sgid);
			rdma_ip2gid((struct sockaddr *)&id->route.addr.dst_addr,
				    (union ib_gid *)&resp.ib_route[0].dgid);
			resp.ib_route[0].pkey =
				cpu_to_be16(ib_addr_get_pkey(&id->route.addr.dev_addr));
		}
	}
out:
	mutex_unlock(&ctx->mutex);
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp,
			 min_t(size_t, out_len, sizeof(resp))))
		ret = -EFAULT;
	ucma_put_ctx(ctx);
	return ret;
}

static void ucma_query_device_addr(struct rdma_cm_id *id,
				   struct rdma_ucm_query_addr_resp *resp)
{
	if (!id->device)
		return;
	resp->node_guid = (__force __u64)id->device->node_guid;
	resp->ibdev_index = id->device->index;
	resp->port_num = id->port_num;
	resp->pkey = (__force __u16)cpu_to_be16(
			ib_addr_get_pkey(&id->route.addr.dev_addr));
}

/* ctx->mutex held */
static ssize_t ucma_query_addr(struct ucma_context *ctx,
			       void __user *response, int out_len)
{
	struct rdma_ucm_query_addr_resp resp;
	struct rdma_cm_id *id = ctx->cm_id;
	int size;

	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;

	memset(&resp, 0, sizeof(resp));
	size = rdma_addr_size((struct sockaddr *)&id->route.addr.src_addr);
	resp.src_size = size;
	memcpy(&resp.src_addr, &id->route.addr.src_addr, size);
	size = rdma_addr_size((struct sockaddr *)&id->route.addr.dst_addr);
	resp.dst_size = size;
	memcpy(&resp.dst_addr, &id->route.addr.dst_addr, size);
	ucma_query_device_addr(id, &resp);

	if (copy_to_user(response, &resp, min_t(size_t, out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

/* ctx->mutex held */
static ssize_t ucma_query_path(struct ucma_context *ctx,
			       void __user *response, int out_len)
{
	struct rdma_ucm_query_path_resp *resp;
	struct rdma_cm_id *id = ctx->cm_id;
	int i, ret = 0;

	if (out_len < sizeof(*resp) + sizeof(struct ib_path_rec_data))
		return -ENOSPC;

	resp = kzalloc(out_len, GFP_KERNEL);
	if (!resp)
		return -ENOMEM;

	for (i = 0; i < id->route.num_pri_alt_paths; i++) {
		if (sizeof(*resp) + (i + 1) * sizeof(struct ib_path_rec_data) >
		    out_len)
			break;
		resp->path_data[i].flags = IB_PATH_GMP | IB_PATH_PRIMARY |
					   IB_PATH_BIDIRECTIONAL;
		ib_sa_pack_path(&id->route.path_rec[i],
				resp->path_data[i].path_rec);
	}
	resp->num_paths = i;

	if (copy_to_user(response, resp,
			 struct_size(resp, path_data, resp->num_paths)))
		ret = -EFAULT;
	kfree(resp);
	return ret;
}

static void ucma_fill_sib(struct ucma_sockaddr_ib *sib, struct rdma_cm_id *id,
			  struct sockaddr_storage *ip, __be16 pkey, bool src)
{
	if (ip->ss_family == AF_IB) {
		memcpy(sib, ip, sizeof(*sib));
		return;
	}
	sib->sib_family = AF_IB;
	sib->sib_pkey = pkey;
	if (src)
		rdma_read_gids(id, (union ib_gid *)sib->sib_addr, NULL);
	else
		rdma_read_gids(id, NULL, (union ib_gid *)sib->sib_addr);
	sib->sib_sid = rdma_get_service_id(id, (struct sockaddr *)ip);
}

/* ctx->mutex held */
static ssize_t ucma_query_gid(struct ucma_context *ctx,
			      void __user *response, int out_len)
{
	struct rdma_ucm_query_addr_resp resp;
	struct rdma_cm_id *id = ctx->cm_id;

	BUILD_BUG_ON(sizeof(struct ucma_sockaddr_ib) != 48);
	if (out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return -ENOSPC;

	memset(&resp, 0, sizeof(resp));
	ucma_query_device_addr(id, &resp);
	ucma_fill_sib((struct ucma_sockaddr_ib *)&resp.src_addr, id,
		      &id->route.addr.src_addr, (__force __be16)resp.pkey,
		      true);
	resp.src_size = sizeof(struct ucma_sockaddr_ib);
	ucma_fill_sib((struct ucma_sockaddr_ib *)&resp.dst_addr, id,
		      &id->route.addr.dst_addr, (__force __be16)resp.pkey,
		      false);
	resp.dst_size = sizeof(struct ucma_sockaddr_ib);

	if (copy_to_user(response, &resp, min_t(size_t, out_len, sizeof(resp))))
		return -EFAULT;
	return 0;
}

static ssize_t ucma_query(struct ucma_file *file, const char __user *inbuf,
			  int in_len, int out_len)
{
	struct rdma_ucm_query cmd;
	struct ucma_context *ctx;
	void __user *response;
	ssize_t ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	response = u64_to_user_ptr(cmd.response);

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mutex_lock(&ctx->mutex);
	switch (cmd.option) {
	case RDMA_USER_CM_QUERY_ADDR:
		ret = ucma_query_addr(ctx, response, out_len);
		break;
	case RDMA_USER_CM_QUERY_PATH:
		ret = ucma_query_path(ctx, response, out_len);
		break;
	case RDMA_USER_CM_QUERY_GID:
		ret = ucma_query_gid(ctx, response, out_len);
		break;
	default:
		ret = -ENOSYS;
		break;
	}
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_connect(struct ucma_file *file, const char __user *inbuf,
			    int in_len, int out_len)
{
	struct rdma_ucm_connect cmd = {};
	struct rdma_conn_param conn_param;
	struct rdma_ucm_ece ece;
	struct ucma_context *ctx;
	int ret;

	/* Older librdmacm sends no ece: take what was sent. */
	if (in_len < offsetofend(struct rdma_ucm_connect, reserved))
		return -EINVAL;
	if (copy_from_user(&cmd, inbuf,
			   min_t(size_t, in_len, sizeof(cmd))))
		return -EFAULT;
	if (!cmd.conn_param.valid)
		return -EINVAL;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	ucma_copy_conn_param(ctx->cm_id, &conn_param, &cmd.conn_param);
	ece.vendor_id = cmd.ece.vendor_id;
	ece.attr_mod = cmd.ece.attr_mod;

	mutex_lock(&ctx->mutex);
	ret = rdma_connect_ece(ctx->cm_id, &conn_param, &ece);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_listen(struct ucma_file *file, const char __user *inbuf,
			   int in_len, int out_len)
{
	struct rdma_ucm_listen cmd;
	struct ucma_context *ctx;
	unsigned int backlog;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	backlog = READ_ONCE(max_backlog);
	if (cmd.backlog > 0 && cmd.backlog < backlog)
		backlog = cmd.backlog;
	if (backlog > INT_MAX)
		backlog = INT_MAX;
	atomic_set(&ctx->backlog, backlog);

	mutex_lock(&ctx->mutex);
	ret = rdma_listen(ctx->cm_id, backlog);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_accept(struct ucma_file *file, const char __user *inbuf,
			   int in_len, int out_len)
{
	struct rdma_ucm_accept cmd = {};
	struct rdma_conn_param conn_param;
	struct rdma_ucm_ece ece;
	struct ucma_context *ctx;
	int ret;

	if (in_len < offsetofend(struct rdma_ucm_accept, reserved))
		return -EINVAL;
	if (copy_from_user(&cmd, inbuf,
			   min_t(size_t, in_len, sizeof(cmd))))
		return -EFAULT;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	ece.vendor_id = cmd.ece.vendor_id;
	ece.attr_mod = cmd.ece.attr_mod;

	mutex_lock(&ctx->mutex);
	/* Under the handler lock so the ESTABLISHED event sees the uid. */
	rdma_lock_handler(ctx->cm_id);
	if (cmd.conn_param.valid) {
		ucma_copy_conn_param(ctx->cm_id, &conn_param, &cmd.conn_param);
		ret = rdma_accept_ece(ctx->cm_id, &conn_param, &ece);
		if (!ret)
			WRITE_ONCE(ctx->uid, cmd.uid);
	} else {
		/* Active side finishing the handshake after CONNECT_RESPONSE. */
		ret = rdma_accept_ece(ctx->cm_id, NULL, &ece);
	}
	rdma_unlock_handler(ctx->cm_id);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_reject(struct ucma_file *file, const char __user *inbuf,
			   int in_len, int out_len)
{
	struct rdma_ucm_reject cmd;
	struct ucma_context *ctx;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	if (!cmd.reason)
		cmd.reason = IB_CM_REJ_CONSUMER_DEFINED;
	switch (cmd.reason) {
	case IB_CM_REJ_CONSUMER_DEFINED:
	case IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED:
		break;
	default:
		return -EINVAL;
	}

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_reject(ctx->cm_id, cmd.private_data, cmd.private_data_len,
			  cmd.reason);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_disconnect(struct ucma_file *file, const char __user *inbuf,
			       int in_len, int out_len)
{
	struct rdma_ucm_disconnect cmd;
	struct ucma_context *ctx;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	ret = rdma_disconnect(ctx->cm_id);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_init_qp_attr(struct ucma_file *file,
				 const char __user *inbuf,
				 int in_len, int out_len)
{
	struct ib_uverbs_qp_attr resp;
	struct rdma_ucm_init_qp_attr cmd;
	struct ucma_context *ctx;
	struct ib_qp_attr *qp_attr;
	int mask = 0, ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (cmd.qp_state > IB_QPS_ERR)
		return -EINVAL;

	ctx = ucma_get_ctx_dev(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	qp_attr = kzalloc(sizeof(*qp_attr), GFP_KERNEL);
	if (!qp_attr) {
		ret = -ENOMEM;
		goto out_put;
	}
	qp_attr->qp_state = cmd.qp_state;

	mutex_lock(&ctx->mutex);
	ret = rdma_init_qp_attr(ctx->cm_id, qp_attr, &mask);
	mutex_unlock(&ctx->mutex);
	if (ret)
		goto out_free;

	memset(&resp, 0, sizeof(resp));
	ucma_copy_qp_attr(&resp, qp_attr);
	resp.qp_attr_mask = mask;
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		ret = -EFAULT;
out_free:
	kfree(qp_attr);
out_put:
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_get_event(struct ucma_file *file, const char __user *inbuf,
			      int in_len, int out_len)
{
	struct rdma_ucm_get_event cmd;
	struct ucma_event *uevent;

	/* Old 32-bit userspace has neither reserved nor ece. */
	if (out_len < sizeof(uevent->resp) - sizeof(uevent->resp.reserved) -
		      sizeof(uevent->resp.ece))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	mutex_lock(&file->mut);
	while (list_empty(&file->event_list)) {
		mutex_unlock(&file->mut);
		if (file->filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(file->poll_wait,
					     !list_empty(&file->event_list)))
			return -ERESTARTSYS;
		mutex_lock(&file->mut);
	}

	uevent = list_first_entry(&file->event_list, struct ucma_event, list);
	if (copy_to_user(u64_to_user_ptr(cmd.response), &uevent->resp,
			 min_t(size_t, out_len, sizeof(uevent->resp)))) {
		mutex_unlock(&file->mut);
		return -EFAULT;
	}

	list_del(&uevent->list);
	uevent->ctx->events_reported++;
	if (uevent->mc)
		uevent->mc->events_reported++;
	if (uevent->resp.event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		atomic_inc(&uevent->ctx->backlog);
		/* The listener may have migrated: the new id lives here. */
		uevent->conn_req_ctx->file = file;
		ucma_publish_ctx(uevent->conn_req_ctx);
	}
	mutex_unlock(&file->mut);
	kfree(uevent);
	return 0;
}

static int ucma_set_option_id(struct ucma_context *ctx, int optname,
			      void *optval, size_t optlen)
{
	switch (optname) {
	case RDMA_OPTION_ID_TOS:
		if (optlen != sizeof(u8))
			return -EINVAL;
		return rdma_set_service_type(ctx->cm_id, *((u8 *)optval));
	case RDMA_OPTION_ID_REUSEADDR:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_reuseaddr(ctx->cm_id, *((int *)optval) ? 1 : 0);
	case RDMA_OPTION_ID_AFONLY:
		if (optlen != sizeof(int))
			return -EINVAL;
		return rdma_set_afonly(ctx->cm_id, *((int *)optval) ? 1 : 0);
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (optlen != sizeof(u8))
			return -EINVAL;
		return rdma_set_ack_timeout(ctx->cm_id, *((u8 *)optval));
	default:
		return -ENOSYS;
	}
}

/*
 * A route found by userspace (ibacm). The IB SA path format is not
 * unpacked yet: RoCE routes are always resolved in the kernel.
 */
static int ucma_set_ib_path(struct ucma_context *ctx,
			    struct ib_path_rec_data *path_data, size_t optlen)
{
	if (!optlen || optlen % sizeof(*path_data))
		return -EINVAL;
	for (; optlen; optlen -= sizeof(*path_data), path_data++) {
		if (path_data->flags == (IB_PATH_GMP | IB_PATH_PRIMARY |
					 IB_PATH_BIDIRECTIONAL))
			break;
	}
	if (!optlen || !ctx->cm_id->device)
		return -EINVAL;
	return -EOPNOTSUPP;
}

static ssize_t ucma_set_option(struct ucma_file *file, const char __user *inbuf,
			       int in_len, int out_len)
{
	struct rdma_ucm_set_option cmd;
	struct ucma_context *ctx;
	void *optval;
	int ret;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (unlikely(cmd.optlen > KMALLOC_MAX_SIZE))
		return -EINVAL;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	optval = memdup_user(u64_to_user_ptr(cmd.optval), cmd.optlen);
	if (IS_ERR(optval)) {
		ret = PTR_ERR(optval);
		goto out;
	}

	mutex_lock(&ctx->mutex);
	switch (cmd.level) {
	case RDMA_OPTION_ID:
		ret = ucma_set_option_id(ctx, cmd.optname, optval, cmd.optlen);
		break;
	case RDMA_OPTION_IB:
		if (cmd.optname == RDMA_OPTION_IB_PATH)
			ret = ucma_set_ib_path(ctx, optval, cmd.optlen);
		else
			ret = -ENOSYS;
		break;
	default:
		ret = -ENOSYS;
		break;
	}
	mutex_unlock(&ctx->mutex);
	kfree(optval);
out:
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_notify(struct ucma_file *file, const char __user *inbuf,
			   int in_len, int out_len)
{
	struct rdma_ucm_notify cmd;
	struct ucma_context *ctx;
	int ret = -EINVAL;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	ctx = ucma_get_ctx(file, cmd.id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	mutex_lock(&ctx->mutex);
	if (ctx->cm_id->device)
		ret = rdma_notify(ctx->cm_id, (enum ib_event_type)cmd.event);
	mutex_unlock(&ctx->mutex);
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_process_join(struct ucma_file *file,
				 struct rdma_ucm_join_mcast *cmd, int out_len)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_context *ctx;
	struct ucma_multicast *mc;
	struct sockaddr *addr;
	u8 join_state;
	int ret;

	if (out_len < sizeof(resp))
		return -ENOSPC;

	addr = (struct sockaddr *)&cmd->addr;
	if (cmd->addr_size != rdma_addr_size(addr))
		return -EINVAL;

	if (cmd->join_flags == RDMA_MC_JOIN_FLAG_FULLMEMBER)
		join_state = BIT(FULLMEMBER_JOIN);
	else if (cmd->join_flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		join_state = BIT(SENDONLY_FULLMEMBER_JOIN);
	else
		return -EINVAL;

	ctx = ucma_get_ctx_dev(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc) {
		ret = -ENOMEM;
		goto err_put;
	}
	mc->ctx = ctx;
	mc->join_state = join_state;
	mc->uid = cmd->uid;
	memcpy(&mc->addr, addr, cmd->addr_size);
	INIT_LIST_HEAD(&mc->list);

	if (xa_alloc(&multicast_table, &mc->id, NULL, xa_limit_32b,
		     GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_free;
	}

	mutex_lock(&ctx->mutex);
	ret = rdma_join_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr,
				  join_state, mc);
	if (!ret)
		list_add_tail(&mc->list, &ctx->mc_list);
	mutex_unlock(&ctx->mutex);
	if (ret)
		goto err_erase;

	resp.id = mc->id;
	if (copy_to_user(u64_to_user_ptr(cmd->response), &resp, sizeof(resp))) {
		ret = -EFAULT;
		goto err_leave;
	}

	xa_store(&multicast_table, mc->id, mc, 0);
	ucma_put_ctx(ctx);
	return 0;

err_leave:
	mutex_lock(&ctx->mutex);
	rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	list_del(&mc->list);
	mutex_unlock(&ctx->mutex);
	ucma_cleanup_mc_events(mc);
err_erase:
	xa_erase(&multicast_table, mc->id);
err_free:
	kfree(mc);
err_put:
	ucma_put_ctx(ctx);
	return ret;
}

static ssize_t ucma_join_ip_multicast(struct ucma_file *file,
				      const char __user *inbuf,
				      int in_len, int out_len)
{
	struct rdma_ucm_join_ip_mcast cmd;
	struct rdma_ucm_join_mcast join_cmd = {};

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	join_cmd.response = cmd.response;
	join_cmd.uid = cmd.uid;
	join_cmd.id = cmd.id;
	join_cmd.addr_size = rdma_addr_size_in6(&cmd.addr);
	if (!join_cmd.addr_size)
		return -EINVAL;
	join_cmd.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	memcpy(&join_cmd.addr, &cmd.addr, join_cmd.addr_size);
	return ucma_process_join(file, &join_cmd, out_len);
}

static ssize_t ucma_join_multicast(struct ucma_file *file,
				   const char __user *inbuf,
				   int in_len, int out_len)
{
	struct rdma_ucm_join_mcast cmd;

	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;
	if (!rdma_addr_size_kss(&cmd.addr))
		return -EINVAL;
	return ucma_process_join(file, &cmd, out_len);
}

static ssize_t ucma_leave_multicast(struct ucma_file *file,
				    const char __user *inbuf,
				    int in_len, int out_len)
{
	struct rdma_ucm_destroy_id_resp resp = {};
	struct rdma_ucm_destroy_id cmd;
	struct ucma_multicast *mc;
	struct ucma_context *ctx;
	int ret = 0;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	xa_lock(&multicast_table);
	mc = xa_load(&multicast_table, cmd.id);
	if (!mc)
		ret = -ENOENT;
	else if (READ_ONCE(mc->ctx->file) != file)
		ret = -EINVAL;
	else if (!refcount_inc_not_zero(&mc->ctx->ref))
		ret = -ENXIO;
	else
		__xa_store(&multicast_table, mc->id, NULL, 0);
	xa_unlock(&multicast_table);
	if (ret)
		return ret;

	ctx = mc->ctx;
	mutex_lock(&ctx->mutex);
	rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	list_del(&mc->list);
	mutex_unlock(&ctx->mutex);

	ucma_cleanup_mc_events(mc);
	xa_erase(&multicast_table, mc->id);
	resp.events_reported = mc->events_reported;
	kfree(mc);
	ucma_put_ctx(ctx);

	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

static void ucma_lock_files(struct ucma_file *a, struct ucma_file *b)
{
	/* Address order avoids ABBA between two concurrent migrations. */
	if (a < b) {
		mutex_lock(&a->mut);
		mutex_lock_nested(&b->mut, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(&b->mut);
		mutex_lock_nested(&a->mut, SINGLE_DEPTH_NESTING);
	}
}

static void ucma_unlock_files(struct ucma_file *a, struct ucma_file *b)
{
	mutex_unlock(&a->mut);
	mutex_unlock(&b->mut);
}

static ssize_t ucma_migrate_id(struct ucma_file *new_file,
			       const char __user *inbuf,
			       int in_len, int out_len)
{
	struct rdma_ucm_migrate_resp resp = {};
	struct rdma_ucm_migrate_id cmd;
	struct ucma_event *uevent, *tmp;
	struct ucma_context *ctx;
	struct ucma_file *cur_file;
	LIST_HEAD(event_list);
	struct fd f;
	int ret = 0;

	if (out_len < sizeof(resp))
		return -ENOSPC;
	if (copy_from_user(&cmd, inbuf, sizeof(cmd)))
		return -EFAULT;

	f = fdget(cmd.fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	cur_file = f.file->private_data;

	ctx = ucma_get_ctx(cur_file, cmd.id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fd;
	}

	/* No event may be queued on the old file while we move. */
	rdma_lock_handler(ctx->cm_id);
	if (cur_file == new_file) {
		mutex_lock(&cur_file->mut);
		resp.events_reported = ctx->events_reported;
		mutex_unlock(&cur_file->mut);
		goto response;
	}

	ucma_lock_files(cur_file, new_file);
	xa_lock(&ctx_table);
	list_move_tail(&ctx->list, &new_file->ctx_list);
	ctx->file = new_file;
	xa_unlock(&ctx_table);
	list_for_each_entry_safe(uevent, tmp, &cur_file->event_list, list)
		if (uevent->ctx == ctx)
			list_move_tail(&uevent->list, &event_list);
	list_splice_tail(&event_list, &new_file->event_list);
	resp.events_reported = ctx->events_reported;
	ucma_unlock_files(cur_file, new_file);
	wake_up_interruptible(&new_file->poll_wait);

response:
	if (copy_to_user(u64_to_user_ptr(cmd.response), &resp, sizeof(resp)))
		ret = -EFAULT;
	rdma_unlock_handler(ctx->cm_id);
	ucma_put_ctx(ctx);
out_fd:
	fdput(f);
	return ret;
}

static ssize_t (*const ucma_cmd_table[])(struct ucma_file *file,
					 const char __user *inbuf,
					 int in_len, int out_len) = {
	[RDMA_USER_CM_CMD_CREATE_ID]		= ucma_create_id,
	[RDMA_USER_CM_CMD_DESTROY_ID]		= ucma_destroy_id,
	[RDMA_USER_CM_CMD_BIND_IP]		= ucma_bind_ip,
	[RDMA_USER_CM_CMD_RESOLVE_IP]		= ucma_resolve_ip,
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE]	= ucma_resolve_route,
	[RDMA_USER_CM_CMD_QUERY_ROUTE]		= ucma_query_route,
	[RDMA_USER_CM_CMD_CONNECT]		= ucma_connect,
	[RDMA_USER_CM_CMD_LISTEN]		= ucma_listen,
	[RDMA_USER_CM_CMD_ACCEPT]		= ucma_accept,
	[RDMA_USER_CM_CMD_REJECT]		= ucma_reject,
	[RDMA_USER_CM_CMD_DISCONNECT]		= ucma_disconnect,
	[RDMA_USER_CM_CMD_INIT_QP_ATTR]		= ucma_init_qp_attr,
	[RDMA_USER_CM_CMD_GET_EVENT]		= ucma_get_event,
	[RDMA_USER_CM_CMD_GET_OPTION]		= NULL,
	[RDMA_USER_CM_CMD_SET_OPTION]		= ucma_set_option,
	[RDMA_USER_CM_CMD_NOTIFY]		= ucma_notify,
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST]	= ucma_join_ip_multicast,
	[RDMA_USER_CM_CMD_LEAVE_MCAST]		= ucma_leave_multicast,
	[RDMA_USER_CM_CMD_MIGRATE_ID]		= ucma_migrate_id,
	[RDMA_USER_CM_CMD_QUERY]		= ucma_query,
	[RDMA_USER_CM_CMD_BIND]			= ucma_bind,
	[RDMA_USER_CM_CMD_RESOLVE_ADDR]		= ucma_resolve_addr,
	[RDMA_USER_CM_CMD_JOIN_MCAST]		= ucma_join_multicast,
};

/* ------------------------------------------------------------ file ops */

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	struct ucma_file *file = filp->private_data;
	struct rdma_ucm_cmd_hdr hdr;
	unsigned int cmd;
	ssize_t ret;

	/* A write() handed to a more privileged process must not act. */
	if (filp->f_cred != current_cred())
		return -EACCES;
	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(ucma_cmd_table))
		return -EINVAL;
	cmd = array_index_nospec(hdr.cmd, ARRAY_SIZE(ucma_cmd_table));
	if (hdr.in + sizeof(hdr) > len)
		return -EINVAL;
	if (!ucma_cmd_table[cmd])
		return -ENOSYS;

	ret = ucma_cmd_table[cmd](file, buf + sizeof(hdr), hdr.in, hdr.out);
	return ret ? ret : len;
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucma_file *file = filp->private_data;

	poll_wait(filp, &file->poll_wait, wait);
	return list_empty(&file->event_list) ? 0 : EPOLLIN | EPOLLRDNORM;
}

static int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file;

	file = kmalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;

	mutex_init(&file->mut);
	INIT_LIST_HEAD(&file->event_list);
	INIT_LIST_HEAD(&file->ctx_list);
	init_waitqueue_head(&file->poll_wait);
	filp->private_data = file;
	file->filp = filp;
	return stream_open(inode, filp);
}

static int ucma_close(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_context *ctx;

	/*
	 * No command can run any more (last reference), but events still
	 * can until each id is destroyed.
	 */
	mutex_lock(&file->mut);
	while (!list_empty(&file->ctx_list)) {
		ctx = list_first_entry(&file->ctx_list, struct ucma_context,
				       list);
		mutex_unlock(&file->mut);

		xa_lock(&ctx_table);
		__xa_store(&ctx_table, ctx->id, NULL, 0);
		xa_unlock(&ctx_table);
		ucma_destroy_private_ctx(ctx);

		mutex_lock(&file->mut);
	}
	mutex_unlock(&file->mut);

	/* Every event belonged to a context just destroyed; be defensive. */
	while (!list_empty(&file->event_list)) {
		struct ucma_event *uevent;

		uevent = list_first_entry(&file->event_list, struct ucma_event,
					  list);
		list_del(&uevent->list);
		kfree(uevent);
	}
	mutex_destroy(&file->mut);
	kfree(file);
	return 0;
}

static const struct file_operations ucma_fops = {
	.owner		= THIS_MODULE,
	.open		= ucma_open,
	.release	= ucma_close,
	.write		= ucma_write,
	.poll		= ucma_poll,
	.llseek		= no_llseek,
};

static struct miscdevice ucma_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "rdma_cm",
	.nodename	= "infiniband/rdma_cm",
	.mode		= 0666,
	.fops		= &ucma_fops,
};

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

/* NLDEV GET_CHARDEV "rdma_cm" without a device: one node for all. */
static int ucma_get_global_nl_info(struct ib_client_nl_info *res)
{
	res->abi = RDMA_USER_CM_ABI_VERSION;
	res->cdev = ucma_misc.this_device;
	return 0;
}

static struct ib_client rdma_cma_client = {
	.name			= "rdma_cm",
	.no_kverbs_req		= true,
	.get_global_nl_info	= ucma_get_global_nl_info,
};

static int __init ucma_init(void)
{
	int ret;

	ret = misc_register(&ucma_misc);
	if (ret)
		return ret;

	ret = device_create_file(ucma_misc.this_device, &dev_attr_abi_version);
	if (ret) {
		pr_err("rdma_ucm: couldn't create abi_version attr\n");
		goto err_misc;
	}

	ucma_ctl_table_hdr = register_net_sysctl(&init_net, "net/rdma_ucm",
						 ucma_ctl_table);
	if (!ucma_ctl_table_hdr) {
		pr_err("rdma_ucm: couldn't register sysctl paths\n");
		ret = -ENOMEM;
		goto err_attr;
	}

	ret = ib_register_client(&rdma_cma_client);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	unregister_net_sysctl_table(ucma_ctl_table_hdr);
err_attr:
	device_remove_file(ucma_misc.this_device, &dev_attr_abi_version);
err_misc:
	misc_deregister(&ucma_misc);
	return ret;
}

static void __exit ucma_cleanup(void)
{
	ib_unregister_client(&rdma_cma_client);
	unregister_net_sysctl_table(ucma_ctl_table_hdr);
	device_remove_file(ucma_misc.this_device, &dev_attr_abi_version);
	misc_deregister(&ucma_misc);
}

module_init(ucma_init);
module_exit(ucma_cleanup);
