// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode, send side: "outbound links", one per destination
 * (GID, UD QPN) whose address has the RC flag, kept in a table under
 * priv->lock. The transmit path (atomic) only looks a link up or adds a
 * new one; the link work creates its RC QP and sends the REQ (service ID
 * from the destination's QPN, path from the unicast path cache), and the
 * REP callback takes the QP to RTS, answers with an RTU and sends what
 * waited. A link that fails (REJ, timeout, DREQ, a send error) stays in
 * the table for IPOIB_CM_RETRY: meanwhile what fits in a UD packet goes
 * over UD, the rest is dropped and counted (with an ICMP that brings the
 * path MTU down: ipoib_cm_ud_too_big()). Links leave the table
 * ("retired") on a retry, a flush, the switch to datagram mode, idleness,
 * or with the interface; the link work or the flusher then destroys them.
 *
 * Every transmit runs under the netdev TX lock: once a link is off the
 * table, taking that lock once guarantees no sender still holds it.
 * Completions find a link by its id (an xarray, RCU): it is freed after
 * its QP is destroyed and a grace period.
 */
#include <linux/delay.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <asm/unaligned.h>
#include <net/icmp.h>
#include <net/neighbour.h>
#include <linux/icmpv6.h>
#include "ipoib.h"

static u32 ipoib_cm_out_key(const union ib_gid *gid, u32 qpn)
{
	return jhash(gid->raw, sizeof(gid->raw), qpn);
}

static struct ipoib_cm_out *ipoib_cm_out_find(struct ipoib_priv *priv,
					      const union ib_gid *dgid,
					      u32 dqpn)
{
	struct ipoib_cm_out *out;

	hash_for_each_possible(priv->cm.outs, out, node,
			       ipoib_cm_out_key(dgid, dqpn))
		if (out->dqpn == dqpn &&
		    !memcmp(out->dgid.raw, dgid->raw, sizeof(dgid->raw)))
			return out;
	return NULL;
}

/* Off the table, onto the list of links to destroy; priv->lock held. */
static void ipoib_cm_out_retire(struct ipoib_priv *priv,
				struct ipoib_cm_out *out)
{
	hash_del(&out->node);
	priv->cm.n_out--;
	list_add_tail(&out->dead, &priv->cm.out_dead);
}

static void ipoib_cm_drop_queue(struct ipoib_priv *priv,
				struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		dev_core_stats_tx_dropped_inc(priv->dev);
		dev_kfree_skb_any(skb);
	}
}

/* @out failed: no RC for @delay, what waited is dropped. Any context. */
static void ipoib_cm_out_fail(struct ipoib_priv *priv,
			      struct ipoib_cm_out *out, unsigned long delay)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	if (out->state != IPOIB_CM_OUT_FAILED) {
		out->state = IPOIB_CM_OUT_FAILED;
		out->retry_at = jiffies + delay;
	}
	skb_queue_splice_init(&out->waiting, &q);
	spin_unlock_bh(&priv->lock);
	ipoib_cm_drop_queue(priv, &q);
}

/* A new link in the table, for the link work to connect; lock held. */
static struct ipoib_cm_out *ipoib_cm_out_new(struct ipoib_priv *priv,
					     const union ib_gid *dgid,
					     u32 dqpn,
					     const struct sa_path_rec *path)
{
	struct ipoib_cm_out *out;

	if (priv->cm.n_out >= IPOIB_CM_MAX_OUT)
		return NULL;
	out = kzalloc(sizeof(*out), GFP_ATOMIC);
	if (!out)
		return NULL;
	out->ring = kcalloc(priv->tx_size, sizeof(*out->ring), GFP_ATOMIC);
	if (!out->ring) {
		kfree(out);
		return NULL;
	}
	out->priv = priv;
	out->dgid = *dgid;
	out->dqpn = dqpn;
	out->path = *path;
	out->state = IPOIB_CM_OUT_NEW;
	out->last_tx = jiffies;
	INIT_LIST_HEAD(&out->dead);
	skb_queue_head_init(&out->waiting);
	hash_add(priv->cm.outs, &out->node, ipoib_cm_out_key(dgid, dqpn));
	priv->cm.n_out++;
	return out;
}

