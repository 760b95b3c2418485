// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast groups through the SA. The broadcast group comes first: until
 * it is joined the carrier stays off and nothing else is joined, since
 * its record gives the Q_Key, the MTU and the parameters every other join
 * copies. Then the groups of the netdev's multicast list are joined as
 * full members, and a group we only send to as a send-only member.
 *
 * Every step runs in one work item (mc_work) on the interface's ordered
 * workqueue. The SA's callbacks only record the outcome and kick the work:
 * ib_sa_free_multicast() waits for a running callback, so a callback must
 * not wait for anything its freer may hold.
 */
#include "ipoib.h"

enum ipoib_group_state {
	IPOIB_GRP_IDLE,		/* to join once retry_at has passed */
	IPOIB_GRP_JOINING,	/* asked the SA, no answer yet */
	IPOIB_GRP_JOINED,	/* the SA said yes; not set up yet */
	IPOIB_GRP_READY,	/* AH made, QP attached unless send-only */
	IPOIB_GRP_LOST,		/* refused, or the membership ended */
};

struct ipoib_group {
	struct list_head	entry;		/* priv->groups */
	struct ipoib_priv	*priv;
	union ib_gid		mgid;
	enum ipoib_group_state	state;		/* priv->lock */
	int			status;		/* of a LOST group */
	bool			sendonly;
	bool			wanted;		/* in the netdev's list */
	bool			upgrade;	/* send-only, now wanted */
	bool			attached;
	struct ib_sa_multicast	*sa;		/* mc_work only */
	struct ib_sa_mcmember_rec rec;		/* the SA's answer */
	struct ipoib_ah		*ah;		/* priv->lock */
	struct sk_buff_head	waiting;	/* priv->lock */
	unsigned long		retry_at;
	unsigned long		backoff;
};

void ipoib_mc_kick(struct ipoib_priv *priv)
{
	mod_delayed_work(priv->wq, &priv->mc_work, 0);
}

bool ipoib_is_bcast_mgid(struct ipoib_priv *priv, const u8 *mgid)
{
	return !memcmp(mgid, priv->dev->broadcast + 4, sizeof(union ib_gid));
}

static struct ipoib_group *ipoib_group_new(struct ipoib_priv *priv,
					   const u8 *mgid, gfp_t gfp)
{
	struct ipoib_group *g = kzalloc(sizeof(*g), gfp);

	if (!g)
		return NULL;
	g->priv = priv;
	memcpy(g->mgid.raw, mgid, sizeof(g->mgid.raw));
	g->state = IPOIB_GRP_IDLE;
	g->retry_at = jiffies;
	skb_queue_head_init(&g->waiting);
	return g;
}

/* priv->lock held. */
static struct ipoib_group *ipoib_group_find(struct ipoib_priv *priv,
					    const u8 *mgid)
{
	struct ipoib_group *g;

	list_for_each_entry(g, &priv->groups, entry)
		if (!memcmp(g->mgid.raw, mgid, sizeof(g->mgid.raw)))
			return g;
	return NULL;
}

static void ipoib_group_drop_waiting(struct ipoib_priv *priv,
				     struct ipoib_group *g)
{
	struct sk_buff_head q;
	struct sk_buff *skb;

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	skb_queue_splice_init(&g->waiting, &q);
	spin_unlock_bh(&priv->lock);
	while ((skb = __skb_dequeue(&q))) {
		dev_core_stats_tx_dropped_inc(priv->dev);
		dev_kfree_skb_any(skb);
	}
}

/* ------------------------------------------------------------ transmit */

