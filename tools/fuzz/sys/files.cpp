// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// configfs rdma_cm (mkdir/rmdir of a device's directory, its ports'
// default_roce_mode and default_roce_tos) and the writable sysfs files of
// /sys/class/infiniband (node_desc, ...) written with random strings.
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

namespace fz {
namespace {

const char *kCfs = "/sys/kernel/config/rdma_cm";

std::string random_text(Worker &w)
{
	static const char *good[] = {"RoCE v2", "RoCE v2\n", "IB/RoCE v1", "IB/RoCE v1\n", "0", "255",
				     "0x10", "010", "256", "-1", "", "\n", "fuzz node", "RoCE v3"};
	if (w.rng.chance(60))
		return w.rng.pick(good);
	std::string s(w.rng.below(w.rng.chance(80) ? 80 : 5000), ' ');
	for (auto &c : s)
		c = (char)(w.rng.chance(80) ? 32 + w.rng.below(95) : w.rng.below(256));
	return s;
}

void write_file(Worker &w, const std::string &path)
{
	std::string t = random_text(w);
	w.note("files write %s len=%zu", path.c_str(), t.size());
	int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		w.result(errno);
		return;
	}
	ssize_t r = write(fd, t.data(), t.size());
	w.result(r < 0 ? errno : 0);
	close(fd);
}

void read_file(Worker &w, const std::string &path)
{
	w.note("files read %s", path.c_str());
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		w.result(errno);
		return;
	}
	char buf[4096];
	ssize_t r = read(fd, buf, sizeof(buf));
	w.result(r < 0 ? errno : 0);
	close(fd);
}

} // namespace

void fuzz_files(Worker &w)
{
	if (w.cfg.devices.empty())
		return;
	unsigned n = 5 + (unsigned)w.rng.below(30);
	for (unsigned i = 0; i < n && w.take(); i++) {
		const Device &d = w.cfg.devices[w.rng.below(w.cfg.devices.size())];
		std::string dir = std::string(kCfs) + "/" + d.name;
		std::string port = dir + "/ports/" + std::to_string(w.rng.chance(90) ? 1 : w.rng.below(4));
		switch (w.rng.below(8)) {
		case 0:
			w.note("files mkdir %s", dir.c_str());
			w.result(mkdir(dir.c_str(), 0755) ? errno : 0);
			break;
		case 1:
			w.note("files rmdir %s", dir.c_str());
			w.result(rmdir(dir.c_str()) ? errno : 0);
			break;
		case 2: {
			// A directory for no device, or a nested one.
			std::string bogus = w.rng.chance(50) ? std::string(kCfs) + "/nosuchdev" : port + "/x";
			w.note("files mkdir %s", bogus.c_str());
			int r = mkdir(bogus.c_str(), 0755);
			w.result(r ? errno : 0);
			if (!r)
				rmdir(bogus.c_str());
			break;
		}
		case 3:
			write_file(w, port + "/default_roce_mode");
			break;
		case 4:
			write_file(w, port + "/default_roce_tos");
			break;
		case 5:
			read_file(w, port + (w.rng.chance(50) ? "/default_roce_mode" : "/default_roce_tos"));
			break;
		case 6:
			write_file(w, "/sys/class/infiniband/" + d.name + "/node_desc");
			break;
		default: {
			static const char *f[] = {"node_desc", "node_guid", "fw_ver", "hca_type", "board_id",
						  "ports/1/state", "ports/1/gids/0", "ports/1/gid_attrs/types/1",
						  "ports/1/pkeys/0", "hw_counters/lifespan",
						  "ports/1/hw_counters/lifespan", "ports/1/rate"};
			std::string p = "/sys/class/infiniband/" + d.name + "/" + w.rng.pick(f);
			if (w.rng.chance(50))
				read_file(w, p);
			else
				write_file(w, p);
			break;
		}
		}
	}
}

} // namespace fz
