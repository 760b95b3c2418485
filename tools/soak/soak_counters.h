// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The retry-related counters rc_soak reports, so a run under loss can be
// judged: rxe's port hw_counters whose names mention retries, sequence
// errors, RNR or duplicates; for siw (iWARP over TCP) the kernel's TCP
// RetransSegs from /proc/net/snmp.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace soak {

using Counters = std::map<std::string, uint64_t>;

Counters read_counters(const std::string &dev, bool iwarp);
// print_counter_deltas: "rc_soak: DEV counters NAME +D ..." and
// "rc_soak: DEV retries N" (N: the deltas summed, the *exceeded* ones,
// which are failures, left out).
void print_counter_deltas(const std::string &dev, const Counters &before, const Counters &after);

} // namespace soak
