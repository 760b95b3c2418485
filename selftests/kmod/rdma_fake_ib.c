// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A test-only InfiniBand HCA with no wire: one IB port (LID 1, active) that
 * is its own subnet manager. What its UD QPs send to LID 1 comes back to
 * the QP of that number on the same port, except SA requests (class 0x03
 * to QP1), which a small scripted SA answers: PathRecord Get, MCMemberRecord
 * Set/Delete, GuidInfoRecord and ClassPortInfo, each counted. A test module
 * steers the SA (answer, stay silent, answer late, refuse) through the
 * functions exported below, which lets the SA client and the multicast
 * code of the RDMA core be tested without an SM. Written against the
 * upstream 6.1 driver API only, so the same source also runs on the stock
 * kernel as the reference.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>

#include "rdma_fake_ib.h"

MODULE_DESCRIPTION("rdma-kmod fake InfiniBand HCA with a scripted SA (test only)");
MODULE_LICENSE("Dual BSD/GPL");

#define FIB_LID		1
#define FIB_GUID	0x0002c90300fab100ULL
#define FIB_MAD_BYTES	256
#define FIB_GRH_BYTES	40
#define FIB_MAX_GROUPS	16

struct fib_pd {
	struct ib_pd	ibpd;
};

struct fib_ah {
	struct ib_ah		ibah;
	struct rdma_ah_attr	attr;
};

struct fib_cq {
	struct ib_cq	ibcq;
	spinlock_t	lock;
	struct ib_wc	*ring;
	int		size, head, count;
	bool		armed;
};

struct fib_rwqe {
	struct list_head	list;
	struct ib_cqe		*cqe;
	u64			wr_id;
	u64			addr;
	u32			length;
};

struct fib_qp {
	struct ib_qp		ibqp;
	spinlock_t		lock;
	struct list_head	rq;
};

/* A MAD on its way to a QP of this port (or to the scripted SA). */
struct fib_pkt {
	struct list_head	list;
	u32			dst_qpn;
	u32			src_qpn;
	u16			slid;
	u16			pkey_index;
	unsigned long		due;		/* jiffies */
	u8			mad[FIB_MAD_BYTES];
};

/* A send completion still to be reported. */
struct fib_scqe {
	struct list_head	list;
	struct fib_cq		*cq;
	struct ib_wc		wc;
};

struct fib_group {
	union ib_gid	mgid;
	u16		mlid;
	u8		join_state;	/* union of the members' states */
	bool		used;
};

struct fib_dev {
	struct ib_device	ibdev;
	spinlock_t		lock;		/* everything below */
	struct fib_qp		*qps[2];	/* QP0, QP1 */
	struct list_head	pkts;
	struct list_head	scqes;
	struct delayed_work	work;
	enum fib_sa_mode	mode;
	unsigned int		delay_ms;
	u16			status;		/* for FIB_SA_REFUSE */
	unsigned int		counts[FIB_SA_NCOUNTS];
	struct fib_group	groups[FIB_MAX_GROUPS];
	unsigned int		next_mlid;
	enum ib_port_state	port_state;
	bool			dying;
};

static struct fib_dev *fib;

static struct fib_dev *to_fib(struct ib_device *ibdev)
{
	return container_of(ibdev, struct fib_dev, ibdev);
}

/* ------------------------------------------------------------ CQs */

static int fib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct fib_cq *cq = container_of(ibcq, struct fib_cq, ibcq);

	if (udata || attr->cqe < 1 || attr->cqe > 8192)
		return -EINVAL;
	cq->ring = kcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

static int fib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct fib_dev *dev = to_fib(ibcq->device);
	struct fib_cq *cq = container_of(ibcq, struct fib_cq, ibcq);
	struct fib_scqe *sc, *tmp;

	/* Send completions not reported yet have nowhere to go. */
	spin_lock_irq(&dev->lock);
	list_for_each_entry_safe(sc, tmp, &dev->scqes, list) {
		if (sc->cq == cq) {
			list_del(&sc->list);
			kfree(sc);
		}
	}
	spin_unlock_irq(&dev->lock);
	kfree(cq->ring);
	return 0;
}

