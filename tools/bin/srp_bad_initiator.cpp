// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// srp_bad_initiator: an SRP initiator of its own (rdma_cm, no ib_srp) that
// sends an SRP target malformed information units, for
// selftests/vm/srpt_bad_iu.sh (issue 15). The target must answer as the
// stock one does (SCSI BUSY for a command it cannot use, nothing for an IU
// it drops, a task management response code) or disconnect, and go on
// serving: a valid INQUIRY at the end must succeed, and the credits the
// responses return must add up to the IUs sent.
//
//   srp_bad_initiator ADDR PORT SERVICE_GUID INITIATOR_PORT_ID
//
// SERVICE_GUID is the target's srpt_service_guid (0x + 16 hex digits);
// INITIATOR_PORT_ID is the 32 hex digits an ACL of the target allows.
// Logins first: an IT IU length above the target's limit and a target port
// ID not the target's (both rejected with their SRP_LOGIN_REJ reason),
// then on one channel: a 8-byte IU, an SRP_CMD cut at 20 bytes, an unknown
// opcode, an SRP_CMD whose additional CDB runs past the IU, an indirect
// table longer than the IU and than its count, a data length of 2 GiB, an
// unsupported task management function, a LUN RESET, an INQUIRY. Prints
// "case NAME: PASS ..." or "case NAME: FAIL ..."; exit 0 when all passed.
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

constexpr uint8_t kCmd = 0x02, kTmf = 0x01, kRsp = 0xc1, kLoginRsp = 0xc0,
	kLoginRej = 0xc2;
constexpr size_t kIu = 1024;		// our IT IU length, and receive size
constexpr int kRecvs = 16;
constexpr uint8_t kBusy = 0x08;

void put16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }

void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = v >> (24 - 8 * i);
}

void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (56 - 8 * i);
}

