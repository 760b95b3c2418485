/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Subnet administration (SA, class 0x03): the host-side forms of the SA
 * records (PathRecord, MCMemberRecord, GuidInfoRecord), their component
 * mask bits, and the SA client of ib_core (sa_query.c, sa_mcast.c):
 * queries to the subnet manager of an InfiniBand port and multicast group
 * membership shared by every joiner on a port. Names, layouts and
 * signatures follow upstream Linux 6.1.
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
#include <rdma/ib_addr.h>
#include <rdma/opa_addr.h>
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

/*
 * OPA <-> IB path records: an OPA LID that does not fit the IB unicast
 * range travels in an OPA GID (OPA_MAKE_ID) with the IB LID set to 0.
 */
static inline void path_conv_opa_to_ib(struct sa_path_rec *ib,
				       struct sa_path_rec *opa)
{
	u32 dlid = be32_to_cpu(opa->opa.dlid);
	u32 slid = be32_to_cpu(opa->opa.slid);

	if (opa_is_extended_lid(opa->opa.dlid, opa->opa.slid)) {
		/* As upstream: the DGID's prefix is the one set, twice. */
		ib->dgid.global.interface_id = OPA_MAKE_ID(dlid);
		ib->dgid.global.subnet_prefix = opa->dgid.global.subnet_prefix;
		ib->sgid.global.interface_id = OPA_MAKE_ID(slid);
		ib->dgid.global.subnet_prefix = opa->dgid.global.subnet_prefix;
		ib->ib.dlid = 0;
		ib->ib.slid = 0;
	} else {
		ib->ib.dlid = cpu_to_be16(dlid);
		ib->ib.slid = cpu_to_be16(slid);
	}
	ib->service_id = opa->service_id;
	ib->ib.raw_traffic = opa->opa.raw_traffic;
}

static inline void path_conv_ib_to_opa(struct sa_path_rec *opa,
				       struct sa_path_rec *ib)
{
	u32 slid, dlid;

	if (ib_is_opa_gid(&ib->sgid) || ib_is_opa_gid(&ib->dgid)) {
		slid = opa_get_lid_from_gid(&ib->sgid);
		dlid = opa_get_lid_from_gid(&ib->dgid);
	} else {
		slid = be16_to_cpu(ib->ib.slid);
		dlid = be16_to_cpu(ib->ib.dlid);
	}
	opa->opa.slid = cpu_to_be32(slid);
	opa->opa.dlid = cpu_to_be32(dlid);
	opa->service_id = ib->service_id;
	opa->opa.raw_traffic = ib->ib.raw_traffic;
}

/* Copies @src into @dest as an IB record; nothing if @src is not OPA. */
static inline void sa_convert_path_opa_to_ib(struct sa_path_rec *dest,
					     struct sa_path_rec *src)
{
	if (src->rec_type != SA_PATH_REC_TYPE_OPA)
		return;
	*dest = *src;
	dest->rec_type = SA_PATH_REC_TYPE_IB;
	path_conv_opa_to_ib(dest, src);
}

