/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Subnet administration definitions used by the connection managers.
 *
 * This stack has no SA client yet (RoCE only): the path record type is
 * the common currency between rdma_cm and ib_cm, and the query entry
 * points are inline stubs that report -EOPNOTSUPP.  Names, layouts and
 * signatures follow upstream Linux 6.1 so that ULPs build unchanged.
 */
#ifndef IB_SA_H
#define IB_SA_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>	/* ib_sa_comp_mask, IB_SA_COMP_MASK() */
#include <uapi/rdma/ib_user_sa.h>	/* IB_PATH_* flags */

enum {
	IB_SA_CLASS_VERSION		= 2,
	IB_SA_METHOD_GET_TABLE		= 0x12,
	IB_SA_METHOD_GET_TABLE_RESP	= 0x92,
	IB_SA_METHOD_DELETE		= 0x15,
	IB_SA_METHOD_DELETE_RESP	= 0x95,
	IB_SA_METHOD_GET_MULTI		= 0x14,
	IB_SA_METHOD_GET_MULTI_RESP	= 0x94,
	IB_SA_METHOD_GET_TRACE_TBL	= 0x13
};

#define OPA_SA_CLASS_VERSION	0x80

enum {
	IB_SA_ATTR_CLASS_PORTINFO	= 0x01,
	IB_SA_ATTR_NOTICE		= 0x02,
	IB_SA_ATTR_INFORM_INFO		= 0x03,
	IB_SA_ATTR_NODE_REC		= 0x11,
	IB_SA_ATTR_PORT_INFO_REC	= 0x12,
	IB_SA_ATTR_SL2VL_REC		= 0x13,
	IB_SA_ATTR_SWITCH_REC		= 0x14,
	IB_SA_ATTR_LINEAR_FDB_REC	= 0x15,
	IB_SA_ATTR_RANDOM_FDB_REC	= 0x16,
	IB_SA_ATTR_MCAST_FDB_REC	= 0x17,
	IB_SA_ATTR_SM_INFO_REC		= 0x18,
	IB_SA_ATTR_LINK_REC		= 0x20,
	IB_SA_ATTR_GUID_INFO_REC	= 0x30,
	IB_SA_ATTR_SERVICE_REC		= 0x31,
	IB_SA_ATTR_PARTITION_REC	= 0x33,
	IB_SA_ATTR_PATH_REC		= 0x35,
	IB_SA_ATTR_VL_ARB_REC		= 0x36,
	IB_SA_ATTR_MC_MEMBER_REC	= 0x38,
	IB_SA_ATTR_TRACE_REC		= 0x39,
	IB_SA_ATTR_MULTI_PATH_REC	= 0x3a,
	IB_SA_ATTR_SERVICE_ASSOC_REC	= 0x3b,
	IB_SA_ATTR_INFORM_INFO_REC	= 0xf3
};

/* Selector encoding of the *_selector fields (2 bits on the wire). */
enum ib_sa_selector {
	IB_SA_GT   = 0,
	IB_SA_LT   = 1,
	IB_SA_EQ   = 2,
	IB_SA_BEST = 3
};

enum ib_sa_mc_join_states {
	FULLMEMBER_JOIN,
	NONMEMBER_JOIN,
	SENDONLY_NONMEBER_JOIN,
	SENDONLY_FULLMEMBER_JOIN,
	NUM_JOIN_MEMBERSHIP_TYPES,
};

#define IB_SA_CAP_MASK2_SENDONLY_FULL_MEM_SUPPORT	BIT(12)

/* PathRecord component mask bits. */
#define IB_SA_PATH_REC_SERVICE_ID	(IB_SA_COMP_MASK(0) | IB_SA_COMP_MASK(1))
#define IB_SA_PATH_REC_DGID		IB_SA_COMP_MASK(2)
#define IB_SA_PATH_REC_SGID		IB_SA_COMP_MASK(3)
#define IB_SA_PATH_REC_DLID		IB_SA_COMP_MASK(4)
#define IB_SA_PATH_REC_SLID		IB_SA_COMP_MASK(5)
#define IB_SA_PATH_REC_RAW_TRAFFIC	IB_SA_COMP_MASK(6)
#define IB_SA_PATH_REC_FLOW_LABEL	IB_SA_COMP_MASK(8)
#define IB_SA_PATH_REC_HOP_LIMIT	IB_SA_COMP_MASK(9)
#define IB_SA_PATH_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(10)
#define IB_SA_PATH_REC_REVERSIBLE	IB_SA_COMP_MASK(11)
#define IB_SA_PATH_REC_NUMB_PATH	IB_SA_COMP_MASK(12)
#define IB_SA_PATH_REC_PKEY		IB_SA_COMP_MASK(13)
#define IB_SA_PATH_REC_QOS_CLASS	IB_SA_COMP_MASK(14)
#define IB_SA_PATH_REC_SL		IB_SA_COMP_MASK(15)
#define IB_SA_PATH_REC_MTU_SELECTOR	IB_SA_COMP_MASK(16)
#define IB_SA_PATH_REC_MTU		IB_SA_COMP_MASK(17)
#define IB_SA_PATH_REC_RATE_SELECTOR	IB_SA_COMP_MASK(18)
#define IB_SA_PATH_REC_RATE		IB_SA_COMP_MASK(19)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(20)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(21)
#define IB_SA_PATH_REC_PREFERENCE	IB_SA_COMP_MASK(22)

