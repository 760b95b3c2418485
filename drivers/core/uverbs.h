/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Interfaces private to ib_uverbs, shared between its files.
 *
 *   uverbs_main.c   module, ib_client, /dev/infiniband/uverbsN, file ops
 *   uverbs_cmd.c    write() protocol and the command handlers
 *   uverbs_event.c  async event and completion channel files, handlers
 *   uverbs_uobj.c   per-file object tables, destroy, teardown on close
 *
 * This kernel speaks only the legacy write() command protocol: the char
 * device has no ioctl, so libibverbs' RDMA_VERBS_IOCTL probe sees ENOTTY
 * and stays in write mode for everything.
 */
#ifndef RDMA_KMOD_UVERBS_H
#define RDMA_KMOD_UVERBS_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/ib_user_ioctl_cmds.h>

/* One per ib_device: the class device uverbsN and its char device. */
struct ib_uverbs_device {
	struct device		dev;	/* owns this struct (release frees) */
	struct cdev		cdev;
	struct ib_device	*ib_dev;
	int			devnum;
	/* The registration holds one; every open command file one more. */
	refcount_t		refcount;
	struct completion	comp;	/* refcount dropped to zero */
	struct mutex		lists_mutex;	/* ufiles, going_away */
	struct list_head	ufiles;
	bool			going_away;
};

/* Handle name spaces of a command file, in teardown order. */
enum uverbs_type {
	UVERBS_TYPE_QP,
	UVERBS_TYPE_SRQ,
	UVERBS_TYPE_AH,
	UVERBS_TYPE_MW,
	UVERBS_TYPE_MR,
	UVERBS_TYPE_CQ,
	UVERBS_TYPE_PD,
	UVERBS_NUM_TYPES
};

/* One per open() of /dev/infiniband/uverbsN. */
struct ib_uverbs_file {
	struct kref		ref;	/* the file, comp channels */
	struct ib_uverbs_device	*device;
	struct ib_device	*ib_dev;
	/*
	 * Commands run under it for read; GET_CONTEXT, destroys and the
	 * teardown on close take it for write, so an object is never freed
	 * under a command that looked it up.
	 */
	struct rw_semaphore	cmd_rwsem;
	struct ib_ucontext	*ucontext;
	struct ib_uverbs_async_event_file *async_file;
	struct xarray		objs[UVERBS_NUM_TYPES];
	spinlock_t		comp_files_lock;
	struct list_head	comp_files;	/* live completion channels */
	struct list_head	list;		/* in device->ufiles */
	bool			torn_down;
};

/* A user QP's uobject: ib_uqp_object plus its multicast attachments. */
struct uverbs_uqp {
	struct ib_uqp_object	uqp;
	struct mutex		mcast_lock;
	struct list_head	mcast_list;
};

struct uverbs_mcast_entry {
	struct list_head	list;
	union ib_gid		gid;
	u16			lid;
};

/* Common part of the async event file and completion channel files. */
struct ib_uverbs_event_queue {
	spinlock_t		lock;	/* taken from any context */
	bool			is_closed;
	wait_queue_head_t	poll_wait;
	struct fasync_struct	*async_queue;
	struct list_head	event_list;
};

struct ib_uverbs_async_event_file {
	struct kref			ref;	/* the struct file, the ufile, objects */
	struct ib_uverbs_event_queue	ev_queue;
	struct ib_event_handler		event_handler;
	bool				handler_registered;
};

struct ib_uverbs_completion_event_file {
	struct kref			ref;	/* the struct file, CQs */
	struct ib_uverbs_event_queue	ev_queue;
	struct ib_uverbs_file		*ufile;	/* owner, holds a ufile ref */
	struct list_head		ufile_entry;
};

/* uverbs_main.c */
void ib_uverbs_ufile_put(struct ib_uverbs_file *ufile);

/* uverbs_cmd.c */
ssize_t ib_uverbs_run_write(struct ib_uverbs_file *ufile,
			    const char __user *buf, size_t count);

