// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "fixture.h"

#include <algorithm>
#include <cerrno>
#include <regex>

#include <unistd.h>

using namespace rk;

void RdmaTest::SetUp()
{
	if (geteuid() != 0) {
		if (in_vm())
			FAIL() << "must run as root in the VM";
		GTEST_SKIP() << "not root and not in the VM runner";
	}
	Status s = nl.open();
	if (!s.ok()) {
		if (in_vm())
			FAIL() << "cannot open NETLINK_RDMA in the VM (ib_core not loadable?): " << s;
		GTEST_SKIP() << "no NETLINK_RDMA on this kernel (" << s
			     << "); kernel tests run in the VM: scripts/vm/run.sh --test core_tests";
	}
	ASSERT_OK(rt.open());
	// Leftovers of a crashed earlier run would make NEWLINK fail with EEXIST.
	std::vector<std::string> nds;
	if (list_dir("/sys/class/net", nds).ok())
		for (const std::string &n : nds)
			if (n.rfind(kPrefix, 0) == 0)
				rt.del(n);
}

Status RdmaTest::add_rxe(const std::string &name, const std::string &ndev)
{
	Status s = nldev_newlink(nl, name, "rxe", ndev);
	if (s.ok())
		ibdevs.push_back(std::make_unique<ScopedIbdev>(nl, name));
	return s;
}

bool RdmaTest::find(const std::string &name, DevInfo &d)
{
	Status s = nldev_find(nl, name, d);
	if (!s.ok()) {
		ADD_FAILURE() << "lookup of ib device " << name << ": " << s;
		return false;
	}
	return true;
}

bool RdmaTest::in_dump(const std::string &name)
{
	std::vector<DevInfo> all;
	Status s = nldev_get_dump(nl, all);
	if (!s.ok()) {
		ADD_FAILURE() << "GET dump: " << s;
		return false;
	}
	return std::any_of(all.begin(), all.end(),
			   [&](const DevInfo &d) { return d.name == name; });
}

void RdmaTest::add_dummy_up(const std::string &name)
{
	Status s = rt.add_dummy(name);
	ASSERT_TRUE(s.ok()) << "add dummy " << name << ": " << s;
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, name));
	ASSERT_OK(rt.set_up(name, true));
}

bool RdmaTest::port_state_is(const DevInfo &d, uint8_t state, uint8_t phys,
			     std::string *why)
{
	PortInfo p;
	Status s = nldev_port_get(nl, d.index, 1, p);
	if (!s.ok()) {
		*why = "PORT_GET: " + errno_name(s.err) + " " + s.msg;
		return false;
	}
	std::string st, ps;
	read_sysfs(ib_port_path(d.name, 1) + "/state", st);
	read_sysfs(ib_port_path(d.name, 1) + "/phys_state", ps);
	std::string want_st = std::to_string(state) + ": " + port_state_name(state) + "\n";
	std::string want_ps = std::to_string(phys) + ": " + phys_state_sysfs_name(phys) + "\n";
	*why = "netlink state/phys " + std::to_string(p.state) + "/" +
	       std::to_string(p.phys_state) + ", sysfs '" + st + "' / '" + ps + "'";
	return p.state == state && p.phys_state == phys && st == want_st && ps == want_ps;
}

std::vector<unsigned> RdmaTest::gid_indices(const std::string &dev, uint32_t port,
					    const Gid &gid)
{
	std::vector<unsigned> idx;
	const std::string want = gid_sysfs(gid);
	const std::string dir = ib_port_path(dev, port) + "/gids/";
	std::string v;
	for (unsigned i = 0;; i++) {
		if (!read_sysfs(dir + std::to_string(i), v).ok())
			break; // end of table
		if (v == want)
			idx.push_back(i);
	}
	return idx;
}

// Sorted (type, payload) pairs: attribute order is not part of the ABI.
static std::vector<std::pair<int, std::vector<uint8_t>>> canon(const AttrSet &a)
{
	std::vector<std::pair<int, std::vector<uint8_t>>> v;
	for (const Attr &x : a.attrs())
		v.emplace_back(x.type, x.data);
	std::sort(v.begin(), v.end());
	return v;
}

static bool is_numeric(const std::string &s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), ::isdigit);
}

