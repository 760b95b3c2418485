// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Formats (IBA vol. 1 ch. 9, annex A16 RoCE, annex A17 RoCE v2):
// BTH 12 bytes: opcode; SE M PadCnt(2) TVer(4); P_Key; resv8 (FECN/BECN);
// DestQP(24); AckReq resv7; PSN(24). Then, by opcode, DETH 8 (Q_Key,
// SrcQP), RETH 16 (VA, R_Key, DMA length), AtomicETH 28 (VA, R_Key, swap
// or add, compare), AETH 4 (syndrome, MSN), AtomicAckETH 8, ImmDt or IETH
// 4, payload, pad to 4 bytes, ICRC 4. The ICRC is a CRC-32 over 8 bytes of
// 0xff (the LRH it replaces), the IP (or GRH) header with its variant
// fields set to all ones (IPv4 TOS, TTL, checksum; GRH traffic class, flow
// label, hop limit), the UDP header with its checksum all ones, the BTH
// with resv8 all ones, and the rest up to the ICRC, stored little-endian.
#include "roce_gen.h"

#include "crc.h"

#include <cstdio>
#include <cstring>

namespace fw {
namespace {

constexpr size_t kEth = 14, kIp = 20, kUdp = 8, kGrh = 40, kBth = 12;
constexpr uint32_t kMtu = 1024;		// the victim's path MTU
constexpr size_t kMaxFrame = 1514;

enum : unsigned {
	H_DETH = 1, H_RETH = 2, H_ATOMIC = 4, H_AETH = 8, H_ATOMICACK = 16,
	H_IMM = 32, H_IETH = 64, H_PAYLOAD = 128,
};

// extension headers and payload of an RC/UC/UD opcode (low 5 bits)
unsigned layout(uint8_t opcode)
{
	uint8_t op = opcode & 0x1f, svc = opcode >> 5;
	unsigned h = 0;

	switch (op) {
	case 0: case 1: case 2: case 4: h = H_PAYLOAD; break;
	case 3: case 5: h = H_PAYLOAD | H_IMM; break;
	case 6: case 10: h = H_PAYLOAD | H_RETH; break;
	case 7: case 8: h = H_PAYLOAD; break;
	case 9: h = H_PAYLOAD | H_IMM; break;
	case 11: h = H_PAYLOAD | H_RETH | H_IMM; break;
	case 12: h = H_RETH; break;
	case 13: case 15: case 16: h = H_PAYLOAD | H_AETH; break;
	case 14: h = H_PAYLOAD; break;
	case 17: h = H_AETH; break;
	case 18: h = H_AETH | H_ATOMICACK; break;
	case 19: case 20: h = H_ATOMIC; break;
	case 22: case 23: h = H_PAYLOAD | H_IETH; break;
	case 24: h = H_RETH; break;			// FLUSH (newer IBA)
	case 25: h = H_RETH | H_PAYLOAD; break;	// ATOMIC WRITE
	default: h = H_PAYLOAD; break;
	}
	if (svc == 3)	// UD: DETH after the BTH
		h |= H_DETH;
	return h;
}

struct Pkt {
	// BTH
	uint8_t opcode = 0, flags1 = 0, resv8 = 0, resv7 = 0;
	uint16_t pkey = 0xffff;
	uint32_t qpn = 0, psn = 0;
	bool ackreq = false;
	unsigned hdrs = 0;
	int pad = -1;				// -1: the right one
	// extension headers
	uint32_t qkey = 0, src_qp = 0;
	uint64_t va = 0;
	uint32_t rkey = 0, dma_len = 0;
	uint64_t swap = 0, compare = 0, atomic_orig = 0;
	uint32_t aeth = 0, imm = 0;
	std::vector<uint8_t> payload;
	// IP/UDP or GRH
	uint8_t tos = 0, ttl = 64, ihl_ver = 0x45, proto = 17;
	uint16_t frag = 0x4000, ip_id = 0, sport = 0xc000, dport = kRoceV2Port;
	uint32_t src_ip = 0, dst_ip = 0;
	int ip_len_delta = 0, udp_len_delta = 0, grh_len_delta = 0;
	bool bad_ip_csum = false;
	uint16_t udp_csum = 0;
	uint8_t grh_ver = 6, grh_nxt = 0x1b, hop = 64;
	uint32_t grh_tclass_flow = 0;
	uint8_t sgid[16] = {}, dgid[16] = {};
	uint16_t ethertype = 0;
	uint8_t dst_mac[6] = {}, src_mac[6] = {};
	// after the ICRC
	uint32_t icrc_xor = 0;
	int cut_transport = 0;	// bytes cut off the transport before ICRC (lengths follow)
	int cut_frame = 0;	// bytes cut off the finished frame (lengths do not)
	std::vector<std::pair<size_t, uint8_t>> flips;	// frame offset, xor
	std::string what;
};

void put16(std::vector<uint8_t> &b, uint16_t v) { b.push_back(uint8_t(v >> 8)); b.push_back(uint8_t(v)); }
void put32(std::vector<uint8_t> &b, uint32_t v) { put16(b, uint16_t(v >> 16)); put16(b, uint16_t(v)); }
void put64(std::vector<uint8_t> &b, uint64_t v) { put32(b, uint32_t(v >> 32)); put32(b, uint32_t(v)); }

uint16_t ip_csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += uint32_t(p[i]) << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return uint16_t(~s);
}

void ipv4_gid(uint8_t *gid, uint32_t ip_net)
{
	std::memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	std::memcpy(gid + 12, &ip_net, 4);
}

std::vector<uint8_t> transport_bytes(const Pkt &p)
{
	std::vector<uint8_t> b;
	size_t plen = p.payload.size();
	unsigned pad = p.pad >= 0 ? unsigned(p.pad) : unsigned((4 - plen % 4) % 4);

	b.push_back(p.opcode);
	b.push_back(uint8_t((p.flags1 & 0xcf) | (pad & 3) << 4));
	put16(b, p.pkey);
	b.push_back(p.resv8);
	b.push_back(uint8_t(p.qpn >> 16));
	put16(b, uint16_t(p.qpn));
	b.push_back(uint8_t((p.ackreq ? 0x80 : 0) | (p.resv7 & 0x7f)));
	b.push_back(uint8_t(p.psn >> 16));
	put16(b, uint16_t(p.psn));
	if (p.hdrs & H_DETH) {
		put32(b, p.qkey);
		put32(b, p.src_qp & 0xffffff);
	}
	if (p.hdrs & H_RETH) {
		put64(b, p.va);
		put32(b, p.rkey);
		put32(b, p.dma_len);
	}
	if (p.hdrs & H_ATOMIC) {
		put64(b, p.va);
		put32(b, p.rkey);
		put64(b, p.swap);
		put64(b, p.compare);
	}
	if (p.hdrs & H_AETH)
		put32(b, p.aeth);
	if (p.hdrs & H_ATOMICACK)
		put64(b, p.atomic_orig);
	if (p.hdrs & (H_IMM | H_IETH))
		put32(b, p.imm);
	b.insert(b.end(), p.payload.begin(), p.payload.end());
	for (unsigned i = 0; i < pad; i++)
		b.push_back(0);
	return b;
}

// fields of the network header the ICRC sees as all ones
void mask_net(std::vector<uint8_t> &h, bool v1)
{
	if (v1) {
		h[0] |= 0x0f;
		h[1] = h[2] = h[3] = 0xff;
		h[7] = 0xff;
	} else {
		h[1] = 0xff;
		h[8] = 0xff;
		h[10] = h[11] = 0xff;
		h[kIp + 6] = h[kIp + 7] = 0xff;
	}
}

std::vector<uint8_t> serialize(const Pkt &p, bool v1)
{
	std::vector<uint8_t> tr = transport_bytes(p);
	size_t cut = std::min<size_t>(size_t(p.cut_transport), tr.size());

	tr.resize(tr.size() - cut);
	size_t tlen = tr.size() + 4;	// with the ICRC
	std::vector<uint8_t> f(p.dst_mac, p.dst_mac + 6);

	f.insert(f.end(), p.src_mac, p.src_mac + 6);
	put16(f, p.ethertype);
	std::vector<uint8_t> net;
	if (v1) {
		put32(net, uint32_t(p.grh_ver) << 28 | (p.grh_tclass_flow & 0x0fffffff));
		put16(net, uint16_t(tlen + p.grh_len_delta));
		net.push_back(p.grh_nxt);
		net.push_back(p.hop);
		net.insert(net.end(), p.sgid, p.sgid + 16);
		net.insert(net.end(), p.dgid, p.dgid + 16);
	} else {
		net.push_back(p.ihl_ver);
		net.push_back(p.tos);
		put16(net, uint16_t(kIp + kUdp + tlen + p.ip_len_delta));
		put16(net, p.ip_id);
		put16(net, p.frag);
		net.push_back(p.ttl);
		net.push_back(p.proto);
		put16(net, 0);
		net.insert(net.end(), reinterpret_cast<const uint8_t *>(&p.src_ip),
			   reinterpret_cast<const uint8_t *>(&p.src_ip) + 4);
		net.insert(net.end(), reinterpret_cast<const uint8_t *>(&p.dst_ip),
			   reinterpret_cast<const uint8_t *>(&p.dst_ip) + 4);
		uint16_t c = ip_csum(net.data(), kIp);
		if (p.bad_ip_csum)
			c ^= 0x5a5a;
		net[10] = uint8_t(c >> 8);
		net[11] = uint8_t(c);
		put16(net, p.sport);
		put16(net, p.dport);
		put16(net, uint16_t(kUdp + tlen + p.udp_len_delta));
		put16(net, p.udp_csum);
	}
	std::vector<uint8_t> m = net;
	mask_net(m, v1);
	std::vector<uint8_t> tm = tr;
	if (tm.size() > 4)
		tm[4] = 0xff;
	const uint8_t ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint32_t crc = crc32_ieee(ones, 8);
	crc = crc32_ieee_more(crc, m.data(), m.size());
	crc = crc32_ieee_more(crc, tm.data(), tm.size());
	crc ^= p.icrc_xor;
	f.insert(f.end(), net.begin(), net.end());
	f.insert(f.end(), tr.begin(), tr.end());
	for (int i = 0; i < 4; i++)
		f.push_back(uint8_t(crc >> (8 * i)));
	for (const auto &fl : p.flips)
		if (fl.first < f.size())
			f[fl.first] ^= fl.second;
	size_t fc = std::min<size_t>(size_t(p.cut_frame), f.size() - kEth);
	f.resize(f.size() - fc);
	return f;
}

const MrTarget &pick_mr(fuzz::Rng &r, const Targets &t)
{
	unsigned x = r.below32(100);

	if (x < 55)
		return t.rw;
	if (x < 75)
		return t.ro;
	if (x < 90)
		return t.no;
	return t.recv;
}

// a VA/length inside @m mostly, at or across its edges sometimes
void aim(fuzz::Rng &r, const MrTarget &m, uint64_t &va, uint32_t &len, uint32_t want)
{
	uint32_t off = m.len ? r.below32(m.len) : 0;

	switch (r.below32(10)) {
	case 0: off = m.len ? m.len - 1 : 0; break;
	case 1: off = m.len; break;
	case 2: va = m.va - 1 - r.below32(64); len = want; return;
	case 3: va = r.next(); len = want; return;
	default: break;
	}
	va = m.va + off;
	len = want;
	if (r.chance32(10))
		len = r.edge32();
}

void fill_payload(fuzz::Rng &r, Pkt &p, uint32_t n)
{
	n = std::min<uint32_t>(n, 1400);
	p.payload.resize(n);
	r.fill_bytewise(p.payload.data(), n);
}

// a consistent packet for the target chosen from @r
void valid(fuzz::Rng &r, const Targets &t, bool v1, Pkt &p)
{
	static const std::vector<uint8_t> req_ops = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
						      0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x13, 0x14, 0x16,
						      0x17, 0x04, 0x0a, 0x0c, 0x04, 0x0a };
	static const std::vector<uint8_t> resp_ops = { 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x11, 0x10 };
	unsigned who = r.below32(100);
	uint32_t rc_qpn = v1 && t.qpn_v1 ? t.qpn_v1 : t.qpn_a;

