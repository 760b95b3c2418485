// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The two CRCs the wire formats use: CRC-32 (IEEE 802.3, reflected, for the
// RoCE ICRC) and CRC-32C (Castagnoli, reflected, for the MPA FPDU CRC).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fw {

// Standard form: initial value and final XOR 0xffffffff.
uint32_t crc32_ieee(const uint8_t *p, size_t n);
// Same, continued from a previous (complemented) result; crc32_ieee_more(0,...) == crc32_ieee(...)
uint32_t crc32_ieee_more(uint32_t prev, const uint8_t *p, size_t n);
uint32_t crc32c(const uint8_t *p, size_t n);

} // namespace fw
