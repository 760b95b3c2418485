// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe and its netdev: the port follows the netdev's admin state and
 * carrier, its MTU follows the netdev MTU, and the device goes away when
 * the netdev is unregistered. Packets: RoCE v2 in UDP port 4791 over IPv4
 * and IPv6, received through UDP tunnel sockets and sent with
 * ip_local_out()/ip6_local_out(); RoCE v1 frames (rxe_roce_v1.c); either
 * looped back when the destination is a local rxe device.
 */
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rxe.h"

/*
 * Bytes of RoCE v2 framing inside an Ethernet payload: IPv6-sized network
 * header, UDP, BTH, the largest extended header and the ICRC.
 */
#define RXE_ROCE_OVERHEAD	(40 + 8 + 12 + 28 + 4 + 4)

void rxe_set_mtu(struct rxe_dev *rxe, unsigned int ndev_mtu)
{
	enum ib_mtu mtu = IB_MTU_256;

	if (rxe->sib) {
		sib_set_mtu(rxe, ndev_mtu);
		return;
	}
	if (ndev_mtu > RXE_ROCE_OVERHEAD)
		mtu = ib_mtu_int_to_enum(ndev_mtu - RXE_ROCE_OVERHEAD);
	rxe->port.attr.active_mtu = min_t(enum ib_mtu, mtu, RXE_PORT_MAX_MTU);
}

static void rxe_port_event(struct rxe_dev *rxe, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &rxe->ib_dev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

static void rxe_port_set(struct rxe_dev *rxe, bool up)
{
	struct rxe_port *port = &rxe->port;
	enum ib_port_state old;

	spin_lock_bh(&port->lock);
	old = port->attr.state;
	port->attr.state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	port->attr.phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				     IB_PORT_PHYS_STATE_DISABLED;
	spin_unlock_bh(&port->lock);

	if (old != port->attr.state)
		rxe_port_event(rxe, up ? IB_EVENT_PORT_ACTIVE :
					 IB_EVENT_PORT_ERR);
}

void rxe_port_up(struct rxe_dev *rxe)
{
	rxe_port_set(rxe, true);
}

void rxe_port_down(struct rxe_dev *rxe)
{
	rxe_port_set(rxe, false);
}

void rxe_set_port_state(struct rxe_dev *rxe)
{
	if (rxe->sib) {
		sib_set_port_state(rxe);
		return;
	}
	rxe_port_set(rxe, netif_running(rxe->ndev) &&
			  netif_carrier_ok(rxe->ndev));
}

/* Runs with RTNL held: nothing here may wait for an ib_device to go away. */
static int rxe_notify(struct notifier_block *nb, unsigned long event,
		      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct ib_device *ibdev;
	struct rxe_dev *rxe;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NOTIFY_OK;
	rxe = to_rdev(ibdev);

	switch (event) {
	case NETDEV_UNREGISTER:
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		rxe_set_port_state(rxe);
		break;
	case NETDEV_CHANGEMTU:
		rxe_set_mtu(rxe, ndev->mtu);
		break;
	default:
		break;
	}

	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block rxe_net_notifier = {
	.notifier_call = rxe_notify,
};

/* ---- finding our device for a netdev, from any context ---- */

/*
 * ib_device_get_by_netdev() may sleep and the receive path may not, so
 * rxe keeps its own RCU list of registered rxe devices, maintained by an
 * ib_client (add runs at registration, remove at unregistration).
 */
struct rxe_net_dev {
	struct list_head list;
	struct rxe_dev *rxe;
	struct net_device *ndev;
	struct packet_type v1_pt;	/* RoCE v1 receive on ndev */
	/* a sib device: not a RoCE endpoint, so not on rxe_net_devs */
	bool ib;
};

static LIST_HEAD(rxe_net_devs);
static DEFINE_SPINLOCK(rxe_net_devs_lock);	/* writers of rxe_net_devs */

static int rxe_net_add_one(struct ib_device *ibdev);
static void rxe_net_remove_one(struct ib_device *ibdev, void *client_data);

static struct ib_client rxe_net_client = {
	.name = "rxe_net",
	.add = rxe_net_add_one,
	.remove = rxe_net_remove_one,
};

static int rxe_net_add_one(struct ib_device *ibdev)
{
	struct rxe_net_dev *e;

	if (ibdev->ops.driver_id != RDMA_DRIVER_RXE)
		return -EOPNOTSUPP;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->rxe = to_rdev(ibdev);
	e->ndev = e->rxe->ndev;
	ib_set_client_data(ibdev, &rxe_net_client, e);

	if (e->rxe->sib) {
		e->ib = true;
		sib_rx_start(e->rxe);
		return 0;
	}

	spin_lock_bh(&rxe_net_devs_lock);
	list_add_tail_rcu(&e->list, &rxe_net_devs);
	spin_unlock_bh(&rxe_net_devs_lock);
	/* after the list insertion: the handler finds the device there */
	rxe_v1_pt_init(&e->v1_pt, e->ndev);
	dev_add_pack(&e->v1_pt);
	return 0;
}

static void rxe_net_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct rxe_net_dev *e = client_data;

	if (e->ib) {
		sib_rx_stop(e->rxe);
		kfree(e);
		return;
	}
	/* waits for running handlers (synchronize_net) */
	dev_remove_pack(&e->v1_pt);
	spin_lock_bh(&rxe_net_devs_lock);
	list_del_rcu(&e->list);
	spin_unlock_bh(&rxe_net_devs_lock);
	/* Lookups that found it have taken their reference by now. */
	synchronize_rcu();
	kfree(e);
}

/* The first registered rxe device @match accepts, referenced. */
static struct rxe_dev *rxe_net_find(bool (*match)(struct rxe_net_dev *e,
						  const void *arg),
				    const void *arg)
{
	struct rxe_dev *rxe = NULL;
	struct rxe_net_dev *e;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &rxe_net_devs, list) {
		if (!match(e, arg))
			continue;
		if (ib_device_try_get(&e->rxe->ib_dev))
			rxe = e->rxe;
		break;
	}
	rcu_read_unlock();
	return rxe;
}

