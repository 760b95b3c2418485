// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Regression check for what rdma_fuzz_sys found (seed 777): one multicast
// GID attached to a UD QP under two LIDs must be detachable twice, and the
// QP destroyable after, on the device named by argv[1]. Exit 0 if so.
#include <cstdio>
#include <cstring>

#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "rxe0";
	int n = 0, fails = 0;
	ibv_device **list = ibv_get_device_list(&n);
	ibv_context *ctx = nullptr;
	for (int i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "mcast_two_lids: no device %s\n", name);
		return 2;
	}
	ibv_pd *pd = ibv_alloc_pd(ctx);
	ibv_cq *cq = pd ? ibv_create_cq(ctx, 4, nullptr, nullptr, 0) : nullptr;
	ibv_qp_init_attr ia{};
	ia.send_cq = ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 2;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ibv_qp *qp = cq ? ibv_create_qp(pd, &ia) : nullptr;
	if (!qp) {
		fprintf(stderr, "mcast_two_lids: no UD QP\n");
		return 2;
	}
	ibv_gid g{};
	g.raw[0] = 0xff;
	g.raw[1] = 0x0e;
	g.raw[15] = 0x42;
	auto check = [&](const char *what, int rc) {
		printf("%s: %s\n", what, rc ? strerror(rc) : "ok");
		fails += rc != 0;
	};
	check("attach lid 0", ibv_attach_mcast(qp, &g, 0));
	check("attach lid 1", ibv_attach_mcast(qp, &g, 1));
	check("detach lid 0", ibv_detach_mcast(qp, &g, 0));
	check("detach lid 1", ibv_detach_mcast(qp, &g, 1));
	check("destroy qp", ibv_destroy_qp(qp));
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return fails ? 1 : 0;
}
