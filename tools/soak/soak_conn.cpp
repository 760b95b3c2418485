// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_cm set-up and teardown, buffers and the stall-aware CQ wait of rc_soak.
#include "soak_conn.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netdb.h>
#include <poll.h>
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace soak {

void (*fail_hook)();

void fail(const char *fmt, ...)
{
	va_list ap;

	std::fputs("rc_soak: FAIL: ", stdout);
	va_start(ap, fmt);
	std::vprintf(fmt, ap);
	va_end(ap);
	std::putchar('\n');
	if (fail_hook)
		fail_hook();
	std::fflush(stdout);
	std::exit(1);
}

namespace {

uint8_t *alloc_pages(size_t len)
{
	void *p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		fail("mmap %zu: %s", len, std::strerror(errno));
	std::memset(p, 0, len);
	return static_cast<uint8_t *>(p);
}

const char *qp_state_name(int s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && s < 7 ? names[s] : "?";
}

} // namespace

rdma_cm_event *Conn::expect_event(rdma_cm_event_type want)
{
	rdma_cm_event *ev;
	pollfd pfd = { ech->fd, POLLIN, 0 };

	// rdma_cm's own timeouts bound these waits; this one only catches a
	// CM that never answers.
	if (::poll(&pfd, 1, stall_s * 1000) <= 0)
		fail("no rdma_cm event (waiting for %s) in %d s", rdma_event_str(want), stall_s);
	if (rdma_get_cm_event(ech, &ev))
		fail("rdma_get_cm_event: %s", std::strerror(errno));
	if (ev->event != want) {
		// "could not connect to" lets the two-VM step helper retry while
		// the server is not listening yet.
		std::printf("rc_soak: %s, error %d (wanted %s)%s\n", rdma_event_str(ev->event),
			    ev->status, rdma_event_str(want),
			    ev->event == RDMA_CM_EVENT_REJECTED ||
					    ev->event == RDMA_CM_EVENT_UNREACHABLE ?
				    ": could not connect to the server" : "");
		std::fflush(stdout);
		std::exit(1);
	}
	return ev;
}

void Conn::setup(rdma_cm_id *cid)
{
	ibv_device_attr attr;

	id = cid;
	if (dev != ibv_get_device_name(id->verbs->device))
		fail("connection is on %s, not %s", ibv_get_device_name(id->verbs->device),
		     dev.c_str());
	if (ibv_query_device(id->verbs, &attr))
		fail("ibv_query_device: %s", std::strerror(errno));
	iwarp = id->verbs->device->transport_type == IBV_TRANSPORT_IWARP;
	atomics = attr.atomic_cap != IBV_ATOMIC_NONE;

	pd = ibv_alloc_pd(id->verbs);
	cch = ibv_create_comp_channel(id->verbs);
	if (!pd || !cch)
		fail("pd/comp channel: %s", std::strerror(errno));
	cq = ibv_create_cq(id->verbs, 4 * kRecvDepth + 4 * kBatch, nullptr, cch, 0);
	if (!cq)
		fail("ibv_create_cq: %s", std::strerror(errno));

	window = alloc_pages(kWindow);
	rring = alloc_pages(kRecvDepth * kMsgBuf);
	sring = alloc_pages(kBatch * kMsgBuf);
	const int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | (atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	window_mr = ibv_reg_mr(pd, window, kWindow, remote);
	rring_mr = ibv_reg_mr(pd, rring, kRecvDepth * kMsgBuf, IBV_ACCESS_LOCAL_WRITE);
	sring_mr = ibv_reg_mr(pd, sring, kBatch * kMsgBuf, IBV_ACCESS_LOCAL_WRITE);
	if (!window_mr || !rring_mr || !sring_mr)
		fail("ibv_reg_mr: %s", std::strerror(errno));

	ibv_qp_init_attr qa{};
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 2 * kBatch + 4;
	qa.cap.max_recv_wr = kRecvDepth;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.sq_sig_all = 1;
	if (rdma_create_qp(id, pd, &qa))
		fail("rdma_create_qp: %s", std::strerror(errno));
	qp = id->qp;
	for (int i = 0; i < kRecvDepth; i++)
		post_recv(i);
	if (ibv_req_notify_cq(cq, 0))
		fail("ibv_req_notify_cq: %s", std::strerror(errno));
	if (ack_timeout > 0) {
		uint8_t t = uint8_t(ack_timeout);

		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)))
			fail("RDMA_OPTION_ID_ACK_TIMEOUT: %s", std::strerror(errno));
	}
}

