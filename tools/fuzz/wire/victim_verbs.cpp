// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "victim_verbs.h"

namespace fw {

void VictimVerbs::plan(Arena &arena, const std::string &prefix, size_t win_len, uint32_t slot_len,
		       unsigned slots)
{
	w_rw_ = arena.add(prefix + "_rw", win_len, true);
	w_ro_ = arena.add(prefix + "_ro", win_len, false);
	w_none_ = arena.add(prefix + "_none", win_len, false);
	w_recv_ = arena.add(prefix + "_recv", size_t(slot_len) * slots, true);
	slot_len_ = slot_len;
	slots_ = slots;
}

bool VictimVerbs::open(ibv_context *ctx, int cqe)
{
	pd_ = ibv_alloc_pd(ctx);
	cq_ = pd_ ? ibv_create_cq(ctx, cqe, nullptr, nullptr, 0) : nullptr;
	return cq_ != nullptr;
}

ibv_mr *VictimVerbs::reg(Arena &arena, size_t w, int access)
{
	ibv_mr *m = ibv_reg_mr(pd_, arena.at(w), arena.len(w), access);

	if (m)
		all_mrs_.push_back(m);
	return m;
}

bool VictimVerbs::reg_target_mrs(Arena &arena, int rw_access)
{
	mrs_.rw = reg(arena, w_rw_, rw_access);
	mrs_.ro = reg(arena, w_ro_, IBV_ACCESS_REMOTE_READ);
	mrs_.none = reg(arena, w_none_, 0);
	mrs_.recv = reg(arena, w_recv_, IBV_ACCESS_LOCAL_WRITE);
	ring_ = arena.at(w_recv_);
	return mrs_.rw && mrs_.ro && mrs_.none && mrs_.recv;
}

void VictimVerbs::refill(ibv_qp *qp, int &posted, int want)
{
	while (posted < want) {
		ibv_sge sge = {};
		ibv_recv_wr wr = {}, *bad = nullptr;

		sge.addr = reinterpret_cast<uintptr_t>(ring_ + (next_slot_++ % slots_) * slot_len_);
		sge.length = slot_len_;
		sge.lkey = mrs_.recv->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(qp, &wr, &bad))
			return;
		posted++;
	}
}

ibv_qp_init_attr VictimVerbs::qp_attr(ibv_qp_type type, int recv_wr) const
{
	ibv_qp_init_attr ia = {};

	ia.send_cq = cq_;
	ia.recv_cq = cq_;
	ia.qp_type = type;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = recv_wr;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	return ia;
}

void VictimVerbs::release()
{
	for (ibv_mr *m : all_mrs_)
		ibv_dereg_mr(m);
	all_mrs_.clear();
	mrs_ = {};
	if (cq_)
		ibv_destroy_cq(cq_);
	if (pd_)
		ibv_dealloc_pd(pd_);
	cq_ = nullptr;
	pd_ = nullptr;
}

void VictimVerbs::describe(Info &info, const std::string &prefix, const char *key_name) const
{
	const std::pair<const char *, const ibv_mr *> mrs[] = {
		{ "rw", mrs_.rw }, { "ro", mrs_.ro }, { "no", mrs_.none }, { "recv", mrs_.recv }
	};

	for (const auto &[name, m] : mrs) {
		info[prefix + name + "_va"] = reinterpret_cast<uintptr_t>(m->addr);
		info[prefix + name + "_" + key_name] = m->rkey;
		info[prefix + name + "_len"] = m->length;
	}
}

ibv_sge sge_of(const void *addr, uint32_t len, const ibv_mr *mr)
{
	ibv_sge s = {};

	s.addr = reinterpret_cast<uintptr_t>(addr);
	s.length = len;
	s.lkey = mr->lkey;
	return s;
}

} // namespace fw
