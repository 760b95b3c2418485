// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SMI of a channel adapter port (IBA 14.2.2): the directed-route step
 * an SMP takes when QP0 sends or receives it, the discards those steps
 * decide (counted per port, shown in debugfs ib_mad/smi_drops), and the
 * SMPs this node sends to itself. Those never reach the wire: a work item
 * hands them to the receive side as if they had arrived on QP0, where the
 * device's SMA (process_mad) or a local QP0 agent answers them, and the
 * answer comes back the same way.
 *
 * A CA never forwards, so every "switch only" case of the rules is a
 * discard here.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "core_priv.h"
#include "mad_priv.h"

/* HopCount is 0..63: the path arrays have 64 entries (IBA C14-6). */
#define SMI_MAX_HOPS	64

static bool smi_lid_permissive(__be16 lid)
{
	return lid == IB_LID_PERMISSIVE;
}

/* Originating or answering a DR SMP: where it goes (or -EINVAL). */
static int smi_dr_send_step(u32 port_num, struct ib_smp *smp)
{
	u8 hops = smp->hop_cnt;
	u8 ptr = smp->hop_ptr;

	if (hops >= SMI_MAX_HOPS)
		return MAD_ROUTE_DISCARD;

	if (!ib_get_smp_direction(smp)) {
		/* a request we originate: it leaves on InitialPath[1] */
		if (ptr == 0 && hops > 0) {
			if (smp->initial_path[1] != port_num)
				return -EINVAL;
			smp->hop_ptr = 1;
			return MAD_ROUTE_WIRE;
		}
		/* the DR part ends here: this node's SMA takes it */
		if (ptr == hops) {
			smp->hop_ptr++;
			return smi_lid_permissive(smp->dr_dlid) ?
			       MAD_ROUTE_LOCAL : MAD_ROUTE_DISCARD;
		}
		if (ptr == hops + 1)
			return MAD_ROUTE_LOCAL;
		return MAD_ROUTE_DISCARD;
	}

	/* an answer: it goes back the way the request came */
	if (ptr == hops + 1) {
		smp->hop_ptr = hops;
		if (!hops)
			return MAD_ROUTE_LOCAL;
		return smp->return_path[hops] == port_num ?
		       MAD_ROUTE_WIRE : MAD_ROUTE_DISCARD;
	}
	if (ptr == 0)
		return MAD_ROUTE_LOCAL;
	return MAD_ROUTE_DISCARD;
}

/*
 * Called under the agent lock for every send of a QP0 agent: takes the DR
 * step on the MAD and says where it goes. LID-routed SMPs are decided by
 * the work item, which may ask the port for its LID.
 */
int mad_smi_send_route(struct ib_mad_port *port, struct ib_mad_send_wr_priv *wr)
{
	struct ib_smp *smp = (struct ib_smp *)wr->mad;

	switch (smp->mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
		return MAD_ROUTE_BY_LID;
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		return smi_dr_send_step(port->port_num, smp);
	default:
		/* QP0 carries SMPs only */
		return -EINVAL;
	}
}

/*
 * The receive step of a DR SMP that came in on QP0; false: discard it
 * (counted). On acceptance HopPointer is HopCount + 1 for a request (the
 * SMA's view) and 0 for an answer (the originator's).
 */
bool mad_smi_recv_ok(struct ib_mad_port *port, struct ib_smp *smp)
{
	u8 hops = smp->hop_cnt;
	u8 ptr = smp->hop_ptr;
	bool ok;

	if (hops >= SMI_MAX_HOPS) {
		ok = false;
	} else if (!ib_get_smp_direction(smp)) {
		if (ptr == hops) {
			if (hops)
				smp->return_path[hops] = port->port_num;
			smp->hop_ptr++;
			ok = smi_lid_permissive(smp->dr_dlid);
		} else {
			ok = ptr == hops + 1;
		}
	} else if (ptr == 1) {
		ok = smi_lid_permissive(smp->dr_slid);
		if (ok)
			smp->hop_ptr = 0;
	} else {
		ok = ptr == 0;
	}
	if (!ok)
		atomic64_inc(&port->smi_drops);
	return ok;
}

/* Port lock held. */
void mad_smi_queue_job(struct ib_mad_port *port,
		       struct ib_mad_send_wr_priv *wr)
{
	list_add_tail(&wr->port_list, &port->smi_jobs);
	queue_work(ib_mad_wq, &port->smi_work);
}

static bool smi_own_lid(const struct ib_port_attr *attr, u16 dlid)
{
	return attr->lid && dlid && dlid < be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	       (dlid >> attr->lmc) == (attr->lid >> attr->lmc);
}

