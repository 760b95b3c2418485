// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RDMA_VERBS_IOCTL (ABI.md 4.4): the header and the attribute array are
 * checked against the method's specification in the parse tree, turned
 * into a bundle (objects looked up or begun, pointers checked), the
 * method's handler runs, and then every attribute is settled: new objects
 * committed and their handles written back (or aborted on failure), looked
 * up objects released.
 *
 * The errnos are the stock kernel's (tools/tests/uverbs_ioctl_test.cpp):
 * a bad header or attribute EINVAL, reserved header fields, unknown
 * methods and unknown mandatory attributes EPROTONOSUPPORT.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

int uverbs_set_output_flag(struct uverbs_attr_bundle *attrs, unsigned int slot)
{
	struct uverbs_call *call = to_call(attrs);
	u16 idx;

	if (!call->uattrs)
		return 0;	/* write(): no attributes to mark */
	idx = call->uidx[slot];
	if (put_user(call->kattrs[idx].flags | UVERBS_ATTR_F_VALID_OUTPUT,
		     &call->uattrs[idx].flags))
		return -EFAULT;
	return 0;
}

/* Bytes [from, len) of a PTR_IN attribute must be zero (-EOPNOTSUPP). */
static int uverbs_check_trailing(const struct ib_uverbs_attr *uattr, u16 from,
				 bool is_inline)
{
	const u8 *p = (const u8 *)&uattr->data;
	int ret;
	u16 i;

	if (is_inline) {
		for (i = from; i < uattr->len; i++)
			if (p[i])
				return -EOPNOTSUPP;
		return 0;
	}
	ret = check_zeroed_user(u64_to_user_ptr(uattr->data) + from,
				uattr->len - from);
	if (ret < 0)
		return ret;
	return ret ? 0 : -EOPNOTSUPP;
}

static int uverbs_parse_ptr(struct uverbs_call *call,
			    const struct uverbs_attr_spec *spec,
			    const struct ib_uverbs_attr *uattr,
			    struct uverbs_ptr_attr *e)
{
	bool is_inline = uattr->len <= sizeof(uattr->data);
	int ret;

	if (uattr->len < spec->u.ptr.min_len)
		return -EINVAL;
	if (spec->type == UVERBS_ATTR_TYPE_PTR_IN &&
	    uattr->len > spec->u.ptr.len) {
		if (!spec->zero_trailing)
			return -EINVAL;
		ret = uverbs_check_trailing(uattr, spec->u.ptr.len, is_inline);
		if (ret)
			return ret;
	}
	e->data = uattr->data;
	e->len = uattr->len;
	e->uattr_idx = uattr - call->kattrs;

	if (spec->type == UVERBS_ATTR_TYPE_PTR_IN && spec->alloc_and_copy &&
	    !is_inline) {
		void *p = _uverbs_alloc(&call->bundle, uattr->len, GFP_KERNEL);

		if (IS_ERR(p))
			return PTR_ERR(p);
		if (copy_from_user(p, u64_to_user_ptr(uattr->data), uattr->len))
			return -EFAULT;
		e->ptr = p;
	}
	return 0;
}

static const struct uverbs_api_object *
uverbs_attr_object(struct uverbs_call *call, u16 type)
{
	if (type == UVERBS_IDR_ANY_OBJECT)
		return NULL;
	return uapi_get_object(call->ufile->device->uapi, type);
}

static struct ib_uobject *uverbs_parse_obj(struct uverbs_call *call,
					   const struct uverbs_attr_spec *spec,
					   const struct ib_uverbs_attr *uattr)
{
	const struct uverbs_api_object *obj;

	if (uattr->len)
		return ERR_PTR(-EINVAL);
	obj = uverbs_attr_object(call, spec->u.obj.obj_type);
	switch (spec->u.obj.access) {
	case UVERBS_ACCESS_NEW:
		return rdma_alloc_begin_uobject(obj, &call->bundle);
	case UVERBS_ACCESS_READ:
		return rdma_lookup_get_uobject(obj, call->ufile,
					       uattr->data_s64,
					       UVERBS_LOOKUP_READ,
					       &call->bundle);
	case UVERBS_ACCESS_WRITE:
		return rdma_lookup_get_uobject(obj, call->ufile,
					       uattr->data_s64,
					       UVERBS_LOOKUP_WRITE,
					       &call->bundle);
	case UVERBS_ACCESS_DESTROY:
		return rdma_lookup_get_uobject(obj, call->ufile,
					       uattr->data_s64,
					       UVERBS_LOOKUP_DESTROY,
					       &call->bundle);
	}
	return ERR_PTR(-EINVAL);
}

