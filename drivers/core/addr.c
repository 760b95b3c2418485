// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * IP address resolution for rdma_cm: route lookup, source address
 * selection and neighbour (ARP/ND) resolution on the route's netdev.
 * Requests complete asynchronously from an ordered workqueue; pending
 * neighbour lookups are retried on netevent updates and on a short timer.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/inetdevice.h>
#include <net/route.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/* How often a request waiting for a neighbour entry is retried. */
#define ADDR_RETRY_MS	20

/* One resolution in flight, on req_list until its callback has run. */
struct addr_req {
	struct rdma_dev_addr *addr;		/* filled for the caller */
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	bool resolve_by_gid_attr;
	void (*callback)(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *addr, void *context);
	void *context;
	int status;
	unsigned long timeout;			/* jiffies */
	struct delayed_work work;
	struct list_head list;
};

static DEFINE_SPINLOCK(req_lock);
static LIST_HEAD(req_list);
static struct workqueue_struct *addr_wq;

/* The length of a sockaddr of a family rdma_cm handles, 0 for others. */
int rdma_addr_size(const struct sockaddr *addr)
{
	if (addr->sa_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (addr->sa_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return addr->sa_family == AF_IB ? sizeof(struct sockaddr_ib) : 0;
}
EXPORT_SYMBOL(rdma_addr_size);

/* As rdma_addr_size, but 0 also when it would not fit in @room bytes. */
static int addr_size_within(const void *addr, size_t room)
{
	int size = rdma_addr_size(addr);

	return size <= room ? size : 0;
}

int rdma_addr_size_in6(struct sockaddr_in6 *addr)
{
	return addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_in6);

int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr)
{
	return addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_kss);

void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev)
{
	dev_addr->bound_dev_if = dev->ifindex;
	dev_addr->dev_type = dev->type;
	memcpy(dev_addr->broadcast, dev->broadcast, MAX_ADDR_LEN);
	memcpy(dev_addr->src_dev_addr, dev->dev_addr, MAX_ADDR_LEN);
}
EXPORT_SYMBOL(rdma_copy_src_l2_addr);

static struct net *addr_net(const struct rdma_dev_addr *dev_addr)
{
	return dev_addr->net ? dev_addr->net : &init_net;
}

/* Netdev (held) that owns the IP address @addr in @net; NULL if none. */
static struct net_device *addr_owner_get(struct net *net,
					 const struct sockaddr *addr)
{
	struct net_device *dev = NULL;

	switch (addr->sa_family) {
	case AF_INET:
		dev = ip_dev_find(net,
				  ((const struct sockaddr_in *)addr)->sin_addr.s_addr);
		break;
	case AF_INET6: {
		const struct in6_addr *a6 =
			&((const struct sockaddr_in6 *)addr)->sin6_addr;
		struct net_device *it;

		rcu_read_lock();
		for_each_netdev_rcu(net, it) {
			if (ipv6_chk_addr(net, a6, it, 1)) {
				dev = it;
				dev_hold(dev);
				break;
			}
		}
		rcu_read_unlock();
		break;
	}
	default:
		break;
	}
	return dev;
}

int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr)
{
	struct net_device *dev;

	if (dev_addr->bound_dev_if) {
		dev = dev_get_by_index(addr_net(dev_addr),
				       dev_addr->bound_dev_if);
		if (!dev)
			return -ENODEV;
		rdma_copy_src_l2_addr(dev_addr, dev);
		dev_put(dev);
		return 0;
	}

	dev = addr_owner_get(addr_net(dev_addr), addr);
	if (!dev)
		return -EADDRNOTAVAIL;
	rdma_copy_src_l2_addr(dev_addr, dev);
	dev_put(dev);
	return 0;
}
EXPORT_SYMBOL(rdma_translate_ip);

/*
 * The L2 address of @daddr's neighbour on @dst's device: 0 and @mac filled,
 * or -ENODATA after kicking resolution (the request is retried later).
 */
