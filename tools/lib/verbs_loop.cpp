// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "verbs_loop.h"

#include <cstring>

namespace rk {

int find_ipv4_roce_v2_gid(ibv_context *ctx, ibv_gid *gid)
{
	static const uint8_t v4[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	for (int i = 0; i < 16; i++) {
		ibv_gid g;
		ibv_gid_entry e;

		if (ibv_query_gid(ctx, 1, i, &g))
			continue;
		if (ibv_query_gid_ex(ctx, 1, i, &e, 0) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (!memcmp(g.raw, v4, sizeof(v4))) {
			*gid = g;
			return i;
		}
	}
	return -1;
}

int connect_rc(ibv_qp *qp, uint32_t dest_qpn, const RcPath &p)
{
	ibv_qp_attr at{};
	int err;

	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	at.qp_access_flags = p.access;
	err = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	at = {};
	at.qp_state = IBV_QPS_RTR;
	at.path_mtu = p.mtu;
	at.dest_qp_num = dest_qpn;
	at.rq_psn = p.psn;
	at.max_dest_rd_atomic = p.rd_atomic;
	at.min_rnr_timer = 12;
	at.ah_attr.is_global = 1;
	at.ah_attr.grh.dgid = p.dgid;
	at.ah_attr.grh.sgid_index = p.sgid_index;
	at.ah_attr.grh.hop_limit = 64;
	at.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	at = {};
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = p.psn;
	at.timeout = 14;
	at.retry_cnt = 7;
	at.rnr_retry = 7;
	at.max_rd_atomic = p.rd_atomic;
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

} // namespace rk
