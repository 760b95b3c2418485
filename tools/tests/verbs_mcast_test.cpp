// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
//
// UD multicast on rxe0 through libibverbs: two UD QPs attach to a group
// (IPv4-mapped ::ffff:239.1.1.1, and IPv6 ff0e::1234), a third sends to the
// group through an AH on the multicast GID, both attached QPs get the bytes
// exactly once; after one detaches only the other does. Attach on an RC QP
// and detach of a group the QP is not in fail with upstream's errno.
//
// A RoCE v2 packet to a multicast IP reaches the local host the way any IP
// multicast does: the IP stack loops a copy back when the host is a member
// of the group (IP_MULTICAST_LOOP), so the test joins the group on the rxe
// netdev with an ordinary UDP socket, as an application would. Without that
// IP membership, neither stock rxe nor ours delivers locally.
//
// RoCE v1 (ours only; the stock rxe has no RoCE v1 GIDs): no IP is involved,
// the group's Ethernet address is 33:33 + the MGID's last 4 bytes; like a
// hardware port, rxe hands its own QPs in the group a copy of what it sends.
// Needs rxe0 (selftests/vm/verbs_bad_input.sh).
#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <net/if.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include <infiniband/verbs.h>

#include <gtest/gtest.h>

#include "util.h"

namespace {

constexpr uint32_t kQkey = 0x11111111;
constexpr int kGrh = 40;
constexpr int kMsg = 64;
constexpr int kSlots = 8;

double now()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct UdQp {
	ibv_cq *cq = nullptr;
	ibv_qp *qp = nullptr;
	ibv_mr *mr = nullptr;
	std::vector<char> buf = std::vector<char>(kSlots * (kGrh + kMsg));

	~UdQp()
	{
		if (qp)
			ibv_destroy_qp(qp);
		if (mr)
			ibv_dereg_mr(mr);
		if (cq)
			ibv_destroy_cq(cq);
	}

	int init(ibv_context *ctx, ibv_pd *pd, ibv_qp_type type)
	{
		ibv_qp_init_attr init{};
		ibv_qp_attr at{};
		int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

		cq = ibv_create_cq(ctx, 32, nullptr, nullptr, 0);
		mr = ibv_reg_mr(pd, buf.data(), buf.size(),
				IBV_ACCESS_LOCAL_WRITE);
		if (!cq || !mr)
			return -1;
		init.send_cq = cq;
		init.recv_cq = cq;
		init.cap.max_send_wr = kSlots;
		init.cap.max_recv_wr = kSlots;
		init.cap.max_send_sge = 1;
		init.cap.max_recv_sge = 1;
		init.qp_type = type;
		init.sq_sig_all = 1;
		qp = ibv_create_qp(pd, &init);
		if (!qp)
			return -1;
		if (type != IBV_QPT_UD)
			return 0;
		at.qp_state = IBV_QPS_INIT;
		at.port_num = 1;
		at.qkey = kQkey;
		if (ibv_modify_qp(qp, &at, mask | IBV_QP_QKEY))
			return -1;
		at = {};
		at.qp_state = IBV_QPS_RTR;
		if (ibv_modify_qp(qp, &at, IBV_QP_STATE))
			return -1;
		at.qp_state = IBV_QPS_RTS;
		at.sq_psn = 1;
		if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN))
			return -1;
		for (int i = 0; i < kSlots; i++)
			if (post_recv(i))
				return -1;
		return 0;
	}

	int post_recv(int slot)
	{
		ibv_sge sge{};
		ibv_recv_wr wr{}, *bad;

		sge.addr = (uintptr_t)&buf[slot * (kGrh + kMsg)];
		sge.length = kGrh + kMsg;
		sge.lkey = mr->lkey;
		wr.wr_id = slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		return ibv_post_recv(qp, &wr, &bad);
	}

	// Completions within @secs; received payloads appended to @got.
	int poll(double secs, std::vector<std::string> *got)
	{
		double end = now() + secs;
		int n = 0;

		do {
			ibv_wc wc{};

			if (ibv_poll_cq(cq, 1, &wc) != 1) {
				usleep(10000);
				continue;
			}
			n++;
			if (!got)
				continue;
			EXPECT_EQ(IBV_WC_SUCCESS, wc.status);
			if (wc.status != IBV_WC_SUCCESS ||
			    wc.opcode != IBV_WC_RECV)
				continue;
			EXPECT_EQ((uint32_t)(kGrh + kMsg), wc.byte_len);
			const char *p = &buf[wc.wr_id * (kGrh + kMsg) + kGrh];
			got->emplace_back(p, strnlen(p, kMsg));
			post_recv(wc.wr_id);
		} while (now() < end);
		return n;
	}
};

