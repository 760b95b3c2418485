/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe network side: RoCE v2 packets in and out of UDP port 4791,
 * RoCE v1 frames (ethertype 0x8915), the ICRC, and the per-device packet
 * counters.
 */
#ifndef RXE_NET_H
#define RXE_NET_H

#include <linux/atomic.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>
#include "rxe_hdr.h"

struct rxe_dev;
struct rxe_qp;

/*
 * Port counters. One list gives both the indices and the names that
 * `rdma statistic` and ports/1/hw_counters/ show (rxe_hw_counters.c), so
 * the two cannot drift apart. The stock driver's fifteen come first, in
 * its order; ours follow (RoCE v1 packets, also counted in the totals).
 */
#define RXE_COUNTER_LIST(C)						\
	C(SENT_PKTS, "sent_pkts") C(RCVD_PKTS, "rcvd_pkts")		\
	C(DUP_REQ, "duplicate_request")					\
	C(OUT_OF_SEQ_REQ, "out_of_seq_request")				\
	C(RCV_RNR_ERR, "rcvd_rnr_err") C(SND_RNR, "send_rnr_err")	\
	C(RCV_SEQ_ERR, "rcvd_seq_err")					\
	C(COMPLETER_SCHED, "ack_deferred")				\
	C(RETRY_EXCEEDED, "retry_exceeded_err")				\
	C(RNR_RETRY_EXCEEDED, "retry_rnr_exceeded_err")			\
	C(COMP_RETRY, "completer_retry_err") C(SEND_ERR, "send_err")	\
	C(LINK_DOWNED, "link_downed")					\
	C(RDMA_SEND, "rdma_sends") C(RDMA_RECV, "rdma_recvs")		\
	C(SENT_PKTS_V1, "sent_pkts_roce_v1")				\
	C(RCVD_PKTS_V1, "rcvd_pkts_roce_v1")

#define RXE_COUNTER_INDEX(id, name) RXE_CNT_##id,
enum rxe_counters {
	RXE_COUNTER_LIST(RXE_COUNTER_INDEX)
	RXE_NUM_OF_COUNTERS
};
#undef RXE_COUNTER_INDEX

/*
 * struct rxe_dev is complete only after this header (rxe.h), so this is a
 * macro; it needs `atomic64_t stats_counters[RXE_NUM_OF_COUNTERS]`.
 */
#define rxe_counter_inc(rxe, index)					\
	atomic64_inc(&(rxe)->stats_counters[(enum rxe_counters)(index)])

/*
 * Why rxe_rcv() (or the UDP receive hook) dropped a packet, counted in
 * rxe_dev.rx_drops and shown, in this order, by the rx_drops device
 * attribute. P_Key and Q_Key violations are not here: they go to the
 * port's bad_pkey_cntr / qkey_viol_cntr as IBA asks.
 */
enum rxe_rx_drop {
	RXE_DROP_LENGTH,	/* UDP/IBA lengths, headers or pad do not fit */
	RXE_DROP_OPCODE,	/* opcode unknown to rxe */
	RXE_DROP_TVER,		/* BTH transport header version not 0 */
	RXE_DROP_DGID,		/* destination address not one of our GIDs */
	RXE_DROP_QPN,		/* QP 0, multicast or no such QP */
	RXE_DROP_QP_TYPE,	/* opcode's transport is not the QP's type */
	RXE_DROP_QP_STATE,	/* QP state does not accept this packet */
	RXE_DROP_ICRC,		/* invariant CRC mismatch */
	RXE_DROP_GRH,		/* RoCE v1 GRH: IPVer not 6 or NxtHdr not BTH */
	RXE_DROP_QUEUE_FULL,	/* the QP's task is RXE_MAX_QUEUED_PKTS behind */
	/* sib (InfiniBand link layer) only */
	RXE_DROP_LRH,		/* LVer not 0, a raw packet (LNH 0/1), or a
				 * VL other than 0 and 15 */
	RXE_DROP_VCRC,		/* variant CRC mismatch */
	RXE_DROP_DLID,		/* DLID not ours, a misused permissive LID,
				 * or a multicast SLID */
	RXE_DROP_PORT_STATE,	/* data packet to a port not ARMED/ACTIVE */
	RXE_DROP_VL15,		/* QP0 packet not a 256-byte MAD on VL15,
				 * QP1 packet not a 256-byte MAD or on
				 * VL15, or a VL15 packet to another QP */
	RXE_NUM_RX_DROPS
};

