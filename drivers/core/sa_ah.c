// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handle attributes from SA records: to the other end of a path,
 * and to a multicast group.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

/* What every AH from an SA record starts with. */
static void sa_ah_start(struct rdma_ah_attr *ah_attr,
			enum rdma_ah_attr_type type, u32 port_num, u8 sl,
			u8 rate)
{
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = type;
	ah_attr->port_num = port_num;
	ah_attr->sl = sl;
	ah_attr->static_rate = rate;
}

/*
 * IB: the DLID and our path bits (the SLID under the LMC mask), plus a GRH
 * only for a path leaving the subnet (hop limit above 0). RoCE: always a
 * GRH, and the next hop's MAC from the record.
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr)
{
	bool roce = sa_path_is_roce(rec);
	const struct ib_gid_attr *gattr;
	u8 lmc = 0;

	sa_ah_start(ah_attr, roce ? RDMA_AH_ATTR_TYPE_ROCE :
		    rdma_ah_find_type(device, port_num), port_num, rec->sl,
		    rec->rate);
	if (!roce) {
		rdma_ah_set_dlid(ah_attr, be32_to_cpu(sa_path_get_dlid(rec)));
		ib_get_cached_lmc(device, port_num, &lmc);
		rdma_ah_set_path_bits(ah_attr,
				      be32_to_cpu(sa_path_get_slid(rec)) &
				      ((1U << lmc) - 1));
		if (!rec->hop_limit)
			return 0;
	}

	if (sgid_attr) {
		rdma_hold_gid_attr(sgid_attr);
		gattr = sgid_attr;
	} else {
		gattr = rdma_find_gid_by_port(device, &rec->sgid,
					      sa_conv_pathrec_to_gid_type(rec),
					      port_num, NULL);
		if (IS_ERR(gattr))
			return PTR_ERR(gattr);
	}
	rdma_ah_set_grh(ah_attr, &rec->dgid, be32_to_cpu(rec->flow_label),
			gattr->index, rec->hop_limit, rec->traffic_class);
	ah_attr->grh.sgid_attr = gattr;
	if (roce)
		ether_addr_copy(ah_attr->roce.dmac, rec->roce.dmac);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_path);

int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct net_device *ndev,
			     enum ib_gid_type gid_type,
			     struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *sgid_attr;

	/* On RoCE the GID is tied to a netdev: one must be named. */
	if (rdma_protocol_roce(device, port_num) && !ndev)
		return -EINVAL;
	sgid_attr = rdma_find_gid_by_port(device, &rec->port_gid, gid_type,
					  port_num, ndev);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	/* A group's AH: its MLID, and a GRH towards its MGID from our GID. */
	sa_ah_start(ah_attr, rdma_ah_find_type(device, port_num), port_num,
		    rec->sl, rec->rate);
	rdma_ah_set_grh(ah_attr, &rec->mgid, be32_to_cpu(rec->flow_label),
			sgid_attr->index, rec->hop_limit, rec->traffic_class);
	ah_attr->grh.sgid_attr = sgid_attr;	/* the lookup's reference */
	rdma_ah_set_dlid(ah_attr, be16_to_cpu(rec->mlid));
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_from_mcmember);
