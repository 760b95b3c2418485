// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// NETLINK_RDMA / NLDEV: random and mutated RDMA_NLDEV_CMD_* requests (attrs
// of wrong types and lengths, dumps), extra rxe/siw links added and deleted
// while the other workers run, and the permission rule: a caller without
// CAP_NET_ADMIN gets EPERM for every admin command.
#include <cerrno>
#include <cstring>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rdma/rdma_netlink.h>

#include "fuzz.h"

namespace fz {
namespace {

// Requests are numbered so that a late answer is never taken for the
// answer to the next request.
uint32_t next_seq = 1;

class Msg {
public:
	Msg(uint16_t op, uint16_t flags)
	{
		b_.resize(NLMSG_HDRLEN);
		auto *h = hdr();
		h->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op);
		h->nlmsg_flags = flags;
		h->nlmsg_seq = next_seq++;
	}
	nlmsghdr *hdr() { return (nlmsghdr *)b_.data(); }
	uint32_t seq() { return hdr()->nlmsg_seq; }
	void put(uint16_t type, const void *p, size_t len)
	{
		size_t at = b_.size();
		b_.resize(at + NLA_ALIGN(NLA_HDRLEN + len));
		auto *a = (nlattr *)&b_[at];
		a->nla_type = type;
		a->nla_len = (uint16_t)(NLA_HDRLEN + len);
		if (len)
			memcpy(&b_[at + NLA_HDRLEN], p, len);
	}
	void u32(uint16_t type, uint32_t v) { put(type, &v, 4); }
	void str(uint16_t type, const std::string &s) { put(type, s.c_str(), s.size() + 1); }
	std::vector<uint8_t> &bytes()
	{
		hdr()->nlmsg_len = (uint32_t)b_.size();
		return b_;
	}

private:
	std::vector<uint8_t> b_;
};

int nl_open()
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (s < 0)
		return -1;
	int big = 1 << 20;
	setsockopt(s, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return s;
}

// Reads the answers to the request numbered seq (until its error/ack,
// DONE, or a quiet 200 ms; answers to earlier requests that came late are
// skipped); returns the ack's errno (positive), 0 for DONE or success, -1
// if the request's end never came, and calls each(msg) for every data
// message.
template <typename F> int nl_collect(int s, uint32_t seq, F each)
{
	static thread_local uint8_t buf[1 << 16];
	int err = -1;
	for (int rounds = 0; rounds < 10000; rounds++) {
		pollfd p{s, POLLIN, 0};
		if (poll(&p, 1, 200) <= 0)
			return err;
		ssize_t n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? err : errno;
		for (auto *h = (nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			err = 0; // the kernel answered this request
			if (h->nlmsg_type == NLMSG_DONE)
				return err;
			if (h->nlmsg_type == NLMSG_ERROR) {
				auto *e = (nlmsgerr *)NLMSG_DATA(h);
				return e->error < 0 ? -e->error : 0;
			}
			each(h);
		}
	}
	return err;
}

bool is_admin_op(uint16_t op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_SET:
	case RDMA_NLDEV_CMD_NEWLINK:
	case RDMA_NLDEV_CMD_DELLINK:
	case RDMA_NLDEV_CMD_SYS_SET:
	case RDMA_NLDEV_CMD_STAT_SET:
	case RDMA_NLDEV_CMD_STAT_DEL:
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:
		return true;
	default:
		return false;
	}
}

struct Link {
	uint32_t index;
	std::string name;
};

std::vector<Link> list_devices(int s)
{
	std::vector<Link> out;
	Msg m(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP);
	auto &b = m.bytes();
	if (send(s, b.data(), b.size(), 0) < 0)
		return out;
	nl_collect(s, m.seq(), [&](nlmsghdr *h) {
		Link l{UINT32_MAX, ""};
		int len = (int)h->nlmsg_len - NLMSG_HDRLEN;
		for (auto *a = (nlattr *)((uint8_t *)h + NLMSG_HDRLEN);
		     len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
		     len -= NLA_ALIGN(a->nla_len), a = (nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len))) {
			const uint8_t *p = (const uint8_t *)a + NLA_HDRLEN;
			size_t pl = a->nla_len - NLA_HDRLEN;
			if (a->nla_type == RDMA_NLDEV_ATTR_DEV_INDEX && pl >= 4)
				memcpy(&l.index, p, 4);
			if (a->nla_type == RDMA_NLDEV_ATTR_DEV_NAME)
				l.name.assign((const char *)p, strnlen((const char *)p, pl));
		}
		if (l.index != UINT32_MAX)
			out.push_back(l);
	});
	return out;
}

