// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// sysfs readers that behave like libibverbs/libibumad (one read() per file)
// and the format parsers of ABI.md §3.1-3.2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rdma_nl.h"

namespace rk {

// One open+read; err is the errno of open() or read() (EINVAL for an empty
// GID attribute, as the real kernel returns).
Status read_sysfs(const std::string &path, std::string &out);
// Entries other than "." and "..", sorted; err = errno of opendir.
Status list_dir(const std::string &path, std::vector<std::string> &out);
bool path_exists(const std::string &path);

std::string ib_dev_path(const std::string &dev);
std::string ib_port_path(const std::string &dev, uint32_t port);

// "%04x:%04x:%04x:%04x\n" of a GUID (host-order u64) and back.
std::string guid_sysfs(uint64_t guid);
bool parse_guid_sysfs(const std::string &s, uint64_t &guid);

// "N: NAME\n" files (state, phys_state, node_type).
bool parse_num_name(const std::string &s, unsigned &num, std::string &name);

// True if s is exactly 8 groups of 4 lowercase hex digits + '\n' (40 bytes).
bool is_gid_sysfs_format(const std::string &s);
// True if s matches the rate format "%d%s Gb/sec (%dX%s)\n".
bool is_rate_format(const std::string &s);

} // namespace rk