netdev_tx_t ipoib_mc_xmit(struct ipoib_priv *priv, struct sk_buff *skb,
			  const union ib_gid *mgid)
{
	struct ipoib_ah *ah = NULL;
	struct ipoib_group *g;
	bool kick = false;

	spin_lock_bh(&priv->lock);
	/* Nothing goes out before the broadcast group is ours. */
	if (priv->mc_stopped || !priv->bcast ||
	    priv->bcast->state != IPOIB_GRP_READY)
		goto drop;
	g = ipoib_group_find(priv, mgid->raw);
	if (!g) {
		g = ipoib_group_new(priv, mgid->raw, GFP_ATOMIC);
		if (!g)
			goto drop;
		g->sendonly = true;
		list_add_tail(&g->entry, &priv->groups);
	}
	if (g->state == IPOIB_GRP_READY) {
		ah = g->ah;
		ipoib_ah_get(ah);
	} else if (g->state == IPOIB_GRP_IDLE &&
		   time_before(jiffies, g->retry_at)) {
		goto drop;
	} else if (skb_queue_len(&g->waiting) < IPOIB_MAX_WAITING) {
		__skb_queue_tail(&g->waiting, skb);
		kick = g->state == IPOIB_GRP_IDLE;
	} else {
		goto drop;
	}
	spin_unlock_bh(&priv->lock);

	if (ah) {
		ipoib_ud_send(priv, skb, ah, IPOIB_MC_QPN);
		ipoib_ah_put(ah);
	}
	if (kick)
		ipoib_mc_kick(priv);
	return NETDEV_TX_OK;

drop:
	spin_unlock_bh(&priv->lock);
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* ------------------------------------------------------------ SA */

static int ipoib_group_answer(int status, struct ib_sa_multicast *mc)
{
	struct ipoib_group *g = mc->context;
	struct ipoib_priv *priv = g->priv;

	spin_lock_bh(&priv->lock);
	if (!status) {
		g->rec = mc->rec;
		g->state = IPOIB_GRP_JOINED;
	} else {
		g->status = status;
		g->state = IPOIB_GRP_LOST;
	}
	spin_unlock_bh(&priv->lock);
	ipoib_mc_kick(priv);
	return 0;
}

static void ipoib_group_join(struct ipoib_priv *priv, struct ipoib_group *g)
{
	struct ib_sa_mcmember_rec rec = {};
	ib_sa_comp_mask mask;
	struct ib_sa_multicast *sa;

	mask = IB_SA_MCMEMBER_REC_MGID | IB_SA_MCMEMBER_REC_PORT_GID |
	       IB_SA_MCMEMBER_REC_PKEY | IB_SA_MCMEMBER_REC_JOIN_STATE;
	if (g != priv->bcast) {
		/* Created on demand: everything the SA needs, as broadcast. */
		rec = priv->bcast->rec;
		rec.mtu_selector = IB_SA_EQ;
		rec.rate_selector = IB_SA_EQ;
		mask |= IB_SA_MCMEMBER_REC_QKEY |
			IB_SA_MCMEMBER_REC_MTU_SELECTOR |
			IB_SA_MCMEMBER_REC_MTU |
			IB_SA_MCMEMBER_REC_TRAFFIC_CLASS |
			IB_SA_MCMEMBER_REC_RATE_SELECTOR |
			IB_SA_MCMEMBER_REC_RATE | IB_SA_MCMEMBER_REC_SL |
			IB_SA_MCMEMBER_REC_FLOW_LABEL |
			IB_SA_MCMEMBER_REC_HOP_LIMIT;
	}
	rec.mgid = g->mgid;
	rec.port_gid = priv->gid;
	rec.pkey = cpu_to_be16(priv->pkey);
	/* JoinState bits: 0x1 full member, 0x8 send-only full member. */
	rec.join_state = g->sendonly ? BIT(SENDONLY_FULLMEMBER_JOIN) :
				       BIT(FULLMEMBER_JOIN);

	spin_lock_bh(&priv->lock);
	g->state = IPOIB_GRP_JOINING;
	spin_unlock_bh(&priv->lock);
	sa = ib_sa_join_multicast(&ipoib_sa_client, priv->ca, priv->port,
				  &rec, mask, GFP_KERNEL, ipoib_group_answer,
				  g);
	if (IS_ERR(sa)) {
		spin_lock_bh(&priv->lock);
		g->state = IPOIB_GRP_LOST;
		g->status = PTR_ERR(sa);
		spin_unlock_bh(&priv->lock);
		return;
	}
	g->sa = sa;
}

/* Undoes a join: the SA membership, the attach, the AH. */
static void ipoib_group_leave(struct ipoib_priv *priv, struct ipoib_group *g)
{
	struct ipoib_ah *ah;

	if (g->sa) {
		ib_sa_free_multicast(g->sa);	/* no callback after this */
		g->sa = NULL;
	}
	if (g->attached) {
		ib_detach_mcast(priv->qp, &g->mgid, be16_to_cpu(g->rec.mlid));
		g->attached = false;
	}
	spin_lock_bh(&priv->lock);
	ah = g->ah;
	g->ah = NULL;
	g->state = IPOIB_GRP_IDLE;
	spin_unlock_bh(&priv->lock);
	if (ah)
		ipoib_ah_put(ah);
}

/* The broadcast group's record sets the interface up. */
static int ipoib_bcast_joined(struct ipoib_priv *priv, struct ipoib_group *g)
{
	int mtu = ib_mtu_enum_to_int(g->rec.mtu);
	int ret;

	if (mtu <= 0)
		return -EINVAL;
	ret = ipoib_qp_set_qkey(priv, be32_to_cpu(g->rec.qkey));
	if (ret)
		return ret;
	priv->mcast_mtu = min_t(unsigned int, mtu - IPOIB_WIRE_LEN,
				priv->max_ud_mtu);
	queue_delayed_work(priv->wq, &priv->mtu_work, 0);
	return 0;
}

/* JOINED -> READY: attach, make the AH, release what waited. */
static void ipoib_group_setup(struct ipoib_priv *priv, struct ipoib_group *g)
{
	struct rdma_ah_attr attr;
	struct ipoib_ah *ah;
	struct sk_buff_head q;
	struct sk_buff *skb;
	int ret;

	if (g == priv->bcast) {
		ret = ipoib_bcast_joined(priv, g);
		if (ret)
			goto fail;
	}
	if (!g->sendonly && !g->attached) {
		ret = ib_attach_mcast(priv->qp, &g->mgid,
				      be16_to_cpu(g->rec.mlid));
		if (ret)
			goto fail;
		g->attached = true;
	}
	ret = ib_init_ah_from_mcmember(priv->ca, priv->port, &g->rec, NULL,
				       IB_GID_TYPE_IB, &attr);
	if (ret)
		goto fail;
	ah = ipoib_ah_create(priv, &attr);
	rdma_destroy_ah_attr(&attr);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto fail;
	}

	__skb_queue_head_init(&q);
	spin_lock_bh(&priv->lock);
	g->ah = ah;
	g->state = IPOIB_GRP_READY;
	g->backoff = 0;
	skb_queue_splice_init(&g->waiting, &q);
	spin_unlock_bh(&priv->lock);

	if (g == priv->bcast) {
		ipoib_mc_dbg(priv, "joined the broadcast group, MLID %#x\n",
			     be16_to_cpu(g->rec.mlid));
		netif_carrier_on(priv->dev);
	}
	while ((skb = __skb_dequeue(&q)))
		dev_queue_xmit(skb);
	return;

fail:
	netdev_warn(priv->dev, "group %pI6 unusable: %d\n", g->mgid.raw, ret);
	spin_lock_bh(&priv->lock);
	g->state = IPOIB_GRP_LOST;
	g->status = ret;
	spin_unlock_bh(&priv->lock);
}

