// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() command protocol of /dev/infiniband/uverbsN (ABI.md 4.2,
 * 4.3): header checks, the legacy and extended framings, the command
 * table, and the handlers for the context, device, port, PD, MR, MW, AH,
 * completion channel and multicast commands. CQ, QP and SRQ handlers live
 * in uverbs_cmd_qp.c.
 */
#include <linux/file.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/restrack.h>

#include "uverbs.h"

/* ------------------------------------------------------------ helpers */

int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len)
{
	size_t n = min(req_len, attrs->ucore.inlen);

	if (copy_from_user(req, attrs->ucore.inbuf, n))
		return -EFAULT;
	if (n < req_len)
		memset(req + n, 0, req_len - n);
	return 0;
}

int uverbs_copy_in(struct uverbs_attr_bundle *attrs, size_t offset,
		   void *dst, size_t len)
{
	size_t end;

	if (check_add_overflow(offset, len, &end) ||
	    end > attrs->ucore.inlen)
		return -EINVAL;
	if (copy_from_user(dst, attrs->ucore.inbuf + offset, len))
		return -EFAULT;
	return 0;
}

int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len)
{
	size_t n = min(resp_len, attrs->ucore.outlen);

	if (!attrs->ucore.outbuf)
		return -EFAULT;
	if (copy_to_user(attrs->ucore.outbuf, resp, n))
		return -EFAULT;
	/* Ex buffers may be larger than what this kernel knows: zero them. */
	if (n < attrs->ucore.outlen &&
	    clear_user(attrs->ucore.outbuf + n, attrs->ucore.outlen - n))
		return -EFAULT;
	return 0;
}

int uverbs_copy_out(struct uverbs_attr_bundle *attrs, size_t offset,
		    const void *src, size_t len)
{
	size_t end;

	if (check_add_overflow(offset, len, &end) ||
	    end > attrs->ucore.outlen)
		return -ENOSPC;
	if (!attrs->ucore.outbuf)
		return -EFAULT;
	if (copy_to_user(attrs->ucore.outbuf + offset, src, len))
		return -EFAULT;
	return 0;
}

/*
 * A driver object the core allocates for the driver; NULL also when the
 * driver declared no size for it (kzalloc(0) would not be usable).
 */
#define uverbs_zalloc_drv_obj(ib_dev, ib_type)				\
	((ib_dev)->ops.size_##ib_type >= sizeof(struct ib_type) ?	\
	 rdma_zalloc_drv_obj(ib_dev, ib_type) : NULL)

/* Destroys the object behind a handle; cmd_rwsem is held for write. */
static int uverbs_destroy_handle(struct uverbs_attr_bundle *attrs,
				 enum uverbs_type type, u32 handle)
{
	struct ib_uobject *uobj;
	int ret;

	ret = uobj_destroy_by_handle(attrs, type, handle, &uobj);
	if (ret)
		return ret;
	uobj_remove_commit(uobj);
	return 0;
}

/* ------------------------------------------------------------ context */

int ib_uverbs_get_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_device *ib_dev = ufile->ib_dev;
	struct ib_uverbs_async_event_file *ev_file;
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context cmd;
	struct ib_ucontext *ucontext;
	struct file *filp;
	int fd, ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (ufile->ucontext)
		return -EINVAL;

	ucontext = uverbs_zalloc_drv_obj(ib_dev, ib_ucontext);
	if (!ucontext)
		return -ENOMEM;
	ucontext->device = ib_dev;
	ucontext->ufile = ufile;
	/* The driver reaches its context through the udata. */
	attrs->context = ucontext;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_free;
	}
	filp = ib_uverbs_alloc_async_event_file(ufile, &ev_file);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_fd;
	}

	rdma_restrack_new(&ucontext->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&ucontext->res, NULL);
	ret = ib_dev->ops.alloc_ucontext(ucontext, &attrs->driver_udata);
	if (ret)
		goto err_file;

	/* Write mode only: the async fd comes with the context (ABI 4.5). */
	resp.async_fd = fd;
	resp.num_comp_vectors = ib_dev->num_comp_vectors;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_dealloc;

	rdma_restrack_add(&ucontext->res);
	ufile->async_file = ev_file;
	ib_uverbs_async_file_register(ev_file, ib_dev);
	fd_install(fd, filp);
	/* mmap() reads it without cmd_rwsem. */
	smp_store_release(&ufile->ucontext, ucontext);
	return 0;

err_dealloc:
	if (ib_dev->ops.dealloc_ucontext)
		ib_dev->ops.dealloc_ucontext(ucontext);
err_file:
	/* Drops the creator reference set_name took. */
	rdma_restrack_del(&ucontext->res);
	ib_uverbs_async_file_put(ev_file);
	fput(filp);
