// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// p9_rdma_server: a minimal 9P2000.L file server on the RDMA transport, for
// selftests/vm/p9_rdma.sh (no Debian 12 package has a 9P server with an
// RDMA transport: diod is built without it).
//
//   p9_rdma_server ADDR PORT
//   p9_rdma_server --file      writes the served file's bytes to stdout
//
// Serves a read-only tree: the root directory with one file, "hello", of
// kFileLen bytes whose byte i is pattern(i) (the test knows the same
// formula). The wire is what the kernel's 9pnet_rdma client speaks: an
// rdma_cm RC connection, every T-message in one Send, every R-message in
// one Send; the client posts a receive of msize bytes before each request.
// One client; exits when it disconnects. Prints "listening", then one
// line per message type seen with its count, and "disconnected". Exit 0
// if the session ended with a disconnect and no protocol error.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr uint32_t kMsize = 65536;   // the largest message either way
constexpr int kDepth = 32;           // the client's queue depths
constexpr uint64_t kFileLen = 300000;
constexpr uint64_t kRootPath = 1, kFilePath = 2;

// 9P2000.L message types used here (the protocol's numbers).
enum : uint8_t {
	Rlerror = 7, Tstatfs = 8, Tlopen = 12, Tgetattr = 24, Txattrwalk = 30,
	Treaddir = 40, Tversion = 100, Tattach = 104, Tflush = 108, Twalk = 110,
	Tread = 116, Tclunk = 120,
};

uint8_t pattern(uint64_t off)
{
	return static_cast<uint8_t>((off * 2654435761u) >> 11);
}

// Little-endian reader over one T-message; a short message sets bad.
struct In {
	const uint8_t *p;
	size_t left;
	bool bad = false;
	uint64_t num(int n)
	{
		if (left < static_cast<size_t>(n)) {
			bad = true;
			return 0;
		}
		uint64_t v = 0;
		for (int i = 0; i < n; i++)
			v |= static_cast<uint64_t>(p[i]) << (8 * i);
		p += n;
		left -= n;
		return v;
	}
	std::string str()
	{
		size_t n = num(2);
		if (bad || left < n) {
			bad = true;
			return {};
		}
		std::string s(reinterpret_cast<const char *>(p), n);
		p += n;
		left -= n;
		return s;
	}
};

// An R-message being built; size[4] is filled in by done().
struct Out {
	std::vector<uint8_t> b;
	Out(uint8_t type, uint16_t tag)
	{
		num(0, 4);
		num(type, 1);
		num(tag, 2);
	}
	void num(uint64_t v, int n)
	{
		for (int i = 0; i < n; i++)
			b.push_back(static_cast<uint8_t>(v >> (8 * i)));
	}
	void str(const std::string &s)
	{
		num(s.size(), 2);
		b.insert(b.end(), s.begin(), s.end());
	}
	void qid(uint64_t path)
	{
		num(path == kRootPath ? 0x80 : 0, 1); // QTDIR or QTFILE
		num(0, 4);
		num(path, 8);
	}
	std::vector<uint8_t> &done()
	{
		uint32_t n = b.size();
		memcpy(b.data(), &n, 4); // x86: little endian already
		return b;
	}
};

class Server {
public:
	// Answers one T-message; false on a protocol error.
	bool handle(const uint8_t *msg, size_t len, std::vector<uint8_t> &reply);
	std::map<int, int> seen;

private:
	std::map<uint32_t, uint64_t> fids_; // fid -> qid path
	uint32_t msize_ = kMsize;
	void error(Out &o, uint16_t tag, int err) { o = Out(Rlerror, tag); o.num(err, 4); }
	void getattr(Out &o, uint64_t path);
};

void Server::getattr(Out &o, uint64_t path)
{
	bool dir = path == kRootPath;
	o.num(0x7ff, 8); // P9_STATS_BASIC
	o.qid(path);
	o.num(dir ? 040555 : 0100444, 4);
	o.num(0, 4); // uid
	o.num(0, 4); // gid
	o.num(dir ? 2 : 1, 8);
	o.num(0, 8); // rdev
	o.num(dir ? 0 : kFileLen, 8);
	o.num(4096, 8);
	o.num(dir ? 0 : (kFileLen + 511) / 512, 8);
	for (int i = 0; i < 8; i++) // atime, mtime, ctime, btime
		o.num(i % 2 ? 0 : 1700000000, 8);
	o.num(0, 8); // gen
	o.num(0, 8); // data_version
}

