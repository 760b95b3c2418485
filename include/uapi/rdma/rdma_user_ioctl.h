/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * Classic ioctl() numbers of the RDMA character devices (umad, hfi1), all
 * under RDMA_IOCTL_MAGIC. rdma-kmod's own header; ABI identical to the 6.1
 * kernel's (selftests/host/uapi_layout.sh).
 */
#ifndef RDMA_KMOD_UAPI_RDMA_USER_IOCTL_H
#define RDMA_KMOD_UAPI_RDMA_USER_IOCTL_H

#include <rdma/ib_user_mad.h>
/* hfi1's argument structs are not ours to redefine: use the system's. */
#include <rdma/hfi/hfi1_ioctl.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/* Old name kept so existing userspace still compiles. */
#define IB_IOCTL_MAGIC		RDMA_IOCTL_MAGIC

/* umad, numbers 0x01..0x04 */
#define IB_USER_MAD_REGISTER_AGENT \
	_IOWR(RDMA_IOCTL_MAGIC, 0x01, struct ib_user_mad_reg_req)
#define IB_USER_MAD_UNREGISTER_AGENT \
	_IOW(RDMA_IOCTL_MAGIC, 0x02, __u32)
#define IB_USER_MAD_ENABLE_PKEY \
	_IO(RDMA_IOCTL_MAGIC, 0x03)
#define IB_USER_MAD_REGISTER_AGENT2 \
	_IOWR(RDMA_IOCTL_MAGIC, 0x04, struct ib_user_mad_reg_req2)

/* hfi1, numbers 0xe1..0xee (0xe7 unused) */
#define HFI1_IOCTL_ASSIGN_CTXT \
	_IOWR(RDMA_IOCTL_MAGIC, 0xE1, struct hfi1_user_info)
#define HFI1_IOCTL_CTXT_INFO \
	_IOW(RDMA_IOCTL_MAGIC, 0xE2, struct hfi1_ctxt_info)
#define HFI1_IOCTL_USER_INFO \
	_IOW(RDMA_IOCTL_MAGIC, 0xE3, struct hfi1_base_info)
#define HFI1_IOCTL_TID_UPDATE \
	_IOWR(RDMA_IOCTL_MAGIC, 0xE4, struct hfi1_tid_info)
#define HFI1_IOCTL_TID_FREE \
	_IOWR(RDMA_IOCTL_MAGIC, 0xE5, struct hfi1_tid_info)
#define HFI1_IOCTL_CREDIT_UPD \
	_IO(RDMA_IOCTL_MAGIC, 0xE6)
#define HFI1_IOCTL_RECV_CTRL \
	_IOW(RDMA_IOCTL_MAGIC, 0xE8, int)
#define HFI1_IOCTL_POLL_TYPE \
	_IOW(RDMA_IOCTL_MAGIC, 0xE9, int)
#define HFI1_IOCTL_ACK_EVENT \
	_IOW(RDMA_IOCTL_MAGIC, 0xEA, unsigned long)
#define HFI1_IOCTL_SET_PKEY \
	_IOW(RDMA_IOCTL_MAGIC, 0xEB, __u16)
#define HFI1_IOCTL_CTXT_RESET \
	_IO(RDMA_IOCTL_MAGIC, 0xEC)
#define HFI1_IOCTL_TID_INVAL_READ \
	_IOWR(RDMA_IOCTL_MAGIC, 0xED, struct hfi1_tid_info)
#define HFI1_IOCTL_GET_VERS \
	_IOR(RDMA_IOCTL_MAGIC, 0xEE, int)

#endif /* RDMA_KMOD_UAPI_RDMA_USER_IOCTL_H */
