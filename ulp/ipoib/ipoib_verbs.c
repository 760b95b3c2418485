// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The verbs objects of one interface: its PD, the CQ both work queues
 * complete on, the UD QP and its state changes, and reference-counted
 * address handles (a send keeps its AH alive until it completes).
 */
#include "ipoib.h"

int ipoib_verbs_create(struct ipoib_priv *priv)
{
	struct ib_qp_init_attr qpa = {};
	struct ib_cq_init_attr cqa = {};
	int ret;

	priv->pd = ib_alloc_pd(priv->ca, 0);
	if (IS_ERR(priv->pd)) {
		ret = PTR_ERR(priv->pd);
		goto fail;
	}

	cqa.cqe = priv->rx_size + priv->tx_size;
	cqa.comp_vector = priv->port - 1;
	if (cqa.comp_vector >= priv->ca->num_comp_vectors)
		cqa.comp_vector = 0;
	priv->cq = ib_create_cq(priv->ca, ipoib_cq_event, NULL, priv, &cqa);
	if (IS_ERR(priv->cq)) {
		ret = PTR_ERR(priv->cq);
		goto free_pd;
	}

	qpa.qp_type = IB_QPT_UD;
	qpa.send_cq = priv->cq;
	qpa.recv_cq = priv->cq;
	qpa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qpa.cap.max_send_wr = priv->tx_size;
	qpa.cap.max_recv_wr = priv->rx_size;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.qp_context = priv;
	priv->qp = ib_create_qp(priv->pd, &qpa);
	if (IS_ERR(priv->qp)) {
		ret = PTR_ERR(priv->qp);
		goto free_cq;
	}
	return 0;

free_cq:
	ib_destroy_cq(priv->cq);
free_pd:
	ib_dealloc_pd(priv->pd);
fail:
	priv->qp = NULL;
	priv->cq = NULL;
	priv->pd = NULL;
	return ret;
}

void ipoib_verbs_destroy(struct ipoib_priv *priv)
{
	if (priv->qp)
		ib_destroy_qp(priv->qp);
	if (priv->cq)
		ib_destroy_cq(priv->cq);
	if (priv->pd)
		ib_dealloc_pd(priv->pd);
	priv->qp = NULL;
	priv->cq = NULL;
	priv->pd = NULL;
}

/* RESET -> INIT -> RTR -> RTS with the P_Key index found at bring-up. */
int ipoib_qp_start(struct ipoib_priv *priv)
{
	struct ib_qp_attr a = {};
	int ret;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = priv->pkey_index;
	a.port_num = priv->port;
	a.qkey = priv->qkey;
	ret = ib_modify_qp(priv->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		goto fail;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(priv->qp, &a, IB_QP_STATE);
	if (ret)
		goto fail;

	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0;
	ret = ib_modify_qp(priv->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN);
	if (ret)
		goto fail;
	return 0;

fail:
	netdev_warn(priv->dev, "QP %#x does not start: %d\n",
		    priv->qp->qp_num, ret);
	ipoib_qp_reset(priv);
	return ret;
}

int ipoib_qp_to_error(struct ipoib_priv *priv)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(priv->qp, &a, IB_QP_STATE);
}

int ipoib_qp_reset(struct ipoib_priv *priv)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RESET };

	return ib_modify_qp(priv->qp, &a, IB_QP_STATE);
}

/* The Q_Key comes from the broadcast group, after the QP is in RTS. */
int ipoib_qp_set_qkey(struct ipoib_priv *priv, u32 qkey)
{
	struct ib_qp_attr a = { .qkey = qkey };
	int ret;

	ret = ib_modify_qp(priv->qp, &a, IB_QP_QKEY);
	if (!ret)
		priv->qkey = qkey;
	return ret;
}

struct ipoib_ah *ipoib_ah_create(struct ipoib_priv *priv,
				 struct rdma_ah_attr *attr)
{
	struct ipoib_ah *ah = kmalloc(sizeof(*ah), GFP_KERNEL);
	struct ib_ah *ib_ah;

	if (!ah)
		return ERR_PTR(-ENOMEM);
	ib_ah = rdma_create_ah(priv->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ib_ah)) {
		kfree(ah);
		return ERR_CAST(ib_ah);
	}
	ah->ah = ib_ah;
	kref_init(&ah->ref);
	return ah;
}

static void ipoib_ah_release(struct kref *ref)
{
	struct ipoib_ah *ah = container_of(ref, struct ipoib_ah, ref);

	/* The last put may come from a send completion: no sleeping. */
	rdma_destroy_ah(ah->ah, 0);
	kfree(ah);
}

void ipoib_ah_put(struct ipoib_ah *ah)
{
	kref_put(&ah->ref, ipoib_ah_release);
}
