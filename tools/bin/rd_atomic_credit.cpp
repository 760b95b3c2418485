// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rd_atomic_credit: the requester's read/atomic credits must survive a
// throttled sender (selftests/vm/twovm-rd-atomic-credit.sh). Each round the
// client plugs its interface (a plug qdisc: packets stay queued, counted
// against their QP; netem would not do, it orphans what it holds), posts an
// RDMA WRITE of exactly 64 packets (rxe's window of skbs in flight per QP)
// and a FETCH_AND_ADD, waits, then unplugs: the requester has reached the
// atomic throttled. Our rxe used to take the credit before finding itself
// throttled and drop it when it came back: one credit lost a round, and
// after max_rd_atomic rounds no atomic could leave (a stuck QP with
// nothing in flight). Checked: every fetched value, and the written bytes
// (read back at the end). rdma_cm connection and windows as rc_soak's.
// Usage: rd_atomic_credit --dev DEV --port P [--rounds N] --server
//        rd_atomic_credit --dev DEV --port P [--rounds N] --plug IFACE --client HOST
#include <infiniband/verbs.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "soak/soak_conn.h"

using soak::Conn;
using soak::fail;

namespace {

constexpr uint32_t kPackets = 64;	// rxe's RXE_INFLIGHT_SKBS_PER_QP_HIGH
constexpr uint64_t kAdd = 0x10001;

uint32_t round_now;	// for the failure report

void report_round()
{
	std::printf("rd_atomic_credit: failed in round %u\n", round_now);
}

uint32_t path_mtu_bytes(ibv_qp *qp)
{
	ibv_qp_attr at{};
	ibv_qp_init_attr init{};

	if (ibv_query_qp(qp, &at, IBV_QP_PATH_MTU, &init))
		fail("ibv_query_qp");
	return 128u << at.path_mtu;	// IBV_MTU_256 is 1
}

// The completion of @want (Conn::poll fails on a stall). The QP signals
// every WR (sq_sig_all): the writes' completions (wr_id < 2^32) pass by.
void wait_for(Conn &c, uint64_t want)
{
	ibv_wc wc;

	do {
		c.poll(wc);
		if (wc.wr_id != want && wc.wr_id >> 32)
			fail("completion %#" PRIx64 ", want %#" PRIx64, wc.wr_id, want);
	} while (wc.wr_id != want);
}

// The plug qdisc on @iface holds (block) or passes (release) packets.
void plug(const std::string &iface, const char *how)
{
	const std::string cmd = "tc qdisc change dev " + iface + " root plug " + how;

	if (std::system(cmd.c_str()))
		fail("%s failed", cmd.c_str());
}

void run_client(Conn &c, uint32_t rounds, const std::string &iface, int tf)
{
	const uint32_t len = kPackets * path_mtu_bytes(c.qp);
	const uint64_t target = c.peer.addr + len;	// 8-byte aligned
	auto *result = reinterpret_cast<uint64_t *>(c.window + len);
	uint8_t fill = 0;

	if (!c.atomics)
		fail("%s has no atomics", c.dev.c_str());
	if (len + 8 > c.peer.len)
		fail("peer window too small");
	soak::fail_hook = report_round;
	for (uint32_t r = 0; r < rounds; r++) {
		ibv_sge wsge = { uint64_t(uintptr_t(c.window)), len, c.window_mr->lkey };
		ibv_sge asge = { uint64_t(uintptr_t(result)), 8, c.window_mr->lkey };
		ibv_send_wr w{}, at{};

		round_now = r;
		fill = uint8_t(0x40 + r % 64);
		std::memset(c.window, fill, len);
		*result = ~uint64_t(0);
		w.wr_id = r;
		w.sg_list = &wsge;
		w.num_sge = 1;
		w.opcode = IBV_WR_RDMA_WRITE;
		w.wr.rdma.remote_addr = c.peer.addr;
		w.wr.rdma.rkey = c.peer.rkey;
		at.wr_id = uint64_t(1) << 32 | r;
		at.sg_list = &asge;
		at.num_sge = 1;
		at.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		at.send_flags = IBV_SEND_SIGNALED;
		at.wr.atomic.remote_addr = target;
		at.wr.atomic.rkey = c.peer.rkey;
		at.wr.atomic.compare_add = kAdd;
		plug(iface, "block");
		c.post(w);
		c.post(at);
		// time for the requester to queue the write and meet the atomic
		usleep(200000 * tf);
		plug(iface, "release_indefinite");
		wait_for(c, at.wr_id);
		if (*result != r * kAdd)
			fail("round %u: fetched %#" PRIx64 ", want %#" PRIx64, r, *result,
			     r * kAdd);
	}

	// The last round's bytes, read back into a cleared window.
	ibv_sge rsge = { uint64_t(uintptr_t(c.window)), len, c.window_mr->lkey };
	ibv_send_wr rd{};

	std::memset(c.window, 0, len);
	rd.wr_id = 2ull << 32;
	rd.sg_list = &rsge;
	rd.num_sge = 1;
	rd.opcode = IBV_WR_RDMA_READ;
	rd.send_flags = IBV_SEND_SIGNALED;
	rd.wr.rdma.remote_addr = c.peer.addr;
	rd.wr.rdma.rkey = c.peer.rkey;
	c.post(rd);
	wait_for(c, rd.wr_id);
	for (uint32_t i = 0; i < len; i++)
		if (c.window[i] != fill)
			fail("byte %u of the written area is %#x, want %#x", i, c.window[i], fill);
	std::printf("rd_atomic_credit: %s rounds %u of %u packets + atomic, values and %u bytes ok\n",
		    c.dev.c_str(), rounds, kPackets, len);
}

} // namespace

int main(int argc, char **argv)
{
	Conn c;
	const char *host = nullptr;
	bool server = false;
	uint16_t port = 0;
	uint32_t rounds = 24;	// past max_rd_atomic (16)
	const char *tfs = getenv("RDMA_KMOD_TIME_FACTOR");
	const int tf = tfs && std::atoi(tfs) > 1 ? std::atoi(tfs) : 1;
	std::string iface;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "--dev" && i + 1 < argc)
			c.dev = argv[++i];
		else if (a == "--port" && i + 1 < argc)
			port = uint16_t(std::atoi(argv[++i]));
		else if (a == "--rounds" && i + 1 < argc)
			rounds = uint32_t(std::atoi(argv[++i]));
		else if (a == "--plug" && i + 1 < argc)
			iface = argv[++i];
		else if (a == "--server")
			server = true;
		else if (a == "--client" && i + 1 < argc)
			host = argv[++i];
		else
			fail("usage: rd_atomic_credit --dev DEV --port P [--rounds N] "
			     "--server | --plug IFACE --client HOST");
	}
	if (c.dev.empty() || !port || server == !!host || (host && iface.empty()))
		fail("usage: rd_atomic_credit --dev DEV --port P [--rounds N] "
		     "--server | --plug IFACE --client HOST");
	c.stall_s = 30 * tf;
	if (server) {
		c.serve(port);
		// the client decides when it is over
		c.stall_s *= 20;
		c.wait_disconnected();
	} else {
		c.connect(host, port);
		run_client(c, rounds, iface, tf);
		c.disconnect_and_wait();
	}
	c.destroy();
	return 0;
}