static bool rxe_net_match_ndev(struct rxe_net_dev *e, const void *ndev)
{
	return e->ndev == ndev;
}

/* The rxe device on @ndev (or on the VLAN's real device), referenced. */
struct rxe_dev *rxe_net_get_dev(struct net_device *ndev)
{
	if (is_vlan_dev(ndev))
		ndev = vlan_dev_real_dev(ndev);
	return rxe_net_find(rxe_net_match_ndev, ndev);
}

static bool rxe_has_gid(struct rxe_dev *rxe, const union ib_gid *gid,
			enum ib_gid_type type)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&rxe->ib_dev, gid, type, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

/* Only RoCE v1 needs a lookup by GID: its frames carry no IP address. */
static bool rxe_net_match_v1_gid(struct rxe_net_dev *e, const void *gid)
{
	return rxe_has_gid(e->rxe, gid, IB_GID_TYPE_ROCE);
}

/*
 * The local rxe device that has @gid as a RoCE v1 GID, referenced: @self
 * if it has it (link-local GIDs may repeat across devices), else the first.
 */
struct rxe_dev *rxe_net_v1_gid_owner(const union ib_gid *gid,
				     struct rxe_dev *self)
{
	if (rxe_has_gid(self, gid, IB_GID_TYPE_ROCE) &&
	    ib_device_try_get(&self->ib_dev))
		return self;
	return rxe_net_find(rxe_net_match_v1_gid, gid);
}

/* ---- receive: UDP tunnel sockets on port 4791 ---- */

static struct socket *rxe_sock4;
static struct socket *rxe_sock6;	/* NULL without IPv6 */

