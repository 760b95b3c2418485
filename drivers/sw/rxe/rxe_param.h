/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device and port limits rdma_rxe reports. They match what the stock 6.1
 * rxe reports, so that applications size their resources the same way.
 */
#ifndef RXE_PARAM_H
#define RXE_PARAM_H

#include <rdma/ib_verbs.h>

#define RXE_UVERBS_ABI_VERSION		2
#define RXE_VENDOR_ID			0xffffff
#define RXE_NODE_DESC			"rxe"

/*
 * Object limits follow the index ranges of the pools (rxe_verbs.h), as
 * the stock 6.1.192 rxe reports them: ibv_devinfo -v shows these numbers.
 */
#define RXE_DEFAULT_MAX_VALUE		0x100000

#define RXE_MAX_MR_SIZE			(~0ULL)
#define RXE_PAGE_SIZE_CAP		0xfffff000ULL
#define RXE_MAX_QP			(0x100000 - 16)	/* QPNs 16.. */
#define RXE_MAX_QP_WR			RXE_DEFAULT_MAX_VALUE
#define RXE_MAX_SGE			32
#define RXE_MAX_SGE_RD			32
#define RXE_MAX_CQ			RXE_DEFAULT_MAX_VALUE
#define RXE_MAX_LOG_CQE			15
#define RXE_MAX_MR			0x7ffff
#define RXE_MAX_MW			0x7ffff
#define RXE_MAX_PD			RXE_DEFAULT_MAX_VALUE
#define RXE_MAX_QP_RD_ATOM		128
#define RXE_MAX_RES_RD_ATOM		0x3f000
#define RXE_MAX_QP_INIT_RD_ATOM		128
#define RXE_MAX_MCAST_GRP		8192
#define RXE_MAX_MCAST_QP_ATTACH		56
#define RXE_MAX_TOT_MCAST_QP_ATTACH	0x70000
#define RXE_MAX_AH			((1 << 15) - 1)
#define RXE_MAX_SRQ			(0x100000 - 0x20001)
#define RXE_MAX_SRQ_WR			RXE_DEFAULT_MAX_VALUE
#define RXE_MAX_SRQ_SGE			27
#define RXE_MAX_FMR_PAGE_LIST_LEN	512
#define RXE_MAX_PKEYS			64
#define RXE_LOCAL_CA_ACK_DELAY		15

#define RXE_DEVICE_CAP_FLAGS	(IB_DEVICE_BAD_PKEY_CNTR |		\
				 IB_DEVICE_BAD_QKEY_CNTR |		\
				 IB_DEVICE_AUTO_PATH_MIG |		\
				 IB_DEVICE_CHANGE_PHY_PORT |		\
				 IB_DEVICE_UD_AV_PORT_ENFORCE |		\
				 IB_DEVICE_PORT_ACTIVE_EVENT |		\
				 IB_DEVICE_SYS_IMAGE_GUID |		\
				 IB_DEVICE_RC_RNR_NAK_GEN |		\
				 IB_DEVICE_SRQ_RESIZE |			\
				 IB_DEVICE_MEM_MGT_EXTENSIONS |		\
				 IB_DEVICE_MEM_WINDOW |			\
				 IB_DEVICE_MEM_WINDOW_TYPE_2B)

#define RXE_PORT_GID_TBL_LEN		1024
#define RXE_PORT_PORT_CAP_FLAGS		IB_PORT_CM_SUP
#define RXE_PORT_MAX_MSG_SZ		0x800000
#define RXE_PORT_PKEY_TBL_LEN		1
#define RXE_PORT_MAX_VL_NUM		1
#define RXE_PORT_MAX_MTU		IB_MTU_4096

/* 256-byte MADs: the GSI QP of the connection-management work. */
#define RXE_MAX_MAD_SIZE		256

#define RXE_DEFAULT_PKEY		0xffff

#endif /* RXE_PARAM_H */
