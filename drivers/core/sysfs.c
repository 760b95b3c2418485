// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The "infiniband" sysfs class: /sys/class/infiniband/<dev>/ and its
 * ports/<N>/ directories, in the exact formats libibverbs, libibumad
 * (ibstat) and udev parse.
 *
 * Device files are plain device attributes, created by device_add() from
 * ibdev->groups. Each port is a kobject under "ports"; its GID, P_Key and
 * GID attribute tables have one file per index (1024 GIDs on rxe), so they
 * are built as dynamically allocated attribute groups, one call per table.
 *
 * The class is tagged by network namespace: a device's entry is seen only
 * from the sysfs of its namespace. In shared netns mode every other
 * namespace gets a view of its own (netns.c decides when): an
 * ib_core_device of the same name whose files read and write the same
 * ib_device, with the port files but without the hardware counters.
 */
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>
#include "core_priv.h"

/* Table indexes are u16 in the GID/P_Key APIs. */
#define IB_SYSFS_MAX_TBL_LEN	(U16_MAX + 1)

/* One numbered file of a table: gids/<i>, pkeys/<i>, gid_attrs/.../<i>. */
struct port_table_attribute {
	struct ib_port_attribute attr;
	u32 index;
};

/* ports/<N>/gid_attrs: its own kobject, it holds two table directories. */
struct gid_attr_dir {
	struct kobject kobj;
	struct ib_port *port;
};

struct ib_port {
	struct kobject kobj;
	struct list_head entry;		/* in its ib_core_device's port_list */
	struct ib_device *ibdev;
	u32 port_num;
	struct gid_attr_dir *gid_dir;

	struct attribute_group gid_group;	/* gids/ */
	struct attribute_group pkey_group;	/* pkeys/ */
	struct attribute_group type_group;	/* gid_attrs/types/ */
	struct attribute_group ndev_group;	/* gid_attrs/ndevs/ */
	const struct attribute_group *table_groups[3];
	const struct attribute_group *gid_attr_groups[3];

	/* Backing store of the table files; freed with the port. */
	struct port_table_attribute *tbl;
	void *hw_counters;		/* hw_counters/, hw_counters.c */
	struct attribute **tbl_ptrs;
	char (*names)[12];
};

static struct ib_port *port_table_owner(struct kobject *kobj);

/* ---- device files: /sys/class/infiniband/<dev>/ ---- */

static const char * const node_type_names[] = {
	[RDMA_NODE_IB_CA] = "CA",
	[RDMA_NODE_IB_SWITCH] = "switch",
	[RDMA_NODE_IB_ROUTER] = "router",
	[RDMA_NODE_RNIC] = "RNIC",
	[RDMA_NODE_USNIC] = "usNIC",
	[RDMA_NODE_USNIC_UDP] = "usNIC UDP",
	[RDMA_NODE_UNSPECIFIED] = "unspecified",
};

/* The 16-bit words of a big-endian GUID, in wire order. */
static ssize_t emit_guid(char *buf, __be64 be_guid)
{
	u64 guid = be64_to_cpu(be_guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(guid >> 48), (u16)(guid >> 32),
			  (u16)(guid >> 16), (u16)guid);
}

static ssize_t node_type_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);
	unsigned int type = dev->node_type;

	if (type < ARRAY_SIZE(node_type_names) && node_type_names[type])
		return sysfs_emit(buf, "%u: %s\n", type, node_type_names[type]);
	return sysfs_emit(buf, "%u: <unknown>\n", type);
}
static DEVICE_ATTR_RO(node_type);

static ssize_t node_guid_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	return emit_guid(buf, rdma_device_to_ibdev(device)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *device,
				   struct device_attribute *attr, char *buf)
{
	return emit_guid(buf, rdma_device_to_ibdev(device)->attrs.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	char fw[IB_FW_VERSION_NAME_MAX] = {};

	ib_get_device_fw_str(rdma_device_to_ibdev(device), fw);
	fw[sizeof(fw) - 1] = '\0';
	return sysfs_emit(buf, "%s\n", fw);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t node_desc_show(struct device *device,
			      struct device_attribute *attr, char *buf)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);