/* Softirq context; skb->data is at the UDP header. Always consumes. */
static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct rxe_pkt_info *pkt = SKB_TO_PKT(skb);
	struct udphdr *udph;
	struct rxe_dev *rxe;
	unsigned int ulen;

	rxe = rxe_net_get_dev(skb->dev);
	if (!rxe)
		goto drop;

	/* Header accessors and payload copies need linear data. */
	if (skb_linearize(skb))
		goto drop_put;
	udph = udp_hdr(skb);
	ulen = ntohs(udph->len);
	if (ulen < sizeof(*udph) + RXE_BTH_BYTES + RXE_ICRC_SIZE ||
	    (u8 *)udph + ulen > skb_tail_pointer(skb) ||
	    skb->data > (u8 *)(udph + 1)) {
		rxe_rx_drop_inc(rxe, RXE_DROP_LENGTH);
		goto drop_put;
	}
	/* From here on skb->data is the BTH, as on loopback. */
	__skb_pull(skb, (u8 *)(udph + 1) - skb->data);

	memset(pkt, 0, sizeof(*pkt));
	pkt->rxe = rxe;
	pkt->hdr = skb->data;
	pkt->mask = RXE_GRH_MASK;
	pkt->paylen = ulen - sizeof(*udph);
	pkt->port_num = 1;

	rxe_rcv(skb);
	/* Queued packets keep the device alive through their QP. */
	ib_device_put(&rxe->ib_dev);
	return 0;

drop_put:
	ib_device_put(&rxe->ib_dev);
drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *rxe_setup_udp_tunnel(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = rxe_udp_encap_recv,
	};
	/*
	 * All checksum options stay off: peers (rxe included) send a zero UDP
	 * checksum, also over IPv6; the ICRC protects the packet.
	 */
	struct udp_port_cfg cfg = {
		.family = ipv6 ? AF_INET6 : AF_INET,
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
		.ipv6_v6only = ipv6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);

	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

/* ---- loopback: to an rxe device of this host ---- */

/*
 * Looped-back packets are received from a tasklet, never from the
 * sender's call chain (the requester or responder may hold QP state).
 */
#define RXE_LOOP_QLEN_MAX	4096
#define RXE_LOOP_BUDGET		64

static struct sk_buff_head rxe_loop_q;

static void rxe_loop_run(struct tasklet_struct *t)
{
	struct sk_buff *skb;
	struct rxe_dev *rxe;
	int budget = RXE_LOOP_BUDGET;

	while (budget-- > 0 && (skb = skb_dequeue(&rxe_loop_q))) {
		rxe = SKB_TO_PKT(skb)->rxe;
		rxe_rcv(skb);
		ib_device_put(&rxe->ib_dev);
	}
	if (!skb_queue_empty(&rxe_loop_q))
		tasklet_schedule(t);
}

static DECLARE_TASKLET(rxe_loop_tasklet, rxe_loop_run);

/* The rxe device that owns the packet's destination address, referenced. */
static struct rxe_dev *rxe_loop_target(struct sk_buff *skb,
				       struct rxe_dev *self)
{
	struct net *net = dev_net(self->ndev);
	struct net_device *owner;
	struct rxe_dev *rxe = NULL;

	/* sib_prepare() loops back only what is addressed to our own LIDs */
	if (skb->protocol == htons(ETH_P_SIB))
		return ib_device_try_get(&self->ib_dev) ? self : NULL;
	if (skb->protocol == htons(ETH_P_IBOE)) {
		const struct ib_grh *grh = (void *)skb_network_header(skb);

		return rxe_net_v1_gid_owner(&grh->dgid, self);
	}

	rcu_read_lock();
	if (skb->protocol == htons(ETH_P_IP)) {
		owner = __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	} else {
		const struct in6_addr *daddr = &ipv6_hdr(skb)->daddr;

		/* link-local addresses may repeat: prefer our own netdev */
		if (ipv6_chk_addr(net, daddr, self->ndev, 0))
			owner = self->ndev;
		else
			owner = ipv6_dev_find(net, daddr, NULL);
	}
	if (owner)
		rxe = rxe_net_get_dev(owner);
	rcu_read_unlock();
	return rxe;
}

