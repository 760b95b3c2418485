// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: module parameters (those of 6.1, same names, types, defaults and
 * permissions), the class infiniband_srp with one srp-<dev>-<port> device
 * per RDMA port, and the ib_client that makes and removes them. A device
 * going away first stops add_target, then removes every target added
 * through it before its PD goes.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "srp.h"

static unsigned int srp_sg_tablesize;
unsigned int srp_cmd_sg_entries;
unsigned int srp_indirect_sg_entries;
bool srp_allow_ext_sg;
int srp_topspin_workarounds = 1;
bool srp_register_always = true;
bool srp_never_register;
bool srp_use_imm_data = true;
unsigned int srp_max_imm_data = 8 * 1024;
unsigned int srp_ch_count;
static int srp_reconnect_delay = 10;
static int srp_fast_io_fail_tmo = 15;
static int srp_dev_loss_tmo = 600;

module_param(srp_sg_tablesize, uint, 0444);
MODULE_PARM_DESC(srp_sg_tablesize, "Deprecated name for cmd_sg_entries");
module_param_named(cmd_sg_entries, srp_cmd_sg_entries, uint, 0444);
MODULE_PARM_DESC(cmd_sg_entries,
		 "Default number of gather/scatter entries in the SRP command (default is 12, max 255)");
module_param_named(indirect_sg_entries, srp_indirect_sg_entries, uint, 0444);
MODULE_PARM_DESC(indirect_sg_entries,
		 "Default max number of gather/scatter entries (default is 12, max is " __stringify(SG_MAX_SEGMENTS) ")");
module_param_named(allow_ext_sg, srp_allow_ext_sg, bool, 0444);
MODULE_PARM_DESC(allow_ext_sg,
		 "Default behavior when there are more than cmd_sg_entries S/G entries after mapping; fails the request when false (default false)");
module_param_named(topspin_workarounds, srp_topspin_workarounds, int, 0444);
MODULE_PARM_DESC(topspin_workarounds,
		 "Enable workarounds for Topspin/Cisco SRP target bugs if != 0");
module_param_named(register_always, srp_register_always, bool, 0444);
MODULE_PARM_DESC(register_always,
		 "Use memory registration even for contiguous memory regions");
module_param_named(never_register, srp_never_register, bool, 0444);
MODULE_PARM_DESC(never_register, "Never register memory");

/* "off" (any negative) or seconds; the three are checked together. */
static int srp_tmo_get(char *buf, const struct kernel_param *kp)
{
	int v = *(int *)kp->arg;

	return v >= 0 ? sprintf(buf, "%d\n", v) : sprintf(buf, "off\n");
}