	/* node_desc need not be NUL-terminated when all 64 bytes are used. */
	return sysfs_emit(buf, "%.64s\n", dev->node_desc);
}

static ssize_t node_desc_store(struct device *device,
			       struct device_attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);
	struct ib_device_modify desc = {};
	int ret;

	if (!dev->ops.modify_device)
		return -EOPNOTSUPP;

	/* Taken verbatim, newline included, as the upstream kernel does. */
	memcpy(desc.node_desc, buf, min_t(size_t, count, sizeof(desc.node_desc)));
	ret = ib_modify_device(dev, IB_DEVICE_MODIFY_NODE_DESC, &desc);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(node_desc);

static struct attribute *ib_dev_attrs[] = {
	&dev_attr_node_type.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_sys_image_guid.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	NULL
};

static const struct attribute_group ib_dev_attr_group = {
	.attrs = ib_dev_attrs,
};

/* ---- fixed port files: ports/<N>/{state,rate,...} ---- */

static const char * const port_state_names[] = {
	[IB_PORT_NOP] = "NOP",
	[IB_PORT_DOWN] = "DOWN",
	[IB_PORT_INIT] = "INIT",
	[IB_PORT_ARMED] = "ARMED",
	[IB_PORT_ACTIVE] = "ACTIVE",
	[IB_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
};

static const char * const phys_state_names[] = {
	[IB_PORT_PHYS_STATE_SLEEP] = "Sleep",
	[IB_PORT_PHYS_STATE_POLLING] = "Polling",
	[IB_PORT_PHYS_STATE_DISABLED] = "Disabled",
	[IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] =
		"PortConfigurationTraining",
	[IB_PORT_PHYS_STATE_LINK_UP] = "LinkUp",
	[IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
	[IB_PORT_PHYS_STATE_PHY_TEST] = "Phy Test",
};

static ssize_t state_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	const char *name = "UNKNOWN";
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	if ((unsigned int)attr.state < ARRAY_SIZE(port_state_names))
		name = port_state_names[attr.state];
	return sysfs_emit(buf, "%d: %s\n", attr.state, name);
}

static ssize_t phys_state_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	const char *name = NULL;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	if (attr.phys_state < ARRAY_SIZE(phys_state_names))
		name = phys_state_names[attr.phys_state];
	return sysfs_emit(buf, "%u: %s\n", attr.phys_state,
			  name ? name : "<unknown>");
}

/*
 * "<Gb/s> Gb/sec (<lanes>X <speed>)". The per-lane rate is kept in units of
 * 100 Mb/s so that SDR's 2.5 Gb/s stays exact; as userspace expects, a
 * non-zero tenth is printed as ".5".
 */
static ssize_t rate_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	const char *speed;
	int lane_rate, lanes, rate;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;

	switch (attr.active_speed) {
	case IB_SPEED_DDR:
		speed = " DDR";
		lane_rate = 50;
		break;
	case IB_SPEED_QDR:
		speed = " QDR";
		lane_rate = 100;
		break;
	case IB_SPEED_FDR10:
		speed = " FDR10";
		lane_rate = 100;
		break;
	case IB_SPEED_FDR:
		speed = " FDR";
		lane_rate = 140;
		break;
	case IB_SPEED_EDR:
		speed = " EDR";
		lane_rate = 250;
		break;
	case IB_SPEED_HDR:
		speed = " HDR";
		lane_rate = 500;
		break;
	case IB_SPEED_NDR:
		speed = " NDR";
		lane_rate = 1000;
		break;
	case IB_SPEED_SDR:
	default:
		speed = " SDR";
		lane_rate = 25;
		break;
	}

	lanes = ib_width_enum_to_int(attr.active_width);
	if (lanes < 0)
		return -EINVAL;

	rate = lane_rate * lanes;
	return sysfs_emit(buf, "%d%s Gb/sec (%dX%s)\n", rate / 10,
			  rate % 10 ? ".5" : "", lanes, speed);
}

static ssize_t lid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%x\n", attr.lid);
}

static ssize_t lid_mask_count_show(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", attr.lmc);
}

static ssize_t sm_lid_show(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%x\n", attr.sm_lid);
}

static ssize_t sm_sl_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", attr.sm_sl);
}