enum sa_path_rec_type {
	SA_PATH_REC_TYPE_IB,
	SA_PATH_REC_TYPE_ROCE_V1,
	SA_PATH_REC_TYPE_ROCE_V2,
	SA_PATH_REC_TYPE_OPA
};

struct sa_path_rec_ib {
	__be16	dlid;
	__be16	slid;
	u8	raw_traffic;
};

struct sa_path_rec_roce {
	bool	route_resolved;
	u8	dmac[ETH_ALEN];
};

struct sa_path_rec_opa {
	__be32	dlid;
	__be32	slid;
	u8	raw_traffic;
	u8	l2_8B;
	u8	l2_10B;
	u8	l2_9B;
	u8	l2_16B;
	u8	qos_type;
	u8	qos_priority;
};

/* sa_path_rec.flags values (IB_PATH_*) come from the uapi header. */

/*
 * A path, host-side form.  mtu and rate use the IB enum encodings
 * (enum ib_mtu, enum ib_rate); packet_life_time is the 4.096us * 2^x
 * exponent.  For RoCE the GIDs are the RoCE GIDs and roce.dmac is the
 * next hop MAC.
 */
struct sa_path_rec {
	union ib_gid	dgid;
	union ib_gid	sgid;
	__be64		service_id;
	__be32		flow_label;
	u8		hop_limit;
	u8		traffic_class;
	u8		reversible;
	u8		numb_path;
	__be16		pkey;
	__be16		qos_class;
	u8		sl;
	u8		mtu_selector;
	u8		mtu;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		preference;
	union {
		struct sa_path_rec_ib	ib;
		struct sa_path_rec_roce	roce;
		struct sa_path_rec_opa	opa;
	};
	enum sa_path_rec_type	rec_type;
	u32			flags;
};

static inline enum ib_gid_type
sa_conv_pathrec_to_gid_type(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_ROCE_V1)
		return IB_GID_TYPE_ROCE;
	if (rec->rec_type == SA_PATH_REC_TYPE_ROCE_V2)
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return IB_GID_TYPE_IB;
}

static inline enum sa_path_rec_type
sa_conv_gid_to_pathrec_type(enum ib_gid_type type)
{
	if (type == IB_GID_TYPE_ROCE)
		return SA_PATH_REC_TYPE_ROCE_V1;
	if (type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		return SA_PATH_REC_TYPE_ROCE_V2;
	return SA_PATH_REC_TYPE_IB;
}

static inline bool sa_path_is_roce(struct sa_path_rec *rec)
{
	return rec->rec_type == SA_PATH_REC_TYPE_ROCE_V1 ||
	       rec->rec_type == SA_PATH_REC_TYPE_ROCE_V2;
}

static inline bool sa_path_is_opa(struct sa_path_rec *rec)
{
	return rec->rec_type == SA_PATH_REC_TYPE_OPA;
}

static inline void sa_path_set_slid(struct sa_path_rec *rec, u32 slid)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.slid = cpu_to_be16(slid);
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.slid = cpu_to_be32(slid);
}

static inline void sa_path_set_dlid(struct sa_path_rec *rec, u32 dlid)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.dlid = cpu_to_be16(dlid);
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.dlid = cpu_to_be32(dlid);
}

static inline void sa_path_set_raw_traffic(struct sa_path_rec *rec,
					   u8 raw_traffic)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		rec->ib.raw_traffic = raw_traffic;
	else if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		rec->opa.raw_traffic = raw_traffic;
}

/* LIDs come back as 32-bit big endian whatever the record type. */
static inline __be32 sa_path_get_slid(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return cpu_to_be32(be16_to_cpu(rec->ib.slid));
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.slid;
	return 0;
}

static inline __be32 sa_path_get_dlid(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return cpu_to_be32(be16_to_cpu(rec->ib.dlid));
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.dlid;
	return 0;
}

static inline u8 sa_path_get_raw_traffic(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_IB)
		return rec->ib.raw_traffic;
	if (rec->rec_type == SA_PATH_REC_TYPE_OPA)
		return rec->opa.raw_traffic;
	return 0;
}

static inline void sa_path_set_dmac(struct sa_path_rec *rec, u8 *dmac)
{
	if (sa_path_is_roce(rec))
		memcpy(rec->roce.dmac, dmac, ETH_ALEN);
}

