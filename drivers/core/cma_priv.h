/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_cm internals shared by cma.c, cma_iw.c (the iWARP half),
 * cma_mcast.c and cma_configfs.c.
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

/* The Q_Key of rdma_cm's UD ids (port space UDP), as upstream. */

enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING
};

/* All ids bound to one port number of one port space. */
struct rdma_bind_list {
	enum rdma_ucm_port_space ps;
	struct hlist_head owners;
	unsigned short port;
};

/* Per RDMA device state of rdma_cm. */
struct cma_device {
	struct list_head list;
	struct ib_device *device;
	struct completion comp;
	refcount_t refcount;
	struct list_head id_list;	/* ids attached to this device */
	enum ib_gid_type *default_gid_type;	/* per port, index port-1 */
	u8 *default_roce_tos;
};

/* One listen a listener holds on one device: ib_cm or iw_cm. */
struct cma_listen_ent {
	struct list_head list;
	struct ib_device *device;
	struct ib_cm_id *cm_id;
	struct iw_cm_id *iw_id;
};

struct rdma_id_private {
	struct rdma_cm_id id;

	struct rdma_bind_list *bind_list;
	struct hlist_node node;		/* in bind_list->owners */
	struct list_head dev_item;	/* in cma_dev->id_list */
	struct list_head listen_any_item; /* in listen_any_list */
	struct list_head listen_ents;	/* struct cma_listen_ent */
	struct list_head mc_list;	/* joined groups, under lock */
	struct cma_device *cma_dev;

	enum rdma_cm_state state;
	spinlock_t lock;		/* protects state and mc_list */
	struct mutex qp_mutex;
	struct completion comp;
	refcount_t refcount;
	/* Held while the event handler runs; see rdma_lock_handler(). */
	struct mutex handler_mutex;

	int backlog;
	int timeout_ms;
	struct ib_cm_id *cm_id_ib;
	struct iw_cm_id *cm_id_iw;
	struct work_struct route_work;

	u32 seq_num;
	u32 qkey;
	u32 qp_num;
	u8 srq;
	u8 tos;
	u8 tos_set:1;
	u8 timeout_set:1;
	u8 min_rnr_timer_set:1;
	u8 reuseaddr:1;
	u8 afonly:1;
	u8 timeout;
	u8 min_rnr_timer;
	enum ib_gid_type gid_type;
	struct rdma_restrack_entry res;
	struct rdma_ucm_ece ece;
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