bool Server::handle(const uint8_t *msg, size_t len, std::vector<uint8_t> &reply)
{
	In in{msg, len};
	uint32_t size = in.num(4);
	uint8_t type = in.num(1);
	uint16_t tag = in.num(2);
	if (in.bad || size != len)
		return false;
	seen[type]++;
	Out o(type + 1, tag);
	// Every request but these names a known fid first.
	uint64_t path = 0;
	auto fit = fids_.end();
	if (type != Tversion && type != Tattach && type != Tflush) {
		fit = fids_.find(in.num(4));
		if (fit == fids_.end()) {
			error(o, tag, EBADF);
			reply = o.done();
			return !in.bad;
		}
		path = fit->second;
	}
	switch (type) {
	case Tversion: {
		uint32_t m = in.num(4);
		std::string v = in.str();
		msize_ = m < kMsize ? m : kMsize;
		o.num(msize_, 4);
		o.str(v == "9P2000.L" ? v : "unknown");
		fids_.clear();
		break;
	}
	case Tattach: {
		uint32_t fid = in.num(4);
		fids_[fid] = kRootPath;
		o.qid(kRootPath);
		break;
	}
	case Twalk: {
		uint32_t newfid = in.num(4);
		uint16_t n = in.num(2);
		std::vector<uint64_t> qids;
		for (int i = 0; i < n && !in.bad; i++) {
			std::string name = in.str();
			if (name == "..")
				path = kRootPath;
			else if (path == kRootPath && name == "hello")
				path = kFilePath;
			else if (name != ".")
				break;
			qids.push_back(path);
		}
		if (n && qids.empty()) {
			error(o, tag, ENOENT);
			break;
		}
		if (qids.size() == n)
			fids_[newfid] = path;
		o.num(qids.size(), 2);
		for (uint64_t q : qids)
			o.qid(q);
		break;
	}
	case Tgetattr:
	case Tlopen:
	case Tread:
	case Treaddir:
	case Tclunk:
	case Tstatfs: {
		if (type == Tgetattr) {
			getattr(o, path);
		} else if (type == Tlopen) {
			o.qid(path);
			o.num(0, 4); // iounit: msize decides
		} else if (type == Tclunk) {
			fids_.erase(fit);
		} else if (type == Tstatfs) {
			o.num(0x01021997, 4); // V9FS_MAGIC
			o.num(4096, 4);
			for (int i = 0; i < 6; i++)
				o.num(i < 3 ? 100 : 10, 8);
			o.num(255, 4);
		} else if (type == Tread) {
			uint64_t off = in.num(8);
			uint32_t count = in.num(4);
			if (path != kFilePath) {
				error(o, tag, EISDIR);
				break;
			}
			uint32_t room = msize_ - 11;
			uint64_t n = off >= kFileLen ? 0 : kFileLen - off;
			n = n < count ? n : count;
			n = n < room ? n : room;
			o.num(n, 4);
			for (uint64_t i = 0; i < n; i++)
				o.b.push_back(pattern(off + i));
		} else { // Treaddir: ".", "..", "hello"; offset = entry index
			uint64_t off = in.num(8);
			in.num(4);
			Out ents(0, 0);
			ents.b.clear();
			const char *names[] = {".", "..", "hello"};
			for (uint64_t i = off; i < 3; i++) {
				ents.qid(i == 2 ? kFilePath : kRootPath);
				ents.num(i + 1, 8);
				ents.num(i == 2 ? 8 : 4, 1); // DT_REG, DT_DIR
				ents.str(names[i]);
			}
			o.num(ents.b.size(), 4);
			o.b.insert(o.b.end(), ents.b.begin(), ents.b.end());
		}
		break;
	}
	case Tflush:
		break;
	default: // xattrs and anything that would change the tree
		error(o, tag, EOPNOTSUPP);
	}
	if (in.bad)
		return false;
	reply = o.done();
	return reply.size() <= msize_;
}

