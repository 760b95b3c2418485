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

#include "uverbs_state.h"

namespace fz {
namespace {

constexpr uint32_t kEx = IB_USER_VERBS_CMD_FLAG_EXTENDED;

struct Frame {
	uint32_t cmd = 0;
	std::vector<uint8_t> req;	// after the header(s)
	size_t resp_len = 0;		// core response, bytes
	bool has_resp = false;		// the first u64 of req is the response pointer
	std::vector<size_t> ptrs;	// more pointer fields in req
	const char *name = "";
};

template <typename T> Frame make(uint32_t cmd, const T &s, size_t resp_len, const char *name)
{
	Frame f;
	f.cmd = cmd;
	f.req.assign((const uint8_t *)&s, (const uint8_t *)&s + sizeof(s));
	f.resp_len = resp_len;
	f.has_resp = resp_len > 0 && !(cmd & kEx);
	f.name = name;
	return f;
}

void put64(std::vector<uint8_t> &v, size_t off, uint64_t x)
{
	if (off + 8 <= v.size())
		memcpy(&v[off], &x, 8);
}

// Sends f (legacy or extended), mutated or not; returns 0 or errno and
// points *resp at the core response when it can be trusted.
int send(Worker &w, UvState &s, Frame &f, uint8_t **resp)
{
	*resp = nullptr;
	uint8_t *rbuf = w.mem.resp(w.rng.below(8));
	const size_t extra = 64; // room for the driver's udata response
	size_t out_bytes = f.resp_len ? f.resp_len + extra : 0;
	uint64_t rptr = (uint64_t)rbuf;
	bool ex = f.cmd & kEx;
	if (f.has_resp)
		put64(f.req, 0, rptr);
	for (size_t off : f.ptrs)
		put64(f.req, off, (uint64_t)w.mem.resp(8 + w.rng.below(8)));

	int64_t in_words = -1, out_words = -1, wlen = -1;
	uint32_t cmd = f.cmd;
	const char *mut = "none";
	if (w.rng.chance(35)) {
		switch (w.rng.below(8)) {
		case 0:
		case 1: { // field bytes
			mut = "bytes";
			unsigned n = 1 + w.rng.below(4);
			for (unsigned i = 0; i < n && !f.req.empty(); i++) {
				size_t at = w.rng.below(f.req.size());
				f.req[at] = w.rng.chance(50) ? (uint8_t)w.rng.next()
							     : (uint8_t)w.rng.interesting();
			}
			if (f.has_resp)
				put64(f.req, 0, rptr);
			for (size_t off : f.ptrs)
				put64(f.req, off, w.mem.any_ptr(w.rng, 64));
			break;
		}
		case 2:
			mut = "resp_ptr";
			rptr = w.mem.any_ptr(w.rng, out_bytes);
			if (f.has_resp)
				put64(f.req, 0, rptr);
			break;
		case 3:
			mut = "in_words";
			in_words = w.rng.chance(50) ? (int64_t)w.rng.below(0x10000)
						    : (int64_t)(f.req.size() / (ex ? 8 : 4)) +
							      (int64_t)w.rng.below(5) - 2;
			break;
		case 4:
			mut = "out_words";
			out_words = w.rng.chance(50) ? (int64_t)w.rng.below(0x10000)
						     : (int64_t)(out_bytes / (ex ? 8 : 4)) +
							       (int64_t)w.rng.below(5) - 2;
			break;
		case 5:
			mut = "length";
			wlen = w.rng.below(f.req.size() + 64);
			break;
		case 6:
			mut = "short_req";
			f.req.resize(w.rng.below(f.req.size() + 1));
			break;
		default:
			mut = "cmd_bits";
			cmd ^= 1u << w.rng.below(32);
			break;
		}
	}

	std::vector<uint8_t> buf(8 + (ex ? 16 : 0));
	uint32_t iw, ow;
	if (!ex) {
		iw = in_words >= 0 ? (uint32_t)in_words : (uint32_t)((8 + f.req.size()) / 4);
		ow = out_words >= 0 ? (uint32_t)out_words : (uint32_t)(out_bytes / 4);
	} else {
		iw = in_words >= 0 ? (uint32_t)in_words : (uint32_t)(f.req.size() / 8);
		ow = out_words >= 0 ? (uint32_t)out_words : (uint32_t)(f.resp_len / 8);
		ib_uverbs_ex_cmd_hdr xh{};
		xh.response = f.resp_len ? rptr : 0;
		if (f.resp_len && w.rng.chance(5))
			xh.provider_out_words = (uint16_t)w.rng.below(16);
		if (w.rng.chance(3))
			xh.cmd_hdr_reserved = (uint32_t)w.rng.next();
		memcpy(&buf[8], &xh, sizeof(xh));
	}
	ib_uverbs_cmd_hdr h{cmd, (uint16_t)iw, (uint16_t)ow};
	memcpy(&buf[0], &h, sizeof(h));
	buf.insert(buf.end(), f.req.begin(), f.req.end());
	size_t len = wlen >= 0 && (size_t)wlen < buf.size() ? (size_t)wlen : buf.size();

	w.note("uverbs %s write %s cmd=%#x in=%u out=%u len=%zu mut=%s", s.dev->name.c_str(),
	       f.name, cmd, iw, ow, len, mut);
	if (rptr == (uint64_t)rbuf)
		memset(rbuf, 0, out_bytes < 1024 ? out_bytes : 1024);
	ssize_t r = write(s.fd, buf.data(), len);
	int err = r < 0 ? errno : 0;
	w.result(err);
	if (r >= 0 && (size_t)r != len)
		w.violation("uverbs %s: write of %zu returned %zd", f.name, len, r);
	if (!err && rptr == (uint64_t)rbuf && f.resp_len)
		*resp = rbuf;
	return err;
}

uint32_t rd32(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, 4);
	return v;
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
	Frame f = make(IB_USER_VERBS_CMD_MODIFY_QP, c, 0, "MODIFY_QP");
	uint8_t *r;
	if (!send(w, s, f, &r) && idx != SIZE_MAX && idx < s.qp.size())
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
	Frame f = make(IB_USER_VERBS_CMD_POST_SEND, c, sizeof(ib_uverbs_post_send_resp), "POST_SEND");
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
		f.req.insert(f.req.end(), (uint8_t *)&wr, (uint8_t *)&wr + sizeof(wr));
	}
	for (uint32_t i = 0; i < c.sge_count && i < 4; i++) {
		ib_uverbs_sge sg{};
		sg.addr = (uint64_t)w.mem.scratch() + 16384 + w.rng.below(4096);
		sg.length = (uint32_t)w.rng.below(4096);
		sg.lkey = s.lkey.empty() ? 0 : s.lkey[w.rng.below(s.lkey.size())];
		f.req.insert(f.req.end(), (uint8_t *)&sg, (uint8_t *)&sg + sizeof(sg));
	}
	uint8_t *r;
	send(w, s, f, &r);
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
	Frame f = make(srq ? IB_USER_VERBS_CMD_POST_SRQ_RECV : IB_USER_VERBS_CMD_POST_RECV, c,
		       4, srq ? "POST_SRQ_RECV" : "POST_RECV");
	for (uint32_t i = 0; i < c.wr_count; i++) {
		ib_uverbs_recv_wr wr{};
		wr.wr_id = w.rng.next();
		wr.num_sge = c.wr_count ? c.sge_count / c.wr_count : 0;
		f.req.insert(f.req.end(), (uint8_t *)&wr, (uint8_t *)&wr + sizeof(wr));
	}
	for (uint32_t i = 0; i < c.sge_count; i++) {
		ib_uverbs_sge sg{};
		sg.addr = (uint64_t)w.mem.scratch() + 16384 + w.rng.below(4096);
		sg.length = (uint32_t)w.rng.below(4096);
		sg.lkey = s.lkey.empty() ? 0 : s.lkey[w.rng.below(s.lkey.size())];
		f.req.insert(f.req.end(), (uint8_t *)&sg, (uint8_t *)&sg + sizeof(sg));
	}
	uint8_t *r;
	send(w, s, f, &r);
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

} // namespace

