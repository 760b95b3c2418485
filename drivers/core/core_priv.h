/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Interfaces private to ib_core, shared between its files.
 *
 *   device.c          device/client registry, lifetimes, module init
 *   cache.c           per-port attribute, P_Key and GID caches
 *   roce_gid_mgmt.c   RoCE GID table kept current from netdev events
 *   sysfs.c           /sys/class/infiniband
 *   netns.c           netns mode, device moves, per-namespace sysfs views
 *   netlink.c         NETLINK_RDMA sockets and dispatch to clients
 *   nldev.c           the NLDEV client (rdma tool, libibverbs) and link ops
 *   nldev_res.c       NLDEV per-object resource tables (`rdma res show qp`)
 *   restrack.c        object counts for `rdma resource`
 *   hw_counters.c     per-port hardware counters (`rdma statistic`)
 */
#ifndef RDMA_KMOD_CORE_PRIV_H
#define RDMA_KMOD_CORE_PRIV_H

#include <linux/list.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

/* netlink.c */
int rdma_nl_init(void);
void rdma_nl_exit(void);

/* nldev.c */
int nldev_init(void);
void nldev_exit(void);
/* Link type lookup; loads "rdma-link-<type>" on a miss. Caller gets no ref. */
const struct rdma_link_ops *link_ops_get(const char *type);
/* nldev.c's message plumbing, for nldev_res.c. */
int nldev_parse(const struct nlmsghdr *nlh, struct nlattr **tb,
		struct netlink_ext_ack *extack);
int fill_nldev_handle(struct sk_buff *msg, struct ib_device *device);
struct sk_buff *nldev_reply_new(const struct sk_buff *skb,
				const struct nlmsghdr *req, u32 cmd,
				struct nlmsghdr **nlh);
int nldev_reply_send(const struct sk_buff *skb, struct sk_buff *msg,
		     struct nlmsghdr *nlh);
struct ib_device *nldev_device(const struct sk_buff *skb, struct nlattr **tb);
struct nlmsghdr *nldev_dump_put(struct sk_buff *skb,
				struct netlink_callback *cb, u32 cmd);

/* nldev_res.c */
int nldev_res_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
		       struct netlink_ext_ack *extack);
int nldev_res_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* device.c: what nldev needs from the device registry. */
typedef int (*nldev_callback)(struct ib_device *device, struct sk_buff *skb,
			      struct netlink_callback *cb, unsigned int idx);
/* Calls nldev_cb for every registered device visible in skb's netns. */
int ib_enum_all_devs(nldev_callback nldev_cb, struct sk_buff *skb,
		     struct netlink_callback *cb);
/* Registered device with this index, with a reference (ib_device_put). */
struct ib_device *ib_device_get_by_index(const struct net *net, u32 index);
int ib_device_rename(struct ib_device *ibdev, const char *name);
/* Moves a registered device (clients leave and come back); device.c. */
int ib_device_change_net(struct ib_device *device, struct net *net);

/* netns.c: netns mode, devices moved between namespaces, sysfs views. */
int rdma_netns_init_module(void);
void rdma_netns_exit_module(void);
/* Netns mode: true = shared (every device in every netns). */
bool rdma_compatdev_get(void);
int rdma_compatdev_set(u8 enable);
int rdma_dev_set_netns(struct ib_device *device, struct net *net);
int ib_netns_device_add(struct ib_device *device);
void ib_netns_device_remove(struct ib_device *device);
int ib_netns_device_rename(struct ib_device *device, const char *name);
/*
 * What GET_CHARDEV returns: the char device, its ABI and, for a port,
 * which. Private to the core modules, as upstream (ib_umad rebuilt from
 * upstream brings its own copy of this definition).
 */
struct ib_client_nl_info {
	struct sk_buff *nl_msg;
	struct device *cdev;
	u32 port;
	u64 abi;
};

/* Fills res for GET_CHARDEV; -EOPNOTSUPP if no such client is registered. */
int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res);

/* port_cache.c */
int ib_port_cache_setup_one(struct ib_device *device);
void ib_port_cache_release_one(struct ib_device *device);
void ib_port_cache_event(const struct ib_event *event);

