// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NLDEV netlink client: device and port queries for libibverbs and the
 * rdma tool, `rdma link add/delete`, rename, system settings, resource
 * summaries and char device lookup (GET_CHARDEV). Also the registry of link
 * types (rdma_link_ops) that NEWLINK creates devices with. The per-object
 * resource tables (RES_QP_GET ...) are in nldev_res.c.
 */
#include <linux/module.h>
#include <linux/kdev_t.h>
#include <linux/kmod.h>
#include <linux/rwsem.h>
#include <linux/string.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>
#include "core_priv.h"

/* Every attribute a request may carry that nldev reads. */
static const struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	[RDMA_NLDEV_ATTR_DEV_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DEV_NAME]	= { .type = NLA_NUL_STRING,
					    .len = IB_DEVICE_NAME_MAX },
	[RDMA_NLDEV_ATTR_PORT_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LQPN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_NAME]	= { .type = NLA_NUL_STRING,
					    .len = IFNAMSIZ },
	[RDMA_NLDEV_ATTR_RES_PDN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CM_IDN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CTXN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LINK_TYPE]	= { .type = NLA_NUL_STRING,
					    .len = IFNAMSIZ },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_NET_NS_FD]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]	= { .type = NLA_NUL_STRING,
					    .len = RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE },
	[RDMA_NLDEV_ATTR_DEV_DIM]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_SRQN]	= { .type = NLA_U32 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
};

/*
 * Unknown attribute types are ignored (newer userspace may send them);
 * known ones must match the policy, fixed-size ones exactly (-EINVAL, as
 * the stock kernel answers a 1-byte DEV_INDEX).
 */
int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		struct netlink_ext_ack *extack)
{
	return __nlmsg_parse(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1,
			     nldev_policy, NL_VALIDATE_STRICT_ATTRS, extack);
}

/* ------------------------------------------------------------ link ops */

static DECLARE_RWSEM(link_ops_rwsem);
static LIST_HEAD(link_ops);

/* Caller holds link_ops_rwsem. */
static const struct rdma_link_ops *link_ops_find(const char *type)
{
	const struct rdma_link_ops *ops;

	list_for_each_entry(ops, &link_ops, list)
		if (!strcmp(ops->type, type))
			return ops;
	return NULL;
}

/*
 * Looks the type up, loading "rdma-link-<type>" on a miss. Returns with
 * link_ops_rwsem held for read if ops were found, so the driver cannot
 * unregister (and unload) while the caller uses them.
 */
static const struct rdma_link_ops *link_ops_get_locked(const char *type)
{
	const struct rdma_link_ops *ops;

	down_read(&link_ops_rwsem);
	ops = link_ops_find(type);
	if (!ops) {
		/* The driver's init registers, which takes the rwsem. */
		up_read(&link_ops_rwsem);
		request_module("rdma-link-%s", type);
		down_read(&link_ops_rwsem);
		ops = link_ops_find(type);
	}
	if (!ops)
		up_read(&link_ops_rwsem);
	return ops;
}

const struct rdma_link_ops *link_ops_get(const char *type)
{
	const struct rdma_link_ops *ops = link_ops_get_locked(type);

	if (ops)
		up_read(&link_ops_rwsem);
	return ops;
}

void rdma_link_register(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	if (WARN_ON(link_ops_find(ops->type)))
		goto out;
	list_add(&ops->list, &link_ops);
out:
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_register);

void rdma_link_unregister(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	/* Only unlink what register really added (it refuses duplicates). */
	if (link_ops_find(ops->type) == ops)
		list_del(&ops->list);
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_unregister);

/* ------------------------------------------------------------ fill helpers */

int fill_nldev_handle(struct sk_buff *msg, struct ib_device *device)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME,
			   dev_name(&device->dev)))
		return -EMSGSIZE;
	return 0;
}

