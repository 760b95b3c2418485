// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Network-device helpers over libnl-route (no fork per operation: every exec
// costs 0.1-0.5 s in the TCG guest), RAII guards that undo what a test made,
// and a shell runner for the rest.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "rdma_nl.h"

struct nl_sock;

namespace rk {

using Mac = std::array<uint8_t, 6>;

class Rtnl {
public:
	Rtnl() = default;
	~Rtnl();
	Rtnl(const Rtnl &) = delete;
	Rtnl &operator=(const Rtnl &) = delete;

	Status open();
	Status add_dummy(const std::string &name);
	Status add_veth(const std::string &name, const std::string &peer);
	Status add_vlan(const std::string &name, const std::string &parent, uint16_t id);
	Status del(const std::string &name);
	Status set_up(const std::string &name, bool up);
	Status rename(const std::string &name, const std::string &newname);
	Status set_mac(const std::string &name, const Mac &mac);
	// Moves the netdev into the network namespace open at ns_fd.
	Status set_netns(const std::string &name, int ns_fd);
	// "192.0.2.5/24" or "2001:db8:1::5/64" (IPv6 with IFA_F_NODAD).
	Status addr_add(const std::string &dev, const std::string &cidr);
	Status addr_del(const std::string &dev, const std::string &cidr);

private:
	Status require();
	nl_sock *sk_ = nullptr;
};

int ifindex(const std::string &name); // 0 if absent
Status read_mac(const std::string &name, Mac &mac); // /sys/class/net/X/address
bool netdev_exists(const std::string &name);

// Deletes the netdev on destruction (ignores "already gone").
class ScopedNetdev {
public:
	ScopedNetdev(Rtnl &rt, std::string name) : rt_(rt), name_(std::move(name)) {}
	~ScopedNetdev();
	ScopedNetdev(const ScopedNetdev &) = delete;
	ScopedNetdev &operator=(const ScopedNetdev &) = delete;
	const std::string &name() const { return name_; }

private:
	Rtnl &rt_;
	std::string name_;
};

// Deletes the ib device of that name on destruction, if it still exists.
class ScopedIbdev {
public:
	ScopedIbdev(RdmaNl &nl, std::string name) : nl_(nl), name_(std::move(name)) {}
	~ScopedIbdev();
	ScopedIbdev(const ScopedIbdev &) = delete;
	ScopedIbdev &operator=(const ScopedIbdev &) = delete;
	void rename(std::string n) { name_ = std::move(n); }
	const std::string &name() const { return name_; }

private:
	RdmaNl &nl_;
	std::string name_;
};

// Runs cmd with /bin/sh; returns the exit status (-1 if it could not run),
// stdout+stderr in *out if given.
int run_cmd(const std::string &cmd, std::string *out = nullptr);

} // namespace rk