	if (who < 45) {			// requests to a responder
		p.qpn = rc_qpn;
		p.opcode = r.pick32(req_ops);
		p.psn = (t.psn_a + r.below32(4)) & 0xffffff;
		p.what = "rc-req";
	} else if (who < 65) {		// responses to QP B's READ and SEND
		p.qpn = t.qpn_b;
		p.opcode = r.pick32(resp_ops);
		p.psn = (t.psn_b + r.below32(3)) & 0xffffff;
		p.what = "rc-resp";
	} else if (who < 75) {		// the same QP as UC
		p.qpn = rc_qpn;
		p.opcode = uint8_t(0x20 | r.pick32(req_ops));
		p.psn = (t.psn_a + r.below32(4)) & 0xffffff;
		p.what = "uc";
	} else if (who < 88) {		// UD
		p.qpn = t.qpn_ud;
		p.opcode = r.chance32(70) ? 0x64 : 0x65;
		p.psn = r.u32() & 0xffffff;
		p.what = "ud";
	} else if (who < 95) {		// a MAD to QP1 (GSI)
		p.qpn = 1;
		p.opcode = 0x64;
		p.what = "gsi";
	} else {
		p.qpn = r.chance32(50) ? r.u32() & 0xffffff : (r.chance32(50) ? 0xffffff : t.dest_qpn);
		p.opcode = r.u8();
		p.psn = r.u32() & 0xffffff;
		p.what = "any";
	}
	p.hdrs = layout(p.opcode);
	p.ackreq = r.chance32(50);
	p.flags1 = r.chance32(20) ? 0x80 : 0;	// SE
	p.qkey = p.qpn == 1 ? 0x80010000u : t.qkey;
	p.src_qp = p.qpn == 1 ? 1 : t.dest_qpn;

