// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-port GID tables of RoCE and InfiniBand ports. RoCE tables are filled
 * from the netdevs (roce_gid_mgmt.c); IB tables mirror what the driver
 * reports (query_gid), refreshed at registration and after port events. Entries are refcounted: a reader keeps
 * the entry it got from rdma_get_gid_attr() alive (and its netdev held)
 * after the slot is reused, until rdma_put_gid_attr().
 *
 * Locking: table->lock (mutex) serialises writers and driver add/del_gid
 * calls; table->rwlock guards the slot array for readers in any context.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/netdevice.h>
#include <linux/if_vlan.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include "core_priv.h"

struct ib_gid_table_entry {
	struct kref kref;
	struct rcu_head rcu;		/* the last put may come from softirq */
	void *context;			/* driver's, from add_gid */
	struct ib_gid_attr attr;
};

struct ib_gid_table {
	int sz;
	u32 default_gid_indices;	/* slots reserved for default GIDs */
	struct mutex lock;		/* writers */
	rwlock_t rwlock;		/* slot array, for readers */
	struct ib_gid_table_entry **data;
};

union ib_gid zgid;
EXPORT_SYMBOL(zgid);

static const char * const gid_type_str[] = {
	[IB_GID_TYPE_IB] = "IB/RoCE v1",
	[IB_GID_TYPE_ROCE] = "IB/RoCE v1",
	[IB_GID_TYPE_ROCE_UDP_ENCAP] = "RoCE v2",
};

const char *ib_cache_gid_type_str(enum ib_gid_type gid_type)
{
	if (gid_type < ARRAY_SIZE(gid_type_str) && gid_type_str[gid_type])
		return gid_type_str[gid_type];
	return "Invalid GID type";
}
EXPORT_SYMBOL(ib_cache_gid_type_str);

static struct ib_gid_table *port_table(struct ib_device *dev, u32 port)
{
	if (!rdma_is_port_valid(dev, port) || !dev->port_data)
		return NULL;
	return dev->port_data[port].cache.gid;
}

static void gid_entry_release(struct kref *kref)
{
	struct ib_gid_table_entry *e =
		container_of(kref, struct ib_gid_table_entry, kref);
	struct net_device *ndev = rcu_dereference_protected(e->attr.ndev, 1);

	dev_put(ndev);
	kfree_rcu(e, rcu);
}

void rdma_put_gid_attr(const struct ib_gid_attr *attr)
{
	struct ib_gid_table_entry *e =
		container_of(attr, struct ib_gid_table_entry, attr);

	kref_put(&e->kref, gid_entry_release);
}
EXPORT_SYMBOL(rdma_put_gid_attr);

void rdma_hold_gid_attr(const struct ib_gid_attr *attr)
{
	struct ib_gid_table_entry *e =
		container_of(attr, struct ib_gid_table_entry, attr);

	kref_get(&e->kref);
}
EXPORT_SYMBOL(rdma_hold_gid_attr);

const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device,
					    u32 port_num, int index)
{
	struct ib_gid_table *table = port_table(device, port_num);
	const struct ib_gid_attr *attr = ERR_PTR(-ENODATA);
	unsigned long flags;

	if (!table || index < 0 || index >= table->sz)
		return ERR_PTR(-EINVAL);

	read_lock_irqsave(&table->rwlock, flags);
	if (table->data[index]) {
		attr = &table->data[index]->attr;
		rdma_hold_gid_attr(attr);
	}
	read_unlock_irqrestore(&table->rwlock, flags);
	return attr;
}
EXPORT_SYMBOL(rdma_get_gid_attr);

int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid)
{
	const struct ib_gid_attr *attr;

	if (!port_table(device, port_num)) {
		/* iWARP ports keep their GIDs in the device. */
		if (!rdma_is_port_valid(device, port_num) ||
		    !device->ops.query_gid)
			return -EINVAL;
		return device->ops.query_gid(device, port_num, index, gid);
	}

	attr = rdma_get_gid_attr(device, port_num, index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	memcpy(gid, &attr->gid, sizeof(*gid));
	rdma_put_gid_attr(attr);
	return 0;
}
EXPORT_SYMBOL(rdma_query_gid);

struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr)
{
	struct net_device *ndev = rcu_dereference(attr->ndev);

	return ndev ? ndev : ERR_PTR(-ENODEV);
}
EXPORT_SYMBOL(rdma_read_gid_attr_ndev_rcu);

