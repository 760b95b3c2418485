// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * SA client and multicast test: path, GuidInfo and MCMemberRecord traffic
 * to the scripted SA of rdma_fake_ib.ko (answers, silence, late answers,
 * error statuses), cancellation, freeing while a join is pending, joins
 * shared between joiners, leaving with the last joiner, port events; and
 * what the same calls answer on a RoCE port (no SA). Loading succeeds only
 * if every check passed; verdicts go to the kernel log as
 * "rdma_sa_test: PASS|FAIL ...". Written against the upstream 6.1 API only,
 * so the same source runs on the stock kernel as the reference.
 */
#include <linux/module.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "rdma_fake_ib.h"

MODULE_DESCRIPTION("rdma-kmod SA client self test (test only)");
MODULE_LICENSE("Dual BSD/GPL");

static char *roce_param = "";
module_param_named(roce, roce_param, charp, 0444);
MODULE_PARM_DESC(roce, "a RoCE device to check the no-SA answers on");

static struct ib_sa_client sat_client;
static int failures;

#define CHECK(cond, fmt, ...) do {					\
	if (cond) {							\
		pr_info("rdma_sa_test: PASS " fmt "\n", ##__VA_ARGS__);	\
	} else {							\
		pr_err("rdma_sa_test: FAIL " fmt "\n", ##__VA_ARGS__);	\
		failures++;						\
	}								\
} while (0)

/* ------------------------------------------------------------ queries */

struct sat_query {
	struct completion	done;
	int			status;
	int			calls;
	int			num;
	bool			could_sleep;
	struct sa_path_rec	path;
	struct ib_sa_guidinfo_rec guid;
	unsigned long		t0, t1;
	struct ib_sa_query	*q;
};

static void sat_path_cb(int status, struct sa_path_rec *resp, int num_prs,
			void *context)
{
	struct sat_query *s = context;

	s->could_sleep = preemptible();
	s->status = status;
	s->num = num_prs;
	if (!status && resp && num_prs > 0)
		s->path = *resp;
	s->calls++;
	s->t1 = jiffies;
	complete(&s->done);
}

static int sat_path(struct ib_device *dev, struct sat_query *s,
		    unsigned long timeout_ms)
{
	struct sa_path_rec rec = {};
	int id;

	memset(s, 0, sizeof(*s));
	init_completion(&s->done);
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	rec.sgid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	rec.sgid.global.interface_id = cpu_to_be64(0x0002c90300fab101ULL);
	rec.dgid = rec.sgid;
	rec.numb_path = 1;
	rec.pkey = cpu_to_be16(0xFFFF);
	rec.reversible = 1;
	s->t0 = jiffies;
	id = ib_sa_path_rec_get(&sat_client, dev, 1, &rec,
				IB_SA_PATH_REC_DGID | IB_SA_PATH_REC_SGID |
				IB_SA_PATH_REC_NUMB_PATH |
				IB_SA_PATH_REC_REVERSIBLE |
				IB_SA_PATH_REC_PKEY, timeout_ms, GFP_KERNEL,
				sat_path_cb, s, &s->q);
	return id;
}

static bool sat_wait(struct sat_query *s, unsigned int ms)
{
	return wait_for_completion_timeout(&s->done, msecs_to_jiffies(ms));
}

static unsigned int sat_ms(struct sat_query *s)
{
	return jiffies_to_msecs(s->t1 - s->t0);
}

static void sat_guid_cb(int status, struct ib_sa_guidinfo_rec *resp,
			void *context)
{
	struct sat_query *s = context;

	s->status = status;
	if (!status && resp)
		s->guid = *resp;
	s->calls++;
	complete(&s->done);
}

static void test_path(struct ib_device *dev)
{
	unsigned int before;
	struct sat_query s;
	int id;

	fib_sa_set(FIB_SA_ANSWER, 0, 0);
	id = sat_path(dev, &s, 1000);
	CHECK(id >= 0, "path query starts (id %d)", id);
	if (id < 0)
		return;
	CHECK(sat_wait(&s, 5000), "path query answered");
	CHECK(s.status == 0 && s.num == 1, "path: status %d, %d path(s)",
	      s.status, s.num);
	CHECK(s.could_sleep, "path callback may sleep");
	CHECK(s.path.rec_type == SA_PATH_REC_TYPE_IB &&
	      be32_to_cpu(sa_path_get_dlid(&s.path)) == 1 &&
	      s.path.mtu == IB_MTU_2048 && s.path.rate == IB_RATE_10_GBPS &&
	      s.path.packet_life_time == 14 && s.path.reversible &&
	      s.path.pkey == cpu_to_be16(0xFFFF),
	      "path record unpacked (dlid %u mtu %u rate %u plt %u)",
	      be32_to_cpu(sa_path_get_dlid(&s.path)), s.path.mtu,
	      s.path.rate, s.path.packet_life_time);

	/* No answer: the callback reports a timeout, once. */
	fib_sa_set(FIB_SA_SILENT, 0, 0);
	before = fib_sa_count(FIB_SA_PATH);
	id = sat_path(dev, &s, 500);
	CHECK(id >= 0 && sat_wait(&s, 5000), "unanswered path query ends");
	CHECK(s.status == -ETIMEDOUT, "unanswered: status %d (-ETIMEDOUT)",
	      s.status);
	CHECK(sat_ms(&s) >= 400 && sat_ms(&s) < 2500,
	      "unanswered: callback after %u ms (timeout 500)", sat_ms(&s));
	pr_info("rdma_sa_test: INFO silent SA saw %u requests for one query\n",
		fib_sa_count(FIB_SA_ALL) - before);

	/* Cancel while the answer is on its way. */
	fib_sa_set(FIB_SA_LATE, 1500, 0);
	id = sat_path(dev, &s, 5000);
	CHECK(id >= 0, "late path query starts");
	if (id >= 0) {
		msleep(100);
		ib_sa_cancel_query(id, s.q);
		CHECK(sat_wait(&s, 5000), "cancelled query calls back");
		CHECK(s.status == -EINTR, "cancelled: status %d (-EINTR)",
		      s.status);
		CHECK(sat_ms(&s) < 1000, "cancelled: callback after %u ms",
		      sat_ms(&s));
		msleep(1600);	/* the late answer arrives: no second call */
		CHECK(s.calls == 1, "cancelled: %d callback(s)", s.calls);
	}

	/* An error status from the SA. */
	fib_sa_set(FIB_SA_REFUSE, 0, 0x0300);
	id = sat_path(dev, &s, 1000);
	CHECK(id >= 0 && sat_wait(&s, 5000), "refused path query ends");
	pr_info("rdma_sa_test: INFO SA status 0x0300 -> callback status %d, %d path(s)\n",
		s.status, s.num);
	CHECK(s.status < 0, "refused: status %d", s.status);
	fib_sa_set(FIB_SA_ANSWER, 0, 0);
}

static void test_guidinfo(struct ib_device *dev)
{
	struct ib_sa_guidinfo_rec rec = {};
	struct sat_query s = {};
	int id;

	init_completion(&s.done);
	rec.lid = cpu_to_be16(1);
	id = ib_sa_guid_info_rec_query(&sat_client, dev, 1, &rec,
				       IB_SA_GUIDINFO_REC_LID |
				       IB_SA_GUIDINFO_REC_BLOCK_NUM,
				       IB_MGMT_METHOD_GET, 1000, GFP_KERNEL,
				       sat_guid_cb, &s, &s.q);
	CHECK(id >= 0 && sat_wait(&s, 5000), "GuidInfoRecord query ends");
	CHECK(s.status == 0 && be16_to_cpu(s.guid.lid) == 1,
	      "GuidInfoRecord: status %d lid %u", s.status,
	      be16_to_cpu(s.guid.lid));
}

/* ------------------------------------------------------------ joins */

struct sat_join {
	struct ib_sa_multicast	*mc;
	struct completion	done;
	int			status;
	int			calls;
	int			ret;		/* what the callback returns */
	u16			mlid;
	bool			could_sleep;
};

static int sat_join_cb(int status, struct ib_sa_multicast *mc)
{
	struct sat_join *j = mc->context;

	j->could_sleep = preemptible();
	j->status = status;
	if (!status)
		j->mlid = be16_to_cpu(mc->rec.mlid);
	j->calls++;
	complete(&j->done);
	return j->ret;
}

static void sat_mgid(union ib_gid *mgid, u8 n)
{
	memset(mgid, 0, sizeof(*mgid));
	mgid->raw[0] = 0xff;
	mgid->raw[1] = 0x12;
	mgid->raw[2] = 0x40;
	mgid->raw[3] = 0x1b;
	mgid->raw[4] = 0xff;
	mgid->raw[5] = 0xff;
	mgid->raw[15] = n;
}

static int sat_join_ret(struct ib_device *dev, struct sat_join *j, u8 group,
			u8 join_state, int cb_ret)
{
	struct ib_sa_mcmember_rec rec = {};

	memset(j, 0, sizeof(*j));
	j->ret = cb_ret;
	init_completion(&j->done);
	sat_mgid(&rec.mgid, group);
	rdma_query_gid(dev, 1, 0, &rec.port_gid);
	rec.pkey = cpu_to_be16(0xFFFF);
	rec.join_state = join_state;
	j->mc = ib_sa_join_multicast(&sat_client, dev, 1, &rec,
				     IB_SA_MCMEMBER_REC_MGID |
				     IB_SA_MCMEMBER_REC_PORT_GID |
				     IB_SA_MCMEMBER_REC_PKEY |
				     IB_SA_MCMEMBER_REC_JOIN_STATE,
				     GFP_KERNEL, sat_join_cb, j);
	if (IS_ERR(j->mc)) {
		int ret = PTR_ERR(j->mc);

		j->mc = NULL;
		return ret;
	}
	return 0;
}

static int sat_join(struct ib_device *dev, struct sat_join *j, u8 group,
		    u8 join_state)
{
	return sat_join_ret(dev, j, group, join_state, 0);
}

static bool sat_jwait(struct sat_join *j, unsigned int ms)
{
	return wait_for_completion_timeout(&j->done, msecs_to_jiffies(ms));
}

/* Waits up to 2 s for an SA counter to reach @want. */
static unsigned int sat_count_reaches(enum fib_sa_count what,
				      unsigned int want)
{
	int i;

	for (i = 0; i < 40 && fib_sa_count(what) < want; i++)
		msleep(50);
	return fib_sa_count(what);
}

static void test_join(struct ib_device *dev)
{
	unsigned int joins, leaves;
	struct ib_sa_mcmember_rec rec;
	struct rdma_ah_attr ah;
	struct sat_join a, b;
	union ib_gid mgid;
	int ret;

	fib_sa_set(FIB_SA_ANSWER, 0, 0);
	joins = fib_sa_count(FIB_SA_JOIN);
	leaves = fib_sa_count(FIB_SA_LEAVE);

	ret = sat_join(dev, &a, 1, 1);
	CHECK(!ret && sat_jwait(&a, 5000), "join 1 starts and calls back (%d)",
	      ret);
	CHECK(a.status == 0 && a.mlid >= 0xC000, "join 1: status %d mlid 0x%x",
	      a.status, a.mlid);
	CHECK(a.could_sleep, "join callback may sleep");
	ret = sat_join(dev, &b, 1, 1);
	CHECK(!ret && sat_jwait(&b, 5000), "join 2 (same group) calls back");
	CHECK(b.status == 0 && b.mlid == a.mlid,
	      "join 2: status %d, same mlid 0x%x", b.status, b.mlid);
	CHECK(fib_sa_count(FIB_SA_JOIN) - joins == 1,
	      "two joiners, %u SA join(s)", fib_sa_count(FIB_SA_JOIN) - joins);

	sat_mgid(&mgid, 1);
	ret = ib_sa_get_mcmember_rec(dev, 1, &mgid, &rec);
	CHECK(!ret && be16_to_cpu(rec.mlid) == a.mlid,
	      "get_mcmember_rec of a joined group: %d mlid 0x%x", ret,
	      be16_to_cpu(rec.mlid));
	if (!ret) {
		ret = ib_init_ah_from_mcmember(dev, 1, &rec, NULL,
					       IB_GID_TYPE_IB, &ah);
		CHECK(!ret && rdma_ah_get_dlid(&ah) == a.mlid &&
		      (rdma_ah_get_ah_flags(&ah) & IB_AH_GRH),
		      "ib_init_ah_from_mcmember: %d dlid 0x%x", ret,
		      ret ? 0 : rdma_ah_get_dlid(&ah));
		if (!ret)
			rdma_destroy_ah_attr(&ah);
	}
	sat_mgid(&mgid, 9);
	ret = ib_sa_get_mcmember_rec(dev, 1, &mgid, &rec);
	pr_info("rdma_sa_test: INFO get_mcmember_rec of an unknown group: %d\n",
		ret);
	CHECK(ret < 0, "get_mcmember_rec of an unknown group fails (%d)", ret);

	if (!a.mc || !b.mc) {
		if (a.mc)
			ib_sa_free_multicast(a.mc);
		if (b.mc)
			ib_sa_free_multicast(b.mc);
		return;
	}
	ib_sa_free_multicast(a.mc);
	msleep(300);
	CHECK(fib_sa_count(FIB_SA_LEAVE) == leaves,
	      "first free: no leave yet");
	ib_sa_free_multicast(b.mc);
	CHECK(sat_count_reaches(FIB_SA_LEAVE, leaves + 1) == leaves + 1,
	      "last free: one leave");
	CHECK(fib_sa_groups() == 0, "SA holds no membership");
}

static void test_join_errors(struct ib_device *dev)
{
	unsigned long t0;
	struct sat_join a, b;
	int ret;

	/* Unanswered join: timeout status. */
	fib_sa_set(FIB_SA_SILENT, 0, 0);
	t0 = jiffies;
	ret = sat_join(dev, &a, 2, 1);
	CHECK(!ret && sat_jwait(&a, 20000), "unanswered join calls back");
	pr_info("rdma_sa_test: INFO unanswered join: status %d after %u ms\n",
		a.status, jiffies_to_msecs(jiffies - t0));
	CHECK(a.status == -ETIMEDOUT, "unanswered join: status %d (-ETIMEDOUT)",
	      a.status);
	if (a.mc)
		ib_sa_free_multicast(a.mc);

	/* Refused join. */
	fib_sa_set(FIB_SA_REFUSE, 0, 0x0200);
	ret = sat_join(dev, &a, 3, 1);
	CHECK(!ret && sat_jwait(&a, 10000), "refused join calls back");
	pr_info("rdma_sa_test: INFO refused join: status %d\n", a.status);
	CHECK(a.status < 0, "refused join: status %d", a.status);
	if (a.mc)
		ib_sa_free_multicast(a.mc);

	/* Freed while its join is still unanswered: no callback after. */
	fib_sa_set(FIB_SA_LATE, 1000, 0);
	ret = sat_join(dev, &a, 4, 1);
	CHECK(!ret, "late join starts");
	if (!ret) {
		msleep(50);
		t0 = jiffies;
		ib_sa_free_multicast(a.mc);
		pr_info("rdma_sa_test: INFO free of a pending join took %u ms, %d callback(s)\n",
			jiffies_to_msecs(jiffies - t0), a.calls);
		msleep(1500);
		CHECK(a.calls == 0, "freed pending join: %d callback(s) (0)",
		      a.calls);
	}

	/* A callback returning non-zero frees its membership. */
	fib_sa_set(FIB_SA_ANSWER, 0, 0);
	ret = sat_join_ret(dev, &b, 5, 1, -1);
	CHECK(!ret && sat_jwait(&b, 5000) && b.status == 0,
	      "join with a callback returning non-zero");
	if (ret)
		return;
	t0 = jiffies;
	while (fib_sa_groups() && time_before(jiffies, t0 + 2 * HZ))
		msleep(50);
	/* The stock kernel keeps the SA membership; ours leaves. */
	pr_info("rdma_sa_test: INFO self-freed membership: %u left after %u ms\n",
		fib_sa_groups(), jiffies_to_msecs(jiffies - t0));
	CHECK(b.calls == 1, "self-freed member: %d callback(s)", b.calls);
}

/*
 * What a joined member hears when its port reports an event, as the stock
 * kernel does it: the membership ends with -ENETRESET (the consumer joins
 * again) when the port goes down, its LID changes or the SM asks clients
 * to register again; a P_Key change only if the group's P_Key is gone;
 * nothing is sent to the SA meanwhile.
 */
static const struct {
	enum ib_event_type	event;
	const char		*name;
	int			status;		/* 1: no callback */
} sat_events[] = {
	{ IB_EVENT_GID_CHANGE, "GID_CHANGE", 1 },
	{ IB_EVENT_SM_CHANGE, "SM_CHANGE", 1 },
	{ IB_EVENT_LID_CHANGE, "LID_CHANGE", -ENETRESET },
	{ IB_EVENT_PKEY_CHANGE, "PKEY_CHANGE", 1 },
	{ IB_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", -ENETRESET },
	{ IB_EVENT_PORT_ERR, "PORT_ERR", -ENETRESET },
};

static void test_port_events(struct ib_device *dev)
{
	unsigned int joins, i;
	struct sat_join a;
	int ret, got;

	fib_sa_set(FIB_SA_ANSWER, 0, 0);
	for (i = 0; i < ARRAY_SIZE(sat_events); i++) {
		ret = sat_join(dev, &a, 6, 1);
		if (ret || !sat_jwait(&a, 5000) || a.status) {
			CHECK(0, "join before %s", sat_events[i].name);
			if (!ret)
				ib_sa_free_multicast(a.mc);
			continue;
		}
		joins = fib_sa_count(FIB_SA_JOIN);
		reinit_completion(&a.done);
		if (sat_events[i].event == IB_EVENT_PORT_ERR)
			fib_port_set(false);
		else
			fib_port_event(sat_events[i].event);
		got = sat_jwait(&a, 1000) ? a.status : 1;
		msleep(200);
		pr_info("rdma_sa_test: INFO %s: callback status %d (1: none), %u SA join(s)\n",
			sat_events[i].name, got,
			fib_sa_count(FIB_SA_JOIN) - joins);
		CHECK(got == sat_events[i].status,
		      "%s: member hears %d (want %d)", sat_events[i].name, got,
		      sat_events[i].status);
		if (sat_events[i].event == IB_EVENT_PORT_ERR) {
			fib_port_set(true);
			msleep(200);
		}
		ib_sa_free_multicast(a.mc);
		sat_count_reaches(FIB_SA_LEAVE, 0);
		msleep(100);
	}
}

/* ------------------------------------------------------------ RoCE */

static void test_roce(const char *name)
{
	struct ib_sa_mcmember_rec rec = {};
	struct ib_device *dev;
	struct sat_query s;
	struct sat_join j;
	union ib_gid mgid;
	int ret;

	dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!dev) {
		CHECK(0, "RoCE device %s found", name);
		return;
	}
	ret = sat_path(dev, &s, 1000);
	pr_info("rdma_sa_test: INFO RoCE path_rec_get: %d\n", ret);
	CHECK(ret < 0, "RoCE path_rec_get refused (%d)", ret);
	if (ret >= 0)
		sat_wait(&s, 5000);
	ret = sat_join(dev, &j, 1, 1);
	pr_info("rdma_sa_test: INFO RoCE join_multicast: %d\n", ret);
	if (!ret) {
		sat_jwait(&j, 5000);
		pr_info("rdma_sa_test: INFO RoCE join callback status %d\n",
			j.status);
		ib_sa_free_multicast(j.mc);
	}
	CHECK(ret < 0 || j.status < 0, "RoCE join refused (%d/%d)", ret,
	      j.status);
	sat_mgid(&mgid, 1);
	ret = ib_sa_get_mcmember_rec(dev, 1, &mgid, &rec);
	pr_info("rdma_sa_test: INFO RoCE get_mcmember_rec: %d\n", ret);
	CHECK(ret < 0, "RoCE get_mcmember_rec refused (%d)", ret);
	ib_device_put(dev);
}

static int __init sat_init(void)
{
	struct ib_device *dev = fib_device();
	struct sat_query s;
	int i;

	ib_sa_register_client(&sat_client);
	/* The SA client learns about the SM from the port's events. */
	for (i = 0; i < 50; i++) {
		if (sat_path(dev, &s, 1000) >= 0) {
			sat_wait(&s, 5000);
			break;
		}
		msleep(100);
	}
	pr_info("rdma_sa_test: INFO first path query possible after %d ms\n",
		i * 100);
	pr_info("rdma_sa_test: INFO ClassPortInfo queries since load: %u\n",
		fib_sa_count(FIB_SA_CPI));
	test_path(dev);
	test_guidinfo(dev);
	test_join(dev);
	test_join_errors(dev);
	test_port_events(dev);
	if (*roce_param)
		test_roce(roce_param);
	ib_sa_unregister_client(&sat_client);
	pr_info("rdma_sa_test: %s (%d failure(s))\n",
		failures ? "FAILED" : "all checks passed", failures);
	return failures ? -EINVAL : 0;
}

static void __exit sat_exit(void)
{
}

module_init(sat_init);
module_exit(sat_exit);
