// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What the victim's targets (rxe, siw) both hold: a PD, a CQ, and the MRs
// they offer the attacker over arena windows (remote write, remote read
// only, no remote access, and a ring of receive slots that their QPs'
// receives take in turn).
#pragma once

#include "side_channel.h"
#include "victim_mem.h"

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fw {

struct TargetMrs {
	ibv_mr *rw = nullptr, *ro = nullptr, *none = nullptr, *recv = nullptr;
};

class VictimVerbs {
public:
	// reserves the MRs' windows, named PREFIX_rw, _ro, _none, _recv
	void plan(Arena &arena, const std::string &prefix, size_t win_len, uint32_t slot_len,
		  unsigned slots);
	// the PD and a CQ of @cqe entries on @ctx
	bool open(ibv_context *ctx, int cqe);
	// the four MRs, @rw_access for the remote write one
	bool reg_target_mrs(Arena &arena, int rw_access);
	// one more MR over window @w of @arena; release() deregisters it
	ibv_mr *reg(Arena &arena, size_t w, int access);
	// posts receives on @qp until @posted is @want (or a post fails)
	void refill(ibv_qp *qp, int &posted, int want);
	// a QP on the CQ with room for @recv_wr receives
	ibv_qp_init_attr qp_attr(ibv_qp_type type, int recv_wr) const;
	void release();

	// INFO entries of the four MRs: PREFIXrw_va, PREFIXrw_<key_name>,
	// PREFIXrw_len, and so on for ro, no (none) and recv
	void describe(Info &info, const std::string &prefix, const char *key_name) const;

	ibv_pd *pd() const { return pd_; }
	ibv_cq *cq() const { return cq_; }
	const TargetMrs &mrs() const { return mrs_; }
	uint8_t *ro_buf(Arena &arena) const { return arena.at(w_ro_); }

private:
	size_t w_rw_ = 0, w_ro_ = 0, w_none_ = 0, w_recv_ = 0;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	TargetMrs mrs_;
	std::vector<ibv_mr *> all_mrs_;
	uint8_t *ring_ = nullptr;
	uint32_t slot_len_ = 0;
	unsigned slots_ = 1, next_slot_ = 0;
};

// One scatter entry over @len bytes at @addr of MR @mr.
ibv_sge sge_of(const void *addr, uint32_t len, const ibv_mr *mr);

} // namespace fw
