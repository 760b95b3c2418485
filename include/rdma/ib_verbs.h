/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * In-kernel RDMA verbs API of rdma-kmod: device model, ports, GIDs, events
 * and clients. Names and semantics follow upstream Linux 6.1 so that code
 * written for upstream builds against this header.
 *
 * The object verbs (PD, CQ, QP, MR ...) are added by the verbs work.
 */
#ifndef RDMA_KMOD_IB_VERBS_H
#define RDMA_KMOD_IB_VERBS_H

#include <linux/types.h>
#include <linux/device.h>
#include <linux/kref.h>
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

#define ibdev_err(ibdev, fmt, ...) \
	dev_err(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_warn(ibdev, fmt, ...) \
	dev_warn(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_info(ibdev, fmt, ...) \
	dev_info(&(ibdev)->dev, fmt, ##__VA_ARGS__)
#define ibdev_dbg(ibdev, fmt, ...) \
	dev_dbg(&(ibdev)->dev, fmt, ##__VA_ARGS__)

#endif /* RDMA_KMOD_IB_VERBS_H */
