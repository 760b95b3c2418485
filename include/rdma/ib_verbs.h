/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * In-kernel RDMA verbs API of rdma-kmod: device model, ports, GIDs, events
 * and clients. Names and semantics follow upstream Linux 6.1 so that code
 * written for upstream builds against this header.
 *
 * and the object verbs (PD, CQ, QP, SRQ, AH, MR, MW).
 */
#ifndef RDMA_KMOD_IB_VERBS_H
#define RDMA_KMOD_IB_VERBS_H

#include <linux/types.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/mmu_notifier.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/netdevice.h>
#include <linux/if_link.h>
#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/ethtool.h>
#include <linux/irq_poll.h>
#include <linux/scatterlist.h>
#include <linux/dma-mapping.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/slab.h>
#include <rdma/restrack.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/ib_user_ioctl_verbs.h>
#include <uapi/rdma/rdma_netlink.h>

#define IB_DEVICE_NAME_MAX	64
#define IB_DEVICE_NODE_DESC_MAX	64
/* Buffer size for ib_get_device_fw_str(). */
#define IB_FW_VERSION_NAME_MAX	ETHTOOL_FWVERS_LEN

struct ib_device;
struct ib_port;
struct ib_client;
struct rdma_link_ops;
struct ib_client_nl_info;
struct rdma_restrack_root;
struct netlink_callback;
struct sk_buff;
struct iw_cm_id;
struct iw_cm_conn_param;

union ib_gid {
	u8 raw[16];
	struct {
		__be64 subnet_prefix;
		__be64 interface_id;
	} global;
};

extern union ib_gid zgid;

enum ib_gid_type {
	IB_GID_TYPE_IB = IB_UVERBS_GID_TYPE_IB,
	IB_GID_TYPE_ROCE = IB_UVERBS_GID_TYPE_ROCE_V1,
	IB_GID_TYPE_ROCE_UDP_ENCAP = IB_UVERBS_GID_TYPE_ROCE_V2,
	IB_GID_TYPE_SIZE
};

#define ROCE_V2_UDP_DPORT	4791

/*
 * One entry of a port's GID table. Readers hold a reference taken with
 * rdma_get_gid_attr() and drop it with rdma_put_gid_attr().
 */
struct ib_gid_attr {
	struct net_device __rcu	*ndev;
	struct ib_device	*device;
	union ib_gid		gid;
	enum ib_gid_type	gid_type;
	u16			index;
	u32			port_num;
};

/* RDMA_NODE_* (node types) come from <uapi/rdma/rdma_netlink.h>. */

enum rdma_transport_type {
	RDMA_TRANSPORT_IB,
	RDMA_TRANSPORT_IWARP,
	RDMA_TRANSPORT_USNIC,
	RDMA_TRANSPORT_USNIC_UDP,
	RDMA_TRANSPORT_UNSPECIFIED,
};

enum rdma_protocol_type {
	RDMA_PROTOCOL_IB,
	RDMA_PROTOCOL_IBOE,
	RDMA_PROTOCOL_IWARP,
	RDMA_PROTOCOL_USNIC_UDP
};

enum rdma_network_type {
	RDMA_NETWORK_IB,
	RDMA_NETWORK_ROCE_V1,
	RDMA_NETWORK_IPV4,
	RDMA_NETWORK_IPV6
};

enum rdma_link_layer {
	IB_LINK_LAYER_UNSPECIFIED,
	IB_LINK_LAYER_INFINIBAND,
	IB_LINK_LAYER_ETHERNET,
};

enum ib_device_cap_flags {
	IB_DEVICE_RESIZE_MAX_WR = IB_UVERBS_DEVICE_RESIZE_MAX_WR,
	IB_DEVICE_BAD_PKEY_CNTR = IB_UVERBS_DEVICE_BAD_PKEY_CNTR,
	IB_DEVICE_BAD_QKEY_CNTR = IB_UVERBS_DEVICE_BAD_QKEY_CNTR,
	IB_DEVICE_RAW_MULTI = IB_UVERBS_DEVICE_RAW_MULTI,
	IB_DEVICE_AUTO_PATH_MIG = IB_UVERBS_DEVICE_AUTO_PATH_MIG,
	IB_DEVICE_CHANGE_PHY_PORT = IB_UVERBS_DEVICE_CHANGE_PHY_PORT,
	IB_DEVICE_UD_AV_PORT_ENFORCE = IB_UVERBS_DEVICE_UD_AV_PORT_ENFORCE,
	IB_DEVICE_CURR_QP_STATE_MOD = IB_UVERBS_DEVICE_CURR_QP_STATE_MOD,
	IB_DEVICE_SHUTDOWN_PORT = IB_UVERBS_DEVICE_SHUTDOWN_PORT,
	IB_DEVICE_PORT_ACTIVE_EVENT = IB_UVERBS_DEVICE_PORT_ACTIVE_EVENT,
	IB_DEVICE_SYS_IMAGE_GUID = IB_UVERBS_DEVICE_SYS_IMAGE_GUID,
	IB_DEVICE_RC_RNR_NAK_GEN = IB_UVERBS_DEVICE_RC_RNR_NAK_GEN,
	IB_DEVICE_SRQ_RESIZE = IB_UVERBS_DEVICE_SRQ_RESIZE,
	IB_DEVICE_N_NOTIFY_CQ = IB_UVERBS_DEVICE_N_NOTIFY_CQ,
	IB_DEVICE_MEM_WINDOW = IB_UVERBS_DEVICE_MEM_WINDOW,
	IB_DEVICE_UD_IP_CSUM = IB_UVERBS_DEVICE_UD_IP_CSUM,
	IB_DEVICE_XRC = IB_UVERBS_DEVICE_XRC,
	IB_DEVICE_MEM_MGT_EXTENSIONS = IB_UVERBS_DEVICE_MEM_MGT_EXTENSIONS,
	IB_DEVICE_MEM_WINDOW_TYPE_2A = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2A,
	IB_DEVICE_MEM_WINDOW_TYPE_2B = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B,
	IB_DEVICE_RC_IP_CSUM = IB_UVERBS_DEVICE_RC_IP_CSUM,
	IB_DEVICE_RAW_IP_CSUM = IB_UVERBS_DEVICE_RAW_IP_CSUM,
	IB_DEVICE_MANAGED_FLOW_STEERING =
		IB_UVERBS_DEVICE_MANAGED_FLOW_STEERING,
	IB_DEVICE_RAW_SCATTER_FCS = IB_UVERBS_DEVICE_RAW_SCATTER_FCS,
	IB_DEVICE_PCI_WRITE_END_PADDING =
		IB_UVERBS_DEVICE_PCI_WRITE_END_PADDING,
};

/* Capabilities only kernel consumers see. */
enum ib_kernel_cap_flags {
	IBK_LOCAL_DMA_LKEY = 1 << 0,
	IBK_INTEGRITY_HANDOVER = 1 << 1,
	IBK_ON_DEMAND_PAGING = 1 << 2,
	IBK_SG_GAPS_REG = 1 << 3,
	IBK_ALLOW_USER_UNREG = 1 << 4,
	IBK_BLOCK_MULTICAST_LOOPBACK = 1 << 5,
	IBK_UD_TSO = 1 << 6,
	IBK_VIRTUAL_FUNCTION = 1 << 7,
	IBK_RDMA_NETDEV_OPA = 1 << 8,
};

enum ib_atomic_cap {
	IB_ATOMIC_NONE,
	IB_ATOMIC_HCA,
	IB_ATOMIC_GLOB
};

struct ib_odp_caps {
	u64 general_caps;
	struct {
		u32 rc_odp_caps;
		u32 uc_odp_caps;
		u32 ud_odp_caps;
		u32 xrc_odp_caps;
	} per_transport_caps;
};

struct ib_rss_caps {
	u32 supported_qpts;
	u32 max_rwq_indirection_tables;
	u32 max_rwq_indirection_table_size;
};

struct ib_tm_caps {
	u32 max_rndv_hdr_size;
	u32 max_num_tags;
	u32 flags;
	u32 max_ops;
	u32 max_sge;
};

struct ib_cq_caps {
	u16 max_cq_moderation_count;
	u16 max_cq_moderation_period;
};

struct ib_device_attr {
	u64			fw_ver;
	__be64			sys_image_guid;
	u64			max_mr_size;
	u64			page_size_cap;
	u32			vendor_id;
	u32			vendor_part_id;
	u32			hw_ver;
	int			max_qp;
	int			max_qp_wr;
	u64			device_cap_flags;
	u64			kernel_cap_flags;
	int			max_send_sge;
	int			max_recv_sge;
	int			max_sge_rd;
	int			max_cq;
	int			max_cqe;
	int			max_mr;
	int			max_pd;
	int			max_qp_rd_atom;
	int			max_ee_rd_atom;
	int			max_res_rd_atom;
	int			max_qp_init_rd_atom;
	int			max_ee_init_rd_atom;
	enum ib_atomic_cap	atomic_cap;
	enum ib_atomic_cap	masked_atomic_cap;
	int			max_ee;
	int			max_rdd;
	int			max_mw;
	int			max_raw_ipv6_qp;
	int			max_raw_ethy_qp;
	int			max_mcast_grp;
	int			max_mcast_qp_attach;
	int			max_total_mcast_qp_attach;
	int			max_ah;
	int			max_srq;
	int			max_srq_wr;
	int			max_srq_sge;
	unsigned int		max_fast_reg_page_list_len;
	unsigned int		max_pi_fast_reg_page_list_len;
	u16			max_pkeys;
	u8			local_ca_ack_delay;
	int			sig_prot_cap;
	int			sig_guard_cap;
	struct ib_odp_caps	odp_caps;
	u64			timestamp_mask;
	u64			hca_core_clock;	/* kHz */
	struct ib_rss_caps	rss_caps;
	u32			max_wq_type_rq;
	u32			raw_packet_caps;
	struct ib_tm_caps	tm_caps;
	struct ib_cq_caps	cq_caps;
	u64			max_dm_size;
	u32			max_sgl_rd;
};

