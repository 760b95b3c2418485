// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* siw connection management (placeholder). */
#include "siw.h"

int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	return -EOPNOTSUPP;
}

int siw_reject(struct iw_cm_id *id, const void *pdata, u8 plen)
{
	return -EOPNOTSUPP;
}

int siw_create_listen(struct iw_cm_id *id, int backlog)
{
	return -EOPNOTSUPP;
}

int siw_destroy_listen(struct iw_cm_id *id)
{
	return 0;
}

void siw_cm_qp_disconnect(struct siw_qp *qp, bool abrupt)
{
}

void siw_cm_qp_detach(struct siw_qp *qp)
{
}

int siw_cm_init(void)
{
	return 0;
}

void siw_cm_exit(void)
{
}
