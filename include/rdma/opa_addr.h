/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Omni-Path 32-bit LIDs carried in 16-bit IB structures: an "OPA GID"
 * (interface ID = special OUI << 40 | LID) stands in for LIDs that do not
 * fit. Names and semantics follow upstream Linux 6.1.
 */
#ifndef OPA_ADDR_H
#define OPA_ADDR_H

#include <rdma/opa_smi.h>

#define OPA_SPECIAL_OUI		(0x00066AULL)
#define OPA_MAKE_ID(x)		(cpu_to_be64(OPA_SPECIAL_OUI << 40 | (x)))
/* A LID at or above the IB multicast base has no IB unicast form: 0. */
#define OPA_TO_IB_UCAST_LID(x)	(((x) >= be16_to_cpu(IB_MULTICAST_LID_BASE)) \
				 ? 0 : x)
#define OPA_GID_INDEX		0x1
/*
 * The top OPA_MCAST_NR bits set mark a multicast LID, the next
 * OPA_COLLECTIVE_NR bit the collective range within it.
 */
#define OPA_MCAST_NR		0x4
#define OPA_COLLECTIVE_NR	0x1

static inline bool ib_is_opa_gid(const union ib_gid *gid)
{
	return (be64_to_cpu(gid->global.interface_id) >> 40) ==
	       OPA_SPECIAL_OUI;
}

static inline u32 opa_get_lid_from_gid(const union ib_gid *gid)
{
	return lower_32_bits(be64_to_cpu(gid->global.interface_id));
}

/* True if either LID needs more than the IB unicast range. */
static inline bool opa_is_extended_lid(__be32 dlid, __be32 slid)
{
	u32 base = be16_to_cpu(IB_MULTICAST_LID_BASE);

	return be32_to_cpu(dlid) >= base || be32_to_cpu(slid) >= base;
}

static inline u32 opa_get_mcast_base(u32 nr_top_bits)
{
	return be32_to_cpu(OPA_LID_PERMISSIVE) << (32 - nr_top_bits);
}

/* A usable non-SM destination: neither 0 nor multicast. */
static inline bool rdma_is_valid_unicast_lid(struct rdma_ah_attr *attr)
{
	u32 dlid = rdma_ah_get_dlid(attr);

	if (attr->type == RDMA_AH_ATTR_TYPE_IB)
		return dlid && dlid < be16_to_cpu(IB_MULTICAST_LID_BASE);
	if (attr->type == RDMA_AH_ATTR_TYPE_OPA)
		return dlid && dlid < opa_get_mcast_base(OPA_MCAST_NR);
	return true;
}

#endif /* OPA_ADDR_H */
