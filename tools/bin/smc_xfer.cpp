// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// smc_xfer: SMC-R set-up and an AF_SMC exchange for selftests/vm/*smc*.sh
// (smc-tools is not in Debian 12).
//
//   smc_xfer ueid NAME
//       adds NAME to the kernel's user-defined EID table (generic netlink
//       SMC_GEN_NETLINK, SMC_NETLINK_ADD_UEID); SMC-R v2 is offered only
//       when the table is not empty. An entry already there is fine.
//   smc_xfer pnet PNETID NETDEV IBDEV PORT
//       puts NETDEV and port PORT of IBDEV under PNETID (SMC_PNETID,
//       SMC_PNETID_ADD): how SMC finds the RoCE device of a TCP path.
//   smc_xfer server PORT BYTES [ADDR]
//   smc_xfer client PORT BYTES ADDR
//       one AF_SMC connection: the client sends BYTES of a known pattern,
//       the server checks each byte and sends them back, the client checks
//       the echo. While connected each side reads its socket back through
//       smc_diag (NETLINK_SOCK_DIAG) and prints one line:
//         mode SMCR dev rxe0 port 1 gid ... peer_gid ... role client|server
//         mode FALLBACK_TCP reason 0x... peer_diagnosis 0x...
//   Options after the arguments: --expect smcr|fallback (default smcr):
//   the mode that must be seen. Exit 0 only if the bytes and the mode are
//   right. A refused connect prints "Couldn't connect to ADDR:PORT".
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef SMCPROTO_SMC
#define SMCPROTO_SMC 0 // AF_SMC over IPv4 (1: over IPv6)
#endif
#ifndef AF_SMC
#define AF_SMC 43
#endif

namespace {

// SMC_MAX_EID_LEN in the uapi; an EID travels blank-padded plus a NUL.
constexpr size_t kEidLen = 32;

uint8_t pattern(uint64_t off)
{
	return static_cast<uint8_t>((off * 2654435761u) >> 13);
}

// A netlink request under construction: header, payload, attributes.
class NlMsg {
public:
	NlMsg(uint16_t type, uint16_t flags)
	{
		put(nullptr, NLMSG_HDRLEN);
		hdr()->nlmsg_type = type;
		hdr()->nlmsg_flags = flags;
	}
	void put(const void *p, size_t n)
	{
		size_t at = buf_.size();
		buf_.resize(at + NLMSG_ALIGN(n));
		if (p)
			memcpy(buf_.data() + at, p, n);
		hdr()->nlmsg_len = buf_.size();
	}
	void attr(uint16_t type, const void *p, size_t n)
	{
		struct nlattr a = {};
		a.nla_len = NLA_HDRLEN + n;
		a.nla_type = type;
		put(&a, NLA_HDRLEN);
		size_t at = buf_.size();
		put(p, n);
		buf_.resize(at + NLA_ALIGN(n));
		hdr()->nlmsg_len = buf_.size();
	}
	const std::vector<uint8_t> &bytes() const { return buf_; }

private:
	struct nlmsghdr *hdr() { return reinterpret_cast<struct nlmsghdr *>(buf_.data()); }
	std::vector<uint8_t> buf_;
};

// Sends the request on a fresh socket of PROTO; every answer goes to
// on_msg until DONE or an error/ack message. Returns 0 or -errno.
template <typename F> int nl_talk(int proto, const NlMsg &m, F on_msg)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	int ret = 0;
	if (send(fd, m.bytes().data(), m.bytes().size(), 0) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	std::vector<uint8_t> buf(1 << 16);
	for (;;) {
		ssize_t n = recv(fd, buf.data(), buf.size(), 0);
		if (n < 0) {
			ret = -errno;
			break;
		}
		auto *h = reinterpret_cast<struct nlmsghdr *>(buf.data());
		for (int len = n; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE)
				goto out;
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = static_cast<struct nlmsgerr *>(NLMSG_DATA(h))->error;
				goto out;
			}
			on_msg(h);
			// A plain answer (not part of a dump) is the whole answer.
			if (!(h->nlmsg_flags & NLM_F_MULTI))
				goto out;
		}
	}
out:
	close(fd);
	return ret;
}

