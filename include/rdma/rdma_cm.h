/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RDMA connection manager (rdma_cm.ko): IP-addressed connection setup on
 * top of ib_cm. In-kernel API with the upstream 6.1 names and semantics.
 */
#ifndef RDMA_KMOD_RDMA_CM_H
#define RDMA_KMOD_RDMA_CM_H

#include <linux/socket.h>
#include <linux/in6.h>
#include <linux/workqueue.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_cm.h>
#include <rdma/ib_sa.h>

struct sa_path_rec;
struct iw_cm_id;

/* Numbers are ABI: rdma_ucm passes them to userspace unchanged. */
enum rdma_cm_event_type {
	RDMA_CM_EVENT_ADDR_RESOLVED,
	RDMA_CM_EVENT_ADDR_ERROR,
	RDMA_CM_EVENT_ROUTE_RESOLVED,
	RDMA_CM_EVENT_ROUTE_ERROR,
	RDMA_CM_EVENT_CONNECT_REQUEST,
	RDMA_CM_EVENT_CONNECT_RESPONSE,
	RDMA_CM_EVENT_CONNECT_ERROR,
	RDMA_CM_EVENT_UNREACHABLE,
	RDMA_CM_EVENT_REJECTED,
	RDMA_CM_EVENT_ESTABLISHED,
	RDMA_CM_EVENT_DISCONNECTED,
	RDMA_CM_EVENT_DEVICE_REMOVAL,
	RDMA_CM_EVENT_MULTICAST_JOIN,
	RDMA_CM_EVENT_MULTICAST_ERROR,
	RDMA_CM_EVENT_ADDR_CHANGE,
	RDMA_CM_EVENT_TIMEWAIT_EXIT
};

const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event);

/* IB service IDs of the IP port spaces: 0x0000_0000_01PP_xxxx | port. */
#define RDMA_IB_IP_PS_MASK	0xFFFFFFFFFFFF0000ULL
#define RDMA_IB_IP_PS_TCP	0x0000000001060000ULL
#define RDMA_IB_IP_PS_UDP	0x0000000001110000ULL
#define RDMA_IB_IP_PS_IB	0x00000000013F0000ULL

struct rdma_addr {
	struct sockaddr_storage src_addr;
	struct sockaddr_storage dst_addr;
	struct rdma_dev_addr dev_addr;
};

/* Paths a route may hold: primary, alternate, and the reversible pair. */
#define RDMA_PRIMARY_PATH_MAX_REC_NUM 3

struct rdma_route {
	struct rdma_addr addr;
	struct sa_path_rec *path_rec;
	/* Reversible-path pairs of the IB Path Record query; unused by us. */
	struct sa_path_rec *path_rec_inbound;
	struct sa_path_rec *path_rec_outbound;
	/* Paths in path_rec: 0, 1 (primary) or 2 (with an alternate). */
	int num_pri_alt_paths;
};

struct rdma_conn_param {
	const void *private_data;
	u8 private_data_len;
	u8 responder_resources;
	u8 initiator_depth;
	u8 flow_control;
	u8 retry_count;		/* ignored when accepting */
	u8 rnr_retry_count;
	/* The fields below are used only when no QP is bound to the id. */
	u8 srq;
	u32 qp_num;
	u32 qkey;
};

struct rdma_ud_param {
	const void *private_data;
	u8 private_data_len;
	struct rdma_ah_attr ah_attr;
	u32 qp_num;
	u32 qkey;
};

struct rdma_cm_event {
	enum rdma_cm_event_type event;
	/* negative errno, or the IB CM reject reason for REJECTED */
	int status;
	union {
		struct rdma_conn_param conn;
		struct rdma_ud_param ud;
	} param;
	struct rdma_ucm_ece ece;
};

struct rdma_cm_id;

/*
 * Called with the id's handler lock held. A non-zero return asks rdma_cm to
 * destroy the id (never call rdma_destroy_id() on it from the handler).
 */
typedef int (*rdma_cm_event_handler)(struct rdma_cm_id *id,
				     struct rdma_cm_event *event);

struct rdma_cm_id {
	struct ib_device *device;
	void *context;
	struct ib_qp *qp;
	rdma_cm_event_handler event_handler;
	struct rdma_route route;
	enum rdma_ucm_port_space ps;
	enum ib_qp_type qp_type;
	u32 port_num;
	struct work_struct net_work;
};

struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller);
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type);

/**
 * rdma_create_id - create an identifier for RDMA communication
 * @net: network namespace the id's addresses live in
 * @event_handler: user callback for this id's events
 * @context: stored in id->context
 * @ps: RDMA port space
 * @qp_type: IB_QPT_RC, IB_QPT_UD, ...
 */
#define rdma_create_id(net, event_handler, context, ps, qp_type)	\
	__rdma_create_kernel_id(net, event_handler, context, ps, qp_type, \
				KBUILD_MODNAME)

void rdma_destroy_id(struct rdma_cm_id *id);

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms);
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms);

int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr);
void rdma_destroy_qp(struct rdma_cm_id *id);
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param);
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece);

int rdma_listen(struct rdma_cm_id *id, int backlog);

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece);

/* Take/release the lock the event handler runs under (used by rdma_ucm). */
void rdma_lock_handler(struct rdma_cm_id *id);
void rdma_unlock_handler(struct rdma_cm_id *id);

int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event);
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason);
int rdma_disconnect(struct rdma_cm_id *id);

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context);
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr);

int rdma_set_service_type(struct rdma_cm_id *id, int tos);
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse);
int rdma_set_afonly(struct rdma_cm_id *id, int afonly);
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout);
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer);
/* Installs a caller-provided route (RDMA_OPTION_IB_PATH). */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec);

__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr);

const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason);
bool rdma_is_consumer_reject(struct rdma_cm_id *id, int reason);
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len);

void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid);

struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *cm_id);
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res);

#endif /* RDMA_KMOD_RDMA_CM_H */
