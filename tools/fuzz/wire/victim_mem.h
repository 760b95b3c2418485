// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// The victim's memory: one allocation cut into windows, each with a guard
// page before it and one after the last. Every byte starts with a value
// derived from its offset; at the end only the windows the MRs let a peer
// write (and the local receive/read targets) may differ. Anything else
// that changed is memory the stack wrote where no MR allowed it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fw {

class Arena {
public:
	// reserve a window of @len bytes; @may_change: writes there are allowed
	size_t add(const std::string &name, size_t len, bool may_change);
	// allocate and fill; call once after every add()
	bool build();
	uint8_t *at(size_t window);
	size_t len(size_t window) const { return wins_[window].len; }
	// one message per changed byte range outside the changeable windows
	std::vector<std::string> check() const;
	size_t total() const { return size_; }

private:
	struct Window {
		std::string name;
		size_t off, len;
		bool may_change;
	};
	static uint8_t expect(size_t off) { return static_cast<uint8_t>(off * 131 + 0x3c); }
	std::vector<Window> wins_;
	uint8_t *base_ = nullptr;
	size_t size_ = 0;
};

} // namespace fw
