// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// What every target of rdma_fuzz_sys shares: the run's configuration, the
// counters all workers update (shared memory), and one worker's context
// (its RNG, its journal, its call budget, its safe memory).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "common/journal.h"
#include "common/rng.h"
#include "safe_mem.h"

namespace fz {

struct Device {
	std::string name;	// rxe0
	std::string uverbs;	// /dev/infiniband/uverbs0
	uint32_t driver_id = 0;	// RDMA_DRIVER_*
	uint32_t index = 0;	// ib device index (netlink)
};

struct Config {
	uint64_t seed = 1;
	uint64_t calls = 10000;
	unsigned workers = 4;
	unsigned max_seconds = 600;
	std::string journal_dir;
	std::vector<Device> devices;		// the ones under test
	std::vector<std::string> umads;		// /dev/infiniband/umadN
	std::vector<std::string> link_netdevs;	// for the extra links
	bool quiet = false;
};

constexpr unsigned kMaxWorkers = 64;
constexpr unsigned kErrnoSlots = 160;
constexpr unsigned kTargets = 7;
// A worker's journal: its latest calls, one line of this size each.
constexpr unsigned kJournalSlots = 64, kJournalSlotSize = 160;

// Lives in a MAP_SHARED page: the parent reads what the workers count.
struct Shared {
	std::atomic<uint64_t> claimed;
	std::atomic<uint64_t> errnos[kErrnoSlots]; // [0] = success
	std::atomic<uint64_t> violations;
	std::atomic<uint64_t> beat[kMaxWorkers];
	std::atomic<uint64_t> target_calls[kTargets], target_ok[kTargets];
	char violation[512];
};

class Worker {
public:
	Worker(const Config &cfg, Shared *sh, unsigned wid, unsigned respawn, bool priv);

	// Claims one call of the run's budget; false once it is spent.
	bool take();
	// Records the call about to be made (journal) before making it.
	void note(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	// Counts a result: 0 or a positive errno.
	void result(int err);
	// An outcome the kernel must never give (the run fails).
	void violation(const char *fmt, ...) __attribute__((format(printf, 2, 3)));

	const Config &cfg;
	Shared *sh;
	unsigned wid, respawn;
	bool priv;
	fuzz::Rng rng;
	fuzz::Journal journal{ kJournalSlots, kJournalSlotSize };
	SafeMem mem;
	unsigned target = 0; // the running target, for per-target counts
};

// The targets: each runs one episode (a burst of calls) and returns.
void fuzz_uverbs_write(Worker &w);
void fuzz_uverbs_ioctl(Worker &w);
void fuzz_ucm(Worker &w);
void fuzz_umad(Worker &w);
void fuzz_nldev(Worker &w);
void fuzz_links(Worker &w);
void fuzz_files(Worker &w);

// Deletes the extra links (names fz*) the run left; returns how many were.
unsigned delete_extra_links();

// Closes every descriptor above 2 except keep (a target's leftovers: event
// fds, comp channels, fds a mutated command created).
void close_fds_except(int keep);

} // namespace fz
