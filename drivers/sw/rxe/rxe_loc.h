/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe functions shared between its files (struct rxe_dev is complete
 * here). One block per file that defines them.
 */
#ifndef RXE_LOC_H
#define RXE_LOC_H

#include <linux/mm_types.h>

/* rxe_av.c */
void rxe_init_av(struct rdma_ah_attr *attr, struct rxe_av *av);
int rxe_av_chk_attr(struct rxe_qp *qp, struct rdma_ah_attr *attr);
int rxe_ah_chk_attr(struct rxe_ah *ah, struct rdma_ah_attr *attr);
void rxe_av_from_attr(u32 port_num, struct rxe_av *av,
		      struct rdma_ah_attr *attr);
void rxe_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr);
void rxe_av_fill_ip_info(struct rxe_av *av, struct rdma_ah_attr *attr);
/*
 * The AV a send WQE goes to: the QP's path (RC/UC) or, for UD, the AH
 * named by pkt->wqe's ud.ah_num (or the AV inline in the WQE if ah_num is
 * 0). Needs pkt->qp and (UD) pkt->wqe. If an AH was looked up,
 * *ahp gets it with a reference: rxe_put(*ahp) once the packet is built.
 * NULL if the AH does not exist, is on another PD or the AV is bad.
 */
struct rxe_av *rxe_get_av(struct rxe_pkt_info *pkt, struct rxe_ah **ahp);

/* rxe_cq.c, for the transport: add a completion (raising the completion
 * event or CQ_ERR; any context), and stop events once destroy began. */
int rxe_cq_post(struct rxe_cq *cq, struct rxe_cqe *cqe, int solicited);
void rxe_cq_disable(struct rxe_cq *cq);
/* rxe_cq.c, for the verbs: checks first, then the queue itself */
int rxe_cq_chk_attr(struct rxe_dev *rxe, struct rxe_cq *cq, int cqe,
		    int comp_vector);
int rxe_cq_resize_queue(struct rxe_cq *cq, int new_cqe,
			struct rxe_resize_cq_resp __user *uresp,
			struct ib_udata *udata);
int rxe_cq_from_init(struct rxe_dev *rxe, struct rxe_cq *cq, int cqe,
		     int comp_vector, struct ib_udata *udata,
		     struct rxe_create_cq_resp __user *uresp);

/* rxe_mcast.c */
void rxe_mcast_init(struct rxe_dev *rxe);
int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid);
/* QP destroy: leave every group; may sleep. */
void rxe_mcast_detach_all(struct rxe_qp *qp);
/*
 * Receive: up to @max QPs attached to @mgid into @qps, each with a
 * reference (rxe_put); returns how many. Any context.
 */
int rxe_mcast_get_qps(struct rxe_dev *rxe, const union ib_gid *mgid,
		      struct rxe_qp **qps, int max);
bool rxe_mcast_has_group(struct rxe_dev *rxe, const union ib_gid *mgid);

/* rxe_mmap.c: the cookie that lets librxe mmap() one user ring */
struct rxe_mmap_info {
	struct kref ref;	/* the queue's, then each vma's */
	struct mminfo info;	/* offset and size, as userspace sees them */
	void *obj;		/* the vmalloc_user ring itself */
	bool mapped;		/* claimed by mmap(): out of rxe->mmaps */
	struct rxe_dev *rxe;
	struct ib_ucontext *context;	/* only this context may map it */
};

/* The device's cookie index; rxe_init_pools() calls it. */
void rxe_mmap_init(struct rxe_dev *rxe);
/* A cookie for @obj (@size bytes), not yet findable by mmap(). */
struct rxe_mmap_info *rxe_create_mmap_info(struct rxe_dev *rxe, u32 size,
					   struct ib_udata *udata, void *obj);
/* Make it findable, once userspace has been told about it. */
int rxe_mmap_publish(struct rxe_mmap_info *ip);
/* The last put frees the ring too. */
void rxe_mmap_put(struct rxe_mmap_info *ip);
int rxe_mmap(struct ib_ucontext *context, struct vm_area_struct *vma);

