// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "cm_link.h"

#include <poll.h>

#include <cerrno>
#include <cstring>

namespace rk {

CmLink::CmLink(size_t msg, int recvs, size_t data_len, int send_wrs)
	: sbuf(msg), data(data_len), msg_(msg), recvs_(recvs), send_wrs_(send_wrs),
	  rbuf_(msg * size_t(recvs))
{
}

CmLink::~CmLink()
{
	close();
}

bool CmLink::fail(const char *what)
{
	error = std::string(what) + ": " + std::strerror(errno);
	return false;
}

bool CmLink::expect_event(rdma_cm_event_type want, int ms)
{
	pollfd p = { ch_->fd, POLLIN, 0 };
	rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev))
		return false;
	bool ok = ev->event == want;
	if (!ok)
		errno = ECONNREFUSED;
	rdma_ack_cm_event(ev);
	return ok;
}

bool CmLink::prepare(const sockaddr *dst)
{
	ch_ = rdma_create_event_channel();
	if (!ch_ || rdma_create_id(ch_, &id_, nullptr, RDMA_PS_TCP))
		return fail("rdma_create_id");
	if (rdma_resolve_addr(id_, nullptr, const_cast<sockaddr *>(dst), 5000) ||
	    !expect_event(RDMA_CM_EVENT_ADDR_RESOLVED, 10000))
		return fail("resolve address");
	if (rdma_resolve_route(id_, 5000) ||
	    !expect_event(RDMA_CM_EVENT_ROUTE_RESOLVED, 10000))
		return fail("resolve route");
	return make_qp();
}

rdma_cm_event *CmLink::connect(const void *priv, uint8_t len, uint8_t responder_resources,
			       uint8_t initiator_depth, int ms)
{
	rdma_conn_param p = {};
	pollfd pf = { ch_->fd, POLLIN, 0 };
	rdma_cm_event *ev;

	p.private_data = priv;
	p.private_data_len = len;
	p.responder_resources = responder_resources;
	p.initiator_depth = initiator_depth;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(id_, &p)) {
		fail("rdma_connect");
		return nullptr;
	}
	if (poll(&pf, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev)) {
		fail("no answer to the connection request");
		return nullptr;
	}
	return ev;
}

bool CmLink::make_qp()
{
	ibv_qp_init_attr qa = {};

	pd_ = ibv_alloc_pd(id_->verbs);
	cq_ = pd_ ? ibv_create_cq(id_->verbs, recvs_ + send_wrs_, nullptr, nullptr, 0) :
		    nullptr;
	if (!cq_)
		return fail("CQ");
	qa.send_cq = cq_;
	qa.recv_cq = cq_;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = send_wrs_;
	qa.cap.max_recv_wr = recvs_;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id_, pd_, &qa))
		return fail("QP");
	rmr_ = ibv_reg_mr(pd_, rbuf_.data(), rbuf_.size(), IBV_ACCESS_LOCAL_WRITE);
	smr_ = ibv_reg_mr(pd_, sbuf.data(), sbuf.size(), 0);
	if (!rmr_ || !smr_)
		return fail("MR");
	if (!data.empty()) {
		dmr = ibv_reg_mr(pd_, data.data(), data.size(),
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ);
		if (!dmr)
			return fail("data MR");
	}
	for (int i = 0; i < recvs_; i++)
		if (!post_recv(i))
			return false;
	return true;
}

bool CmLink::post_recv(uint64_t slot)
{
	ibv_sge sge = { reinterpret_cast<uintptr_t>(rbuf_.data() + slot * msg_),
			static_cast<uint32_t>(msg_), rmr_->lkey };
	ibv_recv_wr wr = {}, *bad;

	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_recv(id_->qp, &wr, &bad))
		return fail("post recv");
	return true;
}

bool CmLink::send(size_t len)
{
	ibv_sge sge = { reinterpret_cast<uintptr_t>(sbuf.data()),
			static_cast<uint32_t>(len), smr_->lkey };
	ibv_send_wr wr = {}, *bad;

	wr.wr_id = ~0ULL;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(id_->qp, &wr, &bad))
		return fail("post send");
	return true;
}

bool CmLink::receive(int ms)
{
	for (int waited = 0; waited < ms; waited += 10) {
		ibv_wc wc;

		while (ibv_poll_cq(cq_, 1, &wc) == 1) {
			if (wc.status != IBV_WC_SUCCESS) {
				dead_ = true;
				return false;
			}
			if (!(wc.opcode & IBV_WC_RECV))
				continue;
			const uint8_t *b = rbuf_.data() + wc.wr_id * msg_;

			in.assign(b, b + wc.byte_len);
			post_recv(wc.wr_id);
			return true;
		}
		if (gone(0))
			return false;
		poll(nullptr, 0, 10);
	}
	return false;
}

bool CmLink::gone(int ms)
{
	pollfd p = { ch_->fd, POLLIN, 0 };
	rdma_cm_event *ev;

	if (disconnected_ || dead_)
		return true;
	if (poll(&p, 1, ms) <= 0 || rdma_get_cm_event(ch_, &ev))
		return false;
	if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
		disconnected_ = true;
	rdma_ack_cm_event(ev);
	return disconnected_;
}

bool CmLink::closed(int ms)
{
	for (int waited = 0; waited <= ms; waited += 100) {
		ibv_wc wc;

		while (ibv_poll_cq(cq_, 1, &wc) == 1)
			if (wc.status != IBV_WC_SUCCESS)
				dead_ = true;
		if (gone(100))
			return true;
	}
	return false;
}

void CmLink::close()
{
	if (id_ && id_->qp && !disconnected_)
		rdma_disconnect(id_);
	if (id_ && id_->qp)
		rdma_destroy_qp(id_);
	for (ibv_mr *m : { rmr_, smr_, dmr })
		if (m)
			ibv_dereg_mr(m);
	rmr_ = smr_ = dmr = nullptr;
	if (cq_)
		ibv_destroy_cq(cq_);
	cq_ = nullptr;
	if (pd_)
		ibv_dealloc_pd(pd_);
	pd_ = nullptr;
	if (id_)
		rdma_destroy_id(id_);
	id_ = nullptr;
	if (ch_)
		rdma_destroy_event_channel(ch_);
	ch_ = nullptr;
}

} // namespace rk
