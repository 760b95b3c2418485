/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_srp: the SCSI RDMA Protocol initiator for the stock scsi_transport_srp,
 * over our rdma_cm (issue 15).
 *
 * Objects:
 *  struct srp_dev     one RDMA device (ib_client data): PD, how memory is
 *                     registered; one srp_port per port.
 *  struct srp_port    the class device srp-<dev>-<port> (add_target); the
 *                     targets added through it.
 *  struct srp_target  one SCSI host (its hostdata) and its srp_rport: the
 *                     login options and ch_count channels.
 *  struct srp_chan    one RDMA connection (an SRP channel): cm_id, CQ, QP,
 *                     IU rings, FRWR MRs, credits. Channel i carries blk-mq
 *                     hardware queue i.
 *  struct srp_priv    per SCSI command (scsi_cmd_priv): who owns it on the
 *                     wire, what was mapped for it.
 *
 * A command is outstanding while its priv->ch is set; whoever clears it
 * under ch->lock (the response, an abort, a reset, a teardown) finishes it.
 */
#ifndef SRP_H
#define SRP_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_host.h>
#include <scsi/scsi_transport_srp.h>
#include <scsi/srp.h>

#define DRV_NAME "ib_srp"

#define SRP_CM_TIMEOUT_MS	1000
#define SRP_LOGIN_WAIT_MS	20000
#define SRP_TMF_WAIT_MS		5000
/* a command IU: header, room for an additional CDB, an immediate length */
#define SRP_IMM_OFFSET		(sizeof(struct srp_cmd) + 16 + \
				 sizeof(struct srp_imm_buf))
/* per channel: one IU for a task management request, one for responses */
#define SRP_RESERVED_IUS	2
#define SRP_DEF_QUEUE_SIZE	64
#define SRP_MAX_PAGES_PER_MR	256
/* one SCSI command's data never exceeds this (target's allocation, WRs) */
#define SRP_MAX_XFER		(16u << 20)
/* wire tags: commands carry (seq << 32 | unique tag), TMFs this bit */
#define SRP_TAG_TMF		(1ULL << 63)

#define srp_err_rl(fmt, ...) pr_err_ratelimited(DRV_NAME ": " fmt, ##__VA_ARGS__)

/* module parameters (srp_main.c) */
extern unsigned int srp_cmd_sg_entries;
extern unsigned int srp_indirect_sg_entries;
extern bool srp_allow_ext_sg;
extern int srp_topspin_workarounds;
extern bool srp_register_always;
extern bool srp_never_register;
extern bool srp_use_imm_data;
extern unsigned int srp_max_imm_data;
extern unsigned int srp_ch_count;

struct srp_dev {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 global_rkey;
	bool has_global_rkey;
	bool use_fr;			/* fast registration available, wanted */
	unsigned int mr_pages;		/* pages one FRWR MR maps */
	struct list_head ports;
};

struct srp_port {
	struct device dev;		/* class infiniband_srp */
	struct srp_dev *sdev;
	u32 port;
	struct mutex add_mutex;		/* add_target writers */
	spinlock_t lock;		/* targets */
	struct list_head targets;
	struct list_head node;		/* in sdev->ports */
};

/* A receive or send buffer. */
struct srp_iu {
	struct ib_cqe cqe;
	struct srp_chan *ch;
	void *buf;
	u64 dma;
	u32 size;
	/*
	 * A command's send IU is held by its send completion and by the
	 * command until it is finished: a transport that completes a SEND
	 * before the peer has read the buffer (a zero-copy TCP one) must not
	 * see it rewritten by the next command.
	 */
	atomic_t refs;
	struct list_head node;		/* free send IUs */
};

struct srp_mr {
	struct ib_mr *mr;
	struct list_head node;
};

struct srp_chan {
	struct srp_target *target;
	unsigned int index;
	spinlock_t lock;		/* live, credits, free lists, owners */
	bool live;			/* commands may be posted */
	int req_lim;
	u32 seq;			/* wire tag sequence */
	unsigned int comp_vector;

	struct rdma_cm_id *cm_id;
	struct ib_cq *cq;
	struct ib_qp *qp;

	/* connect handshake (srp_conn.c) */
	struct completion done;
	int status;
	bool connected;			/* ESTABLISHED seen, not torn down */
	bool drained;
	u8 login_rsp[sizeof(struct srp_login_rsp)];
	u8 login_rsp_len;

	u32 max_it_iu_len;		/* negotiated */
	u32 max_ti_iu_len;
	bool use_imm;

	struct srp_iu *tx;		/* target->tx_count */
	struct list_head tx_free;
	unsigned int tx_nfree;
	struct srp_iu *rx;
	unsigned int nr_rx;

	struct srp_mr *mrs;
	struct list_head mr_free;

