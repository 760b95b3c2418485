// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// One RC connection over rdma_cm with rc_soak's buffers: a remotely
// accessible window, a ring of posted receives and a ring of send buffers,
// one CQ. Every wait for a completion fails the run (exit 1) when nothing
// completes for stall_s seconds: a stuck QP.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <string>

#include "soak_proto.h"

namespace soak {

[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Runs in fail() before the exit (rc_soak prints its counters).
extern void (*fail_hook)();

// wr_id of a receive: kRecvTag | ring slot. Others are the caller's.
constexpr uint64_t kRecvTag = 1ull << 63;

struct Conn {
	std::string dev;		// the device the connection must use
	int stall_s = 60;
	int ack_timeout = 0;		// RDMA_OPTION_ID_ACK_TIMEOUT if > 0
	int retry_count = 6;		// the requester's transport retries
	bool iwarp = false;		// no WRITE_WITH_IMM, no atomics
	bool atomics = false;

	rdma_event_channel *ech = nullptr;
	rdma_cm_id *listen_id = nullptr;
	rdma_cm_id *id = nullptr;
	ibv_pd *pd = nullptr;
	ibv_comp_channel *cch = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	uint8_t *window = nullptr, *rring = nullptr, *sring = nullptr;
	ibv_mr *window_mr = nullptr, *rring_mr = nullptr, *sring_mr = nullptr;
	WindowInfo peer{};		// the other side's window

	void serve(uint16_t port);
	void connect(const char *host, uint16_t port);
	void disconnect_and_wait();
	void wait_disconnected();
	void destroy();

	// poll: the next completion (success only; an error status ends the run).
	void poll(ibv_wc &wc);
	// The header and payload of a completed receive, then its repost.
	const Hdr &recv_hdr(const ibv_wc &wc) const;
	const uint8_t *recv_payload(const ibv_wc &wc) const;
	void repost(const ibv_wc &wc);

	uint8_t *send_buf(int slot) { return sring + size_t(slot) * kMsgBuf; }
	// send_msg: SEND sring slot SLOT (header plus LEN payload bytes), signalled.
	void send_msg(int slot, uint64_t wr_id, size_t len);
	void post(ibv_send_wr &wr);

private:
	void setup(rdma_cm_id *cid);
	void post_recv(int slot);
	rdma_cm_event *expect_event(rdma_cm_event_type want);
	void fill_param(rdma_conn_param &p, WindowInfo &mine);
};

} // namespace soak
