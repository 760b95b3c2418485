// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// isert_bad_initiator: an iSER initiator of its own (rdma_cm, no open-iscsi)
// that sends an iSER target malformed PDUs, one case per connection, for
// selftests/vm/isert_bad_pdu.sh (issue 15). The target must answer as LIO
// does (a Login reject, a Reject PDU) or close that connection, and keep
// serving.
//
//   isert_bad_initiator ADDR PORT
//
// Before the login completes: a SEND shorter than the headers; a Login
// request whose data segment length exceeds what was sent; a SCSI Command
// as the first PDU (a Login reject, then the close); an iSER Hello; a Login
// request with AHS. In a discovery session of its own (logged in with
// RDMAExtensions=Yes): a SCSI Command (LIO's Reject if it leaves before
// the close, then the close, as LIO does over TCP); an iSER Hello (dropped;
// SendTargets is answered after it); a Text request declaring more data than sent; a reserved opcode; a SEND
// larger than any receive buffer (all closed). Prints "case NAME: PASS ..."
// or "case NAME: FAIL ..." per case; exit 0 when all passed.
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
#include <string>
#include <vector>

namespace {

constexpr size_t kIser = 28, kBhs = 48, kHdrs = kIser + kBhs;
constexpr size_t kBuf = 32768;	// beyond the target's 8 KiB data segments
constexpr int kRecvs = 4;
constexpr uint8_t kCtrl = 0x10, kHello = 0x20;
constexpr uint8_t kOpNopOut = 0x00, kOpScsi = 0x01, kOpText = 0x04,
	kOpLogin = 0x03, kOpLogout = 0x06, kImmediate = 0x40;
constexpr uint8_t kOpLoginRsp = 0x23, kOpTextRsp = 0x24,
	kOpLogoutRsp = 0x26, kOpReject = 0x3f;

void put32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	std::memcpy(p, &v, 4);
}

uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	std::memcpy(&v, p, 4);
	return ntohl(v);
}

void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

// One connection to the target: its id, QP, buffers and iSCSI counters.
class Link {
public:
	~Link() { close(); }

	std::string error;
	uint32_t cmdsn = 1, expstatsn = 0;
	std::vector<uint8_t> in;	// the last PDU received (headers + data)

