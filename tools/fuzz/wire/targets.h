// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What the attacker knows about the victim (from its INFO line) and about
// itself, in the form the packet generators use.
#pragma once

#include "side_channel.h"

#include <array>
#include <cstdint>

namespace fw {

struct MrTarget {
	uint64_t va = 0;
	uint32_t key = 0, len = 0;
};

struct Targets {
	std::array<uint8_t, 6> my_mac{}, peer_mac{};
	uint32_t my_ip = 0, peer_ip = 0;	// network order
	uint32_t qpn_a = 0, qpn_b = 0, qpn_ud = 0, qpn_v1 = 0, dest_qpn = 0;
	uint32_t psn_a = 0, psn_b = 0, qkey = 0;
	MrTarget rw, ro, no, recv;		// rxe
	uint16_t siw_port = 0;
	MrTarget siw_rw, siw_ro, siw_no, siw_recv;

	void from_info(const Info &info);
};

} // namespace fw