static int addr_neigh_mac(struct dst_entry *dst, const void *daddr, u8 *mac)
{
	struct net_device *ndev = dst->dev;
	struct neighbour *n;
	int ret = 0;

	if (ndev->flags & (IFF_LOOPBACK | IFF_NOARP)) {
		memcpy(mac, ndev->dev_addr, ndev->addr_len);
		return 0;
	}

	n = dst_neigh_lookup(dst, daddr);
	if (!n)
		return -ENODATA;
	if (n->nud_state & NUD_VALID) {
		neigh_ha_snapshot(mac, n, ndev);
	} else {
		neigh_event_send(n, NULL);
		ret = -ENODATA;
	}
	neigh_release(n);
	return ret;
}

static int addr4_route(struct sockaddr_in *src_in,
		       const struct sockaddr_in *dst_in,
		       struct rdma_dev_addr *addr, struct dst_entry **dstp)
{
	struct flowi4 fl4 = {
		.daddr = dst_in->sin_addr.s_addr,
		.saddr = src_in->sin_addr.s_addr,
		.flowi4_oif = addr->bound_dev_if,
	};
	struct rtable *rt;

	rt = ip_route_output_key(addr_net(addr), &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt) == -ENETUNREACH ? -ENETUNREACH :
			-EHOSTUNREACH;
	src_in->sin_family = AF_INET;
	src_in->sin_addr.s_addr = fl4.saddr;
	addr->hoplimit = ip4_dst_hoplimit(&rt->dst);
	*dstp = &rt->dst;
	return 0;
}

static int addr6_route(struct sockaddr_in6 *src_in,
		       const struct sockaddr_in6 *dst_in,
		       struct rdma_dev_addr *addr, struct dst_entry **dstp)
{
	struct flowi6 fl6 = {
		.daddr = dst_in->sin6_addr,
		.saddr = src_in->sin6_addr,
		.flowi6_oif = addr->bound_dev_if,
	};
	struct dst_entry *dst;

	if (!fl6.flowi6_oif && ipv6_addr_type(&fl6.daddr) &
	    IPV6_ADDR_LINKLOCAL)
		fl6.flowi6_oif = dst_in->sin6_scope_id;

	dst = ipv6_stub->ipv6_dst_lookup_flow(addr_net(addr), NULL, &fl6,
					      NULL);
	if (IS_ERR(dst))
		return -EHOSTUNREACH;
	if (dst->error) {
		dst_release(dst);
		return -EHOSTUNREACH;
	}
	src_in->sin6_family = AF_INET6;
	src_in->sin6_addr = fl6.saddr;
	addr->hoplimit = ip6_dst_hoplimit(dst);
	*dstp = dst;
	return 0;
}

/* The route goes through @ndev: check it against the chosen GID entry. */
static int addr_check_gid_ndev(struct rdma_dev_addr *addr,
			       struct net_device *ndev)
{
	struct net_device *gid_ndev;
	int ret = 0;

	rcu_read_lock();
	gid_ndev = rdma_read_gid_attr_ndev_rcu(addr->sgid_attr);
	if (IS_ERR(gid_ndev))
		ret = PTR_ERR(gid_ndev);
	else if (!(ndev->flags & IFF_LOOPBACK) && gid_ndev != ndev &&
		 rdma_vlan_dev_real_dev(ndev) != gid_ndev)
		ret = -EHOSTUNREACH;
	rcu_read_unlock();
	return ret;
}

/*
 * One resolution attempt: 0 when @addr is complete, -ENODATA while the
 * neighbour entry is pending, another errno on failure.
 */
static int addr_resolve(struct sockaddr *src, const struct sockaddr *dst,
			struct rdma_dev_addr *addr, bool resolve_by_gid_attr)
{
	struct dst_entry *dst_ent = NULL;
	struct net_device *ndev;
	const void *daddr;
	int ret;

	if (src->sa_family != dst->sa_family)
		return -EINVAL;

