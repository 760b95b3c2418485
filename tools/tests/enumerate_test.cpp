// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Enumerate: the GET dump, GET/PORT_GET doit, SYS_GET, RES_GET and
// GET_CHARDEV answers, each cross-checked with sysfs (ABI.md §2, §3.1-3.2).
#include <algorithm>
#include <cerrno>
#include <functional>
#include <set>
#include <string>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fixture.h"

using namespace rk;

class Enumerate : public RdmaTest {
protected:
	void SetUp() override
	{
		RdmaTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		// Something to enumerate: rxe on eth0 and on a dummy.
		ASSERT_OK(add_rxe("rxe_en0", "eth0"));
		add_dummy_up("rkt_en1");
		ASSERT_OK(add_rxe("rxe_en1", "rkt_en1"));
	}
};

TEST_F(Enumerate, DumpListsEverySysfsDevice)
{
	std::vector<DevInfo> ack, noack;
	ASSERT_OK(nldev_get_dump(nl, ack, true));    // iproute2 style
	ASSERT_OK(nldev_get_dump(nl, noack, false)); // libibverbs style
	std::set<std::string> a, b;
	std::set<uint32_t> idx;
	for (const DevInfo &d : ack) {
		a.insert(d.name);
		EXPECT_TRUE(idx.insert(d.index).second) << "duplicate DEV_INDEX " << d.index;
	}
	for (const DevInfo &d : noack)
		b.insert(d.name);
	EXPECT_EQ(a, b);
	std::vector<std::string> sys;
	ASSERT_OK(list_dir("/sys/class/infiniband", sys));
	EXPECT_EQ(std::set<std::string>(sys.begin(), sys.end()), a);
	EXPECT_TRUE(a.count("rxe_en0"));
	EXPECT_TRUE(a.count("rxe_en1"));
}

TEST_F(Enumerate, EveryDeviceMatchesSysfs)
{
	std::vector<DevInfo> all;
	ASSERT_OK(nldev_get_dump(nl, all));
	ASSERT_GE(all.size(), 2u);
	for (const DevInfo &d : all)
		check_device(d);
}

TEST_F(Enumerate, RxeDeviceValues)
{
	for (const char *name : {"rxe_en0", "rxe_en1"}) {
		SCOPED_TRACE(name);
		DevInfo d;
		ASSERT_TRUE(find(name, d));
		const std::string nd = std::string(name) == "rxe_en0" ? "eth0" : "rkt_en1";
		Mac mac;
		ASSERT_OK(read_mac(nd, mac));
		EXPECT_EQ(RDMA_NODE_IB_CA, d.node_type);
		EXPECT_EQ(1u, d.num_ports);
		EXPECT_EQ(eui64_guid(mac), d.node_guid);
		EXPECT_EQ("roce", d.protocol.value_or("<absent>"));
		std::string parent;
		ASSERT_OK(read_sysfs(ib_dev_path(name) + "/parent", parent));
		EXPECT_EQ(nd + "\n", parent);
		PortInfo p;
		ASSERT_OK(nldev_port_get(nl, d.index, 1, p));
		EXPECT_EQ(nd, p.ndev_name.value_or("<absent>"));
		EXPECT_EQ(ifindex(nd), static_cast<int>(p.ndev_index.value_or(0)));
		std::string v;
		ASSERT_OK(read_sysfs(ib_port_path(name, 1) + "/link_layer", v));
		EXPECT_EQ("Ethernet\n", v);
		ASSERT_OK(read_sysfs(ib_port_path(name, 1) + "/gid_attrs/ndevs/0", v));
		EXPECT_EQ(nd + "\n", v);
		ASSERT_OK(read_sysfs(ib_port_path(name, 1) + "/gids/0", v));
		EXPECT_EQ(gid_sysfs(link_local_gid(mac)), v);
		std::vector<std::string> pk;
		ASSERT_OK(list_dir(ib_port_path(name, 1) + "/pkeys", pk));
		EXPECT_EQ(1u, pk.size()) << "rxe pkey_tbl_len is 1";
		std::vector<std::string> gids;
		ASSERT_OK(list_dir(ib_port_path(name, 1) + "/gids", gids));
		EXPECT_EQ(1024u, gids.size()) << "rxe gid_tbl_len is 1024";
		// Stock 6.1 rxe: sys_image_guid is the node GUID, and the device
		// capability flags (`rdma dev show -d` "caps") are 0x1223c76.
		EXPECT_EQ(d.node_guid, d.sys_image_guid.value_or(0));
		EXPECT_EQ(0x1223c76ull, d.cap_flags.value_or(0)) << std::hex << "device_cap_flags";
		EXPECT_EQ(0u, d.dim.value_or(0xff)) << "DEV_DIM";
		ASSERT_OK(read_sysfs(ib_port_path(name, 1) + "/cap_mask", v));
		EXPECT_EQ("0x00010000\n", v) << "rxe port_cap_flags = IB_PORT_CM_SUP";
		ASSERT_OK(read_sysfs(ib_port_path(name, 1) + "/rate", v));
		printf("  %s: rate %s", name, v.c_str());
	}
}

