// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw device and port attributes, user contexts, protection domains, the
 * device method table and registration with ib_core.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include "siw.h"

static int siw_query_device(struct ib_device *base, struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	*attr = to_siw_dev(base)->attrs;
	return 0;
}

static int siw_query_port(struct ib_device *base, u32 port,
			  struct ib_port_attr *attr)
{
	struct siw_device *sdev = to_siw_dev(base);
	int err;

	memset(attr, 0, sizeof(*attr));
	err = ib_get_eth_speed(base, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		return err;

	spin_lock_bh(&sdev->lock);
	attr->state = sdev->state;
	spin_unlock_bh(&sdev->lock);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
			   IB_PORT_PHYS_STATE_LINK_UP :
			   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_1024;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(sdev->netdev->mtu));
	attr->gid_tbl_len = SIW_PORT_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = -1;
	attr->pkey_tbl_len = 0;
	attr->max_vl_num = 0;
	return 0;
}

static int siw_get_port_immutable(struct ib_device *base, u32 port,
				  struct ib_port_immutable *imm)
{
	imm->gid_tbl_len = SIW_PORT_GID_TBL_LEN;
	imm->pkey_tbl_len = 0;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	imm->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer siw_get_link_layer(struct ib_device *base,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/* iWARP has no GIDs on the wire; GID 0 names the port by its MAC. */
static int siw_query_gid(struct ib_device *base, u32 port, int idx,
			 union ib_gid *gid)
{
	struct siw_device *sdev = to_siw_dev(base);

	if (idx != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, sdev->netdev->dev_addr, ETH_ALEN);
	return 0;
}

void siw_port_event(struct siw_device *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->base_dev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

static void siw_dealloc_driver(struct ib_device *base)
{
	struct siw_device *sdev = to_siw_dev(base);

	WARN_ON(!xa_empty(&sdev->qp_xa));
	WARN_ON(!xa_empty(&sdev->mem_xa));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mem_xa);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
}

/* ---- user contexts ---- */

static int siw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_ucontext *uctx = to_siw_ctx(base);
	struct siw_uresp_alloc_ctx uresp = {};
	int err;

	if (atomic_inc_return(&sdev->num_ctx) > SIW_MAX_CONTEXT) {
		err = -ENOMEM;
		goto err_count;
	}
	uctx->sdev = sdev;
	siw_mmap_init(uctx);

	/* as upstream siw: a context without room for our answer is refused */
	if (!udata || udata->outlen < sizeof(uresp)) {
		err = -EINVAL;
		goto err_mmap;
	}
	uresp.dev_id = sdev->vendor_part_id;
	err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (err)
		goto err_mmap;
	return 0;

err_mmap:
	siw_mmap_cleanup(uctx);
err_count:
	atomic_dec(&sdev->num_ctx);
	return err;
}

static void siw_dealloc_ucontext(struct ib_ucontext *base)
{
	struct siw_ucontext *uctx = to_siw_ctx(base);

	siw_mmap_cleanup(uctx);
	atomic_dec(&uctx->sdev->num_ctx);
}

/* ---- protection domains ---- */

static int siw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(pd->device);

	if (atomic_inc_return(&sdev->num_pd) > SIW_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int siw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_siw_dev(pd->device)->num_pd);
	return 0;
}

/* The device's methods, grouped by the object they act on. */
static const struct ib_device_ops siw_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,
	.dealloc_driver = siw_dealloc_driver,

	/* device and port */
	.query_device = siw_query_device,
	.query_port = siw_query_port,
	.get_port_immutable = siw_get_port_immutable,
	.get_link_layer = siw_get_link_layer,
	.query_gid = siw_query_gid,
	.alloc_hw_port_stats = siw_alloc_hw_port_stats,
	.get_hw_stats = siw_get_hw_stats,

	/* user contexts (and their ring mappings), protection domains */
	.alloc_ucontext = siw_alloc_ucontext,
	.dealloc_ucontext = siw_dealloc_ucontext,
	.mmap = siw_mmap,
	.alloc_pd = siw_alloc_pd,
	.dealloc_pd = siw_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw_ucontext, base_ucontext),
	INIT_RDMA_OBJ_SIZE(ib_pd, siw_pd, base_pd),

	/* completion queues */
	.create_cq = siw_create_cq,
	.poll_cq = siw_poll_cq,
	.req_notify_cq = siw_req_notify_cq,
	.destroy_cq = siw_destroy_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, siw_cq, base_cq),

	/* shared receive queues */
	.create_srq = siw_create_srq,
	.modify_srq = siw_modify_srq,
	.query_srq = siw_query_srq,
	.post_srq_recv = siw_post_srq_recv,
	.destroy_srq = siw_destroy_srq,
	INIT_RDMA_OBJ_SIZE(ib_srq, siw_srq, base_srq),

	/* queue pairs and their work requests */
	.create_qp = siw_create_qp,
	.modify_qp = siw_modify_qp,
	.query_qp = siw_query_qp,
	.post_send = siw_post_send,
	.post_recv = siw_post_receive,
	.destroy_qp = siw_destroy_qp,
	INIT_RDMA_OBJ_SIZE(ib_qp, siw_qp, base_qp),

	/* memory regions */
	.get_dma_mr = siw_get_dma_mr,
	.reg_user_mr = siw_reg_user_mr,
	.alloc_mr = siw_alloc_mr,
	.map_mr_sg = siw_map_mr_sg,
	.dereg_mr = siw_dereg_mr,

	/* iWARP connection management (siw_cm.c) */
	.iw_create_listen = siw_create_listen,
	.iw_destroy_listen = siw_destroy_listen,
	.iw_connect = siw_connect,
	.iw_accept = siw_accept,
	.iw_reject = siw_reject,
	.iw_get_qp = siw_iw_get_qp,
	.iw_add_ref = siw_iw_add_ref,
	.iw_rem_ref = siw_iw_rem_ref,
};

int siw_register_device(struct siw_device *sdev, const char *name)
{
	struct ib_device *base = &sdev->base_dev;
	int err;

	strscpy(base->node_desc, SIW_NODE_DESC, sizeof(base->node_desc));
	base->node_type = RDMA_NODE_RNIC;
	base->phys_port_cnt = 1;
	base->num_comp_vectors = num_possible_cpus();
	base->local_dma_lkey = 0;
	base->iw_driver_flags = IW_F_NO_PORT_MAP;
	strscpy(base->iw_ifname, sdev->netdev->name, sizeof(base->iw_ifname));

	ib_set_device_ops(base, &siw_device_ops);
	err = ib_device_set_netdev(base, sdev->netdev, 1);
	if (err)
		return err;
	return ib_register_device(base, name, NULL);
}