err_fd:
	put_unused_fd(fd);
err_free:
	attrs->context = NULL;
	kfree(ucontext);
	return ret;
}

/* ------------------------------------------------------------ device */

static void fill_query_device(struct ib_device *ib_dev,
			      const struct ib_device_attr *attr,
			      struct ib_uverbs_query_device_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->fw_ver = attr->fw_ver;
	resp->node_guid = ib_dev->node_guid;
	resp->sys_image_guid = attr->sys_image_guid;
	resp->max_mr_size = attr->max_mr_size;
	resp->page_size_cap = attr->page_size_cap;
	resp->vendor_id = attr->vendor_id;
	resp->vendor_part_id = attr->vendor_part_id;
	resp->hw_ver = attr->hw_ver;
	resp->max_qp = attr->max_qp;
	resp->max_qp_wr = attr->max_qp_wr;
	resp->device_cap_flags = lower_32_bits(attr->device_cap_flags);
	/* One number for both directions: what works for either. */
	resp->max_sge = min(attr->max_send_sge, attr->max_recv_sge);
	resp->max_sge_rd = attr->max_sge_rd;
	resp->max_cq = attr->max_cq;
	resp->max_cqe = attr->max_cqe;
	resp->max_mr = attr->max_mr;
	resp->max_pd = attr->max_pd;
	resp->max_qp_rd_atom = attr->max_qp_rd_atom;
	resp->max_ee_rd_atom = attr->max_ee_rd_atom;
	resp->max_res_rd_atom = attr->max_res_rd_atom;
	resp->max_qp_init_rd_atom = attr->max_qp_init_rd_atom;
	resp->max_ee_init_rd_atom = attr->max_ee_init_rd_atom;
	resp->atomic_cap = attr->atomic_cap;
	resp->max_ee = attr->max_ee;
	resp->max_rdd = attr->max_rdd;
	resp->max_mw = attr->max_mw;
	resp->max_raw_ipv6_qp = attr->max_raw_ipv6_qp;
	resp->max_raw_ethy_qp = attr->max_raw_ethy_qp;
	resp->max_mcast_grp = attr->max_mcast_grp;
	resp->max_mcast_qp_attach = attr->max_mcast_qp_attach;
	resp->max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach;
	resp->max_ah = attr->max_ah;
	resp->max_srq = attr->max_srq;
	resp->max_srq_wr = attr->max_srq_wr;
	resp->max_srq_sge = attr->max_srq_sge;
	resp->max_pkeys = attr->max_pkeys;
	resp->local_ca_ack_delay = attr->local_ca_ack_delay;
	resp->phys_port_cnt = min_t(u32, rdma_end_port(ib_dev), U8_MAX);
}

int ib_uverbs_query_device(struct uverbs_attr_bundle *attrs)
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

int ib_uverbs_ex_query_device(struct uverbs_attr_bundle *attrs)
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
	resp.odp_caps.general_caps = attr.odp_caps.general_caps;
	resp.odp_caps.per_transport_caps.rc_odp_caps =
		attr.odp_caps.per_transport_caps.rc_odp_caps;
	resp.odp_caps.per_transport_caps.uc_odp_caps =
		attr.odp_caps.per_transport_caps.uc_odp_caps;
	resp.odp_caps.per_transport_caps.ud_odp_caps =
		attr.odp_caps.per_transport_caps.ud_odp_caps;
	resp.xrc_odp_caps = attr.odp_caps.per_transport_caps.xrc_odp_caps;
	resp.timestamp_mask = attr.timestamp_mask;
	resp.hca_core_clock = attr.hca_core_clock;
	resp.device_cap_flags_ex = attr.device_cap_flags;
	resp.rss_caps.supported_qpts = attr.rss_caps.supported_qpts;
	resp.rss_caps.max_rwq_indirection_tables =
		attr.rss_caps.max_rwq_indirection_tables;
	resp.rss_caps.max_rwq_indirection_table_size =
		attr.rss_caps.max_rwq_indirection_table_size;
	resp.max_wq_type_rq = attr.max_wq_type_rq;
	resp.raw_packet_caps = attr.raw_packet_caps;
	resp.tm_caps.max_rndv_hdr_size = attr.tm_caps.max_rndv_hdr_size;
	resp.tm_caps.max_num_tags = attr.tm_caps.max_num_tags;
	resp.tm_caps.flags = attr.tm_caps.flags;
	resp.tm_caps.max_ops = attr.tm_caps.max_ops;
	resp.tm_caps.max_sge = attr.tm_caps.max_sge;
	resp.cq_moderation_caps.max_cq_moderation_count =
		attr.cq_caps.max_cq_moderation_count;
	resp.cq_moderation_caps.max_cq_moderation_period =
		attr.cq_caps.max_cq_moderation_period;
	resp.max_dm_size = attr.max_dm_size;
	/* Userspace only trusts the fields that fit in what we wrote. */
	resp.response_length = min_t(size_t, sizeof(resp),
				     attrs->ucore.outlen);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