static int srp_tmo_set(const char *val, const struct kernel_param *kp)
{
	int rd = srp_reconnect_delay, fio = srp_fast_io_fail_tmo;
	int dl = srp_dev_loss_tmo, v, ret;

	ret = srp_parse_tmo(&v, val);
	if (ret)
		return ret;
	if (kp->arg == &srp_reconnect_delay)
		rd = v;
	else if (kp->arg == &srp_fast_io_fail_tmo)
		fio = v;
	else
		dl = v;
	ret = srp_tmo_valid(rd, fio, dl);
	if (ret)
		return ret;
	*(int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops srp_tmo_ops = {
	.get = srp_tmo_get,
	.set = srp_tmo_set,
};

module_param_cb(reconnect_delay, &srp_tmo_ops, &srp_reconnect_delay, 0644);
MODULE_PARM_DESC(reconnect_delay, "Time between successive reconnect attempts");
module_param_cb(fast_io_fail_tmo, &srp_tmo_ops, &srp_fast_io_fail_tmo, 0644);
MODULE_PARM_DESC(fast_io_fail_tmo,
		 "Number of seconds between the observation of a transport layer error and failing all I/O. \"off\" means that this functionality is disabled.");
module_param_cb(dev_loss_tmo, &srp_tmo_ops, &srp_dev_loss_tmo, 0644);
MODULE_PARM_DESC(dev_loss_tmo,
		 "Maximum number of seconds that the SRP transport should insulate transport layer errors. After this time has been exceeded the SCSI host is removed. Should be between 1 and "
		 __stringify(SCSI_DEVICE_BLOCK_MAX_TIMEOUT)
		 " if fast_io_fail_tmo has not been set. \"off\" means that this functionality is disabled.");
module_param_named(use_imm_data, srp_use_imm_data, bool, 0644);
MODULE_PARM_DESC(use_imm_data,
		 "Whether or not to request permission to use immediate data during SRP login.");
module_param_named(max_imm_data, srp_max_imm_data, uint, 0644);
MODULE_PARM_DESC(max_imm_data, "Maximum immediate data size.");
module_param_named(ch_count, srp_ch_count, uint, 0444);
MODULE_PARM_DESC(ch_count,
		 "Number of RDMA channels to use for communication with an SRP target. Using more than one channel improves performance if the HCA supports multiple completion vectors. The default value is the minimum of four times the number of online CPU sockets and the number of completion vectors supported by the HCA.");

struct workqueue_struct *srp_remove_wq;
static struct scsi_transport_template *srp_stt;

struct scsi_transport_template *srp_transport(void)
{
	return srp_stt;
}

static void srp_port_release(struct device *dev)
{
	kfree(container_of(dev, struct srp_port, dev));
}

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct srp_port *p = container_of(dev, struct srp_port, dev);

	return sysfs_emit(buf, "%s\n", dev_name(&p->sdev->ibdev->dev));
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t port_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct srp_port *p = container_of(dev, struct srp_port, dev);

	return sysfs_emit(buf, "%u\n", p->port);
}
static DEVICE_ATTR_RO(port);

static ssize_t add_target_store(struct device *dev,
				struct device_attribute *attr,
				const char *buf, size_t count)
{
	struct srp_port *p = container_of(dev, struct srp_port, dev);
	int ret;

	mutex_lock(&p->add_mutex);
	ret = srp_add_target(p, buf);
	mutex_unlock(&p->add_mutex);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(add_target);

static struct attribute *srp_port_attrs[] = {
	&dev_attr_add_target.attr,
	&dev_attr_ibdev.attr,
	&dev_attr_port.attr,
	NULL
};
ATTRIBUTE_GROUPS(srp_port);

static struct class srp_class = {
	.name = "infiniband_srp",
	.dev_groups = srp_port_groups,
};

static struct srp_port *srp_port_add(struct srp_dev *sd, u32 port)
{
	struct srp_port *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->sdev = sd;
	p->port = port;
	mutex_init(&p->add_mutex);
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->targets);
	p->dev.class = &srp_class;
	p->dev.parent = sd->ibdev->dev.parent;
	p->dev.release = srp_port_release;
	dev_set_name(&p->dev, "srp-%s-%u", dev_name(&sd->ibdev->dev), port);
	if (device_register(&p->dev)) {
		put_device(&p->dev);
		return NULL;
	}
	return p;
}

/* The device's targets go first; add_target cannot run after device_del. */
static void srp_port_remove(struct srp_port *p)
{
	struct srp_target *t;

	device_del(&p->dev);
	spin_lock(&p->lock);
	list_for_each_entry(t, &p->targets, node)
		__srp_queue_remove(t);
	spin_unlock(&p->lock);
	flush_workqueue(srp_remove_wq);
	put_device(&p->dev);
}

static int srp_add_one(struct ib_device *ibdev)
{
	const struct ib_device_attr *a = &ibdev->attrs;
	unsigned int pd_flags = 0;
	struct srp_port *p;
	struct srp_dev *sd;
	u32 port;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	sd->ibdev = ibdev;
	INIT_LIST_HEAD(&sd->ports);
	sd->use_fr = !srp_never_register &&
		     (a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
		     a->max_fast_reg_page_list_len >= 2;
	if (!srp_never_register && !sd->use_fr)
		dev_warn(&ibdev->dev, "FR is not supported\n");
	sd->mr_pages = min_t(u32, SRP_MAX_PAGES_PER_MR,
			     a->max_fast_reg_page_list_len);
	if (!sd->use_fr || !srp_register_always)
		pd_flags |= IB_PD_UNSAFE_GLOBAL_RKEY;
	sd->pd = ib_alloc_pd(ibdev, pd_flags);
	if (IS_ERR(sd->pd)) {
		int ret = PTR_ERR(sd->pd);

		kfree(sd);
		return ret;
	}
	if (pd_flags & IB_PD_UNSAFE_GLOBAL_RKEY) {
		sd->global_rkey = sd->pd->unsafe_global_rkey;
		sd->has_global_rkey = true;
	}
	rdma_for_each_port(ibdev, port) {
		p = srp_port_add(sd, port);
		if (p)
			list_add_tail(&p->node, &sd->ports);
	}
	ib_set_client_data(ibdev, &srp_client, sd);
	return 0;
}

static void srp_remove_one(struct ib_device *ibdev, void *data)
{
	struct srp_dev *sd = data;
	struct srp_port *p, *n;

	list_for_each_entry_safe(p, n, &sd->ports, node) {
		list_del(&p->node);
		srp_port_remove(p);
	}
	ib_dealloc_pd(sd->pd);
	kfree(sd);
}

static void srp_rename_one(struct ib_device *ibdev, void *data)
{
	struct srp_dev *sd = data;
	struct srp_port *p;

	list_for_each_entry(p, &sd->ports, node) {
		char name[IB_DEVICE_NAME_MAX + 16];

		snprintf(name, sizeof(name), "srp-%s-%u",
			 dev_name(&ibdev->dev), p->port);
		if (device_rename(&p->dev, name))
			dev_warn(&p->dev, "cannot rename to %s\n", name);
	}
}

struct ib_client srp_client = {
	.name = "srp",
	.add = srp_add_one,
	.remove = srp_remove_one,
	.rename = srp_rename_one,
};

static struct srp_function_template srp_ft = {
	.has_rport_state = true,
	.reset_timer_if_blocked = true,
	.reconnect_delay = &srp_reconnect_delay,
	.fast_io_fail_tmo = &srp_fast_io_fail_tmo,
	.dev_loss_tmo = &srp_dev_loss_tmo,
	.reconnect = srp_rport_reconnect,
	.terminate_rport_io = srp_terminate_io,
	.rport_delete = srp_rport_delete,
};

static void srp_clamp_params(void)
{
	if (srp_sg_tablesize) {
		pr_warn(DRV_NAME ": srp_sg_tablesize is deprecated, please use cmd_sg_entries\n");
		if (!srp_cmd_sg_entries)
			srp_cmd_sg_entries = srp_sg_tablesize;
	}
	if (!srp_cmd_sg_entries)
		srp_cmd_sg_entries = 12;
	if (srp_cmd_sg_entries > 255) {
		pr_warn(DRV_NAME ": Clamping cmd_sg_entries to 255\n");
		srp_cmd_sg_entries = 255;
	}
	if (!srp_indirect_sg_entries)
		srp_indirect_sg_entries = srp_cmd_sg_entries;
	else if (srp_indirect_sg_entries < srp_cmd_sg_entries)
		srp_indirect_sg_entries = srp_cmd_sg_entries;
	if (srp_indirect_sg_entries > SG_MAX_SEGMENTS) {
		pr_warn(DRV_NAME ": Clamping indirect_sg_entries to %u\n",
			SG_MAX_SEGMENTS);
		srp_indirect_sg_entries = SG_MAX_SEGMENTS;
	}
}

static int __init srp_init(void)
{
	int ret;

	srp_clamp_params();
	srp_remove_wq = alloc_workqueue("srp_remove", WQ_UNBOUND, 0);
	if (!srp_remove_wq)
		return -ENOMEM;
	ret = -ENOMEM;
	srp_stt = srp_attach_transport(&srp_ft);
	if (!srp_stt)
		goto free_wq;
	ret = class_register(&srp_class);
	if (ret) {
		pr_err(DRV_NAME ": couldn't register class infiniband_srp\n");
		goto release_tr;
	}
	ret = ib_register_client(&srp_client);
	if (ret) {
		pr_err(DRV_NAME ": couldn't register IB client\n");
		goto unreg_class;
	}
	return 0;

unreg_class:
	class_unregister(&srp_class);
release_tr:
	srp_release_transport(srp_stt);
free_wq:
	destroy_workqueue(srp_remove_wq);
	return ret;
}

static void __exit srp_exit(void)
{
	ib_unregister_client(&srp_client);
	class_unregister(&srp_class);
	srp_release_transport(srp_stt);
	destroy_workqueue(srp_remove_wq);
}

module_init(srp_init);
module_exit(srp_exit);

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("InfiniBand SCSI RDMA Protocol initiator (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
