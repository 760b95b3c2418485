// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE LAG: a RoCE v2 AH whose source GID sits on a bond must leave on the
 * slave the bond itself would pick for that flow, so hardware drivers ask
 * the bond with a header-only skb of the flow (Ethernet, IP, UDP to 4791
 * from the AH's flow-label source port).
 */
#include <linux/export.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/lag.h>
#include <rdma/ib_cache.h>
#include <rdma/lag.h>

static struct sk_buff *lag_flow_skb(struct rdma_ah_attr *ah_attr,
				    struct net_device *master, gfp_t flags)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah_attr);
	bool v4 = ipv6_addr_v4mapped((struct in6_addr *)grh->dgid.raw);
	size_t l3 = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	struct sk_buff *skb;
	struct ethhdr *eth;
	struct udphdr *udp;

	skb = alloc_skb(LL_RESERVED_SPACE(master) + ETH_HLEN + l3 +
			sizeof(*udp), flags);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(master));
	skb->dev = master;

	eth = skb_put_zero(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	ether_addr_copy(eth->h_dest, ah_attr->roce.dmac);
	ether_addr_copy(eth->h_source, master->dev_addr);
	eth->h_proto = htons(v4 ? ETH_P_IP : ETH_P_IPV6);
	skb->protocol = eth->h_proto;

	skb_set_network_header(skb, skb->len);
	if (v4) {
		struct iphdr *ip = skb_put_zero(skb, l3);

		ip->version = 4;
		ip->ihl = 5;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, grh->sgid_attr->gid.raw + 12, 4);
		memcpy(&ip->daddr, grh->dgid.raw + 12, 4);
	} else {
		struct ipv6hdr *ip6 = skb_put_zero(skb, l3);

		ip6->version = 6;
		ip6->nexthdr = IPPROTO_UDP;
		memcpy(&ip6->saddr, grh->sgid_attr->gid.raw, 16);
		memcpy(&ip6->daddr, grh->dgid.raw, 16);
	}
	skb_set_transport_header(skb, skb->len);
	udp = skb_put_zero(skb, sizeof(*udp));
	udp->source = htons(rdma_flow_label_to_udp_sport(grh->flow_label));
	udp->dest = htons(ROCE_V2_UDP_DPORT);
	return skb;
}

struct net_device *rdma_lag_get_ah_roce_slave(struct ib_device *device,
					      struct rdma_ah_attr *ah_attr,
					      gfp_t flags)
{
	const struct ib_gid_attr *sgid = ah_attr->grh.sgid_attr;
	struct net_device *master, *slave = NULL;
	struct sk_buff *skb;

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE || !sgid ||
	    sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return NULL;

	rcu_read_lock();
	master = rdma_read_gid_attr_ndev_rcu(sgid);
	if (IS_ERR(master) || !netif_is_bond_master(master)) {
		rcu_read_unlock();
		return NULL;
	}
	dev_hold(master);
	rcu_read_unlock();

	skb = lag_flow_skb(ah_attr, master, flags);
	if (skb) {
		rcu_read_lock();
		slave = netdev_get_xmit_slave(master, skb,
			!!(device->lag_flags & RDMA_LAG_FLAGS_HASH_ALL_SLAVES));
		dev_hold(slave);
		rcu_read_unlock();
		kfree_skb(skb);
	}
	dev_put(master);
	return slave;
}
EXPORT_SYMBOL(rdma_lag_get_ah_roce_slave);

void rdma_lag_put_ah_roce_slave(struct net_device *xmit_slave)
{
	dev_put(xmit_slave);
}
EXPORT_SYMBOL(rdma_lag_put_ah_roce_slave);
