// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_uverbs: /dev/infiniband/uverbsN, the userspace verbs interface
 * (ABI.md §4). One char device per ib_device, class "infiniband_verbs".
 *
 * Both command protocols are offered: write() (legacy and extended
 * commands) and RDMA_VERBS_IOCTL with the method/attribute framework, so
 * libibverbs takes its ioctl paths (ABI.md §4.5, strategy B). Each device
 * gets its parse tree, the core's definitions merged with its driver's.
 *
 * Device removal: none of our drivers can disassociate a live ucontext
 * from its hardware, so, as upstream does for such drivers, removing the
 * device refuses new opens and commands (-ENXIO / -EIO), queues a
 * DEVICE_FATAL async event to every open context, and then waits until
 * every command file of the device has been closed. Each open file also
 * holds a reference on the driver's module.
 */
#include <linux/cdev.h>
#include <linux/cred.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "uverbs.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("InfiniBand userspace verbs access");
MODULE_LICENSE("Dual BSD/GPL");
/* NLDEV GET_CHARDEV("uverbs") loads us on demand. */
MODULE_ALIAS("rdma-client-uverbs");

enum {
	IB_UVERBS_MAJOR		= 231,
	IB_UVERBS_BASE_MINOR	= 192,
	IB_UVERBS_NUM_FIXED_MINOR = 32,
	IB_UVERBS_MAX_DEVICES	= 1024,
	IB_UVERBS_NUM_DYNAMIC_MINOR = IB_UVERBS_MAX_DEVICES -
				      IB_UVERBS_NUM_FIXED_MINOR,
};

#define IB_UVERBS_BASE_DEV MKDEV(IB_UVERBS_MAJOR, IB_UVERBS_BASE_MINOR)

static dev_t dynamic_uverbs_dev;
static DEFINE_IDA(uverbs_ida);
static struct ib_client uverbs_client;

/* ------------------------------------------------------------ sysfs */

static ssize_t class_abi_version_show(struct class *class,
				      struct class_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_VERBS_ABI_VERSION);
}

static struct class_attribute class_attr_abi_version =
	__ATTR(abi_version, 0444, class_abi_version_show, NULL);

static struct attribute *uverbs_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_class);

static char *uverbs_devnode(struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/%s", dev_name(dev));
}

static struct class uverbs_class = {
	.name		= "infiniband_verbs",
	.owner		= THIS_MODULE,
	.devnode	= uverbs_devnode,
	.class_groups	= uverbs_class_groups,
};

static struct ib_uverbs_device *to_udev(struct device *dev)
{
	return container_of(dev, struct ib_uverbs_device, dev);
}

/*
 * The attribute files go away (and active readers drain) before remove()
 * lets go of ib_dev, so ib_dev is valid here; the name is read live and
 * so follows renames.
 */
static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", to_udev(dev)->ib_dev->name);
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t dev_abi_version_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_udev(dev)->ib_dev->ops.uverbs_abi_ver);
}

static struct device_attribute dev_attr_abi_version =
	__ATTR(abi_version, 0444, dev_abi_version_show, NULL);

static struct attribute *uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(uverbs_dev);

/* ------------------------------------------------------------ lifetimes */

static void uverbs_dev_release(struct device *dev)
{
	struct ib_uverbs_device *udev = to_udev(dev);

	uverbs_free_api(udev->uapi);
	ida_free(&uverbs_ida, udev->devnum);
	kfree(udev);
}

static void ufile_release(struct kref *ref)
{
	struct ib_uverbs_file *ufile =
		container_of(ref, struct ib_uverbs_file, ref);

	WARN_ON(!xa_empty(&ufile->idr));
	xa_destroy(&ufile->idr);
	kfree(ufile);
}

void ib_uverbs_ufile_put(struct ib_uverbs_file *ufile)
{
	kref_put(&ufile->ref, ufile_release);
}

/* ------------------------------------------------------------ file ops */

static int ib_uverbs_open(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_device *udev =
		container_of(inode->i_cdev, struct ib_uverbs_device, cdev);
	struct ib_uverbs_file *ufile;
	struct ib_device *ib_dev;
	int ret;

	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL);
	if (!ufile)
		return -ENOMEM;

	mutex_lock(&udev->lists_mutex);
	/* remove() sets going_away under this mutex: no open after it. */
	if (udev->going_away) {
		ret = -ENXIO;
		goto err_unlock;
	}
	ib_dev = udev->ib_dev;
	/* Exclusive netns mode: only the device's own namespace may use it. */
	if (!rdma_dev_access_netns(ib_dev, current->nsproxy->net_ns)) {
		ret = -EPERM;
		goto err_unlock;
	}
	if (!try_module_get(ib_dev->ops.owner)) {
		ret = -ENXIO;
		goto err_unlock;
	}
	/*
	 * An open file holds the device itself, not just this client: its
	 * unregistration waits for the close only after every client is
	 * gone, so rdma_cm can still tell the file's owner to let go.
	 */
	if (!ib_device_try_get(ib_dev)) {
		module_put(ib_dev->ops.owner);
		ret = -ENXIO;
		goto err_unlock;
	}
	get_device(&udev->dev);

	kref_init(&ufile->ref);
	ufile->device = udev;
	ufile->ib_dev = ib_dev;
	ib_uverbs_init_ufile_objs(ufile);
	list_add_tail(&ufile->list, &udev->ufiles);
	mutex_unlock(&udev->lists_mutex);

	filp->private_data = ufile;
	return stream_open(inode, filp);