	bool open(const addrinfo *dst)
	{
		ch_ = rdma_create_event_channel();
		if (!ch_ || rdma_create_id(ch_, &id_, nullptr, RDMA_PS_TCP))
			return fail("rdma_create_id");
		if (rdma_resolve_addr(id_, nullptr, dst->ai_addr, 5000) ||
		    !expect_event(RDMA_CM_EVENT_ADDR_RESOLVED, 10000))
			return fail("resolve address");
		if (rdma_resolve_route(id_, 5000) ||
		    !expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED, 10000))
			return fail("resolve route");
		if (!make_qp())
			return false;
		uint8_t hdr[4] = { 0xc0, 0, 0, 0 };	// no ZBVA, no invalidation
		rdma_conn_param p = {};
		p.private_data = hdr;
		p.private_data_len = sizeof(hdr);
		p.responder_resources = 1;
		p.initiator_depth = 1;
		p.retry_count = 7;
		p.rnr_retry_count = 7;
		if (rdma_connect(id_, &p) ||
		    !expect_event(RDMA_CM_EVENT_ESTABLISHED, 15000))
			return fail("connect");
		return true;
	}

	// Sends the first @len bytes of sbuf (headers set by the caller).
	bool send(size_t len)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(sbuf.data()),
				static_cast<uint32_t>(len), smr_->lkey };
		ibv_send_wr wr = {}, *bad;

		wr.wr_id = 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(id_->qp, &wr, &bad))
			return fail("post send");
		return true;
	}

	// A control PDU: iSER header, BHS from @bhs, then @data.
	bool send_pdu(const uint8_t *bhs, const void *data = nullptr,
		      size_t dlen = 0, uint8_t iser_flags = kCtrl)
	{
		std::memset(sbuf.data(), 0, kIser);
		sbuf[0] = iser_flags;
		std::memcpy(sbuf.data() + kIser, bhs, kBhs);
		if (dlen)
			std::memcpy(sbuf.data() + kHdrs, data, dlen);
		return send(kHdrs + dlen);
	}

	// The next PDU received within @ms, kept in `in`; its opcode or -1.
	int receive(int ms)
	{
		for (int waited = 0; waited < ms; waited += 10) {
			ibv_wc wc;

			while (ibv_poll_cq(cq_, 1, &wc) == 1) {
				if (wc.status != IBV_WC_SUCCESS) {
					dead_ = true;
					return -1;
				}
				if (!(wc.opcode & IBV_WC_RECV))
					continue;
				uint8_t *b = rbuf.data() + wc.wr_id * kBuf;
				in.assign(b, b + wc.byte_len);
				post_recv(wc.wr_id);
				if (wc.byte_len < kHdrs)
					return -1;
				// counters from the BHS: StatSN, ExpCmdSN
				expstatsn = get32(&in[kIser + 24]) + 1;
				return in[kIser] & 0x3f;
			}
			if (gone(0))
				return -1;
			poll(nullptr, 0, 10);
		}
		return -1;
	}

	// True once the target disconnected (or the QP failed) within @ms.
	bool closed(int ms)
	{
		for (int waited = 0; waited <= ms; waited += 100) {
			ibv_wc wc;

			while (ibv_poll_cq(cq_, 1, &wc) == 1)
				if (wc.status != IBV_WC_SUCCESS)
					dead_ = true;
			if (gone(100) || dead_)
				return true;
		}
		return false;
	}

	// A discovery session: security then operational stage, iSER keys.
	bool login_discovery()
	{
		static const char sec[] = "InitiatorName=iqn.2026-11.org.rdma-kmod:bad\0"
			"SessionType=Discovery\0AuthMethod=None";
		static const char op[] = "HeaderDigest=None\0DataDigest=None\0"
			"RDMAExtensions=Yes\0InitiatorRecvDataSegmentLength=8192\0"
			"TargetRecvDataSegmentLength=8192";
		uint8_t flags = 0x81;	// Transit, CSG security, NSG operational

		if (!login_step(flags, sec, sizeof(sec)))
			return false;
		for (int i = 0; i < 3; i++) {
			if (!login_step(0x87, i ? nullptr : op, i ? 0 : sizeof(op)))
				return false;
			if ((in[kIser + 1] & 0x83) == 0x83) {	// Transit to FFP
				cmdsn = get32(&in[kIser + 28]);
				return true;
			}
		}
		return fail("login never reached full feature phase");
	}

	void bhs_login(uint8_t *b, uint8_t flags, size_t dlen)
	{
		static const uint8_t isid[6] = { 0x80, 0, 0x12, 0x34, 0x56, 0x78 };

		std::memset(b, 0, kBhs);
		b[0] = kOpLogin | kImmediate;
		b[1] = flags;
		put24(b + 5, dlen);
		std::memcpy(b + 8, isid, 6);
		put32(b + 16, 1);	// ITT
		put32(b + 24, cmdsn);
		put32(b + 28, expstatsn);
	}

	// A BHS for full feature phase: @op, final, ITT @itt, TTT none.
	void bhs_ffp(uint8_t *b, uint8_t op, uint32_t itt, size_t dlen)
	{
		std::memset(b, 0, kBhs);
		b[0] = op | kImmediate;
		b[1] = 0x80;
		put24(b + 5, dlen);
		put32(b + 16, itt);
		put32(b + 20, 0xffffffff);
		put32(b + 24, cmdsn);
		put32(b + 28, expstatsn);
	}

	// SendTargets: answered while the discovery session lives.
	bool send_targets(uint32_t itt)
	{
		static const char keys[] = "SendTargets=All";
		uint8_t b[kBhs];

		bhs_ffp(b, kOpText, itt, sizeof(keys));
		return send_pdu(b, keys, sizeof(keys)) && receive(10000) == kOpTextRsp;
	}

	bool logout()
	{
		uint8_t b[kBhs];

		bhs_ffp(b, kOpLogout, 99, 0);
		put32(b + 20, 0);	// CID
		return send_pdu(b) && receive(10000) == kOpLogoutRsp;
	}

	std::vector<uint8_t> sbuf = std::vector<uint8_t>(kBuf);

