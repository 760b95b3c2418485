// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One uverbs write() command as the write target builds it (the request
// after the header(s), its response size, its pointer fields) and how it is
// sent: legacy or extended framing, mutated now and then (field bytes,
// response pointer, in/out words, length, a short request, command bits),
// and the helpers every command of uverbs_write*.cpp is sent with.
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

UvFrame uv_frame(uint32_t cmd, const char *name, const void *req, size_t len, size_t resp_len);

template <typename T> UvFrame uv_frame(uint32_t cmd, const char *name, const T &req, size_t resp_len)
{
	return uv_frame(cmd, name, &req, sizeof(req), resp_len);
}

void put64(std::vector<uint8_t> &v, size_t off, uint64_t x);
uint32_t rd32(const uint8_t *p, size_t off);
// Sends f (legacy or extended), mutated or not; returns 0 or errno and
// points *resp at the core response when it can be trusted.
int uv_send(Worker &w, UvState &s, UvFrame &f, uint8_t **resp);

// A command's number and its name for the journal: UV_CMD(ALLOC_PD).
#define UV_CMD(x) IB_USER_VERBS_CMD_##x, #x

// Sends the command struct @c as it is (but for the mutations).
template <typename T>
int uv_call(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len, uint8_t **r)
{
	UvFrame f = uv_frame(cmd, name, c, resp_len);
	return uv_send(w, s, f, r);
}

template <typename T> int uv_call(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len)
{
	uint8_t *r;
	return uv_call(w, s, cmd, name, c, resp_len, &r);
}

// A create whose response starts with the new handle (or fd): it joins @into.
template <typename T, typename H>
void uv_create(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len,
	       std::vector<H> &into)
{
	uint8_t *r;
	if (!uv_call(w, s, cmd, name, c, resp_len, &r) && r)
		into.push_back((H)rd32(r, 0));
}

} // namespace fz
