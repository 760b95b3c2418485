// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "sysfs.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <regex>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rk {

Status read_sysfs(const std::string &path, std::string &out)
{
	out.clear();
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return Status::Err(errno, "open " + path);
	char buf[4096];
	ssize_t n = ::read(fd, buf, sizeof(buf));
	int e = errno;
	::close(fd);
	if (n < 0)
		return Status::Err(e, "read " + path);
	out.assign(buf, static_cast<size_t>(n));
	return Status::Ok();
}

Status list_dir(const std::string &path, std::vector<std::string> &out)
{
	out.clear();
	DIR *d = opendir(path.c_str());
	if (!d)
		return Status::Err(errno, "opendir " + path);
	while (dirent *e = readdir(d)) {
		std::string n = e->d_name;
		if (n != "." && n != "..")
			out.push_back(n);
	}
	closedir(d);
	std::sort(out.begin(), out.end());
	return Status::Ok();
}

bool path_exists(const std::string &path)
{
	struct stat st;
	return ::lstat(path.c_str(), &st) == 0;
}

std::string ib_dev_path(const std::string &dev) { return "/sys/class/infiniband/" + dev; }

std::string ib_port_path(const std::string &dev, uint32_t port)
{
	return ib_dev_path(dev) + "/ports/" + std::to_string(port);
}

std::string guid_sysfs(uint64_t g)
{
	char b[32];
	snprintf(b, sizeof(b), "%04x:%04x:%04x:%04x\n",
		 static_cast<unsigned>((g >> 48) & 0xffff),
		 static_cast<unsigned>((g >> 32) & 0xffff),
		 static_cast<unsigned>((g >> 16) & 0xffff),
		 static_cast<unsigned>(g & 0xffff));
	return b;
}

bool parse_guid_sysfs(const std::string &s, uint64_t &guid)
{
	static const std::regex re("^([0-9a-f]{4}):([0-9a-f]{4}):([0-9a-f]{4}):([0-9a-f]{4})\n$");
	std::smatch m;
	if (!std::regex_match(s, m, re))
		return false;
	guid = 0;
	for (int i = 1; i <= 4; i++)
		guid = (guid << 16) | std::stoul(m[i].str(), nullptr, 16);
	return true;
}

bool parse_num_name(const std::string &s, unsigned &num, std::string &name)
{
	static const std::regex re("^([0-9]+): (.*)\n$");
	std::smatch m;
	if (!std::regex_match(s, m, re))
		return false;
	num = static_cast<unsigned>(std::stoul(m[1].str()));
	name = m[2].str();
	return true;
}

bool is_gid_sysfs_format(const std::string &s)
{
	if (s.size() != 40 || s[39] != '\n')
		return false;
	for (size_t i = 0; i < 39; i++) {
		char c = s[i];
		if (i % 5 == 4) {
			if (c != ':')
				return false;
		} else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
			return false;
		}
	}
	return true;
}

bool is_rate_format(const std::string &s)
{
	static const std::regex re(
		"^[0-9]+(\\.5)? Gb/sec \\((1|2|4|8|12)X( SDR| DDR| QDR| FDR10| FDR| EDR| HDR| NDR)\\)\n$");
	return std::regex_match(s, re);
}

} // namespace rk
