// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Names and the atomic sequence shared by rc_soak's client and server.
#include "soak_proto.h"
#include "soak_pattern.h"

namespace soak {

const char *family_name(uint32_t fam)
{
	switch (fam) {
	case FAM_SEND: return "send";
	case FAM_WRITE: return "write";
	case FAM_READ: return "read";
	case FAM_ATOMIC: return "atomic";
	}
	return "?";
}

// Distinct pattern "families" keep the atomic values apart from the data.
uint64_t atomic_init(uint64_t seed, uint32_t slot)
{
	return pattern_word(seed, 0x41, slot);
}

uint64_t atomic_add(uint64_t seed, uint32_t slot, uint64_t j)
{
	return pattern_word(seed, 0x42, (uint64_t(slot) << 40) ^ j);
}

uint64_t atomic_swap(uint64_t seed, uint32_t slot, uint64_t j)
{
	return pattern_word(seed, 0x43, (uint64_t(slot) << 40) ^ j);
}

uint64_t atomic_final(uint64_t seed, uint32_t slot, uint64_t n)
{
	uint64_t v = atomic_init(seed, slot);

	for (uint64_t j = 0; j < n; j++) {
		if (j % 2 == 0)
			v += atomic_add(seed, slot, j);
		else if (!atomic_cas_misses(j))
			v = atomic_swap(seed, slot, j);
	}
	return v;
}

} // namespace soak