enum ib_mtu {
	IB_MTU_256  = 1,
	IB_MTU_512  = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5
};

static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	return (mtu >= IB_MTU_256 && mtu <= IB_MTU_4096) ? 128 << mtu : -1;
}

static inline enum ib_mtu ib_mtu_int_to_enum(int mtu)
{
	if (mtu >= 4096)
		return IB_MTU_4096;
	if (mtu >= 2048)
		return IB_MTU_2048;
	if (mtu >= 1024)
		return IB_MTU_1024;
	if (mtu >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/* Static rate encoding of path records and address vectors (IBA 9.7.4). */
enum ib_rate {
	IB_RATE_PORT_CURRENT = 0,
	IB_RATE_2_5_GBPS = 2,
	IB_RATE_5_GBPS   = 5,
	IB_RATE_10_GBPS  = 3,
	IB_RATE_20_GBPS  = 6,
	IB_RATE_30_GBPS  = 4,
	IB_RATE_40_GBPS  = 7,
	IB_RATE_60_GBPS  = 8,
	IB_RATE_80_GBPS  = 9,
	IB_RATE_120_GBPS = 10,
	IB_RATE_14_GBPS  = 11,
	IB_RATE_56_GBPS  = 12,
	IB_RATE_112_GBPS = 13,
	IB_RATE_168_GBPS = 14,
	IB_RATE_25_GBPS  = 15,
	IB_RATE_100_GBPS = 16,
	IB_RATE_200_GBPS = 17,
	IB_RATE_300_GBPS = 18,
	IB_RATE_28_GBPS  = 19,
	IB_RATE_50_GBPS  = 20,
	IB_RATE_400_GBPS = 21,
	IB_RATE_600_GBPS = 22,
};

enum ib_port_state {
	IB_PORT_NOP		= 0,
	IB_PORT_DOWN		= 1,
	IB_PORT_INIT		= 2,
	IB_PORT_ARMED		= 3,
	IB_PORT_ACTIVE		= 4,
	IB_PORT_ACTIVE_DEFER	= 5
};

enum ib_port_phys_state {
	IB_PORT_PHYS_STATE_SLEEP = 1,
	IB_PORT_PHYS_STATE_POLLING = 2,
	IB_PORT_PHYS_STATE_DISABLED = 3,
	IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING = 4,
	IB_PORT_PHYS_STATE_LINK_UP = 5,
	IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY = 6,
	IB_PORT_PHYS_STATE_PHY_TEST = 7,
};

enum ib_port_width {
	IB_WIDTH_1X	= 1,
	IB_WIDTH_2X	= 16,
	IB_WIDTH_4X	= 2,
	IB_WIDTH_8X	= 4,
	IB_WIDTH_12X	= 8
};

enum ib_port_speed {
	IB_SPEED_SDR	= 1,
	IB_SPEED_DDR	= 2,
	IB_SPEED_QDR	= 4,
	IB_SPEED_FDR10	= 8,
	IB_SPEED_FDR	= 16,
	IB_SPEED_EDR	= 32,
	IB_SPEED_HDR	= 64,
	IB_SPEED_NDR	= 128,
};

/* PortInfo CapabilityMask bits (IBA 14.2.5.6). */
enum ib_port_capability_mask_bits {
	IB_PORT_SM = 1 << 1,
	IB_PORT_NOTICE_SUP = 1 << 2,
	IB_PORT_TRAP_SUP = 1 << 3,
	IB_PORT_OPT_IPD_SUP = 1 << 4,
	IB_PORT_AUTO_MIGR_SUP = 1 << 5,
	IB_PORT_SL_MAP_SUP = 1 << 6,
	IB_PORT_MKEY_NVRAM = 1 << 7,
	IB_PORT_PKEY_NVRAM = 1 << 8,
	IB_PORT_LED_INFO_SUP = 1 << 9,
	IB_PORT_SM_DISABLED = 1 << 10,
	IB_PORT_SYS_IMAGE_GUID_SUP = 1 << 11,
	IB_PORT_PKEY_SW_EXT_PORT_TRAP_SUP = 1 << 12,
	IB_PORT_EXTENDED_SPEEDS_SUP = 1 << 14,
	IB_PORT_CAP_MASK2_SUP = 1 << 15,
	IB_PORT_CM_SUP = 1 << 16,
	IB_PORT_SNMP_TUNNEL_SUP = 1 << 17,
	IB_PORT_REINIT_SUP = 1 << 18,
	IB_PORT_DEVICE_MGMT_SUP = 1 << 19,
	IB_PORT_VENDOR_CLASS_SUP = 1 << 20,
	IB_PORT_DR_NOTICE_SUP = 1 << 21,
	IB_PORT_CAP_MASK_NOTICE_SUP = 1 << 22,
	IB_PORT_BOOT_MGMT_SUP = 1 << 23,
	IB_PORT_LINK_LATENCY_SUP = 1 << 24,
	IB_PORT_CLIENT_REG_SUP = 1 << 25,
	IB_PORT_OTHER_LOCAL_CHANGES_SUP = 1 << 26,
	IB_PORT_LINK_SPEED_WIDTH_TABLE_SUP = 1 << 27,
	IB_PORT_VENDOR_SPECIFIC_MADS_TABLE_SUP = 1 << 28,
	IB_PORT_MCAST_PKEY_TRAP_SUPPRESSION_SUP = 1 << 29,
	IB_PORT_MCAST_FDB_TOP_SUP = 1 << 30,
	IB_PORT_HIERARCHY_INFO_SUP = 1ULL << 31,
};

struct ib_port_attr {
	u64			subnet_prefix;
	enum ib_port_state	state;
	enum ib_mtu		max_mtu;
	enum ib_mtu		active_mtu;
	u32			phys_mtu;
	int			gid_tbl_len;
	unsigned int		ip_gids:1;
	u32			port_cap_flags;
	u32			max_msg_sz;
	u32			bad_pkey_cntr;
	u32			qkey_viol_cntr;
	u16			pkey_tbl_len;
	u32			sm_lid;
	u32			lid;
	u8			lmc;
	u8			max_vl_num;
	u8			sm_sl;
	u8			subnet_timeout;
	u8			init_type_reply;
	u8			active_width;
	u16			active_speed;
	u8			phys_state;
	u16			port_cap_flags2;
};

enum ib_device_modify_flags {
	IB_DEVICE_MODIFY_SYS_IMAGE_GUID	= 1 << 0,
	IB_DEVICE_MODIFY_NODE_DESC	= 1 << 1
};

struct ib_device_modify {
	u64	sys_image_guid;
	char	node_desc[IB_DEVICE_NODE_DESC_MAX];
};

enum ib_port_modify_flags {
	IB_PORT_SHUTDOWN		= 1,
	IB_PORT_INIT_TYPE		= (1 << 2),
	IB_PORT_RESET_QKEY_CNTR		= (1 << 3),
	IB_PORT_OPA_MASK_CHG		= (1 << 4)
};

struct ib_port_modify {
	u32	set_port_cap_mask;
	u32	clr_port_cap_mask;
	u8	init_type;
};

enum ib_event_type {
	IB_EVENT_CQ_ERR,
	IB_EVENT_QP_FATAL,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_COMM_EST,
	IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG,
	IB_EVENT_PATH_MIG_ERR,
	IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE,
	IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE,
	IB_EVENT_SM_CHANGE,
	IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED,
	IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER,
	IB_EVENT_GID_CHANGE,
	IB_EVENT_WQ_FATAL,
};

const char *__attribute_const__ ib_event_msg(enum ib_event_type event);

struct ib_cq;
struct ib_qp;
struct ib_srq;
struct ib_wq;

struct ib_event {
	struct ib_device	*device;
	union {
		struct ib_cq	*cq;
		struct ib_qp	*qp;
		struct ib_srq	*srq;
		struct ib_wq	*wq;
		u32		port_num;
	} element;
	enum ib_event_type	event;
};

struct ib_event_handler {
	struct ib_device *device;
	void (*handler)(struct ib_event_handler *, struct ib_event *);
	struct list_head list;
};

#define INIT_IB_EVENT_HANDLER(_ptr, _device, _handler)		\
	do {							\
		(_ptr)->device  = _device;			\
		(_ptr)->handler = _handler;			\
		INIT_LIST_HEAD(&(_ptr)->list);			\
	} while (0)

/* What a port can do, fixed for the device's lifetime (set by the driver). */
enum {
	RDMA_CORE_CAP_IB_MAD		= 0x00000001,
	RDMA_CORE_CAP_IB_SMI		= 0x00000002,
	RDMA_CORE_CAP_IB_CM		= 0x00000004,
	RDMA_CORE_CAP_IW_CM		= 0x00000008,
	RDMA_CORE_CAP_IB_SA		= 0x00000010,
	RDMA_CORE_CAP_OPA_MAD		= 0x00000020,
	RDMA_CORE_CAP_AF_IB		= 0x00001000,
	RDMA_CORE_CAP_ETH_AH		= 0x00002000,
	RDMA_CORE_CAP_OPA_AH		= 0x00004000,
	RDMA_CORE_CAP_IB_GRH_REQUIRED	= 0x00008000,
	RDMA_CORE_CAP_PROT_IB		= 0x00100000,
	RDMA_CORE_CAP_PROT_ROCE		= 0x00200000,
	RDMA_CORE_CAP_PROT_IWARP	= 0x00400000,
	RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP = 0x00800000,
	RDMA_CORE_CAP_PROT_RAW_PACKET	= 0x01000000,
	RDMA_CORE_CAP_PROT_USNIC	= 0x02000000,
};

#define RDMA_CORE_CAP_PROT_MASK	(RDMA_CORE_CAP_PROT_IB | \
				 RDMA_CORE_CAP_PROT_ROCE | \
				 RDMA_CORE_CAP_PROT_IWARP | \
				 RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
				 RDMA_CORE_CAP_PROT_RAW_PACKET | \
				 RDMA_CORE_CAP_PROT_USNIC)

#define RDMA_CORE_PORT_IBA_IB	(RDMA_CORE_CAP_PROT_IB | RDMA_CORE_CAP_IB_MAD | \
				 RDMA_CORE_CAP_IB_SMI | RDMA_CORE_CAP_IB_CM | \
				 RDMA_CORE_CAP_IB_SA | RDMA_CORE_CAP_AF_IB)
