// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Signature (T10-PI) memory regions: an integrity MR maps a data and a
 * protection-information scatterlist and has the HCA compute or check
 * the PI as data moves (iSER, iSERt, NVMe-oF with PI). Only devices with
 * IBK_INTEGRITY_HANDOVER offer them; on every other device (rxe, siw)
 * these verbs fail with -EOPNOTSUPP and ULPs run without PI offload.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/slab.h>
#include "core_priv.h"

static bool ib_has_integrity(struct ib_device *dev)
{
	return dev->attrs.kernel_cap_flags & IBK_INTEGRITY_HANDOVER;
}

struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
				    u32 max_num_meta_sg)
{
	struct ib_device *dev = pd->device;
	struct ib_sig_attrs *sig_attrs;
	struct ib_mr *mr;

	if (!dev->ops.alloc_mr_integrity || !dev->ops.map_mr_sg_pi ||
	    !ib_has_integrity(dev))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_meta_sg)
		return ERR_PTR(-EINVAL);

	sig_attrs = kzalloc(sizeof(*sig_attrs), GFP_KERNEL);
	if (!sig_attrs)
		return ERR_PTR(-ENOMEM);
	mr = dev->ops.alloc_mr_integrity(pd, max_num_data_sg, max_num_meta_sg);
	if (IS_ERR(mr)) {
		kfree(sig_attrs);
		return mr;
	}
	ib_mr_init_kernel(mr, pd, IB_MR_TYPE_INTEGRITY);
	/* ib_dereg_mr() frees it. */
	mr->sig_attrs = sig_attrs;
	return mr;
}
EXPORT_SYMBOL(ib_alloc_mr_integrity);

int ib_map_mr_sg_pi(struct ib_mr *mr, struct scatterlist *data_sg,
		    int data_sg_nents, unsigned int *data_sg_offset,
		    struct scatterlist *meta_sg, int meta_sg_nents,
		    unsigned int *meta_sg_offset, unsigned int page_size)
{
	if (mr->type != IB_MR_TYPE_INTEGRITY || !mr->device->ops.map_mr_sg_pi)
		return -EOPNOTSUPP;
	mr->page_size = page_size;
	return mr->device->ops.map_mr_sg_pi(mr, data_sg, data_sg_nents,
					    data_sg_offset, meta_sg,
					    meta_sg_nents, meta_sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg_pi);

/* After a transfer: did the HCA find a PI error (IB_MR_CHECK_SIG_STATUS)? */
int ib_check_mr_status(struct ib_mr *mr, u32 check_mask,
		       struct ib_mr_status *mr_status)
{
	if (!mr->device->ops.check_mr_status)
		return -EOPNOTSUPP;
	return mr->device->ops.check_mr_status(mr, check_mask, mr_status);
}
EXPORT_SYMBOL(ib_check_mr_status);
