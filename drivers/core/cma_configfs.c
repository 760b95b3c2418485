// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * configfs for rdma_cm: /sys/kernel/config/rdma_cm/<ibdev>/ports/<N>/
 * {default_roce_mode,default_roce_tos}, the per-port defaults rdma_cm uses
 * for RoCE connections (seed 002 §2.2, ABI.md §7).
 *
 * The admin creates <ibdev> with mkdir; its ports/N directories come with
 * it. The files look the device up by name on every access, so they answer
 * ENODEV once the device is gone and work again for a device re-added
 * under the same name. configfs cannot remove a directory an admin made,
 * so a removed device's directory stays until rmdir, as upstream.
 */
#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "cma_priv.h"

struct cma_port_group {
	u32 port_num;
	struct cma_dev_group *dev_group;
	struct config_group group;
};

struct cma_dev_group {
	char name[IB_DEVICE_NAME_MAX];
	struct config_group device_group;
	struct config_group ports_group;
	unsigned int nports;
	struct cma_port_group ports[];
};

static struct cma_port_group *to_port_group(struct config_item *item)
{
	return container_of(to_config_group(item), struct cma_port_group,
			    group);
}

/* The port's device, referenced; its port number in *port. */
static struct cma_device *port_cma_dev(struct config_item *item, u32 *port)
{
	struct cma_port_group *pg = to_port_group(item);
	struct cma_device *cma_dev;

	cma_dev = cma_get_device_by_name(pg->dev_group->name);
	if (!cma_dev)
		return ERR_PTR(-ENODEV);
	if (!rdma_is_port_valid(cma_dev->device, pg->port_num)) {
		cma_dev_put(cma_dev);
		return ERR_PTR(-ENODEV);
	}
	*port = pg->port_num;
	return cma_dev;
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	enum ib_gid_type type;
	u32 port;

	cma_dev = port_cma_dev(item, &port);
	if (IS_ERR(cma_dev))
		return PTR_ERR(cma_dev);
	type = cma_get_default_gid_type(cma_dev, port);
	cma_dev_put(cma_dev);
	return sysfs_emit(buf, "%s\n", ib_cache_gid_type_str(type));
}

/* "IB/RoCE v1" or "RoCE v2", one trailing newline allowed. */
static int parse_gid_type(const char *buf, size_t count,
			  enum ib_gid_type *type)
{
	static const enum ib_gid_type names[] = {
		IB_GID_TYPE_IB, IB_GID_TYPE_ROCE_UDP_ENCAP,
	};
	size_t len = strnlen(buf, count);
	unsigned int i;

	if (len && buf[len - 1] == '\n')
		len--;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		const char *name = ib_cache_gid_type_str(names[i]);

		if (len == strlen(name) && !strncmp(buf, name, len)) {
			*type = names[i];
			return 0;
		}
	}
	return -EINVAL;
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	enum ib_gid_type type;
	u32 port;
	int ret;

	ret = parse_gid_type(buf, count, &type);
	if (ret)
		return ret;
	cma_dev = port_cma_dev(item, &port);
	if (IS_ERR(cma_dev))
		return PTR_ERR(cma_dev);
	ret = cma_set_default_gid_type(cma_dev, port, type);
	cma_dev_put(cma_dev);
	return ret ? ret : strnlen(buf, count);
}

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct cma_device *cma_dev;
	u32 port;
	u8 tos;

	cma_dev = port_cma_dev(item, &port);
	if (IS_ERR(cma_dev))
		return PTR_ERR(cma_dev);
	tos = cma_get_default_roce_tos(cma_dev, port);
	cma_dev_put(cma_dev);
	return sysfs_emit(buf, "%u\n", tos);
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct cma_device *cma_dev;
	u32 port;
	u8 tos;
	int ret;

	ret = kstrtou8(buf, 0, &tos);
	if (ret)
		return ret;
	cma_dev = port_cma_dev(item, &port);
	if (IS_ERR(cma_dev))
		return PTR_ERR(cma_dev);
	ret = cma_set_default_roce_tos(cma_dev, port, tos);
	cma_dev_put(cma_dev);
	return ret ? ret : strnlen(buf, count);
}

CONFIGFS_ATTR(, default_roce_mode);
CONFIGFS_ATTR(, default_roce_tos);

static struct configfs_attribute *cma_port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	NULL,
};

static const struct config_item_type cma_port_type = {
	.ct_attrs = cma_port_attrs,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type cma_ports_type = {
	.ct_owner = THIS_MODULE,
};

/* Runs once the device group and its default groups have all been put. */
static void cma_dev_group_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct cma_dev_group,
			   device_group));
}

static struct configfs_item_operations cma_dev_item_ops = {
	.release = cma_dev_group_release,
};

static const struct config_item_type cma_dev_type = {
	.ct_item_ops = &cma_dev_item_ops,
	.ct_owner = THIS_MODULE,
};

static struct config_group *make_cma_dev(struct config_group *group,
					 const char *name)
{
	struct cma_dev_group *dg;
	struct cma_device *cma_dev;
	struct ib_device *device;
	unsigned int i;

	cma_dev = cma_get_device_by_name(name);
	if (!cma_dev)
		return ERR_PTR(-ENODEV);
	device = cma_dev->device;

	dg = kzalloc(struct_size(dg, ports, device->phys_port_cnt),
		     GFP_KERNEL);
	if (!dg) {
		cma_dev_put(cma_dev);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(dg->name, name, sizeof(dg->name));
	dg->nports = device->phys_port_cnt;

	config_group_init_type_name(&dg->device_group, name, &cma_dev_type);
	config_group_init_type_name(&dg->ports_group, "ports",
				    &cma_ports_type);
	configfs_add_default_group(&dg->ports_group, &dg->device_group);
	for (i = 0; i < dg->nports; i++) {
		struct cma_port_group *pg = &dg->ports[i];
		char port_name[11];

		pg->port_num = rdma_start_port(device) + i;
		pg->dev_group = dg;
		snprintf(port_name, sizeof(port_name), "%u", pg->port_num);
		config_group_init_type_name(&pg->group, port_name,
					    &cma_port_type);
		configfs_add_default_group(&pg->group, &dg->ports_group);
	}
	cma_dev_put(cma_dev);
	return &dg->device_group;
}

static void drop_cma_dev(struct config_group *group, struct config_item *item)
{
	struct config_group *devg = to_config_group(item);
	struct cma_dev_group *dg = container_of(devg, struct cma_dev_group,
						device_group);

	/* Innermost first: the port groups, then the ports directory. */
	configfs_remove_default_groups(&dg->ports_group);
	configfs_remove_default_groups(devg);
	config_item_put(item);
}

static struct configfs_group_operations cma_subsys_group_ops = {
	.make_group = make_cma_dev,
	.drop_item = drop_cma_dev,
};

static const struct config_item_type cma_subsys_type = {
	.ct_group_ops = &cma_subsys_group_ops,
	.ct_owner = THIS_MODULE,
};

/* /sys/kernel/config/rdma_cm; named and typed at init. */
static struct configfs_subsystem cma_subsys;

int cma_configfs_init(void)
{
	mutex_init(&cma_subsys.su_mutex);
	config_group_init_type_name(&cma_subsys.su_group, "rdma_cm",
				    &cma_subsys_type);
	return configfs_register_subsystem(&cma_subsys);
}

void cma_configfs_exit(void)
{
	configfs_unregister_subsystem(&cma_subsys);
}
