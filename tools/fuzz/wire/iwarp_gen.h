// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// iWARP generator: one plan per TCP connection to the victim's siw
// listener. An MPA request (RFC 5044, MPA v2 per RFC 6581), valid or with
// its key, flag bits, revision, private data length or IRD/ORD mutated or
// cut short, then FPDUs: MPA ULPDU length, DDP (RFC 5041) tagged and
// untagged headers (flags, version, queue, MSN, MO, STag, TO), RDMAP (RFC
// 5040) version and opcode, payload, pad, CRC32c right or wrong, aimed at
// the STags the victim reported. The whole plan is drawn before the
// connection opens, so it does not depend on what the victim answers.
#pragma once

#include "common/rng.h"
#include "targets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fw {

struct FpduPlan {
	std::vector<uint8_t> ulpdu;	// DDP/RDMAP header and payload
	int ulpdu_len_delta = 0;	// MPA length field minus the real length
	uint32_t crc_xor = 0;
	int cut = 0;			// bytes left off the end (last FPDU only)
	uint8_t pad_fill = 0;
	std::string what;
};

struct IwarpPlan {
	std::vector<uint8_t> request;	// MPA request frame as sent
	size_t send_request = 0;	// bytes of it to send (cut short if < size)
	std::vector<FpduPlan> fpdus;
	bool reset = false;		// end with an RST instead of a FIN
	std::string what;
};

void gen_iwarp(fuzz::Rng &r, const Targets &t, IwarpPlan &plan);
// the bytes of one FPDU on the wire, with or without the CRC in use
std::vector<uint8_t> fpdu_bytes(const FpduPlan &f, bool crc);

} // namespace fw
