// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The write() command protocol of /dev/infiniband/uverbsN (ABI.md 4.2,
 * 4.3) and DEVICE/INVOKE_WRITE, which carries the same commands through
 * RDMA_VERBS_IOCTL (ABI.md 4.5). Both end in the command's one handler
 * (declared with DECLARE_UVERBS_WRITE[_EX] in uverbs_std_*.c), which sees
 * its core request and response through the helpers below and its
 * driver's data in attrs->driver_udata.
 */
#include <linux/overflow.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/* ------------------------------------------------------ request/response */

int uverbs_request(struct uverbs_attr_bundle *attrs, void *req,
		   size_t req_len)
{
	const void *kin = to_call(attrs)->core_in;
	size_t n = min(req_len, attrs->ucore.inlen);

	if (kin)
		memcpy(req, kin, n);
	else if (copy_from_user(req, attrs->ucore.inbuf, n))
		return -EFAULT;
	if (n < req_len)
		memset(req + n, 0, req_len - n);
	return 0;
}

int uverbs_copy_in(struct uverbs_attr_bundle *attrs, size_t offset,
		   void *dst, size_t len)
{
	const void *kin = to_call(attrs)->core_in;
	size_t end;

	if (check_add_overflow(offset, len, &end) ||
	    end > attrs->ucore.inlen)
		return -EINVAL;
	if (kin)
		memcpy(dst, kin + offset, len);
	else if (copy_from_user(dst, attrs->ucore.inbuf + offset, len))
		return -EFAULT;
	return 0;
}

/* INVOKE_WRITE: CORE_OUT now holds an answer. */
static int uverbs_mark_core_out(struct uverbs_attr_bundle *attrs)
{
	int slot = to_call(attrs)->core_out_slot;

	return slot < 0 ? 0 : uverbs_set_output_flag(attrs, slot);
}

int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t resp_len)
{
	size_t n = min(resp_len, attrs->ucore.outlen);

	if (!attrs->ucore.outbuf)
		return -EFAULT;
	if (copy_to_user(attrs->ucore.outbuf, resp, n))
		return -EFAULT;
	/* Ex buffers may be larger than what this kernel knows: zero them. */
	if (n < attrs->ucore.outlen &&
	    clear_user(attrs->ucore.outbuf + n, attrs->ucore.outlen - n))
		return -EFAULT;
	return uverbs_mark_core_out(attrs);
}

int uverbs_copy_out(struct uverbs_attr_bundle *attrs, size_t offset,
		    const void *src, size_t len)
{
	size_t end;

	if (check_add_overflow(offset, len, &end) ||
	    end > attrs->ucore.outlen)
		return -ENOSPC;
	if (!attrs->ucore.outbuf)
		return -EFAULT;
	if (copy_to_user(attrs->ucore.outbuf + offset, src, len))
		return -EFAULT;
	return uverbs_mark_core_out(attrs);
}

/* ------------------------------------------------------ write() framing */

/* Fills attrs from a legacy header (ABI 4.2). count includes the header. */
static int uverbs_frame_legacy(const struct uapi_write *w,
			       const struct ib_uverbs_cmd_hdr *hdr,
			       const char __user *buf, size_t count,
			       struct uverbs_attr_bundle *attrs)
{
	const char __user *payload = buf + sizeof(*hdr);
	size_t in_len, out_len = (size_t)hdr->out_words * 4;
	u64 response = 0;

	if ((size_t)hdr->in_words * 4 != count)
		return -EINVAL;
	in_len = count - sizeof(*hdr);
	if (in_len < w->req_size) {
		/*
		 * rdma-core v18/v19 wrote DESTROY_CQ as 16 bytes while its
		 * buffer held the whole request; older kernels took it.
		 */
		if (hdr->command != IB_USER_VERBS_CMD_DESTROY_CQ ||
		    count != 16)
			return -ENOSPC;
		in_len = w->req_size;
	}
	if (out_len < w->resp_size)
		return -ENOSPC;

	/* Every command with a response starts with its address. */
	if (w->resp_size) {
		if (copy_from_user(&response, payload, sizeof(response)))
			return -EFAULT;
	} else {
		out_len = 0;
	}

	attrs->ucore.inbuf = payload;
	attrs->ucore.outbuf = u64_to_user_ptr(response);
	if (w->has_udata) {
		attrs->ucore.inlen = w->req_size;
		attrs->ucore.outlen = w->resp_size;
		attrs->driver_udata.inbuf = payload + w->req_size;
		attrs->driver_udata.inlen = in_len - w->req_size;
		attrs->driver_udata.outbuf = response ?
			u64_to_user_ptr(response + w->resp_size) : NULL;
		attrs->driver_udata.outlen = response ?
			out_len - w->resp_size : 0;
	} else {
		attrs->ucore.inlen = in_len;
		attrs->ucore.outlen = out_len;
	}
	return 0;
}

static int uverbs_frame_ex(const struct uapi_write *w,
			   const struct ib_uverbs_cmd_hdr *hdr,
			   const char __user *buf, size_t count,
			   struct uverbs_attr_bundle *attrs)
{
	const char __user *payload;
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t in_len, out_len, drv_in, drv_out;
	void __user *response;

	if (count < sizeof(*hdr) + sizeof(ex))
		return -EINVAL;
	if (copy_from_user(&ex, buf + sizeof(*hdr), sizeof(ex)))
		return -EFAULT;
	payload = buf + sizeof(*hdr) + sizeof(ex);

