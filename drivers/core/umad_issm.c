// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad: issmN. Holding it open is how an SM says "I am here": the
 * port's CapabilityMask gets IsSM while it is held, one holder at a time
 * (a second opener waits, or gets EAGAIN with O_NONBLOCK as OpenSM uses
 * it). Nothing is read from or written to it.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <rdma/ib_verbs.h>

#include "umad.h"

static bool umad_sm_try_take(struct umad_port *port)
{
	bool taken = false;

	spin_lock(&port->sm_lock);
	if (!port->sm_held) {
		port->sm_held = true;
		taken = true;
	}
	spin_unlock(&port->sm_lock);
	return taken;
}

static void umad_sm_give_back(struct umad_port *port)
{
	spin_lock(&port->sm_lock);
	port->sm_held = false;
	spin_unlock(&port->sm_lock);
	wake_up_interruptible(&port->sm_wait);
}

static int umad_sm_set(struct umad_port *port, bool set)
{
	struct ib_port_modify mod = {};
	int ret = -ENXIO;

	if (set)
		mod.set_port_cap_mask = IB_PORT_SM;
	else
		mod.clr_port_cap_mask = IB_PORT_SM;
	down_read(&port->rwsem);
	if (port->ib_dev)
		ret = ib_modify_port(port->ib_dev, port->port_num, 0, &mod);
	up_read(&port->rwsem);
	return ret;
}

static int umad_sm_open(struct inode *inode, struct file *filp)
{
	struct umad_port *port = container_of(inode->i_cdev, struct umad_port,
					      sm_cdev);
	int ret;

	if (filp->f_flags & O_NONBLOCK) {
		if (!umad_sm_try_take(port))
			return -EAGAIN;
	} else if (wait_event_interruptible(port->sm_wait,
					    umad_sm_try_take(port))) {
		return -ERESTARTSYS;
	}

	ret = umad_sm_set(port, true);
	if (ret) {
		umad_sm_give_back(port);
		return ret;
	}
	get_device(&port->sm_dev);
	filp->private_data = port;
	return nonseekable_open(inode, filp);
}

static int umad_sm_release(struct inode *inode, struct file *filp)
{
	struct umad_port *port = filp->private_data;

	/* Gone with the device if it was removed meanwhile. */
	umad_sm_set(port, false);
	umad_sm_give_back(port);
	put_device(&port->sm_dev);
	return 0;
}

const struct file_operations umad_sm_fops = {
	.owner		= THIS_MODULE,
	.open		= umad_sm_open,
	.release	= umad_sm_release,
	.llseek		= no_llseek,
};
