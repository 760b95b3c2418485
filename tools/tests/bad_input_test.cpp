// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// BadInput: malformed or refused NLDEV requests get the upstream errno (the
// expectations are the stock kernel's answers; run with --stack stock to
// confirm), never a crash or a hang.
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

using namespace rk;

namespace {

uint16_t nldev_type(int op) { return RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op); }

void a_str(std::vector<uint8_t> &b, uint16_t t, const std::string &s)
{
	put_attr(b, t, s.c_str(), s.size() + 1);
}
void a_u32(std::vector<uint8_t> &b, uint16_t t, uint32_t v) { put_attr(b, t, &v, 4); }

} // namespace

class BadInput : public RdmaTest {
protected:
	void SetUp() override
	{
		RdmaTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		// Devices of this suite sit on a dummy so that a request that
		// wrongly succeeds cannot take eth0 away from the other tests.
		add_dummy_up(nd);
	}
	const std::string nd = "rkt_bix";

	// Sends attrs as one raw request; returns the kernel's answer.
	Status raw(uint16_t type, uint16_t flags, const std::vector<uint8_t> &attrs,
		   int timeout_ms = 30000)
	{
		auto m = build_raw(type, flags, nl.next_seq(), attrs);
		std::vector<Reply> r;
		TxOpts o;
		o.timeout_ms = timeout_ms;
		return nl.transact_raw(m.data(), m.size(), r, o);
	}
	Status newlink_raw(const std::vector<uint8_t> &attrs)
	{
		return raw(nldev_type(RDMA_NLDEV_CMD_NEWLINK), NLM_F_REQUEST | NLM_F_ACK, attrs);
	}
	uint32_t existing_index()
	{
		DevInfo d;
		if (!nldev_find(nl, "rxe_bi", d).ok()) {
			EXPECT_OK(add_rxe("rxe_bi", nd));
			EXPECT_TRUE(find("rxe_bi", d));
		}
		return d.index;
	}
	// The link must not have been created by a refused request.
	void expect_no_dev(const std::string &name)
	{
		if (in_dump(name)) {
			ADD_FAILURE() << name << " was created by a request that failed";
			DevInfo d;
			if (nldev_find(nl, name, d).ok())
				nldev_dellink(nl, d.index);
		}
	}
};

TEST_F(BadInput, UnknownLinkType)
{
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "rxe_bad", "nosuchtype", nd));
	expect_no_dev("rxe_bad");
}

TEST_F(BadInput, MissingAttributes)
{
	std::vector<uint8_t> b;
	a_str(b, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	a_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd);
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "no DEV_NAME";
	b.clear();
	a_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe_bad");
	a_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd);
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "no LINK_TYPE";
	b.clear();
	a_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe_bad");
	a_str(b, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "no NDEV_NAME";
	EXPECT_ERRNO(EINVAL, newlink_raw({})) << "no attributes";
	expect_no_dev("rxe_bad");
}

TEST_F(BadInput, BadNames)
{
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "", "rxe", nd));
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "rxe%d", "rxe", nd));
	expect_no_dev("rxe%d");
}

TEST_F(BadInput, OversizedStrings)
{
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, std::string(200, 'a'), "rxe", nd))
		<< "DEV_NAME of 200 bytes";
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, std::string(66, 'a'), "rxe", nd))
		<< "DEV_NAME of 66 chars";
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "rxe_bad", "rxe", std::string(40, 'e')))
		<< "NDEV_NAME of 40 bytes";
	// Stock's policy allows IFNAMSIZ characters + NUL: 16 chars pass
	// validation and then name no netdev.
	EXPECT_ERRNO(ENODEV, nldev_newlink(nl, "rxe_bad", "rxe", std::string(16, 'e')))
		<< "NDEV_NAME of 16 chars";
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "rxe_bad", "rxe", std::string(17, 'e')))
		<< "NDEV_NAME of 17 chars";
	EXPECT_ERRNO(EINVAL, nldev_newlink(nl, "rxe_bad", std::string(40, 'r'), nd))
		<< "LINK_TYPE of 40 bytes";
	expect_no_dev("rxe_bad");
	for (size_t n : {64u, 65u, 66u})
		expect_no_dev(std::string(n, 'a'));
}

TEST_F(BadInput, LongestValidName)
{
	const std::string n(63, 'r');
	Status s = add_rxe(n, nd);
	EXPECT_OK(s) << "63 characters fit IB_DEVICE_NAME_MAX";
	if (s.ok()) {
		EXPECT_TRUE(path_exists(ib_dev_path(n)));
	}
}

