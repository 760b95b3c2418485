// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// uverbs write(): a valid object sequence (context, PD, MR on a real
// buffer, CQ with a completion channel, QP walked through its states, posts,
// destroys) with random field mutations (handles, lengths, in/out words,
// response pointers), plus extended commands and pure random frames.
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "uverbs_frame.h"
#include "uverbs_write_qp.h"

namespace fz {
namespace {

void random_frame(Worker &w, UvState &s)
{
	std::vector<uint8_t> b(8 + w.rng.below(w.rng.chance(80) ? 128 : 2048));
	w.rng.fill(b.data(), b.size());
	ib_uverbs_cmd_hdr h{};
	h.command = (uint32_t)(w.rng.chance(70) ? w.rng.below(64) : w.rng.next());
	if (w.rng.chance(20))
		h.command |= kEx;
	h.in_words = (uint16_t)(w.rng.chance(60) ? b.size() / 4 : w.rng.next());
	h.out_words = (uint16_t)w.rng.below(64);
	memcpy(b.data(), &h, sizeof(h));
	// A response pointer is the first payload word in most commands.
	if (b.size() >= 16)
		put64(b, 8, w.mem.any_ptr(w.rng, 4u * h.out_words));
	if ((h.command & kEx) && b.size() >= 24) {
		put64(b, 8, w.mem.any_ptr(w.rng, 8u * h.out_words + 1024));
		put64(b, 16, w.mem.any_ptr(w.rng, 8u * h.out_words + 1024));
	}
	// Pointers deeper in the frame would be unsafe: clear the rest's
	// pointer-looking words to scratch.
	for (size_t off = 24; off + 8 <= b.size(); off += 8)
		if (w.rng.chance(50))
			put64(b, off, w.rng.chance(50) ? w.rng.interesting() & 0xffffffff
						       : w.mem.any_ptr(w.rng, 4096));
		else
			put64(b, off, (uint32_t)w.rng.next());
	w.note("uverbs %s random cmd=%#x in=%u out=%u len=%zu", s.dev->name.c_str(), h.command,
	       h.in_words, h.out_words, b.size());
	ssize_t r = write(s.fd, b.data(), b.size());
	w.result(r < 0 ? errno : 0);
}

void get_context(Worker &w, UvState &s)
{
	ib_uverbs_get_context c{};
	uint8_t *r;
	if (!uv_call(w, s, UV_CMD(GET_CONTEXT), c, sizeof(ib_uverbs_get_context_resp), &r)) {
		s.has_ctx = true;
		if (r)
			s.fds.push_back((int)rd32(r, 0));
	}
}

void reg_mr(Worker &w, UvState &s)
{
	ib_uverbs_reg_mr c{};
	uint64_t len;
	c.start = w.mem.mr_buf(w.rng, &len);
	c.length = len;
	if (w.rng.chance(10))
		c.start = w.mem.any_ptr(w.rng, 0);
	if (w.rng.chance(5))
		c.length = w.rng.interesting();
	c.hca_va = w.rng.chance(70) ? c.start : w.rng.interesting();
	c.pd_handle = s.pick(w, s.pd);
	c.access_flags = (uint32_t)(w.rng.chance(80) ? w.rng.below(16) : w.rng.next());
	UvFrame f = uv_frame(UV_CMD(REG_MR), c, sizeof(ib_uverbs_reg_mr_resp));
	f.req.resize(f.req.size() + 8); // siw's stag key; rxe ignores it
	uint8_t *r;
	if (!uv_send(w, s, f, &r) && r) {
		s.mr.push_back(rd32(r, 0));
		s.lkey.push_back(rd32(r, 4));
	}
}

void rereg_mr(Worker &w, UvState &s)
{
	ib_uverbs_rereg_mr c{};
	c.mr_handle = s.pick(w, s.mr);
	c.flags = (uint32_t)w.rng.below(8);
	uint64_t len;
	c.start = w.mem.mr_buf(w.rng, &len);
	c.length = len;
	c.hca_va = c.start;
	c.pd_handle = s.pick(w, s.pd);
	c.access_flags = (uint32_t)w.rng.below(16);
	uv_call(w, s, UV_CMD(REREG_MR), c, sizeof(ib_uverbs_rereg_mr_resp));
}

void create_cq(Worker &w, UvState &s)
{
	ib_uverbs_create_cq c{};
	c.user_handle = w.rng.next();
	c.cqe = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(256) : w.rng.interesting());
	c.comp_vector = (uint32_t)(w.rng.chance(90) ? 0 : w.rng.interesting());
	c.comp_channel = w.rng.chance(50) ? -1 : s.pick_fd(w);
	uv_create(w, s, UV_CMD(CREATE_CQ), c, sizeof(ib_uverbs_create_cq_resp), s.cq);
}

void resize_cq(Worker &w, UvState &s)
{
	ib_uverbs_resize_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.cqe = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(512) : w.rng.interesting());
	uv_call(w, s, UV_CMD(RESIZE_CQ), c, sizeof(ib_uverbs_resize_cq_resp));
}

