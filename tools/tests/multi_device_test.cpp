// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// MultiDevice: several rxe devices on different netdevs at once.
#include <cerrno>
#include <chrono>
#include <csignal>
#include <set>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

using namespace rk;

class MultiDevice : public RdmaTest {};

TEST_F(MultiDevice, FourDevices)
{
	add_dummy_up("rkt_md");
	ASSERT_OK(rt.add_veth("rkt_mva", "rkt_mvb"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_mva"));
	ASSERT_OK(rt.set_up("rkt_mva", true));
	ASSERT_OK(rt.set_up("rkt_mvb", true));

	const std::vector<std::pair<std::string, std::string>> devs = {
		{"rxe_a", "eth0"}, {"rxe_b", "rkt_md"}, {"rxe_c", "rkt_mva"}, {"rxe_d", "rkt_mvb"}};
	for (const auto &dv : devs) {
		ASSERT_OK(add_rxe(dv.first, dv.second));
	}

	std::set<uint32_t> idx;
	std::set<uint64_t> guids;
	for (const auto &dv : devs) {
		SCOPED_TRACE(dv.first);
		DevInfo d;
		ASSERT_TRUE(find(dv.first, d));
		idx.insert(d.index);
		guids.insert(d.node_guid);
		Mac mac;
		ASSERT_OK(read_mac(dv.second, mac));
		EXPECT_EQ(eui64_guid(mac), d.node_guid);
		PortInfo p;
		ASSERT_OK(nldev_port_get(nl, d.index, 1, p));
		EXPECT_EQ(dv.second, p.ndev_name.value_or("<absent>"));
		EXPECT_EQ(kPortActive, p.state);
		check_device(d);
	}
	EXPECT_EQ(devs.size(), idx.size()) << "distinct DEV_INDEX";
	EXPECT_EQ(devs.size(), guids.size()) << "distinct node GUIDs (distinct MACs)";

	// Deleting one leaves the others intact.
	DevInfo b;
	ASSERT_TRUE(find("rxe_b", b));
	ASSERT_OK(nldev_dellink(nl, b.index));
	EXPECT_FALSE(in_dump("rxe_b"));
	for (const char *n : {"rxe_a", "rxe_c", "rxe_d"}) {
		DevInfo d;
		ASSERT_TRUE(find(n, d));
		PortInfo p;
		EXPECT_OK(nldev_port_get(nl, d.index, 1, p));
	}

	for (const auto &dv : devs) {
		DevInfo d;
		if (nldev_find(nl, dv.first, d).ok()) {
			EXPECT_OK(nldev_dellink(nl, d.index));
		}
	}
	std::vector<DevInfo> all;
	ASSERT_OK(nldev_get_dump(nl, all));
	for (const DevInfo &d : all)
		for (const auto &dv : devs) {
			EXPECT_NE(dv.first, d.name) << "still listed after DELLINK";
		}
}

TEST_F(MultiDevice, ManyOnDummies)
{
	// Eight at once, deleted in reverse order, then the dump is as before.
	std::vector<DevInfo> before;
	ASSERT_OK(nldev_get_dump(nl, before));
	for (int i = 0; i < 8; i++) {
		const std::string nd = "rkt_mm" + std::to_string(i);
		add_dummy_up(nd);
		ASSERT_OK(add_rxe("rxe_mm" + std::to_string(i), nd));
	}
	std::vector<DevInfo> during;
	ASSERT_OK(nldev_get_dump(nl, during));
	EXPECT_EQ(before.size() + 8, during.size());
	for (int i = 7; i >= 0; i--) {
		DevInfo d;
		ASSERT_TRUE(find("rxe_mm" + std::to_string(i), d));
		ASSERT_OK(nldev_dellink(nl, d.index));
	}
	std::vector<DevInfo> after;
	ASSERT_OK(nldev_get_dump(nl, after));
	EXPECT_EQ(before.size(), after.size());
}

TEST_F(MultiDevice, DumpAcrossDatagrams)
{
	// 40 devices do not fit one 4 KiB dump skb: the kernel must resume the
	// dump where it stopped, without losing or repeating a device.
	constexpr int kN = 40;
	for (int i = 0; i < kN; i++) {
		const std::string nd = "rkt_dd" + std::to_string(i);
		add_dummy_up(nd);
		ASSERT_OK(add_rxe("rxe_dd" + std::to_string(i), nd));
	}
	RdmaNl small;
	ASSERT_OK(small.open(4096));
	std::vector<DevInfo> all;
	ASSERT_OK(nldev_get_dump(small, all));
	EXPECT_GT(small.last_datagrams(), 1u) << "dump fit in one datagram: test is void";
	std::set<std::string> names;
	for (const DevInfo &d : all)
		EXPECT_TRUE(names.insert(d.name).second) << d.name << " listed twice";
	for (int i = 0; i < kN; i++)
		EXPECT_TRUE(names.count("rxe_dd" + std::to_string(i))) << "rxe_dd" << i << " missing";
	std::vector<std::string> sys;
	ASSERT_OK(list_dir("/sys/class/infiniband", sys));
	EXPECT_EQ(sys.size(), all.size());

	std::vector<ResSummary> res;
	ASSERT_OK(nldev_res_dump(small, res));
	EXPECT_EQ(all.size(), res.size()) << "RES_GET dump";
}

namespace {

// Child 0: NEWLINK/DELLINK loop. Exit status = number of unexpected errors.
int churn_links(const std::string &nd, const std::string &ib, int rounds)
{
	RdmaNl nl;
	if (!nl.open().ok())
		return 100;
	int bad = 0;
	for (int i = 0; i < rounds; i++) {
		if (!nldev_newlink(nl, ib, "rxe", nd).ok()) {
			bad++;
			continue;
		}
		DevInfo d;
		if (!nldev_find(nl, ib, d).ok() || !nldev_dellink(nl, d.index).ok())
			bad++;
	}
	return bad;
}

// Child 1: rxe on a dummy, then the dummy is deleted under it and recreated.
int churn_netdevs(const std::string &nd, const std::string &ib, int rounds)
{
	RdmaNl nl;
	Rtnl rt;
	if (!nl.open().ok() || !rt.open().ok())
		return 100;
	int bad = 0;
	for (int i = 0; i < rounds; i++) {
		if (!rt.add_dummy(nd).ok() || !rt.set_up(nd, true).ok()) {
			bad++;
			break;
		}
		// The previous rxe of that name may still be going away.
		Status s;
		bool ok = poll_until([&] {
			s = nldev_newlink(nl, ib, "rxe", nd);
			return s.ok();
		}, 5000, 20);
		if (!ok)
			bad++;
		if (!rt.del(nd).ok())
			bad++;
	}
	return bad;
}

} // namespace

TEST_F(MultiDevice, ConcurrentChurn)
{
	// Link add/delete, netdev removal and readers all at once: nothing may
	// fail except lookups of a device that just went away, nothing may hang
	// (the runner also checks dmesg for splats).
	add_dummy_up("rkt_c0");
	constexpr int kRounds = 25;
	pid_t kids[2];
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		ASSERT_GE(kids[k], 0);
		if (kids[k] == 0)
			_exit(k == 0 ? churn_links("rkt_c0", "rxe_c0", kRounds)
				     : churn_netdevs("rkt_c1", "rxe_c1", kRounds));
	}
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_c1"));
	ibdevs.push_back(std::make_unique<ScopedIbdev>(nl, "rxe_c0"));
	ibdevs.push_back(std::make_unique<ScopedIbdev>(nl, "rxe_c1"));

	int status[2] = {-1, -1};
	int alive = 2;
	unsigned reads = 0, unexpected = 0;
	std::string last_bad;
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180 * time_factor());
	while (alive && std::chrono::steady_clock::now() < deadline) {
		std::vector<DevInfo> all;
		Status s = nldev_get_dump(nl, all);
		if (!s.ok()) {
			unexpected++;
			last_bad = "GET dump: " + errno_name(s.err) + " " + s.msg;
		}
		for (const DevInfo &d : all) {
			PortInfo p;
			ResSummary r;
			DevInfo one;
			for (Status x : {nldev_port_get(nl, d.index, 1, p), nldev_res_get(nl, d.index, r),
					 nldev_get(nl, d.index, one)}) {
				reads++;
				// EINVAL: the index vanished between the dump and the doit.
				if (!x.ok() && x.err != EINVAL && x.err != ENODEV) {
					unexpected++;
					last_bad = d.name + ": " + errno_name(x.err) + " " + x.msg;
				}
			}
			std::string v;
			read_sysfs(ib_port_path(d.name, 1) + "/gids/0", v);
		}
		for (int k = 0; k < 2; k++) {
			if (status[k] != -1)
				continue;
			int st;
			if (waitpid(kids[k], &st, WNOHANG) == kids[k]) {
				status[k] = st;
				alive--;
			}
		}
	}
	for (int k = 0; k < 2; k++) {
		if (status[k] == -1) {
			kill(kids[k], SIGKILL);
			waitpid(kids[k], &status[k], 0);
			ADD_FAILURE() << "churn child " << k << " hung (killed after " << 180 * time_factor() << " s)";
			continue;
		}
		EXPECT_TRUE(WIFEXITED(status[k]) && WEXITSTATUS(status[k]) == 0)
			<< "churn child " << k << ": " << WEXITSTATUS(status[k]) << " unexpected errors";
	}
	EXPECT_EQ(0u, unexpected) << "reader errors, last: " << last_bad;
	printf("  %u reads during churn\n", reads);
	EXPECT_FALSE(in_dump("rxe_c0"));
	EXPECT_TRUE(poll_until([&] { return !in_dump("rxe_c1"); }, 5000));
}
