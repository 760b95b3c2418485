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
class Channel {
public:
	~Channel() { close(); }

	std::string error;
	std::vector<uint8_t> in;	// the last IU received
	uint32_t rej_reason = 0;
	uint32_t credits = 0;		// from the login response and SRP_RSPs
	std::vector<uint8_t> data = std::vector<uint8_t>(4096);
	ibv_mr *dmr = nullptr;

	// Connects; false with rej_reason set when an SRP_LOGIN_REJ came.
	bool open(const addrinfo *dst, const Login &l)
	{
		ch_ = rdma_create_event_channel();
		if (!ch_ || rdma_create_id(ch_, &id_, nullptr, RDMA_PS_TCP))
			return fail("rdma_create_id");
		if (rdma_resolve_addr(id_, nullptr, dst->ai_addr, 5000) ||
		    !expect(RDMA_CM_EVENT_ADDR_RESOLVED, 10000))
			return fail("resolve address");
		if (rdma_resolve_route(id_, 5000) ||
		    !expect(RDMA_CM_EVENT_ROUTE_RESOLVED, 10000))
			return fail("resolve route");
		if (!make_qp())
			return false;
		// the RDMA/CM form of SRP_LOGIN_REQ (56 bytes)
		uint8_t req[56] = {};
		put16(req + 8, 0x0006);
		req[10] = 0;		// single channel
		req[11] = 0x00;		// SRP_LOGIN_REQ
		put32(req + 12, l.it_iu_len);
		std::memcpy(req + 16, l.iport, 16);
		std::memcpy(req + 32, l.tport, 16);
		rdma_conn_param p = {};
		p.private_data = req;
		p.private_data_len = sizeof(req);
		p.responder_resources = 4;
		p.initiator_depth = 0;
		p.retry_count = 7;
		p.rnr_retry_count = 7;
		if (rdma_connect(id_, &p))
			return fail("rdma_connect");
		pollfd pf = { ch_->fd, POLLIN, 0 };
		rdma_cm_event *ev;

		if (poll(&pf, 1, 20000) <= 0 || rdma_get_cm_event(ch_, &ev))
			return fail("no answer to the login");
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

	// Sends @len bytes of sbuf.
	bool send(size_t len)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(sbuf_.data()),
				static_cast<uint32_t>(len), smr_->lkey };
		ibv_send_wr wr = {}, *bad;

		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(id_->qp, &wr, &bad))
			return fail("post send");
		return true;
	}

	uint8_t *sbuf() { return sbuf_.data(); }

	// The next IU within @ms into `in`; its opcode, or -1.
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
				uint8_t *b = rbuf_.data() + wc.wr_id * kIu;
				in.assign(b, b + wc.byte_len);
				post_recv(wc.wr_id);
				if (in.size() >= 8 && in[0] == kRsp)
					credits += get32(&in[4]);
				return in.empty() ? -1 : in[0];
			}
			if (gone(0))
				return -1;
			poll(nullptr, 0, 10);
		}
		return -1;
	}

	bool gone(int ms)
	{
		pollfd p = { ch_->fd, POLLIN, 0 };
		rdma_cm_event *ev;

		if (disconnected_ || dead_)
			return true;
		if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev))
			return false;
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			disconnected_ = true;
		rdma_ack_cm_event(ev);
		return disconnected_;
	}

	void close()
	{
		if (id_ && id_->qp && !disconnected_)
			rdma_disconnect(id_);
		if (id_ && id_->qp)
			rdma_destroy_qp(id_);
		for (ibv_mr *m : { rmr_, smr_, dmr })
			if (m)
				ibv_dereg_mr(m);
		rmr_ = smr_ = dmr = nullptr;
		if (cq_)
			ibv_destroy_cq(cq_);
		cq_ = nullptr;
		if (pd_)
			ibv_dealloc_pd(pd_);
		pd_ = nullptr;
		if (id_)
			rdma_destroy_id(id_);
		id_ = nullptr;
		if (ch_)
			rdma_destroy_event_channel(ch_);
		ch_ = nullptr;
	}

private:
	rdma_event_channel *ch_ = nullptr;
	rdma_cm_id *id_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_mr *rmr_ = nullptr, *smr_ = nullptr;
	std::vector<uint8_t> rbuf_ = std::vector<uint8_t>(kRecvs * kIu);
	std::vector<uint8_t> sbuf_ = std::vector<uint8_t>(kIu);
	bool disconnected_ = false, dead_ = false;

	bool fail(const char *what)
	{
		error = std::string(what) + ": " + std::strerror(errno);
		return false;
	}

	bool expect(rdma_cm_event_type want, int ms)
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

	bool make_qp()
	{
		ibv_qp_init_attr qa = {};

		pd_ = ibv_alloc_pd(id_->verbs);
		cq_ = pd_ ? ibv_create_cq(id_->verbs, 64, nullptr, nullptr, 0) : nullptr;
		if (!cq_)
			return fail("CQ");
		qa.send_cq = cq_;
		qa.recv_cq = cq_;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 16;
		qa.cap.max_recv_wr = kRecvs;
		qa.cap.max_send_sge = 1;
		qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id_, pd_, &qa))
			return fail("QP");
		rmr_ = ibv_reg_mr(pd_, rbuf_.data(), rbuf_.size(), IBV_ACCESS_LOCAL_WRITE);
		smr_ = ibv_reg_mr(pd_, sbuf_.data(), sbuf_.size(), 0);
		dmr = ibv_reg_mr(pd_, data.data(), data.size(),
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ);
		if (!rmr_ || !smr_ || !dmr)
			return fail("MR");
		for (int i = 0; i < kRecvs; i++)
			if (!post_recv(i))
				return false;
		return true;
	}

	bool post_recv(uint64_t slot)
	{
		ibv_sge sge = { reinterpret_cast<uintptr_t>(rbuf_.data() + slot * kIu),
				static_cast<uint32_t>(kIu), rmr_->lkey };
		ibv_recv_wr wr = {}, *bad;

		wr.wr_id = slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return !ibv_post_recv(id_->qp, &wr, &bad);
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
