// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The DEVICE object's queries: QUERY_DEVICE and its extended form
 * (write() only), QUERY_PORT (write() and ioctl, one answer), and the GID
 * table through QUERY_GID_TABLE / QUERY_GID_ENTRY (ioctl only; what
 * ibv_query_gid_ex and ibv_query_gid_table use).
 */
#include <linux/netdevice.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* ------------------------------------------------------------ device */

/* The legacy device answer, also the base of the extended one. */
static void fill_query_device(struct ib_device *ib_dev,
			      const struct ib_device_attr *a,
			      struct ib_uverbs_query_device_resp *resp)
{
	*resp = (struct ib_uverbs_query_device_resp) {
		.node_guid		= ib_dev->node_guid,
		.phys_port_cnt	= min_t(u32, rdma_end_port(ib_dev), U8_MAX),
		.fw_ver			= a->fw_ver,
		.sys_image_guid		= a->sys_image_guid,
		.max_mr_size		= a->max_mr_size,
		.page_size_cap		= a->page_size_cap,
		.vendor_id		= a->vendor_id,
		.vendor_part_id		= a->vendor_part_id,
		.hw_ver			= a->hw_ver,
		.max_qp			= a->max_qp,
		.max_qp_wr		= a->max_qp_wr,
		.device_cap_flags	= lower_32_bits(a->device_cap_flags),
		/* One number for both directions: what works for either. */
		.max_sge	= min(a->max_send_sge, a->max_recv_sge),
		.max_sge_rd		= a->max_sge_rd,
		.max_cq			= a->max_cq,
		.max_cqe		= a->max_cqe,
		.max_mr			= a->max_mr,
		.max_pd			= a->max_pd,
		.max_qp_rd_atom		= a->max_qp_rd_atom,
		.max_ee_rd_atom		= a->max_ee_rd_atom,
		.max_res_rd_atom	= a->max_res_rd_atom,
		.max_qp_init_rd_atom	= a->max_qp_init_rd_atom,
		.max_ee_init_rd_atom	= a->max_ee_init_rd_atom,
		.atomic_cap		= a->atomic_cap,
		.max_ee			= a->max_ee,
		.max_rdd		= a->max_rdd,
		.max_mw			= a->max_mw,
		.max_raw_ipv6_qp	= a->max_raw_ipv6_qp,
		.max_raw_ethy_qp	= a->max_raw_ethy_qp,
		.max_mcast_grp		= a->max_mcast_grp,
		.max_mcast_qp_attach	= a->max_mcast_qp_attach,
		.max_total_mcast_qp_attach = a->max_total_mcast_qp_attach,
		.max_ah			= a->max_ah,
		.max_srq		= a->max_srq,
		.max_srq_wr		= a->max_srq_wr,
		.max_srq_sge		= a->max_srq_sge,
		.max_pkeys		= a->max_pkeys,
		.local_ca_ack_delay	= a->local_ca_ack_delay,
	};
}

/* What the extended answer adds to the legacy one. */
static void fill_query_device_ex(const struct ib_device_attr *a,
				 struct ib_uverbs_ex_query_device_resp *resp)
{
	const struct ib_odp_caps *odp = &a->odp_caps;

