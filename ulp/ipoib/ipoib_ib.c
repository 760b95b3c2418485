// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The UD data path: a ring of receive buffers (each a GRH area, the
 * 4-byte IPoIB header and up to an IB MTU of payload), a ring of sends,
 * and the NAPI poll that takes completions of both off the one CQ.
 */
#include <linux/delay.h>
#include <asm/unaligned.h>
#include <rdma/ib_hdrs.h>
#include "ipoib.h"

/* Completions taken off the CQ per ib_poll_cq() call. */
#define IPOIB_POLL_BATCH	16

int ipoib_rings_alloc(struct ipoib_priv *priv)
{
	priv->rx_ring = kvcalloc(priv->rx_size, sizeof(*priv->rx_ring),
				 GFP_KERNEL);
	priv->tx_ring = kvcalloc(priv->tx_size, sizeof(*priv->tx_ring),
				 GFP_KERNEL);
	if (!priv->rx_ring || !priv->tx_ring) {
		ipoib_rings_free(priv);
		return -ENOMEM;
	}
	return 0;
}

void ipoib_rings_free(struct ipoib_priv *priv)
{
	kvfree(priv->rx_ring);
	kvfree(priv->tx_ring);
	priv->rx_ring = NULL;
	priv->tx_ring = NULL;
}

/* ------------------------------------------------------------ receive */

static int ipoib_rx_post(struct ipoib_priv *priv, unsigned int i)
{
	struct ipoib_rx_slot *slot = &priv->rx_ring[i];
	struct ib_sge sge = {
		.addr = slot->dma,
		.length = priv->rx_buf_len,
		.lkey = priv->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(priv->qp, &wr, NULL);
}

/* A fresh buffer for slot @i, mapped; the old one (if any) untouched. */
static int ipoib_rx_new_buf(struct ipoib_priv *priv, unsigned int i,
			    gfp_t gfp)
{
	struct ipoib_rx_slot *slot = &priv->rx_ring[i];
	struct sk_buff *skb;
	u64 dma;

	/* 4 more bytes put the IP header, after GRH + 4, on 16 bytes. */
	skb = __netdev_alloc_skb(priv->dev, priv->rx_buf_len + 4, gfp);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, 4);
	dma = ib_dma_map_single(priv->ca, skb->data, priv->rx_buf_len,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(priv->ca, dma)) {
		dev_kfree_skb_any(skb);
		return -EIO;
	}
	slot->skb = skb;
	slot->dma = dma;
	return 0;
}

static void ipoib_rx_unmap(struct ipoib_priv *priv, struct ipoib_rx_slot *slot)
{
	ib_dma_unmap_single(priv->ca, slot->dma, priv->rx_buf_len,
			    DMA_FROM_DEVICE);
}

int ipoib_rx_fill(struct ipoib_priv *priv)
{
	unsigned int i;
	int ret;

	for (i = 0; i < priv->rx_size; i++) {
		ret = ipoib_rx_new_buf(priv, i, GFP_KERNEL);
		if (ret)
			return ret;
		ret = ipoib_rx_post(priv, i);
		if (ret) {
			netdev_warn(priv->dev, "receive post failed: %d\n",
				    ret);
			return ret;
		}
	}
	return 0;
}

static void ipoib_rx_drop_slot(struct ipoib_priv *priv, unsigned int i)
{
	struct ipoib_rx_slot *slot = &priv->rx_ring[i];

	if (!slot->skb)
		return;
	ipoib_rx_unmap(priv, slot);
	dev_kfree_skb_any(slot->skb);
	slot->skb = NULL;
}

/*
 * @skb (data at the 4-byte IPoIB header) to the stack. In front of that
 * header goes the sender's hardware address @src, as far as it is known:
 * the 24 bytes are the link header (hard_header_len), as in a packet we
 * send, so that packet sockets (through header_ops->parse) and GRO, which
 * compares link headers, see the right bytes. Shared with connected mode.
 */
void ipoib_rx_up(struct ipoib_priv *priv, struct napi_struct *napi,
		 struct sk_buff *skb, const u8 *src)
{
	struct net_device *dev = priv->dev;

	skb->protocol = ((struct ipoib_wire_hdr *)skb->data)->proto;
	memcpy(skb_push(skb, IPOIB_DEST_LEN), src, IPOIB_DEST_LEN);
	skb_reset_mac_header(skb);
	skb_pull(skb, IPOIB_HARD_LEN);
	skb->dev = dev;
	skb->ip_summed = CHECKSUM_NONE;