private:
	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *id_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_mr *rmr_ = nullptr, *smr_ = nullptr;
	std::vector<uint8_t> rbuf = std::vector<uint8_t>(kBuf * kRecvs);
	bool dead_ = false, disconnected_ = false;

	bool fail(const char *what)
	{
		error = std::string(what) + ": " + std::strerror(errno);
		return false;
	}

	bool expect_event(rdma_cm_event_type want, int ms)
	{
		pollfd p = { ch_->fd, POLLIN, 0 };
		rdma_cm_event *ev;

		if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev))
			return false;
		bool ok = ev->event == want;
		if (!ok)
			errno = ECONNREFUSED;
		rdma_ack_cm_event(ev);
		return ok;
	}

	// True if a DISCONNECTED came within @ms.
	bool gone(int ms)
	{
		pollfd p = { ch_->fd, POLLIN, 0 };
		rdma_cm_event *ev;

		if (disconnected_)
			return true;
		if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev))
			return false;
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			disconnected_ = true;
		rdma_ack_cm_event(ev);
		return disconnected_;
	}

	bool make_qp()
	{
		ibv_qp_init_attr qa = {};

		pd_ = ibv_alloc_pd(id_->verbs);
		cq_ = pd_ ? ibv_create_cq(id_->verbs, 32, nullptr, nullptr, 0) : nullptr;
		if (!cq_)
			return fail("CQ");
		qa.send_cq = cq_;
		qa.recv_cq = cq_;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 8;
		qa.cap.max_recv_wr = kRecvs;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id_, pd_, &qa))
			return fail("QP");
		rmr_ = ibv_reg_mr(pd_, rbuf.data(), rbuf.size(), IBV_ACCESS_LOCAL_WRITE);
		smr_ = ibv_reg_mr(pd_, sbuf.data(), sbuf.size(), 0);
		if (!rmr_ || !smr_)
			return fail("MR");
		for (int i = 0; i < kRecvs; i++)
			if (!post_recv(i))
				return false;
		return true;
	}

	bool post_recv(uint64_t slot)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(rbuf.data() + slot * kBuf),
				static_cast<uint32_t>(kBuf), rmr_->lkey };
		ibv_recv_wr wr = {}, *bad;

		wr.wr_id = slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(id_->qp, &wr, &bad))
			return fail("post recv");
		return true;
	}

	bool login_step(uint8_t flags, const void *keys, size_t len)
	{
		uint8_t b[kBhs];

		bhs_login(b, flags, len);
		if (!send_pdu(b, keys, len))
			return false;
		if (receive(15000) != kOpLoginRsp)
			return fail("no Login Response");
		if (in[kIser + 36]) {
			errno = EACCES;
			return fail("login refused");
		}
		return true;
	}

	void close()
	{
		if (id_ && !disconnected_)
			rdma_disconnect(id_);
		if (id_ && id_->qp)
			rdma_destroy_qp(id_);
		if (rmr_)
			ibv_dereg_mr(rmr_);
		if (smr_)
			ibv_dereg_mr(smr_);
		if (cq_)
			ibv_destroy_cq(cq_);
		if (pd_)
			ibv_dealloc_pd(pd_);
		if (id_)
			rdma_destroy_id(id_);
		if (ch_)
			rdma_destroy_event_channel(ch_);
	}
};

// Each case returns "" on success, else what went wrong.
using Case = std::string (*)(Link &);

std::string expect_close(Link &l, const char *what)
{
	return l.closed(20000) ? "" : std::string("connection not closed after ") + what;
}

std::string c_short(Link &l)
{
	std::memset(l.sbuf.data(), 0, 10);
	l.sbuf[0] = kCtrl;
	return l.send(10) ? expect_close(l, "a 10-byte PDU") : l.error;
}

std::string c_login_dlength(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_login(b, 0x81, 4000);
	return l.send_pdu(b, "Initiator", 10) ?
		expect_close(l, "a Login declaring 4000 bytes, 10 sent") : l.error;
}