int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr,
			    u16 *vlan_id, u8 *smac)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rcu_dereference(attr->ndev);
	if (!ndev) {
		rcu_read_unlock();
		return -ENODEV;
	}
	if (smac)
		ether_addr_copy(smac, ndev->dev_addr);
	if (vlan_id)
		*vlan_id = is_vlan_dev(ndev) ? vlan_dev_vlan_id(ndev) : 0xffff;
	rcu_read_unlock();
	return 0;
}
EXPORT_SYMBOL(rdma_read_gid_l2_fields);

/* Which GID types a port's table carries: one entry per type per address. */
unsigned long roce_gid_type_mask_support(struct ib_device *dev, u32 port)
{
	unsigned long mask = 0;

	if (rdma_protocol_roce_eth_encap(dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return mask;
}
EXPORT_SYMBOL(roce_gid_type_mask_support);

static bool entry_matches(const struct ib_gid_table_entry *e,
			  const union ib_gid *gid, enum ib_gid_type type,
			  const struct net_device *ndev)
{
	return e->attr.gid_type == type &&
	       rcu_access_pointer(e->attr.ndev) == ndev &&
	       !memcmp(&e->attr.gid, gid, sizeof(*gid));
}

/* Empties one slot; table->lock held. */
static void del_slot(struct ib_gid_table *table, int ix)
{
	struct ib_gid_table_entry *e = table->data[ix];
	struct ib_device *dev = e->attr.device;

	/* Drivers program only RoCE GIDs; IB ones are theirs already. */
	if (dev->ops.del_gid && rdma_protocol_roce(dev, e->attr.port_num))
		dev->ops.del_gid(&e->attr, &e->context);
	write_lock_irq(&table->rwlock);
	table->data[ix] = NULL;
	write_unlock_irq(&table->rwlock);
	rdma_put_gid_attr(&e->attr);
}

/* Fills slot ix; table->lock held. */
static int add_slot(struct ib_device *dev, u32 port, struct ib_gid_table *table,
		    int ix, const union ib_gid *gid, enum ib_gid_type type,
		    struct net_device *ndev)
{
	struct ib_gid_table_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	kref_init(&e->kref);
	memcpy(&e->attr.gid, gid, sizeof(*gid));
	e->attr.gid_type = type;
	e->attr.device = dev;
	e->attr.port_num = port;
	e->attr.index = ix;
	dev_hold(ndev);
	RCU_INIT_POINTER(e->attr.ndev, ndev);

	if (dev->ops.add_gid && rdma_protocol_roce(dev, port)) {
		err = dev->ops.add_gid(&e->attr, &e->context);
		if (err) {
			rdma_put_gid_attr(&e->attr);
			return err;
		}
	}
	write_lock_irq(&table->rwlock);
	table->data[ix] = e;
	write_unlock_irq(&table->rwlock);
	return 0;
}

static void gid_table_changed(struct ib_device *dev, u32 port)
{
	struct ib_event ev = {
		.device = dev,
		.element.port_num = port,
		.event = IB_EVENT_GID_CHANGE,
	};

	ib_dispatch_event(&ev);
}

int ib_cache_gid_add(struct ib_device *dev, u32 port, union ib_gid *gid,
		     enum ib_gid_type type, struct net_device *ndev)
{
	struct ib_gid_table *table = port_table(dev, port);
	int ix, free_ix = -1, err = 0;

	if (!table)
		return -EINVAL;
	if (!memcmp(gid, &zgid, sizeof(*gid)))
		return -EINVAL;

	mutex_lock(&table->lock);
	for (ix = table->default_gid_indices; ix < table->sz; ix++) {
		if (!table->data[ix]) {
			if (free_ix < 0)
				free_ix = ix;
			continue;
		}
		if (entry_matches(table->data[ix], gid, type, ndev))
			goto out;	/* already there */
	}
	/* A default slot may already hold the same GID (fe80::EUI-64). */
	for (ix = 0; ix < table->default_gid_indices; ix++)
		if (table->data[ix] &&
		    entry_matches(table->data[ix], gid, type, ndev))
			goto out;
	if (free_ix < 0) {
		err = -ENOSPC;
		goto out;
	}
	err = add_slot(dev, port, table, free_ix, gid, type, ndev);
	if (!err)
		gid_table_changed(dev, port);
out:
	mutex_unlock(&table->lock);
	return err;
}

int ib_cache_gid_del(struct ib_device *dev, u32 port, union ib_gid *gid,
		     enum ib_gid_type type, struct net_device *ndev)
{
	struct ib_gid_table *table = port_table(dev, port);
	int ix, err = -EINVAL;

	if (!table)
		return -EINVAL;

	mutex_lock(&table->lock);
	for (ix = table->default_gid_indices; ix < table->sz; ix++) {
		if (table->data[ix] &&
		    entry_matches(table->data[ix], gid, type, ndev)) {
			del_slot(table, ix);
			err = 0;
			break;
		}
	}
	mutex_unlock(&table->lock);
	if (!err)
		gid_table_changed(dev, port);
	return err;
}

/*
 * Removes the non-default entries of ndev that keep() rejects (all of them
 * when keep is NULL), and with defaults too, the default entries.
 */
void ib_cache_gid_del_netdev(struct ib_device *dev, u32 port,
			     struct net_device *ndev, bool defaults,
			     bool (*keep)(const union ib_gid *gid, void *ctx),
			     void *ctx)
{
	struct ib_gid_table *table = port_table(dev, port);
	bool changed = false;
	int ix;

	if (!table)
		return;

	mutex_lock(&table->lock);
	for (ix = defaults ? 0 : table->default_gid_indices; ix < table->sz;
	     ix++) {
		struct ib_gid_table_entry *e = table->data[ix];

		if (!e || (ndev && rcu_access_pointer(e->attr.ndev) != ndev))
			continue;
		if (keep && ix >= table->default_gid_indices &&
		    keep(&e->attr.gid, ctx))
			continue;
		del_slot(table, ix);
		changed = true;
	}
	mutex_unlock(&table->lock);
	if (changed)
		gid_table_changed(dev, port);
}

/* Default GIDs (fe80::EUI-64 of ndev), one per supported type, at 0..n-1. */
void ib_cache_gid_set_default_gid(struct ib_device *dev, u32 port,
				  struct net_device *ndev,
				  unsigned long gid_type_mask)
{
	struct ib_gid_table *table = port_table(dev, port);
	union ib_gid gid = { };
	unsigned long type;
	bool changed = false;
	int ix = 0;

	if (!table)
		return;

	gid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	addrconf_ifid_eui48(&gid.raw[8], ndev);

	mutex_lock(&table->lock);
	for_each_set_bit(type, &gid_type_mask, IB_GID_TYPE_SIZE) {
		struct ib_gid_table_entry *e;

		if (ix >= table->default_gid_indices)
			break;
		e = table->data[ix];
		if (e && entry_matches(e, &gid, type, ndev)) {
			ix++;
			continue;
		}
		if (e)
			del_slot(table, ix);
		if (!add_slot(dev, port, table, ix, &gid, type, ndev))
			changed = true;
		ix++;
	}
	mutex_unlock(&table->lock);
	if (changed)
		gid_table_changed(dev, port);
}

/*
 * An IB port's table takes what the driver reports now: entries whose GID
 * changed are replaced (readers keep the old one alive), zero GIDs leave
 * their slot empty. The driver announces changes itself, so no event.
 */
void ib_cache_ib_gids_update(struct ib_device *dev, u32 port)
{
	struct ib_gid_table *table = port_table(dev, port);
	struct ib_gid_table_entry *e;
	union ib_gid gid;
	int ix;

	if (!table || rdma_protocol_roce(dev, port) || !dev->ops.query_gid)
		return;
	mutex_lock(&table->lock);
	for (ix = 0; ix < table->sz; ix++) {
		if (dev->ops.query_gid(dev, port, ix, &gid))
			gid = zgid;
		e = table->data[ix];
		if (e && !memcmp(&e->attr.gid, &gid, sizeof(gid)))
			continue;
		if (e)
			del_slot(table, ix);
		if (memcmp(&gid, &zgid, sizeof(gid)))
			add_slot(dev, port, table, ix, &gid, IB_GID_TYPE_IB,
				 NULL);
	}
	mutex_unlock(&table->lock);
}

static void release_gid_table(struct ib_gid_table *table)
{
	int ix;

	if (!table)
		return;
	for (ix = 0; ix < table->sz; ix++)
		if (table->data[ix])
			rdma_put_gid_attr(&table->data[ix]->attr);
	kfree(table->data);
	kfree(table);
}

int ib_cache_setup_one(struct ib_device *device)
{
	u32 p;

	rdma_for_each_port(device, p) {
		struct ib_gid_table *table;

		/* iWARP ports answer GID queries from the driver. */
		if (!rdma_protocol_roce(device, p) &&
		    !rdma_protocol_ib(device, p))
			continue;
		table = kzalloc(sizeof(*table), GFP_KERNEL);
		if (!table)
			goto err;
		table->sz = device->port_data[p].immutable.gid_tbl_len;
		table->data = kcalloc(table->sz, sizeof(*table->data),
				      GFP_KERNEL);
		if (!table->data) {
			kfree(table);
			goto err;
		}
		table->default_gid_indices =
			min_t(int, table->sz,
			      hweight_long(roce_gid_type_mask_support(device,
								      p)));
		mutex_init(&table->lock);
		rwlock_init(&table->rwlock);
		device->port_data[p].cache.gid = table;
		ib_cache_ib_gids_update(device, p);
	}
	return 0;
err:
	ib_cache_release_one(device);
	return -ENOMEM;
}

/* Unregistration: empty every table (drivers see del_gid for each). */
void ib_cache_cleanup_one(struct ib_device *device)
{
	u32 p;

	rdma_for_each_port(device, p)
		ib_cache_gid_del_netdev(device, p, NULL, true, NULL, NULL);
}

void ib_cache_release_one(struct ib_device *device)
{
	u32 p;

	if (!device->port_data)
		return;
	ib_port_cache_release_one(device);
	rdma_for_each_port(device, p) {
		release_gid_table(device->port_data[p].cache.gid);
		device->port_data[p].cache.gid = NULL;
	}
}

int rdma_find_gid_by_port_index(struct ib_device *device,
				const union ib_gid *gid,
				enum ib_gid_type type, u32 port,
				struct net_device *ndev)
{
	struct ib_gid_table *table = port_table(device, port);
	unsigned long flags;
	int ix, found = -ENOENT;

	if (!table)
		return -EINVAL;
	read_lock_irqsave(&table->rwlock, flags);
	for (ix = 0; ix < table->sz; ix++) {
		struct ib_gid_table_entry *e = table->data[ix];

		if (e && e->attr.gid_type == type &&
		    !memcmp(&e->attr.gid, gid, sizeof(*gid)) &&
		    (!ndev || rcu_access_pointer(e->attr.ndev) == ndev)) {
			found = ix;
			break;
		}
	}
	read_unlock_irqrestore(&table->rwlock, flags);
	return found;
}

const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *device,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port,
						struct net_device *ndev)
{
	int ix = rdma_find_gid_by_port_index(device, gid, gid_type, port,
					     ndev);

	if (ix < 0)
		return ERR_PTR(ix);
	return rdma_get_gid_attr(device, port, ix);
}
EXPORT_SYMBOL(rdma_find_gid_by_port);

bool rdma_is_zero_gid(const union ib_gid *gid)
{
	return !memcmp(gid, &zgid, sizeof(*gid));
}
EXPORT_SYMBOL(rdma_is_zero_gid);

/* The driver's cookie of the entry, as its add_gid method returned it. */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr)
{
	return container_of(attr, struct ib_gid_table_entry, attr)->context;
}
EXPORT_SYMBOL(rdma_read_gid_hw_context);

