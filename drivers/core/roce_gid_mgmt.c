// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE GID tables follow the addresses of the port netdev: the default GID
 * (fe80::EUI-64 of the MAC) and one entry per IPv4 address (IPv4-mapped)
 * and per IPv6 address, each once per GID type the port supports.
 *
 * Notifiers run under RTNL or in atomic context, so they only queue a
 * resync of the netdev; an ordered workqueue rebuilds the table entries of
 * that netdev from its current addresses, so lost or reordered events
 * cannot leave stale entries behind.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include "core_priv.h"

/* Addresses of one netdev at one moment. */
struct ndev_addrs {
	unsigned int n;
	unsigned int max;
	union ib_gid gid[];
};

struct gid_work {
	struct work_struct work;
	struct net_device *ndev;
	netdevice_tracker tracker;
	bool gone;		/* netdev unregistering: drop everything */
};

static struct workqueue_struct *gid_wq;

static void addrs_add(struct ndev_addrs *a, const struct in6_addr *addr)
{
	if (a->n < a->max)
		memcpy(&a->gid[a->n++], addr, sizeof(*addr));
}

static struct ndev_addrs *collect_addrs(struct net_device *ndev)
{
	struct inet6_ifaddr *ifp;
	struct in_device *in_dev;
	struct inet6_dev *idev;
	const struct in_ifaddr *ifa;
	struct ndev_addrs *a;
	const unsigned int max = 256;
	struct in6_addr mapped;

	a = kzalloc(struct_size(a, gid, max), GFP_KERNEL);
	if (!a)
		return NULL;
	a->max = max;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_address, &mapped);
			addrs_add(a, &mapped);
		}
	}
	rcu_read_unlock();

	idev = in6_dev_get(ndev);
	if (idev) {
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list)
			addrs_add(a, &ifp->addr);
		read_unlock_bh(&idev->lock);
		in6_dev_put(idev);
	}
	return a;
}

static bool addr_present(const union ib_gid *gid, void *ctx)
{
	struct ndev_addrs *a = ctx;
	unsigned int i;

	for (i = 0; i < a->n; i++)
		if (!memcmp(&a->gid[i], gid, sizeof(*gid)))
			return true;
	return false;
}

/* Makes one port's table match the netdev's addresses. */
static void sync_port(struct ib_device *dev, u32 port,
		      struct net_device *ndev, void *ctx)
{
	struct ndev_addrs *a = ctx;
	unsigned long mask, type;
	unsigned int i;

	if (!rdma_protocol_roce(dev, port))
		return;
	if (!a) {
		ib_cache_gid_del_netdev(dev, port, ndev, true, NULL, NULL);
		return;
	}
	mask = roce_gid_type_mask_support(dev, port);
	ib_cache_gid_set_default_gid(dev, port, ndev, mask);
	ib_cache_gid_del_netdev(dev, port, ndev, false, addr_present, a);
	for (i = 0; i < a->n; i++)
		for_each_set_bit(type, &mask, IB_GID_TYPE_SIZE)
			ib_cache_gid_add(dev, port, &a->gid[i], type, ndev);
}

static void gid_work_fn(struct work_struct *_work)
{
	struct gid_work *work = container_of(_work, struct gid_work, work);
	struct ndev_addrs *a = NULL;

	if (!work->gone) {
		a = collect_addrs(work->ndev);
		if (!a)
			goto out;
	}
	ib_for_each_ndev_port(work->ndev, sync_port, a);
	kfree(a);
out:
	netdev_put(work->ndev, &work->tracker);
	kfree(work);
}

static void queue_sync(struct net_device *ndev, bool gone)
{
	struct gid_work *work;

	work = kmalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return;
	INIT_WORK(&work->work, gid_work_fn);
	work->ndev = ndev;
	work->gone = gone;
	netdev_hold(ndev, &work->tracker, GFP_ATOMIC);
	queue_work(gid_wq, &work->work);
}

void roce_rescan_device(struct ib_device *dev)
{
	struct net_device *ndev;
	struct ndev_addrs *a;
	u32 port;

	rdma_for_each_port(dev, port) {
		if (!rdma_protocol_roce(dev, port))
			continue;
		ndev = ib_device_get_netdev(dev, port);
		if (!ndev)
			continue;
		a = collect_addrs(ndev);
		if (a)
			sync_port(dev, port, ndev, a);
		kfree(a);
		dev_put(ndev);
	}
}

/* For drivers whose ports learn a new GID type or netdev after the fact. */
void rdma_roce_rescan_device(struct ib_device *ibdev)
{
	roce_rescan_device(ibdev);
}
EXPORT_SYMBOL(rdma_roce_rescan_device);

static int netdev_event(struct notifier_block *nb, unsigned long event,
			void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UP:
	case NETDEV_CHANGEADDR:
	case NETDEV_CHANGE:
		queue_sync(ndev, false);
		break;
	case NETDEV_UNREGISTER:
		queue_sync(ndev, true);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

static int inetaddr_event(struct notifier_block *nb, unsigned long event,
			  void *ptr)
{
	struct in_ifaddr *ifa = ptr;

	queue_sync(ifa->ifa_dev->dev, false);
	return NOTIFY_DONE;
}

static int inet6addr_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct inet6_ifaddr *ifa = ptr;

	queue_sync(ifa->idev->dev, false);
	return NOTIFY_DONE;
}

static struct notifier_block nb_netdev = { .notifier_call = netdev_event };
static struct notifier_block nb_inetaddr = { .notifier_call = inetaddr_event };
static struct notifier_block nb_inet6addr = {
	.notifier_call = inet6addr_event
};

int roce_gid_mgmt_init(void)
{
	int ret;

	gid_wq = alloc_ordered_workqueue("ib-roce-gid", 0);
	if (!gid_wq)
		return -ENOMEM;
	ret = register_inetaddr_notifier(&nb_inetaddr);
	if (ret)
		goto err_wq;
	ret = register_inet6addr_notifier(&nb_inet6addr);
	if (ret)
		goto err_inet;
	ret = register_netdevice_notifier(&nb_netdev);
	if (ret)
		goto err_inet6;
	return 0;

err_inet6:
	unregister_inet6addr_notifier(&nb_inet6addr);
err_inet:
	unregister_inetaddr_notifier(&nb_inetaddr);
err_wq:
	destroy_workqueue(gid_wq);
	return ret;
}

void roce_gid_mgmt_cleanup(void)
{
	unregister_netdevice_notifier(&nb_netdev);
	unregister_inet6addr_notifier(&nb_inet6addr);
	unregister_inetaddr_notifier(&nb_inetaddr);
	/* Runs what is queued: each work holds a netdev reference. */
	destroy_workqueue(gid_wq);
}
