// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The flow resources a driver's steering flow holds (flow actions and
 * counters, each pinned by its usecnt) until the flow is destroyed.
 *
 * The flow, XRC domain, WQ, RSS table, flow action, device memory and
 * counters objects themselves are not declared yet: for a device without
 * them (rxe, siw) the stock kernel answers exactly as for an object that
 * does not exist (EPROTONOSUPPORT for methods, EOPNOTSUPP for write()
 * commands, ENOENT in INFO_HANDLES).
 */
#include <linux/slab.h>

#include "uverbs.h"

struct ib_uflow_resources *flow_resources_alloc(size_t num_specs)
{
	struct ib_uflow_resources *res = kzalloc(sizeof(*res), GFP_KERNEL);

	if (!res)
		return NULL;
	res->max = num_specs;
	if (!num_specs)
		return res;
	res->counters = kcalloc(num_specs, sizeof(*res->counters), GFP_KERNEL);
	res->collection = kcalloc(num_specs, sizeof(*res->collection),
				  GFP_KERNEL);
	if (res->counters && res->collection)
		return res;
	ib_uverbs_flow_resources_free(res);
	return NULL;
}
EXPORT_SYMBOL(flow_resources_alloc);

/* Unpins what the flow held and frees the lists. */
void ib_uverbs_flow_resources_free(struct ib_uflow_resources *uflow_res)
{
	struct ib_uflow_resources *res = uflow_res;

	if (!res)
		return;
	while (res->collection_num)
		atomic_dec(&res->collection[--res->collection_num]->usecnt);
	while (res->counters_num)
		atomic_dec(&res->counters[--res->counters_num]->usecnt);
	kfree(res->counters);
	kfree(res->collection);
	kfree(res);
}
EXPORT_SYMBOL(ib_uverbs_flow_resources_free);

/* Pins a flow action (ACTION_HANDLE) or counters (ACTION_COUNT). */
void flow_resources_add(struct ib_uflow_resources *uflow_res,
			enum ib_flow_spec_type type, void *ibobj)
{
	struct ib_uflow_resources *res = uflow_res;
	struct ib_flow_action *action = ibobj;
	struct ib_counters *counters = ibobj;

	if (WARN_ON(res->num >= res->max))
		return;
	if (type == IB_FLOW_SPEC_ACTION_HANDLE) {
		atomic_inc(&action->usecnt);
		res->collection[res->collection_num++] = action;
	} else if (type == IB_FLOW_SPEC_ACTION_COUNT) {
		atomic_inc(&counters->usecnt);
		res->counters[res->counters_num++] = counters;
	} else {
		WARN_ON(1);
		return;
	}
	res->num++;
}
EXPORT_SYMBOL(flow_resources_add);
