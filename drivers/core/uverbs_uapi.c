// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The parse tree of one uverbs device: the core's uapi definitions and the
 * driver's (ib_device.driver_def) read into one xarray keyed by the
 * uapi_key_*() numbering of uverbs_ioctl.h, objects, ioctl methods and
 * attributes alike, plus two tables of write() commands by number.
 *
 * A driver may add methods to core objects, attributes to core methods and
 * objects of its own. Support conditions (UAPI_DEF_*NEEDS_FN,
 * UAPI_DEF_IS_OBJ_SUPPORTED) are evaluated once, here, against the device:
 * an object the device lacks is kept but disabled, so its methods answer
 * EPROTONOSUPPORT and its write() commands EOPNOTSUPP. Optional
 * attributes naming a disabled object type are dropped; a method that
 * needs one is disabled.
 */
#include <linux/slab.h>

#include "uverbs.h"

struct uverbs_api {
	struct xarray		tree;	/* key -> object, method or attribute */
	enum rdma_driver_id	driver_id;
	/* write() commands by number: [0] legacy, [1] extended. */
	struct uapi_write	*writes[2][UVERBS_API_WRITE_KEY_NUM];
	/* The object each write() command belongs to. */
	const struct uverbs_api_object *write_obj[2][UVERBS_API_WRITE_KEY_NUM];
};

/* While reading a definition list: what the conditions apply to. */
struct uapi_reader {
	struct uverbs_api	*api;
	struct ib_device	*ibdev;
	struct uverbs_api_object *obj;		/* current object */
	struct uapi_write	*write;		/* last write() command */
	bool			driver;		/* reading driver_def */
};

