// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "rdma_nl.h"

#include <cerrno>
#include <cstring>
#include <sstream>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

// The numbers the harness relies on (ABI.md Appendix A). If the header in
// use disagrees, the build fails here rather than the tests lying.
static_assert(RDMA_NL_NLDEV == 5);
static_assert(RDMA_NLDEV_CMD_GET == 1 && RDMA_NLDEV_CMD_SET == 2);
static_assert(RDMA_NLDEV_CMD_NEWLINK == 3 && RDMA_NLDEV_CMD_DELLINK == 4);
static_assert(RDMA_NLDEV_CMD_PORT_GET == 5 && RDMA_NLDEV_CMD_SYS_GET == 6);
static_assert(RDMA_NLDEV_CMD_RES_GET == 9 && RDMA_NLDEV_CMD_GET_CHARDEV == 15);
static_assert(RDMA_NLDEV_NUM_OPS == 25);
static_assert(RDMA_NLDEV_ATTR_DEV_INDEX == 1 && RDMA_NLDEV_ATTR_DEV_NAME == 2);
static_assert(RDMA_NLDEV_ATTR_PORT_INDEX == 3 && RDMA_NLDEV_ATTR_CAP_FLAGS == 4);
static_assert(RDMA_NLDEV_ATTR_FW_VERSION == 5 && RDMA_NLDEV_ATTR_NODE_GUID == 6);
static_assert(RDMA_NLDEV_ATTR_SYS_IMAGE_GUID == 7 && RDMA_NLDEV_ATTR_LMC == 11);
static_assert(RDMA_NLDEV_ATTR_PORT_STATE == 12 && RDMA_NLDEV_ATTR_PORT_PHYS_STATE == 13);
static_assert(RDMA_NLDEV_ATTR_DEV_NODE_TYPE == 14 && RDMA_NLDEV_ATTR_RES_SUMMARY == 15);
static_assert(RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR == 18);
static_assert(RDMA_NLDEV_ATTR_NDEV_INDEX == 50 && RDMA_NLDEV_ATTR_NDEV_NAME == 51);
static_assert(RDMA_NLDEV_ATTR_LINK_TYPE == 65 && RDMA_NLDEV_SYS_ATTR_NETNS_MODE == 66);
static_assert(RDMA_NLDEV_ATTR_DEV_PROTOCOL == 67 && RDMA_NLDEV_NET_NS_FD == 68);
static_assert(RDMA_NLDEV_ATTR_CHARDEV_TYPE == 69 && RDMA_NLDEV_ATTR_CHARDEV == 72);
static_assert(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID == 73 && RDMA_NLDEV_ATTR_DEV_DIM == 84);
static_assert(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK == 93);
static_assert(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET) == 0x1401);