/* Copies @src into @dest as an OPA record; nothing if @src is not IB. */
static inline void sa_convert_path_ib_to_opa(struct sa_path_rec *dest,
					     struct sa_path_rec *src)
{
	if (src->rec_type != SA_PATH_REC_TYPE_IB)
		return;
	*dest = *src;
	dest->rec_type = SA_PATH_REC_TYPE_OPA;
	path_conv_ib_to_opa(dest, src);
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

/* ServiceRecord component mask bits (IBA 15.2.5.14) */
#define IB_SA_SERVICE_REC_SERVICE_ID		IB_SA_COMP_MASK(0)
#define IB_SA_SERVICE_REC_SERVICE_GID		IB_SA_COMP_MASK(1)
#define IB_SA_SERVICE_REC_SERVICE_PKEY		IB_SA_COMP_MASK(2)
#define IB_SA_SERVICE_REC_SERVICE_LEASE		IB_SA_COMP_MASK(4)
#define IB_SA_SERVICE_REC_SERVICE_KEY		IB_SA_COMP_MASK(5)
#define IB_SA_SERVICE_REC_SERVICE_NAME		IB_SA_COMP_MASK(6)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_0	IB_SA_COMP_MASK(7)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_1	IB_SA_COMP_MASK(8)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_2	IB_SA_COMP_MASK(9)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_3	IB_SA_COMP_MASK(10)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_4	IB_SA_COMP_MASK(11)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_5	IB_SA_COMP_MASK(12)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_6	IB_SA_COMP_MASK(13)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_7	IB_SA_COMP_MASK(14)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_8	IB_SA_COMP_MASK(15)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_9	IB_SA_COMP_MASK(16)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_10	IB_SA_COMP_MASK(17)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_11	IB_SA_COMP_MASK(18)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_12	IB_SA_COMP_MASK(19)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_13	IB_SA_COMP_MASK(20)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_14	IB_SA_COMP_MASK(21)
#define IB_SA_SERVICE_REC_SERVICE_DATA8_15	IB_SA_COMP_MASK(22)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_0	IB_SA_COMP_MASK(23)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_1	IB_SA_COMP_MASK(24)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_2	IB_SA_COMP_MASK(25)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_3	IB_SA_COMP_MASK(26)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_4	IB_SA_COMP_MASK(27)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_5	IB_SA_COMP_MASK(28)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_6	IB_SA_COMP_MASK(29)
#define IB_SA_SERVICE_REC_SERVICE_DATA16_7	IB_SA_COMP_MASK(30)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_0	IB_SA_COMP_MASK(31)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_1	IB_SA_COMP_MASK(32)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_2	IB_SA_COMP_MASK(33)
#define IB_SA_SERVICE_REC_SERVICE_DATA32_3	IB_SA_COMP_MASK(34)
#define IB_SA_SERVICE_REC_SERVICE_DATA64_0	IB_SA_COMP_MASK(35)
#define IB_SA_SERVICE_REC_SERVICE_DATA64_1	IB_SA_COMP_MASK(36)

#define IB_DEFAULT_SERVICE_LEASE	0xFFFFFFFF

/* GuidInfoRecord component mask bits */
#define IB_SA_GUIDINFO_REC_LID		IB_SA_COMP_MASK(0)
#define IB_SA_GUIDINFO_REC_BLOCK_NUM	IB_SA_COMP_MASK(1)
#define IB_SA_GUIDINFO_REC_RES1		IB_SA_COMP_MASK(2)
#define IB_SA_GUIDINFO_REC_RES2		IB_SA_COMP_MASK(3)
#define IB_SA_GUIDINFO_REC_GID0		IB_SA_COMP_MASK(4)
#define IB_SA_GUIDINFO_REC_GID1		IB_SA_COMP_MASK(5)
#define IB_SA_GUIDINFO_REC_GID2		IB_SA_COMP_MASK(6)
#define IB_SA_GUIDINFO_REC_GID3		IB_SA_COMP_MASK(7)
#define IB_SA_GUIDINFO_REC_GID4		IB_SA_COMP_MASK(8)
#define IB_SA_GUIDINFO_REC_GID5		IB_SA_COMP_MASK(9)
#define IB_SA_GUIDINFO_REC_GID6		IB_SA_COMP_MASK(10)
#define IB_SA_GUIDINFO_REC_GID7		IB_SA_COMP_MASK(11)

/* A block of eight port GUIDs (alias GUIDs), with the port's LID. */
struct ib_sa_guidinfo_rec {
	__be16	lid;
	u8	block_num;
	u8	res1;
	__be32	res2;
	u8	guid_info_list[64];
};

/*
 * An SA client: each module issuing queries or joins registers one. Its
 * users count is 1 while registered plus one per outstanding query or
 * join; unregistering waits (comp) until they are all gone.
 */
struct ib_sa_client {
	atomic_t		users;
	struct completion	comp;
};

void ib_sa_register_client(struct ib_sa_client *client);
void ib_sa_unregister_client(struct ib_sa_client *client);

/* Opaque handle of an outstanding query. */
struct ib_sa_query;

/*
 * Cancel the query with this @id (the value a query call returned). Its
 * callback still runs, once, with -EINTR, unless the answer was already
 * being delivered. Nothing happens if the query has finished.
 */
void ib_sa_cancel_query(int id, struct ib_sa_query *query);

/*
 * Ask the SA of @port_num for the path(s) matching @rec/@comp_mask. The
 * callback runs once, in process context, with status 0 and the path(s),
 * or a negative errno: -ETIMEDOUT after @timeout_ms without an answer,
 * -EINTR when cancelled (no path then), -EINVAL for an SA error status (the
 * answer's record is passed all the same). Returns the
 * query id (>= 0; *@query is set for ib_sa_cancel_query) or a negative
 * errno (no callback then), e.g. -ENODEV on a port without an SA.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					int num_prs, void *context),
		       void *context, struct ib_sa_query **query);

/* One joiner's membership, returned by ib_sa_join_multicast(). */
struct ib_sa_multicast {
	struct ib_sa_mcmember_rec	rec;
	ib_sa_comp_mask			comp_mask;
	int (*callback)(int status, struct ib_sa_multicast *multicast);
	void				*context;
};

/*
 * Join the group @rec->mgid on @port_num. The SA sees one membership per
 * group and port, shared by every joiner. @callback runs in process
 * context with status 0 and the group's record in multicast->rec once the
 * membership holds, or with an error: -ETIMEDOUT, -EINVAL (the SA refused,
 * or the record does not fit the existing group), -EIO (the send failed),
 * -ENETRESET (the membership was lost after a port event: join again).
 * A non-zero return from the callback frees the membership as
 * ib_sa_free_multicast() would. Returns ERR_PTR on immediate failure.
 */
struct ib_sa_multicast *ib_sa_join_multicast(struct ib_sa_client *client,
					     struct ib_device *device,
					     u32 port_num,
					     struct ib_sa_mcmember_rec *rec,
					     ib_sa_comp_mask comp_mask,
					     gfp_t gfp_mask,
					     int (*callback)(int status,
						struct ib_sa_multicast *multicast),
					     void *context);

/*
 * Drop one joiner; the SA membership is left with the last one. Waits
 * until the callback is not running and will not run again, so it must not
 * be called from that callback.
 */
void ib_sa_free_multicast(struct ib_sa_multicast *multicast);

/* The record of a group joined on this port (-ENOENT if none is). */
int ib_sa_get_mcmember_rec(struct ib_device *device, u32 port_num,
			   union ib_gid *mgid, struct ib_sa_mcmember_rec *rec);

/* Address handle attributes for sending to a group from its record. */
int ib_init_ah_from_mcmember(struct ib_device *device, u32 port_num,
			     struct ib_sa_mcmember_rec *rec,
			     struct net_device *ndev,
			     enum ib_gid_type gid_type,
			     struct rdma_ah_attr *ah_attr);

/*
 * Address handle attributes for a path. RoCE paths need @sgid_attr (or a
 * GID of the path's type equal to rec->sgid) and rec->roce.dmac.
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr);

/* A PathRecord between host form and its 64-byte wire form. */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute);
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec);

/*
 * Get (IB_MGMT_METHOD_GET), set (IB_MGMT_METHOD_SET) or delete
 * (IB_SA_METHOD_DELETE) a GuidInfoRecord. Callback and return value as for
 * ib_sa_path_rec_get(); @resp is NULL on error.
 */
int ib_sa_guid_info_rec_query(struct ib_sa_client *client,
			      struct ib_device *device, u32 port_num,
			      struct ib_sa_guidinfo_rec *rec,
			      ib_sa_comp_mask comp_mask, u8 method,
			      unsigned long timeout_ms, gfp_t gfp_mask,
			      void (*callback)(int status,
					       struct ib_sa_guidinfo_rec *resp,
					       void *context),
			      void *context, struct ib_sa_query **sa_query);

#endif /* IB_SA_H */
