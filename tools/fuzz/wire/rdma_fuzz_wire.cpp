// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_fuzz_wire: the attacker of selftests/vm/twovm-fuzz-wire.sh, run on the
// peer VM (which must not run rxe: UDP port 4791 is ours here). Fetches the
// victim's INFO line over the side channel, then sends packets 
// [start, start + packets) of the seed: RoCE v2 and RoCE v1 frames through
// an AF_PACKET socket (roce_gen.h) and, when the victim has a siw listener,
// MPA/DDP/RDMAP over TCP connections (iwarp_gen.h) from other threads (one
// connection at a time each: a connection waits for the victim's replies,
// so on a slow victim several threads keep its listener busy).
// Packet I of seed S is the same bytes in every run (common/rng.h), given the same
// INFO; the journal file holds the last packets sent. At the end it tells
// the victim DONE, waits for its verdict, and prints as its last line
//   fuzz_wire: seed S packets N roce_v2 A roce_v1 B iwarp C ...
//
// Usage: rdma_fuzz_wire --peer IP --side-port P --seed S --packets N
//          [--start I] [--iface eth0] [--journal FILE] [--no-v1]
//          [--no-iwarp] [--pace-us U] [--iwarp-threads T]
//        rdma_fuzz_wire --dump --seed S --packets N: print the RoCE frames
//          (hex, one a line) for made-up targets, sending nothing; for
//          checking the ICRC code against another implementation
#include "iwarp_conn.h"
#include "iwarp_gen.h"
#include "common/journal.h"
#include "roce_gen.h"
#include "side_channel.h"
#include "targets.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

using namespace fw;

namespace {

struct Args {
	std::string peer, iface = "eth0", journal = "/tmp/fuzz_wire.journal";
	uint16_t side_port = 0;
	uint64_t seed = 1, packets = 1000, start = 0;
	bool v1 = true, iwarp = true, dump = false;
	unsigned pace_us = 0, iwarp_threads = 1;
};

enum Kind { K_V2, K_V1, K_IWARP };

// percentages of the packet indices; changing them changes every seed
constexpr unsigned kIwarpPct = 3, kV1Pct = 15;

Kind kind_of(const Args &a, uint64_t i)
{
	fuzz::Rng r = fuzz::Rng::for_item(a.seed ^ 0x6b696e64, i);	// its own stream: the kind draw
	unsigned x = r.below32(100);

	if (x < kIwarpPct)
		return a.iwarp ? K_IWARP : K_V2;
	if (x < kIwarpPct + kV1Pct)
		return a.v1 ? K_V1 : K_V2;
	return K_V2;
}

[[noreturn]] void usage(const char *why)
{
	std::fprintf(stderr, "rdma_fuzz_wire: %s (see the header of rdma_fuzz_wire.cpp)\n", why);
	std::exit(2);
}

Args parse(int argc, char **argv)
{
	Args a;

	for (int i = 1; i < argc; i++) {
		std::string k = argv[i];

		if (k == "--no-v1") {
			a.v1 = false;
			continue;
		}
		if (k == "--dump") {
			a.dump = true;
			continue;
		}
		if (k == "--no-iwarp") {
			a.iwarp = false;
			continue;
		}
		if (i + 1 >= argc)
			usage(("no value for " + k).c_str());
		const char *v = argv[++i];
		uint64_t n = std::strtoull(v, nullptr, 0);

		if (k == "--peer")
			a.peer = v;
		else if (k == "--side-port")
			a.side_port = uint16_t(n);
		else if (k == "--seed")
			a.seed = n;
		else if (k == "--packets")
			a.packets = n;
		else if (k == "--start")
			a.start = n;
		else if (k == "--iface")
			a.iface = v;
		else if (k == "--journal")
			a.journal = v;
		else if (k == "--pace-us")
			a.pace_us = unsigned(n);
		else if (k == "--iwarp-threads")
			a.iwarp_threads = unsigned(n);
		else
			usage(("unknown option " + k).c_str());
	}
	if (!a.dump && (a.peer.empty() || !a.side_port))
		usage("--peer and --side-port are required");
	if (a.iwarp_threads < 1 || a.iwarp_threads > 64)
		usage("--iwarp-threads wants 1 to 64");
	return a;
}

bool own_addresses(const std::string &iface, Targets &t, int &ifindex)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ifreq ifr = {};
	bool ok;

