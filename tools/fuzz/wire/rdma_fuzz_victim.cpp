// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_fuzz_victim: the stack under test in selftests/vm/twovm-fuzz-wire.sh.
// Sets up live targets (victim_rxe.h, victim_siw.h), serves one INFO line
// describing them to the attacker (rdma_fuzz_wire) over a TCP side channel,
// keeps the targets alive while the attacker sends, and when the attacker
// says DONE checks that no byte outside the windows the MRs allow changed.
// Prints "victim: ..." lines; the last is "victim: PASS" or "victim: FAIL";
// exit status 0 on PASS.
//
// Usage: rdma_fuzz_victim --rxe DEV --gid N [--v1-gid N] --remote-ip A.B.C.D
//          --dest-qpn Q --psn-a P --psn-b P --qkey K --side-port P
//          [--siw DEV --siw-port P] [--mac XX:..] [--timeout SECS]
//          [--no-requester]  (QP B keeps no READ/SEND outstanding)
#include "side_channel.h"
#include "victim_mem.h"
#include "victim_rxe.h"
#include "victim_siw.h"

#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

using namespace fw;

namespace {

struct Args {
	RxeConfig rxe;
	std::string siw_dev, mac;
	uint16_t side_port = 0, siw_port = 0;
	int timeout = 3600;
};

[[noreturn]] void usage(const char *why)
{
	std::fprintf(stderr, "rdma_fuzz_victim: %s (see the header of rdma_fuzz_victim.cpp)\n", why);
	std::exit(2);
}

Args parse(int argc, char **argv)
{
	Args a;

	for (int i = 1; i < argc; i++) {
		std::string k = argv[i];

		if (k == "--no-requester") {
			a.rxe.requester = false;
			continue;
		}
		if (i + 1 >= argc)
			usage(("no value for " + k).c_str());
		const char *v = argv[++i];
		uint32_t n = static_cast<uint32_t>(std::strtoul(v, nullptr, 0));

		if (k == "--rxe")
			a.rxe.dev = v;
		else if (k == "--gid")
			a.rxe.gid_index = static_cast<int>(n);
		else if (k == "--v1-gid")
			a.rxe.v1_gid_index = static_cast<int>(std::strtol(v, nullptr, 0));
		else if (k == "--remote-ip") {
			if (inet_pton(AF_INET, v, &a.rxe.remote_ip) != 1)
				usage("bad --remote-ip");
		} else if (k == "--dest-qpn")
			a.rxe.dest_qpn = n;
		else if (k == "--psn-a")
			a.rxe.psn_a = n;
		else if (k == "--psn-b")
			a.rxe.psn_b = n;
		else if (k == "--qkey")
			a.rxe.qkey = n;
		else if (k == "--side-port")
			a.side_port = static_cast<uint16_t>(n);
		else if (k == "--siw")
			a.siw_dev = v;
		else if (k == "--siw-port")
			a.siw_port = static_cast<uint16_t>(n);
		else if (k == "--mac")
			a.mac = v;
		else if (k == "--timeout")
			a.timeout = static_cast<int>(n);
		else
			usage(("unknown option " + k).c_str());
	}
	if (a.rxe.dev.empty() || a.rxe.gid_index < 0 || !a.side_port || !a.rxe.remote_ip)
		usage("--rxe, --gid, --remote-ip and --side-port are required");
	return a;
}

uint64_t mac_value(const std::string &s)
{
	unsigned b[6];
	uint64_t v = 0;

	if (std::sscanf(s.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return 0;
	for (unsigned x : b)
		v = v << 8 | (x & 0xff);
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	Args args = parse(argc, argv);
	Arena arena;
	RxeTargets rxe;
	SiwTargets siw;
	std::string err;
	bool with_siw = !args.siw_dev.empty() && args.siw_port;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	rxe.plan(arena);
	if (with_siw)
		siw.plan(arena);
	if (!arena.build())
		usage("out of memory");
	if (!rxe.setup(args.rxe, arena, err) || (with_siw && !siw.setup(args.siw_dev, args.siw_port, arena, err))) {
		std::printf("victim: setup failed: %s: %s\nvictim: FAIL\n", err.c_str(), std::strerror(errno));
		return 1;
	}
	Info info;
	rxe.describe(info);
	if (with_siw)
		siw.describe(info);
	info["mac"] = mac_value(args.mac);
	std::string line = info_line(info);
	std::printf("victim: %s\n", line.c_str());
	std::printf("victim: ready, side channel port %u\n", args.side_port);

	int fd = side_accept(args.side_port);
	if (fd < 0 || !side_send_line(fd, line)) {
		std::printf("victim: side channel failed\nvictim: FAIL\n");
		return 1;
	}
	// keep the targets alive until the attacker says DONE (or goes away)
	std::string got, done;
	time_t end = time(nullptr) + args.timeout;
	bool peer_gone = false;
	while (time(nullptr) < end) {
		pollfd p[2] = { { fd, POLLIN, 0 }, { siw.event_fd(), POLLIN, 0 } };

		poll(p, with_siw ? 2 : 1, 20);
		rxe.tick();
		if (with_siw)
			siw.tick();
		if (p[0].revents) {
			char c;
			ssize_t n = recv(fd, &c, 1, 0);

			if (n <= 0) {
				peer_gone = true;
				break;
			}
			if (c == '\n') {
				if (got.rfind("DONE", 0) == 0) {
					done = got;
					break;
				}
				got.clear();
			} else {
				got += c;
			}
		}
	}
	// let the last packets land and the connections end
	for (int i = 0; i < 50; i++) {
		usleep(20000);
		rxe.tick();
		if (with_siw)
			siw.tick();
	}
	bool pass = !done.empty();
	if (done.empty())
		std::printf("victim: attacker %s\n", peer_gone ? "closed the side channel without DONE" : "timed out");
	else
		std::printf("victim: attacker said: %s\n", done.c_str());
	rxe.report();
	if (with_siw)
		siw.report();
	auto changed = arena.check();
	for (const auto &c : changed)
		std::printf("victim: memory outside the MR windows: %s\n", c.c_str());
	if (changed.empty())
		std::printf("victim: no byte outside the writable windows changed (%zu bytes checked)\n", arena.total());
	pass = pass && changed.empty();
	side_send_line(fd, pass ? "CHECKED ok" : "CHECKED fail");
	close(fd);
	if (with_siw)
		siw.teardown();
	rxe.teardown();
	std::printf("victim: %s\n", pass ? "PASS" : "FAIL");
	return pass ? 0 : 1;
}
