// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_isert connections: made when the initiator's request arrives (QP,
 * receive ring posted, accepted), queued on the portal until LIO's login
 * thread takes one (accept_np), torn down by LIO through wait_conn and
 * free_conn, or by our release work if LIO never took it.
 */
#include <linux/slab.h>
#include <rdma/ib_cm.h>

#include "isert.h"

static void isert_conn_release_work(struct work_struct *work);

int isert_post_rx(struct isert_conn *ic, struct isert_rx *rx)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int ret = 0;

	sge.addr = rx->dma;
	sge.length = ISERT_RX_LEN;
	sge.lkey = ic->pd->local_dma_lkey;
	wr.wr_cqe = &rx->cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ib_dma_sync_single_for_device(ic->ibdev, rx->dma, ISERT_RX_LEN,
				      DMA_FROM_DEVICE);
	spin_lock_bh(&ic->lock);
	if (ic->post_ok)
		ret = ib_post_recv(ic->qp, &wr, NULL);
	spin_unlock_bh(&ic->lock);
	return ret;
}

static void isert_free_rx(struct isert_conn *ic)
{
	unsigned int i;

	if (!ic->rx)
		return;
	for (i = 0; i < ISERT_NR_RX; i++) {
		struct isert_rx *rx = &ic->rx[i];

		if (!rx->buf)
			break;
		ib_dma_unmap_single(ic->ibdev, rx->dma, ISERT_RX_LEN,
				    DMA_FROM_DEVICE);
		kfree(rx->buf);
	}
	kfree(ic->rx);
	ic->rx = NULL;
}

static int isert_alloc_rx(struct isert_conn *ic)
{
	unsigned int i;

	ic->rx = kcalloc(ISERT_NR_RX, sizeof(*ic->rx), GFP_KERNEL);
	if (!ic->rx)
		return -ENOMEM;
	for (i = 0; i < ISERT_NR_RX; i++) {
		struct isert_rx *rx = &ic->rx[i];
		void *buf = kmalloc(ISERT_RX_LEN, GFP_KERNEL);

		if (!buf)
			goto err;
		rx->dma = ib_dma_map_single(ic->ibdev, buf, ISERT_RX_LEN,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ic->ibdev, rx->dma)) {
			kfree(buf);
			goto err;
		}
		rx->buf = buf;
		rx->ic = ic;
		rx->cqe.done = isert_rx_done;
		INIT_LIST_HEAD(&rx->node);
	}
	return 0;
err:
	isert_free_rx(ic);
	return -ENOMEM;
}

static void isert_free_tx(struct isert_conn *ic)
{
	unsigned int i;

	if (ic->login_tx.buf)
		isert_tx_exit(ic, &ic->login_tx);
	if (!ic->tx)
		return;
	for (i = 0; i < ISERT_NR_TX; i++) {
		if (!ic->tx[i].buf)
			break;
		isert_tx_exit(ic, &ic->tx[i]);
	}
	kfree(ic->tx);
	ic->tx = NULL;
}

static int isert_alloc_tx(struct isert_conn *ic)
{
	unsigned int i;

	if (isert_tx_init(ic, &ic->login_tx, ISERT_LOGIN_TX_LEN))
		return -ENOMEM;
	ic->login_tx.kind = ISERT_TX_LOGIN;
	ic->tx = kcalloc(ISERT_NR_TX, sizeof(*ic->tx), GFP_KERNEL);
	if (!ic->tx)
		goto err;
	for (i = 0; i < ISERT_NR_TX; i++) {
		if (isert_tx_init(ic, &ic->tx[i], ISERT_TX_LEN))
			goto err;
		list_add_tail(&ic->tx[i].node, &ic->tx_free);
	}
	return 0;
err:
	isert_free_tx(ic);
	return -ENOMEM;
}

static int isert_create_qp(struct isert_conn *ic)
{
	struct ib_qp_init_attr attr = {};
	unsigned int rw_ctxs;
	int ret;

	/*
	 * Completions: every send and every RDMA READ chain is signaled, each
	 * receive, and the two drain markers.
	 */
	ic->cq_size = ISERT_NR_TX + 1 + ISERT_NR_RW + ISERT_NR_RX + 2;
	ic->cq = ib_cq_pool_get(ic->ibdev, ic->cq_size, -1, IB_POLL_WORKQUEUE);
	if (IS_ERR(ic->cq)) {
		ret = PTR_ERR(ic->cq);
		ic->cq = NULL;
		return ret;
	}
	rw_ctxs = ISERT_NR_RW * rdma_rw_mr_factor(ic->ibdev, ic->port,
						  isert_sg_tablesize);
	attr.qp_context = ic;
	attr.send_cq = ic->cq;
	attr.recv_cq = ic->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.port_num = ic->port;
	attr.cap.max_send_wr = ISERT_NR_TX + 1 + 1;
	attr.cap.max_recv_wr = ISERT_NR_RX + 1;
	attr.cap.max_rdma_ctxs = rw_ctxs;
	attr.cap.max_send_sge = min_t(u32, ic->ibdev->attrs.max_send_sge, 16);
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(ic->cm_id, ic->pd, &attr);
	if (ret) {
		isert_err("cannot create a QP: %d\n", ret);
		ib_cq_pool_put(ic->cq, ic->cq_size);
		ic->cq = NULL;
		return ret;
	}
	ic->qp = ic->cm_id->qp;
	return 0;
}

