// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: write() sends one MAD (IB-FABRIC.md §5 "Write", "Responses"),
 * or, for an agent whose RMPP the kernel does, a whole RMPP message that
 * the MAD layer segments (the MAD's headers once, then all the data).
 * The address comes from the user header; requests get the agent's hi_tid
 * in the TID's upper half so their answers find the agent again; a
 * request still outstanding with the same TID and class is refused.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "umad.h"

static struct ib_ah *umad_make_ah(struct ib_mad_agent *agent,
				  const struct ib_user_mad_hdr *hdr)
{
	struct rdma_ah_attr attr = {};
	union ib_gid dgid;

	attr.type = rdma_ah_find_type(agent->device, agent->port_num);
	rdma_ah_set_dlid(&attr, be16_to_cpu(hdr->lid));
	rdma_ah_set_sl(&attr, hdr->sl);
	rdma_ah_set_path_bits(&attr, hdr->path_bits);
	rdma_ah_set_port_num(&attr, agent->port_num);
	if (hdr->grh_present) {
		memcpy(dgid.raw, hdr->gid, sizeof(dgid.raw));
		rdma_ah_set_grh(&attr, &dgid, be32_to_cpu(hdr->flow_label),
				hdr->gid_index, hdr->hop_limit,
				hdr->traffic_class);
	}
	return rdma_create_ah(agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

/*
 * Two requests in flight with one TID and class could not be told apart
 * by their answers. (Answers may repeat a TID: user RMPP segments do.)
 * File lock held.
 */
static bool umad_request_clashes(struct umad_file *file,
				 const struct ib_mad_hdr *mad)
{
	const struct umad_packet *other;

	if (ib_response_mad(mad))
		return false;
	list_for_each_entry(other, &file->send_list, list) {
		const struct ib_mad_hdr *omad = other->send_buf->mad;

		if (omad->tid == mad->tid &&
		    omad->mgmt_class == mad->mgmt_class &&
		    !ib_response_mad(omad))
			return true;
	}
	return false;
}

/*
 * The user's RMPP message into the send's header and segments: the RMPP
 * header is the MAD layer's, the rest of the headers and then the data
 * come from the user, seg_size bytes per segment.
 */
static int umad_copy_rmpp(struct ib_mad_send_buf *send_buf,
			  const char __user *umad)
{
	const char __user *data = umad + send_buf->hdr_len;
	size_t left = send_buf->data_len, chunk;
	int seg;

	if (copy_from_user(send_buf->mad, umad, IB_MGMT_MAD_HDR) ||
	    copy_from_user(send_buf->mad + IB_MGMT_RMPP_HDR,
			   umad + IB_MGMT_RMPP_HDR,
			   send_buf->hdr_len - IB_MGMT_RMPP_HDR))
		return -EFAULT;
	for (seg = 1; left; seg++) {
		chunk = min_t(size_t, left, send_buf->seg_size);
		if (copy_from_user(ib_get_rmpp_segment(send_buf, seg), data,
				   chunk))
			return -EFAULT;
		data += chunk;
		left -= chunk;
	}
	return 0;
}

/* Builds and posts the send. Port rwsem (read) and file mutex held. */
static int umad_post(struct umad_file *file, struct umad_packet *packet,
		     const char __user *umad, size_t mad_len)
{
	struct ib_user_mad_hdr *hdr = &packet->hdr;
	struct ib_mad_send_buf *send_buf;
	struct ib_mad_agent *agent;
	struct {
		struct ib_mad_hdr	mad_hdr;
		struct ib_rmpp_hdr	rmpp_hdr;
	} head;
	bool clash, kernel_rmpp;
	int hdr_len, data_len;
	int rmpp_active = 0;
	struct ib_ah *ah;
	int ret;

	agent = file->slots[hdr->id].agent;
	if (!agent)
		return -EIO;
	if (copy_from_user(&head, umad, sizeof(head)))
		return -EFAULT;

	/*
	 * A kernel-RMPP agent writes a whole message with the Active flag
	 * (segmented by the MAD layer), or one MAD without it; anyone else
	 * writes one MAD (a user-RMPP agent each segment), padded to 256
	 * bytes with zeros.
	 */
	hdr_len = ib_get_mad_data_offset(head.mad_hdr.mgmt_class);
	kernel_rmpp = ib_mad_kernel_rmpp_agent(agent) &&
		      ib_is_mad_class_rmpp(head.mad_hdr.mgmt_class);
	if (kernel_rmpp &&
	    (ib_get_rmpp_flags(&head.rmpp_hdr) & IB_MGMT_RMPP_FLAG_ACTIVE))
		rmpp_active = 1;
	if (rmpp_active) {
		/* data_len is an int: a longer write would be cut silently */
		if (mad_len < (size_t)hdr_len ||
		    mad_len - hdr_len > (size_t)INT_MAX)
			return -EINVAL;
		data_len = mad_len - hdr_len;
	} else {
		if (mad_len > IB_MGMT_MAD_SIZE)
			return -EINVAL;
		data_len = max_t(int, (int)mad_len - hdr_len, 0);
	}

	ah = umad_make_ah(agent, hdr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	send_buf = ib_create_send_mad(agent, be32_to_cpu(hdr->qpn),
				      file->pkey_header ? hdr->pkey_index : 0,
				      rmpp_active, hdr_len, data_len,
				      GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(send_buf)) {
		ret = PTR_ERR(send_buf);
		goto err_ah;
	}
	ret = -EFAULT;
	if (rmpp_active) {
		ret = umad_copy_rmpp(send_buf, umad);
		if (ret)
			goto err_buf;
	} else if (kernel_rmpp) {
		/* The RMPP header of such an agent's MADs stays the kernel's. */
		if (copy_from_user(send_buf->mad, umad, IB_MGMT_MAD_HDR) ||
		    copy_from_user(send_buf->mad + IB_MGMT_RMPP_HDR,
				   umad + IB_MGMT_RMPP_HDR,
				   mad_len - IB_MGMT_RMPP_HDR))
			goto err_buf;
	} else if (copy_from_user(send_buf->mad, umad, mad_len)) {
		goto err_buf;
	}
	if (!ib_response_mad(send_buf->mad)) {
		struct ib_mad_hdr *mad = send_buf->mad;

		mad->tid = cpu_to_be64((u64)agent->hi_tid << 32 |
				       (be64_to_cpu(mad->tid) & 0xffffffff));
	}
	send_buf->ah = ah;
	send_buf->timeout_ms = hdr->timeout_ms;
	send_buf->retries = hdr->retries;
	send_buf->context[0] = packet;
	packet->send_buf = send_buf;

	spin_lock_irq(&file->lock);
	clash = umad_request_clashes(file, send_buf->mad);
	if (!clash)
		list_add_tail(&packet->list, &file->send_list);
	spin_unlock_irq(&file->lock);
	if (clash) {
		ret = -EINVAL;
		goto err_buf;
	}

	ret = ib_post_send_mad(send_buf, NULL);
	if (!ret)
		return 0;
	spin_lock_irq(&file->lock);
	list_del(&packet->list);
	spin_unlock_irq(&file->lock);
err_buf:
	packet->send_buf = NULL;
	ib_free_send_mad(send_buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	return ret;
}

ssize_t umad_write(struct file *filp, const char __user *buf, size_t count,
		   loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_port *port = file->port;
	struct umad_packet *packet;
	size_t hsize;
	int ret;

	mutex_lock(&file->mutex);
	hsize = umad_hdr_size(file);
	mutex_unlock(&file->mutex);
	/* At least the common and RMPP headers. */
	if (count < hsize + IB_MGMT_RMPP_HDR)
		return -EINVAL;

	packet = kzalloc(sizeof(*packet), GFP_KERNEL);
	if (!packet)
		return -ENOMEM;
	packet->file = file;
	if (copy_from_user(&packet->hdr, buf, hsize)) {
		ret = -EFAULT;
		goto err;
	}
	if (packet->hdr.id >= UMAD_AGENTS_PER_FILE) {
		ret = -EINVAL;
		goto err;
	}

	down_read(&port->rwsem);
	mutex_lock(&file->mutex);
	ret = umad_post(file, packet, buf + hsize, count - hsize);
	mutex_unlock(&file->mutex);
	up_read(&port->rwsem);
	if (ret)
		goto err;
	return count;

err:
	kfree(packet);
	return ret;
}

/*
 * A send is finished: sent (and answered, if an answer was awaited),
 * timed out, or flushed by its agent's unregistration.
 */
void umad_send_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_wc *send_wc)
{
	struct ib_mad_send_buf *send_buf = send_wc->send_buf;
	struct umad_packet *packet = send_buf->context[0];
	struct umad_file *file = packet->file;
	unsigned long flags;

	spin_lock_irqsave(&file->lock, flags);
	list_del(&packet->list);
	spin_unlock_irqrestore(&file->lock, flags);

	if (send_wc->status == IB_WC_RESP_TIMEOUT_ERR)
		umad_send_timed_out(packet);
	else
		kfree(packet);
	rdma_destroy_ah(send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(send_buf);
}
