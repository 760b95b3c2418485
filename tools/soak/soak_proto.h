// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_soak's wire protocol: the client drives, the server answers every
// control message with ACK (its count of corrupt bytes so far in the
// family). Each SEND starts with a Hdr; DATA carries pattern bytes after it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace soak {

enum Family : uint32_t { FAM_SEND = 1, FAM_WRITE, FAM_READ, FAM_ATOMIC };

enum Kind : uint32_t {
	K_BEGIN = 1,	// a = family, b = bytes, c = seed, d = chunk << 1 | 1 if WRITE_WITH_IMM
	K_DATA,		// a = stream offset, b = payload length
	K_WDONE,	// window written: a = stream offset, b = length, c = window no.
	K_RPREP,	// fill the window for READ: a = stream offset, b = length
	K_APREP,	// set the atomic slots: a = slots
	K_ADONE,	// check the atomic slots: a = slots, b = ops
	K_END,		// last message; the client disconnects after the ACK
	K_ACK,		// server -> client: a = corrupt bytes in this family
	K_APING,	// atomics go on: the server sees no completion meanwhile
};

constexpr uint32_t kMagic = 0x534f414b;	// "SOAK"

struct Hdr {
	uint32_t magic;
	uint32_t kind;
	uint64_t a, b, c, d;
};

// Where a side's window is, sent as connect/accept private data.
struct WindowInfo {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

constexpr size_t kChunk = 64 * 1024;		// largest SEND payload, READ or WRITE (--chunk)
constexpr size_t kWindow = 1024 * 1024;		// remote window: kBatch chunks at most
constexpr size_t kMsgBuf = sizeof(Hdr) + kChunk;
constexpr int kBatch = 16;			// SENDs per ACK; also WRITE/READ chunks per window
constexpr int kRecvDepth = 2 * kBatch;		// receives posted per side
constexpr int kSlots = 16;			// atomic slots, one op in flight each
constexpr uint64_t kAtomicBytesPerOp = 2048;	// --bytes N means N / 2048 atomic ops
constexpr uint64_t kAtomicRound = 4096;		// atomic ops between two APINGs

const char *family_name(uint32_t fam);

// The atomic sequence both sides compute: slot S starts at atomic_init;
// op J on a slot is a fetch-add of atomic_add (J even) or a compare-swap
// to atomic_swap (J odd), with a compare that misses on purpose when
// atomic_cas_misses (the swap must then not happen).
uint64_t atomic_init(uint64_t seed, uint32_t slot);
uint64_t atomic_add(uint64_t seed, uint32_t slot, uint64_t j);
uint64_t atomic_swap(uint64_t seed, uint32_t slot, uint64_t j);
inline bool atomic_cas_misses(uint64_t j) { return j % 8 == 7; }
// ops_on_slot: of OPS spread round robin over SLOTS, how many hit SLOT.
inline uint64_t ops_on_slot(uint64_t ops, uint32_t slots, uint32_t slot)
{
	return ops / slots + (slot < ops % slots ? 1 : 0);
}
// The value slot SLOT holds after its N ops.
uint64_t atomic_final(uint64_t seed, uint32_t slot, uint64_t n);

} // namespace soak
