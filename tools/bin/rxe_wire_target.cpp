// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rxe_wire_target: the victim side of selftests/vm/twovm-wire-robust.sh.
// Opens a device, creates two RC QPs (A, B) and one UD QP, all pointing at a
// remote IPv4 GID, posts receive WQEs and registers a buffer of known bytes
// with remote read but WITHOUT remote write access. It prints one line
//   INFO <qpn A> <qpn B> <qpn UD> <rkey> <va> <len>
// and then answers commands read from stdin, one line each:
//   state  -> "state <A> <B> <UD>"       (RESET INIT RTR RTS SQD SQE ERR)
//   poll   -> one "wc ..." line per completion, then "end"
//   check  -> "buffer unchanged" or "buffer CHANGED"
//   port   -> "port bad_pkey_cntr <n> qkey_viol_cntr <n>"
//   probe  -> a third RC QP (C) to the same address, with a short local ACK
//             timeout and retry_cnt 2, sends one message and waits (up to
//             2 min) for its completion: "probe status=<ibv_wc_status>" or
//             "probe timeout". Against a peer that never answers (the
//             stock rxe for a RoCE v1 GID) the status is RETRY_EXC_ERR (12).
//   quit
// Usage: rxe_wire_target DEV GID_INDEX REMOTE_IPV4 DEST_QPN PSN_A PSN_B QKEY
// The GID index picks the RoCE version (its gid_attrs/types entry).
#include <infiniband/verbs.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr size_t kBufLen = 4096;
constexpr size_t kRecvLen = 256;
constexpr uint8_t kPattern = 0x5a;

[[noreturn]] void die(const char *what)
{
	std::printf("FATAL %s: %s\n", what, std::strerror(errno));
	std::fflush(stdout);
	std::exit(1);
}

const char *state_name(ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

uint32_t parse_u32(const char *s)
{
	return static_cast<uint32_t>(std::strtoul(s, nullptr, 0));
}

struct Target {
	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *mr = nullptr;	// known bytes, local read only
	ibv_mr *rmr = nullptr;	// receive buffers
	ibv_qp *qp_a = nullptr, *qp_b = nullptr, *qp_ud = nullptr;
	std::vector<uint8_t> buf = std::vector<uint8_t>(kBufLen, kPattern);
	std::vector<uint8_t> rbuf = std::vector<uint8_t>(3 * kRecvLen, 0);
};

ibv_qp *make_qp(Target &t, ibv_qp_type type)
{
	ibv_qp_init_attr ia = {};

	ia.send_cq = t.cq;
	ia.recv_cq = t.cq;
	ia.qp_type = type;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ibv_qp *qp = ibv_create_qp(t.pd, &ia);
	if (!qp)
		die("ibv_create_qp");
	return qp;
}

void post_recv(Target &t, ibv_qp *qp, int slot)
{
	ibv_sge sge = {};
	ibv_recv_wr wr = {}, *bad = nullptr;

	sge.addr = reinterpret_cast<uintptr_t>(t.rbuf.data() + slot * kRecvLen);
	sge.length = kRecvLen;
	sge.lkey = t.rmr->lkey;
	wr.wr_id = static_cast<uint64_t>(slot);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_recv(qp, &wr, &bad))
		die("ibv_post_recv");
}

void rc_connect(ibv_qp *qp, int gid_index, const ibv_gid &dgid,
		uint32_t dest_qpn, uint32_t psn, uint8_t timeout = 14,
		uint8_t retry_cnt = 7)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	// remote write is allowed by the QP so that the rkey check decides
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify RC INIT");

	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = dgid;
	a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_index);
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify RC RTR");

	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	a.timeout = timeout;
	a.retry_cnt = retry_cnt;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify RC RTS");
}

void ud_ready(ibv_qp *qp, uint32_t qkey)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("modify UD INIT");
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("modify UD RTR");
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("modify UD RTS");
}

const char *qp_state(ibv_qp *qp)
{
	ibv_qp_attr a = {};
	ibv_qp_init_attr ia = {};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return "QUERY_FAILED";
	return state_name(a.qp_state);
}

