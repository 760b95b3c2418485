// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe device methods (control side) and registration with ib_core.
 */
#include <linux/module.h>
#include <linux/cpumask.h>
#include <net/addrconf.h>
#include "rxe.h"

static int rxe_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = to_rdev(ibdev)->attr;
	return 0;
}

static int rxe_query_port(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attr *attr)
{
	struct rxe_port *port = &to_rdev(ibdev)->port;
	int err;

	spin_lock_bh(&port->lock);
	*attr = port->attr;
	spin_unlock_bh(&port->lock);
	/* As stock rxe: an admin-up netdev without carrier is "Polling". */
	if (attr->state != IB_PORT_ACTIVE)
		attr->phys_state = (to_rdev(ibdev)->ndev->flags & IFF_UP) ?
				   IB_PORT_PHYS_STATE_POLLING :
				   IB_PORT_PHYS_STATE_DISABLED;

	err = ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			       &attr->active_width);
	return err;
}

static int rxe_get_port_immutable(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = RXE_PORT_PKEY_TBL_LEN;
	immutable->gid_tbl_len = RXE_PORT_GID_TBL_LEN;
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->max_mad_size = RXE_MAX_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer rxe_get_link_layer(struct ib_device *ibdev,
					       u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int rxe_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
			  u16 *pkey)
{
	if (index >= RXE_PORT_PKEY_TBL_LEN)
		return -EINVAL;

	*pkey = RXE_DEFAULT_PKEY;
	return 0;
}

static int rxe_modify_device(struct ib_device *ibdev, int mask,
			     struct ib_device_modify *attr)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;

	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		rxe->attr.sys_image_guid = cpu_to_be64(attr->sys_image_guid);
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, attr->node_desc,
		       sizeof(ibdev->node_desc));
	return 0;
}

static int rxe_modify_port(struct ib_device *ibdev, u32 port_num,
			   int mask, struct ib_port_modify *attr)
{
	struct rxe_port *port = &to_rdev(ibdev)->port;

	spin_lock_bh(&port->lock);
	port->attr.port_cap_flags |= attr->set_port_cap_mask;
	port->attr.port_cap_flags &= ~attr->clr_port_cap_mask;
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		port->attr.qkey_viol_cntr = 0;
	spin_unlock_bh(&port->lock);
	return 0;
}

static void rxe_dealloc(struct ib_device *ibdev)
{
	struct rxe_dev *rxe = to_rdev(ibdev);

	netdev_put(rxe->ndev, &rxe->ndev_tracker);
}

/* /sys/class/infiniband/<dev>/parent: udev's Soft-RoCE rule matches on it. */
static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct ib_device *ibdev = container_of(device, struct ib_device, dev);

	return sysfs_emit(buf, "%s\n", to_rdev(ibdev)->ndev->name);
}
static DEVICE_ATTR_RO(parent);

static struct attribute *rxe_dev_attributes[] = {
	&dev_attr_parent.attr,
	NULL
};

static const struct attribute_group rxe_attr_group = {
	.attrs = rxe_dev_attributes,
};

static const struct ib_device_ops rxe_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = RXE_UVERBS_ABI_VERSION,

	.dealloc_driver = rxe_dealloc,
	.device_group = &rxe_attr_group,
	.get_link_layer = rxe_get_link_layer,
	.get_port_immutable = rxe_get_port_immutable,
	.modify_device = rxe_modify_device,
	.modify_port = rxe_modify_port,
	.query_device = rxe_query_device,
	.query_pkey = rxe_query_pkey,
	.query_port = rxe_query_port,
};

int rxe_register_device(struct rxe_dev *rxe, const char *ibdev_name)
{
	struct ib_device *dev = &rxe->ib_dev;
	int err;

	strscpy(dev->node_desc, RXE_NODE_DESC, sizeof(dev->node_desc));
	dev->node_type = RDMA_NODE_IB_CA;
	dev->phys_port_cnt = 1;
	dev->num_comp_vectors = num_possible_cpus();
	dev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&dev->node_guid,
			    rxe->ndev->dev_addr);

	ib_set_device_ops(dev, &rxe_dev_ops);

	err = ib_device_set_netdev(dev, rxe->ndev, 1);
	if (err)
		return err;

	return ib_register_device(dev, ibdev_name, NULL);
}
