// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "nldev.h"

#include <cerrno>

namespace rk {

static Status missing(const char *what, const char *attr)
{
	return Status::Err(EBADMSG, std::string(what) + " reply lacks " + attr);
}

Status parse_dev(const AttrSet &a, DevInfo &d)
{
	auto idx = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX);
	auto name = a.str(RDMA_NLDEV_ATTR_DEV_NAME);
	auto ports = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX);
	auto guid = a.u64(RDMA_NLDEV_ATTR_NODE_GUID);
	auto nt = a.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE);
	if (!idx) return missing("GET", "DEV_INDEX");
	if (!name) return missing("GET", "DEV_NAME");
	if (!ports) return missing("GET", "PORT_INDEX");
	if (!guid) return missing("GET", "NODE_GUID");
	if (!nt) return missing("GET", "DEV_NODE_TYPE");
	d.index = *idx;
	d.name = *name;
	d.num_ports = *ports;
	d.node_guid = *guid;
	d.node_type = *nt;
	d.cap_flags = a.u64(RDMA_NLDEV_ATTR_CAP_FLAGS);
	d.fw_ver = a.str(RDMA_NLDEV_ATTR_FW_VERSION);
	d.sys_image_guid = a.u64(RDMA_NLDEV_ATTR_SYS_IMAGE_GUID);
	d.dim = a.u8(RDMA_NLDEV_ATTR_DEV_DIM);
	d.protocol = a.str(RDMA_NLDEV_ATTR_DEV_PROTOCOL);
	d.attrs = a;
	return Status::Ok();
}

Status parse_port(const AttrSet &a, PortInfo &p)
{
	auto idx = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX);
	auto name = a.str(RDMA_NLDEV_ATTR_DEV_NAME);
	auto port = a.u32(RDMA_NLDEV_ATTR_PORT_INDEX);
	auto st = a.u8(RDMA_NLDEV_ATTR_PORT_STATE);
	auto ps = a.u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE);
	if (!idx) return missing("PORT_GET", "DEV_INDEX");
	if (!name) return missing("PORT_GET", "DEV_NAME");
	if (!port) return missing("PORT_GET", "PORT_INDEX");
	if (!st) return missing("PORT_GET", "PORT_STATE");
	if (!ps) return missing("PORT_GET", "PORT_PHYS_STATE");
	p.dev_index = *idx;
	p.dev_name = *name;
	p.port = *port;
	p.state = *st;
	p.phys_state = *ps;
	p.cap_flags = a.u64(RDMA_NLDEV_ATTR_CAP_FLAGS);
	p.subnet_prefix = a.u64(RDMA_NLDEV_ATTR_SUBNET_PREFIX);
	p.lid = a.u32(RDMA_NLDEV_ATTR_LID);
	p.sm_lid = a.u32(RDMA_NLDEV_ATTR_SM_LID);
	p.lmc = a.u8(RDMA_NLDEV_ATTR_LMC);
	p.ndev_index = a.u32(RDMA_NLDEV_ATTR_NDEV_INDEX);
	p.ndev_name = a.str(RDMA_NLDEV_ATTR_NDEV_NAME);
	p.attrs = a;
	return Status::Ok();
}

Status parse_res_summary(const AttrSet &a, ResSummary &r)
{
	auto idx = a.u32(RDMA_NLDEV_ATTR_DEV_INDEX);
	auto name = a.str(RDMA_NLDEV_ATTR_DEV_NAME);
	if (!idx) return missing("RES_GET", "DEV_INDEX");
	if (!name) return missing("RES_GET", "DEV_NAME");
	r.dev_index = *idx;
	r.dev_name = *name;
	AttrSet sum;
	Status s = a.nested(RDMA_NLDEV_ATTR_RES_SUMMARY, sum);
	if (!s.ok())
		return s.err == ENOENT ? missing("RES_GET", "RES_SUMMARY") : s;
	r.entries.clear();
	for (const Attr &e : sum.attrs()) {
		if (e.type != RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY)
			return Status::Err(EBADMSG, "RES_SUMMARY holds attribute " +
					   std::to_string(e.type));
		AttrSet ent;
		s = ent.parse(e.data.data(), e.data.size());
		if (!s.ok())
			return s;
		auto en = ent.str(RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME);
		auto cur = ent.u64(RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR);
		if (!en || !cur)
			return missing("RES_SUMMARY_ENTRY", "ENTRY_NAME/ENTRY_CURR");
		r.entries.emplace_back(*en, *cur);
	}
	return Status::Ok();
}

