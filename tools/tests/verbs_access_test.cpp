// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// libibverbs on rxe0, two RC QPs connected in loopback: an RDMA write to an
// MR registered without REMOTE_WRITE completes with a remote access error at
// the requester and leaves the target bytes unchanged; a correct write to a
// writable MR moves the bytes; a non-blocking completion channel with no
// event reports EAGAIN. Needs rxe0 (selftests/vm/verbs_bad_input.sh).
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <vector>

#include <infiniband/verbs.h>

#include <gtest/gtest.h>

#include "verbs_loop.h"

namespace {

constexpr int kBuf = 4096;

class VerbsLoop : public ::testing::Test {
protected:
	void SetUp() override
	{
		int n = 0;
		ibv_device **list = ibv_get_device_list(&n);

		for (int i = 0; list && i < n && !ctx; i++)
			if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
				ctx = ibv_open_device(list[i]);
		if (list)
			ibv_free_device_list(list);
		if (!ctx)
			GTEST_SKIP() << "no rxe0";
		ASSERT_GE(gid_index = rk::find_ipv4_roce_v2_gid(ctx, &my_gid), 0);
		ASSERT_TRUE(pd = ibv_alloc_pd(ctx));
		ASSERT_TRUE(cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0));
		a = create_qp();
		b = create_qp();
		ASSERT_TRUE(a && b);
		ASSERT_EQ(0, connect(a, b->qp_num));
		ASSERT_EQ(0, connect(b, a->qp_num));
		src.assign(kBuf, 0x11);
		dst.assign(kBuf, 0x22);
		ASSERT_TRUE(src_mr = ibv_reg_mr(pd, src.data(), kBuf,
						IBV_ACCESS_LOCAL_WRITE));
	}

	void TearDown() override
	{
		if (a)
			ibv_destroy_qp(a);
		if (b)
			ibv_destroy_qp(b);
		if (dst_mr)
			ibv_dereg_mr(dst_mr);
		if (src_mr)
			ibv_dereg_mr(src_mr);
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
	}

	ibv_qp *create_qp()
	{
		ibv_qp_init_attr init{};

		init.send_cq = cq;
		init.recv_cq = cq;
		init.cap.max_send_wr = 8;
		init.cap.max_recv_wr = 8;
		init.cap.max_send_sge = 1;
		init.cap.max_recv_sge = 1;
		init.qp_type = IBV_QPT_RC;
		init.sq_sig_all = 1;
		return ibv_create_qp(pd, &init);
	}

	int connect(ibv_qp *qp, uint32_t dest)
	{
		rk::RcPath p{my_gid, gid_index, IBV_MTU_1024, 7, 1,
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};

		return rk::connect_rc(qp, dest, p);
	}

	// Posts an RDMA write a -> dst_mr and returns its completion status.
	int write_to_dst(uint32_t len)
	{
		ibv_sge sge{reinterpret_cast<uintptr_t>(src.data()), len,
			    src_mr->lkey};
		ibv_send_wr wr{}, *bad;
		ibv_wc wc{};

		wr.wr_id = 42;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst.data());
		wr.wr.rdma.rkey = dst_mr->rkey;
		if (ibv_post_send(a, &wr, &bad))
			return -1;
		for (int spin = 0; spin < 5000000; spin++) {
			int n = ibv_poll_cq(cq, 1, &wc);

			if (n < 0)
				return -2;
			if (n == 1)
				return wc.wr_id == 42 ? wc.status : -3;
			if (spin > 1000)
				usleep(100);
		}
		return -4;
	}

	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_qp *a = nullptr, *b = nullptr;
	ibv_mr *src_mr = nullptr, *dst_mr = nullptr;
	ibv_gid my_gid{};
	int gid_index = -1;
	std::vector<uint8_t> src, dst;
};

TEST_F(VerbsLoop, RemoteWriteMovesBytes)
{
	ASSERT_TRUE(dst_mr = ibv_reg_mr(pd, dst.data(), kBuf,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE));
	for (int i = 0; i < kBuf; i++)
		src[i] = static_cast<uint8_t>(i * 13 + 1);
	EXPECT_EQ(IBV_WC_SUCCESS, write_to_dst(3000));
	EXPECT_EQ(0, memcmp(src.data(), dst.data(), 3000));
	EXPECT_EQ(0x22, dst[3000]) << "wrote past the length";
}

TEST_F(VerbsLoop, RemoteWriteWithoutAccessRefused)
{
	ASSERT_TRUE(dst_mr = ibv_reg_mr(pd, dst.data(), kBuf,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_READ));
	EXPECT_EQ(IBV_WC_REM_ACCESS_ERR, write_to_dst(256));
	for (int i = 0; i < kBuf; i++)
		ASSERT_EQ(0x22, dst[i]) << "target byte " << i << " changed";
}

TEST_F(VerbsLoop, NonBlockingChannelWithoutEvent)
{
	ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	ibv_cq *ecq;
	void *cq_ctx;

	ASSERT_TRUE(ch);
	ASSERT_TRUE(ecq = ibv_create_cq(ctx, 4, nullptr, ch, 0));
	ASSERT_EQ(0, ibv_req_notify_cq(ecq, 0));
	int fl = fcntl(ch->fd, F_GETFL);
	ASSERT_EQ(0, fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK));
	errno = 0;
	EXPECT_NE(0, ibv_get_cq_event(ch, &ecq, &cq_ctx));
	EXPECT_EQ(EAGAIN, errno);
	pollfd p{ch->fd, POLLIN, 0};
	EXPECT_EQ(0, poll(&p, 1, 0));
	EXPECT_EQ(0, ibv_destroy_cq(ecq));
	EXPECT_EQ(0, ibv_destroy_comp_channel(ch));
}

} // namespace