#define RDMA_CORE_PORT_IBA_ROCE	(RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_IB_MAD | \
				 RDMA_CORE_CAP_IB_CM | RDMA_CORE_CAP_AF_IB | \
				 RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP			\
				(RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
				 RDMA_CORE_CAP_IB_MAD | RDMA_CORE_CAP_IB_CM | \
				 RDMA_CORE_CAP_AF_IB | RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IWARP	(RDMA_CORE_CAP_PROT_IWARP | RDMA_CORE_CAP_IW_CM)
#define RDMA_CORE_PORT_INTEL_OPA (RDMA_CORE_PORT_IBA_IB | \
				  RDMA_CORE_CAP_OPA_MAD)
#define RDMA_CORE_PORT_RAW_PACKET (RDMA_CORE_CAP_PROT_RAW_PACKET)
#define RDMA_CORE_PORT_USNIC	(RDMA_CORE_CAP_PROT_USNIC)

struct ib_port_immutable {
	int	pkey_tbl_len;
	int	gid_tbl_len;
	u32	core_cap_flags;
	u32	max_mad_size;
};

struct ib_udata {
	const void __user *inbuf;
	void __user *outbuf;
	size_t inlen;
	size_t outlen;
};

/*
 * ---------------------------------------------------------------------
 * Verbs objects. Layouts are ours; names, members drivers and ULPs touch,
 * and semantics follow upstream 6.1.
 * ---------------------------------------------------------------------
 */

struct ib_pd;
struct ib_mr;
struct ib_mw;
struct ib_ah;
struct ib_xrcd;
struct ib_ucontext;
struct ib_uobject;
struct ib_uverbs_file;
struct ib_umem;
struct scatterlist;
struct vm_area_struct;

/*
 * Per-object entry of `rdma resource` (restrack.c). A dump holds kref while
 * it reports the object; rdma_restrack_del() waits for comp, so the object
 * outlives every report that found it in the table.
 */
struct rdma_restrack_entry {
	enum rdma_restrack_type	type;
	bool			valid;
	bool			user;
	u32			id;
	struct task_struct	*task;
	const char		*kern_name;
	struct kref		kref;
	struct completion	comp;
};

/* Userspace context: one per open of /dev/infiniband/uverbsN. */
struct ib_ucontext {
	struct ib_device	*device;
	struct ib_uverbs_file	*ufile;
	struct rdma_restrack_entry res;
};

/* What a user handle refers to; owned by ib_uverbs. */
struct ib_uobject {
	u64			user_handle;
	struct ib_uverbs_file	*ufile;
	struct ib_ucontext	*context;
	void			*object;
	struct list_head	list;
	u32			id;
	u32			type;		/* UVERBS_OBJECT_* */
	struct kref		ref;
	struct rcu_head		rcu;
};

/*
 * Everything one uverbs command handler sees. Drivers only see the
 * driver_udata member, and reach the context through
 * rdma_udata_to_drv_context().
 */
struct uverbs_attr_bundle {
	struct ib_udata		driver_udata;
	struct ib_udata		ucore;
	struct ib_uverbs_file	*ufile;
	struct ib_ucontext	*context;
	struct ib_uobject	*uobject;
};

static inline struct uverbs_attr_bundle *
rdma_udata_to_uverbs_attr_bundle(struct ib_udata *udata)
{
	return container_of(udata, struct uverbs_attr_bundle, driver_udata);
}

#define rdma_udata_to_drv_context(udata, drv_dev_struct, member)	\
	(struct drv_dev_struct *)((udata) ?				\
		container_of(rdma_udata_to_uverbs_attr_bundle(udata)->context, \
			     struct drv_dev_struct, member) : NULL)

enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = IB_UVERBS_ACCESS_LOCAL_WRITE,
	IB_ACCESS_REMOTE_WRITE = IB_UVERBS_ACCESS_REMOTE_WRITE,
	IB_ACCESS_REMOTE_READ = IB_UVERBS_ACCESS_REMOTE_READ,
	IB_ACCESS_REMOTE_ATOMIC = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
	IB_ACCESS_MW_BIND = IB_UVERBS_ACCESS_MW_BIND,
	IB_ZERO_BASED = IB_UVERBS_ACCESS_ZERO_BASED,
	IB_ACCESS_ON_DEMAND = IB_UVERBS_ACCESS_ON_DEMAND,
	IB_ACCESS_HUGETLB = IB_UVERBS_ACCESS_HUGETLB,
	IB_ACCESS_RELAXED_ORDERING = IB_UVERBS_ACCESS_RELAXED_ORDERING,

	IB_ACCESS_OPTIONAL = IB_UVERBS_ACCESS_OPTIONAL_RANGE,
	IB_ACCESS_SUPPORTED = ((IB_ACCESS_HUGETLB << 1) - 1) |
			      IB_ACCESS_OPTIONAL,
};

/* ---- PD ---- */

enum ib_pd_flags {
	/* Memory of this PD may be reached with pd->unsafe_global_rkey. */
	IB_PD_UNSAFE_GLOBAL_RKEY = 0x01,
};

struct ib_pd {
	u32			local_dma_lkey;
	u32			flags;
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	atomic_t		usecnt;		/* objects of this PD */
	u32			unsafe_global_rkey;
	/* The MR behind local_dma_lkey when the driver lacks one. */
	struct ib_mr		*__internal_mr;
	struct rdma_restrack_entry res;
};

/* ---- CQ ---- */

enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR
};

const char *__attribute_const__ ib_wc_status_msg(enum ib_wc_status status);

enum ib_wc_opcode {
	IB_WC_SEND = IB_UVERBS_WC_SEND,
	IB_WC_RDMA_WRITE = IB_UVERBS_WC_RDMA_WRITE,
	IB_WC_RDMA_READ = IB_UVERBS_WC_RDMA_READ,
	IB_WC_COMP_SWAP = IB_UVERBS_WC_COMP_SWAP,
	IB_WC_FETCH_ADD = IB_UVERBS_WC_FETCH_ADD,
	IB_WC_BIND_MW = IB_UVERBS_WC_BIND_MW,
	IB_WC_LOCAL_INV = IB_UVERBS_WC_LOCAL_INV,
	IB_WC_LSO = IB_UVERBS_WC_TSO,
	IB_WC_REG_MR,
	IB_WC_MASKED_COMP_SWAP,
	IB_WC_MASKED_FETCH_ADD,
	/* Receive completions have bit 7 set. */
	IB_WC_RECV = 1 << 7,
	IB_WC_RECV_RDMA_WITH_IMM
};

enum ib_wc_flags {
	IB_WC_GRH = 1,
	IB_WC_WITH_IMM = (1 << 1),
	IB_WC_WITH_INVALIDATE = (1 << 2),
	IB_WC_IP_CSUM_OK = (1 << 3),
	IB_WC_WITH_SMAC = (1 << 4),
	IB_WC_WITH_VLAN = (1 << 5),
	IB_WC_WITH_NETWORK_HDR_TYPE = (1 << 6),
};

struct ib_wc;
struct ib_cq;

/* Embedded in a ULP's request; its done() runs on completion. */
struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

struct ib_wc {
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	enum ib_wc_status	status;
	enum ib_wc_opcode	opcode;
	u32			vendor_err;
	u32			byte_len;
	struct ib_qp		*qp;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
	u32			src_qp;
	u32			slid;
	int			wc_flags;
	u16			pkey_index;
	u8			sl;
	u8			dlid_path_bits;
	u32			port_num;	/* valid only for DR SMPs on switches */
	u8			smac[ETH_ALEN];
	u16			vlan_id;
	u8			network_hdr_type;
};

enum ib_cq_notify_flags {
	IB_CQ_SOLICITED			= 1 << 0,
	IB_CQ_NEXT_COMP			= 1 << 1,
	IB_CQ_SOLICITED_MASK		= IB_CQ_SOLICITED | IB_CQ_NEXT_COMP,
	IB_CQ_REPORT_MISSED_EVENTS	= 1 << 2,
};

enum ib_poll_context {
	IB_POLL_SOFTIRQ,		/* poll from softirq context */
	IB_POLL_WORKQUEUE,		/* poll from workqueue */
	IB_POLL_UNBOUND_WORKQUEUE,	/* poll from unbound workqueue */
	IB_POLL_LAST_POOL_TYPE = IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_DIRECT,			/* caller context, no hw completions */
};

enum ib_cq_creation_flags {
	IB_CQ_FLAGS_TIMESTAMP_COMPLETION = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION,
	IB_CQ_FLAGS_IGNORE_OVERRUN = IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN,
};

