// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// RDMA_VERBS_IOCTL on /dev/infiniband/uverbs0 below libibverbs: malformed
// headers and attribute arrays, unknown objects, methods and attributes,
// wrong lengths, handles of another file, of another type or of a destroyed
// object, and the write() commands of uverbs_bad_input_test.cpp again
// through DEVICE/INVOKE_WRITE. Every errno is the stock kernel's (checked
// with `scripts/vm/run.sh --stack stock --test verbs_bad_input` for rxe0 and
// `--test siw_bad_input` for upstream siw).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include <gtest/gtest.h>

#include "sysfs.h"
#include "util.h"
#include "uverbs_raw.h"

using rk::Ioctl;
using rk::UverbsFile;

namespace {

std::string en(int e)
{
	return rk::errno_name(e);
}

#define EXPECT_ERR(want, expr) EXPECT_EQ(en(want), en(expr)) << #expr
#define ASSERT_OK(expr) ASSERT_EQ(en(0), en(expr)) << #expr

bool on_iwarp()
{
	std::string dev;

	return rk::read_sysfs("/sys/class/infiniband_verbs/uverbs0/ibdev", dev).ok() &&
	       dev.rfind("siw", 0) == 0;
}

// Room for any driver's answer to a create (rxe and siw answer at most 32
// bytes); siw refuses contexts and MRs without it.
struct DrvOut {
	alignas(8) unsigned char b[64] = {};
};

class UverbsIoctl : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (!f.is_open())
			GTEST_SKIP() << "no /dev/infiniband/uverbs0";
	}
	void TearDown() override
	{
		if (async_fd >= 0)
			close(async_fd);
	}

	// GET_CONTEXT as libibverbs does on an ioctl kernel: the native method,
	// then the async event file.
	int get_context()
	{
		uint32_t vectors = 0;
		uint64_t support = 0;
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);

		c.out(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &vectors, sizeof(vectors))
			.out(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &support, sizeof(support))
			.out(UVERBS_ATTR_UHW_OUT, drv.b, 8);
		int err = c.run(f);
		if (err)
			return err;
		Ioctl a(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
		a.obj(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0);
		err = a.run(f);
		if (!err)
			async_fd = a.attr(0).data;
		return err;
	}

	// A write() command through DEVICE/INVOKE_WRITE: CORE_IN is the payload
	// after the 8-byte header (its response field ignored), CORE_OUT the
	// response, UHW_IN/OUT the driver's data.
	int invoke(uint32_t cmd, const void *in, uint16_t in_len, void *out,
		   uint16_t out_len, const void *uin = nullptr, uint16_t uin_len = 0,
		   void *uout = nullptr, uint16_t uout_len = 0)
	{
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);

		c.in_u64(UVERBS_ATTR_WRITE_CMD, cmd);
		c.in(UVERBS_ATTR_CORE_IN, in, in_len);
		if (out)
			c.out(UVERBS_ATTR_CORE_OUT, out, out_len);
		if (uin)
			c.in(UVERBS_ATTR_UHW_IN, uin, uin_len);
		if (uout)
			c.out(UVERBS_ATTR_UHW_OUT, uout, uout_len);
		return c.run(f);
	}

	int alloc_pd(uint32_t *pd)
	{
		ib_uverbs_alloc_pd req{};
		ib_uverbs_alloc_pd_resp resp{};
		int err = invoke(IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req), &resp,
				 sizeof(resp));

		if (!err)
			*pd = resp.pd_handle;
		return err;
	}

	int destroy(uint16_t object, uint16_t method, int64_t handle)
	{
		Ioctl c(object, method);

		c.obj(0, handle);
		return c.run(f);
	}

	int dealloc_pd(uint32_t pd)
	{
		return destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, pd);
	}

	int create_cq(uint32_t *cq, int64_t channel = -1, uint32_t cqe = 16,
		      uint32_t vector = 0)
	{
		uint64_t user_handle = 0x1234;
		uint32_t resp_cqe = 0;
		Ioctl c(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);

		c.obj(UVERBS_ATTR_CREATE_CQ_HANDLE, 0)
			.in_u32(UVERBS_ATTR_CREATE_CQ_CQE, cqe)
			.in_u64(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, user_handle)
			.in_u32(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, vector)
			.out(UVERBS_ATTR_CREATE_CQ_RESP_CQE, &resp_cqe, sizeof(resp_cqe))
			.obj(UVERBS_ATTR_CREATE_CQ_EVENT_FD, async_fd, false)
			.out(UVERBS_ATTR_UHW_OUT, drv.b, 32);
		if (channel >= 0)
			c.obj(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, channel);
		int err = c.run(f);
		if (!err)
			*cq = c.attr(0).data;
		return err;
	}

	int destroy_cq(uint32_t cq, ib_uverbs_destroy_cq_resp *resp = nullptr)
	{
		ib_uverbs_destroy_cq_resp r{};
		Ioctl c(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);

		c.obj(UVERBS_ATTR_DESTROY_CQ_HANDLE, cq)
			.out(UVERBS_ATTR_DESTROY_CQ_RESP, resp ? resp : &r, sizeof(r));
		return c.run(f);
	}

	int create_comp_channel(int *fd)
	{
		ib_uverbs_create_comp_channel req{};
		ib_uverbs_create_comp_channel_resp resp{};
		int err = invoke(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
				 sizeof(req), &resp, sizeof(resp));

		if (!err)
			*fd = resp.fd;
		return err;
	}

	int query_port(uint64_t port, uint16_t resp_len = 48)
	{
		alignas(8) unsigned char resp[64] = {};
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);

		c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, port)
			.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, resp_len);
		return c.run(f);
	}

	UverbsFile f;
	DrvOut drv;
	int async_fd = -1;
};