	dev->stats.rx_packets++;
	dev->stats.rx_bytes += skb->len;
	if (skb->pkt_type == PACKET_MULTICAST)
		dev->stats.multicast++;
	napi_gro_receive(napi, skb);
}

/* Hands the buffer (GRH area, IPoIB header, packet) up, or drops it. */
static void ipoib_rx_deliver(struct ipoib_priv *priv, struct sk_buff *skb,
			     const struct ib_wc *wc)
{
	const struct ib_grh *grh = (const void *)skb->data;
	u8 src[INFINIBAND_ALEN] = {};

	/* The device wrote no more than the buffer: a bad one is dropped. */
	if (wc->byte_len < IPOIB_GRH_LEN + IPOIB_WIRE_LEN ||
	    wc->byte_len > priv->rx_buf_len) {
		priv->dev->stats.rx_length_errors++;
		priv->dev->stats.rx_errors++;
		dev_kfree_skb_any(skb);
		return;
	}
	skb_put(skb, wc->byte_len);

	/*
	 * The sender: its UD QPN; its GID only from a GRH (its flags byte
	 * never travels). Read before the address overwrites the GRH area.
	 */
	put_unaligned_be32(wc->src_qp & IPOIB_MC_QPN, src);
	skb->pkt_type = PACKET_HOST;
	if (wc->wc_flags & IB_WC_GRH) {
		memcpy(src + 4, grh->sgid.raw, sizeof(grh->sgid.raw));
		if (grh->dgid.raw[0] == 0xff)
			skb->pkt_type = ipoib_is_bcast_mgid(priv, grh->dgid.raw) ?
					PACKET_BROADCAST : PACKET_MULTICAST;
	}
	skb_pull(skb, IPOIB_GRH_LEN);
	ipoib_rx_up(priv, &priv->napi, skb, src);
}

static void ipoib_rx_done(struct ipoib_priv *priv, const struct ib_wc *wc)
{
	unsigned int i = wc->wr_id;
	struct ipoib_rx_slot *slot;
	struct sk_buff *skb;
	u64 dma;

	if (WARN_ON_ONCE(i >= priv->rx_size))
		return;
	slot = &priv->rx_ring[i];

	if (wc->status != IB_WC_SUCCESS) {
		/* Flushed: the QP is going down, the buffer with it. */
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			priv->dev->stats.rx_errors++;
		ipoib_rx_drop_slot(priv, i);
		return;
	}

	/* Our own multicast, looped back by the fabric. */
	if (wc->slid == priv->lid && wc->src_qp == priv->qp->qp_num)
		goto repost;

	skb = slot->skb;
	dma = slot->dma;
	/* The slot changes only if a fresh buffer could be had. */
	if (ipoib_rx_new_buf(priv, i, GFP_ATOMIC)) {
		priv->dev->stats.rx_dropped++;
		goto repost;
	}
	ib_dma_unmap_single(priv->ca, dma, priv->rx_buf_len, DMA_FROM_DEVICE);
	ipoib_rx_deliver(priv, skb, wc);

repost:
	if (ipoib_rx_post(priv, i)) {
		priv->dev->stats.rx_errors++;
		ipoib_rx_drop_slot(priv, i);
	}
}

/* ------------------------------------------------------------ send */

/* tx_lock held: @q is not full any more; the last full ring wakes. */
static void ipoib_txq_unfull(struct ipoib_priv *priv, struct ipoib_txq *q)
{
	q->full = false;
	if (!--priv->tx_full && priv->tx_open)
		netif_wake_queue(priv->dev);
}

/* The last post filled @q (BHs off, under the netdev TX lock). */
static void ipoib_txq_stop(struct ipoib_priv *priv, struct ipoib_txq *q)
{
	spin_lock(&priv->tx_lock);
	netif_stop_queue(priv->dev);
	if (!q->full) {
		q->full = true;
		priv->tx_full++;
	}
	/* Pairs with ipoib_txq_done(): it sees full, or we see its tail. */
	smp_mb();
	if (ipoib_txq_used(q) <= priv->tx_size / 2)
		ipoib_txq_unfull(priv, q);
	spin_unlock(&priv->tx_lock);
}

