// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe port counters for `rdma statistic` and ports/1/hw_counters/.
 * Names and order come from RXE_COUNTER_LIST (rxe_net.h).
 */
#include "rxe.h"

#define RXE_COUNTER_DESC(id, label) [RXE_CNT_##id] = { .name = label },
static const struct rdma_stat_desc rxe_counter_descs[] = {
	RXE_COUNTER_LIST(RXE_COUNTER_DESC)
};
#undef RXE_COUNTER_DESC

static_assert(ARRAY_SIZE(rxe_counter_descs) == RXE_NUM_OF_COUNTERS);

/* ops.get_hw_stats: every counter at once, whatever @index asks for. */
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
