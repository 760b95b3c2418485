/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_isert: the iSER target transport (RFC 7145) for the stock LIO iSCSI
 * target (iscsi_target_mod), over our rdma_cm (issue 15).
 *
 * LIO drives a transport through struct iscsit_transport: a network portal
 * (setup_np) whose login thread blocks in accept_np, login PDUs pulled with
 * get_login_rx and answered with put_login_tx, then per connection an RX
 * thread (get_rx_pdu: ours feeds it the received PDUs in order) and a TX
 * thread (immediate/response queues: ours turns each state into a SEND).
 * Data moves by RDMA: READs for the solicited part of a WRITE command
 * (get_dataout), WRITEs before the response of a READ (queue_data_in).
 *
 * Objects:
 *  struct isert_np    one network portal: the rdma_cm listener and the
 *                     connections established but not yet taken by LIO.
 *  struct isert_conn  one RDMA connection: cm_id, PD, CQ, QP, receive
 *                     ring, send slots. LIO owns it once accept_np handed it
 *                     over (conn->context), until free_conn.
 *  struct isert_cmd   LIO's per-command private area (iscsit_priv_cmd):
 *                     the initiator's STags and the rdma_rw context.
 */
#ifndef ISERT_H
#define ISERT_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/iscsi_proto.h>
#include <scsi/iser.h>
#include <target/iscsi/iscsi_transport.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#define DRV_NAME "isert"

/* iSER header, then the iSCSI BHS. */
#define ISERT_HDRS_LEN (sizeof(struct iser_ctrl) + ISCSI_HDR_LEN)
/*
 * Receive buffer: headers, room for AHS, and a data segment of the
 * default TargetRecvDataSegmentLength (login keys fit in it too).
 */
#define ISERT_RX_AHS_ROOM 256
#define ISERT_RX_DATA_LEN MAX_KEY_VALUE_PAIRS
#define ISERT_RX_LEN (ISERT_HDRS_LEN + ISERT_RX_AHS_ROOM + ISERT_RX_DATA_LEN)
#define ISERT_NR_RX 128
/*
 * Send slots: one per response in flight. LIO's CmdSN window keeps the
 * commands of a connection well below this; small data (sense) is copied
 * into the slot, larger (text, ping, reject) mapped from LIO's buffer.
 */
#define ISERT_NR_TX 160
#define ISERT_TX_INLINE 128
#define ISERT_TX_LEN (ISERT_HDRS_LEN + ISERT_TX_INLINE)
/* RDMA READ/WRITE contexts: one per command. */
#define ISERT_NR_RW 128
#define ISERT_LOGIN_TX_LEN (ISERT_HDRS_LEN + MAX_KEY_VALUE_PAIRS)
/* How long a closing connection lets its last responses go out. */
#define ISERT_TX_LINGER_MS 2000

extern int isert_debug_level;
extern int isert_sg_tablesize;
extern struct workqueue_struct *isert_release_wq;