static enum rdma_lookup_mode uverbs_access_mode(u8 access)
{
	switch (access) {
	case UVERBS_ACCESS_WRITE:
		return UVERBS_LOOKUP_WRITE;
	case UVERBS_ACCESS_DESTROY:
		return UVERBS_LOOKUP_DESTROY;
	default:
		return UVERBS_LOOKUP_READ;
	}
}

static void uverbs_put_objs(struct ib_uobject **uobjs, u16 n, u8 access)
{
	while (n--)
		rdma_lookup_put_uobject(uobjs[n], uverbs_access_mode(access));
}

/* An array of u32 handles (inline when it fits in data, as libibverbs). */
static int uverbs_parse_objs_arr(struct uverbs_call *call,
				 const struct uverbs_attr_spec *spec,
				 const struct ib_uverbs_attr *uattr,
				 struct uverbs_objs_arr_attr *e)
{
	const struct uverbs_api_object *obj;
	u16 n = uattr->len / sizeof(u32), i;
	struct ib_uobject *uobj;
	u32 *ids;

	if (uattr->len % sizeof(u32) || n < spec->u2.objs_arr.min_len ||
	    n > spec->u2.objs_arr.max_len)
		return -EINVAL;
	e->uobjects = _uverbs_alloc(&call->bundle, n * sizeof(*e->uobjects),
				    GFP_KERNEL);
	ids = _uverbs_alloc(&call->bundle, uattr->len, GFP_KERNEL);
	if (IS_ERR(e->uobjects) || IS_ERR(ids))
		return -ENOMEM;
	if (uattr->len <= sizeof(uattr->data))
		memcpy(ids, &uattr->data, uattr->len);
	else if (copy_from_user(ids, u64_to_user_ptr(uattr->data), uattr->len))
		return -EFAULT;

	obj = uverbs_attr_object(call, spec->u2.objs_arr.obj_type);
	for (i = 0; i < n; i++) {
		uobj = rdma_lookup_get_uobject(obj, call->ufile, ids[i],
				uverbs_access_mode(spec->u2.objs_arr.access),
				&call->bundle);
		if (IS_ERR(uobj)) {
			uverbs_put_objs(e->uobjects, i,
					spec->u2.objs_arr.access);
			return PTR_ERR(uobj);
		}
		e->uobjects[i] = uobj;
	}
	e->len = n;
	return 0;
}

static int uverbs_parse_attr(struct uverbs_call *call, u16 obj_id,
			     u16 method_id, u16 idx)
{
	const struct ib_uverbs_attr *uattr = &call->kattrs[idx];
	struct uverbs_attr_bundle *bundle = &call->bundle;
	const struct uverbs_api_attr *attr;
	const struct uverbs_attr_spec *spec;
	struct ib_uobject *uobj;
	struct uverbs_attr *e;
	u32 slot;
	int ret;

	attr = uapi_get_attr(call->ufile->device->uapi, obj_id, method_id,
			     uattr->attr_id);
	if (!attr)
		return (uattr->flags & UVERBS_ATTR_F_MANDATORY) ?
			-EPROTONOSUPPORT : 0;
	slot = uapi_bkey_attr(uapi_key_attr(uattr->attr_id));
	if (test_bit(slot, bundle->attr_present))
		return -EINVAL;	/* twice */
	spec = &attr->spec;
	e = &bundle->attrs[slot];

	if (spec->type == UVERBS_ATTR_TYPE_ENUM_IN) {
		u8 elem = uattr->attr_data.enum_data.elem_id;

		if (uattr->attr_data.enum_data.reserved)
			return -EINVAL;
		if (elem >= spec->u.enum_def.num_elems)
			return -EOPNOTSUPP;
		e->ptr_attr.enum_id = elem;
		spec = &spec->u2.enum_def.ids[elem];
	} else if (uattr->attr_data.reserved) {
		return -EINVAL;
	}

	switch (spec->type) {
	case UVERBS_ATTR_TYPE_PTR_IN:
	case UVERBS_ATTR_TYPE_PTR_OUT:
		ret = uverbs_parse_ptr(call, spec, uattr, &e->ptr_attr);
		break;
	case UVERBS_ATTR_TYPE_RAW_FD:
		if (uattr->len)
			return -EINVAL;
		e->ptr_attr.data = uattr->data;
		e->ptr_attr.len = 0;
		e->ptr_attr.uattr_idx = idx;
		ret = 0;
		break;
	case UVERBS_ATTR_TYPE_IDR:
	case UVERBS_ATTR_TYPE_FD:
		uobj = uverbs_parse_obj(call, spec, uattr);
		ret = PTR_ERR_OR_ZERO(uobj);
		if (!ret) {
			e->obj_attr.uobject = uobj;
			e->obj_attr.attr_elm = attr;
		}
		break;
	case UVERBS_ATTR_TYPE_IDRS_ARRAY:
		ret = uverbs_parse_objs_arr(call, spec, uattr,
					    &e->objs_arr_attr);
		break;
	default:
		ret = 0;
		break;
	}
	if (ret)
		return ret;
	call->specs[slot] = attr;
	call->uidx[slot] = idx;
	__set_bit(slot, bundle->attr_present);
	return 0;
}

