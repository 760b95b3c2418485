// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Holds a known set of verbs objects for `rdma resource show` checks
// (selftests/vm/core_res_show.sh) until it gets SIGTERM:
//   res_hold DEV NPD
// One context, NPD PDs, a CQ of 16 entries, a 4096-byte MR, an SRQ, and
// on RoCE devices an RC QP connected to itself (RTS, PSN 0x123456), a
// second RC QP in INIT on the SRQ and a UD QP in RTS; on iWARP (no RTR
// without a connection) both RC QPs in INIT. Prints "rc=N init=N ud=N"
// (ud=0 on iWARP) and "ready" on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include "verbs_loop.h"

static int fail(const char *what)
{
	fprintf(stderr, "res_hold: %s failed\n", what);
	return 1;
}

static int to_init(ibv_qp *qp, bool ud)
{
	ibv_qp_attr at{};

	at.qp_state = IBV_QPS_INIT;
	at.port_num = 1;
	if (ud)
		at.qkey = 0x11111111;
	else
		at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | (ud ? IBV_QP_QKEY :
					    IBV_QP_ACCESS_FLAGS));
}

static int ud_to_rts(ibv_qp *qp)
{
	ibv_qp_attr at{};

	if (to_init(qp, true))
		return 1;
	at.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE))
		return 1;
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0x654321;
	return ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return fail("usage: res_hold DEV NPD;");
	int npd = atoi(argv[2]);
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;

	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return fail("open device");

	std::vector<ibv_pd *> pds;
	for (int i = 0; i < npd; i++) {
		ibv_pd *pd = ibv_alloc_pd(ctx);

		if (!pd)
			return fail("alloc pd");
		pds.push_back(pd);
	}
	ibv_pd *pd = pds.at(0);
	ibv_cq *cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
	if (!cq)
		return fail("create cq");
	static char buf[4096];
	ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		return fail("reg mr");
	ibv_srq_init_attr sa{};
	sa.attr.max_wr = 16;
	sa.attr.max_sge = 1;
	ibv_srq *srq = ibv_create_srq(pd, &sa);
	if (!srq)
		return fail("create srq");

	ibv_qp_init_attr qa{};
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap.max_send_wr = 8;
	qa.cap.max_recv_wr = 8;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qa.qp_type = IBV_QPT_RC;
	ibv_qp *rc = ibv_create_qp(pd, &qa);
	qa.srq = srq;
	ibv_qp *init = ibv_create_qp(pd, &qa);
	if (!rc || !init)
		return fail("create rc qp");
	if (to_init(init, false))
		return fail("modify init");

	ibv_gid gid;
	int gix = rk::find_ipv4_roce_v2_gid(ctx, &gid);
	ibv_qp *ud = nullptr;
	if (gix >= 0) {
		rk::RcPath p{gid, gix, IBV_MTU_1024, 0x123456, 1,
			     IBV_ACCESS_LOCAL_WRITE};

		if (rk::connect_rc(rc, rc->qp_num, p))
			return fail("connect rc");
		qa.srq = nullptr;
		qa.qp_type = IBV_QPT_UD;
		ud = ibv_create_qp(pd, &qa);
		if (!ud || ud_to_rts(ud))
			return fail("ud qp");
	} else if (to_init(rc, false)) {
		return fail("modify init");
	}

	printf("rc=%u init=%u ud=%u\nready\n", rc->qp_num, init->qp_num,
	       ud ? ud->qp_num : 0);
	fflush(stdout);
	pause();	// SIGTERM ends us; the kernel frees what we hold
	return 0;
}