	if (dst->sa_family == AF_INET) {
		ret = addr4_route((struct sockaddr_in *)src,
				  (const struct sockaddr_in *)dst, addr,
				  &dst_ent);
		daddr = &((const struct sockaddr_in *)dst)->sin_addr.s_addr;
	} else if (dst->sa_family == AF_INET6) {
		ret = addr6_route((struct sockaddr_in6 *)src,
				  (const struct sockaddr_in6 *)dst, addr,
				  &dst_ent);
		daddr = &((const struct sockaddr_in6 *)dst)->sin6_addr;
	} else {
		return -EAFNOSUPPORT;
	}
	if (ret)
		return ret;

	ndev = dst_ent->dev;
	if (resolve_by_gid_attr && addr->sgid_attr) {
		ret = addr_check_gid_ndev(addr, ndev);
		if (ret)
			goto out;
	}

	if (ndev->flags & IFF_LOOPBACK) {
		/*
		 * Local destination: the RDMA device is the one behind the
		 * netdev that owns the destination address, and the peer's
		 * MAC is our own.
		 */
		struct net_device *owner;

		owner = addr_owner_get(addr_net(addr), dst);
		if (!owner) {
			ret = -EADDRNOTAVAIL;
			goto out;
		}
		rdma_copy_src_l2_addr(addr, owner);
		dev_put(owner);
		memcpy(addr->dst_dev_addr, addr->src_dev_addr, MAX_ADDR_LEN);
	} else {
		rdma_copy_src_l2_addr(addr, ndev);
		ret = addr_neigh_mac(dst_ent, daddr, addr->dst_dev_addr);
		if (ret)
			goto out;
	}

	if (addr->dev_type == ARPHRD_INFINIBAND)
		addr->network = RDMA_NETWORK_IB;
	else if (dst->sa_family == AF_INET)
		addr->network = RDMA_NETWORK_IPV4;
	else
		addr->network = RDMA_NETWORK_IPV6;
out:
	dst_release(dst_ent);
	return ret;
}

static void addr_req_free(struct addr_req *req)
{
	kfree(req);
}

static void process_one_req(struct work_struct *work)
{
	struct addr_req *req = container_of(to_delayed_work(work),
					    struct addr_req, work);
	bool owner;

	req->status = addr_resolve((struct sockaddr *)&req->src_addr,
				   (struct sockaddr *)&req->dst_addr,
				   req->addr, req->resolve_by_gid_attr);
	if (req->status == -ENODATA) {
		if (time_before(jiffies, req->timeout)) {
			unsigned long delay = msecs_to_jiffies(ADDR_RETRY_MS);

			if (time_after(jiffies + delay, req->timeout))
				delay = req->timeout - jiffies;
			spin_lock_bh(&req_lock);
			if (!list_empty(&req->list))
				mod_delayed_work(addr_wq, &req->work, delay);
			spin_unlock_bh(&req_lock);
			return;
		}
		req->status = -ETIMEDOUT;
	}

	/* A canceller that took the request off the list owns it now. */
	spin_lock_bh(&req_lock);
	owner = !list_empty(&req->list);
	spin_unlock_bh(&req_lock);
	if (!owner)
		return;

	req->callback(req->status, (struct sockaddr *)&req->src_addr,
		      req->addr, req->context);

	spin_lock_bh(&req_lock);
	owner = !list_empty(&req->list);
	if (owner)
		list_del_init(&req->list);
	spin_unlock_bh(&req_lock);
	if (owner) {
		/* Off the list nobody requeues it; drop a netevent requeue. */
		cancel_delayed_work(&req->work);
		addr_req_free(req);
	}
}

