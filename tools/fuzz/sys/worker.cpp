// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fuzz.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <unistd.h>

namespace fz {

Worker::Worker(const Config &c, Shared *s, unsigned id, unsigned resp, bool privileged)
	: cfg(c), sh(s), wid(id), respawn(resp), priv(privileged), rng(fuzz::derive_seed(c.seed, id, resp))
{
}

bool Worker::take()
{
	if (sh->claimed.fetch_add(1) >= cfg.calls)
		return false;
	sh->beat[wid].fetch_add(1);
	return true;
}

void Worker::note(const char *fmt, ...)
{
	char line[kJournalSlotSize];
	int n = snprintf(line, sizeof(line), "w%u r%u %s ", wid, respawn, priv ? "root" : "nobody");
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	journal.append(line);
}

void Worker::result(int err)
{
	if (err < 0 || (unsigned)err >= kErrnoSlots)
		err = kErrnoSlots - 1;
	sh->errnos[err].fetch_add(1, std::memory_order_relaxed);
	sh->target_calls[target].fetch_add(1, std::memory_order_relaxed);
	if (!err)
		sh->target_ok[target].fetch_add(1, std::memory_order_relaxed);
}

void Worker::violation(const char *fmt, ...)
{
	char msg[sizeof(sh->violation)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "fuzz_sys: worker %u (respawn %u, %s): VIOLATION: %s\n", wid, respawn,
		priv ? "root" : "nobody", msg);
	if (sh->violations.fetch_add(1) == 0)
		snprintf(sh->violation, sizeof(sh->violation), "%s", msg);
}

void close_fds_except(int keep)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	std::vector<int> fds;
	while (dirent *e = readdir(d)) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != keep && fd != dirfd(d))
			fds.push_back(fd);
	}
	closedir(d);
	for (int fd : fds)
		close(fd);
}

} // namespace fz
