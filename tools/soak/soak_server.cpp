// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_soak's server: it answers the client's control messages, checks every
// SEND payload, every WRITE window (after the "done" SEND) and the final
// atomic slot values, and fills the window for READs.
#include "soak_roles.h"
#include "soak_pattern.h"

#include <arpa/inet.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>

namespace soak {

namespace {

using Clock = std::chrono::steady_clock;

struct Server {
	Conn &c;
	uint64_t seed;
	uint32_t fam = 0;
	uint64_t bytes = 0, next_off = 0, ops = 0, corrupt = 0, all = 0;
	bool imm = false;
	uint64_t chunk = kChunk;
	int64_t imm_window = -1;	// window number of the last WRITE_WITH_IMM
	int in_batch = 0;
	Clock::time_point t0{};

	// ACKs go from a ring of send slots; the client may answer an ACK
	// before its send completes here, so completions are counted, and a
	// slot is reused only once its ACK completed (receives that come
	// meanwhile wait in `early').
	int pending = 0;
	uint64_t acks = 0;
	std::deque<ibv_wc> early{};

	void ack()
	{
		const int slot = int(acks++ % kBatch);
		auto *h = reinterpret_cast<Hdr *>(c.send_buf(slot));

		while (pending == kBatch) {
			ibv_wc wc;

			c.poll(wc);
			if (wc.wr_id & kRecvTag)
				early.push_back(wc);
			else
				pending--;
		}
		*h = Hdr{ kMagic, K_ACK, corrupt, 0, 0, 0 };
		c.send_msg(slot, 1, 0);
		pending++;
	}

	// next: the next message from the client.
	void next(ibv_wc &wc)
	{
		if (!early.empty()) {
			wc = early.front();
			early.pop_front();
			return;
		}
		for (;;) {
			c.poll(wc);
			if (wc.wr_id & kRecvTag)
				return;
			pending--;
		}
	}

	void end_family()
	{
		if (!fam)
			return;
		const double secs = std::chrono::duration<double>(Clock::now() - t0).count();

		print_family(c, fam, bytes, ops, corrupt, secs);
		all += corrupt;
		fam = 0;
	}

	void check(const void *p, size_t len, uint32_t f, uint64_t off, const char *what)
	{
		uint64_t first = 0, bad = pattern_count_bad(p, len, seed, f, off, &first);

		if (!bad)
			return;
		std::printf("rc_soak: %s: %" PRIu64 " bad bytes in [%" PRIu64 ", +%zu), first at %"
			    PRIu64 "\n", what, bad, off, len, first);
		corrupt += bad;
	}

	// data: one SEND of the SEND family; ACK after each batch and at the end.
	void data(const ibv_wc &wc, const Hdr &h)
	{
		if (fam != FAM_SEND || h.a != next_off || h.b > kChunk ||
		    wc.byte_len != sizeof(Hdr) + h.b)
			fail("DATA out of order: offset %" PRIu64 " (want %" PRIu64 "), %" PRIu64
			     " bytes, message %u bytes", h.a, next_off, h.b, wc.byte_len);
		check(c.recv_payload(wc), h.b, FAM_SEND, h.a, "send");
		next_off += h.b;
		ops++;
		if (++in_batch == kBatch || next_off == bytes) {
			in_batch = 0;
			c.repost(wc);
			ack();
			return;
		}
		c.repost(wc);
	}

	void atomic_done(uint64_t slots, uint64_t nops)
	{
		const auto *v = reinterpret_cast<const uint64_t *>(c.window);

		for (uint32_t s = 0; s < slots; s++) {
			const uint64_t want = atomic_final(seed, s, ops_on_slot(nops, uint32_t(slots), s));

			if (v[s] == want)
				continue;
			std::printf("rc_soak: atomic slot %u is %#" PRIx64 ", want %#" PRIx64 "\n", s,
				    v[s], want);
			corrupt += 8;
		}
		ops = nops;
		bytes = nops * 8;
	}

	// handle: one message; false after END.
	bool handle(const ibv_wc &wc)
	{
		if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
			if (fam != FAM_WRITE || !imm)
				fail("WRITE_WITH_IMM outside the WRITE family");
			imm_window = int64_t(ntohl(wc.imm_data));
			c.repost(wc);
			return true;
		}
		const Hdr h = c.recv_hdr(wc);

		if (h.kind == K_DATA) {
			data(wc, h);
			return true;
		}
		c.repost(wc);
		switch (h.kind) {
		case K_BEGIN:
			end_family();
			if (h.c != seed)
				fail("the client's seed is %" PRIu64 ", ours %" PRIu64, h.c, seed);
			fam = uint32_t(h.a);
			bytes = h.b;
			imm = h.d & 1;
			chunk = h.d >> 1;
			if (!chunk || chunk > kChunk)
				fail("chunk of %" PRIu64 " bytes", chunk);
			next_off = ops = corrupt = 0;
			in_batch = 0;
			imm_window = -1;
			t0 = Clock::now();
			break;
		case K_WDONE:
			if (fam != FAM_WRITE || h.b > kWindow)
				fail("WDONE outside the WRITE family");
			// The WRITE_WITH_IMM must have come before this SEND.
			if (imm && imm_window != int64_t(h.c)) {
				std::printf("rc_soak: write window %" PRIu64 ": immediate %" PRId64 "\n",
					    h.c, imm_window);
				corrupt++;
			}
			check(c.window, h.b, FAM_WRITE, h.a, "write");
			ops += (h.b + chunk - 1) / chunk;
			// Stale data must not pass for the next window.
			std::memset(c.window, 0, h.b);
			break;
		case K_RPREP:
			if (fam != FAM_READ || h.b > kWindow)
				fail("RPREP outside the READ family");
			pattern_fill(c.window, h.b, seed, FAM_READ, h.a);
			ops += (h.b + chunk - 1) / chunk;
			break;
		case K_APREP:
			if (fam != FAM_ATOMIC || h.a > kSlots)
				fail("APREP outside the ATOMIC family");
			for (uint32_t s = 0; s < h.a; s++)
				reinterpret_cast<uint64_t *>(c.window)[s] = atomic_init(seed, s);
			break;
		case K_APING:
			if (fam != FAM_ATOMIC)
				fail("APING outside the ATOMIC family");
			break;
		case K_ADONE:
			if (fam != FAM_ATOMIC || h.a > kSlots)
				fail("ADONE outside the ATOMIC family");
			atomic_done(h.a, h.b);
			break;
		case K_END:
			end_family();
			ack();
			return false;
		default:
			fail("unknown message kind %u", h.kind);
		}
		ack();
		return true;
	}
};

} // namespace

uint64_t run_server(Conn &c, uint64_t seed)
{
	Server s{ c, seed };
	ibv_wc wc;

	do
		s.next(wc);
	while (s.handle(wc));
	// The last ACKs' completions are not waited for: the client
	// disconnects once it has the last one, which may flush them here.
	return s.all;
}

} // namespace soak
