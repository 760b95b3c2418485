// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_soak's two sides over a connected Conn. Both return the corrupt bytes
// they counted (the client's total includes what the server reported).
#pragma once

#include <cstdint>
#include <vector>

#include "soak_conn.h"

namespace soak {

struct Plan {
	uint64_t seed = 1;
	uint64_t bytes = 4 << 20;		// per family
	size_t chunk = kChunk;			// bytes per SEND, WRITE or READ
	std::vector<uint32_t> families;
};

uint64_t run_client(Conn &c, const Plan &plan);
uint64_t run_server(Conn &c, uint64_t seed);

// One result line per family, the same on both sides.
void print_family(const Conn &c, uint32_t fam, uint64_t bytes, uint64_t ops, uint64_t corrupt,
		  double secs);

} // namespace soak
