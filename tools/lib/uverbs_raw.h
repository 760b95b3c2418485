// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Raw write() commands and RDMA_VERBS_IOCTL calls on
// /dev/infiniband/uverbsN, below libibverbs, so that tests can send exactly
// the malformed frames a buggy or hostile program could.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <rdma/rdma_user_ioctl_cmds.h>

namespace rk {

class UverbsFile {
public:
	explicit UverbsFile(const std::string &path = "/dev/infiniband/uverbs0");
	~UverbsFile();
	UverbsFile(const UverbsFile &) = delete;
	UverbsFile &operator=(const UverbsFile &) = delete;

	bool is_open() const { return fd_ >= 0; }
	int fd() const { return fd_; }

	// write() of exactly these bytes; returns 0 or errno.
	int write_raw(const void *buf, size_t len);
	// Legacy command: header {cmd, in_words, out_words} + payload, where
	// the payload starts with the u64 response pointer if resp_len > 0.
	// in_words/out_words are derived unless overridden (>= 0).
	int cmd(uint32_t command, const void *req, size_t req_len, void *resp,
		size_t resp_len, int in_words = -1, int out_words = -1);

	// Convenience wrappers; return 0 or errno.
	int get_context(uint32_t *async_fd = nullptr);
	int alloc_pd(uint32_t *handle);
	int dealloc_pd(uint32_t handle);
	int reg_mr(uint32_t pd, uint64_t start, uint64_t length, uint64_t iova,
		   uint32_t access, uint32_t *handle, uint32_t *lkey = nullptr);
	int dereg_mr(uint32_t handle);

	// RDMA_VERBS_IOCTL of exactly these bytes (header and attributes);
	// returns 0 or errno.
	int ioctl_raw(void *buf);
	// The RDMA_DRIVER_* id of the device behind the file (from its name).
	uint32_t driver_id() const { return driver_id_; }

private:
	int fd_ = -1;
	uint32_t driver_id_ = 0;
	std::vector<int> async_fds_;
};

// One RDMA_VERBS_IOCTL call, built attribute by attribute. Every attribute
// is mandatory unless told; run() may be called again after changes, and
// attr(i) shows what the kernel wrote back (new handles and fds, flags).
class Ioctl {
public:
	Ioctl(uint16_t object, uint16_t method) : object_(object), method_(method) {}

	// Pointer attributes: up to 8 bytes go inline in data, as libibverbs
	// sends them; longer ones by address.
	Ioctl &in(uint16_t id, const void *p, uint16_t len, bool mandatory = true);
	Ioctl &in_u64(uint16_t id, uint64_t v, bool mandatory = true);
	Ioctl &in_u32(uint16_t id, uint32_t v, bool mandatory = true);
	Ioctl &out(uint16_t id, void *p, uint16_t len, bool mandatory = true);
	// An object handle (IDR or FD; a new object's is written back).
	Ioctl &obj(uint16_t id, int64_t handle, bool mandatory = true);
	// Anything, as given.
	Ioctl &raw(const ib_uverbs_attr &a);

	// Header overrides for malformed calls.
	Ioctl &driver(uint32_t id) { driver_ = id; have_driver_ = true; return *this; }
	Ioctl &reserved(uint64_t r1, uint32_t r2) { res1_ = r1; res2_ = r2; return *this; }
	Ioctl &length(uint16_t len) { length_ = len; return *this; }

	int run(UverbsFile &f);
	const ib_uverbs_attr &attr(size_t i) const { return attrs_.at(i); }
	size_t size() const { return attrs_.size(); }

private:
	uint16_t object_, method_;
	uint32_t driver_ = 0;
	bool have_driver_ = false;
	uint64_t res1_ = 0;
	uint32_t res2_ = 0;
	int length_ = -1;
	std::vector<ib_uverbs_attr> attrs_;
};

} // namespace rk
