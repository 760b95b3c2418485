// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles: CREATE_AH (write() only in rdma-core 44), DESTROY_AH /
 * AH/DESTROY, and the user address vector conversions that QPs share
 * (MODIFY_QP and QUERY_QP carry the same fields).
 */
#include <linux/slab.h>

#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

static enum rdma_ah_attr_type uverbs_ah_type(struct ib_device *dev, u32 port)
{
	if (rdma_is_port_valid(dev, port) && rdma_protocol_roce(dev, port))
		return RDMA_AH_ATTR_TYPE_ROCE;
	return RDMA_AH_ATTR_TYPE_IB;
}

/*
 * User address vector to rdma_ah_attr. The port decides the AH type
 * (RoCE ports carry a dmac the core resolves later); the GRH is only
 * taken when userspace marked it valid.
 */
static void uverbs_fill_ah_attr(struct ib_device *dev,
				struct rdma_ah_attr *ah, u8 port, u16 dlid,
				u8 sl, u8 src_path_bits, u8 static_rate,
				bool is_global, const u8 *dgid, u32 flow_label,
				u8 sgid_index, u8 hop_limit, u8 traffic_class)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = uverbs_ah_type(dev, port);
	rdma_ah_set_dlid(ah, dlid);
	rdma_ah_set_sl(ah, sl);
	rdma_ah_set_path_bits(ah, src_path_bits);
	rdma_ah_set_static_rate(ah, static_rate);
	rdma_ah_set_port_num(ah, port);
	if (is_global) {
		rdma_ah_set_grh(ah, NULL, flow_label, sgid_index, hop_limit,
				traffic_class);
		rdma_ah_set_dgid_raw(ah, (void *)dgid);
	} else {
		rdma_ah_set_ah_flags(ah, 0);
	}
}

void ib_uverbs_ah_attr_from_user(struct ib_device *dev,
				 struct rdma_ah_attr *ah,
				 const struct ib_uverbs_ah_attr *uah)
{
	uverbs_fill_ah_attr(dev, ah, uah->port_num, uah->dlid, uah->sl,
			    uah->src_path_bits, uah->static_rate,
			    uah->is_global, uah->grh.dgid, uah->grh.flow_label,
			    uah->grh.sgid_index, uah->grh.hop_limit,
			    uah->grh.traffic_class);
}

void uverbs_qp_dest_to_ah_attr(struct ib_device *dev, struct rdma_ah_attr *ah,
			       const struct ib_uverbs_qp_dest *dest)
{
	uverbs_fill_ah_attr(dev, ah, dest->port_num, dest->dlid, dest->sl,
			    dest->src_path_bits, dest->static_rate,
			    dest->is_global, dest->dgid, dest->flow_label,
			    dest->sgid_index, dest->hop_limit,
			    dest->traffic_class);
}

void uverbs_ah_attr_to_qp_dest(struct ib_uverbs_qp_dest *dest,
			       const struct rdma_ah_attr *ah)
{
	memset(dest, 0, sizeof(*dest));
	dest->dlid = rdma_ah_get_dlid(ah);
	dest->sl = rdma_ah_get_sl(ah);
	dest->src_path_bits = ah->type == RDMA_AH_ATTR_TYPE_IB ?
			      ah->ib.src_path_bits : 0;
	dest->static_rate = rdma_ah_get_static_rate(ah);
	dest->port_num = rdma_ah_get_port_num(ah);
	dest->is_global = !!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH);
	if (dest->is_global) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		memcpy(dest->dgid, grh->dgid.raw, sizeof(dest->dgid));
		dest->flow_label = grh->flow_label;
		dest->sgid_index = grh->sgid_index;
		dest->hop_limit = grh->hop_limit;
		dest->traffic_class = grh->traffic_class;
	}
}

static int uverbs_free_ah(struct ib_uobject *uobj, enum rdma_remove_reason why,
			  struct uverbs_attr_bundle *attrs)
{
	return rdma_destroy_ah_user(uobj->object, RDMA_DESTROY_AH_SLEEPABLE,
				    &attrs->driver_udata);
}

static int uverbs_create_ah(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr attr;
	struct ib_device *ib_dev;
	struct ib_ah *ah;
	struct ib_pd *pd;
	int ret;

	pd = uverbs_cmd_obj(attrs, cmd, pd_handle, UVERBS_OBJECT_PD, &pd_uobj);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	uobj = ERR_PTR(-EINVAL);
	if (rdma_is_port_valid(pd->device, cmd.attr.port_num))
		uobj = uobj_alloc(UVERBS_OBJECT_AH, attrs, &ib_dev);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out_pd;
	}
	uobj->user_handle = cmd.user_handle;
	ib_uverbs_ah_attr_from_user(ib_dev, &attr, &cmd.attr);
	ah = rdma_create_user_ah(pd, &attr, &attrs->driver_udata);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		uobj_alloc_abort(uobj, attrs);
		goto out_pd;
	}
	ah->uobject = uobj;
	uobj->object = ah;
	uobj_finalize_uobj_create(uobj, attrs);

	resp.ah_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
out_pd:
	uobj_put_read(pd_uobj);
	return ret;
}

static int uverbs_destroy_ah(struct uverbs_attr_bundle *attrs)
{
	return uverbs_write_destroy(attrs, UVERBS_OBJECT_AH);
}

DECLARE_UVERBS_NAMED_METHOD_DESTROY(
	UVERBS_METHOD_AH_DESTROY,
	UVA_IDR(UVERBS_ATTR_DESTROY_AH_HANDLE, AH, DESTROY, UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_AH,
			    UVERBS_TYPE_ALLOC_IDR(uverbs_free_ah),
			    &UVERBS_METHOD(UVERBS_METHOD_AH_DESTROY));

/* A driver without user AHs (siw) has none of this. */
const struct uapi_definition uverbs_def_ah[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_AH,
				      UAPI_DEF_OBJ_NEEDS_FN(create_user_ah)),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_AH,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_AH,
				     uverbs_create_ah,
				     UAPI_WRITE_UDATA_IO(create_ah,
							 create_ah_resp)),
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_DESTROY_AH,
				     uverbs_destroy_ah,
				     UAPI_WRITE_REQ(destroy_ah))),
	{},
};