	resp->odp_caps = (struct ib_uverbs_odp_caps) {
		.general_caps = odp->general_caps,
		.per_transport_caps = {
			.rc_odp_caps = odp->per_transport_caps.rc_odp_caps,
			.uc_odp_caps = odp->per_transport_caps.uc_odp_caps,
			.ud_odp_caps = odp->per_transport_caps.ud_odp_caps,
		},
	};
	resp->xrc_odp_caps = odp->per_transport_caps.xrc_odp_caps;
	resp->rss_caps = (struct ib_uverbs_rss_caps) {
		.supported_qpts = a->rss_caps.supported_qpts,
		.max_rwq_indirection_tables =
			a->rss_caps.max_rwq_indirection_tables,
		.max_rwq_indirection_table_size =
			a->rss_caps.max_rwq_indirection_table_size,
	};
	resp->tm_caps = (struct ib_uverbs_tm_caps) {
		.max_rndv_hdr_size = a->tm_caps.max_rndv_hdr_size,
		.max_num_tags = a->tm_caps.max_num_tags,
		.flags = a->tm_caps.flags,
		.max_ops = a->tm_caps.max_ops,
		.max_sge = a->tm_caps.max_sge,
	};
	resp->cq_moderation_caps = (struct ib_uverbs_cq_moderation_caps) {
		.max_cq_moderation_count = a->cq_caps.max_cq_moderation_count,
		.max_cq_moderation_period = a->cq_caps.max_cq_moderation_period,
	};
	resp->timestamp_mask = a->timestamp_mask;
	resp->hca_core_clock = a->hca_core_clock;
	resp->device_cap_flags_ex = a->device_cap_flags;
	resp->max_wq_type_rq = a->max_wq_type_rq;
	resp->raw_packet_caps = a->raw_packet_caps;
	resp->max_dm_size = a->max_dm_size;
}

static int uverbs_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_device cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	fill_query_device(ib_dev, &ib_dev->attrs, &resp);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int uverbs_ex_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_ex_query_device_resp resp;
	struct ib_uverbs_ex_query_device cmd;
	struct ib_device_attr attr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved)
		return -EINVAL;

	if (ib_dev->ops.query_device) {
		memset(&attr, 0, sizeof(attr));
		ret = ib_dev->ops.query_device(ib_dev, &attr,
					       &attrs->driver_udata);
		if (ret)
			return ret;
	} else {
		attr = ib_dev->attrs;
	}

	memset(&resp, 0, sizeof(resp));
	fill_query_device(ib_dev, &attr, &resp.base);
	fill_query_device_ex(&attr, &resp);
	/* Userspace only trusts the fields that fit in what we wrote. */
	resp.response_length = min_t(size_t, sizeof(resp),
				     attrs->ucore.outlen);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ------------------------------------------------------------ port */

/* The port's answer to both QUERY_PORTs; 0 or an errno. */
static int uverbs_fill_port(struct uverbs_attr_bundle *attrs, u32 port,
			    struct ib_uverbs_query_port_resp_ex *out)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_query_port_resp *resp = &out->legacy_resp;
	struct ib_port_attr attr;
	u32 flags;
	int ret;

	if (!rdma_is_port_valid(ib_dev, port))
		return -EINVAL;
	ret = ib_query_port(ib_dev, port, &attr);
	if (ret)
		return ret;

	memset(out, 0, sizeof(*out));
	/* IB_PORT_* capability bits are the IB_UVERBS_PCF_* ones... */
	flags = attr.port_cap_flags & ~(u32)IB_UVERBS_PCF_IP_BASED_GIDS;
	/* ...except this one, which tells libibverbs to read GID types. */
	if (attr.ip_gids)
		flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
	resp->port_cap_flags = flags;
	resp->max_msg_sz = attr.max_msg_sz;
	resp->bad_pkey_cntr = attr.bad_pkey_cntr;
	resp->qkey_viol_cntr = attr.qkey_viol_cntr;
	resp->gid_tbl_len = attr.gid_tbl_len;
	resp->pkey_tbl_len = attr.pkey_tbl_len;
	resp->lid = (u16)attr.lid;
	resp->sm_lid = (u16)attr.sm_lid;
	resp->state = attr.state;
	resp->max_mtu = attr.max_mtu;
	resp->active_mtu = attr.active_mtu;
	resp->lmc = attr.lmc;
	resp->max_vl_num = attr.max_vl_num;
	resp->sm_sl = attr.sm_sl;
	resp->subnet_timeout = attr.subnet_timeout;
	resp->init_type_reply = attr.init_type_reply;
	resp->active_width = attr.active_width;
	resp->active_speed = (u8)attr.active_speed;
	resp->phys_state = attr.phys_state;
	resp->link_layer = rdma_port_get_link_layer(ib_dev, port);
	if (rdma_is_grh_required(ib_dev, port))
		resp->flags |= IB_UVERBS_QPF_GRH_REQUIRED;
	out->port_cap_flags2 = attr.port_cap_flags2;
	return 0;
}

