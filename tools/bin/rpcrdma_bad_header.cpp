// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rpcrdma_bad_header: an RPC-over-RDMA version 1 client (RFC 8166) of its
// own, with no kernel client under it, that sends an NFS server's RDMA
// listener well-formed and malformed transport headers, for
// selftests/vm/nfs_rdma_bad_header.sh (issue 14).
//
//   rpcrdma_bad_header [--wait SECONDS] ADDR [PORT]
//
// Each case runs on a connection of its own: one message, then what the
// server must do with it (answer, answer RDMA_ERROR/ERR_VERS or ERR_CHUNK,
// drop it, or close the connection), then an NFS NULL call that must still
// be answered (on a new connection where the old one was closed). The
// expected answers are the stock 6.1 server's (../shared/reference/ULP.md
// §7.6). Two cases hand the server a segment longer than the memory region
// behind it: the bytes around the region must stay as they were. Prints
// ok:/FAIL: lines, then "messages sent: N"; exit status = failures.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace {

// RFC 8166's numbers
constexpr uint32_t kVers = 1;
enum : uint32_t { RDMA_MSG = 0, RDMA_NOMSG = 1, RDMA_MSGP = 2, RDMA_DONE = 3, RDMA_ERROR = 4 };
enum : uint32_t { ERR_VERS = 1, ERR_CHUNK = 2 };
// RFC 5531's and NFS's
constexpr uint32_t kNfsProg = 100003, kNfsVers = 3;

constexpr size_t kRecvSize = 4096;
constexpr int kRecvDepth = 8;
// a send buffer per send in flight: a device may read the bytes after
// ibv_post_send returns (siw's transmit thread does)
constexpr size_t kSendSlot = 512;
constexpr int kSendDepth = 8;
constexpr size_t kTargetSize = 65536;
// the small region the "beyond the buffer" cases register, inside target
constexpr size_t kSmallOff = 4096, kSmallLen = 16;
constexpr uint8_t kCanary = 0xa5;

int wait_ms = 5000;
int fails;
unsigned int sent_msgs;
uint32_t next_xid = 0x5a000001;

void ok(const std::string &what)
{
	std::printf("ok:   %s\n", what.c_str());
}

void bad(const std::string &what)
{
	std::printf("FAIL: %s\n", what.c_str());
	fails++;
}

// A message under construction or received: XDR words.
struct Words {
	std::vector<uint32_t> w;
	Words &add(uint32_t v)
	{
		w.push_back(htonl(v));
		return *this;
	}
	Words &add64(uint64_t v)
	{
		return add(static_cast<uint32_t>(v >> 32)).add(static_cast<uint32_t>(v));
	}
	uint32_t at(size_t i) const { return i < w.size() ? ntohl(w[i]) : 0xffffffffu; }
};

// the RDMA header's fixed part
Words header(uint32_t xid, uint32_t vers, uint32_t proc)
{
	Words m;
	m.add(xid).add(vers).add(32).add(proc);
	return m;
}

// an NFSv3 NULL call (AUTH_NONE) with this XID
void null_call(Words &m, uint32_t xid)
{
	m.add(xid).add(0).add(2).add(kNfsProg).add(kNfsVers).add(0);
	m.add(0).add(0).add(0).add(0);
}

// a NULL call behind a header with empty chunk lists: all of it inline
Words inline_null(uint32_t xid, uint32_t vers, uint32_t proc)
{
	Words m = header(xid, vers, proc);
	m.add(0).add(0).add(0);
	null_call(m, xid);
	return m;
}

// words @off.. of @m say "accepted, success" for @xid
bool is_null_reply(const Words &m, size_t off, uint32_t xid)
{
	return m.at(off) == xid && m.at(off + 1) == 1 && m.at(off + 2) == 0 &&
	       m.at(off + 5) == 0;
}

enum class Got { Reply, Closed, Timeout, Error };

struct Conn {
	rdma_event_channel *ech = nullptr;
	rdma_cm_id *id = nullptr;
	ibv_pd *pd = nullptr;
	ibv_comp_channel *cch = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *recv_mr = nullptr, *send_mr = nullptr, *target_mr = nullptr, *small_mr = nullptr;
	std::vector<uint8_t> recv_buf = std::vector<uint8_t>(kRecvSize * kRecvDepth);
	std::vector<uint8_t> send_buf = std::vector<uint8_t>(kSendSlot * kSendDepth);
	unsigned int next_slot = 0;
	std::vector<uint8_t> target = std::vector<uint8_t>(kTargetSize);
	std::deque<Words> replies;
	bool closed = false;
	std::string why;