int rxe_loop_deliver(struct sk_buff *skb, struct rxe_pkt_info *pkt,
		     struct rxe_dev *target)
{
	struct rxe_pkt_info *rpkt = SKB_TO_PKT(skb);
	u8 *hdr = pkt->hdr;

	if (skb_queue_len(&rxe_loop_q) >= RXE_LOOP_QLEN_MAX) {
		ib_device_put(&target->ib_dev);
		kfree_skb(skb);
		return -EAGAIN;
	}

	if (rpkt != pkt)
		memcpy(rpkt, pkt, sizeof(*rpkt));
	rpkt->rxe = target;
	rpkt->qp = NULL;
	rpkt->mask = RXE_GRH_MASK | RXE_LOOPBACK_MASK;
	rpkt->port_num = 1;

	skb_dst_drop(skb);
	skb->dev = target->ndev;
	skb->pkt_type = PACKET_HOST;
	__skb_pull(skb, hdr - skb->data);

	skb_queue_tail(&rxe_loop_q, skb);
	tasklet_schedule(&rxe_loop_tasklet);
	return 0;
}

static int rxe_loopback(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	struct rxe_dev *target;

	target = rxe_loop_target(skb, pkt->rxe);
	if (!target) {
		/* no RoCE endpoint there: lost, as it would be on a wire */
		kfree_skb(skb);
		return 0;
	}
	return rxe_loop_deliver(skb, pkt, target);
}

/* ---- transmit ---- */

/* UDP source port when a packet has no QP (the QP's is per flow). */
#define RXE_NET_DEFAULT_SPORT	0xc000

struct sk_buff *rxe_init_packet(struct rxe_dev *rxe, struct rxe_av *av,
				int paylen, struct rxe_pkt_info *pkt)
{
	struct net_device *ndev = rxe->ndev;
	unsigned int hdr_len = sizeof(struct udphdr);
	unsigned int tail_len = 0;
	struct sk_buff *skb;
	__be16 proto;

	switch (av->network_type) {
	case RXE_NETWORK_TYPE_IPV4:
		hdr_len += sizeof(struct iphdr);
		proto = htons(ETH_P_IP);
		break;
	case RXE_NETWORK_TYPE_IPV6:
		hdr_len += sizeof(struct ipv6hdr);
		proto = htons(ETH_P_IPV6);
		break;
	case RXE_NETWORK_TYPE_ROCE_V1:
		hdr_len = RXE_GRH_BYTES;
		proto = htons(ETH_P_IBOE);
		break;
	case RXE_NETWORK_TYPE_IB:
		hdr_len = sib_headroom(av);
		tail_len = SIB_VCRC_SIZE;
		proto = htons(ETH_P_SIB);
		break;
	default:
		return NULL;
	}
	if (paylen < (int)(RXE_BTH_BYTES + RXE_ICRC_SIZE) ||
	    paylen > U16_MAX - (int)hdr_len)
		return NULL;

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + hdr_len + paylen +
			tail_len + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev) + hdr_len);
	skb->dev = ndev;
	skb->protocol = proto;

	pkt->rxe = rxe;
	pkt->port_num = 1;
	pkt->hdr = skb_put_zero(skb, paylen);
	pkt->paylen = paylen;
	pkt->mask |= RXE_GRH_MASK;
	return skb;
}

static void rxe_push_udp(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	struct udphdr *udph;

	__skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph = udp_hdr(skb);
	udph->source = htons(pkt->qp ? pkt->qp->src_port :
			     RXE_NET_DEFAULT_SPORT);
	udph->dest = htons(ROCE_V2_UDP_DPORT);
	udph->len = htons(skb->len);
	/* zero, as every rxe sends it: the ICRC covers the packet */
	udph->check = 0;
}

