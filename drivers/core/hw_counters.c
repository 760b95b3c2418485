// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-port hardware counters: allocated from the driver at registration,
 * shown in ports/N/hw_counters/ and by NLDEV STAT_GET (`rdma statistic`).
 * Values are refreshed from the driver at most once per lifespan.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <rdma/ib_sysfs.h>
#include "core_priv.h"

struct rdma_hw_stats *rdma_alloc_hw_stats_struct(
	const struct rdma_stat_desc *descs, int num_counters,
	unsigned long lifespan)
{
	struct rdma_hw_stats *stats;

	stats = kzalloc(struct_size(stats, value, num_counters), GFP_KERNEL);
	if (!stats)
		return NULL;
	stats->is_disabled = bitmap_zalloc(num_counters, GFP_KERNEL);
	if (!stats->is_disabled) {
		kfree(stats);
		return NULL;
	}
	stats->descs = descs;
	stats->num_counters = num_counters;
	stats->lifespan = msecs_to_jiffies(lifespan);
	mutex_init(&stats->lock);
	return stats;
}
EXPORT_SYMBOL(rdma_alloc_hw_stats_struct);

void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats)
{
	if (!stats)
		return;
	bitmap_free(stats->is_disabled);
	kfree(stats);
}
EXPORT_SYMBOL(rdma_free_hw_stats_struct);

/* Caller holds stats->lock. */
static int refresh(struct ib_device *dev, u32 port, struct rdma_hw_stats *stats)
{
	int ret;

	if (stats->timestamp && time_before(jiffies,
					    stats->timestamp + stats->lifespan))
		return 0;
	ret = dev->ops.get_hw_stats(dev, stats, port, stats->num_counters);
	if (ret < 0)
		return ret;
	stats->timestamp = jiffies;
	return 0;
}

int rdma_hw_stats_snapshot(struct ib_device *dev, u32 port, u64 *values,
			   int max)
{
	struct rdma_hw_stats *stats;
	int n, ret;

	if (!rdma_is_port_valid(dev, port))
		return -EINVAL;
	stats = dev->port_data[port].hw_stats;
	if (!stats)
		return -EOPNOTSUPP;
	mutex_lock(&stats->lock);
	ret = refresh(dev, port, stats);
	n = min(max, stats->num_counters);
	if (!ret)
		memcpy(values, stats->value, n * sizeof(*values));
	mutex_unlock(&stats->lock);
	return ret ? ret : n;
}

/* ---- ports/N/hw_counters/ ---- */

struct hw_counter_attr {
	struct ib_port_attribute pa;
	int index;		/* -1: lifespan */
};

struct hw_counter_dir {
	struct attribute_group group;
	struct attribute **attrs;
	struct hw_counter_attr *hattrs;
};

static ssize_t hw_counter_show(struct ib_device *dev, u32 port,
			       struct ib_port_attribute *pa, char *buf)
{
	struct hw_counter_attr *ha = container_of(pa, struct hw_counter_attr, pa);
	struct rdma_hw_stats *stats = dev->port_data[port].hw_stats;
	u64 v;
	int ret;

	mutex_lock(&stats->lock);
	ret = refresh(dev, port, stats);
	v = stats->value[ha->index];
	mutex_unlock(&stats->lock);
	return ret ? ret : sysfs_emit(buf, "%llu\n", v);
}

static ssize_t lifespan_show(struct ib_device *dev, u32 port,
			     struct ib_port_attribute *pa, char *buf)
{
	struct rdma_hw_stats *stats = dev->port_data[port].hw_stats;

	return sysfs_emit(buf, "%d\n", jiffies_to_msecs(stats->lifespan));
}

static ssize_t lifespan_store(struct ib_device *dev, u32 port,
			      struct ib_port_attribute *pa, const char *buf,
			      size_t count)
{
	struct rdma_hw_stats *stats = dev->port_data[port].hw_stats;
	int ms, ret;

	ret = kstrtoint(buf, 10, &ms);
	if (ret)
		return ret;
	if (ms < 0 || ms > 10000)
		return -EINVAL;
	mutex_lock(&stats->lock);
	stats->lifespan = msecs_to_jiffies(ms);
	mutex_unlock(&stats->lock);
	return count;
}

/* Creates ports/N/hw_counters when the driver has counters for the port. */
int ib_setup_port_hw_counters(struct ib_device *dev, u32 port,
			      struct kobject *kobj, void **cookie)
{
	struct rdma_hw_stats *stats;
	struct hw_counter_dir *d;
	int i, n, ret = -ENOMEM;

	*cookie = NULL;
	if (!dev->ops.alloc_hw_port_stats || !dev->ops.get_hw_stats)
		return 0;
	stats = dev->ops.alloc_hw_port_stats(dev, port);
	if (!stats)
		return 0;
	n = stats->num_counters;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		goto err_stats;
	d->hattrs = kcalloc(n + 1, sizeof(*d->hattrs), GFP_KERNEL);
	d->attrs = kcalloc(n + 2, sizeof(*d->attrs), GFP_KERNEL);
	if (!d->hattrs || !d->attrs)
		goto err_dir;
	for (i = 0; i < n; i++) {
		struct hw_counter_attr *ha = &d->hattrs[i];

		sysfs_attr_init(&ha->pa.attr);
		ha->pa.attr.name = stats->descs[i].name;
		ha->pa.attr.mode = 0444;
		ha->pa.show = hw_counter_show;
		ha->index = i;
		d->attrs[i] = &ha->pa.attr;
	}
	sysfs_attr_init(&d->hattrs[n].pa.attr);
	d->hattrs[n].pa.attr.name = "lifespan";
	d->hattrs[n].pa.attr.mode = 0644;
	d->hattrs[n].pa.show = lifespan_show;
	d->hattrs[n].pa.store = lifespan_store;
	d->hattrs[n].index = -1;
	d->attrs[n] = &d->hattrs[n].pa.attr;
	d->group.name = "hw_counters";
	d->group.attrs = d->attrs;

	dev->port_data[port].hw_stats = stats;
	ret = sysfs_create_group(kobj, &d->group);
	if (ret) {
		dev->port_data[port].hw_stats = NULL;
		goto err_dir;
	}
	*cookie = d;
	return 0;

err_dir:
	kfree(d->attrs);
	kfree(d->hattrs);
	kfree(d);
err_stats:
	rdma_free_hw_stats_struct(stats);
	return ret;
}

/* Removing the group waits for running show()s; then nothing uses stats. */
void ib_free_port_hw_counters(struct ib_device *dev, u32 port,
			      struct kobject *kobj, void *cookie)
{
	struct hw_counter_dir *d = cookie;

	if (!d)
		return;
	sysfs_remove_group(kobj, &d->group);
	rdma_free_hw_stats_struct(dev->port_data[port].hw_stats);
	dev->port_data[port].hw_stats = NULL;
	kfree(d->attrs);
	kfree(d->hattrs);
	kfree(d);
}
