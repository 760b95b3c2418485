/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IP address to RDMA device/L2 address resolution (ib_core addr.c) and the
 * GID <-> IP helpers rdma_cm and its users need. Upstream 6.1 names.
 */
#ifndef RDMA_KMOD_IB_ADDR_H
#define RDMA_KMOD_IB_ADDR_H

#include <linux/types.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/ethtool.h>
#include <net/ipv6.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_pack.h>

/*
 * Resolved addressing of one rdma_cm id.
 * @src_dev_addr/@dst_dev_addr: L2 (MAC) addresses; @broadcast: the
 *	netdev's broadcast address (IPoIB keeps the P_Key in bytes 8-9).
 * @dev_type: ARPHRD_* of the bound netdev.
 * @bound_dev_if: ifindex of the netdev the address resolves to (0: none).
 * @net: network namespace the id lives in (not refcounted here).
 * @sgid_attr: GID entry chosen when resolve_by_gid_attr is set.
 * @network: RDMA_NETWORK_* of the resolved route (IPv4/IPv6 for RoCE v2).
 * @hoplimit: IP TTL / hop limit of the route to the destination.
 */
struct rdma_dev_addr {
	unsigned char src_dev_addr[MAX_ADDR_LEN];
	unsigned char dst_dev_addr[MAX_ADDR_LEN];
	unsigned char broadcast[MAX_ADDR_LEN];
	unsigned short dev_type;
	int bound_dev_if;
	enum rdma_transport_type transport;
	struct net *net;
	const struct ib_gid_attr *sgid_attr;
	enum rdma_network_type network;
	int hoplimit;
};

/* Fills @dev_addr from the netdev that owns @addr in dev_addr->net. */
int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr);

/*
 * Resolves @dst_addr (and @src_addr if it is a wildcard) to L2 addresses.
 * The callback runs later from a workqueue exactly once, unless
 * rdma_addr_cancel() was called first. @addr must stay valid until then.
 */
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context);

/*
 * Cancels a pending rdma_resolve_ip() on @addr; on return the callback is
 * not running and will not run.
 */
void rdma_addr_cancel(struct rdma_dev_addr *addr);

int rdma_addr_size(const struct sockaddr *addr);
int rdma_addr_size_in6(struct sockaddr_in6 *addr);
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr);

void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev);

int rdma_addr_find_l2_eth_by_grh(const union ib_gid *sgid,
				 const union ib_gid *dgid,
				 u8 *dmac, const struct ib_gid_attr *sgid_attr,
				 int *hoplimit);

static inline u16 ib_addr_get_pkey(struct rdma_dev_addr *dev_addr)
{
	return ((u16)dev_addr->broadcast[8] << 8) | (u16)dev_addr->broadcast[9];
}

static inline void ib_addr_set_pkey(struct rdma_dev_addr *dev_addr, u16 pkey)
{
	dev_addr->broadcast[8] = pkey >> 8;
	dev_addr->broadcast[9] = (unsigned char)pkey;
}

static inline void ib_addr_get_mgid(struct rdma_dev_addr *dev_addr,
				    union ib_gid *gid)
{
	memcpy(gid, dev_addr->broadcast + 4, sizeof(*gid));
}

/* IPoIB hardware addresses carry a 4-byte QPN before the GID. */
static inline int rdma_addr_gid_offset(struct rdma_dev_addr *dev_addr)
{
	return dev_addr->dev_type == ARPHRD_INFINIBAND ? 4 : 0;
}

static inline u16 rdma_vlan_dev_vlan_id(const struct net_device *dev)
{
	return is_vlan_dev(dev) ? vlan_dev_vlan_id(dev) : 0xffff;
}

static inline struct net_device *
rdma_vlan_dev_real_dev(const struct net_device *dev)
{
	return is_vlan_dev(dev) ? vlan_dev_real_dev(dev) : NULL;
}

/* IPv4 becomes an IPv4-mapped IPv6 GID; IPv6 is used as is. */
static inline int rdma_ip2gid(struct sockaddr *addr, union ib_gid *gid)
{
	switch (addr->sa_family) {
	case AF_INET:
		ipv6_addr_set_v4mapped(((struct sockaddr_in *)addr)->sin_addr.s_addr,
				       (struct in6_addr *)gid);
		break;
	case AF_INET6:
		*(struct in6_addr *)gid = ((struct sockaddr_in6 *)addr)->sin6_addr;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

static inline void rdma_gid2ip(struct sockaddr *out, const union ib_gid *gid)
{
	if (ipv6_addr_v4mapped((const struct in6_addr *)gid)) {
		struct sockaddr_in *out_in = (struct sockaddr_in *)out;

		memset(out_in, 0, sizeof(*out_in));
		out_in->sin_family = AF_INET;
		memcpy(&out_in->sin_addr.s_addr, gid->raw + 12, 4);
	} else {
		struct sockaddr_in6 *out_in6 = (struct sockaddr_in6 *)out;

		memset(out_in6, 0, sizeof(*out_in6));
		out_in6->sin6_family = AF_INET6;
		memcpy(&out_in6->sin6_addr.s6_addr, gid->raw, 16);
	}
}

static inline void iboe_addr_get_sgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	const struct in_ifaddr *ifa;
	struct net_device *dev;
	struct in_device *ip4;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(dev_addr->net, dev_addr->bound_dev_if);
	ip4 = dev ? __in_dev_get_rcu(dev) : NULL;
	ifa = ip4 ? rcu_dereference(ip4->ifa_list) : NULL;
	if (ifa && ifa->ifa_address)
		ipv6_addr_set_v4mapped(ifa->ifa_address, (struct in6_addr *)gid);
	rcu_read_unlock();
}

static inline void rdma_addr_get_sgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid, dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr),
	       sizeof(*gid));
}