TEST_F(Enumerate, PortGetDumpEqualsDoit)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	std::vector<PortInfo> ports;
	ASSERT_OK(nldev_port_dump(nl, d.index, ports));
	ASSERT_EQ(d.num_ports, ports.size());
	for (const PortInfo &p : ports) {
		PortInfo q;
		ASSERT_OK(nldev_port_get(nl, d.index, p.port, q));
		EXPECT_EQ(p.state, q.state);
		EXPECT_EQ(p.phys_state, q.phys_state);
		EXPECT_EQ(p.ndev_name, q.ndev_name);
		EXPECT_EQ(p.ndev_index, q.ndev_index);
	}
}

TEST_F(Enumerate, PortGetOutOfRange)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	PortInfo p;
	EXPECT_ERRNO(EINVAL, nldev_port_get(nl, d.index, 0, p));
	EXPECT_ERRNO(EINVAL, nldev_port_get(nl, d.index, d.num_ports + 1, p));
	EXPECT_ERRNO(EINVAL, nldev_port_get(nl, d.index, 0xffffffff, p));
}

TEST_F(Enumerate, SysGet)
{
	SysInfo s;
	ASSERT_OK(nldev_sys_get(nl, s));
	ASSERT_TRUE(s.netns_mode.has_value()) << "SYS_GET lacks NETNS_MODE";
	EXPECT_LE(*s.netns_mode, 1u);
	ASSERT_TRUE(s.copy_on_fork.has_value()) << "SYS_GET lacks COPY_ON_FORK";
	EXPECT_EQ(1u, *s.copy_on_fork) << "6.1 always reports copy-on-fork";
}

TEST_F(Enumerate, ResGet)
{
	const std::vector<std::string> names = {"pd", "cq", "qp", "cm_id", "mr", "ctx", "srq"};
	std::vector<DevInfo> all;
	ASSERT_OK(nldev_get_dump(nl, all));
	for (const DevInfo &d : all) {
		SCOPED_TRACE(d.name);
		ResSummary r;
		ASSERT_OK(nldev_res_get(nl, d.index, r));
		EXPECT_EQ(d.index, r.dev_index);
		EXPECT_EQ(d.name, r.dev_name);
		std::vector<std::string> got;
		for (const auto &e : r.entries)
			got.push_back(e.first);
		EXPECT_EQ(names, got);
	}
	std::vector<ResSummary> dump;
	ASSERT_OK(nldev_res_dump(nl, dump));
	EXPECT_EQ(all.size(), dump.size());
}

