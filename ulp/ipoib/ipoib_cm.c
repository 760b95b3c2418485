// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode (RFC 4755), the interface side: its state from ndo_init
 * to ndo_uninit, the RC side brought up and down with the IB side, the
 * mode switch and the MTU rules of each mode, the poll of the RC CQ and
 * the reaper of idle links. The links themselves live in ipoib_cm_rx.c
 * (inbound) and ipoib_cm_tx.c (outbound).
 */
#include <linux/rtnetlink.h>
#include "ipoib.h"

#define IPOIB_CM_POLL_BATCH	16

/* What connected mode needs of the device: an SRQ with 2 SGEs or more. */
bool ipoib_cm_capable(const struct ib_device *ca)
{
	const struct ib_device_attr *a = &ca->attrs;

	return ca->ops.create_srq && a->max_srq > 0 && a->max_srq_sge >= 2 &&
	       a->max_srq_wr >= 2;
}

/* ndo_init: never fails; without an SRQ the RC flag stays clear. */
void ipoib_cm_init(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	const struct ib_device_attr *a = &priv->ca->attrs;
	unsigned int bytes;

	INIT_LIST_HEAD(&cm->ins);
	INIT_LIST_HEAD(&cm->out_dead);
	hash_init(cm->outs);
	xa_init(&cm->in_by_qp);
	xa_init_flags(&cm->out_ids, XA_FLAGS_ALLOC1);
	mutex_init(&cm->out_mutex);
	init_rwsem(&cm->accepting);
	INIT_WORK(&cm->out_work, ipoib_cm_out_work);
	INIT_DELAYED_WORK(&cm->reap_work, ipoib_cm_reap_work);
	netif_napi_add(priv->dev, &cm->napi, ipoib_cm_poll);

	if (!ipoib_cm_capable(priv->ca))
		return;
	cm->rx_pages = min_t(unsigned int, IPOIB_CM_RX_PAGES,
			     a->max_srq_sge - 1);
	bytes = IPOIB_CM_RX_HEAD + cm->rx_pages * PAGE_SIZE;
	cm->max_mtu = min_t(unsigned int, IPOIB_CM_MTU_MAX,
			    bytes - IPOIB_WIRE_LEN);
	cm->rx_size = min_t(unsigned int, ipoib_recvq_size, a->max_srq_wr);
	cm->supported = true;
}

/* ndo_uninit, after the IB side went down. */
void ipoib_cm_cleanup(struct ipoib_priv *priv)
{
	netif_napi_del(&priv->cm.napi);
	xa_destroy(&priv->cm.in_by_qp);
	xa_destroy(&priv->cm.out_ids);
}

/* Called with the op_mutex held, the UD side running. */
int ipoib_cm_up(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ib_cq_init_attr cqa = {};
	int ret;

	if (!cm->supported || cm->up)
		return 0;
	cqa.cqe = cm->rx_size + IPOIB_CM_MAX_OUT * priv->tx_size;
	cm->cq = ib_create_cq(priv->ca, ipoib_cm_cq_event, NULL, priv, &cqa);
	if (IS_ERR(cm->cq)) {
		ret = PTR_ERR(cm->cq);
		cm->cq = NULL;
		goto fail;
	}
	napi_enable(&cm->napi);
	cm->up = true;
	ret = ipoib_cm_rx_start(priv);
	if (ret) {
		ipoib_cm_down(priv);
		goto fail;
	}
	/* One poll arms the CQ. */
	local_bh_disable();
	napi_schedule(&cm->napi);
	local_bh_enable();
	queue_delayed_work(priv->wq, &cm->reap_work, IPOIB_CM_REAP_EVERY);
	return 0;

fail:
	netdev_warn(priv->dev, "connected mode unavailable: %d\n", ret);
	return ret;
}

/*
 * Called with the op_mutex held, the netdev queue stopped: every link
 * goes (the peers get a DREQ), then the SRQ and the CQ.
 */
void ipoib_cm_down(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;

	if (!cm->up)
		return;
	spin_lock_bh(&priv->lock);
	cm->running = false;
	spin_unlock_bh(&priv->lock);
	cancel_delayed_work_sync(&cm->reap_work);
	ipoib_cm_rx_stop(priv);
	ipoib_cm_out_flush(priv);
	cancel_work_sync(&cm->out_work);
	napi_disable(&cm->napi);
	ipoib_cm_srq_free(priv);
	ib_destroy_cq(cm->cq);
	cm->cq = NULL;
	cm->up = false;
}

/*
 * The rtnl held. Connected: the MTU goes to the RC maximum. Datagram:
 * the outbound links go and the MTU comes back within the UD one.
 */
