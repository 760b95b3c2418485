/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_iser: the iSCSI Extensions for RDMA initiator (RFC 7145) for the stock
 * libiscsi and scsi_transport_iscsi, over our rdma_cm (issue 15).
 *
 * Objects:
 *  struct iser_conn   one RDMA connection (an iscsi_endpoint's): cm_id, PD,
 *                     CQ, QP, its receive buffers and fast-registration MRs.
 *                     Counted: the endpoint holds one reference until
 *                     ep_disconnect, the bound iSCSI connection one until
 *                     stop_conn has failed its tasks (they use its MRs).
 *  struct iser_iconn  libiscsi's per-connection data: the bound iser_conn.
 *  struct iser_task   libiscsi's per-task data: header storage and the
 *                     task's MR slot.
 */
#ifndef ISER_H
#define ISER_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <scsi/iscsi_proto.h>
#include <scsi/iser.h>
#include <scsi/libiscsi.h>
#include <scsi/scsi_transport_iscsi.h>

#define DRV_NAME "iser"

/* iSER header (struct iser_ctrl) followed by the iSCSI BHS. */
#define ISER_HDRS_LEN (sizeof(struct iser_ctrl) + ISCSI_HDR_LEN)
/* Data segment room of a receive buffer: login/text, and everything else. */
#define ISER_LOGIN_DATA_LEN ISCSI_DEF_MAX_RECV_SEG_LEN
#define ISER_RX_DATA_LEN 128
/* Commands a connection carries at most (its receive buffers, its MRs). */
#define ISER_MAX_CMDS 512
/* Send queue entries: each signaled, each returns its credit. */
#define ISER_SQ_SIZE 2048
#define ISER_CM_TIMEOUT_MS 1000

extern int iser_debug_level;
extern unsigned int iser_max_sectors;

#define iser_dbg(lvl, fmt, ...)						\
	do {								\
		if (iser_debug_level >= (lvl))				\
			pr_info(DRV_NAME ": %s: " fmt, __func__, ##__VA_ARGS__); \
	} while (0)
#define iser_err(fmt, ...) pr_err(DRV_NAME ": %s: " fmt, __func__, ##__VA_ARGS__)

enum iser_state {
	ISER_CONNECTING,	/* address, route, connect under way */
	ISER_UP,		/* established */
	ISER_FAILED,		/* never came up: ep_poll reports it */
	ISER_DOWN,		/* came up, then went away or was terminated */
};

/* A receive buffer: iSER header, BHS, data segment. */
struct iser_rx {
	struct ib_cqe cqe;
	struct iser_conn *ic;
	void *buf;
	u64 dma;
	u32 len;
};

/* One fast-registration MR and what it maps while a task owns it. */
struct iser_mr_slot {
	struct ib_mr *mr;
	struct scatterlist *sg;
	int sg_count;		/* as mapped (ib_dma_map_sg's nents argument) */
	enum dma_data_direction dir;
	bool busy;		/* owned by a task */
	bool mapped;		/* sg mapped for the device */
	bool valid;		/* registered, not invalidated yet */
};

struct iser_conn {
	struct kref ref;
	struct mutex mutex;		/* state, resources */
	enum iser_state state;
	int error;			/* why it failed (negative errno) */
	wait_queue_head_t waitq;	/* ep_poll */

	struct rdma_cm_id *cm_id;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	unsigned int cq_size;
	bool remote_inv;		/* the target may SEND_WITH_INV */
	bool drained;
	atomic_t sq_credits;
	/*
	 * Nothing is posted once the drain began: a work request behind
	 * ib_drain_qp()'s marker would complete after the connection is gone.
	 */
	spinlock_t post_lock;
	bool post_ok;

	/* The bound iSCSI connection, for the completion path. */
	spinlock_t iconn_lock;
	struct iscsi_conn *iconn;

	/* Receive buffers: one for login/text, nr_rx for full feature. */
	struct iser_rx login_rx;
	bool login_posted;
	struct iser_rx *rx;
	void *rx_bufs;
	unsigned int nr_rx;
	bool rx_posted;

	/* Fast-registration MRs: one per command slot. */
	spinlock_t mr_lock;
	struct iser_mr_slot *slots;
	unsigned int nr_slots;
	unsigned int mr_pages;

	struct ib_cqe reg_cqe;		/* REG_MR and LOCAL_INV completions */
	/* failing from the send path, which runs under libiscsi's frwd_lock */
	struct work_struct fail_work;
};

struct iser_iconn {
	struct iser_conn *ic;
};

struct iser_task {
	/* libiscsi builds the BHS here (alloc_pdu) */
	u8 bhs[ISCSI_HDR_LEN];
	struct iser_conn *ic;
	struct iser_mr_slot *slot;
	u32 inv_credit;			/* a credit kept for its LOCAL_INV */
	bool sent;
};

/* A SEND: the headers, then for control PDUs their data copied after. */
struct iser_tx {
	struct ib_cqe cqe;
	struct ib_send_wr wr;
	struct ib_sge sge[2];		/* headers; data from the task's MR */
	struct iser_conn *ic;
	struct iscsi_task *put_task;	/* no response comes: put when sent */
	u64 dma;
	u32 len;
	u8 hdrs[];
};

/* iser_conn.c */
struct iser_conn *iser_conn_create(struct sockaddr *dst);
void iser_conn_put(struct iser_conn *ic);
int iser_conn_wait(struct iser_conn *ic, int timeout_ms);
void iser_conn_terminate(struct iser_conn *ic);
int iser_conn_bind_resources(struct iser_conn *ic, unsigned int cmds);
void iser_conn_fail(struct iser_conn *ic);

/* iser_recv.c */
int iser_post_login_rx(struct iser_conn *ic);
int iser_post_rx_all(struct iser_conn *ic);
void iser_rx_init(struct iser_conn *ic, struct iser_rx *rx, void *buf,
		  u64 dma, u32 len);

/* iser_xmit.c */
int iser_alloc_pdu(struct iscsi_task *task, u8 opcode);
int iser_init_task(struct iscsi_task *task);
int iser_xmit_task(struct iscsi_task *task);
void iser_cleanup_task(struct iscsi_task *task);
void iser_reg_done(struct ib_cq *cq, struct ib_wc *wc);
bool iser_remote_invalidated(struct iser_conn *ic, u32 rkey);
void iser_slots_release_all(struct iser_conn *ic);

#endif
