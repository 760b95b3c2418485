// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Common fixture: opens NETLINK_RDMA and NETLINK_ROUTE, skips on a host
// without RDMA netlink (outside the VM) and fails inside the VM runner.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nldev.h"
#include "netif.h"
#include "sysfs.h"
#include "util.h"

// Streamable status checks: EXPECT_OK(x) << "context".
inline ::testing::AssertionResult IsOk(const ::rk::Status &s)
{
	if (s.ok())
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << "failed: " << s;
}
inline ::testing::AssertionResult HasErrno(int want, const ::rk::Status &s)
{
	if (s.err == want)
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << "want " << ::rk::errno_name(want)
					     << ", got " << s;
}
#define ASSERT_OK(expr) ASSERT_TRUE(IsOk(expr)) << #expr << " "
#define EXPECT_OK(expr) EXPECT_TRUE(IsOk(expr)) << #expr << " "
#define EXPECT_ERRNO(want, expr) EXPECT_TRUE(HasErrno(want, expr)) << #expr << " "

class RdmaTest : public ::testing::Test {
protected:
	void SetUp() override;

	// NEWLINK type rxe; the ScopedIbdev deletes it at the end of the test.
	::rk::Status add_rxe(const std::string &name, const std::string &ndev);
	// Asserting lookups (ADD_FAILURE and return false on error).
	bool find(const std::string &name, ::rk::DevInfo &d);
	bool in_dump(const std::string &name);
	// Port state by netlink PORT_GET and by sysfs, both.
	bool port_state_is(const ::rk::DevInfo &d, uint8_t state, uint8_t phys,
			   std::string *why);
	// Dummy netdev, up, deleted at the end of the test.
	void add_dummy_up(const std::string &name);
	// Indices i < gid_tbl_len whose gids/i equals gid.
	std::vector<unsigned> gid_indices(const std::string &dev, uint32_t port,
					  const ::rk::Gid &gid);

	// Full netlink-vs-sysfs cross-check of a device and its ports.
	void check_device(const ::rk::DevInfo &d);
	void check_port(const ::rk::DevInfo &d, uint32_t port);

	::rk::RdmaNl nl;
	::rk::Rtnl rt;
	std::vector<std::unique_ptr<::rk::ScopedNetdev>> netdevs;
	std::vector<std::unique_ptr<::rk::ScopedIbdev>> ibdevs;

	void TearDown() override
	{
		ibdevs.clear(); // ib devices first, then their netdevs
		netdevs.clear();
	}
};

// Netdev names used by the tests all start with this (IFNAMSIZ 16).
constexpr const char *kPrefix = "rkt";
