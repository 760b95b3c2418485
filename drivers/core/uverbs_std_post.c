// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting work requests through write(): POST_SEND (also the doorbell of
 * rxe and siw, which userspace rings with no WR at all), POST_RECV and
 * POST_SRQ_RECV. rdma-core 44 has no ioctl form of these.
 *
 * Layout after the 24-byte command: wr_count WRs of wqe_size bytes, then
 * sge_count SGEs (16 bytes each) consumed by the WRs in order.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "uverbs.h"

/* Returns in *sge_off the byte offset (in the request) of the SGE array. */
static int uverbs_post_layout(struct uverbs_attr_bundle *attrs, size_t hdr,
			      u32 wr_count, u32 sge_count, u32 wqe_size,
			      size_t min_wqe, size_t *sge_off)
{
	size_t wrs, sges, total;

	if (wqe_size < min_wqe)
		return -EINVAL;
	if (check_mul_overflow((size_t)wr_count, (size_t)wqe_size, &wrs) ||
	    check_mul_overflow((size_t)sge_count,
			       sizeof(struct ib_uverbs_sge), &sges) ||
	    check_add_overflow(hdr, wrs, &total) ||
	    check_add_overflow(total, sges, &total) ||
	    total > attrs->ucore.inlen)
		return -EINVAL;
	*sge_off = hdr + wrs;
	return 0;
}

static int uverbs_copy_sges(struct uverbs_attr_bundle *attrs,
			    size_t sge_off, u32 first, u32 num,
			    struct ib_sge *sg)
{
	struct ib_uverbs_sge usge;
	u32 i;
	int ret;

	for (i = 0; i < num; i++) {
		ret = uverbs_copy_in(attrs, sge_off +
				     (size_t)(first + i) * sizeof(usge),
				     &usge, sizeof(usge));
		if (ret)
			return ret;
		sg[i].addr = usge.addr;
		sg[i].length = usge.length;
		sg[i].lkey = usge.lkey;
	}
	return 0;
}

/* The SGE array of a WR allocated at wr + wr_size. */
static struct ib_sge *uverbs_wr_sges(void *wr, size_t wr_size)
{
	return wr + ALIGN(wr_size, sizeof(struct ib_sge));
}

/* ------------------------------------------------------------ send */

/* A kernel send WR of any opcode, and the AH it holds (UD). */
struct uverbs_send_box {
	struct ib_uobject	*ah_uobj;
	union {
		struct ib_send_wr	wr;
		struct ib_rdma_wr	rdma;
		struct ib_atomic_wr	atomic;
		struct ib_ud_wr		ud;
	};
};

static void uverbs_free_send_wrs(struct ib_send_wr *wr)
{
	struct uverbs_send_box *box;

	while (wr) {
		box = container_of(wr, struct uverbs_send_box, wr);
		wr = wr->next;
		if (box->ah_uobj)
			uobj_put_read(box->ah_uobj);
		kfree(box);
	}
}

/* The size of the kernel WR for a user opcode on this QP type. */
static ssize_t uverbs_send_wr_size(const struct ib_qp *qp, u32 opcode)
{
	if (qp->qp_type == IB_QPT_UD)
		return opcode == IB_WR_SEND || opcode == IB_WR_SEND_WITH_IMM ?
		       sizeof(struct ib_ud_wr) : -EINVAL;
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		return sizeof(struct ib_rdma_wr);
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return sizeof(struct ib_atomic_wr);
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		return sizeof(struct ib_send_wr);
	default:
		return -EINVAL;
	}
}

