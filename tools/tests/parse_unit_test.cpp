// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Host-side unit checks of the harness's own parsing (no kernel needed).
#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

#include "nldev.h"
#include "sysfs.h"
#include "util.h"

using namespace rk;

namespace {

void put_u32(std::vector<uint8_t> &b, uint16_t t, uint32_t v) { put_attr(b, t, &v, 4); }
void put_u64(std::vector<uint8_t> &b, uint16_t t, uint64_t v) { put_attr(b, t, &v, 8); }
void put_u8(std::vector<uint8_t> &b, uint16_t t, uint8_t v) { put_attr(b, t, &v, 1); }
void put_str(std::vector<uint8_t> &b, uint16_t t, const char *s)
{
	put_attr(b, t, s, strlen(s) + 1);
}

std::vector<uint8_t> good_dev()
{
	std::vector<uint8_t> b;
	put_u32(b, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
	put_str(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	put_u32(b, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	put_u64(b, RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234);
	put_u64(b, RDMA_NLDEV_ATTR_NODE_GUID, 0x505400fffe123456ull);
	put_u64(b, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, 0);
	put_u8(b, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
	put_u8(b, RDMA_NLDEV_ATTR_DEV_DIM, 0);
	put_str(b, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
	return b;
}

} // namespace

TEST(ParseUnit, GoodDevReply)
{
	auto b = good_dev();
	AttrSet a;
	ASSERT_TRUE(a.parse(b.data(), b.size()).ok());
	DevInfo d;
	Status s = parse_dev(a, d);
	ASSERT_TRUE(s.ok()) << s;
	EXPECT_EQ(7u, d.index);
	EXPECT_EQ("rxe0", d.name);
	EXPECT_EQ(1u, d.num_ports);
	EXPECT_EQ(0x505400fffe123456ull, d.node_guid);
	EXPECT_EQ(1, d.node_type);
	EXPECT_EQ("roce", d.protocol.value());
	EXPECT_FALSE(d.fw_ver.has_value());
}

TEST(ParseUnit, ExactLengths)
{
	struct Case {
		uint16_t type;
		size_t len;
		bool ok;
	} cases[] = {
		{RDMA_NLDEV_ATTR_DEV_INDEX, 4, true},  {RDMA_NLDEV_ATTR_DEV_INDEX, 1, false},
		{RDMA_NLDEV_ATTR_DEV_INDEX, 8, false}, {RDMA_NLDEV_ATTR_NODE_GUID, 8, true},
		{RDMA_NLDEV_ATTR_NODE_GUID, 4, false}, {RDMA_NLDEV_ATTR_NODE_GUID, 12, false},
		{RDMA_NLDEV_ATTR_PORT_STATE, 1, true}, {RDMA_NLDEV_ATTR_PORT_STATE, 4, false},
		{RDMA_NLDEV_ATTR_PORT_STATE, 0, false}, {200, 3, true} /* unknown: ignored */,
	};
	for (const Case &c : cases) {
		std::vector<uint8_t> b;
		uint8_t zero[16] = {};
		put_attr(b, c.type, zero, c.len);
		AttrSet a;
		Status s = a.parse(b.data(), b.size());
		EXPECT_EQ(c.ok, s.ok()) << "type " << c.type << " len " << c.len << ": " << s;
		if (!c.ok) {
			EXPECT_EQ(EBADMSG, s.err);
		}
	}
}

TEST(ParseUnit, StringsMustBeNulTerminated)
{
	std::vector<uint8_t> b;
	put_attr(b, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0", 4); // no NUL
	AttrSet a;
	EXPECT_EQ(EBADMSG, a.parse(b.data(), b.size()).err);
	b.clear();
	put_attr(b, RDMA_NLDEV_ATTR_DEV_NAME, "", 0); // empty payload
	EXPECT_EQ(EBADMSG, a.parse(b.data(), b.size()).err);
	b.clear();
	put_str(b, RDMA_NLDEV_ATTR_NDEV_NAME, "eth0");
	ASSERT_TRUE(a.parse(b.data(), b.size()).ok());
	EXPECT_EQ("eth0", a.str(RDMA_NLDEV_ATTR_NDEV_NAME).value());
}

TEST(ParseUnit, MissingRequiredAttr)
{
	for (int drop : {RDMA_NLDEV_ATTR_DEV_INDEX, RDMA_NLDEV_ATTR_DEV_NAME,
			 RDMA_NLDEV_ATTR_PORT_INDEX, RDMA_NLDEV_ATTR_NODE_GUID,
			 RDMA_NLDEV_ATTR_DEV_NODE_TYPE}) {
		auto full = good_dev();
		AttrSet a;
		ASSERT_TRUE(a.parse(full.data(), full.size()).ok());
		std::vector<uint8_t> b;
		for (const Attr &x : a.attrs())
			if (x.type != drop)
				put_attr(b, static_cast<uint16_t>(x.type), x.data.data(), x.data.size());
		AttrSet a2;
		ASSERT_TRUE(a2.parse(b.data(), b.size()).ok());
		DevInfo d;
		EXPECT_EQ(EBADMSG, parse_dev(a2, d).err) << "without attribute " << drop;
	}
}

TEST(ParseUnit, OverlongNlaLen)
{
	std::vector<uint8_t> b;
	uint32_t v = 1;
	put_attr(b, RDMA_NLDEV_ATTR_DEV_INDEX, &v, 4, 64);
	AttrSet a;
	EXPECT_EQ(EBADMSG, a.parse(b.data(), b.size()).err);
}

TEST(ParseUnit, NestedFlagAndResSummary)
{
	std::vector<uint8_t> ent1, ent2, sum, top;
	put_str(ent1, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, "pd");
	put_u64(ent1, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, 3);
	put_str(ent2, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, "cq");
	put_u64(ent2, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, 0);
	put_attr(sum, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY | NLA_F_NESTED, ent1.data(), ent1.size());
	put_attr(sum, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY | NLA_F_NESTED, ent2.data(), ent2.size());
	put_u32(top, RDMA_NLDEV_ATTR_DEV_INDEX, 2);
	put_str(top, RDMA_NLDEV_ATTR_DEV_NAME, "rxe1");
	put_attr(top, RDMA_NLDEV_ATTR_RES_SUMMARY | NLA_F_NESTED, sum.data(), sum.size());
	AttrSet a;
	ASSERT_TRUE(a.parse(top.data(), top.size()).ok());
	ResSummary r;
	Status s = parse_res_summary(a, r);
	ASSERT_TRUE(s.ok()) << s;
	ASSERT_EQ(2u, r.entries.size());
	EXPECT_EQ("pd", r.entries[0].first);
	EXPECT_EQ(3u, r.entries[0].second);
	EXPECT_EQ("cq", r.entries[1].first);
}

TEST(ParseUnit, RawBuilder)
{
	std::vector<uint8_t> at;
	put_u32(at, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	auto m = build_raw(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
			   NLM_F_REQUEST, 42, at);
	ASSERT_EQ(24u, m.size());
	nlmsghdr h;
	memcpy(&h, m.data(), sizeof(h));
	EXPECT_EQ(24u, h.nlmsg_len);
	EXPECT_EQ(0x1401, h.nlmsg_type);
	EXPECT_EQ(42u, h.nlmsg_seq);
	// Strings are padded to 4 bytes: "rdma_cm\0" needs none, "uverbs\0" one.
	std::vector<uint8_t> s;
	put_str(s, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
	EXPECT_EQ(12u, s.size());
	EXPECT_EQ(11, s[0]);
}

TEST(ParseUnit, GuidAndGidFormats)
{
	EXPECT_EQ("5054:00ff:fe12:3456\n", guid_sysfs(0x505400fffe123456ull));
	uint64_t g;
	ASSERT_TRUE(parse_guid_sysfs("5054:00ff:fe12:3456\n", g));
	EXPECT_EQ(0x505400fffe123456ull, g);
	EXPECT_FALSE(parse_guid_sysfs("5054:ff:fe12:3456\n", g));

	Mac mac = {0x52, 0x54, 0x00, 0x12, 0x34, 0x56};
	EXPECT_EQ(0x505400fffe123456ull, eui64_guid(mac));
	EXPECT_EQ("fe80:0000:0000:0000:5054:00ff:fe12:3456\n", gid_sysfs(link_local_gid(mac)));

	Gid gid;
	ASSERT_TRUE(ip_to_gid("192.0.2.1", gid));
	EXPECT_EQ("0000:0000:0000:0000:0000:ffff:c000:0201\n", gid_sysfs(gid));
	ASSERT_TRUE(ip_to_gid("2001:db8::1", gid));
	EXPECT_EQ("2001:0db8:0000:0000:0000:0000:0000:0001\n", gid_sysfs(gid));
	EXPECT_FALSE(ip_to_gid("nonsense", gid));

	EXPECT_TRUE(is_gid_sysfs_format("fe80:0000:0000:0000:5054:00ff:fe12:3456\n"));
	EXPECT_FALSE(is_gid_sysfs_format("fe80::5054:ff:fe12:3456\n"));
	EXPECT_FALSE(is_gid_sysfs_format("FE80:0000:0000:0000:5054:00ff:fe12:3456\n"));
	EXPECT_TRUE(gid_is_zero("0000:0000:0000:0000:0000:0000:0000:0000\n"));
}

TEST(ParseUnit, SysfsValueFormats)
{
	EXPECT_TRUE(is_rate_format("2.5 Gb/sec (1X SDR)\n"));
	EXPECT_TRUE(is_rate_format("25 Gb/sec (1X EDR)\n"));
	EXPECT_TRUE(is_rate_format("100 Gb/sec (4X EDR)\n"));
	EXPECT_FALSE(is_rate_format("100 Gb/sec (4X EDR)"));
	EXPECT_FALSE(is_rate_format("2.7 Gb/sec (1X SDR)\n"));
	unsigned n;
	std::string name;
	ASSERT_TRUE(parse_num_name("4: ACTIVE\n", n, name));
	EXPECT_EQ(4u, n);
	EXPECT_EQ("ACTIVE", name);
	ASSERT_TRUE(parse_num_name("7: Phy Test\n", n, name));
	EXPECT_EQ("Phy Test", name);
	EXPECT_FALSE(parse_num_name("ACTIVE\n", n, name));
	EXPECT_STREQ("LinkUp", phys_state_sysfs_name(5));
	EXPECT_STREQ("Disabled", phys_state_sysfs_name(3));
	EXPECT_STREQ("ACTIVE", port_state_name(4));
}

TEST(ParseUnit, ChardevDecode)
{
	ChardevInfo c;
	c.dev = 0xE7C0; // uverbs0 = 231:192
	EXPECT_EQ(231u, c.major());
	EXPECT_EQ(192u, c.minor());
	c.dev = (0x100 & 0xff) | (231u << 8) | ((0x100ull & ~0xffull) << 12);
	EXPECT_EQ(0x100u, c.minor());
}

// The host kernel has no RDMA netlink: opening must fail fast, never hang.
TEST(ParseUnit, OpenFailsCleanlyWithoutRdma)
{
	RdmaNl nl;
	Status s = nl.open();
	if (s.ok())
		GTEST_SKIP() << "this kernel has NETLINK_RDMA";
	EXPECT_NE(0, s.err);
}