	~Conn() { teardown(); }

	bool cm_event(rdma_cm_event_type want)
	{
		pollfd p = { ech->fd, POLLIN, 0 };
		if (poll(&p, 1, wait_ms) <= 0) {
			why = "no rdma_cm event " + std::string(rdma_event_str(want));
			return false;
		}
		rdma_cm_event *ev;
		if (rdma_get_cm_event(ech, &ev)) {
			why = "rdma_get_cm_event";
			return false;
		}
		rdma_cm_event_type got = ev->event;
		int status = ev->status;
		rdma_ack_cm_event(ev);
		if (got != want) {
			why = std::string(rdma_event_str(got)) + " (status " + std::to_string(status) +
			      ") instead of " + rdma_event_str(want);
			return false;
		}
		return true;
	}

	bool post_recv(int slot)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(&recv_buf[slot * kRecvSize]),
				static_cast<uint32_t>(kRecvSize), recv_mr->lkey };
		ibv_recv_wr wr = {}, *badwr;
		wr.wr_id = slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return ibv_post_recv(id->qp, &wr, &badwr) == 0;
	}

	bool connect(const sockaddr *dst)
	{
		ech = rdma_create_event_channel();
		if (!ech || rdma_create_id(ech, &id, nullptr, RDMA_PS_TCP)) {
			why = "rdma_create_id";
			return false;
		}
		if (rdma_resolve_addr(id, nullptr, const_cast<sockaddr *>(dst), wait_ms) ||
		    !cm_event(RDMA_CM_EVENT_ADDR_RESOLVED))
			return false;
		if (rdma_resolve_route(id, wait_ms) || !cm_event(RDMA_CM_EVENT_ROUTE_RESOLVED))
			return false;
		pd = ibv_alloc_pd(id->verbs);
		cch = pd ? ibv_create_comp_channel(id->verbs) : nullptr;
		cq = cch ? ibv_create_cq(id->verbs, 64, nullptr, cch, 0) : nullptr;
		if (!cq) {
			why = "pd/cq";
			return false;
		}
		ibv_qp_init_attr qa = {};
		qa.send_cq = qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.sq_sig_all = 1;
		qa.cap.max_send_wr = kSendDepth;
		qa.cap.max_recv_wr = kRecvDepth;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, pd, &qa)) {
			why = "rdma_create_qp";
			return false;
		}
		const int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE;
		recv_mr = ibv_reg_mr(pd, recv_buf.data(), recv_buf.size(), IBV_ACCESS_LOCAL_WRITE);
		send_mr = ibv_reg_mr(pd, send_buf.data(), send_buf.size(), 0);
		target_mr = ibv_reg_mr(pd, target.data(), kSmallOff, remote);
		small_mr = ibv_reg_mr(pd, &target[kSmallOff], kSmallLen, remote);
		if (!recv_mr || !send_mr || !target_mr || !small_mr) {
			why = "ibv_reg_mr";
			return false;
		}
		std::memset(target.data(), kCanary, target.size());
		for (int i = 0; i < kRecvDepth; i++)
			if (!post_recv(i)) {
				why = "ibv_post_recv";
				return false;
			}
		// no private data: the server assumes 1024-byte inline messages
		rdma_conn_param cp = {};
		cp.responder_resources = 4;
		cp.retry_count = 6;
		cp.rnr_retry_count = 7;
		if (rdma_connect(id, &cp)) {
			why = "rdma_connect";
			return false;
		}
		return cm_event(RDMA_CM_EVENT_ESTABLISHED) && ibv_req_notify_cq(cq, 0) == 0;
	}

	void teardown()
	{
		if (id && id->qp && !closed)
			rdma_disconnect(id);
		if (id && id->qp)
			rdma_destroy_qp(id);
		for (ibv_mr *mr : { recv_mr, send_mr, target_mr, small_mr })
			if (mr)
				ibv_dereg_mr(mr);
		recv_mr = send_mr = target_mr = small_mr = nullptr;
		if (cq)
			ibv_destroy_cq(cq);
		if (cch)
			ibv_destroy_comp_channel(cch);
		if (pd)
			ibv_dealloc_pd(pd);
		cq = nullptr;
		cch = nullptr;
		pd = nullptr;
		if (id)
			rdma_destroy_id(id);
		if (ech)
			rdma_destroy_event_channel(ech);
		id = nullptr;
		ech = nullptr;
	}

	// takes what the CQ has: replies queued, a failed completion closes
	void drain()
	{
		ibv_wc wc[8];
		int n;
		while ((n = ibv_poll_cq(cq, 8, wc)) > 0)
			for (int i = 0; i < n; i++) {
				if (wc[i].status != IBV_WC_SUCCESS) {
					closed = true;
					continue;
				}
				if (!(wc[i].opcode & IBV_WC_RECV))
					continue;
				const uint8_t *b = &recv_buf[wc[i].wr_id * kRecvSize];
				Words m;
				m.w.resize(wc[i].byte_len / 4);
				std::memcpy(m.w.data(), b, m.w.size() * 4);
				replies.push_back(m);
				if (!post_recv(static_cast<int>(wc[i].wr_id)))
					closed = true;
			}
	}

	// at most two sends are ever in flight here: kSendDepth slots in turn
	bool send(const Words &m)
	{
		size_t len = m.w.size() * 4;
		uint8_t *slot = &send_buf[(next_slot++ % kSendDepth) * kSendSlot];

		if (len > kSendSlot)
			return false;
		std::memcpy(slot, m.w.data(), len);
		ibv_sge sge = { reinterpret_cast<uintptr_t>(slot),
				static_cast<uint32_t>(len), send_mr->lkey };
		ibv_send_wr wr = {}, *badwr;
		wr.opcode = IBV_WR_SEND;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_send(id->qp, &wr, &badwr))
			return false;
		sent_msgs++;
		return true;
	}

	// the next reply, or why none came within the wait
	Got next(Words *out, int ms)
	{
		for (;;) {
			drain();
			if (!replies.empty()) {
				*out = replies.front();
				replies.pop_front();
				return Got::Reply;
			}
			if (closed)
				return Got::Closed;
			pollfd p[2] = { { cch->fd, POLLIN, 0 }, { ech->fd, POLLIN, 0 } };
			int r = poll(p, 2, ms);
			if (r == 0)
				return Got::Timeout;
			if (r < 0)
				return Got::Error;
			if (p[1].revents) {
				rdma_cm_event *ev;
				if (rdma_get_cm_event(ech, &ev) == 0) {
					if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
						closed = true;
					rdma_ack_cm_event(ev);
				}
			}
			if (p[0].revents) {
				ibv_cq *c;
				void *ctx;
				if (ibv_get_cq_event(cch, &c, &ctx) == 0) {
					ibv_ack_cq_events(c, 1);
					ibv_req_notify_cq(c, 0);
				}
			}
		}
	}
};

