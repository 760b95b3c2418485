// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "netif.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <sys/wait.h>

#include <netlink/addr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/veth.h>
#include <netlink/route/link/vlan.h>
#include <netlink/socket.h>

#include "nldev.h"
#include "sysfs.h"

namespace rk {

namespace {

// libnl error codes to the closest errno, for messages and EEXIST checks.
Status nlerr(int err, const std::string &what)
{
	int e = EIO;
	switch (-err) {
	case NLE_EXIST: e = EEXIST; break;
	case NLE_OBJ_NOTFOUND: e = ENOENT; break;
	case NLE_NODEV: e = ENODEV; break;
	case NLE_PERM: e = EPERM; break;
	case NLE_INVAL: e = EINVAL; break;
	case NLE_NOMEM: e = ENOMEM; break;
	case NLE_BUSY: e = EBUSY; break;
	case NLE_OPNOTSUPP: e = EOPNOTSUPP; break;
	case NLE_RANGE: e = ERANGE; break;
	default: break;
	}
	return Status::Err(e, what + ": " + nl_geterror(err));
}

struct LinkPtr {
	rtnl_link *p = nullptr;
	~LinkPtr() { if (p) rtnl_link_put(p); }
};
struct AddrPtr {
	nl_addr *p = nullptr;
	~AddrPtr() { if (p) nl_addr_put(p); }
};
struct RtAddrPtr {
	rtnl_addr *p = nullptr;
	~RtAddrPtr() { if (p) rtnl_addr_put(p); }
};

} // namespace

Rtnl::~Rtnl()
{
	if (sk_)
		nl_socket_free(sk_);
}

Status Rtnl::open()
{
	sk_ = nl_socket_alloc();
	if (!sk_)
		return Status::Err(ENOMEM, "nl_socket_alloc");
	int err = nl_connect(sk_, NETLINK_ROUTE);
	if (err < 0) {
		nl_socket_free(sk_);
		sk_ = nullptr;
		return nlerr(err, "nl_connect(NETLINK_ROUTE)");
	}
	return Status::Ok();
}

Status Rtnl::require()
{
	return sk_ ? Status::Ok() : open();
}

Status Rtnl::add_dummy(const std::string &name)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr l;
	l.p = rtnl_link_alloc();
	rtnl_link_set_name(l.p, name.c_str());
	int err = rtnl_link_set_type(l.p, "dummy");
	if (err < 0)
		return nlerr(err, "set type dummy");
	err = rtnl_link_add(sk_, l.p, NLM_F_CREATE | NLM_F_EXCL);
	return err < 0 ? nlerr(err, "add dummy " + name) : Status::Ok();
}

Status Rtnl::add_veth(const std::string &name, const std::string &peer)
{
	Status s = require();
	if (!s.ok())
		return s;
	// Built by hand: libnl 3.7's rtnl_link_veth_add() fails with
	// NLE_OBJ_NOTFOUND in the guest although `ip link add ... type veth` works.
	nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	if (!m)
		return Status::Err(ENOMEM, "nlmsg_alloc");
	ifinfomsg ifi{};
	ifi.ifi_family = AF_UNSPEC;
	nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	nla_put_string(m, IFLA_IFNAME, name.c_str());
	nlattr *info = nla_nest_start(m, IFLA_LINKINFO);
	nla_put_string(m, IFLA_INFO_KIND, "veth");
	nlattr *data = nla_nest_start(m, IFLA_INFO_DATA);
	nlattr *pe = nla_nest_start(m, VETH_INFO_PEER);
	void *pifi = nlmsg_reserve(m, sizeof(ifi), NLMSG_ALIGNTO);
	memset(pifi, 0, sizeof(ifi));
	nla_put_string(m, IFLA_IFNAME, peer.c_str());
	nla_nest_end(m, pe);
	nla_nest_end(m, data);
	nla_nest_end(m, info);
	int err = nl_send_sync(sk_, m); // frees m, waits for the ACK
	return err < 0 ? nlerr(err, "add veth " + name + "/" + peer) : Status::Ok();
}

Status Rtnl::add_vlan(const std::string &name, const std::string &parent, uint16_t id)
{
	Status s = require();
	if (!s.ok())
		return s;
	int pidx = ifindex(parent);
	if (!pidx)
		return Status::Err(ENODEV, "no netdev " + parent);
	LinkPtr l;
	l.p = rtnl_link_vlan_alloc();
	rtnl_link_set_name(l.p, name.c_str());
	rtnl_link_set_link(l.p, pidx);
	rtnl_link_vlan_set_id(l.p, id);
	int err = rtnl_link_add(sk_, l.p, NLM_F_CREATE | NLM_F_EXCL);
	return err < 0 ? nlerr(err, "add vlan " + name) : Status::Ok();
}

Status Rtnl::del(const std::string &name)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr l;
	l.p = rtnl_link_alloc();
	rtnl_link_set_name(l.p, name.c_str());
	int err = rtnl_link_delete(sk_, l.p);
	return err < 0 ? nlerr(err, "delete " + name) : Status::Ok();
}

