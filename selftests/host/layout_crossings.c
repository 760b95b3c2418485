// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Layout crossings: offsets and sizes of our RDMA structures that code
 * built into the stock kernel image, or into a stock module we do not
 * rebuild, reads with the stock headers' layout. layout_crossings.sh
 * compiles this file to assembly twice, against the stock headers and
 * against ours, and compares every "->name value" line the C() marks
 * emit (the asm-offsets technique: nothing is linked or loaded).
 * Documentation/architecture.md ("Layout crossings") says why each one
 * matters.
 */
#include <linux/kbuild.h>
#include <linux/stddef.h>
#include <rdma/ib_verbs.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/qp.h>
#if __has_include(<rdma/ib_smi.h>)
#include <rdma/ib_smi.h>
#define HAVE_IB_SMI 1
#endif

/* Emits "->NAME value" into the assembly. */
#define C(name, val) DEFINE(name, val)
#define OFF(type, member) \
	C(type##__##member, offsetof(struct type, member))
#define SIZE(type) C(type##__sizeof, sizeof(struct type))
#define ALIGN_OF(type) C(type##__alignof, __alignof__(struct type))

void layout_crossings(void);
void layout_crossings(void)
{
	/* vmlinux blk_mq_rdma_map_queues() -> ib_get_vector_affinity() */
	OFF(ib_device, num_comp_vectors);
	C(ib_device__ops__get_vector_affinity,
	  offsetof(struct ib_device, ops.get_vector_affinity));

	/* vmlinux __dynamic_ibdev_dbg() (ibdev_dbg): dev.parent, dev_name() */
	OFF(ib_device, dev);

	/* vmlinux devlink: DEVLINK_ATTR_PORT_IBDEV_NAME from ibdev->name */
	OFF(ib_device, name);
	C(IB_DEVICE_NAME_MAX, IB_DEVICE_NAME_MAX);

	/* stock mlx5_core enhanced IPoIB: fills these for ib_ipoib */
	SIZE(rdma_netdev);
	OFF(rdma_netdev, clnt_priv);
	OFF(rdma_netdev, hca);
	OFF(rdma_netdev, port_num);
	OFF(rdma_netdev, mtu);
	OFF(rdma_netdev, free_rdma_netdev);
	OFF(rdma_netdev, set_id);
	OFF(rdma_netdev, send);
	OFF(rdma_netdev, attach_mcast);
	OFF(rdma_netdev, detach_mcast);
	OFF(rdma_netdev, tx_timeout);
	SIZE(rdma_netdev_alloc_params);
	OFF(rdma_netdev_alloc_params, sizeof_priv);
	OFF(rdma_netdev_alloc_params, txqs);
	OFF(rdma_netdev_alloc_params, rxqs);
	OFF(rdma_netdev_alloc_params, param);
	OFF(rdma_netdev_alloc_params, initialize_rdma_netdev);
	C(RDMA_NETDEV_IPOIB, RDMA_NETDEV_IPOIB);

	/* stock mlx5_core mlx5i_xmit(): to_mah(ah)->av after struct ib_ah */
	SIZE(ib_ah);
	ALIGN_OF(ib_ah);
	OFF(mlx5_ib_ah, av);
	OFF(mlx5_ib_ah, xmit_port);

	/* include/linux/mlx5: struct mlx5_core_sig_ctx, mlx5_cqe128 */
	SIZE(ib_sig_err);
	OFF(ib_sig_err, err_type);
	OFF(ib_sig_err, expected);
	OFF(ib_sig_err, actual);
	OFF(ib_sig_err, sig_err_offset);
	OFF(ib_sig_err, key);
	SIZE(mlx5_core_sig_ctx);
	SIZE(ib_grh);
	OFF(ib_grh, version_tclass_flow);
	OFF(ib_grh, paylen);
	OFF(ib_grh, next_hdr);
	OFF(ib_grh, hop_limit);
	OFF(ib_grh, sgid);
	OFF(ib_grh, dgid);
	SIZE(mlx5_cqe128);

#ifdef HAVE_IB_SMI
	/* stock mlx4_core: SMPs of VFs parsed in its command interface */
	SIZE(ib_smp);
	OFF(ib_smp, base_version);
	OFF(ib_smp, mgmt_class);
	OFF(ib_smp, class_version);
	OFF(ib_smp, method);
	OFF(ib_smp, status);
	OFF(ib_smp, hop_ptr);
	OFF(ib_smp, hop_cnt);
	OFF(ib_smp, tid);
	OFF(ib_smp, attr_id);
	OFF(ib_smp, attr_mod);
	OFF(ib_smp, mkey);
	OFF(ib_smp, dr_slid);
	OFF(ib_smp, dr_dlid);
	OFF(ib_smp, data);
	OFF(ib_smp, initial_path);
	OFF(ib_smp, return_path);
#endif
}
