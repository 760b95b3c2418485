// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srpt: module parameters, the RDMA devices (an ib_client), the one
 * rdma_cm listener that discovery_auth/rdma_cm_port turns on, and the
 * registration of the LIO fabric "srpt".
 *
 * Logins come only through rdma_cm here. IB/CM logins and the device
 * management MADs that let srp_daemon find us exist only on an InfiniBand
 * link layer, which neither rxe nor siw has: such a port is announced as
 * reachable through rdma_cm only.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/in6.h>

#include "srpt.h"

int srpt_max_req_size = 8276;
module_param_named(srp_max_req_size, srpt_max_req_size, int, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Maximum size of SRP request messages in bytes.");

static int srpt_srq_size = 4095;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size, "Shared receive queue (SRQ) size.");

u64 srpt_guid;

static int srpt_guid_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "0x%016llx\n", *(u64 *)kp->arg);
}

static int srpt_guid_set(const char *val, const struct kernel_param *kp)
{
	return kstrtou64(val, 16, (u64 *)kp->arg);
}

static const struct kernel_param_ops srpt_guid_ops = {
	.get = srpt_guid_get,
	.set = srpt_guid_set,
};
module_param_cb(srpt_service_guid, &srpt_guid_ops, &srpt_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Using this value for ioc_guid, id_ext, and cm_listen_id instead of using the node_guid of the first HCA.");

DEFINE_MUTEX(srpt_mutex);
LIST_HEAD(srpt_channels);
LIST_HEAD(srpt_devs);
DECLARE_WAIT_QUEUE_HEAD(srpt_ch_wait);
struct workqueue_struct *srpt_wq;

/* The listener's context: tells it apart from a channel's. */
static int srpt_listener_tag;
static struct rdma_cm_id *srpt_listener;	/* under srpt_mutex */
static u16 srpt_listen_port;

static int srpt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (id->context == &srpt_listener_tag) {
		/* a request's id carries the listener's context until taken */
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return srpt_login(id, ev);
		return 0;
	}
	return srpt_ch_event(id->context, ev);
}

static struct rdma_cm_id *srpt_listen_on(struct sockaddr *sa, int *ret)
{
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, srpt_cm_handler, &srpt_listener_tag,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		*ret = PTR_ERR(id);
		return NULL;
	}
	*ret = rdma_bind_addr(id, sa);
	if (!*ret)
		*ret = rdma_listen(id, SRPT_LISTEN_BACKLOG);
	if (*ret) {
		rdma_destroy_id(id);
		return NULL;
	}
	return id;
}

u16 srpt_listener_port(void)
{
	return READ_ONCE(srpt_listen_port);
}

/* Port 0 stops listening; another port replaces the listener. */
void srpt_listener_set(u16 port, int *ret)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *old, *id = NULL;

	*ret = 0;
	if (port) {
		sin6.sin6_port = htons(port);
		sin.sin_port = htons(port);
		/* [::] takes IPv4 too; without IPv6, 0.0.0.0 */
		id = srpt_listen_on((struct sockaddr *)&sin6, ret);
		if (!id)
			id = srpt_listen_on((struct sockaddr *)&sin, ret);
		if (!id) {
			pr_err(SRPT_NAME ": cannot listen on port %u: %d\n",
			       port, *ret);
			return;
		}
	}
	mutex_lock(&srpt_mutex);
	old = srpt_listener;
	srpt_listener = id;
	WRITE_ONCE(srpt_listen_port, port);
	mutex_unlock(&srpt_mutex);
	/* waits for a login running in its handler */
	if (old)
		rdma_destroy_id(old);
}

int srpt_srq_post(struct srpt_rx *rx)
{
	struct ib_device *ibdev = rx->srq->sdev->ibdev;
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = srpt_max_req_size,
		.lkey = rx->srq->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(ibdev, rx->dma, srpt_max_req_size,
				      DMA_FROM_DEVICE);
	return ib_post_srq_recv(rx->srq->srq, &wr, NULL);
}

