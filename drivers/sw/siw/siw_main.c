// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw module: parameters, `rdma link add NAME type siw netdev IFNAME`, and
 * the device following its netdev (port state, removal).
 */
#include <linux/module.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>
#include "siw.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("Software iWARP Driver");
MODULE_LICENSE("Dual BSD/GPL");

/*
 * Connection setup knobs. Upstream 6.1 keeps these as built-in defaults
 * (its modinfo lists no parameters); we expose them under upstream's
 * variable names, with the same defaults, so tests can turn CRC on.
 */
bool siw_mpa_crc_required;
module_param_named(mpa_crc_required, siw_mpa_crc_required, bool, 0644);
MODULE_PARM_DESC(mpa_crc_required, "MPA CRC required");

bool siw_mpa_crc_strict;
module_param_named(mpa_crc_strict, siw_mpa_crc_strict, bool, 0644);
MODULE_PARM_DESC(mpa_crc_strict, "MPA CRC off enforced");

bool siw_tcp_nagle;
module_param_named(siw_tcp_nagle, siw_tcp_nagle, bool, 0644);
MODULE_PARM_DESC(siw_tcp_nagle, "Use TCP NAGLE algorithm");

bool siw_peer_to_peer;
module_param_named(peer_to_peer, siw_peer_to_peer, bool, 0644);
MODULE_PARM_DESC(peer_to_peer, "MPAv2 Peer-to-Peer RTR negotiation");

u8 siw_mpa_version = MPA_REVISION_2;
module_param_named(mpa_version, siw_mpa_version, byte, 0644);
MODULE_PARM_DESC(mpa_version,
		 "MPA version to be used in connection setup (1 or 2)");

struct workqueue_struct *siw_wq;
struct workqueue_struct *siw_cm_wq;

/* GET_CONTEXT's dev_id and the device's vendor_part_id. */
static atomic_t siw_dev_id = ATOMIC_INIT(0);

static bool siw_netdev_usable(struct net_device *ndev)
{
	return ndev->type == ARPHRD_ETHER || ndev->type == ARPHRD_LOOPBACK ||
	       ndev->type == ARPHRD_NONE;
}

static void siw_init_attrs(struct siw_device *sdev)
{
	struct ib_device_attr *a = &sdev->attrs;

	a->vendor_id = SIW_VENDOR_ID;
	a->vendor_part_id = sdev->vendor_part_id;
	a->max_mr_size = SIW_MAX_MR_SIZE;
	a->page_size_cap = PAGE_SIZE;
	a->max_qp = SIW_MAX_QP;
	a->max_qp_wr = SIW_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = SIW_MAX_SGE;
	a->max_recv_sge = SIW_MAX_SGE;
	a->max_sge_rd = SIW_MAX_SGE_RD;
	a->max_cq = SIW_MAX_CQ;
	a->max_cqe = SIW_MAX_CQE;
	a->max_mr = SIW_MAX_MR;
	a->max_pd = SIW_MAX_PD;
	a->max_qp_rd_atom = SIW_MAX_ORD_QP;
	a->max_qp_init_rd_atom = SIW_MAX_IRD_QP;
	a->max_res_rd_atom = SIW_MAX_QP * SIW_MAX_IRD_QP;
	a->atomic_cap = IB_ATOMIC_NONE;
	a->max_srq = SIW_MAX_SRQ;
	a->max_srq_wr = SIW_MAX_SRQ_WR;
	a->max_srq_sge = SIW_MAX_SGE;
	a->max_fast_reg_page_list_len = SIW_MAX_FAST_REG_PAGES;
	a->max_pkeys = 0;
	/* "Software iWARP": the system image GUID is the node GUID. */
	a->sys_image_guid = sdev->base_dev.node_guid;
}