int ib_uverbs_query_port(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_uverbs_query_port cmd;
	struct ib_port_attr attr;
	u32 flags;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ib_dev, cmd.port_num))
		return -EINVAL;
	ret = ib_query_port(ib_dev, cmd.port_num, &attr);
	if (ret)
		return ret;

	/* IB_PORT_* capability bits are the IB_UVERBS_PCF_* ones... */
	flags = attr.port_cap_flags & ~(u32)IB_UVERBS_PCF_IP_BASED_GIDS;
	/* ...except this one, which tells libibverbs to read GID types. */
	if (attr.ip_gids)
		flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
	resp.port_cap_flags = flags;
	resp.max_msg_sz = attr.max_msg_sz;
	resp.bad_pkey_cntr = attr.bad_pkey_cntr;
	resp.qkey_viol_cntr = attr.qkey_viol_cntr;
	resp.gid_tbl_len = attr.gid_tbl_len;
	resp.pkey_tbl_len = attr.pkey_tbl_len;
	resp.lid = (u16)attr.lid;
	resp.sm_lid = (u16)attr.sm_lid;
	resp.state = attr.state;
	resp.max_mtu = attr.max_mtu;
	resp.active_mtu = attr.active_mtu;
	resp.lmc = attr.lmc;
	resp.max_vl_num = attr.max_vl_num;
	resp.sm_sl = attr.sm_sl;
	resp.subnet_timeout = attr.subnet_timeout;
	resp.init_type_reply = attr.init_type_reply;
	resp.active_width = attr.active_width;
	resp.active_speed = (u8)attr.active_speed;
	resp.phys_state = attr.phys_state;
	resp.link_layer = rdma_port_get_link_layer(ib_dev, cmd.port_num);
	if (rdma_is_grh_required(ib_dev, cmd.port_num))
		resp.flags |= IB_UVERBS_QPF_GRH_REQUIRED;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ------------------------------------------------------------ PD */

int ib_uverbs_alloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_uverbs_alloc_pd cmd;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!ib_dev->ops.alloc_pd)
		return -EOPNOTSUPP;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_PD, sizeof(*uobj));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	pd = uverbs_zalloc_drv_obj(ib_dev, ib_pd);
	if (!pd) {
		ret = -ENOMEM;
		goto err_uobj;
	}
	pd->device = ib_dev;
	pd->uobject = uobj;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, NULL);
	ret = ib_dev->ops.alloc_pd(pd, &attrs->driver_udata);
	if (ret) {
		rdma_restrack_del(&pd->res);
		kfree(pd);
		goto err_uobj;
	}
	rdma_restrack_add(&pd->res);
	uobj->object = pd;

	resp.pd_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_pd;
	uobj_alloc_commit(uobj);
	return 0;

err_pd:
	ib_dealloc_pd_user(pd, &attrs->driver_udata);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_dealloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_pd cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uverbs_destroy_handle(attrs, UVERBS_TYPE_PD, cmd.pd_handle);
}

/* ------------------------------------------------------------ MR */

