// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "journal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace fuzz {

Journal::~Journal()
{
	if (fd_ >= 0)
		close(fd_);
}

bool Journal::open(const std::string &path, bool fresh)
{
	fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0666);
	return fd_ >= 0;
}

void Journal::append(const char *text)
{
	if (fd_ < 0)
		return;
	uint64_t seq = next_.fetch_add(1, std::memory_order_relaxed);
	std::vector<char> slot(slot_size_ + 1);
	int n = snprintf(slot.data(), slot.size(), "%08llu %s", (unsigned long long)seq, text);
	if (n < 0)
		n = 0;
	if ((size_t)n > slot_size_ - 1)
		n = slot_size_ - 1;
	memset(slot.data() + n, ' ', slot_size_ - 1 - n);
	slot[slot_size_ - 1] = '\n';
	// pwrite reaches the file (a 9p share in the VM) before the act runs.
	if (pwrite(fd_, slot.data(), slot_size_, (off_t)(seq % slots_) * slot_size_) < 0)
		return;
}

std::vector<std::string> Journal::latest(size_t n) const
{
	std::vector<std::pair<uint64_t, std::string>> recs;
	std::vector<char> slot(slot_size_);
	for (unsigned i = 0; fd_ >= 0 && i < slots_; i++) {
		if (pread(fd_, slot.data(), slot_size_, (off_t)i * slot_size_) != (ssize_t)slot_size_)
			break;
		char *text;
		uint64_t seq = strtoull(slot.data(), &text, 10);
		if (text == slot.data() || *text != ' ')
			continue;
		std::string s(text + 1, slot.data() + slot_size_ - 1);
		s.erase(s.find_last_not_of(' ') + 1);
		recs.emplace_back(seq, s);
	}
	std::sort(recs.begin(), recs.end());
	std::vector<std::string> out;
	for (size_t i = recs.size() > n ? recs.size() - n : 0; i < recs.size(); i++)
		out.push_back(recs[i].second);
	return out;
}

} // namespace fuzz
