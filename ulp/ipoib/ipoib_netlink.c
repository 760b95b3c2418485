// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rtnl link kind "ipoib": `ip link add link ib0 name X type ipoib [pkey P]
 * [mode datagram|connected] [umcast 0|1]` makes a child, `ip link del X` removes it,
 * and `ip -d link` shows the attributes of every IPoIB interface. Parents
 * belong to their port: deleting one is refused (silently, as the ops
 * cannot fail), and a parent left in a dying namespace goes home.
 */
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include "ipoib.h"

static const struct nla_policy ipoib_nl_policy[IFLA_IPOIB_MAX + 1] = {
	[IFLA_IPOIB_PKEY]	= { .type = NLA_U16 },
	[IFLA_IPOIB_MODE]	= { .type = NLA_U16 },
	[IFLA_IPOIB_UMCAST]	= { .type = NLA_U16 },
};

/*
 * The attributes any interface may change: mode and umcast. The mode is
 * only checked here; ipoib_nl_mode() applies it to a registered netdev.
 */
static int ipoib_nl_apply(struct ipoib_priv *priv, struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	u16 mode;

	if (!data)
		return 0;
	if (data[IFLA_IPOIB_MODE]) {
		mode = nla_get_u16(data[IFLA_IPOIB_MODE]);
		if (mode != IPOIB_MODE_DATAGRAM &&
		    mode != IPOIB_MODE_CONNECTED) {
			NL_SET_ERR_MSG(extack, "unknown IPoIB mode");
			return -EINVAL;
		}
		if (mode == IPOIB_MODE_CONNECTED &&
		    !ipoib_cm_capable(priv->ca)) {
			NL_SET_ERR_MSG(extack, "connected mode needs an SRQ");
			return -EOPNOTSUPP;
		}
	}
	if (data[IFLA_IPOIB_UMCAST]) {
		if (nla_get_u16(data[IFLA_IPOIB_UMCAST]))
			set_bit(0, &priv->umcast);
		else
			clear_bit(0, &priv->umcast);
	}
	return 0;
}

static int ipoib_nl_mode(struct ipoib_priv *priv, struct nlattr *data[])
{
	if (!data || !data[IFLA_IPOIB_MODE])
		return 0;
	return ipoib_cm_set_mode(priv, nla_get_u16(data[IFLA_IPOIB_MODE]) ==
				 IPOIB_MODE_CONNECTED);
}

static int ipoib_nl_newlink(struct net *src_net, struct net_device *dev,
			    struct nlattr *tb[], struct nlattr *data[],
			    struct netlink_ext_ack *extack)
{
	struct ipoib_priv *priv = ipoib_priv(dev), *ppriv;
	struct net_device *pdev;
	u16 pkey;
	int ret;

	if (!tb[IFLA_LINK])
		return -EINVAL;
	pdev = __dev_get_by_index(src_net, nla_get_u32(tb[IFLA_LINK]));
	if (!pdev || !ipoib_is_ipoib_dev(pdev))
		return -ENODEV;
	ppriv = ipoib_priv(pdev);
	if (ppriv->parent) {
		NL_SET_ERR_MSG(extack, "a child cannot have children");
		return -EINVAL;
	}

	pkey = ppriv->pkey;
	if (data && data[IFLA_IPOIB_PKEY]) {
		pkey = nla_get_u16(data[IFLA_IPOIB_PKEY]);
		if (pkey == 0 || pkey == 0x8000)
			return -EINVAL;
	}
	ret = ipoib_priv_prepare(priv, ppriv->ca, ppriv->port, pkey, ppriv);
	if (ret)
		return ret;
	ret = ipoib_nl_apply(priv, data, extack);
	if (ret)
		return ret;
	dev->sysfs_groups[0] = &ipoib_child_attrs;
	ret = register_netdevice(dev);
	if (ret)
		return ret;
	/*
	 * rtnl frees the netdev of a failed newlink without unregistering
	 * it: from here on, fail no more. The mode was checked above; an
	 * MTU that a notifier refuses leaves the child in datagram mode.
	 */
	ret = ipoib_nl_mode(priv, data);
	if (ret)
		netdev_warn(dev, "mode not changed: %d\n", ret);
	return 0;
}

static void ipoib_nl_dellink(struct net_device *dev, struct list_head *head)
{
	if (!ipoib_priv(dev)->parent)
		return;
	unregister_netdevice_queue(dev, head);
}

static int ipoib_nl_changelink(struct net_device *dev, struct nlattr *tb[],
			       struct nlattr *data[],
			       struct netlink_ext_ack *extack)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	if (data && data[IFLA_IPOIB_PKEY] &&
	    (nla_get_u16(data[IFLA_IPOIB_PKEY]) | 0x8000) != priv->pkey)
		return -EOPNOTSUPP;
	return ipoib_nl_apply(priv, data, extack) ?:
	       ipoib_nl_mode(priv, data);
}

static size_t ipoib_nl_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u16)) * 3;
}

static int ipoib_nl_fill_info(struct sk_buff *skb,
			      const struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	if (nla_put_u16(skb, IFLA_IPOIB_PKEY, priv->pkey) ||
	    nla_put_u16(skb, IFLA_IPOIB_MODE, priv->cm.connected ?
			IPOIB_MODE_CONNECTED : IPOIB_MODE_DATAGRAM) ||
	    nla_put_u16(skb, IFLA_IPOIB_UMCAST, test_bit(0, &priv->umcast)))
		return -EMSGSIZE;
	return 0;
}

struct rtnl_link_ops ipoib_link_ops __read_mostly = {
	.kind		= "ipoib",
	.netns_refund	= true,
	.maxtype	= IFLA_IPOIB_MAX,
	.policy		= ipoib_nl_policy,
	.priv_size	= sizeof(struct ipoib_priv),
	.setup		= ipoib_netdev_setup,
	.newlink	= ipoib_nl_newlink,
	.dellink	= ipoib_nl_dellink,
	.changelink	= ipoib_nl_changelink,
	.get_size	= ipoib_nl_get_size,
	.fill_info	= ipoib_nl_fill_info,
};
