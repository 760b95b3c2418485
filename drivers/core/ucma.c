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
 * Commands are described by a table (ucm_cmds[]): how much payload to
 * read, the smallest answer buffer, where the id sits in the payload and
 * whether the command runs under the id's mutex. One runner (ucm_call_run)
 * does the copying, lookup, locking and answering, so each command is only
 * its own logic.
 *
 * Lifetimes: an id is looked up by handle in ucm_ids and pinned by
 * id->users while a command runs. Whoever destroys it first makes it
 * unfindable, drops the base reference and waits for the command
 * references to go before rdma_destroy_id(). The ids of incoming
 * connections stay unpublished (reserved handle, not on any list) until
 * userspace fetches their CONNECT_REQUEST event; until then the pending
 * event owns them.
 *
 * Lock order: id->lock -> rdma_cm handler lock -> file->lock -> xa_lock.
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

/* net.rdma_ucm.max_backlog: the most requests a listener keeps queued. */
static unsigned int ucm_backlog_cap = 1024;

static struct ctl_table ucm_sysctl_vars[] = {
	{ .procname = "max_backlog", .data = &ucm_backlog_cap,
	  .maxlen = sizeof(ucm_backlog_cap), .mode = 0644,
	  .proc_handler = proc_dointvec },
	{}
};
static struct ctl_table_header *ucm_sysctl;

/* One open of the character device. */
struct ucm_file {
	struct file		*filp;
	wait_queue_head_t	waitq;
	struct mutex		lock;		/* ids, events */
	struct list_head	ids;
	struct list_head	events;
};

/* One rdma_cm id as userspace sees it. */
struct ucm_id {
	struct rdma_cm_id	*cm_id;
	/* Changed only by MIGRATE_ID, under both files' lock. */
	struct ucm_file		*file;
	u64			user_ctx;	/* librdmacm's uid */
	u32			handle;		/* index in ucm_ids */
	bool			dying;		/* under ucm_ids' lock */
	int			delivered;	/* events fetched by userspace */
	atomic_t		backlog;	/* room for CONNECT_REQUESTs */
	refcount_t		users;
	struct completion	unused;		/* users reached zero */
	struct mutex		lock;		/* commands on this id; groups */
	struct list_head	groups;
	struct list_head	link;		/* in file->ids */
	struct work_struct	reaper;
};

/* One multicast join made through an id. */
struct ucm_group {
	struct list_head	link;		/* in owner->groups */
	struct ucm_id		*owner;
	struct sockaddr_storage	addr;
	u64			user_ctx;
	u32			handle;		/* index in ucm_groups */
	int			delivered;
};

struct ucm_evt {
	struct list_head	link;		/* in file->events */
	struct ucm_id		*owner;
	struct ucm_id		*child;		/* CONNECT_REQUEST: the new id */
	struct ucm_group	*group;		/* multicast events */
	struct rdma_ucm_event_resp resp;
};

/* AF_IB address as librdmacm reads it (QUERY GID); 48 bytes. */
struct ucm_sockaddr_ib {
	unsigned short		sib_family;
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	u8			sib_addr[16] __aligned(8);
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

static DEFINE_XARRAY_ALLOC(ucm_ids);
static DEFINE_XARRAY_ALLOC(ucm_groups);

static const struct file_operations ucm_fops;
static int ucm_id_destroy(struct ucm_id *id);

/* ------------------------------------------------------------ ids */

static void ucm_id_put(struct ucm_id *id)
{
	if (refcount_dec_and_test(&id->users))
		complete(&id->unused);
}

/* Pins the id @handle of @file; @bound: it must have a device already. */
static struct ucm_id *ucm_id_get(struct ucm_file *file, u32 handle, bool bound)
{
	struct ucm_id *id;
	int err = 0;

	xa_lock(&ucm_ids);
	id = xa_load(&ucm_ids, handle);
	if (!id)
		err = -ENOENT;
	else if (id->file != file)
		err = -EINVAL;
	else if (!refcount_inc_not_zero(&id->users))
		err = -ENXIO;	/* torn down by device removal */
	xa_unlock(&ucm_ids);
	if (err)
		return ERR_PTR(err);

	if (bound && !id->cm_id->device) {
		ucm_id_put(id);
		return ERR_PTR(-EINVAL);
	}
	return id;
}

/*
 * Hides the id @handle of @file from lookups (its handle stays reserved
 * until ucm_id_destroy frees it) so only the caller can destroy it.
 */
static struct ucm_id *ucm_id_unpublish(struct ucm_file *file, u32 handle)
{
	struct ucm_id *id;

	xa_lock(&ucm_ids);
	id = xa_load(&ucm_ids, handle);
	if (!id)
		id = ERR_PTR(-ENOENT);
	else if (id->file != file)
		id = ERR_PTR(-EINVAL);
	else
		__xa_store(&ucm_ids, handle, NULL, 0);
	xa_unlock(&ucm_ids);
	return id;
}

/* Base reference gone and commands drained: the rdma_cm id can go. */
static void ucm_id_release_cm(struct work_struct *work)
{
	struct ucm_id *id = container_of(work, struct ucm_id, reaper);

	ucm_id_put(id);
	wait_for_completion(&id->unused);
	rdma_destroy_id(id->cm_id);
	id->cm_id = NULL;
}

static struct ucm_id *ucm_id_new(struct ucm_file *file)
{
	struct ucm_id *id = kzalloc(sizeof(*id), GFP_KERNEL);

	if (!id)
		return NULL;
	/* Reserve a handle now; the id becomes findable later. */
	if (xa_alloc(&ucm_ids, &id->handle, NULL, xa_limit_32b, GFP_KERNEL)) {
		kfree(id);
		return NULL;
	}
	id->file = file;
	refcount_set(&id->users, 1);
	init_completion(&id->unused);
	mutex_init(&id->lock);
	INIT_LIST_HEAD(&id->groups);
	INIT_LIST_HEAD(&id->link);
	INIT_WORK(&id->reaper, ucm_id_release_cm);
	return id;
}

/* Undoes ucm_id_new for an id that never got a cm_id of its own. */
static void ucm_id_discard(struct ucm_id *id)
{
	xa_erase(&ucm_ids, id->handle);
	kfree(id);
}

/* Makes a fully set up id reachable by commands. file->lock held. */
static void ucm_id_publish(struct ucm_id *id)
{
	list_add_tail(&id->link, &id->file->ids);
	xa_store(&ucm_ids, id->handle, id, GFP_KERNEL);
}

/* ------------------------------------------------------------ events */

/* Moves the queued events of @owner, or of @group, to @out. file->lock. */
static void ucm_evts_take(struct ucm_file *file, struct ucm_id *owner,
			  struct ucm_group *group, struct list_head *out)
{
	struct ucm_evt *e, *next;

