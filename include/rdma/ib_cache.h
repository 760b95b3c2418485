/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Cached port data (GID and P_Key tables, port state), upstream 6.1 names.
 */
#ifndef RDMA_KMOD_IB_CACHE_H
#define RDMA_KMOD_IB_CACHE_H

#include <rdma/ib_verbs.h>

int ib_get_cached_pkey(struct ib_device *device, u32 port_num, int index,
		       u16 *pkey);
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			u16 *index);
int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num,
			      u16 pkey, u16 *index);
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc);
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_state);
int ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				u64 *sn_pfx);
bool rdma_is_zero_gid(const union ib_gid *gid);
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr);
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device,
					const union ib_gid *gid,
					enum ib_gid_type gid_type,
					struct net_device *ndev);
/* @filter runs under the GID table's lock and must not sleep. */
const struct ib_gid_attr *rdma_find_gid_by_filter(
	struct ib_device *device, const union ib_gid *gid, u32 port_num,
	bool (*filter)(const union ib_gid *gid, const struct ib_gid_attr *,
		       void *),
	void *context);
ssize_t rdma_query_gid_table(struct ib_device *device,
			     struct ib_uverbs_gid_entry *entries,
			     size_t max_entries);
const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *device,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port,
						struct net_device *ndev);

#endif /* RDMA_KMOD_IB_CACHE_H */
