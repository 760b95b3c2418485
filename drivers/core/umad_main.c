// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: the "infiniband_mad" class, device numbers and the ib_client
 * that gives every MAD-capable port its umadN and issmN (ABI.md §3.4, §6).
 *
 * Numbering: port index N < 64 gets the historic 231:N and 231:64+N; later
 * ones get numbers from a dynamic region, umad and issm side by side.
 */
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "umad.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("InfiniBand userspace MAD packet access");
MODULE_LICENSE("Dual BSD/GPL");
/* NLDEV GET_CHARDEV("umad"/"issm") loads us on demand. */
MODULE_ALIAS("rdma-client-umad");
MODULE_ALIAS("rdma-client-issm");

enum {
	UMAD_MAJOR		= 231,
	UMAD_FIXED_PORTS	= 64,
	UMAD_MAX_PORTS		= 1024,
	UMAD_DYNAMIC_PORTS	= UMAD_MAX_PORTS - UMAD_FIXED_PORTS,
};

#define UMAD_BASE_DEV	MKDEV(UMAD_MAJOR, 0)

static dev_t umad_dynamic_base;
static DEFINE_IDA(umad_ida);
static struct ib_client umad_client;

/* What the client keeps per device: its MAD-capable ports. */
struct umad_device {
	u32			first_port;
	u32			nports;
	struct umad_port	*ports[];
};

/* ------------------------------------------------------------ sysfs */

static ssize_t abi_version_show(struct class *class,
				struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_MAD_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *umad_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_class);

static char *umad_devnode(struct device *dev, umode_t *mode)
{
	/* Default (root-only) permissions, as on the stock kernel. */
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static struct class umad_class = {
	.name		= "infiniband_mad",
	.owner		= THIS_MODULE,
	.devnode	= umad_devnode,
	.class_groups	= umad_class_groups,
};

/* Both devices of a port carry its drvdata: either one finds the port. */
static struct umad_port *dev_to_port(struct device *dev)
{
	return dev_get_drvdata(dev);
}

/*
 * Attribute files are gone (and their readers drained) before removal
 * clears ib_dev, so ib_dev is valid while one of these runs.
 */
static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_name(&dev_to_port(dev)->ib_dev->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_to_port(dev)->port_num);
}
static DEVICE_ATTR_RO(port);

static struct attribute *umad_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL,
};
ATTRIBUTE_GROUPS(umad_dev);

/* ------------------------------------------------------------ lifetimes */

static void umad_port_free(struct kref *ref)
{
	struct umad_port *port = container_of(ref, struct umad_port, ref);

	ida_free(&umad_ida, port->index);
	kfree(port);
}

/* Each struct device holds one reference; open files hold a device. */
static void umad_dev_release(struct device *dev)
{
	kref_put(&dev_to_port(dev)->ref, umad_port_free);
}

static int umad_init_dev(struct umad_port *port, struct device *dev,
			 struct ib_device *ib_dev, dev_t devt, const char *fmt)
{
	device_initialize(dev);
	dev->class = &umad_class;
	dev->parent = ib_dev->dev.parent;
	dev->devt = devt;
	dev->groups = umad_dev_groups;
	dev->release = umad_dev_release;
	dev_set_drvdata(dev, port);
	return dev_set_name(dev, fmt, port->index);
}

static struct umad_port *umad_port_add(struct ib_device *ib_dev, u32 port_num)
{
	struct umad_port *port;
	dev_t devt, sm_devt;
	int index, ret;

	index = ida_alloc_max(&umad_ida, UMAD_MAX_PORTS - 1, GFP_KERNEL);
	if (index < 0)
		return ERR_PTR(index);
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port) {
		ida_free(&umad_ida, index);
		return ERR_PTR(-ENOMEM);
	}
	/* The two devices' references; the last release frees index too. */
	kref_init(&port->ref);
	kref_get(&port->ref);
	port->index = index;
	port->port_num = port_num;
	port->ib_dev = ib_dev;
	init_rwsem(&port->rwsem);
	INIT_LIST_HEAD(&port->files);
	spin_lock_init(&port->sm_lock);
	init_waitqueue_head(&port->sm_wait);

	if (index < UMAD_FIXED_PORTS) {
		devt = UMAD_BASE_DEV + index;
		sm_devt = UMAD_BASE_DEV + UMAD_FIXED_PORTS + index;
	} else {
		devt = umad_dynamic_base + 2 * (index - UMAD_FIXED_PORTS);
		sm_devt = devt + 1;
	}

	ret = umad_init_dev(port, &port->dev, ib_dev, devt, "umad%d");
	ret = umad_init_dev(port, &port->sm_dev, ib_dev, sm_devt, "issm%d") ?:
	      ret;
	if (ret)
		goto err_put;

	cdev_init(&port->cdev, &umad_fops);
	port->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->cdev, &port->dev);
	if (ret)
		goto err_put;
	cdev_init(&port->sm_cdev, &umad_sm_fops);
	port->sm_cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&port->sm_cdev, &port->sm_dev);
	if (ret)
		goto err_del;
	return port;

err_del:
	cdev_device_del(&port->cdev, &port->dev);
err_put:
	put_device(&port->sm_dev);
	put_device(&port->dev);
	return ERR_PTR(ret);
}