	in_len = (size_t)hdr->in_words * 8;
	out_len = (size_t)hdr->out_words * 8;
	drv_in = (size_t)ex.provider_in_words * 8;
	drv_out = (size_t)ex.provider_out_words * 8;

	if (count != sizeof(*hdr) + sizeof(ex) + in_len + drv_in)
		return -EINVAL;
	if (ex.cmd_hdr_reserved)
		return -EINVAL;
	if (in_len < w->req_size || out_len < w->resp_size)
		return -ENOSPC;
	if (!ex.response && (out_len || drv_out))
		return -EINVAL;
	response = u64_to_user_ptr(ex.response);
	if (ex.response && !access_ok(response, out_len + drv_out))
		return -EFAULT;

	attrs->ucore.inbuf = payload;
	attrs->ucore.inlen = in_len;
	attrs->ucore.outbuf = ex.response ? response : NULL;
	attrs->ucore.outlen = out_len;
	attrs->driver_udata.inbuf = payload + in_len;
	attrs->driver_udata.inlen = drv_in;
	attrs->driver_udata.outbuf = ex.response ? response + out_len : NULL;
	attrs->driver_udata.outlen = drv_out;
	return 0;
}

/* The command named by a header word: -EINVAL for stray bits. */
static const struct uapi_write *uverbs_write_cmd(struct ib_uverbs_file *ufile,
						 u64 command, bool *is_ex)
{
	if (command & ~(u64)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_CMD_COMMAND_MASK))
		return ERR_PTR(-EINVAL);
	*is_ex = command & IB_USER_VERBS_CMD_FLAG_EXTENDED;
	return uapi_get_write(ufile->device->uapi, *is_ex,
			      command & IB_USER_VERBS_CMD_COMMAND_MASK);
}

/* Runs a framed command; the file's commands lock is held. */
static int uverbs_run_write_cmd(const struct uapi_write *w,
				struct uverbs_attr_bundle *attrs)
{
	if (!attrs->context && !w->no_context)
		return -EINVAL;
	return uverbs_finish_write_uobj(attrs, w->handler(attrs));
}

ssize_t ib_uverbs_run_write(struct ib_uverbs_file *ufile,
			    const char __user *buf, size_t count)
{
	const struct uapi_write *w;
	struct ib_uverbs_cmd_hdr hdr;
	struct uverbs_call *call;
	bool ex;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	w = uverbs_write_cmd(ufile, hdr.command, &ex);
	if (IS_ERR(w))
		return PTR_ERR(w);

	call = uverbs_call_alloc(ufile, 0);
	if (!call)
		return -ENOMEM;
	if (ex)
		ret = uverbs_frame_ex(w, &hdr, buf, count, &call->bundle);
	else
		ret = uverbs_frame_legacy(w, &hdr, buf, count, &call->bundle);
	if (ret)
		goto out;

	down_read(&ufile->hw_destroy_rwsem);
	/* The device is being removed: only close is left to do. */
	if (READ_ONCE(ufile->device->going_away) || ufile->torn_down) {
		ret = -EIO;
	} else {
		call->bundle.context = smp_load_acquire(&ufile->ucontext);
		ret = uverbs_run_write_cmd(w, &call->bundle);
	}
	up_read(&ufile->hw_destroy_rwsem);
out:
	uverbs_call_free(call);
	return ret ? ret : count;
}

/* ------------------------------------------------------ INVOKE_WRITE */

/*
 * A write() command inside RDMA_VERBS_IOCTL: WRITE_CMD is the header's
 * command word, CORE_IN the request after the header (its response field
 * is ignored), CORE_OUT the response, UHW_IN/OUT the driver's data. Short
 * buffers are ENOSPC (before the context check: libibverbs' probe relies
 * on it), unknown commands EOPNOTSUPP.
 */
int uverbs_invoke_write(struct uverbs_attr_bundle *attrs)
{
	struct uverbs_call *call = to_call(attrs);
	const struct uapi_write *w;
	u64 command;
	int in_len, out_len;
	bool ex;
	int ret;

	ret = uverbs_get_const(&command, attrs, UVERBS_ATTR_WRITE_CMD);
	if (ret)
		return ret;
	w = uverbs_write_cmd(call->ufile, command, &ex);
	if (IS_ERR(w))
		return PTR_ERR(w);

	in_len = uverbs_attr_get_len(attrs, UVERBS_ATTR_CORE_IN);
	out_len = uverbs_attr_get_len(attrs, UVERBS_ATTR_CORE_OUT);
	if (in_len < 0)
		in_len = 0;
	if (out_len < 0)
		out_len = 0;
	if (in_len < w->req_size || out_len < w->resp_size)
		return -ENOSPC;

	if (in_len) {
		call->core_in = uverbs_attr_get_alloced_ptr(attrs,
							    UVERBS_ATTR_CORE_IN);
		attrs->ucore.inlen = in_len;
	}
	if (out_len) {
		attrs->ucore.outbuf = u64_to_user_ptr(
			uverbs_attr_get(attrs, UVERBS_ATTR_CORE_OUT)->ptr_attr.data);
		attrs->ucore.outlen = out_len;
		call->core_out_slot = uapi_bkey_attr(
			uapi_key_attr(UVERBS_ATTR_CORE_OUT));
	}
	return uverbs_run_write_cmd(w, attrs);
}
