// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "uverbs_raw.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

namespace rk {

UverbsFile::UverbsFile(const std::string &path)
{
	fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
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

} // namespace rk