/* cache.c */
int ib_cache_setup_one(struct ib_device *device);
void ib_cache_cleanup_one(struct ib_device *device);
void ib_cache_release_one(struct ib_device *device);
void ib_cache_ib_gids_update(struct ib_device *dev, u32 port);
int ib_cache_init(void);
void ib_cache_cleanup(void);
unsigned long roce_gid_type_mask_support(struct ib_device *dev, u32 port);
int ib_cache_gid_add(struct ib_device *dev, u32 port, union ib_gid *gid,
		     enum ib_gid_type type, struct net_device *ndev);
int ib_cache_gid_del(struct ib_device *dev, u32 port, union ib_gid *gid,
		     enum ib_gid_type type, struct net_device *ndev);
/* Drops ndev's entries (all ndevs if NULL) that keep() rejects. */
void ib_cache_gid_del_netdev(struct ib_device *dev, u32 port,
			     struct net_device *ndev, bool defaults,
			     bool (*keep)(const union ib_gid *gid, void *ctx),
			     void *ctx);
void ib_cache_gid_set_default_gid(struct ib_device *dev, u32 port,
				  struct net_device *ndev,
				  unsigned long gid_type_mask);
int rdma_find_gid_by_port_index(struct ib_device *device,
				const union ib_gid *gid,
				enum ib_gid_type type, u32 port,
				struct net_device *ndev);

/* device.c: calls fn for every registered device port bound to ndev. */
void ib_for_each_ndev_port(struct net_device *ndev,
			   void (*fn)(struct ib_device *dev, u32 port,
				      struct net_device *ndev, void *ctx),
			   void *ctx);

/* roce_gid_mgmt.c */
int roce_gid_mgmt_init(void);
void roce_gid_mgmt_cleanup(void);

/* mad.c: the GSI QPs and MAD agents (an ib_client) */
int ib_mad_init(void);
void ib_mad_cleanup(void);

/* addr.c: IP -> L2 address resolution (rdma_resolve_ip) */
int addr_init(void);
void addr_cleanup(void);
/* Rebuilds the RoCE GID tables of a device from its port netdevs. */
void roce_rescan_device(struct ib_device *dev);

/* sysfs.c */
extern struct class ib_class;
int ib_setup_device_attrs(struct ib_device *ibdev);
int ib_setup_port_attrs(struct ib_core_device *coredev);
void ib_free_port_attrs(struct ib_core_device *coredev);
struct ib_core_device *ib_sysfs_view_add(struct ib_device *ibdev,
					 struct net *net);
void ib_sysfs_view_del(struct ib_core_device *view);
int ib_sysfs_rename(struct ib_core_device *coredev, const char *name);

/* hw_counters.c: ports/N/hw_counters and STAT_GET. */
int ib_setup_port_hw_counters(struct ib_device *dev, u32 port,
			      struct kobject *kobj, void **cookie);
void ib_free_port_hw_counters(struct ib_device *dev, u32 port,
			      struct kobject *kobj, void *cookie);
/* Fresh counter values into values[max]; returns how many, or -errno. */
int rdma_hw_stats_snapshot(struct ib_device *dev, u32 port, u64 *values,
			   int max);

/* cq.c: completion workqueues and the per-device CQ pools. */
extern struct workqueue_struct *ib_comp_wq;
extern struct workqueue_struct *ib_comp_unbound_wq;
/* mr.c */
void ib_mr_init_kernel(struct ib_mr *mr, struct ib_pd *pd,
		       enum ib_mr_type mr_type);

int ib_cq_init(void);
void ib_cq_cleanup(void);
void ib_cq_pool_init(struct ib_device *dev);
/* Frees the pooled CQs; every client must be gone. */
void ib_cq_pool_cleanup(struct ib_device *dev);

/* restrack.c */
int rdma_restrack_init(struct ib_device *dev);
void rdma_restrack_clean(struct ib_device *dev);
void rdma_restrack_remove(struct rdma_restrack_entry *res);
void rdma_restrack_put(struct rdma_restrack_entry *res);
struct rdma_restrack_entry *
rdma_restrack_next(struct ib_device *dev, enum rdma_restrack_type type,
		   u64 *pos);
struct rdma_restrack_entry *
rdma_restrack_get_byid(struct ib_device *dev, enum rdma_restrack_type type,
		       u32 id);

#endif /* RDMA_KMOD_CORE_PRIV_H */