// libibverbs' second step (ABI.md §2.4). Stock autoloads ib_uverbs; our
// stack has no uverbs client yet, which must read as EOPNOTSUPP.
TEST_F(Enumerate, ChardevUverbs)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	ChardevInfo c;
	Status s = nldev_get_chardev(nl, d.index, "uverbs", std::nullopt, c);
	if (!is_stock() && s.err == EOPNOTSUPP) {
		printf("  no uverbs client on this stack: GET_CHARDEV uverbs -> EOPNOTSUPP\n");
		return;
	}
	ASSERT_OK(s);
	EXPECT_EQ(0u, c.name.rfind("uverbs", 0)) << c.name;
	EXPECT_EQ(2u, c.abi) << "rxe uverbs ABI";
	EXPECT_EQ(14u, c.driver_id.value_or(0)) << "RDMA_DRIVER_RXE";
	struct stat st;
	const std::string node = "/dev/infiniband/" + c.name;
	if (stat(node.c_str(), &st) == 0) {
		EXPECT_EQ(c.major(), major(st.st_rdev));
		EXPECT_EQ(c.minor(), minor(st.st_rdev));
	} else {
		printf("  %s absent (no devtmpfs node); rdev %u:%u\n", node.c_str(), c.major(),
		       c.minor());
	}
	// A port is meaningless for uverbs.
	EXPECT_ERRNO(EINVAL, nldev_get_chardev(nl, d.index, "uverbs", 1u, c));
}

TEST_F(Enumerate, ChardevRdmaCm)
{
	ChardevInfo c;
	Status s = nldev_get_chardev(nl, std::nullopt, "rdma_cm", std::nullopt, c);
	if (!is_stock() && s.err == EOPNOTSUPP) {
		printf("  no rdma_cm client on this stack: GET_CHARDEV rdma_cm -> EOPNOTSUPP\n");
		return;
	}
	ASSERT_OK(s);
	EXPECT_EQ("rdma_cm", c.name);
	EXPECT_EQ(4u, c.abi);
	EXPECT_EQ(10u, c.major()) << "misc device";
}

// libibumad scans sysfs, but NLDEV answers for umadN/issmN too, per port
// (ABI.md §6): the nodes and sysfs files must agree with the answers.
TEST_F(Enumerate, ChardevUmad)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	ChardevInfo u, s;
	ASSERT_OK(nldev_get_chardev(nl, d.index, "umad", 1u, u));
	EXPECT_EQ(0u, u.name.rfind("umad", 0)) << u.name;
	EXPECT_EQ(5u, u.abi);
	EXPECT_EQ(231u, u.major());
	std::vector<const ChardevInfo *> found = {&u};
	Status st = nldev_get_chardev(nl, d.index, "issm", 1u, s);
	if (is_stock() && st.err == EOPNOTSUPP) {
		// Observed on stock 6.1 with rxe; ours answers (a difference).
		printf("  stock: GET_CHARDEV issm -> EOPNOTSUPP\n");
	} else {
		ASSERT_OK(st);
		EXPECT_EQ("issm" + u.name.substr(4), s.name);
		EXPECT_EQ(5u, s.abi);
		EXPECT_EQ(231u, s.major());
		EXPECT_EQ(u.minor() + 64, s.minor());
		found.push_back(&s);
	}
	for (const ChardevInfo *c : found) {
		const std::string sys = "/sys/class/infiniband_mad/" + c->name;
		std::string v;
		ASSERT_OK(read_sysfs(sys + "/ibdev", v));
		EXPECT_EQ("rxe_en0\n", v);
		ASSERT_OK(read_sysfs(sys + "/port", v));
		EXPECT_EQ("1\n", v);
		struct stat st;
		const std::string node = "/dev/infiniband/" + c->name;
		if (stat(node.c_str(), &st) == 0) {
			EXPECT_EQ(c->major(), major(st.st_rdev));
			EXPECT_EQ(c->minor(), minor(st.st_rdev));
		}
	}
	// Both need a port, and one that exists.
	EXPECT_ERRNO(EINVAL, nldev_get_chardev(nl, d.index, "umad", std::nullopt, u));
	if (found.size() > 1) {
		EXPECT_ERRNO(EINVAL, nldev_get_chardev(nl, d.index, "issm", 2u, s));
	}
}