static int uverbs_check_mr_access(struct ib_device *ib_dev, u32 flags)
{
	if (flags & ~(u32)IB_ACCESS_SUPPORTED)
		return -EINVAL;
	/* Remote writes and atomics land in memory: local write is implied. */
	if ((flags & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(flags & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((flags & IB_ACCESS_ON_DEMAND) &&
	    !(ib_dev->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		return -EOPNOTSUPP;
	return 0;
}

int ib_uverbs_reg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr cmd;
	struct ib_uobject *uobj;
	struct ib_mr *mr;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* The IOVA must sit at the same offset in its page as the buffer. */
	if ((cmd.start & ~PAGE_MASK) != (cmd.hca_va & ~PAGE_MASK))
		return -EINVAL;
	ret = uverbs_check_mr_access(ib_dev, cmd.access_flags);
	if (ret)
		return ret;
	if (!ib_dev->ops.reg_user_mr)
		return -EOPNOTSUPP;

	pd = uobj_get_obj(attrs, UVERBS_TYPE_PD, cmd.pd_handle);
	if (!pd)
		return -ENOENT;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_MR, sizeof(*uobj));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	mr = ib_dev->ops.reg_user_mr(pd, cmd.start, cmd.length, cmd.hca_va,
				     cmd.access_flags, &attrs->driver_udata);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err_uobj;
	}
	mr->device = ib_dev;
	mr->pd = pd;
	mr->type = IB_MR_TYPE_USER;
	mr->dm = NULL;
	mr->sig_attrs = NULL;
	mr->uobject = uobj;
	mr->iova = cmd.hca_va;
	mr->length = cmd.length;
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	rdma_restrack_add(&mr->res);
	uobj->object = mr;

	resp.mr_handle = uobj->id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_mr;
	uobj_alloc_commit(uobj);
	return 0;

err_mr:
	ib_dereg_mr_user(mr, &attrs->driver_udata);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

/* No driver of ours can change an MR in place; libibverbs reports it. */
int ib_uverbs_rereg_mr(struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}

int ib_uverbs_dereg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dereg_mr cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uverbs_destroy_handle(attrs, UVERBS_TYPE_MR, cmd.mr_handle);
}

/* ------------------------------------------------------------ MW */

int ib_uverbs_alloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uverbs_alloc_mw cmd;
	struct ib_uobject *uobj;
	struct ib_mw *mw;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (!ib_dev->ops.alloc_mw)
		return -EOPNOTSUPP;
	if (cmd.mw_type != IB_MW_TYPE_1 && cmd.mw_type != IB_MW_TYPE_2)
		return -EINVAL;

	pd = uobj_get_obj(attrs, UVERBS_TYPE_PD, cmd.pd_handle);
	if (!pd)
		return -ENOENT;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_MW, sizeof(*uobj));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	mw = uverbs_zalloc_drv_obj(ib_dev, ib_mw);
	if (!mw) {
		ret = -ENOMEM;
		goto err_uobj;
	}
	mw->device = ib_dev;
	mw->pd = pd;
	mw->uobject = uobj;
	mw->type = cmd.mw_type;
	ret = ib_dev->ops.alloc_mw(mw, &attrs->driver_udata);
	if (ret) {
		kfree(mw);
		goto err_uobj;
	}
	atomic_inc(&pd->usecnt);
	uobj->object = mw;

	resp.mw_handle = uobj->id;
	resp.rkey = mw->rkey;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_mw;
	uobj_alloc_commit(uobj);
	return 0;

err_mw:
	/* Same undo as the destroy path of uverbs_uobj.c. */
	uobj_destroy_hw(uobj, false, attrs);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_dealloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_mw cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uverbs_destroy_handle(attrs, UVERBS_TYPE_MW, cmd.mw_handle);
}

/* ------------------------------------------------------ completion channel */

int ib_uverbs_create_comp_channel(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel cmd;
	struct file *filp;
	int fd, ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	filp = ib_uverbs_alloc_comp_event_file(attrs->ufile);
	if (IS_ERR(filp)) {
		put_unused_fd(fd);
		return PTR_ERR(filp);
	}

	resp.fd = fd;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		/* The file's release drops the channel. */
		fput(filp);
		put_unused_fd(fd);
		return ret;
	}
	fd_install(fd, filp);
	return 0;
}

/* ------------------------------------------------------------ AH */

int ib_uverbs_create_ah(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ufile->ib_dev;
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr attr;
	struct ib_uobject *uobj;
	struct ib_ah *ah;
	struct ib_pd *pd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	/* a driver without user AHs (siw) has no such command at all */
	if (!ib_dev->ops.create_user_ah)
		return -EOPNOTSUPP;
	if (!rdma_is_port_valid(ib_dev, cmd.attr.port_num))
		return -EINVAL;

	pd = uobj_get_obj(attrs, UVERBS_TYPE_PD, cmd.pd_handle);
	if (!pd)
		return -ENOENT;

	uobj = uobj_alloc(attrs, UVERBS_TYPE_AH, sizeof(*uobj));
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uobj->user_handle = cmd.user_handle;

	ib_uverbs_ah_attr_from_user(ib_dev, &attr, &cmd.attr);

	ah = rdma_create_user_ah(pd, &attr, &attrs->driver_udata);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err_uobj;
	}
	ah->uobject = uobj;
	uobj->object = ah;

	resp.ah_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_ah;
	uobj_alloc_commit(uobj);
	return 0;

err_ah:
	rdma_destroy_ah_user(ah, RDMA_DESTROY_AH_SLEEPABLE,
			     &attrs->driver_udata);
err_uobj:
	uobj_alloc_abort(uobj);
	return ret;
}

int ib_uverbs_destroy_ah(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_ah cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uverbs_destroy_handle(attrs, UVERBS_TYPE_AH, cmd.ah_handle);
}

