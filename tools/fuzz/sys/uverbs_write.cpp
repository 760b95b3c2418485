// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// uverbs write(): a valid object sequence (context, PD, MR on a real
// buffer, CQ with a completion channel, QP walked through its states, posts,
// destroys) with random field mutations (handles, lengths, in/out words,
// response pointers), plus extended commands and pure random frames.
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "uverbs_frame.h"

namespace fz {
namespace {

// The command's number and its name for the journal.
#define UV_CMD(x) IB_USER_VERBS_CMD_##x, #x

template <typename T>
int call(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len, uint8_t **r)
{
	UvFrame f = uv_frame(cmd, name, c, resp_len);
	return uv_send(w, s, f, r);
}

template <typename T> int call(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len)
{
	uint8_t *r;
	return call(w, s, cmd, name, c, resp_len, &r);
}

// A create whose response starts with the new handle (or fd): it joins @into.
template <typename T, typename H>
void create(Worker &w, UvState &s, uint32_t cmd, const char *name, const T &c, size_t resp_len,
	    std::vector<H> &into)
{
	uint8_t *r;
	if (!call(w, s, cmd, name, c, resp_len, &r) && r)
		into.push_back((H)rd32(r, 0));
}

// A destroy of a handle picked from @live, which forgets it once it is gone.
template <typename T>
void destroy(Worker &w, UvState &s, uint32_t cmd, const char *name, size_t resp_len, __u32 T::*handle,
	     std::vector<uint32_t> &live)
{
	T c{};
	c.*handle = s.pick(w, live);
	if (!call(w, s, cmd, name, c, resp_len))
		s.forget(live, c.*handle);
}

template <typename T> void append(UvFrame &f, const T &x)
{
	f.req.insert(f.req.end(), (const uint8_t *)&x, (const uint8_t *)&x + sizeof(x));
}

// A post's scatter list: n entries in the second half of scratch.
void append_sges(Worker &w, UvState &s, UvFrame &f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		ib_uverbs_sge sg{};
		sg.addr = (uint64_t)w.mem.scratch() + 16384 + w.rng.below(4096);
		sg.length = (uint32_t)w.rng.below(4096);
		sg.lkey = s.lkey.empty() ? 0 : s.lkey[w.rng.below(s.lkey.size())];
		append(f, sg);
	}
}

void fill_dest(Worker &w, ib_uverbs_qp_dest &d)
{
	// ::ffff:192.0.2.1, the guest's own address: RoCE loopback.
	static const uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
	memcpy(d.dgid, gid, 16);
	d.sgid_index = (uint8_t)w.rng.below(3);
	d.hop_limit = 64;
	d.is_global = 1;
	d.port_num = 1;
	d.sl = (uint8_t)w.rng.below(2);
}

void modify_qp(Worker &w, UvState &s)
{
	ib_uverbs_modify_qp c{};
	size_t idx;
	c.qp_handle = s.pick_qp(w, &idx);
	uint32_t st = idx != SIZE_MAX ? s.qp[idx].next_state : (uint32_t)w.rng.below(7);
	if (w.rng.chance(10))
		st = (uint32_t)w.rng.below(8);
	c.qp_state = (uint8_t)st;
	c.attr_mask = 1; // STATE
	switch (st) {
	case 1: // INIT
		c.attr_mask |= 8 | 16 | 32; // access, pkey index, port
		c.port_num = 1;
		c.qp_access_flags = (uint32_t)w.rng.below(16);
		break;
	case 2: // RTR
		c.attr_mask |= 128 | 256 | 4096 | 32768 | 131072 | 1048576;
		fill_dest(w, c.dest);
		c.path_mtu = (uint8_t)(1 + w.rng.below(5));
		c.dest_qp_num = idx != SIZE_MAX && w.rng.chance(50) ? s.qp[idx].qpn
								      : (uint32_t)w.rng.below(0x1000000);
		c.rq_psn = (uint32_t)w.rng.below(0x1000000);
		c.max_dest_rd_atomic = (uint8_t)w.rng.below(16);
		c.min_rnr_timer = (uint8_t)w.rng.below(32);
		break;
	case 3: // RTS
		c.attr_mask |= 512 | 1024 | 2048 | 8192 | 65536;
		c.timeout = (uint8_t)w.rng.below(32);
		c.retry_cnt = (uint8_t)w.rng.below(8);
		c.rnr_retry = (uint8_t)w.rng.below(8);
		c.sq_psn = (uint32_t)w.rng.below(0x1000000);
		c.max_rd_atomic = (uint8_t)w.rng.below(16);
		break;
	default:
		break;
	}
	if (w.rng.chance(15))
		c.attr_mask ^= 1u << w.rng.below(26);
	if (!call(w, s, UV_CMD(MODIFY_QP), c, 0) && idx != SIZE_MAX && idx < s.qp.size())
		s.qp[idx].next_state = st >= 3 ? (w.rng.chance(50) ? 6 : 0) : st + 1;
}

void post_send(Worker &w, UvState &s)
{
	ib_uverbs_post_send c{};
	size_t idx;
	c.qp_handle = s.pick_qp(w, &idx);
	c.wr_count = (uint32_t)(w.rng.chance(40) ? 0 : w.rng.below(4));
	c.sge_count = (uint32_t)w.rng.below(4);
	c.wqe_size = sizeof(ib_uverbs_send_wr);
	if (w.rng.chance(10))
		c.wqe_size = (uint32_t)w.rng.interesting();
	UvFrame f = uv_frame(UV_CMD(POST_SEND), c, sizeof(ib_uverbs_post_send_resp));
	for (uint32_t i = 0; i < c.wr_count && i < 4; i++) {
		ib_uverbs_send_wr wr{};
		wr.wr_id = w.rng.next();
		wr.num_sge = c.wr_count ? c.sge_count / c.wr_count : 0;
		wr.opcode = (uint32_t)w.rng.below(12);
		wr.send_flags = (uint32_t)w.rng.below(32) & ~8u; // never INLINE
		wr.wr.rdma.remote_addr = (uint64_t)w.mem.scratch() + w.rng.below(4096);
		wr.wr.rdma.rkey = s.lkey.empty() ? 0 : s.lkey[w.rng.below(s.lkey.size())];
		if (wr.opcode == IB_UVERBS_WR_SEND || w.rng.chance(20))
			wr.wr.ud.ah = s.pick(w, s.ah);
		append(f, wr);
	}
	append_sges(w, s, f, c.sge_count < 4 ? c.sge_count : 4);
	uint8_t *r;
	uv_send(w, s, f, &r);
}

void post_recv(Worker &w, UvState &s, bool srq)
{
	ib_uverbs_post_recv c{};
	size_t idx;
	c.qp_handle = srq ? s.pick(w, s.srq) : s.pick_qp(w, &idx);
	c.wr_count = (uint32_t)w.rng.below(3);
	c.sge_count = (uint32_t)w.rng.below(3);
	c.wqe_size = sizeof(ib_uverbs_recv_wr);
	if (w.rng.chance(10))
		c.wqe_size = (uint32_t)w.rng.interesting();
	UvFrame f = srq ? uv_frame(UV_CMD(POST_SRQ_RECV), c, 4) : uv_frame(UV_CMD(POST_RECV), c, 4);
	for (uint32_t i = 0; i < c.wr_count; i++) {
		ib_uverbs_recv_wr wr{};
		wr.wr_id = w.rng.next();
		wr.num_sge = c.wr_count ? c.sge_count / c.wr_count : 0;
		append(f, wr);
	}
	append_sges(w, s, f, c.sge_count);
	uint8_t *r;
	uv_send(w, s, f, &r);
}

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
	if (!call(w, s, UV_CMD(GET_CONTEXT), c, sizeof(ib_uverbs_get_context_resp), &r)) {
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
	call(w, s, UV_CMD(REREG_MR), c, sizeof(ib_uverbs_rereg_mr_resp));
}

void create_cq(Worker &w, UvState &s)
{
	ib_uverbs_create_cq c{};
	c.user_handle = w.rng.next();
	c.cqe = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(256) : w.rng.interesting());
	c.comp_vector = (uint32_t)(w.rng.chance(90) ? 0 : w.rng.interesting());
	c.comp_channel = w.rng.chance(50) ? -1 : s.pick_fd(w);
	create(w, s, UV_CMD(CREATE_CQ), c, sizeof(ib_uverbs_create_cq_resp), s.cq);
}