/*
 * Command handlers: int ib_uverbs_<cmd>(struct uverbs_attr_bundle *attrs),
 * 0 or a negative errno (becomes write()'s errno). ib_uverbs_run_write()
 * has checked the framing (ABI.md 4.2) before calling and fills in:
 *
 *   attrs->ufile     the command file; attrs->context its ucontext (never
 *                    NULL except for GET_CONTEXT).
 *   attrs->ucore     core request/response. inbuf = first byte after the
 *                    8-byte header (legacy; this is the "response" u64 when
 *                    the command has one) or after the 16-byte ex header.
 *                    inlen = the table's core request size for commands with
 *                    driver udata, else the whole payload (POST_* read their
 *                    trailing WR/SGE arrays with uverbs_copy_in()); for ex
 *                    commands in_words * 8. outbuf = the user response
 *                    buffer, outlen = core response size (udata commands)
 *                    or the whole out_words space; ex: out_words * 8.
 *                    outbuf is NULL when the command has no response.
 *   attrs->driver_udata  driver in/out (legacy: in = payload after the core
 *                    request, out = response + core response size), empty
 *                    for commands without driver udata.
 *   attrs->uobject   NULL; free for the handler's use.
 *
 * The dispatcher holds ufile->cmd_rwsem for read, or for write for
 * GET_CONTEXT and every DESTROY/DEALLOC/DEREG command (table flag; needed
 * by uobj_destroy_by_handle()), so objects found with uobj_get_obj()
 * stay alive until the handler returns. Creates run under the read lock:
 * uobj_alloc() reserves the handle, the handler creates the hardware
 * object, writes the response and only then uobj_alloc_commit()s; if the
 * response copy fails it destroys the object and uobj_alloc_abort()s.
 * Use the helpers below instead of raw copies of ucore.
 */
/* Copy the core request: min(req_len, ucore.inlen) bytes, rest zeroed. */
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len);
/* Copy len bytes at offset of the core request area; -EINVAL if short. */
int uverbs_copy_in(struct uverbs_attr_bundle *attrs, size_t offset,
		   void *dst, size_t len);
/*
 * Write the core response, truncated to ucore.outlen; the rest of
 * ucore.outlen is zeroed, so commands with trailing output (POLL_CQ) call
 * it before uverbs_copy_out() of the trailing data. -EFAULT on a bad or
 * NULL response pointer.
 */
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len);
/* Write len bytes at offset of the response buffer; -ENOSPC if short. */
int uverbs_copy_out(struct uverbs_attr_bundle *attrs, size_t offset,
		    const void *src, size_t len);

/* Handlers in uverbs_cmd.c (B1). */
int ib_uverbs_get_context(struct uverbs_attr_bundle *attrs);
int ib_uverbs_query_device(struct uverbs_attr_bundle *attrs);
int ib_uverbs_ex_query_device(struct uverbs_attr_bundle *attrs);
int ib_uverbs_query_port(struct uverbs_attr_bundle *attrs);
int ib_uverbs_alloc_pd(struct uverbs_attr_bundle *attrs);
int ib_uverbs_dealloc_pd(struct uverbs_attr_bundle *attrs);
int ib_uverbs_reg_mr(struct uverbs_attr_bundle *attrs);
int ib_uverbs_rereg_mr(struct uverbs_attr_bundle *attrs);
int ib_uverbs_dereg_mr(struct uverbs_attr_bundle *attrs);
int ib_uverbs_alloc_mw(struct uverbs_attr_bundle *attrs);
int ib_uverbs_dealloc_mw(struct uverbs_attr_bundle *attrs);
int ib_uverbs_create_comp_channel(struct uverbs_attr_bundle *attrs);
int ib_uverbs_create_ah(struct uverbs_attr_bundle *attrs);
int ib_uverbs_destroy_ah(struct uverbs_attr_bundle *attrs);
int ib_uverbs_attach_mcast(struct uverbs_attr_bundle *attrs);
int ib_uverbs_detach_mcast(struct uverbs_attr_bundle *attrs);

