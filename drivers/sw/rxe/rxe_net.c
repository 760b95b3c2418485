// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe and its netdev: the port follows the netdev's admin state and
 * carrier, its MTU follows the netdev MTU, and the device goes away when
 * the netdev is unregistered.
 */
#include <linux/netdevice.h>
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

int rxe_net_init(void)
{
	return register_netdevice_notifier(&rxe_net_notifier);
}

void rxe_net_exit(void)
{
	unregister_netdevice_notifier(&rxe_net_notifier);
}