int fail(const char *what)
{
	printf("%s: %s\n", what, strerror(errno));
	return 1;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--file")) {
		for (uint64_t i = 0; i < kFileLen; i++)
			putchar(pattern(i));
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: p9_rdma_server ADDR PORT | --file\n");
		return 2;
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	rdma_event_channel *ch = rdma_create_event_channel();
	rdma_cm_id *listen_id, *id;
	if (!ch || rdma_create_id(ch, &listen_id, nullptr, RDMA_PS_TCP))
		return fail("rdma_create_id");
	sockaddr_in sa = {};
	sa.sin_family = AF_INET;
	sa.sin_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return 2;
	if (rdma_bind_addr(listen_id, reinterpret_cast<sockaddr *>(&sa)) ||
	    rdma_listen(listen_id, 1))
		return fail("bind/listen");
	printf("listening on %s:%s\n", argv[1], argv[2]);
	rdma_cm_event *ev;
	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event");
	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		printf("unexpected event %s\n", rdma_event_str(ev->event));
		return 1;
	}
	id = ev->id;
	rdma_ack_cm_event(ev);

	ibv_pd *pd = ibv_alloc_pd(id->verbs);
	ibv_cq *cq = pd ? ibv_create_cq(id->verbs, 4 * kDepth, nullptr, nullptr, 0) : nullptr;
	if (!cq)
		return fail("pd/cq");
	ibv_qp_init_attr qa = {};
	qa.send_cq = qa.recv_cq = cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = qa.cap.max_recv_wr = kDepth;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd, &qa))
		return fail("rdma_create_qp");
	// kDepth receive slots, then kDepth send slots, in one MR.
	std::vector<uint8_t> mem(2 * kDepth * static_cast<size_t>(kMsize));
	ibv_mr *mr = ibv_reg_mr(pd, mem.data(), mem.size(), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return fail("ibv_reg_mr");
	auto slot = [&](int i) { return mem.data() + static_cast<size_t>(i) * kMsize; };
	auto post_recv = [&](int i) {
		ibv_sge sge = {reinterpret_cast<uintptr_t>(slot(i)), kMsize, mr->lkey};
		ibv_recv_wr wr = {}, *badwr;
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return ibv_post_recv(id->qp, &wr, &badwr);
	};
	for (int i = 0; i < kDepth; i++)
		if (post_recv(i))
			return fail("ibv_post_recv");
	rdma_conn_param cp = {};
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp))
		return fail("rdma_accept");

	Server srv;
	bool ok = true, up = false, gone = false;
	std::vector<bool> send_busy(kDepth);
	pollfd pfd = {ch->fd, POLLIN, 0};
	while (!gone) {
		if (poll(&pfd, 1, 0) > 0 && !rdma_get_cm_event(ch, &ev)) {
			printf("cm event %s\n", rdma_event_str(ev->event));
			if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
				up = true;
			else
				gone = true;
			rdma_ack_cm_event(ev);
		}
		ibv_wc wc[8];
		int n = ibv_poll_cq(cq, 8, wc);
		if (n == 0) {
			usleep(200);
			continue;
		}
		for (int k = 0; k < n; k++) {
			if (wc[k].status != IBV_WC_SUCCESS) {
				// Flushes once the client is gone are expected.
				if (wc[k].status != IBV_WC_WR_FLUSH_ERR) {
					printf("completion error %s\n", ibv_wc_status_str(wc[k].status));
					ok = false;
				}
				continue;
			}
			if (wc[k].opcode == IBV_WC_SEND) {
				send_busy[wc[k].wr_id - kDepth] = false;
				continue;
			}
			int r = wc[k].wr_id;
			std::vector<uint8_t> reply;
			if (!srv.handle(slot(r), wc[k].byte_len, reply)) {
				printf("bad message of %u bytes\n", wc[k].byte_len);
				ok = false;
				gone = true;
				break;
			}
			int s = 0;
			while (s < kDepth && send_busy[s])
				s++;
			if (s == kDepth || post_recv(r)) {
				printf("out of send slots or receive failed\n");
				ok = false;
				gone = true;
				break;
			}
			memcpy(slot(kDepth + s), reply.data(), reply.size());
			ibv_sge sge = {reinterpret_cast<uintptr_t>(slot(kDepth + s)),
				       static_cast<uint32_t>(reply.size()), mr->lkey};
			ibv_send_wr wr = {}, *badwr;
			wr.wr_id = kDepth + s;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED;
			if (ibv_post_send(id->qp, &wr, &badwr)) {
				printf("ibv_post_send failed\n");
				ok = false;
				gone = true;
				break;
			}
			send_busy[s] = true;
		}
	}
	for (auto &t : srv.seen)
		printf("T-message %d: %d\n", t.first, t.second);
	printf("%s\n", up ? "disconnected" : "never established");
	rdma_disconnect(id);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return ok && up ? 0 : 1;
}