// ---------------------------------------------------------------- header

TEST_F(UverbsIoctl, OtherIoctlNumber)
{
	ib_uverbs_ioctl_hdr hdr{};

	hdr.length = sizeof(hdr);
	EXPECT_ERR(ENOTTY, ioctl(f.fd(), _IOWR(RDMA_IOCTL_MAGIC, 2, ib_uverbs_ioctl_hdr),
				 &hdr) ? errno : 0);
	EXPECT_ERR(ENOTTY, ioctl(f.fd(), _IOW('T', 1, int), &hdr) ? errno : 0);
}

// libibverbs' probe before GET_CONTEXT: any answer but EPROTONOSUPPORT or
// ENOTTY puts it in ioctl mode; the stock kernel says ENOSPC.
TEST_F(UverbsIoctl, LibibverbsProbe)
{
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);

	c.in_u64(UVERBS_ATTR_WRITE_CMD, IB_USER_VERBS_CMD_QUERY_DEVICE);
	EXPECT_ERR(ENOSPC, c.run(f));
}

TEST_F(UverbsIoctl, LengthDisagreesWithAttrs)
{
	ASSERT_OK(get_context());
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	alignas(8) unsigned char resp[48];

	c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	c.length(sizeof(ib_uverbs_ioctl_hdr) + sizeof(ib_uverbs_attr));
	EXPECT_ERR(EINVAL, c.run(f));
	c.length(sizeof(ib_uverbs_ioctl_hdr) + 3 * sizeof(ib_uverbs_attr));
	EXPECT_ERR(EINVAL, c.run(f));
	c.length(sizeof(ib_uverbs_ioctl_hdr) + 2 * sizeof(ib_uverbs_attr) + 1);
	EXPECT_ERR(EINVAL, c.run(f));
	c.length(0);
	EXPECT_ERR(EINVAL, c.run(f));
	c.length(sizeof(ib_uverbs_ioctl_hdr) + 2 * sizeof(ib_uverbs_attr));
	EXPECT_ERR(0, c.run(f));
}

TEST_F(UverbsIoctl, TooManyAttrs)
{
	ASSERT_OK(get_context());
	// 300 attributes make a header longer than a page.
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);

	for (int i = 0; i < 300; i++)
		c.in_u64(0x30 + i, 0, false);
	EXPECT_ERR(EINVAL, c.run(f));
}

TEST_F(UverbsIoctl, ReservedHeaderFields)
{
	ASSERT_OK(get_context());
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	alignas(8) unsigned char resp[48];

	c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	c.reserved(1, 0);
	EXPECT_ERR(EPROTONOSUPPORT, c.run(f));
	c.reserved(0, 1);
	EXPECT_ERR(EPROTONOSUPPORT, c.run(f));
	c.reserved(0, 0);
	EXPECT_ERR(0, c.run(f));
}

TEST_F(UverbsIoctl, DriverId)
{
	ASSERT_OK(get_context());
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	alignas(8) unsigned char resp[48];

	c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	c.driver(RDMA_DRIVER_MLX5);
	EXPECT_ERR(EINVAL, c.run(f));
	c.driver(RDMA_DRIVER_UNKNOWN);
	EXPECT_ERR(EINVAL, c.run(f));
	c.driver(f.driver_id());
	EXPECT_ERR(0, c.run(f));
}