static void fib_cq_add(struct fib_cq *cq, const struct ib_wc *wc)
{
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count < cq->size) {
		cq->ring[(cq->head + cq->count) % cq->size] = *wc;
		cq->count++;
		notify = cq->armed;
		cq->armed = false;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

static int fib_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct fib_cq *cq = container_of(ibcq, struct fib_cq, ibcq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num && cq->count; n++) {
		wc[n] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int fib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct fib_cq *cq = container_of(ibcq, struct fib_cq, ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	cq->armed = true;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/* ------------------------------------------------------------ PD, AH */

static int fib_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return udata ? -EOPNOTSUPP : 0;
}

static int fib_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

static int fib_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct fib_ah *ah = container_of(ibah, struct fib_ah, ibah);

	if (init->ah_attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;	/* not ours to keep */
	return 0;
}

static int fib_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}

static int fib_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = container_of(ibah, struct fib_ah, ibah)->attr;
	return 0;
}

/* MRs: a DMA MR only (the core wants the kernel verbs set complete). */
static struct ib_mr *fib_get_dma_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	return mr ? mr : ERR_PTR(-ENOMEM);
}

static struct ib_mr *fib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int fib_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	kfree(mr);
	return 0;
}

/* ------------------------------------------------------------ QPs */

static int fib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	struct fib_dev *dev = to_fib(ibqp->device);
	struct fib_qp *qp = container_of(ibqp, struct fib_qp, ibqp);
	unsigned int n;

	if (udata)
		return -EOPNOTSUPP;
	if (init->qp_type == IB_QPT_SMI)
		n = 0;
	else if (init->qp_type == IB_QPT_GSI)
		n = 1;
	else
		return -EOPNOTSUPP;	/* only the management QPs */
	spin_lock_init(&qp->lock);
	INIT_LIST_HEAD(&qp->rq);
	ibqp->qp_num = n;
	spin_lock_irq(&dev->lock);
	if (dev->qps[n]) {
		spin_unlock_irq(&dev->lock);
		return -EBUSY;
	}
	dev->qps[n] = qp;
	spin_unlock_irq(&dev->lock);
	return 0;
}

static int fib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	return 0;
}

static int fib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_qp_init_attr *init)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IB_QPS_RTS;
	attr->qkey = IB_QP1_QKEY;
	return 0;
}

static int fib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct fib_dev *dev = to_fib(ibqp->device);
	struct fib_qp *qp = container_of(ibqp, struct fib_qp, ibqp);
	struct fib_rwqe *w, *tmp;

	spin_lock_irq(&dev->lock);
	dev->qps[ibqp->qp_num] = NULL;
	spin_unlock_irq(&dev->lock);
	list_for_each_entry_safe(w, tmp, &qp->rq, list) {
		list_del(&w->list);
		kfree(w);
	}
	return 0;
}

static int fib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct fib_qp *qp = container_of(ibqp, struct fib_qp, ibqp);
	struct fib_rwqe *w;
	unsigned long flags;

	for (; wr; wr = wr->next) {
		w = kzalloc(sizeof(*w), GFP_ATOMIC);
		if (!w || wr->num_sge != 1) {
			kfree(w);
			*bad_wr = wr;
			return -ENOMEM;
		}
		w->cqe = wr->wr_cqe;
		w->wr_id = wr->wr_id;
		w->addr = wr->sg_list[0].addr;
		w->length = wr->sg_list[0].length;
		spin_lock_irqsave(&qp->lock, flags);
		list_add_tail(&w->list, &qp->rq);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	return 0;
}

static int fib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr)
{
	struct fib_dev *dev = to_fib(ibqp->device);
	const struct ib_ud_wr *ud;
	struct fib_scqe *sc;
	struct fib_pkt *pkt;
	unsigned long flags;
	u32 copied, i;

	for (; wr; wr = wr->next) {
		ud = ud_wr(wr);
		pkt = kzalloc(sizeof(*pkt), GFP_ATOMIC);
		sc = kzalloc(sizeof(*sc), GFP_ATOMIC);
		if (!pkt || !sc || wr->opcode != IB_WR_SEND) {
			kfree(pkt);
			kfree(sc);
			*bad_wr = wr;
			return -EINVAL;
		}
		/* Soft device: the DMA addresses are kernel addresses. */
		for (i = 0, copied = 0; i < wr->num_sge; i++) {
			u32 len = min_t(u32, wr->sg_list[i].length,
					FIB_MAD_BYTES - copied);

			memcpy(pkt->mad + copied,
			       (void *)(uintptr_t)wr->sg_list[i].addr, len);
			copied += len;
		}
		pkt->dst_qpn = ud->remote_qpn;
		pkt->src_qpn = ibqp->qp_num;
		pkt->slid = FIB_LID;
		pkt->pkey_index = ud->pkey_index;
		pkt->due = jiffies;
		if (rdma_ah_get_dlid(&container_of(ud->ah, struct fib_ah,
						   ibah)->attr) != FIB_LID)
			pkt->dst_qpn = U32_MAX;		/* nobody there */

		sc->cq = container_of(ibqp->send_cq, struct fib_cq, ibcq);
		sc->wc.wr_cqe = wr->wr_cqe;
		sc->wc.wr_id = wr->wr_id;
		sc->wc.status = IB_WC_SUCCESS;
		sc->wc.opcode = IB_WC_SEND;
		sc->wc.qp = ibqp;

		spin_lock_irqsave(&dev->lock, flags);
		list_add_tail(&sc->list, &dev->scqes);
		list_add_tail(&pkt->list, &dev->pkts);
		mod_delayed_work(system_wq, &dev->work, 0);
		spin_unlock_irqrestore(&dev->lock, flags);
	}
	return 0;
}

