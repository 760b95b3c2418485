// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "iwarp_conn.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fw {
namespace {

// reads exactly @n bytes within @ms milliseconds
bool read_exact(int fd, uint8_t *p, size_t n, int ms, unsigned long &in)
{
	size_t got = 0;

	while (got < n) {
		pollfd pf = { fd, POLLIN, 0 };

		if (poll(&pf, 1, ms) <= 0)
			return false;
		ssize_t k = recv(fd, p + got, n - got, 0);

		if (k <= 0)
			return false;
		got += size_t(k);
		in += size_t(k);
	}
	return true;
}

// reads whatever is there (replies, read responses, terminates) for up to @ms
bool drain(int fd, int ms, unsigned long &in)
{
	uint8_t buf[4096];

	for (;;) {
		pollfd pf = { fd, POLLIN, 0 };

		if (poll(&pf, 1, ms) <= 0)
			return true;
		ssize_t k = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (k == 0 || (k < 0 && errno != EAGAIN))
			return false;	// closed by the victim
		if (k > 0)
			in += size_t(k);
		ms = 0;
	}
}

bool send_all(int fd, const uint8_t *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		pollfd pf = { fd, POLLOUT, 0 };

		if (poll(&pf, 1, 2000) <= 0)
			return false;
		ssize_t k = send(fd, p + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (k < 0 && errno == EAGAIN)
			continue;
		if (k <= 0)
			return false;
		off += size_t(k);
	}
	return true;
}

} // namespace

IwarpResult run_iwarp(uint32_t peer_ip, uint16_t port, const IwarpPlan &plan)
{
	IwarpResult res;
	sockaddr_in a = {};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;

	if (fd < 0)
		return res;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = peer_ip;
	if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof(a)) && errno != EINPROGRESS) {
		close(fd);
		return res;
	}
	pollfd pf = { fd, POLLOUT, 0 };
	int err = 0;
	socklen_t el = sizeof(err);
	if (poll(&pf, 1, 5000) <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) || err) {
		close(fd);
		return res;
	}
	res.connected = true;
	bool crc = false;
	bool ok = send_all(fd, plan.request.data(), plan.send_request);
	if (ok)
		res.sent++;
	if (ok && plan.send_request == plan.request.size()) {
		uint8_t hdr[20];

		if (read_exact(fd, hdr, 20, 3000, res.bytes_in) &&
		    !std::memcmp(hdr, "MPA ID Rep Frame", 16)) {
			size_t pd = size_t(hdr[18]) << 8 | hdr[19];
			std::vector<uint8_t> skip(pd);

			if (hdr[16] & 0x20)
				res.rejected = true;
			else if (read_exact(fd, skip.data(), pd, 3000, res.bytes_in))
				res.accepted = true;
			// the reply's C bit says whether FPDUs carry a CRC
			crc = hdr[16] & 0x40;
		}
	}
	if (res.accepted) {
		for (const auto &f : plan.fpdus) {
			std::vector<uint8_t> b = fpdu_bytes(f, crc);

			if (!send_all(fd, b.data(), b.size()))
				break;
			res.sent++;
			if (!drain(fd, 0, res.bytes_in))
				break;
		}
	}
	if (plan.reset) {
		linger l = { 1, 0 };
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	} else {
		shutdown(fd, SHUT_WR);
		drain(fd, 300, res.bytes_in);
	}
	close(fd);
	return res;
}

} // namespace fw
