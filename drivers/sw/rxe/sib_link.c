// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `rdma link add NAME type sib netdev IFNAME`: an rxe device whose port 1
 * is an InfiniBand port. Here: the link type, the device methods that
 * differ from rxe's (port attributes, P_Key and GID tables, link layer),
 * and the port state. Without a subnet manager the port stops at INIT
 * when the cable (the netdev's carrier) is up; LID, ARMED and ACTIVE come
 * only from the SM's PortInfo Sets (sib_sma_port.c).
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_netlink.h>
#include "rxe.h"

/*
 * Bytes of an IB packet in an Ethernet payload besides its data: LRH,
 * GRH, BTH, the largest extended headers of a packet with data (RETH and
 * ImmDt), ICRC and VCRC.
 */
#define SIB_OVERHEAD	(SIB_LRH_BYTES + RXE_GRH_BYTES + RXE_BTH_BYTES + \
			 16 + 4 + RXE_ICRC_SIZE + SIB_VCRC_SIZE)

/* GID prefix until an SM sets another one */
#define SIB_DEFAULT_GID_PREFIX	0xfe80000000000000ULL

/*
 * PortInfo CapabilityMask of a sib port; ib_cm adds IsCM, an SM holding
 * issmN adds IsSM (modify_port).
 */
#define SIB_PORT_CAPS	(IB_PORT_SL_MAP_SUP | \
			 IB_PORT_SYS_IMAGE_GUID_SUP | \
			 IB_PORT_VENDOR_CLASS_SUP | \
			 IB_PORT_CLIENT_REG_SUP)

void sib_port_event(struct rxe_dev *rxe, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &rxe->ib_dev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

bool sib_cable_up(struct rxe_dev *rxe)
{
	return netif_running(rxe->ndev) && netif_carrier_ok(rxe->ndev);
}

/*
 * The netdev changed. Carrier is the physical link: it brings a DOWN port
 * to INIT (what link training does; the SM takes it further) and its
 * loss brings any state to DOWN.
 */
void sib_set_port_state(struct rxe_dev *rxe)
{
	struct rxe_port *port = &rxe->port;
	bool up = sib_cable_up(rxe);
	enum ib_port_state old;

	spin_lock_bh(&port->lock);
	old = port->attr.state;
	if (!up)
		port->attr.state = IB_PORT_DOWN;
	else if (old == IB_PORT_DOWN || old == IB_PORT_NOP)
		port->attr.state = IB_PORT_INIT;
	spin_unlock_bh(&port->lock);

	if (old != IB_PORT_DOWN && old != IB_PORT_NOP && !up)
		atomic64_inc(&rxe->sib->ctr.link_downed);
	if (old == IB_PORT_ACTIVE && !up)
		sib_port_event(rxe, IB_EVENT_PORT_ERR);
}

/* A state set by the SM (the SMA's PortInfo Set). */
int sib_port_set_state(struct rxe_dev *rxe, enum ib_port_state state)
{
	struct rxe_port *port = &rxe->port;
	enum ib_port_state old;

	if (state < IB_PORT_DOWN || state > IB_PORT_ACTIVE)
		return -EINVAL;
	if (state != IB_PORT_DOWN && !sib_cable_up(rxe))
		return -ENOLINK;

	spin_lock_bh(&port->lock);
	old = port->attr.state;
	port->attr.state = state;
	spin_unlock_bh(&port->lock);

	if (old != IB_PORT_ACTIVE && state == IB_PORT_ACTIVE)
		sib_port_event(rxe, IB_EVENT_PORT_ACTIVE);
	else if (old == IB_PORT_ACTIVE && state != IB_PORT_ACTIVE)
		sib_port_event(rxe, IB_EVENT_PORT_ERR);
	return 0;
}

/* The port's base LID (@sm false) or its SM's LID (@sm true). */
void sib_port_set_lid(struct rxe_dev *rxe, u16 lid, bool sm)
{
	struct rxe_port *port = &rxe->port;
	u32 *field = sm ? &port->attr.sm_lid : &port->attr.lid;
	u32 old;

	spin_lock_bh(&port->lock);
	old = *field;
	WRITE_ONCE(*field, lid);
	spin_unlock_bh(&port->lock);

	if (old != lid)
		sib_port_event(rxe, sm ? IB_EVENT_SM_CHANGE :
					 IB_EVENT_LID_CHANGE);
}

/*
 * The cable's MTU is the port's MTUCap; a new one retrains the link, which
 * leaves NeighborMTU (the active MTU) at the new cap until the SM lowers it.
 */
void sib_set_mtu(struct rxe_dev *rxe, unsigned int ndev_mtu)
{
	enum ib_mtu mtu = IB_MTU_256;

	if (ndev_mtu > SIB_OVERHEAD)
		mtu = ib_mtu_int_to_enum(ndev_mtu - SIB_OVERHEAD);
	mtu = min_t(enum ib_mtu, mtu, RXE_PORT_MAX_MTU);
	rxe->sib->sma.mtu_cap = mtu;
	rxe->port.attr.active_mtu = mtu;
}

/* The P_Key at @index (out of range: 0, which matches nothing). */
u16 sib_pkey(struct rxe_dev *rxe, u16 index)
{
	return index < SIB_PKEY_TBL_LEN ? READ_ONCE(rxe->sib->pkeys[index]) : 0;
}

/*
 * IBA 10.9.3: two P_Keys match when their 15-bit keys are equal (and not
 * 0) and at least one of them is a full member.
 */
static bool sib_pkey_match(u16 entry, u16 pkey)
{
	return (pkey & 0x7fff) && (entry & 0x7fff) == (pkey & 0x7fff) &&
	       ((entry | pkey) & 0x8000);
}

/* For QP1, which serves every partition: any entry of the table. */
bool sib_pkey_ok(struct rxe_dev *rxe, u16 pkey)
{
	int i;

	for (i = 0; i < SIB_PKEY_TBL_LEN; i++)
		if (sib_pkey_match(READ_ONCE(rxe->sib->pkeys[i]), pkey))
			return true;
	return false;
}

/*
 * Any other QP is in one partition: the packet's P_Key must match the
 * entry at the QP's own P_Key index (IBA 10.9.3, C10-108).
 */
bool sib_qp_pkey_ok(struct rxe_dev *rxe, u16 index, u16 pkey)
{
	return sib_pkey_match(sib_pkey(rxe, index), pkey);
}

/* ---- device methods that differ from rxe's ---- */

/* PortPhysicalState: the cable's carrier, or the netdev's admin state. */
u8 sib_phys_state(struct rxe_dev *rxe)
{
	if (sib_cable_up(rxe))
		return IB_PORT_PHYS_STATE_LINK_UP;
	if (rxe->ndev->flags & IFF_UP)
		return IB_PORT_PHYS_STATE_POLLING;
	return IB_PORT_PHYS_STATE_DISABLED;
}

static int sib_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	spin_lock_bh(&rxe->port.lock);
	*attr = rxe->port.attr;
	spin_unlock_bh(&rxe->port.lock);

	attr->phys_state = sib_phys_state(rxe);
	/* 4X SDR, 10 Gb/s (enough for OpenSM's default IPoIB group) */
	attr->active_width = sib_active_width(rxe) == 2 ? IB_WIDTH_4X :
							   IB_WIDTH_1X;
	attr->active_speed = IB_SPEED_SDR;
	attr->subnet_prefix = READ_ONCE(rxe->sib->sma.gid_prefix);
	/* the rest of what the SM set by PortInfo lives in the SMA */
	attr->subnet_timeout = READ_ONCE(rxe->sib->sma.subnet_timeout);
	attr->init_type_reply = READ_ONCE(rxe->sib->sma.init_type_reply);
	return 0;
}