// Walks the attributes in [p, p + len).
template <typename F> void each_attr(const uint8_t *p, size_t len, F f)
{
	while (len >= NLA_HDRLEN) {
		auto *a = reinterpret_cast<const struct nlattr *>(p);
		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return;
		f(a->nla_type & NLA_TYPE_MASK, p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
		size_t step = NLA_ALIGN(a->nla_len);
		if (step >= len)
			return;
		p += step;
		len -= step;
	}
}

// The id of generic netlink family NAME, or -errno.
int genl_family(const char *name)
{
	NlMsg m(GENL_ID_CTRL, NLM_F_REQUEST);
	struct genlmsghdr g = {};
	g.cmd = CTRL_CMD_GETFAMILY;
	g.version = 1;
	m.put(&g, sizeof(g));
	m.attr(CTRL_ATTR_FAMILY_NAME, name, strlen(name) + 1);
	int id = -ENOENT;
	int ret = nl_talk(NETLINK_GENERIC, m, [&](struct nlmsghdr *h) {
		auto *p = static_cast<const uint8_t *>(NLMSG_DATA(h)) + GENL_HDRLEN;
		each_attr(p, h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN,
			  [&](int t, const uint8_t *v, size_t) {
				  if (t == CTRL_ATTR_FAMILY_ID)
					  id = *reinterpret_cast<const uint16_t *>(v);
			  });
	});
	return ret < 0 ? ret : id;
}

// One generic netlink command with string/u8 attributes; 0 or -errno.
struct GenlAttr {
	uint16_t type;
	std::string value; // sent with its NUL unless raw
	bool raw;
};

int genl_cmd(const char *family, uint8_t cmd, const std::vector<GenlAttr> &attrs)
{
	int id = genl_family(family);
	if (id < 0)
		return id;
	NlMsg m(id, NLM_F_REQUEST | NLM_F_ACK);
	struct genlmsghdr g = {};
	g.cmd = cmd;
	g.version = 1;
	m.put(&g, sizeof(g));
	for (const auto &a : attrs)
		m.attr(a.type, a.value.data(), a.value.size() + (a.raw ? 0 : 1));
	return nl_talk(NETLINK_GENERIC, m, [](struct nlmsghdr *) {});
}

int cmd_ueid(const char *name)
{
	std::string eid(name);
	if (eid.size() > kEidLen) {
		fprintf(stderr, "EID longer than %zu\n", kEidLen);
		return 2;
	}
	eid.resize(kEidLen, ' ');
	int ret = genl_cmd(SMC_GENL_FAMILY_NAME, SMC_NETLINK_ADD_UEID,
			   {{SMC_NLA_EID_TABLE_ENTRY, eid, false}});
	if (ret == -EEXIST)
		ret = 0;
	printf("ueid add %s: %s\n", name, ret ? strerror(-ret) : "ok");
	return ret ? 1 : 0;
}

int cmd_pnet(const char *pnetid, const char *netdev, const char *ibdev, const char *port)
{
	std::string p(1, static_cast<char>(atoi(port)));
	int ret = genl_cmd(SMCR_GENL_FAMILY_NAME, SMC_PNETID_ADD,
			   {{SMC_PNETID_NAME, pnetid, false},
			    {SMC_PNETID_ETHNAME, netdev, false},
			    {SMC_PNETID_IBNAME, ibdev, false},
			    {SMC_PNETID_IBPORT, p, true}});
	if (ret == -EEXIST)
		ret = 0;
	printf("pnet %s: %s + %s port %s: %s\n", pnetid, netdev, ibdev, port,
	       ret ? strerror(-ret) : "ok");
	return ret ? 1 : 0;
}

// smc_diag's view of the connection with these local/remote ports (network
// order): prints its line; returns the mode or -1 if not found.
int diag_line(uint16_t sport, uint16_t dport)
{
	NlMsg m(SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP);
	struct smc_diag_req req = {};
	req.diag_family = AF_SMC;
	req.diag_ext = (1 << (SMC_DIAG_LGRINFO - 1)) | (1 << (SMC_DIAG_CONNINFO - 1));
	m.put(&req, sizeof(req));
	int mode = -1;
	std::string line;
	int ret = nl_talk(NETLINK_SOCK_DIAG, m, [&](struct nlmsghdr *h) {
		auto *r = static_cast<const struct smc_diag_msg *>(NLMSG_DATA(h));
		if (r->id.idiag_sport != sport || r->id.idiag_dport != dport)
			return;
		mode = r->diag_mode;
		char buf[512];
		const char *names[] = {"SMCR", "FALLBACK_TCP", "SMCD"};
		line = std::string("mode ") + (mode <= 2 ? names[mode] : "?");
		auto *p = reinterpret_cast<const uint8_t *>(r) + NLMSG_ALIGN(sizeof(*r));
		each_attr(p, h->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(sizeof(*r)),
			  [&](int t, const uint8_t *v, size_t n) {
				  if (t == SMC_DIAG_LGRINFO && n >= sizeof(struct smc_diag_lgrinfo)) {
					  struct smc_diag_lgrinfo li;
					  memcpy(&li, v, sizeof(li));
					  snprintf(buf, sizeof(buf),
						   " dev %.*s port %u gid %.40s peer_gid %.40s role %s",
						   IB_DEVICE_NAME_MAX, li.lnk[0].ibname,
						   li.lnk[0].ibport, li.lnk[0].gid,
						   li.lnk[0].peer_gid,
						   li.role ? "server" : "client");
					  line += buf;
				  } else if (t == SMC_DIAG_FALLBACK &&
					     n >= sizeof(struct smc_diag_fallback)) {
					  struct smc_diag_fallback fb;
					  memcpy(&fb, v, sizeof(fb));
					  snprintf(buf, sizeof(buf),
						   " reason 0x%x peer_diagnosis 0x%x",
						   fb.reason, fb.peer_diagnosis);
					  if (mode == SMC_DIAG_MODE_FALLBACK_TCP)
						  line += buf;
				  }
			  });
	});
	if (ret < 0) {
		printf("smc_diag: %s\n", strerror(-ret));
		return -1;
	}
	if (mode < 0)
		printf("smc_diag: connection not found\n");
	else
		printf("%s\n", line.c_str());
	return mode;
}

// Reads exactly n bytes unless the peer closes; returns what was read.
size_t read_full(int fd, uint8_t *p, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	return got;
}

bool write_full(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		p += w;
		n -= w;
	}
	return true;
}

