/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Interfaces private to ib_uverbs, shared between its files.
 *
 *   uverbs_main.c       module, ib_client, /dev/infiniband/uverbsN, file ops
 *   uverbs_uapi.c       the parse tree: core and driver definitions merged
 *   uverbs_ioctl.c      RDMA_VERBS_IOCTL: attributes into a bundle, dispatch
 *   uverbs_attr.c       the bundle accessors drivers and handlers use
 *   uverbs_write.c      write() framing and DEVICE/INVOKE_WRITE
 *   uverbs_uobj.c       uobjects: create, look up, destroy, close teardown
 *   uverbs_idr.c        objects behind a handle (uverbs_idr_class)
 *   uverbs_fd.c         objects that are files (uverbs_fd_class)
 *   uverbs_event.c      event queues: async event files, completion channels
 *   uverbs_std_*.c      the standard objects, each with its write() commands
 *                       and ioctl methods sharing one implementation per verb
 *
 * Both protocols end in the same handlers: a write() command and its
 * ioctl method parse their arguments into the same request structure and
 * call the same function, which does the verb once.
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
#include <rdma/uverbs_std_types.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/ib_user_ioctl_cmds.h>

struct uverbs_api;

/* One per ib_device: the class device uverbsN and its char device. */
struct ib_uverbs_device {
	struct device		dev;	/* owns this struct (release frees) */
	struct cdev		cdev;
	struct ib_device	*ib_dev;
	int			devnum;
	struct mutex		lists_mutex;	/* ufiles, going_away */
	struct list_head	ufiles;
	bool			going_away;
	/* What this device's files understand (uverbs_uapi.c). */
	struct uverbs_api	*uapi;
};

/* One per open() of /dev/infiniband/uverbsN. */
struct ib_uverbs_file {
	struct kref		ref;	/* the file, each fd object's file */
	struct ib_uverbs_device	*device;
	struct ib_device	*ib_dev;
	/*
	 * Every command and every fd object's release hold it shared; the
	 * teardown of everything on close holds it exclusively, so no
	 * command runs while objects are being torn down.
	 */
	struct rw_semaphore	hw_destroy_rwsem;
	struct mutex		ucontext_lock;	/* GET_CONTEXT */
	/* Published once with a release store; NULL before GET_CONTEXT. */
	struct ib_ucontext	*ucontext;
	/* The first async event file: device events, objects' default. */
	struct ib_uverbs_async_event_file *default_async_file;
	/* Committed uobjects in creation order, under uobjects_lock. */
	spinlock_t		uobjects_lock;
	struct list_head	uobjects;
	/* Handle -> uobject of every IDR object (one space for all types). */
	struct xarray		idr;
	struct list_head	list;		/* in device->ufiles */
	bool			torn_down;	/* under hw_destroy_rwsem */
};

/* ------------------------------------------------------------ parse tree */

/* One attribute of an ioctl method; uverbs_obj_attr.attr_elm points here. */
struct uverbs_api_attr {
	struct uverbs_attr_spec spec;
};

/* An ioctl method of the tree. */
struct uapi_method {
	int (*handler)(struct uverbs_attr_bundle *attrs);
	/* Attributes the method cannot run without (by bundle index). */
	DECLARE_BITMAP(mandatory, UVERBS_API_ATTR_BKEY_LEN);
	/* Bundle slots needed: highest attribute index + 1. */
	u16		num_slots;
	/* Bundle index of the UVERBS_ACCESS_DESTROY attribute, or -1. */
	s16		destroy_slot;
	bool		disabled;
};

/* A write() command of the tree. */
struct uapi_write {
	int (*handler)(struct uverbs_attr_bundle *attrs);
	u16		req_size;	/* core request, bytes */
	u16		resp_size;	/* core response, bytes; 0: none */
	bool		has_udata;	/* legacy: driver data follows */
	bool		no_context;	/* allowed before GET_CONTEXT */
	bool		disabled;
};