static int uverbs_query_port(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_port_resp_ex resp;
	struct ib_uverbs_query_port cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = uverbs_fill_port(attrs, cmd.port_num, &resp);
	if (ret)
		return ret;
	return uverbs_response(attrs, &resp.legacy_resp,
			       sizeof(resp.legacy_resp));
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_PORT)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_port_resp_ex resp;
	struct ib_ucontext *ucontext;
	u8 port;
	int ret;

	ucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	ret = uverbs_get_const(&port, attrs, UVERBS_ATTR_QUERY_PORT_PORT_NUM);
	if (ret)
		return ret;
	ret = uverbs_fill_port(attrs, port, &resp);
	if (ret)
		return ret;
	return uverbs_copy_to_struct_or_zero(attrs, UVERBS_ATTR_QUERY_PORT_RESP,
					     &resp, sizeof(resp));
}

/* ------------------------------------------------------------ GIDs */

/*
 * Ports without a core GID table (iWARP, IB) answer from the driver: type
 * IB and no netdev, as the stock kernel answers for siw.
 */
static int uverbs_driver_gid_entry(struct ib_device *ib_dev, u32 port,
				   u32 index, struct ib_uverbs_gid_entry *ent)
{
	union ib_gid gid;
	int ret;

	if (index >= ib_dev->port_data[port].immutable.gid_tbl_len)
		return -EINVAL;
	ret = rdma_query_gid(ib_dev, port, index, &gid);
	if (ret)
		return ret;
	if (!memcmp(&gid, &zgid, sizeof(gid)))
		return -ENODATA;
	memset(ent, 0, sizeof(*ent));
	memcpy(ent->gid, gid.raw, sizeof(ent->gid));
	ent->gid_index = index;
	ent->port_num = port;
	ent->gid_type = IB_UVERBS_GID_TYPE_IB;
	return 0;
}

/* The answer for one GID table entry; -ENODATA if it is empty. */
static int uverbs_gid_entry(struct ib_device *ib_dev, u32 port, u32 index,
			    struct ib_uverbs_gid_entry *ent)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;

	if (!rdma_protocol_roce(ib_dev, port))
		return uverbs_driver_gid_entry(ib_dev, port, index, ent);
	attr = rdma_get_gid_attr(ib_dev, port, index);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	memset(ent, 0, sizeof(*ent));
	memcpy(ent->gid, attr->gid.raw, sizeof(ent->gid));
	ent->gid_index = index;
	ent->port_num = port;
	/* IB_GID_TYPE_* and IB_UVERBS_GID_TYPE_* count alike. */
	ent->gid_type = attr->gid_type;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		ent->netdev_ifindex = ndev->ifindex;
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_GID_ENTRY)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_gid_entry ent;
	struct ib_ucontext *ucontext;
	u32 port, index, flags;
	int ret;

	ucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	ret = uverbs_get_flags32(&flags, attrs,
				 UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0);
	if (ret)
		return ret;
	ret = uverbs_get_const(&port, attrs, UVERBS_ATTR_QUERY_GID_ENTRY_PORT);
	if (ret)
		return ret;
	ret = uverbs_get_const(&index, attrs,
			       UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX);
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ucontext->device, port))
		return -EINVAL;
	ret = uverbs_gid_entry(ucontext->device, port, index, &ent);
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
			      &ent, sizeof(ent));
}

/*
 * Every valid entry of every port, entry_size bytes apart: entries shorter
 * than ours get its first entry_size bytes, longer ones are zero-filled;
 * the buffer must hold a whole number of entries, and all of them (else
 * EINVAL).
 */
