// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Raw write() commands on /dev/infiniband/uverbsN, below libibverbs, so
// that tests can send exactly the malformed frames a buggy or hostile
// program could.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

private:
	int fd_ = -1;
	std::vector<int> async_fds_;
};

} // namespace rk