void Conn::fill_param(rdma_conn_param &p, WindowInfo &mine)
{
	ibv_device_attr attr;

	if (ibv_query_device(id->verbs, &attr))
		fail("ibv_query_device: %s", std::strerror(errno));
	mine.addr = htobe64(uint64_t(uintptr_t(window)));
	mine.rkey = htobe32(window_mr->rkey);
	mine.len = htobe32(uint32_t(kWindow));
	p = rdma_conn_param{};
	p.private_data = &mine;
	p.private_data_len = sizeof(mine);
	p.responder_resources = uint8_t(std::min(attr.max_qp_rd_atom, 16));
	p.initiator_depth = uint8_t(std::min(attr.max_qp_init_rd_atom, 16));
	// 7 retries for ever on rxe (ours and stock alike).
	p.retry_count = uint8_t(retry_count);
	p.rnr_retry_count = 7;
}

static void take_peer(WindowInfo &peer, const void *data, size_t len)
{
	WindowInfo w;

	if (!data || len < sizeof(w))
		fail("no window in the private data (%zu bytes)", len);
	std::memcpy(&w, data, sizeof(w));
	peer.addr = be64toh(w.addr);
	peer.rkey = be32toh(w.rkey);
	peer.len = be32toh(w.len);
	if (peer.len < kWindow)
		fail("peer window %u bytes, want %zu", peer.len, kWindow);
}

void Conn::serve(uint16_t port)
{
	sockaddr_in sin{};
	rdma_conn_param p;
	WindowInfo mine;

	ech = rdma_create_event_channel();
	if (!ech || rdma_create_id(ech, &listen_id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id: %s", std::strerror(errno));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	if (rdma_bind_addr(listen_id, reinterpret_cast<sockaddr *>(&sin)) ||
	    rdma_listen(listen_id, 1))
		fail("bind/listen port %u: %s", port, std::strerror(errno));
	std::printf("rc_soak: listening on port %u\n", port);
	std::fflush(stdout);

	// The client may take a while to come: no stall timeout here.
	rdma_cm_event *ev;
	if (rdma_get_cm_event(ech, &ev))
		fail("rdma_get_cm_event: %s", std::strerror(errno));
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		fail("%s while listening", rdma_event_str(ev->event));
	take_peer(peer, ev->param.conn.private_data, ev->param.conn.private_data_len);
	rdma_cm_id *cid = ev->id;
	rdma_ack_cm_event(ev);
	setup(cid);
	fill_param(p, mine);
	if (rdma_accept(id, &p))
		fail("rdma_accept: %s", std::strerror(errno));
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ESTABLISHED));
}

void Conn::connect(const char *host, uint16_t port)
{
	addrinfo hints{}, *ai;
	rdma_conn_param p;
	WindowInfo mine;
	char ps[8];

	hints.ai_family = AF_INET;
	std::snprintf(ps, sizeof(ps), "%u", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		fail("cannot resolve %s", host);
	ech = rdma_create_event_channel();
	if (!ech || rdma_create_id(ech, &id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id: %s", std::strerror(errno));
	if (rdma_resolve_addr(id, nullptr, ai->ai_addr, 5000))
		fail("rdma_resolve_addr: %s", std::strerror(errno));
	freeaddrinfo(ai);
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000))
		fail("rdma_resolve_route: %s", std::strerror(errno));
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED));
	setup(id);
	fill_param(p, mine);
	if (rdma_connect(id, &p))
		fail("rdma_connect: %s", std::strerror(errno));
	rdma_cm_event *ev = expect_event(RDMA_CM_EVENT_ESTABLISHED);
	take_peer(peer, ev->param.conn.private_data, ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
}

void Conn::post_recv(int slot)
{
	ibv_sge sge = { uint64_t(uintptr_t(rring + size_t(slot) * kMsgBuf)), uint32_t(kMsgBuf),
			rring_mr->lkey };
	ibv_recv_wr wr{}, *badwr;

	wr.wr_id = kRecvTag | uint64_t(slot);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_recv(qp, &wr, &badwr))
		fail("ibv_post_recv: %s", std::strerror(errno));
}