/*
 * The interface to route through: the one holding the source address if
 * that is the rxe netdev or a VLAN on it (GIDs of VLAN addresses), else
 * the rxe netdev itself.
 */
static int rxe_out_ifindex(struct net_device *ndev, struct net_device *owner)
{
	if (owner && is_vlan_dev(owner) && vlan_dev_real_dev(owner) == ndev)
		return owner->ifindex;
	return ndev->ifindex;
}

static int rxe_out_ifindex4(struct net_device *ndev, __be32 saddr)
{
	int ifindex;

	rcu_read_lock();
	ifindex = rxe_out_ifindex(ndev, __ip_dev_find(dev_net(ndev), saddr,
						      false));
	rcu_read_unlock();
	return ifindex;
}

static int rxe_out_ifindex6(struct net_device *ndev,
			    const struct in6_addr *saddr)
{
	int ifindex;

	if (ipv6_chk_addr(dev_net(ndev), saddr, ndev, 0))
		return ndev->ifindex;
	rcu_read_lock();
	ifindex = rxe_out_ifindex(ndev, ipv6_dev_find(dev_net(ndev), saddr,
						      NULL));
	rcu_read_unlock();
	return ifindex;
}

static int rxe_prepare4(struct rxe_av *av, struct rxe_pkt_info *pkt,
			struct sk_buff *skb)
{
	struct net_device *ndev = pkt->rxe->ndev;
	struct net *net = dev_net(ndev);
	struct rtable *rt = NULL;
	struct flowi4 fl = {
		.flowi4_oif = rxe_out_ifindex4(ndev,
				av->sgid_addr._sockaddr_in.sin_addr.s_addr),
		.flowi4_proto = IPPROTO_UDP,
		.saddr = av->sgid_addr._sockaddr_in.sin_addr.s_addr,
		.daddr = av->dgid_addr._sockaddr_in.sin_addr.s_addr,
	};
	struct iphdr *iph;
	bool local;
	u8 ttl;

	rcu_read_lock();
	local = __ip_dev_find(net, fl.daddr, false);
	rcu_read_unlock();

	if (local) {
		ttl = READ_ONCE(net->ipv4.sysctl_ip_default_ttl);
	} else {
		rt = ip_route_output_key(net, &fl);
		if (IS_ERR(rt))
			return -EHOSTUNREACH;
		ttl = ip4_dst_hoplimit(&rt->dst);
	}
	if (av->grh.hop_limit)
		ttl = av->grh.hop_limit;

	rxe_push_udp(skb, pkt);
	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = av->grh.traffic_class;
	iph->tot_len = htons(skb->len);
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl.saddr;
	iph->daddr = fl.daddr;
	skb->protocol = htons(ETH_P_IP);

	if (local) {
		pkt->mask |= RXE_LOOPBACK_MASK;
	} else {
		skb_dst_set(skb, &rt->dst);
		ip_select_ident(net, skb, NULL);
	}
	ip_send_check(iph);
	return 0;
}

static int rxe_prepare6(struct rxe_av *av, struct rxe_pkt_info *pkt,
			struct sk_buff *skb)
{
	struct net_device *ndev = pkt->rxe->ndev;
	struct net *net = dev_net(ndev);
	struct dst_entry *dst = NULL;
	struct flowi6 fl6 = {
		.flowi6_oif = rxe_out_ifindex6(ndev,
				&av->sgid_addr._sockaddr_in6.sin6_addr),
		.flowi6_proto = IPPROTO_UDP,
		.saddr = av->sgid_addr._sockaddr_in6.sin6_addr,
		.daddr = av->dgid_addr._sockaddr_in6.sin6_addr,
	};
	struct ipv6hdr *ip6h;
	bool local;
	u8 hop_limit;