static const char *nldev_protocol(struct ib_device *device)
{
	u32 port = rdma_start_port(device);

	if (!rdma_is_port_valid(device, port))
		return NULL;
	if (rdma_cap_opa_mad(device, port))
		return "opa";
	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iw";
	if (rdma_protocol_roce(device, port))
		return "roce";
	if (rdma_protocol_usnic(device, port))
		return "usnic";
	return NULL;
}

static int fill_dev_info(struct sk_buff *msg, struct ib_device *device)
{
	char fw[IB_FW_VERSION_NAME_MAX] = "";
	const char *proto;

	if (fill_nldev_handle(msg, device))
		return -EMSGSIZE;
	/* PORT_INDEX of a device is its number of ports. */
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_end_port(device)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			      device->attrs.device_cap_flags,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;

	ib_get_device_fw_str(device, fw);
	fw[sizeof(fw) - 1] = '\0';
	if (fw[0] && nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, fw))
		return -EMSGSIZE;

	/* GUIDs travel as host-order u64 of the big-endian value. */
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			      be64_to_cpu(device->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu(device->attrs.sys_image_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, device->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, device->use_cq_dim))
		return -EMSGSIZE;

	proto = nldev_protocol(device);
	if (proto && nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, proto))
		return -EMSGSIZE;
	return 0;
}

static int fill_port_info(struct sk_buff *msg, struct ib_device *device,
			  u32 port, const struct net *net)
{
	struct net_device *netdev;
	struct ib_port_attr attr;
	int ret;

	if (fill_nldev_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;

	/* LID and friends mean nothing on RoCE and iWARP ports. */
	if (rdma_protocol_ib(device, port)) {
		u64 cap = attr.port_cap_flags |
			  ((u64)attr.port_cap_flags2 << 32);

		if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, cap,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
				      attr.subnet_prefix,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, attr.lid) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, attr.sm_lid) ||
		    nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, attr.lmc))
			return -EMSGSIZE;
	}
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;

	netdev = ib_device_get_netdev(device, port);
	if (!netdev)
		return 0;
	/* A netdev in another namespace is not the caller's to see. */
	if (net_eq(dev_net(netdev), net) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, netdev->ifindex) ||
	     nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, netdev->name)))
		ret = -EMSGSIZE;
	dev_put(netdev);
	return ret;
}

static int fill_res_entry(struct sk_buff *msg, const char *name, u64 curr)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, name) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, curr,
			      RDMA_NLDEV_ATTR_PAD)) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}

static int fill_res_info(struct sk_buff *msg, struct ib_device *device)
{
	/* The order `rdma resource` prints them in. */
	static const struct {
		enum rdma_restrack_type type;
		const char *name;
	} res[] = {
		{ RDMA_RESTRACK_PD, "pd" },
		{ RDMA_RESTRACK_CQ, "cq" },
		{ RDMA_RESTRACK_QP, "qp" },
		{ RDMA_RESTRACK_CM_ID, "cm_id" },
		{ RDMA_RESTRACK_MR, "mr" },
		{ RDMA_RESTRACK_CTX, "ctx" },
		{ RDMA_RESTRACK_SRQ, "srq" },
	};
	struct nlattr *table;
	unsigned int i;

	if (fill_nldev_handle(msg, device))
		return -EMSGSIZE;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(res); i++) {
		int curr = rdma_restrack_count(device, res[i].type);

		if (fill_res_entry(msg, res[i].name, max(curr, 0))) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

/* ------------------------------------------------------------ doit plumbing */

/*
 * A doit answers with one message, flags 0: NLM_F_MULTI would make libnl
 * wait for an NLMSG_DONE that never comes.
 */
struct sk_buff *nldev_reply_new(const struct sk_buff *skb,
				const struct nlmsghdr *req, u32 cmd,
				struct nlmsghdr **nlh)
{
	struct sk_buff *msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*nlh = nlmsg_put(msg, NETLINK_CB(skb).portid, req->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, 0);
	if (!*nlh) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int nldev_reply_send(const struct sk_buff *skb, struct sk_buff *msg,
		     struct nlmsghdr *nlh)
{
	nlmsg_end(msg, nlh);
	return rdma_nl_unicast(sock_net(skb->sk), msg, NETLINK_CB(skb).portid);
}

/* The device named by DEV_INDEX, referenced, or NULL. */
struct ib_device *nldev_device(const struct sk_buff *skb, struct nlattr **tb)
{
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX])
		return NULL;
	return ib_device_get_by_index(sock_net(skb->sk),
				      nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
}

/* Dump message header: multipart, answering the dump request. */
struct nlmsghdr *nldev_dump_put(struct sk_buff *skb,
				struct netlink_callback *cb, u32 cmd)
{
	return nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_MULTI);
}