struct ib_cq_init_attr {
	unsigned int	cqe;
	u32		comp_vector;
	u32		flags;
};

typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

struct ib_cq {
	struct ib_device	*device;
	struct ib_ucq_object	*uobject;
	ib_comp_handler		comp_handler;
	void			(*event_handler)(struct ib_event *, void *);
	void			*cq_context;
	int			cqe;
	unsigned int		cqe_used;
	atomic_t		usecnt;		/* QPs using this CQ */
	enum ib_poll_context	poll_ctx;
	struct ib_wc		*wc;		/* ib_alloc_cq's poll batch */
	struct list_head	pool_entry;
	union {
		struct irq_poll	iop;
		struct work_struct work;
	};
	struct workqueue_struct	*comp_wq;
	u32			comp_vector;
	bool			shared:1;
	bool			interrupt:1;	/* not IB_POLL_DIRECT */
	struct rdma_restrack_entry res;
};

/* ---- SRQ ---- */

enum ib_srq_type {
	IB_SRQT_BASIC = IB_UVERBS_SRQT_BASIC,
	IB_SRQT_XRC = IB_UVERBS_SRQT_XRC,
	IB_SRQT_TM = IB_UVERBS_SRQT_TM,
};

static inline bool ib_srq_has_cq(enum ib_srq_type srq_type)
{
	return srq_type == IB_SRQT_XRC || srq_type == IB_SRQT_TM;
}

enum ib_srq_attr_mask {
	IB_SRQ_MAX_WR	= 1 << 0,
	IB_SRQ_LIMIT	= 1 << 1,
};

struct ib_srq_attr {
	u32	max_wr;
	u32	max_sge;
	u32	srq_limit;
};

struct ib_srq_init_attr {
	void			(*event_handler)(struct ib_event *, void *);
	void			*srq_context;
	struct ib_srq_attr	attr;
	enum ib_srq_type	srq_type;
	struct {
		struct ib_cq	*cq;
		union {
			struct {
				struct ib_xrcd *xrcd;
			} xrc;
			struct {
				u32	max_num_tags;
			} tag_matching;
		};
	} ext;
};

struct ib_srq {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_usrq_object	*uobject;
	void			(*event_handler)(struct ib_event *, void *);
	void			*srq_context;
	enum ib_srq_type	srq_type;
	atomic_t		usecnt;		/* QPs using this SRQ */
	struct {
		struct ib_cq	*cq;
		union {
			struct {
				struct ib_xrcd	*xrcd;
				u32		srq_num;
			} xrc;
		};
	} ext;
	struct rdma_restrack_entry res;
};

/* ---- AH ---- */

enum rdma_ah_attr_type {
	RDMA_AH_ATTR_TYPE_UNDEFINED,
	RDMA_AH_ATTR_TYPE_IB,
	RDMA_AH_ATTR_TYPE_ROCE,
	RDMA_AH_ATTR_TYPE_OPA,
};

enum ib_ah_flags {
	IB_AH_GRH	= 1
};

struct ib_global_route {
	const struct ib_gid_attr *sgid_attr;
	union ib_gid	dgid;
	u32		flow_label;
	u8		sgid_index;
	u8		hop_limit;
	u8		traffic_class;
};

struct ib_ah_attr {
	u16	dlid;
	u8	src_path_bits;
};

struct roce_ah_attr {
	u8	dmac[ETH_ALEN];
};

struct rdma_ah_attr {
	struct ib_global_route	grh;
	u8			sl;
	u8			static_rate;
	u32			port_num;
	u8			ah_flags;
	enum rdma_ah_attr_type	type;
	union {
		struct ib_ah_attr	ib;
		struct roce_ah_attr	roce;
	};
};

enum {
	RDMA_CREATE_AH_SLEEPABLE = BIT(0),
};

enum {
	RDMA_DESTROY_AH_SLEEPABLE = BIT(0),
};

struct rdma_ah_init_attr {
	struct rdma_ah_attr	*ah_attr;
	u32			flags;
	struct net_device	*xmit_slave;
};

struct ib_ah {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	const struct ib_gid_attr *sgid_attr;
	enum rdma_ah_attr_type	type;
};

static inline struct ib_global_route *rdma_ah_retrieve_grh(struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

static inline const struct ib_global_route *
rdma_ah_read_grh(const struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

static inline enum ib_ah_flags rdma_ah_get_ah_flags(const struct rdma_ah_attr *attr)
{
	return attr->ah_flags;
}

static inline void rdma_ah_set_ah_flags(struct rdma_ah_attr *attr,
					enum ib_ah_flags flag)
{
	attr->ah_flags = flag;
}

static inline u8 rdma_ah_get_sl(const struct rdma_ah_attr *attr)
{
	return attr->sl;
}

static inline void rdma_ah_set_sl(struct rdma_ah_attr *attr, u8 sl)
{
	attr->sl = sl;
}

static inline u32 rdma_ah_get_port_num(const struct rdma_ah_attr *attr)
{
	return attr->port_num;
}

static inline void rdma_ah_set_port_num(struct rdma_ah_attr *attr, u32 port_num)
{
	attr->port_num = port_num;
}

static inline u8 rdma_ah_get_static_rate(const struct rdma_ah_attr *attr)
{
	return attr->static_rate;
}

static inline void rdma_ah_set_static_rate(struct rdma_ah_attr *attr, u8 rate)
{
	attr->static_rate = rate;
}

static inline u16 rdma_ah_get_dlid(const struct rdma_ah_attr *attr)
{
	return attr->type == RDMA_AH_ATTR_TYPE_IB ? attr->ib.dlid : 0;
}

static inline void rdma_ah_set_dlid(struct rdma_ah_attr *attr, u32 dlid)
{
	if (attr->type == RDMA_AH_ATTR_TYPE_IB)
		attr->ib.dlid = (u16)dlid;
}

static inline void rdma_ah_set_path_bits(struct rdma_ah_attr *attr, u8 bits)
{
	if (attr->type == RDMA_AH_ATTR_TYPE_IB)
		attr->ib.src_path_bits = bits;
}

static inline void rdma_ah_set_grh(struct rdma_ah_attr *attr,
				   union ib_gid *dgid, u32 flow_label,
				   u8 sgid_index, u8 hop_limit,
				   u8 traffic_class)
{
	struct ib_global_route *grh = rdma_ah_retrieve_grh(attr);

	attr->ah_flags = IB_AH_GRH;
	if (dgid)
		grh->dgid = *dgid;
	grh->flow_label = flow_label;
	grh->sgid_index = sgid_index;
	grh->hop_limit = hop_limit;
	grh->traffic_class = traffic_class;
	grh->sgid_attr = NULL;
}

static inline void rdma_ah_set_dgid_raw(struct rdma_ah_attr *attr, void *dgid)
{
	memcpy(attr->grh.dgid.raw, dgid, sizeof(attr->grh.dgid));
}

/* ---- MR / MW ---- */

enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
	IB_MR_TYPE_SG_GAPS,
	IB_MR_TYPE_DM,
	IB_MR_TYPE_USER,
	IB_MR_TYPE_DMA,
	IB_MR_TYPE_INTEGRITY,
};

struct ib_mr {
	struct ib_device	*device;
	struct ib_pd		*pd;
	u32			lkey;
	u32			rkey;
	u64			iova;
	u64			length;
	unsigned int		page_size;
	enum ib_mr_type		type;
	bool			need_inval;
	union {
		struct ib_uobject	*uobject;	/* user */
		struct list_head	qp_entry;	/* ib_mr_pool */
	};
	struct ib_dm		*dm;
	struct ib_sig_attrs	*sig_attrs;
	struct rdma_restrack_entry res;
};

enum ib_mw_type {
	IB_MW_TYPE_1 = 1,
	IB_MW_TYPE_2 = 2
};

struct ib_mw {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	u32			rkey;
	enum ib_mw_type		type;
};

/* ---- QP ---- */

enum ib_sig_type {
	IB_SIGNAL_ALL_WR,
	IB_SIGNAL_REQ_WR
};

enum ib_qp_type {
	IB_QPT_SMI,
	IB_QPT_GSI,
	IB_QPT_RC = IB_UVERBS_QPT_RC,
	IB_QPT_UC = IB_UVERBS_QPT_UC,
	IB_QPT_UD = IB_UVERBS_QPT_UD,
	IB_QPT_RAW_IPV6,
	IB_QPT_RAW_ETHERTYPE,
	IB_QPT_RAW_PACKET = IB_UVERBS_QPT_RAW_PACKET,
	IB_QPT_XRC_INI = IB_UVERBS_QPT_XRC_INI,
	IB_QPT_XRC_TGT = IB_UVERBS_QPT_XRC_TGT,
	IB_QPT_MAX,
	IB_QPT_DRIVER = IB_UVERBS_QPT_DRIVER,
};

enum ib_qp_create_flags {
	IB_QP_CREATE_IPOIB_UD_LSO		= 1 << 0,
	IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK	=
		IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK,
	IB_QP_CREATE_CROSS_CHANNEL		= 1 << 2,
	IB_QP_CREATE_MANAGED_SEND		= 1 << 3,
	IB_QP_CREATE_MANAGED_RECV		= 1 << 4,
	IB_QP_CREATE_NETIF_QP			= 1 << 5,
	IB_QP_CREATE_INTEGRITY_EN		= 1 << 6,
	IB_QP_CREATE_NETDEV_USE			= 1 << 7,
	IB_QP_CREATE_SCATTER_FCS		=
		IB_UVERBS_QP_CREATE_SCATTER_FCS,
	IB_QP_CREATE_CVLAN_STRIPPING		=
		IB_UVERBS_QP_CREATE_CVLAN_STRIPPING,
	IB_QP_CREATE_SOURCE_QPN			= 1 << 10,
	IB_QP_CREATE_PCI_WRITE_END_PADDING	=
		IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING,
	IB_QP_CREATE_RESERVED_START		= 1 << 26,
	IB_QP_CREATE_RESERVED_END		= 1 << 31,
};

struct ib_qp_cap {
	u32	max_send_wr;
	u32	max_recv_wr;
	u32	max_send_sge;
	u32	max_recv_sge;
	u32	max_inline_data;
	/* Extra room for rdma_rw contexts; ib_create_qp adds it to max_send_wr. */
	u32	max_rdma_ctxs;
};

struct ib_qp_init_attr {
	void			(*event_handler)(struct ib_event *, void *);
	void			*qp_context;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;
	struct ib_qp_cap	cap;
	enum ib_sig_type	sq_sig_type;
	enum ib_qp_type		qp_type;
	u32			create_flags;
	u32			port_num;	/* special QP types only */
	struct ib_rwq_ind_table	*rwq_ind_tbl;
	u32			source_qpn;
};

enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR
};

