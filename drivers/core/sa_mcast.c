// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast group membership through the SA (ib_sa_join_multicast()).
 *
 * The SA sees one membership per (port, MGID): a group object here. Each
 * consumer's ib_sa_join_multicast() adds a member to the group. The group
 * asks the SA for what its members need (MCMemberRecord Set with the
 * JoinState bits not held yet, Delete for bits no member needs any more)
 * and tells each member the outcome through its callback. Everything a
 * group does runs in its work item, one step at a time, so at most one SA
 * query per group is in flight and callbacks never run concurrently for a
 * group; callbacks run in process context and may sleep.
 *
 * Port events, as the stock kernel treats them: the port going down, a
 * new LID, a client reregistration request from the SM, or the P_Key table
 * losing the group's P_Key end the memberships of the port (members hear
 * -ENETRESET and join again if they want); nothing is sent to the SA.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"
#include "sa.h"

#define MC_JOIN_TIMEOUT_MS	3000

enum mc_member_state {
	MC_PENDING,	/* waiting for the SA */
	MC_JOINED,	/* told status 0 */
	MC_FAILED,	/* told an error; nothing more happens */
	MC_GONE,	/* freed by its owner */
};

struct mc_group;

struct mc_member {
	struct ib_sa_multicast	mc;		/* what the consumer sees */
	struct ib_sa_mcmember_rec want;		/* what it asked for */
	u8			join_state;	/* JoinState bits it needs */
	struct ib_sa_client	*client;
	struct mc_group		*group;
	struct list_head	entry;		/* group->members */
	enum mc_member_state	state;
	bool			report;		/* callback due */
	int			status;		/* ... with this status */
	refcount_t		refs;		/* owner + running callback */
	struct completion	released;
};

enum mc_query_kind { MC_Q_JOIN, MC_Q_LEAVE };

struct mc_device;

struct mc_group {
	struct mc_device	*mdev;
	u32			port_num;
	union ib_gid		mgid;
	struct list_head	entry;		/* mdev->groups, while listed */
	struct list_head	members;
	struct ib_sa_mcmember_rec rec;		/* the SA's record */
	u8			joined;		/* JoinState bits the SA holds */

	/* The query in flight, if busy. */
	bool			busy;
	enum mc_query_kind	kind;
	u8			asked;		/* JoinState bits of it */
	struct mc_member	*asker;		/* MC_Q_JOIN: for whom */
	struct ib_sa_query	*query;
	int			query_id;

	struct work_struct	work;
	refcount_t		refs;
};

struct mc_device {
	struct ib_device	*device;
	struct ib_event_handler	handler;
	struct kref		ref;		/* the client + every group */
	spinlock_t		lock;		/* groups and all group state */
	struct list_head	groups;
	wait_queue_head_t	idle;		/* a query ended (dying) */
	bool			dying;
};

static struct ib_client mc_client;
static struct ib_sa_client mc_sa_client;
static struct workqueue_struct *mc_wq;

static void mc_device_release(struct kref *ref)
{
	kfree(container_of(ref, struct mc_device, ref));
}

static void mc_group_put(struct mc_group *g)
{
	struct mc_device *mdev = g->mdev;

	if (refcount_dec_and_test(&g->refs)) {
		kfree(g);
		kref_put(&mdev->ref, mc_device_release);
	}
}

/* Makes the group's work run (again); the queued work holds a reference. */
static void mc_group_kick(struct mc_group *g)
{
	refcount_inc(&g->refs);
	if (!queue_work(mc_wq, &g->work))
		mc_group_put(g);
}

static void mc_member_put(struct mc_member *m)
{
	if (refcount_dec_and_test(&m->refs))
		complete(&m->released);
}

/* Frees a member nobody holds any more, and what it held. */
static void mc_member_free(struct mc_member *m)
{
	struct ib_sa_client *client = m->client;

	mc_group_put(m->group);
	kfree(m);
	if (atomic_dec_and_test(&client->users))
		complete(&client->comp);
}