/* rxe_mr.c
 * MR lifetime contract (ib_core does not allocate ib_mr): the reg ops in
 * rxe_verbs.c kzalloc() the rxe_mr, rxe_add_to_pool(&rxe->mr_pool, mr),
 * rxe_get(pd), set mr->ibmr.pd and ibmr.device, call one rxe_mr_init_*()
 * (keys come from elem.index) and rxe_finalize(mr). On init failure they
 * call rxe_cleanup(mr) then kfree(mr). rxe_mr_cleanup() (pool hook) drops
 * the PD reference and frees the umem and page list; rxe_dereg_mr() is the
 * dereg_mr op itself: rxe_cleanup(mr) then kfree(mr).
 * MWs are core-allocated; rxe_alloc_mw/rxe_dealloc_mw do everything
 * (pool, PD reference) themselves.
 */
u8 rxe_get_next_key(u32 last_key);
void rxe_mr_init_dma(int access, struct rxe_mr *mr);
int rxe_mr_init_user(struct rxe_dev *rxe, u64 start, u64 length, u64 iova,
		     int access, struct rxe_mr *mr);
int rxe_mr_init_fast(int max_pages, struct rxe_mr *mr);
int rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *addr,
		unsigned int length, enum rxe_mr_copy_dir dir);
/* Copies to/from the SGEs of @dma, advancing it; lkeys checked on @pd. */
int copy_data(struct rxe_pd *pd, int access, struct rxe_dma_info *dma,
	      void *addr, int length, enum rxe_mr_copy_dir dir);
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		  int sg_nents, unsigned int *sg_offset);
/* Kernel address of an 8-byte aligned iova, or NULL if out of range. */
void *iova_to_vaddr(struct rxe_mr *mr, u64 iova, int length);
/*
 * Atomic op at iova (opcode: IB_OPCODE_RC_COMPARE_SWAP / _FETCH_ADD):
 * *orig_val gets the old value. Returns 0, -EINVAL if iova is not 8-byte
 * aligned (NAK invalid request), -EFAULT if out of range or MR not valid.
 */
int rxe_mr_do_atomic_op(struct rxe_mr *mr, u64 iova, int opcode,
			u64 compare, u64 swap_add, u64 *orig_val);
struct rxe_mr *lookup_mr(struct rxe_pd *pd, int access, u32 key,
			 enum rxe_mr_lookup_type type);