	local = ipv6_chk_addr(net, &fl6.daddr, NULL, 0);
	if (local) {
		hop_limit = IPV6_DEFAULT_HOPLIMIT;
	} else {
		dst = ipv6_stub->ipv6_dst_lookup_flow(net,
				rxe_sock6 ? rxe_sock6->sk : NULL, &fl6, NULL);
		if (IS_ERR(dst))
			return -EHOSTUNREACH;
		hop_limit = ip6_dst_hoplimit(dst);
	}
	if (av->grh.hop_limit)
		hop_limit = av->grh.hop_limit;

	rxe_push_udp(skb, pkt);
	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->grh.traffic_class,
		     htonl(av->grh.flow_label) & IPV6_FLOWLABEL_MASK);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = hop_limit;
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;
	skb->protocol = htons(ETH_P_IPV6);

	if (local)
		pkt->mask |= RXE_LOOPBACK_MASK;
	else
		skb_dst_set(skb, dst);
	return 0;
}

int rxe_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		struct sk_buff *skb)
{
	int err;

	/* headers go in front of the BTH that rxe_init_packet() set up */
	if (WARN_ON_ONCE(skb->data != pkt->hdr))
		return -EINVAL;

	pkt->mask &= ~RXE_LOOPBACK_MASK;
	switch (av->network_type) {
	case RXE_NETWORK_TYPE_IPV4:
		err = rxe_prepare4(av, pkt, skb);
		break;
	case RXE_NETWORK_TYPE_IPV6:
		err = rxe_prepare6(av, pkt, skb);
		break;
	case RXE_NETWORK_TYPE_ROCE_V1:
		err = rxe_prepare_v1(av, pkt, skb);
		break;
	case RXE_NETWORK_TYPE_IB:
		/* LRH and VCRC: its own ICRC variant */
		return sib_prepare(av, pkt, skb);
	default:
		err = -EINVAL;
		break;
	}
	if (err)
		return err;

	rxe_icrc_generate(skb, pkt);
	return 0;
}

static int rxe_send(struct sk_buff *skb, struct rxe_pkt_info *pkt)
{
	struct net *net = dev_net(pkt->rxe->ndev);
	int err;

	if (skb->protocol == htons(ETH_P_IBOE))
		return rxe_send_v1(skb, pkt);
	if (skb->protocol == htons(ETH_P_SIB))
		return sib_send(skb, pkt);

	/* the IP layer keeps its own control block in skb->cb */
	memset(skb->cb, 0, sizeof(skb->cb));
	if (skb->protocol == htons(ETH_P_IP))
		err = ip_local_out(net, NULL, skb);
	else
		err = ip6_local_out(net, NULL, skb);

	return net_xmit_eval(err) ? -EAGAIN : 0;
}

/*
 * Runs when a sent skb is freed (after the NIC took it, or when a
 * looped-back request was consumed): the QP may send more.
 */
static void rxe_skb_tx_dtor(struct sk_buff *skb)
{
	struct rxe_qp *qp = skb_shinfo(skb)->destructor_arg;
	int out = atomic_dec_return(&qp->skb_out);

	if (unlikely(out < RXE_INFLIGHT_SKBS_PER_QP_LOW)) {
		if (READ_ONCE(qp->need_req_skb) && xchg(&qp->need_req_skb, 0))
			rxe_sched_task(&qp->req.task);
		if (READ_ONCE(qp->need_resp_skb) && xchg(&qp->need_resp_skb, 0))
			rxe_sched_task(&qp->resp.task);
	}
	rxe_put(qp);
}

/*
 * Must the caller stop sending for now? If so *need_skb is set and the
 * destructor of one of the skbs in flight (at least LOW of them) will
 * reschedule the caller's task.
 */
bool rxe_xmit_throttled(struct rxe_qp *qp, int *need_skb)
{
	if (atomic_read(&qp->skb_out) < RXE_INFLIGHT_SKBS_PER_QP_HIGH)
		return false;
	WRITE_ONCE(*need_skb, 1);
	/* Pairs with atomic_dec_return() in the destructor. */
	smp_mb();
	if (atomic_read(&qp->skb_out) >= RXE_INFLIGHT_SKBS_PER_QP_LOW)
		return true;
	/* They all went meanwhile: nobody would wake us. */
	WRITE_ONCE(*need_skb, 0);
	return false;
}

