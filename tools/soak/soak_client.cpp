// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rc_soak's client: it drives each family and checks what comes back
// (READ data, atomic return values); the server checks the rest and
// reports its count in each ACK.
#include "soak_roles.h"
#include "soak_pattern.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace soak {

namespace {

using Clock = std::chrono::steady_clock;

// Send-side wr_ids: what kind of work request, for the checks in wait_all.
constexpr uint64_t kWrCtl = 1, kWrData = 2, kWrWrite = 3, kWrRead = 4, kWrAtomic = 5;

struct Client {
	Conn &c;
	const Plan &plan;
	uint64_t corrupt = 0;		// this family, both sides
	uint64_t remote_corrupt = 0;	// the server's count in the last ACK

	// ctl: a control message from send slot 0.
	void ctl(uint32_t kind, uint64_t a = 0, uint64_t b = 0, uint64_t cc = 0, uint64_t d = 0)
	{
		auto *h = reinterpret_cast<Hdr *>(c.send_buf(0));

		*h = Hdr{ kMagic, kind, a, b, cc, d };
		c.send_msg(0, kWrCtl << 32, 0);
	}

	// scribble: a completed SEND's or WRITE's buffer is the application's
	// again; overwriting it at once must not change what the server gets
	// (a provider that completes while its transport still holds the
	// pages would send the scribble).
	void scribble(uint64_t wr_id)
	{
		const uint64_t kind = wr_id >> 32;
		const unsigned int slot = unsigned(wr_id);

		if (kind == kWrCtl || kind == kWrData)
			std::memset(c.send_buf(int(slot)), 0x5a, kMsgBuf);
		else if (kind == kWrWrite)
			std::memset(c.window + size_t(slot) * plan.chunk, 0x5a, plan.chunk);
	}

	// wait_all: SENDS send-side completions and, if ACK, one ACK message.
	void wait_all(int sends, bool ack)
	{
		ibv_wc wc;

		while (sends > 0 || ack) {
			c.poll(wc);
			if (!(wc.wr_id & kRecvTag)) {
				scribble(wc.wr_id);
				sends--;
				continue;
			}
			const Hdr &h = c.recv_hdr(wc);
			if (wc.opcode != IBV_WC_RECV || h.kind != K_ACK || !ack)
				fail("unexpected message: opcode %d kind %u", wc.opcode, h.kind);
			remote_corrupt = h.a;
			ack = false;
			c.repost(wc);
		}
	}

	void family_send(uint64_t total, uint64_t &ops)
	{
		for (uint64_t off = 0; off < total;) {
			int n = 0;

			for (; n < kBatch && off < total; n++) {
				size_t len = size_t(std::min<uint64_t>(plan.chunk, total - off));
				auto *h = reinterpret_cast<Hdr *>(c.send_buf(n));

				*h = Hdr{ kMagic, K_DATA, off, len, 0, 0 };
				pattern_fill(h + 1, len, plan.seed, FAM_SEND, off);
				c.send_msg(n, kWrData << 32 | unsigned(n), len);
				off += len;
				ops++;
			}
			wait_all(n, true);
		}
	}

	void family_write(uint64_t total, uint64_t &ops, bool imm)
	{
		for (uint64_t off = 0, w = 0; off < total; w++) {
			const size_t wlen = size_t(std::min<uint64_t>(plan.chunk * kBatch, total - off));
			int n = 0;

			pattern_fill(c.window, wlen, plan.seed, FAM_WRITE, off);
			for (size_t pos = 0; pos < wlen; pos += plan.chunk, n++) {
				const size_t len = std::min(plan.chunk, wlen - pos);
				ibv_sge sge = { uint64_t(uintptr_t(c.window + pos)), uint32_t(len),
						c.window_mr->lkey };
				ibv_send_wr wr{};

				wr.wr_id = kWrWrite << 32 | unsigned(n);
				wr.sg_list = &sge;
				wr.num_sge = 1;
				wr.opcode = IBV_WR_RDMA_WRITE;
				if (imm && pos + len == wlen) {
					// The last chunk of a window carries the window number.
					wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
					wr.imm_data = htonl(uint32_t(w));
				}
				wr.wr.rdma.remote_addr = c.peer.addr + pos;
				wr.wr.rdma.rkey = c.peer.rkey;
				c.post(wr);
				ops++;
			}
			// The SEND after the WRITEs: the server checks the window now.
			ctl(K_WDONE, off, wlen, w);
			wait_all(n + 1, true);
			off += wlen;
		}
	}

	void family_read(uint64_t total, uint64_t &ops)
	{
		for (uint64_t off = 0; off < total;) {
			const size_t wlen = size_t(std::min<uint64_t>(plan.chunk * kBatch, total - off));
			int n = 0;

			ctl(K_RPREP, off, wlen);
			wait_all(1, true);
			std::memset(c.window, 0, wlen);
			for (size_t pos = 0; pos < wlen; pos += plan.chunk, n++) {
				const size_t len = std::min(plan.chunk, wlen - pos);
				ibv_sge sge = { uint64_t(uintptr_t(c.window + pos)), uint32_t(len),
						c.window_mr->lkey };
				ibv_send_wr wr{};

				wr.wr_id = kWrRead << 32 | unsigned(n);
				wr.sg_list = &sge;
				wr.num_sge = 1;
				wr.opcode = IBV_WR_RDMA_READ;
				wr.wr.rdma.remote_addr = c.peer.addr + pos;
				wr.wr.rdma.rkey = c.peer.rkey;
				c.post(wr);
				ops++;
			}
			wait_all(n, false);
			uint64_t first = 0, bad = pattern_count_bad(c.window, wlen, plan.seed,
								      FAM_READ, off, &first);
			if (bad)
				std::printf("rc_soak: read: %" PRIu64 " bad bytes in [%" PRIu64
					    ", +%zu), first at %" PRIu64 "\n", bad, off, wlen, first);
			corrupt += bad;
			off += wlen;
		}
	}