#define isert_dbg(lvl, fmt, ...)					\
	do {								\
		if (isert_debug_level >= (lvl))				\
			pr_info(DRV_NAME ": %s: " fmt, __func__, ##__VA_ARGS__); \
	} while (0)
/* most come from what a peer sent: rate limited */
#define isert_err(fmt, ...) \
	pr_err_ratelimited(DRV_NAME ": %s: " fmt, __func__, ##__VA_ARGS__)

/* The first member of an rdma_cm id's context: which one it is. */
enum isert_ctx_kind {
	ISERT_CTX_NP,
	ISERT_CTX_CONN,
};

struct isert_np {
	enum isert_ctx_kind kind;
	struct iscsi_np *np;
	struct rdma_cm_id *cm_id;	/* the listener */
	spinlock_t lock;
	struct list_head pending;	/* accepted by us, not established */
	struct list_head ready;		/* established, waiting for accept_np */
	wait_queue_head_t wait;
	bool stopping;
};

enum isert_state {
	ISERT_REQUESTED,	/* accepted, waiting for ESTABLISHED */
	ISERT_UP,
	ISERT_DOWN,		/* disconnected, failed or closing */
};

struct isert_rx {
	struct ib_cqe cqe;
	struct isert_conn *ic;
	struct list_head node;		/* on ic->rx_list until processed */
	void *buf;
	u64 dma;
	u32 len;			/* bytes received */
};

enum isert_tx_kind {
	ISERT_TX_FREE_CMD,	/* a final response: LIO's command is done */
	ISERT_TX_KEEP_CMD,	/* LIO frees it (ExpStatSN), or more PDUs follow */
	ISERT_TX_LOGOUT,	/* the TX thread waits for it */
	ISERT_TX_LOGIN,
};

struct isert_tx {
	struct ib_cqe cqe;
	struct isert_conn *ic;
	struct list_head node;		/* on ic->tx_free while unused */
	struct iscsit_cmd *cmd;
	enum isert_tx_kind kind;
	struct ib_send_wr wr;
	struct ib_sge sge[2];
	void *buf;			/* headers, then small data */
	u64 dma;
	u32 buf_len;
	u64 extra_dma;			/* mapped large data, if any */
	u32 extra_len;
};

struct isert_conn {
	enum isert_ctx_kind kind;
	/* while on one of its lists (changed under inp->lock) */
	struct isert_np *inp;
	struct list_head np_node;
	struct rdma_cm_id *cm_id;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	unsigned int cq_size;
	struct ib_qp *qp;
	u32 port;
	bool remote_inv;		/* the initiator takes SEND_WITH_INV */

	spinlock_t lock;		/* state, login, rx_list, post_ok */
	enum isert_state state;
	bool post_ok;			/* false once the drain began */
	struct iscsit_conn *conn;	/* LIO's, from accept_np to wait_conn */

	/* Login phase: one request staged at a time. */
	struct completion login_comp;
	struct isert_rx *login_rx;
	bool login_next;		/* LIO's login_work takes the next one */
	bool full_feature;		/* PDUs go to the RX thread */
	struct isert_tx login_tx;

	struct isert_rx *rx;
	struct list_head rx_list;
	wait_queue_head_t rx_wait;

	spinlock_t tx_lock;
	struct isert_tx *tx;
	struct list_head tx_free;
	unsigned int tx_inflight;
	wait_queue_head_t tx_wait;
	struct completion logout_sent;

	struct work_struct release_work;	/* never handed to LIO */
};

struct isert_cmd {
	struct iscsit_cmd *cmd;
	struct isert_conn *ic;
	u32 read_stag;
	u64 read_va;
	u32 write_stag;
	u64 write_va;
	struct rdma_rw_ctx rw;
	bool rw_live;			/* rw initialised, not destroyed */
	enum dma_data_direction rw_dir;
	struct ib_cqe read_cqe;
};

static inline struct isert_cmd *isert_cmd(struct iscsit_cmd *cmd)
{
	return iscsit_priv_cmd(cmd);
}

/*
 * Exported by iscsi_target_mod but declared only in its private headers:
 * a Text continuation finds its command by ITT.
 */
struct iscsit_cmd *iscsit_find_cmd_from_itt(struct iscsit_conn *conn,
					    itt_t init_task_tag);

/* isert_conn.c */
int isert_conn_request(struct isert_np *inp, struct rdma_cm_id *id,
		       struct rdma_cm_event *ev);
void isert_conn_established(struct isert_conn *ic);
void isert_conn_down(struct isert_conn *ic);
void isert_conn_release(struct isert_conn *ic);
void isert_conn_quiesce(struct isert_conn *ic);
int isert_post_rx(struct isert_conn *ic, struct isert_rx *rx);
void isert_conn_closing(struct iscsit_conn *conn);
void isert_conn_freed(struct iscsit_conn *conn);

/* isert_login.c */
int isert_login_recv(struct iscsit_conn *conn, struct iscsi_login *login);
int isert_login_send(struct iscsit_conn *conn, struct iscsi_login *login,
		       u32 length);
void isert_rx_done(struct ib_cq *cq, struct ib_wc *wc);

/* isert_recv.c */
void isert_rx_thread(struct iscsit_conn *conn);

/* isert_xmit.c */
void isert_tx_done(struct ib_cq *cq, struct ib_wc *wc);
int isert_tx_init(struct isert_conn *ic, struct isert_tx *tx, u32 len);
void isert_tx_exit(struct isert_conn *ic, struct isert_tx *tx);
int isert_post_tx(struct isert_conn *ic, struct isert_tx *tx, u32 len,
		  void *extra, u32 extra_len, u32 inv_rkey);
void isert_fill_iser_hdr(void *buf);
int isert_send_immediate(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
			  int state);
int isert_send_queued(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
			 int state);
int isert_send_status(struct iscsit_conn *conn, struct iscsit_cmd *cmd);
int isert_send_read_data(struct iscsit_conn *conn, struct iscsit_cmd *cmd);
int isert_fetch_write_data(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
		      bool recovery);
void isert_cmd_unmap(struct iscsit_conn *conn, struct iscsit_cmd *cmd);

#endif