TEST_F(UverbsIoctl, UnknownObjectOrMethod)
{
	ASSERT_OK(get_context());
	Ioctl unknown_obj(0x7f, 0);
	Ioctl driver_obj(UVERBS_UDATA_DRIVER_DATA_FLAG | 1, 0);
	Ioctl unknown_method(UVERBS_OBJECT_PD, 9);
	Ioctl driver_method(UVERBS_OBJECT_CQ, UVERBS_UDATA_DRIVER_DATA_FLAG | 2);
	Ioctl huge_method(UVERBS_OBJECT_DEVICE, 0xffff);

	EXPECT_ERR(EPROTONOSUPPORT, unknown_obj.run(f));
	EXPECT_ERR(EPROTONOSUPPORT, driver_obj.run(f));
	EXPECT_ERR(EPROTONOSUPPORT, unknown_method.run(f));
	EXPECT_ERR(EPROTONOSUPPORT, driver_method.run(f));
	EXPECT_ERR(EPROTONOSUPPORT, huge_method.run(f));
}

// --------------------------------------------------------- attributes

TEST_F(UverbsIoctl, UnknownAttributes)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char resp[48];
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);

	c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp))
		.in_u64(0x20, 5, false)
		.in_u64(UVERBS_UDATA_DRIVER_DATA_FLAG | 7, 5, false);
	EXPECT_ERR(0, c.run(f)) << "optional unknown attributes are ignored";

	Ioctl m(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	m.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp))
		.in_u64(0x20, 5, true);
	EXPECT_ERR(EPROTONOSUPPORT, m.run(f));
}

TEST_F(UverbsIoctl, DuplicateAttribute)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char resp[48];
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);

	c.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	EXPECT_ERR(EINVAL, c.run(f));
}

TEST_F(UverbsIoctl, MissingMandatoryAttribute)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char resp[48];
	Ioctl no_resp(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	Ioctl no_port(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);

	no_resp.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1);
	no_port.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	EXPECT_ERR(EINVAL, no_resp.run(f));
	EXPECT_ERR(EINVAL, no_port.run(f));
}