/* The entry at key, made (zeroed, size bytes) if it is not there yet. */
static void *uapi_entry(struct uverbs_api *api, u32 key, size_t size,
			bool *made)
{
	void *e;
	int ret;

	if (key == UVERBS_API_KEY_ERR)
		return ERR_PTR(-EOVERFLOW);
	e = xa_load(&api->tree, key);
	if (made)
		*made = !e;
	if (e)
		return e;
	e = kzalloc(size, GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	ret = xa_insert(&api->tree, key, e, GFP_KERNEL);
	if (ret) {
		kfree(e);
		return ERR_PTR(ret);
	}
	return e;
}

static struct uverbs_api_object *uapi_object(struct uapi_reader *r, u16 id)
{
	struct uverbs_api_object *obj;
	bool made;

	obj = uapi_entry(r->api, uapi_key_obj(id), sizeof(*obj), &made);
	if (!IS_ERR(obj) && made)
		obj->id = id;
	return obj;
}

static int uapi_set_type(struct uverbs_api_object *obj,
			 const struct uverbs_obj_type *type)
{
	if (!type)
		return 0;
	if (obj->type_attrs && obj->type_attrs != type)
		return -EEXIST;	/* two definitions of one object's type */
	if (type->type_class != &uverbs_idr_class &&
	    type->type_class != &uverbs_fd_class)
		return -EINVAL;
	obj->type_attrs = type;
	obj->type_class = type->type_class;
	return 0;
}

static int uapi_add_attr(struct uapi_reader *r, u32 method_key,
			 const struct uverbs_attr_def *def)
{
	struct uverbs_api_attr *attr;
	bool made;

	attr = uapi_entry(r->api, method_key | uapi_key_attr(def->id),
			  sizeof(*attr), &made);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	/* The same attribute twice is fine, two different ones are not. */
	if (!made && memcmp(&attr->spec, &def->attr, sizeof(def->attr)))
		return -EEXIST;
	attr->spec = def->attr;
	return 0;
}

static int uapi_add_method(struct uapi_reader *r, u16 obj_id,
			   const struct uverbs_method_def *def)
{
	u32 key = uapi_key_obj(obj_id) | uapi_key_ioctl_method(def->id);
	struct uapi_method *method;
	size_t i;
	int ret;

	if (uapi_key_obj(obj_id) == UVERBS_API_KEY_ERR ||
	    uapi_key_ioctl_method(def->id) == UVERBS_API_KEY_ERR)
		return -EOVERFLOW;
	method = uapi_entry(r->api, key, sizeof(*method), NULL);
	if (IS_ERR(method))
		return PTR_ERR(method);
	/* A definition without a handler only adds attributes. */
	if (def->handler) {
		if (method->handler && !r->driver)
			return -EEXIST;
		method->handler = def->handler;
	}
	for (i = 0; i < def->num_attrs; i++) {
		const struct uverbs_attr_def *ad = (*def->attrs)[i];

		if (!ad)
			continue;
		ret = uapi_add_attr(r, key, ad);
		if (ret)
			return ret;
	}
	return 0;
}

static int uapi_add_object_tree(struct uapi_reader *r, u16 obj_id,
				const struct uverbs_object_def *def)
{
	struct uverbs_api_object *obj;
	size_t i;
	int ret;

	obj = uapi_object(r, obj_id);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	r->obj = obj;
	r->write = NULL;
	ret = uapi_set_type(obj, def->type_attrs);
	if (ret)
		return ret;
	for (i = 0; i < def->num_methods; i++) {
		const struct uverbs_method_def *md = (*def->methods)[i];

		if (!md)
			continue;
		ret = uapi_add_method(r, obj_id, md);
		if (ret)
			return ret;
	}
	return 0;
}

static int uapi_add_write(struct uapi_reader *r,
			  const struct uapi_definition *def)
{
	unsigned int ex = def->write.is_ex, num = def->write.command_num;
	struct uapi_write *w;

	if (!r->obj || num >= UVERBS_API_WRITE_KEY_NUM)
		return -EINVAL;
	if (r->api->writes[ex][num])
		return -EEXIST;
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->handler = def->func_write;
	w->req_size = def->write.req_size;
	w->resp_size = def->write.has_resp ? def->write.resp_size : 0;
	w->has_udata = def->write.has_udata;
	/* Only GET_CONTEXT comes before a context exists. */
	w->no_context = !ex && num == IB_USER_VERBS_CMD_GET_CONTEXT;
	r->api->writes[ex][num] = w;
	r->api->write_obj[ex][num] = r->obj;
	r->write = w;
	return 0;
}

/* A support condition that said no: disable what it applies to. */
static int uapi_unsupported(struct uapi_reader *r, u8 scope)
{
	if (scope == UAPI_SCOPE_OBJECT && r->obj) {
		r->obj->disabled = 1;
		return 0;
	}
	if (scope == UAPI_SCOPE_METHOD && r->write) {
		r->write->disabled = true;
		return 0;
	}
	return -EINVAL;
}

static int uapi_read_defs(struct uapi_reader *r,
			  const struct uapi_definition *def)
{
	const void *fn;
	int ret;

	for (;; def++) {
		switch ((enum uapi_definition_kind)def->kind) {
		case UAPI_DEF_END:
			return 0;
		case UAPI_DEF_CHAIN:
			ret = uapi_read_defs(r, def->chain);
			break;
		case UAPI_DEF_OBJECT_START:
			r->obj = uapi_object(r, def->object_start.object_id);
			r->write = NULL;
			ret = PTR_ERR_OR_ZERO(r->obj);
			if (ret)
				r->obj = NULL;
			break;
		case UAPI_DEF_CHAIN_OBJ_TREE:
			ret = uapi_add_object_tree(r, def->object_start.object_id,
						   def->chain_obj_tree);
			break;
		case UAPI_DEF_WRITE:
			ret = uapi_add_write(r, def);
			break;
		case UAPI_DEF_IS_SUPPORTED_FUNC:
			ret = def->func_is_supported(r->ibdev) ? 0 :
			      uapi_unsupported(r, def->scope);
			break;
		case UAPI_DEF_IS_SUPPORTED_DEV_FN:
			fn = *(const void * const *)((const u8 *)&r->ibdev->ops +
						     def->needs_fn_offset);
			ret = fn ? 0 : uapi_unsupported(r, def->scope);
			break;
		default:
			ret = -EINVAL;
		}
		if (ret)
			return ret;
	}
}

static const struct uverbs_api_object *uapi_key_to_object(struct uverbs_api *api,
							  u32 key)
{
	return xa_load(&api->tree, key & UVERBS_API_OBJ_KEY_MASK);
}

/* Is the object type an attribute refers to there (any type: yes)? */
static bool uapi_attr_type_ok(struct uverbs_api *api,
			      const struct uverbs_attr_spec *spec)
{
	const struct uverbs_api_object *obj;
	u16 type;

	switch (spec->type) {
	case UVERBS_ATTR_TYPE_IDR:
	case UVERBS_ATTR_TYPE_FD:
		type = spec->u.obj.obj_type;
		break;
	case UVERBS_ATTR_TYPE_IDRS_ARRAY:
		type = spec->u2.objs_arr.obj_type;
		break;
	default:
		return true;
	}
	if (type == UVERBS_IDR_ANY_OBJECT)
		return true;
	if (uapi_key_obj(type) == UVERBS_API_KEY_ERR)
		return false;
	obj = xa_load(&api->tree, uapi_key_obj(type));
	return obj && !obj->disabled && obj->type_attrs;
}

/*
 * Attributes on disabled types go (or disable their method); then every
 * method learns its bundle size, mandatory set and destroy attribute.
 */
static void uapi_finalize(struct uverbs_api *api)
{
	const struct uverbs_api_object *obj;
	struct uverbs_api_attr *attr;
	struct uapi_method *method;
	unsigned long key;
	unsigned int ex, num;

	xa_for_each(&api->tree, key, attr) {
		if (!uapi_key_is_attr(key) || uapi_attr_type_ok(api, &attr->spec))
			continue;
		method = xa_load(&api->tree, uapi_key_attr_to_ioctl_method(key));
		if (attr->spec.mandatory) {
			method->disabled = true;
			continue;
		}
		xa_erase(&api->tree, key);
		kfree(attr);
	}

	xa_for_each(&api->tree, key, method) {
		unsigned long akey;
		u32 slot;

		if (!uapi_key_is_ioctl_method(key))
			continue;
		obj = uapi_key_to_object(api, key);
		method->destroy_slot = -1;
		if (!method->handler || !obj || obj->disabled)
			method->disabled = true;
		akey = uapi_key_attrs_start(key);
		xa_for_each_range(&api->tree, akey, attr, akey,
				  key + UVERBS_API_ATTR_KEY_MASK) {
			slot = uapi_bkey_attr(akey & UVERBS_API_ATTR_KEY_MASK);
			method->num_slots = max_t(u16, method->num_slots,
						  slot + 1);
			if (attr->spec.mandatory)
				__set_bit(slot, method->mandatory);
			if ((attr->spec.type == UVERBS_ATTR_TYPE_IDR ||
			     attr->spec.type == UVERBS_ATTR_TYPE_FD) &&
			    attr->spec.u.obj.access == UVERBS_ACCESS_DESTROY)
				method->destroy_slot = slot;
		}
	}

	for (ex = 0; ex < 2; ex++) {
		for (num = 0; num < UVERBS_API_WRITE_KEY_NUM; num++) {
			obj = api->write_obj[ex][num];
			if (api->writes[ex][num] && obj && obj->disabled)
				api->writes[ex][num]->disabled = true;
		}
	}
}

void uverbs_free_api(struct uverbs_api *api)
{
	unsigned long key;
	unsigned int ex, num;
	void *e;

	if (!api)
		return;
	xa_for_each(&api->tree, key, e)
		kfree(e);
	xa_destroy(&api->tree);
	for (ex = 0; ex < 2; ex++)
		for (num = 0; num < UVERBS_API_WRITE_KEY_NUM; num++)
			kfree(api->writes[ex][num]);
	kfree(api);
}

struct uverbs_api *uverbs_build_api(struct ib_device *ibdev)
{
	struct uapi_reader r = { .ibdev = ibdev };
	struct uverbs_api *api;
	int ret;

	api = kzalloc(sizeof(*api), GFP_KERNEL);
	if (!api)
		return ERR_PTR(-ENOMEM);
	xa_init(&api->tree);
	api->driver_id = ibdev->ops.driver_id;
	r.api = api;

	ret = uapi_read_defs(&r, uverbs_core_api);
	if (!ret && ibdev->driver_def) {
		r.driver = true;
		r.obj = NULL;
		r.write = NULL;
		ret = uapi_read_defs(&r, ibdev->driver_def);
	}
	if (ret) {
		dev_err(&ibdev->dev, "uverbs: bad method definitions (%d)\n",
			ret);
		uverbs_free_api(api);
		return ERR_PTR(ret);
	}
	uapi_finalize(api);
	return api;
}

const struct uverbs_api_object *uapi_get_object(struct uverbs_api *api,
						u16 object_id)
{
	u32 key = uapi_key_obj(object_id);
	const struct uverbs_api_object *obj = NULL;

	if (key != UVERBS_API_KEY_ERR)
		obj = xa_load(&api->tree, key);
	/* An object the device lacks is as unknown as one never declared. */
	return obj && !obj->disabled ? obj : ERR_PTR(-ENOENT);
}

const struct uapi_method *uapi_get_method(struct uverbs_api *api,
					  u16 object_id, u16 method_id)
{
	u32 okey = uapi_key_obj(object_id);
	u32 mkey = uapi_key_ioctl_method(method_id);

	if (okey == UVERBS_API_KEY_ERR || mkey == UVERBS_API_KEY_ERR)
		return NULL;
	return xa_load(&api->tree, okey | mkey);
}

const struct uverbs_api_attr *uapi_get_attr(struct uverbs_api *api,
					    u16 object_id, u16 method_id,
					    u16 attr_id)
{
	u32 okey = uapi_key_obj(object_id);
	u32 mkey = uapi_key_ioctl_method(method_id);
	u32 akey = uapi_key_attr(attr_id);

	if (okey == UVERBS_API_KEY_ERR || mkey == UVERBS_API_KEY_ERR ||
	    akey == UVERBS_API_KEY_ERR)
		return NULL;
	return xa_load(&api->tree, okey | mkey | akey);
}

const struct uapi_write *uapi_get_write(struct uverbs_api *api, bool is_ex,
					u32 command)
{
	const struct uapi_write *w = NULL;

	if (command < UVERBS_API_WRITE_KEY_NUM)
		w = api->writes[is_ex][command];
	if (!w || w->disabled)
		return ERR_PTR(-EOPNOTSUPP);
	return w;
}

enum rdma_driver_id uapi_driver_id(struct uverbs_api *api)
{
	return api->driver_id;
}

const struct uapi_definition uverbs_core_api[] = {
	UAPI_DEF_CHAIN(uverbs_def_device),
	UAPI_DEF_CHAIN(uverbs_def_events),
	UAPI_DEF_CHAIN(uverbs_def_pd),
	UAPI_DEF_CHAIN(uverbs_def_mr),
	UAPI_DEF_CHAIN(uverbs_def_ah),
	UAPI_DEF_CHAIN(uverbs_def_cq),
	UAPI_DEF_CHAIN(uverbs_def_qp),
	UAPI_DEF_CHAIN(uverbs_def_qp_attr),
	UAPI_DEF_CHAIN(uverbs_def_post),
	UAPI_DEF_CHAIN(uverbs_def_srq),
	{},
};
