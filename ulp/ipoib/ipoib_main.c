// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_ipoib: the module, the ib_client that puts an "ibN" on every
 * InfiniBand port, and the net_device side of an interface (its ops,
 * header ops and ethtool ops). The IB resources of an interface live
 * from ndo_init to ndo_uninit, so parents, sysfs children and rtnl
 * children share one life cycle.
 */
#include <linux/module.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/log2.h>
#include <linux/rtnetlink.h>
#include <net/rtnetlink.h>
#include <asm/unaligned.h>
#include "ipoib.h"

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("IP-over-InfiniBand net driver (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RTNL_LINK("ipoib");

/* The parameters of the in-tree module, with its names, types and modes. */
static int ipoib_max_nonsrq_conn_qp = 128;
module_param_named(max_nonsrq_conn_qp, ipoib_max_nonsrq_conn_qp, int, 0444);
MODULE_PARM_DESC(max_nonsrq_conn_qp,
		 "Max number of connected-mode QPs per interface (applied only if shared receive queue is not available)");
int ipoib_mc_debug_level;
module_param_named(mcast_debug_level, ipoib_mc_debug_level, int, 0644);
MODULE_PARM_DESC(mcast_debug_level,
		 "Enable multicast debug tracing if > 0");
int ipoib_sendq_size = 128;
int ipoib_recvq_size = 256;
module_param_named(send_queue_size, ipoib_sendq_size, int, 0444);
MODULE_PARM_DESC(send_queue_size, "Number of descriptors in send queue");
module_param_named(recv_queue_size, ipoib_recvq_size, int, 0444);
MODULE_PARM_DESC(recv_queue_size, "Number of descriptors in receive queue");
int ipoib_debug_level;
module_param_named(debug_level, ipoib_debug_level, int, 0644);
MODULE_PARM_DESC(debug_level, "Enable debug tracing if > 0");

struct ib_sa_client ipoib_sa_client;

/* ------------------------------------------------------------ header ops */

/*
 * The wire header, then in front of it the destination's hardware address
 * for ipoib_xmit() to find (it strips it before posting).
 */
static int ipoib_hard_header(struct sk_buff *skb, struct net_device *dev,
			     unsigned short type, const void *daddr,
			     const void *saddr, unsigned int len)
{
	struct ipoib_wire_hdr *wire = skb_push(skb, IPOIB_WIRE_LEN);
	u8 *dest;

	wire->proto = htons(type);
	wire->reserved = 0;
	dest = skb_push(skb, IPOIB_DEST_LEN);
	if (!daddr) {
		memset(dest, 0, IPOIB_DEST_LEN);
		return -(int)IPOIB_HARD_LEN;
	}
	memcpy(dest, daddr, IPOIB_DEST_LEN);
	return IPOIB_HARD_LEN;
}

/*
 * The sender's address, for packet sockets (sll_addr): a received packet
 * carries it in its link header; one we send carries the destination's
 * there, its sender is us.
 */
static int ipoib_header_parse(const struct sk_buff *skb, unsigned char *haddr)
{
	if (skb->pkt_type == PACKET_OUTGOING)
		memcpy(haddr, skb->dev->dev_addr, INFINIBAND_ALEN);
	else
		memcpy(haddr, skb_mac_header(skb), INFINIBAND_ALEN);
	return INFINIBAND_ALEN;
}

/* A raw packet socket's frame: the EtherType of its wire header. */
static __be16 ipoib_header_parse_protocol(const struct sk_buff *skb)
{
	const struct ipoib_wire_hdr *wire;

	wire = (const void *)(skb_mac_header(skb) + IPOIB_DEST_LEN);
	return wire->proto;
}

static const struct header_ops ipoib_header_ops = {
	.create		= ipoib_hard_header,
	.parse		= ipoib_header_parse,
	.parse_protocol	= ipoib_header_parse_protocol,
};

/* ------------------------------------------------------------ netdev ops */

static int ipoib_ndo_init(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);
	u8 addr[INFINIBAND_ALEN];
	int ret;

	priv->wq = alloc_ordered_workqueue("ipoib_%s", WQ_MEM_RECLAIM,
					   dev->name);
	if (!priv->wq)
		return -ENOMEM;
	ret = ipoib_rings_alloc(priv);
	if (ret)
		goto free_wq;
	ret = ipoib_verbs_create(priv);
	if (ret)
		goto free_rings;
	ret = rdma_query_gid(priv->ca, priv->port, 0, &priv->gid);
	if (ret)
		goto free_verbs;

	/* Flags (RC: connected mode offered), UD QPN, port GID. */
	ipoib_cm_init(priv);
	addr[0] = priv->cm.supported ? IPOIB_HWADDR_RC : 0;
	addr[1] = priv->qp->qp_num >> 16;
	addr[2] = priv->qp->qp_num >> 8;
	addr[3] = priv->qp->qp_num;
	memcpy(addr + 4, priv->gid.raw, sizeof(priv->gid.raw));
	dev_addr_set(dev, addr);

	netif_napi_add(dev, &priv->napi, ipoib_poll);
	atomic_set(&priv->queries, 1);
	init_completion(&priv->queries_done);
	INIT_IB_EVENT_HANDLER(&priv->events, priv->ca, ipoib_event);
	ib_register_event_handler(&priv->events);
	ipoib_child_link(priv);
	netif_carrier_off(dev);
	return 0;

free_verbs:
	ipoib_verbs_destroy(priv);
free_rings:
	ipoib_rings_free(priv);
free_wq:
	destroy_workqueue(priv->wq);
	priv->wq = NULL;
	return ret;
}

