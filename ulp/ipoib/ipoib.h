/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_ipoib: IP over InfiniBand (RFC 4391/4392), datagram mode; connected
 * mode (RFC 4755) lives in ipoib_cm*.c (see ipoib_cm.h).
 *
 * One net_device per InfiniBand port ("ibN") plus P_Key children. Each
 * interface owns a UD QP and one CQ serving both its queues (polled by a
 * NAPI context). Unicast destinations are reached through a per-GID path
 * cache filled from SA PathRecords; multicast through groups joined with
 * the SA (the broadcast group first: it gives the Q_Key and the MTU).
 *
 * Locking: rtnl, then priv->op_mutex (bring-up/down of the IB side).
 * priv->lock (a BH spinlock) guards the path table, the group list and
 * every state field the transmit path reads. All slow work runs on the
 * interface's ordered workqueue, never under the op_mutex's holders'
 * feet: the works take no rtnl (the MTU work only tries it).
 */
#ifndef IPOIB_H
#define IPOIB_H

#include <linux/if_infiniband.h>
#include <linux/hashtable.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_sa.h>

/*
 * The indexes of one send ring, the UD one or an outbound RC link's: head
 * moves on xmit (netdev TX lock), tail on completions. A ring that fills
 * up stops the netdev queue and counts in priv->tx_full until it drained
 * to half (or went): the queue wakes when no ring is full.
 */
struct ipoib_txq {
	unsigned int	head;
	unsigned int	tail;
	bool		full;		/* priv->tx_lock */
};

/* What a send holds until it completes, on either kind of ring. */
struct ipoib_tx_buf {
	struct sk_buff	*skb;
	u64		dma;
};

#include "ipoib_cm.h"

#define IPOIB_DRV_NAME		"ib_ipoib"

/* On the wire in front of every IP/ARP packet (RFC 4391 section 6). */
struct ipoib_wire_hdr {
	__be16	proto;
	__be16	reserved;
};

#define IPOIB_WIRE_LEN		sizeof(struct ipoib_wire_hdr)
/*
 * The link header is 24 bytes: a 20-byte hardware address, then the wire
 * header. Our header_ops push the destination's address; xmit reads and
 * strips it (a pushed header survives qdiscs and requeueing, skb->cb
 * would not). A received packet gets the sender's address there.
 */
#define IPOIB_DEST_LEN		INFINIBAND_ALEN
#define IPOIB_HARD_LEN		(IPOIB_DEST_LEN + IPOIB_WIRE_LEN)
#define IPOIB_GRH_LEN		40
#define IPOIB_MC_QPN		0xffffff
/* Packets held while a path or a send-only group is being resolved. */
#define IPOIB_MAX_WAITING	8
#define IPOIB_PATH_TIMEOUT_MS	2000
#define IPOIB_PATH_RETRY	HZ
#define IPOIB_JOIN_BACKOFF_MAX	(16 * HZ)

/* wr_id: the ring slot, and this bit for sends. */
#define IPOIB_WRID_TX		BIT_ULL(32)

extern struct ib_sa_client ipoib_sa_client;
extern int ipoib_sendq_size;
extern int ipoib_recvq_size;
extern int ipoib_debug_level;
extern int ipoib_mc_debug_level;

/*
 * Debug messages: through dynamic debug, or every one of them when the
 * debug_level (multicast: mcast_debug_level) parameter is above 0.
 */