	struct ib_cqe reg_cqe;		/* REG_MR / LOCAL_INV completions */

	/* the one task management request in flight (the SCSI EH's) */
	u64 tmf_tag;
	int tmf_status;
	struct completion tmf_done;
};

struct srp_target {
	struct Scsi_Host *shost;
	struct srp_port *port;
	struct srp_rport *rport;
	struct list_head node;		/* in port->targets */

	/* options of add_target (srp_opts.c) */
	u64 id_ext;
	u64 ioc_guid;
	u64 initiator_ext;
	u16 io_class;
	struct sockaddr_storage dest;
	struct sockaddr_storage src;
	bool has_src;
	unsigned int max_sect;
	unsigned int queue_size;
	unsigned int cmd_per_lun;
	unsigned int target_can_queue;
	unsigned int cmd_sg_entries;
	unsigned int sg_tablesize;
	bool allow_ext_sg;
	int comp_vector;
	int tl_retry_count;
	unsigned int max_it_iu_size;
	unsigned int ch_count;

	union ib_gid sgid;
	u8 i_port_id[16];
	u8 t_port_id[16];
	u32 req_it_iu_len;		/* what a login asks for */
	unsigned int tx_count;		/* send IUs per channel = queue_size */
	bool fr;			/* commands are registered with FRWR */

	struct srp_chan *ch;
	unsigned int nr_ch;		/* allocated */
	int zero_req_lim;		/* times a command found no credit */
	u64 tmf_seq;

	char info[32];			/* SRP.T10:<ID_EXT> */
	bool host_added;		/* the tag set exists */
	bool listed;			/* in port->targets, under port->lock */
	bool removing;			/* under port->lock */
	struct work_struct remove_work;
	struct work_struct tl_err_work;
};

struct srp_priv {
	struct srp_chan *ch;		/* outstanding on this channel */
	struct srp_iu *iu;		/* its SRP_CMD, until finished */
	u64 wire_tag;
	struct srp_mr *mr;
	int nents;			/* DMA-mapped scatterlist entries */
	void *ext;			/* external descriptor table */
	u64 ext_dma;
	u32 ext_len;
};

static inline struct srp_target *host_to_target(struct Scsi_Host *shost)
{
	return (struct srp_target *)shost->hostdata;
}

/* srp_main.c */
extern struct workqueue_struct *srp_remove_wq;
extern struct ib_client srp_client;
struct scsi_transport_template *srp_transport(void);

/* srp_host.c */
int srp_add_target(struct srp_port *p, const char *buf);
void __srp_queue_remove(struct srp_target *t);
void srp_queue_remove(struct srp_target *t);
int srp_rport_reconnect(struct srp_rport *rport);
void srp_terminate_io(struct srp_rport *rport);
void srp_rport_delete(struct srp_rport *rport);

/* srp_opts.c */
int srp_parse_options(struct srp_target *t, const char *buf);

/* srp_conn.c */
int srp_chan_connect(struct srp_chan *ch, bool multi);
void srp_chan_stop(struct srp_chan *ch, int result);
void srp_chan_free(struct srp_chan *ch);
int srp_target_connect(struct srp_target *t, bool reconnect);
void srp_target_disconnect(struct srp_target *t);
void srp_chan_error(struct srp_chan *ch);

/* srp_recv.c */
int srp_post_recv(struct srp_chan *ch, struct srp_iu *iu);
void srp_recv_done(struct ib_cq *cq, struct ib_wc *wc);
void srp_send_done(struct ib_cq *cq, struct ib_wc *wc);
void srp_reg_done(struct ib_cq *cq, struct ib_wc *wc);
enum srp_iu_kind { SRP_IU_CMD, SRP_IU_TMF, SRP_IU_RSP };
struct srp_iu *srp_get_tx(struct srp_chan *ch, enum srp_iu_kind kind);
void srp_put_tx(struct srp_chan *ch, struct srp_iu *iu);
void srp_iu_release(struct srp_chan *ch, struct srp_iu *iu);
int srp_post_send(struct srp_chan *ch, struct srp_iu *iu, u32 len,
		  struct ib_send_wr *first);

/* srp_xmit.c */
int srp_queuecommand(struct Scsi_Host *shost, struct scsi_cmnd *sc);
void srp_unmap(struct srp_chan *ch, struct scsi_cmnd *sc);
bool srp_claim(struct srp_chan *ch, struct scsi_cmnd *sc);
void srp_fail_all(struct srp_target *t, struct srp_chan *only, int result);
int srp_abort(struct scsi_cmnd *sc);
int srp_reset_device(struct scsi_cmnd *sc);
int srp_reset_host(struct scsi_cmnd *sc);
void srp_complete_rsp(struct srp_chan *ch, struct srp_rsp *rsp, u32 len);

#endif