void poll_all(Target &t)
{
	ibv_wc wc[8];
	int n;

	while ((n = ibv_poll_cq(t.cq, 8, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			const ibv_wc &w = wc[i];
			std::string hex;
			char b[4];

			if (w.status == IBV_WC_SUCCESS &&
			    w.opcode == IBV_WC_RECV && w.wr_id < 3) {
				const uint8_t *p = t.rbuf.data() +
						   w.wr_id * kRecvLen;
				for (uint32_t j = 0;
				     j < w.byte_len && j < kRecvLen; j++) {
					std::snprintf(b, sizeof(b), "%02x", p[j]);
					hex += b;
				}
			}
			std::printf("wc qp=%u status=%d opcode=%d len=%u data=%s\n",
				    w.qp_num, w.status, w.opcode, w.byte_len,
				    hex.empty() ? "-" : hex.c_str());
		}
	}
	if (n < 0)
		std::printf("poll failed\n");
	std::printf("end\n");
}

// QP C: one SEND to a peer that may never answer; prints its outcome.
void probe(Target &t, int gid_index, const ibv_gid &dgid, uint32_t dest_qpn)
{
	ibv_qp *qp = make_qp(t, IBV_QPT_RC);
	ibv_sge sge = {};
	ibv_send_wr wr = {}, *bad = nullptr;
	ibv_wc wc = {};
	timespec start, now;
	int n = 0;

	// 4.096 us << 12: 17 ms per try, three tries
	rc_connect(qp, gid_index, dgid, dest_qpn, 0, 12, 2);
	sge.addr = reinterpret_cast<uintptr_t>(t.buf.data());
	sge.length = 64;
	sge.lkey = t.mr->lkey;
	wr.wr_id = 0xc;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, &wr, &bad))
		die("ibv_post_send");
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		n = ibv_poll_cq(t.cq, 1, &wc);
		if (n == 0)
			usleep(10000);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((n == 0 || wc.wr_id != 0xc) && now.tv_sec - start.tv_sec < 120);
	if (n > 0 && wc.wr_id == 0xc)
		std::printf("probe status=%d\n", wc.status);
	else
		std::printf("probe timeout\n");
	ibv_destroy_qp(qp);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 8) {
		std::fprintf(stderr, "usage: %s DEV GID_INDEX REMOTE_IPV4 "
			     "DEST_QPN PSN_A PSN_B QKEY\n", argv[0]);
		return 2;
	}
	const char *devname = argv[1];
	int gid_index = std::atoi(argv[2]);
	uint32_t dest_qpn = parse_u32(argv[4]);
	uint32_t psn_a = parse_u32(argv[5]);
	uint32_t psn_b = parse_u32(argv[6]);
	uint32_t qkey = parse_u32(argv[7]);

	ibv_gid dgid = {};
	in_addr ip4;
	if (inet_pton(AF_INET, argv[3], &ip4) != 1) {
		std::fprintf(stderr, "bad IPv4 address %s\n", argv[3]);
		return 2;
	}
	dgid.raw[10] = 0xff;
	dgid.raw[11] = 0xff;
	std::memcpy(&dgid.raw[12], &ip4, 4);

	Target t;
	int num = 0;
	ibv_device **list = ibv_get_device_list(&num);
	if (!list)
		die("ibv_get_device_list");
	for (int i = 0; i < num && !t.ctx; i++)
		if (!std::strcmp(ibv_get_device_name(list[i]), devname))
			t.ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!t.ctx)
		die("open device");
	t.pd = ibv_alloc_pd(t.ctx);
	if (!t.pd)
		die("ibv_alloc_pd");
	t.cq = ibv_create_cq(t.ctx, 32, nullptr, nullptr, 0);
	if (!t.cq)
		die("ibv_create_cq");
	// remote read only (so it has a real rkey): remote writes are refused
	t.mr = ibv_reg_mr(t.pd, t.buf.data(), t.buf.size(),
			  IBV_ACCESS_REMOTE_READ);
	if (!t.mr)
		die("ibv_reg_mr");
	t.rmr = ibv_reg_mr(t.pd, t.rbuf.data(), t.rbuf.size(),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!t.rmr)
		die("ibv_reg_mr recv");

	t.qp_a = make_qp(t, IBV_QPT_RC);
	t.qp_b = make_qp(t, IBV_QPT_RC);
	t.qp_ud = make_qp(t, IBV_QPT_UD);
	rc_connect(t.qp_a, gid_index, dgid, dest_qpn, psn_a);
	rc_connect(t.qp_b, gid_index, dgid, dest_qpn, psn_b);
	ud_ready(t.qp_ud, qkey);
	post_recv(t, t.qp_a, 0);
	post_recv(t, t.qp_ud, 2);

	std::printf("INFO %u %u %u %u %llu %zu\n", t.qp_a->qp_num,
		    t.qp_b->qp_num, t.qp_ud->qp_num, t.mr->rkey,
		    static_cast<unsigned long long>(
			    reinterpret_cast<uintptr_t>(t.buf.data())),
		    t.buf.size());
	std::fflush(stdout);

	std::string line;
	while (std::getline(std::cin, line)) {
		if (line == "state") {
			std::printf("state %s %s %s\n", qp_state(t.qp_a),
				    qp_state(t.qp_b), qp_state(t.qp_ud));
		} else if (line == "poll") {
			poll_all(t);
		} else if (line == "check") {
			bool same = true;

			for (uint8_t c : t.buf)
				same = same && c == kPattern;
			std::printf("buffer %s\n", same ? "unchanged" : "CHANGED");
		} else if (line == "port") {
			ibv_port_attr pa = {};

			if (ibv_query_port(t.ctx, 1, &pa))
				std::printf("port query failed\n");
			else
				std::printf("port bad_pkey_cntr %u qkey_viol_cntr %u\n",
					    pa.bad_pkey_cntr, pa.qkey_viol_cntr);
		} else if (line == "probe") {
			probe(t, gid_index, dgid, dest_qpn);
		} else if (line == "quit") {
			break;
		} else if (!line.empty()) {
			std::printf("unknown command %s\n", line.c_str());
		}
		std::fflush(stdout);
	}

	ibv_destroy_qp(t.qp_ud);
	ibv_destroy_qp(t.qp_b);
	ibv_destroy_qp(t.qp_a);
	ibv_dereg_mr(t.rmr);
	ibv_dereg_mr(t.mr);
	ibv_destroy_cq(t.cq);
	ibv_dealloc_pd(t.pd);
	ibv_close_device(t.ctx);
	return 0;
}
