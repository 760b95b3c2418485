// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "victim_siw.h"

#include <arpa/inet.h>
#include <fcntl.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace fw {
namespace {

constexpr size_t kWin = 4096;
constexpr size_t kSlot = 1024;
constexpr unsigned kSlots = 32;
constexpr int kRecvPerQp = 8;

} // namespace

void SiwTargets::plan(Arena &arena)
{
	arena_ = &arena;
	w_rw_ = arena.add("siw_rw", kWin, true);
	w_ro_ = arena.add("siw_ro", kWin, false);
	w_none_ = arena.add("siw_none", kWin, false);
	w_recv_ = arena.add("siw_recv", kSlot * kSlots, true);
}

bool SiwTargets::setup(const std::string &dev, uint16_t port, Arena &arena, std::string &err)
{
	int n = 0;
	// rdma_cm's own contexts: a QP on a cm id must use one of these
	ibv_context **devs = rdma_get_devices(&n);

	for (int i = 0; devs && i < n; i++)
		if (dev == ibv_get_device_name(devs[i]->device))
			ctx_ = devs[i];
	if (devs)
		rdma_free_devices(devs);
	if (!ctx_)
		return err = "no rdma_cm device " + dev, false;
	pd_ = ibv_alloc_pd(ctx_);
	cq_ = pd_ ? ibv_create_cq(ctx_, 1024, nullptr, nullptr, 0) : nullptr;
	if (!cq_)
		return err = "siw pd/cq", false;
	auto reg = [&](size_t w, int access) {
		return ibv_reg_mr(pd_, arena.at(w), arena.len(w), access);
	};
	mr_rw_ = reg(w_rw_, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	mr_ro_ = reg(w_ro_, IBV_ACCESS_REMOTE_READ);
	mr_none_ = reg(w_none_, 0);
	mr_recv_ = reg(w_recv_, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_rw_ || !mr_ro_ || !mr_none_ || !mr_recv_)
		return err = "siw ibv_reg_mr", false;

	ch_ = rdma_create_event_channel();
	if (!ch_ || rdma_create_id(ch_, &listen_, nullptr, RDMA_PS_TCP))
		return err = "rdma_create_id", false;
	sockaddr_in a = {};
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if (rdma_bind_addr(listen_, reinterpret_cast<sockaddr *>(&a)) || rdma_listen(listen_, 64))
		return err = "rdma_bind_addr/rdma_listen", false;
	fcntl(ch_->fd, F_SETFL, fcntl(ch_->fd, F_GETFL) | O_NONBLOCK);
	port_ = port;
	return true;
}

void SiwTargets::describe(Info &info) const
{
	info["siw_port"] = port_;
	auto mr = [&](const char *name, ibv_mr *m) {
		info[std::string("siw_") + name + "_va"] = reinterpret_cast<uintptr_t>(m->addr);
		info[std::string("siw_") + name + "_stag"] = m->rkey;
		info[std::string("siw_") + name + "_len"] = m->length;
	};
	mr("rw", mr_rw_);
	mr("ro", mr_ro_);
	mr("no", mr_none_);
	mr("recv", mr_recv_);
}

void SiwTargets::refill(rdma_cm_id *id)
{
	int &posted = posted_[id];

	while (posted < kRecvPerQp) {
		ibv_sge sge = {};
		ibv_recv_wr wr = {}, *bad = nullptr;

		sge.addr = reinterpret_cast<uintptr_t>(arena_->at(w_recv_) + (slot_++ % kSlots) * kSlot);
		sge.length = kSlot;
		sge.lkey = mr_recv_->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (ibv_post_recv(id->qp, &wr, &bad))
			return;
		posted++;
	}
}

void SiwTargets::accept(rdma_cm_id *id)
{
	ibv_qp_init_attr ia = {};
	rdma_conn_param cp = {};

	requests_++;
	if (id->verbs != ctx_) {
		// a request that did not come in over siw (not ours to fuzz)
		other_dev_++;
		rdma_reject(id, nullptr, 0);
		rdma_destroy_id(id);
		return;
	}
	ia.send_cq = cq_;
	ia.recv_cq = cq_;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = kRecvPerQp;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, pd_, &ia)) {
		accept_fail_++;
		rdma_reject(id, nullptr, 0);
		rdma_destroy_id(id);
		return;
	}
	by_qpn_[id->qp->qp_num] = id;
	refill(id);
	cp.responder_resources = 4;
	cp.initiator_depth = 4;
	if (rdma_accept(id, &cp)) {
		accept_fail_++;
		drop(id);
	}
}

void SiwTargets::drop(rdma_cm_id *id)
{
	if (id->qp) {
		by_qpn_.erase(id->qp->qp_num);
		rdma_destroy_qp(id);
	}
	posted_.erase(id);
	rdma_destroy_id(id);
	ended_++;
}

void SiwTargets::tick()
{
	rdma_cm_event *ev;

	while (ch_ && !rdma_get_cm_event(ch_, &ev)) {
		rdma_cm_event_type type = ev->event;
		rdma_cm_id *id = ev->id;

		if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_ack_cm_event(ev);
			accept(id);
			continue;
		}
		rdma_ack_cm_event(ev);
		if (id == listen_)
			continue;
		switch (type) {
		case RDMA_CM_EVENT_ESTABLISHED:
			established_++;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_disconnect(id);
			drop(id);
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			drop(id);
			break;
		default:
			break;
		}
	}
	ibv_wc wc[32];
	int n;
	std::vector<rdma_cm_id *> touched;

	while (cq_ && (n = ibv_poll_cq(cq_, 32, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			wc[i].status == IBV_WC_SUCCESS ? wc_ok_++ : wc_err_++;
			auto it = by_qpn_.find(wc[i].qp_num);

			if (it == by_qpn_.end() || !(wc[i].opcode & IBV_WC_RECV))
				continue;
			int &posted = posted_[it->second];

			if (posted > 0)
				posted--;
			if (wc[i].status == IBV_WC_SUCCESS)
				touched.push_back(it->second);
		}
	}
	for (rdma_cm_id *id : touched)
		if (posted_.count(id))
			refill(id);
}

void SiwTargets::report() const
{
	std::printf("victim: siw requests %lu established %lu ended %lu accept_failed %lu "
		    "other_device %lu completions ok %lu error %lu\n",
		    requests_, established_, ended_, accept_fail_, other_dev_, wc_ok_, wc_err_);
}

void SiwTargets::teardown()
{
	while (!by_qpn_.empty())
		drop(by_qpn_.begin()->second);
	if (listen_)
		rdma_destroy_id(listen_);
	for (ibv_mr *m : { mr_rw_, mr_ro_, mr_none_, mr_recv_ })
		if (m)
			ibv_dereg_mr(m);
	if (cq_)
		ibv_destroy_cq(cq_);
	if (pd_)
		ibv_dealloc_pd(pd_);
	if (ch_)
		rdma_destroy_event_channel(ch_);
}

} // namespace fw
