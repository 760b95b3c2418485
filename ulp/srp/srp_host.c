// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: one SCSI host per target. add_target makes it (options, channels,
 * host, rport, scan); the rport's callbacks reconnect it, fail its I/O and
 * delete it; the removal work takes it apart in the order the SCSI and SRP
 * transport layers need: rport and host first, the channels after them.
 */
#include <linux/blk-mq.h>
#include <linux/slab.h>
#include <scsi/scsi_device.h>

#include "srp.h"

static struct srp_target *srp_attr_target(struct device *dev)
{
	return host_to_target(class_to_shost(dev));
}

#define SRP_HEX_ATTR(field)						\
static ssize_t field##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return sysfs_emit(buf, "0x%016llx\n",				\
			  srp_attr_target(dev)->field);			\
}									\
static DEVICE_ATTR_RO(field)

SRP_HEX_ATTR(id_ext);
SRP_HEX_ATTR(ioc_guid);

/* IB/CM only: an RDMA/CM login has none of these. */
static ssize_t srp_no_ibcm_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return -ENOENT;
}

static DEVICE_ATTR(service_id, 0444, srp_no_ibcm_show, NULL);
static DEVICE_ATTR(pkey, 0444, srp_no_ibcm_show, NULL);
static DEVICE_ATTR(dgid, 0444, srp_no_ibcm_show, NULL);
static DEVICE_ATTR(orig_dgid, 0444, srp_no_ibcm_show, NULL);

static ssize_t sgid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pI6\n", srp_attr_target(dev)->sgid.raw);
}
static DEVICE_ATTR_RO(sgid);

static ssize_t req_lim_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct srp_target *t = srp_attr_target(dev);
	int lim = INT_MAX;
	unsigned int i;

	for (i = 0; i < t->nr_ch; i++)
		lim = min(lim, READ_ONCE(t->ch[i].req_lim));
	return sysfs_emit(buf, "%d\n", lim);
}
static DEVICE_ATTR_RO(req_lim);

#define SRP_INT_ATTR(name, expr)					\
static ssize_t name##_show(struct device *dev,				\
			   struct device_attribute *attr, char *buf)	\
{									\
	struct srp_target *t = srp_attr_target(dev);			\
									\
	return sysfs_emit(buf, "%d\n", (int)(expr));			\
}									\
static DEVICE_ATTR_RO(name)

SRP_INT_ATTR(zero_req_lim, t->zero_req_lim);
SRP_INT_ATTR(ch_count, t->nr_ch);
SRP_INT_ATTR(comp_vector, t->comp_vector);
SRP_INT_ATTR(tl_retry_count, t->tl_retry_count);

static ssize_t local_ib_port_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", srp_attr_target(dev)->port->port);
}
static DEVICE_ATTR_RO(local_ib_port);

static ssize_t local_ib_device_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	struct srp_target *t = srp_attr_target(dev);

	return sysfs_emit(buf, "%s\n", dev_name(&t->port->sdev->ibdev->dev));
}
static DEVICE_ATTR_RO(local_ib_device);

static ssize_t cmd_sg_entries_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", srp_attr_target(dev)->cmd_sg_entries);
}
static DEVICE_ATTR_RO(cmd_sg_entries);

static ssize_t allow_ext_sg_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  srp_attr_target(dev)->allow_ext_sg ? "true" : "false");
}
static DEVICE_ATTR_RO(allow_ext_sg);

static struct attribute *srp_host_attrs[] = {
	&dev_attr_allow_ext_sg.attr,
	&dev_attr_ch_count.attr,
	&dev_attr_cmd_sg_entries.attr,
	&dev_attr_comp_vector.attr,
	&dev_attr_dgid.attr,
	&dev_attr_id_ext.attr,
	&dev_attr_ioc_guid.attr,
	&dev_attr_local_ib_device.attr,
	&dev_attr_local_ib_port.attr,
	&dev_attr_orig_dgid.attr,
	&dev_attr_pkey.attr,
	&dev_attr_req_lim.attr,
	&dev_attr_service_id.attr,
	&dev_attr_sgid.attr,
	&dev_attr_tl_retry_count.attr,
	&dev_attr_zero_req_lim.attr,
	NULL
};
ATTRIBUTE_GROUPS(srp_host);

static const char *srp_info(struct Scsi_Host *shost)
{
	return host_to_target(shost)->info;
}