	list_for_each_entry_safe(e, next, &file->events, link) {
		if ((owner && e->owner == owner) || (group && e->group == group))
			list_move_tail(&e->link, out);
	}
}

/*
 * Frees events taken off a file. A CONNECT_REQUEST never fetched was never
 * published, so its new id is ours to destroy.
 */
static void ucm_evts_free(struct list_head *list)
{
	struct ucm_evt *e, *next;

	list_for_each_entry_safe(e, next, list, link) {
		list_del(&e->link);
		if (e->child)
			ucm_id_destroy(e->child);
		kfree(e);
	}
}

static void ucm_ah_out(struct ib_uverbs_ah_attr *out,
		       const struct rdma_ah_attr *ah)
{
	bool grh = rdma_ah_get_ah_flags(ah) & IB_AH_GRH;

	*out = (struct ib_uverbs_ah_attr) {
		.dlid = rdma_ah_get_dlid(ah),
		.sl = rdma_ah_get_sl(ah),
		.static_rate = rdma_ah_get_static_rate(ah),
		.port_num = rdma_ah_get_port_num(ah),
		.is_global = grh,
		.src_path_bits = ah->type == RDMA_AH_ATTR_TYPE_IB ?
				 ah->ib.src_path_bits : 0,
	};
	if (grh) {
		const struct ib_global_route *g = rdma_ah_read_grh(ah);

		out->grh = (struct ib_uverbs_global_route) {
			.flow_label = g->flow_label,
			.sgid_index = g->sgid_index,
			.hop_limit = g->hop_limit,
			.traffic_class = g->traffic_class,
		};
		memcpy(out->grh.dgid, g->dgid.raw, sizeof(out->grh.dgid));
	}
}

/* Private data travels in the event itself, never by pointer. */
static u8 ucm_pdata_out(u8 *dst, const void *src, u8 len)
{
	if (!src || !len)
		return 0;
	memcpy(dst, src, len);
	return len;
}

static void ucm_evt_fill(struct ucm_evt *e, struct rdma_cm_id *cm_id,
			 const struct rdma_cm_event *ev)
{
	struct rdma_ucm_event_resp *r = &e->resp;

	r->event = ev->event;
	r->status = ev->status;
	r->ece = ev->ece;
	if (cm_id->qp_type != IB_QPT_UD) {
		const struct rdma_conn_param *cp = &ev->param.conn;

		r->param.conn.private_data_len =
			ucm_pdata_out(r->param.conn.private_data,
				      cp->private_data, cp->private_data_len);
		r->param.conn.qp_num = cp->qp_num;
		r->param.conn.srq = cp->srq;
		r->param.conn.responder_resources = cp->responder_resources;
		r->param.conn.initiator_depth = cp->initiator_depth;
		r->param.conn.retry_count = cp->retry_count;
		r->param.conn.rnr_retry_count = cp->rnr_retry_count;
		r->param.conn.flow_control = cp->flow_control;
		return;
	}
	r->param.ud.qp_num = ev->param.ud.qp_num;
	r->param.ud.qkey = ev->param.ud.qkey;
	ucm_ah_out(&r->param.ud.ah_attr, &ev->param.ud.ah_attr);
	/* A multicast event's private_data is the join, not user data. */
	if (!e->group)
		r->param.ud.private_data_len =
			ucm_pdata_out(r->param.ud.private_data,
				      ev->param.ud.private_data,
				      ev->param.ud.private_data_len);
}

static void ucm_evt_queue(struct ucm_file *file, struct ucm_evt *e)
{
	mutex_lock(&file->lock);
	list_add_tail(&e->link, &file->events);
	mutex_unlock(&file->lock);
	wake_up_interruptible(&file->waitq);
}

/* A new connection on a listener: cm_id is the new id rdma_cm made. */
static int ucm_on_conn_request(struct ucm_id *lsn, struct rdma_cm_id *cm_id,
			       struct rdma_cm_event *ev)
{
	struct ucm_id *child = NULL;
	struct ucm_evt *e;

	if (!atomic_add_unless(&lsn->backlog, -1, 0))
		return -ENOMEM;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (e)
		child = ucm_id_new(lsn->file);
	if (!child) {
		kfree(e);
		atomic_inc(&lsn->backlog);
		/* Non-zero: rdma_cm destroys the new id itself. */
		return -ENOMEM;
	}
	child->cm_id = cm_id;
	cm_id->context = child;

	e->owner = lsn;
	e->child = child;
	e->resp.uid = lsn->user_ctx;
	e->resp.id = child->handle;
	ucm_evt_fill(e, cm_id, ev);
	/* The listener's file: it cannot migrate while we hold its handler. */
	ucm_evt_queue(lsn->file, e);
	return 0;
}

static int ucm_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	struct ucm_id *id = cm_id->context;
	struct ucm_evt *e;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucm_on_conn_request(id, cm_id, ev);

	/*
	 * A new connection has no uid until userspace accepts it; its early
	 * errors are dropped (the accept then fails), as upstream does.
	 */
	e = READ_ONCE(id->user_ctx) ? kzalloc(sizeof(*e), GFP_KERNEL) : NULL;
	if (e) {
		e->owner = id;
		e->resp.uid = id->user_ctx;
		e->resp.id = id->handle;
		if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
		    ev->event == RDMA_CM_EVENT_MULTICAST_ERROR) {
			/* rdma_join_multicast's context is our group. */
			e->group = (struct ucm_group *)ev->param.ud.private_data;
			e->resp.uid = e->group->user_ctx;
			e->resp.id = e->group->handle;
		}
		ucm_evt_fill(e, cm_id, ev);
		ucm_evt_queue(id->file, e);
	}

	/*
	 * The device is going away: rdma_cm waits for every id on it, so do
	 * not wait for userspace to destroy this one.
	 */
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		xa_lock(&ucm_ids);
		if (!id->dying)
			queue_work(system_unbound_wq, &id->reaper);
		xa_unlock(&ucm_ids);
	}
	return 0;
}

/* ------------------------------------------------------------ teardown */

/*
 * Frees a group already left and off its owner's list, with its queued
 * events; returns how many of its events userspace fetched.
 */
static int ucm_group_free(struct ucm_group *grp)
{
	struct ucm_file *file = grp->owner->file;
	LIST_HEAD(stale);
	int delivered;

	mutex_lock(&file->lock);
	ucm_evts_take(file, NULL, grp, &stale);
	delivered = grp->delivered;
	mutex_unlock(&file->lock);
	ucm_evts_free(&stale);
	xa_erase(&ucm_groups, grp->handle);
	kfree(grp);
	return delivered;
}

/*
 * The id must already be unfindable (its table slot reserved-empty or
 * never filled). Returns the number of events userspace fetched for it.
 */
static int ucm_id_destroy(struct ucm_id *id)
{
	struct ucm_file *file = id->file;
	struct ucm_group *grp, *gnext;
	LIST_HEAD(stale);
	int delivered;

	xa_lock(&ucm_ids);
	id->dying = true;
	xa_unlock(&ucm_ids);

	/* Device removal may have started the teardown already. */
	cancel_work_sync(&id->reaper);
	if (refcount_read(&id->users))
		ucm_id_release_cm(&id->reaper);

	mutex_lock(&file->lock);
	ucm_evts_take(file, id, NULL, &stale);
	delivered = id->delivered;
	list_del_init(&id->link);
	mutex_unlock(&file->lock);
	ucm_evts_free(&stale);

	/* No cm_id any more, so no multicast event can be queued now. */
	mutex_lock(&id->lock);
	list_for_each_entry_safe(grp, gnext, &id->groups, link) {
		list_del(&grp->link);
		xa_erase(&ucm_groups, grp->handle);
		kfree(grp);
	}
	mutex_unlock(&id->lock);

	xa_erase(&ucm_ids, id->handle);
	mutex_destroy(&id->lock);
	kfree(id);
	return delivered;
}

/* ------------------------------------------------------------ commands */

