// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "victim_rxe.h"

#include <chrono>
#include <cstdio>
#include <cstring>

namespace fw {
namespace {

constexpr size_t kWin = 4096;
constexpr size_t kSlot = 2048;	// >= path MTU 1024 + GRH 40 for UD
constexpr unsigned kSlots = 32;
constexpr int kRecvPerQp = 8;
// responder QPs start over this often: the attacker aims at PSNs just past
// the initial one, which the first valid requests leave behind
constexpr auto kCycle = std::chrono::milliseconds(300);

ibv_qp_state state_of(ibv_qp *qp)
{
	ibv_qp_attr a = {};
	ibv_qp_init_attr ia = {};

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

} // namespace

void RxeTargets::plan(Arena &arena)
{
	arena_ = &arena;
	verbs_.plan(arena, "rxe", kWin, kSlot, kSlots);
	w_sink_ = arena.add("rxe_read_sink", kWin, true);
}

bool RxeTargets::connect_rc(Qp &q)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	// the QP allows everything: the rkey and the MR decide
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = cfg_.dest_qpn;
	a.rq_psn = q.psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	std::memcpy(&a.ah_attr.grh.dgid.raw[12], &cfg_.remote_ip, 4);
	a.ah_attr.grh.sgid_index = static_cast<uint8_t>(q.gid_index);
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = q.psn;
	a.timeout = 14;	// ~67 ms
	a.retry_cnt = 3;
	a.rnr_retry = 3;
	a.max_rd_atomic = 4;
	return !ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

bool RxeTargets::ready_ud(Qp &q)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = cfg_.qkey;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE))
		return false;
	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return !ibv_modify_qp(q.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

bool RxeTargets::make_qp(Qp &q, ibv_qp_type type, int gid_index, uint32_t psn)
{
	ibv_qp_init_attr ia = verbs_.qp_attr(type, kRecvPerQp);

	q.qp = ibv_create_qp(verbs_.pd(), &ia);
	q.rc = type == IBV_QPT_RC;
	q.gid_index = gid_index;
	q.psn = psn;
	return q.qp && (q.rc ? connect_rc(q) : ready_ud(q));
}

bool RxeTargets::setup(const RxeConfig &cfg, Arena &arena, std::string &err)
{
	int n = 0;
	ibv_device **list = ibv_get_device_list(&n);

	cfg_ = cfg;
	for (int i = 0; list && i < n; i++)
		if (cfg.dev == ibv_get_device_name(list[i]))
			ctx_ = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx_)
		return err = "open " + cfg.dev, false;
	if (!verbs_.open(ctx_, 512))
		return err = "pd/cq", false;
	if (!verbs_.reg_target_mrs(arena, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC))
		return err = "ibv_reg_mr", false;
	mr_sink_ = verbs_.reg(arena, w_sink_, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_sink_)
		return err = "ibv_reg_mr", false;

	if (!make_qp(a_, IBV_QPT_RC, cfg.gid_index, cfg.psn_a) ||
	    !make_qp(b_, IBV_QPT_RC, cfg.gid_index, cfg.psn_b) ||
	    !make_qp(ud_, IBV_QPT_UD, cfg.gid_index, 0))
		return err = "create/connect QPs", false;
	b_.requester = cfg.requester;
	if (cfg.v1_gid_index >= 0 && !make_qp(v1_, IBV_QPT_RC, cfg.v1_gid_index, cfg.psn_a))
		return err = "RoCE v1 QP", false;
	for (Qp *q : { &a_, &b_, &ud_, &v1_ })
		if (q->qp)
			verbs_.refill(q->qp, q->posted, kRecvPerQp);
	if (b_.requester)
		keep_busy(b_);
	return true;
}

void RxeTargets::describe(Info &info) const
{
	info["qpn_a"] = a_.qp->qp_num;
	info["qpn_b"] = b_.qp->qp_num;
	info["qpn_ud"] = ud_.qp->qp_num;
	info["qpn_v1"] = v1_.qp ? v1_.qp->qp_num : 0;
	info["psn_a"] = cfg_.psn_a;
	info["psn_b"] = cfg_.psn_b;
	info["dest_qpn"] = cfg_.dest_qpn;
	info["qkey"] = cfg_.qkey;
	verbs_.describe(info, "", "rkey");
}

