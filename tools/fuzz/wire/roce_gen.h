// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// RoCE packet generator: whole Ethernet frames, RoCE v2 (IPv4/UDP 4791) or
// RoCE v1 (ethertype 0x8915, GRH), aimed at the victim's live QPs and
// rkeys. A third of the packets are valid, most of the rest a valid packet
// with one field mutated (any BTH field, the extension headers, payload
// length, pad count, IPv4/UDP/GRH fields, truncation at each layer, ICRC
// wrong), the rest several mutations at once.
#pragma once

#include "common/rng.h"
#include "targets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fw {

constexpr uint16_t kRoceV2Port = 4791;
constexpr uint16_t kEthRoceV1 = 0x8915;

// Builds one frame from @r into @frame; @desc gets a one-line summary.
void gen_roce(fuzz::Rng &r, const Targets &t, bool v1, std::vector<uint8_t> &frame, std::string &desc);

} // namespace fw