/* A send on @q completed (NAPI). */
void ipoib_txq_done(struct ipoib_priv *priv, struct ipoib_txq *q)
{
	WRITE_ONCE(q->tail, q->tail + 1);
	smp_mb();
	if (!READ_ONCE(q->full))
		return;
	spin_lock(&priv->tx_lock);
	if (q->full && ipoib_txq_used(q) <= priv->tx_size / 2)
		ipoib_txq_unfull(priv, q);
	spin_unlock(&priv->tx_lock);
}

/* @q goes (an RC link torn down): it holds the queue no longer. */
void ipoib_txq_forget(struct ipoib_priv *priv, struct ipoib_txq *q)
{
	spin_lock_bh(&priv->tx_lock);
	if (q->full)
		ipoib_txq_unfull(priv, q);
	spin_unlock_bh(&priv->tx_lock);
}

/* Sends may go: no ring is full (bring-up, every ring empty). */
void ipoib_tx_open(struct ipoib_priv *priv)
{
	spin_lock_bh(&priv->tx_lock);
	priv->txq.full = false;
	priv->tx_full = 0;
	WRITE_ONCE(priv->tx_open, true);
	spin_unlock_bh(&priv->tx_lock);
	netif_wake_queue(priv->dev);
}

/*
 * No more sends, and no completion wakes the queue while the rings are
 * taken apart. Once this returns no xmit runs.
 */
void ipoib_tx_close(struct ipoib_priv *priv)
{
	spin_lock_bh(&priv->tx_lock);
	WRITE_ONCE(priv->tx_open, false);
	spin_unlock_bh(&priv->tx_lock);
	netif_tx_disable(priv->dev);
}

void ipoib_tx_buf_free(struct ipoib_priv *priv, struct ipoib_tx_buf *buf,
		       bool sent)
{
	struct sk_buff *skb = buf->skb;

	ib_dma_unmap_single(priv->ca, buf->dma, skb->len, DMA_TO_DEVICE);
	if (sent) {
		priv->dev->stats.tx_packets++;
		priv->dev->stats.tx_bytes += skb->len;
		dev_consume_skb_any(skb);
	} else {
		dev_kfree_skb_any(skb);
	}
	buf->skb = NULL;
}

/*
 * One SEND of @skb (its data at the destination address we pushed) on
 * @qp, the UD QP or an RC link's, whose ring @q holds @buf: the address
 * goes, the rest (at most @max_len bytes) is mapped and posted with @wr
 * (wr_id, and for UD the address, set by the caller). The netdev TX lock
 * is held: one sender per ring. False if @skb was dropped (counted).
 */
bool ipoib_tx_post(struct ipoib_priv *priv, struct ipoib_txq *q,
		   struct ib_qp *qp, struct ib_send_wr *wr,
		   struct ipoib_tx_buf *buf, struct sk_buff *skb,
		   unsigned int max_len)
{
	unsigned int head = q->head;
	struct ib_sge sge;

	skb_pull(skb, IPOIB_DEST_LEN);
	if (skb_linearize(skb) || unlikely(skb->len > max_len) ||
	    unlikely(ipoib_txq_used(q) >= priv->tx_size))
		goto drop;
	buf->dma = ib_dma_map_single(priv->ca, skb->data, skb->len,
				     DMA_TO_DEVICE);
	if (ib_dma_mapping_error(priv->ca, buf->dma))
		goto drop;

	sge.addr = buf->dma;
	sge.length = skb->len;
	sge.lkey = priv->pd->local_dma_lkey;
	wr->opcode = IB_WR_SEND;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	/* A soft device may complete before ib_post_send() returns. */
	buf->skb = skb;
	WRITE_ONCE(q->head, head + 1);
	if (unlikely(ib_post_send(qp, wr, NULL))) {
		WRITE_ONCE(q->head, head);
		ib_dma_unmap_single(priv->ca, buf->dma, skb->len,
				    DMA_TO_DEVICE);
		buf->skb = NULL;
		goto drop;
	}
	netif_trans_update(priv->dev);
	if (ipoib_txq_used(q) >= priv->tx_size)
		ipoib_txq_stop(priv, q);
	return true;

drop:
	dev_core_stats_tx_dropped_inc(priv->dev);
	dev_kfree_skb_any(skb);
	return false;
}

/* @skb as one UD message to @dqpn through @ah. */
void ipoib_ud_send(struct ipoib_priv *priv, struct sk_buff *skb,
		   struct ipoib_ah *ah, u32 dqpn)
{
	unsigned int n = priv->txq.head & (priv->tx_size - 1);
	struct ipoib_tx_slot *slot = &priv->tx_ring[n];
	struct ib_ud_wr wr = {};