/* A LOST group is left, and joined again after a while. */
static void ipoib_group_retry(struct ipoib_priv *priv, struct ipoib_group *g)
{
	if (g == priv->bcast)
		netif_carrier_off(priv->dev);
	ipoib_group_leave(priv, g);
	ipoib_group_drop_waiting(priv, g);
	/* A membership ended by a port event: rejoin at once. */
	if (g->status == -ENETRESET) {
		g->backoff = 0;
	} else {
		g->backoff = g->backoff ? min_t(unsigned long, g->backoff * 2,
						IPOIB_JOIN_BACKOFF_MAX) : HZ;
		if (g == priv->bcast || !g->sendonly)
			ipoib_mc_dbg(priv, "join of %pI6 failed: %d\n",
				     g->mgid.raw, g->status);
	}
	g->retry_at = jiffies + g->backoff;
}

/*
 * Moves @g on one step. Returns whether it is READY; *@wake gets the
 * earliest time the work must look again.
 */
static bool ipoib_group_step(struct ipoib_priv *priv, struct ipoib_group *g,
			     unsigned long *wake)
{
	enum ipoib_group_state state;
	struct ib_sa_mcmember_rec rec;

	spin_lock_bh(&priv->lock);
	state = g->state;
	spin_unlock_bh(&priv->lock);

	switch (state) {
	case IPOIB_GRP_READY:
		return true;
	case IPOIB_GRP_JOINING:
		return false;
	case IPOIB_GRP_JOINED:
		ipoib_group_setup(priv, g);
		return g->state == IPOIB_GRP_READY;
	case IPOIB_GRP_LOST:
		ipoib_group_retry(priv, g);
		fallthrough;
	case IPOIB_GRP_IDLE:
		break;
	}
	if (time_before(jiffies, g->retry_at)) {
		if (!*wake || time_before(g->retry_at, *wake))
			*wake = g->retry_at;
		return false;
	}
	/* umcast: a group someone else on the port joined is theirs. */
	if (g != priv->bcast && !g->sendonly && test_bit(0, &priv->umcast) &&
	    !ib_sa_get_mcmember_rec(priv->ca, priv->port, &g->mgid, &rec))
		return false;
	ipoib_group_join(priv, g);
	return false;
}