TEST_F(BadInput, NameOf64CharsIsTruncated)
{
	// Stock accepts a 64-character DEV_NAME (policy length 64 + NUL) and
	// copies it into a 64-byte buffer: the device is named by the first 63.
	const std::string n64(64, 't'), n63(63, 't');
	Status s = nldev_newlink(nl, n64, "rxe", nd);
	ibdevs.push_back(std::make_unique<ScopedIbdev>(nl, n63));
	ASSERT_OK(s);
	EXPECT_TRUE(in_dump(n63));
	EXPECT_TRUE(path_exists(ib_dev_path(n63)));
}

TEST_F(BadInput, MistypedAttributes)
{
	std::vector<uint8_t> b;
	a_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe_bad");
	a_u32(b, RDMA_NLDEV_ATTR_LINK_TYPE, 0x41414141); // u32 where a string belongs
	a_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd);
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "u32 LINK_TYPE";
	b.clear();
	a_u32(b, RDMA_NLDEV_ATTR_DEV_NAME, 0x42424242);
	a_str(b, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	a_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd);
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "u32 DEV_NAME";
	b.clear();
	a_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe_bad");
	a_str(b, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	put_attr(b, RDMA_NLDEV_ATTR_NDEV_NAME, nd.c_str(), nd.size()); // no NUL
	EXPECT_ERRNO(EINVAL, newlink_raw(b)) << "unterminated NDEV_NAME";
	expect_no_dev("rxe_bad");

	// 1-byte DEV_INDEX: too short for a u32.
	uint32_t idx = existing_index();
	b.clear();
	uint8_t one = static_cast<uint8_t>(idx);
	put_attr(b, RDMA_NLDEV_ATTR_DEV_INDEX, &one, 1);
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, b))
		<< "1-byte DEV_INDEX in GET";
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_DELLINK), NLM_F_REQUEST | NLM_F_ACK, b))
		<< "1-byte DEV_INDEX in DELLINK";
	EXPECT_TRUE(in_dump("rxe_bi"));
}

TEST_F(BadInput, UnknownAttributesIgnored)
{
	uint32_t idx = existing_index();
	std::vector<uint8_t> b;
	a_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	a_u32(b, 1000, 0xdeadbeef);
	a_u32(b, RDMA_NLDEV_ATTR_MAX + 1, 1);
	EXPECT_OK(raw(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, b));
}

TEST_F(BadInput, TruncatedAttribute)
{
	uint32_t idx = existing_index();
	// DEV_INDEX claims 12 bytes, the message ends after 8.
	std::vector<uint8_t> b;
	put_attr(b, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, 4, 12);
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, b));
	// nla_len below the header size.
	b.clear();
	put_attr(b, RDMA_NLDEV_ATTR_DEV_INDEX, &idx, 4, 2);
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_DELLINK), NLM_F_REQUEST | NLM_F_ACK, b));
	EXPECT_TRUE(in_dump("rxe_bi"));
}

TEST_F(BadInput, TruncatedMessageIgnored)
{
	uint32_t idx = existing_index();
	std::vector<uint8_t> b;
	a_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	auto m = build_raw(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK,
			   nl.next_seq(), b);
	// nlmsg_len says 16 bytes more than the datagram holds: dropped silently.
	uint32_t len = static_cast<uint32_t>(m.size() + 16);
	memcpy(m.data(), &len, 4);
	std::vector<Reply> r;
	TxOpts o;
	o.timeout_ms = 2000;
	EXPECT_ERRNO(ETIMEDOUT, nl.transact_raw(m.data(), m.size(), r, o));
	// Shorter than a netlink header.
	ASSERT_OK(nl.send_raw(m.data(), 8));
	EXPECT_ERRNO(ETIMEDOUT, nl.recv_any(r, 1000));
	// The socket still works.
	DevInfo d;
	EXPECT_OK(nldev_get(nl, idx, d));
}

TEST_F(BadInput, NoRequestFlagIgnored)
{
	// Without NLM_F_REQUEST the message is not executed; stock still ACKs
	// it (0) if NLM_F_ACK is set, and says nothing otherwise.
	uint32_t idx = existing_index();
	std::vector<uint8_t> b;
	a_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	EXPECT_OK(raw(nldev_type(RDMA_NLDEV_CMD_DELLINK), NLM_F_ACK, b));
	EXPECT_TRUE(in_dump("rxe_bi")) << "a DELLINK without NLM_F_REQUEST was executed";
	EXPECT_ERRNO(ETIMEDOUT, raw(nldev_type(RDMA_NLDEV_CMD_DELLINK), 0, b, 2000));
	EXPECT_TRUE(in_dump("rxe_bi")) << "a DELLINK without NLM_F_REQUEST was executed";
}

