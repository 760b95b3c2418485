// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The server transport class "rdma" (ident 256, 1 MiB payload, ULP.md
 * 7.1) and its svc_xprt_ops. The work is done in svc_listen.c (listener,
 * accept), svc_qp.c (per-connection resources), svc_recv.c and
 * svc_send.c; what is left here is the class, the small methods and the
 * two-stage teardown.
 */
#include <linux/module.h>
#include <linux/sunrpc/svc.h>
#include <linux/sunrpc/xprt.h>

#include "rpcrdma.h"
#include "svc_conn.h"

/*
 * Freeing a transport sleeps (QP drain, rdma_destroy_id) and sunrpc may
 * drop the last reference anywhere, so it is done here; module exit
 * flushes this queue before the code goes away.
 */
struct workqueue_struct *svcr_wq;

/* RDMA does its own flow control (credits): there is always room. */
static int svcr_has_wspace(struct svc_xprt *xprt)
{
	return 1;
}

/* The client uses no reserved port: every RDMA request counts as secure. */
static void svcr_secure_port(struct svc_rqst *rqstp)
{
	set_bit(RQ_SECURE, &rqstp->rq_flags);
}

static void svcr_kill_temp_xprt(struct svc_xprt *xprt)
{
}

/* sunrpc is done with the transport: stop the traffic, keep the memory. */
static void svcr_detach(struct svc_xprt *xprt)
{
	struct svcr_xprt *x = to_svcr(xprt);

	if (x->listener) {
		svcr_listener_detach(x);
		return;
	}
	spin_lock_bh(&x->lock);
	x->closing = true;
	spin_unlock_bh(&x->lock);
	wake_up_all(&x->send_wait);
	rdma_disconnect(x->cm_id);
}

static void svcr_free_work(struct work_struct *work)
{
	struct svcr_xprt *x = container_of(work, struct svcr_xprt, free_work);

	if (x->listener) {
		svcr_listener_free(x);
	} else {
		svcr_conn_teardown(x);
		kfree(x);
	}
}

static void svcr_free(struct svc_xprt *xprt)
{
	struct svcr_xprt *x = to_svcr(xprt);

	INIT_WORK(&x->free_work, svcr_free_work);
	queue_work(svcr_wq, &x->free_work);
}

static const struct svc_xprt_ops svcr_ops = {
	.xpo_create		= svcr_create,
	.xpo_accept		= svcr_accept,
	.xpo_has_wspace		= svcr_has_wspace,
	.xpo_recvfrom		= svcr_recvfrom,
	.xpo_sendto		= svcr_sendto,
	.xpo_result_payload	= svcr_result_payload,
	.xpo_release_ctxt	= svcr_release_ctxt,
	.xpo_detach		= svcr_detach,
	.xpo_free		= svcr_free,
	.xpo_secure_port	= svcr_secure_port,
	.xpo_kill_temp_xprt	= svcr_kill_temp_xprt,
};

struct svc_xprt_class svcr_class = {
	.xcl_name		= "rdma",
	.xcl_owner		= THIS_MODULE,
	.xcl_ops		= &svcr_ops,
	.xcl_max_payload	= RPCSVC_MAXPAYLOAD,
	.xcl_ident		= XPRT_TRANSPORT_RDMA,
};

int rpcrdma_svc_init(void)
{
	int err;

	svcr_wq = alloc_workqueue("svcrdma", WQ_UNBOUND, 0);
	if (!svcr_wq)
		return -ENOMEM;
	err = svcr_sysctl_init();
	if (err)
		goto err_wq;
	err = svc_reg_xprt_class(&svcr_class);
	if (err)
		goto err_sysctl;
	err = svcr_bc_init();
	if (err)
		goto err_class;
	return 0;

err_class:
	svc_unreg_xprt_class(&svcr_class);
err_sysctl:
	svcr_sysctl_exit();
err_wq:
	destroy_workqueue(svcr_wq);
	return err;
}

void rpcrdma_svc_exit(void)
{
	svcr_bc_exit();
	svc_unreg_xprt_class(&svcr_class);
	svcr_sysctl_exit();
	/* transports sunrpc already let go of may still be tearing down */
	destroy_workqueue(svcr_wq);
}
