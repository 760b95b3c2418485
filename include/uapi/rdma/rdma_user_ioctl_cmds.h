/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Framing of the uverbs ioctl() method call: one header followed by an
 * array of typed attributes. rdma-kmod's own header; ABI identical to the
 * 6.1 kernel's (checked by selftests/host/uapi_layout.sh).
 */
#ifndef RDMA_KMOD_UAPI_RDMA_USER_IOCTL_CMDS_H
#define RDMA_KMOD_UAPI_RDMA_USER_IOCTL_CMDS_H

#include <linux/types.h>
#include <linux/ioctl.h>

/* Shared by uverbs and umad: both sit under the same ioctl type byte. */
#define RDMA_IOCTL_MAGIC	0x1b
#define RDMA_VERBS_IOCTL \
	_IOWR(RDMA_IOCTL_MAGIC, 1, struct ib_uverbs_ioctl_hdr)

/* ib_uverbs_attr.flags */
enum {
	UVERBS_ATTR_F_MANDATORY = 1U << 0,
	/* set by the kernel once it has written the attribute's output */
	UVERBS_ATTR_F_VALID_OUTPUT = 1U << 1,
};

struct ib_uverbs_attr {
	__u16 attr_id;
	__u16 len;		/* payload bytes, inline or pointed to */
	__u16 flags;
	union {
		struct {
			__u8 elem_id;
			__u8 reserved;
		} enum_data;
		__u16 reserved;
	} attr_data;
	/* inline value when len <= 8, otherwise a user pointer */
	union {
		__aligned_u64 data;
		__s64 data_s64;
	};
};

struct ib_uverbs_ioctl_hdr {
	__u16 length;		/* whole buffer, header included */
	__u16 object_id;
	__u16 method_id;
	__u16 num_attrs;
	__aligned_u64 reserved1;
	__u32 driver_id;	/* enum rdma_driver_id, for driver namespaces */
	__u32 reserved2;
	struct ib_uverbs_attr attrs[];
};

#endif /* RDMA_KMOD_UAPI_RDMA_USER_IOCTL_CMDS_H */
