// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Reads and prints rc_soak's retry counters (see soak_counters.h).
#include "soak_counters.h"

#include <dirent.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

namespace soak {

namespace {

bool wanted(const std::string &n)
{
	for (const char *w : { "retr", "seq", "rnr", "dup" })
		if (n.find(w) != std::string::npos)
			return true;
	return false;
}

void read_rxe(const std::string &dev, Counters &c)
{
	const std::string dir = "/sys/class/infiniband/" + dev + "/ports/1/hw_counters/";
	DIR *d = opendir(dir.c_str());

	if (!d)
		return;
	while (dirent *e = readdir(d)) {
		std::string n = e->d_name;
		uint64_t v;

		if (n[0] == '.' || !wanted(n))
			continue;
		std::ifstream f(dir + n);
		if (f >> v)
			c[n] = v;
	}
	closedir(d);
}

// /proc/net/snmp: a "Tcp:" line of names, then one of values.
void read_tcp(Counters &c)
{
	std::ifstream f("/proc/net/snmp");
	std::string names, values;

	while (std::getline(f, names)) {
		if (names.rfind("Tcp:", 0) != 0 || !std::getline(f, values))
			continue;
		std::istringstream ns(names), vs(values);
		std::string n, v;

		while (ns >> n && vs >> v)
			if (n == "RetransSegs")
				c["tcp_RetransSegs"] = std::stoull(v);
		return;
	}
}

} // namespace

Counters read_counters(const std::string &dev, bool iwarp)
{
	Counters c;

	if (iwarp)
		read_tcp(c);
	else
		read_rxe(dev, c);
	return c;
}

void print_counter_deltas(const std::string &dev, const Counters &before, const Counters &after)
{
	uint64_t retries = 0;

	std::printf("rc_soak: %s counters", dev.c_str());
	for (const auto &[n, v] : after) {
		auto b = before.find(n);
		uint64_t d = v - (b == before.end() ? 0 : b->second);

		std::printf(" %s +%llu", n.c_str(), static_cast<unsigned long long>(d));
		if (n.find("exceeded") == std::string::npos)
			retries += d;
	}
	std::printf("\nrc_soak: %s retries %llu\n", dev.c_str(),
		    static_cast<unsigned long long>(retries));
}

} // namespace soak
