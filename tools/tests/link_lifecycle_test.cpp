// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// LinkLifecycle: NEWLINK rxe on eth0 -> the device as libibverbs/iproute2
// see it; DELLINK -> gone from the dump and from sysfs; rename via SET.
#include <cerrno>

#include "fixture.h"

using namespace rk;

class LinkLifecycle : public RdmaTest {};

TEST_F(LinkLifecycle, AddOnEth0ShowDelete)
{
	ASSERT_TRUE(netdev_exists("eth0"));
	Mac mac;
	ASSERT_OK(read_mac("eth0", mac));
	ASSERT_FALSE(in_dump("rxe0")) << "rxe0 exists before the test";

	ASSERT_OK(add_rxe("rxe0", "eth0"));
	DevInfo d;
	ASSERT_TRUE(find("rxe0", d));
	EXPECT_EQ(RDMA_NODE_IB_CA, d.node_type) << "rxe is a CA (node type 1)";
	EXPECT_EQ(eui64_guid(mac), d.node_guid) << "node GUID = EUI-64 of eth0's MAC";
	EXPECT_EQ(1u, d.num_ports);
	EXPECT_TRUE(path_exists("/sys/class/infiniband/rxe0"));

	std::string carrier;
	ASSERT_OK(read_sysfs("/sys/class/net/eth0/carrier", carrier));
	ASSERT_EQ("1\n", carrier) << "eth0 must be up with carrier for this test";
	PortInfo p;
	ASSERT_OK(nldev_port_get(nl, d.index, 1, p));
	EXPECT_EQ(kPortActive, p.state);
	EXPECT_EQ(kPhysLinkUp, p.phys_state);
	EXPECT_EQ("eth0", p.ndev_name.value_or("<absent>"));
	EXPECT_EQ(ifindex("eth0"), static_cast<int>(p.ndev_index.value_or(0)));
	check_device(d);

	ASSERT_OK(nldev_dellink(nl, d.index));
	// Unregistration is synchronous: gone as soon as the ACK arrives.
	EXPECT_FALSE(in_dump("rxe0"));
	EXPECT_FALSE(path_exists("/sys/class/infiniband/rxe0"));
	DevInfo gone;
	EXPECT_ERRNO(EINVAL, nldev_get(nl, d.index, gone));
	EXPECT_TRUE(netdev_exists("eth0")) << "DELLINK must leave the netdev alone";
}

TEST_F(LinkLifecycle, DeleteThenReAddSameName)
{
	ASSERT_OK(add_rxe("rxe0", "eth0"));
	DevInfo d1;
	ASSERT_TRUE(find("rxe0", d1));
	ASSERT_OK(nldev_dellink(nl, d1.index));
	// Scripts do `rdma link delete` + `rdma link add` back to back.
	ASSERT_OK(add_rxe("rxe0", "eth0"));
	DevInfo d2;
	ASSERT_TRUE(find("rxe0", d2));
	EXPECT_NE(d1.index, d2.index) << "a new device gets a new DEV_INDEX";
	EXPECT_EQ(d1.node_guid, d2.node_guid);
}

TEST_F(LinkLifecycle, NoAckDumpAndDoit)
{
	// libibverbs: GET dump without NLM_F_ACK, then GET_CHARDEV doit without.
	ASSERT_OK(add_rxe("rxe0", "eth0"));
	std::vector<DevInfo> all;
	ASSERT_OK(nldev_get_dump(nl, all, false));
	bool seen = false;
	for (const DevInfo &d : all) {
		if (d.name != "rxe0")
			continue;
		seen = true;
		DevInfo one;
		ASSERT_OK(nldev_get(nl, d.index, one, false));
		EXPECT_EQ(d.node_guid, one.node_guid);
	}
	EXPECT_TRUE(seen);
}

TEST_F(LinkLifecycle, Rename)
{
	add_dummy_up("rkt_ren");
	ASSERT_OK(add_rxe("rxe_ren_a", "rkt_ren"));
	ASSERT_OK(add_rxe("rxe_ren_b", "eth0"));
	DevInfo a;
	ASSERT_TRUE(find("rxe_ren_a", a));

	ASSERT_OK(nldev_set_name(nl, a.index, "rxe_ren_c"));
	ibdevs[0]->rename("rxe_ren_c");
	DevInfo c;
	ASSERT_TRUE(find("rxe_ren_c", c));
	EXPECT_EQ(a.index, c.index) << "rename keeps the index";
	EXPECT_FALSE(path_exists("/sys/class/infiniband/rxe_ren_a"));
	EXPECT_TRUE(path_exists("/sys/class/infiniband/rxe_ren_c"));
	PortInfo p;
	ASSERT_OK(nldev_port_get(nl, c.index, 1, p));
	EXPECT_EQ("rxe_ren_c", p.dev_name);

	// Taken name, same name, bad names.
	EXPECT_ERRNO(EEXIST, nldev_set_name(nl, c.index, "rxe_ren_b"));
	EXPECT_OK(nldev_set_name(nl, c.index, "rxe_ren_c"));
	EXPECT_ERRNO(EINVAL, nldev_set_name(nl, c.index, ""));
	EXPECT_ERRNO(EINVAL, nldev_set_name(nl, c.index, std::string(70, 'x')));
	EXPECT_TRUE(path_exists("/sys/class/infiniband/rxe_ren_c"));
}