/*
 * The first entry of @port equal to @gid that @match accepts, referenced;
 * @match runs under the table's read lock and must not sleep.
 */
static const struct ib_gid_attr *
gid_lookup(struct ib_device *device, u32 port, const union ib_gid *gid,
	   bool (*match)(const struct ib_gid_attr *attr, void *arg), void *arg)
{
	struct ib_gid_table *table = port_table(device, port);
	const struct ib_gid_attr *found = ERR_PTR(-ENOENT);
	unsigned long flags;
	int ix;

	if (!table)
		return found;
	read_lock_irqsave(&table->rwlock, flags);
	for (ix = 0; ix < table->sz; ix++) {
		struct ib_gid_table_entry *e = table->data[ix];

		if (!e || memcmp(&e->attr.gid, gid, sizeof(*gid)) ||
		    !match(&e->attr, arg))
			continue;
		found = &e->attr;
		rdma_hold_gid_attr(found);
		break;
	}
	read_unlock_irqrestore(&table->rwlock, flags);
	return found;
}

struct gid_type_ndev {
	enum ib_gid_type type;
	struct net_device *ndev;
};

static bool gid_type_ndev_match(const struct ib_gid_attr *attr, void *arg)
{
	const struct gid_type_ndev *want = arg;

	return attr->gid_type == want->type &&
	       (!want->ndev || rcu_access_pointer(attr->ndev) == want->ndev);
}