/*
 * The transmit path, priv->lock held, @skb's data at its destination
 * address (a unicast one with the RC flag; @path the cached path to it).
 * Returns the link to send on (after unlocking), NULL for UD, or
 * ERR_PTR(-EINPROGRESS) when @skb was queued or dropped here.
 */
struct ipoib_cm_out *ipoib_cm_pick(struct ipoib_priv *priv,
				   struct sk_buff *skb,
				   const struct sa_path_rec *path, u32 dqpn)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_out *out;
	union ib_gid dgid;

	if (!cm->running || !cm->connected)
		return NULL;
	memcpy(dgid.raw, skb->data + 4, sizeof(dgid.raw));
	out = ipoib_cm_out_find(priv, &dgid, dqpn);
	if (out && out->state == IPOIB_CM_OUT_FAILED &&
	    time_after_eq(jiffies, out->retry_at)) {
		ipoib_cm_out_retire(priv, out);
		queue_work(priv->wq, &cm->out_work);
		out = NULL;
	}
	if (!out) {
		out = ipoib_cm_out_new(priv, &dgid, dqpn, path);
		if (!out)
			return NULL;
		queue_work(priv->wq, &cm->out_work);
	}

	switch (out->state) {
	case IPOIB_CM_OUT_UP:
		return out;
	case IPOIB_CM_OUT_FAILED:
		return NULL;
	default:
		break;
	}
	if (skb_queue_len(&out->waiting) < IPOIB_CM_WAITING) {
		__skb_queue_tail(&out->waiting, skb);
	} else {
		dev_core_stats_tx_dropped_inc(priv->dev);
		dev_kfree_skb_any(skb);
	}
	return ERR_PTR(-EINPROGRESS);
}

/*
 * @skb, sized for the interface's MTU, is larger than the @mtu of the way
 * it must take (UD, or an RC link to a peer with a smaller MTU): it is
 * dropped with an ICMP "fragmentation needed" (IPv6: "packet too big")
 * to its local sender, so that the path MTU to that peer comes down.
 * True if @skb was consumed.
 */
static bool ipoib_cm_too_big(struct ipoib_priv *priv, struct sk_buff *skb,
			     unsigned int mtu)
{
	if (skb->len <= IPOIB_HARD_LEN + mtu)
		return false;
	if (skb->protocol == htons(ETH_P_IP))
		icmp_ndo_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED,
			      htonl(mtu));
#if IS_ENABLED(CONFIG_IPV6)
	else if (skb->protocol == htons(ETH_P_IPV6))
		icmpv6_ndo_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
#endif
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
	return true;
}

/*
 * Connected mode, a unicast packet on its way to UD (a peer without the
 * RC flag, a failed link): the stack sized it for the RC MTU.
 */
bool ipoib_cm_ud_too_big(struct ipoib_priv *priv, struct sk_buff *skb)
{
	return READ_ONCE(priv->cm.connected) &&
	       ipoib_cm_too_big(priv, skb, READ_ONCE(priv->mcast_mtu));
}

/* One RC SEND of @skb (its data at the destination address) on @out. */
void ipoib_cm_send(struct ipoib_priv *priv, struct ipoib_cm_out *out,
		   struct sk_buff *skb)
{
	unsigned int n = out->txq.head & (priv->tx_size - 1);
	struct ib_send_wr wr = {};

	if (ipoib_cm_too_big(priv, skb, out->mtu))
		return;
	wr.wr_id = IPOIB_CM_WRID_TX | (u64)out->id << 32 | n;
	if (ipoib_tx_post(priv, &out->txq, out->qp, &wr, &out->ring[n], skb,
			  out->mtu + IPOIB_WIRE_LEN))
		WRITE_ONCE(out->last_tx, jiffies);
}