/* ------------------------------------------------------------ the SA */

static struct fib_group *fib_group_find(struct fib_dev *dev,
					const union ib_gid *mgid, bool create)
{
	struct fib_group *g, *free = NULL;

	for (g = dev->groups; g < dev->groups + FIB_MAX_GROUPS; g++) {
		if (g->used && !memcmp(&g->mgid, mgid, sizeof(*mgid)))
			return g;
		if (!g->used && !free)
			free = g;
	}
	if (!create || !free)
		return NULL;
	free->used = true;
	free->mgid = *mgid;
	free->mlid = 0xC000 + dev->next_mlid++;
	free->join_state = 0;
	return free;
}

/*
 * MCMemberRecord wire layout (IBA 15.2.5.17): MGID 0, PortGID 16, Q_Key 32,
 * MLID 36, MTU 38, TClass 39, P_Key 40, Rate 42, PacketLifeTime 43,
 * SL/FlowLabel/HopLimit 44, Scope/JoinState 48.
 */
static u16 fib_sa_mcmember(struct fib_dev *dev, u8 method, u8 *rec)
{
	struct fib_group *g;
	u8 state = rec[48] & 0x0F;

	if (method == IB_MGMT_METHOD_SET) {
		g = fib_group_find(dev, (union ib_gid *)rec, true);
		if (!g)
			return 0x0100;		/* no resources */
		g->join_state |= state;
		dev->counts[FIB_SA_JOIN]++;
	} else if (method == IB_SA_METHOD_DELETE) {
		g = fib_group_find(dev, (union ib_gid *)rec, false);
		dev->counts[FIB_SA_LEAVE]++;
		if (!g)
			return 0x0200;		/* request invalid */
		g->join_state &= ~state;
		if (!g->join_state)
			g->used = false;
	} else {
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}
	*(__be32 *)(rec + 32) = cpu_to_be32(0x0B1B);
	*(__be16 *)(rec + 36) = cpu_to_be16(g->mlid);
	rec[38] = (IB_SA_EQ << 6) | IB_MTU_2048;
	rec[39] = 0;
	*(__be16 *)(rec + 40) = cpu_to_be16(0xFFFF);
	rec[42] = (IB_SA_EQ << 6) | IB_RATE_10_GBPS;
	rec[43] = (IB_SA_EQ << 6) | 14;
	*(__be32 *)(rec + 44) = 0;	/* SL 0, flow label 0, hop limit 0 */
	rec[48] = (rec[48] & 0xF0) | state;
	return 0;
}

