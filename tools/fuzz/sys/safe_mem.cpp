// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "safe_mem.h"

#include <sys/mman.h>

namespace fz {

bool SafeMem::init()
{
	void *p = mmap(nullptr, kScratch + 2 * kPage, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return false;
	base_ = static_cast<uint8_t *>(p);
	if (mprotect(base_ + kScratch, kPage, PROT_NONE) ||
	    mprotect(base_ + kScratch + kPage, kPage, PROT_READ))
		return false;
	return true;
}

uint64_t SafeMem::any_ptr(fuzz::Rng &r, size_t len)
{
	switch (r.below(10)) {
	case 0:
		return 0;
	case 1:
		return guard();
	case 2:
		return ro();
	case 3:
		return 0xffff888000001000ULL; // kernel direct map
	case 4:
		return 1;
	case 5: // short: the end of scratch runs into the guard page
		return guard() - (len ? r.below(len) + 1 : 1);
	default: {
		uint64_t room = len < kScratch ? kScratch - len : 0;
		uint64_t off = r.below(room + 1);
		if (!r.chance(10))
			off &= ~7ULL;
		return (uint64_t)base_ + off;
	}
	}
}

uint64_t SafeMem::mr_buf(fuzz::Rng &r, uint64_t *len)
{
	const uint64_t lo = 16 * 1024;
	uint64_t off = lo + r.below(kScratch - lo);
	if (r.chance(70))
		off &= ~(kPage - 1);
	if (off >= kScratch)
		off = lo;
	uint64_t room = kScratch - off;
	*len = 1 + r.below(room);
	return (uint64_t)base_ + off;
}

} // namespace fz