enum ib_mig_state {
	IB_MIG_MIGRATED,
	IB_MIG_REARM,
	IB_MIG_ARMED
};

enum ib_qp_attr_mask {
	IB_QP_STATE			= 1,
	IB_QP_CUR_STATE			= (1 << 1),
	IB_QP_EN_SQD_ASYNC_NOTIFY	= (1 << 2),
	IB_QP_ACCESS_FLAGS		= (1 << 3),
	IB_QP_PKEY_INDEX		= (1 << 4),
	IB_QP_PORT			= (1 << 5),
	IB_QP_QKEY			= (1 << 6),
	IB_QP_AV			= (1 << 7),
	IB_QP_PATH_MTU			= (1 << 8),
	IB_QP_TIMEOUT			= (1 << 9),
	IB_QP_RETRY_CNT			= (1 << 10),
	IB_QP_RNR_RETRY			= (1 << 11),
	IB_QP_RQ_PSN			= (1 << 12),
	IB_QP_MAX_QP_RD_ATOMIC		= (1 << 13),
	IB_QP_ALT_PATH			= (1 << 14),
	IB_QP_MIN_RNR_TIMER		= (1 << 15),
	IB_QP_SQ_PSN			= (1 << 16),
	IB_QP_MAX_DEST_RD_ATOMIC	= (1 << 17),
	IB_QP_PATH_MIG_STATE		= (1 << 18),
	IB_QP_CAP			= (1 << 19),
	IB_QP_DEST_QPN			= (1 << 20),
	IB_QP_RESERVED1			= (1 << 21),
	IB_QP_RESERVED2			= (1 << 22),
	IB_QP_RESERVED3			= (1 << 23),
	IB_QP_RESERVED4			= (1 << 24),
	IB_QP_RATE_LIMIT		= (1 << 25),

	IB_QP_ATTR_STANDARD_BITS = GENMASK(20, 0),
};

struct ib_qp_attr {
	enum ib_qp_state	qp_state;
	enum ib_qp_state	cur_qp_state;
	enum ib_mtu		path_mtu;
	enum ib_mig_state	path_mig_state;
	u32			qkey;
	u32			rq_psn;
	u32			sq_psn;
	u32			dest_qp_num;
	int			qp_access_flags;
	struct ib_qp_cap	cap;
	struct rdma_ah_attr	ah_attr;
	struct rdma_ah_attr	alt_ah_attr;
	u16			pkey_index;
	u16			alt_pkey_index;
	u8			en_sqd_async_notify;
	u8			sq_draining;
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	u8			min_rnr_timer;
	u32			port_num;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u32			alt_port_num;
	u8			alt_timeout;
	u32			rate_limit;
	struct net_device	*xmit_slave;
};

struct ib_qp {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	spinlock_t		mr_lock;	/* protects rdma_mrs, sig_mrs */
	int			mrs_used;
	struct list_head	rdma_mrs;
	struct list_head	sig_mrs;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;
	struct ib_uqp_object	*uobject;
	void			(*event_handler)(struct ib_event *, void *);
	void			*qp_context;
	/* Set before the QP is destroyed, for tools that report it. */
	const struct ib_gid_attr *av_sgid_attr;
	const struct ib_gid_attr *alt_path_sgid_attr;
	u32			qp_num;
	u32			max_write_sge;
	u32			max_read_sge;
	enum ib_qp_type		qp_type;
	u32			port;
	bool			integrity_en;
	/* ib_drain_qp's markers. */
	struct completion	srq_completion;
	struct ib_qp		*real_qp;
	atomic_t		usecnt;
	struct rdma_restrack_entry res;
};

/* ---- Work requests ---- */

struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	IB_WR_RDMA_WRITE_WITH_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	IB_WR_SEND = IB_UVERBS_WR_SEND,
	IB_WR_SEND_WITH_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	IB_WR_RDMA_READ = IB_UVERBS_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_ATOMIC_FETCH_AND_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_BIND_MW = IB_UVERBS_WR_BIND_MW,
	IB_WR_LSO = IB_UVERBS_WR_TSO,
	IB_WR_SEND_WITH_INV = IB_UVERBS_WR_SEND_WITH_INV,
	IB_WR_RDMA_READ_WITH_INV = IB_UVERBS_WR_RDMA_READ_WITH_INV,
	IB_WR_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP =
		IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD =
		IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	/* Kernel-only opcodes start well above the user ones. */
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY,
	IB_WR_RESERVED1 = 0xf0,
};

enum ib_send_flags {
	IB_SEND_FENCE		= 1,
	IB_SEND_SIGNALED	= (1 << 1),
	IB_SEND_SOLICITED	= (1 << 2),
	IB_SEND_INLINE		= (1 << 3),
	IB_SEND_IP_CSUM		= (1 << 4),
	IB_SEND_RESERVED_START	= (1 << 26),
	IB_SEND_RESERVED_END	= (1 << 31),
};

struct ib_send_wr {
	struct ib_send_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
};

struct ib_rdma_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u32			rkey;
};

static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

struct ib_atomic_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u64			compare_add;
	u64			swap;
	u64			compare_add_mask;
	u64			swap_mask;
	u32			rkey;
};

static inline const struct ib_atomic_wr *atomic_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_atomic_wr, wr);
}

struct ib_ud_wr {
	struct ib_send_wr	wr;
	struct ib_ah		*ah;
	void			*header;
	int			hlen;
	int			mss;
	u32			remote_qpn;
	u32			remote_qkey;
	u16			pkey_index;	/* valid for GSI only */
	u32			port_num;	/* valid for DR SMPs on switch only */
};

static inline const struct ib_ud_wr *ud_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_ud_wr, wr);
}

struct ib_reg_wr {
	struct ib_send_wr	wr;
	struct ib_mr		*mr;
	u32			key;
	int			access;
};

static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

struct ib_recv_wr {
	struct ib_recv_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
};

/* Uverbs objects carrying event counts for destroy (ABI.md §4.7). */
struct ib_uevent_object {
	struct ib_uobject	uobject;
	struct ib_uverbs_async_event_file *event_file;
	struct list_head	event_list;
	u32			events_reported;
};

struct ib_ucq_object {
	struct ib_uevent_object	uevent;
	struct list_head	comp_list;
	u32			comp_events_reported;
};

struct ib_usrq_object {
	struct ib_uevent_object	uevent;
};

struct ib_uqp_object {
	struct ib_uevent_object	uevent;
};

/* Object sizes a driver embeds core objects in (ib_set_device_ops). */
#define DECLARE_RDMA_OBJ_SIZE(ib_struct) size_t size_##ib_struct

#define INIT_RDMA_OBJ_SIZE(ib_struct, drv_struct, member)		\
	.size_##ib_struct =						\
		(sizeof(struct drv_struct) +				\
		 BUILD_BUG_ON_ZERO(offsetof(struct drv_struct, member)) +	\
		 BUILD_BUG_ON_ZERO(					\
			!__same_type(((struct drv_struct *)NULL)->member,	\
				     struct ib_struct)))

