// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unicast: a cache of paths keyed by destination GID. The first packet to
 * a GID creates its entry and waits in it; the path work asks the SA for
 * a PathRecord (never from the transmit path, which cannot sleep), and
 * its answer becomes an address handle the later packets use directly.
 * The destination QPN is not part of the entry: it comes with each
 * packet's hardware address.
 *
 * Lifetime: the table holds a reference on an entry, so does a query in
 * flight for it. A flush unhooks every entry and cancels the queries; an
 * answer arriving for an unhooked entry is thrown away.
 */
#include <linux/jhash.h>
#include "ipoib.h"

enum ipoib_path_state {
	IPOIB_PATH_NEW,		/* waiting for the path work */
	IPOIB_PATH_ASKING,	/* a query is out */
	IPOIB_PATH_READY,	/* ah valid */
	IPOIB_PATH_FAILED,	/* no path; drop until retry_at */
};

struct ipoib_path {
	struct hlist_node	node;
	struct kref		ref;
	struct ipoib_priv	*priv;
	union ib_gid		dgid;
	enum ipoib_path_state	state;
	bool			unhooked;
	struct ipoib_ah		*ah;
	struct sa_path_rec	rec;		/* READY: for RC links */
	struct sk_buff_head	waiting;
	struct ib_sa_query	*query;
	int			query_id;
	unsigned long		retry_at;
};

static u32 ipoib_gid_hash(const union ib_gid *gid)
{
	return jhash(gid->raw, sizeof(gid->raw), 0);
}

static struct ipoib_path *ipoib_path_find(struct ipoib_priv *priv,
					  const union ib_gid *dgid)
{
	struct ipoib_path *p;

	hash_for_each_possible(priv->paths, p, node, ipoib_gid_hash(dgid))
		if (!memcmp(p->dgid.raw, dgid->raw, sizeof(dgid->raw)))
			return p;
	return NULL;
}

static void ipoib_drop_list(struct net_device *dev, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
	}
}

static void ipoib_path_release(struct kref *ref)
{
	struct ipoib_path *p = container_of(ref, struct ipoib_path, ref);

	ipoib_drop_list(p->priv->dev, &p->waiting);
	if (p->ah)
		ipoib_ah_put(p->ah);
	kfree(p);
}

static void ipoib_path_put(struct ipoib_path *p)
{
	kref_put(&p->ref, ipoib_path_release);
}

/* Holds @skb in @p if there is room; priv->lock held. */
static void ipoib_path_hold(struct ipoib_path *p, struct sk_buff *skb)
{
	if (skb_queue_len(&p->waiting) < IPOIB_MAX_WAITING) {
		__skb_queue_tail(&p->waiting, skb);
		return;
	}
	dev_core_stats_tx_dropped_inc(p->priv->dev);
	dev_kfree_skb_any(skb);
}