static inline void sa_path_set_dmac_zero(struct sa_path_rec *rec)
{
	if (sa_path_is_roce(rec))
		eth_zero_addr(rec->roce.dmac);
}

static inline u8 *sa_path_get_dmac(struct sa_path_rec *rec)
{
	return sa_path_is_roce(rec) ? rec->roce.dmac : NULL;
}

/* MCMemberRecord component mask bits. */
#define IB_SA_MCMEMBER_REC_MGID			IB_SA_COMP_MASK(0)
#define IB_SA_MCMEMBER_REC_PORT_GID		IB_SA_COMP_MASK(1)
#define IB_SA_MCMEMBER_REC_QKEY			IB_SA_COMP_MASK(2)
#define IB_SA_MCMEMBER_REC_MLID			IB_SA_COMP_MASK(3)
#define IB_SA_MCMEMBER_REC_MTU_SELECTOR		IB_SA_COMP_MASK(4)
#define IB_SA_MCMEMBER_REC_MTU			IB_SA_COMP_MASK(5)
#define IB_SA_MCMEMBER_REC_TRAFFIC_CLASS	IB_SA_COMP_MASK(6)
#define IB_SA_MCMEMBER_REC_PKEY			IB_SA_COMP_MASK(7)
#define IB_SA_MCMEMBER_REC_RATE_SELECTOR	IB_SA_COMP_MASK(8)
#define IB_SA_MCMEMBER_REC_RATE			IB_SA_COMP_MASK(9)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME_SELECTOR IB_SA_COMP_MASK(10)
#define IB_SA_MCMEMBER_REC_PACKET_LIFE_TIME	IB_SA_COMP_MASK(11)
#define IB_SA_MCMEMBER_REC_SL			IB_SA_COMP_MASK(12)
#define IB_SA_MCMEMBER_REC_FLOW_LABEL		IB_SA_COMP_MASK(13)
#define IB_SA_MCMEMBER_REC_HOP_LIMIT		IB_SA_COMP_MASK(14)
#define IB_SA_MCMEMBER_REC_SCOPE		IB_SA_COMP_MASK(15)
#define IB_SA_MCMEMBER_REC_JOIN_STATE		IB_SA_COMP_MASK(16)
#define IB_SA_MCMEMBER_REC_PROXY_JOIN		IB_SA_COMP_MASK(17)

struct ib_sa_mcmember_rec {
	union ib_gid	mgid;
	union ib_gid	port_gid;
	__be32		qkey;
	__be16		mlid;
	u8		mtu_selector;
	u8		mtu;
	u8		traffic_class;
	__be16		pkey;
	u8		rate_selector;
	u8		rate;
	u8		packet_life_time_selector;
	u8		packet_life_time;
	u8		sl;
	__be32		flow_label;
	u8		hop_limit;
	u8		scope;
	u8		join_state;
	u8		proxy_join;
};

#define IB_DEFAULT_SERVICE_LEASE	0xFFFFFFFF

/* Users of SA queries; kept so that callers written for upstream build. */
struct ib_sa_client {
	atomic_t		users;
	struct completion	comp;
};

static inline void ib_sa_register_client(struct ib_sa_client *client)
{
	atomic_set(&client->users, 1);
	init_completion(&client->comp);
}

static inline void ib_sa_unregister_client(struct ib_sa_client *client)
{
	/* No queries can be outstanding: there is no SA client. */
	atomic_set(&client->users, 0);
	complete(&client->comp);
}

struct ib_sa_query;

static inline void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
}

static inline int
ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		   u32 port_num, struct sa_path_rec *rec,
		   ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		   gfp_t gfp_mask,
		   void (*callback)(int status, struct sa_path_rec *resp,
				    int num_prs, void *context),
		   void *context, struct ib_sa_query **query)
{
	return -EOPNOTSUPP;
}

struct ib_sa_multicast {
	struct ib_sa_mcmember_rec	rec;
	ib_sa_comp_mask			comp_mask;
	int (*callback)(int status, struct ib_sa_multicast *multicast);
	void				*context;
};

static inline struct ib_sa_multicast *
ib_sa_join_multicast(struct ib_sa_client *client, struct ib_device *device,
		     u32 port_num, struct ib_sa_mcmember_rec *rec,
		     ib_sa_comp_mask comp_mask, gfp_t gfp_mask,
		     int (*callback)(int status,
				     struct ib_sa_multicast *multicast),
		     void *context)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void ib_sa_free_multicast(struct ib_sa_multicast *multicast)
{
}

static inline int ib_sa_get_mcmember_rec(struct ib_device *device,
					 u32 port_num, union ib_gid *mgid,
					 struct ib_sa_mcmember_rec *rec)
{
	return -EOPNOTSUPP;
}

/*
 * Build an address handle attribute from a path.  Implemented (and
 * exported) by ib_cm.ko in this stack; RoCE paths need sgid_attr and
 * rec->roce.dmac.
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr);

#endif /* IB_SA_H */