static void isert_conn_free(struct isert_conn *ic)
{
	if (ic->qp)
		rdma_destroy_qp(ic->cm_id);
	if (ic->cq)
		ib_cq_pool_put(ic->cq, ic->cq_size);
	isert_free_tx(ic);
	isert_free_rx(ic);
	if (ic->pd)
		ib_dealloc_pd(ic->pd);
	kfree(ic);
}

static struct isert_conn *isert_conn_alloc(struct rdma_cm_id *id)
{
	struct isert_conn *ic;

	ic = kzalloc(sizeof(*ic), GFP_KERNEL);
	if (!ic)
		return NULL;
	ic->kind = ISERT_CTX_CONN;
	ic->cm_id = id;
	ic->ibdev = id->device;
	ic->port = id->port_num;
	ic->state = ISERT_REQUESTED;
	INIT_LIST_HEAD(&ic->np_node);
	spin_lock_init(&ic->lock);
	spin_lock_init(&ic->tx_lock);
	init_completion(&ic->login_comp);
	init_completion(&ic->logout_sent);
	INIT_LIST_HEAD(&ic->rx_list);
	INIT_LIST_HEAD(&ic->tx_free);
	init_waitqueue_head(&ic->rx_wait);
	init_waitqueue_head(&ic->tx_wait);
	INIT_WORK(&ic->release_work, isert_conn_release_work);
	return ic;
}