static int srp_target_alloc(struct scsi_target *starget)
{
	struct srp_target *t = host_to_target(dev_to_shost(starget->dev.parent));

	if (t->target_can_queue)
		starget->can_queue = t->target_can_queue;
	return 0;
}

static struct scsi_host_template srp_template = {
	.module = THIS_MODULE,
	.name = "InfiniBand SRP initiator",
	.proc_name = DRV_NAME,
	.info = srp_info,
	.target_alloc = srp_target_alloc,
	.change_queue_depth = scsi_change_queue_depth,
	.queuecommand = srp_queuecommand,
	.eh_timed_out = srp_timed_out,
	.eh_abort_handler = srp_abort,
	.eh_device_reset_handler = srp_reset_device,
	.eh_host_reset_handler = srp_reset_host,
	.skip_settle_delay = true,
	.sg_tablesize = 12,
	.can_queue = SRP_DEF_QUEUE_SIZE - SRP_RESERVED_IUS,
	.this_id = -1,
	.cmd_per_lun = SRP_DEF_QUEUE_SIZE - SRP_RESERVED_IUS,
	.shost_groups = srp_host_groups,
	.track_queue_depth = 1,
	.cmd_size = sizeof(struct srp_priv),
};

/* The caller holds port->lock. */
void __srp_queue_remove(struct srp_target *t)
{
	if (!t->listed || t->removing)
		return;
	t->removing = true;
	queue_work(srp_remove_wq, &t->remove_work);
}

void srp_queue_remove(struct srp_target *t)
{
	spin_lock(&t->port->lock);
	__srp_queue_remove(t);
	spin_unlock(&t->port->lock);
}

static void srp_remove_work(struct work_struct *w)
{
	struct srp_target *t = container_of(w, struct srp_target, remove_work);
	struct srp_rport *rport = t->rport;
	unsigned int i;

	/*
	 * Commands on a dead channel would hold up the host's removal until
	 * fast_io_fail; rport->mutex keeps a reconnect off the channels.
	 */
	mutex_lock(&rport->mutex);
	for (i = 0; i < t->nr_ch; i++)
		if (!READ_ONCE(t->ch[i].live))
			srp_fail_all(t, &t->ch[i], DID_NO_CONNECT << 16);
	mutex_unlock(&rport->mutex);
	srp_rport_get(rport);
	srp_remove_host(t->shost);
	scsi_remove_host(t->shost);
	srp_stop_rport_timers(rport);
	srp_target_disconnect(t);
	cancel_work_sync(&t->tl_err_work);
	srp_rport_put(rport);
	spin_lock(&t->port->lock);
	list_del(&t->node);
	spin_unlock(&t->port->lock);
	put_device(&t->port->dev);
	kfree(t->ch);
	scsi_host_put(t->shost);
}

static void srp_tl_err_work(struct work_struct *w)
{
	struct srp_target *t = container_of(w, struct srp_target, tl_err_work);

	if (t->rport)
		srp_start_tl_fail_timers(t->rport);
}

/* rport callbacks; scsi_transport_srp calls them under rport->mutex. */
int srp_rport_reconnect(struct srp_rport *rport)
{
	struct srp_target *t = rport->lld_data;

	srp_target_disconnect(t);
	return srp_target_connect(t, true);
}

void srp_terminate_io(struct srp_rport *rport)
{
	struct srp_target *t = rport->lld_data;
	unsigned int i;

	for (i = 0; i < t->nr_ch; i++)
		srp_chan_stop(&t->ch[i], DID_TRANSPORT_FAILFAST << 16);
}

void srp_rport_delete(struct srp_rport *rport)
{
	srp_queue_remove(rport->lld_data);
}

static bool srp_is_topspin(u64 guid)
{
	u32 oui = guid >> 40;

	return oui == 0x0005ad || oui == 0x001b0d;
}

