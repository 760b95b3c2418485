// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /sys/class/net/<if>/: mode, pkey, umcast on parents and children (of
 * sysfs and of rtnl); create_child/delete_child on parents, parent on
 * children.
 * Stores that need the rtnl only try it (and restart the syscall), since
 * unregistering a netdev under the rtnl waits for its sysfs writers.
 */
#include <linux/capability.h>
#include <linux/rtnetlink.h>
#include "ipoib.h"

static struct ipoib_priv *ipoib_dev_priv(struct device *d)
{
	return ipoib_priv(to_net_dev(d));
}

static ssize_t mode_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, ipoib_dev_priv(d)->cm.connected ?
			  "connected\n" : "datagram\n");
}

/* Exactly "datagram\n" or "connected\n" (what echo writes). */
static ssize_t mode_store(struct device *d, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct ipoib_priv *priv = ipoib_dev_priv(d);
	bool connected;
	int ret;

	if (!strcmp(buf, "connected\n"))
		connected = true;
	else if (!strcmp(buf, "datagram\n"))
		connected = false;
	else
		return -EINVAL;
	if (!rtnl_trylock())
		return restart_syscall();
	if (priv->dev->reg_state != NETREG_REGISTERED)
		ret = -EPERM;
	else
		ret = ipoib_cm_set_mode(priv, connected);
	rtnl_unlock();
	return ret ?: count;
}
static DEVICE_ATTR_RW(mode);

static ssize_t pkey_show(struct device *d, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "0x%04x\n", ipoib_dev_priv(d)->pkey);
}
static DEVICE_ATTR_RO(pkey);

static ssize_t umcast_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  test_bit(0, &ipoib_dev_priv(d)->umcast));
}

static ssize_t umcast_store(struct device *d, struct device_attribute *attr,
			    const char *buf, size_t count)
{
	struct ipoib_priv *priv = ipoib_dev_priv(d);
	unsigned long v;
	int ret;

	ret = kstrtoul(buf, 0, &v);
	if (ret)
		return ret;
	if (v) {
		set_bit(0, &priv->umcast);
		netdev_warn(priv->dev,
			    "groups joined by others on the port are left to them\n");
	} else {
		clear_bit(0, &priv->umcast);
	}
	return count;
}
static DEVICE_ATTR_RW(umcast);

/* A P_Key as create_child/delete_child take it: %i, 1..0xffff. */
static int ipoib_parse_pkey(const char *buf, u16 *pkey, bool creating)
{
	int v;

	if (sscanf(buf, "%i", &v) != 1 || v < 0 || v > 0xffff)
		return -EINVAL;
	if (creating && (v == 0 || v == 0x8000))
		return -EINVAL;
	*pkey = v;
	return 0;
}

/* create_child, delete_child: a P_Key, then the child's birth or end. */
static ssize_t ipoib_child_store(struct device *d, const char *buf,
				 size_t count, bool creating)
{
	struct ipoib_priv *priv = ipoib_dev_priv(d);
	u16 pkey;
	int ret;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	ret = ipoib_parse_pkey(buf, &pkey, creating);
	if (ret)
		return ret;
	if (!rtnl_trylock())
		return restart_syscall();
	ret = creating ? ipoib_legacy_child_add(priv, pkey) :
			 ipoib_legacy_child_del(priv, pkey);
	rtnl_unlock();
	return ret ?: count;
}

static ssize_t create_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	return ipoib_child_store(d, buf, count, true);
}
static DEVICE_ATTR_WO(create_child);

static ssize_t delete_child_store(struct device *d,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	return ipoib_child_store(d, buf, count, false);
}
static DEVICE_ATTR_WO(delete_child);

static ssize_t parent_show(struct device *d, struct device_attribute *attr,
			   char *buf)
{
	struct ipoib_priv *priv = ipoib_dev_priv(d);

	return sysfs_emit(buf, "%s\n", priv->parent->dev->name);
}
static DEVICE_ATTR_RO(parent);

static struct attribute *ipoib_parent_attr_list[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_create_child.attr,
	&dev_attr_delete_child.attr,
	NULL
};

const struct attribute_group ipoib_parent_attrs = {
	.attrs = ipoib_parent_attr_list,
};

static struct attribute *ipoib_child_attr_list[] = {
	&dev_attr_mode.attr,
	&dev_attr_pkey.attr,
	&dev_attr_umcast.attr,
	&dev_attr_parent.attr,
	NULL
};

const struct attribute_group ipoib_child_attrs = {
	.attrs = ipoib_child_attr_list,
};