TEST_F(BadInput, UnknownOperations)
{
	EXPECT_ERRNO(EINVAL, raw(nldev_type(8), NLM_F_REQUEST | NLM_F_ACK, {})) << "op 8 (unused)";
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_NUM_OPS), NLM_F_REQUEST | NLM_F_ACK, {}));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(0x3ff), NLM_F_REQUEST | NLM_F_ACK, {}));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(0), NLM_F_REQUEST | NLM_F_ACK, {})) << "op 0";
	EXPECT_ERRNO(EINVAL, raw(RDMA_NL_GET_TYPE(1, 1), NLM_F_REQUEST | NLM_F_ACK, {}))
		<< "client 1 (none)";
	EXPECT_ERRNO(EINVAL, raw(RDMA_NL_GET_TYPE(0x3f, 1), NLM_F_REQUEST | NLM_F_ACK, {}))
		<< "client 63";
	// Dump flag on doit-only commands.
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_NEWLINK), NLM_F_REQUEST | NLM_F_DUMP, {}))
		<< "NEWLINK as dump";
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST | NLM_F_DUMP, {}))
		<< "SYS_GET as dump";
}

TEST_F(BadInput, UnknownNetdev)
{
	EXPECT_ERRNO(ENODEV, nldev_newlink(nl, "rxe_bad", "rxe", "rkt_nosuch"));
	EXPECT_ERRNO(ENODEV, nldev_newlink(nl, "rxe_bad", "rxe", ""));
	expect_no_dev("rxe_bad");
}

TEST_F(BadInput, SameNetdevTwice)
{
	ASSERT_OK(add_rxe("rxe0", "eth0"));
	EXPECT_ERRNO(EEXIST, nldev_newlink(nl, "rxe0", "rxe", "eth0"));
	EXPECT_ERRNO(EEXIST, nldev_newlink(nl, "rxe_other", "rxe", "eth0"));
	expect_no_dev("rxe_other");
	EXPECT_TRUE(in_dump("rxe0"));
}

TEST_F(BadInput, SameNameOtherNetdev)
{
	add_dummy_up("rkt_bi");
	ASSERT_OK(add_rxe("rxe0", "eth0"));
	EXPECT_ERRNO(ENFILE, nldev_newlink(nl, "rxe0", "rxe", "rkt_bi"));
	// The failed attempt must not have left the netdev claimed.
	EXPECT_OK(add_rxe("rxe_bi2", "rkt_bi"));
}

TEST_F(BadInput, VlanNetdevRefused)
{
	Status s = rt.add_vlan("rkt_vl", "eth0", 42);
	if (!s.ok())
		GTEST_SKIP() << "no VLAN support: " << s;
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_vl"));
	EXPECT_ERRNO(EPERM, nldev_newlink(nl, "rxe_vl", "rxe", "rkt_vl"));
	expect_no_dev("rxe_vl");
}

TEST_F(BadInput, UnknownDevIndex)
{
	const uint32_t bogus = 0x7fffff00;
	DevInfo d;
	PortInfo p;
	ResSummary r;
	EXPECT_ERRNO(EINVAL, nldev_get(nl, bogus, d));
	EXPECT_ERRNO(EINVAL, nldev_dellink(nl, bogus));
	EXPECT_ERRNO(EINVAL, nldev_port_get(nl, bogus, 1, p));
	EXPECT_ERRNO(EINVAL, nldev_res_get(nl, bogus, r));
	EXPECT_ERRNO(EINVAL, nldev_set_name(nl, bogus, "rxe_bad"));
	std::vector<PortInfo> ports;
	EXPECT_ERRNO(EINVAL, nldev_port_dump(nl, bogus, ports));
}

TEST_F(BadInput, MissingDevIndex)
{
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_REQUEST | NLM_F_ACK, {}));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_DELLINK), NLM_F_REQUEST | NLM_F_ACK, {}));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_ACK, {}));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_RES_GET), NLM_F_REQUEST | NLM_F_ACK, {}));
	uint32_t idx = existing_index();
	std::vector<uint8_t> b;
	a_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_PORT_GET), NLM_F_REQUEST | NLM_F_ACK, b))
		<< "PORT_GET doit without PORT_INDEX";
}

