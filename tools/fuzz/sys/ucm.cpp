// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_ucm write() commands on /dev/infiniband/rdma_cm: ids created, bound,
// resolved, listening and connecting to each other across the workers,
// events fetched (the file is O_NONBLOCK: GET_EVENT never sleeps), ids
// migrated between two files, with mutated fields, sizes and pointers.
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <unistd.h>

#include <rdma/rdma_user_cm.h>

#include "fuzz.h"

namespace fz {
namespace {

struct Ucm {
	int fd[2] = {-1, -1};
	std::vector<uint32_t> ids, mcs, dead;

	uint32_t id(Worker &w)
	{
		unsigned r = (unsigned)w.rng.below(100);
		if (r < 85 && !ids.empty())
			return ids[w.rng.below(ids.size())];
		if (r < 93 && !dead.empty())
			return dead[w.rng.below(dead.size())];
		return (uint32_t)w.rng.interesting();
	}
};

// One of the addresses worth trying: ours, a silent neighbour, loopback
// (no RDMA device), any, IPv6 ones, AF_IB, garbage.
size_t addr(Worker &w, void *out, size_t room)
{
	memset(out, 0, room);
	unsigned k = (unsigned)w.rng.below(10);
	uint16_t port = htons((uint16_t)(w.rng.chance(80) ? 7470 + w.rng.below(4) : w.rng.next()));
	if (k < 6) {
		sockaddr_in a{};
		a.sin_family = AF_INET;
		a.sin_port = port;
		static const uint32_t ips[] = {0xc0000201, 0xc0000201, 0xc0000202, 0x7f000001, 0, 0xe0000001};
		a.sin_addr.s_addr = htonl(ips[k]);
		memcpy(out, &a, sizeof(a));
		return sizeof(a);
	}
	if (k < 8) {
		sockaddr_in6 a{};
		a.sin6_family = AF_INET6;
		a.sin6_port = port;
		static const uint8_t ours[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
		if (k == 6)
			memcpy(&a.sin6_addr, ours, 16);
		else
			a.sin6_addr.s6_addr[15] = 1; // ::1
		memcpy(out, &a, room < sizeof(a) ? room : sizeof(a));
		return sizeof(a);
	}
	if (k == 8) { // AF_IB (27) with random contents
		w.rng.fill(out, room < 48 ? room : 48);
		((uint16_t *)out)[0] = 27;
		return 48;
	}
	w.rng.fill(out, room < 32 ? room : 32);
	return (size_t)w.rng.below(room + 1);
}

// Sends the command struct @req, mutated or not; resp_off is where its
// response pointer goes (-1: none). Returns 0 or errno and points *resp at
// the response when it can be trusted.
template <typename T>
int send(Worker &w, Ucm &u, uint32_t cmd, const char *name, T &req, size_t resp_len, int resp_off, uint8_t **resp)
{
	*resp = nullptr;
	uint8_t *rbuf = w.mem.resp(w.rng.below(8));
	uint64_t rptr = (uint64_t)rbuf;
	std::vector<uint8_t> b(sizeof(rdma_ucm_cmd_hdr) + sizeof(T));
	rdma_ucm_cmd_hdr h{cmd, (uint16_t)sizeof(T), (uint16_t)resp_len};
	const char *mut = "none";
	if (resp_off >= 0)
		memcpy((uint8_t *)&req + resp_off, &rptr, 8);
	memcpy(&b[8], &req, sizeof(T));
	size_t len = b.size();
	int fd = u.fd[u.fd[1] >= 0 && w.rng.chance(20) ? 1 : 0];
	if (w.rng.chance(30)) {
		switch (w.rng.below(6)) {
		case 0:
			mut = "bytes";
			for (unsigned i = 0; i < 1 + w.rng.below(4); i++)
				b[8 + w.rng.below(sizeof(T))] = (uint8_t)w.rng.interesting();
			if (resp_off >= 0)
				memcpy(&b[8 + resp_off], &rptr, 8);
			break;
		case 1:
			mut = "in";
			h.in = (uint16_t)(w.rng.chance(50) ? w.rng.next() : sizeof(T) - w.rng.below(9));
			break;
		case 2:
			mut = "out";
			h.out = (uint16_t)w.rng.interesting();
			break;
		case 3:
			mut = "length";
			len = w.rng.below(b.size() + 1);
			break;
		case 4:
			mut = "resp_ptr";
			rptr = w.mem.any_ptr(w.rng, resp_len);
			if (resp_off >= 0)
				memcpy(&b[8 + resp_off], &rptr, 8);
			break;
		default:
			mut = "cmd";
			h.cmd = (uint32_t)(w.rng.chance(70) ? w.rng.below(32) : w.rng.next());
			break;
		}
	}
	memcpy(&b[0], &h, sizeof(h));
	w.note("ucm %s cmd=%u in=%u out=%u len=%zu mut=%s", name, h.cmd, h.in, h.out, len, mut);
	ssize_t r = write(fd, b.data(), len);
	int err = r < 0 ? errno : 0;
	w.result(err);
	if (r >= 0 && (size_t)r != len)
		w.violation("ucm %s: write of %zu returned %zd", name, len, r);
	if (!err && rptr == (uint64_t)rbuf && fd == u.fd[0])
		*resp = rbuf;
	return err;
}

template <typename T> int send(Worker &w, Ucm &u, uint32_t cmd, const char *name, T &req, size_t resp_len, int resp_off)
{
	uint8_t *r;
	return send(w, u, cmd, name, req, resp_len, resp_off, &r);
}

// The command's number and its name for the journal: UCM_CMD(LISTEN).
#define UCM_CMD(x) RDMA_USER_CM_CMD_##x, #x

// A command struct for the id field first: a live, dead or odd id.
template <typename T> T with_id(Worker &w, Ucm &u)
{
	T c{};
	c.id = u.id(w);
	return c;
}

void ucm_create_id(Worker &w, Ucm &u)
{
	uint8_t *r;
	rdma_ucm_create_id c{};
	c.uid = w.rng.next();
	static const uint16_t ps[] = {RDMA_PS_TCP, RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IPOIB, RDMA_PS_IB, 0, 0xffff};
	c.ps = w.rng.pick(ps);
	c.qp_type = (uint8_t)(w.rng.chance(80) ? 2 : w.rng.below(12));
	if (!send(w, u, UCM_CMD(CREATE_ID), c, 4, 8, &r) && r)
		u.ids.push_back(*(uint32_t *)r);
}

void ucm_destroy_id(Worker &w, Ucm &u)
{
	uint8_t *r;
	auto c = with_id<rdma_ucm_destroy_id>(w, u);
	if (!send(w, u, UCM_CMD(DESTROY_ID), c, 4, 0, &r)) {
		for (size_t i = 0; i < u.ids.size(); i++)
			if (u.ids[i] == c.id) {
				u.ids.erase(u.ids.begin() + i);
				u.dead.push_back(c.id);
				break;
			}
	}
}

void ucm_bind_ip(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_bind_ip>(w, u);
	addr(w, &c.addr, sizeof(c.addr));
	send(w, u, UCM_CMD(BIND_IP), c, 0, 0);
}

void ucm_bind(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_bind>(w, u);
	c.addr_size = (uint16_t)addr(w, &c.addr, sizeof(c.addr));
	send(w, u, UCM_CMD(BIND), c, 0, -1);
}

void ucm_resolve_ip(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_resolve_ip>(w, u);
	if (w.rng.chance(50))
		addr(w, &c.src_addr, sizeof(c.src_addr));
	addr(w, &c.dst_addr, sizeof(c.dst_addr));
	c.timeout_ms = (uint32_t)(w.rng.chance(90) ? 100 + w.rng.below(1000) : w.rng.interesting());
	send(w, u, UCM_CMD(RESOLVE_IP), c, 0, -1);
}

void ucm_resolve_addr(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_resolve_addr>(w, u);
	if (w.rng.chance(40))
		c.src_size = (uint16_t)addr(w, &c.src_addr, sizeof(c.src_addr));
	c.dst_size = (uint16_t)addr(w, &c.dst_addr, sizeof(c.dst_addr));
	c.timeout_ms = (uint32_t)(w.rng.chance(90) ? 100 + w.rng.below(1000) : w.rng.interesting());
	send(w, u, UCM_CMD(RESOLVE_ADDR), c, 0, -1);
}

void ucm_resolve_route(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_resolve_route>(w, u);
	c.timeout_ms = (uint32_t)(100 + w.rng.below(1000));
	send(w, u, UCM_CMD(RESOLVE_ROUTE), c, 0, -1);
}

void ucm_query(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_query>(w, u);
	c.option = (uint32_t)w.rng.below(4);
	bool route = w.rng.chance(30);
	size_t resp_len = w.rng.chance(80) ? 512 : w.rng.below(512);
	if (route)
		send(w, u, UCM_CMD(QUERY_ROUTE), c, resp_len, 0);
	else
		send(w, u, UCM_CMD(QUERY), c, resp_len, 0);
}

void ucm_connect(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_connect>(w, u);
	c.conn_param.qp_num = (uint32_t)w.rng.below(64);
	c.conn_param.private_data_len = (uint8_t)(w.rng.chance(80) ? w.rng.below(56) : w.rng.next());
	c.conn_param.responder_resources = (uint8_t)w.rng.below(8);
	c.conn_param.initiator_depth = (uint8_t)w.rng.below(8);
	c.conn_param.retry_count = 7;
	c.conn_param.rnr_retry_count = 7;
	c.conn_param.valid = (uint8_t)w.rng.below(2);
	send(w, u, UCM_CMD(CONNECT), c, 0, -1);
}

void ucm_listen(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_listen>(w, u);
	c.backlog = (uint32_t)(w.rng.chance(80) ? w.rng.below(8) : w.rng.interesting());
	send(w, u, UCM_CMD(LISTEN), c, 0, -1);
}

void ucm_accept(Worker &w, Ucm &u)
{
	rdma_ucm_accept c{};
	c.uid = w.rng.next();
	c.id = u.id(w);
	c.conn_param.qp_num = (uint32_t)w.rng.below(64);
	c.conn_param.private_data_len = (uint8_t)w.rng.below(200);
	send(w, u, UCM_CMD(ACCEPT), c, 0, -1);
}

void ucm_reject(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_reject>(w, u);
	c.private_data_len = (uint8_t)w.rng.next();
	c.reason = (uint8_t)w.rng.below(3);
	send(w, u, UCM_CMD(REJECT), c, 0, -1);
}

void ucm_disconnect(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_disconnect>(w, u);
	send(w, u, UCM_CMD(DISCONNECT), c, 0, -1);
}

void ucm_init_qp_attr(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_init_qp_attr>(w, u);
	c.qp_state = (uint32_t)(w.rng.chance(90) ? w.rng.below(7) : w.rng.next());
	send(w, u, UCM_CMD(INIT_QP_ATTR), c, 144, 0);
}

void ucm_get_event(Worker &w, Ucm &u)
{
	uint8_t *r;
	rdma_ucm_get_event c{};
	if (!send(w, u, UCM_CMD(GET_EVENT), c, sizeof(rdma_ucm_event_resp), 0, &r) &&
	    r) {
		auto *e = (rdma_ucm_event_resp *)r;
		// A connect request brings a new id with it.
		if (e->event == 4 && u.ids.size() < 256)
			u.ids.push_back(e->id);
	}
}

void ucm_set_option(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_set_option>(w, u);
	c.level = (uint32_t)w.rng.below(3);
	c.optname = (uint32_t)w.rng.below(5);
	c.optlen = (uint32_t)(w.rng.chance(80) ? 1 + w.rng.below(8) : w.rng.interesting());
	uint8_t *val = w.mem.resp(10);
	w.rng.fill(val, 16);
	c.optval = w.rng.chance(85) ? (uint64_t)val : w.mem.any_ptr(w.rng, 0);
	send(w, u, UCM_CMD(SET_OPTION), c, 0, -1);
}

void ucm_notify(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_notify>(w, u);
	c.event = (uint32_t)w.rng.below(20);
	send(w, u, UCM_CMD(NOTIFY), c, 0, -1);
}

void ucm_join_mcast(Worker &w, Ucm &u)
{
	uint8_t *r;
	rdma_ucm_join_mcast c{};
	c.uid = w.rng.next();
	c.id = u.id(w);
	c.join_flags = (uint16_t)w.rng.below(3);
	c.addr_size = (uint16_t)addr(w, &c.addr, sizeof(c.addr));
	if (w.rng.chance(50)) { // 224.0.0.x
		auto *a = (sockaddr_in *)&c.addr;
		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(0xe0000010 + (uint32_t)w.rng.below(4));
		c.addr_size = sizeof(sockaddr_in);
	}
	if (!send(w, u, UCM_CMD(JOIN_MCAST), c, 4, 0, &r) && r)
		u.mcs.push_back(*(uint32_t *)r);
}

void ucm_leave_mcast(Worker &w, Ucm &u)
{
	rdma_ucm_destroy_id c{}; // LEAVE_MCAST shares the layout
	c.id = !u.mcs.empty() && w.rng.chance(80) ? u.mcs[w.rng.below(u.mcs.size())] : u.id(w);
	send(w, u, UCM_CMD(LEAVE_MCAST), c, 4, 0);
}

void ucm_migrate_id(Worker &w, Ucm &u)
{
	auto c = with_id<rdma_ucm_migrate_id>(w, u);
	c.fd = (uint32_t)(u.fd[1] >= 0 && w.rng.chance(80) ? u.fd[w.rng.below(2)] : w.rng.below(12));
	send(w, u, UCM_CMD(MIGRATE_ID), c, 4, 0);
}

// The op numbers one_call draws from; a command listed n times is made n
// times as often.
using Op = void (*)(Worker &, Ucm &);
const Op kOps[] = {
	ucm_create_id, ucm_create_id, ucm_destroy_id, ucm_bind_ip, ucm_bind, ucm_resolve_ip,
	ucm_resolve_addr, ucm_resolve_addr, ucm_resolve_route, ucm_query, ucm_connect, ucm_connect,
	ucm_listen, ucm_accept, ucm_reject, ucm_disconnect, ucm_init_qp_attr, ucm_get_event,
	ucm_get_event, ucm_set_option, ucm_notify, ucm_join_mcast, ucm_leave_mcast, ucm_migrate_id,
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == 24, "op numbers are part of the replay");

void one_call(Worker &w, Ucm &u)
{
	unsigned op = (unsigned)w.rng.below(24);
	if (u.ids.empty() && w.rng.chance(70))
		op = 0;
	kOps[op](w, u);
}

} // namespace

void fuzz_ucm(Worker &w)
{
	Ucm u;
	w.note("ucm open");
	for (int i = 0; i < 2; i++) {
		if (i == 1 && w.rng.chance(50))
			break;
		u.fd[i] = open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (u.fd[i] < 0) {
			w.result(errno);
			break;
		}
	}
	if (u.fd[0] < 0)
		return;
	unsigned n = 20 + (unsigned)w.rng.below(200);
	for (unsigned i = 0; i < n && w.take(); i++)
		one_call(w, u);
	// Closing with ids in any state (listening, connecting) is the
	// lifetime path of a killed process.
	for (int f : u.fd)
		if (f >= 0)
			close(f);
}

} // namespace fz