/*
 * Packets a QP's responder or completer may have waiting. A task that falls
 * behind (a slow kernel; read responses regenerated for each retry of the
 * request) would otherwise queue without bound; past this the packet is
 * dropped as by a full receive ring and the sender's retry recovers it.
 */
#define RXE_MAX_QUEUED_PKTS	4096

#define rxe_rx_drop_inc(rxe, reason)					\
	atomic64_inc(&(rxe)->rx_drops[(enum rxe_rx_drop)(reason)])

/*
 * rxe_av.network_type of a RoCE v1 address vector. Kernel-internal: the
 * uapi values are 1 (IPv4) and 2 (IPv6), and an AV written by userspace
 * into a WQE is never taken with this type.
 */
#define RXE_NETWORK_TYPE_ROCE_V1	3

/* rxe_icrc.c */
int rxe_icrc_check(struct sk_buff *skb, struct rxe_pkt_info *pkt);
void rxe_icrc_generate(struct sk_buff *skb, struct rxe_pkt_info *pkt);
void rxe_icrc_mask_grh(u8 *hdr);
#ifdef DEBUG
int rxe_icrc_selftest(void);
#endif

/*
 * rxe_net.c, transmit. The caller keeps @pkt in its own storage (not
 * skb->cb, which the IP layer reuses):
 *  skb = rxe_init_packet(rxe, av, paylen, &pkt);   paylen: BTH..ICRC
 *  pkt.opcode = ...; pkt.qp = qp; pkt.psn = ...; fill the headers;
 *  rxe_prepare(av, &pkt, skb);   IP/UDP headers + ICRC, may set LOOPBACK
 *  rxe_xmit_packet(qp, &pkt, skb);   consumes the skb in every case
 */
struct sk_buff *rxe_init_packet(struct rxe_dev *rxe, struct rxe_av *av,
				int paylen, struct rxe_pkt_info *pkt);
int rxe_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		struct sk_buff *skb);
int rxe_xmit_packet(struct rxe_qp *qp, struct rxe_pkt_info *pkt,
		    struct sk_buff *skb);

/*
 * Transmit throttle: rxe_xmit_packet() counts each skb of a QP in
 * qp->skb_out until the skb is freed. The requester and the read-reply
 * path of the responder stop above HIGH (rxe_xmit_throttled() sets their
 * need_*_skb flag); the skb destructor reschedules them once the count
 * falls below LOW. Without it a 4 MiB read reply floods the loopback
 * queue or the qdisc, packets drop and the read is retried for ever.
 */
#define RXE_INFLIGHT_SKBS_PER_QP_HIGH	64
#define RXE_INFLIGHT_SKBS_PER_QP_LOW	16
bool rxe_xmit_throttled(struct rxe_qp *qp, int *need_skb);

/*
 * rxe_net.c: the device on @ndev (or on the VLAN's real device) with a
 * reference (ib_device_put), and the local device that owns @gid as a
 * RoCE v1 GID (@self first), referenced. Any context.
 */
struct rxe_dev *rxe_net_get_dev(struct net_device *ndev);
struct rxe_dev *rxe_net_v1_gid_owner(const union ib_gid *gid,
				     struct rxe_dev *self);
/* Queues @skb (data at the BTH) for receive on @target; takes its ref. */
int rxe_loop_deliver(struct sk_buff *skb, struct rxe_pkt_info *pkt,
		     struct rxe_dev *target);

/* rxe_roce_v1.c: Ethernet + GRH framing, and the 0x8915 receive hook */
int rxe_prepare_v1(struct rxe_av *av, struct rxe_pkt_info *pkt,
		   struct sk_buff *skb);
int rxe_send_v1(struct sk_buff *skb, struct rxe_pkt_info *pkt);
void rxe_v1_pt_init(struct packet_type *pt, struct net_device *ndev);
/* the GRH of a RoCE v1 frame or a global IB packet (sib) */
void rxe_push_grh(struct rxe_av *av, struct sk_buff *skb, u8 hop_limit);
bool rxe_grh_ok(const struct ib_grh *grh);

/* rxe_recv.c: one received RoCE packet, SKB_TO_PKT(skb) filled in */
void rxe_rcv(struct sk_buff *skb);
/* sysfs text of the rx_drops counters: "reason count" lines */
ssize_t rxe_rx_drops_show(struct rxe_dev *rxe, char *buf);

#endif /* RXE_NET_H */