static ssize_t cap_mask_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *unused, char *buf)
{
	struct ib_port_attr attr;
	int ret;

	ret = ib_query_port(ibdev, port_num, &attr);
	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%08x\n", attr.port_cap_flags);
}

static ssize_t link_layer_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *unused, char *buf)
{
	const char *name;

	switch (rdma_port_get_link_layer(ibdev, port_num)) {
	case IB_LINK_LAYER_INFINIBAND:
		name = "InfiniBand";
		break;
	case IB_LINK_LAYER_ETHERNET:
		name = "Ethernet";
		break;
	default:
		name = "Unknown";
		break;
	}
	return sysfs_emit(buf, "%s\n", name);
}

static IB_PORT_ATTR_RO(state);
static IB_PORT_ATTR_RO(phys_state);
static IB_PORT_ATTR_RO(rate);
static IB_PORT_ATTR_RO(lid);
static IB_PORT_ATTR_RO(lid_mask_count);
static IB_PORT_ATTR_RO(sm_lid);
static IB_PORT_ATTR_RO(sm_sl);
static IB_PORT_ATTR_RO(cap_mask);
static IB_PORT_ATTR_RO(link_layer);

static struct attribute *port_default_attrs[] = {
	&ib_port_attr_state.attr,
	&ib_port_attr_phys_state.attr,
	&ib_port_attr_rate.attr,
	&ib_port_attr_lid.attr,
	&ib_port_attr_lid_mask_count.attr,
	&ib_port_attr_sm_lid.attr,
	&ib_port_attr_sm_sl.attr,
	&ib_port_attr_cap_mask.attr,
	&ib_port_attr_link_layer.attr,
	NULL
};
ATTRIBUTE_GROUPS(port_default);

/* ---- port tables: gids/<i>, gid_attrs/{types,ndevs}/<i>, pkeys/<i> ---- */

static u32 table_index(struct ib_port_attribute *attr)
{
	return container_of(attr, struct port_table_attribute, attr)->index;
}

static ssize_t gid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *attr, char *buf)
{
	union ib_gid gid;
	int ret;

	ret = rdma_query_gid(ibdev, port_num, table_index(attr), &gid);
	if (ret == -EINVAL || ret == -ENODATA || ret == -EAGAIN)
		/* An unused slot: every index must read, as all zeroes. */
		memset(&gid, 0, sizeof(gid));
	else if (ret)
		return ret;

	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

/*
 * Reading the type or netdev of an empty GID entry fails with EINVAL,
 * whatever the cause: libibverbs takes EINVAL to mean "no attributes".
 */
static ssize_t gid_type_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	const struct ib_gid_attr *gid_attr;
	const char *type;
	ssize_t ret;

	gid_attr = rdma_get_gid_attr(ibdev, port_num, table_index(attr));
	if (IS_ERR(gid_attr))
		return -EINVAL;

	type = ib_cache_gid_type_str(gid_attr->gid_type);
	ret = type ? sysfs_emit(buf, "%s\n", type) : -EINVAL;
	rdma_put_gid_attr(gid_attr);
	return ret;
}

static ssize_t gid_ndev_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *attr, char *buf)
{
	const struct ib_gid_attr *gid_attr;
	struct net_device *ndev;
	ssize_t ret;

	gid_attr = rdma_get_gid_attr(ibdev, port_num, table_index(attr));
	if (IS_ERR(gid_attr))
		return -EINVAL;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gid_attr);
	if (IS_ERR_OR_NULL(ndev))
		ret = -EINVAL;
	else
		ret = sysfs_emit(buf, "%s\n", ndev->name);
	rcu_read_unlock();

	rdma_put_gid_attr(gid_attr);
	return ret;
}

static ssize_t pkey_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *attr, char *buf)
{
	u16 pkey;
	int ret;

	ret = ib_query_pkey(ibdev, port_num, table_index(attr), &pkey);
	if (ret)
		return ret;
	return sysfs_emit(buf, "0x%04x\n", pkey);
}

/*
 * Fills one named group with n read-only files "0".."n-1" taken from *tbl
 * and *ptrs (NULL-terminated list), and advances both past what it used.
 */
