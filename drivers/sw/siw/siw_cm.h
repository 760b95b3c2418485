/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw connection endpoints (siw_cm.c): one per TCP socket siw owns, be it
 * listening, connecting, in the MPA exchange or carrying a QP's stream.
 */
#ifndef SIW_CM_H
#define SIW_CM_H

#include "siw.h"

enum siw_cep_state {
	SIW_EPSTATE_IDLE,
	SIW_EPSTATE_LISTENING,
	SIW_EPSTATE_CONNECTING,		/* active: TCP handshake */
	SIW_EPSTATE_AWAIT_MPAREQ,	/* passive: reading the request */
	SIW_EPSTATE_RECVD_MPAREQ,	/* passive: iw_cm decides */
	SIW_EPSTATE_AWAIT_MPAREP,	/* active: reading the reply */
	SIW_EPSTATE_RDMA_MODE,		/* the QP owns the stream */
	SIW_EPSTATE_CLOSED,
};

/* Reasons the endpoint work runs (cep->events bits). */
enum {
	SIW_CEP_EV_READABLE,	/* data or a new connection arrived */
	SIW_CEP_EV_STATE,	/* TCP state changed */
	SIW_CEP_EV_TIMEOUT,	/* MPA exchange or close took too long */
	SIW_CEP_EV_CLOSE,	/* the QP side asks to close */
	SIW_CEP_EV_ABORT,	/* the device's netdev is going away */
};

#define SIW_MPA_BUF_SIZE	(sizeof(struct mpa_rr) + MPA_MAX_PRIVDATA)

struct siw_cep {
	struct kref ref;
	struct siw_device *sdev;
	struct list_head devq;		/* sdev->cep_list */
	struct list_head allq;		/* siw_cm.c's list of all, debugfs */
	struct list_head listenq;	/* a listener's sockets or children */
	struct list_head children;	/* listener: connections in MPA */
	struct siw_cep *parent;		/* child: its listening endpoint */

	struct mutex lock;		/* everything below */
	enum siw_cep_state state;
	struct iw_cm_id *cm_id;		/* held with cm_id->add_ref */
	struct socket *sock;
	struct siw_qp *qp;		/* held */
	struct siw_qp *rx_qp;		/* under sk_callback_lock: RDMA mode */
	bool close_abrupt;
	bool peer_closed;

	/* MPA */
	u8 mpa_buf[SIW_MPA_BUF_SIZE];	/* the frame being received */
	u32 mpa_rcvd;
	u8 rev;				/* revision in use */
	bool enhanced;
	bool crc;
	u16 ird;			/* ours */
	u16 ord;
	u16 peer_ird;
	u16 peer_ord;
	bool peer_p2p;

	unsigned long events;		/* SIW_CEP_EV_* */
	struct work_struct work;
	struct delayed_work timer;

	/* the socket's callbacks before we took it over */
	void (*sk_state_change)(struct sock *sk);
	void (*sk_data_ready)(struct sock *sk);
	void (*sk_write_space)(struct sock *sk);
};

/* What a listening cm_id's provider_data points to. */
struct siw_listener {
	struct list_head ceps;		/* one listening endpoint per address */
};

int siw_mpa_build(u8 *buf, bool reply, u16 bits, const struct mpa_v2_data *v2,
		  const void *pdata, u16 plen);
int siw_mpa_check(const struct mpa_rr *rr, bool reply, u8 *rev);

#endif /* SIW_CM_H */
