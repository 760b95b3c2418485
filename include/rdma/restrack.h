/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Resource tracking: which objects a device has, for `rdma resource`.
 * The object verbs fill it in; until then every count is zero.
 */
#ifndef RDMA_KMOD_RESTRACK_H
#define RDMA_KMOD_RESTRACK_H

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/completion.h>

struct sk_buff;

struct ib_device;

enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_COUNTER,
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

/*
 * Per-object entry of `rdma resource` (restrack.c), embedded in PDs, CQs,
 * QPs, MRs, SRQs, contexts and cm_ids. A dump holds kref while it reports
 * the object; rdma_restrack_del() waits for comp, so the object outlives
 * every report that found it in the table.
 */
struct rdma_restrack_entry {
	bool			valid;		/* in the table */
	u8			no_track : 1;	/* never put in the table */
	struct kref		kref;
	struct completion	comp;
	struct task_struct	*task;		/* user owner */
	const char		*kern_name;	/* kernel owner (module) */
	enum rdma_restrack_type	type;
	bool			user;
	u32			id;
};

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type);

static inline bool rdma_is_kernel_res(const struct rdma_restrack_entry *res)
{
	return !res->user;
}

/* Objects a driver creates for itself stay out of `rdma resource`. */
static inline void rdma_restrack_no_track(struct rdma_restrack_entry *res)
{
	res->no_track = true;
}

static inline bool rdma_restrack_is_tracked(struct rdma_restrack_entry *res)
{
	return !res->no_track;
}

struct rdma_restrack_entry;
struct ib_ucontext;

/*
 * Object lifecycle, as upstream: _new() when the object is allocated,
 * set_name()/parent_name() to record its owner, _add() once the driver
 * has created it (gives res->id), _del() before it is freed. _del() of
 * an entry that was never added is a no-op.
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);
void rdma_restrack_add(struct rdma_restrack_entry *res);
void rdma_restrack_del(struct rdma_restrack_entry *res);

/*
 * Driver attributes of a resource (fill_res_*_entry ops) and per-object
 * counters: each appends one named value to the message (nldev_driver.c).
 */
int rdma_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value);
int rdma_nl_put_driver_u32_hex(struct sk_buff *msg, const char *name,
			       u32 value);
int rdma_nl_put_driver_u64(struct sk_buff *msg, const char *name, u64 value);
int rdma_nl_put_driver_u64_hex(struct sk_buff *msg, const char *name,
			       u64 value);
int rdma_nl_put_driver_string(struct sk_buff *msg, const char *name,
			      const char *str);
int rdma_nl_stat_hwcounter_entry(struct sk_buff *msg, const char *name,
				 u64 value);

#endif /* RDMA_KMOD_RESTRACK_H */
