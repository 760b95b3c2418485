// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "journal.h"

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace fz {

Journal::~Journal()
{
	if (fd_ >= 0)
		close(fd_);
}

bool Journal::open(const std::string &dir, unsigned wid)
{
	if (dir.empty())
		return true;
	std::string path = dir + "/worker" + std::to_string(wid) + ".journal";
	// No O_TRUNC: a respawned worker goes on in its predecessor's ring.
	fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	return fd_ >= 0;
}

void Journal::write(uint64_t seq, const char *text)
{
	if (fd_ < 0)
		return;
	char slot[kSlotSize];
	int n = snprintf(slot, sizeof(slot), "%08llu %s", (unsigned long long)seq, text);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(slot) - 1)
		n = sizeof(slot) - 1;
	memset(slot + n, ' ', sizeof(slot) - 1 - n);
	slot[sizeof(slot) - 1] = '\n';
	// pwrite reaches the file (a 9p share in the VM) before the call runs.
	if (pwrite(fd_, slot, sizeof(slot), (off_t)(seq % kSlots) * kSlotSize) < 0)
		return;
}

} // namespace fz
