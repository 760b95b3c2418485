// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: an open umadN, its receive queue, read() and poll()
 * (IB-FABRIC.md §5 "Read", "poll").
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "umad.h"

static int umad_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev, struct umad_port,
					      cdev);
	struct umad_file *file;
	int ret = 0;
	u32 i;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	mutex_init(&file->mutex);
	spin_lock_init(&file->lock);
	INIT_LIST_HEAD(&file->recv_list);
	INIT_LIST_HEAD(&file->send_list);
	init_waitqueue_head(&file->wait);
	for (i = 0; i < UMAD_AGENTS_PER_FILE; i++) {
		file->slots[i].file = file;
		file->slots[i].id = i;
	}
	file->port = port;

	down_write(&port->rwsem);
	if (!port->ib_dev) {
		ret = -ENXIO;
	} else {
		get_device(&port->dev);
		list_add_tail(&file->port_entry, &port->files);
	}
	up_write(&port->rwsem);
	if (ret) {
		kfree(file);
		return ret;
	}
	filp->private_data = file;
	return nonseekable_open(inode, filp);
}

static int umad_release(struct inode *inode, struct file *filp)
{
	struct umad_file *file = filp->private_data;
	struct umad_port *port = file->port;

	down_write(&port->rwsem);
	list_del(&file->port_entry);
	/* Unregistering flushes the sends: their handlers have run after. */
	umad_file_kill_agents(file);
	up_write(&port->rwsem);
	WARN_ON(!list_empty(&file->send_list));
	kfree(file);
	put_device(&port->dev);
	return 0;
}

/* The first queued packet, taken off the queue; NULL with *err set. */
static struct umad_packet *umad_next_packet(struct umad_file *file,
					    bool nonblock, int *err)
{
	struct umad_packet *packet;

	for (;;) {
		spin_lock_irq(&file->lock);
		if (file->dead) {
			spin_unlock_irq(&file->lock);
			*err = -EIO;
			return NULL;
		}
		packet = list_first_entry_or_null(&file->recv_list,
						  struct umad_packet, list);
		if (packet) {
			list_del(&packet->list);
			file->recv_count--;
			spin_unlock_irq(&file->lock);
			return packet;
		}
		spin_unlock_irq(&file->lock);
		if (nonblock) {
			*err = -EAGAIN;
			return NULL;
		}
		if (wait_event_interruptible(file->wait,
					     !list_empty(&file->recv_list) ||
					     READ_ONCE(file->dead))) {
			*err = -ERESTARTSYS;
			return NULL;
		}
	}
}

/* A packet read() could not take goes back to the head of the queue. */
static void umad_requeue(struct umad_file *file, struct umad_packet *packet)
{
	bool dropped = false;

	spin_lock_irq(&file->lock);
	if (file->dead) {
		dropped = true;
	} else {
		list_add(&packet->list, &file->recv_list);
		file->recv_count++;
	}
	spin_unlock_irq(&file->lock);
	if (dropped)
		umad_packet_free(packet);
	else
		wake_up_interruptible(&file->wait);
}

/*
 * A received MAD: header, then the first (or only) segment whole. A
 * message the MAD layer reassembled follows with the data of every later
 * segment (past its class header); if the buffer cannot take it all, the
 * header (its length says what is needed) and the first segment are
 * copied and the read fails with ENOSPC, as upstream does.
 */
static ssize_t umad_copy_recv(struct umad_file *file, char __user *buf,
			      size_t count, struct umad_packet *packet)
{
	struct ib_mad_recv_wc *recv_wc = packet->recv_wc;
	size_t hsize = umad_hdr_size(file);
	size_t seg_len = min_t(size_t, packet->len, recv_wc->mad_seg_size);
	const struct ib_mad *mad = recv_wc->recv_buf.mad;
	struct ib_mad_recv_buf *seg;
	size_t off, left, chunk;
	int data_off;

	if (count < hsize + seg_len)
		return -EINVAL;
	if (copy_to_user(buf, &packet->hdr, hsize) ||
	    copy_to_user(buf + hsize, mad, seg_len))
		return -EFAULT;
	if (seg_len == packet->len)
		return hsize + seg_len;
	if (count < hsize + packet->len)
		return -ENOSPC;

	data_off = ib_get_mad_data_offset(mad->mad_hdr.mgmt_class);
	off = hsize + seg_len;
	left = packet->len - seg_len;
	list_for_each_entry(seg, &recv_wc->rmpp_list, list) {
		if (seg == &recv_wc->recv_buf)
			continue;
		chunk = min_t(size_t, left, recv_wc->mad_seg_size - data_off);
		if (copy_to_user(buf + off, (u8 *)seg->mad + data_off, chunk))
			return -EFAULT;
		off += chunk;
		left -= chunk;
		if (!left)
			break;
	}
	return off;
}

/*
 * Copies one packet out: header, then the MAD (a received one from its
 * receive buffers, a timed-out send's 24 common header bytes). Returns the
 * bytes copied or a negative errno; the caller requeues on error.
 */
static ssize_t umad_copy_packet(struct umad_file *file, char __user *buf,
				size_t count, struct umad_packet *packet)
{
	size_t hsize = umad_hdr_size(file);

	if (packet->recv_wc)
		return umad_copy_recv(file, buf, count, packet);
	if (count < hsize + packet->len)
		return -EINVAL;
	if (copy_to_user(buf, &packet->hdr, hsize) ||
	    copy_to_user(buf + hsize, packet->mad, packet->len))
		return -EFAULT;
	return hsize + packet->len;
}

static ssize_t umad_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *pos)
{
	struct umad_file *file = filp->private_data;
	struct umad_packet *packet;
	ssize_t ret;
	int err;

	if (count < umad_hdr_size(file))
		return -EINVAL;
	packet = umad_next_packet(file, filp->f_flags & O_NONBLOCK, &err);
	if (!packet)
		return err;
	/* Header size is fixed by now: ENABLE_PKEY comes before agents. */
	ret = umad_copy_packet(file, buf, count, packet);
	if (ret < 0)
		umad_requeue(file, packet);
	else
		umad_packet_free(packet);
	return ret;
}

static __poll_t umad_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct umad_file *file = filp->private_data;
	/* A send can always be written. */
	__poll_t mask = EPOLLOUT | EPOLLWRNORM;

	poll_wait(filp, &file->wait, wait);
	spin_lock_irq(&file->lock);
	if (file->dead)
		mask = EPOLLERR;
	else if (!list_empty(&file->recv_list))
		mask |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&file->lock);
	return mask;
}

const struct file_operations umad_fops = {
	.owner		= THIS_MODULE,
	.open		= umad_open,
	.release	= umad_release,
	.read		= umad_read,
	.write		= umad_write,
	.poll		= umad_poll,
	.unlocked_ioctl	= umad_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};
