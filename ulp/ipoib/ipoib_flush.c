// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bringing the IB side of an interface up and down, and what port events
 * do to it. Event handlers may run in atomic context: they only record
 * how deep the flush must go and queue the flush work, which does it
 * under the op_mutex:
 *  light  (CLIENT_REREGISTER, GID_CHANGE): leave and rejoin every group;
 *  normal (PORT_ACTIVE, PORT_ERR, LID_CHANGE, SM_CHANGE): also forget
 *         every path (LIDs and the SM may have changed);
 *  heavy  (PKEY_CHANGE): also restart the QP, whose P_Key index may have
 *         moved or appeared (a child waits for its P_Key this way).
 */
#include <linux/rtnetlink.h>
#include "ipoib.h"

/* Called with the op_mutex held. */
int ipoib_ib_up(struct ipoib_priv *priv)
{
	struct net_device *dev = priv->dev;
	int ret;

	if (priv->ib_up)
		return 0;
	if (ib_find_pkey(priv->ca, priv->port, priv->pkey, &priv->pkey_index)) {
		/* Up without carrier; a PKEY_CHANGE event will retry. */
		netdev_info(dev, "P_Key 0x%04x is not found\n", priv->pkey);
		return 0;
	}
	ret = ipoib_qp_start(priv);
	if (ret)
		return ret;
	ret = ipoib_rx_fill(priv);
	if (ret)
		goto reset;
	napi_enable(&priv->napi);
	priv->ib_up = true;
	/* One poll arms the CQ (and takes what completed already). */
	local_bh_disable();
	napi_schedule(&priv->napi);
	local_bh_enable();
	ipoib_tx_open(priv);
	ipoib_mc_start(priv);
	/* Without it, unicast stays on UD. */
	ipoib_cm_up(priv);
	return 0;

reset:
	ipoib_qp_reset(priv);
	ipoib_cq_drain(priv);
	ipoib_rings_reclaim(priv);
	return ret;
}

/* Called with the op_mutex held. */
void ipoib_ib_down(struct ipoib_priv *priv)
{
	if (!priv->ib_up)
		return;
	ipoib_tx_close(priv);
	ipoib_cm_down(priv);
	ipoib_mc_stop(priv);
	ipoib_path_flush(priv);

	/* Sends in flight complete (flushed); then everything is ours. */
	ipoib_qp_to_error(priv);
	ipoib_tx_wait_idle(priv, 2000);
	napi_disable(&priv->napi);
	ipoib_qp_reset(priv);
	ipoib_cq_drain(priv);
	ipoib_rings_reclaim(priv);
	priv->ib_up = false;
}

void ipoib_event(struct ib_event_handler *handler, struct ib_event *event)
{
	struct ipoib_priv *priv = container_of(handler, struct ipoib_priv,
					       events);
	unsigned long level;

	if (event->element.port_num != priv->port)
		return;
	switch (event->event) {
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		level = IPOIB_FLUSH_LIGHT;
		break;
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_SM_CHANGE:
		level = IPOIB_FLUSH_NORMAL;
		break;
	case IB_EVENT_PKEY_CHANGE:
		level = IPOIB_FLUSH_HEAVY;
		break;
	default:
		return;
	}
	set_bit(__ffs(level), &priv->flush_pending);
	queue_work(priv->wq, &priv->flush_work);
}

static bool ipoib_pkey_moved(struct ipoib_priv *priv)
{
	u16 index;

	return ib_find_pkey(priv->ca, priv->port, priv->pkey, &index) ||
	       index != priv->pkey_index;
}

void ipoib_flush_work(struct work_struct *work)
{
	struct ipoib_priv *priv = container_of(work, struct ipoib_priv,
					       flush_work);
	unsigned long level = xchg(&priv->flush_pending, 0);

	ipoib_dbg(priv, "flush %#lx\n", level);
	mutex_lock(&priv->op_mutex);
	if (!priv->admin_up)
		goto out;
	if (level & IPOIB_FLUSH_HEAVY) {
		/* Down only if our P_Key moved or went; up if it came. */
		if (!priv->ib_up) {
			ipoib_ib_up(priv);
			goto out;
		}
		if (ipoib_pkey_moved(priv)) {
			ipoib_ib_down(priv);
			ipoib_ib_up(priv);
			goto out;
		}
	}
	if (!priv->ib_up || !level)
		goto out;
	ipoib_mc_stop(priv);
	if (level & (IPOIB_FLUSH_NORMAL | IPOIB_FLUSH_HEAVY)) {
		ipoib_path_flush(priv);
		ipoib_cm_out_flush(priv);
	}
	ipoib_mc_start(priv);
out:
	mutex_unlock(&priv->op_mutex);
}

/*
 * The broadcast group fixed the MTU. dev_set_mtu() needs the rtnl, which
 * whoever cancels this work may hold: try it, else come back.
 */
void ipoib_mtu_work(struct work_struct *work)
{
	struct ipoib_priv *priv = container_of(to_delayed_work(work),
					       struct ipoib_priv, mtu_work);
	struct net_device *dev = priv->dev;
	unsigned int mtu;

	if (!rtnl_trylock()) {
		queue_delayed_work(priv->wq, &priv->mtu_work, HZ / 50);
		return;
	}
	mtu = priv->cm.connected ? priv->admin_mtu :
				   min(priv->admin_mtu, priv->mcast_mtu);
	if (dev->reg_state == NETREG_REGISTERED && dev->mtu != mtu) {
		priv->group_mtu_set = true;
		if (dev_set_mtu(dev, mtu))
			netdev_warn(dev, "MTU %u not taken\n", mtu);
		priv->group_mtu_set = false;
	}
	rtnl_unlock();
}
