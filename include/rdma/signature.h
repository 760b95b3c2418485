/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * T10-PI (DIF) signature offload types: what an integrity MR computes and
 * checks on the memory side and on the wire side. Upstream 6.1 names and
 * layout; stock mlx5_core embeds struct ib_sig_err, so its layout is fixed
 * (selftests/host/layout_crossings.sh). Our soft devices have no
 * IBK_INTEGRITY_HANDOVER, so the core only ever reports these back.
 */
#ifndef RDMA_KMOD_SIGNATURE_H
#define RDMA_KMOD_SIGNATURE_H

#include <linux/types.h>

/* ib_device_attr.sig_prot_cap bits */
enum ib_signature_prot_cap {
	IB_PROT_T10DIF_TYPE_1 = 1,
	IB_PROT_T10DIF_TYPE_2 = 1 << 1,
	IB_PROT_T10DIF_TYPE_3 = 1 << 2,
};

/* ib_device_attr.sig_guard_cap bits */
enum ib_signature_guard_cap {
	IB_GUARD_T10DIF_CRC	= 1,
	IB_GUARD_T10DIF_CSUM	= 1 << 1,
};

enum ib_signature_type {
	IB_SIG_TYPE_NONE,
	IB_SIG_TYPE_T10_DIF,
};

/* Guard block: CRC16 (T10) or IP checksum. */
enum ib_t10_dif_bg_type {
	IB_T10DIF_CRC,
	IB_T10DIF_CSUM,
};

struct ib_t10_dif_domain {
	enum ib_t10_dif_bg_type bg_type;
	u16			pi_interval;	/* bytes of data per PI tuple */
	u16			bg;
	u16			app_tag;
	u32			ref_tag;
	bool			ref_remap;	/* increment ref_tag per block */
	bool			app_escape;
	bool			ref_escape;
	u16			apptag_check_mask;
};

struct ib_sig_domain {
	enum ib_signature_type sig_type;
	union {
		struct ib_t10_dif_domain dif;
	} sig;
};

struct ib_sig_attrs {
	u8			check_mask;	/* IB_SIG_CHECK_* */
	struct ib_sig_domain	mem;
	struct ib_sig_domain	wire;
	int			meta_length;
};

enum ib_sig_err_type {
	IB_SIG_BAD_GUARD,
	IB_SIG_BAD_REFTAG,
	IB_SIG_BAD_APPTAG,
};

/* ib_sig_attrs.check_mask: which bytes of the 8-byte PI tuple to check */
enum {
	IB_SIG_CHECK_GUARD = 0xc0,
	IB_SIG_CHECK_APPTAG = 0x30,
	IB_SIG_CHECK_REFTAG = 0x0f,
};

/* A signature error reported by ib_check_mr_status(). */
struct ib_sig_err {
	enum ib_sig_err_type	err_type;
	u32			expected;
	u32			actual;
	u64			sig_err_offset;
	u32			key;
};

#endif /* RDMA_KMOD_SIGNATURE_H */