/* Takes @m out of its group; its callback will not be called again. */
static void mc_member_unlink(struct mc_member *m)
{
	struct mc_device *mdev = m->group->mdev;

	spin_lock_irq(&mdev->lock);
	list_del_init(&m->entry);
	m->state = MC_GONE;
	m->report = false;
	if (m->group->asker == m)
		m->group->asker = NULL;
	spin_unlock_irq(&mdev->lock);
	mc_group_kick(m->group);
}

/* Whether the group's record satisfies what @m asked for in its mask. */
static bool mc_member_fits(const struct mc_member *m,
			   const struct ib_sa_mcmember_rec *rec)
{
	const struct ib_sa_mcmember_rec *want = &m->want;
	ib_sa_comp_mask mask = m->mc.comp_mask;

	if ((mask & IB_SA_MCMEMBER_REC_QKEY) && want->qkey != rec->qkey)
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_PKEY) &&
	    (be16_to_cpu(want->pkey) & 0x7fff) !=
	    (be16_to_cpu(rec->pkey) & 0x7fff))
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_SL) && want->sl != rec->sl)
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_TRAFFIC_CLASS) &&
	    want->traffic_class != rec->traffic_class)
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_FLOW_LABEL) &&
	    want->flow_label != rec->flow_label)
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_MTU_SELECTOR) &&
	    (mask & IB_SA_MCMEMBER_REC_MTU) &&
	    want->mtu_selector == IB_SA_EQ && want->mtu != rec->mtu)
		return false;
	if ((mask & IB_SA_MCMEMBER_REC_RATE_SELECTOR) &&
	    (mask & IB_SA_MCMEMBER_REC_RATE) &&
	    want->rate_selector == IB_SA_EQ && want->rate != rec->rate)
		return false;
	return true;
}

/* Every member still interested hears @status; the SA holds nothing. */
static void mc_group_lost(struct mc_group *g, int status)
{
	struct mc_member *m;

	g->joined = 0;
	list_for_each_entry(m, &g->members, entry) {
		if (m->state == MC_PENDING || m->state == MC_JOINED) {
			m->state = MC_FAILED;
			m->status = status;
			m->report = true;
		}
	}
}

/* ------------------------------------------------------------ SA answers */

static void mc_query_done(int status, struct ib_sa_mcmember_rec *resp,
			  void *context)
{
	struct mc_group *g = context;
	struct mc_device *mdev = g->mdev;

	spin_lock_irq(&mdev->lock);
	g->busy = false;
	g->query = NULL;
	switch (g->kind) {
	case MC_Q_JOIN:
		if (!status) {
			g->rec = *resp;
			g->joined |= g->asked;
		} else if (g->asker) {
			g->asker->state = MC_FAILED;
			g->asker->status = status;
			g->asker->report = true;
		}
		g->asker = NULL;
		break;
	case MC_Q_LEAVE:
		/* Left or not, the SA forgets us when the lease ends. */
		g->joined &= ~g->asked;
		break;
	}
	if (mdev->dying)
		wake_up_all(&mdev->idle);
	spin_unlock_irq(&mdev->lock);
	/* The query's reference becomes the work's. */
	if (!queue_work(mc_wq, &g->work))
		mc_group_put(g);
}

/* ------------------------------------------------------------ the work */

struct mc_step {
	enum { MC_IDLE, MC_CALL, MC_SEND, MC_DONE } what;
	struct mc_member	*member;	/* MC_CALL */
	struct ib_sa_mcmember_rec rec;		/* MC_SEND */
	ib_sa_comp_mask		mask;
	u8			method;
};

