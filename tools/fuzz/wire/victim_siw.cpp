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
	verbs_.plan(arena, "siw", kWin, kSlot, kSlots);
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
	if (!verbs_.open(ctx_, 1024))
		return err = "siw pd/cq", false;
	if (!verbs_.reg_target_mrs(arena, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ))
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
	verbs_.describe(info, "siw_", "stag");
}

void SiwTargets::accept(rdma_cm_id *id)
{
	ibv_qp_init_attr ia = verbs_.qp_attr(IBV_QPT_RC, kRecvPerQp);
	rdma_conn_param cp = {};

	requests_++;
	if (id->verbs != ctx_) {
		// a request that did not come in over siw (not ours to fuzz)
		other_dev_++;
		rdma_reject(id, nullptr, 0);
		rdma_destroy_id(id);
		return;
	}
	if (rdma_create_qp(id, verbs_.pd(), &ia)) {
		accept_fail_++;
		rdma_reject(id, nullptr, 0);
		rdma_destroy_id(id);
		return;
	}
	by_qpn_[id->qp->qp_num] = id;
	verbs_.refill(id->qp, posted_[id], kRecvPerQp);
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

	while (verbs_.cq() && (n = ibv_poll_cq(verbs_.cq(), 32, wc)) > 0) {
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
			verbs_.refill(id->qp, posted_[id], kRecvPerQp);
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
	verbs_.release();
	if (ch_)
		rdma_destroy_event_channel(ch_);
}

} // namespace fw