static void init_table_group(struct ib_port *p, struct attribute_group *grp,
			     const char *name, u32 n,
			     struct port_table_attribute **tbl,
			     struct attribute ***ptrs,
			     ssize_t (*show)(struct ib_device *, u32,
					     struct ib_port_attribute *,
					     char *))
{
	struct port_table_attribute *a = *tbl;
	struct attribute **list = *ptrs;
	u32 i;

	for (i = 0; i < n; i++) {
		sysfs_attr_init(&a[i].attr.attr);
		a[i].attr.attr.name = p->names[i];
		a[i].attr.attr.mode = 0444;
		a[i].attr.show = show;
		a[i].index = i;
		list[i] = &a[i].attr.attr;
	}
	list[n] = NULL;

	grp->name = name;
	grp->attrs = list;
	*tbl = a + n;
	*ptrs = list + n + 1;
}

static int alloc_port_tables(struct ib_port *p, u32 n_gid, u32 n_pkey)
{
	u32 n_names = max(n_gid, n_pkey);
	u32 n_tbl = 3 * n_gid + n_pkey;
	struct port_table_attribute *tbl;
	struct attribute **ptrs;
	u32 i;

	p->names = kvcalloc(n_names, sizeof(*p->names), GFP_KERNEL);
	p->tbl = kvcalloc(n_tbl, sizeof(*p->tbl), GFP_KERNEL);
	/* Room for the NULL that ends each of the four lists. */
	p->tbl_ptrs = kvcalloc(n_tbl + 4, sizeof(*p->tbl_ptrs), GFP_KERNEL);
	if (!p->names || !p->tbl || !p->tbl_ptrs)
		return -ENOMEM;

	for (i = 0; i < n_names; i++)
		snprintf(p->names[i], sizeof(p->names[i]), "%u", i);

	tbl = p->tbl;
	ptrs = p->tbl_ptrs;
	init_table_group(p, &p->gid_group, "gids", n_gid, &tbl, &ptrs,
			 gid_show);
	init_table_group(p, &p->type_group, "types", n_gid, &tbl, &ptrs,
			 gid_type_show);
	init_table_group(p, &p->ndev_group, "ndevs", n_gid, &tbl, &ptrs,
			 gid_ndev_show);
	init_table_group(p, &p->pkey_group, "pkeys", n_pkey, &tbl, &ptrs,
			 pkey_show);

	p->table_groups[0] = &p->gid_group;
	/* Userspace expects no pkeys/ at all rather than an empty one. */
	p->table_groups[1] = n_pkey ? &p->pkey_group : NULL;
	p->table_groups[2] = NULL;

	p->gid_attr_groups[0] = &p->ndev_group;
	p->gid_attr_groups[1] = &p->type_group;
	p->gid_attr_groups[2] = NULL;
	return 0;
}

/* ---- kobjects: ports/, ports/<N>/, ports/<N>/gid_attrs/ ---- */

static ssize_t port_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct ib_port_attribute *pa =
		container_of(attr, struct ib_port_attribute, attr);
	struct ib_port *p = port_table_owner(kobj);

	if (!pa->show)
		return -EIO;
	return pa->show(p->ibdev, p->port_num, pa, buf);
}

static ssize_t port_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_port_attribute *pa =
		container_of(attr, struct ib_port_attribute, attr);
	struct ib_port *p = port_table_owner(kobj);

	if (!pa->store)
		return -EIO;
	return pa->store(p->ibdev, p->port_num, pa, buf, count);
}

static const struct sysfs_ops port_sysfs_ops = {
	.show = port_attr_show,
	.store = port_attr_store,
};

static void ib_port_release(struct kobject *kobj)
{
	struct ib_port *p = container_of(kobj, struct ib_port, kobj);

	kvfree(p->names);
	kvfree(p->tbl_ptrs);
	kvfree(p->tbl);
	kfree(p);
}

static struct kobj_type port_ktype = {
	.release = ib_port_release,
	.sysfs_ops = &port_sysfs_ops,
	.default_groups = port_default_groups,
};

static void gid_attr_dir_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct gid_attr_dir, kobj));
}

static struct kobj_type gid_attr_dir_ktype = {
	.release = gid_attr_dir_release,
	.sysfs_ops = &port_sysfs_ops,
};

