// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The event file objects: completion channels (CREATE_COMP_CHANNEL,
 * write() only in rdma-core 44) and async event files (ASYNC_EVENT/ALLOC,
 * what libibverbs makes after an ioctl GET_CONTEXT). Both are fd objects;
 * their queues are uverbs_event.c's.
 */
#define UVERBS_MODULE_NAME ib_uverbs
#include <rdma/uverbs_named_ioctl.h>

#include "uverbs.h"

/* A completion channel: an fd object whose file reads completion events. */
static int uverbs_create_comp_channel(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel cmd;
	struct ib_uobject *uobj;
	int ret = uverbs_request(attrs, &cmd, sizeof(cmd));

	uobj = ret ? ERR_PTR(ret) :
	       uverbs_alloc_uobj(attrs, UVERBS_OBJECT_COMP_CHANNEL);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ib_uverbs_init_event_queue(&container_of(uobj,
		struct ib_uverbs_completion_event_file, uobj)->ev_queue);
	/* The fd is installed once the answer is out. */
	uobj_finalize_uobj_create(uobj, attrs);
	resp.fd = uobj->id;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

static int UVERBS_HANDLER(UVERBS_METHOD_ASYNC_EVENT_ALLOC)(
	struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uverbs_attr_get_uobject(attrs,
				UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	struct ib_uverbs_async_event_file *ev_file =
		container_of(uobj, struct ib_uverbs_async_event_file, uobj);
	struct ib_uverbs_file *ufile = attrs->ufile;

	ib_uverbs_init_async_event_file(ev_file, ufile->ib_dev);
	uverbs_finalize_uobj_create(attrs,
				    UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE);
	/* The first one also gets the events of objects made without one. */
	mutex_lock(&ufile->ucontext_lock);
	if (!ufile->default_async_file) {
		uverbs_uobject_get(uobj);
		ufile->default_async_file = ev_file;
	}
	mutex_unlock(&ufile->ucontext_lock);
	return 0;
}

/* One attribute: the new file, whose fd comes back in it. */
DECLARE_UVERBS_NAMED_METHOD(UVERBS_METHOD_ASYNC_EVENT_ALLOC,
			    UVERBS_ATTR_FD(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE,
					   UVERBS_OBJECT_ASYNC_EVENT,
					   UVERBS_ACCESS_NEW, UA_MANDATORY));

/* Both files answer to the name the stock kernel gives them. */
#define UVERBS_EVENT_FILE_TYPE(_struct, _free, _fops)			\
	UVERBS_TYPE_ALLOC_FD(sizeof(struct _struct), _free, _fops,	\
			     "[infinibandevent]", O_RDONLY)

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_ASYNC_EVENT,
			    UVERBS_EVENT_FILE_TYPE(ib_uverbs_async_event_file,
						   ib_uverbs_free_async_event_file,
						   &uverbs_async_event_fops),
			    &UVERBS_METHOD(UVERBS_METHOD_ASYNC_EVENT_ALLOC));

DECLARE_UVERBS_NAMED_OBJECT(UVERBS_OBJECT_COMP_CHANNEL,
			    UVERBS_EVENT_FILE_TYPE(ib_uverbs_completion_event_file,
						   ib_uverbs_free_comp_event_file,
						   &uverbs_comp_event_fops));

const struct uapi_definition uverbs_def_events[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_ASYNC_EVENT),
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(UVERBS_OBJECT_COMP_CHANNEL),
	DECLARE_UVERBS_OBJECT(UVERBS_OBJECT_COMP_CHANNEL,
		DECLARE_UVERBS_WRITE(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
				     uverbs_create_comp_channel,
				     UAPI_WRITE_IO(create_comp_channel,
						   create_comp_channel_resp))),
	{},
};