static void siw_set_port_state(struct siw_device *sdev)
{
	struct net_device *ndev = sdev->netdev;
	enum ib_port_state new, old;

	new = netif_running(ndev) && netif_carrier_ok(ndev) ?
	      IB_PORT_ACTIVE : IB_PORT_DOWN;
	spin_lock_bh(&sdev->lock);
	old = sdev->state;
	sdev->state = new;
	spin_unlock_bh(&sdev->lock);
	if (old != new)
		siw_port_event(sdev, new == IB_PORT_ACTIVE ?
				     IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

/* Called from NLDEV NEWLINK without RTNL; the caller holds ndev. */
static int siw_device_add(struct net_device *ndev, const char *name)
{
	struct siw_device *sdev;
	int err;

	sdev = ib_alloc_device(siw_device, base_dev);
	if (!sdev)
		return -ENOMEM;

	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	sdev->netdev = ndev;
	sdev->vendor_part_id = atomic_inc_return(&siw_dev_id);
	spin_lock_init(&sdev->lock);
	INIT_LIST_HEAD(&sdev->cep_list);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mem_xa, XA_FLAGS_ALLOC1);
	sdev->state = IB_PORT_DOWN;
	addrconf_addr_eui48((u8 *)&sdev->base_dev.node_guid, ndev->dev_addr);
	siw_init_attrs(sdev);

	err = siw_register_device(sdev, name);
	if (err)
		goto err_dealloc;

	/*
	 * The netdev may have started unregistering before the notifier
	 * could find us; under RTNL one of the two sees the other.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(&sdev->base_dev);
	else
		siw_set_port_state(sdev);
	rtnl_unlock();
	return 0;

err_dealloc:
	/* Not registered: dealloc_driver does not run. */
	netdev_put(ndev, &sdev->netdev_tracker);
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mem_xa);
	ib_dealloc_device(&sdev->base_dev);
	return err;
}

static int siw_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *exists;

	if (!siw_netdev_usable(ndev))
		return -EINVAL;

	exists = ib_device_get_by_netdev(ndev, RDMA_DRIVER_SIW);
	if (exists) {
		ib_device_put(exists);
		return -EEXIST;
	}
	return siw_device_add(ndev, name);
}

static struct rdma_link_ops siw_link_ops = {
	.type = "siw",
	.newlink = siw_newlink,
};

/* Runs under RTNL: nothing here may wait for a device to go away. */
static int siw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_SIW);
	if (!ibdev)
		return NOTIFY_OK;

	switch (event) {
	case NETDEV_UNREGISTER:
		siw_cm_dev_abort(to_siw_dev(ibdev), true);
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_DOWN:
		siw_cm_dev_abort(to_siw_dev(ibdev), false);
		siw_set_port_state(to_siw_dev(ibdev));
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		siw_set_port_state(to_siw_dev(ibdev));
		break;
	default:
		break;
	}
	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block siw_netdev_nb = {
	.notifier_call = siw_netdev_event,
};

static int __init siw_init_module(void)
{
	int err;

	siw_wq = alloc_workqueue("siw_wq", WQ_MEM_RECLAIM, 0);
	if (!siw_wq)
		return -ENOMEM;
	siw_cm_wq = alloc_workqueue("siw_cm_wq", WQ_MEM_RECLAIM, 0);
	if (!siw_cm_wq) {
		err = -ENOMEM;
		goto err_wq;
	}
	err = siw_cm_init();
	if (err)
		goto err_cm_wq;
	err = register_netdevice_notifier(&siw_netdev_nb);
	if (err)
		goto err_cm;

	siw_debugfs_init();
	rdma_link_register(&siw_link_ops);
	pr_info("siw: loaded\n");
	return 0;

err_cm:
	siw_cm_exit();
err_cm_wq:
	destroy_workqueue(siw_cm_wq);
err_wq:
	destroy_workqueue(siw_wq);
	return err;
}

static void __exit siw_exit_module(void)
{
	rdma_link_unregister(&siw_link_ops);
	ib_unregister_driver(RDMA_DRIVER_SIW);
	unregister_netdevice_notifier(&siw_netdev_nb);
	siw_cm_exit();
	destroy_workqueue(siw_cm_wq);
	destroy_workqueue(siw_wq);
	siw_debugfs_exit();
	pr_info("siw: unloaded\n");
}

late_initcall(siw_init_module);
module_exit(siw_exit_module);

MODULE_ALIAS_RDMA_LINK("siw");