/* @gid of type @gid_type (on @ndev if given) on any port of @device. */
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device,
					const union ib_gid *gid,
					enum ib_gid_type gid_type,
					struct net_device *ndev)
{
	struct gid_type_ndev want = { .type = gid_type, .ndev = ndev };
	const struct ib_gid_attr *attr = ERR_PTR(-ENOENT);
	u32 port;

	rdma_for_each_port(device, port) {
		attr = gid_lookup(device, port, gid, gid_type_ndev_match, &want);
		if (!IS_ERR(attr))
			break;
	}
	return attr;
}
EXPORT_SYMBOL(rdma_find_gid);

struct gid_filter {
	bool (*filter)(const union ib_gid *gid, const struct ib_gid_attr *attr,
		       void *context);
	void *context;
};

static bool gid_filter_match(const struct ib_gid_attr *attr, void *arg)
{
	const struct gid_filter *f = arg;

	return f->filter(&attr->gid, attr, f->context);
}

const struct ib_gid_attr *rdma_find_gid_by_filter(
	struct ib_device *device, const union ib_gid *gid, u32 port_num,
	bool (*filter)(const union ib_gid *gid, const struct ib_gid_attr *,
		       void *),
	void *context)
{
	struct gid_filter f = { .filter = filter, .context = context };

	if (!rdma_is_port_valid(device, port_num))
		return ERR_PTR(-EINVAL);
	return gid_lookup(device, port_num, gid, gid_filter_match, &f);
}
EXPORT_SYMBOL(rdma_find_gid_by_filter);

