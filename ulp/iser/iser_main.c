// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_iser: the "iser" iSCSI transport. open-iscsi's iscsid drives it over
 * scsi_transport_iscsi's netlink: ep_connect/ep_poll make the RDMA
 * connection (iser_conn.c), create_session makes one SCSI host per session,
 * bind_conn ties libiscsi's connection to the endpoint, and libiscsi calls
 * back into iser_xmit.c for every PDU. Module parameters and the sysfs
 * attributes shown are those of 6.1's ib_iser.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <scsi/scsi_cmnd.h>
#include <scsi/scsi_device.h>
#include <scsi/scsi_host.h>

#include "iser.h"

int iser_debug_level;
module_param_named(debug_level, iser_debug_level, int, 0644);
MODULE_PARM_DESC(debug_level, "Enable debug tracing if > 0 (default:disabled)");

static unsigned int iser_max_lun = 512;
unsigned int iser_max_sectors = 1024;

static int iser_set_positive(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || !n)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops iser_positive_ops = {
	.set = iser_set_positive,
	.get = param_get_uint,
};

module_param_cb(max_lun, &iser_positive_ops, &iser_max_lun, 0444);
MODULE_PARM_DESC(max_lun, "Max LUNs to allow per session, should > 0 (default:512)");
module_param_cb(max_sectors, &iser_positive_ops, &iser_max_sectors, 0644);
MODULE_PARM_DESC(max_sectors, "Max number of sectors in a single scsi command, should > 0 (default:1024)");

/* Accepted for 6.1's command lines; this driver registers every buffer. */
static bool iser_always_register = true;
module_param_named(always_register, iser_always_register, bool, 0444);
MODULE_PARM_DESC(always_register, "Always register memory, even for continuous memory regions (default:true)");

/* Accepted; no soft device offers T10-PI, so it stays off. */
static bool iser_pi_enable;
module_param_named(pi_enable, iser_pi_enable, bool, 0444);
MODULE_PARM_DESC(pi_enable, "Enable T10-PI offload support (default:disabled)");

static struct scsi_transport_template *iser_stt;
static struct iscsi_transport iser_transport;

static struct iser_conn *iser_ep_conn(struct iscsi_endpoint *ep)
{
	return *(struct iser_conn **)ep->dd_data;
}

static struct iscsi_endpoint *iser_ep_connect(struct Scsi_Host *shost,
					      struct sockaddr *dst,
					      int non_blocking)
{
	struct iscsi_endpoint *ep;
	struct iser_conn *ic;

	ep = iscsi_create_endpoint(sizeof(ic));
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ic = iser_conn_create(dst);
	if (IS_ERR(ic)) {
		iscsi_destroy_endpoint(ep);
		return ERR_CAST(ic);
	}
	*(struct iser_conn **)ep->dd_data = ic;
	return ep;
}

static int iser_ep_poll(struct iscsi_endpoint *ep, int timeout_ms)
{
	return iser_conn_wait(iser_ep_conn(ep), timeout_ms);
}

/*
 * scsi_transport_iscsi unbinds the connection first; its tasks are failed
 * by the stop_conn that follows, which drops the binding's reference.
 */
static void iser_ep_disconnect(struct iscsi_endpoint *ep)
{
	struct iser_conn *ic = iser_ep_conn(ep);

	iser_conn_terminate(ic);
	iscsi_destroy_endpoint(ep);
	iser_conn_put(ic);
}

static int iser_addr_param(struct iser_conn *ic, enum iscsi_param param,
			   char *buf)
{
	int ret = -ENOTCONN;

	mutex_lock(&ic->mutex);
	if (ic->cm_id)
		ret = iscsi_conn_get_addr_param((struct sockaddr_storage *)
						&ic->cm_id->route.addr.dst_addr,
						param, buf);
	mutex_unlock(&ic->mutex);
	return ret;
}

static int iser_get_ep_param(struct iscsi_endpoint *ep,
			     enum iscsi_param param, char *buf)
{
	switch (param) {
	case ISCSI_PARAM_CONN_ADDRESS:
	case ISCSI_PARAM_CONN_PORT:
		return iser_addr_param(iser_ep_conn(ep), param, buf);
	default:
		return -ENOSYS;
	}
}

static int iser_get_conn_param(struct iscsi_cls_conn *cls_conn,
			       enum iscsi_param param, char *buf)
{
	struct iscsi_endpoint *ep;
	int ret;

