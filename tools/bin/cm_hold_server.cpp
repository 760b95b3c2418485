// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// cm_hold_server ADDR PORT N: an rdma_cm server that accepts N RC
// connections (a QP each), prints "listening" once it listens and
// "established N" once all N are up, then holds them until it is killed.
// Used by the tests that kill a server under live connections.
#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	rdma_event_channel *ch;
	rdma_cm_id *listen_id;
	sockaddr_in sa{};
	int n, established = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s ADDR PORT N\n", argv[0]);
		return 2;
	}
	n = atoi(argv[3]);
	sa.sin_family = AF_INET;
	sa.sin_port = htons(atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return 2;

	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &listen_id, nullptr, RDMA_PS_TCP))
		return fail("rdma_create_id");
	if (rdma_bind_addr(listen_id, (sockaddr *)&sa) ||
	    rdma_listen(listen_id, n + 4))
		return fail("listen");
	printf("listening\n");
	fflush(stdout);

	while (established < n) {
		rdma_cm_event *ev;
		rdma_cm_id *id;

		if (rdma_get_cm_event(ch, &ev))
			return fail("rdma_get_cm_event");
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_ESTABLISHED:
			established++;
			break;
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			ibv_qp_init_attr qa{};
			rdma_conn_param p{};
			ibv_cq *cq = ibv_create_cq(id->verbs, 4, nullptr,
						   nullptr, 0);

			if (!cq)
				return fail("ibv_create_cq");
			qa.send_cq = qa.recv_cq = cq;
			qa.qp_type = IBV_QPT_RC;
			qa.cap.max_send_wr = qa.cap.max_recv_wr = 2;
			qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
			p.responder_resources = p.initiator_depth = 1;
			if (rdma_create_qp(id, nullptr, &qa))
				return fail("rdma_create_qp");
			if (rdma_accept(id, &p))
				return fail("rdma_accept");
			break;
		}
		default:
			fprintf(stderr, "unexpected %s\n",
				rdma_event_str(ev->event));
			return 1;
		}
		rdma_ack_cm_event(ev);
	}
	printf("established %d\n", established);
	fflush(stdout);
	for (;;)
		pause();
}