/* Decides the group's next step. mdev->lock held. */
static void mc_next_step(struct mc_group *g, struct mc_step *step)
{
	struct mc_member *m;
	u8 wanted = 0;

	step->what = MC_IDLE;
	if (g->busy)
		return;

	/* Tell members what happened, first. */
	list_for_each_entry(m, &g->members, entry) {
		if (m->state == MC_PENDING &&
		    (m->join_state & ~g->joined) == 0) {
			m->report = true;
			if (mc_member_fits(m, &g->rec)) {
				m->state = MC_JOINED;
				m->status = 0;
				/* The member sees the group as the SA has it. */
				m->mc.rec = g->rec;
				m->mc.rec.join_state = m->join_state;
			} else {
				m->state = MC_FAILED;
				m->status = -EINVAL;
			}
		}
		if (m->report) {
			m->report = false;
			refcount_inc(&m->refs);
			step->what = MC_CALL;
			step->member = m;
			return;
		}
	}
	if (g->mdev->dying)
		goto idle;

	/* A member needing bits the SA does not hold for us yet. */
	list_for_each_entry(m, &g->members, entry) {
		if (m->state == MC_PENDING) {
			step->rec = m->want;
			step->mask = m->mc.comp_mask;
			step->method = IB_MGMT_METHOD_SET;
			g->kind = MC_Q_JOIN;
			g->asked = m->join_state;
			g->asker = m;
			goto send;
		}
		if (m->state == MC_JOINED)
			wanted |= m->join_state;
	}

	/* Bits nobody needs any more. */
	if (g->joined & ~wanted) {
		step->rec = g->rec;
		step->rec.join_state = g->joined & ~wanted;
		step->mask = IB_SA_MCMEMBER_REC_MGID |
			     IB_SA_MCMEMBER_REC_PORT_GID |
			     IB_SA_MCMEMBER_REC_JOIN_STATE;
		step->method = IB_SA_METHOD_DELETE;
		g->kind = MC_Q_LEAVE;
		g->asked = step->rec.join_state;
		goto send;
	}

idle:
	/* Nothing held and nobody left: the group goes. */
	if (list_empty(&g->members) && !g->joined &&
	    !list_empty(&g->entry)) {
		list_del_init(&g->entry);
		step->what = MC_DONE;
	}
	return;

send:
	g->busy = true;
	step->what = MC_SEND;
}

static void mc_send(struct mc_group *g, struct mc_step *step)
{
	struct mc_device *mdev = g->mdev;
	struct ib_sa_query *query;
	int id;

	refcount_inc(&g->refs);		/* the query's */
	id = sa_mcmember_query(&mc_sa_client, mdev->device, g->port_num,
			       step->method, &step->rec, step->mask,
			       MC_JOIN_TIMEOUT_MS, GFP_KERNEL, mc_query_done,
			       g, &query);
	if (id < 0) {
		mc_query_done(id, NULL, g);
		return;
	}
	spin_lock_irq(&mdev->lock);
	if (g->busy) {
		g->query = query;
		g->query_id = id;
	}
	spin_unlock_irq(&mdev->lock);
}

/* Runs the member's callback; a non-zero return frees the member. */
static void mc_call(struct mc_member *m)
{
	struct mc_device *mdev = m->group->mdev;
	bool self_free;
	int ret;

	ret = m->mc.callback(m->status, &m->mc);
	spin_lock_irq(&mdev->lock);
	self_free = ret && m->state != MC_GONE;
	spin_unlock_irq(&mdev->lock);
	if (self_free) {
		mc_member_unlink(m);
		/* The owner's reference goes too: nobody else holds it. */
		mc_member_put(m);
	}
	mc_member_put(m);
	if (self_free)
		mc_member_free(m);
}

static void mc_group_work(struct work_struct *work)
{
	struct mc_group *g = container_of(work, struct mc_group, work);
	struct mc_device *mdev = g->mdev;
	struct mc_step step;

	for (;;) {
		spin_lock_irq(&mdev->lock);
		mc_next_step(g, &step);
		spin_unlock_irq(&mdev->lock);

		if (step.what == MC_CALL) {
			mc_call(step.member);
			continue;
		}
		if (step.what == MC_SEND) {
			mc_send(g, &step);
			continue;
		}
		if (step.what == MC_DONE)
			mc_group_put(g);	/* the list's reference */
		break;
	}
	mc_group_put(g);			/* the work's */
}