void poll_cq(Worker &w, UvState &s)
{
	ib_uverbs_poll_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.ne = (uint32_t)(w.rng.chance(80) ? w.rng.below(16) : w.rng.interesting());
	uv_call(w, s, UV_CMD(POLL_CQ), c, 8);
}

void req_notify_cq(Worker &w, UvState &s)
{
	ib_uverbs_req_notify_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.solicited_only = (uint32_t)w.rng.below(3);
	uv_call(w, s, UV_CMD(REQ_NOTIFY_CQ), c, 0);
}

void create_srq(Worker &w, UvState &s)
{
	ib_uverbs_create_srq c{};
	c.user_handle = w.rng.next();
	c.pd_handle = s.pick(w, s.pd);
	c.max_wr = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(64) : w.rng.interesting());
	c.max_sge = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(4) : w.rng.interesting());
	c.srq_limit = (uint32_t)w.rng.below(8);
	uv_create(w, s, UV_CMD(CREATE_SRQ), c, sizeof(ib_uverbs_create_srq_resp), s.srq);
}

void modify_srq(Worker &w, UvState &s)
{
	ib_uverbs_modify_srq c{};
	c.srq_handle = s.pick(w, s.srq);
	c.attr_mask = (uint32_t)w.rng.below(4);
	c.max_wr = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(128) : w.rng.interesting());
	c.srq_limit = (uint32_t)w.rng.below(64);
	UvFrame f = uv_frame(UV_CMD(MODIFY_SRQ), c, 0);
	// rxe's driver data: where to write the new queue's mmap info.
	f.ptrs.push_back(f.req.size());
	f.req.resize(f.req.size() + 8);
	uint8_t *r;
	uv_send(w, s, f, &r);
}

void query_srq(Worker &w, UvState &s)
{
	ib_uverbs_query_srq c{};
	c.srq_handle = s.pick(w, s.srq);
	uv_call(w, s, UV_CMD(QUERY_SRQ), c, sizeof(ib_uverbs_query_srq_resp));
}

void alloc_mw(Worker &w, UvState &s)
{
	ib_uverbs_alloc_mw c{};
	c.pd_handle = s.pick(w, s.pd);
	c.mw_type = (uint8_t)w.rng.below(4);
	uv_create(w, s, UV_CMD(ALLOC_MW), c, sizeof(ib_uverbs_alloc_mw_resp), s.mw);
}

void query_port(Worker &w, UvState &s)
{
	ib_uverbs_query_port c{};
	c.port_num = (uint8_t)(w.rng.chance(80) ? 1 : w.rng.below(256));
	uv_call(w, s, UV_CMD(QUERY_PORT), c, sizeof(ib_uverbs_query_port_resp));
}

// Extended commands, the core request random past a sane head.
void ex_command(Worker &w, UvState &s)
{
	static const uint32_t ex[] = {1, 18, 24, 26, 50, 51, 52, 53, 54, 55, 56, 57};
	uint32_t idx = w.rng.pick(ex);
	std::vector<uint8_t> req(8 * (1 + w.rng.below(16)));
	w.rng.fill(req.data(), req.size());
	if (idx == 1) {
		req.assign(8, 0);
	} else if (idx == 18) {
		ib_uverbs_ex_create_cq c{};
		c.user_handle = w.rng.next();
		c.cqe = (uint32_t)(1 + w.rng.below(64));
		c.comp_channel = w.rng.chance(50) ? -1 : s.pick_fd(w);
		c.flags = (uint32_t)w.rng.below(4);
		if (w.rng.chance(80))
			req.assign((uint8_t *)&c, (uint8_t *)&c + sizeof(c));
	} else {
		// Handles first in most ex requests: make them plausible.
		uint32_t h = s.pick(w, s.cq);
		memcpy(req.data(), &h, 4);
	}
	UvFrame f;
	f.cmd = kEx | idx;
	f.req = req;
	f.resp_len = idx == 1 ? sizeof(ib_uverbs_ex_query_device_resp) : 8 * (w.rng.below(8));
	f.name = "EX";
	uint8_t *r;
	int err = uv_send(w, s, f, &r);
	if (!err && idx == 18 && r)
		s.cq.push_back(rd32(r, 0));
}

