/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_cm internals shared by cma.c, cma_iw.c (the iWARP half), cma_ib.c
 * (InfiniBand ports), cma_mcast.c, cma_ib_mcast.c and cma_configfs.c.
 */
#ifndef RDMA_KMOD_CMA_PRIV_H
#define RDMA_KMOD_CMA_PRIV_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <rdma/rdma_cm.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/ib_sa.h>

/*
 * Where an id is in its life. The numbers are what netlink reports for a
 * cm_id (rdma resource show cm_id prints them by name), so each is pinned.
 */
enum rdma_cm_state {
	RDMA_CM_IDLE = 0,		/* created, nothing bound */
	RDMA_CM_ADDR_BOUND = 7,		/* rdma_bind_addr done */
	RDMA_CM_ADDR_QUERY = 1,		/* rdma_resolve_addr running */
	RDMA_CM_ADDR_RESOLVED = 2,
	RDMA_CM_ROUTE_QUERY = 3,	/* rdma_resolve_route running */
	RDMA_CM_ROUTE_RESOLVED = 4,
	RDMA_CM_LISTEN = 8,
	RDMA_CM_CONNECT = 5,		/* connecting or connected */
	RDMA_CM_DISCONNECT = 6,
	RDMA_CM_DEVICE_REMOVAL = 9,	/* its device is going away */
	RDMA_CM_DESTROYING = 10,
};

/* All ids bound to one port number of one port space. */
struct rdma_bind_list {
	struct hlist_head owners;
	unsigned short port;
	enum rdma_ucm_port_space ps;
};

/* Per RDMA device state of rdma_cm. */
struct cma_device {
	struct ib_device *device;
	struct list_head list;		/* in the global device list */
	struct list_head id_list;	/* ids attached to this device */
	/* Per port configfs defaults, index port - 1. */
	enum ib_gid_type *default_gid_type;
	u8 *default_roce_tos;
	/* Users; the last put completes @comp for removal to go on. */
	refcount_t refcount;
	struct completion comp;
};

/* One listen a listener holds on one device: ib_cm or iw_cm. */
struct cma_listen_ent {
	struct list_head list;
	/*
	 * Its device, referenced once the listen stands and until the entry
	 * is destroyed: cma_remove_one() waits for an entry a listener being
	 * destroyed took off its list just before.
	 */
	struct cma_device *cma_dev;
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw_id;
	/* a wildcard listener's entry in this device's `rdma res` (cma.c) */
	struct rdma_id_private *shadow;
};

/* lockdep subclasses of handler_mutex (see there) */
enum {
	CMA_LOCK_LISTENER = 1,	/* a listener's: request path, destroy */
	CMA_LOCK_REQ_ID = 2,	/* the id a request creates, under it */
};

struct rdma_id_private {
	struct rdma_cm_id id;

	/* Life: state under @lock; the handler runs under @handler_mutex. */
	spinlock_t lock;		/* protects state and mc_list */
	enum rdma_cm_state state;
	refcount_t refcount;
	struct completion comp;
	/*
	 * Held while the event handler runs; see rdma_lock_handler(). A
	 * request is delivered with the listener's and the new id's held:
	 * those two take the lockdep subclasses CMA_LOCK_*, for a ULP may destroy
	 * a private id of its own under a lock its CONNECT_REQUEST handler
	 * takes too (rds: rds_trans_sem), which is no cycle since neither of
	 * those ids is a listener or a request's. rdma_destroy_id() takes a
	 * listener's as CMA_LOCK_LISTENER too (nvmet: see there).
	 */
	struct mutex handler_mutex;
	struct mutex qp_mutex;

	/* Where it is linked. */
	struct cma_device *cma_dev;
	struct list_head dev_item;	/* in cma_dev->id_list */
	struct rdma_bind_list *bind_list;
	struct hlist_node node;		/* in bind_list->owners */
	struct list_head listen_any_item; /* in listen_any_list */
	struct list_head listen_ents;	/* struct cma_listen_ent */
	struct list_head mc_list;	/* joined groups, under lock */

	/* The transport's own id, one of the two. */
	struct ib_cm_id *cm_id_ib;
	struct iw_cm_id *cm_id_iw;
	struct work_struct route_work;
	/* InfiniBand: the PathRecord query of rdma_resolve_route(). */
	struct ib_sa_query *sa_query;
	int sa_query_id;
	int sa_status;
	struct sa_path_rec sa_path;

	/* Options and connection parameters. */
	int backlog;
	int timeout_ms;
	u32 qp_num;
	u32 qkey;
	u32 seq_num;
	u8 srq;
	u8 tos;
	u8 timeout;
	u8 min_rnr_timer;
	u8 tos_set:1;
	u8 timeout_set:1;
	u8 min_rnr_timer_set:1;
	u8 reuseaddr:1;
	u8 afonly:1;
	enum ib_gid_type gid_type;
	struct rdma_ucm_ece ece;
	struct rdma_restrack_entry res;
};

