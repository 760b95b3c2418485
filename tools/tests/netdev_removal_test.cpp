// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// NetdevRemoval: deleting the netdev under an rxe removes the rxe device
// (asynchronously upstream: poll), without hanging the netdev deletion.
#include <chrono>

#include <fcntl.h>
#include <unistd.h>

#include "fixture.h"

using namespace rk;

class NetdevRemoval : public RdmaTest {
protected:
	void expect_gone(const std::string &ib)
	{
		EXPECT_TRUE(poll_until([&] { return !in_dump(ib); }, 5000))
			<< ib << " still in the GET dump 5 s after its netdev went away";
		EXPECT_TRUE(poll_until([&] { return !path_exists(ib_dev_path(ib)); }, 5000))
			<< ib_dev_path(ib) << " still exists";
	}

	// Deletes a netdev and checks that this returns promptly.
	void timed_del(const std::string &name)
	{
		auto t0 = std::chrono::steady_clock::now();
		ASSERT_OK(rt.del(name));
		auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
				  std::chrono::steady_clock::now() - t0).count();
		EXPECT_LT(ms, 10000 * time_factor()) << "deleting " << name << " took " << ms << " ms";
		EXPECT_FALSE(netdev_exists(name));
	}
};

TEST_F(NetdevRemoval, Dummy)
{
	add_dummy_up("rkt_nr");
	ASSERT_OK(add_rxe("rxe_nr", "rkt_nr"));
	ASSERT_OK(rt.addr_add("rkt_nr", "198.51.100.31/24"));
	ASSERT_OK(rt.addr_add("rkt_nr", "2001:db8:31::1/64"));
	timed_del("rkt_nr");
	expect_gone("rxe_nr");
}

TEST_F(NetdevRemoval, VethSelf)
{
	ASSERT_OK(rt.add_veth("rkt_nva", "rkt_nvb"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_nva"));
	ASSERT_OK(rt.set_up("rkt_nva", true));
	ASSERT_OK(rt.set_up("rkt_nvb", true));
	ASSERT_OK(add_rxe("rxe_nva", "rkt_nva"));
	ASSERT_OK(add_rxe("rxe_nvb", "rkt_nvb"));
	timed_del("rkt_nva"); // takes its peer along
	EXPECT_FALSE(netdev_exists("rkt_nvb"));
	expect_gone("rxe_nva");
	expect_gone("rxe_nvb");
}

TEST_F(NetdevRemoval, VethPeerDown)
{
	// The rxe's netdev is removed because its peer is deleted.
	ASSERT_OK(rt.add_veth("rkt_npa", "rkt_npb"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_npa"));
	ASSERT_OK(rt.set_up("rkt_npa", true));
	ASSERT_OK(add_rxe("rxe_npa", "rkt_npa"));
	timed_del("rkt_npb");
	expect_gone("rxe_npa");
}

TEST_F(NetdevRemoval, RecreateAfterRemoval)
{
	add_dummy_up("rkt_nrr");
	ASSERT_OK(add_rxe("rxe_nrr", "rkt_nrr"));
	timed_del("rkt_nrr");
	expect_gone("rxe_nrr");
	add_dummy_up("rkt_nrr");
	ASSERT_OK(add_rxe("rxe_nrr", "rkt_nrr"));
	DevInfo d;
	ASSERT_TRUE(find("rxe_nrr", d));
	PortInfo p;
	ASSERT_OK(nldev_port_get(nl, d.index, 1, p));
	EXPECT_EQ("rkt_nrr", p.ndev_name.value_or("<absent>"));
	EXPECT_EQ(kPortActive, p.state);
}

TEST_F(NetdevRemoval, MovedToOtherNetns)
{
	// Stock: a netdev leaving init_net unregisters there, so its rxe goes.
	add_dummy_up("rkt_nns");
	ASSERT_OK(add_rxe("rxe_nns", "rkt_nns"));
	std::string out;
	ASSERT_EQ(0, run_cmd("ip netns add rkt_ns", &out)) << out;
	struct NsGuard {
		~NsGuard() { run_cmd("ip netns del rkt_ns"); }
	} guard;
	int fd = open("/run/netns/rkt_ns", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	Status s = rt.set_netns("rkt_nns", fd);
	close(fd);
	ASSERT_OK(s);
	EXPECT_FALSE(netdev_exists("rkt_nns"));
	expect_gone("rxe_nns");
}