uint32_t get32(const uint8_t *p)
{
	return uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

bool hex_bytes(const char *s, uint8_t *out, size_t n)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (std::strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (std::sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		out[i] = v;
	}
	return true;
}

struct Login {
	uint32_t it_iu_len = kIu;
	uint8_t iport[16];
	uint8_t tport[16];
};

// One RDMA channel to the target.
class Channel : public rk::CmLink {
public:
	Channel() : CmLink(kIu, kRecvs, 4096) {}

	uint32_t rej_reason = 0;
	uint32_t credits = 0;		// from the login response and SRP_RSPs

	uint8_t *sbuf() { return CmLink::sbuf.data(); }

	// Connects; false with rej_reason set when an SRP_LOGIN_REJ came.
	bool open(const addrinfo *dst, const Login &l)
	{
		if (!prepare(dst->ai_addr))
			return false;
		// the RDMA/CM form of SRP_LOGIN_REQ (56 bytes)
		uint8_t req[56] = {};
		put16(req + 8, 0x0006);
		req[10] = 0;		// single channel
		req[11] = 0x00;		// SRP_LOGIN_REQ
		put32(req + 12, l.it_iu_len);
		std::memcpy(req + 16, l.iport, 16);
		std::memcpy(req + 32, l.tport, 16);
		rdma_cm_event *ev = connect(req, sizeof(req), 4, 0, 20000);

		if (!ev)
			return false;
		const uint8_t *pd = static_cast<const uint8_t *>(ev->param.conn.private_data);
		size_t pl = ev->param.conn.private_data_len;
		bool ok = false;

		if (ev->event == RDMA_CM_EVENT_ESTABLISHED && pd && pl >= 52 &&
		    pd[0] == kLoginRsp) {
			credits = get32(pd + 4);
			ok = true;
		} else if (ev->event == RDMA_CM_EVENT_REJECTED && pd && pl >= 32 &&
			   pd[0] == kLoginRej) {
			rej_reason = get32(pd + 4);
			error = "rejected";
		} else {
			error = std::string("login: ") + rdma_event_str(ev->event);
		}
		rdma_ack_cm_event(ev);
		return ok;
	}

	// The next IU within @ms into `in`; its opcode, or -1. An SRP_RSP
	// returns its credits.
	int receive(int ms)
	{
		if (!CmLink::receive(ms) || in.empty())
			return -1;
		if (in.size() >= 8 && in[0] == kRsp)
			credits += get32(&in[4]);
		return in[0];
	}
};

int failures;

void report(const char *name, bool pass, const std::string &why)
{
	std::printf("case %s: %s %s\n", name, pass ? "PASS" : "FAIL", why.c_str());
	std::fflush(stdout);
	if (!pass)
		failures++;
}

// An SRP_CMD header in c->sbuf(): tag, LUN 0, CDB.
void cmd_hdr(Channel &c, uint64_t tag, const uint8_t *cdb, size_t cdb_len)
{
	uint8_t *b = c.sbuf();

	std::memset(b, 0, kIu);
	b[0] = kCmd;
	put64(b + 8, tag);
	std::memcpy(b + 32, cdb, cdb_len);
}

// Waits for the SRP_RSP of @tag: its SCSI status, or -1 (none), -2 (gone).
int status_of(Channel &c, uint64_t tag, int ms, uint8_t *flags = nullptr)
{
	int op = c.receive(ms);

	if (op < 0)
		return c.gone(0) ? -2 : -1;
	if (op != kRsp || c.in.size() < 36) {
		std::printf("  unexpected IU 0x%02x of %zu bytes\n", op, c.in.size());
		return -3;
	}
	uint64_t t = 0;

	for (int i = 0; i < 8; i++)
		t = t << 8 | c.in[8 + i];
	if (t != tag) {
		std::printf("  response for tag %llu, not %llu\n",
			    (unsigned long long)t, (unsigned long long)tag);
		return -3;
	}
	if (flags)
		*flags = c.in[18];
	return c.in[19];
}

void busy_case(Channel &c, const char *name, uint64_t tag, size_t len)
{
	if (!c.send(len)) {
		report(name, false, c.error);
		return;
	}
	int st = status_of(c, tag, 5000);

	if (st == kBusy)
		report(name, true, "SCSI BUSY");
	else if (st == -2)
		report(name, true, "the target disconnected");
	else
		report(name, false, "status " + std::to_string(st));
}

// SRP_RSP response data of a task management function: its code or -1.
int tmf_code(Channel &c, uint64_t tag)
{
	uint8_t flags = 0;
	int st = status_of(c, tag, 10000, &flags);

	if (st < 0 || !(flags & 1) || c.in.size() < 40 || get32(&c.in[32]) < 4)
		return -1;
	return c.in[36 + 3];
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 5) {
		std::fprintf(stderr, "usage: %s ADDR PORT SERVICE_GUID INITIATOR_PORT_ID\n",
			     argv[0]);
		return 2;
	}
	addrinfo hints = {}, *dst;

	hints.ai_family = AF_INET;
	if (getaddrinfo(argv[1], argv[2], &hints, &dst)) {
		std::fprintf(stderr, "bad address %s:%s\n", argv[1], argv[2]);
		return 2;
	}
	Login l;
	uint8_t guid[8];

	if (!hex_bytes(argv[3], guid, 8) || !hex_bytes(argv[4], l.iport, 16)) {
		std::fprintf(stderr, "bad GUID or initiator port ID\n");
		return 2;
	}
	std::memcpy(l.tport, guid, 8);
	std::memcpy(l.tport + 8, guid, 8);

	{
		Login big = l;
		Channel c;

		big.it_iu_len = 1 << 20;
		bool up = c.open(dst, big);
		report("login-iu-too-long", !up && c.rej_reason == 0x00010002,
		       up ? "accepted" : c.error + " reason " + std::to_string(c.rej_reason));
	}
	{
		Login other = l;
		Channel c;

		other.tport[15] ^= 0x5a;
		bool up = c.open(dst, other);
		report("login-wrong-target", !up && c.rej_reason == 0x00010003,
		       up ? "accepted" : c.error + " reason " + std::to_string(c.rej_reason));
	}

	Channel c;

	if (!c.open(dst, l)) {
		report("login", false, c.error + " reason " + std::to_string(c.rej_reason));
		return 1;
	}
	uint32_t granted = c.credits;

	report("login", granted > 0, "credits " + std::to_string(granted));
	unsigned sent = 0;
	static const uint8_t inquiry[6] = { 0x12, 0, 0, 0, 96, 0 };
	static const uint8_t read10[10] = { 0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0 };

	// a 8-byte IU: dropped, the channel stays
	cmd_hdr(c, 1, inquiry, 6);
	c.send(8);
	sent++;
	report("short-iu", c.receive(1000) < 0 && !c.gone(0), "no answer, still connected");

	// an SRP_CMD of 20 bytes: the tag is there, the CDB is not
	cmd_hdr(c, 2, inquiry, 6);
	busy_case(c, "short-cmd", 2, 20);
	sent++;

	// an unknown opcode
	cmd_hdr(c, 3, inquiry, 6);
	c.sbuf()[0] = 0x55;
	c.send(64);
	sent++;
	report("unknown-opcode", c.receive(1000) < 0 && !c.gone(0),
	       "dropped, still connected");

	// additional CDB length past the IU
	cmd_hdr(c, 4, inquiry, 6);
	c.sbuf()[31] = 252;
	busy_case(c, "add-cdb-past-iu", 4, 64);
	sent++;

	// an indirect table of 200 descriptors: longer than the IU and the count
	cmd_hdr(c, 5, read10, 10);
	c.sbuf()[5] = 0x02;		// data-in indirect
	c.sbuf()[7] = 1;		// one descriptor, it says
	put32(c.sbuf() + 48 + 12, 200 * 16);
	put32(c.sbuf() + 48 + 16, 4096);
	busy_case(c, "desc-table-too-long", 5, 48 + 20 + 16);
	sent++;

	// a direct descriptor of 2 GiB
	cmd_hdr(c, 6, read10, 10);
	c.sbuf()[5] = 0x01;		// data-in direct
	c.sbuf()[7] = 1;
	put64(c.sbuf() + 48, reinterpret_cast<uintptr_t>(c.data.data()));
	put32(c.sbuf() + 56, c.dmr->rkey);
	put32(c.sbuf() + 60, 0x80000000u);
	busy_case(c, "huge-data-length", 6, 64);
	sent++;

	// an unsupported task management function, then a LUN RESET
	std::memset(c.sbuf(), 0, kIu);
	c.sbuf()[0] = kTmf;
	put64(c.sbuf() + 8, 7);
	c.sbuf()[30] = 0x80;
	c.send(48);
	sent++;
	int code = tmf_code(c, 7);
	report("tmf-unsupported", code == 0x04, "response code " + std::to_string(code));
	c.sbuf()[30] = 0x08;
	put64(c.sbuf() + 8, 8);
	c.send(48);
	sent++;
	code = tmf_code(c, 8);
	report("tmf-lun-reset", code == 0x00, "response code " + std::to_string(code));

	// a valid INQUIRY: 96 bytes by RDMA WRITE, then GOOD
	std::memset(c.data.data(), 0, 96);
	cmd_hdr(c, 9, inquiry, 6);
	c.sbuf()[5] = 0x01;
	c.sbuf()[7] = 1;
	put64(c.sbuf() + 48, reinterpret_cast<uintptr_t>(c.data.data()));
	put32(c.sbuf() + 56, c.dmr->rkey);
	put32(c.sbuf() + 60, 96);
	c.send(64);
	sent++;
	int st = status_of(c, 9, 10000);
	std::string vendor(reinterpret_cast<char *>(c.data.data()) + 8, 8);
	// a LUN RESET leaves a unit attention: the INQUIRY is not affected
	report("inquiry", st == 0 && vendor == "LIO-ORG ",
	       "status " + std::to_string(st) + " vendor '" + vendor + "'");

	// every IU's credit came back (the login's grant aside)
	report("credits", c.credits - granted == sent,
	       std::to_string(c.credits - granted) + " returned for " +
	       std::to_string(sent) + " IUs");
	c.close();
	freeaddrinfo(dst);
	return failures ? 1 : 0;
}
