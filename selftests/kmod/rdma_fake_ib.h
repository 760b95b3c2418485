/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Test hooks of rdma_fake_ib.ko: the fake IB HCA and its scripted SA. */
#ifndef RDMA_FAKE_IB_H
#define RDMA_FAKE_IB_H

#include <rdma/ib_verbs.h>

enum fib_sa_mode {
	FIB_SA_ANSWER,		/* answer at once */
	FIB_SA_SILENT,		/* drop every request */
	FIB_SA_LATE,		/* answer after delay_ms */
	FIB_SA_REFUSE,		/* answer with the given MAD status */
};

enum fib_sa_count {
	FIB_SA_ALL,		/* every SA request, answered or not */
	FIB_SA_PATH,
	FIB_SA_JOIN,		/* MCMemberRecord Set */
	FIB_SA_LEAVE,		/* MCMemberRecord Delete */
	FIB_SA_GUIDINFO,
	FIB_SA_CPI,		/* ClassPortInfo Get */
	FIB_SA_NCOUNTS
};

struct ib_device *fib_device(void);
void fib_sa_set(enum fib_sa_mode mode, unsigned int delay_ms, u16 status);
unsigned int fib_sa_count(enum fib_sa_count what);
unsigned int fib_sa_groups(void);
void fib_port_set(bool active);
void fib_port_event(enum ib_event_type type);

#endif /* RDMA_FAKE_IB_H */
