// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// A fuzzer's journal: a ring file of its latest records (calls, packets).
// Record N goes to slot N % slots as one fixed-size line "NNNNNNNN text",
// padded with blanks, written before the act it names is done: the file
// still names it if the machine dies the next moment. `sort -n FILE` lists
// the records oldest first.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace fuzz {

class Journal {
public:
	Journal(unsigned slots, unsigned slot_size) : slots_(slots), slot_size_(slot_size) {}
	~Journal();
	Journal(const Journal &) = delete;
	Journal &operator=(const Journal &) = delete;

	// fresh: start from an empty file; else go on over what is there.
	bool open(const std::string &path, bool fresh);
	// Records @text (cut to fit its slot); safe from several threads.
	void append(const char *text);
	// The latest @n records, oldest first (read back from the file).
	std::vector<std::string> latest(size_t n) const;
	int fd() const { return fd_; }
	unsigned slot_size() const { return slot_size_; }

private:
	const unsigned slots_, slot_size_;
	int fd_ = -1;
	std::atomic<uint64_t> next_{ 0 };
};

} // namespace fuzz
