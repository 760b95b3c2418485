// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Memory the kernel may be pointed at. Mutated pointers (responses, MR
// ranges, ioctl buffers) take only values from here, so a kernel write can
// never land in the fuzzer's own heap or stack: a read-write scratch area
// followed by an inaccessible guard page, a read-only page, NULL, a kernel
// address, a misaligned low address.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/rng.h"

namespace fz {

class SafeMem {
public:
	static constexpr size_t kScratch = 256 * 1024, kPage = 4096;

	bool init();
	uint8_t *scratch() const { return base_; }
	uint64_t guard() const { return (uint64_t)(base_ + kScratch); }
	uint64_t ro() const { return (uint64_t)(base_ + kScratch + kPage); }
	// A response buffer of len bytes in scratch (the first 16 KiB).
	uint8_t *resp(size_t slot) const { return base_ + slot * 1024; }
	// Any of the safe values; len is what the kernel may write there.
	uint64_t any_ptr(fuzz::Rng &r, size_t len);
	// A real buffer for memory registration: inside scratch past the
	// response area.
	uint64_t mr_buf(fuzz::Rng &r, uint64_t *len);

private:
	uint8_t *base_ = nullptr;
};

} // namespace fz