/* ------------------------------------------------------------ GET */

/* A doit answering one message about the device DEV_INDEX names. */
static int nldev_device_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack, u32 cmd,
			     int (*fill)(struct sk_buff *, struct ib_device *))
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	device = nldev_device(skb, tb);
	if (!device)
		return -EINVAL;

	msg = nldev_reply_new(skb, nlh, cmd, &rnlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = fill(msg, device);
	if (err)
		goto out_free;
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_free:
	nlmsg_free(msg);
out_put:
	ib_device_put(device);
	return err;
}

static int nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	return nldev_device_doit(skb, nlh, extack, RDMA_NLDEV_CMD_GET,
				 fill_dev_info);
}

/*
 * Per-device step of a dump over all devices. ib_enum_all_devs() walks
 * the devices in ascending DEV_INDEX order and holds no reference between
 * recv calls, so the next part resumes after the last index sent
 * (cb->args[0]): a device that went away in between is just not seen, and
 * none of the others is skipped or sent twice.
 */
static int nldev_dump_one(struct ib_device *device, struct sk_buff *skb,
			  struct netlink_callback *cb, u32 cmd,
			  int (*fill)(struct sk_buff *, struct ib_device *))
{
	struct nlmsghdr *nlh;

	if (device->index < cb->args[0])
		return 0;

	nlh = nldev_dump_put(skb, cb, cmd);
	if (!nlh)
		return -EMSGSIZE;
	if (fill(skb, device)) {
		nlmsg_cancel(skb, nlh);
		return -EMSGSIZE;
	}
	nlmsg_end(skb, nlh);
	cb->args[0] = (unsigned long)device->index + 1;
	return 0;
}

static int nldev_get_dump_one(struct ib_device *device, struct sk_buff *skb,
			      struct netlink_callback *cb, unsigned int idx)
{
	return nldev_dump_one(device, skb, cb, RDMA_NLDEV_CMD_GET,
			      fill_dev_info);
}

static int nldev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	/* A full skb stops the walk; the rest follows in the next part. */
	ib_enum_all_devs(nldev_get_dump_one, skb, cb);
	return skb->len;
}

/* ------------------------------------------------------------ SET */

static int nldev_set_name(struct ib_device *device, struct nlattr *attr)
{
	char name[IB_DEVICE_NAME_MAX];

	if (nla_strscpy(name, attr, sizeof(name)) < 0 || !name[0])
		return -EINVAL;
	return ib_device_rename(device, name);
}

/*
 * To the namespace of the file descriptor, with CAP_NET_ADMIN over it. The
 * move waits for every user of the device, so the lookup's reference is
 * dropped first (the device memory stays pinned).
 */
static int nldev_set_netns_put(struct sk_buff *skb, struct ib_device *device,
			       struct nlattr *attr)
{
	struct net *net;
	int err;

	get_device(&device->dev);
	ib_device_put(device);
	net = get_net_ns_by_fd(nla_get_u32(attr));
	if (IS_ERR(net)) {
		err = PTR_ERR(net);
		goto out;
	}
	if (netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN))
		err = rdma_dev_set_netns(device, net);
	else
		err = -EPERM;
	put_net(net);
out:
	put_device(&device->dev);
	return err;
}

