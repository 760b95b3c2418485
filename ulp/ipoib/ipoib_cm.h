/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * IPoIB connected mode (RFC 4755): what ipoib.h needs to know of it.
 *
 * An interface in connected mode sends unicast to a peer whose hardware
 * address has the RC flag over a reliable connection of its own (an
 * "outbound link", set up with ib_cm by a work item); multicast and peers
 * without the flag stay on UD. Whatever the mode, an interface that is up
 * listens on its service ID and accepts "inbound links": passive RC QPs
 * whose receives come from one SRQ of large buffers. All RC QPs of an
 * interface complete on one CQ, polled by a NAPI context of its own.
 *
 * Locking: priv->lock guards the outbound table, the inbound list and
 * the state fields the transmit path reads; cm.out_mutex serialises the
 * setup and teardown of outbound links. Teardown never runs from an
 * ib_cm callback of the link it tears down (ib_destroy_cm_id waits for
 * the callbacks); an outbound link is freed only after an RCU grace
 * period, as completions look it up locklessly.
 */
#ifndef IPOIB_CM_H
#define IPOIB_CM_H

#include <linux/hashtable.h>
#include <linux/if_infiniband.h>
#include <linux/rwsem.h>
#include <linux/xarray.h>
#include <rdma/ib_cm.h>

struct ipoib_priv;

/* Service ID: the IETF prefix of RFC 4755 OR'ed with the UD QPN. */
#define IPOIB_CM_SID_PREFIX	0x1000000000000000ULL
#define IPOIB_HWADDR_RC		0x80	/* flags byte of the address */
/* The largest IP MTU over RC: 64 KiB less 16 bytes. */
#define IPOIB_CM_MTU_MAX	(0x10000 - 0x10)
/* Receive buffer: a small linear head, then whole pages. */
#define IPOIB_CM_RX_HEAD	512
#define IPOIB_CM_RX_PAGES	16
#define IPOIB_CM_MAX_OUT	32	/* outbound links per interface */
#define IPOIB_CM_MAX_IN		128	/* inbound links per interface */
#define IPOIB_CM_WAITING	32	/* packets held while connecting */
#define IPOIB_CM_RETRY		(2 * HZ)	/* after a failed link */
#define IPOIB_CM_REAP_EVERY	(60 * HZ)
#define IPOIB_CM_IDLE		(300 * HZ)	/* a link unused this long goes */

/* wr_id on the RC CQ: this bit for sends, the link's id, the slot. */
#define IPOIB_CM_WRID_TX	BIT_ULL(63)

/* REQ and REP private data (RFC 4755): our UD QPN, our receive size. */
struct ipoib_cm_wire_data {
	__be32	qpn;
	__be32	rx_size;
};

struct ipoib_cm_rx_slot {
	struct sk_buff	*skb;
	u64		head_dma;
	struct page	*pages[IPOIB_CM_RX_PAGES];
	u64		page_dma[IPOIB_CM_RX_PAGES];
};

/* A passive connection: its QP receives on the SRQ. */
struct ipoib_cm_in {
	struct list_head	entry;		/* priv->lock */
	bool			taken;		/* priv->lock: its teardown began */
	struct ipoib_priv	*priv;
	struct ib_cm_id		*cm_id;
	struct ib_qp		*qp;
	unsigned long		last_rx;
	u8			peer[INFINIBAND_ALEN];	/* its hw address */
	struct rcu_head		rcu;
};

enum ipoib_cm_out_state {
	IPOIB_CM_OUT_NEW,		/* waiting for the connect work */
	IPOIB_CM_OUT_CONNECTING,	/* REQ sent */
	IPOIB_CM_OUT_UP,		/* RTS, sends go out */
	IPOIB_CM_OUT_FAILED,		/* UD or drop until retry_at */
};

/* An active connection to one destination (GID, UD QPN). */
struct ipoib_cm_out {
	struct hlist_node	node;		/* priv->lock */
	struct list_head	dead;		/* off the table, to tear down */
	struct ipoib_priv	*priv;
	union ib_gid		dgid;
	u32			dqpn;
	u32			id;		/* in cm.out_ids; 0: none */
	enum ipoib_cm_out_state	state;
	struct sa_path_rec	path;
	struct ib_cm_id		*cm_id;
	struct ib_qp		*qp;
	unsigned int		mtu;		/* the peer's, IP bytes */
	struct ipoib_tx_buf	*ring;
	struct ipoib_txq	txq;
	struct sk_buff_head	waiting;	/* priv->lock */
	unsigned long		retry_at;
	unsigned long		last_tx;
	struct rcu_head		rcu;
};

struct ipoib_cm_state {
	bool			supported;	/* SRQ: the RC flag is set */
	bool			connected;	/* the mode; rtnl */
	bool			running;	/* priv->lock; listening */
	bool			up;		/* op_mutex; CQ, SRQ exist */
	unsigned int		max_mtu;
	unsigned int		rx_pages;	/* per SRQ buffer */
	unsigned int		rx_size;
	struct ib_cq		*cq;
	struct napi_struct	napi;
	struct ib_srq		*srq;
	struct ipoib_cm_rx_slot	*rx_ring;
	struct ib_cm_id		*listen;

	struct list_head	ins;		/* priv->lock */
	unsigned int		n_in;		/* priv->lock */
	struct xarray		in_by_qp;	/* QP pointer -> link (RX stamp) */
	struct rw_semaphore	accepting;	/* REQ handlers at work */

	DECLARE_HASHTABLE(outs, 5);		/* priv->lock */
	unsigned int		n_out;		/* priv->lock */
	struct list_head	out_dead;	/* priv->lock */
	struct xarray		out_ids;
	u32			next_out_id;
	struct mutex		out_mutex;
	struct work_struct	out_work;
	struct delayed_work	reap_work;
};

#endif /* IPOIB_CM_H */
