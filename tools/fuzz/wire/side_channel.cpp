// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "side_channel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>

namespace fw {

std::string info_line(const Info &info)
{
	std::string s = "INFO";
	char b[40];

	for (const auto &kv : info) {
		std::snprintf(b, sizeof(b), "=0x%llx", static_cast<unsigned long long>(kv.second));
		s += " " + kv.first + b;
	}
	return s;
}

bool parse_info(const std::string &line, Info &info)
{
	std::istringstream in(line);
	std::string w;

	if (!(in >> w) || w != "INFO")
		return false;
	while (in >> w) {
		size_t eq = w.find('=');

		if (eq == std::string::npos)
			continue;
		info[w.substr(0, eq)] = std::strtoull(w.c_str() + eq + 1, nullptr, 0);
	}
	return true;
}

uint64_t info_get(const Info &info, const std::string &key, uint64_t def)
{
	auto it = info.find(key);

	return it == info.end() ? def : it->second;
}

int side_accept(uint16_t port)
{
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0);
	sockaddr_in a = {};

	if (ls < 0)
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (bind(ls, reinterpret_cast<sockaddr *>(&a), sizeof(a)) || listen(ls, 1)) {
		close(ls);
		return -1;
	}
	int fd = accept(ls, nullptr, nullptr);

	close(ls);
	return fd;
}

int side_connect(const std::string &host, uint16_t port, int secs)
{
	sockaddr_in a = {};
	time_t end = time(nullptr) + secs;

	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
		return -1;
	do {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0)
			return -1;
		if (!connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)))
			return fd;
		close(fd);
		usleep(300000);
	} while (time(nullptr) < end);
	return -1;
}

bool side_send_line(int fd, const std::string &line)
{
	std::string s = line + "\n";
	size_t off = 0;

	while (off < s.size()) {
		ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		off += static_cast<size_t>(n);
	}
	return true;
}

bool side_read_line(int fd, std::string &line, int secs)
{
	time_t end = time(nullptr) + secs;
	char c;

	line.clear();
	for (;;) {
		pollfd p = { fd, POLLIN, 0 };
		int left = static_cast<int>(end - time(nullptr));

		if (left < 0 || poll(&p, 1, 1000 * (left > 0 ? left : 1)) <= 0) {
			if (time(nullptr) >= end)
				return false;
			continue;
		}
		if (recv(fd, &c, 1, 0) != 1)
			return false;
		if (c == '\n')
			return true;
		line += c;
	}
}

} // namespace fw