/* A new object's handle (or fd) goes back into the user's attribute. */
static int uverbs_return_handles(struct uverbs_call *call)
{
	struct uverbs_attr_bundle *bundle = &call->bundle;
	const struct uverbs_attr_spec *spec;
	unsigned int slot;
	s64 id;

	for_each_set_bit(slot, bundle->attr_present, UVERBS_API_ATTR_BKEY_LEN) {
		spec = &call->specs[slot]->spec;
		if ((spec->type != UVERBS_ATTR_TYPE_IDR &&
		     spec->type != UVERBS_ATTR_TYPE_FD) ||
		    spec->u.obj.access != UVERBS_ACCESS_NEW)
			continue;
		id = bundle->attrs[slot].obj_attr.uobject->id;
		if (put_user(id, &call->uattrs[call->uidx[slot]].data_s64))
			return -EFAULT;
	}
	return 0;
}

/* Every parsed attribute settled after the handler returned ret. */
static int uverbs_settle_attrs(struct uverbs_call *call, int ret)
{
	struct uverbs_attr_bundle *bundle = &call->bundle;
	const struct uverbs_attr_spec *spec;
	struct uverbs_attr *e;
	unsigned int slot;

	if (!ret)
		ret = uverbs_return_handles(call);

	for_each_set_bit(slot, bundle->attr_present, UVERBS_API_ATTR_BKEY_LEN) {
		spec = &call->specs[slot]->spec;
		e = &bundle->attrs[slot];
		switch (spec->type) {
		case UVERBS_ATTR_TYPE_IDR:
		case UVERBS_ATTR_TYPE_FD:
			if (spec->u.obj.access != UVERBS_ACCESS_NEW) {
				rdma_lookup_put_uobject(e->obj_attr.uobject,
					uverbs_access_mode(spec->u.obj.access));
			} else if (ret) {
				rdma_alloc_abort_uobject(e->obj_attr.uobject,
					bundle, test_bit(slot, call->created));
			} else {
				rdma_alloc_commit_uobject(e->obj_attr.uobject,
							  bundle);
			}
			break;
		case UVERBS_ATTR_TYPE_IDRS_ARRAY:
			uverbs_put_objs(e->objs_arr_attr.uobjects,
					e->objs_arr_attr.len,
					spec->u2.objs_arr.access);
			break;
		default:
			break;
		}
	}
	return ret;
}

/*
 * The driver's udata: UHW_IN / UHW_OUT. Up to 8 bytes of input come
 * inline in the user's attribute, which is where the driver reads them.
 */
static void uverbs_fill_udata(struct uverbs_call *call)
{
	struct uverbs_attr_bundle *bundle = &call->bundle;
	const struct uverbs_attr *a;

	a = uverbs_attr_get(bundle, UVERBS_ATTR_UHW_IN);
	if (!IS_ERR(a)) {
		bundle->driver_udata.inbuf = uverbs_attr_ptr_is_inline(a) ?
			(void __user *)&call->uattrs[a->ptr_attr.uattr_idx].data :
			u64_to_user_ptr(a->ptr_attr.data);
		bundle->driver_udata.inlen = a->ptr_attr.len;
	}
	a = uverbs_attr_get(bundle, UVERBS_ATTR_UHW_OUT);
	if (!IS_ERR(a)) {
		bundle->driver_udata.outbuf = u64_to_user_ptr(a->ptr_attr.data);
		bundle->driver_udata.outlen = a->ptr_attr.len;
	}
}