/* Handlers in uverbs_cmd_qp.c (B2); the table in uverbs_cmd.c uses them. */
int ib_uverbs_create_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_ex_create_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_resize_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_req_notify_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_poll_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_destroy_cq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_create_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_ex_create_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_open_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_query_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_modify_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_ex_modify_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_destroy_qp(struct uverbs_attr_bundle *attrs);
int ib_uverbs_post_send(struct uverbs_attr_bundle *attrs);
int ib_uverbs_post_recv(struct uverbs_attr_bundle *attrs);
int ib_uverbs_post_srq_recv(struct uverbs_attr_bundle *attrs);
int ib_uverbs_create_srq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_create_xsrq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_modify_srq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_query_srq(struct uverbs_attr_bundle *attrs);
int ib_uverbs_destroy_srq(struct uverbs_attr_bundle *attrs);
/* User AV (CREATE_AH) to rdma_ah_attr; RoCE type on RoCE ports (B2). */
void ib_uverbs_ah_attr_from_user(struct ib_device *dev,
				 struct rdma_ah_attr *ah,
				 const struct ib_uverbs_ah_attr *uah);

/* uverbs_event.c */
struct file *ib_uverbs_alloc_async_event_file(
	struct ib_uverbs_file *ufile,
	struct ib_uverbs_async_event_file **ev_file);
void ib_uverbs_async_file_register(struct ib_uverbs_async_event_file *ev_file,
				   struct ib_device *ib_dev);
void ib_uverbs_async_file_device_event(
	struct ib_uverbs_async_event_file *ev_file, enum ib_event_type type,
	u32 port_num);
void ib_uverbs_async_file_shutdown(struct ib_uverbs_async_event_file *ev_file);
void ib_uverbs_async_file_put(struct ib_uverbs_async_event_file *ev_file);
struct file *ib_uverbs_alloc_comp_event_file(struct ib_uverbs_file *ufile);
struct ib_uverbs_completion_event_file *
ib_uverbs_lookup_comp_file(int fd, struct ib_uverbs_file *ufile);
void ib_uverbs_comp_file_put(struct ib_uverbs_completion_event_file *ev_file);
void ib_uverbs_comp_file_shutdown(struct ib_uverbs_completion_event_file *ev_file);
void ib_uverbs_comp_handler(struct ib_cq *cq, void *cq_context);
void ib_uverbs_cq_event_handler(struct ib_event *event, void *context);
void ib_uverbs_qp_event_handler(struct ib_event *event, void *context);
void ib_uverbs_srq_event_handler(struct ib_event *event, void *context);
/* Drop an object's queued (unread) events; its counters stay as read. */
void ib_uverbs_release_uevent(struct ib_uevent_object *uevent);
void ib_uverbs_release_ucq(struct ib_ucq_object *ucq,
			   struct ib_uverbs_completion_event_file *ev_file);

/* uverbs_uobj.c */
struct ib_uobject *uobj_alloc(struct uverbs_attr_bundle *attrs,
			      enum uverbs_type type, size_t size);
void uobj_alloc_commit(struct ib_uobject *uobj);
void uobj_alloc_abort(struct ib_uobject *uobj);
void *uobj_get_obj(struct uverbs_attr_bundle *attrs, enum uverbs_type type,
		   u32 handle);
/* Destroys the hardware object; on success the uobject stays until put. */
int uobj_destroy_hw(struct ib_uobject *uobj, bool user_request,
		    struct uverbs_attr_bundle *attrs);
/* Forgets the handle and frees the uobject (after uobj_destroy_hw). */
void uobj_remove_commit(struct ib_uobject *uobj);
/* Looks up handle, destroys it; *uobj_out is freed by uobj_remove_commit. */
int uobj_destroy_by_handle(struct uverbs_attr_bundle *attrs,
			   enum uverbs_type type, u32 handle,
			   struct ib_uobject **uobj_out);
void ib_uverbs_init_ufile_objs(struct ib_uverbs_file *ufile);
/* Close: destroys every object and the context; cmd_rwsem taken inside. */
void ib_uverbs_destroy_ufile(struct ib_uverbs_file *ufile);

static inline struct uverbs_uqp *to_uverbs_uqp(struct ib_uqp_object *uqp)
{
	return container_of(uqp, struct uverbs_uqp, uqp);
}

/*
 * QP uobjects are allocated with
 * uobj_alloc(attrs, UVERBS_TYPE_QP, sizeof(struct uverbs_uqp)); the
 * creator calls this before the QP can be seen (ATTACH_MCAST, destroy).
 */
static inline void uverbs_uqp_init(struct uverbs_uqp *u)
{
	mutex_init(&u->mcast_lock);
	INIT_LIST_HEAD(&u->mcast_list);
}

#endif /* RDMA_KMOD_UVERBS_H */