static int nldev_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	device = nldev_device(skb, tb);
	if (!device)
		return -EINVAL;

	if (tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		err = nldev_set_name(device, tb[RDMA_NLDEV_ATTR_DEV_NAME]);
	} else if (tb[RDMA_NLDEV_NET_NS_FD]) {
		return nldev_set_netns_put(skb, device,
					   tb[RDMA_NLDEV_NET_NS_FD]);
	} else if (tb[RDMA_NLDEV_ATTR_DEV_DIM]) {
		u8 dim = nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_DIM]);

		/* Only a flag today; CQ moderation comes with the verbs. */
		if (dim > 1)
			err = -EINVAL;
		else
			device->use_cq_dim = dim;
	}

	ib_device_put(device);
	return err;
}

/* ------------------------------------------------------------ NEWLINK/DELLINK */

static int nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char ibdev_name[IB_DEVICE_NAME_MAX];
	const struct rdma_link_ops *ops;
	char ndev_name[IFNAMSIZ];
	struct net_device *ndev;
	char type[IFNAMSIZ];
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_LINK_TYPE] ||
	    !tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return -EINVAL;

	/*
	 * Over-long names are truncated, as the stock kernel does: a 64-char
	 * device name becomes 63 chars, a 16-char netdev name finds no netdev.
	 */
	nla_strscpy(ibdev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
		    sizeof(ibdev_name));
	nla_strscpy(type, tb[RDMA_NLDEV_ATTR_LINK_TYPE], sizeof(type));
	nla_strscpy(ndev_name, tb[RDMA_NLDEV_ATTR_NDEV_NAME],
		    sizeof(ndev_name));
	/* A '%' would make the core pick a name: not for `rdma link add`. */
	if (!ibdev_name[0] || strchr(ibdev_name, '%'))
		return -EINVAL;

	ndev = dev_get_by_name(sock_net(skb->sk), ndev_name);
	if (!ndev)
		return -ENODEV;

	ops = link_ops_get_locked(type);
	if (!ops) {
		err = -EINVAL;
		goto out;
	}
	err = ops->newlink(ibdev_name, ndev);
	up_read(&link_ops_rwsem);
out:
	dev_put(ndev);
	return err;
}

static int nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	device = nldev_device(skb, tb);
	if (!device)
		return -EINVAL;

	/* Only soft devices (rxe, siw) may be removed from userspace. */
	if (!(device->attrs.kernel_cap_flags & IBK_ALLOW_USER_UNREG)) {
		ib_device_put(device);
		return -EINVAL;
	}
	ib_unregister_device_and_put(device);
	return 0;
}

/* ------------------------------------------------------------ PORT_GET */

static int nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	device = nldev_device(skb, tb);
	if (!device)
		return -EINVAL;

	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(device, port)) {
		err = -EINVAL;
		goto out_put;
	}

	/* Upstream answers PORT_GET doit with the GET message type. */
	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_GET, &rnlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = fill_port_info(msg, device, port, sock_net(skb->sk));
	if (err)
		goto out_free;
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_free:
	nlmsg_free(msg);
out_put:
	ib_device_put(device);
	return err;
}

/* The ports of one device; cb->args[0] counts the ports already sent. */
static int nldev_port_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	unsigned long sent = 0;
	u32 port;
	int err;

	err = nldev_parse(cb->nlh, tb, NULL);
	if (err)
		return err;
	device = nldev_device(skb, tb);
	if (!device)
		/* Gone since the first part: end the dump quietly. */
		return cb->args[0] ? 0 : -EINVAL;

	rdma_for_each_port(device, port) {
		struct nlmsghdr *nlh;

		if (sent++ < cb->args[0])
			continue;
		nlh = nldev_dump_put(skb, cb, RDMA_NLDEV_CMD_PORT_GET);
		if (!nlh)
			break;
		if (fill_port_info(skb, device, port, sock_net(skb->sk))) {
			nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		cb->args[0] = sent;
	}
	ib_device_put(device);
	return skb->len;
}

/* ------------------------------------------------------------ RES_GET */

static int nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	return nldev_device_doit(skb, nlh, extack, RDMA_NLDEV_CMD_RES_GET,
				 fill_res_info);
}

