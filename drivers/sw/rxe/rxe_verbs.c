// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe device methods (control side) and registration with ib_core.
 */
#include <linux/module.h>
#include <linux/cpumask.h>
#include <net/addrconf.h>
#include "rxe.h"

static int rxe_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = to_rdev(ibdev)->attr;
	return 0;
}

static int rxe_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct rxe_port *port = &to_rdev(ibdev)->port;
	int err;

	spin_lock_bh(&port->lock);
	*attr = port->attr;
	spin_unlock_bh(&port->lock);
	/* As stock rxe: an admin-up netdev without carrier is "Polling". */
	if (attr->state != IB_PORT_ACTIVE)
		attr->phys_state = (to_rdev(ibdev)->ndev->flags & IFF_UP) ?
				   IB_PORT_PHYS_STATE_POLLING :
				   IB_PORT_PHYS_STATE_DISABLED;

	err = ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			       &attr->active_width);
	return err;
}

static int rxe_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = RXE_PORT_PKEY_TBL_LEN;
	immutable->gid_tbl_len = RXE_PORT_GID_TBL_LEN;
	/* both RoCE versions, as hardware RoCE ports (stock rxe: v2 only) */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = RXE_MAX_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer rxe_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int rxe_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= RXE_PORT_PKEY_TBL_LEN)
		return -EINVAL;

	*pkey = RXE_DEFAULT_PKEY;
	return 0;
}

static int rxe_modify_device(struct ib_device *ibdev, int mask,
			     struct ib_device_modify *attr)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;

	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		rxe->attr.sys_image_guid = cpu_to_be64(attr->sys_image_guid);
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, attr->node_desc,
		       sizeof(ibdev->node_desc));
	return 0;
}

static int rxe_modify_port(struct ib_device *ibdev, u32 port_num,
			   int mask, struct ib_port_modify *attr)
{
	struct rxe_port *port = &to_rdev(ibdev)->port;

	spin_lock_bh(&port->lock);
	port->attr.port_cap_flags |= attr->set_port_cap_mask;
	port->attr.port_cap_flags &= ~attr->clr_port_cap_mask;
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		port->attr.qkey_viol_cntr = 0;
	spin_unlock_bh(&port->lock);
	return 0;
}

static void rxe_dealloc(struct ib_device *ibdev)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	rxe_cleanup_pools(rxe);
	sib_dev_free(rxe);
	netdev_put(rxe->ndev, &rxe->ndev_tracker);
}

/*
 * The response buffer of a user verb: NULL for a kernel caller, -EINVAL
 * when userspace left less room than the response needs. Every create
 * and resize verb starts with this.
 */
static int rxe_resp_buf(struct ib_udata *udata, size_t len, void __user **buf)
{
	*buf = NULL;
	if (!udata)
		return 0;
	if (udata->outlen < len)
		return -EINVAL;
	*buf = udata->outbuf;
	return 0;
}
#define rxe_uresp(udata, p) \
	rxe_resp_buf(udata, sizeof(**(p)), (void __user **)(p))

/* ---- user contexts and protection domains ---- */

static int rxe_alloc_ucontext(struct ib_ucontext *ibuc,
			      struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibuc->device);
	struct rxe_ucontext *uc = to_ruc(ibuc);
	int err;

	err = rxe_add_to_pool(&rxe->uc_pool, uc);
	if (err)
		return err;
	rxe_finalize(uc);
	return 0;
}

static void rxe_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	rxe_cleanup(to_ruc(ibuc));
}

static int rxe_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct rxe_pd *pd = to_rpd(ibpd);
	int err;

	err = rxe_add_to_pool(&rxe->pd_pool, pd);
	if (err)
		return err;
	rxe_finalize(pd);
	return 0;
}

static int rxe_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	rxe_cleanup(to_rpd(ibpd));
	return 0;
}

/* ---- address handles ---- */

/*
 * librxe puts the AH number into each UD send WQE. Old providers pass no
 * room for it and put a copy of the AV in the WQE instead.
 */
static int rxe_ah_tell_user(struct rxe_ah *ah, struct ib_udata *udata)
{
	struct rxe_create_ah_resp __user *uresp = udata->outbuf;

	if (udata->outlen < sizeof(*uresp))
		return 0;
	return put_user(ah->ah_num, &uresp->ah_num) ? -EFAULT : 0;
}