void Conn::repost(const ibv_wc &wc)
{
	post_recv(int(wc.wr_id & ~kRecvTag));
}

const Hdr &Conn::recv_hdr(const ibv_wc &wc) const
{
	const auto *h = reinterpret_cast<const Hdr *>(rring + (wc.wr_id & ~kRecvTag) * kMsgBuf);

	if (wc.opcode == IBV_WC_RECV && (wc.byte_len < sizeof(Hdr) || h->magic != kMagic))
		fail("malformed message: %u bytes, magic %#x", wc.byte_len, h->magic);
	return *h;
}

const uint8_t *Conn::recv_payload(const ibv_wc &wc) const
{
	return rring + (wc.wr_id & ~kRecvTag) * kMsgBuf + sizeof(Hdr);
}

void Conn::post(ibv_send_wr &wr)
{
	ibv_send_wr *badwr;

	if (ibv_post_send(qp, &wr, &badwr))
		fail("ibv_post_send (opcode %d): %s", wr.opcode, std::strerror(errno));
}

void Conn::send_msg(int slot, uint64_t wr_id, size_t len)
{
	ibv_sge sge = { uint64_t(uintptr_t(send_buf(slot))), uint32_t(sizeof(Hdr) + len),
			sring_mr->lkey };
	ibv_send_wr wr{};

	reinterpret_cast<Hdr *>(send_buf(slot))->magic = kMagic;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	post(wr);
}

void Conn::poll(ibv_wc &wc)
{
	using Clock = std::chrono::steady_clock;
	const auto start = Clock::now();

	for (;;) {
		int n = ibv_poll_cq(cq, 1, &wc);

		if (n < 0)
			fail("ibv_poll_cq: %d", n);
		if (n == 1)
			break;
		const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
			Clock::now() - start).count();
		if (waited >= stall_s * 1000L) {
			ibv_qp_attr a;
			ibv_qp_init_attr ia;
			int st = ibv_query_qp(qp, &a, IBV_QP_STATE, &ia) ? -1 : a.qp_state;

			fail("stuck QP: no completion for %d s (QP %u state %s)", stall_s,
			     qp->qp_num, qp_state_name(st));
		}
		pollfd pfd = { cch->fd, POLLIN, 0 };

		if (::poll(&pfd, 1, int(stall_s * 1000L - waited)) > 0) {
			ibv_cq *ecq;
			void *ctx;

			if (ibv_get_cq_event(cch, &ecq, &ctx))
				fail("ibv_get_cq_event: %s", std::strerror(errno));
			ibv_ack_cq_events(ecq, 1);
			if (ibv_req_notify_cq(cq, 0))
				fail("ibv_req_notify_cq: %s", std::strerror(errno));
		}
	}
	if (wc.status != IBV_WC_SUCCESS)
		fail("WC error: %s (status %d, opcode %d, wr_id %#llx, vendor_err %#x)",
		     ibv_wc_status_str(wc.status), wc.status, wc.opcode,
		     static_cast<unsigned long long>(wc.wr_id), wc.vendor_err);
}

void Conn::disconnect_and_wait()
{
	if (rdma_disconnect(id))
		fail("rdma_disconnect: %s", std::strerror(errno));
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_DISCONNECTED));
}

// The server lets the client disconnect: its last ACK must arrive first.
void Conn::wait_disconnected()
{
	rdma_ack_cm_event(expect_event(RDMA_CM_EVENT_DISCONNECTED));
	rdma_disconnect(id);
}

void Conn::destroy()
{
	if (qp)
		rdma_destroy_qp(id);
	if (window_mr)
		ibv_dereg_mr(window_mr);
	if (rring_mr)
		ibv_dereg_mr(rring_mr);
	if (sring_mr)
		ibv_dereg_mr(sring_mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (cch)
		ibv_destroy_comp_channel(cch);
	if (pd)
		ibv_dealloc_pd(pd);
	if (id)
		rdma_destroy_id(id);
	if (listen_id)
		rdma_destroy_id(listen_id);
	if (ech)
		rdma_destroy_event_channel(ech);
}

} // namespace soak