/*
 * The port a file belongs to. gid_attrs/ holds a reference on its parent
 * port kobject, so the port outlives it.
 */
static struct ib_port *port_table_owner(struct kobject *kobj)
{
	if (kobj->ktype == &gid_attr_dir_ktype)
		return container_of(kobj, struct gid_attr_dir, kobj)->port;
	return container_of(kobj, struct ib_port, kobj);
}

struct ib_device *ib_port_sysfs_get_ibdev_kobj(struct kobject *kobj,
					       u32 *port_num)
{
	struct ib_port *p;

	if (kobj->ktype != &port_ktype)
		return NULL;
	p = container_of(kobj, struct ib_port, kobj);
	*port_num = p->port_num;
	return p->ibdev;
}
EXPORT_SYMBOL(ib_port_sysfs_get_ibdev_kobj);

static void remove_port(struct ib_port *p)
{
	ib_free_port_hw_counters(p->ibdev, p->port_num, &p->kobj,
				 p->hw_counters);
	p->hw_counters = NULL;
	/* Children first: kobject_del() of the port would orphan them. */
	kobject_del(&p->gid_dir->kobj);
	kobject_put(&p->gid_dir->kobj);
	kobject_del(&p->kobj);
	kobject_put(&p->kobj);
}

/*
 * ports/<port_num> of @coredev. Only the device's own directory (@main)
 * gets the hardware counters and is what port_data[].sysfs points to.
 */
static int add_port(struct ib_core_device *coredev, u32 port_num, bool main)
{
	struct ib_device *ibdev = coredev->owner;
	const struct ib_port_immutable *imm =
		&ibdev->port_data[port_num].immutable;
	struct gid_attr_dir *gid_dir;
	struct ib_port *p;
	int ret;

	if (imm->gid_tbl_len < 0 || imm->gid_tbl_len > IB_SYSFS_MAX_TBL_LEN ||
	    imm->pkey_tbl_len < 0 || imm->pkey_tbl_len > IB_SYSFS_MAX_TBL_LEN)
		return -EINVAL;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->ibdev = ibdev;
	p->port_num = port_num;
	/* From here on the release function frees p and its tables. */
	kobject_init(&p->kobj, &port_ktype);

	ret = alloc_port_tables(p, imm->gid_tbl_len, imm->pkey_tbl_len);
	if (ret)
		goto err_put;

	ret = kobject_add(&p->kobj, coredev->ports_kobj, "%u", port_num);
	if (ret)
		goto err_put;

	ret = sysfs_create_groups(&p->kobj, p->table_groups);
	if (ret)
		goto err_del;

	gid_dir = kzalloc(sizeof(*gid_dir), GFP_KERNEL);
	if (!gid_dir) {
		ret = -ENOMEM;
		goto err_del;
	}
	gid_dir->port = p;
	p->gid_dir = gid_dir;
	ret = kobject_init_and_add(&gid_dir->kobj, &gid_attr_dir_ktype,
				   &p->kobj, "gid_attrs");
	if (ret)
		goto err_put_gid;

	ret = sysfs_create_groups(&gid_dir->kobj, p->gid_attr_groups);
	if (ret)
		goto err_del_gid;

	/* The driver's own port files share our show/store dispatch. */
	ret = sysfs_create_groups(&p->kobj, ibdev->ops.port_groups);
	if (ret)
		goto err_del_gid;

	if (main) {
		ret = ib_setup_port_hw_counters(ibdev, port_num, &p->kobj,
						&p->hw_counters);
		if (ret)
			goto err_del_gid;
		ibdev->port_data[port_num].sysfs = p;
	}
	list_add_tail(&p->entry, &coredev->port_list);
	return 0;

err_del_gid:
	kobject_del(&gid_dir->kobj);
err_put_gid:
	kobject_put(&gid_dir->kobj);
err_del:
	kobject_del(&p->kobj);
err_put:
	kobject_put(&p->kobj);
	return ret;
}

/* Before device_add(): the device files come from dev.groups. */
int ib_setup_device_attrs(struct ib_device *ibdev)
{
	unsigned int i = 0;

	ibdev->groups[i++] = &ib_dev_attr_group;
	if (ibdev->ops.device_group)
		ibdev->groups[i++] = ibdev->ops.device_group;
	ibdev->groups[i] = NULL;
	ibdev->dev.groups = ibdev->groups;
	return 0;
}