static void srpt_srq_free(struct srpt_srq *s)
{
	struct ib_device *ibdev = s->sdev->ibdev;
	unsigned int i;

	/* no QP uses it any more: its receives just go */
	if (s->srq)
		ib_destroy_srq(s->srq);
	for (i = 0; s->rx && i < s->n; i++) {
		if (!s->rx[i].buf)
			continue;
		ib_dma_unmap_single(ibdev, s->rx[i].dma, srpt_max_req_size,
				    DMA_FROM_DEVICE);
		kfree(s->rx[i].buf);
	}
	kfree(s->rx);
	kfree(s);
}

static struct srpt_srq *srpt_srq_make(struct srpt_dev *sdev)
{
	struct ib_device *ibdev = sdev->ibdev;
	struct ib_srq_init_attr ia = {};
	struct srpt_srq *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->sdev = sdev;
	s->n = min_t(u32, srpt_srq_size, ibdev->attrs.max_srq_wr);
	ia.attr.max_wr = s->n;
	ia.attr.max_sge = 1;
	ia.srq_type = IB_SRQT_BASIC;
	s->srq = ib_create_srq(sdev->pd, &ia);
	if (IS_ERR(s->srq)) {
		pr_err(SRPT_NAME ": %s: cannot create an SRQ of %u: %ld\n",
		       dev_name(&ibdev->dev), s->n, PTR_ERR(s->srq));
		s->srq = NULL;
		goto err;
	}
	s->rx = kcalloc(s->n, sizeof(*s->rx), GFP_KERNEL);
	if (!s->rx)
		goto err;
	for (i = 0; i < s->n; i++) {
		struct srpt_rx *rx = &s->rx[i];

		rx->buf = kmalloc(srpt_max_req_size, GFP_KERNEL);
		if (!rx->buf)
			goto err;
		rx->dma = ib_dma_map_single(ibdev, rx->buf, srpt_max_req_size,
					    DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, rx->dma)) {
			kfree(rx->buf);
			rx->buf = NULL;
			goto err;
		}
		rx->srq = s;
		rx->cqe.done = srpt_rx_done;
		if (srpt_srq_post(rx))
			goto err;
	}
	pr_info(SRPT_NAME ": %s: shared receive queue of %u\n",
		dev_name(&ibdev->dev), s->n);
	return s;

err:
	srpt_srq_free(s);
	return NULL;
}

/* The device's SRQ, made on first use; it stays until the device goes. */
struct srpt_srq *srpt_srq_get(struct srpt_dev *sdev)
{
	struct srpt_srq *s;

	mutex_lock(&srpt_mutex);
	if (!sdev->srq && !sdev->dying)
		sdev->srq = srpt_srq_make(sdev);
	s = sdev->srq;
	mutex_unlock(&srpt_mutex);
	return s;
}

static void srpt_port_names(struct srpt_port *sp)
{
	union ib_gid gid;
	u8 *g = gid.raw;

	if (rdma_query_gid(sp->sdev->ibdev, sp->num, 0, &gid))
		return;
	snprintf(sp->name[SRPT_FORM_GUID], sizeof(sp->name[0]),
		 "%04x:%04x:%04x:%04x", g[8] << 8 | g[9], g[10] << 8 | g[11],
		 g[12] << 8 | g[13], g[14] << 8 | g[15]);
	snprintf(sp->name[SRPT_FORM_GID], sizeof(sp->name[0]),
		 "0x%016llx%016llx", be64_to_cpu(gid.global.subnet_prefix),
		 be64_to_cpu(gid.global.interface_id));
}

static struct ib_client srpt_client;

