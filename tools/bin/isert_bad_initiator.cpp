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

#include "cm_link.h"

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
class Link : public rk::CmLink {
public:
	Link() : CmLink(kBuf, kRecvs, 0, 8) {}

	uint32_t cmdsn = 1, expstatsn = 0;

	bool open(const addrinfo *dst)
	{
		uint8_t hdr[4] = { 0xc0, 0, 0, 0 };	// no ZBVA, no invalidation

		if (!prepare(dst->ai_addr))
			return false;
		rdma_cm_event *ev = connect(hdr, sizeof(hdr), 1, 1, 15000);

		if (!ev)
			return false;
		bool ok = ev->event == RDMA_CM_EVENT_ESTABLISHED;

		rdma_ack_cm_event(ev);
		if (!ok) {
			errno = ECONNREFUSED;
			return fail("connect");
		}
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
		if (!CmLink::receive(ms) || in.size() < kHdrs)
			return -1;
		// counters from the BHS: StatSN, ExpCmdSN
		expstatsn = get32(&in[kIser + 24]) + 1;
		return in[kIser] & 0x3f;
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

private:
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