static int req_flags(bool ack, bool dump = false)
{
	return NLM_F_REQUEST | (ack ? NLM_F_ACK : 0) | (dump ? NLM_F_DUMP : 0);
}

// Runs a doit that must return exactly one data message.
static Status one_reply(RdmaNl &nl, NlMsg &m, Reply &out)
{
	std::vector<Reply> r;
	Status s = nl.transact(m, r);
	if (!s.ok())
		return s;
	if (r.size() != 1)
		return Status::Err(EPROTO, "doit returned " + std::to_string(r.size()) +
				   " data messages, expected 1");
	out = std::move(r[0]);
	return Status::Ok();
}

// Runs a doit that must return no data, only the ACK.
static Status ack_only(RdmaNl &nl, NlMsg &m)
{
	std::vector<Reply> r;
	Status s = nl.transact(m, r);
	if (!s.ok())
		return s;
	if (!r.empty())
		return Status::Err(EPROTO, "unexpected data reply to an ACK-only command");
	return Status::Ok();
}

Status nldev_get_dump(RdmaNl &nl, std::vector<DevInfo> &out, bool ack)
{
	NlMsg m(RDMA_NLDEV_CMD_GET, req_flags(ack, true));
	std::vector<Reply> r;
	Status s = nl.transact(m, r);
	if (!s.ok())
		return s;
	out.clear();
	for (const Reply &x : r) {
		DevInfo d;
		s = parse_dev(x.attrs, d);
		if (!s.ok())
			return s;
		out.push_back(std::move(d));
	}
	return Status::Ok();
}

Status nldev_get(RdmaNl &nl, uint32_t index, DevInfo &out, bool ack)
{
	NlMsg m(RDMA_NLDEV_CMD_GET, req_flags(ack));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index);
	Reply r;
	Status s = one_reply(nl, m, r);
	return s.ok() ? parse_dev(r.attrs, out) : s;
}

Status nldev_find(RdmaNl &nl, const std::string &name, DevInfo &out)
{
	std::vector<DevInfo> all;
	Status s = nldev_get_dump(nl, all);
	if (!s.ok())
		return s;
	for (DevInfo &d : all)
		if (d.name == name) {
			out = std::move(d);
			return Status::Ok();
		}
	return Status::Err(ENODEV, "no ib device " + name + " in the GET dump");
}

Status nldev_port_get(RdmaNl &nl, uint32_t index, uint32_t port, PortInfo &out,
		      bool ack)
{
	NlMsg m(RDMA_NLDEV_CMD_PORT_GET, req_flags(ack));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index).u32(RDMA_NLDEV_ATTR_PORT_INDEX, port);
	Reply r;
	Status s = one_reply(nl, m, r);
	return s.ok() ? parse_port(r.attrs, out) : s;
}

Status nldev_port_dump(RdmaNl &nl, uint32_t index, std::vector<PortInfo> &out)
{
	NlMsg m(RDMA_NLDEV_CMD_PORT_GET, req_flags(true, true));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index);
	std::vector<Reply> r;
	Status s = nl.transact(m, r);
	if (!s.ok())
		return s;
	out.clear();
	for (const Reply &x : r) {
		PortInfo p;
		s = parse_port(x.attrs, p);
		if (!s.ok())
			return s;
		out.push_back(std::move(p));
	}
	return Status::Ok();
}

Status nldev_newlink(RdmaNl &nl, const std::string &name, const std::string &type,
		     const std::string &ndev)
{
	NlMsg m(RDMA_NLDEV_CMD_NEWLINK, req_flags(true));
	m.str(RDMA_NLDEV_ATTR_DEV_NAME, name)
		.str(RDMA_NLDEV_ATTR_LINK_TYPE, type)
		.str(RDMA_NLDEV_ATTR_NDEV_NAME, ndev);
	return ack_only(nl, m);
}

