// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe module: `rdma link add NAME type rxe netdev IFNAME` creates one
 * Soft-RoCE device bound to an Ethernet netdev.
 */
#include <linux/module.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>
#include "rxe.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("Soft RDMA over Converged Ethernet (RoCE v2)");
MODULE_LICENSE("Dual BSD/GPL");

static void rxe_init_device_param(struct rxe_dev *rxe)
{
	struct ib_device_attr *a = &rxe->attr;

	a->vendor_id = RXE_VENDOR_ID;
	a->max_mr_size = RXE_MAX_MR_SIZE;
	a->page_size_cap = RXE_PAGE_SIZE_CAP;
	a->max_qp = RXE_MAX_QP;
	a->max_qp_wr = RXE_MAX_QP_WR;
	a->device_cap_flags = RXE_DEVICE_CAP_FLAGS;
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = RXE_MAX_SGE;
	a->max_recv_sge = RXE_MAX_SGE;
	a->max_sge_rd = RXE_MAX_SGE_RD;
	a->max_cq = RXE_MAX_CQ;
	a->max_cqe = (1 << RXE_MAX_LOG_CQE) - 1;
	a->max_mr = RXE_MAX_MR;
	a->max_mw = RXE_MAX_MW;
	a->max_pd = RXE_MAX_PD;
	a->max_qp_rd_atom = RXE_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = RXE_MAX_RES_RD_ATOM;
	a->max_qp_init_rd_atom = RXE_MAX_QP_INIT_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_mcast_grp = RXE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = RXE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = RXE_MAX_TOT_MCAST_QP_ATTACH;
	a->max_ah = RXE_MAX_AH;
	a->max_srq = RXE_MAX_SRQ;
	a->max_srq_wr = RXE_MAX_SRQ_WR;
	a->max_srq_sge = RXE_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = RXE_MAX_FMR_PAGE_LIST_LEN;
	a->max_pkeys = RXE_MAX_PKEYS;
	a->local_ca_ack_delay = RXE_LOCAL_CA_ACK_DELAY;
	/* Like upstream 6.1: the system image GUID is the node GUID. */
	addrconf_addr_eui48((unsigned char *)&a->sys_image_guid,
			    rxe->ndev->dev_addr);
}

static void rxe_init_port_param(struct rxe_port *port)
{
	struct ib_port_attr *a = &port->attr;

	spin_lock_init(&port->lock);
	a->state = IB_PORT_DOWN;
	a->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	a->max_mtu = RXE_PORT_MAX_MTU;
	a->active_mtu = IB_MTU_256;
	a->gid_tbl_len = RXE_PORT_GID_TBL_LEN;
	a->port_cap_flags = RXE_PORT_PORT_CAP_FLAGS;
	a->max_msg_sz = RXE_PORT_MAX_MSG_SZ;
	a->pkey_tbl_len = RXE_PORT_PKEY_TBL_LEN;
	a->max_vl_num = RXE_PORT_MAX_VL_NUM;
}

/*
 * Called from NLDEV NEWLINK, without RTNL; ndev is held by the caller.
 * @ib: a sib device (InfiniBand link layer) rather than a RoCE one.
 */
int rxe_add(struct net_device *ndev, const char *ibdev_name, bool ib)
{
	struct rxe_dev *rxe;
	int err;

	rxe = ib_alloc_device(rxe_dev, ib_dev);
	if (!rxe)
		return -ENOMEM;

	netdev_hold(ndev, &rxe->ndev_tracker, GFP_KERNEL);
	rxe->ndev = ndev;
	rxe_init_device_param(rxe);
	rxe_init_port_param(&rxe->port);
	if (ib) {
		err = sib_dev_init(rxe);
		if (err)
			goto err_put;
	}
	rxe_set_mtu(rxe, ndev->mtu);
	rxe_init_pools(rxe);

	err = rxe_register_device(rxe, ibdev_name);
	if (err)
		goto err_dealloc;

	/*
	 * The netdev may have started unregistering before we were findable
	 * by the notifier; under RTNL one of the two sees the other.
	 */
	rtnl_lock();
	if (ndev->reg_state != NETREG_REGISTERED)
		ib_unregister_device_queued(&rxe->ib_dev);
	else
		rxe_set_port_state(rxe);
	rtnl_unlock();
	return 0;

err_dealloc:
	/* Not registered: dealloc_driver never runs, so undo here. */
	rxe_cleanup_pools(rxe);
	sib_dev_free(rxe);
err_put:
	netdev_put(ndev, &rxe->ndev_tracker);
	ib_dealloc_device(&rxe->ib_dev);
	return err;
}

/*
 * One device per netdev, rxe or sib (both have RDMA_DRIVER_RXE: the
 * netdev notifier finds its device by that).
 */
int rxe_newlink_common(const char *ibdev_name, struct net_device *ndev,
		       bool ib)
{
	struct ib_device *exists;

	if (is_vlan_dev(ndev)) {
		pr_err("rdma_rxe: %s is a VLAN; use the real device\n",
		       ndev->name);
		return -EPERM;
	}

	exists = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (exists) {
		ib_device_put(exists);
		return -EEXIST;
	}

	return rxe_add(ndev, ibdev_name, ib);
}

static int rxe_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return rxe_newlink_common(ibdev_name, ndev, false);
}

static struct rdma_link_ops rxe_link_ops = {
	.type = "rxe",
	.newlink = rxe_newlink,
};

static int __init rxe_module_init(void)
{
	int err;

	err = rxe_alloc_wq();
	if (err)
		return err;

	err = rxe_net_init();
	if (err) {
		rxe_destroy_wq();
		return err;
	}

	rdma_link_register(&rxe_link_ops);
	sib_link_init();
	pr_info("rdma_rxe: loaded\n");
	return 0;
}

static void __exit rxe_module_exit(void)
{
	sib_link_exit();
	rdma_link_unregister(&rxe_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	rxe_net_exit();
	rxe_destroy_wq();
	pr_info("rdma_rxe: unloaded\n");
}

late_initcall(rxe_module_init);
module_exit(rxe_module_exit);

MODULE_ALIAS_RDMA_LINK("rxe");
