/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sib: a software InfiniBand HCA on the Soft-RoCE engine. A sib device is
 * an rxe device (same verbs objects, queues, requester, responder and
 * completer) whose port has the InfiniBand link layer: LID-routed address
 * vectors, and real IB packets (LRH, optional GRH, BTH..., ICRC, VCRC)
 * carried in Ethernet frames of the local experimental ethertype over a
 * netdev that stands for the cable. The engine branches to the functions
 * below where the link layer matters; everything else is shared.
 */
#ifndef SIB_H
#define SIB_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_smi.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct rxe_dev;
struct rxe_pkt_info;
struct rxe_cqe;

/* IEEE 802 "Local Experimental EtherType 1": one IB packet per frame */
#define ETH_P_SIB		0x88B5

#define SIB_LRH_BYTES		8
#define SIB_VCRC_SIZE		2
#define SIB_LNH_LOCAL		2	/* BTH follows the LRH */
#define SIB_LNH_GLOBAL		3	/* GRH follows the LRH */

#define SIB_LID_PERMISSIVE	0xffff
#define SIB_LID_MCAST_FIRST	0xc000
#define SIB_LID_UCAST_LAST	0xbfff

/* One P_KeyTable block; entry 0 is the default partition. */
#define SIB_PKEY_TBL_LEN	32
#define SIB_GID_TBL_LEN		1
#define SIB_DEFAULT_PKEY	0xffff
#define SIB_NODE_DESC		"sib"

/*
 * Kernel-only rxe_av.network_type of an IB address vector (RoCE ones are
 * 1, 2 and RXE_NETWORK_TYPE_ROCE_V1). Only kernel-owned AVs (QP paths,
 * AHs) can be of this type: a user AV in a WQE never is.
 */
#define RXE_NETWORK_TYPE_IB	4

/*
 * The LRH side of an IB address vector. An IB AV has no IP destination,
 * so these live in the AV's dgid_addr; the GRH, when there is one, stays
 * in av->grh and its source GID in sgid_addr (as for RoCE v1).
 */
struct sib_av_lrh {
	__be16 dlid;
	u8 sl;
	u8 src_path_bits;
	u8 static_rate;
	bool global;		/* a GRH goes in front of the BTH */
};

static_assert(sizeof(struct sib_av_lrh) <=
	      sizeof_field(struct rxe_av, dgid_addr));

static inline struct sib_av_lrh *sib_av_lrh(struct rxe_av *av)
{
	return (struct sib_av_lrh *)&av->dgid_addr;
}

/* NodeInfo DeviceID of a sib (also its vendor_part_id); VendorID is rxe's */
#define SIB_DEVICE_ID		0x0001

/* PortInfo capabilities of the port (IB-FABRIC 2.6) */
#define SIB_WIDTH_SUPPORTED	(1 | 2)		/* 1X, 4X */
#define SIB_SPEED_SUPPORTED	1		/* SDR */
#define SIB_VL_CAP		1		/* VL0 only */
#define SIB_VLARB_CAP		8		/* entries, high, low */
#define SIB_VLARB_BLOCKS	4		/* low/high x 0-31/32-63 */
#define SIB_GUID_CAP		1

/*
 * What the SMA keeps of PortInfo and the SMA tables besides what is in
 * rxe->port.attr (LID, SM LID/SL, LMC, state, active MTU, capability mask,
 * P_Key/Q_Key violations). Guarded by sma_lock; gid_prefix is also read by
 * the GID query (READ_ONCE).
 */
struct sib_sma {
	struct mutex lock;		/* one SMP or PMA MAD at a time */
	u64 mkey;
	u64 gid_prefix;
	u16 mkey_lease_period;		/* seconds, 0 = no lease */
	bool lease_running;
	unsigned long lease_end;	/* jiffies, when lease_running */
	u8 mkey_prot;			/* protect bits 0..3 */
	u16 mkey_violations;
	u8 width_enabled;
	u8 speed_enabled;
	u8 link_down_default;
	u8 op_vls;
	u8 vl_high_limit;
	u8 subnet_timeout;		/* query_port reads it unlocked */
	u8 init_type_reply;		/* as the SM set it, 4 bits */
	u8 phy_err_threshold;
	u8 overrun_threshold;
	enum ib_mtu mtu_cap;		/* what the netdev's MTU carries */
	u8 sl2vl[8];
	u8 vlarb[SIB_VLARB_BLOCKS][IB_SMP_DATA_SIZE];
};

/*
 * Port counters behind the PMA (sib_pma.c): monotonic, never reset; the
 * PMA subtracts what it saw at its last clear, and saturates: a source
 * that saturated itself would read 0 for ever after a clear.
 */
struct sib_counters {
	atomic64_t xmit_words;		/* LRH..ICRC, in 4-byte words */
	atomic64_t rcv_words;
	atomic64_t xmit_pkts;
	atomic64_t rcv_pkts;
	atomic64_t xmit_mcast_pkts;
	atomic64_t rcv_mcast_pkts;
	atomic64_t xmit_discards;	/* not sent: port state */
	atomic64_t link_downed;		/* cable lost */
	atomic64_t pkey_viol;		/* packets dropped for their P_Key */
	atomic64_t vl15_dropped;	/* SMPs with no QP0 receive buffer */
};