	switch (param) {
	case ISCSI_PARAM_CONN_ADDRESS:
	case ISCSI_PARAM_CONN_PORT:
		/* the class's ep_mutex keeps the bound endpoint */
		mutex_lock(&cls_conn->ep_mutex);
		ep = cls_conn->ep;
		ret = ep ? iser_addr_param(iser_ep_conn(ep), param, buf) :
			   -ENOTCONN;
		mutex_unlock(&cls_conn->ep_mutex);
		return ret;
	default:
		return iscsi_conn_get_param(cls_conn, param, buf);
	}
}

/* Digests and markers have no meaning on RDMA: iSER forbids them. */
static int iser_set_param(struct iscsi_cls_conn *cls_conn,
			  enum iscsi_param param, char *buf, int buflen)
{
	int v;

	switch (param) {
	case ISCSI_PARAM_HDRDGST_EN:
	case ISCSI_PARAM_DATADGST_EN:
		if (sscanf(buf, "%d", &v) == 1 && v) {
			iser_err("%s wasn't negotiated to None\n",
				 param == ISCSI_PARAM_HDRDGST_EN ?
				 "HeaderDigest" : "DataDigest");
			return -EPROTO;
		}
		break;
	case ISCSI_PARAM_IFMARKER_EN:
	case ISCSI_PARAM_OFMARKER_EN:
		if (sscanf(buf, "%d", &v) == 1 && v) {
			iser_err("%s wasn't negotiated to No\n",
				 param == ISCSI_PARAM_IFMARKER_EN ?
				 "IFMarker" : "OFMarker");
			return -EPROTO;
		}
		break;
	default:
		break;
	}
	return iscsi_set_param(cls_conn, param, buf, buflen);
}

static void iser_get_stats(struct iscsi_cls_conn *cls_conn,
			   struct iscsi_stats *st)
{
	struct iscsi_conn *conn = cls_conn->dd_data;

	st->txdata_octets = conn->txdata_octets;
	st->rxdata_octets = conn->rxdata_octets;
	st->scsicmd_pdus = conn->scsicmd_pdus_cnt;
	st->dataout_pdus = conn->dataout_pdus_cnt;
	st->scsirsp_pdus = conn->scsirsp_pdus_cnt;
	st->datain_pdus = conn->datain_pdus_cnt;	/* none on iSER */
	st->r2t_pdus = conn->r2t_pdus_cnt;		/* none on iSER */
	st->tmfcmd_pdus = conn->tmfcmd_pdus_cnt;
	st->tmfrsp_pdus = conn->tmfrsp_pdus_cnt;
	st->custom_length = 0;
}

static struct iscsi_cls_conn *iser_create_conn(struct iscsi_cls_session *s,
					       u32 cid)
{
	return iscsi_conn_setup(s, sizeof(struct iser_iconn), cid);
}

static int iser_bind_conn(struct iscsi_cls_session *cls_session,
			  struct iscsi_cls_conn *cls_conn, u64 eph,
			  int is_leading)
{
	struct iscsi_conn *conn = cls_conn->dd_data;
	struct iser_iconn *iic = conn->dd_data;
	struct iscsi_endpoint *ep;
	struct iser_conn *ic;
	int ret;

	ep = iscsi_lookup_endpoint(eph);
	if (!ep)
		return -EINVAL;
	ic = iser_ep_conn(ep);
	ret = iser_conn_bind_resources(ic, conn->session->cmds_max);
	if (ret)
		goto out;
	ret = iscsi_conn_bind(cls_session, cls_conn, is_leading);
	if (ret)
		goto out;
	kref_get(&ic->ref);
	iic->ic = ic;
	spin_lock_bh(&ic->iconn_lock);
	ic->iconn = conn;
	spin_unlock_bh(&ic->iconn_lock);
out:
	iscsi_put_endpoint(ep);
	return ret;
}

static int iser_start_conn(struct iscsi_cls_conn *cls_conn)
{
	struct iscsi_conn *conn = cls_conn->dd_data;
	struct iser_iconn *iic = conn->dd_data;
	int ret;

	if (!iic->ic)
		return -ENOTCONN;
	/* a discovery session goes on with the login buffer (Text) */
	if (!conn->session->discovery_sess) {
		ret = iser_post_rx_all(iic->ic);
		if (ret)
			return ret;
	}
	return iscsi_conn_start(cls_conn);
}

/*
 * After the endpoint's disconnect (scsi_transport_iscsi does that first):
 * libiscsi fails the tasks, whose MRs go back to the connection; then the
 * binding lets go of it.
 */