/* create_ah and create_user_ah; the former may come from softirq. */
static int rxe_create_ah(struct ib_ah *ibah,
			 struct rdma_ah_init_attr *init_attr,
			 struct ib_udata *udata)
{
	bool may_sleep = init_attr->flags & RDMA_CREATE_AH_SLEEPABLE;
	struct rxe_pool *pool = &to_rdev(ibah->device)->ah_pool;
	struct rdma_ah_attr *attr = init_attr->ah_attr;
	struct rxe_ah *ah = to_rah(ibah);
	int err;

	err = rxe_pool_add(pool, &ah->elem, ah,
			   may_sleep ? GFP_KERNEL : GFP_ATOMIC);
	if (err)
		return err;
	ah->ah_num = ah->elem.index;
	ah->is_user = !!udata;

	err = rxe_ah_chk_attr(ah, attr);
	if (!err && udata)
		err = rxe_ah_tell_user(ah, udata);
	if (err) {
		rxe_cleanup_ah(ah, may_sleep);
		return err;
	}

	rxe_init_av(attr, &ah->av);
	rxe_finalize(ah);
	return 0;
}

static int rxe_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct rxe_ah *ah = to_rah(ibah);
	int err = rxe_ah_chk_attr(ah, attr);

	if (!err)
		rxe_init_av(attr, &ah->av);
	return err;
}

static int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = (struct rdma_ah_attr){ .type = ibah->type };
	rxe_av_to_attr(&to_rah(ibah)->av, attr);
	return 0;
}

static int rxe_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	rxe_cleanup_ah(to_rah(ibah), flags & RDMA_DESTROY_AH_SLEEPABLE);
	return 0;
}

/* ---- receive WQEs (RQ and SRQ), kernel consumers ---- */

/* Caller holds the ring's producer lock. */
static int rxe_post_one_recv(struct rxe_rq *rq, const struct ib_recv_wr *ibwr)
{
	struct rxe_recv_wqe *wqe;
	u64 length = 0;
	int i;

	if (unlikely(ibwr->num_sge < 0 || ibwr->num_sge > rq->max_sge))
		return -EINVAL;
	if (unlikely(queue_full(rq->queue)))
		return -ENOMEM;

	for (i = 0; i < ibwr->num_sge; i++)
		length += ibwr->sg_list[i].length;
	if (unlikely(length > U32_MAX))
		return -EINVAL;

	wqe = queue_producer_addr(rq->queue);
	wqe->wr_id = ibwr->wr_id;
	wqe->reserved = 0;
	wqe->padding = 0;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.cur_sge = 0;
	wqe->dma.num_sge = ibwr->num_sge;
	wqe->dma.sge_offset = 0;
	wqe->dma.reserved = 0;
	for (i = 0; i < ibwr->num_sge; i++) {
		wqe->dma.sge[i].addr = ibwr->sg_list[i].addr;
		wqe->dma.sge[i].length = ibwr->sg_list[i].length;
		wqe->dma.sge[i].lkey = ibwr->sg_list[i].lkey;
	}
	queue_advance_producer(rq->queue);
	return 0;
}

static int rxe_post_recv_list(struct rxe_rq *rq,
			      const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&rq->producer_lock, flags);
	for (; wr; wr = wr->next) {
		err = rxe_post_one_recv(rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&rq->producer_lock, flags);
	return err;
}

/* ---- shared receive queues ---- */

static int rxe_create_srq(struct ib_srq *ibsrq,
			  struct ib_srq_init_attr *init,
			  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_pd *pd = to_rpd(ibsrq->pd);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct rxe_create_srq_resp __user *uresp;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;

	/* validate everything before the SRQ gets a number */
	err = rxe_uresp(udata, &uresp) ?: rxe_srq_chk_init(rxe, init) ?:
	      rxe_add_to_pool(&rxe->srq_pool, srq);
	if (err)
		return err;

	srq->pd = pd;
	rxe_get(pd);		/* rxe_srq_cleanup() drops it */
	err = rxe_srq_from_init(rxe, srq, init, udata, uresp);
	if (err) {
		rxe_cleanup(srq);
		return err;
	}
	rxe_finalize(srq);
	return 0;
}

static int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			  enum ib_srq_attr_mask mask,
			  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct rxe_modify_srq_cmd cmd = {};
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}

	err = rxe_srq_chk_attr(rxe, srq, attr, mask);
	if (err)
		return err;

	return rxe_srq_from_attr(rxe, srq, attr, mask, &cmd, udata);
}

static int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	if (srq->error)
		return -EINVAL;

	attr->max_wr = srq->rq.max_wr;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = srq->limit;
	return 0;
}

