// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* siw receive work (placeholder until the data path lands). */
#include "siw.h"

void siw_rx_ctx_release(struct siw_qp *qp)
{
}

void siw_rx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, rx_work);

	if (siw_qp_state_is(qp, SIW_QP_STATE_ERROR))
		siw_rq_flush(qp);
}