class VerbsMcast : public ::testing::Test {
protected:
	void SetUp() override
	{
		int n = 0;
		ibv_device **list = ibv_get_device_list(&n);

		for (int i = 0; list && i < n && !ctx; i++)
			if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
				ctx = ibv_open_device(list[i]);
		if (list)
			ibv_free_device_list(list);
		if (!ctx)
			GTEST_SKIP() << "no rxe0";
		ASSERT_TRUE(pd = ibv_alloc_pd(ctx));
		ASSERT_TRUE(sbuf_mr = ibv_reg_mr(pd, sbuf, sizeof(sbuf), 0));
	}

	void TearDown() override
	{
		for (int fd : socks)
			close(fd);
		if (sbuf_mr)
			ibv_dereg_mr(sbuf_mr);
		if (pd)
			ibv_dealloc_pd(pd);
		if (ctx)
			ibv_close_device(ctx);
	}

	// A GID of @type: IPv4-mapped or not (global scope).
	int find_gid(bool v4, ibv_gid_entry *out,
		     uint32_t type = IBV_GID_TYPE_ROCE_V2)
	{
		static const uint8_t map[12] = {0, 0, 0, 0, 0, 0, 0, 0,
						0, 0, 0xff, 0xff};

		for (int i = 0; i < 16; i++) {
			ibv_gid_entry e;

			if (ibv_query_gid_ex(ctx, 1, i, &e, 0) ||
			    e.gid_type != type)
				continue;
			bool is_v4 = !memcmp(e.gid.raw, map, sizeof(map));

			if (is_v4 != v4)
				continue;
			if (!v4 && e.gid.raw[0] == 0xfe)
				continue;
			*out = e;
			return i;
		}
		return -1;
	}

	// IP membership of the group on the rxe netdev (see the top).
	void ip_join(const ibv_gid &mgid, bool v4, uint32_t ifindex)
	{
		int fd = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM, 0);

		ASSERT_GE(fd, 0);
		socks.push_back(fd);
		if (v4) {
			ip_mreqn mr{};

			memcpy(&mr.imr_multiaddr, &mgid.raw[12], 4);
			mr.imr_ifindex = ifindex;
			ASSERT_EQ(0, setsockopt(fd, IPPROTO_IP,
						IP_ADD_MEMBERSHIP, &mr,
						sizeof(mr))) << strerror(errno);
		} else {
			ipv6_mreq mr{};

			memcpy(&mr.ipv6mr_multiaddr, mgid.raw, 16);
			mr.ipv6mr_interface = ifindex;
			ASSERT_EQ(0, setsockopt(fd, IPPROTO_IPV6,
						IPV6_JOIN_GROUP, &mr,
						sizeof(mr))) << strerror(errno);
		}
	}

	int send(UdQp &s, ibv_ah *ah, const char *msg)
	{
		ibv_sge sge{};
		ibv_send_wr wr{}, *bad;

		memset(sbuf, 0, sizeof(sbuf));
		strncpy(sbuf, msg, sizeof(sbuf) - 1);
		sge.addr = (uintptr_t)sbuf;
		sge.length = kMsg;
		sge.lkey = sbuf_mr->lkey;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0xffffff;
		wr.wr.ud.remote_qkey = kQkey;
		int err = ibv_post_send(s.qp, &wr, &bad);
		if (err)
			return err;
		return s.poll(0.5, nullptr) == 1 ? 0 : -1;
	}

	void run_group(const char *mgid_text, bool v4,
		       uint32_t type = IBV_GID_TYPE_ROCE_V2);

	ibv_context *ctx = nullptr;
	ibv_pd *pd = nullptr;
	ibv_mr *sbuf_mr = nullptr;
	char sbuf[kMsg];
	std::vector<int> socks;
};

