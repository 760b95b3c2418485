/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * /dev/infiniband/umadN: what read()/write() carry (a header followed by
 * the MAD) and the agent registration requests. rdma-kmod's own header;
 * ABI identical to the 6.1 kernel's (selftests/host/uapi_layout.sh).
 */
#ifndef RDMA_KMOD_UAPI_IB_USER_MAD_H
#define RDMA_KMOD_UAPI_IB_USER_MAD_H

#include <linux/types.h>
/* The ioctl numbers below the structs live in rdma_user_ioctl.h. */
#include <rdma/rdma_user_ioctl.h>

#define IB_USER_MAD_ABI_VERSION	5

/* Header used on an fd that never issued IB_USER_MAD_ENABLE_PKEY. */
struct ib_user_mad_hdr_old {
	__u32 id;
	__u32 status;
	__u32 timeout_ms;
	__u32 retries;
	__u32 length;
	__be32 qpn;
	__be32 qkey;
	__be16 lid;
	__u8 sl;
	__u8 path_bits;
	__u8 grh_present;
	__u8 gid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 gid[16];
	__be32 flow_label;
};

/* Prefix of every MAD exchanged with the umad device. */
struct ib_user_mad_hdr {
	__u32 id;		/* agent id from REGISTER_AGENT */
	__u32 status;		/* 0, or ETIMEDOUT for an unanswered send */
	__u32 timeout_ms;	/* 0: no response expected */
	__u32 retries;
	__u32 length;
	__be32 qpn;
	__be32 qkey;
	__be16 lid;
	__u8 sl;
	__u8 path_bits;
	__u8 grh_present;
	__u8 gid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 gid[16];
	__be32 flow_label;
	__u16 pkey_index;	/* why ENABLE_PKEY exists: the old header lacks it */
	__u8 reserved[6];
};

struct ib_user_mad {
	struct ib_user_mad_hdr hdr;
	__aligned_u64 data[];
};

/*
 * Legacy registration packs its method bitmap right after a __u32, so the
 * longs must not force 8-byte alignment on 64-bit hosts.
 */
typedef unsigned long __attribute__((aligned(4))) packed_ulong;
#define IB_USER_MAD_LONGS_PER_METHOD_MASK (128 / (8 * sizeof (long)))

struct ib_user_mad_reg_req {
	__u32 id;		/* out: the new agent's id */
	packed_ulong method_mask[IB_USER_MAD_LONGS_PER_METHOD_MASK];
	__u8 qpn;		/* 0 (SMI) or 1 (GSI) */
	__u8 mgmt_class;
	__u8 mgmt_class_version;
	__u8 oui[3];
	__u8 rmpp_version;
};

/* ib_user_mad_reg_req2.flags */
enum {
	/* userspace does RMPP itself; the kernel passes segments through */
	IB_USER_MAD_USER_RMPP = (1 << 0),
};
#define IB_USER_MAD_REG_FLAGS_CAP (IB_USER_MAD_USER_RMPP)

/* Fixed-width successor of ib_user_mad_reg_req. */
struct ib_user_mad_reg_req2 {
	__u32 id;
	__u32 qpn;
	__u8 mgmt_class;
	__u8 mgmt_class_version;
	__u16 res;
	__u32 flags;		/* in: requested; out on EINVAL: supported */
	__aligned_u64 method_mask[2];
	__u32 oui;
	__u8 rmpp_version;
	__u8 reserved[3];
};

#endif /* RDMA_KMOD_UAPI_IB_USER_MAD_H */