/* A send completion (NAPI, under rcu_read_lock). */
void ipoib_cm_tx_done(struct ipoib_priv *priv, const struct ib_wc *wc)
{
	u32 id = (wc->wr_id >> 32) & 0x7fffffff;
	unsigned int n = (u32)wc->wr_id;
	struct net_device *dev = priv->dev;
	struct ipoib_cm_out *out;
	struct ipoib_tx_buf *buf;

	out = xa_load(&priv->cm.out_ids, id);
	if (!out || n >= priv->tx_size)
		return;
	buf = &out->ring[n];
	if (!buf->skb)
		return;
	ipoib_tx_buf_free(priv, buf, wc->status == IB_WC_SUCCESS);
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		dev->stats.tx_errors++;
		ipoib_dbg(priv, "RC send to QPN %#x failed: %s\n", out->dqpn,
			  ib_wc_status_msg(wc->status));
		ipoib_cm_out_fail(priv, out, IPOIB_CM_RETRY);
	}
	ipoib_txq_done(priv, &out->txq);
}

/* ------------------------------------------------------------ ib_cm */

/* The REP: our QP to RTS, the RTU, then what waited goes out. */
static void ipoib_cm_out_rep(struct ipoib_priv *priv, struct ipoib_cm_out *out,
			     struct ib_cm_id *cm_id,
			     const struct ib_cm_event *ev)
{
	const struct ipoib_cm_wire_data *data = ev->private_data;
	struct sk_buff_head q;
	struct sk_buff *skb;
	u32 rx_size;
	int ret;

	rx_size = data ? be32_to_cpu(data->rx_size) : 0;
	if (rx_size <= IPOIB_WIRE_LEN) {
		ret = -EINVAL;
		goto reject;
	}
	ret = ipoib_cm_qp_step(cm_id, out->qp, IB_QPS_RTR);
	if (!ret)
		ret = ipoib_cm_qp_step(cm_id, out->qp, IB_QPS_RTS);
	if (ret)
		goto reject;
	ret = ib_send_cm_rtu(cm_id, NULL, 0);
	if (ret)
		goto fail;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	if (out->state == IPOIB_CM_OUT_CONNECTING) {
		out->mtu = min(rx_size - IPOIB_WIRE_LEN, priv->cm.max_mtu);
		out->last_tx = jiffies;
		out->state = IPOIB_CM_OUT_UP;
		skb_queue_splice_init(&out->waiting, &q);
	}
	spin_unlock_bh(&priv->lock);
	ipoib_dbg(priv, "RC link to QPN %#x up, MTU %u\n", out->dqpn,
		  out->mtu);
	/* Back through the qdisc: they find the link up now. */
	while ((skb = __skb_dequeue(&q)))
		dev_queue_xmit(skb);
	return;

reject:
	ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
fail:
	ipoib_dbg(priv, "RC link to QPN %#x: bad REP: %d\n", out->dqpn,
		  ret);
	priv->dev->stats.tx_errors++;
	ipoib_cm_out_fail(priv, out, IPOIB_CM_RETRY);
}

static int ipoib_cm_out_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *ev)
{
	struct ipoib_cm_out *out = cm_id->context;
	struct ipoib_priv *priv = out->priv;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		ipoib_cm_out_rep(priv, out, cm_id, ev);
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_REJ_RECEIVED:
		ipoib_dbg(priv, "RC link to QPN %#x refused (%d)\n",
			  out->dqpn, ev->event);
		priv->dev->stats.tx_errors++;
		ipoib_cm_out_fail(priv, out, IPOIB_CM_RETRY);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		/* The peer closed it: the next packet may reconnect. */
		ipoib_cm_out_fail(priv, out, 0);
		break;
	default:
		break;
	}
	/* The cm_id goes with the link, never from here. */
	return 0;
}

/* ------------------------------------------------------------ link work */

