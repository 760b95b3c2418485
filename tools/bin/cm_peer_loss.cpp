// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// cm_peer_loss: one RC connection over rdma_cm that streams RDMA WRITEs
// until the peer goes away, for selftests/vm/twovm-siw-fault.sh.
//
//   cm_peer_loss server IP PORT
//       accepts one connection (address and rkey of its buffer go in the
//       accept's private data), prints "ESTABLISHED", then prints each CM
//       event until DISCONNECTED.
//   cm_peer_loss client IP PORT TIMEOUT_S
//       connects and keeps up to 16 64 KiB RDMA WRITEs in flight until a
//       completion fails, then waits (up to TIMEOUT_S in all) until it has
//       seen both the failed completion and a CM event, and tears everything
//       down. One line per finding:
//         ESTABLISHED
//         wc_error <status> after <n> writes, <s> s after the last good one
//         qp_state <state>
//         cm_event <event> status <n>, <s> s after the last good write
//         destroyed
//       Exit 0 only if all of them were seen.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <arpa/inet.h>
#include <endian.h>
#include <netdb.h>
#include <poll.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr size_t kMsgLen = 64 * 1024;
constexpr int kInFlight = 16;

using Clock = std::chrono::steady_clock;

struct RemoteBuf {
	uint64_t addr;		// big endian
	uint32_t rkey;		// big endian
	uint32_t len;		// big endian
};

[[noreturn]] void die(const char *what)
{
	std::printf("FATAL %s: %s\n", what, std::strerror(errno));
	std::fflush(stdout);
	std::exit(2);
}

void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	std::vprintf(fmt, ap);
	va_end(ap);
	std::putchar('\n');
	std::fflush(stdout);
}

double seconds_since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

const char *qp_state_name(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

// The next CM event of @ch, waiting at most @ms (nullptr on timeout).
rdma_cm_event *next_event(rdma_event_channel *ch, int ms)
{
	pollfd p = { ch->fd, POLLIN, 0 };
	rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0)
		return nullptr;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event");
	return ev;
}

// Waits for event @want on @ch; anything else is fatal.
rdma_cm_event *expect_event(rdma_event_channel *ch, rdma_cm_event_type want)
{
	rdma_cm_event *ev = next_event(ch, 60000);

	if (!ev) {
		errno = ETIMEDOUT;
		die(rdma_event_str(want));
	}
	if (ev->event != want) {
		say("FATAL expected %s, got %s status %d", rdma_event_str(want),
		    rdma_event_str(ev->event), ev->status);
		std::exit(2);
	}
	return ev;
}

sockaddr_storage parse_addr(const char *ip, const char *port)
{
	addrinfo hints = {}, *res;
	sockaddr_storage ss = {};

	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(ip, port, &hints, &res) || !res) {
		say("FATAL bad address %s port %s", ip, port);
		std::exit(2);
	}
	std::memcpy(&ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return ss;
}

// PD, CQ with a completion channel, QP and a registered buffer for @id.
struct Conn {
	rdma_cm_id *id = nullptr;
	ibv_pd *pd = nullptr;
	ibv_comp_channel *cc = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *mr = nullptr;
	std::vector<char> buf;

	void setup(rdma_cm_id *cm_id, size_t len, int access)
	{
		ibv_qp_init_attr qa = {};

		id = cm_id;
		pd = ibv_alloc_pd(id->verbs);
		if (!pd)
			die("ibv_alloc_pd");
		cc = ibv_create_comp_channel(id->verbs);
		if (!cc)
			die("ibv_create_comp_channel");
		cq = ibv_create_cq(id->verbs, 2 * kInFlight, nullptr, cc, 0);
		if (!cq)
			die("ibv_create_cq");
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = kInFlight;
		qa.cap.max_recv_wr = 1;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, pd, &qa))
			die("rdma_create_qp");
		buf.assign(len, 0x5a);
		mr = ibv_reg_mr(pd, buf.data(), len, access);
		if (!mr)
			die("ibv_reg_mr");
	}

	bool teardown()
	{
		bool ok = true;

		rdma_destroy_qp(id);
		ok &= !ibv_dereg_mr(mr);
		ok &= !ibv_destroy_cq(cq);
		ok &= !ibv_destroy_comp_channel(cc);
		ok &= !ibv_dealloc_pd(pd);
		ok &= !rdma_destroy_id(id);
		return ok;
	}
};

rdma_conn_param conn_param(const void *pdata, uint8_t len)
{
	rdma_conn_param p = {};

	p.private_data = pdata;
	p.private_data_len = len;
	p.responder_resources = 1;
	p.initiator_depth = 1;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return p;
}