Status nldev_dellink(RdmaNl &nl, uint32_t index)
{
	NlMsg m(RDMA_NLDEV_CMD_DELLINK, req_flags(true));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index);
	return ack_only(nl, m);
}

Status nldev_set_name(RdmaNl &nl, uint32_t index, const std::string &name)
{
	NlMsg m(RDMA_NLDEV_CMD_SET, req_flags(true));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index).str(RDMA_NLDEV_ATTR_DEV_NAME, name);
	return ack_only(nl, m);
}

Status nldev_sys_get(RdmaNl &nl, SysInfo &out)
{
	NlMsg m(RDMA_NLDEV_CMD_SYS_GET, req_flags(true));
	Reply r;
	Status s = one_reply(nl, m, r);
	if (!s.ok())
		return s;
	out.netns_mode = r.attrs.u8(RDMA_NLDEV_SYS_ATTR_NETNS_MODE);
	out.copy_on_fork = r.attrs.u8(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK);
	out.attrs = r.attrs;
	return Status::Ok();
}

Status nldev_res_get(RdmaNl &nl, uint32_t index, ResSummary &out)
{
	NlMsg m(RDMA_NLDEV_CMD_RES_GET, req_flags(true));
	m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, index);
	Reply r;
	Status s = one_reply(nl, m, r);
	return s.ok() ? parse_res_summary(r.attrs, out) : s;
}

Status nldev_res_dump(RdmaNl &nl, std::vector<ResSummary> &out)
{
	NlMsg m(RDMA_NLDEV_CMD_RES_GET, req_flags(true, true));
	std::vector<Reply> r;
	Status s = nl.transact(m, r);
	if (!s.ok())
		return s;
	out.clear();
	for (const Reply &x : r) {
		ResSummary rs;
		s = parse_res_summary(x.attrs, rs);
		if (!s.ok())
			return s;
		out.push_back(std::move(rs));
	}
	return Status::Ok();
}

Status nldev_get_chardev(RdmaNl &nl, std::optional<uint32_t> index,
			 const std::string &type, std::optional<uint32_t> port,
			 ChardevInfo &out)
{
	// libibverbs/librdmacm send this without NLM_F_ACK (ABI.md §11 (a)).
	NlMsg m(RDMA_NLDEV_CMD_GET_CHARDEV, NLM_F_REQUEST);
	if (index)
		m.u32(RDMA_NLDEV_ATTR_DEV_INDEX, *index);
	if (port)
		m.u32(RDMA_NLDEV_ATTR_PORT_INDEX, *port);
	m.str(RDMA_NLDEV_ATTR_CHARDEV_TYPE, type);
	Reply r;
	Status s = one_reply(nl, m, r);
	if (!s.ok())
		return s;
	auto name = r.attrs.str(RDMA_NLDEV_ATTR_CHARDEV_NAME);
	auto abi = r.attrs.u64(RDMA_NLDEV_ATTR_CHARDEV_ABI);
	auto dev = r.attrs.u64(RDMA_NLDEV_ATTR_CHARDEV);
	if (!name) return missing("GET_CHARDEV", "CHARDEV_NAME");
	if (!abi) return missing("GET_CHARDEV", "CHARDEV_ABI");
	if (!dev) return missing("GET_CHARDEV", "CHARDEV");
	out.name = *name;
	out.abi = *abi;
	out.dev = *dev;
	out.driver_id = r.attrs.u32(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID);
	return Status::Ok();
}

const char *port_state_name(uint8_t s)
{
	static const char *const n[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE",
					"ACTIVE_DEFER"};
	return s < 6 ? n[s] : "?";
}

const char *phys_state_sysfs_name(uint8_t s)
{
	static const char *const n[] = {"<unknown>", "Sleep", "Polling", "Disabled",
					"PortConfigurationTraining", "LinkUp",
					"LinkErrorRecovery", "Phy Test"};
	return s < 8 ? n[s] : "<unknown>";
}

const char *node_type_sysfs_name(uint8_t t)
{
	static const char *const n[] = {"?", "CA", "switch", "router", "RNIC",
					"usNIC", "usNIC UDP", "unspecified"};
	return t < 8 ? n[t] : "?";
}

} // namespace rk