// QP B: an RDMA READ into the sink and a SEND, so ACKs and read responses
// from the attacker have a requester waiting for them.
void RxeTargets::keep_busy(Qp &q)
{
	if (q.outstanding)
		return;
	ibv_sge rs = sge_of(arena_->at(w_sink_) + 1024, 512, mr_sink_);
	ibv_sge ss = sge_of(verbs_.ro_buf(*arena_), 64, verbs_.mrs().ro);
	ibv_send_wr rd = {}, sd = {}, *bad = nullptr;

	for (ibv_send_wr *wr : { &rd, &sd }) {
		wr->num_sge = 1;
		wr->send_flags = IBV_SEND_SIGNALED;
	}
	rd.opcode = IBV_WR_RDMA_READ;
	rd.sg_list = &rs;
	rd.wr.rdma.remote_addr = 0x10000;
	rd.wr.rdma.rkey = 0x1234;
	sd.opcode = IBV_WR_SEND;
	sd.sg_list = &ss;
	rd.next = &sd;
	if (!ibv_post_send(q.qp, &rd, &bad))
		q.outstanding = 2;
}

RxeTargets::Qp *RxeTargets::by_qpn(uint32_t qpn)
{
	for (Qp *q : { &a_, &b_, &ud_, &v1_ })
		if (q->qp && q->qp->qp_num == qpn)
			return q;
	return nullptr;
}

bool RxeTargets::recover(Qp &q)
{
	ibv_qp_attr a = {};

	a.qp_state = IBV_QPS_RESET;
	if (ibv_modify_qp(q.qp, &a, IBV_QP_STATE))
		return false;
	// drop what the flush left for this QP: its WQEs are gone
	q.posted = 0;
	q.outstanding = 0;
	q.resets++;
	return q.rc ? connect_rc(q) : ready_ud(q);
}

void RxeTargets::tick()
{
	ibv_wc wc[32];
	int n;

	while ((n = ibv_poll_cq(verbs_.cq(), 32, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			Qp *q = by_qpn(wc[i].qp_num);

			if (wc[i].status == IBV_WC_SUCCESS)
				wc_ok_++;
			else
				wc_err_++;
			if (!q)
				continue;
			if (wc[i].opcode & IBV_WC_RECV) {
				recv_ok_ += wc[i].status == IBV_WC_SUCCESS;
				if (q->posted > 0)
					q->posted--;
			} else if (q->outstanding > 0) {
				q->outstanding--;
			}
		}
	}
	auto now = std::chrono::steady_clock::now();
	bool cycle = now - last_cycle_ >= kCycle;

	if (cycle)
		last_cycle_ = now;
	for (Qp *q : { &a_, &b_, &ud_, &v1_ }) {
		if (!q->qp)
			continue;
		ibv_qp_state s = state_of(q->qp);

		if (s == IBV_QPS_ERR || s == IBV_QPS_SQE ||
		    (cycle && q->rc && !q->requester && s == IBV_QPS_RTS)) {
			if (!recover(*q))
				continue;
			s = IBV_QPS_RTS;
		}
		if (s == IBV_QPS_RTS) {
			verbs_.refill(q->qp, q->posted, kRecvPerQp);
			if (q->requester)
				keep_busy(*q);
		}
	}
}

void RxeTargets::report() const
{
	std::printf("victim: rxe completions ok %lu error %lu receives %lu resets (errors and restarts) A %u B %u UD %u V1 %u\n",
		    wc_ok_, wc_err_, recv_ok_, a_.resets, b_.resets, ud_.resets, v1_.resets);
}

void RxeTargets::teardown()
{
	for (Qp *q : { &a_, &b_, &ud_, &v1_ })
		if (q->qp)
			ibv_destroy_qp(q->qp);
	verbs_.release();
	if (ctx_)
		ibv_close_device(ctx_);
}

} // namespace fw