union ucm_payload {
	struct rdma_ucm_create_id	create_id;
	struct rdma_ucm_destroy_id	destroy_id;
	struct rdma_ucm_bind_ip		bind_ip;
	struct rdma_ucm_bind		bind;
	struct rdma_ucm_resolve_ip	resolve_ip;
	struct rdma_ucm_resolve_addr	resolve_addr;
	struct rdma_ucm_resolve_route	resolve_route;
	struct rdma_ucm_query		query;
	struct rdma_ucm_connect		connect;
	struct rdma_ucm_listen		listen;
	struct rdma_ucm_accept		accept;
	struct rdma_ucm_reject		reject;
	struct rdma_ucm_disconnect	disconnect;
	struct rdma_ucm_init_qp_attr	init_qp_attr;
	struct rdma_ucm_get_event	get_event;
	struct rdma_ucm_set_option	set_option;
	struct rdma_ucm_notify		notify;
	struct rdma_ucm_join_ip_mcast	join_ip;
	struct rdma_ucm_join_mcast	join;
	struct rdma_ucm_migrate_id	migrate;
};

/* Fixed-size answers are built here and copied out by the runner. */
union ucm_answer {
	struct rdma_ucm_query_route_resp	route;
	struct rdma_ucm_query_addr_resp		addr;
	struct ib_uverbs_qp_attr		qp_attr;
};

struct ucm_call {
	struct ucm_file		*file;
	struct ucm_id		*id;		/* when the command names one */
	u32			in_len;
	u32			out_len;
	union ucm_payload	in;
	union ucm_answer	out;
	size_t			out_size;	/* bytes of @out to copy back */
	void __user		*reply;		/* where @out goes */
};

#define UCM_ID		BIT(0)	/* look up the id named in the payload */
#define UCM_BOUND	BIT(1)	/* ... which must be bound to a device */
#define UCM_LOCKED	BIT(2)	/* run under id->lock */

struct ucm_cmd {
	int	(*check)(struct ucm_call *c);	/* before the lookup */
	int	(*run)(struct ucm_call *c);
	u16	in_size;	/* payload bytes read */
	u16	in_min;		/* non-zero: shorter payloads accepted */
	u16	out_min;	/* smaller answer buffers get -ENOSPC */
	u16	id_at;		/* offset of the id in the payload */
	u16	reply_at;	/* offset of the answer pointer */
	u8	flags;
};

static int ucm_call_run(const struct ucm_cmd *cmd, struct ucm_call *c,
			const char __user *inbuf)
{
	size_t want = cmd->in_size;
	int ret;

	if (c->out_len < cmd->out_min)
		return -ENOSPC;
	/* Older librdmacm sends a shorter CONNECT/ACCEPT (no ece). */
	if (cmd->in_min) {
		if (c->in_len < cmd->in_min)
			return -EINVAL;
		want = min_t(size_t, want, c->in_len);
	}
	if (copy_from_user(&c->in, inbuf, want))
		return -EFAULT;
	if (cmd->check) {
		ret = cmd->check(c);
		if (ret)
			return ret;
	}
	/* Read after the check, which may rewrite the payload. */
	c->reply = u64_to_user_ptr(*(u64 *)((u8 *)&c->in + cmd->reply_at));
	if (cmd->flags & UCM_ID) {
		c->id = ucm_id_get(c->file, *(u32 *)((u8 *)&c->in + cmd->id_at),
				   cmd->flags & UCM_BOUND);
		if (IS_ERR(c->id))
			return PTR_ERR(c->id);
	}

	if (cmd->flags & UCM_LOCKED)
		mutex_lock(&c->id->lock);
	ret = cmd->run(c);
	if (cmd->flags & UCM_LOCKED)
		mutex_unlock(&c->id->lock);

	if (!ret && c->out_size && copy_to_user(c->reply, &c->out, c->out_size))
		ret = -EFAULT;
	if (cmd->flags & UCM_ID)
		ucm_id_put(c->id);
	return ret;
}

/* Answers of commands that cannot be undone by the runner. */
static int ucm_reply(struct ucm_call *c, const void *ans, size_t len)
{
	return copy_to_user(c->reply, ans, len) ? -EFAULT : 0;
}

/* --- id life */

static int ucm_ps_qp_type(const struct rdma_ucm_create_id *p)
{
	if (p->ps == RDMA_PS_TCP)
		return IB_QPT_RC;
	if (p->ps == RDMA_PS_UDP || p->ps == RDMA_PS_IPOIB)
		return IB_QPT_UD;
	if (p->ps == RDMA_PS_IB)
		return p->qp_type;
	return -EINVAL;
}

static int ucm_create_id(struct ucm_call *c)
{
	struct rdma_ucm_create_id_resp ans = {};
	int qpt = ucm_ps_qp_type(&c->in.create_id);
	struct rdma_cm_id *cm_id;
	struct ucm_id *id;

	if (qpt < 0)
		return qpt;
	id = ucm_id_new(c->file);
	if (!id)
		return -ENOMEM;
	id->user_ctx = c->in.create_id.uid;
	cm_id = rdma_create_user_id(ucm_cm_handler, id, c->in.create_id.ps,
				    qpt);
	if (IS_ERR(cm_id)) {
		ucm_id_discard(id);
		return PTR_ERR(cm_id);
	}
	id->cm_id = cm_id;

	ans.id = id->handle;
	if (ucm_reply(c, &ans, sizeof(ans))) {
		ucm_id_destroy(id);
		return -EFAULT;
	}
	mutex_lock(&c->file->lock);
	ucm_id_publish(id);
	mutex_unlock(&c->file->lock);
	return 0;
}

static int ucm_destroy_id(struct ucm_call *c)
{
	struct rdma_ucm_destroy_id_resp ans = {};
	struct ucm_id *id = ucm_id_unpublish(c->file, c->in.destroy_id.id);

	if (IS_ERR(id))
		return PTR_ERR(id);
	ans.events_reported = ucm_id_destroy(id);
	return ucm_reply(c, &ans, sizeof(ans));
}

/* --- addressing */

static int ucm_check_bind_ip(struct ucm_call *c)
{
	return rdma_addr_size_in6(&c->in.bind_ip.addr) ? 0 : -EINVAL;
}

static int ucm_bind_ip(struct ucm_call *c)
{
	return rdma_bind_addr(c->id->cm_id,
			      (struct sockaddr *)&c->in.bind_ip.addr);
}

static int ucm_check_bind(struct ucm_call *c)
{
	struct rdma_ucm_bind *p = &c->in.bind;

	if (p->reserved || !p->addr_size ||
	    p->addr_size != rdma_addr_size_kss(&p->addr))
		return -EINVAL;
	return 0;
}

static int ucm_bind(struct ucm_call *c)
{
	return rdma_bind_addr(c->id->cm_id, (struct sockaddr *)&c->in.bind.addr);
}

static int ucm_check_resolve_ip(struct ucm_call *c)
{
	struct rdma_ucm_resolve_ip *p = &c->in.resolve_ip;

	if (p->src_addr.sin6_family && !rdma_addr_size_in6(&p->src_addr))
		return -EINVAL;
	return rdma_addr_size_in6(&p->dst_addr) ? 0 : -EINVAL;
}

static int ucm_resolve_ip(struct ucm_call *c)
{
	struct rdma_ucm_resolve_ip *p = &c->in.resolve_ip;

	return rdma_resolve_addr(c->id->cm_id, (struct sockaddr *)&p->src_addr,
				 (struct sockaddr *)&p->dst_addr, p->timeout_ms);
}

static int ucm_check_resolve_addr(struct ucm_call *c)
{
	struct rdma_ucm_resolve_addr *p = &c->in.resolve_addr;

	if (p->reserved || !p->dst_size ||
	    p->dst_size != rdma_addr_size_kss(&p->dst_addr))
		return -EINVAL;
	if (p->src_size && p->src_size != rdma_addr_size_kss(&p->src_addr))
		return -EINVAL;
	return 0;
}

static int ucm_resolve_addr(struct ucm_call *c)
{
	struct rdma_ucm_resolve_addr *p = &c->in.resolve_addr;

	return rdma_resolve_addr(c->id->cm_id, (struct sockaddr *)&p->src_addr,
				 (struct sockaddr *)&p->dst_addr, p->timeout_ms);
}

