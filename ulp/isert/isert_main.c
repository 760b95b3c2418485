// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_isert: registers the "IB/iSER" iscsit_transport. Writing 1 to a
 * portal's configfs "iser" attribute makes iscsi_target_mod load us and
 * call setup_np for a second portal on the same address: an rdma_cm
 * listener. Connections are set up here as they are requested
 * (isert_conn.c) and handed to LIO's login thread by accept_np.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "isert.h"

int isert_debug_level;
module_param_named(debug_level, isert_debug_level, int, 0644);
MODULE_PARM_DESC(debug_level, "Enable debug tracing if > 0 (default:0)");

int isert_sg_tablesize = 128;

static int isert_set_sg_tablesize(const char *val, const struct kernel_param *kp)
{
	int n;

	if (kstrtoint(val, 10, &n) || n < 128 || n > 4096)
		return -EINVAL;
	*(int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops isert_sg_tablesize_ops = {
	.set = isert_set_sg_tablesize,
	.get = param_get_int,
};

module_param_cb(sg_tablesize, &isert_sg_tablesize_ops, &isert_sg_tablesize, 0644);
MODULE_PARM_DESC(sg_tablesize,
		 "Number of gather/scatter entries in a single scsi command, should >= 128 (default: 128, max: 4096)");

static int isert_listener_event(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct isert_np *inp = id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		/* id is the new connection's; nonzero makes rdma_cm drop it */
		return isert_conn_request(inp, id, ev);
	case RDMA_CM_EVENT_DEVICE_REMOVAL: {
		/*
		 * The portal's address was on that device: the listener goes
		 * with it (nonzero: rdma_cm destroys it), as with the stock
		 * stack; free_np then has nothing to destroy.
		 */
		bool ours;

		spin_lock_bh(&inp->lock);
		ours = inp->cm_id == id;
		if (ours)
			inp->cm_id = NULL;
		spin_unlock_bh(&inp->lock);
		isert_err("portal %pISpc: its device is gone, no longer listening\n",
			  &inp->np->np_sockaddr);
		return ours ? 1 : 0;
	}
	default:
		isert_dbg(1, "listener %pISpc: %s\n",
			  &inp->np->np_sockaddr, rdma_event_msg(ev->event));
		return 0;
	}
}

static int isert_conn_event(struct isert_conn *ic, struct rdma_cm_event *ev)
{
	isert_dbg(2, "%s (%d)\n", rdma_event_msg(ev->event), ev->status);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		isert_conn_established(ic);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		/* LIO (or our release work) destroys the id later */
		isert_conn_down(ic);
		break;
	default:
		break;
	}
	return 0;
}

/*
 * One handler for the listener and its connections: a connection's id
 * carries its isert_conn once the request was taken, the listener's (and a
 * request's, until then) the portal's isert_np.
 */
static int isert_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum isert_ctx_kind *kind = id->context;

	if (*kind == ISERT_CTX_NP)
		return isert_listener_event(id, ev);
	return isert_conn_event(id->context, ev);
}

static int isert_np_listen(struct iscsi_np *np, struct sockaddr_storage *addr)
{
	struct rdma_cm_id *id;
	struct isert_np *inp;
	int ret;

	inp = kzalloc(sizeof(*inp), GFP_KERNEL);
	if (!inp)
		return -ENOMEM;
	inp->kind = ISERT_CTX_NP;
	inp->np = np;
	spin_lock_init(&inp->lock);
	INIT_LIST_HEAD(&inp->pending);
	INIT_LIST_HEAD(&inp->ready);
	init_waitqueue_head(&inp->wait);

	id = rdma_create_id(&init_net, isert_cm_handler, inp, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto err_free;
	}
	inp->cm_id = id;
	/* an IPv6 wildcard portal beside an IPv4 one on the same port */
	ret = rdma_set_afonly(id, 1);
	if (ret)
		goto err_id;
	ret = rdma_bind_addr(id, (struct sockaddr *)addr);
	if (ret) {
		isert_err("cannot bind %pISpc: %d\n", addr, ret);
		goto err_id;
	}
	ret = rdma_listen(id, 0);
	if (ret) {
		isert_err("cannot listen on %pISpc: %d\n", addr, ret);
		goto err_id;
	}
	memcpy(&np->np_sockaddr, addr, sizeof(*addr));
	np->np_context = inp;
	isert_dbg(1, "listening on %pISpc\n", addr);
	return 0;

err_id:
	rdma_destroy_id(id);
err_free:
	kfree(inp);
	return ret;
}

