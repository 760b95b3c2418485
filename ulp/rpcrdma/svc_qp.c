// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A connection's verbs resources: PD, separate send and receive CQs,
 * the RC QP (through rdma_cm) sized as ULP.md 7.5 says, the receive and
 * send buffers, and the receives posted before the accept goes out.
 * svcr_conn_teardown() undoes any prefix of svcr_conn_setup().
 */
#include <linux/sunrpc/svc.h>
#include <rdma/rw.h>

#include "svc_conn.h"

static void svcr_qp_event(struct ib_event *ev, void *context)
{
	struct svcr_xprt *conn = context;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		return;
	default:
		break;
	}
	pr_info("svcrdma: QP event %s on %pISpc, closing\n",
		ib_event_msg(ev->event), &conn->xprt.xpt_remote);
	spin_lock_bh(&conn->lock);
	if (conn->accepted && !conn->closing)
		svc_xprt_deferred_close(&conn->xprt);
	spin_unlock_bh(&conn->lock);
}

/* Credits, queue depths and buffer sizes from the sysctls and the device. */
static int svcr_conn_size(struct svcr_xprt *conn)
{
	unsigned int max_wr = conn->dev->attrs.max_qp_wr;
	unsigned int credits = READ_ONCE(svcr_max_requests);

	conn->rq_depth = min(credits + SVCR_RECV_EXTRA + SVCR_BC_REQS,
			     max_wr - 1);
	if (conn->rq_depth <= SVCR_RECV_EXTRA + SVCR_BC_REQS)
		return -EINVAL;
	conn->credits = conn->rq_depth - SVCR_RECV_EXTRA - SVCR_BC_REQS;
	conn->nr_recvs = conn->rq_depth + conn->credits;
	conn->nr_sends = min(conn->credits + SVCR_SEND_EXTRA, max_wr - 1);
	conn->recv_size = READ_ONCE(svcr_max_req_size);
	conn->send_size = min(conn->recv_size, conn->peer_recv_size);
	return 0;
}

int svcr_conn_setup(struct svcr_xprt *conn)
{
	struct ib_qp_init_attr attr = { };
	struct ib_device *dev;
	int err;

	conn->dev = dev = conn->cm_id->device;
	conn->port_num = conn->cm_id->port_num;
	err = svcr_conn_size(conn);
	if (err)
		return err;

	conn->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(conn->pd)) {
		err = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return err;
	}
	/* "+ 1" everywhere below: room for ib_drain_qp()'s marker WR */
	conn->rcq = ib_alloc_cq_any(dev, conn, conn->rq_depth + 1,
				    IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->rcq)) {
		err = PTR_ERR(conn->rcq);
		conn->rcq = NULL;
		return err;
	}

	attr.event_handler = svcr_qp_event;
	attr.qp_context = conn;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.port_num = conn->port_num;
	attr.cap.max_send_wr = conn->nr_sends + 1;
	attr.cap.max_recv_wr = conn->rq_depth + 1;
	/* Sends are one buffer; RDMA Read/Write may gather up to 16 pages */
	attr.cap.max_send_sge = min_t(u32, dev->attrs.max_send_sge, 16);
	attr.cap.max_recv_sge = 1;
	/* one Read or Write chunk context per credit; ib_core adds its WRs */
	attr.cap.max_rdma_ctxs = conn->credits;

	/* the send CQ must hold what ib_core will size the send queue to */
	conn->scq = ib_alloc_cq_any(dev, conn,
				    min_t(u32, conn->nr_sends + 1 +
					  rdma_rw_max_send_wr(dev,
							      conn->port_num,
							      conn->credits, 0),
					  dev->attrs.max_qp_wr),
				    IB_POLL_WORKQUEUE);
	if (IS_ERR(conn->scq)) {
		err = PTR_ERR(conn->scq);
		conn->scq = NULL;
		return err;
	}
	attr.send_cq = conn->scq;
	attr.recv_cq = conn->rcq;

	err = rdma_create_qp(conn->cm_id, conn->pd, &attr);
	if (err)
		return err;
	conn->qp = conn->cm_id->qp;
	conn->sq_size = attr.cap.max_send_wr - 1;
	atomic_set(&conn->sq_avail, conn->sq_size);

	err = svcr_recv_alloc(conn);
	if (err)
		return err;
	err = svcr_send_alloc(conn);
	if (err)
		return err;
	return svcr_recv_refill(conn);
}

void svcr_conn_teardown(struct svcr_xprt *conn)
{
	bool accepted;

	spin_lock_bh(&conn->lock);
	conn->closing = true;
	accepted = conn->accepted;
	spin_unlock_bh(&conn->lock);

	if (conn->qp) {
		/*
		 * After the drain no completion handler runs any more. A QP
		 * never accepted saw no traffic: nothing to wait for.
		 */
		if (accepted)
			ib_drain_qp(conn->qp);
		/* contexts of a post that failed half-way */
		svcr_rw_release(conn, &conn->rw_orphans);
		rdma_destroy_qp(conn->cm_id);
		conn->qp = NULL;
	}
	if (conn->cm_id) {
		rdma_destroy_id(conn->cm_id);
		conn->cm_id = NULL;
	}
	if (conn->scq)
		ib_free_cq(conn->scq);
	if (conn->rcq)
		ib_free_cq(conn->rcq);
	svcr_send_free(conn);
	svcr_recv_free(conn);
	if (conn->pd)
		ib_dealloc_pd(conn->pd);
}