err_unlock:
	mutex_unlock(&udev->lists_mutex);
	kfree(ufile);
	return ret;
}

static int ib_uverbs_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_device *udev = ufile->device;
	struct module *owner = ufile->ib_dev->ops.owner;

	ib_uverbs_destroy_ufile(ufile, RDMA_REMOVE_CLOSE);

	mutex_lock(&udev->lists_mutex);
	list_del(&ufile->list);
	mutex_unlock(&udev->lists_mutex);

	/* May let the unregistration finish: ib_dev is not touched after. */
	ib_device_put(ufile->ib_dev);
	module_put(owner);
	put_device(&udev->dev);
	ib_uverbs_ufile_put(ufile);
	return 0;
}

static ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			       size_t count, loff_t *pos)
{
	struct ib_uverbs_file *ufile = filp->private_data;

	/*
	 * write() carries commands that act with the opener's rights: refuse
	 * it from other credentials (e.g. an fd handed to a setuid program).
	 */
	if (filp->f_cred != current_cred()) {
		pr_err_once("ib_uverbs: process %d (%s) writes an fd opened with other credentials\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	return ib_uverbs_run_write(ufile, buf, count);
}

/*
 * Not under hw_destroy_rwsem: the caller holds mmap_lock, which commands
 * take (pinning memory) while holding it. The context is published
 * once with a release store and lives until close, which cannot run
 * while mmap holds the file.
 */
static int ib_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_ucontext *ucontext = smp_load_acquire(&ufile->ucontext);

	if (!ucontext)
		return -EINVAL;
	if (!ufile->ib_dev->ops.mmap)
		return -ENODEV;
	return ufile->ib_dev->ops.mmap(ucontext, vma);
}

static const struct file_operations uverbs_fops = {
	.owner	 = THIS_MODULE,
	.open	 = ib_uverbs_open,
	.release = ib_uverbs_close,
	.write	 = ib_uverbs_write,
	.unlocked_ioctl = ib_uverbs_ioctl,
	.compat_ioctl = ib_uverbs_ioctl,
	.mmap	 = ib_uverbs_mmap,
	.llseek	 = no_llseek,
};

/* ------------------------------------------------------------ ib_client */

static int ib_uverbs_add_one(struct ib_device *device)
{
	struct ib_uverbs_device *udev;
	dev_t devt;
	int devnum, ret;

	/* Kernel-only devices have nothing to offer userspace. */
	if (!device->ops.alloc_ucontext)
		return -EOPNOTSUPP;

	devnum = ida_alloc_max(&uverbs_ida, IB_UVERBS_MAX_DEVICES - 1,
			       GFP_KERNEL);
	if (devnum < 0)
		return devnum;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev) {
		ida_free(&uverbs_ida, devnum);
		return -ENOMEM;
	}
	udev->uapi = uverbs_build_api(device);
	if (IS_ERR(udev->uapi)) {
		ret = PTR_ERR(udev->uapi);
		kfree(udev);
		ida_free(&uverbs_ida, devnum);
		return ret;
	}
	udev->devnum = devnum;
	udev->ib_dev = device;
	mutex_init(&udev->lists_mutex);
	INIT_LIST_HEAD(&udev->ufiles);

	/* The first 32 keep the historic 231:192+N; the rest are dynamic. */
	if (devnum < IB_UVERBS_NUM_FIXED_MINOR)
		devt = IB_UVERBS_BASE_DEV + devnum;
	else
		devt = dynamic_uverbs_dev + devnum - IB_UVERBS_NUM_FIXED_MINOR;

	device_initialize(&udev->dev);
	udev->dev.class = &uverbs_class;
	udev->dev.parent = device->dev.parent;
	udev->dev.devt = devt;
	udev->dev.groups = uverbs_dev_groups;
	udev->dev.release = uverbs_dev_release;
	ret = dev_set_name(&udev->dev, "uverbs%d", devnum);
	if (ret)
		goto err_put;

	cdev_init(&udev->cdev, &uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err_put;

	ib_set_client_data(device, &uverbs_client, udev);
	return 0;

err_put:
	/* The release frees udev and its number. */
	put_device(&udev->dev);
	return ret;
}

static void ib_uverbs_remove_one(struct ib_device *device, void *client_data)
{
	struct ib_uverbs_device *udev = client_data;
	struct ib_uverbs_file *ufile;
	unsigned int nfiles = 0;

	if (!udev)
		return;

	/* No new opens through the node; sysfs readers are drained. */
	cdev_device_del(&udev->cdev, &udev->dev);

	mutex_lock(&udev->lists_mutex);
	udev->going_away = true;
	list_for_each_entry(ufile, &udev->ufiles, list) {
		down_read(&ufile->hw_destroy_rwsem);
		if (ufile->default_async_file)
			ib_uverbs_async_file_device_event(
				ufile->default_async_file,
				IB_EVENT_DEVICE_FATAL, 0);
		up_read(&ufile->hw_destroy_rwsem);
		nfiles++;
	}
	mutex_unlock(&udev->lists_mutex);

	/*
	 * No wait here: each open file holds the ib_device, so the
	 * unregistration waits for it after the other clients are removed
	 * (rdma_cm's DEVICE_REMOVAL is what makes rping and friends close).
	 */
	if (nfiles)
		dev_info(&device->dev,
			 "%u open uverbs file(s) keep the device until closed\n",
			 nfiles);
	put_device(&udev->dev);
}

/* Device renamed: ibdev reads the name live; tell udev to look again. */
static void ib_uverbs_rename(struct ib_device *device, void *client_data)
{
	struct ib_uverbs_device *udev = client_data;

	if (udev)
		kobject_uevent(&udev->dev.kobj, KOBJ_CHANGE);
}

static int ib_uverbs_get_nl_info(struct ib_device *ibdev, void *client_data,
				 struct ib_client_nl_info *res)
{
	struct ib_uverbs_device *udev = client_data;
	int ret;

	/* One char device per device: a port makes no sense here. */
	if (res->port != U32_MAX)
		return -EINVAL;
	if (!udev)
		return -EOPNOTSUPP;

	res->abi = ibdev->ops.uverbs_abi_ver;
	res->cdev = &udev->dev;

	/* libibverbs matches its provider by this id (siw: only by it). */
	if (!ibdev->ops.uverbs_no_driver_id_binding) {
		ret = nla_put_u32(res->nl_msg, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
				  ibdev->ops.driver_id);
		if (ret)
			return ret;
	}
	return 0;
}

static struct ib_client uverbs_client = {
	.name		= "uverbs",
	.no_kverbs_req	= true,
	.add		= ib_uverbs_add_one,
	.remove		= ib_uverbs_remove_one,
	.rename		= ib_uverbs_rename,
	.get_nl_info	= ib_uverbs_get_nl_info,
};

/* ------------------------------------------------------------ module */

static int __init ib_uverbs_init(void)
{
	int ret;

	ret = register_chrdev_region(IB_UVERBS_BASE_DEV,
				     IB_UVERBS_NUM_FIXED_MINOR,
				     "infiniband_verbs");
	if (ret) {
		pr_err("ib_uverbs: couldn't register device numbers\n");
		return ret;
	}
	ret = alloc_chrdev_region(&dynamic_uverbs_dev, 0,
				  IB_UVERBS_NUM_DYNAMIC_MINOR,
				  "infiniband_verbs");
	if (ret) {
		pr_err("ib_uverbs: couldn't register dynamic device numbers\n");
		goto err_fixed;
	}
	ret = class_register(&uverbs_class);
	if (ret) {
		pr_err("ib_uverbs: couldn't create class infiniband_verbs\n");
		goto err_dynamic;
	}
	ret = ib_register_client(&uverbs_client);
	if (ret) {
		pr_err("ib_uverbs: couldn't register client\n");
		goto err_class;
	}
	return 0;

err_class:
	class_unregister(&uverbs_class);
err_dynamic:
	unregister_chrdev_region(dynamic_uverbs_dev,
				 IB_UVERBS_NUM_DYNAMIC_MINOR);
err_fixed:
	unregister_chrdev_region(IB_UVERBS_BASE_DEV, IB_UVERBS_NUM_FIXED_MINOR);
	return ret;
}

static void __exit ib_uverbs_cleanup(void)
{
	ib_unregister_client(&uverbs_client);
	class_unregister(&uverbs_class);
	unregister_chrdev_region(dynamic_uverbs_dev,
				 IB_UVERBS_NUM_DYNAMIC_MINOR);
	unregister_chrdev_region(IB_UVERBS_BASE_DEV, IB_UVERBS_NUM_FIXED_MINOR);
	ida_destroy(&uverbs_ida);
}

module_init(ib_uverbs_init);
module_exit(ib_uverbs_cleanup);