static void ipoib_ndo_uninit(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	ib_unregister_event_handler(&priv->events);
	cancel_work_sync(&priv->flush_work);
	mutex_lock(&priv->op_mutex);
	priv->admin_up = false;
	ipoib_ib_down(priv);
	mutex_unlock(&priv->op_mutex);
	/*
	 * Only now: the multicast work (stopped above) queues it. Left for
	 * destroy_workqueue(), it would requeue itself forever as we hold
	 * the rtnl it tries to take.
	 */
	cancel_delayed_work_sync(&priv->mtu_work);
	/* No path answer may touch us after this. */
	ipoib_queries_wait(priv);
	ipoib_child_unlink(priv);
	ipoib_cm_cleanup(priv);
	netif_napi_del(&priv->napi);
	destroy_workqueue(priv->wq);
	priv->wq = NULL;
	ipoib_verbs_destroy(priv);
	ipoib_rings_free(priv);
}

static int ipoib_open(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);
	int ret;

	mutex_lock(&priv->op_mutex);
	priv->admin_up = true;
	ret = ipoib_ib_up(priv);
	if (ret)
		priv->admin_up = false;
	mutex_unlock(&priv->op_mutex);
	if (!ret)
		netif_start_queue(dev);
	return ret;
}

static int ipoib_stop(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	mutex_lock(&priv->op_mutex);
	priv->admin_up = false;
	ipoib_ib_down(priv);
	mutex_unlock(&priv->op_mutex);
	netif_carrier_off(dev);
	return 0;
}

static netdev_tx_t ipoib_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);
	union ib_gid gid;
	u32 dqpn;

	if (unlikely(skb->len < IPOIB_HARD_LEN || !READ_ONCE(priv->tx_open))) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	/* The destination our header_ops put in front. */
	dqpn = get_unaligned_be32(skb->data) & IPOIB_MC_QPN;
	memcpy(gid.raw, skb->data + 4, sizeof(gid.raw));
	if (dqpn == IPOIB_MC_QPN)
		return ipoib_mc_xmit(priv, skb, &gid);
	return ipoib_path_xmit(priv, skb, &gid, dqpn);
}

static void ipoib_set_rx_mode(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	/* Atomic context: the multicast work compares the lists. */
	if (priv->wq)
		ipoib_mc_kick(priv);
}

/*
 * The MTU is what the user asked, but no more than the broadcast group
 * carries; the MTU work re-applies it once the group is known.
 */
static int ipoib_change_mtu(struct net_device *dev, int new_mtu)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	if (!priv->group_mtu_set)
		priv->admin_mtu = new_mtu;
	if (priv->cm.connected)
		return ipoib_cm_change_mtu(priv, new_mtu);
	WRITE_ONCE(dev->mtu, min_t(unsigned int, new_mtu, priv->mcast_mtu));
	return 0;
}

static int ipoib_get_iflink(const struct net_device *dev)
{
	const struct ipoib_priv *priv = ipoib_priv(dev);

	return priv->parent ? priv->parent->dev->ifindex : dev->ifindex;
}

