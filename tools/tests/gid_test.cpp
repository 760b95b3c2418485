// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Gid: the RoCE GID table follows the netdev's addresses (ABI.md §3.2):
// index 0 = fe80::EUI-64, one entry per GID type per IPv4 (::ffff:a.b.c.d)
// and IPv6 address, added/removed within 1 s of `ip addr add/del`. The stock
// rxe has RoCE v2 entries only; ours supports RoCE v1 too and, as hardware
// RoCE ports do, puts per address the "IB/RoCE v1" entry, then "RoCE v2".
#include <cerrno>

#include "fixture.h"

using rk::gid_sysfs;
using rk::is_stock;
using rk::ib_port_path;
using rk::ip_to_gid;
using rk::link_local_gid;
using rk::Mac;
using rk::poll_until;
using rk::read_mac;
using rk::read_sysfs;

class Gid : public RdmaTest {
protected:
	void SetUp() override
	{
		RdmaTest::SetUp();
		if (IsSkipped() || HasFatalFailure())
			return;
		add_dummy_up(nd);
		ASSERT_OK(add_rxe(ib, nd));
	}

	// Waits up to 1 s for the GID of ip to be present (want=true) or gone.
	void expect_gid(const std::string &ip, bool want)
	{
		SCOPED_TRACE(ip + (want ? " present" : " absent"));
		::rk::Gid g;
		ASSERT_TRUE(ip_to_gid(ip, g));
		std::vector<unsigned> idx;
		bool ok = poll_until([&] {
			idx = gid_indices(ib, 1, g);
			return want ? idx.size() == want_types().size() : idx.empty();
		});
		ASSERT_TRUE(ok) << gid_sysfs(g) << " found at " << idx.size() << " indices";
		if (!want)
			return;
		expect_entries(idx);
		EXPECT_GE(idx[0], want_types().size())
			<< "the first indices are reserved for the link-local GID";
	}

	// One entry per supported type, in hardware order, adjacent.
	static std::vector<std::string> want_types()
	{
		if (is_stock())
			return {"RoCE v2\n"};
		return {"IB/RoCE v1\n", "RoCE v2\n"};
	}

	void expect_entries(const std::vector<unsigned> &idx)
	{
		const std::string pp = ib_port_path(ib, 1);
		std::vector<std::string> types;
		std::string v;

		for (size_t i = 0; i < idx.size(); i++) {
			EXPECT_EQ(idx[0] + i, idx[i]) << "entries of one address adjacent";
			ASSERT_OK(read_sysfs(pp + "/gid_attrs/types/" + std::to_string(idx[i]), v));
			types.push_back(v);
			ASSERT_OK(read_sysfs(pp + "/gid_attrs/ndevs/" + std::to_string(idx[i]), v));
			EXPECT_EQ(nd + "\n", v);
		}
		EXPECT_EQ(want_types(), types);
	}

	const std::string nd = "rkt_gid";
	const std::string ib = "rxe_gid";
};

TEST_F(Gid, IndexZeroIsLinkLocal)
{
	Mac mac;
	ASSERT_OK(read_mac(nd, mac));
	const ::rk::Gid ll = link_local_gid(mac);
	std::string v;
	const std::string pp = ib_port_path(ib, 1);
	ASSERT_TRUE(poll_until([&] {
		return read_sysfs(pp + "/gids/0", v).ok() && v == gid_sysfs(ll);
	})) << "gids/0 = '" << v << "', want " << gid_sysfs(ll);
	// The IPv6 link-local address of the netdev is the same GID: listed
	// once per type, from index 0.
	std::vector<unsigned> idx = gid_indices(ib, 1, ll);
	ASSERT_EQ(want_types().size(), idx.size());
	EXPECT_EQ(0u, idx[0]);
	expect_entries(idx);
}

