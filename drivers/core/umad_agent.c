// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: agents of an open umadN. Registration by both ioctl generations
 * (REGISTER_AGENT, REGISTER_AGENT2), unregistration, ENABLE_PKEY, and the
 * receive handler that queues MADs for read() (IB-FABRIC.md §5).
 *
 * The class rules (QP0 classes, OUIs, RMPP versions, one owner per method)
 * are the MAD layer's: ib_register_mad_agent() answers for them.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_verbs.h>

#include "umad.h"

/* A registration request, whichever ioctl carried it. */
struct umad_reg {
	u32	qpn;
	u8	mgmt_class;
	u8	mgmt_class_version;
	u8	rmpp_version;
	u32	oui;
	u32	flags;
	u64	methods[2];
};

void umad_packet_free(struct umad_packet *packet)
{
	if (packet->recv_wc)
		ib_free_recv_mad(packet->recv_wc);
	kfree(packet);
}

/* Fills the address part of a received MAD's header from its completion. */
static int umad_fill_recv_hdr(struct ib_mad_agent *agent,
			      struct ib_mad_recv_wc *recv_wc,
			      struct ib_user_mad_hdr *hdr)
{
	const struct ib_wc *wc = recv_wc->wc;
	const struct ib_global_route *grh;
	struct rdma_ah_attr ah_attr;
	int ret;

	hdr->qpn = cpu_to_be32(wc->src_qp);
	hdr->lid = ib_lid_be16(wc->slid);
	hdr->sl = wc->sl;
	hdr->path_bits = wc->dlid_path_bits;
	hdr->pkey_index = wc->pkey_index;
	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;

	/*
	 * The route back: the sender's GID as destination, our GID that
	 * the MAD was sent to as the source index to answer from.
	 */
	ret = ib_init_ah_attr_from_wc(agent->device, agent->port_num, wc,
				      recv_wc->recv_buf.grh, &ah_attr);
	if (ret)
		return ret;
	grh = rdma_ah_read_grh(&ah_attr);
	hdr->grh_present = 1;
	hdr->gid_index = grh->sgid_index;
	hdr->hop_limit = grh->hop_limit;
	hdr->traffic_class = grh->traffic_class;
	memcpy(hdr->gid, grh->dgid.raw, sizeof(hdr->gid));
	hdr->flow_label = cpu_to_be32(grh->flow_label);
	rdma_destroy_ah_attr(&ah_attr);
	return 0;
}

/* Queues @packet for read(); false if the file cannot take it. */
static bool umad_queue_packet(struct umad_file *file,
			      struct umad_packet *packet)
{
	unsigned long flags;
	bool queued = false;

	spin_lock_irqsave(&file->lock, flags);
	if (!file->dead && file->recv_count < UMAD_RECV_QUEUE_MAX) {
		list_add_tail(&packet->list, &file->recv_list);
		file->recv_count++;
		queued = true;
	}
	spin_unlock_irqrestore(&file->lock, flags);
	if (queued)
		wake_up_interruptible(&file->wait);
	return queued;
}

static void umad_recv_handler(struct ib_mad_agent *agent,
			      struct ib_mad_send_buf *send_buf,
			      struct ib_mad_recv_wc *recv_wc)
{
	struct umad_slot *slot = agent->context;
	struct umad_file *file = slot->file;
	struct umad_packet *packet;

	packet = kzalloc(sizeof(*packet), GFP_KERNEL);
	if (!packet)
		goto drop;
	packet->file = file;
	packet->recv_wc = recv_wc;
	/* A reassembled RMPP message: all of it. */
	packet->len = recv_wc->mad_len;
	packet->hdr.id = slot->id;
	packet->hdr.length = umad_hdr_size(file) + packet->len;
	if (umad_fill_recv_hdr(agent, recv_wc, &packet->hdr))
		goto drop_packet;
	if (umad_queue_packet(file, packet))
		return;
	dev_dbg_ratelimited(&file->port->dev,
			    "receive queue full or closed: MAD dropped\n");
drop_packet:
	kfree(packet);
drop:
	ib_free_recv_mad(recv_wc);
}