static int nldev_res_get_dump_one(struct ib_device *device,
				  struct sk_buff *skb,
				  struct netlink_callback *cb, unsigned int idx)
{
	return nldev_dump_one(device, skb, cb, RDMA_NLDEV_CMD_RES_GET,
			      fill_res_info);
}

static int nldev_res_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	ib_enum_all_devs(nldev_res_get_dump_one, skb, cb);
	return skb->len;
}

/* ------------------------------------------------------------ SYS_GET/SET */

static int nldev_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_SYS_GET, &rnlh);
	if (!msg)
		return -ENOMEM;
	/*
	 * Fork is always safe for registered memory (libibverbs skips
	 * MADV_DONTFORK on 1); no privileged Q_Key mode.
	 */
	if (nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
		       rdma_compatdev_get()) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nldev_reply_send(skb, msg, rnlh);
}

static int nldev_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	u8 val;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;

	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]) {
		val = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
		if (val > 1)
			return -EINVAL;
		return rdma_compatdev_set(val);
	}
	if (tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]) {
		val = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]);
		if (val > 1)
			return -EINVAL;
		if (val) {
			NL_SET_ERR_MSG(extack,
				       "privileged Q_Key mode is not supported");
			return -EOPNOTSUPP;
		}
		return 0;
	}
	return -EINVAL;
}

/* ------------------------------------------------------------ GET_CHARDEV */

static int nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	char client[RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE];
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_client_nl_info info = {};
	struct ib_device *device = NULL;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE])
		return -EINVAL;
	/* A truncated name matches no client: -EOPNOTSUPP below, as stock. */
	nla_strscpy(client, tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE], sizeof(client));

	/* No port given: the client serves the whole device. */
	info.port = U32_MAX;
	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		device = nldev_device(skb, tb);
		if (!device)
			return -EINVAL;
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
			info.port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
			if (!rdma_is_port_valid(device, info.port)) {
				err = -EINVAL;
				goto out_put;
			}
		}
	} else if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		return -EINVAL;
	}

	msg = nldev_reply_new(skb, nlh, RDMA_NLDEV_CMD_GET_CHARDEV, &rnlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	/* The client may add attributes of its own (uverbs: driver id). */
	info.nl_msg = msg;
	err = ib_get_client_nl_info(device, client, &info);
	if (err)
		goto out_free;

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV,
			      huge_encode_dev(info.cdev->devt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, info.abi,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME,
			   dev_name(info.cdev))) {
		err = -EMSGSIZE;
		goto out_cdev;
	}
	put_device(info.cdev);
	if (device)
		ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_cdev:
	put_device(info.cdev);
out_free:
	nlmsg_free(msg);
out_put:
	if (device)
		ib_device_put(device);
	return err;
}

/* ------------------------------------------------------------ STAT_* */

/*
 * Link statistics: the port's hardware counters (hw_counters.c). Per-QP
 * counters (STAT_RES, bound counters, SET/DEL) are not supported.
 */
static int fill_stat_hwcounters(struct sk_buff *msg, struct ib_device *device,
				u32 port, bool values)
{
	struct rdma_hw_stats *stats = device->port_data[port].hw_stats;
	struct nlattr *table;
	u64 *v = NULL;
	int i, n = 0;

	if (values && stats) {
		v = kcalloc(stats->num_counters, sizeof(*v), GFP_KERNEL);
		if (!v)
			return -ENOMEM;
		n = rdma_hw_stats_snapshot(device, port, v, stats->num_counters);
		if (n < 0) {
			kfree(v);
			return n;
		}
	}
	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		goto err;
	for (i = 0; i < n; i++)
		if (rdma_nl_stat_hwcounter_entry(msg, stats->descs[i].name,
						 v[i]))
			goto err;
	nla_nest_end(msg, table);
	kfree(v);
	return 0;

err:
	kfree(v);
	return -EMSGSIZE;
}

