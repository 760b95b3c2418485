// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The fuzzers' only source of randomness: a splitmix64 stream, so that a
// run replays from its seed and the coordinates of the item (a worker's
// episode, a packet) alone.
//
// Bounded draws come in two widths: below()/chance() reduce the whole
// 64-bit word, below32()/chance32()/pick32() its high 32 bits. Each fuzzer's
// stored regression cases replay only with the width it was written with
// (rdma_fuzz_sys the first, rdma_fuzz_wire the second), so neither form can
// stand in for the other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuzz {

class Rng {
public:
	explicit Rng(uint64_t seed = 0) : s_(seed) {}
	// Item @index of the run seeded @seed: its own stream, the same
	// whatever items came before it.
	static Rng for_item(uint64_t seed, uint64_t index);

	uint64_t next()
	{
		uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	uint32_t u32() { return static_cast<uint32_t>(next() >> 32); }
	uint8_t u8() { return static_cast<uint8_t>(next() >> 56); }

	// Uniform in [0, n); n == 0 gives 0.
	uint64_t below(uint64_t n) { return n ? next() % n : 0; }
	bool chance(unsigned percent) { return below(100) < percent; }
	template <typename T, size_t N> const T &pick(const T (&a)[N]) { return a[below(N)]; }

	// Uniform in [0, n) from the high half (n > 0).
	uint32_t below32(uint32_t n) { return u32() % n; }
	bool chance32(unsigned percent) { return below32(100) < percent; }
	template <typename T> const T &pick32(const std::vector<T> &v)
	{
		return v[below32(static_cast<uint32_t>(v.size()))];
	}

	// Small values most of the time, 64-bit boundary values now and then.
	uint64_t interesting();
	// Boundaries of 32-bit fields more often than noise.
	uint32_t edge32();
	// Eight bytes a draw, low byte first.
	void fill(void *p, size_t len);
	// One byte a draw (u8()).
	void fill_bytewise(uint8_t *p, size_t len);

private:
	uint64_t s_;
};

// Mixes replay coordinates (a, b) into a run seed.
uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b);

} // namespace fuzz