/* One user send WR as the kernel WR of its opcode, SGEs after it. */
static struct ib_send_wr *
uverbs_build_send_wr(struct uverbs_attr_bundle *attrs, struct ib_qp *qp,
		     const struct ib_uverbs_send_wr *uwr, size_t sge_off,
		     u32 sge_first)
{
	ssize_t wr_size = uverbs_send_wr_size(qp, uwr->opcode);
	struct uverbs_send_box *box;
	struct ib_send_wr *wr;
	int ret;

	if (wr_size < 0)
		return ERR_PTR(wr_size);
	box = kzalloc(offsetof(struct uverbs_send_box, wr) +
		      ALIGN(wr_size, sizeof(struct ib_sge)) +
		      (size_t)uwr->num_sge * sizeof(struct ib_sge), GFP_KERNEL);
	if (!box)
		return ERR_PTR(-ENOMEM);
	wr = &box->wr;

	if (qp->qp_type == IB_QPT_UD) {
		box->ud.ah = uverbs_get_obj(attrs, UVERBS_OBJECT_AH,
					    uwr->wr.ud.ah, &box->ah_uobj);
		if (IS_ERR(box->ud.ah)) {
			ret = PTR_ERR(box->ud.ah);
			box->ah_uobj = NULL;
			goto err;
		}
		box->ud.remote_qpn = uwr->wr.ud.remote_qpn;
		box->ud.remote_qkey = uwr->wr.ud.remote_qkey;
	} else if (wr_size == sizeof(struct ib_rdma_wr)) {
		box->rdma.remote_addr = uwr->wr.rdma.remote_addr;
		box->rdma.rkey = uwr->wr.rdma.rkey;
	} else if (wr_size == sizeof(struct ib_atomic_wr)) {
		box->atomic.remote_addr = uwr->wr.atomic.remote_addr;
		box->atomic.compare_add = uwr->wr.atomic.compare_add;
		box->atomic.swap = uwr->wr.atomic.swap;
		box->atomic.rkey = uwr->wr.atomic.rkey;
	}

	wr->wr_id = uwr->wr_id;
	wr->opcode = uwr->opcode;
	wr->send_flags = uwr->send_flags;
	if (uwr->opcode == IB_WR_SEND_WITH_IMM ||
	    uwr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wr->ex.imm_data = uwr->ex.imm_data;
	else if (uwr->opcode == IB_WR_SEND_WITH_INV)
		wr->ex.invalidate_rkey = uwr->ex.invalidate_rkey;

	wr->num_sge = uwr->num_sge;
	if (uwr->num_sge) {
		wr->sg_list = uverbs_wr_sges(wr, wr_size);
		ret = uverbs_copy_sges(attrs, sge_off, sge_first,
				       uwr->num_sge, wr->sg_list);
		if (ret)
			goto err;
	}
	return wr;
err:
	uverbs_free_send_wrs(wr);
	return ERR_PTR(ret);
}

/*
 * Also the doorbell of drivers with user-mapped send queues (rxe, siw):
 * wr_count 0 hands the driver an empty list, which tells it to look at
 * the queue userspace filled.
 */
static int uverbs_post_send(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_post_send_resp resp = {};
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *wr = NULL, **tail = &wr, *next;
	struct ib_uverbs_send_wr uwr;
	struct ib_uverbs_post_send cmd;
	struct ib_uobject *uobj;
	size_t sge_off;
	u32 i, sg_ind = 0;
	struct ib_qp *qp;
	int ret, ret2;

	qp = uverbs_cmd_obj(attrs, cmd, qp_handle, UVERBS_OBJECT_QP, &uobj);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = uverbs_post_layout(attrs, sizeof(cmd), cmd.wr_count,
				 cmd.sge_count, cmd.wqe_size, sizeof(uwr),
				 &sge_off);
	if (!ret && !qp->device->ops.post_send)
		ret = -EOPNOTSUPP;
	if (ret)
		goto out;

	for (i = 0; i < cmd.wr_count; i++) {
		/* Bytes of a larger wqe_size beyond what we know are ignored. */
		ret = uverbs_copy_in(attrs, sizeof(cmd) +
				     (size_t)i * cmd.wqe_size,
				     &uwr, sizeof(uwr));
		if (ret)
			goto out;
		if (uwr.num_sge > cmd.sge_count - sg_ind) {
			ret = -EINVAL;
			goto out;
		}
		next = uverbs_build_send_wr(attrs, qp, &uwr, sge_off, sg_ind);
		if (IS_ERR(next)) {
			ret = PTR_ERR(next);
			goto out;
		}
		sg_ind += uwr.num_sge;
		*tail = next;
		tail = &next->next;
	}

	ret = qp->device->ops.post_send(qp, wr, &bad_wr);
	if (ret) {
		/* 1-based index of the WR that failed; 0 if none was. */
		for (next = wr; next; next = next->next) {
			resp.bad_wr++;
			if (next == bad_wr)
				break;
		}
	}
	ret2 = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret2 && !ret)
		ret = ret2;
out:
	uverbs_free_send_wrs(wr);
	uobj_put_read(uobj);
	return ret;
}

/* ------------------------------------------------------------ receive */

static void uverbs_free_recv_wrs(struct ib_recv_wr *wr)
{
	struct ib_recv_wr *next;

	while (wr) {
		next = wr->next;
		kfree(wr);
		wr = next;
	}
}

