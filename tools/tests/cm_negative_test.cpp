// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// rdma_cm negative paths through librdmacm (issue 4): a connect to a port
// nobody listens on is rejected (not timed out); binding an address and
// port twice gives EADDRINUSE; the IPoIB port space is refused on RoCE; a
// server killed with 20 connected clients
// leaves every client DISCONNECTED and, once the clients are gone too,
// every resource of the device released. Expected values are the stock
// kernel's (the suite passes on --stack stock).
// Needs rxe0 on 192.0.2.1 (selftests/vm/cm_negative.sh).
#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <gtest/gtest.h>

#include "nldev.h"
#include "util.h"

namespace {

constexpr const char *kAddr = "192.0.2.1";
constexpr int kClients = 20;

sockaddr_in addr_of(const char *ip, uint16_t port)
{
	sockaddr_in sin{};

	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	inet_pton(AF_INET, ip, &sin.sin_addr);
	return sin;
}

// One event channel; events are acked as soon as they are copied out.
class Channel {
public:
	Channel() : ch_(rdma_create_event_channel()) {}
	~Channel()
	{
		if (ch_)
			rdma_destroy_event_channel(ch_);
	}
	rdma_event_channel *get() const { return ch_; }

	struct Event {
		rdma_cm_event_type type;
		int status;
		rdma_cm_id *id;
		rdma_cm_id *listen_id;
	};

	// false if nothing came within timeout_ms.
	bool next(Event *ev, int timeout_ms)
	{
		pollfd p{ch_->fd, POLLIN, 0};
		rdma_cm_event *e;

		if (poll(&p, 1, timeout_ms) != 1 || rdma_get_cm_event(ch_, &e))
			return false;
		*ev = {e->event, e->status, e->id, e->listen_id};
		rdma_ack_cm_event(e);
		return true;
	}

	// The next event for id must be `want`.
	::testing::AssertionResult expect(rdma_cm_id *id, rdma_cm_event_type want,
					  int timeout_ms, int *status = nullptr)
	{
		Event ev;

		if (!next(&ev, timeout_ms))
			return ::testing::AssertionFailure()
			       << "no event, wanted " << rdma_event_str(want);
		if (ev.id != id || ev.type != want)
			return ::testing::AssertionFailure()
			       << "got " << rdma_event_str(ev.type) << " (status "
			       << ev.status << "), wanted " << rdma_event_str(want);
		if (status)
			*status = ev.status;
		return ::testing::AssertionSuccess();
	}

private:
	rdma_event_channel *ch_;
};

// A client id resolved to kAddr:port with an RC QP of its own CQ.
struct Client {
	rdma_cm_id *id = nullptr;
	ibv_cq *cq = nullptr;

	::testing::AssertionResult prepare(Channel &ch, uint16_t port)
	{
		sockaddr_in dst = addr_of(kAddr, port);
		ibv_qp_init_attr qa{};

		if (rdma_create_id(ch.get(), &id, this, RDMA_PS_TCP))
			return ::testing::AssertionFailure() << "create_id " << errno;
		if (rdma_resolve_addr(id, nullptr, (sockaddr *)&dst, 5000))
			return ::testing::AssertionFailure() << "resolve_addr " << errno;
		auto r = ch.expect(id, RDMA_CM_EVENT_ADDR_RESOLVED, 30000);
		if (!r)
			return r;
		if (rdma_resolve_route(id, 5000))
			return ::testing::AssertionFailure() << "resolve_route " << errno;
		r = ch.expect(id, RDMA_CM_EVENT_ROUTE_RESOLVED, 30000);
		if (!r)
			return r;
		cq = ibv_create_cq(id->verbs, 4, nullptr, nullptr, 0);
		if (!cq)
			return ::testing::AssertionFailure() << "create_cq " << errno;
		qa.send_cq = qa.recv_cq = cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = qa.cap.max_recv_wr = 2;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, nullptr, &qa))
			return ::testing::AssertionFailure() << "create_qp " << errno;
		return ::testing::AssertionSuccess();
	}

	int connect()
	{
		rdma_conn_param p{};

		p.responder_resources = p.initiator_depth = 1;
		p.retry_count = 7;
		p.rnr_retry_count = 7;
		return rdma_connect(id, &p);
	}

	~Client()
	{
		if (id && id->qp)
			rdma_destroy_qp(id);
		if (cq)
			ibv_destroy_cq(cq);
		if (id)
			rdma_destroy_id(id);
	}
};

