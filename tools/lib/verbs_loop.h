// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libibverbs helpers shared by the verbs suites: find the IPv4 RoCE v2 GID
// of port 1, and bring an RC QP from INIT to RTS toward a destination QP.
#pragma once

#include <cstdint>

#include <infiniband/verbs.h>

namespace rk {

// Index of the first IPv4-mapped RoCE v2 GID of port 1 (*gid gets it), or -1.
int find_ipv4_roce_v2_gid(ibv_context *ctx, ibv_gid *gid);

struct RcPath {
	ibv_gid dgid;
	int sgid_index;
	ibv_mtu mtu;
	uint32_t psn;		// our SQ PSN and the peer's, both the same
	uint8_t rd_atomic;	// max_rd_atomic and max_dest_rd_atomic
	unsigned int access;	// qp_access_flags
};

// RESET (as created) -> INIT -> RTR -> RTS toward dest_qpn; 0 or errno.
int connect_rc(ibv_qp *qp, uint32_t dest_qpn, const RcPath &p);

} // namespace rk