#define rdma_zalloc_drv_obj_gfp(ib_dev, ib_type, gfp)			\
	((struct ib_type *)kzalloc((ib_dev)->ops.size_##ib_type, gfp))

#define rdma_zalloc_drv_obj(ib_dev, ib_type)				\
	rdma_zalloc_drv_obj_gfp(ib_dev, ib_type, GFP_KERNEL)

#define rdma_zalloc_drv_obj_numa(ib_dev, ib_type)			\
	rdma_zalloc_drv_obj(ib_dev, ib_type)


/*
 * Hardware counters of a port (`rdma statistic`, ports/N/hw_counters/).
 * The driver allocates one with rdma_alloc_hw_stats_struct() from its
 * alloc_hw_port_stats op and fills value[] in get_hw_stats.
 */
#define RDMA_HW_STATS_DEFAULT_LIFESPAN 10	/* ms between refreshes */

enum rdma_stat_flags {
	IB_STAT_FLAG_OPTIONAL = 1 << 0,
};

struct rdma_stat_desc {
	const char *name;
	unsigned int flags;
	const void *priv;
};

struct rdma_hw_stats {
	struct mutex lock;	/* protects timestamp and value[] */
	unsigned long timestamp;
	unsigned long lifespan;	/* jiffies */
	const struct rdma_stat_desc *descs;
	unsigned long *is_disabled;
	int num_counters;
	u64 value[];
};

struct rdma_hw_stats *rdma_alloc_hw_stats_struct(
	const struct rdma_stat_desc *descs, int num_counters,
	unsigned long lifespan);
void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats);


/*
 * Driver methods. A driver fills what it supports and hands the table to
 * ib_set_device_ops(); unset methods fall back to core behaviour or fail
 * with -EOPNOTSUPP.
 */
struct ib_device_ops {
	struct module *owner;
	enum rdma_driver_id driver_id;
	u32 uverbs_abi_ver;
	unsigned int uverbs_no_driver_id_binding:1;

	int (*query_device)(struct ib_device *device,
			    struct ib_device_attr *device_attr,
			    struct ib_udata *udata);
	int (*modify_device)(struct ib_device *device, int device_modify_mask,
			     struct ib_device_modify *device_modify);
	void (*get_dev_fw_str)(struct ib_device *device, char *str);
	int (*query_port)(struct ib_device *device, u32 port_num,
			  struct ib_port_attr *port_attr);
	int (*modify_port)(struct ib_device *device, u32 port_num,
			   int port_modify_mask,
			   struct ib_port_modify *port_modify);
	int (*get_port_immutable)(struct ib_device *device, u32 port_num,
				  struct ib_port_immutable *immutable);
	enum rdma_link_layer (*get_link_layer)(struct ib_device *device,
					       u32 port_num);
	/* Only drivers that do not use ib_device_set_netdev(). */
	struct net_device *(*get_netdev)(struct ib_device *device,
					 u32 port_num);
	/* IB ports only: RoCE and iWARP GID tables are kept by the core. */
	int (*query_gid)(struct ib_device *device, u32 port_num, int index,
			 union ib_gid *gid);
	/* Told about RoCE GID table changes; may be left unset. */
	int (*add_gid)(const struct ib_gid_attr *attr, void **context);
	int (*del_gid)(const struct ib_gid_attr *attr, void **context);
	int (*query_pkey)(struct ib_device *device, u32 port_num, u16 index,
			  u16 *pkey);
	/* Called once the device is registered and visible. */
	int (*enable_driver)(struct ib_device *dev);
	/* Frees driver resources after the last client is gone. */
	void (*dealloc_driver)(struct ib_device *dev);
	/* Driver sysfs attributes, under the device and under each port. */
	const struct attribute_group *device_group;
	const struct attribute_group **port_groups;

	/* Data path; may be called in any context. */
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *send_wr,
			 const struct ib_send_wr **bad_send_wr);
	int (*post_recv)(struct ib_qp *qp, const struct ib_recv_wr *recv_wr,
			 const struct ib_recv_wr **bad_recv_wr);
	void (*drain_rq)(struct ib_qp *qp);
	void (*drain_sq)(struct ib_qp *qp);
	int (*poll_cq)(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
	int (*peek_cq)(struct ib_cq *cq, int wc_cnt);
	int (*req_notify_cq)(struct ib_cq *cq, enum ib_cq_notify_flags flags);
	int (*post_srq_recv)(struct ib_srq *srq,
			     const struct ib_recv_wr *recv_wr,
			     const struct ib_recv_wr **bad_recv_wr);

	/* Objects. The core allocates ib_* of size_ib_* and frees it. */
	int (*alloc_ucontext)(struct ib_ucontext *context,
			      struct ib_udata *udata);
	void (*dealloc_ucontext)(struct ib_ucontext *context);
	int (*mmap)(struct ib_ucontext *context, struct vm_area_struct *vma);
	int (*alloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*dealloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*create_ah)(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			 struct ib_udata *udata);
	int (*create_user_ah)(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			      struct ib_udata *udata);
	int (*modify_ah)(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
	int (*query_ah)(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
	int (*destroy_ah)(struct ib_ah *ah, u32 flags);
	int (*create_srq)(struct ib_srq *srq,
			  struct ib_srq_init_attr *srq_init_attr,
			  struct ib_udata *udata);
	int (*modify_srq)(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
			  enum ib_srq_attr_mask srq_attr_mask,
			  struct ib_udata *udata);
	int (*query_srq)(struct ib_srq *srq, struct ib_srq_attr *srq_attr);
	int (*destroy_srq)(struct ib_srq *srq, struct ib_udata *udata);
	int (*create_qp)(struct ib_qp *qp, struct ib_qp_init_attr *qp_init_attr,
			 struct ib_udata *udata);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
			 int qp_attr_mask, struct ib_udata *udata);
	int (*query_qp)(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
			int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr);
	int (*destroy_qp)(struct ib_qp *qp, struct ib_udata *udata);
	int (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata);
	int (*modify_cq)(struct ib_cq *cq, u16 cq_count, u16 cq_period);
	int (*destroy_cq)(struct ib_cq *cq, struct ib_udata *udata);
	int (*resize_cq)(struct ib_cq *cq, int cqe, struct ib_udata *udata);
	struct ib_mr *(*get_dma_mr)(struct ib_pd *pd, int mr_access_flags);
	struct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt_addr, int mr_access_flags,
				     struct ib_udata *udata);
	int (*dereg_mr)(struct ib_mr *mr, struct ib_udata *udata);
	struct ib_mr *(*alloc_mr)(struct ib_pd *pd, enum ib_mr_type mr_type,
				  u32 max_num_sg);
	int (*map_mr_sg)(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
			 unsigned int *sg_offset);
	int (*alloc_mw)(struct ib_mw *mw, struct ib_udata *udata);
	int (*dealloc_mw)(struct ib_mw *mw);
	int (*attach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);
	int (*detach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);

	/* iWARP connection management (iw_cm.h), iWARP drivers only. */
	void (*iw_add_ref)(struct ib_qp *qp);
	void (*iw_rem_ref)(struct ib_qp *qp);
	struct ib_qp *(*iw_get_qp)(struct ib_device *device, int qpn);
	int (*iw_connect)(struct iw_cm_id *cm_id,
			  struct iw_cm_conn_param *conn_param);
	int (*iw_accept)(struct iw_cm_id *cm_id,
			 struct iw_cm_conn_param *conn_param);
	int (*iw_reject)(struct iw_cm_id *cm_id, const void *pdata,
			 u8 pdata_len);
	int (*iw_create_listen)(struct iw_cm_id *cm_id, int backlog);
	int (*iw_destroy_listen)(struct iw_cm_id *cm_id);

	/* `rdma statistic`: hardware counters of a port. */
	struct rdma_hw_stats *(*alloc_hw_port_stats)(struct ib_device *device,
						     u32 port_num);
	int (*get_hw_stats)(struct ib_device *device,
			    struct rdma_hw_stats *stats, u32 port, int index);

	/* Sizes of the driver structures embedding core objects. */
	size_t size_ib_ah;
	size_t size_ib_counters;
	size_t size_ib_cq;
	size_t size_ib_mw;
	size_t size_ib_pd;
	size_t size_ib_qp;
	size_t size_ib_rwq_ind_table;
	size_t size_ib_srq;
	size_t size_ib_ucontext;
	size_t size_ib_xrcd;
};

struct ib_pkey_cache;
struct ib_gid_table;

struct ib_port_cache {
	u64			subnet_prefix;
	struct ib_pkey_cache	*pkey;
	struct ib_gid_table	*gid;
	u8			lmc;
	enum ib_port_state	port_state;
};

/* Core state of one port; port_data[] is indexed by port number. */
struct ib_port_data {
	struct ib_device *ib_dev;
	struct ib_port_immutable immutable;
	spinlock_t netdev_lock;		/* protects netdev */
	struct ib_port_cache cache;
	struct net_device __rcu *netdev;
	netdevice_tracker netdev_tracker;
	struct hlist_node ndev_hash_link;
	struct ib_port *sysfs;
	struct rdma_hw_stats *hw_stats;	/* NULL without counters */
};

struct ib_device {
	/* Device DMA is mapped for; NULL for soft drivers. */
	struct device *dma_device;
	struct ib_device_ops ops;
	char name[IB_DEVICE_NAME_MAX];
	struct rcu_head rcu_head;

	struct list_head event_handler_list;
	struct rw_semaphore event_handler_rwsem;

	struct rw_semaphore client_data_rwsem;
	struct xarray client_data;
	struct mutex unregistration_lock;

	rwlock_t cache_lock;		/* protects the port caches */
	struct ib_port_data *port_data;	/* indexed by port number */

	int num_comp_vectors;

	/* Shared CQs of ib_cq_pool_get(), one list per poll context (cq.c). */
	spinlock_t cq_pools_lock;
	struct list_head cq_pools[IB_POLL_LAST_POOL_TYPE + 1];

	struct device dev;		/* /sys/class/infiniband/<name> */
	struct kobject *ports_kobj;
	struct list_head port_list;
	const struct attribute_group *groups[4];

	u64 uverbs_cmd_mask;

	char node_desc[IB_DEVICE_NODE_DESC_MAX];
	__be64 node_guid;
	u32 local_dma_lkey;
	u16 is_switch:1;
	u16 kverbs_provider:1;
	u16 use_cq_dim:1;
	u8 node_type;
	u32 phys_port_cnt;
	struct ib_device_attr attrs;

	/* Global, never reused while the device lives (NLDEV DEV_INDEX). */
	u32 index;
	/* Object counts for `rdma resource` (restrack.c). */
	struct rdma_restrack_root *res;

	/* Held by every user; registration holds one. */
	refcount_t refcount;
	struct completion unreg_completion;
	struct work_struct unregistration_work;

	const struct rdma_link_ops *link_ops;

	char iw_ifname[IFNAMSIZ];
	u32 iw_driver_flags;
	u32 lag_flags;
};

/* A kernel consumer told about every device: ib_uverbs, ib_umad, rdma_cm... */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *ibdev);
	void (*remove)(struct ib_device *ibdev, void *client_data);
	void (*rename)(struct ib_device *dev, void *client_data);
	/* Answers NLDEV GET_CHARDEV for this client's name. */
	int (*get_nl_info)(struct ib_device *ibdev, void *client_data,
			   struct ib_client_nl_info *res);
	int (*get_global_nl_info)(struct ib_client_nl_info *res);

	/* Core private. */
	refcount_t uses;
	struct completion uses_zero;
	u32 client_id;
	u8 no_kverbs_req:1;
};

