// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The victim's RoCE targets on one device (rxe0): RC QPs connected to a fake
// remote QPN that the attacker impersonates, a UD QP, receives posted, MRs
// with remote write, remote read and no remote access. QP B also keeps an
// RDMA READ and a SEND outstanding so that forged ACKs and read responses
// meet a requester with work to complete. A QP the fuzz drives into the
// error state is reset and reconnected with the same PSNs, so the attacker's
// packets keep reaching live QPs; the responders also start over every
// 300 ms, their expected PSN back where the attacker aims.
#pragma once

#include "side_channel.h"
#include "victim_mem.h"
#include "victim_verbs.h"

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace fw {

struct RxeConfig {
	std::string dev;
	int gid_index = -1, v1_gid_index = -1;
	uint32_t remote_ip = 0;	// network order
	uint32_t dest_qpn = 0, psn_a = 0, psn_b = 0, qkey = 0;
	bool requester = true;	// QP B keeps work outstanding
};

class RxeTargets {
public:
	// reserves its windows; call before arena.build()
	void plan(Arena &arena);
	bool setup(const RxeConfig &cfg, Arena &arena, std::string &err);
	void describe(Info &info) const;
	// poll, repost, recover QPs in error
	void tick();
	void report() const;
	void teardown();

private:
	struct Qp {
		ibv_qp *qp = nullptr;
		bool rc = true, requester = false;
		int gid_index = 0;
		uint32_t psn = 0;
		int posted = 0, outstanding = 0;
		unsigned resets = 0;
	};
	bool connect_rc(Qp &q);
	bool ready_ud(Qp &q);
	bool make_qp(Qp &q, ibv_qp_type type, int gid_index, uint32_t psn);
	void keep_busy(Qp &q);
	// back to RESET and connected again (after an error or for a restart)
	bool recover(Qp &q);
	Qp *by_qpn(uint32_t qpn);

	RxeConfig cfg_;
	Arena *arena_ = nullptr;
	size_t w_sink_ = 0;
	ibv_context *ctx_ = nullptr;
	VictimVerbs verbs_;
	ibv_mr *mr_sink_ = nullptr;
	Qp a_, b_, v1_, ud_;
	std::chrono::steady_clock::time_point last_cycle_{};
	unsigned long wc_ok_ = 0, wc_err_ = 0, recv_ok_ = 0;
};

} // namespace fw
