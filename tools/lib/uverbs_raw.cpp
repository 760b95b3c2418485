// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "uverbs_raw.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "sysfs.h"

namespace rk {

UverbsFile::UverbsFile(const std::string &path)
{
	std::string dev;
	size_t slash = path.rfind('/');

	fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
	if (rk::read_sysfs("/sys/class/infiniband_verbs/" + path.substr(slash + 1) +
			   "/ibdev", dev).ok()) {
		if (dev.rfind("rxe", 0) == 0)
			driver_id_ = RDMA_DRIVER_RXE;
		else if (dev.rfind("siw", 0) == 0)
			driver_id_ = RDMA_DRIVER_SIW;
	}
}

UverbsFile::~UverbsFile()
{
	for (int fd : async_fds_)
		::close(fd);
	if (fd_ >= 0)
		::close(fd_);
}

int UverbsFile::write_raw(const void *buf, size_t len)
{
	ssize_t n = ::write(fd_, buf, len);

	if (n < 0)
		return errno;
	return static_cast<size_t>(n) == len ? 0 : EIO;
}

int UverbsFile::cmd(uint32_t command, const void *req, size_t req_len,
		    void *resp, size_t resp_len, int in_words, int out_words)
{
	std::vector<uint8_t> buf(sizeof(ib_uverbs_cmd_hdr) + req_len);
	ib_uverbs_cmd_hdr hdr{};

	hdr.command = command;
	hdr.in_words = in_words >= 0 ? in_words : buf.size() / 4;
	hdr.out_words = out_words >= 0 ? out_words : resp_len / 4;
	std::memcpy(buf.data(), &hdr, sizeof(hdr));
	if (req_len)
		std::memcpy(buf.data() + sizeof(hdr), req, req_len);
	// The response pointer is the first u64 of every request with output.
	if (resp_len && req_len >= sizeof(uint64_t)) {
		uint64_t p = reinterpret_cast<uintptr_t>(resp);

		std::memcpy(buf.data() + sizeof(hdr), &p, sizeof(p));
	}
	return write_raw(buf.data(), buf.size());
}

int UverbsFile::get_context(uint32_t *async_fd)
{
	ib_uverbs_get_context req{};
	// Room for a driver's answer too: siw refuses a context without it
	// (rxe answers nothing). The core answer ends in a flexible array,
	// hence the byte buffer.
	alignas(8) unsigned char out[sizeof(ib_uverbs_get_context_resp) + 16] = {};
	ib_uverbs_get_context_resp resp;
	int err = cmd(IB_USER_VERBS_CMD_GET_CONTEXT, &req, sizeof(req), out,
		      sizeof(out));

	memcpy(&resp, out, sizeof(resp));

	if (!err) {
		async_fds_.push_back(resp.async_fd);
		if (async_fd)
			*async_fd = resp.async_fd;
	}
	return err;
}

int UverbsFile::alloc_pd(uint32_t *handle)
{
	ib_uverbs_alloc_pd req{};
	ib_uverbs_alloc_pd_resp resp{};
	int err = cmd(IB_USER_VERBS_CMD_ALLOC_PD, &req, sizeof(req), &resp,
		      sizeof(resp));

	if (!err)
		*handle = resp.pd_handle;
	return err;
}

int UverbsFile::dealloc_pd(uint32_t handle)
{
	ib_uverbs_dealloc_pd req{};

	req.pd_handle = handle;
	return cmd(IB_USER_VERBS_CMD_DEALLOC_PD, &req, sizeof(req), nullptr, 0);
}

int UverbsFile::reg_mr(uint32_t pd, uint64_t start, uint64_t length,
		       uint64_t iova, uint32_t access, uint32_t *handle,
		       uint32_t *lkey)
{
	ib_uverbs_reg_mr req{};
	// A driver's request and answer follow the core ones: siw wants both
	// (its STag key in, the STag out), all zero here; rxe reads neither.
	alignas(8) unsigned char in[sizeof(req) + 8] = {};
	alignas(8) unsigned char out[sizeof(ib_uverbs_reg_mr_resp) + 16] = {};
	ib_uverbs_reg_mr_resp resp;
	int err;

	req.start = start;
	req.length = length;
	req.hca_va = iova;
	req.pd_handle = pd;
	req.access_flags = access;
	memcpy(in, &req, sizeof(req));
	err = cmd(IB_USER_VERBS_CMD_REG_MR, in, sizeof(in), out, sizeof(out));
	memcpy(&resp, out, sizeof(resp));
	if (!err) {
		*handle = resp.mr_handle;
		if (lkey)
			*lkey = resp.lkey;
	}
	return err;
}

int UverbsFile::dereg_mr(uint32_t handle)
{
	ib_uverbs_dereg_mr req{};

	req.mr_handle = handle;
	return cmd(IB_USER_VERBS_CMD_DEREG_MR, &req, sizeof(req), nullptr, 0);
}

int UverbsFile::ioctl_raw(void *buf)
{
	return ::ioctl(fd_, RDMA_VERBS_IOCTL, buf) ? errno : 0;
}

Ioctl &Ioctl::raw(const ib_uverbs_attr &a)
{
	attrs_.push_back(a);
	return *this;
}

Ioctl &Ioctl::in(uint16_t id, const void *p, uint16_t len, bool mandatory)
{
	ib_uverbs_attr a{};

	a.attr_id = id;
	a.len = len;
	a.flags = mandatory ? UVERBS_ATTR_F_MANDATORY : 0;
	if (len <= sizeof(a.data))
		std::memcpy(&a.data, p, len);
	else
		a.data = reinterpret_cast<uintptr_t>(p);
	return raw(a);
}

Ioctl &Ioctl::in_u64(uint16_t id, uint64_t v, bool mandatory)
{
	return in(id, &v, sizeof(v), mandatory);
}

Ioctl &Ioctl::in_u32(uint16_t id, uint32_t v, bool mandatory)
{
	return in(id, &v, sizeof(v), mandatory);
}

Ioctl &Ioctl::out(uint16_t id, void *p, uint16_t len, bool mandatory)
{
	ib_uverbs_attr a{};

	a.attr_id = id;
	a.len = len;
	a.flags = mandatory ? UVERBS_ATTR_F_MANDATORY : 0;
	a.data = reinterpret_cast<uintptr_t>(p);
	return raw(a);
}

Ioctl &Ioctl::obj(uint16_t id, int64_t handle, bool mandatory)
{
	ib_uverbs_attr a{};

	a.attr_id = id;
	a.flags = mandatory ? UVERBS_ATTR_F_MANDATORY : 0;
	a.data_s64 = handle;
	return raw(a);
}

int Ioctl::run(UverbsFile &f)
{
	std::vector<uint8_t> buf(sizeof(ib_uverbs_ioctl_hdr) +
				 attrs_.size() * sizeof(ib_uverbs_attr));
	ib_uverbs_ioctl_hdr hdr{};
	int err;

	hdr.length = length_ >= 0 ? length_ : buf.size();
	hdr.object_id = object_;
	hdr.method_id = method_;
	hdr.num_attrs = attrs_.size();
	hdr.reserved1 = res1_;
	hdr.driver_id = have_driver_ ? driver_ : f.driver_id();
	hdr.reserved2 = res2_;
	std::memcpy(buf.data(), &hdr, sizeof(hdr));
	if (!attrs_.empty())
		std::memcpy(buf.data() + sizeof(hdr), attrs_.data(),
			    attrs_.size() * sizeof(ib_uverbs_attr));
	err = f.ioctl_raw(buf.data());
	if (!attrs_.empty())
		std::memcpy(attrs_.data(), buf.data() + sizeof(hdr),
			    attrs_.size() * sizeof(ib_uverbs_attr));
	return err;
}

} // namespace rk