/* Port IDs, sizes and channel count from the options and the device. */
static int srp_target_setup(struct srp_target *t)
{
	struct srp_port *p = t->port;
	struct srp_dev *sd = p->sdev;
	__be64 a, b;
	int ret;

	ret = rdma_query_gid(sd->ibdev, p->port, 0, &t->sgid);
	if (ret)
		return ret;
	a = cpu_to_be64(t->initiator_ext);
	memcpy(t->i_port_id, &a, 8);
	memcpy(t->i_port_id + 8, &t->sgid.global.interface_id, 8);
	if (srp_topspin_workarounds && srp_is_topspin(t->ioc_guid)) {
		shost_printk(KERN_DEBUG, t->shost,
			     "Topspin/Cisco initiator port ID workaround activated for target GUID %016llx\n",
			     t->ioc_guid);
		memset(t->i_port_id, 0, 8);
		memcpy(t->i_port_id + 8, &sd->ibdev->node_guid, 8);
	}
	a = cpu_to_be64(t->id_ext);
	b = cpu_to_be64(t->ioc_guid);
	memcpy(t->t_port_id, &a, 8);
	memcpy(t->t_port_id + 8, &b, 8);
	if (t->io_class == SRP_REV10_IB_IO_CLASS) {
		u8 tmp[8];

		memcpy(tmp, t->i_port_id, 8);
		memcpy(t->i_port_id, t->i_port_id + 8, 8);
		memcpy(t->i_port_id + 8, tmp, 8);
		memcpy(t->t_port_id, &b, 8);
		memcpy(t->t_port_id + 8, &a, 8);
	}

	t->fr = sd->use_fr;
	if (t->fr) {
		/* one MR per command: the page list bounds the transfer */
		t->sg_tablesize = sd->mr_pages - 1;
		t->max_sect = min_t(unsigned int, t->max_sect,
				    (sd->mr_pages - 1) << (PAGE_SHIFT - 9));
	} else if (!t->allow_ext_sg &&
		   t->sg_tablesize > t->cmd_sg_entries) {
		shost_printk(KERN_WARNING, t->shost,
			     "No MR pool and no external indirect descriptors, limiting sg_tablesize to cmd_sg_cnt\n");
		t->sg_tablesize = t->cmd_sg_entries;
	}
	t->max_sect = min_t(unsigned int, t->max_sect, SRP_MAX_XFER >> 9);
	t->req_it_iu_len = sizeof(struct srp_cmd) + 16 +
			   sizeof(struct srp_indirect_buf) +
			   t->cmd_sg_entries * sizeof(struct srp_direct_buf);
	if (srp_use_imm_data)
		t->req_it_iu_len = max(t->req_it_iu_len,
				       (u32)SRP_IMM_OFFSET + srp_max_imm_data);
	if (t->max_it_iu_size)
		t->req_it_iu_len = min(t->req_it_iu_len, t->max_it_iu_size);
	if (t->req_it_iu_len < sizeof(struct srp_cmd) +
			       sizeof(struct srp_direct_buf))
		return -EINVAL;
	t->tx_count = t->queue_size;

	if (!t->ch_count)
		t->ch_count = srp_ch_count;
	if (!t->ch_count)
		t->ch_count = min(max_t(unsigned int, 4 * num_online_nodes(),
					sd->ibdev->num_comp_vectors),
				  num_online_cpus());
	t->ch_count = clamp_t(unsigned int, t->ch_count, 1, num_online_cpus());
	return 0;
}

static bool srp_conn_unique(struct srp_target *t)
{
	struct srp_target *o;
	bool unique = true;

	spin_lock(&t->port->lock);
	list_for_each_entry(o, &t->port->targets, node)
		if (o->id_ext == t->id_ext && o->ioc_guid == t->ioc_guid &&
		    o->initiator_ext == t->initiator_ext && !o->removing)
			unique = false;
	spin_unlock(&t->port->lock);
	return unique;
}

static int srp_chans_alloc(struct srp_target *t)
{
	struct srp_dev *sd = t->port->sdev;
	unsigned int i;

	t->ch = kcalloc(t->ch_count, sizeof(*t->ch), GFP_KERNEL);
	if (!t->ch)
		return -ENOMEM;
	t->nr_ch = t->ch_count;
	for (i = 0; i < t->nr_ch; i++) {
		struct srp_chan *ch = &t->ch[i];

		ch->target = t;
		ch->index = i;
		spin_lock_init(&ch->lock);
		INIT_LIST_HEAD(&ch->tx_free);
		INIT_LIST_HEAD(&ch->mr_free);
		init_completion(&ch->done);
		init_completion(&ch->tmf_done);
		ch->reg_cqe.done = srp_reg_done;
		ch->comp_vector = (t->comp_vector + i) %
				  max(sd->ibdev->num_comp_vectors, 1);
	}
	return 0;
}