int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context)
{
	struct addr_req *req;
	int dsize;

	dsize = rdma_addr_size(dst_addr);
	if (!dsize || dst_addr->sa_family == AF_IB)
		return -EAFNOSUPPORT;
	if (src_addr && src_addr->sa_family &&
	    src_addr->sa_family != dst_addr->sa_family)
		return -EINVAL;

	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;

	if (src_addr && src_addr->sa_family)
		memcpy(&req->src_addr, src_addr, rdma_addr_size(src_addr));
	else
		req->src_addr.ss_family = dst_addr->sa_family;
	memcpy(&req->dst_addr, dst_addr, dsize);
	req->addr = addr;
	req->callback = callback;
	req->context = context;
	req->resolve_by_gid_attr = resolve_by_gid_attr;
	req->timeout = jiffies + msecs_to_jiffies(timeout_ms);
	INIT_DELAYED_WORK(&req->work, process_one_req);

	spin_lock_bh(&req_lock);
	list_add_tail(&req->list, &req_list);
	queue_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&req_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_ip);

void rdma_addr_cancel(struct rdma_dev_addr *addr)
{
	struct addr_req *req, *found = NULL;

	spin_lock_bh(&req_lock);
	list_for_each_entry(req, &req_list, list) {
		if (req->addr == addr) {
			list_del_init(&req->list);
			found = req;
			break;
		}
	}
	spin_unlock_bh(&req_lock);
	if (!found)
		return;

	/* Waits for a callback already running; none starts after this. */
	cancel_delayed_work_sync(&found->work);
	addr_req_free(found);
}
EXPORT_SYMBOL(rdma_addr_cancel);

struct addr_sync_ctx {
	struct completion done;
	int status;
};

static void addr_sync_cb(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *addr, void *context)
{
	struct addr_sync_ctx *ctx = context;

	ctx->status = status;
	complete(&ctx->done);
}

int rdma_addr_find_l2_eth_by_grh(const union ib_gid *sgid,
				 const union ib_gid *dgid,
				 u8 *dmac, const struct ib_gid_attr *sgid_attr,
				 int *hoplimit)
{
	struct sockaddr_storage src = {}, dst = {};
	struct rdma_dev_addr dev_addr = {};
	struct addr_sync_ctx ctx;
	struct net_device *ndev;
	int ret;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	dev_addr.net = dev_net(ndev);
	dev_addr.bound_dev_if = ndev->ifindex;
	rcu_read_unlock();
	dev_addr.sgid_attr = sgid_attr;

	rdma_gid2ip((struct sockaddr *)&src, sgid);
	rdma_gid2ip((struct sockaddr *)&dst, dgid);

	init_completion(&ctx.done);
	ret = rdma_resolve_ip((struct sockaddr *)&src, (struct sockaddr *)&dst,
			      &dev_addr, 1000, addr_sync_cb, true, &ctx);
	if (ret)
		return ret;
	wait_for_completion(&ctx.done);
	if (ctx.status)
		return ctx.status;

	memcpy(dmac, dev_addr.dst_dev_addr, ETH_ALEN);
	*hoplimit = dev_addr.hoplimit;
	return 0;
}
EXPORT_SYMBOL(rdma_addr_find_l2_eth_by_grh);

/* A neighbour became valid: retry every pending request right away. */
static int netevent_cb(struct notifier_block *self, unsigned long event,
		       void *ctx)
{
	struct neighbour *neigh = ctx;
	struct addr_req *req;

	if (event != NETEVENT_NEIGH_UPDATE || !(neigh->nud_state & NUD_VALID))
		return NOTIFY_DONE;

	spin_lock_bh(&req_lock);
	list_for_each_entry(req, &req_list, list)
		mod_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&req_lock);
	return NOTIFY_DONE;
}

static struct notifier_block nb = {
	.notifier_call = netevent_cb,
};

int addr_init(void)
{
	int ret;

	addr_wq = alloc_ordered_workqueue("ib_addr", 0);
	if (!addr_wq)
		return -ENOMEM;
	ret = register_netevent_notifier(&nb);
	if (ret) {
		destroy_workqueue(addr_wq);
		return ret;
	}
	return 0;
}

void addr_cleanup(void)
{
	unregister_netevent_notifier(&nb);
	destroy_workqueue(addr_wq);
	WARN_ON(!list_empty(&req_list));
}