void uv_write_op(Worker &w, UvState &s, unsigned op)
{
	uint8_t *r = nullptr;
	switch (op) {
	case 0: {
		ib_uverbs_get_context c{};
		Frame f = make(IB_USER_VERBS_CMD_GET_CONTEXT, c, sizeof(ib_uverbs_get_context_resp),
			       "GET_CONTEXT");
		if (!send(w, s, f, &r)) {
			s.has_ctx = true;
			if (r)
				s.fds.push_back((int)rd32(r, 0));
		}
		break;
	}
	case 1:
	case 2: {
		ib_uverbs_alloc_pd c{};
		Frame f = make(IB_USER_VERBS_CMD_ALLOC_PD, c, 4, "ALLOC_PD");
		if (!send(w, s, f, &r) && r)
			s.pd.push_back(rd32(r, 0));
		break;
	}
	case 3: {
		ib_uverbs_dealloc_pd c{};
		c.pd_handle = s.pick(w, s.pd);
		Frame f = make(IB_USER_VERBS_CMD_DEALLOC_PD, c, 0, "DEALLOC_PD");
		if (!send(w, s, f, &r))
			s.forget(s.pd, c.pd_handle);
		break;
	}
	case 4:
	case 5: {
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
		Frame f = make(IB_USER_VERBS_CMD_REG_MR, c, sizeof(ib_uverbs_reg_mr_resp), "REG_MR");
		f.req.resize(f.req.size() + 8); // siw's stag key; rxe ignores it
		if (!send(w, s, f, &r) && r) {
			s.mr.push_back(rd32(r, 0));
			s.lkey.push_back(rd32(r, 4));
		}
		break;
	}
	case 6: {
		ib_uverbs_rereg_mr c{};
		c.mr_handle = s.pick(w, s.mr);
		c.flags = (uint32_t)w.rng.below(8);
		uint64_t len;
		c.start = w.mem.mr_buf(w.rng, &len);
		c.length = len;
		c.hca_va = c.start;
		c.pd_handle = s.pick(w, s.pd);
		c.access_flags = (uint32_t)w.rng.below(16);
		Frame f = make(IB_USER_VERBS_CMD_REREG_MR, c, sizeof(ib_uverbs_rereg_mr_resp), "REREG_MR");
		send(w, s, f, &r);
		break;
	}
	case 7: {
		ib_uverbs_dereg_mr c{};
		c.mr_handle = s.pick(w, s.mr);
		Frame f = make(IB_USER_VERBS_CMD_DEREG_MR, c, 0, "DEREG_MR");
		if (!send(w, s, f, &r))
			s.forget(s.mr, c.mr_handle);
		break;
	}
	case 8: {
		ib_uverbs_create_comp_channel c{};
		Frame f = make(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, c, 4, "CREATE_COMP_CHANNEL");
		if (!send(w, s, f, &r) && r)
			s.fds.push_back((int)rd32(r, 0));
		break;
	}
	case 9:
	case 10: {
		ib_uverbs_create_cq c{};
		c.user_handle = w.rng.next();
		c.cqe = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(256) : w.rng.interesting());
		c.comp_vector = (uint32_t)(w.rng.chance(90) ? 0 : w.rng.interesting());
		c.comp_channel = w.rng.chance(50) ? -1 : s.pick_fd(w);
		Frame f = make(IB_USER_VERBS_CMD_CREATE_CQ, c, sizeof(ib_uverbs_create_cq_resp), "CREATE_CQ");
		if (!send(w, s, f, &r) && r)
			s.cq.push_back(rd32(r, 0));
		break;
	}
	case 11: {
		ib_uverbs_resize_cq c{};
		c.cq_handle = s.pick(w, s.cq);
		c.cqe = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(512) : w.rng.interesting());
		Frame f = make(IB_USER_VERBS_CMD_RESIZE_CQ, c, sizeof(ib_uverbs_resize_cq_resp), "RESIZE_CQ");
		send(w, s, f, &r);
		break;
	}
	case 12: {
		ib_uverbs_destroy_cq c{};
		c.cq_handle = s.pick(w, s.cq);
		Frame f = make(IB_USER_VERBS_CMD_DESTROY_CQ, c, sizeof(ib_uverbs_destroy_cq_resp), "DESTROY_CQ");
		if (!send(w, s, f, &r))
			s.forget(s.cq, c.cq_handle);
		break;
	}
	case 13: {
		ib_uverbs_poll_cq c{};
		c.cq_handle = s.pick(w, s.cq);
		c.ne = (uint32_t)(w.rng.chance(80) ? w.rng.below(16) : w.rng.interesting());
		Frame f = make(IB_USER_VERBS_CMD_POLL_CQ, c, 8, "POLL_CQ");
		send(w, s, f, &r);
		break;
	}
	case 14: {
		ib_uverbs_req_notify_cq c{};
		c.cq_handle = s.pick(w, s.cq);
		c.solicited_only = (uint32_t)w.rng.below(3);
		Frame f = make(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, c, 0, "REQ_NOTIFY_CQ");
		send(w, s, f, &r);
		break;
	}
	case 15:
	case 16:
	case 17: {
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
		Frame f = make(IB_USER_VERBS_CMD_CREATE_QP, c, sizeof(ib_uverbs_create_qp_resp), "CREATE_QP");
		int err = send(w, s, f, &r);
		if (!err && r)
			s.qp.push_back({rd32(r, 0), rd32(r, 4), 1});
		// Upstream needs CAP_NET_RAW for a raw packet QP, before the
		// handles are even looked up.
		if (!w.priv && c.qp_type == 8 && !err)
			w.violation("unprivileged CREATE_QP of a RAW_PACKET QP succeeded");
		break;
	}
	case 18: {
		ib_uverbs_query_qp c{};
		size_t idx;
		c.qp_handle = s.pick_qp(w, &idx);
		c.attr_mask = (uint32_t)(w.rng.chance(80) ? w.rng.below(1u << 21) : w.rng.next());
		Frame f = make(IB_USER_VERBS_CMD_QUERY_QP, c, sizeof(ib_uverbs_query_qp_resp), "QUERY_QP");
		send(w, s, f, &r);
		break;
	}
	case 19:
	case 20:
	case 21:
		modify_qp(w, s);
		break;
	case 22: {
		ib_uverbs_destroy_qp c{};
		size_t idx;
		c.qp_handle = s.pick_qp(w, &idx);
		Frame f = make(IB_USER_VERBS_CMD_DESTROY_QP, c, sizeof(ib_uverbs_destroy_qp_resp), "DESTROY_QP");
		if (!send(w, s, f, &r))
			for (size_t i = 0; i < s.qp.size(); i++)
				if (s.qp[i].handle == c.qp_handle) {
					s.dead.push_back(c.qp_handle);
					s.qp.erase(s.qp.begin() + i);
					break;
				}
		break;
	}
	case 23:
	case 24:
		post_send(w, s);
		break;
	case 25:
		post_recv(w, s, false);
		break;
	case 26: {
		ib_uverbs_create_srq c{};
		c.user_handle = w.rng.next();
		c.pd_handle = s.pick(w, s.pd);
		c.max_wr = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(64) : w.rng.interesting());
		c.max_sge = (uint32_t)(w.rng.chance(85) ? 1 + w.rng.below(4) : w.rng.interesting());
		c.srq_limit = (uint32_t)w.rng.below(8);
		Frame f = make(IB_USER_VERBS_CMD_CREATE_SRQ, c, sizeof(ib_uverbs_create_srq_resp), "CREATE_SRQ");
		if (!send(w, s, f, &r) && r)
			s.srq.push_back(rd32(r, 0));
		break;
	}
	case 27: {
		ib_uverbs_modify_srq c{};
		c.srq_handle = s.pick(w, s.srq);
		c.attr_mask = (uint32_t)w.rng.below(4);
		c.max_wr = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(128) : w.rng.interesting());
		c.srq_limit = (uint32_t)w.rng.below(64);
		Frame f = make(IB_USER_VERBS_CMD_MODIFY_SRQ, c, 0, "MODIFY_SRQ");
		// rxe's driver data: where to write the new queue's mmap info.
		f.ptrs.push_back(f.req.size());
		f.req.resize(f.req.size() + 8);
		send(w, s, f, &r);
		break;
	}
	case 28: {
		ib_uverbs_query_srq c{};
		c.srq_handle = s.pick(w, s.srq);
		Frame f = make(IB_USER_VERBS_CMD_QUERY_SRQ, c, sizeof(ib_uverbs_query_srq_resp), "QUERY_SRQ");
		send(w, s, f, &r);
		break;
	}
	case 29: {
		ib_uverbs_destroy_srq c{};
		c.srq_handle = s.pick(w, s.srq);
		Frame f = make(IB_USER_VERBS_CMD_DESTROY_SRQ, c, sizeof(ib_uverbs_destroy_srq_resp), "DESTROY_SRQ");
		if (!send(w, s, f, &r))
			s.forget(s.srq, c.srq_handle);
		break;
	}
	case 30: {
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
		Frame f = make(IB_USER_VERBS_CMD_CREATE_AH, c, sizeof(ib_uverbs_create_ah_resp), "CREATE_AH");
		if (!send(w, s, f, &r) && r)
			s.ah.push_back(rd32(r, 0));
		break;
	}
	case 31: {
		ib_uverbs_destroy_ah c{};
		c.ah_handle = s.pick(w, s.ah);
		Frame f = make(IB_USER_VERBS_CMD_DESTROY_AH, c, 0, "DESTROY_AH");
		if (!send(w, s, f, &r))
			s.forget(s.ah, c.ah_handle);
		break;
	}
	case 32: {
		ib_uverbs_alloc_mw c{};
		c.pd_handle = s.pick(w, s.pd);
		c.mw_type = (uint8_t)w.rng.below(4);
		Frame f = make(IB_USER_VERBS_CMD_ALLOC_MW, c, sizeof(ib_uverbs_alloc_mw_resp), "ALLOC_MW");
		if (!send(w, s, f, &r) && r)
			s.mw.push_back(rd32(r, 0));
		break;
	}
	case 33: {
		ib_uverbs_dealloc_mw c{};
		c.mw_handle = s.pick(w, s.mw);
		Frame f = make(IB_USER_VERBS_CMD_DEALLOC_MW, c, 0, "DEALLOC_MW");
		if (!send(w, s, f, &r))
			s.forget(s.mw, c.mw_handle);
		break;
	}
	case 34: {
		ib_uverbs_attach_mcast c{};
		size_t idx;
		c.gid[0] = 0xff;
		c.gid[1] = 0x0e;
		c.gid[15] = (uint8_t)w.rng.below(4);
		c.qp_handle = s.pick_qp(w, &idx);
		c.mlid = (uint16_t)w.rng.below(4);
		bool attach = w.rng.chance(60);
		Frame f = make(attach ? IB_USER_VERBS_CMD_ATTACH_MCAST : IB_USER_VERBS_CMD_DETACH_MCAST, c,
			       0, attach ? "ATTACH_MCAST" : "DETACH_MCAST");
		send(w, s, f, &r);
		break;
	}
	case 35: {
		ib_uverbs_query_port c{};
		c.port_num = (uint8_t)(w.rng.chance(80) ? 1 : w.rng.below(256));
		Frame f = make(IB_USER_VERBS_CMD_QUERY_PORT, c, sizeof(ib_uverbs_query_port_resp), "QUERY_PORT");
		send(w, s, f, &r);
		break;
	}
	case 36: {
		ib_uverbs_query_device c{};
		Frame f = make(IB_USER_VERBS_CMD_QUERY_DEVICE, c, sizeof(ib_uverbs_query_device_resp),
			       "QUERY_DEVICE");
		send(w, s, f, &r);
		break;
	}
	case 37: { // extended commands, core request random past a sane head
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
		Frame f;
		f.cmd = kEx | idx;
		f.req = req;
		f.resp_len = idx == 1 ? sizeof(ib_uverbs_ex_query_device_resp) : 8 * (w.rng.below(8));
		f.name = "EX";
		int err = send(w, s, f, &r);
		if (!err && idx == 18 && r)
			s.cq.push_back(rd32(r, 0));
		break;
	}
	case 38:
		post_recv(w, s, true);
		break;
	default:
		random_frame(w, s);
		break;
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
