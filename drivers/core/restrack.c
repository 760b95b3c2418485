// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Resource tracking for `rdma resource`: per-device tables of the verbs
 * objects by type. Each tracked object gets an id (the QP number for QPs),
 * and the owner: a kernel module name or the creating task.
 */
#include <linux/atomic.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include "core_priv.h"
#include "cma_priv.h"

struct rdma_restrack_root {
	struct xarray xa[RDMA_RESTRACK_MAX];
	u32 next_id[RDMA_RESTRACK_MAX];
	atomic_t count[RDMA_RESTRACK_MAX];
};

int rdma_restrack_init(struct ib_device *dev)
{
	struct rdma_restrack_root *rt;
	int i;

	rt = kzalloc(sizeof(*rt), GFP_KERNEL);
	if (!rt)
		return -ENOMEM;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		xa_init_flags(&rt->xa[i], XA_FLAGS_ALLOC);
	dev->res = rt;
	return 0;
}

void rdma_restrack_clean(struct ib_device *dev)
{
	struct rdma_restrack_root *rt = dev->res;
	int i;

	if (!rt)
		return;
	for (i = 0; i < RDMA_RESTRACK_MAX; i++) {
		/* Every client is gone: what is left was leaked by its owner. */
		if (atomic_read(&rt->count[i]))
			dev_err(&dev->dev,
				"restrack: %d objects of type %d not released\n",
				atomic_read(&rt->count[i]), i);
		xa_destroy(&rt->xa[i]);
	}
	dev->res = NULL;
	kfree(rt);
}

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type)
{
	struct rdma_restrack_root *rt = dev->res;

	if (!rt || type >= RDMA_RESTRACK_MAX)
		return 0;
	return atomic_read(&rt->count[type]);
}
EXPORT_SYMBOL(rdma_restrack_count);

/*
 * Where each tracked object keeps its entry and its device pointer, so an
 * entry leads back to its device; types without a row have no object here.
 */
#define RES_OBJ(type, t, dev) \
	[type] = { offsetof(t, res), offsetof(t, dev), true }
static const struct {
	size_t	res_at;
	size_t	dev_at;
	bool	known;
} res_layout[RDMA_RESTRACK_MAX] = {
	RES_OBJ(RDMA_RESTRACK_CTX, struct ib_ucontext, device),
	RES_OBJ(RDMA_RESTRACK_PD, struct ib_pd, device),
	RES_OBJ(RDMA_RESTRACK_MR, struct ib_mr, device),
	RES_OBJ(RDMA_RESTRACK_CQ, struct ib_cq, device),
	RES_OBJ(RDMA_RESTRACK_SRQ, struct ib_srq, device),
	RES_OBJ(RDMA_RESTRACK_QP, struct ib_qp, device),
	RES_OBJ(RDMA_RESTRACK_CM_ID, struct rdma_id_private, id.device),
};

static struct ib_device *res_to_dev(struct rdma_restrack_entry *res)
{
	const u8 *obj;

	if (res->type >= RDMA_RESTRACK_MAX || !res_layout[res->type].known)
		return NULL;
	obj = (const u8 *)res - res_layout[res->type].res_at;
	return *(struct ib_device * const *)(obj + res_layout[res->type].dev_at);
}

void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type)
{
	memset(res, 0, sizeof(*res));
	res->type = type;
	kref_init(&res->kref);
	init_completion(&res->comp);
}
EXPORT_SYMBOL(rdma_restrack_new);

void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller)
{
	if (caller) {
		res->kern_name = caller;
		res->user = false;
		return;
	}
	/* User objects are reported with the task that created them. */
	if (res->task)
		put_task_struct(res->task);
	get_task_struct(current);
	res->task = current;
	res->user = true;
}
EXPORT_SYMBOL(rdma_restrack_set_name);

void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent)
{
	if (parent->user) {
		if (dst->task)
			put_task_struct(dst->task);
		if (parent->task)
			get_task_struct(parent->task);
		dst->task = parent->task;
		dst->user = true;
	} else {
		dst->kern_name = parent->kern_name;
		dst->user = false;
	}
}
EXPORT_SYMBOL(rdma_restrack_parent_name);