void VerbsMcast::run_group(const char *mgid_text, bool v4, uint32_t type)
{
	ibv_gid_entry src{};
	int sgid_index = find_gid(v4, &src, type);
	const bool v1 = type == IBV_GID_TYPE_ROCE_V1;
	ibv_gid mgid;
	UdQp r1, r2, s;
	std::vector<std::string> g1, g2;

	if (sgid_index < 0 && v1)
		GTEST_SKIP() << "no RoCE v1 GID (the stock rxe has none)";
	if (sgid_index < 0)
		GTEST_SKIP() << "no " << (v4 ? "IPv4" : "IPv6") << " GID";
	ASSERT_EQ(1, inet_pton(AF_INET6, mgid_text, mgid.raw));
	ASSERT_EQ(0, r1.init(ctx, pd, IBV_QPT_UD));
	ASSERT_EQ(0, r2.init(ctx, pd, IBV_QPT_UD));
	ASSERT_EQ(0, s.init(ctx, pd, IBV_QPT_UD));

	ibv_ah_attr aa{};
	aa.is_global = 1;
	aa.grh.dgid = mgid;
	aa.grh.sgid_index = sgid_index;
	aa.grh.hop_limit = 1;
	aa.port_num = 1;
	ibv_ah *ah = ibv_create_ah(pd, &aa);
	ASSERT_TRUE(ah) << strerror(errno);

	ASSERT_EQ(0, ibv_attach_mcast(r1.qp, &mgid, 0));
	ASSERT_EQ(0, ibv_attach_mcast(r2.qp, &mgid, 0));
	// attaching twice is a successful no-op
	ASSERT_EQ(0, ibv_attach_mcast(r2.qp, &mgid, 0));

	if (!v1) {
		// No IP membership: nothing comes back to this host.
		ASSERT_EQ(0, send(s, ah, "no-join"));
		EXPECT_EQ(0, r1.poll(1.0, &g1));
		EXPECT_EQ(0, r2.poll(0.1, &g2));
		ip_join(mgid, v4, src.ndev_ifindex);
	}
	ASSERT_EQ(0, send(s, ah, "both"));
	r1.poll(2.0, &g1);
	r2.poll(0.5, &g2);
	EXPECT_EQ(std::vector<std::string>{"both"}, g1);
	EXPECT_EQ(std::vector<std::string>{"both"}, g2);

	ASSERT_EQ(0, ibv_detach_mcast(r2.qp, &mgid, 0));
	g1.clear();
	g2.clear();
	ASSERT_EQ(0, send(s, ah, "r1-only"));
	r1.poll(2.0, &g1);
	r2.poll(0.5, &g2);
	EXPECT_EQ(std::vector<std::string>{"r1-only"}, g1);
	EXPECT_TRUE(g2.empty());

	// r2 is no longer in the group
	errno = 0;
	EXPECT_EQ(EINVAL, ibv_detach_mcast(r2.qp, &mgid, 0));

	// group gone altogether: nobody receives, nothing breaks
	ASSERT_EQ(0, ibv_detach_mcast(r1.qp, &mgid, 0));
	g1.clear();
	ASSERT_EQ(0, send(s, ah, "nobody"));
	r1.poll(1.0, &g1);
	EXPECT_TRUE(g1.empty());
	ibv_destroy_ah(ah);
}

TEST_F(VerbsMcast, Ipv4MappedGroup)
{
	run_group("::ffff:239.1.1.1", true);
}

TEST_F(VerbsMcast, Ipv6Group)
{
	run_group("ff0e::1234", false);
}

TEST_F(VerbsMcast, RoceV1Group)
{
	run_group("ff0e::1:5", false, IBV_GID_TYPE_ROCE_V1);
}

TEST_F(VerbsMcast, BadAttach)
{
	UdQp rc, ud;
	ibv_gid mgid, ucast;

	ASSERT_EQ(1, inet_pton(AF_INET6, "::ffff:239.1.1.2", mgid.raw));
	ASSERT_EQ(1, inet_pton(AF_INET6, "::ffff:192.0.2.9", ucast.raw));
	ASSERT_EQ(0, rc.init(ctx, pd, IBV_QPT_RC));
	ASSERT_EQ(0, ud.init(ctx, pd, IBV_QPT_UD));

	EXPECT_EQ(EINVAL, ibv_attach_mcast(rc.qp, &mgid, 0));
	EXPECT_EQ(EINVAL, ibv_detach_mcast(rc.qp, &mgid, 0));
	// a unicast GID is no group
	EXPECT_EQ(EINVAL, ibv_attach_mcast(ud.qp, &ucast, 0));
	// never attached
	EXPECT_EQ(EINVAL, ibv_detach_mcast(ud.qp, &mgid, 0));
}

// Is the Ethernet multicast address @mac (12 hex digits) in the filter of
// interface @ifindex? /proc/net/dev_mcast: "index name users global mac".
bool in_dev_mcast(uint32_t ifindex, const std::string &mac)
{
	std::ifstream f("/proc/net/dev_mcast");
	std::string line;

	while (std::getline(f, line)) {
		std::istringstream in(line);
		std::string name, addr;
		uint32_t idx = 0;
		int users, global;

		if ((in >> idx >> name >> users >> global >> addr) &&
		    idx == ifindex && addr == mac)
			return true;
	}
	return false;
}

// The Ethernet address of IPv4 group 239.2.0.@i in the netdev filter.
// Ours: 01:00:5e + the low 23 bits of the group (RFC 1112), what IP uses.
// The stock 6.1 rxe maps every MGID, IPv4-mapped too, as an IPv6 group
// (33:33 + its last 4 bytes), so the frames IP sends to the group are not
// in its filter; we do not copy that.
std::string v4_group_mac(int i)
{
	char mac[16];

	if (rk::is_stock())
		snprintf(mac, sizeof(mac), "3333ef0200%02x", i);
	else
		snprintf(mac, sizeof(mac), "01005e0200%02x", i);
	return mac;
}