#define ipoib_dbg_level(level, priv, fmt, ...)				\
do {									\
	if (READ_ONCE(level) > 0)					\
		netdev_info((priv)->dev, fmt, ##__VA_ARGS__);		\
	else								\
		netdev_dbg((priv)->dev, fmt, ##__VA_ARGS__);		\
} while (0)
#define ipoib_dbg(priv, fmt, ...)					\
	ipoib_dbg_level(ipoib_debug_level, priv, fmt, ##__VA_ARGS__)
#define ipoib_mc_dbg(priv, fmt, ...)					\
	ipoib_dbg_level(ipoib_mc_debug_level, priv, fmt, ##__VA_ARGS__)
extern const struct attribute_group ipoib_parent_attrs;
extern const struct attribute_group ipoib_child_attrs;
extern struct rtnl_link_ops ipoib_link_ops;

struct ipoib_priv;

/* An address handle shared by a path or group and the sends using it. */
struct ipoib_ah {
	struct ib_ah	*ah;
	struct kref	ref;
};

struct ipoib_rx_slot {
	struct sk_buff	*skb;
	u64		dma;
};

struct ipoib_tx_slot {
	struct ipoib_tx_buf	buf;
	struct ipoib_ah		*ah;
};

enum ipoib_flush_bits {
	IPOIB_FLUSH_LIGHT	= BIT(0),	/* rejoin the groups */
	IPOIB_FLUSH_NORMAL	= BIT(1),	/* ... and forget the paths */
	IPOIB_FLUSH_HEAVY	= BIT(2),	/* ... and restart the QP */
};

struct ipoib_group;

struct ipoib_priv {
	struct net_device	*dev;
	struct ib_device	*ca;
	u32			port;
	u16			pkey;		/* full-member bit set */
	u16			pkey_index;
	union ib_gid		gid;		/* GID index 0 of the port */
	u16			lid;		/* ours, to drop our own multicast */

	/* P_Key children: parent pointer, or the list of our children. */
	struct ipoib_priv	*parent;
	struct list_head	children;	/* rtnl */
	struct list_head	child_entry;
	bool			legacy;		/* made through create_child */

	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	u32			qkey;
	struct ib_event_handler	events;

	struct napi_struct	napi;
	unsigned int		rx_size;
	unsigned int		tx_size;
	unsigned int		rx_buf_len;	/* GRH + IB MTU */
	struct ipoib_rx_slot	*rx_ring;
	struct ipoib_tx_slot	*tx_ring;
	struct ipoib_txq	txq;

	/* The queue's stop and wake over every send ring (BH lock). */
	spinlock_t		tx_lock;
	unsigned int		tx_full;	/* rings full */
	bool			tx_open;	/* xmit may send */

	struct mutex		op_mutex;
	bool			admin_up;	/* op_mutex */
	bool			ib_up;		/* op_mutex; QP in RTS */

	spinlock_t		lock;
	bool			mc_stopped;	/* lock */
	struct list_head	groups;		/* lock */
	struct ipoib_group	*bcast;		/* lock */
	DECLARE_HASHTABLE(paths, 6);		/* lock */
	unsigned long		umcast;		/* bit 0 */

	/* SA path queries in flight, plus one while the interface lives. */
	atomic_t		queries;
	struct completion	queries_done;

	struct workqueue_struct	*wq;
	struct delayed_work	mc_work;
	struct work_struct	path_work;
	struct work_struct	flush_work;
	struct delayed_work	mtu_work;
	unsigned long		flush_pending;	/* enum ipoib_flush_bits */

	unsigned int		max_ud_mtu;	/* IB MTU of the port - 4 */
	unsigned int		mcast_mtu;	/* broadcast group MTU - 4 */
	unsigned int		admin_mtu;	/* what the user asked */
	bool			group_mtu_set;	/* rtnl: the MTU work's call */

	struct ipoib_cm_state	cm;		/* connected mode */
};

static inline struct ipoib_priv *ipoib_priv(const struct net_device *dev)
{
	return netdev_priv(dev);
}

static inline unsigned int ipoib_txq_used(const struct ipoib_txq *q)
{
	return READ_ONCE(q->head) - READ_ONCE(q->tail);
}

/* ipoib_main.c */
void ipoib_netdev_setup(struct net_device *dev);
int ipoib_priv_prepare(struct ipoib_priv *priv, struct ib_device *ca,
		       u32 port, u16 pkey, struct ipoib_priv *parent);
bool ipoib_is_ipoib_dev(const struct net_device *dev);

/* ipoib_verbs.c: PD, CQ, QP */
int ipoib_verbs_create(struct ipoib_priv *priv);
void ipoib_verbs_destroy(struct ipoib_priv *priv);
int ipoib_qp_start(struct ipoib_priv *priv);
int ipoib_qp_to_error(struct ipoib_priv *priv);
int ipoib_qp_reset(struct ipoib_priv *priv);
int ipoib_qp_set_qkey(struct ipoib_priv *priv, u32 qkey);
struct ipoib_ah *ipoib_ah_create(struct ipoib_priv *priv,
				 struct rdma_ah_attr *attr);
void ipoib_ah_put(struct ipoib_ah *ah);

static inline void ipoib_ah_get(struct ipoib_ah *ah)
{
	kref_get(&ah->ref);
}

/* ipoib_ib.c: the UD data path */
int ipoib_rings_alloc(struct ipoib_priv *priv);
void ipoib_rings_free(struct ipoib_priv *priv);
int ipoib_rx_fill(struct ipoib_priv *priv);
void ipoib_rings_reclaim(struct ipoib_priv *priv);
void ipoib_cq_drain(struct ipoib_priv *priv);
void ipoib_ud_send(struct ipoib_priv *priv, struct sk_buff *skb,
		   struct ipoib_ah *ah, u32 dqpn);
bool ipoib_tx_post(struct ipoib_priv *priv, struct ipoib_txq *q,
		   struct ib_qp *qp, struct ib_send_wr *wr,
		   struct ipoib_tx_buf *buf, struct sk_buff *skb,
		   unsigned int max_len);
void ipoib_tx_buf_free(struct ipoib_priv *priv, struct ipoib_tx_buf *buf,
		       bool sent);
void ipoib_txq_done(struct ipoib_priv *priv, struct ipoib_txq *q);
void ipoib_txq_forget(struct ipoib_priv *priv, struct ipoib_txq *q);
void ipoib_tx_open(struct ipoib_priv *priv);
void ipoib_tx_close(struct ipoib_priv *priv);
void ipoib_rx_up(struct ipoib_priv *priv, struct napi_struct *napi,
		 struct sk_buff *skb, const u8 *src);
int ipoib_poll(struct napi_struct *napi, int budget);
void ipoib_cq_event(struct ib_cq *cq, void *ctx);
void ipoib_tx_wait_idle(struct ipoib_priv *priv, unsigned int ms);

/* ipoib_path.c: unicast */
netdev_tx_t ipoib_path_xmit(struct ipoib_priv *priv, struct sk_buff *skb,
			    const union ib_gid *dgid, u32 dqpn);
void ipoib_path_work(struct work_struct *work);
void ipoib_path_flush(struct ipoib_priv *priv);
void ipoib_queries_wait(struct ipoib_priv *priv);

/* ipoib_mcast.c: groups */
netdev_tx_t ipoib_mc_xmit(struct ipoib_priv *priv, struct sk_buff *skb,
			  const union ib_gid *mgid);
void ipoib_mc_work(struct work_struct *work);
void ipoib_mc_start(struct ipoib_priv *priv);
void ipoib_mc_stop(struct ipoib_priv *priv);
void ipoib_mc_kick(struct ipoib_priv *priv);
bool ipoib_is_bcast_mgid(struct ipoib_priv *priv, const u8 *mgid);

/* ipoib_flush.c: bring-up, bring-down, port events */
int ipoib_ib_up(struct ipoib_priv *priv);
void ipoib_ib_down(struct ipoib_priv *priv);
void ipoib_event(struct ib_event_handler *handler, struct ib_event *event);
void ipoib_flush_work(struct work_struct *work);
void ipoib_mtu_work(struct work_struct *work);

/* ipoib_lookup.c: the interface an incoming rdma_cm request is for */
extern struct rw_semaphore ipoib_children_rwsem;
struct net_device *ipoib_get_net_dev_by_params(struct ib_device *ca, u32 port,
					       u16 pkey,
					       const union ib_gid *gid,
					       const struct sockaddr *addr,
					       void *client_data);

/* ipoib_child.c: P_Key children */
int ipoib_child_link(struct ipoib_priv *priv);
void ipoib_child_unlink(struct ipoib_priv *priv);
int ipoib_legacy_child_add(struct ipoib_priv *ppriv, u16 pkey);
int ipoib_legacy_child_del(struct ipoib_priv *ppriv, u16 pkey);

/* ipoib_cm.c: connected mode, its state, mode and MTU */
bool ipoib_cm_capable(const struct ib_device *ca);
void ipoib_cm_init(struct ipoib_priv *priv);
void ipoib_cm_cleanup(struct ipoib_priv *priv);
int ipoib_cm_up(struct ipoib_priv *priv);
void ipoib_cm_down(struct ipoib_priv *priv);
int ipoib_cm_set_mode(struct ipoib_priv *priv, bool connected);
int ipoib_cm_change_mtu(struct ipoib_priv *priv, int new_mtu);
int ipoib_cm_qp_step(struct ib_cm_id *cm_id, struct ib_qp *qp,
		     enum ib_qp_state state);
int ipoib_cm_poll(struct napi_struct *napi, int budget);
void ipoib_cm_cq_event(struct ib_cq *cq, void *ctx);
void ipoib_cm_reap_work(struct work_struct *work);

/* Unicast to @skb's destination goes over RC (skb->data at its address). */
static inline bool ipoib_cm_wanted(struct ipoib_priv *priv,
				   const struct sk_buff *skb)
{
	return READ_ONCE(priv->cm.connected) && READ_ONCE(priv->cm.running) &&
	       (skb->data[0] & IPOIB_HWADDR_RC);
}

/* ipoib_cm_rx.c: the SRQ, the listener, inbound links */
int ipoib_cm_rx_start(struct ipoib_priv *priv);
void ipoib_cm_rx_stop(struct ipoib_priv *priv);
void ipoib_cm_srq_free(struct ipoib_priv *priv);
void ipoib_cm_rx_done(struct ipoib_priv *priv, const struct ib_wc *wc);
void ipoib_cm_in_reap(struct ipoib_priv *priv);

/* ipoib_cm_tx.c: outbound links */
struct ipoib_cm_out *ipoib_cm_pick(struct ipoib_priv *priv,
				   struct sk_buff *skb,
				   const struct sa_path_rec *path, u32 dqpn);
void ipoib_cm_send(struct ipoib_priv *priv, struct ipoib_cm_out *out,
		   struct sk_buff *skb);
bool ipoib_cm_ud_too_big(struct ipoib_priv *priv, struct sk_buff *skb);
struct ib_qp *ipoib_cm_create_qp(struct ipoib_priv *priv, u32 max_send_wr,
				 void *ctx);
void ipoib_cm_out_flush(struct ipoib_priv *priv);
void ipoib_cm_neigh_gone(struct net_device *dev, struct neighbour *n);
void ipoib_cm_out_work(struct work_struct *work);
void ipoib_cm_tx_done(struct ipoib_priv *priv, const struct ib_wc *wc);
void ipoib_cm_out_reap(struct ipoib_priv *priv);

#endif /* IPOIB_H */
