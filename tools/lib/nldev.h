// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// NLDEV requests (ABI.md §2.2-2.6) and their replies as structs. Parsing
// enforces what the real consumers require: libibverbs needs DEV_NAME,
// DEV_NODE_TYPE, DEV_INDEX, NODE_GUID, PORT_INDEX in every GET reply;
// iproute2 needs DEV_INDEX, DEV_NAME (+PORT_INDEX) in GET/PORT_GET replies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rdma_nl.h"

namespace rk {

// ib_port_state / phys state values (ABI.md §2.3).
enum : uint8_t { kPortDown = 1, kPortInit = 2, kPortArmed = 3, kPortActive = 4 };
enum : uint8_t { kPhysSleep = 1, kPhysPolling = 2, kPhysDisabled = 3, kPhysLinkUp = 5 };

struct DevInfo {
	uint32_t index = 0;
	std::string name;
	uint32_t num_ports = 0; // PORT_INDEX in a GET reply
	uint64_t node_guid = 0; // host order
	uint8_t node_type = 0;
	std::optional<uint64_t> cap_flags;
	std::optional<std::string> fw_ver;
	std::optional<uint64_t> sys_image_guid;
	std::optional<uint8_t> dim;
	std::optional<std::string> protocol;
	AttrSet attrs; // everything, for cross-checks
};

struct PortInfo {
	uint32_t dev_index = 0;
	std::string dev_name;
	uint32_t port = 0;
	uint8_t state = 0;
	uint8_t phys_state = 0;
	std::optional<uint64_t> cap_flags;
	std::optional<uint64_t> subnet_prefix;
	std::optional<uint32_t> lid, sm_lid;
	std::optional<uint8_t> lmc;
	std::optional<uint32_t> ndev_index;
	std::optional<std::string> ndev_name;
	AttrSet attrs;
};

struct SysInfo {
	std::optional<uint8_t> netns_mode;
	std::optional<uint8_t> copy_on_fork;
	AttrSet attrs;
};

struct ResSummary {
	uint32_t dev_index = 0;
	std::string dev_name;
	std::vector<std::pair<std::string, uint64_t>> entries; // in wire order
};

struct ChardevInfo {
	std::string name;
	uint64_t abi = 0;
	uint64_t dev = 0; // huge_encode_dev
	std::optional<uint32_t> driver_id;
	uint32_t major() const { return static_cast<uint32_t>((dev & 0xfff00) >> 8); }
	uint32_t minor() const
	{
		return static_cast<uint32_t>((dev & 0xff) | ((dev >> 12) & 0xfff00));
	}
};

Status parse_dev(const AttrSet &a, DevInfo &d);
Status parse_port(const AttrSet &a, PortInfo &p);
Status parse_res_summary(const AttrSet &a, ResSummary &r);

// All take an open socket. "ack" mirrors iproute2 (NLM_F_ACK on every
// request) vs libnl users (libibverbs: no ACK).
Status nldev_get_dump(RdmaNl &nl, std::vector<DevInfo> &out, bool ack = true);
Status nldev_get(RdmaNl &nl, uint32_t index, DevInfo &out, bool ack = true);
Status nldev_find(RdmaNl &nl, const std::string &name, DevInfo &out); // ENODEV if absent
Status nldev_port_get(RdmaNl &nl, uint32_t index, uint32_t port, PortInfo &out,
		      bool ack = true);
Status nldev_port_dump(RdmaNl &nl, uint32_t index, std::vector<PortInfo> &out);
Status nldev_newlink(RdmaNl &nl, const std::string &name, const std::string &type,
		     const std::string &ndev);
Status nldev_dellink(RdmaNl &nl, uint32_t index);
Status nldev_set_name(RdmaNl &nl, uint32_t index, const std::string &name);
Status nldev_sys_get(RdmaNl &nl, SysInfo &out);
Status nldev_res_get(RdmaNl &nl, uint32_t index, ResSummary &out);
Status nldev_res_dump(RdmaNl &nl, std::vector<ResSummary> &out);
Status nldev_get_chardev(RdmaNl &nl, std::optional<uint32_t> index,
			 const std::string &type, std::optional<uint32_t> port,
			 ChardevInfo &out);

// Names used by iproute2 / sysfs for values.
const char *port_state_name(uint8_t s);      // "ACTIVE" (iproute2 == sysfs)
const char *phys_state_sysfs_name(uint8_t s); // "LinkUp" (sysfs)
const char *node_type_sysfs_name(uint8_t t);  // "CA" (sysfs)

} // namespace rk