/*
 * A send that timed out comes back to read() as the sent header with
 * status ETIMEDOUT and the MAD's common header (libibmad retries on it).
 */
void umad_send_timed_out(struct umad_packet *packet)
{
	struct umad_file *file = packet->file;

	memcpy(packet->mad, packet->send_buf->mad, IB_MGMT_MAD_HDR);
	packet->send_buf = NULL;
	packet->len = IB_MGMT_MAD_HDR;
	packet->hdr.status = ETIMEDOUT;
	packet->hdr.length = umad_hdr_size(file) + IB_MGMT_MAD_HDR;
	if (!umad_queue_packet(file, packet))
		kfree(packet);
}

/* ------------------------------------------------------------ ioctls */

static int umad_register(struct umad_file *file, const struct umad_reg *reg,
			 u32 __user *id_out)
{
	struct umad_port *port = file->port;
	struct ib_mad_reg_req req = {};
	struct ib_mad_agent *agent;
	struct umad_slot *slot = NULL;
	int ret = 0;
	u32 i;

	down_read(&port->rwsem);
	mutex_lock(&file->mutex);
	if (!port->ib_dev) {
		dev_notice_ratelimited(&port->dev,
				       "agent registration on a removed device\n");
		ret = -EPIPE;
		goto out;
	}
	if (reg->qpn > 1 || (reg->oui & 0xff000000)) {
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < UMAD_AGENTS_PER_FILE; i++) {
		if (!file->slots[i].agent) {
			slot = &file->slots[i];
			break;
		}
	}
	if (!slot) {
		ret = -ENOMEM;
		goto out;
	}

	/* Class 0: a send-only agent that gets only answers to its sends. */
	if (reg->mgmt_class) {
		req.mgmt_class = reg->mgmt_class;
		req.mgmt_class_version = reg->mgmt_class_version;
		req.oui[0] = reg->oui >> 16;
		req.oui[1] = reg->oui >> 8;
		req.oui[2] = reg->oui;
		bitmap_from_arr64(req.method_mask, reg->methods,
				  IB_MGMT_MAX_METHODS);
	}
	agent = ib_register_mad_agent(port->ib_dev, port->port_num,
				      reg->qpn ? IB_QPT_GSI : IB_QPT_SMI,
				      reg->mgmt_class ? &req : NULL,
				      reg->rmpp_version, umad_send_handler,
				      umad_recv_handler, slot,
				      reg->flags & IB_USER_MAD_USER_RMPP ?
				      IB_MAD_USER_RMPP : 0);
	if (IS_ERR(agent)) {
		ret = PTR_ERR(agent);
		goto out;
	}
	if (put_user(slot->id, id_out)) {
		ib_unregister_mad_agent(agent);
		ret = -EFAULT;
		goto out;
	}
	WRITE_ONCE(slot->agent, agent);
	file->registered_once = true;
out:
	mutex_unlock(&file->mutex);
	up_read(&port->rwsem);
	return ret;
}

static long umad_reg_agent(struct umad_file *file, void __user *arg)
{
	struct ib_user_mad_reg_req ureq;
	struct umad_reg reg = {};

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	reg.qpn = ureq.qpn;
	reg.mgmt_class = ureq.mgmt_class;
	reg.mgmt_class_version = ureq.mgmt_class_version;
	reg.rmpp_version = ureq.rmpp_version;
	reg.oui = ureq.oui[0] << 16 | ureq.oui[1] << 8 | ureq.oui[2];
	/* The method mask is 128 bits in host longs, i.e. two LE u64s. */
	memcpy(reg.methods, ureq.method_mask, sizeof(reg.methods));

	mutex_lock(&file->mutex);
	if (!file->registered_once && !file->pkey_header &&
	    !file->warned_old_header) {
		file->warned_old_header = true;
		dev_warn(&file->port->dev,
			 "process %s did not enable P_Key index support.\n",
			 current->comm);
		dev_warn(&file->port->dev,
			 "   Documentation/infiniband/user_mad.rst has info on the new ABI.\n");
	}
	mutex_unlock(&file->mutex);
	return umad_register(file, &reg,
			     &((struct ib_user_mad_reg_req __user *)arg)->id);
}