void rdma_restrack_add(struct rdma_restrack_entry *res)
{
	struct ib_device *dev = res_to_dev(res);
	struct rdma_restrack_root *rt;
	int ret = -EINVAL;

	if (!dev || !dev->res || res->valid || res->no_track)
		return;
	rt = dev->res;

	if (res->type == RDMA_RESTRACK_QP) {
		struct ib_qp *qp = container_of(res, struct ib_qp, res);

		/* QPs are listed by number; GSI/SMI numbers repeat per port. */
		res->id = qp->qp_num;
		if (qp->qp_type != IB_QPT_GSI && qp->qp_type != IB_QPT_SMI)
			ret = xa_insert(&rt->xa[res->type], res->id, res,
					GFP_KERNEL);
	}
	if (ret)
		ret = xa_alloc_cyclic(&rt->xa[res->type], &res->id, res,
				      xa_limit_32b, &rt->next_id[res->type],
				      GFP_KERNEL);
	if (ret < 0)
		return;
	atomic_inc(&rt->count[res->type]);
	res->valid = true;
}
EXPORT_SYMBOL(rdma_restrack_add);

/*
 * Takes the entry out of its table and waits until no dump reports it any
 * more; the owner stays recorded, so a destroy that fails can add it back.
 */
void rdma_restrack_remove(struct rdma_restrack_entry *res)
{
	struct ib_device *dev = res_to_dev(res);
	struct rdma_restrack_root *rt;

	if (!res->valid)
		return;
	res->valid = false;
	if (!dev || !dev->res)
		return;
	rt = dev->res;
	if (xa_cmpxchg(&rt->xa[res->type], res->id, res, NULL,
		       GFP_KERNEL) != res)
		return;
	atomic_dec(&rt->count[res->type]);
	rdma_restrack_put(res);
	wait_for_completion(&res->comp);
	/* Ready to be added again. */
	kref_init(&res->kref);
	reinit_completion(&res->comp);
}

void rdma_restrack_del(struct rdma_restrack_entry *res)
{
	rdma_restrack_remove(res);
	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
}
EXPORT_SYMBOL(rdma_restrack_del);

static void restrack_release(struct kref *kref)
{
	complete(&container_of(kref, struct rdma_restrack_entry, kref)->comp);
}

void rdma_restrack_put(struct rdma_restrack_entry *res)
{
	kref_put(&res->kref, restrack_release);
}

/*
 * The first entry of @type with an id >= *pos, referenced, with *pos moved
 * past it (a cursor: the caller loops until NULL); NULL when there is none.
 * The table lock keeps an entry found there from being freed until the
 * reference is taken: rdma_restrack_remove() takes the same lock to unlink
 * it before it waits for the references.
 */
struct rdma_restrack_entry *
rdma_restrack_next(struct ib_device *dev, enum rdma_restrack_type type,
		   u64 *pos)
{
	struct rdma_restrack_root *rt = dev->res;
	struct rdma_restrack_entry *res;
	unsigned long index;
	struct xarray *xa;

	if (!rt || type >= RDMA_RESTRACK_MAX || *pos > U32_MAX)
		return NULL;
	index = *pos;
	xa = &rt->xa[type];
	xa_lock(xa);
	for (res = xa_find(xa, &index, U32_MAX, XA_PRESENT); res;
	     res = xa_find_after(xa, &index, U32_MAX, XA_PRESENT)) {
		/* Zero: being removed, it is no longer listed. */
		if (kref_get_unless_zero(&res->kref))
			break;
	}
	xa_unlock(xa);
	if (res)
		*pos = (u64)index + 1;
	return res;
}

/* The entry of @type with exactly this id, referenced, or NULL. */
struct rdma_restrack_entry *
rdma_restrack_get_byid(struct ib_device *dev, enum rdma_restrack_type type,
		       u32 id)
{
	struct rdma_restrack_root *rt = dev->res;
	struct rdma_restrack_entry *res;

	if (!rt || type >= RDMA_RESTRACK_MAX)
		return NULL;
	xa_lock(&rt->xa[type]);
	res = xa_load(&rt->xa[type], id);
	if (res && !kref_get_unless_zero(&res->kref))
		res = NULL;
	xa_unlock(&rt->xa[type]);
	return res;
}