/*
 * Every valid GID of every port (ibv_query_gid_table): the number of
 * entries written, -EINVAL when more than @max_entries exist.
 */
ssize_t rdma_query_gid_table(struct ib_device *device,
			     struct ib_uverbs_gid_entry *entries,
			     size_t max_entries)
{
	struct ib_uverbs_gid_entry *out = entries;
	struct ib_gid_table *table;
	unsigned long flags;
	u32 port;
	int ix;

	rdma_for_each_port(device, port) {
		table = port_table(device, port);
		if (!table)
			continue;
		read_lock_irqsave(&table->rwlock, flags);
		for (ix = 0; ix < table->sz; ix++) {
			const struct ib_gid_attr *attr;
			struct net_device *ndev;

			if (!table->data[ix])
				continue;
			if (out - entries >= max_entries) {
				read_unlock_irqrestore(&table->rwlock, flags);
				return -EINVAL;
			}
			attr = &table->data[ix]->attr;
			memcpy(out->gid, &attr->gid, sizeof(out->gid));
			out->gid_index = ix;
			out->port_num = port;
			out->gid_type = attr->gid_type;
			rcu_read_lock();
			ndev = rcu_dereference(attr->ndev);
			out->netdev_ifindex = ndev ? ndev->ifindex : 0;
			rcu_read_unlock();
			out++;
		}
		read_unlock_irqrestore(&table->rwlock, flags);
	}
	return out - entries;
}
EXPORT_SYMBOL(rdma_query_gid_table);

int ib_cache_init(void)
{
	return 0;
}

void ib_cache_cleanup(void)
{
}
