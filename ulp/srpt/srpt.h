/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_srpt: an SRP (SCSI RDMA Protocol) target for the stock LIO core
 * (target_core_mod), over our rdma_cm (issue 15).
 *
 * Objects and who owns them:
 *  struct srpt_dev   one RDMA device (ib_client data): its PD and one
 *                    struct srpt_port per port with the two names a
 *                    configfs target port may have.
 *  struct srpt_wwn   a configfs target port (LIO's se_wwn): tied to one
 *                    srpt_port while that device exists.
 *  struct srpt_tpg   a portal group under it (LIO's se_portal_group).
 *  struct srpt_ch    one RDMA channel = one login = one LIO session: the
 *                    cm_id, CQ, QP, receive buffers and command slots.
 *  struct srpt_cmd   one command slot: LIO's se_cmd, the response buffer
 *                    and the rdma_rw contexts of its data descriptors.
 *
 * All channels are on one list under srpt_mutex; a channel is torn down
 * by its release work only (srpt_conn.c), whoever asked for it.
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/srp.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#define SRPT_NAME "ib_srpt"

/* Receive ring given to the initiator as its credit at login. */
#define SRPT_RING_MAX 128
/* Descriptors of one command, all in the IU (srp_max_req_size sizing). */
#define SRPT_MAX_DESC 128
/* One command moves at most this much data (checked at parse time). */
#define SRPT_MAX_DATA (16U << 20)
#define SRPT_LISTEN_BACKLOG 128
/* Send slots kept back for responses we must send (BUSY, TMF). */
#define SRPT_SQ_RESERVE 16

/* Login reject reasons (SRP r16a, table 11). */
#define SRPT_REJ_NO_CHANNEL	0x00010000
#define SRPT_REJ_NO_RESOURCES	0x00010001
#define SRPT_REJ_IU_TOO_LONG	0x00010002
#define SRPT_REJ_NO_NEXUS	0x00010003
#define SRPT_REJ_CHANNEL_LIMIT	0x00010006

/* SRP_RSP response codes of a task management function. */
#define SRPT_TMF_COMPLETE	0x00
#define SRPT_TMF_NOT_SUPPORTED	0x04
#define SRPT_TMF_FAILED		0x05

extern int srpt_max_req_size;
extern u64 srpt_guid;
extern struct mutex srpt_mutex;
extern struct list_head srpt_channels;
extern struct list_head srpt_devs;
extern wait_queue_head_t srpt_ch_wait;
extern struct workqueue_struct *srpt_wq;
extern const struct target_core_fabric_ops srpt_fabric_ops;

#define srpt_err(fmt, ...) \
	pr_err_ratelimited(SRPT_NAME ": " fmt, ##__VA_ARGS__)

enum srpt_name_form {
	SRPT_FORM_GUID,		/* xxxx:xxxx:xxxx:xxxx of GID[0]'s interface ID */
	SRPT_FORM_GID,		/* 0x + 32 hex digits of GID[0] */
	SRPT_NR_FORMS,
};

struct srpt_dev;
struct srpt_wwn;

struct srpt_port {
	struct srpt_dev *sdev;
	u32 num;
	char name[SRPT_NR_FORMS][40];
	struct srpt_wwn *wwn[SRPT_NR_FORMS];	/* under srpt_mutex */
};

struct srpt_srq;

struct srpt_dev {
	struct list_head node;			/* on srpt_devs */
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct srpt_srq *srq;			/* made by the first use_srq login */
	bool dying;				/* under srpt_mutex */
	u32 nr_ports;
	struct srpt_port port[];
};

struct srpt_wwn {
	struct se_wwn wwn;
	enum srpt_name_form form;
	struct srpt_port *port;			/* NULL once its device left */
	struct list_head tpgs;			/* under srpt_mutex */
	char name[40];
};

struct srpt_tpg {
	struct se_portal_group tpg;
	struct srpt_wwn *swwn;
	struct list_head node;			/* on swwn->tpgs */
	bool enabled;				/* under srpt_mutex */
	u32 max_rdma_size;
	u32 max_rsp_size;
	u32 sq_size;
	bool use_srq;
};

enum srpt_ch_state {
	SRPT_CH_CONNECTING,	/* accepted, waiting for ESTABLISHED */
	SRPT_CH_LIVE,
	SRPT_CH_CLOSING,	/* release work queued */
};

struct srpt_rx {
	struct ib_cqe cqe;
	struct srpt_ch *ch;			/* NULL: the device's SRQ's */
	struct srpt_srq *srq;
	void *buf;
	u64 dma;
};

/* A device's shared receive queue, for channels of use_srq groups. */
struct srpt_srq {
	struct ib_srq *srq;
	struct srpt_dev *sdev;
	unsigned int n;
	struct srpt_rx *rx;
};

struct srpt_rw {
	struct rdma_rw_ctx ctx;
	struct scatterlist *sg;
	unsigned int nents;
	u64 va;
	u32 rkey;
	u32 len;
	bool live;
};

struct srpt_cmd {
	struct se_cmd se;
	struct srpt_ch *ch;
	struct list_head free_node;
	u64 tag;			/* as the initiator sent it */
	bool is_tmf;
	u8 tmf_func;
	struct srpt_rx *held_rx;	/* immediate data lives there */
	struct scatterlist imm_sg;
	unsigned int n_rw;
	struct srpt_rw *rw;
	struct srpt_rw rw_one;
	unsigned int rw_wrs;		/* WRs the rw contexts need */
	enum dma_data_direction rw_dir;
	unsigned int sq_taken;		/* send queue slots reserved */
	bool lio;			/* LIO knows it: it frees it */
	struct ib_cqe read_cqe;
	struct ib_cqe send_cqe;
	void *rsp;
	u64 rsp_dma;
	u8 sense[TRANSPORT_SENSE_BUFFER];
};

struct srpt_ch {
	struct list_head node;			/* on srpt_channels */
	struct srpt_dev *sdev;
	struct srpt_port *sport;
	struct srpt_tpg *stpg;
	struct rdma_cm_id *cm_id;
	struct ib_cq *cq;
	unsigned int cq_size;
	struct ib_qp *qp;
	struct srpt_srq *srq;			/* receives come from it */
	struct se_session *sess;
	char sess_name[64];
	u8 i_port_id[16];
	u8 t_port_id[16];

	spinlock_t lock;			/* state, dead, free_cmds */
	enum srpt_ch_state state;
	bool in_login;				/* the login handler owns it */
	bool close_pending;			/* closed during the login */
	bool dead;				/* no more posts: drained */
	struct work_struct release_work;

	unsigned int nr_rx;
	struct srpt_rx *rx;
	unsigned int ring;			/* credits given at login */
	atomic_t credit_back;			/* credits owed to the initiator */
	atomic_t sq_avail;
	unsigned int max_send_wr;

	unsigned int nr_cmds;
	struct srpt_cmd *cmds;
	struct list_head free_cmds;

	u32 max_ti_iu_len;
	u32 rsp_size;
	u16 imm_offset;				/* 0: no immediate data */
	atomic_t dropped;
};

static inline struct srpt_tpg *srpt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_tpg, tpg);
}

static inline struct srpt_cmd *srpt_cmd(struct se_cmd *se)
{
	return container_of(se, struct srpt_cmd, se);
}

/* srpt_main.c */
void srpt_listener_set(u16 port, int *ret);
u16 srpt_listener_port(void);
struct srpt_srq *srpt_srq_get(struct srpt_dev *sdev);
int srpt_srq_post(struct srpt_rx *rx);

/* srpt_conn.c */
int srpt_login(struct rdma_cm_id *id, struct rdma_cm_event *ev);
int srpt_ch_event(struct srpt_ch *ch, struct rdma_cm_event *ev);
void srpt_ch_close(struct srpt_ch *ch);
void srpt_close_matching(struct srpt_tpg *stpg, struct srpt_dev *sdev);
void srpt_close_matching_sync(struct srpt_tpg *stpg, struct srpt_dev *sdev);
int srpt_post_rx(struct srpt_ch *ch, struct srpt_rx *rx);
struct srpt_cmd *srpt_cmd_get(struct srpt_ch *ch);
void srpt_cmd_put(struct srpt_cmd *cmd);

/* srpt_recv.c */
void srpt_rx_done(struct ib_cq *cq, struct ib_wc *wc);

/* srpt_xmit.c */
void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
void srpt_read_done(struct ib_cq *cq, struct ib_wc *wc);
int srpt_send_rsp(struct srpt_cmd *cmd, u8 status, const u8 *sense,
		  u32 sense_len, int tmf_code);
int srpt_write_pending(struct se_cmd *se);
int srpt_queue_data_in(struct se_cmd *se);
int srpt_queue_status(struct se_cmd *se);
void srpt_queue_tm_rsp(struct se_cmd *se);
void srpt_aborted_task(struct se_cmd *se);
void srpt_release_data(struct srpt_cmd *cmd);
bool srpt_sq_take(struct srpt_ch *ch, unsigned int n);
void srpt_sq_give(struct srpt_ch *ch, unsigned int n);

#endif