static int ucm_resolve_route(struct ucm_call *c)
{
	return rdma_resolve_route(c->id->cm_id, c->in.resolve_route.timeout_ms);
}

/* --- queries */

static void ucm_path_out(struct ib_user_path_rec *out,
			 struct sa_path_rec *rec)
{
	*out = (struct ib_user_path_rec) {
		.dlid = htons(ntohl(sa_path_get_dlid(rec))),
		.slid = htons(ntohl(sa_path_get_slid(rec))),
		.raw_traffic = sa_path_get_raw_traffic(rec),
		.pkey = rec->pkey,
		.sl = rec->sl,
		.mtu = rec->mtu,
		.mtu_selector = rec->mtu_selector,
		.rate = rec->rate,
		.rate_selector = rec->rate_selector,
		.packet_life_time = rec->packet_life_time,
		.packet_life_time_selector = rec->packet_life_time_selector,
		.flow_label = rec->flow_label,
		.hop_limit = rec->hop_limit,
		.traffic_class = rec->traffic_class,
		.reversible = rec->reversible,
		.numb_path = rec->numb_path,
		.preference = rec->preference,
	};
	memcpy(out->sgid, rec->sgid.raw, sizeof(out->sgid));
	memcpy(out->dgid, rec->dgid.raw, sizeof(out->dgid));
}

/* At most sizeof(sockaddr_in6) of an address: QUERY_ROUTE's fixed slots. */
static void ucm_addr_in6_out(struct sockaddr_in6 *out,
			     const struct sockaddr_storage *ss)
{
	size_t len = rdma_addr_size((const struct sockaddr *)ss);

	memcpy(out, ss, min(len, sizeof(*out)));
}

/* Routes librdmacm learns without resolving anything (iWARP, unrouted). */
static void ucm_route_gids(struct rdma_cm_id *cm_id,
			   struct ib_user_path_rec *rec)
{
	struct rdma_addr *a = &cm_id->route.addr;

	if (rdma_protocol_iwarp(cm_id->device, cm_id->port_num)) {
		rdma_addr_get_sgid(&a->dev_addr, (union ib_gid *)rec->sgid);
		rdma_addr_get_dgid(&a->dev_addr, (union ib_gid *)rec->dgid);
		return;
	}
	if (rdma_protocol_ib(cm_id->device, cm_id->port_num)) {
		/* IPoIB: the GIDs of the resolved hardware addresses. */
		rdma_addr_get_sgid(&a->dev_addr, (union ib_gid *)rec->sgid);
		rdma_addr_get_dgid(&a->dev_addr, (union ib_gid *)rec->dgid);
	} else {
		rdma_ip2gid((struct sockaddr *)&a->src_addr,
			    (union ib_gid *)rec->sgid);
		rdma_ip2gid((struct sockaddr *)&a->dst_addr,
			    (union ib_gid *)rec->dgid);
	}
	rec->pkey = cpu_to_be16(ib_addr_get_pkey(&a->dev_addr));
}

static int ucm_query_route(struct ucm_call *c)
{
	struct rdma_ucm_query_route_resp *ans = &c->out.route;
	struct rdma_cm_id *cm_id = c->id->cm_id;
	u32 i;

	ucm_addr_in6_out(&ans->src_addr, &cm_id->route.addr.src_addr);
	ucm_addr_in6_out(&ans->dst_addr, &cm_id->route.addr.dst_addr);
	c->out_size = min_t(size_t, c->out_len, sizeof(*ans));
	if (!cm_id->device)
		return 0;

	ans->node_guid = (__force __u64)cm_id->device->node_guid;
	ans->ibdev_index = cm_id->device->index;
	ans->port_num = cm_id->port_num;
	if (!rdma_protocol_iwarp(cm_id->device, cm_id->port_num))
		ans->num_paths = min_t(u32, cm_id->route.num_pri_alt_paths, 2);
	for (i = 0; i < ans->num_paths; i++)
		ucm_path_out(&ans->ib_route[i], &cm_id->route.path_rec[i]);
	if (!ans->num_paths)
		ucm_route_gids(cm_id, &ans->ib_route[0]);
	return 0;
}

/*
 * QUERY ADDR and QUERY GID answer the same structure; this sets what they
 * share: the length check, and the device the id is bound to if any.
 */
static struct rdma_ucm_query_addr_resp *ucm_addr_answer(struct ucm_call *c)
{
	struct rdma_ucm_query_addr_resp *ans = &c->out.addr;
	struct rdma_cm_id *cm_id = c->id->cm_id;

	if (c->out_len < offsetof(struct rdma_ucm_query_addr_resp, ibdev_index))
		return ERR_PTR(-ENOSPC);
	c->out_size = min_t(size_t, c->out_len, sizeof(*ans));
	if (cm_id->device) {
		ans->node_guid = (__force __u64)cm_id->device->node_guid;
		ans->ibdev_index = cm_id->device->index;
		ans->port_num = cm_id->port_num;
		ans->pkey = (__force __u16)cpu_to_be16(
			ib_addr_get_pkey(&cm_id->route.addr.dev_addr));
	}
	return ans;
}

static int ucm_query_addr(struct ucm_call *c)
{
	struct rdma_ucm_query_addr_resp *ans = ucm_addr_answer(c);
	struct rdma_addr *a = &c->id->cm_id->route.addr;

	if (IS_ERR(ans))
		return PTR_ERR(ans);
	ans->src_size = rdma_addr_size((struct sockaddr *)&a->src_addr);
	memcpy(&ans->src_addr, &a->src_addr, ans->src_size);
	ans->dst_size = rdma_addr_size((struct sockaddr *)&a->dst_addr);
	memcpy(&ans->dst_addr, &a->dst_addr, ans->dst_size);
	return 0;
}

/* An address seen as AF_IB: IP ones are turned into GID + service id. */
static void ucm_sib_out(struct ucm_sockaddr_ib *sib, struct rdma_cm_id *cm_id,
			struct sockaddr_storage *ss, __be16 pkey, bool local)
{
	union ib_gid *gid = (union ib_gid *)sib->sib_addr;

	if (ss->ss_family == AF_IB) {
		memcpy(sib, ss, sizeof(*sib));
		return;
	}
	sib->sib_family = AF_IB;
	sib->sib_pkey = pkey;
	rdma_read_gids(cm_id, local ? gid : NULL, local ? NULL : gid);
	sib->sib_sid = rdma_get_service_id(cm_id, (struct sockaddr *)ss);
}

static int ucm_query_gid(struct ucm_call *c)
{
	struct rdma_ucm_query_addr_resp *ans = ucm_addr_answer(c);
	struct rdma_cm_id *cm_id = c->id->cm_id;

	BUILD_BUG_ON(sizeof(struct ucm_sockaddr_ib) != 48);
	if (IS_ERR(ans))
		return PTR_ERR(ans);
	ucm_sib_out((struct ucm_sockaddr_ib *)&ans->src_addr, cm_id,
		    &cm_id->route.addr.src_addr, (__force __be16)ans->pkey, true);
	ucm_sib_out((struct ucm_sockaddr_ib *)&ans->dst_addr, cm_id,
		    &cm_id->route.addr.dst_addr, (__force __be16)ans->pkey, false);
	ans->src_size = sizeof(struct ucm_sockaddr_ib);
	ans->dst_size = sizeof(struct ucm_sockaddr_ib);
	return 0;
}