// Sends one message, counts its outcome and checks the permission rule.
void exchange(Worker &w, int s, uint16_t op, std::vector<uint8_t> &b, bool wellformed, const char *what)
{
	auto *h = (nlmsghdr *)b.data();
	w.note("nldev %s op=%u flags=%#x len=%zu attrs=%zu", what, op, h->nlmsg_flags, b.size(),
	       b.size() - NLMSG_HDRLEN);
	if (send(s, b.data(), b.size(), 0) < 0) {
		w.result(errno);
		return;
	}
	int err = nl_collect(s, h->nlmsg_seq, [](nlmsghdr *) {});
	if (err < 0) {
		// No end seen in time (a long dump on a loaded machine).
		w.result(ETIMEDOUT);
		return;
	}
	w.result(err);
	if (!w.priv && is_admin_op(op) && (h->nlmsg_flags & NLM_F_ACK) && wellformed && err != EPERM)
		w.violation("nldev: unprivileged op %u got %s, not EPERM", op, err ? strerror(err) : "success");
}

std::string fz_name(Worker &w, const char *type)
{
	return std::string("fz") + type + std::to_string(w.wid) + "_" + std::to_string(w.rng.below(2));
}

void random_value(Worker &w, Msg &m, uint16_t type)
{
	uint8_t junk[64];
	switch (type) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
	case RDMA_NLDEV_ATTR_PORT_INDEX:
		if (w.rng.chance(85)) {
			m.u32(type, (uint32_t)(w.rng.chance(80) ? w.rng.below(8) : w.rng.interesting()));
			return;
		}
		break;
	case RDMA_NLDEV_ATTR_DEV_NAME:
	case RDMA_NLDEV_ATTR_NDEV_NAME:
	case RDMA_NLDEV_ATTR_LINK_TYPE:
	case RDMA_NLDEV_ATTR_CHARDEV_TYPE:
		if (w.rng.chance(85)) {
			static const char *s[] = {"rxe0", "siw0", "rxe", "siw", "eth0", "lo", "uverbs",
						  "rdma_cm", "umad", "issm", "", "x", "fz_bogus"};
			m.str(type, w.rng.pick(s));
			return;
		}
		break;
	default:
		if (w.rng.chance(60)) {
			m.u32(type, (uint32_t)w.rng.interesting());
			return;
		}
		break;
	}
	size_t len = w.rng.below(sizeof(junk) + 1);
	w.rng.fill(junk, len);
	m.put(type, junk, len);
}

} // namespace

void fuzz_nldev(Worker &w)
{
	w.note("nldev socket");
	int s = nl_open();
	if (s < 0) {
		w.result(errno);
		return;
	}
	std::vector<Link> devs = list_devices(s);
	unsigned n = 10 + (unsigned)w.rng.below(80);
	for (unsigned i = 0; i < n && w.take(); i++) {
		uint16_t op = (uint16_t)(w.rng.chance(90) ? 1 + w.rng.below(RDMA_NLDEV_NUM_OPS)
						     : w.rng.below(64));
		uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;
		if (w.rng.chance(40))
			flags |= NLM_F_DUMP;
		if (w.rng.chance(5))
			flags = (uint16_t)w.rng.next();
		Msg m(op, flags);
		bool wellformed = flags & NLM_F_REQUEST;
		unsigned nattr = (unsigned)w.rng.below(6);
		bool has_index = false;
		for (unsigned k = 0; k < nattr; k++) {
			static const uint16_t useful[] = {
				RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_PORT_INDEX,
				RDMA_NLDEV_ATTR_DEV_NAME, RDMA_NLDEV_ATTR_NDEV_NAME, RDMA_NLDEV_ATTR_LINK_TYPE,
				RDMA_NLDEV_ATTR_CHARDEV_TYPE, RDMA_NLDEV_ATTR_RES_LQPN, RDMA_NLDEV_ATTR_RES_CQN,
				RDMA_NLDEV_ATTR_RES_MRN, RDMA_NLDEV_ATTR_RES_PDN, RDMA_NLDEV_ATTR_RES_CTXN,
				RDMA_NLDEV_ATTR_RES_CM_IDN, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_NLDEV_ATTR_STAT_RES,
				RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, RDMA_NLDEV_ATTR_STAT_COUNTER_ID,
				RDMA_NLDEV_ATTR_DEV_DIM, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX,
				RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, RDMA_NLDEV_ATTR_DRIVER,
			};
			uint16_t type = w.rng.chance(75) ? w.rng.pick(useful)
							 : (uint16_t)w.rng.below(RDMA_NLDEV_ATTR_MAX + 8);
			if (w.rng.chance(3))
				type |= NLA_F_NESTED;
			// Never rename or move a device, nor change the
			// namespace mode: the devices under test must survive.
			if ((op == RDMA_NLDEV_CMD_SET || op == RDMA_NLDEV_CMD_SYS_SET) &&
			    (type == RDMA_NLDEV_ATTR_DEV_NAME || type == RDMA_NLDEV_NET_NS_FD ||
			     type == RDMA_NLDEV_SYS_ATTR_NETNS_MODE))
				continue;
			if (op == RDMA_NLDEV_CMD_DELLINK && type == RDMA_NLDEV_ATTR_DEV_INDEX)
				continue;
			if (op == RDMA_NLDEV_CMD_NEWLINK && type == RDMA_NLDEV_ATTR_DEV_NAME) {
				m.str(type, fz_name(w, "x"));
				continue;
			}
			has_index |= type == RDMA_NLDEV_ATTR_DEV_INDEX;
			random_value(w, m, type);
		}
		if (op == RDMA_NLDEV_CMD_DELLINK) {
			// Only extra links, or an index that names none.
			uint32_t idx = 100000 + (uint32_t)w.rng.below(10);
			for (auto &d : devs)
				if (d.name.rfind("fz", 0) == 0 && w.rng.chance(50))
					idx = d.index;
			m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, idx);
		} else if (!has_index && !devs.empty() && w.rng.chance(60)) {
			m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, devs[w.rng.below(devs.size())].index);
		}
		auto &b = m.bytes();
		if (w.rng.chance(5) && b.size() > NLMSG_HDRLEN) {
			((nlmsghdr *)b.data())->nlmsg_len = (uint32_t)w.rng.below(b.size() + 32);
			wellformed = false;
		}
		exchange(w, s, op, b, wellformed, "random");
		if (w.rng.chance(5))
			devs = list_devices(s);
	}
	close(s);
}