/* ------------------------------------------------------------ multicast */

/*
 * Attachments are remembered on the QP's uobject so that close can detach
 * them; attaching twice to the same group is a successful no-op.
 */
int ib_uverbs_attach_mcast(struct uverbs_attr_bundle *attrs)
{
	struct uverbs_mcast_entry *mcast;
	struct ib_uverbs_attach_mcast cmd;
	struct uverbs_uqp *u;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle);
	if (!qp || !qp->uobject)
		return -ENOENT;
	u = to_uverbs_uqp(qp->uobject);

	mutex_lock(&u->mcast_lock);
	list_for_each_entry(mcast, &u->mcast_list, list) {
		if (mcast->lid == cmd.mlid &&
		    !memcmp(mcast->gid.raw, cmd.gid, sizeof(cmd.gid))) {
			ret = 0;
			goto out;
		}
	}
	mcast = kmalloc(sizeof(*mcast), GFP_KERNEL);
	if (!mcast) {
		ret = -ENOMEM;
		goto out;
	}
	mcast->lid = cmd.mlid;
	memcpy(mcast->gid.raw, cmd.gid, sizeof(mcast->gid.raw));
	ret = ib_attach_mcast(qp, &mcast->gid, cmd.mlid);
	if (ret)
		kfree(mcast);
	else
		list_add_tail(&mcast->list, &u->mcast_list);
out:
	mutex_unlock(&u->mcast_lock);
	return ret;
}

int ib_uverbs_detach_mcast(struct uverbs_attr_bundle *attrs)
{
	struct uverbs_mcast_entry *mcast;
	struct ib_uverbs_detach_mcast cmd;
	struct uverbs_uqp *u;
	struct ib_qp *qp;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	qp = uobj_get_obj(attrs, UVERBS_TYPE_QP, cmd.qp_handle);
	if (!qp || !qp->uobject)
		return -ENOENT;
	u = to_uverbs_uqp(qp->uobject);

	mutex_lock(&u->mcast_lock);
	ret = -EINVAL;
	list_for_each_entry(mcast, &u->mcast_list, list) {
		if (mcast->lid == cmd.mlid &&
		    !memcmp(mcast->gid.raw, cmd.gid, sizeof(cmd.gid))) {
			ret = ib_detach_mcast(qp, &mcast->gid, mcast->lid);
			if (!ret) {
				list_del(&mcast->list);
				kfree(mcast);
			}
			break;
		}
	}
	mutex_unlock(&u->mcast_lock);
	return ret;
}

/* ------------------------------------------------------------ dispatch */

enum {
	/* Legacy framing: driver data follows the core request/response. */
	UVERBS_CMD_UDATA	= 1 << 0,
	/* Runs with cmd_rwsem held for write (destroys, GET_CONTEXT). */
	UVERBS_CMD_EXCL		= 1 << 1,
	/* Allowed before GET_CONTEXT. */
	UVERBS_CMD_NO_CTX	= 1 << 2,
};

struct uverbs_write_cmd {
	int (*handler)(struct uverbs_attr_bundle *attrs);
	u16 req_size;	/* smallest core request accepted */
	u16 resp_size;	/* smallest core response buffer accepted, 0: none */
	u8 flags;
};

#define UCMD(_num, _fn, _req, _resp, _flags)				\
	[IB_USER_VERBS_CMD_##_num] = {					\
		.handler = ib_uverbs_##_fn, .req_size = (_req),		\
		.resp_size = (_resp), .flags = (_flags) }

#define SZ(_s)	sizeof(struct ib_uverbs_##_s)

