// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// CmLink: one RC connection made with librdmacm for the tools that play a
// misbehaving peer of a kernel ULP (srp_bad_initiator, isert_bad_initiator):
// an address resolved, a QP with a ring of receive buffers, one send buffer
// and an optional remotely accessible data buffer; messages sent and taken
// one at a time; disconnection noticed. The protocol's login is the
// caller's: connect() hands it the first CM event to read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

namespace rk {

class CmLink {
public:
	// MSG: the size of every receive buffer and of the send buffer;
	// RECVS receives kept posted; DATA bytes of remote-accessible memory.
	CmLink(size_t msg, int recvs, size_t data = 0, int send_wrs = 16);
	virtual ~CmLink();
	CmLink(const CmLink &) = delete;
	CmLink &operator=(const CmLink &) = delete;

	std::string error;		// what failed last, with errno's text
	std::vector<uint8_t> in;	// the last message received
	std::vector<uint8_t> sbuf;	// what send() sends from
	std::vector<uint8_t> data;	// registered for remote read and write
	ibv_mr *dmr = nullptr;

	// Address and route of DST resolved, the QP and buffers made.
	bool prepare(const sockaddr *dst);
	// rdma_connect() with PRIV as private data; the first CM event after
	// it within MS (nullptr if none came): the caller reads and acks it.
	rdma_cm_event *connect(const void *priv, uint8_t len, uint8_t responder_resources,
			       uint8_t initiator_depth, int ms);
	// The next CM event is WANT (within MS), acked.
	bool expect_event(rdma_cm_event_type want, int ms);
	// The first LEN bytes of sbuf as one signalled Send.
	bool send(size_t len);
	// The next message within MS into `in`; false on a timeout, a failed
	// work request or a disconnection.
	bool receive(int ms);
	// The peer disconnected (a DISCONNECTED event within MS).
	bool gone(int ms);
	// The peer disconnected or the QP failed within MS.
	bool closed(int ms);
	void close();

protected:
	bool fail(const char *what);

private:
	size_t msg_;
	int recvs_, send_wrs_;
	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *id_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_mr *rmr_ = nullptr, *smr_ = nullptr;
	std::vector<uint8_t> rbuf_;
	bool disconnected_ = false, dead_ = false;

	bool make_qp();
	bool post_recv(uint64_t slot);
};

} // namespace rk