/* PathRecord (IBA 15.2.5.16): DLID 40, SLID 42, P_Key 50, MTU 54, Rate 55. */
static u16 fib_sa_path(struct fib_dev *dev, u8 method, u8 *rec)
{
	if (method != IB_MGMT_METHOD_GET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	dev->counts[FIB_SA_PATH]++;
	*(__be16 *)(rec + 40) = cpu_to_be16(FIB_LID);
	*(__be16 *)(rec + 42) = cpu_to_be16(FIB_LID);
	rec[49] = 0x80 | 1;		/* reversible, one path */
	*(__be16 *)(rec + 50) = cpu_to_be16(0xFFFF);
	rec[54] = (IB_SA_EQ << 6) | IB_MTU_2048;
	rec[55] = (IB_SA_EQ << 6) | IB_RATE_10_GBPS;
	rec[56] = (IB_SA_EQ << 6) | 14;
	return 0;
}

/* Turns the SA request in @pkt into its answer; false: no answer. */
static bool fib_sa_answer(struct fib_dev *dev, struct fib_pkt *pkt)
{
	struct ib_sa_mad *mad = (struct ib_sa_mad *)pkt->mad;
	u8 method = mad->mad_hdr.method;
	u16 status = 0;

	dev->counts[FIB_SA_ALL]++;
	if (dev->mode == FIB_SA_SILENT)
		return false;
	switch (be16_to_cpu(mad->mad_hdr.attr_id)) {
	case IB_SA_ATTR_MC_MEMBER_REC:
		status = fib_sa_mcmember(dev, method, mad->data);
		break;
	case IB_SA_ATTR_PATH_REC:
		status = fib_sa_path(dev, method, mad->data);
		break;
	case IB_SA_ATTR_GUID_INFO_REC:
		dev->counts[FIB_SA_GUIDINFO]++;
		*(__be16 *)mad->data = cpu_to_be16(FIB_LID);
		break;
	case IB_SA_ATTR_CLASS_PORTINFO:
		dev->counts[FIB_SA_CPI]++;
		memset(mad->data, 0, sizeof(mad->data));
		mad->data[0] = IB_MGMT_BASE_VERSION;
		mad->data[1] = IB_SA_CLASS_VERSION;
		ib_set_cpi_capmask2((struct ib_class_port_info *)mad->data,
				    IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT);
		break;
	default:
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}
	if (dev->mode == FIB_SA_REFUSE)
		status = dev->status;
	mad->mad_hdr.status = cpu_to_be16(status);
	mad->mad_hdr.method = method == IB_SA_METHOD_DELETE ?
			      IB_SA_METHOD_DELETE_RESP : IB_MGMT_METHOD_GET_RESP;
	pkt->dst_qpn = pkt->src_qpn;
	pkt->src_qpn = 1;
	if (dev->mode == FIB_SA_LATE)
		pkt->due = jiffies + msecs_to_jiffies(dev->delay_ms);
	return true;
}

/* ------------------------------------------------------------ delivery */

static void fib_deliver(struct fib_dev *dev, struct fib_pkt *pkt)
{
	struct fib_qp *qp = pkt->dst_qpn < 2 ? dev->qps[pkt->dst_qpn] : NULL;
	struct fib_rwqe *w = NULL;
	struct ib_wc wc = {};

	if (!qp)
		return;
	spin_lock(&qp->lock);
	if (!list_empty(&qp->rq)) {
		w = list_first_entry(&qp->rq, struct fib_rwqe, list);
		list_del(&w->list);
	}
	spin_unlock(&qp->lock);
	if (!w)
		return;
	if (w->length >= FIB_GRH_BYTES + FIB_MAD_BYTES) {
		void *buf = (void *)(uintptr_t)w->addr;

		memset(buf, 0, FIB_GRH_BYTES);
		memcpy(buf + FIB_GRH_BYTES, pkt->mad, FIB_MAD_BYTES);
		wc.status = IB_WC_SUCCESS;
	} else {
		wc.status = IB_WC_LOC_LEN_ERR;
	}
	wc.wr_cqe = w->cqe;
	wc.wr_id = w->wr_id;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = FIB_GRH_BYTES + FIB_MAD_BYTES;
	wc.qp = &qp->ibqp;
	wc.src_qp = pkt->src_qpn;
	wc.slid = pkt->slid;
	wc.pkey_index = pkt->pkey_index;
	wc.port_num = 1;
	kfree(w);
	fib_cq_add(container_of(qp->ibqp.recv_cq, struct fib_cq, ibcq), &wc);
}

/*
 * Runs what post_send queued: send completions first, then every packet
 * that is due, in order. SA requests become answers that are due now or
 * later. Never runs inside a caller of the verbs; dev->lock keeps QPs and
 * CQs from going away meanwhile.
 */
static void fib_work(struct work_struct *work)
{
	struct fib_dev *dev = container_of(to_delayed_work(work),
					   struct fib_dev, work);
	struct fib_pkt *pkt, *tmp;
	struct fib_scqe *sc;
	unsigned long next = 0;
	bool later = false;

	spin_lock_irq(&dev->lock);
	while (!list_empty(&dev->scqes)) {
		sc = list_first_entry(&dev->scqes, struct fib_scqe, list);
		list_del(&sc->list);
		fib_cq_add(sc->cq, &sc->wc);
		kfree(sc);
	}
	list_for_each_entry_safe(pkt, tmp, &dev->pkts, list) {
		struct ib_mad_hdr *hdr = (struct ib_mad_hdr *)pkt->mad;

		if (time_before(jiffies, pkt->due)) {
			if (!later || time_before(pkt->due, next))
				next = pkt->due;
			later = true;
			continue;
		}
		if (pkt->dst_qpn == 1 && hdr->mgmt_class ==
		    IB_MGMT_CLASS_SUBN_ADM && !ib_response_mad(hdr)) {
			if (fib_sa_answer(dev, pkt)) {
				if (time_before(jiffies, pkt->due)) {
					if (!later || time_before(pkt->due, next))
						next = pkt->due;
					later = true;
					continue;
				}
			} else {
				list_del(&pkt->list);
				kfree(pkt);
				continue;
			}
		}
		list_del(&pkt->list);
		if (!dev->dying)
			fib_deliver(dev, pkt);
		kfree(pkt);
	}
	if (later && !dev->dying)
		mod_delayed_work(system_wq, &dev->work,
				 time_after(next, jiffies) ? next - jiffies : 0);
	spin_unlock_irq(&dev->lock);
}

/* ------------------------------------------------------------ device */

static int fib_query_device(struct ib_device *ibdev, struct ib_device_attr *a,
			    struct ib_udata *udata)
{
	memset(a, 0, sizeof(*a));
	a->sys_image_guid = cpu_to_be64(FIB_GUID);
	a->max_mr_size = ~0ULL;
	a->page_size_cap = PAGE_SIZE;
	a->max_qp = 2;
	a->max_qp_wr = 1024;
	a->max_send_sge = 4;
	a->max_recv_sge = 4;
	a->max_sge_rd = 4;
	a->max_cq = 16;
	a->max_cqe = 8192;
	a->max_pd = 16;
	a->max_ah = 4096;
	a->max_pkeys = 1;
	return 0;
}

static int fib_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *a)
{
	struct fib_dev *dev = to_fib(ibdev);

	/* the core zeroes *a */
	a->state = dev->port_state;
	a->phys_state = dev->port_state == IB_PORT_ACTIVE ? 5 : 3;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = IB_MTU_2048;
	a->gid_tbl_len = 1;
	a->pkey_tbl_len = 1;
	a->port_cap_flags = IB_PORT_SM | IB_PORT_CM_SUP;
	a->max_msg_sz = 0x80000000;
	a->lid = FIB_LID;
	a->sm_lid = FIB_LID;
	a->sm_sl = 0;
	a->lmc = 0;
	a->max_vl_num = 1;
	a->subnet_timeout = 18;
	a->active_width = IB_WIDTH_4X;
	a->active_speed = IB_SPEED_SDR;
	return 0;
}

