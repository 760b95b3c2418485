// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "uverbs_state.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace fz {

bool UvState::open(Worker &w)
{
	if (w.cfg.devices.empty())
		return false;
	dev = &w.cfg.devices[w.rng.below(w.cfg.devices.size())];
	w.note("open %s (%s)", dev->uverbs.c_str(), dev->name.c_str());
	fd = ::open(dev->uverbs.c_str(), O_RDWR | O_CLOEXEC);
	w.result(fd < 0 ? errno : 0);
	return fd >= 0;
}

void UvState::close_all(int keep)
{
	// Closing the file destroys every object it holds: the lifetime path
	// that follows a killed process too.
	for (int f : fds)
		if (f > 2 && f != keep && f != fd)
			::close(f);
	fds.clear();
	if (fd >= 0)
		::close(fd);
	fd = -1;
}

uint32_t UvState::pick(Worker &w, const std::vector<uint32_t> &live)
{
	unsigned r = w.rng.below(100);
	if (r < 80 && !live.empty())
		return live[w.rng.below(live.size())];
	if (r < 88 && !dead.empty())
		return dead[w.rng.below(dead.size())];
	if (r < 94) { // a live handle of another type
		const std::vector<uint32_t> *all[] = {&pd, &mr, &cq, &srq, &ah, &mw};
		const auto *v = all[w.rng.below(6)];
		if (!v->empty())
			return (*v)[w.rng.below(v->size())];
	}
	return (uint32_t)w.rng.interesting();
}

uint32_t UvState::pick_qp(Worker &w, size_t *idx)
{
	*idx = SIZE_MAX;
	if (!qp.empty() && w.rng.chance(85)) {
		*idx = w.rng.below(qp.size());
		return qp[*idx].handle;
	}
	return pick(w, dead);
}

int UvState::pick_fd(Worker &w)
{
	if (!fds.empty() && w.rng.chance(70))
		return fds[w.rng.below(fds.size())];
	static const int odd[] = {-1, 0, 1, 2, 1000, 0x7fffffff};
	if (w.rng.chance(50))
		return fd;
	return w.rng.pick(odd);
}

void UvState::forget(std::vector<uint32_t> &v, uint32_t h)
{
	auto it = std::find(v.begin(), v.end(), h);
	if (it == v.end())
		return;
	v.erase(it);
	if (dead.size() < 64)
		dead.push_back(h);
}

} // namespace fz