TEST_F(UverbsIoctl, AttributeFlagsAndReserved)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char resp[48];
	ib_uverbs_attr port{};

	port.attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM;
	port.len = 8;
	port.data = 1;
	// Flag bits this kernel does not know are ignored.
	port.flags = UVERBS_ATTR_F_MANDATORY | 0x80;
	Ioctl bad_flags(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	bad_flags.raw(port).out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	EXPECT_ERR(0, bad_flags.run(f));

	// VALID_OUTPUT is the kernel's to set; on input it means nothing.
	port.flags = UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT;
	Ioctl valid_out(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	valid_out.raw(port).out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	EXPECT_ERR(0, valid_out.run(f));

	port.flags = UVERBS_ATTR_F_MANDATORY;
	port.attr_data.reserved = 1;
	Ioctl bad_reserved(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	bad_reserved.raw(port).out(UVERBS_ATTR_QUERY_PORT_RESP, resp, sizeof(resp));
	EXPECT_ERR(EINVAL, bad_reserved.run(f));
}

TEST_F(UverbsIoctl, WrongLengths)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char resp[64];
	// The port number is a u64 constant.
	Ioctl short_port(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	uint32_t port32 = 1;

	short_port.in(UVERBS_ATTR_QUERY_PORT_PORT_NUM, &port32, sizeof(port32))
		.out(UVERBS_ATTR_QUERY_PORT_RESP, resp, 48);
	EXPECT_ERR(EINVAL, short_port.run(f));

	// An answer buffer shorter than the answer; longer ones are fine.
	EXPECT_ERR(EINVAL, query_port(1, 16));
	EXPECT_ERR(EINVAL, query_port(1, 40));
	EXPECT_ERR(EINVAL, query_port(1, 44));
	EXPECT_ERR(EINVAL, query_port(1, 47));
	EXPECT_ERR(0, query_port(1, 64));

	// A pointer attribute with a length but a bad address.
	Ioctl fault(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	fault.in_u64(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1)
		.out(UVERBS_ATTR_QUERY_PORT_RESP, (void *)16, 48);
	EXPECT_ERR(EFAULT, fault.run(f));
}

TEST_F(UverbsIoctl, PortNumbers)
{
	ASSERT_OK(get_context());
	EXPECT_ERR(0, query_port(1));
	EXPECT_ERR(EINVAL, query_port(0));
	EXPECT_ERR(EINVAL, query_port(2));
	EXPECT_ERR(EINVAL, query_port(1ULL << 40));
}

// --------------------------------------------------------- context

TEST_F(UverbsIoctl, CommandBeforeContext)
{
	uint32_t pd = 0;
	alignas(8) unsigned char resp[48];

	EXPECT_ERR(EINVAL, alloc_pd(&pd));
	EXPECT_ERR(ENOENT, dealloc_pd(0));
	EXPECT_ERR(EINVAL, query_port(1));
	(void)resp;
}

TEST_F(UverbsIoctl, SecondContext)
{
	ASSERT_OK(get_context());
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	c.out(UVERBS_ATTR_UHW_OUT, drv.b, 8);
	EXPECT_ERR(EINVAL, c.run(f));

	ib_uverbs_get_context req{};
	ib_uverbs_get_context_resp resp{};
	EXPECT_ERR(EINVAL, invoke(IB_USER_VERBS_CMD_GET_CONTEXT, &req, sizeof(req),
				  &resp, sizeof(resp), nullptr, 0, drv.b, 8));
}

TEST_F(UverbsIoctl, QueryContext)
{
	ASSERT_OK(get_context());
	uint32_t vectors = 0;
	uint64_t support = 0;
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT);

	c.out(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, &vectors, sizeof(vectors))
		.out(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, &support, sizeof(support));
	// Only drivers with a query_ucontext method answer (rxe and siw have none).
	EXPECT_ERR(EOPNOTSUPP, c.run(f));
}

TEST_F(UverbsIoctl, AsyncEventFile)
{
	ASSERT_OK(get_context());
	EXPECT_GE(async_fd, 0);
	// One per context.
	Ioctl a(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	a.obj(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0);
	int err = a.run(f);
	if (!err)
		close(a.attr(0).data);
	EXPECT_ERR(0, err);
}

// ------------------------------------------------------------ handles

TEST_F(UverbsIoctl, BadHandles)
{
	ASSERT_OK(get_context());
	uint32_t pd = 0;

	EXPECT_ERR(ENOENT, dealloc_pd(12345));
	EXPECT_ERR(ENOENT, destroy(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 777));
	ASSERT_OK(alloc_pd(&pd));
	ASSERT_OK(dealloc_pd(pd));
	EXPECT_ERR(ENOENT, dealloc_pd(pd)) << "destroyed handle";
	ASSERT_OK(alloc_pd(&pd));
	EXPECT_ERR(ENOENT, destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
				   0x80000000u | pd));
	EXPECT_ERR(ENOENT, destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
				   0xffffffffu));
	Ioctl neg(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	neg.obj(UVERBS_ATTR_DESTROY_PD_HANDLE, -1);
	EXPECT_ERR(EINVAL, neg.run(f));
	EXPECT_ERR(ENOENT, destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
				   (1LL << 62) | pd));
	EXPECT_ERR(ENOENT, destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
				   (1LL << 32) | pd));
	EXPECT_ERR(EINVAL, destroy(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
				   INT64_MIN));
	EXPECT_ERR(0, dealloc_pd(pd));
}

TEST_F(UverbsIoctl, HandleOfAnotherType)
{
	ASSERT_OK(get_context());
	uint32_t pd = 0, cq = 0;

	ASSERT_OK(alloc_pd(&pd));
	ASSERT_OK(create_cq(&cq));
	EXPECT_NE(pd, cq) << "one handle space for all types";
	EXPECT_ERR(EINVAL, dealloc_pd(cq));
	EXPECT_ERR(EINVAL, destroy_cq(pd));
	EXPECT_ERR(0, destroy_cq(cq));
	EXPECT_ERR(0, dealloc_pd(pd));
}