static void iser_stop_conn(struct iscsi_cls_conn *cls_conn, int flag)
{
	struct iscsi_conn *conn = cls_conn->dd_data;
	struct iser_iconn *iic = conn->dd_data;
	struct iser_conn *ic = iic->ic;

	if (ic)
		iser_conn_terminate(ic);
	iscsi_conn_stop(cls_conn, flag);
	if (ic) {
		iic->ic = NULL;
		iser_conn_put(ic);
	}
}

static void iser_destroy_conn(struct iscsi_cls_conn *cls_conn)
{
	struct iscsi_conn *conn = cls_conn->dd_data;
	struct iser_iconn *iic = conn->dd_data;
	struct iser_conn *ic = iic->ic;

	if (ic)
		iser_conn_terminate(ic);
	iscsi_conn_teardown(cls_conn);
	if (ic) {
		iic->ic = NULL;
		iser_conn_put(ic);
	}
}

static struct scsi_host_template iser_sht = {
	.module = THIS_MODULE,
	.name = "iSCSI Initiator over iSER",
	.queuecommand = iscsi_queuecommand,
	.change_queue_depth = scsi_change_queue_depth,
	.sg_tablesize = 256,
	.cmd_per_lun = ISCSI_DEF_CMD_PER_LUN,
	.eh_timed_out = iscsi_eh_cmd_timed_out,
	.eh_abort_handler = iscsi_eh_abort,
	.eh_device_reset_handler = iscsi_eh_device_reset,
	.eh_target_reset_handler = iscsi_eh_recover_target,
	.target_alloc = iscsi_target_alloc,
	.proc_name = "iscsi_iser",
	.this_id = -1,
	.track_queue_depth = 1,
	.cmd_size = sizeof(struct iscsi_cmd),
};

/* One SCSI host per session, sized by the endpoint's device. */
static struct iscsi_cls_session *iser_create_session(struct iscsi_endpoint *ep,
						     u16 cmds_max, u16 qdepth,
						     u32 initial_cmdsn)
{
	struct iscsi_cls_session *cls_session;
	struct Scsi_Host *shost;
	struct iser_conn *ic;
	struct device *dma_dev;
	unsigned int sgs;

	if (!ep) {
		iser_err("no endpoint: iSER sessions need one\n");
		return NULL;
	}
	ic = iser_ep_conn(ep);
	mutex_lock(&ic->mutex);
	if (ic->state != ISER_UP) {
		mutex_unlock(&ic->mutex);
		return NULL;
	}
	sgs = ic->mr_pages - 1;	/* one page for a buffer not page aligned */
	dma_dev = ic->ibdev->dma_device;
	mutex_unlock(&ic->mutex);

	shost = iscsi_host_alloc(&iser_sht, 0, false);
	if (!shost)
		return NULL;
	shost->transportt = iser_stt;
	shost->cmd_per_lun = qdepth;
	shost->max_lun = iser_max_lun;
	shost->max_id = 0;
	shost->max_channel = 0;
	shost->max_cmd_len = 16;
	shost->sg_tablesize = sgs;
	shost->max_sectors = min_t(unsigned int, iser_max_sectors,
				   sgs * (PAGE_SIZE >> SECTOR_SHIFT));
	/* elements of whole pages between the ends: one MR page list */
	shost->virt_boundary_mask = PAGE_SIZE - 1;
	if (iscsi_host_add(shost, dma_dev))
		goto free_host;

	cls_session = iscsi_session_setup(&iser_transport, shost,
					  min_t(u16, cmds_max, ISER_MAX_CMDS), 0,
					  sizeof(struct iser_task),
					  initial_cmdsn, 0);
	if (!cls_session)
		goto remove_host;
	shost->can_queue = ((struct iscsi_session *)cls_session->dd_data)->scsi_cmds_max;
	return cls_session;

remove_host:
	iscsi_host_remove(shost, false);
free_host:
	iscsi_host_free(shost);
	return NULL;
}

static void iser_destroy_session(struct iscsi_cls_session *cls_session)
{
	struct Scsi_Host *shost = iscsi_session_to_shost(cls_session);

	iscsi_session_remove(cls_session);
	iscsi_host_remove(shost, false);
	iscsi_session_free(cls_session);
	iscsi_host_free(shost);
}