sockaddr_storage server;

const char *got_str(Got g)
{
	switch (g) {
	case Got::Reply: return "a reply";
	case Got::Closed: return "the connection closed";
	case Got::Timeout: return "nothing";
	default: return "poll error";
	}
}

std::string hex_words(const Words &m)
{
	std::string s;
	char b[12];
	for (size_t i = 0; i < m.w.size() && i < 12; i++) {
		std::snprintf(b, sizeof(b), " %08x", m.at(i));
		s += b;
	}
	return s;
}

// A NULL call on @c answered inline; if not, *got says what came instead.
bool null_answered(Conn &c, std::string *got)
{
	uint32_t xid = next_xid++;
	Words r;
	Got g = c.send(inline_null(xid, kVers, RDMA_MSG)) ? c.next(&r, wait_ms) : Got::Error;

	if (g == Got::Reply && r.at(0) == xid && r.at(3) == RDMA_MSG && is_null_reply(r, 7, xid))
		return true;
	*got = got_str(g) + hex_words(r);
	return false;
}

// the connection still serves after the case's message
void still_answers(Conn &c, const std::string &name)
{
	std::string got;

	if (null_answered(c, &got))
		ok(name + ": a NULL call after it is answered");
	else
		bad(name + ": NULL call after it: got " + got);
}