// Counts of `rdma resource` for rxe0 (name -> count).
std::map<std::string, uint64_t> res_counts()
{
	rk::RdmaNl nl;
	rk::DevInfo d;
	rk::ResSummary r;
	std::map<std::string, uint64_t> m;

	if (!nl.open().ok() || !rk::nldev_find(nl, "rxe0", d).ok() ||
	    !rk::nldev_res_get(nl, d.index, r).ok())
		return m;
	for (auto &e : r.entries)
		m[e.first] = e.second;
	return m;
}

std::string show(const std::map<std::string, uint64_t> &m)
{
	std::string s;

	for (auto &e : m)
		s += e.first + "=" + std::to_string(e.second) + " ";
	return s;
}

class CmNegative : public ::testing::Test {
protected:
	void SetUp() override
	{
		if (res_counts().empty())
			GTEST_SKIP() << "no rxe0";
	}
};

// IB CM answers a REQ for an unknown service with a REJ: the client learns
// at once (REJECTED), instead of retrying until UNREACHABLE.
TEST_F(CmNegative, NoListenerIsRejected)
{
	Channel ch;
	Client c;
	int status = 0;

	ASSERT_TRUE(c.prepare(ch, 7171));
	ASSERT_EQ(0, c.connect()) << strerror(errno);
	ASSERT_TRUE(ch.expect(c.id, RDMA_CM_EVENT_REJECTED, 60000, &status));
	// IB_CM_REJ_INVALID_SERVICE_ID
	EXPECT_EQ(8, status);
}

TEST_F(CmNegative, BindTwiceIsAddrInUse)
{
	Channel ch;
	rdma_cm_id *a = nullptr, *b = nullptr, *any = nullptr;
	sockaddr_in sa = addr_of(kAddr, 7272);
	sockaddr_in wild = addr_of("0.0.0.0", 7272);

	ASSERT_EQ(0, rdma_create_id(ch.get(), &a, nullptr, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(ch.get(), &b, nullptr, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_create_id(ch.get(), &any, nullptr, RDMA_PS_TCP));
	ASSERT_EQ(0, rdma_bind_addr(a, (sockaddr *)&sa)) << strerror(errno);
	ASSERT_EQ(0, rdma_listen(a, 4)) << strerror(errno);

	EXPECT_EQ(-1, rdma_bind_addr(b, (sockaddr *)&sa));
	EXPECT_EQ(EADDRINUSE, errno);
	// The wildcard address overlaps every address of the port; the
	// kernel says so with another errno.
	EXPECT_EQ(-1, rdma_bind_addr(any, (sockaddr *)&wild));
	EXPECT_EQ(EADDRNOTAVAIL, errno);

	// Once the listener is gone the port is free again.
	rdma_destroy_id(a);
	EXPECT_EQ(0, rdma_bind_addr(b, (sockaddr *)&sa)) << strerror(errno);
	EXPECT_EQ(0, rdma_listen(b, 4)) << strerror(errno);
	rdma_destroy_id(b);
	rdma_destroy_id(any);
}

// The IPoIB port space belongs to InfiniBand ports: on RoCE a bind is
// EINVAL and an address resolution ends in ADDR_ERROR -EINVAL, as stock.
TEST_F(CmNegative, IpoibPortSpaceOnRoce)
{
	Channel ch;
	rdma_cm_id *a = nullptr, *b = nullptr;
	sockaddr_in sa = addr_of(kAddr, 7575);
	int status = 0;

	ASSERT_EQ(0, rdma_create_id(ch.get(), &a, nullptr, RDMA_PS_IPOIB));
	EXPECT_EQ(-1, rdma_bind_addr(a, (sockaddr *)&sa));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, rdma_create_id(ch.get(), &b, nullptr, RDMA_PS_IPOIB));
	ASSERT_EQ(0, rdma_resolve_addr(b, nullptr, (sockaddr *)&sa, 5000))
		<< strerror(errno);
	EXPECT_TRUE(ch.expect(b, RDMA_CM_EVENT_ADDR_ERROR, 30000, &status));
	EXPECT_EQ(-EINVAL, status);
	rdma_destroy_id(a);
	rdma_destroy_id(b);
}

// Runs tools/bin/cm_hold_server (next to this binary) in a fresh process,
// so that it shares no librdmacm/libibverbs state with the test; returns
// its pid and its stdout.
pid_t start_server(uint16_t port, int n, FILE **out)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int pfd[2];

	if (len <= 0 || pipe(pfd))
		return -1;
	self[len] = 0;
	std::string bin = std::string(self, strrchr(self, '/') - self) +
			  "/cm_hold_server";
	pid_t pid = fork();

	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(bin.c_str(), "cm_hold_server", kAddr,
		      std::to_string(port).c_str(), std::to_string(n).c_str(),
		      (char *)nullptr);
		_exit(127);
	}
	close(pfd[1]);
	*out = fdopen(pfd[0], "r");
	return pid;
}