static int fib_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *im)
{
	im->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	im->gid_tbl_len = 1;
	im->pkey_tbl_len = 1;
	im->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static int fib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xFFFF;
	return 0;
}

static int fib_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	if (index)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(FIB_GUID + 1);
	return 0;
}

static enum rdma_link_layer fib_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static const struct ib_device_ops fib_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.alloc_pd = fib_alloc_pd,
	.create_ah = fib_create_ah,
	.create_cq = fib_create_cq,
	.create_qp = fib_create_qp,
	.dealloc_pd = fib_dealloc_pd,
	.dereg_mr = fib_dereg_mr,
	.destroy_ah = fib_destroy_ah,
	.destroy_cq = fib_destroy_cq,
	.destroy_qp = fib_destroy_qp,
	.get_dma_mr = fib_get_dma_mr,
	.get_link_layer = fib_get_link_layer,
	.get_port_immutable = fib_get_port_immutable,
	.modify_qp = fib_modify_qp,
	.poll_cq = fib_poll_cq,
	.post_recv = fib_post_recv,
	.post_send = fib_post_send,
	.query_device = fib_query_device,
	.query_gid = fib_query_gid,
	.query_pkey = fib_query_pkey,
	.query_ah = fib_query_ah,
	.query_port = fib_query_port,
	.query_qp = fib_query_qp,
	.reg_user_mr = fib_reg_user_mr,
	.req_notify_cq = fib_req_notify_cq,
	INIT_RDMA_OBJ_SIZE(ib_ah, fib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, fib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, fib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, fib_qp, ibqp),
};

