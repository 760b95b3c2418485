// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a ULP netdev (IPoIB) asks of the device beneath it: an accelerated
 * implementation of its data path (rdma_netdev, mlx5 enhanced IPoIB) and
 * the SR-IOV virtual function controls it exposes through its ndo_*_vf_*
 * methods. Devices without them answer -EOPNOTSUPP, and IPoIB then uses
 * its own UD data path and offers no VF control.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>

static int rdma_netdev_params(struct ib_device *device, u32 port_num,
			      enum rdma_netdev_t type,
			      struct rdma_netdev_alloc_params *params)
{
	int ret;

	if (!device->ops.rdma_netdev_get_params)
		return -EOPNOTSUPP;
	memset(params, 0, sizeof(*params));
	ret = device->ops.rdma_netdev_get_params(device, port_num, type,
						  params);
	if (ret)
		return ret;
	/* The ULP finds its struct rdma_netdev at the start of the priv. */
	if (params->sizeof_priv < sizeof(struct rdma_netdev) ||
	    !params->initialize_rdma_netdev)
		return -EINVAL;
	return 0;
}

struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *))
{
	struct rdma_netdev_alloc_params params;
	struct net_device *netdev;
	int ret;

	ret = rdma_netdev_params(device, port_num, type, &params);
	if (ret)
		return ERR_PTR(ret);
	/* The driver sizes the private area and the queue counts. */
	netdev = alloc_netdev_mqs(params.sizeof_priv, name, name_assign_type, setup,
				  params.txqs, params.rxqs);
	return netdev ?: ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(rdma_alloc_netdev);

/* Hands @netdev (allocated as rdma_alloc_netdev() would) to the driver. */
int rdma_init_netdev(struct ib_device *device, u32 port_num, enum rdma_netdev_t type,
		     const char *name, unsigned char name_assign_type,
		     void (*setup)(struct net_device *), struct net_device *netdev)
{
	struct rdma_netdev_alloc_params p;
	int ret = rdma_netdev_params(device, port_num, type, &p);

	return ret ?: p.initialize_rdma_netdev(device, port_num, netdev, p.param);
}
EXPORT_SYMBOL(rdma_init_netdev);

/*
 * The VF controls: only drivers that manage VFs (IBK_VIRTUAL_FUNCTION) have
 * the methods; the others answer -EOPNOTSUPP.
 */
#define vf_call(dev, method, ...)					\
	((dev)->ops.method ? (dev)->ops.method(dev, __VA_ARGS__) : -EOPNOTSUPP)

int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port, int state)
{
	return vf_call(device, set_vf_link_state, vf, port, state);
}
EXPORT_SYMBOL(ib_set_vf_link_state);

int ib_get_vf_config(struct ib_device *device, int vf, u32 port, struct ifla_vf_info *info)
{
	return vf_call(device, get_vf_config, vf, port, info);
}
EXPORT_SYMBOL(ib_get_vf_config);

int ib_get_vf_stats(struct ib_device *device, int vf, u32 port, struct ifla_vf_stats *stats)
{
	return vf_call(device, get_vf_stats, vf, port, stats);
}
EXPORT_SYMBOL(ib_get_vf_stats);

int ib_get_vf_guid(struct ib_device *device, int vf, u32 port, struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid)
{
	return vf_call(device, get_vf_guid, vf, port, node_guid, port_guid);
}
EXPORT_SYMBOL(ib_get_vf_guid);

/* @type is IFLA_VF_IB_NODE_GUID or IFLA_VF_IB_PORT_GUID. */
int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid, int type)
{
	return vf_call(device, set_vf_guid, vf, port, guid, type);
}
EXPORT_SYMBOL(ib_set_vf_guid);
