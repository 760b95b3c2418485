// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// uverbs RDMA_VERBS_IOCTL: method shapes libibverbs sends (query port and
// GIDs, CQ create/destroy, object destroys, INVOKE_WRITE, async event fd)
// and random object/method/attribute ids, lengths and flags, with pointer
// attributes aimed at bad memory and handles of live, dead and foreign
// objects. The call buffer itself sits at the end of the scratch area, so a
// kernel that trusted a bad length would run into the guard page.
#include <cerrno>
#include <cstring>
#include <sys/ioctl.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "uverbs_state.h"

namespace fz {
namespace {

constexpr unsigned kMaxAttrs = 32;

struct Call {
	uint16_t object = 0, method = 0;
	std::vector<ib_uverbs_attr> attrs;

	void to(uint16_t obj, uint16_t meth)
	{
		object = obj;
		method = meth;
	}
	ib_uverbs_attr &add(uint16_t id, uint16_t len, uint64_t data, uint16_t flags = UVERBS_ATTR_F_MANDATORY)
	{
		ib_uverbs_attr a{};
		a.attr_id = id;
		a.len = len;
		a.flags = flags;
		a.data = data;
		attrs.push_back(a);
		return attrs.back();
	}
};

uint64_t out_ptr(Worker &w, uint16_t len)
{
	return w.rng.chance(85) ? (uint64_t)w.mem.resp(w.rng.below(8)) : w.mem.any_ptr(w.rng, len);
}

void shape(Worker &w, UvState &s, Call &c)
{
	switch (w.rng.below(12)) {
	case 0:
		c.to(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
		c.add(UVERBS_ATTR_QUERY_PORT_PORT_NUM, 1, w.rng.chance(80) ? 1 : w.rng.below(256));
		c.add(UVERBS_ATTR_QUERY_PORT_RESP, 48, out_ptr(w, 48));
		break;
	case 1: {
		c.to(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
		uint16_t n = (uint16_t)(32 * (1 + w.rng.below(16)));
		c.add(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 8, w.rng.chance(80) ? 32 : w.rng.interesting());
		c.add(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 4, 0, 0);
		c.add(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, n, out_ptr(w, n));
		c.add(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8, out_ptr(w, 8));
		break;
	}
	case 2:
		c.to(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
		c.add(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, 4, w.rng.chance(80) ? 1 : w.rng.interesting());
		c.add(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, 4, w.rng.chance(80) ? w.rng.below(4) : w.rng.interesting());
		c.add(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4, 0);
		c.add(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, 32, out_ptr(w, 32));
		break;
	case 3:
		c.to(UVERBS_OBJECT_DEVICE,
		     w.rng.chance(50) ? UVERBS_METHOD_QUERY_CONTEXT : UVERBS_METHOD_GET_CONTEXT);
		c.add(0, 4, out_ptr(w, 4), 0);
		c.add(1, 8, out_ptr(w, 8), 0);
		break;
	case 4:
		c.to(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
		c.add(UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0);
		c.add(UVERBS_ATTR_CREATE_CQ_CQE, 4, 1 + w.rng.below(128));
		c.add(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, w.rng.next());
		if (w.rng.chance(50))
			c.add(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL, 0, (uint64_t)s.pick_fd(w), 0);
		c.add(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, 0);
		c.add(UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, out_ptr(w, 4));
		if (w.rng.chance(30))
			c.add(UVERBS_ATTR_CREATE_CQ_EVENT_FD, 0, (uint64_t)s.pick_fd(w), 0);
		c.add(UVERBS_ATTR_UHW_OUT, 32, out_ptr(w, 32), 0);
		break;
	case 5:
		c.to(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY);
		c.add(UVERBS_ATTR_DESTROY_CQ_HANDLE, 0, s.pick(w, s.cq));
		c.add(UVERBS_ATTR_DESTROY_CQ_RESP, 8, out_ptr(w, 8));
		break;
	case 6: { // destroys: PD 1/0, QP 4/1, SRQ 5/1, AH 6/0, MR 7/1, MW 8/0
		static const uint16_t om[][2] = {{1, 0}, {4, 1}, {5, 1}, {6, 0}, {7, 1}, {8, 0}};
		auto &p = w.rng.pick(om);
		c.to(p[0], p[1]);
		const std::vector<uint32_t> *v[] = {&s.pd, &s.dead, &s.srq, &s.ah, &s.mr, &s.mw};
		uint64_t h = c.object == 4 && !s.qp.empty() ? s.qp[w.rng.below(s.qp.size())].handle
							  : s.pick(w, *v[&p - om]);
		c.add(0, 0, h);
		if (p[1] == 1)
			c.add(1, 8, out_ptr(w, 8), 0);
		break;
	}
	case 7:
		c.to(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
		c.add(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
		break;
	case 8: { // INVOKE_WRITE of ALLOC_PD or QUERY_PORT
		c.to(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
		uint64_t in = (uint64_t)w.mem.resp(9);
		memset((void *)in, 0, 16);
		((uint8_t *)in)[0] = 1; // port 1 for QUERY_PORT
		bool pd = w.rng.chance(50);
		c.add(UVERBS_ATTR_CORE_IN, pd ? 0 : 8, pd ? 0 : 1);
		if (!pd)
			c.attrs.back().len = 8;
		c.add(UVERBS_ATTR_CORE_OUT, pd ? 4 : 40, out_ptr(w, 40));
		c.add(UVERBS_ATTR_WRITE_CMD, 8, pd ? (uint64_t)IB_USER_VERBS_CMD_ALLOC_PD
						   : (w.rng.chance(80) ? (uint64_t)IB_USER_VERBS_CMD_QUERY_PORT
								       : w.rng.below(64)), 0);
		break;
	}
	case 9:
		c.to(UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR);
		c.add(0, 0, s.pick(w, s.mr));
		for (uint16_t i = 1; i < 5; i++)
			c.add(i, 4, out_ptr(w, 4), 0);
		break;
	default: { // anything
		c.object = (uint16_t)(w.rng.chance(90) ? w.rng.below(18) : w.rng.next());
		c.method = (uint16_t)(w.rng.chance(90) ? w.rng.below(8) : w.rng.next());
		unsigned n = (unsigned)w.rng.below(10);
		for (unsigned i = 0; i < n; i++) {
			uint16_t id = (uint16_t)(w.rng.chance(85) ? w.rng.below(16)
								  : w.rng.chance(50) ? 0x1000 + w.rng.below(2)
										     : w.rng.next());
			uint16_t len;
			uint64_t data;
			switch (w.rng.below(5)) {
			case 0: // idr handle
				len = 0;
				data = s.pick(w, w.rng.chance(50) ? s.pd : s.cq);
				break;
			case 1: // fd
				len = 0;
				data = (uint64_t)s.pick_fd(w);
				break;
			case 2: // inline
				len = (uint16_t)w.rng.below(9);
				data = w.rng.interesting();
				break;
			default: // by pointer
				len = (uint16_t)(w.rng.chance(80) ? 9 + w.rng.below(512) : w.rng.next());
				data = w.mem.any_ptr(w.rng, len);
				break;
			}
			ib_uverbs_attr &a = c.add(id, len, data, (uint16_t)(w.rng.chance(80) ? w.rng.below(4)
											    : w.rng.next()));
			if (w.rng.chance(10))
				a.attr_data.reserved = (uint16_t)w.rng.next();
		}
		break;
	}
	}
}

void one_call(Worker &w, UvState &s)
{
	Call c;
	shape(w, s, c);
	const char *mut = "none";
	size_t room = 24 + 16 * kMaxAttrs;
	auto *hdr = (ib_uverbs_ioctl_hdr *)(w.mem.scratch() + SafeMem::kScratch - room);
	memset(hdr, 0, room);
	if (c.attrs.size() > kMaxAttrs)
		c.attrs.resize(kMaxAttrs);
	hdr->object_id = c.object;
	hdr->method_id = c.method;
	hdr->num_attrs = (uint16_t)c.attrs.size();
	hdr->length = (uint16_t)(24 + 16 * c.attrs.size());
	hdr->driver_id = s.dev->driver_id;
	memcpy(hdr->attrs, c.attrs.data(), 16 * c.attrs.size());
	if (w.rng.chance(30)) {
		switch (w.rng.below(8)) {
		case 0:
			mut = "length";
			hdr->length = (uint16_t)(w.rng.chance(50) ? w.rng.next() : hdr->length + 16 * (w.rng.below(3)) - 8);
			break;
		case 1:
			mut = "num_attrs";
			hdr->num_attrs = (uint16_t)w.rng.below(kMaxAttrs + 1);
			break;
		case 2:
			mut = "driver";
			hdr->driver_id = (uint32_t)w.rng.below(32);
			break;
		case 3:
			mut = "reserved";
			hdr->reserved1 = w.rng.chance(50) ? w.rng.next() : 0;
			hdr->reserved2 = (uint32_t)w.rng.next();
			break;
		case 4:
			if (!c.attrs.empty()) {
				mut = "attr_len";
				auto &a = hdr->attrs[w.rng.below(c.attrs.size())];
				a.len = (uint16_t)w.rng.interesting();
				if (a.len > 8)
					a.data = w.mem.any_ptr(w.rng, a.len);
			}
			break;
		case 5:
			if (!c.attrs.empty()) {
				mut = "attr_flags";
				hdr->attrs[w.rng.below(c.attrs.size())].flags = (uint16_t)w.rng.next();
			}
			break;
		case 6:
			if (!c.attrs.empty()) {
				mut = "attr_ptr";
				auto &a = hdr->attrs[w.rng.below(c.attrs.size())];
				a.data = w.mem.any_ptr(w.rng, a.len);
			}
			break;
		default:
			if (!c.attrs.empty()) {
				mut = "attr_id";
				hdr->attrs[w.rng.below(c.attrs.size())].attr_id = (uint16_t)w.rng.interesting();
			}
			break;
		}
	}
	w.note("uverbs %s ioctl obj=%u meth=%u n=%u len=%u drv=%u mut=%s", s.dev->name.c_str(), c.object,
	       c.method, hdr->num_attrs, hdr->length, hdr->driver_id, mut);
	int r = ioctl(s.fd, RDMA_VERBS_IOCTL, hdr);
	int err = r < 0 ? errno : 0;
	w.result(err);
	if (err)
		return;
	// New objects and fds came back in the attributes' data.
	if (c.object == UVERBS_OBJECT_CQ && c.method == UVERBS_METHOD_CQ_CREATE && hdr->num_attrs)
		s.cq.push_back((uint32_t)hdr->attrs[0].data);
	if (c.object == UVERBS_OBJECT_ASYNC_EVENT && hdr->num_attrs)
		s.fds.push_back((int)hdr->attrs[0].data);
	if (c.object == UVERBS_OBJECT_CQ && c.method == UVERBS_METHOD_CQ_DESTROY && hdr->num_attrs)
		s.forget(s.cq, (uint32_t)c.attrs[0].data);
}

} // namespace

void fuzz_uverbs_ioctl(Worker &w)
{
	UvState s;
	if (!s.open(w))
		return;
	// Objects to aim at: context, PDs, an MR, a channel, CQs, a QP.
	static const unsigned boot[] = {0, 1, 1, 4, 8, 9, 9, 15};
	for (unsigned op : boot) {
		if (!w.take())
			break;
		uv_write_op(w, s, op);
	}
	unsigned n = 20 + (unsigned)w.rng.below(200);
	for (unsigned i = 0; i < n && w.take(); i++) {
		if (w.rng.chance(10))
			uv_write_op(w, s, (unsigned)w.rng.below(40));
		else
			one_call(w, s);
	}
	s.close_all(w.journal.fd());
}

} // namespace fz