static int sib_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = SIB_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SIB_GID_TBL_LEN;
	/* QP0 (the SMI) as well as QP1: an IBA port */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB |
				    RDMA_CORE_CAP_IB_MAD |
				    RDMA_CORE_CAP_IB_SMI |
				    RDMA_CORE_CAP_IB_CM |
				    RDMA_CORE_CAP_IB_SA;
	immutable->max_mad_size = RXE_MAX_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sib_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_INFINIBAND;
}

static int sib_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= SIB_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = sib_pkey(to_rdev(ibdev), index);
	return 0;
}

/* GID 0: the subnet prefix and the port GUID (the node GUID: one port). */
static int sib_query_gid(struct ib_device *ibdev, u32 port_num, int index,
			 union ib_gid *gid)
{
	if (index < 0 || index >= SIB_GID_TBL_LEN)
		return -EINVAL;
	gid->global.subnet_prefix =
		cpu_to_be64(READ_ONCE(to_rdev(ibdev)->sib->sma.gid_prefix));
	gid->global.interface_id = ibdev->node_guid;
	return 0;
}

static const struct ib_device_ops sib_dev_ops = {
	.query_port = sib_query_port,
	.get_port_immutable = sib_get_port_immutable,
	.get_link_layer = sib_get_link_layer,
	.query_pkey = sib_query_pkey,
	.query_gid = sib_query_gid,
	.process_mad = sib_process_mad,
};

/* After rxe's methods: these replace the RoCE ones. */
void sib_set_ops(struct rxe_dev *rxe)
{
	ib_set_device_ops(&rxe->ib_dev, &sib_dev_ops);
	strscpy(rxe->ib_dev.node_desc, SIB_NODE_DESC,
		sizeof(rxe->ib_dev.node_desc));
}

int sib_dev_init(struct rxe_dev *rxe)
{
	struct ib_port_attr *a = &rxe->port.attr;
	struct sib_port *sp;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	sp->rxe = rxe;
	sp->pkeys[0] = SIB_DEFAULT_PKEY;
	rxe->sib = sp;
	sib_sma_init(rxe);
	sp->sma.gid_prefix = SIB_DEFAULT_GID_PREFIX;

	rxe->attr.max_pkeys = SIB_PKEY_TBL_LEN;
	a->pkey_tbl_len = SIB_PKEY_TBL_LEN;
	a->gid_tbl_len = SIB_GID_TBL_LEN;
	a->lid = 0;
	a->sm_lid = 0;
	a->lmc = 0;
	a->port_cap_flags |= SIB_PORT_CAPS;
	rxe->attr.vendor_part_id = SIB_DEVICE_ID;
	return 0;
}

void sib_dev_free(struct rxe_dev *rxe)
{
	if (rxe->sib)
		mutex_destroy(&rxe->sib->sma.lock);
	kfree(rxe->sib);
	rxe->sib = NULL;
}

/* ---- the link type ---- */

static int sib_newlink(const char *ibdev_name, struct net_device *ndev)
{
	/* the cable carries Ethernet frames */
	if (ndev->type != ARPHRD_ETHER || ndev->addr_len != ETH_ALEN)
		return -EINVAL;
	return rxe_newlink_common(ibdev_name, ndev, true);
}

static struct rdma_link_ops sib_link_ops = {
	.type = "sib",
	.newlink = sib_newlink,
};

int sib_link_init(void)
{
	sib_crc_init();
	rdma_link_register(&sib_link_ops);
	return 0;
}

/* Before the devices go: no new sib device after this. */
void sib_link_exit(void)
{
	rdma_link_unregister(&sib_link_ops);
}

MODULE_ALIAS_RDMA_LINK("sib");