// Checks buf against the pattern; prints the first difference.
bool check(const std::vector<uint8_t> &buf, size_t got, const char *what)
{
	if (got != buf.size()) {
		printf("%s: %zu of %zu bytes\n", what, got, buf.size());
		return false;
	}
	for (size_t i = 0; i < buf.size(); i++) {
		if (buf[i] != pattern(i)) {
			printf("%s: byte %zu is 0x%02x, want 0x%02x\n", what, i, buf[i],
			       pattern(i));
			return false;
		}
	}
	printf("%s: %zu bytes as sent\n", what, got);
	return true;
}

int xfer(bool server, uint16_t port, size_t bytes, const char *addr, int want_mode)
{
	int fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, SMCPROTO_SMC);
	if (fd < 0) {
		printf("socket(AF_SMC): %s\n", strerror(errno));
		return 1;
	}
	struct sockaddr_in sa = {};
	sa.sin_family = AF_INET;
	sa.sin_port = htons(port);
	if (addr && inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		printf("bad address %s\n", addr);
		return 2;
	}
	int conn = fd;
	if (server) {
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)) || listen(fd, 1)) {
			printf("bind/listen: %s\n", strerror(errno));
			return 1;
		}
		printf("listening on port %u\n", port);
		fflush(stdout);
		conn = accept(fd, nullptr, nullptr);
		if (conn < 0) {
			printf("accept: %s\n", strerror(errno));
			return 1;
		}
	} else if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa))) {
		printf("Couldn't connect to %s:%u: %s\n", addr, port, strerror(errno));
		return 1;
	}
	struct sockaddr_in me = {}, peer = {};
	socklen_t l = sizeof(me);
	getsockname(conn, reinterpret_cast<sockaddr *>(&me), &l);
	l = sizeof(peer);
	getpeername(conn, reinterpret_cast<sockaddr *>(&peer), &l);

	std::vector<uint8_t> buf(bytes);
	bool good;
	if (server) {
		good = check(buf, read_full(conn, buf.data(), bytes), "received");
		good = write_full(conn, buf.data(), bytes) && good;
	} else {
		for (size_t i = 0; i < bytes; i++)
			buf[i] = pattern(i);
		good = write_full(conn, buf.data(), bytes);
		std::fill(buf.begin(), buf.end(), 0);
		good = check(buf, read_full(conn, buf.data(), bytes), "echo") && good;
	}
	int mode = diag_line(me.sin_port, peer.sin_port);
	if (mode != want_mode) {
		printf("mode %d, want %d\n", mode, want_mode);
		good = false;
	}
	fflush(stdout);
	if (server) {
		// The client closes first, after its own smc_diag look.
		uint8_t b;
		while (read(conn, &b, 1) > 0)
			;
		close(conn);
	}
	close(fd);
	return good ? 0 : 1;
}

int usage()
{
	fprintf(stderr, "usage: smc_xfer ueid NAME | pnet PNETID NETDEV IBDEV PORT |\n"
			"       server PORT BYTES [ADDR] | client PORT BYTES ADDR"
			" [--expect smcr|fallback]\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	int want = SMC_DIAG_MODE_SMCR;
	for (size_t i = 0; i + 1 < args.size(); i++) {
		if (args[i] != "--expect")
			continue;
		want = args[i + 1] == "fallback" ? SMC_DIAG_MODE_FALLBACK_TCP : SMC_DIAG_MODE_SMCR;
		args.erase(args.begin() + i, args.begin() + i + 2);
		break;
	}
	if (args.size() == 2 && args[0] == "ueid")
		return cmd_ueid(args[1].c_str());
	if (args.size() == 5 && args[0] == "pnet")
		return cmd_pnet(args[1].c_str(), args[2].c_str(), args[3].c_str(),
				args[4].c_str());
	bool server = !args.empty() && args[0] == "server";
	if ((server && (args.size() == 3 || args.size() == 4)) ||
	    (!args.empty() && args[0] == "client" && args.size() == 4))
		return xfer(server, atoi(args[1].c_str()), strtoull(args[2].c_str(), nullptr, 0),
			    args.size() == 4 ? args[3].c_str() : nullptr, want);
	return usage();
}