void RdmaTest::check_device(const DevInfo &d)
{
	SCOPED_TRACE("ib device " + d.name + " (index " + std::to_string(d.index) + ")");
	const std::string dp = ib_dev_path(d.name);
	ASSERT_TRUE(path_exists(dp)) << dp;

	// The real kernel's GET reply carries all of these (ABI.md §2.4).
	for (int t : {RDMA_NLDEV_ATTR_CAP_FLAGS, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
		      RDMA_NLDEV_ATTR_DEV_DIM, RDMA_NLDEV_ATTR_DEV_PROTOCOL})
		EXPECT_TRUE(d.attrs.has(t)) << "GET reply lacks attribute " << t;

	std::string v;
	unsigned num;
	std::string name;
	ASSERT_OK(read_sysfs(dp + "/node_type", v));
	ASSERT_TRUE(parse_num_name(v, num, name)) << "node_type '" << v << "'";
	EXPECT_EQ(d.node_type, num);
	EXPECT_EQ(node_type_sysfs_name(d.node_type), name);

	ASSERT_OK(read_sysfs(dp + "/node_guid", v));
	EXPECT_EQ(guid_sysfs(d.node_guid), v) << "node_guid sysfs vs netlink";

	ASSERT_OK(read_sysfs(dp + "/sys_image_guid", v));
	uint64_t sig;
	EXPECT_TRUE(parse_guid_sysfs(v, sig)) << "sys_image_guid '" << v << "'";
	if (d.sys_image_guid) {
		EXPECT_EQ(guid_sysfs(*d.sys_image_guid), v) << "sys_image_guid sysfs vs netlink";
	}

	ASSERT_OK(read_sysfs(dp + "/fw_ver", v));
	ASSERT_FALSE(v.empty());
	EXPECT_EQ('\n', v.back());
	if (v == "\n") {
		EXPECT_FALSE(d.fw_ver.has_value()) << "empty fw_ver must not be sent";
	} else {
		EXPECT_EQ(d.fw_ver.value_or("<absent>") + "\n", v);
	}

	if (d.dim) {
		EXPECT_LE(*d.dim, 1u);
	}

	std::vector<std::string> ports;
	ASSERT_OK(list_dir(dp + "/ports", ports));
	EXPECT_EQ(d.num_ports, ports.size()) << "ports/ entries vs PORT_INDEX";
	for (const std::string &p : ports) {
		EXPECT_TRUE(is_numeric(p)) << "non-numeric ports/ entry '" << p << "'";
	}

	// GET doit gives the same answer as the dump, with and without ACK.
	DevInfo one;
	ASSERT_OK(nldev_get(nl, d.index, one, true));
	EXPECT_EQ(canon(d.attrs), canon(one.attrs)) << "GET doit differs from dump";
	DevInfo one_noack;
	ASSERT_OK(nldev_get(nl, d.index, one_noack, false));
	EXPECT_EQ(canon(d.attrs), canon(one_noack.attrs)) << "GET doit (no ACK) differs";

	for (uint32_t p = 1; p <= d.num_ports; p++)
		check_port(d, p);
}

