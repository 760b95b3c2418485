/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * iw_cm: the iWARP connection manager's in-kernel API (upstream 6.1 names).
 *
 * A consumer (rdma_cm) creates an iw_cm_id on a device and listens,
 * connects, accepts or rejects through it; the iWARP driver does the
 * transport work through the iw_* methods of struct ib_device_ops and
 * reports progress by calling the id's event_handler, which iw_cm turns
 * into calls of the consumer's cm_handler from its own work queue.
 */
#ifndef RDMA_KMOD_IW_CM_H
#define RDMA_KMOD_IW_CM_H

#include <linux/in.h>
#include <linux/socket.h>
#include <rdma/ib_cm.h>

struct iw_cm_id;

enum iw_cm_event_type {
	IW_CM_EVENT_CONNECT_REQUEST = 1,	/* a listener got a request */
	IW_CM_EVENT_CONNECT_REPLY,		/* the active side's answer */
	IW_CM_EVENT_ESTABLISHED,		/* the passive side is up */
	IW_CM_EVENT_DISCONNECT,			/* orderly close started */
	IW_CM_EVENT_CLOSE			/* the connection is gone */
};

struct iw_cm_event {
	enum iw_cm_event_type event;
	int status;
	struct sockaddr_storage local_addr;
	struct sockaddr_storage remote_addr;
	void *private_data;
	void *provider_data;	/* CONNECT_REQUEST: the driver's endpoint */
	u8 private_data_len;
	u8 ord;
	u8 ird;
};

/* Consumer callback; a non-zero return asks iw_cm to destroy the id. */
typedef int (*iw_cm_handler)(struct iw_cm_id *cm_id,
			     struct iw_cm_event *event);

/* Driver callback into iw_cm; may run in any context. */
typedef int (*iw_event_handler)(struct iw_cm_id *cm_id,
				struct iw_cm_event *event);

struct iw_cm_id {
	iw_cm_handler cm_handler;
	void *context;
	struct ib_device *device;
	struct sockaddr_storage local_addr;	/* as the consumer asked */
	struct sockaddr_storage remote_addr;
	struct sockaddr_storage m_local_addr;	/* as used on the wire */
	struct sockaddr_storage m_remote_addr;
	void *provider_data;			/* the driver's endpoint */
	iw_event_handler event_handler;
	/* The driver holds the id with these while it may raise events. */
	void (*add_ref)(struct iw_cm_id *id);
	void (*rem_ref)(struct iw_cm_id *id);
	u8 tos;
	bool tos_set:1;
	bool mapped:1;
	bool afonly:1;
};

struct iw_cm_conn_param {
	const void *private_data;
	u16 private_data_len;
	u32 ord;
	u32 ird;
	u32 qpn;
};

/* ib_device.iw_driver_flags */
enum iw_flags {
	/* The driver uses the consumer's addresses: no iwpmd port mapping. */
	IW_F_NO_PORT_MAP = (1 << 0),
};

struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context);
void iw_destroy_cm_id(struct iw_cm_id *cm_id);
int iw_cm_listen(struct iw_cm_id *cm_id, int backlog);
int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param);
int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len);
int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param);
int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt);
int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask);

#endif /* RDMA_KMOD_IW_CM_H */