int run_server(const char *ip, const char *port)
{
	sockaddr_storage ss = parse_addr(ip, port);
	rdma_event_channel *ch = rdma_create_event_channel();
	rdma_cm_id *listen_id;
	rdma_cm_event *ev;
	RemoteBuf rb;
	Conn c;

	if (!ch || rdma_create_id(ch, &listen_id, nullptr, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(listen_id, reinterpret_cast<sockaddr *>(&ss)) ||
	    rdma_listen(listen_id, 1))
		die("listen");
	say("LISTENING");

	ev = expect_event(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	c.setup(ev->id, kMsgLen, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	rdma_ack_cm_event(ev);
	rb.addr = htobe64(reinterpret_cast<uintptr_t>(c.buf.data()));
	rb.rkey = htobe32(c.mr->rkey);
	rb.len = htobe32(kMsgLen);
	rdma_conn_param p = conn_param(&rb, sizeof(rb));
	if (rdma_accept(c.id, &p))
		die("rdma_accept");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ESTABLISHED));
	say("ESTABLISHED");

	for (;;) {
		ev = next_event(ch, -1);
		rdma_cm_event_type type = ev->event;

		say("cm_event %s status %d", rdma_event_str(type), ev->status);
		rdma_ack_cm_event(ev);
		if (type == RDMA_CM_EVENT_DISCONNECTED)
			break;
	}
	bool ok = c.teardown() && !rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return ok ? 0 : 1;
}

int run_client(const char *ip, const char *port, int timeout_s)
{
	sockaddr_storage ss = parse_addr(ip, port);
	rdma_event_channel *ch = rdma_create_event_channel();
	rdma_cm_id *id;
	rdma_cm_event *ev;
	RemoteBuf rb;
	Conn c;

	if (!ch || rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr *>(&ss),
			      5000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000))
		die("rdma_resolve_route");
	rdma_ack_cm_event(expect_event(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	c.setup(id, kMsgLen, IBV_ACCESS_LOCAL_WRITE);

	rdma_conn_param p = conn_param(nullptr, 0);
	if (rdma_connect(id, &p))
		die("rdma_connect");
	ev = expect_event(ch, RDMA_CM_EVENT_ESTABLISHED);
	if (ev->param.conn.private_data_len < sizeof(rb)) {
		say("FATAL accept private data of %u bytes",
		    ev->param.conn.private_data_len);
		return 2;
	}
	std::memcpy(&rb, ev->param.conn.private_data, sizeof(rb));
	rdma_ack_cm_event(ev);
	say("ESTABLISHED");

	if (ibv_req_notify_cq(c.cq, 0))
		die("ibv_req_notify_cq");
	ibv_sge sge = { reinterpret_cast<uintptr_t>(c.buf.data()),
			static_cast<uint32_t>(kMsgLen), c.mr->lkey };
	ibv_send_wr wr = {}, *bad;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = be64toh(rb.addr);
	wr.wr.rdma.rkey = be32toh(rb.rkey);

	Clock::time_point start = Clock::now(), last_good = start;
	unsigned long writes_ok = 0;
	int in_flight = 0;
	bool wc_error = false, cm_event = false, posting = true;

	while (!(wc_error && cm_event) && seconds_since(start) < timeout_s) {
		while (posting && in_flight < kInFlight) {
			if (ibv_post_send(c.id->qp, &wr, &bad)) {
				posting = false;	// the QP left RTS
				break;
			}
			in_flight++;
		}

		pollfd pf[2] = { { c.cc->fd, POLLIN, 0 }, { ch->fd, POLLIN, 0 } };
		if (poll(pf, 2, 1000) < 0)
			die("poll");
		if (pf[0].revents & POLLIN) {
			ibv_cq *cq;
			void *ctx;

			if (ibv_get_cq_event(c.cc, &cq, &ctx))
				die("ibv_get_cq_event");
			ibv_ack_cq_events(cq, 1);
			if (ibv_req_notify_cq(c.cq, 0))
				die("ibv_req_notify_cq");
		}
		ibv_wc wc[kInFlight];
		int n = ibv_poll_cq(c.cq, kInFlight, wc);
		for (int i = 0; i < n; i++) {
			in_flight--;
			if (wc[i].status == IBV_WC_SUCCESS) {
				writes_ok++;
				last_good = Clock::now();
				continue;
			}
			posting = false;
			if (wc_error)
				continue;
			wc_error = true;
			say("wc_error %s after %lu writes, %.1f s after the last good one",
			    ibv_wc_status_str(wc[i].status), writes_ok,
			    seconds_since(last_good));
			ibv_qp_attr qa = {};
			ibv_qp_init_attr qia = {};
			if (ibv_query_qp(c.id->qp, &qa, IBV_QP_STATE, &qia))
				die("ibv_query_qp");
			say("qp_state %s", qp_state_name(qa.qp_state));
		}
		if (pf[1].revents & POLLIN) {
			ev = next_event(ch, 0);
			if (ev) {
				say("cm_event %s status %d, %.1f s after the last good write",
				    rdma_event_str(ev->event), ev->status,
				    seconds_since(last_good));
				cm_event = true;
				posting = false;
				rdma_ack_cm_event(ev);
			}
		}
	}
	if (!wc_error)
		say("no failed completion within %d s (%lu writes)", timeout_s,
		    writes_ok);
	if (!cm_event)
		say("no CM event within %d s", timeout_s);

	bool ok = c.teardown();
	rdma_destroy_event_channel(ch);
	if (ok)
		say("destroyed");
	return wc_error && cm_event && ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 4 && !std::strcmp(argv[1], "server"))
		return run_server(argv[2], argv[3]);
	if (argc == 5 && !std::strcmp(argv[1], "client"))
		return run_client(argv[2], argv[3], std::atoi(argv[4]));
	std::fprintf(stderr, "usage: %s server IP PORT | client IP PORT TIMEOUT_S\n",
		     argv[0]);
	return 2;
}