int rxe_xmit_packet(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
		    struct sk_buff *skb)
{
	struct rxe_dev *rxe = pkt->rxe;
	bool v1 = skb->protocol == htons(ETH_P_IBOE);
	int err;

	/* a destroyed QP sends nothing more */
	if (unlikely(qp && !READ_ONCE(qp->valid))) {
		kfree_skb(skb);
		return 0;
	}

	/*
	 * Count the skb against the QP until it is freed. Our own skbs never
	 * carry zero-copy state, so destructor_arg is free to hold the QP,
	 * which the skb keeps a reference on.
	 */
	if (qp && rxe_get(qp)) {
		atomic_inc(&qp->skb_out);
		skb_shinfo(skb)->destructor_arg = qp;
		skb->destructor = rxe_skb_tx_dtor;
	}

	if (pkt->mask & RXE_LOOPBACK_MASK)
		err = rxe_loopback(skb, pkt);
	else
		err = rxe_send(skb, pkt);

	if (err) {
		rxe_counter_inc(rxe, RXE_CNT_SEND_ERR);
		return err;
	}
	rxe_counter_inc(rxe, RXE_CNT_SENT_PKTS);
	if (v1)
		rxe_counter_inc(rxe, RXE_CNT_SENT_PKTS_V1);
	return 0;
}

/* ---- module init/exit ---- */

int rxe_net_init(void)
{
	int err;

#ifdef DEBUG
	err = rxe_icrc_selftest();
	if (err)
		return err;
#endif
	skb_queue_head_init(&rxe_loop_q);

	rxe_sock4 = rxe_setup_udp_tunnel(&init_net, false);
	if (IS_ERR(rxe_sock4)) {
		err = PTR_ERR(rxe_sock4);
		pr_err("rdma_rxe: cannot listen on UDP port %d (IPv4): %d\n",
		       ROCE_V2_UDP_DPORT, err);
		goto err_out;
	}
	rxe_sock6 = rxe_setup_udp_tunnel(&init_net, true);
	if (IS_ERR(rxe_sock6)) {
		err = PTR_ERR(rxe_sock6);
		rxe_sock6 = NULL;
		if (err != -EAFNOSUPPORT) {
			pr_err("rdma_rxe: cannot listen on UDP port %d (IPv6): %d\n",
			       ROCE_V2_UDP_DPORT, err);
			goto err_sock4;
		}
		pr_warn("rdma_rxe: IPv6 unavailable, RoCE over IPv4 only\n");
	}

	err = ib_register_client(&rxe_net_client);
	if (err)
		goto err_sock6;

	err = register_netdevice_notifier(&rxe_net_notifier);
	if (err)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&rxe_net_client);
err_sock6:
	if (rxe_sock6)
		udp_tunnel_sock_release(rxe_sock6);
err_sock4:
	udp_tunnel_sock_release(rxe_sock4);
err_out:
	rxe_sock4 = NULL;
	rxe_sock6 = NULL;
	return err;
}

/* After ib_unregister_driver(): no rxe device is left. */
void rxe_net_exit(void)
{
	struct sk_buff *skb;

	unregister_netdevice_notifier(&rxe_net_notifier);
	ib_unregister_client(&rxe_net_client);

	if (rxe_sock6)
		udp_tunnel_sock_release(rxe_sock6);
	udp_tunnel_sock_release(rxe_sock4);
	rxe_sock4 = NULL;
	rxe_sock6 = NULL;
	/* let encap_rcv calls already running in softirqs finish */
	synchronize_rcu();

	tasklet_kill(&rxe_loop_tasklet);
	while ((skb = skb_dequeue(&rxe_loop_q))) {
		ib_device_put(&SKB_TO_PKT(skb)->rxe->ib_dev);
		kfree_skb(skb);
	}
}