	// One op in flight per slot; each return value is checked here, the
	// final slot values by the server (ADONE).
	void family_atomic(uint64_t total, uint64_t &ops)
	{
		// One op per 2 KiB of the budget: each is a round trip.
		const uint64_t nops = std::max<uint64_t>(total / kAtomicBytesPerOp, kSlots);
		uint64_t expect[kSlots], next[kSlots], left[kSlots];
		int inflight = 0;

		ctl(K_APREP, kSlots);
		wait_all(1, true);
		auto issue = [&](uint32_t s) {
			const uint64_t j = next[s];
			auto *res = reinterpret_cast<uint64_t *>(c.window) + s;
			ibv_sge sge = { uint64_t(uintptr_t(res)), 8, c.window_mr->lkey };
			ibv_send_wr wr{};

			*res = ~expect[s];	// anything but the answer
			wr.wr_id = kWrAtomic << 32 | s;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.wr.atomic.remote_addr = c.peer.addr + 8 * s;
			wr.wr.atomic.rkey = c.peer.rkey;
			if (j % 2 == 0) {
				wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
				wr.wr.atomic.compare_add = atomic_add(plan.seed, s, j);
			} else {
				wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
				wr.wr.atomic.compare_add = atomic_cas_misses(j) ? ~expect[s] : expect[s];
				wr.wr.atomic.swap = atomic_swap(plan.seed, s, j);
			}
			c.post(wr);
			inflight++;
			ops++;
		};
		// The server sees no completion while atomics run: in rounds of
		// kAtomicRound ops, each followed by an APING it answers, so
		// that its stall check does not fire in a long soak.
		uint64_t quota = kAtomicRound;
		auto issue_next = [&](uint32_t s) {
			if (left[s] && quota) {
				quota--;
				issue(s);
			}
		};
		for (uint32_t s = 0; s < kSlots; s++) {
			expect[s] = atomic_init(plan.seed, s);
			next[s] = 0;
			left[s] = ops_on_slot(nops, kSlots, s);
			issue_next(s);
		}
		for (;;) {
			while (inflight) {
				ibv_wc wc;

				c.poll(wc);
				if (wc.wr_id & kRecvTag || wc.wr_id >> 32 != kWrAtomic)
					fail("unexpected completion %#" PRIx64 " during atomics",
					     wc.wr_id);
				inflight--;
				const uint32_t s = uint32_t(wc.wr_id);
				const uint64_t j = next[s], got = reinterpret_cast<uint64_t *>(c.window)[s];

				if (got != expect[s]) {
					std::printf("rc_soak: atomic slot %u op %" PRIu64 " returned %#"
						    PRIx64 ", want %#" PRIx64 "\n", s, j, got, expect[s]);
					corrupt += 8;
				}
				if (j % 2 == 0)
					expect[s] += atomic_add(plan.seed, s, j);
				else if (!atomic_cas_misses(j))
					expect[s] = atomic_swap(plan.seed, s, j);
				next[s]++;
				left[s]--;
				issue_next(s);
			}
			if (std::all_of(left, left + kSlots, [](uint64_t n) { return !n; }))
				break;
			ctl(K_APING);
			wait_all(1, true);
			quota = kAtomicRound;
			for (uint32_t s = 0; s < kSlots; s++)
				issue_next(s);
		}
		ctl(K_ADONE, kSlots, nops);
		wait_all(1, true);
	}
};

} // namespace

void print_family(const Conn &c, uint32_t fam, uint64_t bytes, uint64_t ops, uint64_t corrupt,
		  double secs)
{
	std::printf("rc_soak: %s %s bytes %" PRIu64 " ops %" PRIu64 " corrupt %" PRIu64
		    " time %.2f s\n", c.dev.c_str(), family_name(fam), bytes, ops, corrupt, secs);
	std::fflush(stdout);
}

uint64_t run_client(Conn &c, const Plan &plan)
{
	Client cl{ c, plan };
	uint64_t all = 0;

	for (uint32_t fam : plan.families) {
		const bool imm = !c.iwarp;
		uint64_t ops = 0;

		if (fam == FAM_ATOMIC && !c.atomics) {
			std::printf("rc_soak: %s atomic skipped: the device has no atomics\n",
				    c.dev.c_str());
			continue;
		}
		cl.corrupt = 0;
		cl.ctl(K_BEGIN, fam, plan.bytes, plan.seed, imm | plan.chunk << 1);
		cl.wait_all(1, true);
		const auto t0 = Clock::now();
		switch (fam) {
		case FAM_SEND: cl.family_send(plan.bytes, ops); break;
		case FAM_WRITE: cl.family_write(plan.bytes, ops, imm); break;
		case FAM_READ: cl.family_read(plan.bytes, ops); break;
		case FAM_ATOMIC: cl.family_atomic(plan.bytes, ops); break;
		}
		const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
		// The server's count is cumulative in the family: its last ACK.
		cl.corrupt += cl.remote_corrupt;
		print_family(c, fam, fam == FAM_ATOMIC ? ops * 8 : plan.bytes, ops, cl.corrupt,
			     secs);
		all += cl.corrupt;
	}
	cl.ctl(K_END);
	cl.wait_all(1, true);
	return all;
}

} // namespace soak