/* What GET_CHARDEV returns: the char device, its ABI and, for a port, which. */
struct ib_client_nl_info {
	struct sk_buff *nl_msg;
	struct device *cdev;
	u32 port;
	u64 abi;
};

struct ib_device *_ib_alloc_device(size_t size);
#define ib_alloc_device(drv_struct, member)				\
	container_of(_ib_alloc_device(sizeof(struct drv_struct) +	\
				      BUILD_BUG_ON_ZERO(offsetof(	\
					struct drv_struct, member))),	\
		     struct drv_struct, member)
void ib_dealloc_device(struct ib_device *device);

void ib_set_device_ops(struct ib_device *device,
		       const struct ib_device_ops *ops);
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device);
void ib_unregister_device(struct ib_device *device);
void ib_unregister_driver(enum rdma_driver_id driver_id);
void ib_unregister_device_and_put(struct ib_device *device);
void ib_unregister_device_queued(struct ib_device *ib_dev);

int ib_register_client(struct ib_client *client);
void ib_unregister_client(struct ib_client *client);
void *ib_get_client_data(struct ib_device *device, struct ib_client *client);
void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data);

bool ib_device_try_get(struct ib_device *dev);
void ib_device_put(struct ib_device *device);
struct ib_device *ib_device_get_by_netdev(struct net_device *ndev,
					  enum rdma_driver_id driver_id);
struct ib_device *ib_device_get_by_name(const char *name,
					enum rdma_driver_id driver_id);

int ib_device_set_netdev(struct ib_device *ib_dev, struct net_device *ndev,
			 u32 port);
struct net_device *ib_device_get_netdev(struct ib_device *ib_dev,
					u32 port);

void ib_register_event_handler(struct ib_event_handler *event_handler);
void ib_unregister_event_handler(struct ib_event_handler *event_handler);
void ib_dispatch_event(const struct ib_event *event);

int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *port_attr);
int ib_modify_device(struct ib_device *device, int device_modify_mask,
		     struct ib_device_modify *device_modify);
int ib_modify_port(struct ib_device *device, u32 port_num,
		   int port_modify_mask, struct ib_port_modify *port_modify);
int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey);
int ib_find_gid(struct ib_device *device, union ib_gid *gid,
		u32 *port_num, u16 *index);
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index);
void ib_get_device_fw_str(struct ib_device *device, char *str);
int ib_get_eth_speed(struct ib_device *dev, u32 port_num, u16 *speed,
		     u8 *width);

enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num);

const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device,
					    u32 port_num, int index);
void rdma_put_gid_attr(const struct ib_gid_attr *attr);
void rdma_hold_gid_attr(const struct ib_gid_attr *attr);
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid);
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr);
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr,
			    u16 *vlan_id, u8 *smac);
const char *ib_cache_gid_type_str(enum ib_gid_type gid_type);

static inline u32 rdma_start_port(const struct ib_device *device)
{
	return (device->node_type == RDMA_NODE_IB_SWITCH) ? 0 : 1;
}

static inline u32 rdma_end_port(const struct ib_device *device)
{
	return (device->node_type == RDMA_NODE_IB_SWITCH) ?
		0 : device->phys_port_cnt;
}

#define rdma_for_each_port(device, iter)				\
	for (iter = rdma_start_port(device +				\
				    BUILD_BUG_ON_ZERO(!__same_type(u32,	\
								   iter)));	\
	     iter <= rdma_end_port(device); iter++)

static inline bool rdma_is_port_valid(const struct ib_device *device,
				      unsigned int port)
{
	return port >= rdma_start_port(device) &&
	       port <= rdma_end_port(device);
}

static inline u32 rdma_core_cap(const struct ib_device *device, u32 port)
{
	return device->port_data[port].immutable.core_cap_flags;
}

static inline bool rdma_is_grh_required(const struct ib_device *device,
					u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IB_GRH_REQUIRED;
}

static inline bool rdma_protocol_ib(const struct ib_device *device,
				    u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_IB;
}

static inline bool rdma_protocol_roce(const struct ib_device *device,
				      u32 port_num)
{
	return rdma_core_cap(device, port_num) &
	       (RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
}

static inline bool rdma_protocol_roce_udp_encap(const struct ib_device *device,
						u32 port_num)
{
	return rdma_core_cap(device, port_num) &
	       RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP;
}

static inline bool rdma_protocol_roce_eth_encap(const struct ib_device *device,
						u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_ROCE;
}

static inline bool rdma_protocol_iwarp(const struct ib_device *device,
				       u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_IWARP;
}

static inline bool rdma_ib_or_roce(const struct ib_device *device,
				   u32 port_num)
{
	return rdma_protocol_ib(device, port_num) ||
	       rdma_protocol_roce(device, port_num);
}

static inline bool rdma_protocol_raw_packet(const struct ib_device *device,
					    u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_RAW_PACKET;
}

static inline bool rdma_protocol_usnic(const struct ib_device *device,
				       u32 port_num)
{
	return rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_USNIC;
}

static inline bool rdma_cap_ib_mad(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_IB_MAD;
}

static inline bool rdma_cap_opa_mad(struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_OPA_MAD;
}

static inline bool rdma_cap_ib_smi(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_IB_SMI;
}

static inline bool rdma_cap_ib_cm(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_IB_CM;
}

static inline bool rdma_cap_iw_cm(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_IW_CM;
}

static inline bool rdma_cap_ib_sa(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_IB_SA;
}

static inline bool rdma_cap_ib_mcast(const struct ib_device *device, u32 port)
{
	return rdma_cap_ib_sa(device, port);
}

static inline bool rdma_cap_af_ib(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_AF_IB;
}

static inline bool rdma_cap_eth_ah(const struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_ETH_AH;
}

static inline bool rdma_cap_opa_ah(struct ib_device *device, u32 port)
{
	return rdma_core_cap(device, port) & RDMA_CORE_CAP_OPA_AH;
}

/* The address handle flavour a port needs. */
static inline enum rdma_ah_attr_type rdma_ah_find_type(struct ib_device *dev,
							u32 port_num)
{
	if (rdma_protocol_roce(dev, port_num))
		return RDMA_AH_ATTR_TYPE_ROCE;
	if (rdma_protocol_ib(dev, port_num))
		return rdma_cap_opa_ah(dev, port_num) ?
		       RDMA_AH_ATTR_TYPE_OPA : RDMA_AH_ATTR_TYPE_IB;
	return RDMA_AH_ATTR_TYPE_UNDEFINED;
}

static inline size_t rdma_max_mad_size(const struct ib_device *device,
				       u32 port)
{
	return device->port_data[port].immutable.max_mad_size;
}

static inline bool rdma_cap_roce_gid_table(const struct ib_device *device,
					   u32 port)
{
	return rdma_protocol_roce(device, port) && device->ops.add_gid &&
	       device->ops.del_gid;
}

static inline enum rdma_transport_type
rdma_node_get_transport(unsigned int node_type)
{
	if (node_type == RDMA_NODE_USNIC)
		return RDMA_TRANSPORT_USNIC;
	if (node_type == RDMA_NODE_USNIC_UDP)
		return RDMA_TRANSPORT_USNIC_UDP;
	if (node_type == RDMA_NODE_RNIC)
		return RDMA_TRANSPORT_IWARP;
	if (node_type == RDMA_NODE_UNSPECIFIED)
		return RDMA_TRANSPORT_UNSPECIFIED;
	return RDMA_TRANSPORT_IB;
}

static inline const char *dev_name_ibdev(const struct ib_device *ibdev)
{
	return dev_name(&ibdev->dev);
}

/* Copy at most len bytes to the user's udata output, as upstream. */
static inline int ib_copy_to_udata(struct ib_udata *udata, void *src,
				   size_t len)
{
	return copy_to_user(udata->outbuf, src, len) ? -EFAULT : 0;
}

static inline int ib_copy_from_udata(void *dest, struct ib_udata *udata,
				     size_t len)
{
	return copy_from_user(dest, udata->inbuf, len) ? -EFAULT : 0;
}

/*
 * ---------------------------------------------------------------------
 * Kernel verbs API (verbs.c, cq.c, mr.c). Upstream 6.1 names and
 * semantics: callers may sleep unless a function says otherwise.
 * ---------------------------------------------------------------------
 */

struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller);
#define ib_alloc_pd(device, flags) \
	__ib_alloc_pd((device), (flags), KBUILD_MODNAME)
int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata);
static inline void ib_dealloc_pd(struct ib_pd *pd)
{
	int ret = ib_dealloc_pd_user(pd, NULL);

	WARN_ONCE(ret, "Destroy of kernel PD shouldn't fail");
}

struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags);
struct ib_ah *rdma_create_user_ah(struct ib_pd *pd,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata);
int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata);
static inline void rdma_destroy_ah(struct ib_ah *ah, u32 flags)
{
	int ret = rdma_destroy_ah_user(ah, flags, NULL);

	WARN_ONCE(ret, "Destroy of kernel AH shouldn't fail");
}
/* Fills ah_attr->roce.dmac etc. from the source GID and destination. */
int ib_resolve_eth_dmac(struct ib_device *device,
			struct rdma_ah_attr *ah_attr);