/* cma.c internals the other parts of rdma_cm use. */
extern struct workqueue_struct *cma_wq;
struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv);
struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv);
bool cma_comp_exch(struct rdma_id_private *id_priv,
		   enum rdma_cm_state comp, enum rdma_cm_state exch);
void cma_id_get(struct rdma_id_private *id_priv);
void cma_id_put(struct rdma_id_private *id_priv);
u8 cma_tos(struct rdma_id_private *id_priv);
int cma_attach_to_device(struct rdma_id_private *id_priv,
			 struct ib_device *device);
struct rdma_id_private *
__rdma_create_id(struct net *net, rdma_cm_event_handler event_handler,
		 void *context, enum rdma_ucm_port_space ps,
		 enum ib_qp_type qp_type);
void destroy_id_handler_unlock(struct rdma_id_private *id_priv);
int cma_cm_event_handler(struct rdma_id_private *id_priv,
			 struct rdma_cm_event *event);
int cma_modify_qp_rtr(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param);
void cma_route_finish(struct rdma_id_private *id_priv,
		      struct sa_path_rec *path, int status);
int cma_set_default_qkey(struct rdma_id_private *id_priv);

/* cma_iw.c: ids on iWARP devices connect through iw_cm. */
static inline bool cma_iw_device(struct ib_device *device)
{
	return rdma_cap_iw_cm(device, rdma_start_port(device));
}

bool cma_iw_port_on_ndev(struct ib_device *device, u32 port,
			 struct net_device *ndev);
void cma_iw_route_work(struct work_struct *work);
int cma_iw_init_qp_attr(struct rdma_id_private *id_priv,
			struct ib_qp_attr *qp_attr, int *qp_attr_mask);
int cma_iw_listen(struct rdma_id_private *id_priv,
		  struct cma_listen_ent *ent);
int cma_iw_connect(struct rdma_id_private *id_priv,
		   struct rdma_conn_param *conn_param);
int cma_iw_accept(struct rdma_id_private *id_priv,
		  struct rdma_conn_param *conn_param);

/* cma_ib.c: ids on InfiniBand ports (IPoIB addresses). */
extern struct ib_sa_client cma_sa_client;
bool cma_ib_dev_addr(const struct rdma_dev_addr *dev_addr);
const struct ib_gid_attr *cma_ib_port_sgid(struct ib_device *device, u32 port,
					   struct rdma_dev_addr *dev_addr);
int cma_ib_pkey_index(struct rdma_id_private *id_priv, u16 *index);
int cma_ib_ipoib_qkey(struct rdma_id_private *id_priv, u32 *qkey);
int cma_ib_resolve_route(struct rdma_id_private *id_priv,
			 unsigned long timeout_ms);
void cma_ib_cancel_route(struct rdma_id_private *id_priv);
int cma_ib_ud_ah(struct rdma_id_private *id_priv, struct rdma_ah_attr *ah);
int cma_ib_req_target(struct ib_device *device, u32 port,
		      const struct ib_cm_event *ev, const struct sockaddr *dst,
		      struct net_device **ndev,
		      const struct ib_gid_attr **sgid_attr);

/* A group an id joined (cma_mcast.c, cma_ib_mcast.c). */
struct cma_multicast {
	struct list_head list;		/* in id_priv->mc_list */
	struct rdma_id_private *id_priv;
	struct sockaddr_storage addr;
	union ib_gid mgid;
	int ifindex;			/* netdev of the IP membership, or 0 */
	struct ib_sa_multicast *sa_mc;	/* InfiniBand: the SA membership */
	bool ib_pending;		/* InfiniBand: @event not delivered */
	struct work_struct work;
	struct rdma_cm_event event;	/* MULTICAST_JOIN (or _ERROR) */
};

/* cma_ib_mcast.c: groups joined through the SA on InfiniBand ports. */
int cma_ib_join(struct rdma_id_private *id_priv, struct cma_multicast *mc,
		u8 join_state);
void cma_ib_leave(struct cma_multicast *mc);

/* cma_mcast.c */
void cma_leave_all_mcast(struct rdma_id_private *id_priv);

/* Per-port defaults, for configfs (cma_configfs.c). */
struct cma_device *cma_get_device_by_name(const char *name);
void cma_dev_put(struct cma_device *cma_dev);
enum ib_gid_type cma_get_default_gid_type(struct cma_device *cma_dev,
					  u32 port);
int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type type);
u8 cma_get_default_roce_tos(struct cma_device *cma_dev, u32 port);
int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos);

int cma_configfs_init(void);
void cma_configfs_exit(void);

#endif /* RDMA_KMOD_CMA_PRIV_H */
