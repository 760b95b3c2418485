// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Static rates of path records and address vectors (enum ib_rate, IBA
 * 9.7.4 and table 236) as multiples of 2.5 Gb/s and in Mb/s.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <rdma/ib_verbs.h>

struct ib_rate_info {
	enum ib_rate rate;
	int mult;	/* x 2.5 Gb/s (SDR lanes); 0 for FDR and later encodings */
	int mbps;
};

static const struct ib_rate_info ib_rates[] = {
	{ IB_RATE_2_5_GBPS, 1, 2500 },
	{ IB_RATE_5_GBPS, 2, 5000 },
	{ IB_RATE_10_GBPS, 4, 10000 },
	{ IB_RATE_20_GBPS, 8, 20000 },
	{ IB_RATE_30_GBPS, 12, 30000 },
	{ IB_RATE_40_GBPS, 16, 40000 },
	{ IB_RATE_60_GBPS, 24, 60000 },
	{ IB_RATE_80_GBPS, 32, 80000 },
	{ IB_RATE_120_GBPS, 48, 120000 },
	{ IB_RATE_14_GBPS, 0, 14062 },
	{ IB_RATE_56_GBPS, 0, 56250 },
	{ IB_RATE_112_GBPS, 0, 112500 },
	{ IB_RATE_168_GBPS, 0, 168750 },
	{ IB_RATE_25_GBPS, 0, 25781 },
	{ IB_RATE_100_GBPS, 0, 103125 },
	{ IB_RATE_200_GBPS, 0, 206250 },
	{ IB_RATE_300_GBPS, 0, 309375 },
	{ IB_RATE_28_GBPS, 0, 28125 },
	{ IB_RATE_50_GBPS, 0, 53125 },
	{ IB_RATE_400_GBPS, 0, 425000 },
	{ IB_RATE_600_GBPS, 0, 637500 },
};

static const struct ib_rate_info *ib_rate_find(enum ib_rate rate)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ib_rates); i++)
		if (ib_rates[i].rate == rate)
			return &ib_rates[i];
	return NULL;
}

__attribute_const__ int ib_rate_to_mult(enum ib_rate rate)
{
	const struct ib_rate_info *r = ib_rate_find(rate);

	return r && r->mult ? r->mult : -1;
}
EXPORT_SYMBOL(ib_rate_to_mult);

__attribute_const__ enum ib_rate mult_to_ib_rate(int mult)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ib_rates); i++)
		if (mult > 0 && ib_rates[i].mult == mult)
			return ib_rates[i].rate;
	return IB_RATE_PORT_CURRENT;
}
EXPORT_SYMBOL(mult_to_ib_rate);

__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate)
{
	const struct ib_rate_info *r = ib_rate_find(rate);

	return r ? r->mbps : -1;
}
EXPORT_SYMBOL(ib_rate_to_mbps);
