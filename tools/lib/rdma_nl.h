// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// NETLINK_RDMA transport: RAII wrappers over libnl-3's nl_sock / nl_msg, an
// exact-length attribute parser (the checks iproute2's libmnl and libibverbs'
// libnl policy apply), and request/reply transactions that also verify the
// framing rules of ABI.md §2.1 (seq/pid echo, no NLM_F_MULTI on doit replies,
// NLMSG_DONE after dumps, ACK after a doit when NLM_F_ACK was asked for).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <linux/netlink.h>

#include RK_RDMA_NETLINK_H

struct nl_sock;
struct nl_msg;

namespace rk {

// Result of an operation: err is 0 or a positive errno. Protocol violations
// found by the harness itself use EPROTO/EBADMSG/ETIMEDOUT with a message.
struct Status {
	int err = 0;
	std::string msg;

	bool ok() const { return err == 0; }
	static Status Ok() { return {}; }
	static Status Err(int e, std::string m = {}) { return {e, std::move(m)}; }
};
std::ostream &operator<<(std::ostream &os, const Status &s);
std::string errno_name(int err); // "EINVAL" etc.

// How a consumer validates an NLDEV attribute type (ABI.md §2.3).
enum class AttrKind { Unknown, U8, U32, U64, NulString, Nested, Binary };
AttrKind nldev_attr_kind(int type);

// One attribute as received (type without NLA_F_* flag bits).
struct Attr {
	int type = 0;
	bool nested_flag = false;
	std::vector<uint8_t> data;
};

// The attributes of one message or one nest, in wire order.
class AttrSet {
public:
	// Walks the attribute stream; with validate, every known type must have
	// its exact length (u8 1, u32 4, u64 8, string NUL-terminated).
	Status parse(const uint8_t *data, size_t len, bool validate = true);

	bool has(int type) const { return index_.count(type) != 0; }
	const Attr *get(int type) const; // last occurrence
	std::vector<const Attr *> all(int type) const;
	const std::vector<Attr> &attrs() const { return attrs_; }

	std::optional<uint8_t> u8(int type) const;
	std::optional<uint32_t> u32(int type) const;
	std::optional<uint64_t> u64(int type) const;
	std::optional<std::string> str(int type) const;
	// Parses a nested attribute's payload.
	Status nested(int type, AttrSet &out) const;

private:
	std::vector<Attr> attrs_;
	std::map<int, size_t> index_;
};

// One received netlink message.
struct Reply {
	nlmsghdr hdr{};
	int error = 0;            // NLMSG_ERROR: positive errno (0 = ACK)
	std::vector<uint8_t> payload; // bytes after the nlmsghdr
	AttrSet attrs;            // parsed payload for data messages
};

// RAII nl_msg for one NLDEV request.
class NlMsg {
public:
	NlMsg(int op, int flags, int client = RDMA_NL_NLDEV);
	~NlMsg();
	NlMsg(const NlMsg &) = delete;
	NlMsg &operator=(const NlMsg &) = delete;

	NlMsg &u8(int type, uint8_t v);
	NlMsg &u32(int type, uint32_t v);
	NlMsg &u64(int type, uint64_t v);
	NlMsg &str(int type, const std::string &v); // with the NUL
	NlMsg &raw(int type, const void *data, size_t len);

	nl_msg *get() const { return msg_; }
	nlmsghdr *hdr() const;

private:
	nl_msg *msg_ = nullptr;
};

struct TxOpts {
	int timeout_ms = 30000; // a reply never takes this long, even under TCG
	bool check_framing = true;
};

// RAII NETLINK_RDMA socket.
class RdmaNl {
public:
	RdmaNl() = default;
	~RdmaNl();
	RdmaNl(const RdmaNl &) = delete;
	RdmaNl &operator=(const RdmaNl &) = delete;

	// Fails with the socket errno (EPROTONOSUPPORT when no ib_core is loaded
	// and it cannot be autoloaded).
	// recv_buf > 0: no MSG_PEEK and a fixed receive buffer of that size,
	// which also caps the kernel's dump skb size (forces multi-part dumps).
	Status open(size_t recv_buf = 0);
	bool is_open() const { return sk_ != nullptr; }
	uint32_t local_port() const;

	// Sends msg (seq is assigned here) and collects the answer:
	//   dump  (NLM_F_DUMP): data messages until NLMSG_DONE,
	//   doit: the optional data reply, then the ACK if NLM_F_ACK was set.
	// Returns the kernel errno if an NLMSG_ERROR carries one.
	Status transact(NlMsg &msg, std::vector<Reply> &out, const TxOpts &o = {});

	// Malformed requests: buf is sent as is (its seq must be unique; use
	// next_seq()). The answer is collected like transact() for seq.
	Status send_raw(const void *buf, size_t len);
	Status transact_raw(const void *buf, size_t len, std::vector<Reply> &out,
			    const TxOpts &o = {});
	// Waits up to timeout_ms for any message; ETIMEDOUT if none.
	Status recv_any(std::vector<Reply> &out, int timeout_ms);
	uint32_t next_seq() { return ++seq_; }
	// Datagrams read by the last transact() (dump continuation checks).
	unsigned last_datagrams() const { return datagrams_; }

private:
	Status collect(uint32_t seq, uint16_t flags, std::vector<Reply> &out,
		       const TxOpts &o);
	Status recv_batch(std::vector<Reply> &out, int timeout_ms);

	nl_sock *sk_ = nullptr;
	uint32_t seq_ = 0;
	unsigned datagrams_ = 0;
};

// Builds a raw NLDEV message from already-encoded attributes (for malformed
// input tests); attrs are appended verbatim.
std::vector<uint8_t> build_raw(uint16_t type, uint16_t flags, uint32_t seq,
			       const std::vector<uint8_t> &attrs);
// Encodes one attribute header+payload with padding; len_override lets the
// caller lie about nla_len.
void put_attr(std::vector<uint8_t> &buf, uint16_t type, const void *data,
	      size_t len, int len_override = -1);

} // namespace rk
