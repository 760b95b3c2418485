// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The attribute bundle of one command: its allocation and memory for the
 * handler (uverbs_alloc), and the accessors drivers' method handlers call
 * (uverbs_copy_to, uverbs_get_flags*, uverbs_get_const*, ...). The inline
 * ones are in <rdma/uverbs_ioctl.h>.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/* An allocation of uverbs_alloc() too big for the arena. */
struct uverbs_big_alloc {
	struct list_head	list;
	u8			data[] __aligned(8);
};

struct uverbs_call *uverbs_call_alloc(struct ib_uverbs_file *ufile,
				      unsigned int num_slots)
{
	struct uverbs_call *call;

	call = kzalloc(struct_size(call, bundle.attrs, num_slots), GFP_KERNEL);
	if (!call)
		return NULL;
	INIT_LIST_HEAD(&call->allocs);
	call->ufile = ufile;
	call->core_out_slot = -1;
	call->bundle.ufile = ufile;
	return call;
}

void uverbs_call_free(struct uverbs_call *call)
{
	struct uverbs_big_alloc *a, *tmp;

	list_for_each_entry_safe(a, tmp, &call->allocs, list)
		kvfree(a);
	kfree(call);
}

__malloc void *_uverbs_alloc(struct uverbs_attr_bundle *bundle, size_t size,
			     gfp_t flags)
{
	struct uverbs_call *call = to_call(bundle);
	struct uverbs_big_alloc *a;
	size_t need = ALIGN(size, 8), total;
	void *p;

	if (need <= sizeof(call->arena) - call->arena_used) {
		p = call->arena + call->arena_used;
		call->arena_used += need;
		if (flags & __GFP_ZERO)
			memset(p, 0, size);
		return p;
	}
	if (check_add_overflow(sizeof(*a), size, &total))
		return ERR_PTR(-EOVERFLOW);
	a = kvmalloc(total, flags);
	if (!a)
		return ERR_PTR(-ENOMEM);
	list_add(&a->list, &call->allocs);
	return a->data;
}
EXPORT_SYMBOL(_uverbs_alloc);

/*
 * Copies min(size, the attribute's length) bytes to a PTR_OUT attribute
 * and marks it written for userspace; -ENOENT if it was not passed.
 */
int uverbs_copy_to(const struct uverbs_attr_bundle *bundle, size_t idx,
		   const void *from, size_t size)
{
	const struct uverbs_attr *attr = uverbs_attr_get(bundle, idx);
	size_t n;

	if (IS_ERR(attr))
		return PTR_ERR(attr);
	n = min_t(size_t, attr->ptr_attr.len, size);
	if (copy_to_user(u64_to_user_ptr(attr->ptr_attr.data), from, n))
		return -EFAULT;
	return uverbs_set_output_flag((struct uverbs_attr_bundle *)bundle,
				      uapi_bkey_attr(uapi_key_attr(idx)));
}
EXPORT_SYMBOL(uverbs_copy_to);

/* As uverbs_copy_to(), zeroing what the user's buffer has beyond size. */
int uverbs_copy_to_struct_or_zero(const struct uverbs_attr_bundle *bundle,
				  size_t idx, const void *from, size_t size)
{
	const struct uverbs_attr *attr = uverbs_attr_get(bundle, idx);

	if (IS_ERR(attr))
		return PTR_ERR(attr);
	if (attr->ptr_attr.len > size &&
	    clear_user(u64_to_user_ptr(attr->ptr_attr.data) + size,
		       attr->ptr_attr.len - size))
		return -EFAULT;
	return uverbs_copy_to(bundle, idx, from, size);
}
EXPORT_SYMBOL(uverbs_copy_to_struct_or_zero);

/* A FLAGS_IN attribute (u32 or u64); absent reads as 0. */
int uverbs_get_flags64(u64 *to, const struct uverbs_attr_bundle *attrs_bundle,
		       size_t idx, u64 allowed_bits)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);
	u64 v;

	if (IS_ERR(attr)) {
		*to = 0;
		return PTR_ERR(attr) == -ENOENT ? 0 : PTR_ERR(attr);
	}
	switch (attr->ptr_attr.len) {
	case sizeof(u32):
		v = *(const u32 *)&attr->ptr_attr.data;
		break;
	case sizeof(u64):
		v = attr->ptr_attr.data;
		break;
	default:
		return -EINVAL;
	}
	if (v & ~allowed_bits)
		return -EINVAL;
	*to = v;
	return 0;
}
EXPORT_SYMBOL(uverbs_get_flags64);

int uverbs_get_flags32(u32 *to, const struct uverbs_attr_bundle *attrs_bundle,
		       size_t idx, u64 allowed_bits)
{
	u64 v;
	int ret;

	ret = uverbs_get_flags64(&v, attrs_bundle, idx, allowed_bits);
	if (ret)
		return ret;
	if (v > U32_MAX)
		return -EINVAL;
	*to = v;
	return 0;
}
EXPORT_SYMBOL(uverbs_get_flags32);

/*
 * A CONST_IN value (or RAW_FD number) within [lower_bound, upper_bound];
 * *def_val when absent, if given.
 */
int _uverbs_get_const_signed(s64 *to,
			     const struct uverbs_attr_bundle *attrs_bundle,
			     size_t idx, s64 lower_bound, u64 upper_bound,
			     s64 *def_val)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);
	s64 v;

	if (IS_ERR(attr)) {
		if (!def_val)
			return PTR_ERR(attr);
		*to = *def_val;
		return 0;
	}
	v = (s64)attr->ptr_attr.data;
	if (v < lower_bound || (v > 0 && (u64)v > upper_bound))
		return -EINVAL;
	*to = v;
	return 0;
}
EXPORT_SYMBOL(_uverbs_get_const_signed);

int _uverbs_get_const_unsigned(u64 *to,
			       const struct uverbs_attr_bundle *attrs_bundle,
			       size_t idx, u64 upper_bound, u64 *def_val)
{
	const struct uverbs_attr *attr = uverbs_attr_get(attrs_bundle, idx);

	if (IS_ERR(attr)) {
		if (!def_val)
			return PTR_ERR(attr);
		*to = *def_val;
		return 0;
	}
	if (attr->ptr_attr.data > upper_bound)
		return -EINVAL;
	*to = attr->ptr_attr.data;
	return 0;
}
EXPORT_SYMBOL(_uverbs_get_const_unsigned);

void uverbs_finalize_uobj_create(const struct uverbs_attr_bundle *bundle,
				 u16 idx)
{
	struct uverbs_call *call = to_call(bundle);

	__set_bit(uapi_bkey_attr(uapi_key_attr(idx)), call->created);
}
EXPORT_SYMBOL(uverbs_finalize_uobj_create);

int uverbs_finish_write_uobj(struct uverbs_attr_bundle *attrs, int ret)
{
	struct ib_uobject *uobj = attrs->uobject;

	if (!uobj)
		return ret;
	attrs->uobject = NULL;
	if (ret)
		rdma_alloc_abort_uobject(uobj, attrs, true);
	else
		rdma_alloc_commit_uobject(uobj, attrs);
	return ret;
}