/* The SMP of @wr as QP0 of this port would have received it. */
static struct ib_mad_recv_priv *smi_local_copy(struct ib_mad_port *port,
					       struct ib_mad_send_wr_priv *wr,
					       const struct ib_port_attr *attr)
{
	struct ib_mad_recv_priv *rp;

	rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp)
		return NULL;
	rp->port = port;
	rp->queue = &port->smi;
	rp->local = true;
	memcpy(rp->buf.mad, wr->mad, IB_MGMT_MAD_SIZE);
	rp->wc.status = IB_WC_SUCCESS;
	rp->wc.opcode = IB_WC_RECV;
	rp->wc.byte_len = sizeof(struct ib_grh) + IB_MGMT_MAD_SIZE;
	rp->wc.qp = port->smi.qp;
	rp->wc.src_qp = 0;
	/* a port without a LID is known by the permissive one */
	rp->wc.slid = attr->lid ? attr->lid :
				  be16_to_cpu(IB_LID_PERMISSIVE);
	rp->wc.pkey_index = wr->pkey_index;
	rp->wc.port_num = port->port_num;
	return rp;
}

/* Where a LID-routed SMP is addressed (its AH's DLID). */
static int smi_ah_dlid(struct ib_mad_send_wr_priv *wr, u16 *dlid)
{
	struct rdma_ah_attr attr = {};
	int ret;

	ret = rdma_query_ah(wr->send_buf.ah, &attr);
	if (ret)
		return ret;
	*dlid = rdma_ah_get_dlid(&attr);
	rdma_destroy_ah_attr(&attr);
	return 0;
}

/* One QP0 send the QP did not take as it is. Process context. */
static void smi_run_job(struct ib_mad_port *port,
			struct ib_mad_send_wr_priv *wr)
{
	struct ib_mad_recv_priv *rp = NULL;
	struct ib_port_attr attr = {};
	unsigned long flags;
	u16 dlid;
	int ret;

	if (READ_ONCE(port->dying)) {
		mad_wr_send_completed(wr, IB_WC_WR_FLUSH_ERR);
		return;
	}
	if (wr->smi_route == MAD_ROUTE_DISCARD) {
		/* lost as on a wire: the sender's wait times out */
		atomic64_inc(&port->smi_drops);
		mad_wr_send_completed(wr, IB_WC_SUCCESS);
		return;
	}
	if (ib_query_port(port->device, port->port_num, &attr)) {
		mad_wr_send_completed(wr, IB_WC_GENERAL_ERR);
		return;
	}
	if (wr->smi_route == MAD_ROUTE_BY_LID &&
	    (smi_ah_dlid(wr, &dlid) || !smi_own_lid(&attr, dlid))) {
		spin_lock_irqsave(&port->lock, flags);
		ret = port->dying ? -ENODEV : mad_post_wr(&port->smi, wr);
		spin_unlock_irqrestore(&port->lock, flags);
		if (ret)
			mad_wr_send_completed(wr, IB_WC_GENERAL_ERR);
		return;
	}

	/* for this node: copied before the send completes and may be freed */
	rp = smi_local_copy(port, wr, &attr);
	mad_wr_send_completed(wr, rp ? IB_WC_SUCCESS : IB_WC_GENERAL_ERR);
	if (rp)
		mad_handle_recv(&port->smi, rp);
}

/*
 * The port's jobs, one at a time: an answer to a local SMP may queue a
 * job of its own, which the loop then picks up.
 */
void mad_smi_work(struct work_struct *work)
{
	struct ib_mad_port *port =
		container_of(work, struct ib_mad_port, smi_work);
	struct ib_mad_send_wr_priv *wr;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&port->lock, flags);
		wr = list_first_entry_or_null(&port->smi_jobs,
					      struct ib_mad_send_wr_priv,
					      port_list);
		if (wr)
			list_del_init(&wr->port_list);
		spin_unlock_irqrestore(&port->lock, flags);
		if (!wr)
			return;
		smi_run_job(port, wr);
	}
}

/* ------------------------------------------------------------ debugfs */

static struct dentry *smi_debugfs_dir;

/* "DEVICE PORT DROPS" for every port with a QP0. */
static int smi_drops_show(struct seq_file *m, void *unused)
{
	struct ib_mad_port *port;

	spin_lock(&ib_mad_port_list_lock);
	list_for_each_entry(port, &ib_mad_port_list, list) {
		if (port->smi.qp)
			seq_printf(m, "%s %u %lld\n", dev_name(&port->device->dev),
				   port->port_num,
				   (s64)atomic64_read(&port->smi_drops));
	}
	spin_unlock(&ib_mad_port_list_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smi_drops);

void mad_smi_debugfs_init(void)
{
	smi_debugfs_dir = debugfs_create_dir("ib_mad", NULL);
	debugfs_create_file("smi_drops", 0444, smi_debugfs_dir, NULL,
			    &smi_drops_fops);
}

void mad_smi_debugfs_exit(void)
{
	debugfs_remove_recursive(smi_debugfs_dir);
	smi_debugfs_dir = NULL;
}