static const struct uverbs_write_cmd uverbs_write_cmds[] = {
	UCMD(GET_CONTEXT, get_context, SZ(get_context),
	     SZ(get_context_resp),
	     UVERBS_CMD_UDATA | UVERBS_CMD_EXCL | UVERBS_CMD_NO_CTX),
	UCMD(QUERY_DEVICE, query_device, SZ(query_device),
	     SZ(query_device_resp), 0),
	UCMD(QUERY_PORT, query_port, SZ(query_port), SZ(query_port_resp), 0),
	UCMD(ALLOC_PD, alloc_pd, SZ(alloc_pd), SZ(alloc_pd_resp),
	     UVERBS_CMD_UDATA),
	UCMD(DEALLOC_PD, dealloc_pd, SZ(dealloc_pd), 0, UVERBS_CMD_EXCL),
	UCMD(CREATE_AH, create_ah, SZ(create_ah), SZ(create_ah_resp),
	     UVERBS_CMD_UDATA),
	UCMD(DESTROY_AH, destroy_ah, SZ(destroy_ah), 0, UVERBS_CMD_EXCL),
	UCMD(REG_MR, reg_mr, SZ(reg_mr), SZ(reg_mr_resp), UVERBS_CMD_UDATA),
	UCMD(REREG_MR, rereg_mr, SZ(rereg_mr), SZ(rereg_mr_resp),
	     UVERBS_CMD_UDATA),
	UCMD(DEREG_MR, dereg_mr, SZ(dereg_mr), 0, UVERBS_CMD_EXCL),
	UCMD(ALLOC_MW, alloc_mw, SZ(alloc_mw), SZ(alloc_mw_resp),
	     UVERBS_CMD_UDATA),
	UCMD(DEALLOC_MW, dealloc_mw, SZ(dealloc_mw), 0, UVERBS_CMD_EXCL),
	UCMD(CREATE_COMP_CHANNEL, create_comp_channel,
	     SZ(create_comp_channel), SZ(create_comp_channel_resp), 0),
	UCMD(CREATE_CQ, create_cq, SZ(create_cq), SZ(create_cq_resp),
	     UVERBS_CMD_UDATA),
	UCMD(RESIZE_CQ, resize_cq, SZ(resize_cq), SZ(resize_cq_resp),
	     UVERBS_CMD_UDATA),
	UCMD(DESTROY_CQ, destroy_cq, SZ(destroy_cq), SZ(destroy_cq_resp),
	     UVERBS_CMD_EXCL),
	UCMD(POLL_CQ, poll_cq, SZ(poll_cq), SZ(poll_cq_resp), 0),
	UCMD(REQ_NOTIFY_CQ, req_notify_cq, SZ(req_notify_cq), 0, 0),
	UCMD(CREATE_QP, create_qp, SZ(create_qp), SZ(create_qp_resp),
	     UVERBS_CMD_UDATA),
	UCMD(QUERY_QP, query_qp, SZ(query_qp), SZ(query_qp_resp), 0),
	UCMD(MODIFY_QP, modify_qp, SZ(modify_qp), 0, UVERBS_CMD_UDATA),
	UCMD(DESTROY_QP, destroy_qp, SZ(destroy_qp), SZ(destroy_qp_resp),
	     UVERBS_CMD_EXCL),
	UCMD(POST_SEND, post_send, SZ(post_send), SZ(post_send_resp), 0),
	UCMD(POST_RECV, post_recv, SZ(post_recv), SZ(post_recv_resp), 0),
	UCMD(ATTACH_MCAST, attach_mcast, SZ(attach_mcast), 0, 0),
	UCMD(DETACH_MCAST, detach_mcast, SZ(detach_mcast), 0, 0),
	UCMD(CREATE_SRQ, create_srq, SZ(create_srq), SZ(create_srq_resp),
	     UVERBS_CMD_UDATA),
	UCMD(MODIFY_SRQ, modify_srq, SZ(modify_srq), 0, UVERBS_CMD_UDATA),
	UCMD(QUERY_SRQ, query_srq, SZ(query_srq), SZ(query_srq_resp), 0),
	UCMD(DESTROY_SRQ, destroy_srq, SZ(destroy_srq), SZ(destroy_srq_resp),
	     UVERBS_CMD_EXCL),
	UCMD(POST_SRQ_RECV, post_srq_recv, SZ(post_srq_recv),
	     SZ(post_srq_recv_resp), 0),
	UCMD(CREATE_XSRQ, create_xsrq, SZ(create_xsrq), SZ(create_srq_resp),
	     UVERBS_CMD_UDATA),
	UCMD(OPEN_QP, open_qp, SZ(open_qp), SZ(create_qp_resp),
	     UVERBS_CMD_UDATA),
};

/*
 * Extended commands always carry driver data through the provider word
 * counts. Sizes are the oldest layouts userspace may send; newer fields
 * read as zero (uverbs_request) and the response_length tells userspace
 * how much of a larger reply it got.
 */
#define XCMD(_num, _fn, _req, _resp)					\
	[IB_USER_VERBS_EX_CMD_##_num] = {				\
		.handler = ib_uverbs_##_fn, .req_size = (_req),		\
		.resp_size = (_resp) }

static const struct uverbs_write_cmd uverbs_write_ex_cmds[] = {
	XCMD(QUERY_DEVICE, ex_query_device, SZ(ex_query_device),
	     offsetofend(struct ib_uverbs_ex_query_device_resp,
			 response_length)),
	XCMD(CREATE_CQ, ex_create_cq, SZ(ex_create_cq),
	     offsetofend(struct ib_uverbs_ex_create_cq_resp,
			 response_length)),
	XCMD(CREATE_QP, ex_create_qp,
	     offsetofend(struct ib_uverbs_ex_create_qp, comp_mask),
	     offsetofend(struct ib_uverbs_ex_create_qp_resp,
			 response_length)),
	XCMD(MODIFY_QP, ex_modify_qp,
	     offsetofend(struct ib_uverbs_ex_modify_qp, base),
	     offsetofend(struct ib_uverbs_ex_modify_qp_resp,
			 response_length)),
};

