// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// uverbs write() commands on QPs: create, query, modify (walking the QP
// through INIT, RTR and RTS on RoCE loopback), destroy, posts, and the
// address handles and multicast groups that go with them.
#include <cstring>

#include <rdma/ib_user_verbs.h>

#include "uverbs_frame.h"
#include "uverbs_write_qp.h"

namespace fz {
namespace {

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

} // namespace

namespace uvw {

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
	if (!uv_call(w, s, UV_CMD(MODIFY_QP), c, 0) && idx != SIZE_MAX && idx < s.qp.size())
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
	int err = uv_call(w, s, UV_CMD(CREATE_QP), c, sizeof(ib_uverbs_create_qp_resp), &r);
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
	uv_call(w, s, UV_CMD(QUERY_QP), c, sizeof(ib_uverbs_query_qp_resp));
}

void destroy_qp(Worker &w, UvState &s)
{
	ib_uverbs_destroy_qp c{};
	size_t idx;
	c.qp_handle = s.pick_qp(w, &idx);
	if (uv_call(w, s, UV_CMD(DESTROY_QP), c, sizeof(ib_uverbs_destroy_qp_resp)))
		return;
	for (size_t i = 0; i < s.qp.size(); i++)
		if (s.qp[i].handle == c.qp_handle) {
			s.dead.push_back(c.qp_handle);
			s.qp.erase(s.qp.begin() + i);
			break;
		}
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
	uv_create(w, s, UV_CMD(CREATE_AH), c, sizeof(ib_uverbs_create_ah_resp), s.ah);
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
		uv_call(w, s, UV_CMD(ATTACH_MCAST), c, 0);
	else
		uv_call(w, s, UV_CMD(DETACH_MCAST), c, 0);
}

void post_qp_recv(Worker &w, UvState &s)
{
	post_recv(w, s, false);
}

void post_srq_recv(Worker &w, UvState &s)
{
	post_recv(w, s, true);
}

} // namespace uvw
} // namespace fz
