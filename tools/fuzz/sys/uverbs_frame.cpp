// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "uverbs_frame.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace fz {

UvFrame uv_frame(uint32_t cmd, const char *name, const void *req, size_t len, size_t resp_len)
{
	UvFrame f;
	f.cmd = cmd;
	f.req.assign((const uint8_t *)req, (const uint8_t *)req + len);
	f.resp_len = resp_len;
	f.has_resp = resp_len > 0 && !(cmd & kEx);
	f.name = name;
	return f;
}

void put64(std::vector<uint8_t> &v, size_t off, uint64_t x)
{
	if (off + 8 <= v.size())
		memcpy(&v[off], &x, 8);
}

int uv_send(Worker &w, UvState &s, UvFrame &f, uint8_t **resp)
{
	*resp = nullptr;
	uint8_t *rbuf = w.mem.resp(w.rng.below(8));
	const size_t extra = 64; // room for the driver's udata response
	size_t out_bytes = f.resp_len ? f.resp_len + extra : 0;
	uint64_t rptr = (uint64_t)rbuf;
	bool ex = f.cmd & kEx;
	if (f.has_resp)
		put64(f.req, 0, rptr);
	for (size_t off : f.ptrs)
		put64(f.req, off, (uint64_t)w.mem.resp(8 + w.rng.below(8)));

	int64_t in_words = -1, out_words = -1, wlen = -1;
	uint32_t cmd = f.cmd;
	const char *mut = "none";
	if (w.rng.chance(35)) {
		switch (w.rng.below(8)) {
		case 0:
		case 1: { // field bytes
			mut = "bytes";
			unsigned n = 1 + w.rng.below(4);
			for (unsigned i = 0; i < n && !f.req.empty(); i++) {
				size_t at = w.rng.below(f.req.size());
				f.req[at] = w.rng.chance(50) ? (uint8_t)w.rng.next()
							     : (uint8_t)w.rng.interesting();
			}
			if (f.has_resp)
				put64(f.req, 0, rptr);
			for (size_t off : f.ptrs)
				put64(f.req, off, w.mem.any_ptr(w.rng, 64));
			break;
		}
		case 2:
			mut = "resp_ptr";
			rptr = w.mem.any_ptr(w.rng, out_bytes);
			if (f.has_resp)
				put64(f.req, 0, rptr);
			break;
		case 3:
			mut = "in_words";
			in_words = w.rng.chance(50) ? (int64_t)w.rng.below(0x10000)
						    : (int64_t)(f.req.size() / (ex ? 8 : 4)) +
							      (int64_t)w.rng.below(5) - 2;
			break;
		case 4:
			mut = "out_words";
			out_words = w.rng.chance(50) ? (int64_t)w.rng.below(0x10000)
						     : (int64_t)(out_bytes / (ex ? 8 : 4)) +
							       (int64_t)w.rng.below(5) - 2;
			break;
		case 5:
			mut = "length";
			wlen = w.rng.below(f.req.size() + 64);
			break;
		case 6:
			mut = "short_req";
			f.req.resize(w.rng.below(f.req.size() + 1));
			break;
		default:
			mut = "cmd_bits";
			cmd ^= 1u << w.rng.below(32);
			break;
		}
	}

	std::vector<uint8_t> buf(8 + (ex ? 16 : 0));
	uint32_t iw, ow;
	if (!ex) {
		iw = in_words >= 0 ? (uint32_t)in_words : (uint32_t)((8 + f.req.size()) / 4);
		ow = out_words >= 0 ? (uint32_t)out_words : (uint32_t)(out_bytes / 4);
	} else {
		iw = in_words >= 0 ? (uint32_t)in_words : (uint32_t)(f.req.size() / 8);
		ow = out_words >= 0 ? (uint32_t)out_words : (uint32_t)(f.resp_len / 8);
		ib_uverbs_ex_cmd_hdr xh{};
		xh.response = f.resp_len ? rptr : 0;
		if (f.resp_len && w.rng.chance(5))
			xh.provider_out_words = (uint16_t)w.rng.below(16);
		if (w.rng.chance(3))
			xh.cmd_hdr_reserved = (uint32_t)w.rng.next();
		memcpy(&buf[8], &xh, sizeof(xh));
	}
	ib_uverbs_cmd_hdr h{cmd, (uint16_t)iw, (uint16_t)ow};
	memcpy(&buf[0], &h, sizeof(h));
	buf.insert(buf.end(), f.req.begin(), f.req.end());
	size_t len = wlen >= 0 && (size_t)wlen < buf.size() ? (size_t)wlen : buf.size();

	w.note("uverbs %s write %s cmd=%#x in=%u out=%u len=%zu mut=%s", s.dev->name.c_str(),
	       f.name, cmd, iw, ow, len, mut);
	if (rptr == (uint64_t)rbuf)
		memset(rbuf, 0, out_bytes < 1024 ? out_bytes : 1024);
	ssize_t r = write(s.fd, buf.data(), len);
	int err = r < 0 ? errno : 0;
	w.result(err);
	if (r >= 0 && (size_t)r != len)
		w.violation("uverbs %s: write of %zu returned %zd", f.name, len, r);
	if (!err && rptr == (uint64_t)rbuf && f.resp_len)
		*resp = rbuf;
	return err;
}

uint32_t rd32(const uint8_t *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, 4);
	return v;
}

} // namespace fz