/* ------------------------------------------------------------ API */

static struct mc_device *mc_get_device(struct ib_device *device, u32 port_num)
{
	if (!rdma_is_port_valid(device, port_num) ||
	    !rdma_cap_ib_mcast(device, port_num))
		return NULL;
	return ib_get_client_data(device, &mc_client);
}

static bool mc_gid_is_zero(const union ib_gid *gid)
{
	return !gid->global.subnet_prefix && !gid->global.interface_id;
}

/* The listed group of @mgid on the port, or NULL. mdev->lock held. */
static struct mc_group *mc_find_group(struct mc_device *mdev, u32 port_num,
				      const union ib_gid *mgid)
{
	struct mc_group *g;

	list_for_each_entry(g, &mdev->groups, entry)
		if (g->port_num == port_num &&
		    !memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

struct ib_sa_multicast *ib_sa_join_multicast(struct ib_sa_client *client,
					     struct ib_device *device,
					     u32 port_num,
					     struct ib_sa_mcmember_rec *rec,
					     ib_sa_comp_mask comp_mask,
					     gfp_t gfp_mask,
					     int (*callback)(int status,
						struct ib_sa_multicast *multicast),
					     void *context)
{
	struct mc_device *mdev = mc_get_device(device, port_num);
	struct mc_group *g, *fresh;
	struct mc_member *m;

	if (!mdev)
		return ERR_PTR(-ENODEV);
	m = kzalloc(sizeof(*m), gfp_mask);
	fresh = kzalloc(sizeof(*fresh), gfp_mask);
	if (!m || !fresh) {
		kfree(m);
		kfree(fresh);
		return ERR_PTR(-ENOMEM);
	}
	m->mc.rec = *rec;
	m->want = *rec;
	m->join_state = rec->join_state;
	m->mc.comp_mask = comp_mask;
	m->mc.callback = callback;
	m->mc.context = context;
	m->client = client;
	m->state = MC_PENDING;
	refcount_set(&m->refs, 1);
	init_completion(&m->released);

	spin_lock_irq(&mdev->lock);
	if (mdev->dying) {
		spin_unlock_irq(&mdev->lock);
		kfree(m);
		kfree(fresh);
		return ERR_PTR(-ENODEV);
	}
	/* A join without an MGID asks the SA for a new group: never shared. */
	g = mc_gid_is_zero(&rec->mgid) ? NULL :
	    mc_find_group(mdev, port_num, &rec->mgid);
	if (!g) {
		g = fresh;
		fresh = NULL;
		g->mdev = mdev;
		g->port_num = port_num;
		g->mgid = rec->mgid;
		g->rec = *rec;
		INIT_LIST_HEAD(&g->members);
		INIT_WORK(&g->work, mc_group_work);
		refcount_set(&g->refs, 1);	/* the list's */
		kref_get(&mdev->ref);
		list_add_tail(&g->entry, &mdev->groups);
	}
	refcount_inc(&g->refs);			/* the member's */
	m->group = g;
	list_add_tail(&m->entry, &g->members);
	atomic_inc(&client->users);
	spin_unlock_irq(&mdev->lock);
	kfree(fresh);

	mc_group_kick(g);
	return &m->mc;
}
EXPORT_SYMBOL(ib_sa_join_multicast);

void ib_sa_free_multicast(struct ib_sa_multicast *multicast)
{
	struct mc_member *m = container_of(multicast, struct mc_member, mc);

	mc_member_unlink(m);
	mc_member_put(m);
	/* A callback of it may be running: wait for its end. */
	wait_for_completion(&m->released);
	mc_member_free(m);
}
EXPORT_SYMBOL(ib_sa_free_multicast);

int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec)
{
	struct mc_device *mdev = mc_get_device(device, port_num);
	struct mc_group *g;
	int ret = -EADDRNOTAVAIL;

	if (!mdev)
		return -ENODEV;
	spin_lock_irq(&mdev->lock);
	g = mc_find_group(mdev, port_num, mgid);
	if (g) {
		*rec = g->rec;
		ret = 0;
	}
	spin_unlock_irq(&mdev->lock);
	return ret;
}
EXPORT_SYMBOL(ib_sa_get_mcmember_rec);

/* ------------------------------------------------------------ events */

static void mc_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct mc_device *mdev = container_of(handler, struct mc_device,
					      handler);
	u32 port_num = event->element.port_num;
	struct mc_group *g;
	u16 index;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_PKEY_CHANGE:
		break;
	default:
		return;
	}
	spin_lock_irq(&mdev->lock);
	list_for_each_entry(g, &mdev->groups, entry) {
		if (g->port_num != port_num)
			continue;
		/* A P_Key change matters only if the group's P_Key went. */
		if (event->event == IB_EVENT_PKEY_CHANGE &&
		    !ib_find_cached_pkey(mdev->device, port_num,
					 be16_to_cpu(g->rec.pkey), &index))
			continue;
		mc_group_lost(g, -ENETRESET);
		mc_group_kick(g);
	}
	spin_unlock_irq(&mdev->lock);
}