/* POST_RECV and POST_SRQ_RECV share the request layout. */
static struct ib_recv_wr *
uverbs_build_recv_wrs(struct uverbs_attr_bundle *attrs,
		      const struct ib_uverbs_post_recv *cmd)
{
	struct ib_recv_wr *list = NULL, **tail = &list, *wr;
	struct ib_uverbs_recv_wr uwr;
	u32 i, sg_ind = 0;
	size_t sge_off;
	int ret;

	ret = uverbs_post_layout(attrs, sizeof(*cmd), cmd->wr_count,
				 cmd->sge_count, cmd->wqe_size, sizeof(uwr),
				 &sge_off);
	if (ret)
		return ERR_PTR(ret);

	for (i = 0; i < cmd->wr_count; i++) {
		ret = uverbs_copy_in(attrs, sizeof(*cmd) +
				     (size_t)i * cmd->wqe_size,
				     &uwr, sizeof(uwr));
		if (ret)
			goto err;
		if (uwr.num_sge > cmd->sge_count - sg_ind) {
			ret = -EINVAL;
			goto err;
		}
		wr = kzalloc(ALIGN(sizeof(*wr), sizeof(struct ib_sge)) +
			     (size_t)uwr.num_sge * sizeof(struct ib_sge),
			     GFP_KERNEL);
		if (!wr) {
			ret = -ENOMEM;
			goto err;
		}
		*tail = wr;
		tail = &wr->next;

		wr->wr_id = uwr.wr_id;
		wr->num_sge = uwr.num_sge;
		if (uwr.num_sge) {
			wr->sg_list = uverbs_wr_sges(wr, sizeof(*wr));
			ret = uverbs_copy_sges(attrs, sge_off, sg_ind,
					       uwr.num_sge, wr->sg_list);
			if (ret)
				goto err;
		}
		sg_ind += uwr.num_sge;
	}
	return list;
err:
	uverbs_free_recv_wrs(list);
	return ERR_PTR(ret);
}

/*
 * POST_RECV (a QP's receive queue) or POST_SRQ_RECV: the request layouts
 * are the same but for the name of the handle.
 */
static int uverbs_post_recv_to(struct uverbs_attr_bundle *attrs, bool srq)
{
	struct ib_uverbs_post_recv_resp resp = {};
	const struct ib_recv_wr *bad_wr = NULL, *w;
	struct ib_uverbs_post_recv cmd;
	struct ib_recv_wr *wr;
	struct ib_uobject *uobj;
	void *target;
	int ret, ret2;

	BUILD_BUG_ON(sizeof(cmd) != sizeof(struct ib_uverbs_post_srq_recv));
	BUILD_BUG_ON(sizeof(resp) != sizeof(struct ib_uverbs_post_srq_recv_resp));
	target = uverbs_cmd_obj(attrs, cmd, qp_handle, srq ? UVERBS_OBJECT_SRQ :
				UVERBS_OBJECT_QP, &uobj);
	if (IS_ERR(target))
		return PTR_ERR(target);

	wr = uverbs_build_recv_wrs(attrs, &cmd);
	if (IS_ERR(wr)) {
		ret = PTR_ERR(wr);
		goto out;
	}
	if (srq) {
		struct ib_srq *s = target;

		ret = s->device->ops.post_srq_recv ?
		      s->device->ops.post_srq_recv(s, wr, &bad_wr) :
		      -EOPNOTSUPP;
	} else {
		struct ib_qp *q = target;

		ret = q->device->ops.post_recv ?
		      q->device->ops.post_recv(q, wr, &bad_wr) : -EOPNOTSUPP;
	}
	/* 1-based index of the WR that failed. */
	for (w = wr; ret && w; w = w->next) {
		resp.bad_wr++;
		if (w == bad_wr)
			break;
	}
	ret2 = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret2 && !ret)
		ret = ret2;
	uverbs_free_recv_wrs(wr);
out:
	uobj_put_read(uobj);
	return ret;
}

static int uverbs_post_recv(struct uverbs_attr_bundle *attrs)
{
	return uverbs_post_recv_to(attrs, false);
}

static int uverbs_post_srq_recv(struct uverbs_attr_bundle *attrs)
{
	return uverbs_post_recv_to(attrs, true);
}

const struct uapi_definition uverbs_def_post[] = {
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_QP,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_POST_SEND,
				     uverbs_post_send,
				     UAPI_WRITE_IO(post_send, post_send_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_POST_RECV,
				     uverbs_post_recv,
				     UAPI_WRITE_IO(post_recv, post_recv_resp))),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_SRQ,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_POST_SRQ_RECV,
				     uverbs_post_srq_recv,
				     UAPI_WRITE_IO(post_srq_recv,
						   post_srq_recv_resp))),
	{},
};