	std::snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface.c_str());
	ok = fd >= 0 && !ioctl(fd, SIOCGIFHWADDR, &ifr);
	if (ok)
		std::memcpy(t.my_mac.data(), ifr.ifr_hwaddr.sa_data, 6);
	ok = ok && !ioctl(fd, SIOCGIFADDR, &ifr);
	if (ok)
		t.my_ip = reinterpret_cast<sockaddr_in *>(&ifr.ifr_addr)->sin_addr.s_addr;
	ok = ok && !ioctl(fd, SIOCGIFINDEX, &ifr);
	if (ok)
		ifindex = ifr.ifr_ifindex;
	if (fd >= 0)
		close(fd);
	return ok;
}

std::atomic<bool> g_stop{ false };

void on_signal(int)
{
	g_stop = true;
}

struct IwarpStats {
	std::atomic<unsigned long> sent{ 0 }, conns{ 0 }, accepted{ 0 }, rejected{ 0 }, refused{ 0 };
};

// The journal's slots: 128 of the latest packets, the frame in hex after its
// summary (4096 hex digits are enough to see the headers of a huge one).
constexpr unsigned kJournalSlots = 128, kJournalSlotSize = 4608;

void journal_packet(fuzz::Journal &j, uint64_t index, const std::string &desc, const uint8_t *p, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	std::string rec = "#" + std::to_string(index) + " " + desc + " ";

	for (size_t i = 0; i < n && rec.size() + 2 < kJournalSlotSize; i++) {
		rec += hx[p[i] >> 4];
		rec += hx[p[i] & 15];
	}
	j.append(rec.c_str());
}

// Thread @k of a.iwarp_threads takes the iWARP indices I with I % threads == k.
void iwarp_thread(const Args &a, const Targets &t, fuzz::Journal &j, IwarpStats &st, unsigned k)
{
	unsigned long refused_in_row = 0;

	for (uint64_t i = a.start; i < a.start + a.packets && !g_stop; i++) {
		if (i % a.iwarp_threads != k || kind_of(a, i) != K_IWARP)
			continue;
		fuzz::Rng r = fuzz::Rng::for_item(a.seed, i);
		IwarpPlan plan;

		gen_iwarp(r, t, plan);
		std::string desc = "iwarp " + plan.what + " fpdus";
		for (const auto &f : plan.fpdus)
			desc += " " + f.what;
		journal_packet(j, i, desc, plan.request.data(), plan.request.size());
		IwarpResult res = run_iwarp(t.peer_ip, t.siw_port, plan);
		// a victim that no longer accepts connections is gone: stop here
		// rather than wait out a connect timeout per index
		refused_in_row = res.connected ? 0 : refused_in_row + 1;
		if (refused_in_row >= 10) {
			std::printf("fuzz_wire: the siw listener refused 10 connections in a row, iWARP stops at #%llu\n",
				    static_cast<unsigned long long>(i));
			break;
		}
		st.conns++;
		st.sent += res.sent;
		st.accepted += res.accepted;
		st.rejected += res.rejected;
		st.refused += !res.connected;
	}
}

} // namespace

