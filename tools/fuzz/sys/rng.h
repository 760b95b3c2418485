// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The fuzzer's only source of randomness: a splitmix64 stream, so that a run
// is replayed from (seed, worker index, respawn count) alone.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fz {

class Rng {
public:
	explicit Rng(uint64_t seed = 0) : s_(seed) {}

	uint64_t next()
	{
		uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		return z ^ (z >> 31);
	}
	// Uniform in [0, n); n == 0 gives 0.
	uint64_t below(uint64_t n) { return n ? next() % n : 0; }
	bool chance(unsigned percent) { return below(100) < percent; }
	template <typename T, size_t N> const T &pick(const T (&a)[N]) { return a[below(N)]; }
	// Small values most of the time, boundary values now and then.
	uint64_t interesting();
	void fill(void *p, size_t len);

private:
	uint64_t s_;
};

// Mixes the replay coordinates into one seed.
uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b);

} // namespace fz
