// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The seeded byte pattern rc_soak moves: byte OFF of family FAM under SEED
// is a pure function of the three, so the side that checks needs only the
// seed and the offset, never a copy of what was sent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace soak {

// A 64-bit mixer (splitmix64's finaliser): every input bit moves every
// output bit, so neighbouring words and seeds look unrelated.
inline uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

inline uint64_t pattern_word(uint64_t seed, uint32_t fam, uint64_t word)
{
	return mix64(mix64(seed) ^ (uint64_t(fam) << 56) ^ word);
}

inline uint8_t pattern_byte(uint64_t seed, uint32_t fam, uint64_t off)
{
	return uint8_t(pattern_word(seed, fam, off >> 3) >> ((off & 7) * 8));
}

// fill: LEN bytes of the pattern starting at stream offset OFF.
inline void pattern_fill(void *dst, size_t len, uint64_t seed, uint32_t fam, uint64_t off)
{
	auto *p = static_cast<uint8_t *>(dst);

	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, fam, off + i);
}

// count_bad: how many of LEN bytes differ from the pattern at OFF; the
// first bad stream offset goes to *first (untouched if none).
inline uint64_t pattern_count_bad(const void *src, size_t len, uint64_t seed, uint32_t fam,
				  uint64_t off, uint64_t *first)
{
	const auto *p = static_cast<const uint8_t *>(src);
	uint64_t bad = 0;

	for (size_t i = 0; i < len; i++) {
		if (p[i] == pattern_byte(seed, fam, off + i))
			continue;
		if (!bad && first)
			*first = off + i;
		bad++;
	}
	return bad;
}

} // namespace soak
