// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// umad: agents registered with random classes, versions and method masks
// (both ioctl forms), MADs written with mutated headers and lengths to
// registered and unregistered agents, reads that never sleep (O_NONBLOCK).
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

#include "fuzz.h"

namespace fz {

void fuzz_umad(Worker &w)
{
	if (w.cfg.umads.empty())
		return;
	const std::string &path = w.cfg.umads[w.rng.below(w.cfg.umads.size())];
	w.note("umad open %s", path.c_str());
	int fd = open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
	w.result(fd < 0 ? errno : 0);
	if (fd < 0)
		return;
	std::vector<uint32_t> agents;
	bool pkey_hdr = false;
	unsigned n = 10 + (unsigned)w.rng.below(100);
	for (unsigned i = 0; i < n && w.take(); i++) {
		int r = 0;
		switch (w.rng.below(8)) {
		case 0:
			w.note("umad ENABLE_PKEY");
			r = ioctl(fd, IB_USER_MAD_ENABLE_PKEY);
			if (!r)
				pkey_hdr = true;
			break;
		case 1:
		case 2: {
			ib_user_mad_reg_req2 q{};
			static const uint8_t cls[] = {1, 0x81, 3, 4, 6, 7, 0x10, 0x21, 0x30, 0x4f, 0xff};
			q.mgmt_class = w.rng.chance(85) ? w.rng.pick(cls) : (uint8_t)w.rng.next();
			q.mgmt_class_version = (uint8_t)(w.rng.chance(80) ? 1 + w.rng.below(2) : w.rng.next());
			q.qpn = (uint32_t)(w.rng.chance(85) ? (q.mgmt_class == 1 || q.mgmt_class == 0x81 ? 0 : 1)
							 : w.rng.interesting());
			q.flags = (uint32_t)(w.rng.chance(80) ? w.rng.below(2) : w.rng.next());
			q.method_mask[0] = w.rng.next();
			q.method_mask[1] = w.rng.chance(50) ? 0 : w.rng.next();
			q.oui = (uint32_t)(w.rng.chance(80) ? 0 : w.rng.next());
			q.rmpp_version = (uint8_t)w.rng.below(3);
			w.note("umad REGISTER_AGENT2 class=%#x v=%u qpn=%u flags=%#x", q.mgmt_class,
			       q.mgmt_class_version, q.qpn, q.flags);
			r = ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &q);
			if (!r)
				agents.push_back(q.id);
			break;
		}
		case 3: {
			ib_user_mad_reg_req q{};
			q.mgmt_class = (uint8_t)(w.rng.chance(80) ? 3 + w.rng.below(5) : w.rng.next());
			q.mgmt_class_version = (uint8_t)(1 + w.rng.below(2));
			q.qpn = (uint8_t)w.rng.below(3);
			w.rng.fill(q.method_mask, sizeof(q.method_mask));
			q.rmpp_version = (uint8_t)w.rng.below(3);
			w.note("umad REGISTER_AGENT class=%#x qpn=%u", q.mgmt_class, q.qpn);
			r = ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &q);
			if (!r)
				agents.push_back(q.id);
			break;
		}
		case 4: {
			uint32_t id = !agents.empty() && w.rng.chance(80) ? agents[w.rng.below(agents.size())]
									: (uint32_t)w.rng.interesting();
			w.note("umad UNREGISTER_AGENT %u", id);
			r = ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id);
			break;
		}
		case 5:
		case 6: {
			// Header (64 or 56 bytes) + a 256-byte MAD.
			uint8_t buf[64 + 256 + 64];
			w.rng.fill(buf, sizeof(buf));
			auto *h = (ib_user_mad_hdr *)buf;
			size_t hlen = pkey_hdr ? sizeof(ib_user_mad_hdr) : sizeof(ib_user_mad_hdr_old);
			h->id = !agents.empty() && w.rng.chance(85) ? agents[w.rng.below(agents.size())]
								     : (uint32_t)w.rng.below(64);
			h->timeout_ms = (uint32_t)(w.rng.chance(90) ? w.rng.below(200) : w.rng.interesting());
			h->retries = (uint32_t)w.rng.below(3);
			h->qpn = htobe32(w.rng.chance(80) ? 1 : (uint32_t)w.rng.below(4));
			h->qkey = htobe32(0x80010000);
			h->lid = (uint16_t)w.rng.below(4);
			h->grh_present = (uint8_t)w.rng.below(2);
			h->gid_index = (uint8_t)w.rng.below(4);
			uint8_t *mad = buf + hlen;
			mad[0] = 1;				   // base version
			mad[1] = (uint8_t)w.rng.below(0x40);	   // class
			mad[2] = (uint8_t)(1 + w.rng.below(2));	   // class version
			mad[3] = (uint8_t)(w.rng.below(0x20));	   // method (R bit set sometimes)
			size_t len = hlen + 256;
			if (w.rng.chance(25))
				len = w.rng.below(sizeof(buf) + 1);
			w.note("umad write agent=%u len=%zu class=%#x method=%#x", h->id, len, mad[1], mad[3]);
			ssize_t wr = write(fd, buf, len);
			r = wr < 0 ? -1 : 0;
			break;
		}
		default: {
			uint8_t buf[64 + 256 + 64];
			size_t len = w.rng.chance(80) ? sizeof(buf) : w.rng.below(sizeof(buf));
			w.note("umad read %zu", len);
			r = read(fd, buf, len) < 0 ? -1 : 0;
			break;
		}
		}
		w.result(r < 0 ? errno : 0);
	}
	close(fd);
}

} // namespace fz
