// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NETLINK_RDMA: one kernel socket per network namespace, and dispatch of
 * requests to the registered clients (NLDEV, and later LS and IWCM) by the
 * client/op pair encoded in nlmsg_type.
 */
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/rwsem.h>
#include <linux/kmod.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <net/netlink.h>
#include "core_priv.h"

struct rdma_nl_net {
	struct sock *nl_sock;
};

static unsigned int rdma_nl_net_id __read_mostly;

/*
 * One slot per client. The rwsem is held for read while a request runs in
 * the client's code, so rdma_nl_unregister() (write) waits for it and the
 * client module cannot go away underneath.
 */
static struct {
	const struct rdma_nl_cbs *cb_table;
	struct rw_semaphore sem;
} rdma_nl_types[RDMA_NL_NUM_CLIENTS];

/* Number of ops per client; 0 means the client index is not in use. */
static const u32 rdma_nl_num_ops[RDMA_NL_NUM_CLIENTS] = {
	[RDMA_NL_IWCM] = RDMA_NL_IWPM_NUM_OPS,
	[RDMA_NL_LS] = RDMA_NL_LS_NUM_OPS,
	[RDMA_NL_NLDEV] = RDMA_NLDEV_NUM_OPS,
};

static bool rdma_nl_valid(unsigned int index, unsigned int op)
{
	return index < RDMA_NL_NUM_CLIENTS && op < rdma_nl_num_ops[index];
}

static struct sock *rdma_nl_sock(struct net *net)
{
	struct rdma_nl_net *rn = net_generic(net, rdma_nl_net_id);

	return rn->nl_sock;
}

void rdma_nl_register(unsigned int index, const struct rdma_nl_cbs cb_table[])
{
	if (WARN_ON(!rdma_nl_valid(index, 0)) ||
	    WARN_ON(READ_ONCE(rdma_nl_types[index].cb_table)))
		return;

	/* The table's contents must be visible before the pointer. */
	smp_store_release(&rdma_nl_types[index].cb_table, cb_table);
}
EXPORT_SYMBOL(rdma_nl_register);

void rdma_nl_unregister(unsigned int index)
{
	if (WARN_ON(index >= RDMA_NL_NUM_CLIENTS))
		return;

	down_write(&rdma_nl_types[index].sem);
	WRITE_ONCE(rdma_nl_types[index].cb_table, NULL);
	up_write(&rdma_nl_types[index].sem);
}
EXPORT_SYMBOL(rdma_nl_unregister);

void *ibnl_put_msg(struct sk_buff *skb, struct nlmsghdr **nlh, int seq,
		   int len, int client, int op, int flags)
{
	*nlh = nlmsg_put(skb, 0, seq, RDMA_NL_GET_TYPE(client, op), len, flags);
	return *nlh ? nlmsg_data(*nlh) : NULL;
}
EXPORT_SYMBOL(ibnl_put_msg);

int ibnl_put_attr(struct sk_buff *skb, struct nlmsghdr *nlh,
		  int len, void *data, int type)
{
	if (!nla_put(skb, type, len, data))
		return 0;

	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}
EXPORT_SYMBOL(ibnl_put_attr);

int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 pid)
{
	int err = netlink_unicast(rdma_nl_sock(net), skb, pid, MSG_DONTWAIT);

	return err < 0 ? err : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast);

int rdma_nl_unicast_wait(struct net *net, struct sk_buff *skb, __u32 pid)
{
	int err = netlink_unicast(rdma_nl_sock(net), skb, pid, 0);

	return err < 0 ? err : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast_wait);

int rdma_nl_multicast(struct net *net, struct sk_buff *skb,
		      unsigned int group, gfp_t flags)
{
	return nlmsg_multicast(rdma_nl_sock(net), skb, 0, group, flags);
}
EXPORT_SYMBOL(rdma_nl_multicast);

/* Multicast users (iwpm, LS) only live in init_net. */
bool rdma_nl_chk_listeners(unsigned int group)
{
	return netlink_has_listeners(rdma_nl_sock(&init_net), group);
}
EXPORT_SYMBOL(rdma_nl_chk_listeners);

/*
 * Table of a client with its rwsem held for read, or NULL (rwsem not held).
 * Loads the client's module once if it is not registered yet.
 */
static const struct rdma_nl_cbs *rdma_nl_get_table(struct net *net,
						   unsigned int index,
						   unsigned int op)
{
	const struct rdma_nl_cbs *tbl;

	/* Only NLDEV is namespace aware. */
	if (!net_eq(net, &init_net) && index != RDMA_NL_NLDEV)
		return NULL;

	down_read(&rdma_nl_types[index].sem);
	/* Pairs with the release in rdma_nl_register(). */
	tbl = smp_load_acquire(&rdma_nl_types[index].cb_table);
	if (!tbl) {
		/* Not across modprobe: that can take long and unregister waits. */
		up_read(&rdma_nl_types[index].sem);
		request_module("rdma-netlink-subsys-%u", index);
		down_read(&rdma_nl_types[index].sem);
		tbl = smp_load_acquire(&rdma_nl_types[index].cb_table);
	}
	if (tbl && (tbl[op].doit || tbl[op].dump))
		return tbl;

	up_read(&rdma_nl_types[index].sem);
	return NULL;
}