netdev_tx_t ipoib_path_xmit(struct ipoib_priv *priv, struct sk_buff *skb,
			    const union ib_gid *dgid, u32 dqpn)
{
	struct ipoib_cm_out *out;
	struct ipoib_ah *ah = NULL;
	struct ipoib_path *p;
	bool ask = false;

	spin_lock_bh(&priv->lock);
	p = ipoib_path_find(priv, dgid);
	if (!p) {
		p = kzalloc(sizeof(*p), GFP_ATOMIC);
		if (!p)
			goto drop;
		kref_init(&p->ref);
		p->priv = priv;
		p->dgid = *dgid;
		p->state = IPOIB_PATH_NEW;
		skb_queue_head_init(&p->waiting);
		hash_add(priv->paths, &p->node, ipoib_gid_hash(dgid));
		ask = true;
	}

	switch (p->state) {
	case IPOIB_PATH_READY:
		if (ipoib_cm_wanted(priv, skb)) {
			out = ipoib_cm_pick(priv, skb, &p->rec, dqpn);
			if (out) {
				spin_unlock_bh(&priv->lock);
				if (!IS_ERR(out))
					ipoib_cm_send(priv, out, skb);
				return NETDEV_TX_OK;
			}
		}
		ah = p->ah;
		ipoib_ah_get(ah);
		break;
	case IPOIB_PATH_FAILED:
		if (time_before(jiffies, p->retry_at))
			goto drop;
		p->state = IPOIB_PATH_NEW;
		ask = true;
		fallthrough;
	case IPOIB_PATH_NEW:
	case IPOIB_PATH_ASKING:
		ipoib_path_hold(p, skb);
		break;
	}
	spin_unlock_bh(&priv->lock);

	if (ah) {
		if (!ipoib_cm_ud_too_big(priv, skb))
			ipoib_ud_send(priv, skb, ah, dqpn);
		ipoib_ah_put(ah);
	}
	if (ask)
		queue_work(priv->wq, &priv->path_work);
	return NETDEV_TX_OK;

drop:
	spin_unlock_bh(&priv->lock);
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void ipoib_query_put(struct ipoib_priv *priv)
{
	if (atomic_dec_and_test(&priv->queries))
		complete(&priv->queries_done);
}

static struct ipoib_ah *ipoib_path_ah(struct ipoib_priv *priv,
				      struct sa_path_rec *rec)
{
	struct rdma_ah_attr attr;
	struct ipoib_ah *ah;

	if (ib_init_ah_attr_from_path(priv->ca, priv->port, rec, &attr, NULL))
		return NULL;
	ah = ipoib_ah_create(priv, &attr);
	rdma_destroy_ah_attr(&attr);
	return IS_ERR(ah) ? NULL : ah;
}

static void ipoib_path_answer(int status, struct sa_path_rec *rec,
			      int num, void *context)
{
	struct ipoib_path *p = context;
	struct ipoib_priv *priv = p->priv;
	struct ipoib_ah *ah = NULL;
	struct sk_buff_head q;
	struct sk_buff *skb;
	bool ok, unhooked;

	if (!status && rec && num > 0)
		ah = ipoib_path_ah(priv, rec);

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	p->query = NULL;
	unhooked = p->unhooked;
	ok = ah && !unhooked;
	if (ok) {
		p->ah = ah;
		p->rec = *rec;
		p->state = IPOIB_PATH_READY;
		ah = NULL;
	} else if (!unhooked) {
		p->state = IPOIB_PATH_FAILED;
		p->retry_at = jiffies + IPOIB_PATH_RETRY;
	}
	skb_queue_splice_init(&p->waiting, &q);
	spin_unlock_bh(&priv->lock);

	if (ah)
		ipoib_ah_put(ah);
	if (!ok) {
		if (!unhooked)
			ipoib_dbg(priv, "no path to %pI6: %d\n",
				  p->dgid.raw, status);
		ipoib_drop_list(priv->dev, &q);
	}
	/* Back through the qdisc: they now find the path ready. */
	while ((skb = __skb_dequeue(&q)))
		dev_queue_xmit(skb);

	ipoib_path_put(p);
	ipoib_query_put(priv);
}

static int ipoib_path_ask(struct ipoib_priv *priv, struct ipoib_path *p)
{
	struct sa_path_rec rec = {};
	struct ib_sa_query *query;
	int id;

	rec.rec_type = SA_PATH_REC_TYPE_IB;
	rec.dgid = p->dgid;
	rec.sgid = priv->gid;
	rec.numb_path = 1;
	rec.pkey = cpu_to_be16(priv->pkey);

	kref_get(&p->ref);
	atomic_inc(&priv->queries);
	id = ib_sa_path_rec_get(&ipoib_sa_client, priv->ca, priv->port, &rec,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_TRAFFIC_CLASS |
				IB_SA_PATH_REC_PKEY,
				IPOIB_PATH_TIMEOUT_MS, GFP_KERNEL,
				ipoib_path_answer, p, &query);
	if (id < 0) {
		ipoib_path_answer(id, NULL, 0, p);
		return id;
	}
	spin_lock_bh(&priv->lock);
	if (p->state == IPOIB_PATH_ASKING && !p->unhooked) {
		p->query = query;
		p->query_id = id;
	}
	spin_unlock_bh(&priv->lock);
	return 0;
}

/* Starts a query for every path that waits for one. */
void ipoib_path_work(struct work_struct *work)
{
	struct ipoib_priv *priv = container_of(work, struct ipoib_priv,
					       path_work);
	struct ipoib_path *p;
	unsigned int bkt;

again:
	spin_lock_bh(&priv->lock);
	hash_for_each(priv->paths, bkt, p, node) {
		if (p->state != IPOIB_PATH_NEW)
			continue;
		p->state = IPOIB_PATH_ASKING;
		spin_unlock_bh(&priv->lock);
		ipoib_path_ask(priv, p);
		goto again;
	}
	spin_unlock_bh(&priv->lock);
}

/*
 * Forgets every path (port events, going down). The path work must not
 * be running: callers cancel it or run on the same ordered workqueue.
 */
void ipoib_path_flush(struct ipoib_priv *priv)
{
	struct ib_sa_query *query;
	struct hlist_node *tmp;
	struct ipoib_path *p;
	HLIST_HEAD(gone);
	unsigned int bkt;
	int id;

	cancel_work_sync(&priv->path_work);
	spin_lock_bh(&priv->lock);
	hash_for_each_safe(priv->paths, bkt, tmp, p, node) {
		hash_del(&p->node);
		p->unhooked = true;
		hlist_add_head(&p->node, &gone);
	}
	spin_unlock_bh(&priv->lock);

	hlist_for_each_entry_safe(p, tmp, &gone, node) {
		hlist_del(&p->node);
		spin_lock_bh(&priv->lock);
		query = p->query;
		id = p->query_id;
		spin_unlock_bh(&priv->lock);
		/* Safe on a finished query: the SA client looks it up. */
		if (query)
			ib_sa_cancel_query(id, query);
		ipoib_path_put(p);
	}
}

/* Before the interface goes: no answer may still be on its way. */
void ipoib_queries_wait(struct ipoib_priv *priv)
{
	ipoib_query_put(priv);
	wait_for_completion(&priv->queries_done);
	/* Ready for another life (an interface may be registered again). */
	atomic_set(&priv->queries, 1);
	reinit_completion(&priv->queries_done);
}
