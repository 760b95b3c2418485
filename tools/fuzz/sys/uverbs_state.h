// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One open /dev/infiniband/uverbsN and the handles its calls created, shared
// by the write() and the ioctl targets: valid sequences reuse live handles,
// mutated ones pick dead, foreign or random numbers instead.
#pragma once

#include <cstdint>
#include <vector>

#include "fuzz.h"

namespace fz {

struct UvQp {
	uint32_t handle, qpn, next_state;
};

struct UvState {
	int fd = -1;
	const Device *dev = nullptr;
	bool has_ctx = false;
	std::vector<uint32_t> pd, mr, lkey, cq, srq, ah, mw, dead;
	std::vector<UvQp> qp;
	std::vector<int> fds; // comp channels and async fds it got back

	bool open(Worker &w);
	void close_all(int keep);
	// A handle for a field: mostly a live one of the list, else a dead,
	// a foreign-typed or a random one.
	uint32_t pick(Worker &w, const std::vector<uint32_t> &live);
	uint32_t pick_qp(Worker &w, size_t *idx);
	int pick_fd(Worker &w);
	void forget(std::vector<uint32_t> &v, uint32_t h);
};

// One write() command of the uverbs target (op 0 GET_CONTEXT, 1 ALLOC_PD,
// 4 REG_MR, 8 CREATE_COMP_CHANNEL, 9 CREATE_CQ, 15 CREATE_QP, 26 CREATE_SRQ,
// 30 CREATE_AH, ...), for the ioctl target to build state with.
void uv_write_op(Worker &w, UvState &s, unsigned op);

} // namespace fz