static int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	rxe_cleanup(to_rsrq(ibsrq));
	return 0;
}

static int rxe_post_srq_recv(struct ib_srq *ibsrq,
			     const struct ib_recv_wr *wr,
			     const struct ib_recv_wr **bad_wr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	return rxe_post_recv_list(&srq->rq, wr, bad_wr);
}

/* ---- completion queues ---- */

static int rxe_create_cq(struct ib_cq *ibcq,
			 const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_create_cq_resp __user *uresp;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;

	err = rxe_uresp(udata, &uresp);
	if (err)
		return err;

	err = rxe_cq_chk_attr(rxe, NULL, attr->cqe, attr->comp_vector);
	if (err)
		return err;

	err = rxe_add_to_pool(&rxe->cq_pool, cq);
	if (err)
		return err;

	err = rxe_cq_from_init(rxe, cq, attr->cqe, attr->comp_vector, udata,
			       uresp);
	if (err)
		goto err_cleanup;

	rxe_finalize(cq);
	return 0;

err_cleanup:
	rxe_cleanup(cq);
	return err;
}

static int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_resize_cq_resp __user *uresp;
	int err;

	err = rxe_uresp(udata, &uresp);
	if (err)
		return err;

	err = rxe_cq_chk_attr(rxe, cq, cqe, 0);
	if (err)
		return err;

	return rxe_cq_resize_queue(cq, cqe, uresp, udata);
}

static int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rxe_cq *cq = to_rcq(ibcq);

	/* ib_core checks usecnt; this also covers a QP mid-teardown */
	if (atomic_read(&cq->num_wq))
		return -EINVAL;

	rxe_cq_disable(cq);
	rxe_cleanup(cq);
	return 0;
}

static int rxe_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	struct rxe_cqe *cqe;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cq->cq_lock, flags);
	for (i = 0; i < num_entries; i++) {
		cqe = queue_head(cq->queue);
		if (!cqe)
			break;
		memcpy(&wc[i], &cqe->ibwc, sizeof(wc[i]));
		queue_advance_consumer(cq->queue);
	}
	spin_unlock_irqrestore(&cq->cq_lock, flags);
	return i;
}

static int rxe_peek_cq(struct ib_cq *ibcq, int wc_cnt)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	int count;

	count = queue_count(cq->queue);
	return count > wc_cnt ? wc_cnt : count;
}

static int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long irq_flags;
	int ret = 0;

	spin_lock_irqsave(&cq->cq_lock, irq_flags);
	/* NEXT_COMP is the wider request: a SOLICITED arm must not narrow it */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !queue_empty(cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->cq_lock, irq_flags);
	return ret;
}

/* ---- queue pairs ---- */

static int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_pd *pd = to_rpd(ibqp->pd);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_create_qp_resp __user *uresp;
	int err;

	err = rxe_uresp(udata, &uresp);
	if (err)
		return err;

	err = rxe_qp_chk_init(rxe, init);
	if (err)
		return err;

	err = rxe_add_to_pool(&rxe->qp_pool, qp);
	if (err)
		return err;

	err = rxe_qp_from_init(rxe, qp, pd, init, uresp, ibqp->pd, udata);
	if (err)
		goto err_cleanup;

	rxe_finalize(qp);
	return 0;

err_cleanup:
	rxe_cleanup(qp);
	return err;
}

static int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;

	err = rxe_qp_chk_attr(rxe, qp, attr, mask);
	if (err)
		return err;

	return rxe_qp_from_attr(qp, attr, mask, udata);
}

static int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			int mask, struct ib_qp_init_attr *init)
{
	struct rxe_qp *qp = to_rqp(ibqp);

	rxe_qp_to_init(qp, init);
	return rxe_qp_to_attr(qp, attr, mask);
}

static int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rxe_qp *qp = to_rqp(ibqp);

	rxe_qp_destroy(qp);
	rxe_cleanup(qp);
	return 0;
}

/* ---- send WQEs, kernel consumers ---- */

