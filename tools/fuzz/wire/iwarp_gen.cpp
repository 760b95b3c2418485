// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// Wire facts used here: the MPA request is the 16-byte key "MPA ID Req
// Frame", a byte of flags (M 0x80 markers, C 0x40 CRC, R 0x20 reject,
// E 0x10 enhanced/MPA v2), the revision byte, a 16-bit private data length
// and the private data; MPA v2 private data starts with IRD and ORD, 16
// bits each (top bits: peer-to-peer, and zero-length RTR type bits). An
// FPDU is the 16-bit ULPDU length, the ULPDU, pad to 4 bytes, and a CRC32c
// over all of that, stored little-endian as the test peers do. The DDP
// control byte is T 0x80, L 0x40, reserved 0x3c, version 0x03 (1); the
// RDMAP byte is version 0xc0 (1), reserved 0x30, opcode 0x0f. Tagged: STag
// 32, TO 64. Untagged: reserved/invalidate STag 32, QN, MSN, MO 32 each.
#include "iwarp_gen.h"

#include "crc.h"

#include <cstdio>
#include <cstring>

namespace fw {
namespace {

const char kReqKey[] = "MPA ID Req Frame";

void put16(std::vector<uint8_t> &b, uint16_t v) { b.push_back(uint8_t(v >> 8)); b.push_back(uint8_t(v)); }
void put32(std::vector<uint8_t> &b, uint32_t v) { put16(b, uint16_t(v >> 16)); put16(b, uint16_t(v)); }
void put64(std::vector<uint8_t> &b, uint64_t v) { put32(b, uint32_t(v >> 32)); put32(b, uint32_t(v)); }

const MrTarget &pick_stag(fuzz::Rng &r, const Targets &t)
{
	unsigned x = r.below32(100);

	return x < 55 ? t.siw_rw : x < 75 ? t.siw_ro : x < 90 ? t.siw_no : t.siw_recv;
}

void mpa_request(fuzz::Rng &r, IwarpPlan &p)
{
	std::vector<uint8_t> &b = p.request;
	uint8_t flags = r.chance32(70) ? 0x40 : 0;	// CRC
	uint8_t rev = 2;
	std::vector<uint8_t> pd;
	uint16_t ird = 4, ord = 4;

	flags |= 0x10;				// enhanced: MPA v2
	if (r.chance32(10)) {
		rev = 1;
		flags &= uint8_t(~0x10);
	}
	if (flags & 0x10) {
		put16(pd, ird);
		put16(pd, ord);
	}
	size_t extra = r.chance32(70) ? 0 : r.below32(64);
	for (size_t i = 0; i < extra; i++)
		pd.push_back(r.u8());
	int pd_len_delta = 0;
	p.what = "mpa-valid";
	if (r.chance32(30)) {
		switch (r.below32(10)) {
		case 0: flags |= 0x80; p.what = "mpa-markers"; break;
		case 1: flags |= 0x20; p.what = "mpa-reject-bit"; break;
		case 2: rev = r.u8(); p.what = "mpa-revision"; break;
		case 3: flags ^= uint8_t(1u << r.below32(8)); p.what = "mpa-flag-bit"; break;
		case 4: pd_len_delta = int(r.below32(2) ? 1 + r.below32(600) : -int(r.below32(5))); p.what = "mpa-pd-len"; break;
		case 5:
			if (pd.size() >= 4) {
				pd[0] = r.u8(); pd[1] = r.u8(); pd[2] = r.u8(); pd[3] = r.u8();
			}
			p.what = "mpa-ird-ord";
			break;
		case 6: pd.resize(r.below32(3)); p.what = "mpa-short-pd"; break;
		case 7: pd.resize(500 + r.below32(600)); p.what = "mpa-long-pd"; break;
		case 8: p.what = "mpa-bad-key"; break;
		default: flags = r.u8(); p.what = "mpa-flags"; break;
		}
	}
	b.assign(kReqKey, kReqKey + 16);
	if (p.what == "mpa-bad-key")
		b[r.below32(16)] ^= uint8_t(1 + r.below32(255));
	b.push_back(flags);
	b.push_back(rev);
	put16(b, uint16_t(int(pd.size()) + pd_len_delta));
	b.insert(b.end(), pd.begin(), pd.end());
	p.send_request = b.size();
	if (r.chance32(3)) {
		p.send_request = r.below32(uint32_t(b.size()));
		p.what += ",cut";
	}
}

void tagged(std::vector<uint8_t> &u, uint8_t ddp, uint8_t rdmap, uint32_t stag, uint64_t to)
{
	u.push_back(ddp);
	u.push_back(rdmap);
	put32(u, stag);
	put64(u, to);
}

void untagged(std::vector<uint8_t> &u, uint8_t ddp, uint8_t rdmap, uint32_t inval, uint32_t qn,
	      uint32_t msn, uint32_t mo)
{
	u.push_back(ddp);
	u.push_back(rdmap);
	put32(u, inval);
	put32(u, qn);
	put32(u, msn);
	put32(u, mo);
}

void payload(fuzz::Rng &r, std::vector<uint8_t> &u, uint32_t n)
{
	size_t at = u.size();

	u.resize(at + n);
	r.fill_bytewise(u.data() + at, n);
}

FpduPlan gen_fpdu(fuzz::Rng &r, const Targets &t, uint32_t &msn_send, uint32_t &msn_read)
{
	FpduPlan f;
	std::vector<uint8_t> &u = f.ulpdu;
	uint8_t ddp_last = 0x40, ddp_v = 0x01, rdmap_v = 0x40;
	uint32_t plen = r.chance32(70) ? r.below32(200) : r.below32(1100);
	unsigned kind = r.below32(100);

	if (kind < 35) {		// SEND family
		static const uint8_t ops[] = { 3, 3, 3, 4, 5, 6 };
		uint8_t op = ops[r.below32(sizeof(ops))];

		untagged(u, ddp_last | ddp_v, uint8_t(rdmap_v | op), (op == 4 || op == 6) ? pick_stag(r, t).key : 0,
			 0, msn_send++, r.chance32(90) ? 0 : r.edge32());
		payload(r, u, plen);
		f.what = "send";
	} else if (kind < 65) {		// RDMA WRITE
		const MrTarget &m = pick_stag(r, t);
		uint64_t to = m.va + (r.chance32(80) ? r.below32(m.len ? m.len : 1) : r.edge32());

		if (r.chance32(10))
			to = m.va - 1 - r.below32(16);
		tagged(u, uint8_t((r.chance32(80) ? ddp_last : 0) | 0x80 | ddp_v), rdmap_v | 0, m.key, to);
		payload(r, u, plen);
		f.what = "write";
	} else if (kind < 85) {		// RDMA READ request
		const MrTarget &m = pick_stag(r, t);
		uint32_t size = r.chance32(80) ? 1 + r.below32(m.len ? m.len : 1) : r.edge32();

		untagged(u, ddp_last | ddp_v, rdmap_v | 1, 0, 1, msn_read++, 0);
		put32(u, r.u32());		// sink STag (ours, invented)
		put64(u, r.next());		// sink TO
		put32(u, size);
		put32(u, r.chance32(90) ? m.key : r.u32());
		put64(u, m.va + (r.chance32(80) ? r.below32(m.len ? m.len : 1) : r.edge32()));
		f.what = "read-req";
	} else if (kind < 90) {		// an unsolicited READ response
		const MrTarget &m = pick_stag(r, t);

		tagged(u, uint8_t(0x80 | ddp_last | ddp_v), rdmap_v | 2, m.key, m.va);
		payload(r, u, plen);
		f.what = "read-resp";
	} else if (kind < 95) {		// TERMINATE
		untagged(u, ddp_last | ddp_v, rdmap_v | 7, 0, 2, 1, 0);
		payload(r, u, 4 + r.below32(60));
		f.what = "terminate";
	} else {
		untagged(u, uint8_t(r.u8()), r.u8(), r.u32(), r.below32(4), r.below32(4), r.below32(64));
		payload(r, u, plen);
		f.what = "random";
	}
	if (r.chance32(45)) {
		size_t hl = (u[0] & 0x80) ? 14 : 18;

		switch (r.below32(14)) {
		case 0: u[0] ^= 0x80; f.what += ",T"; break;
		case 1: u[0] ^= 0x40; f.what += ",L"; break;
		case 2: u[0] = uint8_t((u[0] & ~3) | r.below32(4)); f.what += ",ddp-ver"; break;
		case 3: u[0] |= uint8_t(4u << r.below32(4)); f.what += ",ddp-rsvd"; break;
		case 4: u[1] = uint8_t((u[1] & 0x3f) | r.below32(4) << 6); f.what += ",rdmap-ver"; break;
		case 5: u[1] = uint8_t((u[1] & 0xf0) | r.below32(16)); f.what += ",rdmap-op"; break;
		case 6: f.ulpdu_len_delta = int(r.below32(2) ? 1 + r.below32(64) : -int(1 + r.below32(20))); f.what += ",mpa-len"; break;
		case 7: f.crc_xor = 1u << r.below32(32); f.what += ",crc"; break;
		case 8: u.resize(r.below32(uint32_t(hl))); f.what += ",short-header"; break;
		case 9:
			if (hl == 18 && u.size() >= 18)
				for (int i = 0; i < 4; i++)
					u[6 + i] = r.u8();	// QN
			f.what += ",qn";
			break;
		case 10:
			if (hl == 18 && u.size() >= 18)
				for (int i = 0; i < 4; i++)
					u[10 + i] = r.u8();	// MSN
			f.what += ",msn";
			break;
		case 11:
			if (u.size() >= 14)
				for (size_t i = 2; i < hl && i < u.size(); i++)
					u[i] = r.u8();		// STag/TO or QN/MSN/MO
			f.what += ",stag-to";
			break;
		case 12: f.pad_fill = uint8_t(1 + r.below32(255)); f.what += ",pad"; break;
		default: u.resize(u.size() + 16000 + r.below32(50000)); f.what += ",huge"; break;
		}
	}
	return f;
}

} // namespace

void gen_iwarp(fuzz::Rng &r, const Targets &t, IwarpPlan &p)
{
	uint32_t msn_send = 1, msn_read = 1;
	unsigned n = 1 + r.below32(r.chance32(70) ? 6 : 24);

	mpa_request(r, p);
	for (unsigned i = 0; i < n; i++)
		p.fpdus.push_back(gen_fpdu(r, t, msn_send, msn_read));
	if (r.chance32(5)) {
		FpduPlan &last = p.fpdus.back();
		last.cut = int(1 + r.below32(uint32_t(last.ulpdu.size() + 6)));
		last.what += ",cut";
	}
	p.reset = r.chance32(30);
}

std::vector<uint8_t> fpdu_bytes(const FpduPlan &f, bool crc)
{
	std::vector<uint8_t> b;

	put16(b, uint16_t(int(f.ulpdu.size()) + f.ulpdu_len_delta));
	b.insert(b.end(), f.ulpdu.begin(), f.ulpdu.end());
	while (b.size() % 4)
		b.push_back(f.pad_fill);
	uint32_t c = crc ? crc32c(b.data(), b.size()) : 0;
	c ^= f.crc_xor;
	for (int i = 0; i < 4; i++)
		b.push_back(uint8_t(c >> (8 * i)));
	size_t cut = std::min<size_t>(size_t(f.cut), b.size());
	b.resize(b.size() - cut);
	return b;
}

} // namespace fw