static int uverbs_run_method(struct uverbs_call *call,
			     const struct ib_uverbs_ioctl_hdr *hdr)
{
	const struct uapi_method *method = call->method;
	struct uverbs_attr_bundle *bundle = &call->bundle;
	u16 i;
	int ret = 0;

	for (i = 0; i < hdr->num_attrs && !ret; i++)
		ret = uverbs_parse_attr(call, hdr->object_id, hdr->method_id, i);
	if (!ret && !bitmap_subset(method->mandatory, bundle->attr_present,
				   UVERBS_API_ATTR_BKEY_LEN))
		ret = -EINVAL;
	/* A destroy happens before the handler, which reports on it. */
	if (!ret && method->destroy_slot >= 0 &&
	    test_bit(method->destroy_slot, bundle->attr_present))
		ret = uverbs_destroy_uobject_locked(
			bundle->attrs[method->destroy_slot].obj_attr.uobject,
			RDMA_REMOVE_DESTROY, bundle);
	if (!ret) {
		uverbs_fill_udata(call);
		ret = method->handler(bundle);
		/* The driver may have written its part. */
		if (!ret && uverbs_attr_is_valid(bundle, UVERBS_ATTR_UHW_OUT))
			ret = uverbs_set_output_flag(bundle,
				uapi_bkey_attr(uapi_key_attr(UVERBS_ATTR_UHW_OUT)));
	}
	return uverbs_settle_attrs(call, ret);
}

static int uverbs_dispatch(struct ib_uverbs_file *ufile,
			   const struct ib_uverbs_ioctl_hdr *hdr,
			   struct ib_uverbs_attr __user *uattrs)
{
	struct uverbs_api *api = ufile->device->uapi;
	const struct uapi_method *method;
	struct uverbs_call *call;
	size_t len;
	int ret;

	if (hdr->driver_id != uapi_driver_id(api))
		return -EINVAL;
	method = uapi_get_method(api, hdr->object_id, hdr->method_id);
	if (!method || method->disabled)
		return -EPROTONOSUPPORT;

	call = uverbs_call_alloc(ufile, method->num_slots);
	if (!call)
		return -ENOMEM;
	call->method = method;
	call->uattrs = uattrs;
	call->bundle.context = smp_load_acquire(&ufile->ucontext);
	len = array_size(hdr->num_attrs, sizeof(*uattrs));
	call->kattrs = _uverbs_alloc(&call->bundle, len, GFP_KERNEL);
	if (IS_ERR(call->kattrs)) {
		ret = PTR_ERR(call->kattrs);
	} else if (copy_from_user(call->kattrs, uattrs, len)) {
		ret = -EFAULT;
	} else {
		ret = uverbs_run_method(call, hdr);
	}
	uverbs_call_free(call);
	return ret;
}

long ib_uverbs_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct ib_uverbs_file *ufile = filp->private_data;
	struct ib_uverbs_ioctl_hdr __user *uhdr = (void __user *)arg;
	struct ib_uverbs_ioctl_hdr hdr;
	long ret;

	if (cmd != RDMA_VERBS_IOCTL)
		return -ENOIOCTLCMD;
	if (copy_from_user(&hdr, uhdr, sizeof(hdr)))
		return -EFAULT;
	if (hdr.length > PAGE_SIZE ||
	    hdr.length != struct_size(&hdr, attrs, hdr.num_attrs))
		return -EINVAL;
	if (hdr.reserved1 || hdr.reserved2)
		return -EPROTONOSUPPORT;

	down_read(&ufile->hw_destroy_rwsem);
	/* The device is going or the file is torn down: only close is left. */
	if (ufile->torn_down || READ_ONCE(ufile->device->going_away))
		ret = -EIO;
	else
		ret = uverbs_dispatch(ufile, &hdr, uhdr->attrs);
	up_read(&ufile->hw_destroy_rwsem);
	return ret;
}