/*
 * The device goes away: no new opens, every open file loses its agents
 * (reads then fail with EIO, registrations with EPIPE); the files keep the
 * port itself until they are closed.
 */
static void umad_port_remove(struct umad_port *port)
{
	struct umad_file *file;

	cdev_device_del(&port->sm_cdev, &port->sm_dev);
	cdev_device_del(&port->cdev, &port->dev);

	down_write(&port->rwsem);
	port->ib_dev = NULL;
	list_for_each_entry(file, &port->files, port_entry)
		umad_file_kill_agents(file);
	up_write(&port->rwsem);

	put_device(&port->sm_dev);
	put_device(&port->dev);
}

/* ------------------------------------------------------------ ib_client */

static int umad_add_one(struct ib_device *ib_dev)
{
	u32 first = rdma_start_port(ib_dev), last = rdma_end_port(ib_dev);
	struct umad_device *udev;
	unsigned int added = 0;
	u32 p;

	udev = kzalloc(struct_size(udev, ports, last - first + 1), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	udev->first_port = first;
	udev->nports = last - first + 1;

	rdma_for_each_port(ib_dev, p) {
		struct umad_port *port;

		/* IB and RoCE ports; iWARP has no MADs. */
		if (!rdma_cap_ib_mad(ib_dev, p))
			continue;
		port = umad_port_add(ib_dev, p);
		if (IS_ERR(port)) {
			dev_err(&ib_dev->dev, "port %u: no umad device: %ld\n",
				p, PTR_ERR(port));
			continue;
		}
		udev->ports[p - first] = port;
		added++;
	}
	if (!added) {
		kfree(udev);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ib_dev, &umad_client, udev);
	return 0;
}

static void umad_remove_one(struct ib_device *ib_dev, void *client_data)
{
	struct umad_device *udev = client_data;
	u32 i;

	if (!udev)
		return;
	for (i = 0; i < udev->nports; i++)
		if (udev->ports[i])
			umad_port_remove(udev->ports[i]);
	kfree(udev);
}

static struct umad_port *umad_nl_port(struct ib_device *ib_dev,
				      struct umad_device *udev, u32 port_num)
{
	if (!udev || !rdma_is_port_valid(ib_dev, port_num))
		return NULL;
	return udev->ports[port_num - udev->first_port];
}

static int umad_get_nl_info(struct ib_device *ib_dev, void *client_data,
			    struct ib_client_nl_info *res)
{
	struct umad_port *port = umad_nl_port(ib_dev, client_data, res->port);

	if (!port)
		return -EINVAL;
	res->abi = IB_USER_MAD_ABI_VERSION;
	res->cdev = &port->dev;
	return 0;
}

static struct ib_client umad_client = {
	.name		= "umad",
	.no_kverbs_req	= true,
	.add		= umad_add_one,
	.remove		= umad_remove_one,
	.get_nl_info	= umad_get_nl_info,
};

/* "issm" only answers NLDEV lookups; the ports belong to umad_client. */
static int issm_get_nl_info(struct ib_device *ib_dev, void *client_data,
			    struct ib_client_nl_info *res)
{
	struct umad_port *port;

	port = umad_nl_port(ib_dev, ib_get_client_data(ib_dev, &umad_client),
			    res->port);
	if (!port)
		return -EINVAL;
	res->abi = IB_USER_MAD_ABI_VERSION;
	res->cdev = &port->sm_dev;
	return 0;
}

static struct ib_client issm_client = {
	.name		= "issm",
	.no_kverbs_req	= true,
	.get_nl_info	= issm_get_nl_info,
};

/* ------------------------------------------------------------ module */

static int __init ib_umad_init(void)
{
	int ret;

	ret = register_chrdev_region(UMAD_BASE_DEV, 2 * UMAD_FIXED_PORTS,
				     "infiniband_mad");
	if (ret) {
		pr_err("ib_umad: couldn't register device numbers\n");
		return ret;
	}
	ret = alloc_chrdev_region(&umad_dynamic_base, 0,
				  2 * UMAD_DYNAMIC_PORTS, "infiniband_mad");
	if (ret) {
		pr_err("ib_umad: couldn't register dynamic device numbers\n");
		goto err_fixed;
	}
	ret = class_register(&umad_class);
	if (ret) {
		pr_err("ib_umad: couldn't create class infiniband_mad\n");
		goto err_dynamic;
	}
	ret = ib_register_client(&umad_client);
	if (ret)
		goto err_class;
	ret = ib_register_client(&issm_client);
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&umad_client);
err_class:
	class_unregister(&umad_class);
err_dynamic:
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_DYNAMIC_PORTS);
err_fixed:
	unregister_chrdev_region(UMAD_BASE_DEV, 2 * UMAD_FIXED_PORTS);
	return ret;
}

static void __exit ib_umad_cleanup(void)
{
	ib_unregister_client(&issm_client);
	ib_unregister_client(&umad_client);
	class_unregister(&umad_class);
	unregister_chrdev_region(umad_dynamic_base, 2 * UMAD_DYNAMIC_PORTS);
	unregister_chrdev_region(UMAD_BASE_DEV, 2 * UMAD_FIXED_PORTS);
	ida_destroy(&umad_ida);
}

module_init(ib_umad_init);
module_exit(ib_umad_cleanup);