	uint8_t op = p.opcode & 0x1f;
	uint32_t plen = r.below32(5) == 0 ? kMtu : r.below32(300);
	if (p.hdrs & (H_RETH | H_ATOMIC)) {
		const MrTarget &m = pick_mr(r, t);

		p.rkey = r.chance32(95) ? m.key : r.u32();
		if (p.hdrs & H_ATOMIC) {
			p.va = m.va + (r.below32(m.len ? m.len : 8) & ~7u);
			if (r.chance32(10))
				p.va += 1 + r.below32(7);
			p.swap = r.next();
			p.compare = r.chance32(50) ? 0 : r.next();
		} else {
			uint32_t want = op == 12 ? 1 + r.below32(kMtu * 3) : (op == 6 ? kMtu * (1 + r.below32(3)) : plen);
			aim(r, m, p.va, p.dma_len, want);
			if (op != 12 && op != 6)
				plen = std::min<uint32_t>(p.dma_len, kMtu);
		}
	}
	if (op == 0 || op == 1 || op == 6 || op == 7 || op == 13 || op == 14)
		plen = kMtu;		// FIRST and MIDDLE carry exactly one MTU
	if (p.what == "gsi")
		plen = 256;
	if (p.hdrs & H_AETH) {
		static const uint8_t syn[] = { 0x1f, 0x00, 0x20, 0x21, 0x60, 0x61, 0x62, 0x63, 0x64, 0x40 };
		p.aeth = uint32_t(r.chance32(70) ? 0x1f : syn[r.below32(sizeof(syn))]) << 24 | (r.below32(8) & 0xffffff);
	}
	if (p.hdrs & H_IETH)
		p.imm = pick_mr(r, t).key;
	else if (p.hdrs & H_IMM)
		p.imm = r.u32();
	if (p.hdrs & H_ATOMICACK)
		p.atomic_orig = r.next();
	if (p.hdrs & H_PAYLOAD)
		fill_payload(r, p, plen);
	if (p.what == "gsi" && p.payload.size() >= 24) {
		// MAD header: base version 1, a management class the stack serves
		static const uint8_t cls[] = { 0x07, 0x03, 0x04, 0x01, 0x81, 0x06, 0x0a };
		p.payload[0] = 1;
		p.payload[1] = cls[r.below32(sizeof(cls))];
		p.payload[2] = r.chance32(80) ? (p.payload[1] == 0x07 ? 2 : 1) : p.payload[2];
		p.payload[3] = r.chance32(80) ? uint8_t(1 + r.below32(7)) : p.payload[3];
	}
}

