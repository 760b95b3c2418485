// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Deterministic random numbers for the wire fuzzer. Every packet (or iWARP
// connection) gets its own generator seeded from (run seed, packet index),
// so packet I of seed S is the same bytes whatever came before it: a crash
// seen at packet I replays with --seed S --start I --packets 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fw {

class Rng {
public:
	explicit Rng(uint64_t seed) : s_(seed) {}
	Rng(uint64_t seed, uint64_t index) : s_(seed * 0x100000001b3ULL ^ (index + 1) * 0xc2b2ae3d27d4eb4fULL)
	{
		next();
	}

	// splitmix64 step
	uint64_t next()
	{
		uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
	uint8_t u8() { return static_cast<uint8_t>(next() >> 56); }
	// uniform in [0, n) (n > 0)
	uint32_t below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) % n); }
	// true with probability pct/100
	bool pct(unsigned p) { return below(100) < p; }
	template <typename T> const T &pick(const std::vector<T> &v) { return v[below(static_cast<uint32_t>(v.size()))]; }
	void fill(uint8_t *p, size_t n)
	{
		for (size_t i = 0; i < n; i++)
			p[i] = u8();
	}
	// an "interesting" 32-bit value: boundaries more often than noise
	uint32_t edge32()
	{
		static const uint32_t e[] = { 0, 1, 2, 3, 4, 7, 8, 0x3f, 0x40, 0x7f, 0x80, 0xff, 0x100,
					      0x3ff, 0x400, 0x401, 0xfff, 0x1000, 0x1001, 0x7fff, 0x8000,
					      0xffff, 0x10000, 0xffffff, 0x1000000, 0x7fffffff,
					      0x80000000, 0xfffffffe, 0xffffffff };
		return pct(70) ? e[below(sizeof(e) / sizeof(e[0]))] : u32();
	}

private:
	uint64_t s_;
};

} // namespace fw