// The bytes around the small region the server was told was larger.
void canaries_intact(Conn &c, const std::string &name)
{
	for (size_t i = kSmallOff; i < c.target.size(); i++)
		if (c.target[i] != kCanary) {
			bad(name + ": byte " + std::to_string(i - kSmallOff) +
			    " of the small region or beyond changed");
			return;
		}
	ok(name + ": nothing written in or beyond the region");
}

enum class Want { NullReply, ReplyChunk, ErrVers, ErrChunk, Dropped, Closed };

struct Case {
	const char *name;
	Want want;
	// builds the message; xid given
	void (*build)(Conn &c, Words &m, uint32_t xid);
};

uint64_t addr_of(const void *p)
{
	return reinterpret_cast<uintptr_t>(p);
}

void run_case(const Case &k)
{
	Conn c;
	const std::string name = k.name;
	if (!c.connect(reinterpret_cast<sockaddr *>(&server))) {
		bad(name + ": connect: " + c.why);
		return;
	}
	// A NULL call first: the connection is served before the case's
	// message, which is then never the first one on it.
	std::string got;
	if (k.want != Want::NullReply && !null_answered(c, &got)) {
		bad(name + ": the NULL call before it: got " + got);
		return;
	}
	uint32_t xid = next_xid++;
	Words m;
	k.build(c, m, xid);
	if (!c.send(m)) {
		bad(name + ": ibv_post_send");
		return;
	}
	Words r;
	Got g;
	switch (k.want) {
	case Want::NullReply:
		g = c.next(&r, wait_ms);
		if (g == Got::Reply && r.at(0) == xid && r.at(1) == kVers && r.at(3) == RDMA_MSG &&
		    is_null_reply(r, 7, xid))
			ok(name + ": answered inline");
		else
			bad(name + ": got " + got_str(g) + hex_words(r));
		break;
	case Want::ReplyChunk: {
		g = c.next(&r, wait_ms);
		Words in;
		in.w.resize(6);
		std::memcpy(in.w.data(), c.target.data(), 24);
		// NOMSG, empty read and write lists, the reply chunk: 1 segment
		// of 24 bytes, the NULL reply itself in the region
		if (g == Got::Reply && r.at(0) == xid && r.at(3) == RDMA_NOMSG && r.at(4) == 0 &&
		    r.at(5) == 0 && r.at(6) == 1 && r.at(7) == 1 && r.at(9) == 24 &&
		    is_null_reply(in, 0, xid))
			ok(name + ": the reply written into the Reply chunk");
		else
			bad(name + ": got " + got_str(g) + hex_words(r) + "; region" + hex_words(in));
		break;
	}
	case Want::ErrVers:
	case Want::ErrChunk: {
		g = c.next(&r, wait_ms);
		bool vers = k.want == Want::ErrVers;
		bool good = g == Got::Reply && r.at(0) == m.at(0) && r.at(1) == m.at(1) &&
			    r.at(3) == RDMA_ERROR && r.at(4) == (vers ? ERR_VERS : ERR_CHUNK);
		if (vers)
			good = good && r.w.size() == 7 && r.at(5) == 1 && r.at(6) == 1;
		else
			good = good && r.w.size() == 5;
		if (good)
			ok(name + (vers ? ": RDMA_ERROR ERR_VERS 1-1" : ": RDMA_ERROR ERR_CHUNK"));
		else
			bad(name + ": got " + got_str(g) + hex_words(r));
		break;
	}
	case Want::Dropped:
		// the NULL call after it must get the first reply
		break;
	case Want::Closed:
		g = c.next(&r, wait_ms);
		// an ERR_CHUNK may come first
		if (g == Got::Reply && r.at(3) == RDMA_ERROR)
			g = c.next(&r, wait_ms);
		if (g == Got::Closed)
			ok(name + ": the server closed the connection");
		else
			bad(name + ": got " + got_str(g) + hex_words(r) +
			    " instead of the connection closed");
		canaries_intact(c, name);
		break;
	}
	if (k.want != Want::Closed) {
		still_answers(c, name);
		return;
	}
	Conn again;
	if (!again.connect(reinterpret_cast<sockaddr *>(&server)))
		bad(name + ": a new connection after it: " + again.why);
	else
		still_answers(again, name + ", new connection");
}

