// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* siw transmit work (placeholder until the data path lands). */
#include "siw.h"

int siw_tx_init(struct siw_qp *qp)
{
	return 0;
}

void siw_tx_ctx_release(struct siw_qp *qp)
{
}

void siw_tx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, tx_work);

	if (siw_qp_state_is(qp, SIW_QP_STATE_ERROR))
		siw_sq_flush(qp);
}
