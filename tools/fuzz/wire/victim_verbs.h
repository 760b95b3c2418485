// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What the victim's targets (rxe, siw) both hold: a PD, a CQ, MRs over
// arena windows, and a ring of receive buffers cut into slots that their
// QPs' receives take in turn.
#pragma once

#include "side_channel.h"
#include "victim_mem.h"

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fw {

class VictimVerbs {
public:
	// the PD and a CQ of @cqe entries on @ctx
	bool open(ibv_context *ctx, int cqe);
	// an MR over window @w of @arena, deregistered by release()
	ibv_mr *reg(Arena &arena, size_t w, int access);
	// receives take @slots slots of @slot_len bytes in window @w (MR @mr)
	void recv_ring(Arena &arena, size_t w, uint32_t slot_len, unsigned slots, ibv_mr *mr);
	// posts receives on @qp until @posted is @want (or a post fails)
	void refill(ibv_qp *qp, int &posted, int want);
	// a QP on the CQ with room for @recv_wr receives
	ibv_qp_init_attr qp_attr(ibv_qp_type type, int recv_wr) const;
	void release();

	ibv_pd *pd() const { return pd_; }
	ibv_cq *cq() const { return cq_; }

private:
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	std::vector<ibv_mr *> mrs_;
	uint8_t *ring_ = nullptr;
	uint32_t slot_len_ = 0, ring_lkey_ = 0;
	unsigned slots_ = 1, next_slot_ = 0;
};

// INFO entries of MR @m: PREFIX_va, PREFIX_<key_name>, PREFIX_len.
void describe_mr(Info &info, const std::string &prefix, const char *key_name, const ibv_mr *m);

// One scatter entry over @len bytes at @addr of MR @mr.
ibv_sge sge_of(const void *addr, uint32_t len, const ibv_mr *mr);

} // namespace fw