	wr.wr.wr_id = n | IPOIB_WRID_TX;
	wr.ah = ah->ah;
	wr.remote_qpn = dqpn;
	wr.remote_qkey = priv->qkey;
	/* The send holds the AH until it completes. */
	ipoib_ah_get(ah);
	slot->ah = ah;
	if (!ipoib_tx_post(priv, &priv->txq, priv->qp, &wr.wr, &slot->buf,
			   skb, priv->max_ud_mtu + IPOIB_WIRE_LEN)) {
		slot->ah = NULL;
		ipoib_ah_put(ah);
	}
}

static void ipoib_tx_done(struct ipoib_priv *priv, const struct ib_wc *wc)
{
	unsigned int n = (u32)wc->wr_id;
	struct ipoib_tx_slot *slot;

	if (WARN_ON_ONCE(n >= priv->tx_size))
		return;
	slot = &priv->tx_ring[n];
	if (WARN_ON_ONCE(!slot->buf.skb))
		return;
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		priv->dev->stats.tx_errors++;
	ipoib_tx_buf_free(priv, &slot->buf, wc->status == IB_WC_SUCCESS);
	ipoib_ah_put(slot->ah);
	slot->ah = NULL;
	ipoib_txq_done(priv, &priv->txq);
}

/* Waits (the QP in error) until every send has completed or @ms passed. */
void ipoib_tx_wait_idle(struct ipoib_priv *priv, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (ipoib_txq_used(&priv->txq) && time_before(jiffies, end))
		usleep_range(1000, 2000);
}

/* ------------------------------------------------------------ CQ */

static void ipoib_wc(struct ipoib_priv *priv, const struct ib_wc *wc)
{
	if (wc->wr_id & IPOIB_WRID_TX)
		ipoib_tx_done(priv, wc);
	else
		ipoib_rx_done(priv, wc);
}

int ipoib_poll(struct napi_struct *napi, int budget)
{
	struct ipoib_priv *priv = container_of(napi, struct ipoib_priv, napi);
	struct ib_wc wc[IPOIB_POLL_BATCH];
	int done = 0;
	int n, i;

	while (done < budget) {
		n = ib_poll_cq(priv->cq, min(budget - done, IPOIB_POLL_BATCH),
			       wc);
		for (i = 0; i < n; i++)
			ipoib_wc(priv, &wc[i]);
		if (n <= 0)
			break;
		done += n;
	}
	if (done < budget && napi_complete_done(napi, done)) {
		/* Arm, and go again if completions slipped in meanwhile. */
		if (ib_req_notify_cq(priv->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			napi_schedule(napi);
	}
	return done;
}

/*
 * Software devices complete from whatever context posted or received:
 * from a task, the NET_RX softirq we raise must not wait for the next
 * interrupt, so it runs when BHs are enabled again.
 */
void ipoib_cq_event(struct ib_cq *cq, void *ctx)
{
	struct ipoib_priv *priv = ctx;

	if (in_hardirq() || irqs_disabled()) {
		napi_schedule(&priv->napi);
		return;
	}
	local_bh_disable();
	napi_schedule(&priv->napi);
	local_bh_enable();
}

/*
 * The QP is in RESET and NAPI off: whatever is left on the CQ refers to
 * buffers we take back below; take it off unread.
 */
void ipoib_cq_drain(struct ipoib_priv *priv)
{
	struct ib_wc wc[IPOIB_POLL_BATCH];

	while (ib_poll_cq(priv->cq, IPOIB_POLL_BATCH, wc) > 0)
		;
}

/* After a reset: every buffer still on a ring comes back to us. */
void ipoib_rings_reclaim(struct ipoib_priv *priv)
{
	unsigned int i;

	while (ipoib_txq_used(&priv->txq)) {
		struct ipoib_tx_slot *slot =
			&priv->tx_ring[priv->txq.tail & (priv->tx_size - 1)];

		if (slot->buf.skb) {
			ipoib_tx_buf_free(priv, &slot->buf, false);
			ipoib_ah_put(slot->ah);
			slot->ah = NULL;
		}
		WRITE_ONCE(priv->txq.tail, priv->txq.tail + 1);
	}
	for (i = 0; i < priv->rx_size; i++)
		ipoib_rx_drop_slot(priv, i);
}