void resize_cq(Worker &w, UvState &s)
{
	ib_uverbs_resize_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.cqe = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(512) : w.rng.interesting());
	call(w, s, UV_CMD(RESIZE_CQ), c, sizeof(ib_uverbs_resize_cq_resp));
}

void poll_cq(Worker &w, UvState &s)
{
	ib_uverbs_poll_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.ne = (uint32_t)(w.rng.chance(80) ? w.rng.below(16) : w.rng.interesting());
	call(w, s, UV_CMD(POLL_CQ), c, 8);
}

void req_notify_cq(Worker &w, UvState &s)
{
	ib_uverbs_req_notify_cq c{};
	c.cq_handle = s.pick(w, s.cq);
	c.solicited_only = (uint32_t)w.rng.below(3);
	call(w, s, UV_CMD(REQ_NOTIFY_CQ), c, 0);
}

void create_qp(Worker &w, UvState &s)
{
	ib_uverbs_create_qp c{};
	c.user_handle = w.rng.next();
	c.pd_handle = s.pick(w, s.pd);
	c.send_cq_handle = s.pick(w, s.cq);
	c.recv_cq_handle = w.rng.chance(70) ? c.send_cq_handle : s.pick(w, s.cq);
	c.is_srq = w.rng.chance(15);
	c.srq_handle = c.is_srq ? s.pick(w, s.srq) : 0;
	c.max_send_wr = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(64) : w.rng.interesting());
	c.max_recv_wr = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(64) : w.rng.interesting());
	c.max_send_sge = (uint32_t)(w.rng.chance(90) ? 1 + w.rng.below(4) : w.rng.interesting());
	c.max_recv_sge = (uint32_t)(w.rng.chance(90) ? 1 + w.rng.below(4) : w.rng.interesting());
	c.max_inline_data = (uint32_t)(w.rng.chance(80) ? w.rng.below(128) : w.rng.interesting());
	c.sq_sig_all = (uint8_t)w.rng.below(2);
	static const uint8_t types[] = {2, 2, 2, 3, 4, 4, 8, 9, 10, 0xff, 0, 1, 7};
	c.qp_type = w.rng.pick(types);
	uint8_t *r;
	int err = call(w, s, UV_CMD(CREATE_QP), c, sizeof(ib_uverbs_create_qp_resp), &r);
	if (!err && r)
		s.qp.push_back({rd32(r, 0), rd32(r, 4), 1});
	// Upstream needs CAP_NET_RAW for a raw packet QP, before the
	// handles are even looked up.
	if (!w.priv && c.qp_type == 8 && !err)
		w.violation("unprivileged CREATE_QP of a RAW_PACKET QP succeeded");
}

