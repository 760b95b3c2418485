// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// iser_bad_target: an iSER target of its own (rdma_cm, no LIO) that answers
// each initiator's first PDU (its Login request) with a malformed one, a
// different case per connection, for selftests/vm/iser_bad_pdu.sh (issue
// 15). The initiator must fail that connection cleanly, nothing more.
//
//   iser_bad_target ADDR PORT
//
// Cases, in turn: a SEND shorter than the iSER and iSCSI headers; a data
// segment length beyond the bytes sent; an iSER Hello, then a short PDU; a
// Login response on SEND_WITH_INV of an rkey the initiator never gave; a
// SEND larger than any buffer the initiator posts; a Login response with an
// ITT the initiator never used. Prints "case N NAME: sent" and then
// "case N NAME: closed" once the initiator disconnected (or "no close"
// after 60 s); "all cases done" after the last. Exit 0 when all ran.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr size_t kIserHdr = 28, kBhs = 48, kHdrs = kIserHdr + kBhs;
constexpr size_t kRecvSize = 16384;
constexpr size_t kBigSend = 32768;	// beyond the 8 KiB login buffer
constexpr uint8_t kIscsiCtrl = 0x10, kIserHello = 0x20;
constexpr uint8_t kOpLoginRsp = 0x23;

enum Case { SHORT, DLENGTH, HELLO, BOGUS_INV, TOO_BIG, BAD_ITT, NCASES };
const char *const kNames[NCASES] = {
	"short", "dlength", "hello", "bogus-invalidate", "too-big", "bad-itt",
};

[[noreturn]] void fatal(const char *what)
{
	std::printf("FATAL %s: %s\n", what, std::strerror(errno));
	std::exit(2);
}

rdma_cm_event *next_event(rdma_event_channel *ch, int ms)
{
	pollfd p = { ch->fd, POLLIN, 0 };
	rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0)
		return nullptr;
	if (rdma_get_cm_event(ch, &ev))
		fatal("rdma_get_cm_event");
	return ev;
}

// One accepted connection: its QP, a receive and a send buffer.
struct Conn {
	rdma_cm_id *id = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *rmr = nullptr, *smr = nullptr;
	std::vector<uint8_t> rbuf = std::vector<uint8_t>(kRecvSize);
	std::vector<uint8_t> sbuf = std::vector<uint8_t>(kBigSend);

	bool setup(rdma_cm_id *cm_id)
	{
		ibv_qp_init_attr qa = {};

		id = cm_id;
		pd = ibv_alloc_pd(id->verbs);
		cq = pd ? ibv_create_cq(id->verbs, 16, nullptr, nullptr, 0) : nullptr;
		if (!cq)
			return false;
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 4;
		qa.cap.max_recv_wr = 4;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, pd, &qa))
			return false;
		rmr = ibv_reg_mr(pd, rbuf.data(), rbuf.size(), IBV_ACCESS_LOCAL_WRITE);
		smr = ibv_reg_mr(pd, sbuf.data(), sbuf.size(), 0);
		if (!rmr || !smr)
			return false;
		ibv_sge sge = { reinterpret_cast<uintptr_t>(rbuf.data()),
				static_cast<uint32_t>(rbuf.size()), rmr->lkey };
		ibv_recv_wr wr = {}, *bad;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return !ibv_post_recv(id->qp, &wr, &bad);
	}

	// The next completion of kind @recv within @ms (false: none or failed).
	bool wait_wc(bool recv, int ms, uint32_t *len)
	{
		for (int waited = 0; waited < ms; waited += 10) {
			ibv_wc wc;

			while (ibv_poll_cq(cq, 1, &wc) == 1) {
				if (wc.status != IBV_WC_SUCCESS)
					return false;
				if (((wc.opcode & IBV_WC_RECV) != 0) == recv) {
					if (len)
						*len = wc.byte_len;
					return true;
				}
			}
			poll(nullptr, 0, 10);
		}
		return false;
	}

	bool send(size_t len, bool inv, uint32_t rkey)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(sbuf.data()),
				static_cast<uint32_t>(len), smr->lkey };
		ibv_send_wr wr = {}, *bad;

		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (inv)
			wr.invalidate_rkey = rkey;
		return !ibv_post_send(id->qp, &wr, &bad);
	}

	void teardown()
	{
		if (id && id->qp)
			rdma_destroy_qp(id);
		if (rmr)
			ibv_dereg_mr(rmr);
		if (smr)
			ibv_dereg_mr(smr);
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (id)
			rdma_destroy_id(id);
	}
};

// A Login response to the request in @req (its ITT, ISID, CmdSN echoed).
void login_response(uint8_t *out, const uint8_t *req, uint32_t itt_delta)
{
	const uint8_t *bhs = req + kIserHdr;
	uint8_t *r = out + kIserHdr;
	uint32_t itt, cmdsn;

	std::memset(out, 0, kHdrs);
	out[0] = kIscsiCtrl;
	r[0] = kOpLoginRsp;
	r[1] = 0x87;		// Transit, CSG operational, NSG full feature
	std::memcpy(r + 8, bhs + 8, 6);	// ISID
	std::memcpy(&itt, bhs + 16, 4);
	itt = htonl(ntohl(itt) + itt_delta);
	std::memcpy(r + 16, &itt, 4);
	std::memcpy(&cmdsn, bhs + 24, 4);
	cmdsn = htonl(ntohl(cmdsn) + 1);
	std::memcpy(r + 28, &cmdsn, 4);	// ExpCmdSN
	std::memcpy(r + 32, &cmdsn, 4);	// MaxCmdSN
}