static int isert_accept(struct isert_conn *ic, struct rdma_cm_event *ev)
{
	const struct iser_cm_hdr *req = ev->param.conn.private_data;
	struct ib_device_attr *attrs = &ic->ibdev->attrs;
	struct rdma_conn_param param = {};
	struct iser_cm_hdr rsp = {};

	ic->remote_inv = (attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
		req && ev->param.conn.private_data_len >= sizeof(*req) &&
		!(req->flags & ISER_SEND_W_INV_NOT_SUP);
	rsp.flags = ISERT_ZBVA_NOT_USED;
	if (!ic->remote_inv)
		rsp.flags |= ISERT_SEND_W_INV_NOT_USED;

	param.initiator_depth = min_t(u8, ev->param.conn.initiator_depth,
				      attrs->max_qp_init_rd_atom);
	param.responder_resources = min_t(u8, ev->param.conn.responder_resources,
					  attrs->max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.private_data = &rsp;
	param.private_data_len = sizeof(rsp);
	return rdma_accept(ic->cm_id, &param);
}

/*
 * A connect request on the portal: build the connection and accept it. A
 * nonzero return makes rdma_cm destroy the new id (after our reject).
 */
int isert_conn_request(struct isert_np *inp, struct rdma_cm_id *id,
		       struct rdma_cm_event *ev)
{
	struct isert_conn *ic;
	unsigned int i;
	int ret = -ENOMEM;

	if (READ_ONCE(inp->stopping) || !inp->np->enabled) {
		isert_dbg(1, "portal %pISpc not enabled: rejected\n",
			  &inp->np->np_sockaddr);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return -ECONNREFUSED;
	}
	ic = isert_conn_alloc(id);
	if (!ic)
		goto err_reject;
	ic->pd = ib_alloc_pd(ic->ibdev, 0);
	if (IS_ERR(ic->pd)) {
		ret = PTR_ERR(ic->pd);
		ic->pd = NULL;
		goto err_free;
	}
	ret = isert_alloc_rx(ic);
	if (ret)
		goto err_free;
	ret = isert_alloc_tx(ic);
	if (ret)
		goto err_free;
	ret = isert_create_qp(ic);
	if (ret)
		goto err_free;
	ic->post_ok = true;
	for (i = 0; i < ISERT_NR_RX; i++) {
		ret = isert_post_rx(ic, &ic->rx[i]);
		if (ret)
			goto err_free;
	}

	/* from here on the id's events are this connection's */
	id->context = ic;
	spin_lock_bh(&inp->lock);
	if (inp->stopping) {
		spin_unlock_bh(&inp->lock);
		ret = -ECONNREFUSED;
		goto err_free;
	}
	ic->inp = inp;
	list_add_tail(&ic->np_node, &inp->pending);
	spin_unlock_bh(&inp->lock);

	ret = isert_accept(ic, ev);
	if (ret) {
		isert_err("cannot accept: %d\n", ret);
		spin_lock_bh(&inp->lock);
		list_del_init(&ic->np_node);
		ic->inp = NULL;
		spin_unlock_bh(&inp->lock);
		goto err_free;
	}
	return 0;

err_free:
	id->context = inp;
	isert_conn_free(ic);
err_reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret ? ret : -ENOMEM;
}

/* ESTABLISHED: the login thread may take it now. */
void isert_conn_established(struct isert_conn *ic)
{
	struct isert_np *inp = READ_ONCE(ic->inp);

	spin_lock_bh(&ic->lock);
	if (ic->state == ISERT_REQUESTED)
		ic->state = ISERT_UP;
	spin_unlock_bh(&ic->lock);
	if (!inp)
		return;
	spin_lock_bh(&inp->lock);
	if (ic->inp == inp)
		list_move_tail(&ic->np_node, &inp->ready);
	spin_unlock_bh(&inp->lock);
	wake_up(&inp->wait);
}

/*
 * The connection went away (or never came up). If LIO has it, wake
 * whatever of LIO waits on it: the RX thread, a login step, the TX thread
 * waiting for a Logout Response; LIO then closes it through wait_conn and
 * free_conn. If LIO never took it, our release work frees it.
 */
void isert_conn_down(struct isert_conn *ic)
{
	struct isert_np *inp;
	bool release = false;

	spin_lock_bh(&ic->lock);
	if (ic->state == ISERT_DOWN) {
		spin_unlock_bh(&ic->lock);
		return;
	}
	ic->state = ISERT_DOWN;
	/* between login steps nobody waits: LIO's login_work finds out */
	if (ic->conn && !ic->full_feature && ic->login_next)
		schedule_delayed_work(&ic->conn->login_work, 0);
	spin_unlock_bh(&ic->lock);
	complete(&ic->login_comp);
	complete(&ic->logout_sent);
	wake_up(&ic->rx_wait);

	inp = READ_ONCE(ic->inp);
	if (!inp)
		return;
	/* inp lives on: free_np waits for this handler before freeing it */
	spin_lock_bh(&inp->lock);
	if (ic->inp == inp) {
		list_del_init(&ic->np_node);
		WRITE_ONCE(ic->inp, NULL);
		release = true;
	}
	spin_unlock_bh(&inp->lock);
	if (release)
		queue_work(isert_release_wq, &ic->release_work);
}

/*
 * Stop the connection's traffic: let the responses already posted go out
 * (a Login reject is followed by the close at once), disconnect, and drain
 * the QP, after which no completion of ours runs for it.
 */
void isert_conn_quiesce(struct isert_conn *ic)
{
	bool linger;

	spin_lock_bh(&ic->lock);
	if (!ic->post_ok) {
		spin_unlock_bh(&ic->lock);
		return;
	}
	linger = ic->state == ISERT_UP;
	spin_unlock_bh(&ic->lock);

	if (linger)
		wait_event_timeout(ic->tx_wait, !READ_ONCE(ic->tx_inflight),
				   msecs_to_jiffies(ISERT_TX_LINGER_MS));

	spin_lock_bh(&ic->lock);
	ic->state = ISERT_DOWN;
	ic->post_ok = false;
	INIT_LIST_HEAD(&ic->rx_list);
	ic->login_rx = NULL;
	spin_unlock_bh(&ic->lock);
	rdma_disconnect(ic->cm_id);
	ib_drain_qp(ic->qp);
}

static void isert_conn_destroy(struct isert_conn *ic)
{
	struct rdma_cm_id *id = ic->cm_id;

	/* the QP before the id, the id before the memory its events use */
	if (ic->qp) {
		rdma_destroy_qp(id);
		ic->qp = NULL;
	}
	rdma_destroy_id(id);
	isert_conn_free(ic);
}

void isert_conn_release(struct isert_conn *ic)
{
	isert_conn_quiesce(ic);
	isert_conn_destroy(ic);
}

static void isert_conn_release_work(struct work_struct *work)
{
	isert_conn_release(container_of(work, struct isert_conn, release_work));
}

/* LIO closes the connection: after this no completion touches a command. */
void isert_conn_closing(struct iscsit_conn *conn)
{
	struct isert_conn *ic = conn->context;
	bool login_work;

	if (!ic)
		return;
	spin_lock_bh(&ic->lock);
	ic->conn = NULL;
	login_work = ic->login_next && !ic->full_feature;
	spin_unlock_bh(&ic->lock);
	/* one we queued and LIO did not run yet (LIO's own is running us) */
	if (login_work)
		cancel_delayed_work(&conn->login_work);
	isert_conn_quiesce(ic);
}

void isert_conn_freed(struct iscsit_conn *conn)
{
	struct isert_conn *ic = conn->context;

	/*
	 * LIO leaves this wait to a transport with wait_conn; its commands
	 * are released by now, those the core still finishes are waited for.
	 */
	target_stop_cmd_counter(conn->cmd_cnt);
	target_wait_for_cmds(conn->cmd_cnt);
	if (!ic)
		return;
	conn->context = NULL;
	isert_conn_quiesce(ic);
	isert_conn_destroy(ic);
}