int ipoib_cm_set_mode(struct ipoib_priv *priv, bool connected)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct net_device *dev = priv->dev;
	int ret;

	ASSERT_RTNL();
	if (connected == cm->connected)
		return 0;
	if (connected && !cm->supported)
		return -EINVAL;

	spin_lock_bh(&priv->lock);
	WRITE_ONCE(cm->connected, connected);
	spin_unlock_bh(&priv->lock);
	if (connected) {
		/* ipoib_cm_ud_too_big()'s ICMP needs the packets' routes. */
		dev->priv_flags &= ~IFF_XMIT_DST_RELEASE;
		dev->max_mtu = cm->max_mtu;
		ret = dev_set_mtu(dev, cm->max_mtu);
		if (ret) {
			/* Refused (a notifier): datagram mode as it was. */
			spin_lock_bh(&priv->lock);
			WRITE_ONCE(cm->connected, false);
			spin_unlock_bh(&priv->lock);
			dev->priv_flags |= IFF_XMIT_DST_RELEASE;
			dev->max_mtu = priv->max_ud_mtu;
			return ret;
		}
		netdev_info(dev, "connected mode: unicast to RC peers over RC, MTU %u\n",
			    dev->mtu);
		return 0;
	}

	ipoib_cm_out_flush(priv);
	dev->priv_flags |= IFF_XMIT_DST_RELEASE;
	dev->max_mtu = priv->max_ud_mtu;
	ret = dev_set_mtu(dev, min(dev->mtu, priv->mcast_mtu));
	netdev_info(dev, "datagram mode, MTU %u\n", dev->mtu);
	return ret;
}

/* ndo_change_mtu in connected mode: up to max_mtu (the core checked). */
int ipoib_cm_change_mtu(struct ipoib_priv *priv, int new_mtu)
{
	if (new_mtu > priv->mcast_mtu)
		netdev_warn_once(priv->dev,
				 "MTU above %u: multicast packets that large are dropped\n",
				 priv->mcast_mtu);
	WRITE_ONCE(priv->dev->mtu, new_mtu);
	return 0;
}

/* Takes @qp to @state with the attributes ib_cm gives for @cm_id. */
int ipoib_cm_qp_step(struct ib_cm_id *cm_id, struct ib_qp *qp,
		     enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(cm_id, &a, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &a, mask);
}

int ipoib_cm_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_priv *priv = container_of(napi, struct ipoib_priv,
					       cm.napi);
	struct ib_wc wc[IPOIB_CM_POLL_BATCH];
	int done = 0;
	int n, i;

	rcu_read_lock();
	while (done < budget) {
		n = ib_poll_cq(priv->cm.cq,
			       min(budget - done, IPOIB_CM_POLL_BATCH), wc);
		for (i = 0; i < n; i++) {
			if (wc[i].wr_id & IPOIB_CM_WRID_TX)
				ipoib_cm_tx_done(priv, &wc[i]);
			else
				ipoib_cm_rx_done(priv, &wc[i]);
		}
		if (n <= 0)
			break;
		done += n;
	}
	rcu_read_unlock();
	if (done < budget && napi_complete_done(napi, done)) {
		if (ib_req_notify_cq(priv->cm.cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			napi_schedule(napi);
	}
	return done;
}

/* As ipoib_cq_event(), for the RC CQ. */
void ipoib_cm_cq_event(struct ib_cq *cq, void *ctx)
{
	struct ipoib_priv *priv = ctx;

	if (in_hardirq() || irqs_disabled()) {
		napi_schedule(&priv->cm.napi);
		return;
	}
	local_bh_disable();
	napi_schedule(&priv->cm.napi);
	local_bh_enable();
}

/* Idle links go, failed ones make room for a retry. */
void ipoib_cm_reap_work(struct work_struct *work)
{
	struct ipoib_priv *priv = container_of(to_delayed_work(work),
					       struct ipoib_priv, cm.reap_work);

	ipoib_cm_in_reap(priv);
	ipoib_cm_out_reap(priv);
	spin_lock_bh(&priv->lock);
	if (priv->cm.running)
		queue_delayed_work(priv->wq, &priv->cm.reap_work,
				   IPOIB_CM_REAP_EVERY);
	spin_unlock_bh(&priv->lock);
}

/*
 * An RC QP of a link, either way: both share the CQ and the SRQ, and
 * differ only in how many sends they post (an inbound one none of its
 * own, but a QP needs one WR).
 */
struct ib_qp *ipoib_cm_create_qp(struct ipoib_priv *priv, u32 max_send_wr,
				 void *ctx)
{
	struct ib_qp_init_attr qpa = {};

	qpa.qp_type = IB_QPT_RC;
	qpa.send_cq = priv->cm.cq;
	qpa.recv_cq = priv->cm.cq;
	qpa.srq = priv->cm.srq;
	qpa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qpa.cap.max_send_wr = max_send_wr;
	qpa.cap.max_send_sge = 1;
	qpa.qp_context = ctx;
	return ib_create_qp(priv->pd, &qpa);
}