static inline void rdma_addr_set_sgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr), gid,
	       sizeof(*gid));
}

static inline void rdma_addr_get_dgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid, dev_addr->dst_dev_addr + rdma_addr_gid_offset(dev_addr),
	       sizeof(*gid));
}

static inline void rdma_addr_set_dgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(dev_addr->dst_dev_addr + rdma_addr_gid_offset(dev_addr), gid,
	       sizeof(*gid));
}

/* Largest IB MTU that fits in an Ethernet MTU after the RoCE headers. */
static inline enum ib_mtu iboe_get_mtu(int mtu)
{
	/*
	 * Worst-case RoCE overhead inside the Ethernet payload: GRH/IP (40),
	 * UDP (8), BTH (12), XRCETH (4), AtomicETH (28), ICRC (4).
	 */
	mtu -= 40 + 8 + 12 + 4 + 28 + 4;

	if (mtu >= ib_mtu_enum_to_int(IB_MTU_4096))
		return IB_MTU_4096;
	if (mtu >= ib_mtu_enum_to_int(IB_MTU_2048))
		return IB_MTU_2048;
	if (mtu >= ib_mtu_enum_to_int(IB_MTU_1024))
		return IB_MTU_1024;
	if (mtu >= ib_mtu_enum_to_int(IB_MTU_512))
		return IB_MTU_512;
	if (mtu >= ib_mtu_enum_to_int(IB_MTU_256))
		return IB_MTU_256;
	return 0;
}

static inline int iboe_get_rate(struct net_device *dev)
{
	struct ethtool_link_ksettings cmd;
	int err;

	rtnl_lock();
	err = __ethtool_get_link_ksettings(dev, &cmd);
	rtnl_unlock();
	if (err)
		return IB_RATE_PORT_CURRENT;

	if (cmd.base.speed >= 40000)
		return IB_RATE_40_GBPS;
	if (cmd.base.speed >= 30000)
		return IB_RATE_30_GBPS;
	if (cmd.base.speed >= 20000)
		return IB_RATE_20_GBPS;
	if (cmd.base.speed >= 10000)
		return IB_RATE_10_GBPS;
	return IB_RATE_PORT_CURRENT;
}

static inline int rdma_link_local_addr(struct in6_addr *addr)
{
	return addr->s6_addr32[0] == htonl(0xfe800000) &&
	       addr->s6_addr32[1] == 0;
}

/* fe80::/64 link-local GID with the modified EUI-64 of @mac. */
static inline void rdma_mac_to_ll_addr(u8 *mac, union ib_gid *gid)
{
	memset(gid->raw, 0, 16);
	*((__be32 *)gid->raw) = cpu_to_be32(0xfe800000);
	gid->raw[8] = mac[0] ^ 2;
	gid->raw[9] = mac[1];
	gid->raw[10] = mac[2];
	gid->raw[11] = 0xff;
	gid->raw[12] = 0xfe;
	gid->raw[13] = mac[3];
	gid->raw[14] = mac[4];
	gid->raw[15] = mac[5];
}

/* The MAC a link-local (EUI-64) IPv6 address was formed from. */
static inline void rdma_get_ll_mac(struct in6_addr *addr, u8 *mac)
{
	/* Bytes 8-10 and 13-15 of the address; undo the U/L bit flip. */
	mac[0] = addr->s6_addr[8] ^ 2;
	mac[1] = addr->s6_addr[9];
	mac[2] = addr->s6_addr[10];
	mac[3] = addr->s6_addr[13];
	mac[4] = addr->s6_addr[14];
	mac[5] = addr->s6_addr[15];
}

static inline int rdma_is_multicast_addr(struct in6_addr *addr)
{
	__be32 ipv4_addr;

	if (addr->s6_addr[0] == 0xff)
		return 1;

	ipv4_addr = addr->s6_addr32[3];
	return ipv6_addr_v4mapped(addr) && ipv4_is_multicast(ipv4_addr);
}

static inline void rdma_get_mcast_mac(struct in6_addr *addr, u8 *mac)
{
	int i;

	mac[0] = 0x33;
	mac[1] = 0x33;
	for (i = 2; i < 6; ++i)
		mac[i] = addr->s6_addr[i + 10];
}

static inline u16 rdma_get_vlan_id(union ib_gid *dgid)
{
	u16 vid;

	vid = dgid->raw[11] << 8 | dgid->raw[12];
	return vid < 0x1000 ? vid : 0xffff;
}

#endif /* RDMA_KMOD_IB_ADDR_H */
