// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connected mode, receive side. One SRQ per interface feeds every passive
 * RC QP; each of its buffers is a small skb head for the headers and then
 * enough pages for the largest RC packet. A completion hands the head and
 * the pages the packet used to the stack and refills only those; the
 * unused pages stay in the slot.
 *
 * The listener (service ID = IETF prefix | our UD QPN) accepts a REQ while
 * the interface runs and has room, with an "inbound link": a passive QP in
 * RTS, its REP carrying our UD QPN and receive size. An inbound link goes
 * on the peer's DREQ or a failed REP (from its callback, by returning
 * non-zero), when idle too long (the reaper), or with the interface;
 * whoever sets its "taken" flag tears it down.
 */
#include <asm/unaligned.h>
#include "ipoib.h"

static unsigned int ipoib_cm_pages_used(unsigned int len)
{
	if (len <= IPOIB_CM_RX_HEAD)
		return 0;
	return DIV_ROUND_UP(len - IPOIB_CM_RX_HEAD, PAGE_SIZE);
}

static int ipoib_cm_head_new(struct ipoib_priv *priv,
			     struct ipoib_cm_rx_slot *slot, gfp_t gfp)
{
	struct sk_buff *skb;
	u64 dma;

	/*
	 * 12 bytes more put the IP header, after the 4-byte one, on 16.
	 * The sender's address goes into the headroom in front.
	 */
	BUILD_BUG_ON(NET_SKB_PAD + 12 < IPOIB_DEST_LEN);
	skb = __netdev_alloc_skb(priv->dev, IPOIB_CM_RX_HEAD + 12, gfp);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, 12);
	dma = ib_dma_map_single(priv->ca, skb->data, IPOIB_CM_RX_HEAD,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, dma)) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	slot->skb = skb;
	slot->head_dma = dma;
	return 0;
}

static int ipoib_cm_page_new(struct ipoib_priv *priv,
			     struct ipoib_cm_rx_slot *slot, unsigned int i,
			     gfp_t gfp)
{
	struct page *page = alloc_page(gfp);
	u64 dma;

	if (!page)
		return -ENOMEM;
	dma = ib_dma_map_page(priv->ca, page, 0, PAGE_SIZE, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, dma)) {
		__free_page(page);
		return -EIO;
	}
	slot->pages[i] = page;
	slot->page_dma[i] = dma;
	return 0;
}

static void ipoib_cm_slot_free(struct ipoib_priv *priv,
			       struct ipoib_cm_rx_slot *slot)
{
	unsigned int i;

	if (slot->skb) {
		ib_dma_unmap_single(priv->ca, slot->head_dma,
				    IPOIB_CM_RX_HEAD, DMA_FROM_DEVICE);
		dev_kfree_skb_any(slot->skb);
		slot->skb = NULL;
	}
	for (i = 0; i < IPOIB_CM_RX_PAGES; i++) {
		if (!slot->pages[i])
			continue;
		ib_dma_unmap_page(priv->ca, slot->page_dma[i], PAGE_SIZE,
				  DMA_FROM_DEVICE);
		__free_page(slot->pages[i]);
		slot->pages[i] = NULL;
	}
}

static int ipoib_cm_rx_post(struct ipoib_priv *priv, unsigned int n)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_rx_slot *slot = &cm->rx_ring[n];
	struct ib_sge sge[1 + IPOIB_CM_RX_PAGES];
	struct ib_recv_wr wr = {
		.wr_id = n,
		.sg_list = sge,
		.num_sge = 1 + cm->rx_pages,
	};
	unsigned int i;

	sge[0].addr = slot->head_dma;
	sge[0].length = IPOIB_CM_RX_HEAD;
	sge[0].lkey = priv->pd->local_dma_lkey;
	for (i = 0; i < cm->rx_pages; i++) {
		sge[i + 1].addr = slot->page_dma[i];
		sge[i + 1].length = PAGE_SIZE;
		sge[i + 1].lkey = priv->pd->local_dma_lkey;
	}
	return ib_post_srq_recv(cm->srq, &wr, NULL);
}