/* The counters the PMA reports, each with its zero point (sib_pma.c). */
enum sib_pma_ctr {
	SIB_PMA_LINK_DOWNED,
	SIB_PMA_RCV_ERR,
	SIB_PMA_XMIT_DISCARDS,
	SIB_PMA_RCV_CONSTRAINT,
	SIB_PMA_VL15_DROPPED,
	SIB_PMA_XMIT_DATA,
	SIB_PMA_RCV_DATA,
	SIB_PMA_XMIT_PKTS,
	SIB_PMA_RCV_PKTS,
	SIB_PMA_XMIT_UCAST,
	SIB_PMA_RCV_UCAST,
	SIB_PMA_XMIT_MCAST,
	SIB_PMA_RCV_MCAST,
	SIB_PMA_NUM_CTRS
};

/* What an rxe_dev has beyond the engine's state when it is a sib. */
struct sib_port {
	struct rxe_dev *rxe;
	/* entry 0 = 0xffff until the SM sets the table (P_KeyTable Set) */
	u16 pkeys[SIB_PKEY_TBL_LEN];
	struct sib_sma sma;
	struct sib_counters ctr;
	/* counter values at the PMA's last clear: PortCounters, Extended */
	u64 pma_base[SIB_PMA_NUM_CTRS];
	u64 pma_ext_base[SIB_PMA_NUM_CTRS];
	/*
	 * MAC of the port at the other end of the cable, learned from its
	 * frames (0 until then: frames go to the broadcast address).
	 */
	atomic64_t peer_mac;
	struct packet_type pt;	/* ETH_P_SIB receive on the netdev */
};

/* sib_link.c: the "sib" rdma_link type and the port */
int sib_link_init(void);
void sib_link_exit(void);
int sib_dev_init(struct rxe_dev *rxe);
void sib_dev_free(struct rxe_dev *rxe);
void sib_set_ops(struct rxe_dev *rxe);
void sib_set_port_state(struct rxe_dev *rxe);
int sib_port_set_state(struct rxe_dev *rxe, enum ib_port_state state);
void sib_port_set_lid(struct rxe_dev *rxe, u16 lid, bool sm);
void sib_port_event(struct rxe_dev *rxe, enum ib_event_type type);
bool sib_cable_up(struct rxe_dev *rxe);
u8 sib_phys_state(struct rxe_dev *rxe);
void sib_set_mtu(struct rxe_dev *rxe, unsigned int ndev_mtu);
u16 sib_pkey(struct rxe_dev *rxe, u16 index);
bool sib_pkey_ok(struct rxe_dev *rxe, u16 pkey);
bool sib_qp_pkey_ok(struct rxe_dev *rxe, u16 index, u16 pkey);

/* sib_av.c: LID-routed address vectors */
int sib_chk_ah_attr(struct rxe_dev *rxe, struct rdma_ah_attr *attr);
void sib_av_from_attr(struct rxe_av *av, struct rdma_ah_attr *attr);
void sib_av_to_attr(struct rxe_av *av, struct rdma_ah_attr *attr);

/* sib_xmit.c: LRH/GRH, CRCs and the Ethernet frame around them */
unsigned int sib_headroom(struct rxe_av *av);
int sib_prepare(struct rxe_av *av, struct rxe_pkt_info *pkt,
		struct sk_buff *skb);
int sib_send(struct sk_buff *skb, struct rxe_pkt_info *pkt);

/* sib_recv.c: the ETH_P_SIB receive hook and what receivers ask of LRH */
void sib_rx_start(struct rxe_dev *rxe);
void sib_rx_stop(struct rxe_dev *rxe);
const struct ib_grh *sib_rx_grh(struct sk_buff *skb);
int sib_chk_dgid(struct rxe_dev *rxe, struct sk_buff *skb);
void sib_rx_wc(struct sk_buff *skb, struct rxe_cqe *cqe, bool user);
void sib_rx_net_hdr(struct sk_buff *skb, u8 *hdr);

/* sib_crc.c: IB ICRC (LRH variant fields masked) and VCRC */
int sib_icrc_calc(struct sk_buff *skb, struct rxe_pkt_info *pkt, u32 *icrc);
u16 sib_vcrc(const u8 *buf, unsigned int len);
void sib_crc_init(void);

/* sib_sma.c: the device's process_mad (SMA; PMA classes go to sib_pma.c) */
int sib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index);
void sib_sma_init(struct rxe_dev *rxe);
/* sib_sma_port.c: PortInfo and the port state the SM drives */
__be16 sib_sma_get_portinfo(struct rxe_dev *rxe, u8 *data, bool hide_mkey);
__be16 sib_sma_set_portinfo(struct rxe_dev *rxe, const u8 *data);
u8 sib_active_width(struct rxe_dev *rxe);

/* sib_pma.c: PerfMgt (class 0x04) and the counters it reports */
int sib_pma_mad(struct rxe_dev *rxe, u32 port_num, const struct ib_mad *in,
		struct ib_mad *out);
void sib_pma_count_tx(struct rxe_dev *rxe, const u8 *lrh);
void sib_pma_count_rx(struct rxe_dev *rxe, const u8 *lrh);

#endif /* SIB_H */
