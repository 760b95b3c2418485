// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The attacker's journal: the last packets sent, with their index and a
// summary, rewritten to a file now and then and at the end, so that after
// a victim crash the packets that preceded it are on record and replay
// with --seed S --start I.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace fw {

class Journal {
public:
	Journal(std::string path, size_t keep) : path_(std::move(path)), keep_(keep) {}
	void add(uint64_t index, const std::string &desc, const uint8_t *p, size_t n);
	void flush();
	// the last @n entries, one line each (summary only)
	std::vector<std::string> tail(size_t n);

private:
	struct Entry {
		uint64_t index;
		std::string desc, hex;
	};
	std::mutex mu_;
	std::deque<Entry> ring_;
	std::string path_;
	size_t keep_;
};

} // namespace fw