static int srpt_add_one(struct ib_device *ibdev)
{
	struct srpt_dev *sdev;
	u32 p;
	int ret;

	sdev = kzalloc(struct_size(sdev, port, ibdev->phys_port_cnt),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->ibdev = ibdev;
	sdev->nr_ports = ibdev->phys_port_cnt;
	sdev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		kfree(sdev);
		return ret;
	}
	mutex_lock(&srpt_mutex);
	if (!srpt_guid)
		srpt_guid = be64_to_cpu(ibdev->node_guid);
	mutex_unlock(&srpt_mutex);
	for (p = 0; p < sdev->nr_ports; p++) {
		struct srpt_port *sp = &sdev->port[p];

		sp->sdev = sdev;
		sp->num = p + 1;
		srpt_port_names(sp);
		if (rdma_protocol_ib(ibdev, sp->num))
			pr_info(SRPT_NAME ": %s port %u: InfiniBand link layer; IB/CM logins and device management MADs are not implemented, logins go through rdma_cm (discovery_auth/rdma_cm_port)\n",
				dev_name(&ibdev->dev), sp->num);
	}
	ib_set_client_data(ibdev, &srpt_client, sdev);
	mutex_lock(&srpt_mutex);
	list_add_tail(&sdev->node, &srpt_devs);
	mutex_unlock(&srpt_mutex);
	pr_debug(SRPT_NAME ": added %s\n", dev_name(&ibdev->dev));
	return 0;
}

/*
 * The device goes: no new login finds it, its channels are closed and
 * released (each release drains its QP, which the device still serves),
 * then the configfs ports that named it are left pointing nowhere.
 */
static void srpt_remove_one(struct ib_device *ibdev, void *data)
{
	struct srpt_dev *sdev = data;
	u32 p;
	int f;

	mutex_lock(&srpt_mutex);
	sdev->dying = true;
	list_del(&sdev->node);
	mutex_unlock(&srpt_mutex);
	srpt_close_matching_sync(NULL, sdev);

	mutex_lock(&srpt_mutex);
	for (p = 0; p < sdev->nr_ports; p++)
		for (f = 0; f < SRPT_NR_FORMS; f++) {
			struct srpt_wwn *w = sdev->port[p].wwn[f];

			if (w)
				w->port = NULL;
			sdev->port[p].wwn[f] = NULL;
		}
	mutex_unlock(&srpt_mutex);
	if (sdev->srq)
		srpt_srq_free(sdev->srq);
	ib_dealloc_pd(sdev->pd);
	kfree(sdev);
}

static struct ib_client srpt_client = {
	.name = "srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

static int __init srpt_init(void)
{
	int ret;

	if (srpt_max_req_size < 996) {
		pr_err(SRPT_NAME ": invalid value %d for kernel module parameter srp_max_req_size -- must be at least 996.\n",
		       srpt_max_req_size);
		return -EINVAL;
	}
	if (srpt_srq_size < 4 || srpt_srq_size > 65535) {
		pr_err(SRPT_NAME ": invalid value %d for kernel module parameter srpt_srq_size -- must be in range [4..65535].\n",
		       srpt_srq_size);
		return -EINVAL;
	}
	srpt_wq = alloc_workqueue("srpt_release", WQ_UNBOUND, 0);
	if (!srpt_wq)
		return -ENOMEM;
	ret = target_register_template(&srpt_fabric_ops);
	if (ret)
		goto err_wq;
	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err(SRPT_NAME ": couldn't register IB client\n");
		goto err_tpl;
	}
	return 0;

err_tpl:
	target_unregister_template(&srpt_fabric_ops);
err_wq:
	destroy_workqueue(srpt_wq);
	return ret;
}

static void __exit srpt_exit(void)
{
	int ret;

	/* configfs (and so every channel) is gone: LIO held our module */
	srpt_listener_set(0, &ret);
	ib_unregister_client(&srpt_client);
	target_unregister_template(&srpt_fabric_ops);
	destroy_workqueue(srpt_wq);
}

module_init(srpt_init);
module_exit(srpt_exit);

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