TEST_F(Enumerate, ChardevErrors)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	ChardevInfo c;
	EXPECT_ERRNO(EOPNOTSUPP, nldev_get_chardev(nl, d.index, "nosuchclient", std::nullopt, c));
	EXPECT_ERRNO(EOPNOTSUPP, nldev_get_chardev(nl, std::nullopt, "nosuchclient", std::nullopt, c));
	// PORT_INDEX without DEV_INDEX, unknown DEV_INDEX, no CHARDEV_TYPE.
	EXPECT_ERRNO(EINVAL, nldev_get_chardev(nl, std::nullopt, "uverbs", 1u, c));
	EXPECT_ERRNO(EINVAL, nldev_get_chardev(nl, 0x7fffff00u, "uverbs", std::nullopt, c));
	NlMsg m(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index);
	std::vector<Reply> r;
	EXPECT_ERRNO(EINVAL, nl.transact(m, r));
}

static std::string type_set(const AttrSet &a)
{
	std::set<int> t;
	for (const Attr &x : a.attrs())
		t.insert(x.type);
	std::string s;
	for (int x : t)
		s += (s.empty() ? "" : ",") + std::to_string(x);
	return s;
}

// The exact attribute sets stock 6.1 sends for an rxe device (consumers
// ignore extras, but a missing one breaks them): no more, no less.
TEST_F(Enumerate, ReplyAttributeSets)
{
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	EXPECT_EQ(std::string("1,2,3,4,6,7,14,67,84"), type_set(d.attrs)) << "GET reply attribute types";
	PortInfo p;
	ASSERT_OK(nldev_port_get(nl, d.index, 1, p));
	EXPECT_EQ(std::string("1,2,3,12,13,50,51"), type_set(p.attrs)) << "PORT_GET reply attribute types";
	SysInfo s;
	ASSERT_OK(nldev_sys_get(nl, s));
	EXPECT_EQ(std::string("66,93,96"), type_set(s.attrs)) << "SYS_GET reply attribute types";
	NlMsg m(RDMA_NLDEV_CMD_RES_GET, NLM_F_REQUEST | NLM_F_ACK);
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index);
	std::vector<Reply> r;
	ASSERT_OK(nl.transact(m, r));
	ASSERT_EQ(1u, r.size());
	EXPECT_EQ(std::string("1,2,15"), type_set(r[0].attrs)) << "RES_GET reply attribute types";
}

// `rdma system set netns exclusive|shared` (ABI.md §2.6): with no other
// network namespace alive the mode can be changed both ways.
TEST_F(Enumerate, SysSetNetnsMode)
{
	SysInfo before;
	ASSERT_OK(nldev_sys_get(nl, before));
	auto set = [&](uint8_t mode) {
		NlMsg m(RDMA_NLDEV_CMD_SYS_SET, NLM_F_REQUEST | NLM_F_ACK);
		m.u8(RDMA_NLDEV_SYS_ATTR_NETNS_MODE, mode);
		std::vector<Reply> r;
		return nl.transact(m, r);
	};
	struct Restore {
		std::function<void()> f;
		~Restore() { f(); }
	} restore{[&] { set(before.netns_mode.value_or(1)); }};
	ASSERT_OK(set(0)) << "netns exclusive";
	SysInfo s;
	ASSERT_OK(nldev_sys_get(nl, s));
	EXPECT_EQ(0u, s.netns_mode.value_or(0xff));
	// Devices stay usable in init_net.
	DevInfo d;
	ASSERT_TRUE(find("rxe_en0", d));
	ASSERT_OK(set(1)) << "netns shared";
	ASSERT_OK(nldev_sys_get(nl, s));
	EXPECT_EQ(1u, s.netns_mode.value_or(0xff));
}