void alloc_pd(Worker &w, UvState &s)
{
	uv_create(w, s, UV_CMD(ALLOC_PD), ib_uverbs_alloc_pd{}, 4, s.pd);
}

void create_comp_channel(Worker &w, UvState &s)
{
	uv_create(w, s, UV_CMD(CREATE_COMP_CHANNEL), ib_uverbs_create_comp_channel{}, 4, s.fds);
}

void query_device(Worker &w, UvState &s)
{
	uv_call(w, s, UV_CMD(QUERY_DEVICE), ib_uverbs_query_device{}, sizeof(ib_uverbs_query_device_resp));
}

// The plain destroys: a handle picked from a list, which forgets it once it
// is gone.
struct Destroy {
	uint32_t cmd;
	const char *name;
	size_t size, handle_at, resp_len;
	std::vector<uint32_t> UvState::*live;
};

#define UV_DESTROY(x, type, field, resp_len, live) \
	{ UV_CMD(x), sizeof(ib_uverbs_##type), offsetof(ib_uverbs_##type, field), resp_len, &UvState::live }

enum { kDeallocPd, kDeregMr, kDestroyCq, kDestroySrq, kDestroyAh, kDeallocMw };
const Destroy kDestroys[] = {
	UV_DESTROY(DEALLOC_PD, dealloc_pd, pd_handle, 0, pd),
	UV_DESTROY(DEREG_MR, dereg_mr, mr_handle, 0, mr),
	UV_DESTROY(DESTROY_CQ, destroy_cq, cq_handle, sizeof(ib_uverbs_destroy_cq_resp), cq),
	UV_DESTROY(DESTROY_SRQ, destroy_srq, srq_handle, sizeof(ib_uverbs_destroy_srq_resp), srq),
	UV_DESTROY(DESTROY_AH, destroy_ah, ah_handle, 0, ah),
	UV_DESTROY(DEALLOC_MW, dealloc_mw, mw_handle, 0, mw),
};

template <unsigned I> void destroy(Worker &w, UvState &s)
{
	const Destroy &d = kDestroys[I];
	std::vector<uint32_t> &live = s.*d.live;
	std::vector<uint8_t> req(d.size);
	uint32_t h = s.pick(w, live);
	memcpy(&req[d.handle_at], &h, 4);
	UvFrame f = uv_frame(d.cmd, d.name, req.data(), req.size(), d.resp_len);
	uint8_t *r;
	if (!uv_send(w, s, f, &r))
		s.forget(live, h);
}

// The op numbers one_call draws from; a command listed n times is made n
// times as often. Past the table: a random frame.
using Op = void (*)(Worker &, UvState &);
const Op kOps[] = {
	get_context, alloc_pd, alloc_pd, destroy<kDeallocPd>, reg_mr, reg_mr, rereg_mr, destroy<kDeregMr>,
	create_comp_channel, create_cq, create_cq, resize_cq, destroy<kDestroyCq>, poll_cq, req_notify_cq,
	uvw::create_qp, uvw::create_qp, uvw::create_qp, uvw::query_qp, uvw::modify_qp, uvw::modify_qp,
	uvw::modify_qp, uvw::destroy_qp, uvw::post_send, uvw::post_send, uvw::post_qp_recv, create_srq,
	modify_srq, query_srq, destroy<kDestroySrq>, uvw::create_ah, destroy<kDestroyAh>, alloc_mw,
	destroy<kDeallocMw>, uvw::mcast, query_port, query_device, ex_command, uvw::post_srq_recv,
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == 39, "op numbers are part of the replay");

} // namespace

void uv_write_op(Worker &w, UvState &s, unsigned op)
{
	if (op < sizeof(kOps) / sizeof(kOps[0]))
		kOps[op](w, s);
	else
		random_frame(w, s);
}

namespace {

void one_call(Worker &w, UvState &s)
{
	unsigned op = (unsigned)w.rng.below(40);
	if (!s.has_ctx && w.rng.chance(80))
		op = 0;
	else if (s.pd.empty() && w.rng.chance(60))
		op = 1;
	uv_write_op(w, s, op);
}

} // namespace

void fuzz_uverbs_write(Worker &w)
{
	UvState s;
	if (!s.open(w))
		return;
	unsigned n = 20 + (unsigned)w.rng.below(300);
	for (unsigned i = 0; i < n && w.take(); i++)
		one_call(w, s);
	s.close_all(w.journal.fd());
}

} // namespace fz
