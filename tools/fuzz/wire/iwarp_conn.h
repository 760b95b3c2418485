// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Plays one IwarpPlan over a TCP connection to the victim's listener.
#pragma once

#include "iwarp_gen.h"

#include <cstdint>

namespace fw {

struct IwarpResult {
	bool connected = false, accepted = false, rejected = false;
	unsigned sent = 0;		// MPA request + FPDUs sent
	unsigned long bytes_in = 0;
};

IwarpResult run_iwarp(uint32_t peer_ip, uint16_t port, const IwarpPlan &plan);

} // namespace fw
