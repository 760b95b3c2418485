// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * P_Key children: interfaces on the parent's port in another partition,
 * each with its own QP, groups and paths. The parent lists them (under
 * the rtnl) so that the port's removal takes them down first; a child
 * holds its parent's netdev.
 *
 * "Legacy" children come from the parent's create_child file, are named
 * <parent>.<pkey> and are unique per P_Key; rtnl children (ip link add
 * ... type ipoib) may share P_Keys.
 */
#include <linux/rtnetlink.h>
#include "ipoib.h"

/* ndo_init of a child: under the rtnl. */
int ipoib_child_link(struct ipoib_priv *priv)
{
	struct ipoib_priv *ppriv = priv->parent;

	if (!ppriv)
		return 0;
	ASSERT_RTNL();
	dev_hold(ppriv->dev);
	down_write(&ipoib_children_rwsem);
	list_add_tail(&priv->child_entry, &ppriv->children);
	up_write(&ipoib_children_rwsem);
	return 0;
}

void ipoib_child_unlink(struct ipoib_priv *priv)
{
	struct ipoib_priv *ppriv = priv->parent;

	if (!ppriv)
		return;
	ASSERT_RTNL();
	down_write(&ipoib_children_rwsem);
	list_del_init(&priv->child_entry);
	up_write(&ipoib_children_rwsem);
	dev_put(ppriv->dev);
}

static struct ipoib_priv *ipoib_legacy_find(struct ipoib_priv *ppriv,
					    u16 pkey)
{
	struct ipoib_priv *c;

	list_for_each_entry(c, &ppriv->children, child_entry)
		if (c->legacy && c->pkey == (pkey | 0x8000))
			return c;
	return NULL;
}

/* The rtnl held. */
int ipoib_legacy_child_add(struct ipoib_priv *ppriv, u16 pkey)
{
	char name[IFNAMSIZ];
	struct net_device *dev;
	struct ipoib_priv *priv;
	int ret;

	ASSERT_RTNL();
	if (ppriv->parent || ppriv->dev->reg_state != NETREG_REGISTERED)
		return -EPERM;
	if ((pkey | 0x8000) == ppriv->pkey || ipoib_legacy_find(ppriv, pkey))
		return -ENOTUNIQ;

	/* The P_Key as written, not with the full-member bit forced. */
	snprintf(name, sizeof(name), "%.10s.%04x", ppriv->dev->name, pkey);
	dev = alloc_netdev(sizeof(*priv), name, NET_NAME_UNKNOWN,
			   ipoib_netdev_setup);
	if (!dev)
		return -ENOMEM;
	priv = ipoib_priv(dev);
	ret = ipoib_priv_prepare(priv, ppriv->ca, ppriv->port, pkey, ppriv);
	if (ret)
		goto free;
	priv->legacy = true;
	dev->sysfs_groups[0] = &ipoib_child_attrs;
	ret = register_netdevice(dev);
	if (ret)
		goto free;
	return 0;

free:
	free_netdev(dev);
	return ret;
}

int ipoib_legacy_child_del(struct ipoib_priv *ppriv, u16 pkey)
{
	struct ipoib_priv *c;

	ASSERT_RTNL();
	c = ipoib_legacy_find(ppriv, pkey);
	if (!c)
		return -ENODEV;
	unregister_netdevice(c->dev);
	return 0;
}