void query_qp(Worker &w, UvState &s)
{
	ib_uverbs_query_qp c{};
	size_t idx;
	c.qp_handle = s.pick_qp(w, &idx);
	c.attr_mask = (uint32_t)(w.rng.chance(80) ? w.rng.below(1u << 21) : w.rng.next());
	call(w, s, UV_CMD(QUERY_QP), c, sizeof(ib_uverbs_query_qp_resp));
}

void destroy_qp(Worker &w, UvState &s)
{
	ib_uverbs_destroy_qp c{};
	size_t idx;
	c.qp_handle = s.pick_qp(w, &idx);
	if (call(w, s, UV_CMD(DESTROY_QP), c, sizeof(ib_uverbs_destroy_qp_resp)))
		return;
	for (size_t i = 0; i < s.qp.size(); i++)
		if (s.qp[i].handle == c.qp_handle) {
			s.dead.push_back(c.qp_handle);
			s.qp.erase(s.qp.begin() + i);
			break;
		}
}

void create_srq(Worker &w, UvState &s)
{
	ib_uverbs_create_srq c{};
	c.user_handle = w.rng.next();
	c.pd_handle = s.pick(w, s.pd);
	c.max_wr = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(64) : w.rng.interesting());
	c.max_sge = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(4) : w.rng.interesting());
	c.srq_limit = (uint32_t)w.rng.below(8);
	create(w, s, UV_CMD(CREATE_SRQ), c, sizeof(ib_uverbs_create_srq_resp), s.srq);
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
	call(w, s, UV_CMD(QUERY_SRQ), c, sizeof(ib_uverbs_query_srq_resp));
}

void create_ah(Worker &w, UvState &s)
{
	ib_uverbs_create_ah c{};
	c.user_handle = w.rng.next();
	c.pd_handle = s.pick(w, s.pd);
	ib_uverbs_qp_dest d{};
	fill_dest(w, d);
	memcpy(c.attr.grh.dgid, d.dgid, 16);
	c.attr.grh.sgid_index = d.sgid_index;
	c.attr.grh.hop_limit = 64;
	c.attr.is_global = w.rng.chance(90);
	c.attr.port_num = (uint8_t)(w.rng.chance(90) ? 1 : w.rng.below(256));
	create(w, s, UV_CMD(CREATE_AH), c, sizeof(ib_uverbs_create_ah_resp), s.ah);
}