/*
 * A dump outlives the request that started it: later parts run from the
 * reader's recvmsg(). Re-check under the rwsem that the client that owned
 * the request is still registered before calling into it.
 */
static int rdma_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned int index = RDMA_NL_GET_CLIENT(cb->nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(cb->nlh->nlmsg_type);
	const struct rdma_nl_cbs *tbl = cb->data;
	int ret = -ENODEV;

	down_read(&rdma_nl_types[index].sem);
	if (READ_ONCE(rdma_nl_types[index].cb_table) == tbl)
		ret = tbl[op].dump(skb, cb);
	up_read(&rdma_nl_types[index].sem);
	return ret;
}

static int rdma_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	unsigned int index = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct rdma_nl_cbs *tbl;
	int err = -EINVAL;

	if (!rdma_nl_valid(index, op))
		return -EINVAL;

	tbl = rdma_nl_get_table(sock_net(skb->sk), index, op);
	if (!tbl)
		return -EINVAL;

	if ((tbl[op].flags & RDMA_NL_ADMIN_PERM) &&
	    !netlink_capable(skb, CAP_NET_ADMIN)) {
		err = -EPERM;
		goto out;
	}

	/* LS replies reuse NLM_F_ROOT (part of NLM_F_DUMP): never a dump. */
	if (index == RDMA_NL_LS) {
		if (tbl[op].doit)
			err = tbl[op].doit(skb, nlh, extack);
		goto out;
	}

	/* The iwpm protocol runs everything through the dump callbacks. */
	if ((nlh->nlmsg_flags & NLM_F_DUMP) || index == RDMA_NL_IWCM) {
		struct netlink_dump_control c = {
			.dump = rdma_nl_dump,
			.data = (void *)tbl,
		};

		if (!tbl[op].dump)
			goto out;
		/*
		 * The first part of the dump runs right here and takes the
		 * rwsem itself: drop ours to avoid a recursive read lock.
		 */
		up_read(&rdma_nl_types[index].sem);
		return netlink_dump_start(skb->sk, skb, nlh, &c);
	}

	if (tbl[op].doit)
		err = tbl[op].doit(skb, nlh, extack);
out:
	up_read(&rdma_nl_types[index].sem);
	return err;
}

/*
 * netlink_rcv_skb() rules: messages without NLM_F_REQUEST are not handled
 * (LS replies from userspace excepted) but still ACKed when asked.
 */
static void rdma_nl_rcv(struct sk_buff *skb)
{
	while (skb->len >= NLMSG_HDRLEN) {
		struct nlmsghdr *nlh = nlmsg_hdr(skb);
		struct netlink_ext_ack extack = {};
		u32 msglen;
		int err = 0;

		if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > skb->len)
			return;

		if (!(nlh->nlmsg_flags & NLM_F_REQUEST) &&
		    RDMA_NL_GET_CLIENT(nlh->nlmsg_type) != RDMA_NL_LS)
			goto ack;

		/* Control messages carry no request; ACK them if asked. */
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE) {
			err = rdma_nl_rcv_msg(skb, nlh, &extack);
			/* A dump was started: it ends with NLMSG_DONE. */
			if (err == -EINTR)
				goto next;
		}

ack:
		if ((nlh->nlmsg_flags & NLM_F_ACK) || err)
			netlink_ack(skb, nlh, err, &extack);
next:
		msglen = NLMSG_ALIGN(nlh->nlmsg_len);
		if (msglen > skb->len)
			msglen = skb->len;
		skb_pull(skb, msglen);
	}
}

static int __net_init rdma_nl_net_init(struct net *net)
{
	struct rdma_nl_net *rn = net_generic(net, rdma_nl_net_id);
	struct netlink_kernel_cfg cfg = {
		.input = rdma_nl_rcv,
	};

	rn->nl_sock = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	return rn->nl_sock ? 0 : -ENOMEM;
}

static void __net_exit rdma_nl_net_exit(struct net *net)
{
	struct rdma_nl_net *rn = net_generic(net, rdma_nl_net_id);

	netlink_kernel_release(rn->nl_sock);
	rn->nl_sock = NULL;
}

static struct pernet_operations rdma_nl_net_ops = {
	.init = rdma_nl_net_init,
	.exit = rdma_nl_net_exit,
	.id = &rdma_nl_net_id,
	.size = sizeof(struct rdma_nl_net),
};

int rdma_nl_init(void)
{
	int i;

	for (i = 0; i < RDMA_NL_NUM_CLIENTS; i++)
		init_rwsem(&rdma_nl_types[i].sem);

	return register_pernet_subsys(&rdma_nl_net_ops);
}

void rdma_nl_exit(void)
{
	int i;

	for (i = 0; i < RDMA_NL_NUM_CLIENTS; i++)
		WARN(rdma_nl_types[i].cb_table,
		     "netlink client %d still registered at exit\n", i);

	unregister_pernet_subsys(&rdma_nl_net_ops);
}

MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);