TEST_F(Gid, Ipv4AddDel)
{
	// Different subnets: deleting a primary address also deletes its
	// secondaries (promote_secondaries is off).
	ASSERT_OK(rt.addr_add(nd, "198.51.100.7/24"));
	expect_gid("198.51.100.7", true);
	ASSERT_OK(rt.addr_add(nd, "203.0.113.8/24"));
	expect_gid("203.0.113.8", true);
	ASSERT_OK(rt.addr_del(nd, "198.51.100.7/24"));
	expect_gid("198.51.100.7", false);
	expect_gid("203.0.113.8", true);
	ASSERT_OK(rt.addr_del(nd, "203.0.113.8/24"));
	expect_gid("203.0.113.8", false);
}

TEST_F(Gid, Ipv4SecondaryAddress)
{
	// A second address in the same subnet (an IPv4 "secondary").
	ASSERT_OK(rt.addr_add(nd, "198.51.100.11/24"));
	ASSERT_OK(rt.addr_add(nd, "198.51.100.12/24"));
	expect_gid("198.51.100.11", true);
	expect_gid("198.51.100.12", true);
	ASSERT_OK(rt.addr_del(nd, "198.51.100.12/24"));
	expect_gid("198.51.100.12", false);
	expect_gid("198.51.100.11", true);
}

TEST_F(Gid, Ipv6AddDel)
{
	ASSERT_OK(rt.addr_add(nd, "2001:db8:77::7/64"));
	expect_gid("2001:db8:77::7", true);
	ASSERT_OK(rt.addr_del(nd, "2001:db8:77::7/64"));
	expect_gid("2001:db8:77::7", false);
}

TEST_F(Gid, AddressesPresentBeforeNewlink)
{
	// Addresses that exist when the rxe is created are picked up too.
	add_dummy_up("rkt_gid2");
	ASSERT_OK(rt.addr_add("rkt_gid2", "203.0.113.9/24"));
	ASSERT_OK(rt.addr_add("rkt_gid2", "2001:db8:99::9/64"));
	ASSERT_OK(add_rxe("rxe_gid2", "rkt_gid2"));
	for (const char *ip : {"203.0.113.9", "2001:db8:99::9"}) {
		::rk::Gid g;
		ASSERT_TRUE(ip_to_gid(ip, g));
		std::vector<unsigned> idx;
		EXPECT_TRUE(poll_until([&] {
			idx = gid_indices("rxe_gid2", 1, g);
			return idx.size() == want_types().size();
		})) << ip << " at " << idx.size() << " indices";
	}
	// And they belong to rxe_gid2 only, not to the other rxe.
	::rk::Gid g;
	ASSERT_TRUE(ip_to_gid("203.0.113.9", g));
	EXPECT_TRUE(gid_indices(ib, 1, g).empty());
}

TEST_F(Gid, Eth0GuestAddresses)
{
	// The runner gives eth0 192.0.2.1/24 and 2001:db8::1/64 (or .2/::2).
	ASSERT_OK(add_rxe("rxe_gid_e", "eth0"));
	std::string v;
	const char *v4 = nullptr, *v6 = nullptr;
	for (auto pair : {std::make_pair("192.0.2.1", "2001:db8::1"),
			  std::make_pair("192.0.2.2", "2001:db8::2")}) {
		::rk::Gid g;
		ip_to_gid(pair.first, g);
		if (poll_until([&] { return !gid_indices("rxe_gid_e", 1, g).empty(); }, 300)) {
			v4 = pair.first;
			v6 = pair.second;
			break;
		}
	}
	ASSERT_TRUE(v4) << "no GID for eth0's 192.0.2.x address";
	::rk::Gid g6;
	ip_to_gid(v6, g6);
	EXPECT_TRUE(poll_until([&] {
		return gid_indices("rxe_gid_e", 1, g6).size() == want_types().size();
	}))
		<< "no GID for eth0's " << v6;
}

TEST_F(Gid, RemovedWhenNetdevGoesDownAndBack)
{
	// Documenting stock behaviour: IPv4 GIDs stay while the link is down?
	// We only require that after up again the address GID is present.
	ASSERT_OK(rt.addr_add(nd, "198.51.100.21/24"));
	expect_gid("198.51.100.21", true);
	ASSERT_OK(rt.set_up(nd, false));
	ASSERT_OK(rt.set_up(nd, true));
	expect_gid("198.51.100.21", true);
}