static int ipoib_cm_rx_fill(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	unsigned int n, i;
	int ret;

	for (n = 0; n < cm->rx_size; n++) {
		ret = ipoib_cm_head_new(priv, &cm->rx_ring[n], GFP_KERNEL);
		for (i = 0; !ret && i < cm->rx_pages; i++)
			ret = ipoib_cm_page_new(priv, &cm->rx_ring[n], i,
						GFP_KERNEL);
		if (!ret)
			ret = ipoib_cm_rx_post(priv, n);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sender of a packet whose link is gone already. */
static const u8 ipoib_cm_nobody[INFINIBAND_ALEN];

/* A receive completion from the SRQ (NAPI, under rcu_read_lock). */
void ipoib_cm_rx_done(struct ipoib_priv *priv, const struct ib_wc *wc)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct net_device *dev = priv->dev;
	struct ipoib_cm_rx_slot *slot, fresh = {};
	unsigned int n = wc->wr_id, used, len, rest, sz, i;
	struct ipoib_cm_in *in;
	struct sk_buff *skb;

	if (WARN_ON_ONCE(n >= cm->rx_size))
		return;
	slot = &cm->rx_ring[n];
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			dev->stats.rx_errors++;
		goto repost;
	}
	/* Keyed by the pointer: a QP already destroyed is not looked at. */
	in = xa_load(&cm->in_by_qp, (unsigned long)wc->qp);
	if (in && time_after(jiffies, READ_ONCE(in->last_rx) + HZ))
		WRITE_ONCE(in->last_rx, jiffies);

	/* More than the buffer holds is the device's error: dropped. */
	len = wc->byte_len;
	used = ipoib_cm_pages_used(len);
	if (len < IPOIB_WIRE_LEN || used > cm->rx_pages) {
		dev->stats.rx_length_errors++;
		dev->stats.rx_errors++;
		goto repost;
	}
	/* Fresh memory for what the packet took, or it is dropped. */
	if (ipoib_cm_head_new(priv, &fresh, GFP_ATOMIC))
		goto nomem;
	for (i = 0; i < used; i++)
		if (ipoib_cm_page_new(priv, &fresh, i, GFP_ATOMIC))
			goto nomem;

	skb = slot->skb;
	ib_dma_unmap_single(priv->ca, slot->head_dma, IPOIB_CM_RX_HEAD,
			    DMA_FROM_DEVICE);
	sz = min_t(unsigned int, len, IPOIB_CM_RX_HEAD);
	skb_put(skb, sz);
	rest = len - sz;
	for (i = 0; i < used; i++) {
		sz = min_t(unsigned int, rest, PAGE_SIZE);
		ib_dma_unmap_page(priv->ca, slot->page_dma[i], PAGE_SIZE,
				  DMA_FROM_DEVICE);
		skb_add_rx_frag(skb, i, slot->pages[i], 0, sz, PAGE_SIZE);
		rest -= sz;
		slot->pages[i] = fresh.pages[i];
		slot->page_dma[i] = fresh.page_dma[i];
	}
	slot->skb = fresh.skb;
	slot->head_dma = fresh.head_dma;
	if (ipoib_cm_rx_post(priv, n))
		dev->stats.rx_errors++;
	skb->pkt_type = PACKET_HOST;
	ipoib_rx_up(priv, &cm->napi, skb, in ? in->peer : ipoib_cm_nobody);
	return;

nomem:
	ipoib_cm_slot_free(priv, &fresh);
	dev->stats.rx_dropped++;
repost:
	if (ipoib_cm_rx_post(priv, n))
		dev->stats.rx_errors++;
}

/* ------------------------------------------------------------ links */

/* True if the caller now owns @in's teardown. */
static bool ipoib_cm_in_take(struct ipoib_priv *priv, struct ipoib_cm_in *in)
{
	bool mine;

	spin_lock_bh(&priv->lock);
	mine = !in->taken;
	if (mine) {
		in->taken = true;
		list_del_init(&in->entry);
	}
	spin_unlock_bh(&priv->lock);
	return mine;
}

/* The QP and the memory of a taken link whose cm_id is gone or going. */
static void ipoib_cm_in_release(struct ipoib_priv *priv,
				struct ipoib_cm_in *in)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	ib_modify_qp(in->qp, &a, IB_QP_STATE);
	xa_erase(&priv->cm.in_by_qp, (unsigned long)in->qp);
	ib_destroy_qp(in->qp);
	spin_lock_bh(&priv->lock);
	priv->cm.n_in--;
	spin_unlock_bh(&priv->lock);
	kfree_rcu(in, rcu);
}

/* A taken link, not from its own callback: the peer gets a DREQ. */
static void ipoib_cm_in_free(struct ipoib_priv *priv, struct ipoib_cm_in *in)
{
	ib_destroy_cm_id(in->cm_id);
	ipoib_cm_in_release(priv, in);
}

