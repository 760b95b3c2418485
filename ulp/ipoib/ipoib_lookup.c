// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which of our interfaces an incoming connection request is for: the
 * ib_client hook rdma_cm calls (through ib_get_net_dev_by_params()) with
 * the port, P_Key and GID the request came to and the IP address it is
 * for. The answer is the interface (parent or P_Key child) on that port,
 * in that partition, with that GID, that owns the address; rdma_cm looks
 * its listener up in that interface's network namespace.
 *
 * The children lists change under the rtnl; this lookup must not take it
 * (it runs in ib_cm's work, beside netdev teardown), so a lock of its own
 * guards them as well.
 */
#include <linux/inetdevice.h>
#include <linux/rwsem.h>
#include <net/addrconf.h>
#include "ipoib.h"

DECLARE_RWSEM(ipoib_children_rwsem);

/* Does @dev hold the IP address @addr? */
static bool ipoib_owns_addr(struct net_device *dev,
			    const struct sockaddr *addr)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	bool found = false;

	switch (addr->sa_family) {
	case AF_INET: {
		__be32 a = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;

		rcu_read_lock();
		in_dev = __in_dev_get_rcu(dev);
		if (in_dev) {
			in_dev_for_each_ifa_rcu(ifa, in_dev) {
				if (ifa->ifa_local == a) {
					found = true;
					break;
				}
			}
		}
		rcu_read_unlock();
		return found;
	}
	case AF_INET6:
		return IS_ENABLED(CONFIG_IPV6) &&
		       ipv6_chk_addr(dev_net(dev),
				     &((const struct sockaddr_in6 *)addr)->sin6_addr,
				     dev, 1);
	default:
		return false;
	}
}

/* One interface against the request's partition, GID and address. */
static bool ipoib_lookup_match(struct ipoib_priv *priv, u32 port, u16 pkey,
			       const union ib_gid *gid,
			       const struct sockaddr *addr)
{
	const u8 *our_gid = priv->dev->dev_addr + 4;

	if (priv->port != port || (priv->pkey & 0x7fff) != (pkey & 0x7fff))
		return false;
	if (gid && memcmp(our_gid, gid->raw, sizeof(gid->raw)))
		return false;
	return !addr || ipoib_owns_addr(priv->dev, addr);
}

struct net_device *ipoib_get_net_dev_by_params(struct ib_device *ca, u32 port,
					       u16 pkey,
					       const union ib_gid *gid,
					       const struct sockaddr *addr,
					       void *client_data)
{
	struct list_head *parents = client_data;
	struct ipoib_priv *priv, *child, *found = NULL;

	if (!parents)
		return NULL;
	down_read(&ipoib_children_rwsem);
	list_for_each_entry(priv, parents, child_entry) {
		if (ipoib_lookup_match(priv, port, pkey, gid, addr)) {
			found = priv;
			break;
		}
		list_for_each_entry(child, &priv->children, child_entry) {
			if (ipoib_lookup_match(child, port, pkey, gid, addr)) {
				found = child;
				break;
			}
		}
		if (found)
			break;
	}
	if (found)
		dev_hold(found->dev);
	up_read(&ipoib_children_rwsem);
	return found ? found->dev : NULL;
}
