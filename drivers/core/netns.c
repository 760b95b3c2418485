// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA devices and network namespaces.
 *
 * Mode ("rdma system set netns"): shared, every namespace sees every
 * device; exclusive, a device is seen only from the namespace it is in,
 * init_net until `rdma dev set DEV netns NS` moves it. As upstream, the mode
 * changes only while init_net is the only namespace, and only devices that
 * can disassociate their user contexts move (in exclusive mode).
 *
 * sysfs: the infiniband class is tagged by namespace (sysfs.c). In shared
 * mode every namespace but the device's own holds a view of it, an
 * ib_core_device kept in device->compat_devs under the namespace's inode
 * number. ib_core keeps its own list of namespaces (pernet init/pre_exit)
 * so that "which namespaces exist" and "which devices have views" change
 * under one lock, nets_rwsem: a namespace appearing takes it for writing
 * and makes views of every listed device; a device registering or going
 * takes it for reading and makes or drops its views in every listed
 * namespace. A namespace going away first sends the devices moved into it
 * back to init_net, then drops its views.
 *
 * Lock order: nets_rwsem, then device->compat_devs_mutex; a device's
 * unregistration_lock is never taken under nets_rwsem (the move takes it,
 * and unregistration takes nets_rwsem under it).
 */
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include "core_priv.h"

static bool shared_mode = true;
static DEFINE_XARRAY(nets);		/* ns.inum -> struct net */
static DEFINE_XARRAY(view_devices);	/* device index -> ib_device */
static DECLARE_RWSEM(nets_rwsem);

static struct net *ibdev_net(const struct ib_device *device)
{
	return read_pnet(&device->coredev.rdma_net);
}

bool rdma_dev_access_netns(const struct ib_device *device,
			   const struct net *net)
{
	return READ_ONCE(shared_mode) || net_eq(ibdev_net(device), net);
}
EXPORT_SYMBOL(rdma_dev_access_netns);

bool rdma_compatdev_get(void)
{
	return READ_ONCE(shared_mode);
}

int rdma_compatdev_set(u8 enable)
{
	unsigned long inum;
	struct net *net;
	int ret = 0;

	down_write(&nets_rwsem);
	if (shared_mode == !!enable)
		goto out;
	xa_for_each(&nets, inum, net) {
		if (!net_eq(net, &init_net)) {
			ret = -EBUSY;
			goto out;
		}
	}
	WRITE_ONCE(shared_mode, !!enable);
out:
	up_write(&nets_rwsem);
	return ret;
}

/* ------------------------------------------------------------ views */

/* Caller holds nets_rwsem; shared mode. */
static int add_view(struct ib_device *device, struct net *net)
{
	struct ib_core_device *view;
	int ret = 0;

	if (net_eq(ibdev_net(device), net))
		return 0;
	mutex_lock(&device->compat_devs_mutex);
	if (xa_load(&device->compat_devs, net->ns.inum))
		goto out;
	view = ib_sysfs_view_add(device, net);
	if (IS_ERR(view)) {
		ret = PTR_ERR(view);
		goto out;
	}
	ret = xa_err(xa_store(&device->compat_devs, net->ns.inum, view,
			      GFP_KERNEL));
	if (ret)
		ib_sysfs_view_del(view);
out:
	mutex_unlock(&device->compat_devs_mutex);
	return ret;
}

/*
 * Drops @device's view in the namespace @inum, or all of its views if
 * @all. Removal waits for running show() calls, so it happens outside
 * compat_devs_mutex, which renames hold.
 */
static void del_views(struct ib_device *device, unsigned long inum, bool all)
{
	struct ib_core_device *view;
	unsigned long index = inum;

	for (;;) {
		mutex_lock(&device->compat_devs_mutex);
		if (all)
			view = xa_find(&device->compat_devs, &index, ULONG_MAX,
				       XA_PRESENT);
		else
			view = xa_load(&device->compat_devs, index);
		if (view)
			xa_erase(&device->compat_devs, index);
		mutex_unlock(&device->compat_devs_mutex);
		if (!view)
			return;
		ib_sysfs_view_del(view);
		if (!all)
			return;
	}
}

