// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rng.h"

#include <cstring>

namespace fuzz {

Rng Rng::for_item(uint64_t seed, uint64_t index)
{
	Rng r(seed * 0x100000001b3ULL ^ (index + 1) * 0xc2b2ae3d27d4eb4fULL);
	r.next();
	return r;
}

uint64_t Rng::interesting()
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
		511, 512, 1023, 1024, 4095, 4096, 4097, 65535, 65536, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL,
	};
	switch (below(4)) {
	case 0:
		return pick(edges);
	case 1:
		return below(8);
	case 2:
		return below(1024);
	default:
		return next() >> below(64);
	}
}

uint32_t Rng::edge32()
{
	static const uint32_t edges[] = {
		0, 1, 2, 3, 4, 7, 8, 0x3f, 0x40, 0x7f, 0x80, 0xff, 0x100, 0x3ff,
		0x400, 0x401, 0xfff, 0x1000, 0x1001, 0x7fff, 0x8000, 0xffff,
		0x10000, 0xffffff, 0x1000000, 0x7fffffff, 0x80000000, 0xfffffffe,
		0xffffffff,
	};
	return chance32(70) ? edges[below32(sizeof(edges) / sizeof(edges[0]))] : u32();
}

void Rng::fill(void *p, size_t len)
{
	auto *b = static_cast<unsigned char *>(p);
	while (len) {
		uint64_t v = next();
		size_t n = len < 8 ? len : 8;
		memcpy(b, &v, n);
		b += n;
		len -= n;
	}
}

void Rng::fill_bytewise(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = u8();
}

uint64_t derive_seed(uint64_t seed, uint64_t a, uint64_t b)
{
	Rng r(seed ^ (a * 0x100000001b3ULL) ^ (b << 32) ^ (b >> 32));
	r.next();
	return r.next() ^ (a << 48) ^ b;
}

} // namespace fuzz
