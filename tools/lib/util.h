// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// GID/GUID arithmetic, polling, and the test environment (RDMA_KMOD_*).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>

#include "netif.h"

namespace rk {

using Gid = std::array<uint8_t, 16>;

// Modified EUI-64 of a MAC as a host-order u64 (the netlink NODE_GUID value).
uint64_t eui64_guid(const Mac &mac);
// fe80::<EUI-64>: the default GID rxe/roce_gid_mgmt put at index 0.
Gid link_local_gid(const Mac &mac);
// ::ffff:a.b.c.d for an IPv4 address; the address itself for IPv6. false if
// the text is not an address.
bool ip_to_gid(const std::string &ip, Gid &gid);
// The sysfs "%pI6"-like rendering: 8 groups of 4 lowercase hex digits + '\n'.
std::string gid_sysfs(const Gid &gid);
bool gid_is_zero(const std::string &sysfs_text);

// How many times longer waits may take: RDMA_KMOD_TIME_FACTOR (the VM runner
// sets it on a slow kernel, the debug one), 1 when unset.
int time_factor();

// Calls f() every step_ms until it returns true or timeout_ms (times
// time_factor()) elapsed; returns the last result. Assertions go on the
// content, not on timing.
template <typename F> bool poll_until(F f, int timeout_ms = 1000, int step_ms = 50)
{
	auto end = std::chrono::steady_clock::now() +
		   std::chrono::milliseconds(static_cast<long>(timeout_ms) * time_factor());
	for (;;) {
		if (f())
			return true;
		if (std::chrono::steady_clock::now() >= end)
			return f();
		std::this_thread::sleep_for(std::chrono::milliseconds(step_ms));
	}
}

// RDMA_KMOD_STACK ("ours" / "stock"), empty outside the VM runner.
std::string stack();
bool in_vm();      // RDMA_KMOD_STACK is set: missing RDMA support is a failure
bool is_stock();

} // namespace rk
