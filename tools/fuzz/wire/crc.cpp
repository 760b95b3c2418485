// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "crc.h"

#include <array>

namespace fw {
namespace {

using Table = std::array<uint32_t, 256>;

Table make_table(uint32_t poly)
{
	Table t{};

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
		t[i] = c;
	}
	return t;
}

uint32_t run(const Table &t, uint32_t c, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c;
}

const Table &ieee()
{
	static const Table t = make_table(0xedb88320u);
	return t;
}

const Table &castagnoli()
{
	static const Table t = make_table(0x82f63b78u);
	return t;
}

} // namespace

uint32_t crc32_ieee_more(uint32_t prev, const uint8_t *p, size_t n)
{
	return ~run(ieee(), ~prev, p, n);
}

uint32_t crc32_ieee(const uint8_t *p, size_t n)
{
	return crc32_ieee_more(0, p, n);
}

uint32_t crc32c(const uint8_t *p, size_t n)
{
	return ~run(castagnoli(), 0xffffffffu, p, n);
}

} // namespace fw
