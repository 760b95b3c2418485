// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One uverbs write() command as the write target builds it (the request
// after the header(s), its response size, its pointer fields) and how it is
// sent: legacy or extended framing, mutated now and then (field bytes,
// response pointer, in/out words, length, a short request, command bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <rdma/ib_user_verbs.h>

#include "uverbs_state.h"

namespace fz {

constexpr uint32_t kEx = IB_USER_VERBS_CMD_FLAG_EXTENDED;

struct UvFrame {
	uint32_t cmd = 0;
	std::vector<uint8_t> req;	// after the header(s)
	size_t resp_len = 0;		// core response, bytes
	bool has_resp = false;		// the first u64 of req is the response pointer
	std::vector<size_t> ptrs;	// more pointer fields in req
	const char *name = "";
};

template <typename T> UvFrame uv_frame(uint32_t cmd, const char *name, const T &s, size_t resp_len)
{
	UvFrame f;
	f.cmd = cmd;
	f.req.assign((const uint8_t *)&s, (const uint8_t *)&s + sizeof(s));
	f.resp_len = resp_len;
	f.has_resp = resp_len > 0 && !(cmd & kEx);
	f.name = name;
	return f;
}

void put64(std::vector<uint8_t> &v, size_t off, uint64_t x);
uint32_t rd32(const uint8_t *p, size_t off);
// Sends f (legacy or extended), mutated or not; returns 0 or errno and
// points *resp at the core response when it can be trusted.
int uv_send(Worker &w, UvState &s, UvFrame &f, uint8_t **resp);

} // namespace fz