std::string c_not_login(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, kOpScsi, 5, 0);
	if (!l.send_pdu(b))
		return l.error;
	if (l.receive(10000) != kOpLoginRsp)
		return "no Login reject for a SCSI Command as first PDU";
	if (l.in[kIser + 36] != 2)
		return "Login reject's status class is not 2 (initiator error)";
	return expect_close(l, "the Login reject");
}

std::string c_login_hello(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_login(b, 0x81, 0);
	return l.send_pdu(b, nullptr, 0, kHello) ?
		expect_close(l, "an iSER Hello") : l.error;
}

std::string c_login_ahs(Link &l)
{
	uint8_t b[kBhs + 8] = {};

	l.bhs_login(b, 0x81, 0);
	b[4] = 2;	// TotalAHSLength: 8 bytes
	return l.send_pdu(b, b + kBhs, 8) ? expect_close(l, "a Login with AHS") :
		l.error;
}

std::string c_ffp_scsi(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, kOpScsi, 5, 0);
	b[32] = 0;	// TEST UNIT READY
	if (!l.send_pdu(b))
		return l.error;
	// LIO queues a Reject (reason protocol error) and closes, as for TCP
	int op = l.receive(10000);
	if (op >= 0 && (op != kOpReject || l.in[kIser + 2] != 0x04))
		return "not a Reject (reason 0x04) for a SCSI Command in a discovery session";
	return expect_close(l, "a SCSI Command in a discovery session");
}

std::string c_ffp_hello(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, kOpNopOut, 8, 0);
	if (!l.send_pdu(b, nullptr, 0, kHello))
		return l.error;
	if (!l.send_targets(9))
		return "no Text Response after an iSER Hello";
	return l.logout() ? expect_close(l, "the Logout") : "no Logout Response";
}

std::string c_ffp_dlength(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, kOpText, 10, 6000);
	return l.send_pdu(b, "SendTargets", 10) ?
		expect_close(l, "a Text declaring 6000 bytes, 10 sent") : l.error;
}

std::string c_ffp_opcode(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, 0x1e, 11, 0);	// reserved initiator opcode
	return l.send_pdu(b) ? expect_close(l, "a reserved opcode") : l.error;
}

std::string c_ffp_too_big(Link &l)
{
	uint8_t b[kBhs];

	l.bhs_ffp(b, kOpText, 12, kBuf - kHdrs);
	if (!l.send_pdu(b, l.sbuf.data() + kHdrs, kBuf - kHdrs))
		return l.error;
	return expect_close(l, "a 32 KiB SEND");
}

// ffp: the case runs in a discovery session logged in first.
struct {
	const char *name;
	Case run;
	bool ffp;
} const kCases[] = {
	{ "short", c_short, false },
	{ "login-dlength", c_login_dlength, false },
	{ "not-login", c_not_login, false },
	{ "login-hello", c_login_hello, false },
	{ "login-ahs", c_login_ahs, false },
	{ "ffp-scsi-in-discovery", c_ffp_scsi, true },
	{ "ffp-hello", c_ffp_hello, true },
	{ "ffp-dlength", c_ffp_dlength, true },
	{ "ffp-reserved-opcode", c_ffp_opcode, true },
	{ "ffp-too-big", c_ffp_too_big, true },
};

} // namespace

int main(int argc, char **argv)
{
	addrinfo hints = {}, *dst;
	int failed = 0;

	if (argc != 3) {
		std::fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(argv[1], argv[2], &hints, &dst) || !dst) {
		std::fprintf(stderr, "bad address %s port %s\n", argv[1], argv[2]);
		return 2;
	}
	for (const auto &c : kCases) {
		Link l;
		std::string e = l.open(dst) ? "" : "connect: " + l.error;

		if (e.empty() && c.ffp && !l.login_discovery())
			e = "discovery login: " + l.error;
		if (e.empty())
			e = c.run(l);

		if (e.empty()) {
			std::printf("case %s: PASS\n", c.name);
		} else {
			std::printf("case %s: FAIL %s\n", c.name, e.c_str());
			failed++;
		}
	}
	freeaddrinfo(dst);
	std::printf("%d of %zu cases failed\n", failed, std::size(kCases));
	return failed ? 1 : 0;
}