// Applies the attributes of chg to the existing link name.
static Status change(nl_sock *sk, const std::string &name, rtnl_link *chg,
		     const std::string &what)
{
	LinkPtr orig;
	int err = rtnl_link_get_kernel(sk, 0, name.c_str(), &orig.p);
	if (err < 0)
		return nlerr(err, "get " + name);
	err = rtnl_link_change(sk, orig.p, chg, 0);
	return err < 0 ? nlerr(err, what + " " + name) : Status::Ok();
}

Status Rtnl::set_up(const std::string &name, bool up)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr chg;
	chg.p = rtnl_link_alloc();
	if (up)
		rtnl_link_set_flags(chg.p, IFF_UP);
	else
		rtnl_link_unset_flags(chg.p, IFF_UP);
	return change(sk_, name, chg.p, up ? "set up" : "set down");
}

Status Rtnl::rename(const std::string &name, const std::string &newname)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr chg;
	chg.p = rtnl_link_alloc();
	rtnl_link_set_name(chg.p, newname.c_str());
	return change(sk_, name, chg.p, "rename");
}

Status Rtnl::set_mac(const std::string &name, const Mac &mac)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr chg;
	chg.p = rtnl_link_alloc();
	AddrPtr a;
	a.p = nl_addr_build(AF_LLC, mac.data(), mac.size());
	rtnl_link_set_addr(chg.p, a.p);
	return change(sk_, name, chg.p, "set mac");
}

Status Rtnl::set_netns(const std::string &name, int ns_fd)
{
	Status s = require();
	if (!s.ok())
		return s;
	LinkPtr chg;
	chg.p = rtnl_link_alloc();
	rtnl_link_set_ns_fd(chg.p, ns_fd);
	return change(sk_, name, chg.p, "set netns");
}

static Status make_addr(const std::string &dev, const std::string &cidr, RtAddrPtr &ra)
{
	int idx = ifindex(dev);
	if (!idx)
		return Status::Err(ENODEV, "no netdev " + dev);
	AddrPtr local;
	int err = nl_addr_parse(cidr.c_str(), AF_UNSPEC, &local.p);
	if (err < 0)
		return nlerr(err, "parse " + cidr);
	ra.p = rtnl_addr_alloc();
	rtnl_addr_set_ifindex(ra.p, idx);
	err = rtnl_addr_set_local(ra.p, local.p);
	if (err < 0)
		return nlerr(err, "set local " + cidr);
	if (nl_addr_get_family(local.p) == AF_INET6)
		rtnl_addr_set_flags(ra.p, IFA_F_NODAD);
	return Status::Ok();
}

Status Rtnl::addr_add(const std::string &dev, const std::string &cidr)
{
	Status s = require();
	if (!s.ok())
		return s;
	RtAddrPtr ra;
	s = make_addr(dev, cidr, ra);
	if (!s.ok())
		return s;
	int err = rtnl_addr_add(sk_, ra.p, NLM_F_CREATE | NLM_F_EXCL);
	return err < 0 ? nlerr(err, "addr add " + cidr + " dev " + dev) : Status::Ok();
}

Status Rtnl::addr_del(const std::string &dev, const std::string &cidr)
{
	Status s = require();
	if (!s.ok())
		return s;
	RtAddrPtr ra;
	s = make_addr(dev, cidr, ra);
	if (!s.ok())
		return s;
	int err = rtnl_addr_delete(sk_, ra.p, 0);
	return err < 0 ? nlerr(err, "addr del " + cidr + " dev " + dev) : Status::Ok();
}

int ifindex(const std::string &name)
{
	return static_cast<int>(if_nametoindex(name.c_str()));
}

bool netdev_exists(const std::string &name) { return ifindex(name) != 0; }

Status read_mac(const std::string &name, Mac &mac)
{
	std::string s;
	Status st = read_sysfs("/sys/class/net/" + name + "/address", s);
	if (!st.ok())
		return st;
	unsigned b[6];
	if (sscanf(s.c_str(), "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return Status::Err(EBADMSG, "bad MAC '" + s + "' of " + name);
	for (int i = 0; i < 6; i++)
		mac[i] = static_cast<uint8_t>(b[i]);
	return Status::Ok();
}

ScopedNetdev::~ScopedNetdev()
{
	if (netdev_exists(name_))
		rt_.del(name_);
}

ScopedIbdev::~ScopedIbdev()
{
	DevInfo d;
	if (nl_.is_open() && nldev_find(nl_, name_, d).ok())
		nldev_dellink(nl_, d.index);
}

int run_cmd(const std::string &cmd, std::string *out)
{
	std::string full = cmd + " 2>&1";
	FILE *f = popen(full.c_str(), "r");
	if (!f)
		return -1;
	char buf[4096];
	size_t n;
	std::string o;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		o.append(buf, n);
	int st = pclose(f);
	if (out)
		*out = o;
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

} // namespace rk
