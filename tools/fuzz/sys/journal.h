// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// A worker's journal: a small ring file of its latest calls, one fixed-size
// text slot per call, written before the call is made, so that the file
// names the call that was running if the guest dies.
#pragma once

#include <cstdint>
#include <string>

namespace fz {

class Journal {
public:
	static constexpr unsigned kSlots = 64, kSlotSize = 160;

	~Journal();
	bool open(const std::string &dir, unsigned wid);
	void write(uint64_t seq, const char *text);
	int fd() const { return fd_; }

private:
	int fd_ = -1;
};

} // namespace fz