// one mutation of the packet or its framing; returns its name
const char *mutate(fuzz::Rng &r, Pkt &p, bool v1)
{
	switch (r.below32(36)) {
	case 0: p.opcode = r.u8(); return "opcode";
	case 1: p.opcode ^= uint8_t(1u << r.below32(8)); return "opcode-bit";
	case 2: p.flags1 ^= 0x40; return "migreq";
	case 3: p.pad = int(r.below32(4)); return "padcnt";
	case 4: p.flags1 = uint8_t((p.flags1 & 0xf0) | (1 + r.below32(15))); return "tver";
	case 5: p.pkey = r.chance32(50) ? uint16_t(r.u32()) : (r.chance32(50) ? 0x7fff : 0); return "pkey";
	case 6: p.resv8 = r.u8(); return "resv8";
	case 7: p.qpn = r.chance32(50) ? r.u32() & 0xffffff : p.qpn ^ (1u << r.below32(24)); return "qpn";
	case 8: p.psn = r.u32() & 0xffffff; return "psn";
	case 9: p.psn = (p.psn - 1 - r.below32(3)) & 0xffffff; return "psn-old";
	case 10: p.psn = (p.psn + 0x7fffff + r.below32(3)) & 0xffffff; return "psn-far";
	case 11: p.resv7 = r.u8(); p.ackreq = !p.ackreq; return "ackreq-resv7";
	case 12: p.hdrs ^= 1u << r.below32(7); return "ext-header-set";
	case 13: p.rkey = r.chance32(50) ? r.u32() : p.rkey ^ (1u << r.below32(32)); return "rkey";
	case 14: p.va = r.chance32(50) ? r.next() : p.va + r.edge32(); return "va";
	case 15: p.dma_len = r.edge32(); return "dma-len";
	case 16: p.qkey = r.chance32(50) ? r.u32() : p.qkey | 0x80000000u; return "qkey";
	case 17: p.src_qp = r.u32(); return "src-qp";
	case 18: p.aeth = r.u32(); return "aeth";
	case 19: p.imm = r.u32(); return "imm-ieth";
	case 20: {
		uint32_t n = r.chance32(50) ? r.below32(8) : r.below32(1400);
		p.payload.resize(n);
		return "payload-len";
	}
	case 21: p.payload.resize(p.payload.size() + 1 + r.below32(4)); return "payload-plus";
	case 22: p.icrc_xor = 1u << r.below32(32); return "icrc-wrong";
	case 23: p.cut_transport = int(1 + r.below32(40)); return "cut-transport";
	case 24: p.cut_frame = int(1 + r.below32(60)); return "cut-frame";
	case 25:
		if (v1)
			p.grh_len_delta = int(r.below32(2) ? -int(1 + r.below32(16)) : 1 + r.below32(16));
		else
			p.udp_len_delta = int(r.below32(2) ? -int(1 + r.below32(16)) : 1 + r.below32(16));
		return "l3-l4-len";
	case 26:
		if (v1)
			p.grh_ver = uint8_t(r.below32(16));
		else
			p.ip_len_delta = int(r.below32(2) ? -int(1 + r.below32(30)) : 1 + r.below32(30));
		return v1 ? "grh-ipver" : "ip-len";
	case 27:
		if (v1)
			p.grh_nxt = r.u8();
		else
			p.frag = r.chance32(50) ? 0x2000 : uint16_t(r.below32(0x2000));
		return v1 ? "grh-nxthdr" : "ip-frag";
	case 28:
		if (v1)
			p.dgid[r.below32(16)] ^= uint8_t(1 + r.below32(255));
		else
			p.udp_csum = uint16_t(1 + r.below32(0xffff));
		return v1 ? "dgid" : "udp-csum";
	case 29:
		if (v1)
			p.sgid[r.below32(16)] ^= uint8_t(1 + r.below32(255));
		else
			p.src_ip = r.u32();
		return v1 ? "sgid" : "src-ip";
	case 30:
		if (v1)
			p.grh_tclass_flow = r.u32();
		else
			p.tos = r.u8(), p.ttl = r.u8();
		return "masked-fields";
	case 31: p.flips.emplace_back(r.below32(120), uint8_t(1 + r.below32(255))); return "byte-flip";
	case 32: p.pad = int(r.below32(4)); p.payload.resize(r.below32(8)); return "pad-short-payload";
	case 33: p.swap = r.next(); p.compare = r.next(); p.va &= ~7ull; return "atomic-args";
	case 34: p.sport = uint16_t(r.u32()); return "udp-sport";
	default:
		if (!v1)
			p.ihl_ver = uint8_t(0x40 | (5 + r.below32(11)));
		return v1 ? "nop" : "ihl";
	}
}

} // namespace