static const struct net_device_ops ipoib_netdev_ops = {
	.ndo_init		= ipoib_ndo_init,
	.ndo_uninit		= ipoib_ndo_uninit,
	.ndo_open		= ipoib_open,
	.ndo_stop		= ipoib_stop,
	.ndo_start_xmit		= ipoib_xmit,
	.ndo_set_rx_mode	= ipoib_set_rx_mode,
	.ndo_change_mtu		= ipoib_change_mtu,
	.ndo_get_iflink		= ipoib_get_iflink,
	.ndo_neigh_destroy	= ipoib_cm_neigh_gone,
};

bool ipoib_is_ipoib_dev(const struct net_device *dev)
{
	return dev->netdev_ops == &ipoib_netdev_ops;
}

/* ------------------------------------------------------------ ethtool */

static void ipoib_get_drvinfo(struct net_device *dev,
			      struct ethtool_drvinfo *info)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	strscpy(info->driver, IPOIB_DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(&priv->ca->dev),
		sizeof(info->bus_info));
}

static const struct ethtool_ops ipoib_ethtool_ops = {
	.get_drvinfo	= ipoib_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

/* ------------------------------------------------------------ setup */

/* alloc_netdev()'s setup, also rtnl's for "ip link add ... type ipoib". */
void ipoib_netdev_setup(struct net_device *dev)
{
	struct ipoib_priv *priv = ipoib_priv(dev);

	priv->dev = dev;
	INIT_LIST_HEAD(&priv->children);
	INIT_LIST_HEAD(&priv->child_entry);
	INIT_LIST_HEAD(&priv->groups);
	hash_init(priv->paths);
	spin_lock_init(&priv->lock);
	spin_lock_init(&priv->tx_lock);
	mutex_init(&priv->op_mutex);
	INIT_DELAYED_WORK(&priv->mc_work, ipoib_mc_work);
	INIT_WORK(&priv->path_work, ipoib_path_work);
	INIT_WORK(&priv->flush_work, ipoib_flush_work);
	INIT_DELAYED_WORK(&priv->mtu_work, ipoib_mtu_work);
	priv->mc_stopped = true;

	dev->netdev_ops = &ipoib_netdev_ops;
	dev->header_ops = &ipoib_header_ops;
	dev->ethtool_ops = &ipoib_ethtool_ops;
	dev->rtnl_link_ops = &ipoib_link_ops;
	dev->type = ARPHRD_INFINIBAND;
	dev->addr_len = INFINIBAND_ALEN;
	dev->hard_header_len = IPOIB_HARD_LEN;
	dev->flags = IFF_BROADCAST | IFF_MULTICAST;
	dev->features = NETIF_F_VLAN_CHALLENGED | NETIF_F_HIGHDMA;
	dev->tx_queue_len = 2 * ipoib_sendq_size;
	dev->min_mtu = 68;
	dev->needs_free_netdev = true;
}

/*
 * Ties a fresh netdev to @ca/@port with @pkey (the full-member bit is
 * forced). Called before registration.
 */
int ipoib_priv_prepare(struct ipoib_priv *priv, struct ib_device *ca,
		       u32 port, u16 pkey, struct ipoib_priv *parent)
{
	struct net_device *dev = priv->dev;
	struct ib_port_attr attr;
	int mtu, ret;

	ret = ib_query_port(ca, port, &attr);
	if (ret)
		return ret;
	mtu = ib_mtu_enum_to_int(attr.max_mtu);
	if (mtu <= 0)
		return -EINVAL;

	priv->ca = ca;
	priv->port = port;
	priv->pkey = pkey | 0x8000;
	priv->parent = parent;
	priv->rx_size = ipoib_recvq_size;
	priv->tx_size = ipoib_sendq_size;
	priv->rx_buf_len = mtu + IPOIB_GRH_LEN;
	priv->max_ud_mtu = mtu - IPOIB_WIRE_LEN;
	priv->mcast_mtu = priv->max_ud_mtu;
	priv->admin_mtu = priv->max_ud_mtu;
	dev->max_mtu = priv->max_ud_mtu;
	dev->mtu = priv->max_ud_mtu;
	dev->dev_id = port - 1;
	dev->dev_port = port - 1;
	SET_NETDEV_DEV(dev, ca->dev.parent);

	/* QPN 0xffffff, MGID ff12:401b:<pkey>::ffff:ffff (RFC 4391). */
	memset(dev->broadcast, 0, INFINIBAND_ALEN);
	memset(dev->broadcast + 1, 0xff, 3);
	dev->broadcast[4] = 0xff;
	dev->broadcast[5] = 0x12;
	dev->broadcast[6] = 0x40;
	dev->broadcast[7] = 0x1b;
	dev->broadcast[8] = priv->pkey >> 8;
	dev->broadcast[9] = priv->pkey & 0xff;
	memset(dev->broadcast + 16, 0xff, 4);
	return 0;
}

/* ------------------------------------------------------------ ib client */

static struct ipoib_priv *ipoib_parent_create(struct ib_device *ca, u32 port)
{
	struct net_device *dev;
	struct ipoib_priv *priv;
	u16 pkey;
	int ret;

	dev = alloc_netdev(sizeof(*priv), "ib%d", NET_NAME_UNKNOWN,
			   ipoib_netdev_setup);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	priv = ipoib_priv(dev);
	/* The parent's P_Key is whatever sits at index 0. */
	if (ib_query_pkey(ca, port, 0, &pkey))
		pkey = 0xffff;
	ret = ipoib_priv_prepare(priv, ca, port, pkey, NULL);
	if (ret)
		goto free;
	dev->sysfs_groups[0] = &ipoib_parent_attrs;
	ret = register_netdev(dev);
	if (ret)
		goto free;
	return priv;

free:
	free_netdev(dev);
	return ERR_PTR(ret);
}

static struct ib_client ipoib_client;

static int ipoib_add_one(struct ib_device *ca)
{
	struct list_head *parents;
	struct ipoib_priv *priv;
	u32 port;

	parents = kmalloc(sizeof(*parents), GFP_KERNEL);
	if (!parents)
		return -ENOMEM;
	INIT_LIST_HEAD(parents);
	rdma_for_each_port(ca, port) {
		/* RoCE and iWARP ports carry IP already. */
		if (!rdma_protocol_ib(ca, port))
			continue;
		priv = ipoib_parent_create(ca, port);
		if (IS_ERR(priv)) {
			dev_warn(&ca->dev, "ipoib: port %u: no interface: %ld\n",
				 port, PTR_ERR(priv));
			continue;
		}
		list_add_tail(&priv->child_entry, parents);
	}
	if (list_empty(parents)) {
		kfree(parents);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ca, &ipoib_client, parents);
	return 0;
}

/* The device goes: every interface on it, children first. */
static void ipoib_remove_one(struct ib_device *ca, void *client_data)
{
	struct list_head *parents = client_data;
	struct ipoib_priv *priv, *child;
	LIST_HEAD(kill);

	rtnl_lock();
	list_for_each_entry(priv, parents, child_entry) {
		list_for_each_entry(child, &priv->children, child_entry)
			unregister_netdevice_queue(child->dev, &kill);
		unregister_netdevice_queue(priv->dev, &kill);
	}
	unregister_netdevice_many(&kill);
	rtnl_unlock();
	kfree(parents);
}

static struct ib_client ipoib_client = {
	.name	= "ipoib",
	.add	= ipoib_add_one,
	.remove	= ipoib_remove_one,
	.get_net_dev_by_params = ipoib_get_net_dev_by_params,
};

/* Power of two (ring indexes wrap by mask), within what we accept. */
static int ipoib_queue_size(int v, int min, int max)
{
	return roundup_pow_of_two(clamp(v, min, max));
}

static int __init ipoib_init(void)
{
	int ret;

	ipoib_sendq_size = ipoib_queue_size(ipoib_sendq_size, 128, 8192);
	ipoib_recvq_size = ipoib_queue_size(ipoib_recvq_size, 2, 8192);
	/*
	 * Connected mode here always has an SRQ, which this limit does not
	 * apply to: taken, within its range, for the same command lines.
	 */
	ipoib_max_nonsrq_conn_qp = clamp(ipoib_max_nonsrq_conn_qp, 0, 4096);

	ib_sa_register_client(&ipoib_sa_client);
	ret = rtnl_link_register(&ipoib_link_ops);
	if (ret)
		goto unreg_sa;
	ret = ib_register_client(&ipoib_client);
	if (ret)
		goto unreg_link;
	return 0;

unreg_link:
	rtnl_link_unregister(&ipoib_link_ops);
unreg_sa:
	ib_sa_unregister_client(&ipoib_sa_client);
	return ret;
}

static void __exit ipoib_exit(void)
{
	ib_unregister_client(&ipoib_client);
	rtnl_link_unregister(&ipoib_link_ops);
	ib_sa_unregister_client(&ipoib_sa_client);
}

module_init(ipoib_init);
module_exit(ipoib_exit);