// Sends case @c's PDU after the initiator's first PDU arrived in @c.
bool send_case(Conn &cn, Case c)
{
	uint8_t *s = cn.sbuf.data();
	const uint8_t *req = cn.rbuf.data();

	switch (c) {
	case SHORT:
		std::memset(s, 0, 20);
		s[0] = kIscsiCtrl;
		return cn.send(20, false, 0);
	case DLENGTH:
		login_response(s, req, 0);
		s[kIserHdr + 5] = 0x00;	// DataSegmentLength 4000 ...
		s[kIserHdr + 6] = 0x0f;
		s[kIserHdr + 7] = 0xa0;
		return cn.send(kHdrs + 10, false, 0);	// ... of which 10 sent
	case HELLO:
		login_response(s, req, 0);
		s[0] = kIserHello;
		if (!cn.send(kHdrs, false, 0) || !cn.wait_wc(false, 5000, nullptr))
			return false;
		std::memset(s, 0, 20);
		s[0] = kIscsiCtrl;
		return cn.send(20, false, 0);
	case BOGUS_INV:
		login_response(s, req, 0);
		return cn.send(kHdrs, true, 0x4242aa01);
	case TOO_BIG:
		login_response(s, req, 0);
		return cn.send(kBigSend, false, 0);
	case BAD_ITT:
		login_response(s, req, 0x1000);
		return cn.send(kHdrs, false, 0);
	default:
		return false;
	}
}

// Serves one connection with case @c; false if it never came.
bool serve_one(rdma_event_channel *ch, Case c)
{
	rdma_cm_event *ev = next_event(ch, 120000);
	uint8_t accept_hdr[4] = { 0xc0, 0, 0, 0 };	// no ZBVA, no invalidation
	rdma_conn_param p = {};
	Conn cn;

	if (!ev)
		return false;
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		rdma_ack_cm_event(ev);
		return true;	// a late event of an earlier connection
	}
	rdma_cm_id *id = ev->id;
	rdma_ack_cm_event(ev);
	if (!cn.setup(id)) {
		std::printf("case %d %s: set-up failed: %s\n", c, kNames[c],
			    std::strerror(errno));
		rdma_reject(id, nullptr, 0);
		cn.teardown();
		return true;
	}
	p.private_data = accept_hdr;
	p.private_data_len = sizeof(accept_hdr);
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.rnr_retry_count = 7;
	if (rdma_accept(id, &p))
		fatal("rdma_accept");

	uint32_t len = 0;
	bool sent = false, closed = false;
	// ESTABLISHED, then the initiator's Login request
	for (int i = 0; i < 600 && !sent; i++) {
		ev = next_event(ch, 0);
		if (ev) {
			bool gone = ev->event == RDMA_CM_EVENT_DISCONNECTED;

			rdma_ack_cm_event(ev);
			if (gone)
				break;
		}
		if (cn.wait_wc(true, 100, &len)) {
			if (len < kHdrs) {
				std::printf("case %d %s: request of %u bytes\n", c,
					    kNames[c], len);
				break;
			}
			sent = send_case(cn, c);
			std::printf("case %d %s: %s\n", c, kNames[c],
				    sent ? "sent" : "send failed");
		}
	}
	// the initiator fails the connection: a disconnect must come
	for (int i = 0; i < 60 && sent && !closed; i++) {
		ev = next_event(ch, 1000);
		if (!ev)
			continue;
		closed = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
	}
	if (sent)
		std::printf("case %d %s: %s\n", c, kNames[c],
			    closed ? "closed" : "no close");
	std::fflush(stdout);
	rdma_disconnect(id);
	cn.teardown();
	return true;
}

} // namespace

int main(int argc, char **argv)
{
	addrinfo hints = {}, *res;
	rdma_event_channel *ch;
	rdma_cm_id *listen_id;

	if (argc != 3) {
		std::fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(argv[1], argv[2], &hints, &res) || !res) {
		std::fprintf(stderr, "bad address %s port %s\n", argv[1], argv[2]);
		return 2;
	}
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, nullptr, RDMA_PS_TCP))
		fatal("rdma_create_id");
	if (rdma_bind_addr(listen_id, res->ai_addr) || rdma_listen(listen_id, 4))
		fatal("listen");
	freeaddrinfo(res);
	std::printf("LISTENING\n");
	for (int c = 0; c < NCASES; c++)
		if (!serve_one(ch, static_cast<Case>(c))) {
			std::printf("case %d %s: no connection\n", c, kNames[c]);
			return 1;
		}
	std::printf("all cases done\n");
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}
