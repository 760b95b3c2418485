// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe port counters for `rdma statistic` and ports/1/hw_counters/,
 * named and ordered as the stock driver shows them, then two of ours.
 */
#include "rxe.h"

static const struct rdma_stat_desc rxe_counter_descs[] = {
	[RXE_CNT_SENT_PKTS].name = "sent_pkts",
	[RXE_CNT_RCVD_PKTS].name = "rcvd_pkts",
	[RXE_CNT_DUP_REQ].name = "duplicate_request",
	[RXE_CNT_OUT_OF_SEQ_REQ].name = "out_of_seq_request",
	[RXE_CNT_RCV_RNR_ERR].name = "rcvd_rnr_err",
	[RXE_CNT_SND_RNR].name = "send_rnr_err",
	[RXE_CNT_RCV_SEQ_ERR].name = "rcvd_seq_err",
	[RXE_CNT_COMPLETER_SCHED].name = "ack_deferred",
	[RXE_CNT_RETRY_EXCEEDED].name = "retry_exceeded_err",
	[RXE_CNT_RNR_RETRY_EXCEEDED].name = "retry_rnr_exceeded_err",
	[RXE_CNT_COMP_RETRY].name = "completer_retry_err",
	[RXE_CNT_SEND_ERR].name = "send_err",
	[RXE_CNT_LINK_DOWNED].name = "link_downed",
	[RXE_CNT_RDMA_SEND].name = "rdma_sends",
	[RXE_CNT_RDMA_RECV].name = "rdma_recvs",
	/* ours only: RoCE v1 packets, also counted in sent/rcvd_pkts */
	[RXE_CNT_SENT_PKTS_V1].name = "sent_pkts_roce_v1",
	[RXE_CNT_RCVD_PKTS_V1].name = "rcvd_pkts_roce_v1",
};

static_assert(ARRAY_SIZE(rxe_counter_descs) == RXE_NUM_OF_COUNTERS);

int rxe_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			u32 port, int index)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	int i;

	if (!port || !stats)
		return -EINVAL;
	for (i = 0; i < RXE_NUM_OF_COUNTERS; i++)
		stats->value[i] = atomic64_read(&rxe->stats_counters[i]);
	return RXE_NUM_OF_COUNTERS;
}

struct rdma_hw_stats *rxe_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						 u32 port_num)
{
	return rdma_alloc_hw_stats_struct(rxe_counter_descs,
					  ARRAY_SIZE(rxe_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}