void fuzz_links(Worker &w)
{
	if (w.cfg.link_netdevs.empty() || !w.take())
		return;
	int s = nl_open();
	if (s < 0)
		return;
	const char *type = w.rng.chance(50) ? "rxe" : "siw";
	std::string name = fz_name(w, type);
	Msg add(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK);
	add.str(RDMA_NLDEV_ATTR_DEV_NAME, name);
	add.str(RDMA_NLDEV_ATTR_LINK_TYPE, type);
	add.str(RDMA_NLDEV_ATTR_NDEV_NAME, w.cfg.link_netdevs[w.rng.below(w.cfg.link_netdevs.size())]);
	exchange(w, s, RDMA_NLDEV_CMD_NEWLINK, add.bytes(), true, ("link add " + name).c_str());
	if (!w.priv && w.take()) {
		// The devices under test too: without CAP_NET_ADMIN this
		// must be refused, never done.
		for (auto &d : list_devices(s)) {
			if (d.name.rfind("fz", 0) == 0)
				continue;
			Msg del(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
			del.u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index);
			exchange(w, s, RDMA_NLDEV_CMD_DELLINK, del.bytes(), true, ("link delete " + d.name).c_str());
			break;
		}
	}
	// Delete one extra link (this worker's or another's): a race with
	// the others' dumps, adds and deletes.
	if (w.priv && w.take()) {
		auto devs = list_devices(s);
		std::vector<Link> extra;
		for (auto &d : devs)
			if (d.name.rfind("fz", 0) == 0)
				extra.push_back(d);
		if (!extra.empty() && w.rng.chance(70)) {
			auto &d = extra[w.rng.below(extra.size())];
			Msg del(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
			del.u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index);
			exchange(w, s, RDMA_NLDEV_CMD_DELLINK, del.bytes(), true, ("link delete " + d.name).c_str());
		}
	}
	close(s);
}

// Deletes every extra link (the parent, at the end); returns how many
// are left.
unsigned delete_extra_links()
{
	int s = nl_open();
	if (s < 0)
		return 0;
	unsigned left = 0;
	for (int round = 0; round < 3; round++) {
		left = 0;
		for (auto &d : list_devices(s)) {
			if (d.name.rfind("fz", 0) != 0)
				continue;
			left++;
			Msg del(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK);
			del.u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index);
			auto &b = del.bytes();
			if (send(s, b.data(), b.size(), 0) >= 0)
				nl_collect(s, del.seq(), [](nlmsghdr *) {});
		}
		if (!left)
			break;
	}
	close(s);
	return left;
}

} // namespace fz