/* ------------------------------------------------------------ devices */

static int mc_add_one(struct ib_device *device)
{
	struct mc_device *mdev;
	u32 p;

	rdma_for_each_port(device, p)
		if (rdma_cap_ib_mcast(device, p))
			break;
	if (p > rdma_end_port(device))
		return -EOPNOTSUPP;
	mdev = kzalloc(sizeof(*mdev), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->device = device;
	kref_init(&mdev->ref);
	spin_lock_init(&mdev->lock);
	INIT_LIST_HEAD(&mdev->groups);
	init_waitqueue_head(&mdev->idle);
	INIT_IB_EVENT_HANDLER(&mdev->handler, device, mc_event);
	ib_register_event_handler(&mdev->handler);
	ib_set_client_data(device, &mc_client, mdev);
	return 0;
}

static bool mc_device_idle(struct mc_device *mdev)
{
	struct mc_group *g;
	bool idle = true;

	spin_lock_irq(&mdev->lock);
	list_for_each_entry(g, &mdev->groups, entry)
		idle &= !g->busy;
	spin_unlock_irq(&mdev->lock);
	return idle;
}

/*
 * No query may reach the device after this: new joins fail, groups stop
 * talking to the SA, queries in flight are cancelled and waited for.
 * Groups still holding members (their owners did not free them) stay
 * allocated, detached from the device, until freed.
 */
static void mc_remove_one(struct ib_device *device, void *client_data)
{
	struct mc_device *mdev = client_data;
	struct mc_group *g;

	ib_unregister_event_handler(&mdev->handler);
	spin_lock_irq(&mdev->lock);
	mdev->dying = true;
	list_for_each_entry(g, &mdev->groups, entry) {
		mc_group_lost(g, -ENETRESET);
		if (g->busy && g->query)
			ib_sa_cancel_query(g->query_id, g->query);
		mc_group_kick(g);
	}
	spin_unlock_irq(&mdev->lock);
	wait_event(mdev->idle, mc_device_idle(mdev));
	flush_workqueue(mc_wq);
	kref_put(&mdev->ref, mc_device_release);
}

static struct ib_client mc_client = {
	.name = "sa_multicast",
	.add = mc_add_one,
	.remove = mc_remove_one,
};

int ib_sa_mcast_init(void)
{
	int ret;

	mc_wq = alloc_workqueue("ib_mcast", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!mc_wq)
		return -ENOMEM;
	ib_sa_register_client(&mc_sa_client);
	ret = ib_register_client(&mc_client);
	if (ret) {
		ib_sa_unregister_client(&mc_sa_client);
		destroy_workqueue(mc_wq);
	}
	return ret;
}

void ib_sa_mcast_cleanup(void)
{
	ib_unregister_client(&mc_client);
	ib_sa_unregister_client(&mc_sa_client);
	destroy_workqueue(mc_wq);
}