TEST_F(BadInput, SysSetBadMode)
{
	std::vector<uint8_t> b;
	uint8_t mode = 2;
	put_attr(b, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, &mode, 1);
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_SYS_SET), NLM_F_REQUEST | NLM_F_ACK, b));
	EXPECT_ERRNO(EINVAL, raw(nldev_type(RDMA_NLDEV_CMD_SYS_SET), NLM_F_REQUEST | NLM_F_ACK, {}))
		<< "SYS_SET without NETNS_MODE";
}

// `rdma dev set DEV netns NS`: soft devices cannot move (upstream moves
// only devices whose driver can disassociate user contexts), so a valid
// namespace is EOPNOTSUPP; a descriptor that is not a namespace is refused
// first.
TEST_F(BadInput, SetNetnsRefused)
{
	uint32_t idx = existing_index();
	int ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int notns = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(ns, 0);
	ASSERT_GE(notns, 0);

	auto set_fd = [&](uint32_t fd) {
		std::vector<uint8_t> b;
		a_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, idx);
		a_u32(b, RDMA_NLDEV_NET_NS_FD, fd);
		return raw(nldev_type(RDMA_NLDEV_CMD_SET), NLM_F_REQUEST | NLM_F_ACK, b);
	};
	EXPECT_ERRNO(EOPNOTSUPP, set_fd(ns));
	EXPECT_ERRNO(EINVAL, set_fd(notns));
	EXPECT_ERRNO(EBADF, set_fd(0x7ffffff0));
	close(ns);
	close(notns);
	DevInfo d;
	EXPECT_OK(nldev_get(nl, idx, d)) << "the device is still here";
}

// Results of the unprivileged child, in this order.
enum NpOp { kNewlink, kDellink, kSetName, kSysSet, kGetDump, kGet, kPortGet, kSysGet,
	    kResGet, kNumNp };
static const char *const kNpNames[] = {"NEWLINK", "DELLINK", "SET", "SYS_SET", "GET dump",
				       "GET doit", "PORT_GET", "SYS_GET", "RES_GET"};

TEST_F(BadInput, NonAdminCaller)
{
	const uint32_t idx = existing_index();
	int pfd[2];
	ASSERT_EQ(0, pipe(pfd));
	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		// Child: become nobody (no capabilities), then talk to the kernel.
		int res[kNumNp];
		for (int &x : res)
			x = -1;
		close(pfd[0]);
		if (setgroups(0, nullptr) || setgid(65534) || setuid(65534) || geteuid() == 0)
			_exit(2);
		RdmaNl np;
		if (!np.open().ok())
			_exit(3);
		res[kNewlink] = nldev_newlink(np, "rxe_np", "rxe", nd).err;
		res[kDellink] = nldev_dellink(np, idx).err;
		res[kSetName] = nldev_set_name(np, idx, "rxe_np2").err;
		{
			NlMsg m(RDMA_NLDEV_CMD_SYS_SET, NLM_F_REQUEST | NLM_F_ACK);
			m.u8(RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1);
			std::vector<Reply> r;
			res[kSysSet] = np.transact(m, r).err;
		}
		std::vector<DevInfo> all;
		res[kGetDump] = nldev_get_dump(np, all).err;
		DevInfo d;
		res[kGet] = nldev_get(np, idx, d).err;
		PortInfo p;
		res[kPortGet] = nldev_port_get(np, idx, 1, p).err;
		SysInfo si;
		res[kSysGet] = nldev_sys_get(np, si).err;
		ResSummary rs;
		res[kResGet] = nldev_res_get(np, idx, rs).err;
		ssize_t w = write(pfd[1], res, sizeof(res));
		_exit(w == static_cast<ssize_t>(sizeof(res)) ? 0 : 4);
	}
	close(pfd[1]);
	int res[kNumNp];
	ssize_t n = read(pfd[0], res, sizeof(res));
	close(pfd[0]);
	int st = 0;
	waitpid(pid, &st, 0);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child status " << st;
	ASSERT_EQ(static_cast<ssize_t>(sizeof(res)), n);
	for (int i = kNewlink; i <= kSysSet; i++) {
		EXPECT_EQ("EPERM", errno_name(res[i])) << kNpNames[i] << " as nobody";
	}
	for (int i = kGetDump; i < kNumNp; i++) {
		EXPECT_EQ("0", errno_name(res[i])) << kNpNames[i] << " as nobody";
	}
	expect_no_dev("rxe_np");
	EXPECT_TRUE(in_dump("rxe_bi")) << "unprivileged DELLINK/SET took effect";
}
