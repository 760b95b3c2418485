// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The victim's iWARP target: an rdma_cm listener (all addresses) whose
// connection requests arriving on the siw device are accepted with a QP
// that has receives posted, in a PD holding MRs with remote write, remote
// read and no remote access. The attacker is the active side: its MPA
// request and FPDUs come over a TCP socket it owns.
#pragma once

#include "side_channel.h"
#include "victim_mem.h"
#include "victim_verbs.h"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <map>
#include <string>

namespace fw {

class SiwTargets {
public:
	void plan(Arena &arena);
	bool setup(const std::string &dev, uint16_t port, Arena &arena, std::string &err);
	void describe(Info &info) const;
	int event_fd() const { return ch_ ? ch_->fd : -1; }
	// handle CM events (non-blocking), poll the CQ, repost receives
	void tick();
	void report() const;
	void teardown();

private:
	void on_event(rdma_cm_event *ev);
	void accept(rdma_cm_id *id);
	void drop(rdma_cm_id *id);

	uint16_t port_ = 0;
	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *listen_ = nullptr;
	ibv_context *ctx_ = nullptr;
	VictimVerbs verbs_;
	std::map<uint32_t, rdma_cm_id *> by_qpn_;
	std::map<rdma_cm_id *, int> posted_;
	unsigned long requests_ = 0, established_ = 0, accept_fail_ = 0, ended_ = 0;
	unsigned long wc_ok_ = 0, wc_err_ = 0, other_dev_ = 0;
};

} // namespace fw