/*
 * Fills attrs from a legacy header (ABI 4.2). count includes the header.
 */
static int uverbs_frame_legacy(const struct uverbs_write_cmd *cmd,
			       struct ib_uverbs_cmd_hdr *hdr,
			       const char __user *buf, size_t count,
			       struct uverbs_attr_bundle *attrs)
{
	const char __user *payload = buf + sizeof(*hdr);
	size_t in_len, out_len = (size_t)hdr->out_words * 4;
	u64 response = 0;

	if ((size_t)hdr->in_words * 4 != count)
		return -EINVAL;
	in_len = count - sizeof(*hdr);
	if (in_len < cmd->req_size) {
		/*
		 * rdma-core v18/v19 wrote DESTROY_CQ as 16 bytes while its
		 * buffer held the whole request; older kernels took it.
		 */
		if (hdr->command != IB_USER_VERBS_CMD_DESTROY_CQ ||
		    count != 16)
			return -ENOSPC;
		in_len = cmd->req_size;
	}
	if (out_len < cmd->resp_size)
		return -ENOSPC;

	/* Every command with a response starts with its address. */
	if (cmd->resp_size) {
		if (copy_from_user(&response, payload, sizeof(response)))
			return -EFAULT;
	} else {
		out_len = 0;
	}

	attrs->ucore.inbuf = payload;
	attrs->ucore.outbuf = u64_to_user_ptr(response);
	if (cmd->flags & UVERBS_CMD_UDATA) {
		attrs->ucore.inlen = cmd->req_size;
		attrs->ucore.outlen = cmd->resp_size;
		attrs->driver_udata.inbuf = payload + cmd->req_size;
		attrs->driver_udata.inlen = in_len - cmd->req_size;
		attrs->driver_udata.outbuf = response ?
			u64_to_user_ptr(response + cmd->resp_size) : NULL;
		attrs->driver_udata.outlen = response ?
			out_len - cmd->resp_size : 0;
	} else {
		attrs->ucore.inlen = in_len;
		attrs->ucore.outlen = out_len;
	}
	return 0;
}

static int uverbs_frame_ex(const struct uverbs_write_cmd *cmd,
			   const char __user *buf, size_t count,
			   struct uverbs_attr_bundle *attrs,
			   struct ib_uverbs_cmd_hdr *hdr)
{
	const char __user *payload;
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t in_len, out_len, drv_in, drv_out;
	void __user *response;

	if (count < sizeof(*hdr) + sizeof(ex))
		return -EINVAL;
	if (copy_from_user(&ex, buf + sizeof(*hdr), sizeof(ex)))
		return -EFAULT;
	payload = buf + sizeof(*hdr) + sizeof(ex);

	in_len = (size_t)hdr->in_words * 8;
	out_len = (size_t)hdr->out_words * 8;
	drv_in = (size_t)ex.provider_in_words * 8;
	drv_out = (size_t)ex.provider_out_words * 8;

	if (count != sizeof(*hdr) + sizeof(ex) + in_len + drv_in)
		return -EINVAL;
	if (ex.cmd_hdr_reserved)
		return -EINVAL;
	if (in_len < cmd->req_size)
		return -ENOSPC;
	if (out_len < cmd->resp_size)
		return -ENOSPC;
	if (!ex.response && (out_len || drv_out))
		return -EINVAL;
	response = u64_to_user_ptr(ex.response);
	if (ex.response && !access_ok(response, out_len + drv_out))
		return -EFAULT;

	attrs->ucore.inbuf = payload;
	attrs->ucore.inlen = in_len;
	attrs->ucore.outbuf = ex.response ? response : NULL;
	attrs->ucore.outlen = out_len;
	attrs->driver_udata.inbuf = payload + in_len;
	attrs->driver_udata.inlen = drv_in;
	attrs->driver_udata.outbuf = ex.response ? response + out_len : NULL;
	attrs->driver_udata.outlen = drv_out;
	return 0;
}

