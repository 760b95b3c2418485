// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <arpa/inet.h>

namespace rk {

uint64_t eui64_guid(const Mac &m)
{
	const uint8_t b[8] = {static_cast<uint8_t>(m[0] ^ 2), m[1], m[2], 0xff, 0xfe,
			      m[3], m[4], m[5]};
	uint64_t g = 0;
	for (uint8_t x : b)
		g = (g << 8) | x;
	return g;
}

Gid link_local_gid(const Mac &mac)
{
	Gid g{};
	g[0] = 0xfe;
	g[1] = 0x80;
	uint64_t e = eui64_guid(mac);
	for (int i = 0; i < 8; i++)
		g[8 + i] = static_cast<uint8_t>(e >> (56 - 8 * i));
	return g;
}

bool ip_to_gid(const std::string &ip, Gid &gid)
{
	gid = {};
	in_addr a4;
	if (inet_pton(AF_INET, ip.c_str(), &a4) == 1) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(&gid[12], &a4, 4);
		return true;
	}
	return inet_pton(AF_INET6, ip.c_str(), gid.data()) == 1;
}

std::string gid_sysfs(const Gid &g)
{
	char b[48];
	int n = 0;
	for (int i = 0; i < 16; i += 2)
		n += snprintf(b + n, sizeof(b) - n, "%02x%02x%s", g[i], g[i + 1],
			      i == 14 ? "\n" : ":");
	return b;
}

bool gid_is_zero(const std::string &s)
{
	return s == "0000:0000:0000:0000:0000:0000:0000:0000\n";
}

std::string stack()
{
	const char *s = getenv("RDMA_KMOD_STACK");
	return s ? s : "";
}

bool in_vm() { return !stack().empty(); }
bool is_stock() { return stack() == "stock"; }

int time_factor()
{
	const char *v = getenv("RDMA_KMOD_TIME_FACTOR");
	int f = v ? atoi(v) : 1;
	return f > 1 ? f : 1;
}

} // namespace rk
