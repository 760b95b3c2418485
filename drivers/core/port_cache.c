// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Per-port attribute cache: P_Key table, port state, LMC and subnet prefix,
 * readable in any context (the ib_get_cached_* API) without calling the
 * driver. Filled at registration and refreshed before consumers see a port
 * event (device.c runs ib_port_cache_event() ahead of the handlers), so a
 * handler reading the cache sees the state the event announces.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "core_priv.h"

struct ib_pkey_cache {
	int table_len;
	u16 table[];
};

/* Re-reads one port from the driver; may sleep. */
static int port_cache_update(struct ib_device *device, u32 port)
{
	struct ib_port_cache *cache = &device->port_data[port].cache;
	struct ib_pkey_cache *pkeys, *old;
	struct ib_port_attr attr;
	int len = 0, i, ret;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;
	if (device->ops.query_pkey)
		len = device->port_data[port].immutable.pkey_tbl_len;
	pkeys = kmalloc(struct_size(pkeys, table, len), GFP_KERNEL);
	if (!pkeys)
		return -ENOMEM;
	pkeys->table_len = len;
	for (i = 0; i < len; i++) {
		ret = ib_query_pkey(device, port, i, &pkeys->table[i]);
		if (ret) {
			kfree(pkeys);
			return ret;
		}
	}

	write_lock_irq(&device->cache_lock);
	old = cache->pkey;
	cache->pkey = pkeys;
	cache->lmc = attr.lmc;
	cache->port_state = attr.state;
	cache->subnet_prefix = attr.subnet_prefix;
	write_unlock_irq(&device->cache_lock);
	kfree(old);
	return 0;
}

int ib_port_cache_setup_one(struct ib_device *device)
{
	u32 port;
	int ret;

	rdma_for_each_port(device, port) {
		ret = port_cache_update(device, port);
		if (ret)
			return ret;
	}
	return 0;
}

void ib_port_cache_release_one(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	rdma_for_each_port(device, port) {
		kfree(device->port_data[port].cache.pkey);
		device->port_data[port].cache.pkey = NULL;
	}
}

/* The events after which a port's attributes may have changed. */
static bool is_port_event(enum ib_event_type type)
{
	switch (type) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

/* Process context. Only while registered: the driver may be gone after. */
void ib_port_cache_event(const struct ib_event *event)
{
	struct ib_device *device = event->device;
	u32 port = event->element.port_num;

	if (!is_port_event(event->event) || !rdma_is_port_valid(device, port))
		return;
	if (!ib_device_try_get(device))
		return;
	if (port_cache_update(device, port))
		dev_warn_ratelimited(&device->dev,
				     "port %u: attribute cache not updated\n",
				     port);
	ib_cache_ib_gids_update(device, port);
	ib_device_put(device);
}

int ib_get_cached_pkey(struct ib_device *device, u32 port_num, int index,
		       u16 *pkey)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int ret = -EINVAL;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	if (cache && index >= 0 && index < cache->table_len) {
		*pkey = cache->table[index];
		ret = 0;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_pkey);

/*
 * The index of @pkey, membership bit ignored; a full-member entry wins over
 * a limited one, as upstream.
 */
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			u16 *index)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int i, limited = -1, ret = -ENOENT;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	for (i = 0; cache && i < cache->table_len; i++) {
		if ((cache->table[i] & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (cache->table[i] & 0x8000) {
			*index = i;
			ret = 0;
			break;
		}
		if (limited < 0)
			limited = i;
	}
	if (ret && limited >= 0) {
		*index = limited;
		ret = 0;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_find_cached_pkey);

int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num,
			      u16 pkey, u16 *index)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int i, ret = -ENOENT;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	for (i = 0; cache && i < cache->table_len; i++) {
		if (cache->table[i] == pkey) {
			*index = i;
			ret = 0;
			break;
		}
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_find_exact_cached_pkey);

/*
 * A consistent copy of a port's cached scalars (the table pointers in it
 * are not for the caller to follow).
 */
static int port_cache_snapshot(struct ib_device *device, u32 port_num,
			       struct ib_port_cache *snap)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	*snap = device->port_data[port_num].cache;
	read_unlock_irqrestore(&device->cache_lock, flags);
	return 0;
}

int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc)
{
	struct ib_port_cache snap;
	int ret = port_cache_snapshot(device, port_num, &snap);

	if (!ret)
		*lmc = snap.lmc;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_lmc);

int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_state)
{
	struct ib_port_cache snap;
	int ret = port_cache_snapshot(device, port_num, &snap);

	if (!ret)
		*port_state = snap.port_state;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_port_state);

int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				u64 *sn_pfx)
{
	struct ib_port_cache snap;
	int ret = port_cache_snapshot(device, port_num, &snap);

	if (!ret)
		*sn_pfx = snap.subnet_prefix;
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_subnet_prefix);