/* A REQ on our service ID; non-zero rejects it (ib_cm sends the REJ). */
static int ipoib_cm_in_accept(struct ipoib_priv *priv, struct ib_cm_id *cm_id,
			      const struct ib_cm_event *ev)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	const struct ipoib_cm_wire_data *pdata = ev->private_data;
	struct ipoib_cm_state *cm = &priv->cm;
	struct ib_cm_rep_param rep = {};
	struct ipoib_cm_wire_data data;
	struct ipoib_cm_in *in;
	u32 peer_qpn;
	bool room;
	int ret;

	/* The peer's UD QPN (its high byte is not ours to read). */
	peer_qpn = pdata ? be32_to_cpu(pdata->qpn) & IPOIB_MC_QPN : 0;
	if (!peer_qpn || peer_qpn == IPOIB_MC_QPN || !req->primary_path) {
		ipoib_dbg(priv, "REQ refused: UD QPN %#x\n", peer_qpn);
		return -EINVAL;
	}

	down_read(&cm->accepting);
	spin_lock_bh(&priv->lock);
	room = cm->running && cm->n_in < IPOIB_CM_MAX_IN;
	if (room)
		cm->n_in++;
	spin_unlock_bh(&priv->lock);
	if (!room) {
		ipoib_dbg(priv, "REQ refused: %u inbound links\n",
			  cm->n_in);
		up_read(&cm->accepting);
		return -ENOMEM;
	}

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	if (!in) {
		ret = -ENOMEM;
		goto unroom;
	}
	INIT_LIST_HEAD(&in->entry);
	in->priv = priv;
	in->cm_id = cm_id;
	/* Its address, as the link header of what it sends us. */
	put_unaligned_be32(peer_qpn, in->peer);
	in->peer[0] = IPOIB_HWADDR_RC;
	memcpy(in->peer + 4, req->primary_path->dgid.raw, sizeof(union ib_gid));
	in->qp = ipoib_cm_create_qp(priv, 1, in);
	if (IS_ERR(in->qp)) {
		ret = PTR_ERR(in->qp);
		goto free;
	}
	ret = ipoib_cm_qp_step(cm_id, in->qp, IB_QPS_INIT);
	if (!ret)
		ret = ipoib_cm_qp_step(cm_id, in->qp, IB_QPS_RTR);
	if (!ret)
		ret = ipoib_cm_qp_step(cm_id, in->qp, IB_QPS_RTS);
	if (ret)
		goto destroy;
	ret = xa_insert(&cm->in_by_qp, (unsigned long)in->qp, in, GFP_KERNEL);
	if (ret)
		goto destroy;
	in->last_rx = jiffies;
	cm_id->context = in;

	spin_lock_bh(&priv->lock);
	if (!cm->running) {
		spin_unlock_bh(&priv->lock);
		ret = -ENODEV;
		goto erase;
	}
	list_add_tail(&in->entry, &cm->ins);
	spin_unlock_bh(&priv->lock);

	data.qpn = cpu_to_be32(priv->qp->qp_num);
	data.rx_size = cpu_to_be32(cm->max_mtu + IPOIB_WIRE_LEN);
	rep.qp_num = in->qp->qp_num;
	/* What our QP, in RTR already, expects (the REQ's PSN). */
	rep.starting_psn = req->starting_psn;
	rep.private_data = &data;
	rep.private_data_len = sizeof(data);
	rep.rnr_retry_count = req->rnr_retry_count;
	rep.srq = 1;
	ret = ib_send_cm_rep(cm_id, &rep);
	up_read(&cm->accepting);
	if (ret) {
		ipoib_dbg(priv, "REP not sent: %d\n", ret);
		/* Someone else took it: they destroy the cm_id. */
		if (!ipoib_cm_in_take(priv, in))
			return 0;
		ipoib_cm_in_release(priv, in);
		return ret;
	}
	return 0;

erase:
	xa_erase(&cm->in_by_qp, (unsigned long)in->qp);
destroy:
	ib_destroy_qp(in->qp);
free:
	kfree(in);
unroom:
	spin_lock_bh(&priv->lock);
	cm->n_in--;
	spin_unlock_bh(&priv->lock);
	up_read(&cm->accepting);
	ipoib_dbg(priv, "REQ refused: %d\n", ret);
	return ret;
}