void RdmaTest::check_port(const DevInfo &d, uint32_t port)
{
	SCOPED_TRACE("port " + std::to_string(port));
	const std::string pp = ib_port_path(d.name, port);
	ASSERT_TRUE(path_exists(pp)) << pp;

	PortInfo p, p2;
	ASSERT_OK(nldev_port_get(nl, d.index, port, p, true));
	ASSERT_OK(nldev_port_get(nl, d.index, port, p2, false));
	EXPECT_EQ(canon(p.attrs), canon(p2.attrs)) << "PORT_GET with/without ACK differ";
	EXPECT_EQ(d.index, p.dev_index);
	EXPECT_EQ(d.name, p.dev_name);
	EXPECT_EQ(port, p.port);

	std::string v, name;
	unsigned num;
	ASSERT_OK(read_sysfs(pp + "/state", v));
	ASSERT_TRUE(parse_num_name(v, num, name)) << "state '" << v << "'";
	EXPECT_EQ(p.state, num);
	EXPECT_EQ(port_state_name(p.state), name);
	ASSERT_OK(read_sysfs(pp + "/phys_state", v));
	ASSERT_TRUE(parse_num_name(v, num, name)) << "phys_state '" << v << "'";
	EXPECT_EQ(p.phys_state, num);
	EXPECT_EQ(phys_state_sysfs_name(p.phys_state), name);

	std::string ll;
	ASSERT_OK(read_sysfs(pp + "/link_layer", ll));
	EXPECT_TRUE(ll == "InfiniBand\n" || ll == "Ethernet\n" || ll == "Unknown\n") << ll;
	if (ll == "Ethernet\n") {
		// IB-only attributes are not sent for RoCE ports (ABI.md §2.6).
		for (int t : {RDMA_NLDEV_ATTR_CAP_FLAGS, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
			      RDMA_NLDEV_ATTR_LID, RDMA_NLDEV_ATTR_SM_LID, RDMA_NLDEV_ATTR_LMC})
			EXPECT_FALSE(p.attrs.has(t)) << "RoCE PORT_GET carries IB attribute " << t;
		EXPECT_EQ("roce", d.protocol.value_or("<absent>"));
	}

	ASSERT_OK(read_sysfs(pp + "/cap_mask", v));
	EXPECT_TRUE(std::regex_match(v, std::regex("^0x[0-9a-f]{8}\n$"))) << "cap_mask '" << v << "'";
	if (p.cap_flags) {
		char b[32];
		snprintf(b, sizeof(b), "0x%08x\n", static_cast<unsigned>(*p.cap_flags & 0xffffffff));
		EXPECT_EQ(b, v) << "cap_mask vs netlink CAP_FLAGS";
	}
	ASSERT_OK(read_sysfs(pp + "/rate", v));
	EXPECT_TRUE(is_rate_format(v)) << "rate '" << v << "'";
	for (const char *f : {"lid", "sm_lid"}) {
		ASSERT_OK(read_sysfs(pp + "/" + f, v));
		EXPECT_TRUE(std::regex_match(v, std::regex("^0x[0-9a-f]+\n$"))) << f << " '" << v << "'";
	}
	for (const char *f : {"lid_mask_count", "sm_sl"}) {
		ASSERT_OK(read_sysfs(pp + "/" + f, v));
		EXPECT_TRUE(std::regex_match(v, std::regex("^[0-9]+\n$"))) << f << " '" << v << "'";
	}

	if (p.ndev_name) {
		ASSERT_TRUE(p.ndev_index.has_value()) << "NDEV_NAME without NDEV_INDEX";
		EXPECT_EQ(ifindex(*p.ndev_name), static_cast<int>(*p.ndev_index));
	}

	// GID table: every index < len present, fixed format, attrs consistent.
	std::vector<std::string> gids;
	ASSERT_OK(list_dir(pp + "/gids", gids));
	ASSERT_FALSE(gids.empty());
	for (size_t i = 0; i < gids.size(); i++) {
		ASSERT_TRUE(path_exists(pp + "/gids/" + std::to_string(i)))
			<< "gids/ has " << gids.size() << " entries but no " << i;
	}
	std::vector<std::string> tmp;
	ASSERT_OK(list_dir(pp + "/gid_attrs/types", tmp));
	EXPECT_EQ(gids.size(), tmp.size()) << "gid_attrs/types entries";
	ASSERT_OK(list_dir(pp + "/gid_attrs/ndevs", tmp));
	EXPECT_EQ(gids.size(), tmp.size()) << "gid_attrs/ndevs entries";
	unsigned bad = 0, used = 0;
	for (size_t i = 0; i < gids.size() && bad < 5; i++) {
		const std::string is = std::to_string(i);
		Status s = read_sysfs(pp + "/gids/" + is, v);
		if (!s.ok() || !is_gid_sysfs_format(v)) {
			ADD_FAILURE() << "gids/" << i << ": " << s << " '" << v << "'";
			bad++;
			continue;
		}
		std::string ty, nd;
		Status st = read_sysfs(pp + "/gid_attrs/types/" + is, ty);
		Status sn = read_sysfs(pp + "/gid_attrs/ndevs/" + is, nd);
		if (gid_is_zero(v)) {
			if (st.err != EINVAL || sn.err != EINVAL) {
				ADD_FAILURE() << "empty GID " << i << ": types read " << st
					      << ", ndevs read " << sn << " (want EINVAL both)";
				bad++;
			}
			continue;
		}
		used++;
		if (!st.ok() || (ty != "RoCE v2\n" && ty != "IB/RoCE v1\n")) {
			ADD_FAILURE() << "gid_attrs/types/" << i << ": " << st << " '" << ty << "'";
			bad++;
		}
		if (ll == "Ethernet\n") {
			if (!sn.ok() || nd.empty() || nd.back() != '\n' ||
			    !netdev_exists(nd.substr(0, nd.size() - 1))) {
				ADD_FAILURE() << "gid_attrs/ndevs/" << i << ": " << sn << " '" << nd << "'";
				bad++;
			}
		}
	}
	if (ll == "Ethernet\n") {
		EXPECT_GE(used, 1u) << "a RoCE port has at least its link-local GID";
	}

	// P_Key table: numeric entries only, pkeys/0 is the default P_Key.
	std::vector<std::string> pk;
	ASSERT_OK(list_dir(pp + "/pkeys", pk));
	ASSERT_FALSE(pk.empty()) << "ibstat needs at least one pkeys/ entry";
	for (size_t i = 0; i < pk.size(); i++) {
		ASSERT_OK(read_sysfs(pp + "/pkeys/" + std::to_string(i), v));
		EXPECT_TRUE(std::regex_match(v, std::regex("^0x[0-9a-f]{4}\n$"))) << "pkeys/" << i;
	}
	ASSERT_OK(read_sysfs(pp + "/pkeys/0", v));
	EXPECT_EQ("0xffff\n", v);
}