/*
 * Write command descriptors for DECLARE_UVERBS_WRITE[_EX](): the core
 * request and response structures (struct ib_uverbs_<name>), and whether
 * the legacy framing carries driver data behind them.
 */
#define UAPI_WRITE_SIZE(_size)						\
	((_size) + BUILD_BUG_ON_ZERO((_size) > U8_MAX))
#define UAPI_WRITE_REQ(_req)						\
	.write.req_size = UAPI_WRITE_SIZE(sizeof(struct ib_uverbs_##_req))
#define UAPI_WRITE_IO(_req, _resp)					\
	UAPI_WRITE_REQ(_req),						\
	.write.resp_size =						\
		UAPI_WRITE_SIZE(sizeof(struct ib_uverbs_##_resp)),	\
	.write.has_resp = 1
#define UAPI_WRITE_UDATA_REQ(_req)					\
	UAPI_WRITE_REQ(_req), .write.has_udata = 1
#define UAPI_WRITE_UDATA_IO(_req, _resp)				\
	UAPI_WRITE_IO(_req, _resp), .write.has_udata = 1
/* Extended commands: the oldest core layouts userspace may send. */
#define UAPI_WRITE_EX(_req_end, _resp_end)				\
	.write.req_size = UAPI_WRITE_SIZE(_req_end),			\
	.write.resp_size = UAPI_WRITE_SIZE(_resp_end),			\
	.write.has_resp = 1, .write.has_udata = 1

/*
 * Shorthands for the core's own method declarations (uverbs_std_*.c): one
 * attribute per line. _req is UA_MANDATORY or UA_OPTIONAL.
 */
#define UVA_IN(_id, _type, _req)					\
	UVERBS_ATTR_PTR_IN(_id, UVERBS_ATTR_TYPE(_type), _req)
#define UVA_OUT(_id, _type, _req)					\
	UVERBS_ATTR_PTR_OUT(_id, UVERBS_ATTR_TYPE(_type), _req)
#define UVA_OUT_ANY(_id, _min, _req)					\
	UVERBS_ATTR_PTR_OUT(_id, UVERBS_ATTR_MIN_SIZE(_min), _req)
#define UVA_CONST(_id, _type, _req)					\
	UVERBS_ATTR_CONST_IN(_id, _type, _req)
#define UVA_FLAGS(_id, _type, _req)					\
	UVERBS_ATTR_FLAGS_IN(_id, _type, _req)
#define UVA_IDR(_id, _object, _access, _req)				\
	UVERBS_ATTR_IDR(_id, UVERBS_OBJECT_##_object,			\
			UVERBS_ACCESS_##_access, _req)
/* The async event file a new object's events go to. */
#define UVA_EVENT_FD(_id)						\
	UVERBS_ATTR_FD(_id, UVERBS_OBJECT_ASYNC_EVENT,			\
		       UVERBS_ACCESS_READ, UA_OPTIONAL)

struct uverbs_api *uverbs_build_api(struct ib_device *ibdev);
void uverbs_free_api(struct uverbs_api *api);
const struct uverbs_api_object *uapi_get_object(struct uverbs_api *api,
						u16 object_id);
const struct uapi_method *uapi_get_method(struct uverbs_api *api,
					  u16 object_id, u16 method_id);
const struct uverbs_api_attr *uapi_get_attr(struct uverbs_api *api,
					    u16 object_id, u16 method_id,
					    u16 attr_id);
/* ERR_PTR(-EOPNOTSUPP) for unknown or unsupported commands. */
const struct uapi_write *uapi_get_write(struct uverbs_api *api, bool is_ex,
					u32 command);
enum rdma_driver_id uapi_driver_id(struct uverbs_api *api);
/* The core's definitions (uverbs_std_*.c), merged before the driver's. */
extern const struct uapi_definition uverbs_core_api[];

/* ------------------------------------------------------------ the calls */

/*
 * The state of one command around its bundle (the bundle is the last
 * member, its attrs[] follow the struct).
 */
struct uverbs_call {
	struct ib_uverbs_file		*ufile;
	const struct uapi_method	*method;	/* ioctl only */
	/* ioctl: the user's attribute array and our copy of it. */
	struct ib_uverbs_attr __user	*uattrs;
	struct ib_uverbs_attr		*kattrs;
	/* ioctl: per bundle slot, its spec and its index in uattrs. */
	const struct uverbs_api_attr	*specs[UVERBS_API_ATTR_BKEY_LEN];
	u16				uidx[UVERBS_API_ATTR_BKEY_LEN];
	/* Kernel copy of the core request (INVOKE_WRITE), else NULL. */
	const void			*core_in;
	/* INVOKE_WRITE's CORE_OUT slot; the response marks it written. */
	int				core_out_slot;
	/* Bundle slots of NEW objects whose driver object exists. */
	DECLARE_BITMAP(created, UVERBS_API_ATTR_BKEY_LEN);
	/* uverbs_alloc(): a small arena, then separate allocations. */
	struct list_head		allocs;
	size_t				arena_used;
	u8				arena[256] __aligned(8);
	struct uverbs_attr_bundle	bundle;
};

static inline struct uverbs_call *to_call(const struct uverbs_attr_bundle *b)
{
	return container_of((struct uverbs_attr_bundle *)b, struct uverbs_call,
			    bundle);
}

struct uverbs_call *uverbs_call_alloc(struct ib_uverbs_file *ufile,
				      unsigned int num_slots);
void uverbs_call_free(struct uverbs_call *call);
/*
 * Commits the write() handler's new object (attrs->uobject) after success,
 * destroys and aborts it after a failure; returns ret.
 */
int uverbs_finish_write_uobj(struct uverbs_attr_bundle *attrs, int ret);

/* uverbs_ioctl.c */
long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
/* Sets UVERBS_ATTR_F_VALID_OUTPUT on the user's attribute in slot. */
int uverbs_set_output_flag(struct uverbs_attr_bundle *attrs, unsigned int slot);

/* uverbs_write.c */
ssize_t ib_uverbs_run_write(struct ib_uverbs_file *ufile,
			    const char __user *buf, size_t count);
int uverbs_invoke_write(struct uverbs_attr_bundle *attrs);

/*
 * Core request and response of a write() handler, from write() or from
 * INVOKE_WRITE (see ABI.md 4.2): attrs->ucore has the sizes and the user
 * response buffer, attrs->driver_udata the driver's data.
 *
 * Copy the core request: min(req_len, ucore.inlen) bytes, rest zeroed.
 */
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len);
/* Copy len bytes at offset of the core request area; -EINVAL if short. */
int uverbs_copy_in(struct uverbs_attr_bundle *attrs, size_t offset,
		   void *dst, size_t len);
/*
 * Write the core response, truncated to ucore.outlen; the rest of
 * ucore.outlen is zeroed. -EFAULT on a bad or NULL response pointer.
 */
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len);
/* Write len bytes at offset of the response buffer; -ENOSPC if short. */
int uverbs_copy_out(struct uverbs_attr_bundle *attrs, size_t offset,
		    const void *src, size_t len);

/* ------------------------------------------------------------ uobjects */

/* uverbs_uobj.c */
void ib_uverbs_init_ufile_objs(struct ib_uverbs_file *ufile);
/* Close or device removal: destroys every object and the context. */
void ib_uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			     enum rdma_remove_reason why);
/* Destroys a looked-up (DESTROY mode) uobject; the caller still puts it. */
int uverbs_destroy_uobject_locked(struct ib_uobject *uobj,
				  enum rdma_remove_reason why,
				  struct uverbs_attr_bundle *attrs);
/* Forgets a destroyed uobject: its handle, list entry, the list's ref. */
void uverbs_forget_uobject(struct ib_uobject *uobj);
/* Handles of type obj in the file (INFO_HANDLES); ids up to max in ids. */
u32 uverbs_list_handles(struct ib_uverbs_file *ufile,
			const struct uverbs_api_object *obj, u32 *ids,
			u32 max);
/* New uobject of type obj for the context in attrs (alloc_begin's part). */
struct ib_uobject *uverbs_new_uobject(const struct uverbs_api_object *obj,
				      struct uverbs_attr_bundle *attrs);
/* Lock per mode; -EBUSY if it conflicts. */
int uverbs_lock_uobject(struct ib_uobject *uobj, enum rdma_lookup_mode mode);
void uverbs_unlock_uobject(struct ib_uobject *uobj,
			   enum rdma_lookup_mode mode);
void uverbs_publish_uobject(struct ib_uobject *uobj);

static inline bool uverbs_is_fd_type(const struct uverbs_api_object *obj)
{
	return obj->type_class == &uverbs_fd_class;
}

static inline const struct uverbs_obj_fd_type *
uverbs_fd_type(const struct uverbs_api_object *obj)
{
	return container_of(obj->type_attrs, struct uverbs_obj_fd_type, type);
}

static inline const struct uverbs_obj_idr_type *
uverbs_idr_type(const struct uverbs_api_object *obj)
{
	return container_of(obj->type_attrs, struct uverbs_obj_idr_type, type);
}

/*
 * The object behind handle (or fd) of type object_id, looked up for mode,
 * and its release; for write() handlers.
 */
struct ib_uobject *uverbs_get_uobj(struct uverbs_attr_bundle *attrs,
				   u16 object_id, s64 handle,
				   enum rdma_lookup_mode mode);
/*
 * The verbs object behind a handle, held for READ (*uobj to put with
 * uobj_put_read()); ERR_PTR on failure.
 */
void *uverbs_get_obj(struct uverbs_attr_bundle *attrs, u16 object_id,
		     u32 handle, struct ib_uobject **uobj);
/* Looks up, destroys and returns the uobject (to read counters, then put). */
struct ib_uobject *uverbs_destroy_by_handle(struct uverbs_attr_bundle *attrs,
					    u16 object_id, u32 handle);
/*
 * write(): copies the core request (len bytes) into cmd and looks up for
 * READ the object of object_id whose u32 handle is at handle_off in it;
 * *uobj to put with uobj_put_read(). uverbs_cmd_obj() names the member.
 */
void *uverbs_cmd_get_obj(struct uverbs_attr_bundle *attrs, void *cmd,
			 size_t len, size_t handle_off, u16 object_id,
			 struct ib_uobject **uobj);
#define uverbs_cmd_obj(_attrs, _cmd, _member, _object_id, _uobj)	\
	uverbs_cmd_get_obj(_attrs, &(_cmd), sizeof(_cmd),		\
			   offsetof(typeof(_cmd), _member), _object_id, _uobj)
/* A new uobject of object_id for a write() handler. */
struct ib_uobject *uverbs_alloc_uobj(struct uverbs_attr_bundle *attrs,
				     u16 object_id);
/*
 * write() commands whose request starts with the u32 handle of the
 * object to destroy and that answer nothing (DEALLOC_PD, DEREG_MR...).
 */
int uverbs_write_destroy(struct uverbs_attr_bundle *attrs, u16 object_id);

/* ------------------------------------------------------------ events */

/* Common part of the async event file and completion channel files. */
struct ib_uverbs_event_queue {
	bool			ready;	/* initialized (a begun file may not be) */
	spinlock_t		lock;	/* taken from any context */
	bool			is_closed;
	wait_queue_head_t	poll_wait;
	struct fasync_struct	*async_queue;
	struct list_head	event_list;
};

/* UVERBS_OBJECT_ASYNC_EVENT: a file of struct ib_uverbs_async_event_desc. */
struct ib_uverbs_async_event_file {
	struct ib_uobject		uobj;
	struct ib_uverbs_event_queue	ev_queue;
	struct ib_event_handler		event_handler;
	bool				handler_registered;
};

/* UVERBS_OBJECT_COMP_CHANNEL: a file of struct ib_uverbs_comp_event_desc. */
struct ib_uverbs_completion_event_file {
	struct ib_uobject		uobj;
	struct ib_uverbs_event_queue	ev_queue;
};

/* uverbs_event.c */
extern const struct file_operations uverbs_async_event_fops;
extern const struct file_operations uverbs_comp_event_fops;
void ib_uverbs_init_event_queue(struct ib_uverbs_event_queue *q);
/* Readers drain what is queued, then get -EIO. */
void ib_uverbs_shutdown_event_queue(struct ib_uverbs_event_queue *q);
void ib_uverbs_init_async_event_file(struct ib_uverbs_async_event_file *f,
				     struct ib_device *ib_dev);
void ib_uverbs_free_async_event_file(struct ib_uobject *uobj,
				     enum rdma_remove_reason why);
void ib_uverbs_free_comp_event_file(struct ib_uobject *uobj,
				    enum rdma_remove_reason why);
void ib_uverbs_async_file_device_event(
	struct ib_uverbs_async_event_file *ev_file, enum ib_event_type type,
	u32 port_num);
void ib_uverbs_comp_handler(struct ib_cq *cq, void *cq_context);
void ib_uverbs_cq_event_handler(struct ib_event *event, void *context);
void ib_uverbs_qp_event_handler(struct ib_event *event, void *context);
void ib_uverbs_srq_event_handler(struct ib_event *event, void *context);
/* Drop an object's queued (unread) events; its counters stay as read. */
void ib_uverbs_release_uevent(struct ib_uevent_object *uevent);
void ib_uverbs_release_ucq(struct ib_ucq_object *ucq,
			   struct ib_uverbs_completion_event_file *ev_file);
/*
 * The async event file a new object's events go to: the EVENT_FD
 * attribute's (slot), else the file's default; with a uobject reference.
 */
void uverbs_uevent_attach(struct uverbs_attr_bundle *attrs,
			  struct ib_uevent_object *uevent, u16 event_fd_attr);

/* ------------------------------------------------------------ verbs */

/* uverbs_std_device.c */
int uverbs_setup_context(struct uverbs_attr_bundle *attrs, bool with_async);

/* uverbs_std_qp.c: a user QP's uobject with its multicast attachments. */
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

/* Async events userspace has read for a destroyed QP or SRQ. */
u32 uverbs_uevent_reported(struct ib_uobject *uobj);

static inline struct uverbs_uqp *to_uverbs_uqp(struct ib_uqp_object *uqp)
{
	return container_of(uqp, struct uverbs_uqp, uqp);
}

/* uverbs_std_ah.c: user address vectors, RoCE type on RoCE ports. */
void ib_uverbs_ah_attr_from_user(struct ib_device *dev,
				 struct rdma_ah_attr *ah,
				 const struct ib_uverbs_ah_attr *uah);
void uverbs_qp_dest_to_ah_attr(struct ib_device *dev, struct rdma_ah_attr *ah,
			       const struct ib_uverbs_qp_dest *dest);
void uverbs_ah_attr_to_qp_dest(struct ib_uverbs_qp_dest *dest,
			       const struct rdma_ah_attr *ah);

/* The standard objects' definitions (chained into uverbs_core_api). */
extern const struct uapi_definition uverbs_def_device[];
extern const struct uapi_definition uverbs_def_query[];
extern const struct uapi_definition uverbs_def_pd[];
extern const struct uapi_definition uverbs_def_mr[];
extern const struct uapi_definition uverbs_def_ah[];
extern const struct uapi_definition uverbs_def_cq[];
extern const struct uapi_definition uverbs_def_qp[];
extern const struct uapi_definition uverbs_def_qp_attr[];
extern const struct uapi_definition uverbs_def_post[];
extern const struct uapi_definition uverbs_def_srq[];
extern const struct uapi_definition uverbs_def_events[];

/* uverbs_main.c */
void ib_uverbs_ufile_put(struct ib_uverbs_file *ufile);

#endif /* RDMA_KMOD_UVERBS_H */