static int nldev_stat_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
			    struct netlink_ext_ack *extack, u32 cmd,
			    bool values)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *rnlh;
	struct sk_buff *msg;
	u32 port;
	int err;

	err = nldev_parse(nlh, tb, extack);
	if (err)
		return err;
	if (tb[RDMA_NLDEV_ATTR_STAT_RES] &&
	    nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) != RDMA_NLDEV_ATTR_RES_MR)
		return -EOPNOTSUPP;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EINVAL;
	device = nldev_device(skb, tb);
	if (!device)
		return -EINVAL;
	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(device, port)) {
		err = -EINVAL;
		goto out_put;
	}
	if (!device->port_data[port].hw_stats) {
		err = -EOPNOTSUPP;
		goto out_put;
	}

	msg = nldev_reply_new(skb, nlh, cmd, &rnlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_put;
	}
	err = fill_nldev_handle(msg, device);
	if (!err && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		err = -EMSGSIZE;
	if (!err)
		err = fill_stat_hwcounters(msg, device, port, values);
	if (err)
		goto out_free;
	ib_device_put(device);
	return nldev_reply_send(skb, msg, rnlh);

out_free:
	nlmsg_free(msg);
out_put:
	ib_device_put(device);
	return err;
}

static int nldev_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	return nldev_stat_reply(skb, nlh, extack, RDMA_NLDEV_CMD_STAT_GET, true);
}

/* No counter is optional, so the list of dynamic ones is empty. */
static int nldev_stat_get_status_doit(struct sk_buff *skb,
				      struct nlmsghdr *nlh,
				      struct netlink_ext_ack *extack)
{
	return nldev_stat_reply(skb, nlh, extack,
				RDMA_NLDEV_CMD_STAT_GET_STATUS, false);
}

/* Bound per-QP counters do not exist here: the dump is empty. */
static int nldev_stat_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}

static int nldev_stat_unsupported(struct sk_buff *skb, struct nlmsghdr *nlh,
				  struct netlink_ext_ack *extack)
{
	return -EOPNOTSUPP;
}

/* ------------------------------------------------------------ registration */

#define NLDEV_RES_OBJ(_flags)					\
	{ .doit = nldev_res_obj_doit, .dump = nldev_res_obj_dumpit,	\
	  .flags = (_flags) }

static const struct rdma_nl_cbs nldev_cb_table[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = nldev_get_doit,
		.dump = nldev_get_dumpit,
	},
	[RDMA_NLDEV_CMD_SET] = {
		.doit = nldev_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_NEWLINK] = {
		.doit = nldev_newlink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_DELLINK] = {
		.doit = nldev_dellink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = nldev_port_get_doit,
		.dump = nldev_port_get_dumpit,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = {
		.doit = nldev_sys_get_doit,
	},
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = nldev_sys_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = nldev_res_get_doit,
		.dump = nldev_res_get_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_CQ_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_MR_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_PD_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_CTX_GET] = NLDEV_RES_OBJ(0),
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = NLDEV_RES_OBJ(0),
	/* Raw hardware contexts may hold secrets: admin only. */
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = NLDEV_RES_OBJ(RDMA_NL_ADMIN_PERM),
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = NLDEV_RES_OBJ(RDMA_NL_ADMIN_PERM),
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = NLDEV_RES_OBJ(RDMA_NL_ADMIN_PERM),
	[RDMA_NLDEV_CMD_GET_CHARDEV] = {
		.doit = nldev_get_chardev,
	},
	[RDMA_NLDEV_CMD_STAT_SET] = {
		.doit = nldev_stat_unsupported,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_GET] = {
		.doit = nldev_stat_get_doit,
		.dump = nldev_stat_dumpit,
	},
	[RDMA_NLDEV_CMD_STAT_DEL] = {
		.doit = nldev_stat_unsupported,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] = {
		.doit = nldev_stat_get_status_doit,
	},
};

int nldev_init(void)
{
	rdma_nl_register(RDMA_NL_NLDEV, nldev_cb_table);
	return 0;
}

void nldev_exit(void)
{
	rdma_nl_unregister(RDMA_NL_NLDEV);
}

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_NLDEV, 5);