std::string read_line(FILE *f)
{
	char buf[128];

	return fgets(buf, sizeof(buf), f) ? std::string(buf) : std::string();
}

TEST_F(CmNegative, KillServerWith20Clients)
{
	const uint16_t port = 7373;
	std::map<std::string, uint64_t> before;
	FILE *srv = nullptr;

	// librdmacm keeps the device open once used: count from there.
	{
		Channel ch;
		Client warm;

		ASSERT_TRUE(warm.prepare(ch, port));
	}
	before = res_counts();

	pid_t pid = start_server(port, kClients, &srv);
	ASSERT_GT(pid, 0);
	ASSERT_EQ("listening\n", read_line(srv));

	{
		Channel ch;
		std::vector<Client> clients(kClients);
		std::map<rdma_cm_id *, rdma_cm_event_type> last;

		for (auto &cl : clients) {
			ASSERT_TRUE(cl.prepare(ch, port));
			ASSERT_EQ(0, cl.connect()) << strerror(errno);
			ASSERT_TRUE(ch.expect(cl.id, RDMA_CM_EVENT_ESTABLISHED,
					      60000));
		}
		ASSERT_EQ("established 20\n", read_line(srv));

		kill(pid, SIGKILL);
		int st;
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		ASSERT_TRUE(WIFSIGNALED(st));

		// The dead server's ids are destroyed by the kernel: each sends
		// a DREQ, each client gets DISCONNECTED.
		while ((int)last.size() < kClients) {
			Channel::Event ev;

			if (!ch.next(&ev, 120000))
				break;
			EXPECT_EQ(RDMA_CM_EVENT_DISCONNECTED, ev.type)
				<< rdma_event_str(ev.type);
			last[ev.id] = ev.type;
		}
		EXPECT_EQ(kClients, (int)last.size()) << "clients disconnected";
		for (auto &cl : clients)
			rdma_disconnect(cl.id);
	}
	fclose(srv);

	// Everything of both sides is released (the kernel may still be
	// finishing the dead server's teardown: wait for it, generously).
	std::map<std::string, uint64_t> after;
	bool same = rk::poll_until([&] { return (after = res_counts()) == before; },
				   60000, 200);
	EXPECT_TRUE(same) << "before: " << show(before) << " after: " << show(after);
}

} // namespace
