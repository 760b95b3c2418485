// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address vectors of a sib port: IB ones, routed by LID (DLID, SL, source
 * path bits), with a GRH only when the consumer asks for one. No MAC is
 * resolved: the cable decides where a frame goes (sib_xmit.c).
 */
#include "rxe.h"

int sib_chk_ah_attr(struct rxe_dev *rxe, struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;

	if (attr->type != RDMA_AH_ATTR_TYPE_IB) {
		pr_debug("sib: %s: AV of type %d on an IB port\n",
			 dev_name(&rxe->ib_dev.dev), attr->type);
		return -EINVAL;
	}
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return 0;

	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr || grh->sgid_attr->gid_type != IB_GID_TYPE_IB) {
		pr_debug("sib: %s: GRH without an IB source GID\n",
			 dev_name(&rxe->ib_dev.dev));
		return -EINVAL;
	}
	return 0;
}

void sib_av_from_attr(struct rxe_av *av, struct rdma_ah_attr *attr)
{
	struct sib_av_lrh *lrh = sib_av_lrh(av);
	const struct ib_global_route *grh;

	memset(av, 0, sizeof(*av));
	av->port_num = rdma_ah_get_port_num(attr);
	av->network_type = RXE_NETWORK_TYPE_IB;
	lrh->dlid = cpu_to_be16(rdma_ah_get_dlid(attr));
	lrh->sl = rdma_ah_get_sl(attr);
	lrh->src_path_bits = rdma_ah_get_path_bits(attr);
	lrh->static_rate = rdma_ah_get_static_rate(attr);
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return;

	grh = rdma_ah_read_grh(attr);
	lrh->global = true;
	memcpy(av->grh.dgid.raw, grh->dgid.raw, sizeof(av->grh.dgid.raw));
	av->grh.flow_label = grh->flow_label;
	av->grh.sgid_index = grh->sgid_index;
	av->grh.hop_limit = grh->hop_limit;
	av->grh.traffic_class = grh->traffic_class;
	/* chk_attr made sure there is one; the SGID goes in every GRH */
	if (grh->sgid_attr)
		memcpy(&av->sgid_addr._sockaddr_in6.sin6_addr,
		       grh->sgid_attr->gid.raw, sizeof(union ib_gid));
}

void sib_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr)
{
	struct sib_av_lrh *lrh = sib_av_lrh(av);

	attr->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_port_num(attr, av->port_num);
	rdma_ah_set_dlid(attr, be16_to_cpu(lrh->dlid));
	rdma_ah_set_sl(attr, lrh->sl);
	rdma_ah_set_path_bits(attr, lrh->src_path_bits);
	rdma_ah_set_static_rate(attr, lrh->static_rate);
	if (!lrh->global) {
		rdma_ah_set_ah_flags(attr, 0);
		return;
	}
	rdma_ah_set_grh(attr, NULL, av->grh.flow_label, av->grh.sgid_index,
			av->grh.hop_limit, av->grh.traffic_class);
	rdma_ah_set_dgid_raw(attr, av->grh.dgid.raw);
}