/* QP, id, INIT, REQ. Whatever was made is undone with the link. */
static int ipoib_cm_out_connect(struct ipoib_priv *priv,
				struct ipoib_cm_out *out)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_wire_data data;
	struct ib_cm_req_param req = {};
	struct ib_qp_attr a = {};
	struct ib_cm_id *cm_id;
	struct ib_qp *qp;
	int ret;

	qp = ipoib_cm_create_qp(priv, priv->tx_size, out);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	out->qp = qp;
	ret = xa_alloc_cyclic(&cm->out_ids, &out->id, out,
			      XA_LIMIT(1, 0x7fffffff), &cm->next_out_id,
			      GFP_KERNEL);
	if (ret < 0)
		return ret;

	/* INIT by hand: the cm_id has no address before its REQ. */
	a.qp_state = IB_QPS_INIT;
	a.pkey_index = priv->pkey_index;
	a.port_num = priv->port;
	a.qp_access_flags = 0;
	ret = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	cm_id = ib_create_cm_id(priv->ca, ipoib_cm_out_handler, out);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	out->cm_id = cm_id;

	data.qpn = cpu_to_be32(priv->qp->qp_num);
	data.rx_size = cpu_to_be32(cm->max_mtu + IPOIB_WIRE_LEN);
	req.primary_path = &out->path;
	req.service_id = cpu_to_be64(IPOIB_CM_SID_PREFIX | out->dqpn);
	req.qp_num = qp->qp_num;
	req.qp_type = IB_QPT_RC;
	req.starting_psn = get_random_u32() & 0xffffff;
	req.private_data = &data;
	req.private_data_len = sizeof(data);
	req.responder_resources = 4;
	req.remote_cm_response_timeout = 20;
	req.local_cm_response_timeout = 20;
	/* Soft devices under load are slow to ACK: retry rather than fail. */
	req.retry_count = 7;
	req.rnr_retry_count = 7;
	req.max_cm_retries = 15;
	req.srq = 1;
	return ib_send_cm_req(cm_id, &req);
}

/*
 * Retired links, out_mutex held: no sender holds them, the peer gets a
 * DREQ (or a REJ), sends in flight complete flushed, then they go.
 */
static void ipoib_cm_out_destroy(struct ipoib_priv *priv,
				 struct list_head *dead)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };
	struct ipoib_cm_out *out, *tmp;
	unsigned long end;

	if (list_empty(dead))
		return;
	netif_tx_lock_bh(priv->dev);
	netif_tx_unlock_bh(priv->dev);

	list_for_each_entry(out, dead, dead) {
		if (out->cm_id)
			ib_destroy_cm_id(out->cm_id);
		out->cm_id = NULL;
		if (!out->qp)
			continue;
		ib_modify_qp(out->qp, &a, IB_QP_STATE);
		end = jiffies + 2 * HZ;
		while (ipoib_txq_used(&out->txq) &&
		       time_before(jiffies, end))
			usleep_range(1000, 2000);
	}
	list_for_each_entry(out, dead, dead) {
		if (out->id)
			xa_erase(&priv->cm.out_ids, out->id);
		if (out->qp)
			ib_destroy_qp(out->qp);
		out->qp = NULL;
	}
	/* No completion handler still looks at them. */
	synchronize_rcu();

	list_for_each_entry_safe(out, tmp, dead, dead) {
		list_del(&out->dead);
		while (ipoib_txq_used(&out->txq)) {
			struct ipoib_tx_buf *buf =
				&out->ring[out->txq.tail & (priv->tx_size - 1)];

			if (buf->skb)
				ipoib_tx_buf_free(priv, buf, false);
			out->txq.tail++;
		}
		/* A full ring stopped the queue: not for it any more. */
		ipoib_txq_forget(priv, &out->txq);
		ipoib_cm_drop_queue(priv, &out->waiting);
		kfree(out->ring);
		kfree(out);
	}
}

