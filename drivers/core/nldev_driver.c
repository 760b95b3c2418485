// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver-private attributes in NLDEV answers. A driver's fill_res_*_entry
 * op appends (name, value) pairs inside the RDMA_NLDEV_ATTR_DRIVER table
 * that nldev opened for it: the name as DRIVER_STRING, a DRIVER_PRINT_TYPE
 * when the value should be shown in hex, then the value itself (how
 * iproute2's `rdma res show -dd` reads them). Counters for `rdma statistic`
 * are HWCOUNTER_ENTRY nests of a name and a u64.
 */
#include <linux/module.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

static int put_driver_name(struct sk_buff *msg, const char *name, bool hex)
{
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, name))
		return -EMSGSIZE;
	if (hex && nla_put_u8(msg, RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE,
			      RDMA_NLDEV_PRINT_TYPE_HEX))
		return -EMSGSIZE;
	return 0;
}

static int put_driver_u32(struct sk_buff *msg, const char *name, u32 value,
			  bool hex)
{
	if (put_driver_name(msg, name, hex) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_DRIVER_U32, value))
		return -EMSGSIZE;
	return 0;
}

static int put_driver_u64(struct sk_buff *msg, const char *name, u64 value,
			  bool hex)
{
	if (put_driver_name(msg, name, hex) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_DRIVER_U64, value,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

int rdma_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value)
{
	return put_driver_u32(msg, name, value, false);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32);

int rdma_nl_put_driver_u32_hex(struct sk_buff *msg, const char *name,
			       u32 value)
{
	return put_driver_u32(msg, name, value, true);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32_hex);

int rdma_nl_put_driver_u64(struct sk_buff *msg, const char *name, u64 value)
{
	return put_driver_u64(msg, name, value, false);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64);

int rdma_nl_put_driver_u64_hex(struct sk_buff *msg, const char *name,
			       u64 value)
{
	return put_driver_u64(msg, name, value, true);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64_hex);

int rdma_nl_put_driver_string(struct sk_buff *msg, const char *name,
			      const char *str)
{
	if (put_driver_name(msg, name, false) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, str))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL(rdma_nl_put_driver_string);

int rdma_nl_stat_hwcounter_entry(struct sk_buff *msg, const char *name,
				 u64 value)
{
	struct nlattr *entry;

	entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			   name) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
			      value, RDMA_NLDEV_ATTR_PAD)) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}
EXPORT_SYMBOL(rdma_nl_stat_hwcounter_entry);