/* Brings the group list in line with the netdev's multicast list. */
static void ipoib_mc_sync(struct ipoib_priv *priv)
{
	struct net_device *dev = priv->dev;
	struct netdev_hw_addr *ha;
	struct ipoib_group *g;

	spin_lock_bh(&priv->lock);
	list_for_each_entry(g, &priv->groups, entry)
		g->wanted = false;
	spin_unlock_bh(&priv->lock);

	netif_addr_lock_bh(dev);
	netdev_for_each_mc_addr(ha, dev) {
		const u8 *mgid = ha->addr + 4;

		spin_lock(&priv->lock);
		g = ipoib_group_find(priv, mgid);
		if (!g) {
			g = ipoib_group_new(priv, mgid, GFP_ATOMIC);
			if (g)
				list_add_tail(&g->entry, &priv->groups);
		}
		if (g) {
			g->wanted = true;
			g->upgrade = g->sendonly;
		}
		spin_unlock(&priv->lock);
	}
	netif_addr_unlock_bh(dev);
}

static struct ipoib_group *ipoib_group_next(struct ipoib_priv *priv,
					    struct ipoib_group *g)
{
	struct ipoib_group *next;

	spin_lock_bh(&priv->lock);
	next = list_is_last(&g->entry, &priv->groups) ? NULL :
	       list_next_entry(g, entry);
	spin_unlock_bh(&priv->lock);
	return next;
}

static void ipoib_group_free(struct ipoib_priv *priv, struct ipoib_group *g)
{
	ipoib_group_leave(priv, g);
	ipoib_group_drop_waiting(priv, g);
	kfree(g);
}

/*
 * Only this work and ipoib_mc_stop() (which waits for it) take groups
 * off the list; the transmit path only adds at the tail.
 */
void ipoib_mc_work(struct work_struct *work)
{
	struct ipoib_priv *priv = container_of(to_delayed_work(work),
					       struct ipoib_priv, mc_work);
	struct ipoib_group *g, *next;
	struct ib_port_attr attr;
	unsigned long wake = 0;
	bool stopped;

	spin_lock_bh(&priv->lock);
	stopped = priv->mc_stopped || !priv->bcast;
	spin_unlock_bh(&priv->lock);
	/* A port that becomes ACTIVE raises an event: we start again then. */
	if (stopped || ib_query_port(priv->ca, priv->port, &attr) ||
	    attr.state != IB_PORT_ACTIVE)
		return;
	priv->lid = attr.lid;

	if (!ipoib_group_step(priv, priv->bcast, &wake))
		goto out;

	ipoib_mc_sync(priv);
	g = ipoib_group_next(priv, priv->bcast);
	while (g) {
		next = ipoib_group_next(priv, g);
		if (!g->sendonly && !g->wanted) {
			spin_lock_bh(&priv->lock);
			list_del(&g->entry);
			spin_unlock_bh(&priv->lock);
			ipoib_group_free(priv, g);
		} else {
			if (g->upgrade) {
				/* Now a full member: join again as one. */
				ipoib_group_leave(priv, g);
				g->sendonly = false;
				g->upgrade = false;
				g->retry_at = jiffies;
			}
			ipoib_group_step(priv, g, &wake);
		}
		g = next;
	}
out:
	if (wake)
		mod_delayed_work(priv->wq, &priv->mc_work,
				 max_t(long, (long)(wake - jiffies), 1));
}

void ipoib_mc_start(struct ipoib_priv *priv)
{
	struct ipoib_group *g = NULL;
	bool need;

	spin_lock_bh(&priv->lock);
	need = !priv->bcast;
	spin_unlock_bh(&priv->lock);
	if (need) {
		g = ipoib_group_new(priv, priv->dev->broadcast + 4,
				    GFP_KERNEL);
		if (!g)
			return;
	}
	spin_lock_bh(&priv->lock);
	if (g) {
		list_add(&g->entry, &priv->groups);
		priv->bcast = g;
	}
	priv->mc_stopped = false;
	spin_unlock_bh(&priv->lock);
	ipoib_mc_kick(priv);
}

/* Leaves every group; the carrier goes off. Process context. */
void ipoib_mc_stop(struct ipoib_priv *priv)
{
	struct ipoib_group *g, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&priv->lock);
	priv->mc_stopped = true;
	spin_unlock_bh(&priv->lock);
	cancel_delayed_work_sync(&priv->mc_work);
	netif_carrier_off(priv->dev);

	spin_lock_bh(&priv->lock);
	list_splice_init(&priv->groups, &gone);
	priv->bcast = NULL;
	spin_unlock_bh(&priv->lock);
	list_for_each_entry_safe(g, tmp, &gone, entry) {
		list_del(&g->entry);
		ipoib_group_free(priv, g);
	}
	/* A callback that ran meanwhile may have kicked the work again. */
	cancel_delayed_work_sync(&priv->mc_work);
}