static int rxe_validate_send_wr(struct rxe_qp *qp,
				const struct ib_send_wr *ibwr,
				u32 mask, u64 length)
{
	if (unlikely(!mask))
		return -EINVAL;
	if (unlikely(ibwr->num_sge < 0 || ibwr->num_sge > qp->sq.max_sge))
		return -EINVAL;
	if (unlikely(length > U32_MAX))
		return -EINVAL;

	if (mask & WR_ATOMIC_MASK) {
		if (length < 8 || (atomic_wr(ibwr)->remote_addr & 7))
			return -EINVAL;
	}

	if (ibwr->send_flags & IB_SEND_INLINE) {
		if (!(mask & WR_INLINE_MASK) || length > qp->sq.max_inline)
			return -EINVAL;
	}

	if ((qp_type(qp) == IB_QPT_UD || qp_type(qp) == IB_QPT_GSI ||
	     qp_type(qp) == IB_QPT_SMI) && !ud_wr(ibwr)->ah)
		return -EINVAL;

	return 0;
}

/*
 * Copy what the WQE needs from a kernel work request, in two steps: the
 * "ex" word (immediate data or an rkey to invalidate), then the remote
 * side of the operation (a UD destination, or the RDMA, atomic or
 * registration arguments).
 */
static void rxe_init_send_wr(struct rxe_qp *qp, struct rxe_send_wr *wr,
			     const struct ib_send_wr *ibwr)
{
	bool ud = qp_type(qp) == IB_QPT_UD || qp_type(qp) == IB_QPT_GSI ||
		  qp_type(qp) == IB_QPT_SMI;
	const struct ib_atomic_wr *atomic;
	const struct ib_rdma_wr *rdma;
	const struct ib_reg_wr *reg;
	const struct ib_ud_wr *dest;

	wr->wr_id = ibwr->wr_id;
	wr->opcode = ibwr->opcode;
	wr->send_flags = ibwr->send_flags;

	switch (ibwr->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (ud)
			break;
		fallthrough;
	case IB_WR_SEND_WITH_IMM:
		wr->ex.imm_data = ibwr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		if (!ud)
			wr->ex.invalidate_rkey = ibwr->ex.invalidate_rkey;
		break;
	default:
		break;
	}

	if (ud) {
		dest = ud_wr(ibwr);
		wr->wr.ud.ah_num = to_rah(dest->ah)->ah_num;
		wr->wr.ud.remote_qpn = dest->remote_qpn;
		wr->wr.ud.remote_qkey = dest->remote_qkey;
		wr->wr.ud.pkey_index = dest->pkey_index;
		return;
	}

	switch (ibwr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		rdma = rdma_wr(ibwr);
		wr->wr.rdma.rkey = rdma->rkey;
		wr->wr.rdma.remote_addr = rdma->remote_addr;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		atomic = atomic_wr(ibwr);
		wr->wr.atomic.rkey = atomic->rkey;
		wr->wr.atomic.remote_addr = atomic->remote_addr;
		wr->wr.atomic.compare_add = atomic->compare_add;
		wr->wr.atomic.swap = atomic->swap;
		break;
	case IB_WR_REG_MR:
		reg = reg_wr(ibwr);
		wr->wr.reg.mr = reg->mr;
		wr->wr.reg.key = reg->key;
		wr->wr.reg.access = reg->access;
		break;
	default:
		break;
	}
}

/* Caller holds sq_lock. */
static int rxe_post_one_send(struct rxe_qp *qp, const struct ib_send_wr *ibwr)
{
	struct rxe_send_wqe *wqe;
	u64 length = 0;
	u32 mask;
	u8 *p;
	int err;
	int i;

	mask = rxe_wr_opcode_mask(ibwr->opcode, qp_type(qp));
	/* rxe_validate_send_wr() rejects num_sge > max_sge */
	for (i = 0; i < ibwr->num_sge && i < qp->sq.max_sge; i++)
		length += ibwr->sg_list[i].length;

	err = rxe_validate_send_wr(qp, ibwr, mask, length);
	if (err)
		return err;

	if (unlikely(queue_full(qp->sq.queue)))
		return -ENOMEM;

	wqe = queue_producer_addr(qp->sq.queue);
	memset(wqe, 0, sizeof(*wqe));
	rxe_init_send_wr(qp, &wqe->wr, ibwr);

	if (ibwr->send_flags & IB_SEND_INLINE) {
		/* kernel SGE addresses are kernel virtual addresses here */
		p = wqe->dma.inline_data;
		for (i = 0; i < ibwr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)ibwr->sg_list[i].addr,
			       ibwr->sg_list[i].length);
			p += ibwr->sg_list[i].length;
		}
	} else {
		for (i = 0; i < ibwr->num_sge; i++) {
			wqe->dma.sge[i].addr = ibwr->sg_list[i].addr;
			wqe->dma.sge[i].length = ibwr->sg_list[i].length;
			wqe->dma.sge[i].lkey = ibwr->sg_list[i].lkey;
		}
	}

	if (mask & WR_ATOMIC_MASK)
		wqe->iova = atomic_wr(ibwr)->remote_addr;
	else if (mask & WR_READ_OR_WRITE_MASK)
		wqe->iova = rdma_wr(ibwr)->remote_addr;
	wqe->mask = mask;
	wqe->dma.length = length;
	wqe->dma.resid = length;
	wqe->dma.num_sge = ibwr->num_sge;
	wqe->state = wqe_state_posted;
	wqe->status = 0;
	wqe->ssn = rxe_next_ssn(qp);

	queue_advance_producer(qp->sq.queue);
	return 0;
}