/* One entry of size bytes: ours cut or zero-filled to fit. */
static int uverbs_put_gid_entry(void __user *dst, size_t size,
				const struct ib_uverbs_gid_entry *ent)
{
	size_t n = min(size, sizeof(*ent));

	if (copy_to_user(dst, ent, n))
		return -EFAULT;
	if (size > n && clear_user(dst + n, size - n))
		return -EFAULT;
	return 0;
}

static int UVERBS_HANDLER(UVERBS_METHOD_QUERY_GID_TABLE)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_gid_entry ent;
	struct ib_ucontext *ucontext;
	struct ib_device *ib_dev;
	u64 entry_size, count = 0;
	void __user *out;
	u32 flags, port, index;
	int max, ret;

	ret = uverbs_get_flags32(&flags, attrs,
				 UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0);
	if (ret)
		return ret;
	ret = uverbs_get_const(&entry_size, attrs,
			       UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE);
	if (ret)
		return ret;
	if (!entry_size || entry_size > U16_MAX)
		return -EINVAL;
	max = uverbs_attr_ptr_get_array_size(attrs,
			UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, entry_size);
	if (max <= 0)
		return -EINVAL;
	ucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ucontext))
		return PTR_ERR(ucontext);
	ib_dev = ucontext->device;
	out = u64_to_user_ptr(uverbs_attr_get(attrs,
			UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES)->ptr_attr.data);

	rdma_for_each_port(ib_dev, port) {
		u32 len = ib_dev->port_data[port].immutable.gid_tbl_len;

		for (index = 0; index < len; index++) {
			ret = uverbs_gid_entry(ib_dev, port, index, &ent);
			if (ret == -ENODATA)
				continue;
			if (ret)
				return ret;
			if (count == max)
				return -EINVAL;
			ret = uverbs_put_gid_entry(out + count * entry_size,
						   entry_size, &ent);
			if (ret)
				return ret;
			count++;
		}
	}
	ret = uverbs_set_output_flag(attrs, uapi_bkey_attr(uapi_key_attr(
				UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES)));
	if (ret)
		return ret;
	return uverbs_copy_to(attrs, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES,
			      &count, sizeof(count));
}

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QUERY_PORT,
	UVA_OUT(UVERBS_ATTR_QUERY_PORT_RESP, struct ib_uverbs_query_port_resp_ex,
		UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_QUERY_PORT_PORT_NUM, u8, UA_MANDATORY));

/* Every valid entry of every port (ibv_query_gid_table). */
DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QUERY_GID_TABLE,
	UVA_OUT_ANY(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, 0, UA_MANDATORY),
	UVA_OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, u64,
		UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, u64, UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, u32, UA_OPTIONAL));

DECLARE_UVERBS_NAMED_METHOD(
	UVERBS_METHOD_QUERY_GID_ENTRY,
	UVA_OUT(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
		struct ib_uverbs_gid_entry, UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, u32, UA_MANDATORY),
	UVA_CONST(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, u32, UA_MANDATORY),
	UVA_FLAGS(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, u32, UA_MANDATORY));

ADD_UVERBS_METHODS(uverbs_query_methods, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(UVERBS_METHOD_QUERY_PORT),
		   &UVERBS_METHOD(UVERBS_METHOD_QUERY_GID_TABLE),
		   &UVERBS_METHOD(UVERBS_METHOD_QUERY_GID_ENTRY));

const struct uapi_definition uverbs_def_query[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &uverbs_query_methods),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_DEVICE,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_QUERY_DEVICE,
				     uverbs_query_device,
				     UAPI_WRITE_IO(query_device,
						   query_device_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_QUERY_PORT,
				     uverbs_query_port,
				     UAPI_WRITE_IO(query_port, query_port_resp)),
		DECLARE_UVERBS_WRITE_EX(IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
					uverbs_ex_query_device,
					UAPI_WRITE_EX(sizeof(struct ib_uverbs_ex_query_device),
						      offsetofend(struct ib_uverbs_ex_query_device_resp,
								  response_length)))),
	{},
};
