// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "journal.h"

#include <cstdio>

namespace fw {

void Journal::add(uint64_t index, const std::string &desc, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	Entry e{ index, desc, std::string() };

	n = n > 2048 ? 2048 : n;	// enough to see the headers of a huge one
	e.hex.reserve(2 * n);
	for (size_t i = 0; i < n; i++) {
		e.hex += hx[p[i] >> 4];
		e.hex += hx[p[i] & 15];
	}
	std::lock_guard<std::mutex> g(mu_);
	ring_.push_back(std::move(e));
	while (ring_.size() > keep_)
		ring_.pop_front();
}

void Journal::flush()
{
	if (path_.empty())
		return;
	std::lock_guard<std::mutex> g(mu_);
	std::string tmp = path_ + ".tmp";
	FILE *f = std::fopen(tmp.c_str(), "w");

	if (!f)
		return;
	for (const auto &e : ring_)
		std::fprintf(f, "#%llu %s\n  %s\n", static_cast<unsigned long long>(e.index), e.desc.c_str(),
			     e.hex.c_str());
	std::fclose(f);
	std::rename(tmp.c_str(), path_.c_str());
}

std::vector<std::string> Journal::tail(size_t n)
{
	std::lock_guard<std::mutex> g(mu_);
	std::vector<std::string> out;

	for (size_t i = ring_.size() > n ? ring_.size() - n : 0; i < ring_.size(); i++)
		out.push_back("#" + std::to_string(ring_[i].index) + " " + ring_[i].desc);
	return out;
}

} // namespace fw