/* Registration, after the device's own sysfs entry exists. */
int ib_netns_device_add(struct ib_device *device)
{
	unsigned long inum;
	struct net *net;
	int ret;

	down_read(&nets_rwsem);
	ret = xa_err(xa_store(&view_devices, device->index, device,
			      GFP_KERNEL));
	if (ret || !shared_mode)
		goto out;
	xa_for_each(&nets, inum, net) {
		ret = add_view(device, net);
		if (ret)
			break;
	}
	if (ret) {
		xa_erase(&view_devices, device->index);
		del_views(device, 0, true);
	}
out:
	up_read(&nets_rwsem);
	return ret;
}

/* Unregistration, before the device's own sysfs entry goes. */
void ib_netns_device_remove(struct ib_device *device)
{
	down_read(&nets_rwsem);
	xa_erase(&view_devices, device->index);
	del_views(device, 0, true);
	up_read(&nets_rwsem);
}

/*
 * Caller holds devices_rwsem for writing: the device and its views. A view
 * that cannot follow is dropped, so that its old name cannot clash with a
 * device registered under it later.
 */
int ib_netns_device_rename(struct ib_device *device, const char *name)
{
	struct ib_core_device *view;
	unsigned long inum;
	int ret;

	mutex_lock(&device->compat_devs_mutex);
	ret = ib_sysfs_rename(&device->coredev, name);
	if (ret)
		goto out;
	xa_for_each(&device->compat_devs, inum, view) {
		if (!ib_sysfs_rename(view, name))
			continue;
		dev_warn(&device->dev, "dropping its view in namespace %lu\n",
			 inum);
		xa_erase(&device->compat_devs, inum);
		ib_sysfs_view_del(view);
	}
out:
	mutex_unlock(&device->compat_devs_mutex);
	return ret;
}

/* ------------------------------------------------------------ moves */

/* `rdma dev set DEV netns NS`; the caller holds a get_device() reference. */
int rdma_dev_set_netns(struct ib_device *device, struct net *net)
{
	if (READ_ONCE(shared_mode) || !device->ops.disassociate_ucontext)
		return -EOPNOTSUPP;
	return ib_device_change_net(device, net);
}

/* ------------------------------------------------------------ namespaces */

static int __net_init rdma_netns_init(struct net *net)
{
	struct ib_device *device;
	unsigned long index;
	int ret;

	down_write(&nets_rwsem);
	ret = xa_err(xa_store(&nets, net->ns.inum, net, GFP_KERNEL));
	if (ret || !shared_mode)
		goto out;
	xa_for_each(&view_devices, index, device) {
		ret = add_view(device, net);
		if (ret)
			break;
	}
	if (ret) {
		xa_for_each(&view_devices, index, device)
			del_views(device, net->ns.inum, false);
		xa_erase(&nets, net->ns.inum);
	}
out:
	up_write(&nets_rwsem);
	return ret;
}

/*
 * Nothing can move a device into @net any more (that needs a reference on
 * it), and nobody is left in @net to move one out: send every device in it
 * back to init_net, one at a time, outside nets_rwsem.
 */
static void return_devices(struct net *net)
{
	struct ib_device *device;
	unsigned long index = 0;

	for (;;) {
		down_read(&nets_rwsem);
		xa_for_each_start(&view_devices, index, device, index) {
			if (net_eq(ibdev_net(device), net)) {
				get_device(&device->dev);
				break;
			}
		}
		up_read(&nets_rwsem);
		if (!device)
			return;
		/* -ENODEV: unregistered meanwhile, its entry went with it. */
		if (ib_device_change_net(device, &init_net) != -ENODEV &&
		    !net_eq(ibdev_net(device), &init_net)) {
			/* Its sysfs entry must not outlive the namespace. */
			dev_warn(&device->dev,
				 "cannot return to init_net, unregistering\n");
			ib_unregister_device(device);
		}
		put_device(&device->dev);
		index++;
	}
}

static void __net_exit rdma_netns_pre_exit(struct net *net)
{
	struct ib_device *device;
	unsigned long index;

	return_devices(net);

	down_write(&nets_rwsem);
	xa_erase(&nets, net->ns.inum);
	xa_for_each(&view_devices, index, device)
		del_views(device, net->ns.inum, false);
	up_write(&nets_rwsem);
}

static struct pernet_operations rdma_netns_ops = {
	.init = rdma_netns_init,
	.pre_exit = rdma_netns_pre_exit,
};

int rdma_netns_init_module(void)
{
	return register_pernet_subsys(&rdma_netns_ops);
}

void rdma_netns_exit_module(void)
{
	unregister_pernet_subsys(&rdma_netns_ops);
}
