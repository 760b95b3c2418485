// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw port counters for `rdma statistic show link siwN/1` and
 * ports/1/hw_counters/: FPDUs, every reason a frame or an MPA exchange
 * was refused, Terminates sent and received.
 */
#include "siw.h"

static const struct rdma_stat_desc siw_counter_descs[] = {
	[SIW_CNT_RX_FPDUS].name = "rx_fpdus",
	[SIW_CNT_TX_FPDUS].name = "tx_fpdus",
	[SIW_CNT_RX_BAD_CRC].name = "rx_bad_crc",
	[SIW_CNT_RX_BAD_HDR].name = "rx_bad_header",
	[SIW_CNT_RX_BAD_LEN].name = "rx_bad_length",
	[SIW_CNT_RX_BAD_STAG].name = "rx_bad_stag",
	[SIW_CNT_RX_BAD_BOUNDS].name = "rx_bad_bounds",
	[SIW_CNT_RX_BAD_ACCESS].name = "rx_bad_access",
	[SIW_CNT_RX_BAD_QN].name = "rx_bad_qn",
	[SIW_CNT_RX_BAD_MSN].name = "rx_bad_msn",
	[SIW_CNT_RX_BAD_MO].name = "rx_bad_mo",
	[SIW_CNT_RX_NO_RQE].name = "rx_no_rqe",
	[SIW_CNT_RX_TOO_LONG].name = "rx_too_long",
	[SIW_CNT_RX_IRD_EXCEEDED].name = "rx_ird_exceeded",
	[SIW_CNT_RX_UNEXPECTED_RESP].name = "rx_unexpected_resp",
	[SIW_CNT_TERM_SENT].name = "terminate_sent",
	[SIW_CNT_TERM_RCVD].name = "terminate_rcvd",
	[SIW_CNT_MPA_BAD_KEY].name = "mpa_bad_key",
	[SIW_CNT_MPA_BAD_REV].name = "mpa_bad_revision",
	[SIW_CNT_MPA_MARKERS].name = "mpa_markers_refused",
	[SIW_CNT_MPA_BAD_PDLEN].name = "mpa_bad_pd_len",
	[SIW_CNT_MPA_CRC_MISMATCH].name = "mpa_crc_mismatch",
	[SIW_CNT_MPA_REJECT_SENT].name = "mpa_reject_sent",
	[SIW_CNT_MPA_REJECT_RCVD].name = "mpa_reject_rcvd",
	[SIW_CNT_MPA_TIMEOUT].name = "mpa_timeout",
	[SIW_CNT_CONN_ABORTED].name = "conn_aborted",
};

static_assert(ARRAY_SIZE(siw_counter_descs) == SIW_NUM_COUNTERS);

struct rdma_hw_stats *siw_alloc_hw_port_stats(struct ib_device *dev, u32 port)
{
	return rdma_alloc_hw_stats_struct(siw_counter_descs,
					  ARRAY_SIZE(siw_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int siw_get_hw_stats(struct ib_device *dev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct siw_device *sdev = to_siw_dev(dev);
	int i;

	if (!port || !stats)
		return -EINVAL;
	for (i = 0; i < SIW_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->cnt[i]);
	return SIW_NUM_COUNTERS;
}
