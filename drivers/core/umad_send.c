// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: write() sends one MAD (IB-FABRIC.md §5 "Write", "Responses").
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

/* Builds and posts the send. Port rwsem (read) and file mutex held. */
static int umad_post(struct umad_file *file, struct umad_packet *packet,
		     const char __user *umad, size_t mad_len)
{
	struct ib_user_mad_hdr *hdr = &packet->hdr;
	struct ib_mad_send_buf *send_buf;
	struct ib_mad_agent *agent;
	struct ib_mad_hdr common;
	struct ib_ah *ah;
	int hdr_len, ret;
	bool clash;

	agent = file->slots[hdr->id].agent;
	if (!agent)
		return -EIO;
	if (copy_from_user(&common, umad, sizeof(common)))
		return -EFAULT;

	ah = umad_make_ah(agent, hdr);
	if (IS_ERR(ah))
		return PTR_ERR(ah);

	/*
	 * No kernel RMPP in our MAD layer: a write is one MAD (a user-RMPP
	 * agent writes each segment), padded to 256 bytes with zeros.
	 */
	hdr_len = ib_get_mad_data_offset(common.mgmt_class);
	send_buf = ib_create_send_mad(agent, be32_to_cpu(hdr->qpn),
				      file->pkey_header ? hdr->pkey_index : 0,
				      0, hdr_len,
				      max_t(int, (int)mad_len - hdr_len, 0),
				      GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(send_buf)) {
		ret = PTR_ERR(send_buf);
		goto err_ah;
	}
	if (copy_from_user(send_buf->mad, umad, mad_len)) {
		ret = -EFAULT;
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
	/* At least the common and RMPP headers; at most one MAD. */
	if (count < hsize + IB_MGMT_RMPP_HDR)
		return -EINVAL;
	if (count > hsize + IB_MGMT_MAD_SIZE)
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