/* Core sizes userspace lays its buffers out with (ABI.md 4.3). */
static_assert(SZ(get_context) == 8);
static_assert(SZ(get_context_resp) == 8);
static_assert(SZ(query_device) == 8);
static_assert(SZ(query_device_resp) == 176);
static_assert(SZ(ex_query_device) == 8);
static_assert(SZ(ex_query_device_resp) == 304);
static_assert(SZ(query_port) == 16);
static_assert(SZ(query_port_resp) == 40);
static_assert(SZ(alloc_pd) == 8);
static_assert(SZ(alloc_pd_resp) == 4);
static_assert(SZ(dealloc_pd) == 4);
static_assert(SZ(create_ah) == 56);
static_assert(SZ(create_ah_resp) == 4);
static_assert(SZ(destroy_ah) == 4);
static_assert(SZ(reg_mr) == 40);
static_assert(SZ(reg_mr_resp) == 12);
static_assert(SZ(dereg_mr) == 4);
static_assert(SZ(alloc_mw) == 16);
static_assert(SZ(alloc_mw_resp) == 8);
static_assert(SZ(dealloc_mw) == 4);
static_assert(SZ(create_comp_channel) == 8);
static_assert(SZ(create_comp_channel_resp) == 4);
static_assert(SZ(create_cq) == 32);
static_assert(SZ(create_cq_resp) == 8);
static_assert(SZ(resize_cq) == 16);
static_assert(SZ(resize_cq_resp) == 8);
static_assert(SZ(destroy_cq) == 16);
static_assert(SZ(destroy_cq_resp) == 8);
static_assert(SZ(req_notify_cq) == 8);
static_assert(SZ(create_qp) == 56);
static_assert(SZ(create_qp_resp) == 32);
static_assert(SZ(ex_create_qp) == 64);
static_assert(SZ(ex_create_qp_resp) == 40);
static_assert(SZ(query_qp) == 16);
static_assert(SZ(query_qp_resp) == 128);
static_assert(SZ(modify_qp) == 112);
static_assert(SZ(destroy_qp) == 16);
static_assert(SZ(destroy_qp_resp) == 4);
static_assert(SZ(post_send) == 24);
static_assert(SZ(post_send_resp) == 4);
static_assert(SZ(attach_mcast) == 24);
static_assert(SZ(detach_mcast) == 24);
static_assert(SZ(create_srq) == 32);
static_assert(SZ(create_srq_resp) == 16);
static_assert(SZ(create_xsrq) == 48);
static_assert(SZ(modify_srq) == 16);
static_assert(SZ(query_srq) == 16);
static_assert(SZ(query_srq_resp) == 16);
static_assert(SZ(destroy_srq) == 16);
static_assert(SZ(destroy_srq_resp) == 4);
static_assert(sizeof(struct ib_uverbs_cmd_hdr) == 8);
static_assert(sizeof(struct ib_uverbs_ex_cmd_hdr) == 16);

ssize_t ib_uverbs_run_write(struct ib_uverbs_file *ufile,
			    const char __user *buf, size_t count)
{
	struct uverbs_attr_bundle attrs = {};
	const struct uverbs_write_cmd *cmd;
	struct ib_uverbs_cmd_hdr hdr;
	u32 idx;
	bool ex;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;

	if (hdr.command & ~(u32)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
				 IB_USER_VERBS_CMD_COMMAND_MASK))
		return -EINVAL;
	idx = hdr.command & IB_USER_VERBS_CMD_COMMAND_MASK;
	ex = hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED;

	if (ex) {
		if (idx >= ARRAY_SIZE(uverbs_write_ex_cmds))
			return -EOPNOTSUPP;
		cmd = &uverbs_write_ex_cmds[idx];
	} else {
		if (idx >= ARRAY_SIZE(uverbs_write_cmds))
			return -EOPNOTSUPP;
		cmd = &uverbs_write_cmds[idx];
	}
	if (!cmd->handler)
		return -EOPNOTSUPP;

	if (ex)
		ret = uverbs_frame_ex(cmd, buf, count, &attrs, &hdr);
	else
		ret = uverbs_frame_legacy(cmd, &hdr, buf, count, &attrs);
	if (ret)
		return ret;

	if (cmd->flags & UVERBS_CMD_EXCL)
		down_write(&ufile->cmd_rwsem);
	else
		down_read(&ufile->cmd_rwsem);

	/* The device is being removed: only close is left to do. */
	if (READ_ONCE(ufile->device->going_away) || ufile->torn_down) {
		ret = -EIO;
		goto out_unlock;
	}
	attrs.ufile = ufile;
	attrs.context = ufile->ucontext;
	if (!attrs.context && !(cmd->flags & UVERBS_CMD_NO_CTX)) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = cmd->handler(&attrs);

out_unlock:
	if (cmd->flags & UVERBS_CMD_EXCL)
		up_write(&ufile->cmd_rwsem);
	else
		up_read(&ufile->cmd_rwsem);
	return ret ? ret : count;
}