// Joining a group puts its MAC in the netdev's filter; leaving the last QP
// takes it out, as does closing the context with the QP still attached.
TEST_F(VerbsMcast, ManyGroupsPerQp)
{
	ibv_gid_entry src{};
	UdQp ud;
	ibv_gid mgid;
	std::string mac;

	if (find_gid(true, &src) < 0)
		GTEST_SKIP() << "no IPv4 GID";
	ASSERT_EQ(0, ud.init(ctx, pd, IBV_QPT_UD));
	ASSERT_EQ(1, inet_pton(AF_INET6, "::ffff:239.2.0.0", mgid.raw));
	for (int i = 0; i < 40; i++) {
		mgid.raw[15] = i;
		ASSERT_EQ(0, ibv_attach_mcast(ud.qp, &mgid, 0)) << i;
		mac = v4_group_mac(i);
		EXPECT_TRUE(in_dev_mcast(src.ndev_ifindex, mac)) << mac;
	}
	for (int i = 0; i < 20; i++) {
		mgid.raw[15] = i;
		ASSERT_EQ(0, ibv_detach_mcast(ud.qp, &mgid, 0)) << i;
		mac = v4_group_mac(i);
		// stock 6.1 never takes a group's address out of the filter
		if (!rk::is_stock()) {
			EXPECT_FALSE(in_dev_mcast(src.ndev_ifindex, mac))
				<< mac;
		}
	}
	// an IPv6 group: 33:33 + its last 4 bytes on both stacks
	ASSERT_EQ(1, inet_pton(AF_INET6, "ff0e::2:1234", mgid.raw));
	ASSERT_EQ(0, ibv_attach_mcast(ud.qp, &mgid, 0));
	EXPECT_TRUE(in_dev_mcast(src.ndev_ifindex, "333300021234"));

	// A QP still in groups cannot be destroyed (upstream uverbs) ...
	EXPECT_EQ(EBUSY, ibv_destroy_qp(ud.qp));

	// (ExitWhileAttached: the context release detaches them)
	ASSERT_EQ(1, inet_pton(AF_INET6, "::ffff:239.2.0.0", mgid.raw));
	for (int i = 20; i < 40; i++) {
		mgid.raw[15] = i;
		ASSERT_EQ(0, ibv_detach_mcast(ud.qp, &mgid, 0)) << i;
	}
	ASSERT_EQ(1, inet_pton(AF_INET6, "ff0e::2:1234", mgid.raw));
	ASSERT_EQ(0, ibv_detach_mcast(ud.qp, &mgid, 0));
	EXPECT_EQ(0, ibv_destroy_qp(ud.qp));
	ud.qp = nullptr;
	if (rk::is_stock())
		return;
	for (int i = 20; i < 40; i++) {
		mac = v4_group_mac(i);
		EXPECT_FALSE(in_dev_mcast(src.ndev_ifindex, mac)) << mac;
	}
	EXPECT_FALSE(in_dev_mcast(src.ndev_ifindex, "333300021234"));
}

// A process that exits with a QP in groups leaves them (the context's
// release detaches what the QP destroy would refuse to).
TEST_F(VerbsMcast, ExitWhileAttached)
{
	ibv_gid_entry src{};
	ibv_gid mgid;

	if (find_gid(true, &src) < 0)
		GTEST_SKIP() << "no IPv4 GID";
	ASSERT_EQ(1, inet_pton(AF_INET6, "::ffff:239.3.0.7", mgid.raw));
	ibv_close_device(ctx);	// the child opens its own
	ctx = nullptr;
	pd = nullptr;
	sbuf_mr = nullptr;

	pid_t pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		int n = 0, bad = 1;
		ibv_device **list = ibv_get_device_list(&n);
		ibv_context *c = nullptr;

		for (int i = 0; list && i < n && !c; i++)
			if (!strcmp(ibv_get_device_name(list[i]), "rxe0"))
				c = ibv_open_device(list[i]);
		ibv_pd *p = c ? ibv_alloc_pd(c) : nullptr;
		UdQp *q = new UdQp;	// never freed: the exit cleans up
		if (p && !q->init(c, p, IBV_QPT_UD) &&
		    !ibv_attach_mcast(q->qp, &mgid, 0) &&
		    (rk::is_stock() ||
		     in_dev_mcast(src.ndev_ifindex, "01005e030007")))
			bad = 0;
		_exit(bad);
	}
	int status = -1;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	if (!rk::is_stock()) {
		EXPECT_TRUE(rk::poll_until([&] {
			return !in_dev_mcast(src.ndev_ifindex, "01005e030007");
		}, 3000));
	}
}

} // namespace
