// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * XRC domains and shared XRC target QPs, and receive work queues (RSS).
 *
 * This stack has no XRC: ib_create_qp() refuses XRC QPs and SRQs, so no
 * domain can exist and no target QP can be opened; these entry points
 * answer as for a device without XRC. Work queues go to the driver's
 * methods, -EOPNOTSUPP without them (rxe, siw).
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/slab.h>
#include "core_priv.h"

struct ib_xrcd *ib_alloc_xrcd_user(struct ib_device *device,
				   struct inode *inode, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL(ib_alloc_xrcd_user);

/* Never reached with a domain of ours: none can be allocated. */
int ib_dealloc_xrcd_user(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	WARN_ON_ONCE(1);
	return -EINVAL;
}
EXPORT_SYMBOL(ib_dealloc_xrcd_user);

struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd,
			 struct ib_qp_open_attr *qp_open_attr)
{
	return ERR_PTR(qp_open_attr->qp_type == IB_QPT_XRC_TGT ?
		       -EOPNOTSUPP : -EINVAL);
}
EXPORT_SYMBOL(ib_open_qp);

/* Only handles from ib_open_qp() may be closed; there are none. */
int ib_close_qp(struct ib_qp *qp)
{
	return -EINVAL;
}
EXPORT_SYMBOL(ib_close_qp);

struct ib_wq *ib_create_wq(struct ib_pd *pd, struct ib_wq_init_attr *attr)
{
	struct ib_wq *wq;

	if (attr->wq_type != IB_WQT_RQ)
		return ERR_PTR(-EINVAL);
	if (!pd->device->ops.create_wq)
		return ERR_PTR(-EOPNOTSUPP);
	wq = pd->device->ops.create_wq(pd, attr, NULL);
	if (IS_ERR(wq))
		return wq;
	/* The driver allocated it; the core fills in what it tracks. */
	wq->device = pd->device;
	wq->pd = pd;
	wq->cq = attr->cq;
	wq->uobject = NULL;
	wq->wq_type = attr->wq_type;
	wq->wq_context = attr->wq_context;
	wq->event_handler = attr->event_handler;
	atomic_set(&wq->usecnt, 0);
	atomic_inc(&pd->usecnt);
	atomic_inc(&attr->cq->usecnt);
	return wq;
}
EXPORT_SYMBOL(ib_create_wq);

int ib_destroy_wq_user(struct ib_wq *wq, struct ib_udata *udata)
{
	struct ib_pd *pd = wq->pd;
	struct ib_cq *cq = wq->cq;
	int ret;

	/* An indirection table still points at it. */
	if (atomic_read(&wq->usecnt))
		return -EBUSY;
	ret = wq->device->ops.destroy_wq(wq, udata);
	if (ret)
		return ret;
	atomic_dec(&pd->usecnt);
	atomic_dec(&cq->usecnt);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_wq_user);