/* ib_cm callback of the listener (REQ) and of every inbound link. */
static int ipoib_cm_in_handler(struct ib_cm_id *cm_id,
			       const struct ib_cm_event *ev)
{
	struct ipoib_cm_in *in;

	if (ev->event == IB_CM_REQ_RECEIVED)
		return ipoib_cm_in_accept(cm_id->context, cm_id, ev);
	in = cm_id->context;
	switch (ev->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		WRITE_ONCE(in->last_rx, jiffies);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		fallthrough;
	case IB_CM_REJ_RECEIVED:
	case IB_CM_REP_ERROR:
		if (!ipoib_cm_in_take(in->priv, in))
			return 0;
		ipoib_cm_in_release(in->priv, in);
		/* ib_cm destroys the cm_id. */
		return 1;
	default:
		return 0;
	}
}

/* SRQ, its buffers, the listener; the RC CQ exists. */
int ipoib_cm_rx_start(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ib_srq_init_attr sa = {};
	struct ib_cm_id *listen;
	int ret;

	cm->rx_ring = kvcalloc(cm->rx_size, sizeof(*cm->rx_ring), GFP_KERNEL);
	if (!cm->rx_ring)
		return -ENOMEM;
	sa.srq_type = IB_SRQT_BASIC;
	sa.attr.max_wr = cm->rx_size;
	sa.attr.max_sge = 1 + cm->rx_pages;
	cm->srq = ib_create_srq(priv->pd, &sa);
	if (IS_ERR(cm->srq)) {
		ret = PTR_ERR(cm->srq);
		cm->srq = NULL;
		goto free;
	}
	ret = ipoib_cm_rx_fill(priv);
	if (ret)
		goto free;

	listen = ib_create_cm_id(priv->ca, ipoib_cm_in_handler, priv);
	if (IS_ERR(listen)) {
		ret = PTR_ERR(listen);
		goto free;
	}
	spin_lock_bh(&priv->lock);
	cm->running = true;
	spin_unlock_bh(&priv->lock);
	ret = ib_cm_listen(listen, cpu_to_be64(IPOIB_CM_SID_PREFIX |
					       priv->qp->qp_num));
	if (ret) {
		spin_lock_bh(&priv->lock);
		cm->running = false;
		spin_unlock_bh(&priv->lock);
		ib_destroy_cm_id(listen);
		goto free;
	}
	cm->listen = listen;
	return 0;

free:
	ipoib_cm_srq_free(priv);
	return ret;
}

/* No more REQs; every inbound link goes. cm.running is false. */
void ipoib_cm_rx_stop(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_in *in, *tmp;
	LIST_HEAD(gone);

	if (cm->listen) {
		ib_destroy_cm_id(cm->listen);
		cm->listen = NULL;
	}
	/* REQ handlers still at work see running false or are listed. */
	down_write(&cm->accepting);
	up_write(&cm->accepting);

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(in, tmp, &cm->ins, entry) {
		in->taken = true;
		list_move_tail(&in->entry, &gone);
	}
	spin_unlock_bh(&priv->lock);
	list_for_each_entry_safe(in, tmp, &gone, entry) {
		list_del_init(&in->entry);
		ipoib_cm_in_free(priv, in);
	}
}

/* Inbound links that received nothing for IPOIB_CM_IDLE. */
void ipoib_cm_in_reap(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ipoib_cm_in *in, *tmp;
	LIST_HEAD(old);

	spin_lock_bh(&priv->lock);
	list_for_each_entry_safe(in, tmp, &cm->ins, entry) {
		if (time_before(jiffies, READ_ONCE(in->last_rx) + IPOIB_CM_IDLE))
			continue;
		in->taken = true;
		list_move_tail(&in->entry, &old);
	}
	spin_unlock_bh(&priv->lock);
	list_for_each_entry_safe(in, tmp, &old, entry) {
		list_del_init(&in->entry);
		ipoib_dbg(priv, "inbound link QP %#x idle, closed\n",
			  in->qp->qp_num);
		ipoib_cm_in_free(priv, in);
	}
}

/*
 * Every QP on the SRQ is gone and NAPI is off: the SRQ goes, what is left
 * on the CQ is read and ignored, and the buffers are ours again.
 */
void ipoib_cm_srq_free(struct ipoib_priv *priv)
{
	struct ipoib_cm_state *cm = &priv->cm;
	struct ib_wc wc[8];
	unsigned int n;

	if (cm->srq) {
		ib_destroy_srq(cm->srq);
		cm->srq = NULL;
	}
	if (cm->cq)
		while (ib_poll_cq(cm->cq, ARRAY_SIZE(wc), wc) > 0)
			;
	if (!cm->rx_ring)
		return;
	for (n = 0; n < cm->rx_size; n++)
		ipoib_cm_slot_free(priv, &cm->rx_ring[n]);
	kvfree(cm->rx_ring);
	cm->rx_ring = NULL;
}