/* The session and connection attributes iscsid and sysfs see (6.1's set). */
static const int iser_shown_params[] = {
	/* connection */
	ISCSI_PARAM_CONN_ADDRESS, ISCSI_PARAM_CONN_PORT,
	ISCSI_PARAM_PERSISTENT_ADDRESS, ISCSI_PARAM_PERSISTENT_PORT,
	ISCSI_PARAM_MAX_RECV_DLENGTH, ISCSI_PARAM_MAX_XMIT_DLENGTH,
	ISCSI_PARAM_HDRDGST_EN, ISCSI_PARAM_DATADGST_EN,
	ISCSI_PARAM_EXP_STATSN, ISCSI_PARAM_PING_TMO, ISCSI_PARAM_RECV_TMO,
	/* session */
	ISCSI_PARAM_TARGET_NAME, ISCSI_PARAM_TPGT, ISCSI_PARAM_INITIATOR_NAME,
	ISCSI_PARAM_IFACE_NAME, ISCSI_PARAM_DISCOVERY_SESS,
	ISCSI_PARAM_INITIAL_R2T_EN, ISCSI_PARAM_IMM_DATA_EN, ISCSI_PARAM_MAX_R2T,
	ISCSI_PARAM_FIRST_BURST, ISCSI_PARAM_MAX_BURST,
	ISCSI_PARAM_PDU_INORDER_EN, ISCSI_PARAM_DATASEQ_INORDER_EN,
	ISCSI_PARAM_USERNAME, ISCSI_PARAM_PASSWORD,
	ISCSI_PARAM_USERNAME_IN, ISCSI_PARAM_PASSWORD_IN,
	ISCSI_PARAM_FAST_ABORT, ISCSI_PARAM_ABORT_TMO,
	ISCSI_PARAM_LU_RESET_TMO, ISCSI_PARAM_TGT_RESET_TMO,
};

static const int iser_shown_host_params[] = {
	ISCSI_HOST_PARAM_HWADDRESS, ISCSI_HOST_PARAM_INITIATOR_NAME,
	ISCSI_HOST_PARAM_NETDEV_NAME,
};

static bool iser_in(const int *list, size_t n, int param)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == param)
			return true;
	return false;
}

static umode_t iser_attr_is_visible(int param_type, int param)
{
	if (param_type == ISCSI_PARAM)
		return iser_in(iser_shown_params, ARRAY_SIZE(iser_shown_params),
			       param) ? 0444 : 0;
	if (param_type == ISCSI_HOST_PARAM)
		return iser_in(iser_shown_host_params,
			       ARRAY_SIZE(iser_shown_host_params), param) ? 0444 : 0;
	return 0;
}

static struct iscsi_transport iser_transport = {
	.owner = THIS_MODULE,
	.name = "iser",
	.caps = CAP_RECOVERY_L0 | CAP_MULTI_R2T | CAP_TEXT_NEGO,
	.create_session = iser_create_session,
	.destroy_session = iser_destroy_session,
	.create_conn = iser_create_conn,
	.bind_conn = iser_bind_conn,
	.unbind_conn = iscsi_conn_unbind,
	.destroy_conn = iser_destroy_conn,
	.attr_is_visible = iser_attr_is_visible,
	.set_param = iser_set_param,
	.get_conn_param = iser_get_conn_param,
	.get_ep_param = iser_get_ep_param,
	.get_session_param = iscsi_session_get_param,
	.get_host_param = iscsi_host_get_param,
	.set_host_param = iscsi_host_set_param,
	.send_pdu = iscsi_conn_send_pdu,
	.start_conn = iser_start_conn,
	.stop_conn = iser_stop_conn,
	.get_stats = iser_get_stats,
	.init_task = iser_init_task,
	.xmit_task = iser_xmit_task,
	.cleanup_task = iser_cleanup_task,
	.alloc_pdu = iser_alloc_pdu,
	.session_recovery_timedout = iscsi_session_recovery_timedout,
	.ep_connect = iser_ep_connect,
	.ep_poll = iser_ep_poll,
	.ep_disconnect = iser_ep_disconnect,
};

static int __init iser_init(void)
{
	if (!iser_max_lun || !iser_max_sectors)
		return -EINVAL;
	iser_stt = iscsi_register_transport(&iser_transport);
	if (!iser_stt) {
		iser_err("iscsi_register_transport failed\n");
		return -EINVAL;
	}
	return 0;
}

static void __exit iser_exit(void)
{
	iscsi_unregister_transport(&iser_transport);
}

module_init(iser_init);
module_exit(iser_exit);

MODULE_DESCRIPTION("iSER (iSCSI Extensions for RDMA) Datamover (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