TEST_F(UverbsIoctl, ForeignHandle)
{
	UverbsFile other;
	uint32_t pd0 = 0, pd1 = 0;

	ASSERT_OK(get_context());
	ASSERT_OK(alloc_pd(&pd0));
	ASSERT_OK(alloc_pd(&pd1));
	// The other file's context, made through write().
	ASSERT_EQ(0, other.get_context());
	Ioctl c(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	c.obj(UVERBS_ATTR_DESTROY_PD_HANDLE, pd1);
	EXPECT_ERR(ENOENT, c.run(other));
	EXPECT_ERR(0, dealloc_pd(pd1));
	EXPECT_ERR(0, dealloc_pd(pd0));
}

TEST_F(UverbsIoctl, PdInUse)
{
	ASSERT_OK(get_context());
	static char buf[8192] __attribute__((aligned(4096)));
	uint32_t pd = 0;
	ib_uverbs_reg_mr req{};
	ib_uverbs_reg_mr_resp resp{};
	alignas(8) unsigned char uin[8] = {};

	ASSERT_OK(alloc_pd(&pd));
	req.start = req.hca_va = (uintptr_t)buf;
	req.length = sizeof(buf);
	req.pd_handle = pd;
	req.access_flags = IB_UVERBS_ACCESS_LOCAL_WRITE;
	ASSERT_OK(invoke(IB_USER_VERBS_CMD_REG_MR, &req, sizeof(req), &resp,
			 sizeof(resp), uin, sizeof(uin), drv.b, 8));
	EXPECT_ERR(EBUSY, dealloc_pd(pd));

	uint32_t lkey = 0, rkey = 0;
	uint64_t length = 0, iova = 0;
	Ioctl q(UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
	q.obj(UVERBS_ATTR_QUERY_MR_HANDLE, resp.mr_handle)
		.out(UVERBS_ATTR_QUERY_MR_RESP_LKEY, &lkey, sizeof(lkey))
		.out(UVERBS_ATTR_QUERY_MR_RESP_RKEY, &rkey, sizeof(rkey))
		.out(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, &length, sizeof(length))
		.out(UVERBS_ATTR_QUERY_MR_RESP_IOVA, &iova, sizeof(iova), false);
	EXPECT_ERR(0, q.run(f));
	EXPECT_EQ(resp.lkey, lkey);
	EXPECT_EQ(resp.rkey, rkey);
	EXPECT_EQ(sizeof(buf), length);
	EXPECT_EQ((uintptr_t)buf, iova);

	EXPECT_ERR(0, destroy(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY,
			      resp.mr_handle));
	EXPECT_ERR(0, dealloc_pd(pd));
}

// ---------------------------------------------------------- fd objects

TEST_F(UverbsIoctl, CompChannelAttribute)
{
	ASSERT_OK(get_context());
	int ch = -1, devnull = open("/dev/null", O_RDONLY);
	uint32_t cq;
	ib_uverbs_destroy_cq_resp dresp{};

	ASSERT_OK(create_comp_channel(&ch));
	EXPECT_ERR(0, create_cq(&cq, ch));
	EXPECT_ERR(0, destroy_cq(cq, &dresp));
	EXPECT_EQ(0u, dresp.comp_events_reported);
	EXPECT_ERR(EBADF, create_cq(&cq, 1000));
	Ioctl neg(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	neg.obj(UVERBS_ATTR_CREATE_CQ_HANDLE, 0)
		.in_u32(UVERBS_ATTR_CREATE_CQ_CQE, 16)
		.in_u64(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 0)
		.in_u32(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 0)
		.obj(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, -5)
		.out(UVERBS_ATTR_UHW_OUT, drv.b, 32);
	EXPECT_ERR(EBADF, neg.run(f));
	EXPECT_ERR(EBADF, create_cq(&cq, devnull));
	EXPECT_ERR(EBADF, create_cq(&cq, async_fd)) << "not a completion channel";
	close(devnull);

	UverbsFile other;
	int other_ch = -1;
	ib_uverbs_create_comp_channel req{};
	ib_uverbs_create_comp_channel_resp resp{};
	ASSERT_EQ(0, other.get_context());
	ASSERT_EQ(0, other.cmd(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &req,
			       sizeof(req), &resp, sizeof(resp)));
	other_ch = resp.fd;
	EXPECT_ERR(EBADF, create_cq(&cq, other_ch)) << "another file's channel";
	close(other_ch);
	close(ch);
}

TEST_F(UverbsIoctl, CqArguments)
{
	ASSERT_OK(get_context());
	uint32_t cq;

	EXPECT_ERR(EINVAL, create_cq(&cq, -1, 0));
	EXPECT_ERR(EINVAL, create_cq(&cq, -1, 1u << 31));
	EXPECT_ERR(EINVAL, create_cq(&cq, -1, 16, 1000));
}

// -------------------------------------------------------- INVOKE_WRITE

TEST_F(UverbsIoctl, InvokeWrite)
{
	ASSERT_OK(get_context());
	ib_uverbs_query_device qd{};
	alignas(8) unsigned char resp[512] = {};

	EXPECT_ERR(0, invoke(IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), resp, 176));
	EXPECT_ERR(ENOSPC, invoke(IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, sizeof(qd), resp, 100));
	EXPECT_ERR(ENOSPC, invoke(IB_USER_VERBS_CMD_QUERY_DEVICE, &qd, 4, resp, 176));
	EXPECT_ERR(EOPNOTSUPP, invoke(0x7e, &qd, sizeof(qd), resp, 176));
	EXPECT_ERR(EOPNOTSUPP, invoke(IB_USER_VERBS_CMD_FLAG_EXTENDED | 0x7e, &qd,
				      sizeof(qd), resp, 176));
	EXPECT_ERR(EINVAL, invoke(0x40000000 | IB_USER_VERBS_CMD_QUERY_DEVICE, &qd,
				  sizeof(qd), resp, 176));

	// Extended: the core request is in_words * 8.
	ib_uverbs_ex_query_device xq{};
	EXPECT_ERR(0, invoke(IB_USER_VERBS_CMD_FLAG_EXTENDED |
				     IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
			     &xq, sizeof(xq), resp, 304));
	xq.comp_mask = 1;
	EXPECT_ERR(EINVAL, invoke(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					  IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				  &xq, sizeof(xq), resp, 304));
}

TEST_F(UverbsIoctl, InvokeWriteCommandsWithoutDriverSupport)
{
	ASSERT_OK(get_context());
	alignas(8) unsigned char req[128] = {}, resp[128] = {};

	// XRC domains, flows, WQs and RSS tables: rxe and siw have none.
	EXPECT_ERR(EOPNOTSUPP, invoke(IB_USER_VERBS_CMD_OPEN_XRCD, req, 16, resp, 8));
	EXPECT_ERR(EOPNOTSUPP, invoke(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					      IB_USER_VERBS_EX_CMD_CREATE_WQ,
				      req, 40, resp, 24));
	EXPECT_ERR(EOPNOTSUPP, invoke(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					      IB_USER_VERBS_EX_CMD_CREATE_FLOW,
				      req, 24, resp, 8));
	// siw has neither memory windows nor AHs.
	ib_uverbs_alloc_mw mw{};
	ib_uverbs_alloc_mw_resp mw_resp{};
	mw.pd_handle = 999;
	mw.mw_type = 2;
	EXPECT_ERR(on_iwarp() ? EOPNOTSUPP : ENOENT,
		   invoke(IB_USER_VERBS_CMD_ALLOC_MW, &mw, sizeof(mw), &mw_resp,
			  sizeof(mw_resp)));
}

// ------------------------------------- objects the soft drivers do not have

TEST_F(UverbsIoctl, ObjectsWithoutDriverSupport)
{
	ASSERT_OK(get_context());
	uint32_t pd = 0;
	ASSERT_OK(alloc_pd(&pd));

	// Counters, device memory, WQs, flow actions, XRC domains, RSS tables.
	Ioctl counters(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE);
	counters.obj(UVERBS_ATTR_CREATE_COUNTERS_HANDLE, 0);
	EXPECT_ERR(EPROTONOSUPPORT, counters.run(f));

	Ioctl dm(UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC);
	dm.obj(UVERBS_ATTR_ALLOC_DM_HANDLE, 0)
		.in_u64(UVERBS_ATTR_ALLOC_DM_LENGTH, 4096)
		.in_u32(UVERBS_ATTR_ALLOC_DM_ALIGNMENT, 64);
	EXPECT_ERR(EPROTONOSUPPORT, dm.run(f));

	EXPECT_ERR(EPROTONOSUPPORT, destroy(UVERBS_OBJECT_XRCD,
					    UVERBS_METHOD_XRCD_DESTROY, 0));
	EXPECT_ERR(EPROTONOSUPPORT, destroy(UVERBS_OBJECT_RWQ_IND_TBL,
					    UVERBS_METHOD_RWQ_IND_TBL_DESTROY, 0));
	EXPECT_ERR(EPROTONOSUPPORT, destroy(UVERBS_OBJECT_WQ,
					    UVERBS_METHOD_WQ_DESTROY, 0));
	EXPECT_ERR(EPROTONOSUPPORT, destroy(UVERBS_OBJECT_FLOW_ACTION,
					    UVERBS_METHOD_FLOW_ACTION_DESTROY, 0));
	EXPECT_ERR(EPROTONOSUPPORT, destroy(UVERBS_OBJECT_FLOW,
					    UVERBS_METHOD_FLOW_DESTROY, 0));

	// dma-buf MRs: the method exists only for drivers that have them.
	uint32_t lkey, rkey;
	Ioctl dmabuf(UVERBS_OBJECT_MR, UVERBS_METHOD_REG_DMABUF_MR);
	dmabuf.obj(UVERBS_ATTR_REG_DMABUF_MR_HANDLE, 0)
		.obj(UVERBS_ATTR_REG_DMABUF_MR_PD_HANDLE, pd)
		.in_u64(UVERBS_ATTR_REG_DMABUF_MR_OFFSET, 0)
		.in_u64(UVERBS_ATTR_REG_DMABUF_MR_LENGTH, 4096)
		.in_u64(UVERBS_ATTR_REG_DMABUF_MR_IOVA, 0)
		.in_u32(UVERBS_ATTR_REG_DMABUF_MR_FD, 0)
		.in_u32(UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS, 1)
		.out(UVERBS_ATTR_REG_DMABUF_MR_RESP_LKEY, &lkey, sizeof(lkey))
		.out(UVERBS_ATTR_REG_DMABUF_MR_RESP_RKEY, &rkey, sizeof(rkey));
	EXPECT_ERR(EOPNOTSUPP, dmabuf.run(f));

	ib_uverbs_sge sge{};
	Ioctl advise(UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR);
	advise.obj(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, pd)
		.in_u64(UVERBS_ATTR_ADVISE_MR_ADVICE, 0)
		.in_u32(UVERBS_ATTR_ADVISE_MR_FLAGS, 0)
		.in(UVERBS_ATTR_ADVISE_MR_SGE_LIST, &sge, sizeof(sge));
	EXPECT_ERR(EOPNOTSUPP, advise.run(f));

	EXPECT_ERR(0, dealloc_pd(pd));
}

// ------------------------------------------------------------ queries

TEST_F(UverbsIoctl, InfoHandles)
{
	ASSERT_OK(get_context());
	uint32_t pd[3] = {}, cq = 0, total = 0, list[8] = {};

	for (auto &p : pd)
		ASSERT_OK(alloc_pd(&p));
	ASSERT_OK(create_cq(&cq));

	uint16_t obj = UVERBS_OBJECT_PD;
	Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	c.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, obj);
	c.out(UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total), false)
		.out(UVERBS_ATTR_INFO_HANDLES_LIST, list, sizeof(list), false);
	EXPECT_ERR(0, c.run(f));
	EXPECT_EQ(3u, total);
	std::sort(list, list + 3);
	std::sort(pd, pd + 3);
	EXPECT_TRUE(std::equal(pd, pd + 3, list));

	// A list shorter than the handles gets as many as fit.
	Ioctl small(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	total = 0;
	small.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, obj)
		.out(UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total), false)
		.out(UVERBS_ATTR_INFO_HANDLES_LIST, list, 8, false);
	EXPECT_ERR(0, small.run(f));
	EXPECT_EQ(2u, total);
	// Both answers are needed, though marked optional: without the count
	// the list is written and the call still fails (ENOENT, the absent
	// attribute), without a list it fails at once.
	Ioctl only_list(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	only_list.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, obj)
		.out(UVERBS_ATTR_INFO_HANDLES_LIST, list, sizeof(list), false);
	EXPECT_ERR(ENOENT, only_list.run(f));
	Ioctl only_total(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	total = 0;
	only_total.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, obj)
		.out(UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total), false);
	EXPECT_ERR(EINVAL, only_total.run(f));
	EXPECT_EQ(0u, total);
	Ioctl odd(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
	odd.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, obj)
		.out(UVERBS_ATTR_INFO_TOTAL_HANDLES, &total, sizeof(total), false)
		.out(UVERBS_ATTR_INFO_HANDLES_LIST, list, 14, false);
	EXPECT_ERR(EINVAL, odd.run(f));

	auto count = [&](uint16_t type, uint32_t *n) {
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES);
		*n = 0xdead;
		c.in_u64(UVERBS_ATTR_INFO_OBJECT_ID, type)
			.out(UVERBS_ATTR_INFO_TOTAL_HANDLES, n, sizeof(*n), false)
			.out(UVERBS_ATTR_INFO_HANDLES_LIST, list, sizeof(list), false);
		return c.run(f);
	};
	EXPECT_ERR(0, count(UVERBS_OBJECT_CQ, &total));
	EXPECT_EQ(1u, total);
	EXPECT_EQ(cq, list[0]);
	// File descriptor objects count too, with no handle of their own.
	int ch = -1;
	ASSERT_OK(create_comp_channel(&ch));
	EXPECT_ERR(0, count(UVERBS_OBJECT_COMP_CHANNEL, &total));
	EXPECT_EQ(1u, total);
	EXPECT_EQ(0u, list[0]);
	close(ch);
	EXPECT_ERR(0, count(UVERBS_OBJECT_ASYNC_EVENT, &total));
	EXPECT_EQ(1u, total);
	EXPECT_EQ(0u, list[0]);
	EXPECT_ERR(0, count(UVERBS_OBJECT_DEVICE, &total));
	EXPECT_EQ(0u, total);
	// Types this kernel knows nothing of, or that the device lacks.
	EXPECT_ERR(ENOENT, count(0x55, &total));
	EXPECT_ERR(ENOENT, count(UVERBS_OBJECT_DM, &total));
	EXPECT_ERR(ENOENT, count(UVERBS_OBJECT_XRCD, &total));
	EXPECT_ERR(ENOENT, count(UVERBS_OBJECT_COUNTERS, &total));
	EXPECT_ERR(on_iwarp() ? ENOENT : 0, count(UVERBS_OBJECT_MW, &total));

	EXPECT_ERR(0, destroy_cq(cq));
	for (auto p : pd)
		EXPECT_ERR(0, dealloc_pd(p));
}