void alloc_mw(Worker &w, UvState &s)
{
	ib_uverbs_alloc_mw c{};
	c.pd_handle = s.pick(w, s.pd);
	c.mw_type = (uint8_t)w.rng.below(4);
	create(w, s, UV_CMD(ALLOC_MW), c, sizeof(ib_uverbs_alloc_mw_resp), s.mw);
}

void mcast(Worker &w, UvState &s)
{
	ib_uverbs_attach_mcast c{};
	size_t idx;
	c.gid[0] = 0xff;
	c.gid[1] = 0x0e;
	c.gid[15] = (uint8_t)w.rng.below(4);
	c.qp_handle = s.pick_qp(w, &idx);
	c.mlid = (uint16_t)w.rng.below(4);
	if (w.rng.chance(60))
		call(w, s, UV_CMD(ATTACH_MCAST), c, 0);
	else
		call(w, s, UV_CMD(DETACH_MCAST), c, 0);
}

void query_port(Worker &w, UvState &s)
{
	ib_uverbs_query_port c{};
	c.port_num = (uint8_t)(w.rng.chance(80) ? 1 : w.rng.below(256));
	call(w, s, UV_CMD(QUERY_PORT), c, sizeof(ib_uverbs_query_port_resp));
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

} // namespace

void uv_write_op(Worker &w, UvState &s, unsigned op)
{
	switch (op) {
	case 0:
		return get_context(w, s);
	case 1:
	case 2:
		return create(w, s, UV_CMD(ALLOC_PD), ib_uverbs_alloc_pd{}, 4, s.pd);
	case 3:
		return destroy(w, s, UV_CMD(DEALLOC_PD), 0, &ib_uverbs_dealloc_pd::pd_handle, s.pd);
	case 4:
	case 5:
		return reg_mr(w, s);
	case 6:
		return rereg_mr(w, s);
	case 7:
		return destroy(w, s, UV_CMD(DEREG_MR), 0, &ib_uverbs_dereg_mr::mr_handle, s.mr);
	case 8:
		return create(w, s, UV_CMD(CREATE_COMP_CHANNEL), ib_uverbs_create_comp_channel{}, 4, s.fds);
	case 9:
	case 10:
		return create_cq(w, s);
	case 11:
		return resize_cq(w, s);
	case 12:
		return destroy(w, s, UV_CMD(DESTROY_CQ), sizeof(ib_uverbs_destroy_cq_resp),
			       &ib_uverbs_destroy_cq::cq_handle, s.cq);
	case 13:
		return poll_cq(w, s);
	case 14:
		return req_notify_cq(w, s);
	case 15:
	case 16:
	case 17:
		return create_qp(w, s);
	case 18:
		return query_qp(w, s);
	case 19:
	case 20:
	case 21:
		return modify_qp(w, s);
	case 22:
		return destroy_qp(w, s);
	case 23:
	case 24:
		return post_send(w, s);
	case 25:
		return post_recv(w, s, false);
	case 26:
		return create_srq(w, s);
	case 27:
		return modify_srq(w, s);
	case 28:
		return query_srq(w, s);
	case 29:
		return destroy(w, s, UV_CMD(DESTROY_SRQ), sizeof(ib_uverbs_destroy_srq_resp),
			       &ib_uverbs_destroy_srq::srq_handle, s.srq);
	case 30:
		return create_ah(w, s);
	case 31:
		return destroy(w, s, UV_CMD(DESTROY_AH), 0, &ib_uverbs_destroy_ah::ah_handle, s.ah);
	case 32:
		return alloc_mw(w, s);
	case 33:
		return destroy(w, s, UV_CMD(DEALLOC_MW), 0, &ib_uverbs_dealloc_mw::mw_handle, s.mw);
	case 34:
		return mcast(w, s);
	case 35:
		return query_port(w, s);
	case 36:
		call(w, s, UV_CMD(QUERY_DEVICE), ib_uverbs_query_device{}, sizeof(ib_uverbs_query_device_resp));
		return;
	case 37:
		return ex_command(w, s);
	case 38:
		return post_recv(w, s, true);
	default:
		return random_frame(w, s);
	}
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