/* LIO's login thread: wait for an established connection. */
static int isert_np_accept(struct iscsi_np *np, struct iscsit_conn *conn)
{
	struct isert_np *inp = np->np_context;
	struct isert_conn *ic;
	int ret;

	ret = wait_event_interruptible(inp->wait, !list_empty(&inp->ready) ||
				       READ_ONCE(inp->stopping));
	if (ret)
		return ret;	/* signalled: a reset or a shutdown of the portal */

	spin_lock_bh(&inp->lock);
	if (inp->stopping || list_empty(&inp->ready)) {
		spin_unlock_bh(&inp->lock);
		return -ENODEV;
	}
	ic = list_first_entry(&inp->ready, struct isert_conn, np_node);
	list_del_init(&ic->np_node);
	WRITE_ONCE(ic->inp, NULL);
	spin_unlock_bh(&inp->lock);

	spin_lock_bh(&ic->lock);
	ic->conn = conn;
	spin_unlock_bh(&ic->lock);
	conn->context = ic;
	memcpy(&conn->login_sockaddr, &ic->cm_id->route.addr.dst_addr,
	       sizeof(conn->login_sockaddr));
	memcpy(&conn->local_sockaddr, &ic->cm_id->route.addr.src_addr,
	       sizeof(conn->local_sockaddr));
	isert_dbg(1, "connection from %pISpc\n", &conn->login_sockaddr);
	return 0;
}

static void isert_np_close(struct iscsi_np *np)
{
	struct isert_np *inp = np->np_context;
	struct isert_conn *ic, *next;
	struct rdma_cm_id *listener;
	LIST_HEAD(orphans);

	spin_lock_bh(&inp->lock);
	inp->stopping = true;
	listener = inp->cm_id;
	inp->cm_id = NULL;
	spin_unlock_bh(&inp->lock);
	wake_up_all(&inp->wait);
	/* no handler runs on the listener after this */
	if (listener)
		rdma_destroy_id(listener);

	spin_lock_bh(&inp->lock);
	list_splice_init(&inp->pending, &orphans);
	list_splice_init(&inp->ready, &orphans);
	list_for_each_entry(ic, &orphans, np_node)
		WRITE_ONCE(ic->inp, NULL);
	spin_unlock_bh(&inp->lock);
	list_for_each_entry_safe(ic, next, &orphans, np_node) {
		list_del_init(&ic->np_node);
		isert_conn_release(ic);
	}
	/* those that went down before: the module may go once we return */
	flush_workqueue(isert_release_wq);
	np->np_context = NULL;
	kfree(inp);
}

static enum target_prot_op isert_prot_ops(struct iscsit_conn *conn)
{
	/* no soft device offers signature offload */
	return TARGET_PROT_NORMAL;
}

static void isert_abort_cmd(struct iscsit_conn *conn, struct iscsit_cmd *cmd)
{
	iscsit_aborted_task(conn, cmd);
}

/* Only LIO's own TCP queue functions call this: never for us. */
static int isert_generic_send(struct iscsit_conn *conn, struct iscsit_cmd *cmd,
			  struct iscsi_datain_req *dr, const void *buf, u32 len)
{
	isert_err("unexpected PDU 0x%02x from the generic send path\n",
		  cmd->iscsi_opcode);
	return -EINVAL;
}

/*
 * rdma_shutdown stays false: the logout post handler runs in LIO's TX
 * thread, as for TCP, after isert_send_queued saw the Logout Response
 * sent.
 */
static struct iscsit_transport isert_transport = {
	.name = "IB/iSER",
	.transport_type = ISCSI_INFINIBAND,
	.rdma_shutdown = false,
	.priv_size = sizeof(struct isert_cmd),
	.owner = THIS_MODULE,
	.iscsit_setup_np = isert_np_listen,
	.iscsit_accept_np = isert_np_accept,
	.iscsit_free_np = isert_np_close,
	.iscsit_wait_conn = isert_conn_closing,
	.iscsit_free_conn = isert_conn_freed,
	.iscsit_get_login_rx = isert_login_recv,
	.iscsit_put_login_tx = isert_login_send,
	.iscsit_immediate_queue = isert_send_immediate,
	.iscsit_response_queue = isert_send_queued,
	.iscsit_get_dataout = isert_fetch_write_data,
	.iscsit_queue_data_in = isert_send_read_data,
	.iscsit_queue_status = isert_send_status,
	.iscsit_aborted_task = isert_abort_cmd,
	.iscsit_xmit_pdu = isert_generic_send,
	.iscsit_unmap_cmd = isert_cmd_unmap,
	.iscsit_get_rx_pdu = isert_rx_thread,
	.iscsit_get_sup_prot_ops = isert_prot_ops,
};

struct workqueue_struct *isert_release_wq;

static int __init isert_init(void)
{
	isert_release_wq = alloc_workqueue("isert_release_wq", WQ_UNBOUND, 0);
	if (!isert_release_wq)
		return -ENOMEM;
	iscsit_register_transport(&isert_transport);
	return 0;
}

static void __exit isert_exit(void)
{
	/* LIO holds a module reference for every portal and connection */
	iscsit_unregister_transport(&isert_transport);
	destroy_workqueue(isert_release_wq);
}

module_init(isert_init);
module_exit(isert_exit);

MODULE_DESCRIPTION("iSER-Target for mainline target infrastructure (rdma-kmod)");
MODULE_LICENSE("Dual BSD/GPL");