TEST_F(UverbsIoctl, GidQueries)
{
	ASSERT_OK(get_context());
	// Our rxe has a RoCE v1 and v2 entry per address: room for 16.
	ib_uverbs_gid_entry ent[16] = {};
	uint64_t n = 0;

	auto entry = [&](uint64_t port, uint64_t index, uint32_t flags,
			 uint16_t len = sizeof(ib_uverbs_gid_entry)) {
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
		c.in_u64(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, port)
			.in_u64(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, index)
			.in_u32(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, flags)
			.out(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, ent, len);
		return c.run(f);
	};
	EXPECT_ERR(0, entry(1, 0, 0));
	EXPECT_EQ(0u, ent[0].gid_index);
	EXPECT_EQ(1u, ent[0].port_num);
	EXPECT_ERR(EINVAL, entry(1, 0, 1));
	EXPECT_ERR(EINVAL, entry(0, 0, 0));
	EXPECT_ERR(EINVAL, entry(1, 1u << 20, 0));
	EXPECT_ERR(EINVAL, entry(1, 0, 0, 16));

	auto table = [&](uint64_t esize, uint32_t flags, uint16_t len) {
		Ioctl c(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
		c.in_u64(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, esize)
			.in_u32(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, flags, false)
			.out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, ent, len)
			.out(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &n, sizeof(n));
		return c.run(f);
	};
	EXPECT_ERR(0, table(32, 0, sizeof(ent)));
	EXPECT_GE(n, 1u);
	uint64_t full = n;
	EXPECT_ERR(EINVAL, table(32, 1, sizeof(ent)));
	EXPECT_ERR(EINVAL, table(32, 0, 40));
	// More entries than fit (rxe has several, siw one).
	if (full >= 2) {
		EXPECT_ERR(EINVAL, table(32, 0, 32 * (full - 1)));
	}
	// Entries shorter than this kernel's are cut; the buffer must hold a
	// whole number of them; longer entries are refused.
	ib_uverbs_gid_entry whole[16];
	memcpy(whole, ent, sizeof(whole));
	for (uint64_t es : {8, 16}) {
		memset(ent, 0xff, sizeof(ent));
		n = 0;
		EXPECT_ERR(0, table(es, 0, sizeof(ent))) << es;
		EXPECT_EQ(full, n);
		EXPECT_EQ(0, memcmp(ent, &whole[0], es)) << es;
		if (full >= 2) {
			EXPECT_EQ(0, memcmp((char *)ent + es, &whole[1], es)) << es;
		}
	}
	EXPECT_ERR(0, table(24, 0, 24 * full));
	EXPECT_ERR(EINVAL, table(24, 0, 24 * full + 8));
	for (uint64_t es : {0, 31, 33, 40})
		EXPECT_ERR(EINVAL, table(es, 0, sizeof(ent))) << es;
	// Longer entries than this kernel's: zero beyond its 32 bytes.
	memset(ent, 0xff, sizeof(ent));
	EXPECT_ERR(0, table(64, 0, sizeof(ent)));
	EXPECT_EQ(full, n);
	EXPECT_EQ(0, memcmp(ent, &whole[0], sizeof(whole[0])));
	EXPECT_EQ(0u, ent[1].gid[0] | ent[1].gid[1] | ent[1].gid_index |
			      ent[1].netdev_ifindex);
}

} // namespace