// the cases: well-formed first, then each malformation on its own
const Case kCases[] = {
	{ "NULL call inline", Want::NullReply,
	  [](Conn &, Words &m, uint32_t xid) { m = inline_null(xid, kVers, RDMA_MSG); } },
	{ "NULL call in a position-zero Read chunk", Want::NullReply,
	  [](Conn &c, Words &m, uint32_t xid) {
		  Words call;
		  null_call(call, xid);
		  std::memcpy(c.target.data(), call.w.data(), call.w.size() * 4);
		  m = header(xid, kVers, RDMA_NOMSG);
		  m.add(1).add(0).add(c.target_mr->rkey).add(call.w.size() * 4);
		  m.add64(addr_of(c.target.data())).add(0).add(0).add(0);
	  } },
	{ "NULL call with a Reply chunk", Want::ReplyChunk,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  m.add(0).add(0).add(1).add(1).add(c.target_mr->rkey).add(1024);
		  m.add64(addr_of(c.target.data()));
		  null_call(m, xid);
	  } },
	{ "version 0", Want::ErrVers,
	  [](Conn &, Words &m, uint32_t xid) { m = inline_null(xid, 0, RDMA_MSG); } },
	{ "version 2", Want::ErrVers,
	  [](Conn &, Words &m, uint32_t xid) { m = inline_null(xid, 2, RDMA_MSG); } },
	{ "RDMA_MSGP", Want::ErrChunk,
	  [](Conn &, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSGP);
		  m.add(0).add(0).add(0).add(0).add(0);
		  null_call(m, xid);
	  } },
	{ "procedure 9", Want::ErrChunk,
	  [](Conn &, Words &m, uint32_t xid) { m = inline_null(xid, kVers, 9); } },
	{ "RDMA_DONE", Want::Dropped,
	  [](Conn &, Words &m, uint32_t xid) { m = header(xid, kVers, RDMA_DONE); } },
	{ "RDMA_ERROR from the client", Want::Dropped,
	  [](Conn &, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_ERROR);
		  m.add(ERR_CHUNK);
	  } },
	{ "12-byte header", Want::ErrChunk,
	  [](Conn &, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  m.w.pop_back();
	  } },
	{ "Read list cut inside its segment", Want::ErrChunk,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  m.add(1).add(0).add(c.target_mr->rkey);
	  } },
	{ "Write list of 2^31-1 segments", Want::ErrChunk,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  m.add(0).add(1).add(0x7fffffff).add(c.target_mr->rkey).add(64);
		  m.add64(addr_of(c.target.data()));
	  } },
	{ "Reply chunk of 100 segments, one present", Want::ErrChunk,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  m.add(0).add(0).add(1).add(100).add(c.target_mr->rkey).add(64);
		  m.add64(addr_of(c.target.data()));
	  } },
	{ "Read chunk longer than its region", Want::Closed,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_NOMSG);
		  m.add(1).add(0).add(c.small_mr->rkey).add(2048);
		  m.add64(addr_of(&c.target[kSmallOff])).add(0).add(0).add(0);
	  } },
	{ "Reply chunk longer than its region", Want::Closed,
	  [](Conn &c, Words &m, uint32_t xid) {
		  m = header(xid, kVers, RDMA_MSG);
		  // 16 bytes registered, 1024 claimed: the 24-byte reply overruns
		  m.add(0).add(0).add(1).add(1).add(c.small_mr->rkey).add(1024);
		  m.add64(addr_of(&c.target[kSmallOff]));
		  null_call(m, xid);
	  } },
};

} // namespace

int main(int argc, char **argv)
{
	int i = 1;
	if (argc > 2 && std::strcmp(argv[1], "--wait") == 0) {
		wait_ms = std::atoi(argv[2]) * 1000;
		i = 3;
	}
	if (i >= argc || wait_ms <= 0) {
		std::fprintf(stderr, "usage: %s [--wait SECONDS] ADDR [PORT]\n", argv[0]);
		return 2;
	}
	const char *port = i + 1 < argc ? argv[i + 1] : "20049";
	addrinfo hints = {}, *ai;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(argv[i], port, &hints, &ai)) {
		std::fprintf(stderr, "%s: cannot resolve %s\n", argv[0], argv[i]);
		return 2;
	}
	std::memcpy(&server, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);

	for (const Case &k : kCases) {
		run_case(k);
		std::fflush(stdout);
	}
	std::printf("messages sent: %u\n", sent_msgs);
	return fails > 125 ? 125 : fails;
}