int main(int argc, char **argv)
{
	Args a = parse(argc, argv);
	Targets t;
	int ifindex = 0;

	setvbuf(stdout, nullptr, _IOLBF, 0);
	if (a.dump) {
		std::vector<uint8_t> f;
		std::string d;

		t.peer_ip = htonl(0xc0000201);
		t.my_ip = htonl(0xc0000202);
		for (uint64_t i = a.start; i < a.start + a.packets; i++) {
			fuzz::Rng r = fuzz::Rng::for_item(a.seed, i);

			gen_roce(r, t, kind_of(a, i) == K_V1, f, d);
			for (uint8_t b : f)
				std::printf("%02x", b);
			std::printf(" %s\n", d.c_str());
		}
		return 0;
	}
	std::signal(SIGTERM, on_signal);
	std::signal(SIGINT, on_signal);
	std::signal(SIGPIPE, SIG_IGN);
	if (!own_addresses(a.iface, t, ifindex))
		usage(("cannot read the addresses of " + a.iface).c_str());
	if (inet_pton(AF_INET, a.peer.c_str(), &t.peer_ip) != 1)
		usage("bad --peer");

	int side = side_connect(a.peer, a.side_port, 900);
	std::string line;
	Info info;
	if (side < 0 || !side_read_line(side, line, 120) || !parse_info(line, info)) {
		std::printf("fuzz_wire: FAIL no INFO from the victim at %s:%u\n", a.peer.c_str(), a.side_port);
		return 1;
	}
	std::printf("fuzz_wire: victim %s\n", line.c_str());
	t.from_info(info);
	if (!t.siw_port)
		a.iwarp = false;

	int raw = socket(AF_PACKET, SOCK_RAW, 0);
	// replies (ACKs, NAKs, read responses) come to UDP 4791: take them
	int udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	sockaddr_in ua = {};
	ua.sin_family = AF_INET;
	ua.sin_port = htons(kRoceV2Port);
	if (raw < 0 || udp < 0 || bind(udp, reinterpret_cast<sockaddr *>(&ua), sizeof(ua))) {
		std::printf("fuzz_wire: FAIL raw socket or UDP %u: %s\n", kRoceV2Port, std::strerror(errno));
		return 1;
	}
	sockaddr_ll ll = {};
	ll.sll_family = AF_PACKET;
	ll.sll_ifindex = ifindex;
	ll.sll_halen = 6;
	std::memcpy(ll.sll_addr, t.peer_mac.data(), 6);

	fuzz::Journal journal(kJournalSlots, kJournalSlotSize);
	if (!a.journal.empty() && !journal.open(a.journal, true))
		std::printf("fuzz_wire: no journal %s: %s\n", a.journal.c_str(), std::strerror(errno));
	IwarpStats ist;
	std::vector<std::thread> iw;
	for (unsigned k = 0; a.iwarp && k < a.iwarp_threads; k++)
		iw.emplace_back(iwarp_thread, std::cref(a), std::cref(t), std::ref(journal), std::ref(ist), k);

	unsigned long v2 = 0, v1 = 0, send_err = 0, replies = 0;
	std::vector<uint8_t> frame;
	std::string desc;
	char rbuf[2048];
	time_t t0 = time(nullptr);
	for (uint64_t i = a.start; i < a.start + a.packets && !g_stop; i++) {
		Kind k = kind_of(a, i);

		if (k == K_IWARP)
			continue;
		fuzz::Rng r = fuzz::Rng::for_item(a.seed, i);
		gen_roce(r, t, k == K_V1, frame, desc);
		journal_packet(journal, i, desc, frame.data(), frame.size());
		for (int tries = 0;; tries++) {
			if (sendto(raw, frame.data(), frame.size(), 0, reinterpret_cast<sockaddr *>(&ll),
				   sizeof(ll)) >= 0) {
				(k == K_V1 ? v1 : v2)++;
				break;
			}
			// a full device queue: wait for it, the packet is not skipped
			if (errno != ENOBUFS && errno != EAGAIN) {
				send_err++;
				break;
			}
			usleep(1000);
		}
		while (recv(udp, rbuf, sizeof(rbuf), 0) > 0)
			replies++;
		if (a.pace_us)
			usleep(a.pace_us);
		if ((i - a.start) % 1000 == 999) {
			pollfd pf = { side, POLLIN, 0 };

			// the victim never writes before DONE: readable means it exited
			if (poll(&pf, 1, 0) > 0) {
				std::printf("fuzz_wire: the victim closed the side channel at #%llu\n",
					    static_cast<unsigned long long>(i));
				g_stop = true;
			}
		}
		if ((i - a.start) % 5000 == 4999) {
			std::printf("fuzz_wire: progress %llu/%llu (%lds)\n",
				    static_cast<unsigned long long>(i - a.start + 1),
				    static_cast<unsigned long long>(a.packets), long(time(nullptr) - t0));
		}
	}
	// which side bounds a run's time: the frames or the connections
	long roce_secs = long(time(nullptr) - t0);
	for (auto &th : iw)
		th.join();
	std::printf("fuzz_wire: RoCE frames sent in %lds, iWARP connections done in %lds (%u threads)\n",
		    roce_secs, long(time(nullptr) - t0), a.iwarp ? a.iwarp_threads : 0);
	while (recv(udp, rbuf, sizeof(rbuf), 0) > 0)
		replies++;

	char done[256];
	std::snprintf(done, sizeof(done), "DONE seed %llu start %llu packets %llu",
		      static_cast<unsigned long long>(a.seed), static_cast<unsigned long long>(a.start),
		      static_cast<unsigned long long>(a.packets));
	std::string verdict = "none";
	if (side_send_line(side, done) && side_read_line(side, line, 600))
		verdict = line;
	else
		for (const auto &l : journal.latest(16))
			std::printf("fuzz_wire: journal %.200s\n", l.c_str());
	bool ok = verdict == "CHECKED ok";
	std::printf("fuzz_wire: seed %llu packets %llu roce_v2 %lu roce_v1 %lu iwarp %lu "
		    "iwarp_conns %lu accepted %lu rejected %lu refused %lu replies %lu send_errors %lu "
		    "secs %ld victim %s\n",
		    static_cast<unsigned long long>(a.seed), static_cast<unsigned long long>(a.packets), v2, v1,
		    ist.sent.load(), ist.conns.load(), ist.accepted.load(), ist.rejected.load(),
		    ist.refused.load(), replies, send_err, long(time(nullptr) - t0),
		    verdict == "none" ? "LOST" : (ok ? "ok" : "FAIL"));
	return ok ? 0 : 1;
}