int mr_check_range(struct rxe_mr *mr, u64 iova, size_t length);
int advance_dma_data(struct rxe_dma_info *dma, unsigned int length);
int rxe_invalidate_mr(struct rxe_qp *qp, u32 key);
int rxe_reg_fast_mr(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
int rxe_mr_set_page(struct ib_mr *ibmr, u64 addr);
int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* rxe_mw.c */
int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rxe_dealloc_mw(struct ib_mw *ibmw);
int rxe_bind_mw(struct rxe_qp *qp, struct rxe_send_wqe *wqe);
int rxe_invalidate_mw(struct rxe_qp *qp, u32 rkey);
struct rxe_mw *rxe_lookup_mw(struct rxe_qp *qp, int access, u32 rkey);
/*
 * For an access of @length bytes at remote address @va through a window
 * from rxe_lookup_mw: checks it lies inside the window (zero based: @va is
 * an offset) and returns the window's MR with a reference (rxe_put it) and
 * *iova, the address to use with the MR; NULL if outside or unbound.
 */
struct rxe_mr *rxe_mw_to_mr(struct rxe_mw *mw, u64 va, u64 length,
			    u64 *iova);

/* rxe_qp.c */
int rxe_qp_chk_init(struct rxe_dev *rxe, struct ib_qp_init_attr *init);
int rxe_qp_from_init(struct rxe_dev *rxe, struct rxe_qp *qp,
		     struct rxe_pd *pd, struct ib_qp_init_attr *init,
		     struct rxe_create_qp_resp __user *uresp,
		     struct ib_pd *ibpd, struct ib_udata *udata);
int rxe_qp_to_init(struct rxe_qp *qp, struct ib_qp_init_attr *init);
int rxe_qp_chk_attr(struct rxe_dev *rxe, struct rxe_qp *qp,
		    struct ib_qp_attr *attr, int mask);
int rxe_qp_from_attr(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata);
int rxe_qp_to_attr(struct rxe_qp *qp, struct ib_qp_attr *attr, int mask);
/* Move to ERR: flush WQEs via the tasks, raise no event. Any context. */
void rxe_qp_error(struct rxe_qp *qp);
void rxe_qp_destroy(struct rxe_qp *qp);
/* Packet path lookup of a QP by number; takes a reference. */
struct rxe_qp *rxe_qp_get_by_qpn(struct rxe_dev *rxe, u32 qpn);
void rxe_qp_put(struct rxe_qp *qp);
/* Async event on the QP (IB_EVENT_*) to its owner. */
void rxe_qp_event(struct rxe_qp *qp, enum ib_event_type type);
/* RC timers: rxe_qp.c only timer_setup()s them; bodies in rxe_req.c/rxe_comp.c */

/* rxe_srq.c
 * srq->pd holds a PD reference, dropped by rxe_srq_cleanup(). create_srq
 * may take it (rxe_get(pd); srq->pd = pd) before rxe_srq_from_init();
 * if srq->pd is still NULL there, rxe_srq_from_init() takes it from
 * ibsrq.pd itself.
 */
int rxe_srq_chk_init(struct rxe_dev *rxe, struct ib_srq_init_attr *init);
int rxe_srq_chk_attr(struct rxe_dev *rxe, struct rxe_srq *srq,
		     struct ib_srq_attr *attr, enum ib_srq_attr_mask mask);
int rxe_srq_from_attr(struct rxe_dev *rxe, struct rxe_srq *srq,
		      struct ib_srq_attr *attr, enum ib_srq_attr_mask mask,
		      struct rxe_modify_srq_cmd *ucmd, struct ib_udata *udata);
int rxe_srq_from_init(struct rxe_dev *rxe, struct rxe_srq *srq,
		      struct ib_srq_init_attr *init, struct ib_udata *udata,
		      struct rxe_create_srq_resp __user *uresp);

/*
 * The pools' cleanup hooks (rxe_pool.c's table), one per object file: they
 * run once the last reference is gone and release what the object holds.
 */
void rxe_cq_cleanup(struct rxe_pool_elem *elem);
void rxe_srq_cleanup(struct rxe_pool_elem *elem);
void rxe_qp_cleanup(struct rxe_pool_elem *elem);
void rxe_mr_cleanup(struct rxe_pool_elem *elem);
void rxe_mw_cleanup(struct rxe_pool_elem *elem);

/* rxe_req.c */
int rxe_requester(struct rxe_qp *qp);
/* qp->rnr_nak_timer: the RNR NAK wait is over, resume sending. */
void rnr_nak_timer(struct timer_list *t);

/* rxe_comp.c */
int rxe_completer(struct rxe_qp *qp);
/* Queue an ACK / read response / atomic ACK for the completer. */
void rxe_comp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb);
/* qp->retrans_timer: no ACK progress for qp_timeout_jiffies. */
void retransmit_timer(struct timer_list *t);

/* rxe_resp.c */
int rxe_responder(struct rxe_qp *qp);
/* Queue a request packet for the responder. */
void rxe_resp_queue_pkt(struct rxe_qp *qp, struct sk_buff *skb);

/* rxe_task.c: see rxe_task.h */

/* rxe_verbs.c helpers used by the transport */
static inline int rxe_qp_wqe_size_ok(struct rxe_qp *qp, int num_sge)
{
	return num_sge <= qp->sq.max_sge;
}

/* Next SSN for a posted send WQE (kernel QPs; librxe sets its own). */
static inline u32 rxe_next_ssn(struct rxe_qp *qp)
{
	return atomic_inc_return(&qp->ssn);
}

#endif /* RXE_LOC_H */