/* Variable length: as many packed path records as the buffer holds. */
static int ucm_query_path(struct ucm_call *c)
{
	struct rdma_route *route = &c->id->cm_id->route;
	struct rdma_ucm_query_path_resp *ans;
	u32 room, n;
	int ret;

	if (c->out_len < struct_size(ans, path_data, 1))
		return -ENOSPC;
	room = (c->out_len - sizeof(*ans)) / sizeof(ans->path_data[0]);
	ans = kzalloc(c->out_len, GFP_KERNEL);
	if (!ans)
		return -ENOMEM;
	for (n = 0; n < route->num_pri_alt_paths && n < room; n++) {
		ans->path_data[n].flags = IB_PATH_GMP | IB_PATH_PRIMARY |
					  IB_PATH_BIDIRECTIONAL;
		ib_sa_pack_path(&route->path_rec[n],
				ans->path_data[n].path_rec);
	}
	ans->num_paths = n;
	ret = ucm_reply(c, ans, struct_size(ans, path_data, n));
	kfree(ans);
	return ret;
}

static int (*const ucm_queries[])(struct ucm_call *c) = {
	[RDMA_USER_CM_QUERY_ADDR]	= ucm_query_addr,
	[RDMA_USER_CM_QUERY_PATH]	= ucm_query_path,
	[RDMA_USER_CM_QUERY_GID]	= ucm_query_gid,
};

static int ucm_query(struct ucm_call *c)
{
	u32 opt = c->in.query.option;

	if (opt >= ARRAY_SIZE(ucm_queries))
		return -ENOSYS;
	return ucm_queries[array_index_nospec(opt, ARRAY_SIZE(ucm_queries))](c);
}

/* --- connections */

static void ucm_conn_param_in(struct rdma_conn_param *cp,
			      const struct rdma_ucm_conn_param *u,
			      struct rdma_cm_id *cm_id)
{
	*cp = (struct rdma_conn_param) {
		.private_data = u->private_data,
		.private_data_len = u->private_data_len,
		.qp_num = u->qp_num,
		.srq = u->srq,
		.responder_resources = u->responder_resources,
		.initiator_depth = u->initiator_depth,
		.retry_count = u->retry_count,
		.rnr_retry_count = u->rnr_retry_count,
		.flow_control = u->flow_control,
	};
	/* Only AF_IB users may pick the Q_Key; IP ids get rdma_cm's. */
	if (cm_id->route.addr.src_addr.ss_family == AF_IB)
		cp->qkey = u->qkey;
}

static int ucm_check_connect(struct ucm_call *c)
{
	return c->in.connect.conn_param.valid ? 0 : -EINVAL;
}

static int ucm_connect(struct ucm_call *c)
{
	struct rdma_conn_param cp;

	ucm_conn_param_in(&cp, &c->in.connect.conn_param, c->id->cm_id);
	return rdma_connect_ece(c->id->cm_id, &cp, &c->in.connect.ece);
}

static int ucm_listen(struct ucm_call *c)
{
	unsigned int want = c->in.listen.backlog;
	unsigned int n = READ_ONCE(ucm_backlog_cap);

	if (want && want < n)
		n = want;
	n = min_t(unsigned int, n, INT_MAX);
	atomic_set(&c->id->backlog, n);
	return rdma_listen(c->id->cm_id, n);
}

static int ucm_accept(struct ucm_call *c)
{
	struct rdma_ucm_accept *p = &c->in.accept;
	struct rdma_cm_id *cm_id = c->id->cm_id;
	struct rdma_conn_param cp;
	int ret;

	/* Under the handler lock so the ESTABLISHED event sees the uid. */
	rdma_lock_handler(cm_id);
	if (!p->conn_param.valid) {
		/* Active side finishing the handshake after CONNECT_RESPONSE. */
		ret = rdma_accept_ece(cm_id, NULL, &p->ece);
	} else {
		ucm_conn_param_in(&cp, &p->conn_param, cm_id);
		ret = rdma_accept_ece(cm_id, &cp, &p->ece);
		if (!ret)
			WRITE_ONCE(c->id->user_ctx, p->uid);
	}
	rdma_unlock_handler(cm_id);
	return ret;
}