/* Connects the new links, destroys the retired ones. */
void ipoib_cm_out_work(struct work_struct *work)
{
	struct ipoib_cm_state *cm = container_of(work, struct ipoib_cm_state,
						 out_work);
	struct ipoib_priv *priv = container_of(cm, struct ipoib_priv, cm);
	struct ipoib_cm_out *out;
	unsigned int bkt;
	LIST_HEAD(dead);
	int ret;

	mutex_lock(&cm->out_mutex);
again:
	spin_lock_bh(&priv->lock);
	hash_for_each(cm->outs, bkt, out, node) {
		if (out->state != IPOIB_CM_OUT_NEW)
			continue;
		out->state = IPOIB_CM_OUT_CONNECTING;
		spin_unlock_bh(&priv->lock);
		ret = ipoib_cm_out_connect(priv, out);
		if (ret) {
			ipoib_dbg(priv, "RC link to QPN %#x: %d\n",
				  out->dqpn, ret);
			priv->dev->stats.tx_errors++;
			ipoib_cm_out_fail(priv, out, IPOIB_CM_RETRY);
		}
		goto again;
	}
	list_splice_init(&cm->out_dead, &dead);
	spin_unlock_bh(&priv->lock);
	ipoib_cm_out_destroy(priv, &dead);
	mutex_unlock(&cm->out_mutex);
}

/*
 * ndo_neigh_destroy: the stack forgot a neighbour (a flush, its garbage
 * collection); the outbound link to its address goes as well (the next
 * packet to it, after a new resolution, makes a new one). Softirq or
 * process context.
 */
void ipoib_cm_neigh_gone(struct net_device *dev, struct neighbour *n)
{
	struct ipoib_priv *priv = ipoib_priv(dev);
	struct ipoib_cm_out *out;
	union ib_gid dgid;
	u32 dqpn;

	if (!(n->ha[0] & IPOIB_HWADDR_RC))
		return;
	dqpn = get_unaligned_be32(n->ha) & IPOIB_MC_QPN;
	if (dqpn == IPOIB_MC_QPN)
		return;
	memcpy(dgid.raw, n->ha + 4, sizeof(dgid.raw));
	spin_lock_bh(&priv->lock);
	out = priv->cm.running ? ipoib_cm_out_find(priv, &dgid, dqpn) : NULL;
	if (out) {
		ipoib_cm_out_retire(priv, out);
		queue_work(priv->wq, &priv->cm.out_work);
	}
	spin_unlock_bh(&priv->lock);
}

/* Has @out served its time: idle too long, or failed and due a retry? */
static bool ipoib_cm_out_expired(const struct ipoib_cm_out *out)
{
	if (out->state == IPOIB_CM_OUT_UP)
		return time_after(jiffies,
				  READ_ONCE(out->last_tx) + IPOIB_CM_IDLE);
	return out->state == IPOIB_CM_OUT_FAILED &&
	       time_after_eq(jiffies, out->retry_at);
}

/* Retires every outbound link (@all) or the expired ones, and frees them. */
static void ipoib_cm_out_sweep(struct ipoib_priv *priv, bool all)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_out *out;
	struct hlist_node *tmp;
	unsigned int bkt;
	LIST_HEAD(dead);

	mutex_lock(&cm->out_mutex);
	spin_lock_bh(&priv->lock);
	hash_for_each_safe(cm->outs, bkt, tmp, out, node)
		if (all || ipoib_cm_out_expired(out))
			ipoib_cm_out_retire(priv, out);
	list_splice_init(&cm->out_dead, &dead);
	spin_unlock_bh(&priv->lock);
	ipoib_cm_out_destroy(priv, &dead);
	mutex_unlock(&cm->out_mutex);
}

/* Every outbound link goes (flush, datagram mode, interface down). */
void ipoib_cm_out_flush(struct ipoib_priv *priv)
{
	ipoib_cm_out_sweep(priv, true);
}

/* Links idle for IPOIB_CM_IDLE, and failed ones past their retry time. */
void ipoib_cm_out_reap(struct ipoib_priv *priv)
{
	ipoib_cm_out_sweep(priv, false);
}