void gen_roce(fuzz::Rng &r, const Targets &t, bool v1, std::vector<uint8_t> &frame, std::string &desc)
{
	Pkt p;
	unsigned mode = r.below32(100);
	std::string muts;

	std::memcpy(p.dst_mac, t.peer_mac.data(), 6);
	std::memcpy(p.src_mac, t.my_mac.data(), 6);
	p.ethertype = v1 ? kEthRoceV1 : 0x0800;
	p.src_ip = t.my_ip;
	p.dst_ip = t.peer_ip;
	ipv4_gid(p.sgid, t.my_ip);
	ipv4_gid(p.dgid, t.peer_ip);
	p.sport = uint16_t(0xc000 | r.below32(0x4000));
	valid(r, t, v1, p);
	if (mode >= 30) {
		unsigned n = mode < 80 ? 1 : 2 + r.below32(5);

		for (unsigned i = 0; i < n; i++)
			muts += std::string(i ? "," : "") + mutate(r, p, v1);
	}
	frame = serialize(p, v1);
	if (frame.size() > kMaxFrame)
		frame.resize(kMaxFrame);
	char b[160];
	std::snprintf(b, sizeof(b), "%s %s op=0x%02x qpn=0x%x psn=0x%x len=%zu mut=%s", v1 ? "v1" : "v2",
		      p.what.c_str(), p.opcode, p.qpn, p.psn, frame.size(), muts.empty() ? "none" : muts.c_str());
	desc = b;
}

} // namespace fw
