// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// PortState: the rxe port follows its netdev (admin state and carrier),
// in netlink PORT_GET and sysfs alike, within 1 s.
#include "fixture.h"

using namespace rk;

class PortState : public RdmaTest {
protected:
	void expect_state(const std::string &ib, uint8_t st, uint8_t phys)
	{
		DevInfo d;
		ASSERT_TRUE(find(ib, d));
		std::string why;
		EXPECT_TRUE(poll_until([&] { return port_state_is(d, st, phys, &why); }))
			<< ib << ": want " << port_state_name(st) << "/" << phys_state_sysfs_name(phys)
			<< ", have " << why;
	}
};

TEST_F(PortState, DummyDownUp)
{
	add_dummy_up("rkt_ps");
	ASSERT_OK(add_rxe("rxe_ps", "rkt_ps"));
	expect_state("rxe_ps", kPortActive, kPhysLinkUp);
	ASSERT_OK(rt.set_up("rkt_ps", false));
	expect_state("rxe_ps", kPortDown, kPhysDisabled);
	ASSERT_OK(rt.set_up("rkt_ps", true));
	expect_state("rxe_ps", kPortActive, kPhysLinkUp);
	ASSERT_OK(rt.set_up("rkt_ps", false));
	expect_state("rxe_ps", kPortDown, kPhysDisabled);
}

TEST_F(PortState, CreatedOnDownNetdev)
{
	ASSERT_OK(rt.add_dummy("rkt_ps2"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_ps2"));
	ASSERT_OK(add_rxe("rxe_ps2", "rkt_ps2"));
	expect_state("rxe_ps2", kPortDown, kPhysDisabled);
	ASSERT_OK(rt.set_up("rkt_ps2", true));
	expect_state("rxe_ps2", kPortActive, kPhysLinkUp);
}

TEST_F(PortState, VethCarrier)
{
	// A veth end is up but has no carrier while its peer is down.
	ASSERT_OK(rt.add_veth("rkt_va", "rkt_vb"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_va"));
	ASSERT_OK(rt.set_up("rkt_va", true));
	ASSERT_OK(add_rxe("rxe_va", "rkt_va"));
	expect_state("rxe_va", kPortDown, kPhysPolling);
	ASSERT_OK(rt.set_up("rkt_vb", true));
	expect_state("rxe_va", kPortActive, kPhysLinkUp);
	ASSERT_OK(rt.set_up("rkt_vb", false));
	expect_state("rxe_va", kPortDown, kPhysPolling);
	ASSERT_OK(rt.set_up("rkt_va", false));
	expect_state("rxe_va", kPortDown, kPhysDisabled);
}

TEST_F(PortState, NetdevRenameFollowed)
{
	ASSERT_OK(rt.add_dummy("rkt_rn1"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_rn1"));
	ASSERT_OK(add_rxe("rxe_rn", "rkt_rn1"));
	ASSERT_OK(rt.rename("rkt_rn1", "rkt_rn2"));
	netdevs.push_back(std::make_unique<ScopedNetdev>(rt, "rkt_rn2"));
	DevInfo d;
	ASSERT_TRUE(find("rxe_rn", d));
	PortInfo p;
	EXPECT_TRUE(poll_until([&] {
		return nldev_port_get(nl, d.index, 1, p).ok() &&
		       p.ndev_name.value_or("") == "rkt_rn2";
	})) << "NDEV_NAME after rename: " << p.ndev_name.value_or("<absent>");
	std::string v;
	EXPECT_TRUE(poll_until([&] {
		return read_sysfs(ib_port_path("rxe_rn", 1) + "/gid_attrs/ndevs/0", v).ok() &&
		       v == "rkt_rn2\n";
	})) << "gid_attrs/ndevs/0 after rename: '" << v << "'";
	ASSERT_OK(read_sysfs(ib_dev_path("rxe_rn") + "/parent", v));
	EXPECT_EQ("rkt_rn2\n", v);
}