static int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	unsigned long flags;
	int err = 0;

	if (unlikely(!qp->valid || qp->req.state < QP_STATE_READY)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	/*
	 * User QP: librxe already wrote the WQEs; this is the doorbell. Send
	 * them from the caller's context, as stock rxe does: an application
	 * may destroy the QP right after posting unsignalled sends (mckey
	 * does) and still expects them on the wire.
	 */
	if (qp->is_user) {
		rxe_run_task(&qp->req.task);
		return 0;
	}

	spin_lock_irqsave(&qp->sq.sq_lock, flags);
	for (; wr; wr = wr->next) {
		err = rxe_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->sq.sq_lock, flags);

	rxe_sched_task(&qp->req.task);
	/* in ERR the completer flushes what was just posted */
	if (qp->req.state == QP_STATE_ERROR)
		rxe_sched_task(&qp->comp.task);
	return err;
}

static int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	int err;

	if (unlikely(qp->srq || qp->is_user || !qp->valid ||
		     qp_state(qp) < IB_QPS_INIT)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	err = rxe_post_recv_list(&qp->rq, wr, bad_wr);

	/* in ERR the responder flushes what was just posted */
	if (qp->resp.state == QP_STATE_ERROR)
		rxe_sched_task(&qp->resp.task);
	return err;
}

/* ---- memory regions (windows: rxe_mw.c) ---- */

/*
 * Common part of the MR constructors (contract in rxe_loc.h). Returns the
 * MR with a pool index and a PD reference, ready for an rxe_mr_init_*().
 */
static struct rxe_mr *rxe_mr_new(struct ib_pd *ibpd)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct rxe_pd *pd = to_rpd(ibpd);
	struct rxe_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	err = rxe_add_to_pool(&rxe->mr_pool, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}

	rxe_get(pd);
	mr->ibmr.pd = ibpd;
	mr->ibmr.device = ibpd->device;
	return mr;
}

/* Undo rxe_mr_new() after a failed init; the hook drops the PD. */
static void rxe_mr_abort(struct rxe_mr *mr)
{
	rxe_cleanup(mr);
	kfree(mr);
}

static struct ib_mr *rxe_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct rxe_mr *mr;

	mr = rxe_mr_new(ibpd);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	rxe_mr_init_dma(access, mr);
	rxe_finalize(mr);
	return &mr->ibmr;
}

static struct ib_mr *rxe_reg_user_mr(struct ib_pd *ibpd, u64 start,
				     u64 length, u64 iova, int access,
				     struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibpd->device);
	struct rxe_mr *mr;
	int err;

	mr = rxe_mr_new(ibpd);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = rxe_mr_init_user(rxe, start, length, iova, access, mr);
	if (err) {
		rxe_mr_abort(mr);
		return ERR_PTR(err);
	}

	rxe_finalize(mr);
	return &mr->ibmr;
}

static struct ib_mr *rxe_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				  u32 max_num_sg)
{
	struct rxe_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > RXE_MAX_FMR_PAGE_LIST_LEN)
		return ERR_PTR(-EINVAL);

	mr = rxe_mr_new(ibpd);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = rxe_mr_init_fast(max_num_sg, mr);
	if (err) {
		rxe_mr_abort(mr);
		return ERR_PTR(err);
	}

	rxe_finalize(mr);
	return &mr->ibmr;
}

/* multicast: attach_mcast/detach_mcast are in rxe_mcast.c */

/*
 * /sys/class/infiniband/<dev>/parent: udev's Soft-RoCE rule matches on it.
 * The device may be a namespace's view of ours: find it by its owner.
 */
static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(device);

	return sysfs_emit(buf, "%s\n", to_rdev(ibdev)->ndev->name);
}
static DEVICE_ATTR_RO(parent);