namespace rk {

std::string errno_name(int err)
{
	switch (err) {
	case 0: return "0";
#define E(x) case x: return #x
	E(EPERM); E(ENOENT); E(EIO); E(ENXIO); E(E2BIG); E(EBADF); E(EAGAIN);
	E(ENOMEM); E(EACCES); E(EFAULT); E(EBUSY); E(EEXIST); E(ENODEV);
	E(EINVAL); E(ENFILE); E(EMFILE); E(ENOSPC); E(ERANGE); E(ENOSYS);
	E(ENAMETOOLONG); E(EOPNOTSUPP); E(EPROTO); E(EBADMSG); E(ETIMEDOUT);
	E(EPROTONOSUPPORT); E(EAFNOSUPPORT); E(EMSGSIZE); E(ENOBUFS);
	E(ENOTCONN); E(ENOTTY);
#undef E
	default: return "errno " + std::to_string(err);
	}
}

std::ostream &operator<<(std::ostream &os, const Status &s)
{
	os << errno_name(s.err);
	if (!s.msg.empty())
		os << " (" << s.msg << ")";
	return os;
}

AttrKind nldev_attr_kind(int t)
{
	switch (t) {
	case RDMA_NLDEV_ATTR_LMC:
	case RDMA_NLDEV_ATTR_PORT_STATE:
	case RDMA_NLDEV_ATTR_PORT_PHYS_STATE:
	case RDMA_NLDEV_ATTR_DEV_NODE_TYPE:
	case RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE:
	case RDMA_NLDEV_ATTR_RES_TYPE:
	case RDMA_NLDEV_ATTR_RES_STATE:
	case RDMA_NLDEV_ATTR_RES_POLL_CTX:
	case RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE:
	case RDMA_NLDEV_SYS_ATTR_NETNS_MODE:
	case RDMA_NLDEV_ATTR_DEV_DIM:
	case RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK:
	case 96: // SYS_ATTR_PRIVILEGED_QKEY_MODE (Debian backport)
	case 97: // DRIVER_DETAILS
		return AttrKind::U8;
	case RDMA_NLDEV_ATTR_DEV_INDEX:
	case RDMA_NLDEV_ATTR_PORT_INDEX:
	case RDMA_NLDEV_ATTR_LID:
	case RDMA_NLDEV_ATTR_SM_LID:
	case RDMA_NLDEV_ATTR_RES_LQPN:
	case RDMA_NLDEV_ATTR_RES_RQPN:
	case RDMA_NLDEV_ATTR_RES_RQ_PSN:
	case RDMA_NLDEV_ATTR_RES_SQ_PSN:
	case RDMA_NLDEV_ATTR_RES_PID:
	case RDMA_NLDEV_ATTR_RES_PS:
	case RDMA_NLDEV_ATTR_RES_CQE:
	case RDMA_NLDEV_ATTR_RES_RKEY:
	case RDMA_NLDEV_ATTR_RES_LKEY:
	case RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY:
	case RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY:
	case RDMA_NLDEV_ATTR_NDEV_INDEX:
	case RDMA_NLDEV_ATTR_DRIVER_U32:
	case RDMA_NLDEV_ATTR_RES_PDN:
	case RDMA_NLDEV_ATTR_RES_CQN:
	case RDMA_NLDEV_ATTR_RES_MRN:
	case RDMA_NLDEV_ATTR_RES_CM_IDN:
	case RDMA_NLDEV_ATTR_RES_CTXN:
	case RDMA_NLDEV_NET_NS_FD:
	case RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID:
	case RDMA_NLDEV_ATTR_RES_SRQN:
	case RDMA_NLDEV_ATTR_MIN_RANGE:
	case RDMA_NLDEV_ATTR_MAX_RANGE:
		return AttrKind::U32;
	case RDMA_NLDEV_ATTR_CAP_FLAGS:
	case RDMA_NLDEV_ATTR_NODE_GUID:
	case RDMA_NLDEV_ATTR_SYS_IMAGE_GUID:
	case RDMA_NLDEV_ATTR_SUBNET_PREFIX:
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR:
	case RDMA_NLDEV_ATTR_RES_USECNT:
	case RDMA_NLDEV_ATTR_RES_IOVA:
	case RDMA_NLDEV_ATTR_RES_MRLEN:
	case RDMA_NLDEV_ATTR_DRIVER_U64:
	case RDMA_NLDEV_ATTR_CHARDEV_ABI:
	case RDMA_NLDEV_ATTR_CHARDEV:
		return AttrKind::U64;
	case RDMA_NLDEV_ATTR_DEV_NAME:
	case RDMA_NLDEV_ATTR_FW_VERSION:
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME:
	case RDMA_NLDEV_ATTR_RES_KERN_NAME:
	case RDMA_NLDEV_ATTR_NDEV_NAME:
	case RDMA_NLDEV_ATTR_DRIVER_STRING:
	case RDMA_NLDEV_ATTR_LINK_TYPE:
	case RDMA_NLDEV_ATTR_DEV_PROTOCOL:
	case RDMA_NLDEV_ATTR_CHARDEV_TYPE:
	case RDMA_NLDEV_ATTR_CHARDEV_NAME:
	case 98: // RES_SUBTYPE
		return AttrKind::NulString;
	case RDMA_NLDEV_ATTR_RES_SUMMARY:
	case RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY:
	case RDMA_NLDEV_ATTR_RES_QP:
	case RDMA_NLDEV_ATTR_RES_QP_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CM_ID:
	case RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CQ:
	case RDMA_NLDEV_ATTR_RES_CQ_ENTRY:
	case RDMA_NLDEV_ATTR_RES_MR:
	case RDMA_NLDEV_ATTR_RES_MR_ENTRY:
	case RDMA_NLDEV_ATTR_RES_PD:
	case RDMA_NLDEV_ATTR_RES_PD_ENTRY:
	case RDMA_NLDEV_ATTR_DRIVER:
	case RDMA_NLDEV_ATTR_DRIVER_ENTRY:
	case RDMA_NLDEV_ATTR_RES_CTX:
	case RDMA_NLDEV_ATTR_RES_CTX_ENTRY:
	case RDMA_NLDEV_ATTR_RES_SRQ:
	case RDMA_NLDEV_ATTR_RES_SRQ_ENTRY:
		return AttrKind::Nested;
	case RDMA_NLDEV_ATTR_RES_SRC_ADDR:
	case RDMA_NLDEV_ATTR_RES_DST_ADDR:
	case RDMA_NLDEV_ATTR_RES_RAW:
		return AttrKind::Binary;
	default:
		return AttrKind::Unknown;
	}
}

static Status check_len(int type, AttrKind k, const uint8_t *p, size_t len)
{
	auto bad = [&](const char *what) {
		std::ostringstream os;
		os << "attribute " << type << ": " << what << " (payload " << len
		   << " bytes)";
		return Status::Err(EBADMSG, os.str());
	};
	switch (k) {
	case AttrKind::U8:
		return len == 1 ? Status::Ok() : bad("u8 must be exactly 1 byte");
	case AttrKind::U32:
		return len == 4 ? Status::Ok() : bad("u32 must be exactly 4 bytes");
	case AttrKind::U64:
		return len == 8 ? Status::Ok() : bad("u64 must be exactly 8 bytes");
	case AttrKind::NulString:
		if (len == 0 || p[len - 1] != '\0')
			return bad("string must be NUL-terminated");
		return Status::Ok();
	default:
		return Status::Ok();
	}
}

Status AttrSet::parse(const uint8_t *data, size_t len, bool validate)
{
	attrs_.clear();
	index_.clear();
	size_t off = 0;
	while (off + NLA_HDRLEN <= len) {
		nlattr a;
		memcpy(&a, data + off, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || off + a.nla_len > len) {
			std::ostringstream os;
			os << "attribute at offset " << off << " has nla_len "
			   << a.nla_len << " beyond the message (" << len << ")";
			return Status::Err(EBADMSG, os.str());
		}
		Attr at;
		at.type = a.nla_type & NLA_TYPE_MASK;
		at.nested_flag = (a.nla_type & NLA_F_NESTED) != 0;
		at.data.assign(data + off + NLA_HDRLEN, data + off + a.nla_len);
		if (validate) {
			Status s = check_len(at.type, nldev_attr_kind(at.type),
					     at.data.data(), at.data.size());
			if (!s.ok())
				return s;
		}
		index_[at.type] = attrs_.size();
		attrs_.push_back(std::move(at));
		off += NLA_ALIGN(a.nla_len);
	}
	if (off < len && len - off >= NLA_HDRLEN)
		return Status::Err(EBADMSG, "trailing bytes after attributes");
	return Status::Ok();
}

const Attr *AttrSet::get(int type) const
{
	auto it = index_.find(type);
	return it == index_.end() ? nullptr : &attrs_[it->second];
}

std::vector<const Attr *> AttrSet::all(int type) const
{
	std::vector<const Attr *> v;
	for (const Attr &a : attrs_)
		if (a.type == type)
			v.push_back(&a);
	return v;
}

template <typename T> static std::optional<T> fixed(const Attr *a)
{
	if (!a || a->data.size() != sizeof(T))
		return std::nullopt;
	T v;
	memcpy(&v, a->data.data(), sizeof(T));
	return v;
}

std::optional<uint8_t> AttrSet::u8(int t) const { return fixed<uint8_t>(get(t)); }
std::optional<uint32_t> AttrSet::u32(int t) const { return fixed<uint32_t>(get(t)); }
std::optional<uint64_t> AttrSet::u64(int t) const { return fixed<uint64_t>(get(t)); }

std::optional<std::string> AttrSet::str(int t) const
{
	const Attr *a = get(t);
	if (!a || a->data.empty() || a->data.back() != '\0')
		return std::nullopt;
	return std::string(reinterpret_cast<const char *>(a->data.data()));
}

Status AttrSet::nested(int type, AttrSet &out) const
{
	const Attr *a = get(type);
	if (!a)
		return Status::Err(ENOENT, "nest " + std::to_string(type) + " absent");
	return out.parse(a->data.data(), a->data.size());
}

// ---------------------------------------------------------------- NlMsg

NlMsg::NlMsg(int op, int flags, int client)
{
	msg_ = nlmsg_alloc_simple(RDMA_NL_GET_TYPE(client, op), flags);
}

NlMsg::~NlMsg()
{
	if (msg_)
		nlmsg_free(msg_);
}

nlmsghdr *NlMsg::hdr() const { return nlmsg_hdr(msg_); }

NlMsg &NlMsg::u8(int t, uint8_t v) { nla_put_u8(msg_, t, v); return *this; }
NlMsg &NlMsg::u32(int t, uint32_t v) { nla_put_u32(msg_, t, v); return *this; }
NlMsg &NlMsg::u64(int t, uint64_t v) { nla_put_u64(msg_, t, v); return *this; }
NlMsg &NlMsg::str(int t, const std::string &v)
{
	nla_put_string(msg_, t, v.c_str());
	return *this;
}
NlMsg &NlMsg::raw(int t, const void *d, size_t len)
{
	nla_put(msg_, t, static_cast<int>(len), d);
	return *this;
}

// ---------------------------------------------------------------- raw builders

void put_attr(std::vector<uint8_t> &buf, uint16_t type, const void *data,
	      size_t len, int len_override)
{
	nlattr a;
	a.nla_len = len_override >= 0 ? static_cast<uint16_t>(len_override)
				      : static_cast<uint16_t>(NLA_HDRLEN + len);
	a.nla_type = type;
	const uint8_t *ap = reinterpret_cast<const uint8_t *>(&a);
	buf.insert(buf.end(), ap, ap + sizeof(a));
	const uint8_t *dp = static_cast<const uint8_t *>(data);
	if (len)
		buf.insert(buf.end(), dp, dp + len);
	buf.resize(buf.size() + (NLA_ALIGN(NLA_HDRLEN + len) - (NLA_HDRLEN + len)), 0);
}

std::vector<uint8_t> build_raw(uint16_t type, uint16_t flags, uint32_t seq,
			       const std::vector<uint8_t> &attrs)
{
	nlmsghdr h{};
	h.nlmsg_len = static_cast<uint32_t>(NLMSG_HDRLEN + attrs.size());
	h.nlmsg_type = type;
	h.nlmsg_flags = flags;
	h.nlmsg_seq = seq;
	std::vector<uint8_t> buf(NLMSG_HDRLEN + attrs.size(), 0);
	memcpy(buf.data(), &h, sizeof(h));
	if (!attrs.empty())
		memcpy(buf.data() + NLMSG_HDRLEN, attrs.data(), attrs.size());
	return buf;
}

// ---------------------------------------------------------------- RdmaNl

RdmaNl::~RdmaNl()
{
	if (sk_)
		nl_socket_free(sk_); // closes the fd too
}

Status RdmaNl::open(size_t recv_buf)
{
	// Probe with a plain socket() first: libnl maps errno to its own codes.
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
	if (fd < 0)
		return Status::Err(errno, "socket(AF_NETLINK, NETLINK_RDMA)");
	close(fd);

	sk_ = nl_socket_alloc();
	if (!sk_)
		return Status::Err(ENOMEM, "nl_socket_alloc");
	nl_socket_disable_auto_ack(sk_);
	nl_socket_disable_seq_check(sk_);
	if (recv_buf) {
		nl_socket_disable_msg_peek(sk_);
		nl_socket_set_msg_buf_size(sk_, recv_buf);
	}
	int err = nl_connect(sk_, NETLINK_RDMA);
	if (err < 0) {
		nl_socket_free(sk_);
		sk_ = nullptr;
		return Status::Err(EIO, std::string("nl_connect: ") + nl_geterror(err));
	}
	int one = 1;
	// Extended ACKs carry the kernel's error text: better failure reports.
	setsockopt(nl_socket_get_fd(sk_), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	seq_ = static_cast<uint32_t>(time(nullptr));
	return Status::Ok();
}

uint32_t RdmaNl::local_port() const { return sk_ ? nl_socket_get_local_port(sk_) : 0; }

Status RdmaNl::send_raw(const void *buf, size_t len)
{
	if (!sk_)
		return Status::Err(ENOTCONN, "socket not open");
	int n = nl_sendto(sk_, const_cast<void *>(buf), len);
	if (n < 0)
		return Status::Err(EIO, std::string("nl_sendto: ") + nl_geterror(n));
	return Status::Ok();
}

Status RdmaNl::transact(NlMsg &msg, std::vector<Reply> &out, const TxOpts &o)
{
	nlmsghdr *h = msg.hdr();
	h->nlmsg_seq = next_seq();
	h->nlmsg_pid = 0;
	Status s = send_raw(h, h->nlmsg_len);
	if (!s.ok())
		return s;
	return collect(h->nlmsg_seq, h->nlmsg_flags, out, o);
}

Status RdmaNl::transact_raw(const void *buf, size_t len, std::vector<Reply> &out,
			    const TxOpts &o)
{
	nlmsghdr h;
	if (len < sizeof(h))
		return Status::Err(EINVAL, "raw message shorter than nlmsghdr");
	memcpy(&h, buf, sizeof(h));
	Status s = send_raw(buf, len);
	if (!s.ok())
		return s;
	return collect(h.nlmsg_seq, h.nlmsg_flags, out, o);
}

static void parse_error(Reply &r)
{
	nlmsgerr e;
	if (r.payload.size() < sizeof(e.error)) {
		r.error = EPROTO;
		return;
	}
	memcpy(&e.error, r.payload.data(), sizeof(e.error));
	r.error = -e.error;
}

// Text of NLMSGERR_ATTR_MSG if the kernel attached one (NETLINK_EXT_ACK).
static std::string extack_msg(const Reply &r)
{
	if (!(r.hdr.nlmsg_flags & NLM_F_ACK_TLVS) || r.payload.size() < sizeof(nlmsgerr))
		return {};
	nlmsghdr orig;
	memcpy(&orig, r.payload.data() + sizeof(int), sizeof(orig));
	size_t off = sizeof(int) + ((r.hdr.nlmsg_flags & NLM_F_CAPPED) ?
		     sizeof(nlmsghdr) : NLMSG_ALIGN(orig.nlmsg_len));
	if (off >= r.payload.size())
		return {};
	AttrSet tlv;
	if (!tlv.parse(r.payload.data() + off, r.payload.size() - off, false).ok())
		return {};
	const Attr *m = tlv.get(NLMSGERR_ATTR_MSG);
	if (!m || m->data.empty())
		return {};
	return std::string(reinterpret_cast<const char *>(m->data.data()),
			   strnlen(reinterpret_cast<const char *>(m->data.data()), m->data.size()));
}

Status RdmaNl::recv_batch(std::vector<Reply> &out, int timeout_ms)
{
	pollfd p{nl_socket_get_fd(sk_), POLLIN, 0};
	int n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return Status::Err(errno, "poll");
	if (n == 0)
		return Status::Err(ETIMEDOUT, "no netlink reply within " +
				   std::to_string(timeout_ms) + " ms");
	sockaddr_nl peer{};
	unsigned char *buf = nullptr;
	int len = nl_recv(sk_, &peer, &buf, nullptr);
	if (len < 0)
		return Status::Err(EIO, std::string("nl_recv: ") + nl_geterror(len));
	size_t off = 0;
	while (off + sizeof(nlmsghdr) <= static_cast<size_t>(len)) {
		Reply r;
		memcpy(&r.hdr, buf + off, sizeof(r.hdr));
		if (r.hdr.nlmsg_len < sizeof(nlmsghdr) || off + r.hdr.nlmsg_len > static_cast<size_t>(len)) {
			free(buf);
			return Status::Err(EBADMSG, "bad nlmsg_len in reply");
		}
		r.payload.assign(buf + off + NLMSG_HDRLEN, buf + off + r.hdr.nlmsg_len);
		if (r.hdr.nlmsg_type == NLMSG_ERROR)
			parse_error(r);
		off += NLMSG_ALIGN(r.hdr.nlmsg_len);
		out.push_back(std::move(r));
	}
	free(buf);
	return Status::Ok();
}

Status RdmaNl::recv_any(std::vector<Reply> &out, int timeout_ms)
{
	return recv_batch(out, timeout_ms);
}

Status RdmaNl::collect(uint32_t seq, uint16_t flags, std::vector<Reply> &out,
		       const TxOpts &o)
{
	const bool dump = (flags & NLM_F_DUMP) == NLM_F_DUMP;
	const bool ack = flags & NLM_F_ACK;
	size_t data_msgs = 0;
	datagrams_ = 0;

	for (;;) {
		std::vector<Reply> batch;
		Status s = recv_batch(batch, o.timeout_ms);
		if (!s.ok())
			return s;
		datagrams_++;
		for (Reply &r : batch) {
			if (r.hdr.nlmsg_seq != seq)
				continue; // stale answer to an earlier, abandoned request
			if (o.check_framing && r.hdr.nlmsg_pid != local_port())
				return Status::Err(EPROTO, "reply nlmsg_pid " +
						   std::to_string(r.hdr.nlmsg_pid) +
						   " != our port " +
						   std::to_string(local_port()));
			if (r.hdr.nlmsg_type == NLMSG_ERROR) {
				if (r.error)
					return Status::Err(r.error, extack_msg(r));
				// A plain ACK ends a doit (and, tolerated, a dump).
				return Status::Ok();
			}
			if (r.hdr.nlmsg_type == NLMSG_DONE) {
				if (!dump && o.check_framing)
					return Status::Err(EPROTO, "NLMSG_DONE after a doit request");
				int derr = 0;
				if (r.payload.size() >= sizeof(int))
					memcpy(&derr, r.payload.data(), sizeof(int));
				if (derr)
					return Status::Err(-derr, "error in NLMSG_DONE");
				return Status::Ok();
			}
			if (o.check_framing) {
				bool multi = r.hdr.nlmsg_flags & NLM_F_MULTI;
				if (dump && !multi)
					return Status::Err(EPROTO, "dump reply without NLM_F_MULTI");
				if (!dump && multi)
					return Status::Err(EPROTO, "doit reply with NLM_F_MULTI (libnl would block)");
				if (!dump && data_msgs)
					return Status::Err(EPROTO, "more than one doit reply message");
			}
			Status ps = r.attrs.parse(r.payload.data(), r.payload.size());
			if (!ps.ok()) {
				ps.msg = "reply type 0x" + [&] {
					std::ostringstream os;
					os << std::hex << r.hdr.nlmsg_type;
					return os.str();
				}() + ": " + ps.msg;
				return ps;
			}
			out.push_back(std::move(r));
			data_msgs++;
			if (!dump && !ack)
				return Status::Ok();
		}
	}
}

} // namespace rk
