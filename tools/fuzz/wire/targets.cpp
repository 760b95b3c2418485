// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "targets.h"

namespace fw {

void Targets::from_info(const Info &i)
{
	auto u32 = [&](const char *k) { return static_cast<uint32_t>(info_get(i, k)); };
	auto mr = [&](const std::string &p, const char *key) {
		MrTarget m;

		m.va = info_get(i, p + "_va");
		m.key = static_cast<uint32_t>(info_get(i, p + "_" + key));
		m.len = static_cast<uint32_t>(info_get(i, p + "_len"));
		return m;
	};
	uint64_t mac = info_get(i, "mac");

	for (int b = 0; b < 6; b++)
		peer_mac[b] = static_cast<uint8_t>(mac >> (8 * (5 - b)));
	qpn_a = u32("qpn_a");
	qpn_b = u32("qpn_b");
	qpn_ud = u32("qpn_ud");
	qpn_v1 = u32("qpn_v1");
	dest_qpn = u32("dest_qpn");
	psn_a = u32("psn_a");
	psn_b = u32("psn_b");
	qkey = u32("qkey");
	rw = mr("rw", "rkey");
	ro = mr("ro", "rkey");
	no = mr("no", "rkey");
	recv = mr("recv", "rkey");
	siw_port = static_cast<uint16_t>(info_get(i, "siw_port"));
	siw_rw = mr("siw_rw", "stag");
	siw_ro = mr("siw_ro", "stag");
	siw_no = mr("siw_no", "stag");
	siw_recv = mr("siw_recv", "stag");
}

} // namespace fw