/* /sys/class/infiniband/<dev>/rx_drops: received packets dropped, by reason */
static ssize_t rx_drops_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(device);

	return rxe_rx_drops_show(to_rdev(ibdev), buf);
}
static DEVICE_ATTR_RO(rx_drops);

static struct attribute *rxe_dev_attributes[] = {
	&dev_attr_parent.attr,
	&dev_attr_rx_drops.attr,
	NULL
};

static const struct attribute_group rxe_attr_group = {
	.attrs = rxe_dev_attributes,
};

/* The device's methods, grouped by the object they act on. */
static const struct ib_device_ops rxe_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = RXE_UVERBS_ABI_VERSION,
	.device_group = &rxe_attr_group,
	.dealloc_driver = rxe_dealloc,

	/* device and port */
	.query_device = rxe_query_device,
	.modify_device = rxe_modify_device,
	.query_port = rxe_query_port,
	.modify_port = rxe_modify_port,
	.get_port_immutable = rxe_get_port_immutable,
	.get_link_layer = rxe_get_link_layer,
	.query_pkey = rxe_query_pkey,
	.alloc_hw_port_stats = rxe_ib_alloc_hw_port_stats,
	.get_hw_stats = rxe_ib_get_hw_stats,

	/* user contexts (and their ring mappings), protection domains */
	.alloc_ucontext = rxe_alloc_ucontext,
	.dealloc_ucontext = rxe_dealloc_ucontext,
	.mmap = rxe_mmap,
	.alloc_pd = rxe_alloc_pd,
	.dealloc_pd = rxe_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rxe_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, rxe_pd, ibpd),

	/* address handles */
	.create_ah = rxe_create_ah,
	.create_user_ah = rxe_create_ah,
	.modify_ah = rxe_modify_ah,
	.query_ah = rxe_query_ah,
	.destroy_ah = rxe_destroy_ah,
	INIT_RDMA_OBJ_SIZE(ib_ah, rxe_ah, ibah),

	/* completion queues */
	.create_cq = rxe_create_cq,
	.resize_cq = rxe_resize_cq,
	.poll_cq = rxe_poll_cq,
	.peek_cq = rxe_peek_cq,
	.req_notify_cq = rxe_req_notify_cq,
	.destroy_cq = rxe_destroy_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, rxe_cq, ibcq),

	/* shared receive queues */
	.create_srq = rxe_create_srq,
	.modify_srq = rxe_modify_srq,
	.query_srq = rxe_query_srq,
	.post_srq_recv = rxe_post_srq_recv,
	.destroy_srq = rxe_destroy_srq,
	INIT_RDMA_OBJ_SIZE(ib_srq, rxe_srq, ibsrq),

	/* queue pairs, their work requests and multicast groups */
	.create_qp = rxe_create_qp,
	.modify_qp = rxe_modify_qp,
	.query_qp = rxe_query_qp,
	.post_send = rxe_post_send,
	.post_recv = rxe_post_recv,
	.attach_mcast = rxe_attach_mcast,
	.detach_mcast = rxe_detach_mcast,
	.destroy_qp = rxe_destroy_qp,
	INIT_RDMA_OBJ_SIZE(ib_qp, rxe_qp, ibqp),

	/* memory regions (allocated here) and windows (by ib_core) */
	.get_dma_mr = rxe_get_dma_mr,
	.reg_user_mr = rxe_reg_user_mr,
	.alloc_mr = rxe_alloc_mr,
	.map_mr_sg = rxe_map_mr_sg,
	.dereg_mr = rxe_dereg_mr,
	.alloc_mw = rxe_alloc_mw,
	.dealloc_mw = rxe_dealloc_mw,
	INIT_RDMA_OBJ_SIZE(ib_mw, rxe_mw, ibmw),
};

int rxe_register_device(struct rxe_dev *rxe, const char *ibdev_name)
{
	struct ib_device *dev = &rxe->ib_dev;
	int err;

	strscpy(dev->node_desc, RXE_NODE_DESC, sizeof(dev->node_desc));
	dev->node_type = RDMA_NODE_IB_CA;
	dev->phys_port_cnt = 1;
	dev->num_comp_vectors = num_possible_cpus();
	dev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&dev->node_guid,
			    rxe->ndev->dev_addr);

	ib_set_device_ops(dev, &rxe_dev_ops);
	if (rxe->sib)
		sib_set_ops(rxe);
	rxe_mcast_init(rxe);

	err = ib_device_set_netdev(dev, rxe->ndev, 1);
	if (err)
		return err;

	return ib_register_device(dev, ibdev_name, NULL);
}