/*
 * The core moves a device to another network namespace only if it can
 * disassociate user contexts; this one has none to disassociate, so a no-op
 * makes it movable (isolation_netns).
 */
static bool movable;
module_param(movable, bool, 0444);
MODULE_PARM_DESC(movable, "offer disassociate_ucontext, so that the device can change netns");

static void fib_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static const struct ib_device_ops fib_movable_ops = {
	.disassociate_ucontext = fib_disassociate_ucontext,
};

/* ------------------------------------------------------------ test hooks */

struct ib_device *fib_device(void)
{
	return &fib->ibdev;
}
EXPORT_SYMBOL(fib_device);

void fib_sa_set(enum fib_sa_mode mode, unsigned int delay_ms, u16 status)
{
	spin_lock_irq(&fib->lock);
	fib->mode = mode;
	fib->delay_ms = delay_ms;
	fib->status = status;
	spin_unlock_irq(&fib->lock);
}
EXPORT_SYMBOL(fib_sa_set);

unsigned int fib_sa_count(enum fib_sa_count what)
{
	unsigned int n;

	spin_lock_irq(&fib->lock);
	n = fib->counts[what];
	spin_unlock_irq(&fib->lock);
	return n;
}
EXPORT_SYMBOL(fib_sa_count);

/* Number of groups the SA holds a membership in. */
unsigned int fib_sa_groups(void)
{
	unsigned int i, n = 0;

	spin_lock_irq(&fib->lock);
	for (i = 0; i < FIB_MAX_GROUPS; i++)
		n += fib->groups[i].used;
	spin_unlock_irq(&fib->lock);
	return n;
}
EXPORT_SYMBOL(fib_sa_groups);

/* Port goes down or up (with its event), as a cable pulled or plugged. */
void fib_port_set(bool active)
{
	struct ib_event ev = {
		.device = &fib->ibdev,
		.element.port_num = 1,
		.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR,
	};

	spin_lock_irq(&fib->lock);
	fib->port_state = active ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	spin_unlock_irq(&fib->lock);
	ib_dispatch_event(&ev);
}
EXPORT_SYMBOL(fib_port_set);

/* Any port event, e.g. IB_EVENT_CLIENT_REREGISTER or IB_EVENT_SM_CHANGE. */
void fib_port_event(enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &fib->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}
EXPORT_SYMBOL(fib_port_event);

static int __init fib_init(void)
{
	int ret;

	fib = ib_alloc_device(fib_dev, ibdev);
	if (!fib)
		return -ENOMEM;
	spin_lock_init(&fib->lock);
	INIT_LIST_HEAD(&fib->pkts);
	INIT_LIST_HEAD(&fib->scqes);
	INIT_DELAYED_WORK(&fib->work, fib_work);
	fib->port_state = IB_PORT_DOWN;
	fib->ibdev.node_type = RDMA_NODE_IB_CA;
	fib->ibdev.node_guid = cpu_to_be64(FIB_GUID);
	fib->ibdev.phys_port_cnt = 1;
	fib->ibdev.num_comp_vectors = 1;
	strscpy(fib->ibdev.node_desc, "rdma-kmod fake IB", sizeof(fib->ibdev.node_desc));
	ib_set_device_ops(&fib->ibdev, &fib_ops);
	if (movable)
		ib_set_device_ops(&fib->ibdev, &fib_movable_ops);
	ret = ib_register_device(&fib->ibdev, "fakeib%d", NULL);
	if (ret) {
		ib_dealloc_device(&fib->ibdev);
		return ret;
	}
	/* The link comes up after registration, as on a real HCA. */
	fib_port_set(true);
	return 0;
}

static void __exit fib_exit(void)
{
	struct fib_pkt *pkt, *tmp;
	struct fib_scqe *sc, *stmp;

	ib_unregister_device(&fib->ibdev);
	spin_lock_irq(&fib->lock);
	fib->dying = true;
	spin_unlock_irq(&fib->lock);
	cancel_delayed_work_sync(&fib->work);
	list_for_each_entry_safe(pkt, tmp, &fib->pkts, list)
		kfree(pkt);
	list_for_each_entry_safe(sc, stmp, &fib->scqes, list)
		kfree(sc);
	ib_dealloc_device(&fib->ibdev);
}

module_init(fib_init);
module_exit(fib_exit);