static int ucm_check_reject(struct ucm_call *c)
{
	struct rdma_ucm_reject *p = &c->in.reject;

	if (!p->reason)
		p->reason = IB_CM_REJ_CONSUMER_DEFINED;
	if (p->reason != IB_CM_REJ_CONSUMER_DEFINED &&
	    p->reason != IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;
	return 0;
}

static int ucm_reject(struct ucm_call *c)
{
	struct rdma_ucm_reject *p = &c->in.reject;

	return rdma_reject(c->id->cm_id, p->private_data, p->private_data_len,
			   p->reason);
}

static int ucm_disconnect(struct ucm_call *c)
{
	return rdma_disconnect(c->id->cm_id);
}

static void ucm_qp_attr_out(struct ib_uverbs_qp_attr *out,
			    const struct ib_qp_attr *a, int mask)
{
	*out = (struct ib_uverbs_qp_attr) {
		.qp_attr_mask = mask,
		.qp_state = a->qp_state,
		.cur_qp_state = a->cur_qp_state,
		.path_mig_state = a->path_mig_state,
		.path_mtu = a->path_mtu,
		.qp_access_flags = a->qp_access_flags,
		.dest_qp_num = a->dest_qp_num,
		.qkey = a->qkey,
		.sq_psn = a->sq_psn,
		.rq_psn = a->rq_psn,
		.pkey_index = a->pkey_index,
		.alt_pkey_index = a->alt_pkey_index,
		.port_num = a->port_num,
		.alt_port_num = a->alt_port_num,
		.timeout = a->timeout,
		.alt_timeout = a->alt_timeout,
		.retry_cnt = a->retry_cnt,
		.rnr_retry = a->rnr_retry,
		.min_rnr_timer = a->min_rnr_timer,
		.max_rd_atomic = a->max_rd_atomic,
		.max_dest_rd_atomic = a->max_dest_rd_atomic,
		.en_sqd_async_notify = a->en_sqd_async_notify,
		.sq_draining = a->sq_draining,
		.max_send_wr = a->cap.max_send_wr,
		.max_recv_wr = a->cap.max_recv_wr,
		.max_send_sge = a->cap.max_send_sge,
		.max_recv_sge = a->cap.max_recv_sge,
		.max_inline_data = a->cap.max_inline_data,
	};
	ucm_ah_out(&out->ah_attr, &a->ah_attr);
	ucm_ah_out(&out->alt_ah_attr, &a->alt_ah_attr);
}

static int ucm_check_init_qp_attr(struct ucm_call *c)
{
	return c->in.init_qp_attr.qp_state > IB_QPS_ERR ? -EINVAL : 0;
}

static int ucm_init_qp_attr(struct ucm_call *c)
{
	struct ib_qp_attr *a = kzalloc(sizeof(*a), GFP_KERNEL);
	int mask = 0;
	int ret;

	if (!a)
		return -ENOMEM;
	a->qp_state = c->in.init_qp_attr.qp_state;
	ret = rdma_init_qp_attr(c->id->cm_id, a, &mask);
	if (!ret) {
		ucm_qp_attr_out(&c->out.qp_attr, a, mask);
		c->out_size = sizeof(c->out.qp_attr);
	}
	kfree(a);
	return ret;
}

static int ucm_notify(struct ucm_call *c)
{
	if (!c->id->cm_id->device)
		return -EINVAL;
	return rdma_notify(c->id->cm_id,
			   (enum ib_event_type)c->in.notify.event);
}

/* --- events */

/* Returns the oldest event with file->lock held, or an error unlocked. */
static struct ucm_evt *ucm_evt_wait(struct ucm_file *file)
{
	for (;;) {
		mutex_lock(&file->lock);
		if (!list_empty(&file->events))
			return list_first_entry(&file->events, struct ucm_evt,
						link);
		mutex_unlock(&file->lock);
		if (file->filp->f_flags & O_NONBLOCK)
			return ERR_PTR(-EAGAIN);
		if (wait_event_interruptible(file->waitq,
					     !list_empty(&file->events)))
			return ERR_PTR(-ERESTARTSYS);
	}
}

static int ucm_get_event(struct ucm_call *c)
{
	struct ucm_evt *e = ucm_evt_wait(c->file);

	if (IS_ERR(e))
		return PTR_ERR(e);
	/* Copied under the lock: a fault leaves the event queued. */
	if (ucm_reply(c, &e->resp, min_t(size_t, c->out_len, sizeof(e->resp)))) {
		mutex_unlock(&c->file->lock);
		return -EFAULT;
	}
	list_del(&e->link);
	e->owner->delivered++;
	if (e->group)
		e->group->delivered++;
	if (e->child) {
		atomic_inc(&e->owner->backlog);
		/* The listener may have migrated: the new id lives here. */
		e->child->file = c->file;
		ucm_id_publish(e->child);
	}
	mutex_unlock(&c->file->lock);
	kfree(e);
	return 0;
}

/* --- options */

static int ucm_opt_tos(struct rdma_cm_id *cm_id, const void *v)
{
	return rdma_set_service_type(cm_id, *(const u8 *)v);
}

static int ucm_opt_reuseaddr(struct rdma_cm_id *cm_id, const void *v)
{
	return rdma_set_reuseaddr(cm_id, !!*(const int *)v);
}

static int ucm_opt_afonly(struct rdma_cm_id *cm_id, const void *v)
{
	return rdma_set_afonly(cm_id, !!*(const int *)v);
}

static int ucm_opt_ack_timeout(struct rdma_cm_id *cm_id, const void *v)
{
	return rdma_set_ack_timeout(cm_id, *(const u8 *)v);
}

/* RDMA_OPTION_ID options: each wants a value of exactly one size. */
static const struct {
	int	(*set)(struct rdma_cm_id *cm_id, const void *v);
	u8	len;
} ucm_id_opts[] = {
	[RDMA_OPTION_ID_TOS]		= { ucm_opt_tos, sizeof(u8) },
	[RDMA_OPTION_ID_REUSEADDR]	= { ucm_opt_reuseaddr, sizeof(int) },
	[RDMA_OPTION_ID_AFONLY]		= { ucm_opt_afonly, sizeof(int) },
	[RDMA_OPTION_ID_ACK_TIMEOUT]	= { ucm_opt_ack_timeout, sizeof(u8) },
};

/*
 * A route found by userspace (ibacm, or a path librdmacm got elsewhere):
 * the primary record, packed as the SA sends it, becomes the id's route,
 * and the id hears ROUTE_RESOLVED as if it had asked the SA itself.
 */
static int ucm_opt_ib_path(struct ucm_id *id, const void *v, size_t len)
{
	struct ib_path_rec_data *rec = (struct ib_path_rec_data *)v;
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	const u32 primary = IB_PATH_GMP | IB_PATH_PRIMARY |
			    IB_PATH_BIDIRECTIONAL;
	struct rdma_cm_id *cm_id = id->cm_id;
	size_t i, n = len / sizeof(*rec);
	struct sa_path_rec path;
	int ret;

	if (!len || len % sizeof(*rec))
		return -EINVAL;
	for (i = 0; i < n && rec[i].flags != primary; i++)
		;
	if (i == n || !cm_id->device)
		return -EINVAL;
	if (rdma_protocol_iwarp(cm_id->device, cm_id->port_num))
		return -EOPNOTSUPP;
	ib_sa_unpack_path(rec[i].path_rec, &path);
	ret = rdma_set_ib_path(cm_id, &path);
	if (ret)
		return ret;
	rdma_lock_handler(cm_id);
	ucm_cm_handler(cm_id, &ev);
	rdma_unlock_handler(cm_id);
	return 0;
}

static int ucm_check_set_option(struct ucm_call *c)
{
	return c->in.set_option.optlen > KMALLOC_MAX_SIZE ? -EINVAL : 0;
}

static int ucm_set_option(struct ucm_call *c)
{
	struct rdma_ucm_set_option *p = &c->in.set_option;
	void *v = memdup_user(u64_to_user_ptr(p->optval), p->optlen);
	int ret = -ENOSYS;

	if (IS_ERR(v))
		return PTR_ERR(v);
	if (p->level == RDMA_OPTION_ID && p->optname < ARRAY_SIZE(ucm_id_opts)) {
		u32 k = array_index_nospec(p->optname, ARRAY_SIZE(ucm_id_opts));

		ret = p->optlen == ucm_id_opts[k].len ?
		      ucm_id_opts[k].set(c->id->cm_id, v) : -EINVAL;
	} else if (p->level == RDMA_OPTION_IB &&
		   p->optname == RDMA_OPTION_IB_PATH) {
		ret = ucm_opt_ib_path(c->id, v, p->optlen);
	}
	kfree(v);
	return ret;
}

/* --- multicast */

static int ucm_check_join(struct ucm_call *c)
{
	struct rdma_ucm_join_mcast *p = &c->in.join;

	if (c->out_len < sizeof(struct rdma_ucm_create_id_resp))
		return -ENOSPC;
	if (p->addr_size != rdma_addr_size((struct sockaddr *)&p->addr))
		return -EINVAL;
	if (p->join_flags != RDMA_MC_JOIN_FLAG_FULLMEMBER &&
	    p->join_flags != RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		return -EINVAL;
	return 0;
}

static int ucm_check_join_mcast(struct ucm_call *c)
{
	if (!rdma_addr_size_kss(&c->in.join.addr))
		return -EINVAL;
	return ucm_check_join(c);
}

/* The IPv6-only JOIN_IP_MCAST is the full-member case of JOIN_MCAST. */
static int ucm_check_join_ip(struct ucm_call *c)
{
	struct rdma_ucm_join_ip_mcast old = c->in.join_ip;
	struct rdma_ucm_join_mcast *p = &c->in.join;

	memset(p, 0, sizeof(*p));
	p->addr_size = rdma_addr_size_in6(&old.addr);
	if (!p->addr_size)
		return -EINVAL;
	p->response = old.response;
	p->uid = old.uid;
	p->id = old.id;
	p->join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER;
	memcpy(&p->addr, &old.addr, p->addr_size);
	return ucm_check_join(c);
}

static void ucm_leave(struct ucm_id *id, struct ucm_group *grp)
{
	mutex_lock(&id->lock);
	rdma_leave_multicast(id->cm_id, (struct sockaddr *)&grp->addr);
	list_del(&grp->link);
	mutex_unlock(&id->lock);
}

static int ucm_join(struct ucm_call *c)
{
	struct rdma_ucm_join_mcast *p = &c->in.join;
	struct rdma_ucm_create_id_resp ans = {};
	struct ucm_group *grp;
	u8 state;
	int ret;

	state = p->join_flags == RDMA_MC_JOIN_FLAG_FULLMEMBER ?
		BIT(FULLMEMBER_JOIN) : BIT(SENDONLY_FULLMEMBER_JOIN);
	grp = kzalloc(sizeof(*grp), GFP_KERNEL);
	if (!grp)
		return -ENOMEM;
	grp->owner = c->id;
	grp->user_ctx = p->uid;
	memcpy(&grp->addr, &p->addr, p->addr_size);
	INIT_LIST_HEAD(&grp->link);
	/* Reserved, not findable, until userspace has its handle. */
	if (xa_alloc(&ucm_groups, &grp->handle, NULL, xa_limit_32b,
		     GFP_KERNEL)) {
		kfree(grp);
		return -ENOMEM;
	}

	mutex_lock(&c->id->lock);
	ret = rdma_join_multicast(c->id->cm_id, (struct sockaddr *)&grp->addr,
				  state, grp);
	if (!ret)
		list_add_tail(&grp->link, &c->id->groups);
	mutex_unlock(&c->id->lock);
	if (ret) {
		xa_erase(&ucm_groups, grp->handle);
		kfree(grp);
		return ret;
	}

	ans.id = grp->handle;
	if (ucm_reply(c, &ans, sizeof(ans))) {
		ucm_leave(c->id, grp);
		ucm_group_free(grp);
		return -EFAULT;
	}
	xa_store(&ucm_groups, grp->handle, grp, 0);
	return 0;
}

static int ucm_leave_mcast(struct ucm_call *c)
{
	struct rdma_ucm_destroy_id_resp ans = {};
	struct ucm_group *grp;
	struct ucm_id *id;
	int err = 0;

	/* Pin the owner and hide the group in one step. */
	xa_lock(&ucm_groups);
	grp = xa_load(&ucm_groups, c->in.destroy_id.id);
	if (!grp)
		err = -ENOENT;
	else if (READ_ONCE(grp->owner->file) != c->file)
		err = -EINVAL;
	else if (!refcount_inc_not_zero(&grp->owner->users))
		err = -ENXIO;
	else
		__xa_store(&ucm_groups, grp->handle, NULL, 0);
	xa_unlock(&ucm_groups);
	if (err)
		return err;

	id = grp->owner;
	ucm_leave(id, grp);
	ans.events_reported = ucm_group_free(grp);
	ucm_id_put(id);
	return ucm_reply(c, &ans, sizeof(ans));
}

/* --- migration */

/* Address order avoids ABBA between two concurrent migrations. */
static void ucm_lock_pair(struct ucm_file *a, struct ucm_file *b)
{
	if (a > b)
		swap(a, b);
	mutex_lock(&a->lock);
	mutex_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

/* Moves @id and its queued events from @from to @to. */
static int ucm_move_id(struct ucm_id *id, struct ucm_file *from,
		       struct ucm_file *to)
{
	struct ucm_evt *e;
	LIST_HEAD(moving);
	int delivered;

	if (from == to) {
		mutex_lock(&to->lock);
		delivered = id->delivered;
		mutex_unlock(&to->lock);
		return delivered;
	}
	ucm_lock_pair(from, to);
	xa_lock(&ucm_ids);
	list_move_tail(&id->link, &to->ids);
	id->file = to;
	xa_unlock(&ucm_ids);
	ucm_evts_take(from, id, NULL, &moving);
	/* An unfetched new connection follows its event (freed with it). */
	list_for_each_entry(e, &moving, link)
		if (e->child)
			e->child->file = to;
	list_splice_tail(&moving, &to->events);
	delivered = id->delivered;
	mutex_unlock(&from->lock);
	mutex_unlock(&to->lock);
	wake_up_interruptible(&to->waitq);
	return delivered;
}

static int ucm_migrate_id(struct ucm_call *c)
{
	struct rdma_ucm_migrate_resp ans = {};
	struct ucm_file *from;
	struct ucm_id *id;
	struct fd f;
	int ret;

	f = fdget(c->in.migrate.fd);
	if (!f.file)
		return -ENOENT;
	if (f.file->f_op != &ucm_fops) {
		ret = -EINVAL;
		goto out;
	}
	from = f.file->private_data;
	id = ucm_id_get(from, c->in.migrate.id, false);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto out;
	}

	/* No event may be queued on the old file while we move. */
	rdma_lock_handler(id->cm_id);
	ans.events_reported = ucm_move_id(id, from, c->file);
	ret = ucm_reply(c, &ans, sizeof(ans));
	rdma_unlock_handler(id->cm_id);
	ucm_id_put(id);
out:
	fdput(f);
	return ret;
}

/* ------------------------------------------------------------ dispatch */

#define UCM_IN(field)		.in_size = sizeof(((union ucm_payload *)0)->field)
#define UCM_AT(type, m)		offsetof(struct type, m)

static const struct ucm_cmd ucm_cmds[] = {
	[RDMA_USER_CM_CMD_CREATE_ID] = {
		.run = ucm_create_id, UCM_IN(create_id),
		.out_min = sizeof(struct rdma_ucm_create_id_resp),
		.reply_at = UCM_AT(rdma_ucm_create_id, response),
	},
	[RDMA_USER_CM_CMD_DESTROY_ID] = {
		.run = ucm_destroy_id, UCM_IN(destroy_id),
		.out_min = sizeof(struct rdma_ucm_destroy_id_resp),
		.reply_at = UCM_AT(rdma_ucm_destroy_id, response),
	},
	[RDMA_USER_CM_CMD_BIND_IP] = {
		.check = ucm_check_bind_ip, .run = ucm_bind_ip,
		UCM_IN(bind_ip), .id_at = UCM_AT(rdma_ucm_bind_ip, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_RESOLVE_IP] = {
		.check = ucm_check_resolve_ip, .run = ucm_resolve_ip,
		UCM_IN(resolve_ip), .id_at = UCM_AT(rdma_ucm_resolve_ip, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_RESOLVE_ROUTE] = {
		.run = ucm_resolve_route, UCM_IN(resolve_route),
		.id_at = UCM_AT(rdma_ucm_resolve_route, id),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_QUERY_ROUTE] = {
		.run = ucm_query_route, UCM_IN(query),
		.out_min = offsetof(struct rdma_ucm_query_route_resp,
				    ibdev_index),
		.id_at = UCM_AT(rdma_ucm_query, id),
		.reply_at = UCM_AT(rdma_ucm_query, response),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_CONNECT] = {
		.check = ucm_check_connect, .run = ucm_connect,
		UCM_IN(connect),
		.in_min = offsetofend(struct rdma_ucm_connect, reserved),
		.id_at = UCM_AT(rdma_ucm_connect, id),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_LISTEN] = {
		.run = ucm_listen, UCM_IN(listen),
		.id_at = UCM_AT(rdma_ucm_listen, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_ACCEPT] = {
		.run = ucm_accept, UCM_IN(accept),
		.in_min = offsetofend(struct rdma_ucm_accept, reserved),
		.id_at = UCM_AT(rdma_ucm_accept, id),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_REJECT] = {
		.check = ucm_check_reject, .run = ucm_reject, UCM_IN(reject),
		.id_at = UCM_AT(rdma_ucm_reject, id),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_DISCONNECT] = {
		.run = ucm_disconnect, UCM_IN(disconnect),
		.id_at = UCM_AT(rdma_ucm_disconnect, id),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_INIT_QP_ATTR] = {
		.check = ucm_check_init_qp_attr, .run = ucm_init_qp_attr,
		UCM_IN(init_qp_attr),
		.out_min = sizeof(struct ib_uverbs_qp_attr),
		.id_at = UCM_AT(rdma_ucm_init_qp_attr, id),
		.reply_at = UCM_AT(rdma_ucm_init_qp_attr, response),
		.flags = UCM_ID | UCM_BOUND | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_GET_EVENT] = {
		.run = ucm_get_event, UCM_IN(get_event),
		/* Old 32-bit userspace has neither reserved nor ece. */
		.out_min = offsetof(struct rdma_ucm_event_resp, reserved),
		.reply_at = UCM_AT(rdma_ucm_get_event, response),
	},
	[RDMA_USER_CM_CMD_SET_OPTION] = {
		.check = ucm_check_set_option, .run = ucm_set_option,
		UCM_IN(set_option), .id_at = UCM_AT(rdma_ucm_set_option, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_NOTIFY] = {
		.run = ucm_notify, UCM_IN(notify),
		.id_at = UCM_AT(rdma_ucm_notify, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_JOIN_IP_MCAST] = {
		.check = ucm_check_join_ip, .run = ucm_join, UCM_IN(join_ip),
		/* The check rewrote the payload as a JOIN_MCAST one. */
		.id_at = UCM_AT(rdma_ucm_join_mcast, id),
		.reply_at = UCM_AT(rdma_ucm_join_mcast, response),
		.flags = UCM_ID | UCM_BOUND,
	},
	[RDMA_USER_CM_CMD_LEAVE_MCAST] = {
		.run = ucm_leave_mcast, UCM_IN(destroy_id),
		.out_min = sizeof(struct rdma_ucm_destroy_id_resp),
		.reply_at = UCM_AT(rdma_ucm_destroy_id, response),
	},
	[RDMA_USER_CM_CMD_MIGRATE_ID] = {
		.run = ucm_migrate_id, UCM_IN(migrate),
		.out_min = sizeof(struct rdma_ucm_migrate_resp),
		.reply_at = UCM_AT(rdma_ucm_migrate_id, response),
	},
	[RDMA_USER_CM_CMD_QUERY] = {
		.run = ucm_query, UCM_IN(query),
		.id_at = UCM_AT(rdma_ucm_query, id),
		.reply_at = UCM_AT(rdma_ucm_query, response),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_BIND] = {
		.check = ucm_check_bind, .run = ucm_bind, UCM_IN(bind),
		.id_at = UCM_AT(rdma_ucm_bind, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_RESOLVE_ADDR] = {
		.check = ucm_check_resolve_addr, .run = ucm_resolve_addr,
		UCM_IN(resolve_addr), .id_at = UCM_AT(rdma_ucm_resolve_addr, id),
		.flags = UCM_ID | UCM_LOCKED,
	},
	[RDMA_USER_CM_CMD_JOIN_MCAST] = {
		.check = ucm_check_join_mcast, .run = ucm_join, UCM_IN(join),
		.id_at = UCM_AT(rdma_ucm_join_mcast, id),
		.reply_at = UCM_AT(rdma_ucm_join_mcast, response),
		.flags = UCM_ID | UCM_BOUND,
	},
};

/* ------------------------------------------------------------ file ops */

static ssize_t ucm_write(struct file *filp, const char __user *buf,
			 size_t len, loff_t *pos)
{
	struct ucm_call c = { .file = filp->private_data };
	struct rdma_ucm_cmd_hdr hdr;
	u32 op;
	int ret;

	/* A write() handed to a more privileged process must not act. */
	if (filp->f_cred != current_cred())
		return -EACCES;
	if (len < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	if (hdr.cmd >= ARRAY_SIZE(ucm_cmds) || hdr.in + sizeof(hdr) > len)
		return -EINVAL;
	op = array_index_nospec(hdr.cmd, ARRAY_SIZE(ucm_cmds));
	/* GET_OPTION was never implemented, upstream included. */
	if (!ucm_cmds[op].run)
		return -ENOSYS;

	c.in_len = hdr.in;
	c.out_len = hdr.out;
	ret = ucm_call_run(&ucm_cmds[op], &c, buf + sizeof(hdr));
	return ret ? ret : len;
}

static __poll_t ucm_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucm_file *file = filp->private_data;

	poll_wait(filp, &file->waitq, wait);
	if (list_empty(&file->events))
		return 0;
	return EPOLLIN | EPOLLRDNORM;
}

static int ucm_open(struct inode *inode, struct file *filp)
{
	struct ucm_file *file = kzalloc(sizeof(*file), GFP_KERNEL);

	if (!file)
		return -ENOMEM;
	file->filp = filp;
	mutex_init(&file->lock);
	init_waitqueue_head(&file->waitq);
	INIT_LIST_HEAD(&file->ids);
	INIT_LIST_HEAD(&file->events);
	filp->private_data = file;
	return stream_open(inode, filp);
}

/* The first id still on @file, hidden from lookups; NULL when none. */
static struct ucm_id *ucm_next_to_close(struct ucm_file *file)
{
	struct ucm_id *id;

	mutex_lock(&file->lock);
	id = list_first_entry_or_null(&file->ids, struct ucm_id, link);
	mutex_unlock(&file->lock);
	if (id)
		xa_store(&ucm_ids, id->handle, NULL, 0);
	return id;
}

static int ucm_release(struct inode *inode, struct file *filp)
{
	struct ucm_file *file = filp->private_data;
	struct ucm_id *id;
	LIST_HEAD(rest);

	/*
	 * No command can run any more (last reference), but events still
	 * can until each id is destroyed.
	 */
	while ((id = ucm_next_to_close(file)))
		ucm_id_destroy(id);

	/* Every event belonged to an id just destroyed; be defensive. */
	list_splice_init(&file->events, &rest);
	ucm_evts_free(&rest);
	mutex_destroy(&file->lock);
	kfree(file);
	return 0;
}

static const struct file_operations ucm_fops = {
	.owner		= THIS_MODULE,
	.open		= ucm_open,
	.release	= ucm_release,
	.write		= ucm_write,
	.poll		= ucm_poll,
	.llseek		= no_llseek,
};

static struct miscdevice ucm_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "rdma_cm",
	.nodename	= "infiniband/rdma_cm",
	.mode		= 0666,
	.fops		= &ucm_fops,
};

static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

/* NLDEV GET_CHARDEV "rdma_cm" without a device: one node for all. */
static int ucm_nl_info(struct ib_client_nl_info *res)
{
	res->cdev = ucm_misc.this_device;
	res->abi = RDMA_USER_CM_ABI_VERSION;
	return 0;
}

static struct ib_client ucm_client = {
	.name			= "rdma_cm",
	.no_kverbs_req		= true,
	.get_global_nl_info	= ucm_nl_info,
};

static void ucm_unregister_dev(void)
{
	device_remove_file(ucm_misc.this_device, &dev_attr_abi_version);
	misc_deregister(&ucm_misc);
}

/* The node and its abi_version file come and go together. */
static int ucm_register_dev(void)
{
	int ret = misc_register(&ucm_misc);

	if (ret)
		return ret;
	ret = device_create_file(ucm_misc.this_device, &dev_attr_abi_version);
	if (ret) {
		pr_err("rdma_ucm: couldn't create abi_version attr\n");
		misc_deregister(&ucm_misc);
	}
	return ret;
}

static int __init ucm_init(void)
{
	int ret;

	ucm_sysctl = register_net_sysctl(&init_net, "net/rdma_ucm",
					 ucm_sysctl_vars);
	if (!ucm_sysctl) {
		pr_err("rdma_ucm: couldn't register sysctl paths\n");
		return -ENOMEM;
	}
	ret = ucm_register_dev();
	if (ret)
		goto fail_sysctl;
	ret = ib_register_client(&ucm_client);
	if (ret)
		goto fail_dev;
	return 0;

fail_dev:
	ucm_unregister_dev();
fail_sysctl:
	unregister_net_sysctl_table(ucm_sysctl);
	return ret;
}

static void __exit ucm_exit(void)
{
	ib_unregister_client(&ucm_client);
	ucm_unregister_dev();
	unregister_net_sysctl_table(ucm_sysctl);
}

module_init(ucm_init);
module_exit(ucm_exit);
