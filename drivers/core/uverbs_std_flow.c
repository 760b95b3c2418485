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
	struct ib_uflow_resources *res;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return NULL;
	if (num_specs) {
		res->counters = kcalloc(num_specs, sizeof(*res->counters),
					GFP_KERNEL);
		res->collection = kcalloc(num_specs,
					  sizeof(*res->collection), GFP_KERNEL);
		if (!res->counters || !res->collection) {
			kfree(res->counters);
			kfree(res->collection);
			kfree(res);
			return NULL;
		}
	}
	res->max = num_specs;
	return res;
}
EXPORT_SYMBOL(flow_resources_alloc);

void ib_uverbs_flow_resources_free(struct ib_uflow_resources *uflow_res)
{
	size_t i;

	if (!uflow_res)
		return;
	for (i = 0; i < uflow_res->collection_num; i++)
		atomic_dec(&uflow_res->collection[i]->usecnt);
	for (i = 0; i < uflow_res->counters_num; i++)
		atomic_dec(&uflow_res->counters[i]->usecnt);
	kfree(uflow_res->collection);
	kfree(uflow_res->counters);
	kfree(uflow_res);
}
EXPORT_SYMBOL(ib_uverbs_flow_resources_free);

/* Pins a flow action (ACTION_HANDLE) or counters (ACTION_COUNT). */
void flow_resources_add(struct ib_uflow_resources *uflow_res,
			enum ib_flow_spec_type type, void *ibobj)
{
	if (WARN_ON(uflow_res->num >= uflow_res->max))
		return;

	switch (type) {
	case IB_FLOW_SPEC_ACTION_HANDLE: {
		struct ib_flow_action *action = ibobj;

		atomic_inc(&action->usecnt);
		uflow_res->collection[uflow_res->collection_num++] = action;
		break;
	}
	case IB_FLOW_SPEC_ACTION_COUNT: {
		struct ib_counters *counters = ibobj;

		atomic_inc(&counters->usecnt);
		uflow_res->counters[uflow_res->counters_num++] = counters;
		break;
	}
	default:
		WARN_ON(1);
		return;
	}
	uflow_res->num++;
}
EXPORT_SYMBOL(flow_resources_add);