/* After device_add(): ports/ and one directory per port. */
int ib_setup_port_attrs(struct ib_core_device *coredev)
{
	struct ib_device *ibdev = coredev->owner;
	u32 port;
	int ret;

	coredev->ports_kobj = kobject_create_and_add("ports", &coredev->dev.kobj);
	if (!coredev->ports_kobj)
		return -ENOMEM;

	rdma_for_each_port(ibdev, port) {
		ret = add_port(coredev, port, coredev == &ibdev->coredev);
		if (ret)
			goto err;
	}
	return 0;

err:
	ib_free_port_attrs(coredev);
	return ret;
}

/*
 * Before device_del(). Removing a file waits for its running show() calls,
 * so none can run once this returns; the caller must therefore not hold a
 * lock a show() may take (RTNL, through query_port).
 */
void ib_free_port_attrs(struct ib_core_device *coredev)
{
	struct ib_port *p, *tmp;

	if (!coredev->ports_kobj)
		return;

	list_for_each_entry_safe(p, tmp, &coredev->port_list, entry) {
		list_del(&p->entry);
		if (coredev == &p->ibdev->coredev)
			p->ibdev->port_data[p->port_num].sysfs = NULL;
		remove_port(p);
	}

	kobject_del(coredev->ports_kobj);
	kobject_put(coredev->ports_kobj);
	coredev->ports_kobj = NULL;
}

/* ---- views of a device in other network namespaces ---- */

static void ib_view_release(struct device *dev)
{
	kfree(container_of(dev, struct ib_core_device, dev));
}

/*
 * A view of @ibdev in @net: the device files (the same groups, so a driver's
 * device_group too) and the ports. Its name is read under the caller's
 * serialisation with renames (netns.c holds compat_devs_mutex).
 */
struct ib_core_device *ib_sysfs_view_add(struct ib_device *ibdev,
					 struct net *net)
{
	struct ib_core_device *view;
	int ret;

	view = kzalloc(sizeof(*view), GFP_KERNEL);
	if (!view)
		return ERR_PTR(-ENOMEM);
	device_initialize(&view->dev);
	view->dev.class = &ib_class;
	view->dev.parent = ibdev->dev.parent;
	view->dev.groups = ibdev->dev.groups;
	view->dev.release = ib_view_release;
	INIT_LIST_HEAD(&view->port_list);
	view->owner = ibdev;
	write_pnet(&view->rdma_net, net);

	ret = dev_set_name(&view->dev, "%s", dev_name(&ibdev->dev));
	if (ret)
		goto err_put;
	ret = device_add(&view->dev);
	if (ret)
		goto err_put;
	ret = ib_setup_port_attrs(view);
	if (ret)
		goto err_del;
	return view;

err_del:
	device_del(&view->dev);
err_put:
	put_device(&view->dev);
	return ERR_PTR(ret);
}

/* Same rule as ib_free_port_attrs(): no lock a show() may take. */
void ib_sysfs_view_del(struct ib_core_device *view)
{
	ib_free_port_attrs(view);
	device_del(&view->dev);
	put_device(&view->dev);
}

/*
 * Renames, or re-tags after its namespace changed (same name): the class
 * link and the directory move to the namespace the class callback reports.
 */
int ib_sysfs_rename(struct ib_core_device *coredev, const char *name)
{
	return device_rename(&coredev->dev, name);
}

/* The tag sysfs files a class entry under: the namespace it is seen from. */
static const void *ib_class_namespace(struct device *dev)
{
	return read_pnet(&container_of(dev, struct ib_core_device, dev)->rdma_net);
}

/* Like upstream, so that udev rules can match on the device name. */
static int ib_device_uevent(struct device *device,
			    struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "NAME=%s", dev_name(device));
}

struct class ib_class = {
	.name = "infiniband",
	.owner = THIS_MODULE,
	.dev_uevent = ib_device_uevent,
	.ns_type = &net_ns_type_operations,
	.namespace = ib_class_namespace,
};