int srp_add_target(struct srp_port *p, const char *buf)
{
	struct srp_rport_identifiers ids = {};
	struct Scsi_Host *shost;
	struct srp_rport *rport;
	struct srp_target *t;
	unsigned int i;
	int ret;

	shost = scsi_host_alloc(&srp_template, sizeof(*t));
	if (!shost)
		return -ENOMEM;
	shost->transportt = srp_transport();
	t = host_to_target(shost);
	t->shost = shost;
	t->port = p;
	get_device(&p->dev);
	INIT_WORK(&t->remove_work, srp_remove_work);
	INIT_WORK(&t->tl_err_work, srp_tl_err_work);
	t->io_class = SRP_REV16A_IB_IO_CLASS;
	t->queue_size = SRP_DEF_QUEUE_SIZE;
	t->cmd_per_lun = SRP_DEF_QUEUE_SIZE - SRP_RESERVED_IUS;
	t->max_sect = 1024;
	t->cmd_sg_entries = srp_cmd_sg_entries;
	t->sg_tablesize = srp_indirect_sg_entries;
	t->allow_ext_sg = srp_allow_ext_sg;
	t->tl_retry_count = 7;

	ret = srp_parse_options(t, buf);
	if (ret)
		goto put;
	if (!srp_conn_unique(t)) {
		shost_printk(KERN_INFO, shost,
			     "Already connected to target port with id_ext=%016llx;ioc_guid=%016llx;initiator_ext=%016llx\n",
			     t->id_ext, t->ioc_guid, t->initiator_ext);
		ret = -EEXIST;
		goto put;
	}
	ret = srp_target_setup(t);
	if (!ret)
		ret = srp_chans_alloc(t);
	if (ret)
		goto put;
	snprintf(t->info, sizeof(t->info), "SRP.T10:%016llX", t->id_ext);
	ret = srp_target_connect(t, false);
	if (ret)
		goto free_ch;

	shost->max_id = 1;
	shost->max_lun = -1LL;
	shost->max_channel = 0;
	shost->max_cmd_len = 16;
	shost->can_queue = t->queue_size - SRP_RESERVED_IUS;
	shost->cmd_per_lun = min(t->cmd_per_lun, (unsigned int)shost->can_queue);
	shost->sg_tablesize = t->sg_tablesize;
	shost->max_sectors = t->max_sect;
	shost->nr_hw_queues = t->nr_ch;
	if (t->fr)
		shost->virt_boundary_mask = PAGE_SIZE - 1;
	/*
	 * Under the RDMA device's parent, as 6.1 does, not under srp-<dev>-<port>:
	 * device removal deletes that one before the hosts below it.
	 */
	ret = scsi_add_host(shost, p->sdev->ibdev->dev.parent);
	if (ret)
		goto disconnect;
	t->host_added = true;

	memcpy(ids.port_id, t->t_port_id, 16);
	if (t->io_class == SRP_REV10_IB_IO_CLASS) {
		memcpy(ids.port_id, t->t_port_id + 8, 8);
		memcpy(ids.port_id + 8, t->t_port_id, 8);
	}
	ids.roles = SRP_RPORT_ROLE_TARGET;
	rport = srp_rport_add(shost, &ids);
	if (IS_ERR(rport)) {
		ret = PTR_ERR(rport);
		scsi_remove_host(shost);
		goto disconnect;
	}
	rport->lld_data = t;
	t->rport = rport;

	spin_lock(&p->lock);
	list_add_tail(&t->node, &p->targets);
	t->listed = true;
	spin_unlock(&p->lock);

	shost_printk(KERN_DEBUG, shost,
		     "new target: id_ext %016llx ioc_guid %016llx sgid %pI6 dest %pISpc\n",
		     t->id_ext, t->ioc_guid, t->sgid.raw, &t->dest);
	/* a delete written meanwhile may remove the target: keep its memory */
	scsi_host_get(shost);
	scsi_scan_target(&shost->shost_gendev, 0, 0, SCAN_WILD_CARD,
			 SCSI_SCAN_INITIAL);
	ret = 0;
	spin_lock(&p->lock);
	/* the channels are freed only after a removal was queued */
	for (i = 0; !t->removing && i < t->nr_ch; i++) {
		if (READ_ONCE(t->ch[i].live))
			continue;
		shost_printk(KERN_ERR, shost,
			     "SCSI scan failed - removing SCSI host\n");
		__srp_queue_remove(t);
		ret = -ENOTCONN;
	}
	spin_unlock(&p->lock);
	scsi_host_put(shost);
	return ret;

disconnect:
	srp_target_disconnect(t);
free_ch:
	kfree(t->ch);
put:
	put_device(&p->dev);
	scsi_host_put(shost);
	return ret;
}