static long umad_reg_agent2(struct umad_file *file, void __user *arg)
{
	struct ib_user_mad_reg_req2 __user *uarg = arg;
	struct ib_user_mad_reg_req2 ureq;
	struct umad_reg reg = {};

	if (copy_from_user(&ureq, arg, sizeof(ureq)))
		return -EFAULT;
	if (ureq.flags & ~IB_USER_MAD_REG_FLAGS_CAP) {
		/* Tell the caller what we do support. */
		if (put_user((u32)IB_USER_MAD_REG_FLAGS_CAP, &uarg->flags))
			return -EFAULT;
		return -EINVAL;
	}
	reg.qpn = ureq.qpn;
	reg.mgmt_class = ureq.mgmt_class;
	reg.mgmt_class_version = ureq.mgmt_class_version;
	reg.rmpp_version = ureq.rmpp_version;
	reg.oui = ureq.oui;
	reg.flags = ureq.flags;
	reg.methods[0] = ureq.method_mask[0];
	reg.methods[1] = ureq.method_mask[1];

	/* The second generation implies the header with pkey_index. */
	mutex_lock(&file->mutex);
	if (!file->registered_once)
		file->pkey_header = true;
	mutex_unlock(&file->mutex);
	return umad_register(file, &reg, &uarg->id);
}

static long umad_unreg_agent(struct umad_file *file, u32 __user *arg)
{
	struct ib_mad_agent *agent = NULL;
	u32 id;

	if (get_user(id, arg))
		return -EFAULT;

	down_read(&file->port->rwsem);
	mutex_lock(&file->mutex);
	if (id < UMAD_AGENTS_PER_FILE) {
		agent = file->slots[id].agent;
		WRITE_ONCE(file->slots[id].agent, NULL);
	}
	mutex_unlock(&file->mutex);
	up_read(&file->port->rwsem);
	if (!agent)
		return -EINVAL;
	/* Waits for its handlers; the slot is reused only after this. */
	ib_unregister_mad_agent(agent);
	return 0;
}

static long umad_enable_pkey(struct umad_file *file)
{
	long ret = 0;

	mutex_lock(&file->mutex);
	if (file->registered_once)
		ret = -EINVAL;
	else
		file->pkey_header = true;
	mutex_unlock(&file->mutex);
	return ret;
}

long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct umad_file *file = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		return umad_reg_agent(file, uarg);
	case IB_USER_MAD_UNREGISTER_AGENT:
		return umad_unreg_agent(file, uarg);
	case IB_USER_MAD_ENABLE_PKEY:
		return umad_enable_pkey(file);
	case IB_USER_MAD_REGISTER_AGENT2:
		return umad_reg_agent2(file, uarg);
	default:
		return -ENOIOCTLCMD;
	}
}

/*
 * Unregisters every agent of @file (its close, or the device's removal:
 * then the file is dead and reads fail). Port rwsem held for writing.
 */
void umad_file_kill_agents(struct umad_file *file)
{
	struct umad_packet *packet, *tmp;
	struct ib_mad_agent *agent;
	LIST_HEAD(dropped);
	u32 i;

	mutex_lock(&file->mutex);
	for (i = 0; i < UMAD_AGENTS_PER_FILE; i++) {
		agent = file->slots[i].agent;
		if (!agent)
			continue;
		WRITE_ONCE(file->slots[i].agent, NULL);
		ib_unregister_mad_agent(agent);
	}
	mutex_unlock(&file->mutex);

	/* Nothing is queued after this: free what read() cannot take now. */
	spin_lock_irq(&file->lock);
	file->dead = true;
	list_splice_init(&file->recv_list, &dropped);
	file->recv_count = 0;
	spin_unlock_irq(&file->lock);
	wake_up_interruptible(&file->wait);
	list_for_each_entry_safe(packet, tmp, &dropped, list)
		umad_packet_free(packet);
}
