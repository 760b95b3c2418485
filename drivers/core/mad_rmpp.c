// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel RMPP (IBA 13.6) for agents registered with an RMPP version and
 * without IB_MAD_USER_RMPP: a message longer than one MAD is sent as DATA
 * segments and put back together on receipt, with the receiver granting
 * the sender a window of segments in its ACKs.
 *
 * Sending. The caller's data lives in seg_data, seg_size bytes for each
 * segment; the send's MAD buffer holds the caller's header and becomes
 * the wire image of one segment after another (rebuilt only while the
 * send is off the QP). One segment is on the QP at a time; when it
 * completes the next follows if the window allows (NewWindowLast of the
 * latest ACK, 1 before the first ACK). An ACK that does not come within
 * the segment timeout makes the send start over after the last segment
 * acknowledged, as often as the send's retries allow (per window: an ACK
 * that moves on restores them). When the last segment is acknowledged,
 * a send with a timeout_ms waits that long for its response, without
 * retries, and any other is done. A STOP or ABORT from the receiver ends
 * the send (REM_ABORT_ERR); as upstream, one from a sender is ignored.
 *
 * Receiving. A transfer is known by TID, class, method and the sender's
 * QP, LID and GID. Segments are kept in order only, each chained onto the
 * first one's recv_wc; the receiver ACKs the segment that fills the window
 * (granting the next IB_MAD_RMPP_WINDOW) and the last one, which hands the
 * message to the agent: mad_len counts the class header once and then the
 * data of every segment. A finished transfer is remembered for a while so
 * that a segment sent again is acknowledged again instead of starting a
 * second delivery; one that stops making progress is aborted. Segments
 * of a version, type, status or First flag that cannot be are answered
 * with an ABORT saying so, and so is a segment beyond the count the first
 * segment's PayloadLength announced, or a Last flag before it. A
 * transfer beyond what an agent may hold (RMPP_MAX_RECVS, _HELD) gets a
 * STOP saying resources ran out.
 *
 * Everything here runs in process context (the CQ's work and ib_mad_wq);
 * the agent's lock covers the sends' RMPP state and the receptions, and
 * control MADs are built and posted outside it.
 */
#include <linux/slab.h>
#include <linux/jiffies.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"
#include "mad_priv.h"

/* Longest wait for an ACK; also the wait when the send gives none. */
#define RMPP_ACK_WAIT_MS	2000
/* A reception without a new segment for this long is aborted. */
#define RMPP_RECV_IDLE		(40 * HZ)
/* A finished one is remembered this long to acknowledge repeats. */
#define RMPP_RECV_LINGER	(10 * HZ)
/* How often the receptions' expiry is looked at. */
#define RMPP_TICK		HZ
/* Beyond this many segments mad_len would not fit: STOP. */
#define RMPP_MAX_SEGS		((INT_MAX - IB_MGMT_MAD_SIZE) / IB_MGMT_MAD_SIZE)
/*
 * What any node that reaches an agent may make it hold (STOP beyond):
 * receptions kept (in progress or lingering), and segments held by
 * those in progress (some 56 MB of data).
 */
#define RMPP_MAX_RECVS		256
#define RMPP_MAX_HELD		(1U << 18)

/* Who sent a transfer. */
struct rmpp_peer {
	u32		qpn;
	u32		lid;
	union ib_gid	gid;		/* zero without a network header */
};

/* One transfer being received, or recently received. */
struct rmpp_recv {
	struct list_head	list;		/* agent's rmpp_recvs */
	__be64			tid;
	u8			mgmt_class;
	u8			class_version;
	u8			method;
	bool			done;		/* delivered */
	struct rmpp_peer	peer;
	struct ib_mad_recv_priv	*first;		/* segments so far */
	u32			last_seg;	/* received in order */
	u32			window;		/* NewWindowLast granted */
	u32			total;		/* segments the first one
						 * announced; 0: not said */
	unsigned long		expires;
};

/* A copy of the MAD a control MAD (ACK, STOP, ABORT) answers. */
struct rmpp_src {
	struct ib_wc	wc;
	struct ib_grh	grh;
	u8		hdr[IB_MGMT_SA_HDR];	/* the longest class header */
};

static struct ib_rmpp_hdr *rmpp_hdr(void *mad)
{
	return &((struct ib_rmpp_mad *)mad)->rmpp_hdr;
}

/* ------------------------------------------------------------ sending */

int mad_rmpp_alloc_send(struct ib_mad_send_wr_priv *wr, gfp_t gfp)
{
	struct ib_mad_send_buf *sb = &wr->send_buf;
	struct ib_rmpp_hdr *rh = rmpp_hdr(wr->mad);
	int size = IB_MGMT_MAD_SIZE - sb->hdr_len;
	int count = max(DIV_ROUND_UP(sb->data_len, size), 1);

	wr->seg_data = kvzalloc(array_size(count, size), gfp);
	if (!wr->seg_data)
		return -ENOMEM;
	sb->seg_count = count;
	sb->seg_size = size;
	sb->seg_rmpp_size = IB_MGMT_RMPP_DATA;
	wr->rmpp = true;
	/* What the caller may keep: version, type and the Active flag. */
	rh->rmpp_version = sb->mad_agent->rmpp_version;
	rh->rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	ib_set_rmpp_flags(rh, IB_MGMT_RMPP_FLAG_ACTIVE);
	return 0;
}

void *mad_rmpp_segment(struct ib_mad_send_wr_priv *wr, int seg_num)
{
	struct ib_mad_send_buf *sb = &wr->send_buf;

	if (seg_num < 1 || seg_num > sb->seg_count)
		return NULL;
	return wr->seg_data + (size_t)(seg_num - 1) * sb->seg_size;
}

/*
 * Makes mad[] segment @seg: its data after the caller's header, and the
 * RMPP header for it. PayloadLength: the whole transfer's in the first
 * segment, the bytes used of the last one's in the last.
 */
static void rmpp_build_seg(struct ib_mad_send_wr_priv *wr, u32 seg)
{
	struct ib_mad_send_buf *sb = &wr->send_buf;
	struct ib_rmpp_hdr *rh = rmpp_hdr(wr->mad);
	u32 count = sb->seg_count;
	u32 unused = count * sb->seg_size - sb->data_len;
	u32 last_len = IB_MGMT_RMPP_DATA - unused;
	u8 flags = IB_MGMT_RMPP_FLAG_ACTIVE;
	u32 paylen = 0;

	memcpy(wr->mad + sb->hdr_len, mad_rmpp_segment(wr, seg), sb->seg_size);
	if (seg == 1) {
		flags |= IB_MGMT_RMPP_FLAG_FIRST;
		paylen = (count - 1) * IB_MGMT_RMPP_DATA + last_len;
	}
	if (seg == count) {
		flags |= IB_MGMT_RMPP_FLAG_LAST;
		paylen = last_len;
	}
	rh->rmpp_version = wr->agent_priv->agent.rmpp_version;
	rh->rmpp_type = IB_MGMT_RMPP_TYPE_DATA;
	ib_set_rmpp_flags(rh, flags);
	rh->rmpp_status = IB_MGMT_RMPP_STATUS_SUCCESS;
	rh->seg_num = cpu_to_be32(seg);
	rh->paylen_newwin = cpu_to_be32(paylen);
}

static unsigned long rmpp_ack_wait(const struct ib_mad_send_wr_priv *wr)
{
	int ms = wr->send_buf.timeout_ms;

	if (ms <= 0 || ms > RMPP_ACK_WAIT_MS)
		ms = RMPP_ACK_WAIT_MS;
	return msecs_to_jiffies(ms);
}

/* ib_post_send_mad(): segment 1 goes first. Agent lock held. */
void mad_rmpp_start_send(struct ib_mad_send_wr_priv *wr)
{
	wr->seg_acked = 0;
	wr->seg_window = 1;
	wr->seg_sent = 1;
	wr->max_retries = wr->retries_left;
	wr->timeout = rmpp_ack_wait(wr);
	rmpp_build_seg(wr, 1);
}

/*
 * A segment's send completed: builds the next one if the window has room.
 * Agent lock held, the send off the QP.
 */
bool mad_rmpp_next_seg(struct ib_mad_send_wr_priv *wr)
{
	u32 count = wr->send_buf.seg_count;

	if (wr->seg_acked >= count || wr->seg_sent >= count ||
	    wr->seg_sent >= wr->seg_window)
		return false;
	rmpp_build_seg(wr, ++wr->seg_sent);
	return true;
}

/* No ACK in time: start again after the last segment acknowledged. */
void mad_rmpp_rewind(struct ib_mad_send_wr_priv *wr)
{
	wr->seg_sent = min_t(u32, wr->seg_acked + 1, wr->send_buf.seg_count);
	rmpp_build_seg(wr, wr->seg_sent);
}

/* The send a control MAD from its receiver is about. Agent lock held. */
static struct ib_mad_send_wr_priv *
rmpp_find_send(struct ib_mad_agent_priv *priv, const struct ib_mad_hdr *hdr)
{
	struct ib_mad_send_wr_priv *wr;

	list_for_each_entry(wr, &priv->send_list, agent_list) {
		const struct ib_mad_hdr *sent = (const void *)wr->mad;

		/* The receiver's control MADs flip the R bit of our DATA. */
		if (wr->rmpp && wr->wait_resp && !wr->in_handler &&
		    wr->tid == hdr->tid &&
		    sent->mgmt_class == hdr->mgmt_class &&
		    (sent->method ^ hdr->method) == IB_MGMT_METHOD_RESP)
			return wr;
	}
	return NULL;
}

/* ------------------------------------------------------------ control MADs */

static void rmpp_src_fill(struct rmpp_src *src,
			  const struct ib_mad_recv_priv *rp)
{
	src->wc = rp->wc;
	src->grh = rp->buf.grh;
	memcpy(src->hdr, rp->buf.mad, sizeof(src->hdr));
}

/*
 * Sends an ACK, STOP or ABORT back to where @src came from: its headers
 * with the R bit flipped (so it reaches the other end's agent the way
 * answers to @src would), the RMPP header replaced. The caller holds an
 * agent reference.
 */
static void rmpp_send_ctl(struct ib_mad_agent_priv *priv,
			  const struct rmpp_src *src, u8 type, u8 status,
			  u32 seg, u32 newwin)
{
	const struct ib_mad_hdr *from = (const void *)src->hdr;
	int hdr_len = ib_get_mad_data_offset(from->mgmt_class);
	struct ib_mad_port *port = priv->port;
	struct ib_mad_send_wr_priv *wr;
	struct ib_mad_send_buf *buf;
	struct ib_rmpp_mad *mad;
	struct ib_ah *ah;

	ah = ib_create_ah_from_wc(port->pd, &src->wc, &src->grh,
				  port->port_num);
	if (IS_ERR(ah))
		return;
	buf = ib_create_send_mad(&priv->agent, src->wc.src_qp,
				 src->wc.pkey_index, 0, hdr_len,
				 IB_MGMT_MAD_SIZE - hdr_len, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		goto err_ah;
	/* Freed when sent, not handed to the agent's send handler. */
	wr = container_of(buf, struct ib_mad_send_wr_priv, send_buf);
	wr->rmpp_ctl = true;
	mad = buf->mad;
	memcpy(mad, src->hdr, hdr_len);
	mad->mad_hdr.method ^= IB_MGMT_METHOD_RESP;
	mad->rmpp_hdr.rmpp_version = priv->agent.rmpp_version;
	mad->rmpp_hdr.rmpp_type = type;
	mad->rmpp_hdr.rmpp_rtime_flags = 0;
	ib_set_rmpp_flags(&mad->rmpp_hdr, IB_MGMT_RMPP_FLAG_ACTIVE);
	ib_set_rmpp_resptime(&mad->rmpp_hdr, IB_MGMT_RMPP_NO_RESPTIME);
	mad->rmpp_hdr.rmpp_status = status;
	mad->rmpp_hdr.seg_num = cpu_to_be32(seg);
	mad->rmpp_hdr.paylen_newwin = cpu_to_be32(newwin);
	buf->ah = ah;
	if (!ib_post_send_mad(buf, NULL))
		return;
	ib_free_send_mad(buf);
err_ah:
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/* A control MAD of ours was sent (or flushed). */
void mad_rmpp_ctl_sent(struct ib_mad_send_wr_priv *wr)
{
	rdma_destroy_ah(wr->send_buf.ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(&wr->send_buf);
}

static void rmpp_abort(struct ib_mad_agent_priv *priv,
		       const struct ib_mad_recv_priv *rp, u8 status)
{
	struct rmpp_src src;

	rmpp_src_fill(&src, rp);
	rmpp_send_ctl(priv, &src, IB_MGMT_RMPP_TYPE_ABORT, status, 0, 0);
}

/* ------------------------------------------------------------ ACK, STOP, ABORT */

/* An ACK for one of our sends: move the window on, or finish. */
static void rmpp_recv_ack(struct ib_mad_agent_priv *priv,
			  struct ib_mad_recv_priv *rp)
{
	struct ib_rmpp_mad *ack = (struct ib_rmpp_mad *)rp->buf.mad;
	u32 seg = be32_to_cpu(ack->rmpp_hdr.seg_num);
	u32 newwin = be32_to_cpu(ack->rmpp_hdr.paylen_newwin);
	struct ib_mad_send_wr_priv *wr;
	bool post = false, done = false;
	unsigned long flags;
	u32 count;
	u8 bad = 0;

	spin_lock_irqsave(&priv->lock, flags);
	wr = rmpp_find_send(priv, &ack->mad_hdr);
	if (!wr || seg < wr->seg_acked ||
	    (seg == wr->seg_acked && newwin <= wr->seg_window))
		goto unlock;		/* not ours, old or repeated */
	count = wr->send_buf.seg_count;
	if (ack->rmpp_hdr.rmpp_status != IB_MGMT_RMPP_STATUS_SUCCESS)
		bad = IB_MGMT_RMPP_STATUS_BAD_STATUS;
	else if (seg > count)
		bad = IB_MGMT_RMPP_STATUS_S2B;
	else if (newwin < seg)
		bad = IB_MGMT_RMPP_STATUS_W2S;
	if (bad) {
		wr->wait_resp = false;
		wr->status = IB_WC_REM_ABORT_ERR;
		goto finish;
	}
	wr->seg_window = max(wr->seg_window, newwin);
	if (seg > wr->seg_acked) {
		wr->seg_acked = seg;
		wr->seg_sent = max(wr->seg_sent, seg);
		wr->retries_left = wr->max_retries;
		if (seg == count) {
			/* All there: now the response, if one is awaited. */
			if (wr->send_buf.timeout_ms > 0) {
				wr->timeout =
					msecs_to_jiffies(wr->send_buf.timeout_ms);
				wr->retries_left = 0;
			} else {
				wr->wait_resp = false;
			}
		}
	}
	if (wr->on_qp || !wr->wait_resp)
		goto finish;	/* the send completion carries on */
	if (mad_rmpp_next_seg(wr)) {
		wr->on_qp = true;
		post = true;
	} else {
		wr->expires = jiffies + wr->timeout;
		mad_arm_timer(priv, wr->expires);
	}
finish:
	if (send_wr_idle(wr)) {
		list_del_init(&wr->agent_list);
		done = true;
	}
unlock:
	spin_unlock_irqrestore(&priv->lock, flags);
	if (bad)
		rmpp_abort(priv, rp, bad);
	if (post)
		mad_repost(wr);
	if (done)
		mad_complete_send(wr);
}

/*
 * A STOP or ABORT from the receiver of one of our sends ends it; one with
 * a status its type cannot have is answered with an ABORT of our own.
 */
static void rmpp_stop_send(struct ib_mad_agent_priv *priv,
			   struct ib_mad_recv_priv *rp)
{
	const struct ib_rmpp_mad *mad = (const void *)rp->buf.mad;
	u8 status = mad->rmpp_hdr.rmpp_status;
	struct ib_mad_send_wr_priv *wr;
	bool done = false, bad;
	unsigned long flags;

	if (mad->rmpp_hdr.rmpp_type == IB_MGMT_RMPP_TYPE_STOP)
		bad = status != IB_MGMT_RMPP_STATUS_RESX;
	else
		bad = status < IB_MGMT_RMPP_STATUS_ABORT_MIN ||
		      status > IB_MGMT_RMPP_STATUS_ABORT_MAX;

	spin_lock_irqsave(&priv->lock, flags);
	wr = rmpp_find_send(priv, &mad->mad_hdr);
	if (wr) {
		wr->wait_resp = false;
		wr->status = IB_WC_REM_ABORT_ERR;
		if (send_wr_idle(wr)) {
			list_del_init(&wr->agent_list);
			done = true;
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	if (wr && bad)
		rmpp_abort(priv, rp, IB_MGMT_RMPP_STATUS_BAD_STATUS);
	if (done)
		mad_complete_send(wr);
}

/* ------------------------------------------------------------ receiving */

static void rmpp_peer_of(const struct ib_mad_recv_priv *rp,
			 struct rmpp_peer *peer)
{
	memset(peer, 0, sizeof(*peer));
	peer->qpn = rp->wc.src_qp;
	peer->lid = rp->wc.slid;
	if ((rp->wc.wc_flags & IB_WC_GRH) &&
	    mad_wc_sgid(&rp->wc, &rp->buf.grh, &peer->gid))
		memset(&peer->gid, 0xff, sizeof(peer->gid));
}

/* The reception @hdr from @peer belongs to. Agent lock held. */
static struct rmpp_recv *rmpp_find_recv(struct ib_mad_agent_priv *priv,
					const struct ib_mad_hdr *hdr,
					const struct rmpp_peer *peer)
{
	struct rmpp_recv *rr;

	list_for_each_entry(rr, &priv->rmpp_recvs, list) {
		if (rr->tid == hdr->tid && rr->mgmt_class == hdr->mgmt_class &&
		    rr->class_version == hdr->class_version &&
		    rr->method == hdr->method &&
		    !memcmp(&rr->peer, peer, sizeof(*peer)))
			return rr;
	}
	return NULL;
}

static void rmpp_recv_free(struct rmpp_recv *rr)
{
	if (rr->first)
		ib_free_recv_mad(&rr->first->recv_wc);
	kfree(rr);
}

/* Forgets the reception @rp belongs to, if any. */
static bool rmpp_drop_recv(struct ib_mad_agent_priv *priv,
			   const struct ib_mad_recv_priv *rp)
{
	struct rmpp_peer peer;
	struct rmpp_recv *rr;
	unsigned long flags;

	rmpp_peer_of(rp, &peer);
	spin_lock_irqsave(&priv->lock, flags);
	rr = rmpp_find_recv(priv, (const void *)rp->buf.mad, &peer);
	if (rr)
		list_del(&rr->list);
	spin_unlock_irqrestore(&priv->lock, flags);
	if (!rr)
		return false;
	rmpp_recv_free(rr);
	return true;
}

/* Makes sure the expiry work looks at the receptions. Agent lock held. */
static void rmpp_arm(struct ib_mad_agent_priv *priv)
{
	if (!priv->dying && !delayed_work_pending(&priv->rmpp_work))
		queue_delayed_work(ib_mad_wq, &priv->rmpp_work, RMPP_TICK);
}

/*
 * The length of the reassembled message: the first segment's headers,
 * then each segment's data area, of the last one only what its
 * PayloadLength says is used (the class header counted there once).
 */
static int rmpp_msg_len(const struct ib_mad_recv_priv *last, u32 segs)
{
	const struct ib_rmpp_mad *mad = (const void *)last->buf.mad;
	int hdr_len = ib_get_mad_data_offset(mad->mad_hdr.mgmt_class);
	int class_hdr = hdr_len - IB_MGMT_RMPP_HDR;
	u32 used = be32_to_cpu(mad->rmpp_hdr.paylen_newwin);

	used = min_t(u32, used, IB_MGMT_RMPP_DATA);
	return hdr_len + (segs - 1) * (IB_MGMT_MAD_SIZE - hdr_len) +
	       max_t(int, (int)used - class_hdr, 0);
}

/* Whether the agent may keep one more reception (@fresh) or segment. */
static bool rmpp_recv_room(struct ib_mad_agent_priv *priv, bool fresh)
{
	unsigned int kept = 0;
	unsigned long held = 0;
	struct rmpp_recv *rr;

	list_for_each_entry(rr, &priv->rmpp_recvs, list) {
		kept++;
		if (!rr->done)
			held += rr->last_seg;
	}
	return (!fresh || kept < RMPP_MAX_RECVS) && held < RMPP_MAX_HELD;
}

static struct rmpp_recv *rmpp_recv_new(const struct ib_mad_recv_priv *rp,
				       const struct rmpp_peer *peer)
{
	const struct ib_mad_hdr *hdr = (const void *)rp->buf.mad;
	struct rmpp_recv *rr;

	rr = kzalloc(sizeof(*rr), GFP_KERNEL);
	if (!rr)
		return NULL;
	rr->tid = hdr->tid;
	rr->mgmt_class = hdr->mgmt_class;
	rr->class_version = hdr->class_version;
	rr->method = hdr->method;
	rr->peer = *peer;
	return rr;
}

/*
 * A DATA segment. Returns the first segment's buffer, carrying the whole
 * message, when this one completed a transfer; otherwise takes @rp.
 */
static struct ib_mad_recv_priv *rmpp_recv_data(struct ib_mad_agent_priv *priv,
					       struct ib_mad_recv_priv *rp)
{
	struct ib_rmpp_mad *mad = (struct ib_rmpp_mad *)rp->buf.mad;
	u32 seg = be32_to_cpu(mad->rmpp_hdr.seg_num);
	u8 rflags = ib_get_rmpp_flags(&mad->rmpp_hdr);
	struct ib_mad_recv_priv *whole = NULL;
	struct rmpp_recv *rr, *fresh = NULL;
	u32 ack_seg = 0, ack_win = 0;
	bool kept = false, ack = false, stop = false;
	struct rmpp_peer peer;
	struct rmpp_src src;
	unsigned long flags;
	u8 bad = 0;

	if (mad->rmpp_hdr.rmpp_status != IB_MGMT_RMPP_STATUS_SUCCESS)
		bad = IB_MGMT_RMPP_STATUS_BAD_STATUS;
	else if ((seg == 1) != !!(rflags & IB_MGMT_RMPP_FLAG_FIRST))
		bad = IB_MGMT_RMPP_STATUS_BAD_SEG;
	if (bad) {
		rmpp_drop_recv(priv, rp);
		rmpp_abort(priv, rp, bad);
		goto free;
	}
	if (seg > RMPP_MAX_SEGS) {
		rmpp_drop_recv(priv, rp);
		rmpp_src_fill(&src, rp);
		rmpp_send_ctl(priv, &src, IB_MGMT_RMPP_TYPE_STOP,
			      IB_MGMT_RMPP_STATUS_RESX, 0, 0);
		goto free;
	}

	rmpp_src_fill(&src, rp);
	rmpp_peer_of(rp, &peer);
	if (seg == 1)
		fresh = rmpp_recv_new(rp, &peer);

	spin_lock_irqsave(&priv->lock, flags);
	rr = rmpp_find_recv(priv, &mad->mad_hdr, &peer);
	if (!rr) {
		if (!fresh || priv->dying)
			goto unlock;	/* no start seen: dropped */
		if (!rmpp_recv_room(priv, true)) {
			stop = true;
			goto unlock;
		}
		rr = fresh;
		fresh = NULL;
		rr->total = DIV_ROUND_UP(be32_to_cpu(mad->rmpp_hdr.paylen_newwin),
					 IB_MGMT_RMPP_DATA);
		if ((rflags & IB_MGMT_RMPP_FLAG_LAST) && rr->total > 1) {
			bad = IB_MGMT_RMPP_STATUS_BAD_LEN;
			goto unlock;
		}
		rr->first = rp;
		rr->last_seg = 1;
		rr->window = 1;
		list_add_tail(&rr->list, &priv->rmpp_recvs);
		kept = true;
	} else if (rr->done || seg <= rr->last_seg) {
		ack = true;		/* a repeat: say again how far we are */
	} else if (seg == rr->last_seg + 1 && seg <= rr->window) {
		if (rr->total &&
		    (seg > rr->total ||
		     (seg < rr->total && (rflags & IB_MGMT_RMPP_FLAG_LAST)))) {
			/* not the transfer its first segment announced */
			bad = seg > rr->total ? IB_MGMT_RMPP_STATUS_S2B :
						IB_MGMT_RMPP_STATUS_BAD_LEN;
			list_del(&rr->list);
			goto unlock;
		}
		if (!rmpp_recv_room(priv, false)) {
			stop = true;
			list_del(&rr->list);
			goto unlock;
		}
		list_add_tail(&rp->recv_wc.recv_buf.list,
			      &rr->first->recv_wc.rmpp_list);
		rr->last_seg = seg;
		kept = true;
	}
	/* else: out of order or outside the window, dropped */

	if (kept) {
		rr->expires = jiffies + RMPP_RECV_IDLE;
		if (rflags & IB_MGMT_RMPP_FLAG_LAST) {
			whole = rr->first;
			whole->recv_wc.mad_len = rmpp_msg_len(rp, seg);
			rr->first = NULL;
			rr->done = true;
			rr->expires = jiffies + RMPP_RECV_LINGER;
			ack = true;
		} else if (seg == rr->window) {
			rr->window = seg + IB_MAD_RMPP_WINDOW;
			ack = true;
		}
		rmpp_arm(priv);
	}
	if (ack) {
		ack_seg = rr->last_seg;
		ack_win = rr->window;
	}
unlock:
	spin_unlock_irqrestore(&priv->lock, flags);
	kfree(fresh);
	if (stop) {
		/* rr: NULL for a refused new reception */
		if (rr)
			rmpp_recv_free(rr);
		rmpp_send_ctl(priv, &src, IB_MGMT_RMPP_TYPE_STOP,
			      IB_MGMT_RMPP_STATUS_RESX, 0, 0);
		goto free;
	}
	if (bad) {
		rmpp_recv_free(rr);
		rmpp_abort(priv, rp, bad);
		goto free;
	}
	/* The ACK of the last segment goes before the message is handed on. */
	if (ack)
		rmpp_send_ctl(priv, &src, IB_MGMT_RMPP_TYPE_ACK,
			      IB_MGMT_RMPP_STATUS_SUCCESS, ack_seg, ack_win);
	if (kept)
		return whole;
free:
	ib_free_recv_mad(&rp->recv_wc);
	return NULL;
}

/*
 * A received MAD for @priv: anything but an active RMPP MAD of an RMPP
 * class for a kernel-RMPP agent is returned as it is. Of those, a DATA
 * segment completing a transfer returns the whole message; everything
 * else is taken (and freed) here.
 */
struct ib_mad_recv_priv *mad_rmpp_recv(struct ib_mad_agent_priv *priv,
				       struct ib_mad_recv_priv *rp)
{
	struct ib_rmpp_mad *mad = (struct ib_rmpp_mad *)rp->buf.mad;
	struct ib_rmpp_hdr *rh = &mad->rmpp_hdr;

	if (!ib_mad_kernel_rmpp_agent(&priv->agent) ||
	    !ib_is_mad_class_rmpp(mad->mad_hdr.mgmt_class) ||
	    !(ib_get_rmpp_flags(rh) & IB_MGMT_RMPP_FLAG_ACTIVE))
		return rp;

	switch (rh->rmpp_type) {
	case IB_MGMT_RMPP_TYPE_STOP:
	case IB_MGMT_RMPP_TYPE_ABORT:
		/*
		 * The receiver of one of our sends gave up. (From a sender
		 * they leave the reception alone, as upstream: it ends with
		 * its last segment or its time-out.)
		 */
		rmpp_stop_send(priv, rp);
		break;
	case IB_MGMT_RMPP_TYPE_DATA:
		if (rh->rmpp_version != priv->agent.rmpp_version)
			goto unsupported;
		return rmpp_recv_data(priv, rp);
	case IB_MGMT_RMPP_TYPE_ACK:
		if (rh->rmpp_version != priv->agent.rmpp_version)
			goto unsupported;
		rmpp_recv_ack(priv, rp);
		break;
	default:
		rmpp_drop_recv(priv, rp);
		rmpp_abort(priv, rp, IB_MGMT_RMPP_STATUS_BADT);
		break;
	}
	ib_free_recv_mad(&rp->recv_wc);
	return NULL;

unsupported:
	rmpp_drop_recv(priv, rp);
	rmpp_abort(priv, rp, IB_MGMT_RMPP_STATUS_UNV);
	ib_free_recv_mad(&rp->recv_wc);
	return NULL;
}

/* ------------------------------------------------------------ expiry */

/*
 * Forgets finished receptions after the linger time and aborts the ones
 * that stopped making progress (status "total time too long").
 */
static void rmpp_expire(struct work_struct *work)
{
	struct ib_mad_agent_priv *priv =
		container_of(to_delayed_work(work), struct ib_mad_agent_priv,
			     rmpp_work);
	struct rmpp_recv *rr, *tmp;
	bool abort = false, held = false;
	unsigned long flags;
	struct rmpp_src src;
	LIST_HEAD(expired);

	spin_lock_irqsave(&priv->lock, flags);
	list_for_each_entry_safe(rr, tmp, &priv->rmpp_recvs, list) {
		if (time_before(jiffies, rr->expires))
			continue;
		list_move_tail(&rr->list, &expired);
		abort |= !rr->done;
	}
	if (!list_empty(&priv->rmpp_recvs))
		rmpp_arm(priv);
	/* Sending needs the agent alive: not once it is going away. */
	if (abort && !priv->dying) {
		agent_get(priv);
		held = true;
	}
	spin_unlock_irqrestore(&priv->lock, flags);

	list_for_each_entry_safe(rr, tmp, &expired, list) {
		list_del(&rr->list);
		if (held && rr->first) {
			rmpp_src_fill(&src, rr->first);
			rmpp_send_ctl(priv, &src, IB_MGMT_RMPP_TYPE_ABORT,
				      IB_MGMT_RMPP_STATUS_T2L, 0, 0);
		}
		rmpp_recv_free(rr);
	}
	if (held)
		agent_put(priv);
}

void mad_rmpp_agent_init(struct ib_mad_agent_priv *priv)
{
	INIT_LIST_HEAD(&priv->rmpp_recvs);
	INIT_DELAYED_WORK(&priv->rmpp_work, rmpp_expire);
}

/* The agent is unregistered and idle: nothing comes in any more. */
void mad_rmpp_agent_stop(struct ib_mad_agent_priv *priv)
{
	struct rmpp_recv *rr, *tmp;

	cancel_delayed_work_sync(&priv->rmpp_work);
	list_for_each_entry_safe(rr, tmp, &priv->rmpp_recvs, list) {
		list_del(&rr->list);
		rmpp_recv_free(rr);
	}
}