void rdma_copy_ah_attr(struct rdma_ah_attr *dest,
		       const struct rdma_ah_attr *src);
void rdma_replace_ah_attr(struct rdma_ah_attr *old,
			  const struct rdma_ah_attr *new);
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src);
void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr);

/* The 40-byte IB global route header (RoCE v1 and UD/GSI receive buffers). */
struct ib_grh {
	__be32		version_tclass_flow;
	__be16		paylen;
	u8		next_hdr;
	u8		hop_limit;
	union ib_gid	sgid;
	union ib_gid	dgid;
};

/* What a UD/GSI receive buffer starts with: a GRH, or an IPv4 header in its last 20 bytes. */
union rdma_network_hdr {
	struct ib_grh ibgrh;
	struct {
		u8		reserved[20];
		struct iphdr	roce4grh;
	};
};

int ib_get_rdma_header_version(const union rdma_network_hdr *hdr);
int ib_get_gids_from_rdma_hdr(const union rdma_network_hdr *hdr,
			      enum rdma_network_type net_type,
			      union ib_gid *sgid, union ib_gid *dgid);
/* Address vector back to the sender of a received UD/GSI packet. */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr);
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num);

struct ib_srq *ib_create_srq_user(struct ib_pd *pd,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject,
				  struct ib_udata *udata);
static inline struct ib_srq *
ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *srq_init_attr)
{
	if (!pd->device->ops.create_srq)
		return ERR_PTR(-EOPNOTSUPP);
	return ib_create_srq_user(pd, srq_init_attr, NULL, NULL);
}
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask);
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr);
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata);
static inline void ib_destroy_srq(struct ib_srq *srq)
{
	int ret = ib_destroy_srq_user(srq, NULL);

	WARN_ONCE(ret, "Destroy of kernel SRQ shouldn't fail");
}
static inline int ib_post_srq_recv(struct ib_srq *srq,
				   const struct ib_recv_wr *recv_wr,
				   const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *dummy;

	return srq->device->ops.post_srq_recv(srq, recv_wr,
					      bad_recv_wr ? : &dummy);
}

struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller);
static inline struct ib_qp *ib_create_qp(struct ib_pd *pd,
					 struct ib_qp_init_attr *init_attr)
{
	return ib_create_qp_kernel(pd, init_attr, KBUILD_MODNAME);
}
/* Creates a user QP (ib_uverbs); the driver sees udata. */
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);
int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int attr_mask, struct ib_udata *udata);
int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask);
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr);
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata);
static inline int ib_destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp_user(qp, NULL);
}
/* IBA's QP state table: is this transition with this mask allowed? */
bool ib_modify_qp_is_ok(enum ib_qp_state cur_state,
			enum ib_qp_state next_state, enum ib_qp_type type,
			enum ib_qp_attr_mask mask);
void ib_drain_rq(struct ib_qp *qp);
void ib_drain_sq(struct ib_qp *qp);
void ib_drain_qp(struct ib_qp *qp);

static inline int ib_post_send(struct ib_qp *qp,
			       const struct ib_send_wr *send_wr,
			       const struct ib_send_wr **bad_send_wr)
{
	const struct ib_send_wr *dummy;

	return qp->device->ops.post_send(qp, send_wr, bad_send_wr ? : &dummy);
}

static inline int ib_post_recv(struct ib_qp *qp,
			       const struct ib_recv_wr *recv_wr,
			       const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *dummy;

	return qp->device->ops.post_recv(qp, recv_wr, bad_recv_wr ? : &dummy);
}

struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *, void *),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller);
#define ib_create_cq(device, cmp_hndlr, evt_hndlr, cq_ctxt, cq_attr) \
	__ib_create_cq((device), (cmp_hndlr), (evt_hndlr), (cq_ctxt), \
		       (cq_attr), KBUILD_MODNAME)
int ib_resize_cq(struct ib_cq *cq, int cqe);
int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period);
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata);
static inline void ib_destroy_cq(struct ib_cq *cq)
{
	int ret = ib_destroy_cq_user(cq, NULL);

	WARN_ONCE(ret, "Destroy of kernel CQ shouldn't fail");
}

struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller);
static inline struct ib_cq *ib_alloc_cq(struct ib_device *dev, void *private,
					int nr_cqe, int comp_vector,
					enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq(dev, private, nr_cqe, comp_vector, poll_ctx,
			     KBUILD_MODNAME);
}
struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller);
static inline struct ib_cq *ib_alloc_cq_any(struct ib_device *dev,
					    void *private, int nr_cqe,
					    enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq_any(dev, private, nr_cqe, poll_ctx,
				 KBUILD_MODNAME);
}
void ib_free_cq(struct ib_cq *cq);
int ib_process_cq_direct(struct ib_cq *cq, int budget);
struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint,
			     enum ib_poll_context poll_ctx);
void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe);

static inline int ib_poll_cq(struct ib_cq *cq, int num_entries,
			     struct ib_wc *wc)
{
	return cq->device->ops.poll_cq(cq, num_entries, wc);
}

static inline int ib_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	return cq->device->ops.req_notify_cq(cq, flags);
}

struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg);
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata);
static inline int ib_dereg_mr(struct ib_mr *mr)
{
	return ib_dereg_mr_user(mr, NULL);
}
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size);
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset, int (*set_page)(struct ib_mr *, u64));

/* The low 8 bits of an lkey/rkey are the consumer's key. */
static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

static inline u32 ib_inc_rkey(u32 rkey)
{
	const u32 mask = 0x000000ff;

	return ((rkey + 1) & mask) | (rkey & ~mask);
}

int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);

/*
 * DMA helpers. Soft drivers (dma_device == NULL) work on kernel virtual
 * addresses, so mapping is the identity there.
 */
static inline bool ib_uses_virt_dma(struct ib_device *dev)
{
	return !dev->dma_device;
}

static inline int ib_dma_mapping_error(struct ib_device *dev, u64 dma_addr)
{
	if (!dev->dma_device)
		return 0;
	return dma_mapping_error(dev->dma_device, dma_addr);
}

static inline u64 ib_dma_map_single(struct ib_device *dev, void *cpu_addr,
				    size_t size,
				    enum dma_data_direction direction)
{
	if (!dev->dma_device)
		return (uintptr_t)cpu_addr;
	return dma_map_single(dev->dma_device, cpu_addr, size, direction);
}

static inline void ib_dma_unmap_single(struct ib_device *dev, u64 addr,
				       size_t size,
				       enum dma_data_direction direction)
{
	if (dev->dma_device)
		dma_unmap_single(dev->dma_device, addr, size, direction);
}

static inline u64 ib_dma_map_page(struct ib_device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction direction)
{
	if (!dev->dma_device)
		return (uintptr_t)(page_address(page) + offset);
	return dma_map_page(dev->dma_device, page, offset, size, direction);
}

static inline void ib_dma_unmap_page(struct ib_device *dev, u64 addr,
				     size_t size,
				     enum dma_data_direction direction)
{
	if (dev->dma_device)
		dma_unmap_page(dev->dma_device, addr, size, direction);
}

/* Soft drivers: each entry's DMA address is its kernel virtual address. */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents);

static inline int ib_dma_map_sg_attrs(struct ib_device *dev,
				      struct scatterlist *sg, int nents,
				      enum dma_data_direction direction,
				      unsigned long dma_attrs)
{
	if (!dev->dma_device)
		return ib_dma_virt_map_sg(dev, sg, nents);
	return dma_map_sg_attrs(dev->dma_device, sg, nents, direction,
				dma_attrs);
}

static inline void ib_dma_unmap_sg_attrs(struct ib_device *dev,
					 struct scatterlist *sg, int nents,
					 enum dma_data_direction direction,
					 unsigned long dma_attrs)
{
	if (dev->dma_device)
		dma_unmap_sg_attrs(dev->dma_device, sg, nents, direction,
				   dma_attrs);
}

static inline int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg,
				int nents, enum dma_data_direction direction)
{
	return ib_dma_map_sg_attrs(dev, sg, nents, direction, 0);
}

static inline void ib_dma_unmap_sg(struct ib_device *dev,
				   struct scatterlist *sg, int nents,
				   enum dma_data_direction direction)
{
	ib_dma_unmap_sg_attrs(dev, sg, nents, direction, 0);
}

static inline void ib_dma_sync_single_for_cpu(struct ib_device *dev, u64 addr,
					      size_t size,
					      enum dma_data_direction dir)
{
	if (dev->dma_device)
		dma_sync_single_for_cpu(dev->dma_device, addr, size, dir);
}

static inline void ib_dma_sync_single_for_device(struct ib_device *dev,
						 u64 addr, size_t size,
						 enum dma_data_direction dir)
{
	if (dev->dma_device)
		dma_sync_single_for_device(dev->dma_device, addr, size, dir);
}

static inline unsigned int ib_dma_max_seg_size(struct ib_device *dev)
{
	if (!dev->dma_device)
		return SZ_2G;
	return dma_get_max_seg_size(dev->dma_device);
}

#define ibdev_err(ibdev, fmt, ...) \
	dev_err(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_warn(ibdev, fmt, ...) \
	dev_warn(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_info(ibdev, fmt, ...) \
	dev_info(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_dbg(ibdev, fmt, ...) \
	dev_dbg(&(ibdev)->dev, fmt, ##__VA_ARGS__)

#endif /* RDMA_KMOD_IB_VERBS_H */
