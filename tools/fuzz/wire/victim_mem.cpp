// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "victim_mem.h"

#include <cstdio>
#include <cstdlib>

namespace fw {

constexpr size_t kGuard = 4096;

size_t Arena::add(const std::string &name, size_t len, bool may_change)
{
	size_t off = size_ + kGuard;

	wins_.push_back({ name, off, len, may_change });
	// next guard starts at the next page boundary after this window
	size_ = (off + len + kGuard - 1) / kGuard * kGuard;
	return wins_.size() - 1;
}

bool Arena::build()
{
	void *p = nullptr;

	size_ += kGuard;
	if (posix_memalign(&p, kGuard, size_))
		return false;
	base_ = static_cast<uint8_t *>(p);
	for (size_t i = 0; i < size_; i++)
		base_[i] = expect(i);
	return true;
}

uint8_t *Arena::at(size_t window)
{
	return base_ + wins_[window].off;
}

std::vector<std::string> Arena::check() const
{
	std::vector<std::string> bad;
	size_t i = 0;

	while (i < size_) {
		const Window *in = nullptr;

		for (const auto &w : wins_)
			if (i >= w.off && i < w.off + w.len)
				in = &w;
		if ((in && in->may_change) || base_[i] == expect(i)) {
			i++;
			continue;
		}
		size_t start = i;

		while (i < size_ && base_[i] != expect(i) &&
		       !(in && (i < in->off || i >= in->off + in->len)))
			i++;
		char b[160];
		std::snprintf(b, sizeof(b), "bytes %zu..%zu changed (%s)", start, i - 1,
			      in ? ("inside read-only window " + in->name).c_str() : "guard");
		bad.push_back(b);
		if (bad.size() > 20)
			break;
	}
	return bad;
}

} // namespace fw
