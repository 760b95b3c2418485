// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw connection management: the iw_* methods over in-kernel TCP sockets
 * and the MPA exchange (RFC 5044 §7, RFC 6581).
 *
 * Every socket siw owns belongs to a siw_cep. Socket callbacks run in
 * softirq context and only record an event and queue the endpoint's work
 * (or, once the QP owns the stream, kick the QP's rx/tx work); all
 * connection logic runs in that work item or in the iw_* methods, under
 * the endpoint's mutex. Events go up to iw_cm through cm_id->event_handler,
 * which queues them, with a reference on the cm_id held for as long as
 * events may follow; CLOSE (or a failed CONNECT_REPLY) is the last one.
 */
#include <linux/inetdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/addrconf.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "siw.h"
#include "siw_cm.h"

static atomic_t siw_cep_count = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(siw_cep_gone);
/* every endpoint, for debugfs: a leaked one keeps its device registered */
static LIST_HEAD(siw_cep_all);
static DEFINE_SPINLOCK(siw_cep_all_lock);
/*
 * A listener's lock is taken with one of its children's held (an MPA
 * request going up), never the other way round: lockdep needs the two
 * kinds of endpoint in classes of their own to see that order.
 */
static struct lock_class_key siw_listener_lock_key;

static void siw_cep_work(struct work_struct *work);
static void siw_cep_timer_fn(struct work_struct *work);
static void siw_cep_put(struct siw_cep *cep);

/* ---- endpoint lifetime ---- */

/* An endpoint of sdev, or ERR_PTR (-ENODEV once the netdev is gone). */
static struct siw_cep *siw_cep_alloc(struct siw_device *sdev)
{
	struct siw_cep *cep;

	if (!ib_device_try_get(&sdev->base_dev))
		return ERR_PTR(-ENODEV);
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (!cep) {
		ib_device_put(&sdev->base_dev);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&cep->ref);
	cep->sdev = sdev;
	mutex_init(&cep->lock);
	INIT_LIST_HEAD(&cep->listenq);
	INIT_LIST_HEAD(&cep->children);
	INIT_WORK(&cep->work, siw_cep_work);
	INIT_DELAYED_WORK(&cep->timer, siw_cep_timer_fn);
	cep->state = SIW_EPSTATE_IDLE;
	cep->ird = SIW_MAX_IRD_QP;
	cep->ord = SIW_MAX_ORD_QP;
	/* siw_cm_dev_abort() sees every endpoint made before it ran */
	spin_lock_bh(&sdev->lock);
	if (sdev->netdev_gone) {
		spin_unlock_bh(&sdev->lock);
		kfree(cep);
		ib_device_put(&sdev->base_dev);
		return ERR_PTR(-ENODEV);
	}
	list_add_tail(&cep->devq, &sdev->cep_list);
	spin_unlock_bh(&sdev->lock);
	spin_lock_bh(&siw_cep_all_lock);
	list_add_tail(&cep->allq, &siw_cep_all);
	spin_unlock_bh(&siw_cep_all_lock);
	atomic_inc(&siw_cep_count);
	return cep;
}

static void siw_cep_release(struct kref *ref)
{
	struct siw_cep *cep = container_of(ref, struct siw_cep, ref);
	struct siw_device *sdev = cep->sdev;

	WARN_ON(cep->sock || cep->cm_id || cep->qp);
	if (cep->parent)
		siw_cep_put(cep->parent);
	spin_lock_bh(&sdev->lock);
	list_del(&cep->devq);
	spin_unlock_bh(&sdev->lock);
	spin_lock_bh(&siw_cep_all_lock);
	list_del(&cep->allq);
	spin_unlock_bh(&siw_cep_all_lock);
	kfree(cep);
	ib_device_put(&sdev->base_dev);
	if (atomic_dec_and_test(&siw_cep_count))
		wake_up(&siw_cep_gone);
}

static void siw_cep_get(struct siw_cep *cep)
{
	kref_get(&cep->ref);
}

static void siw_cep_put(struct siw_cep *cep)
{
	kref_put(&cep->ref, siw_cep_release);
}

/* Any context: run the endpoint's work for ev. */
static void siw_cep_event(struct siw_cep *cep, int ev)
{
	set_bit(ev, &cep->events);
	siw_cep_get(cep);
	if (!queue_work(siw_cm_wq, &cep->work))
		siw_cep_put(cep);
}

static void siw_cep_timer_fn(struct work_struct *work)
{
	struct siw_cep *cep = container_of(to_delayed_work(work),
					   struct siw_cep, timer);

	siw_cep_event(cep, SIW_CEP_EV_TIMEOUT);
	siw_cep_put(cep);	/* the timer's own reference */
}

static void siw_cep_timer_start(struct siw_cep *cep, unsigned long delay)
{
	siw_cep_get(cep);
	if (!mod_delayed_work(siw_cm_wq, &cep->timer, delay))
		return;
	/* it was pending already and kept its reference */
	siw_cep_put(cep);
}

static void siw_cep_timer_stop(struct siw_cep *cep)
{
	if (cancel_delayed_work(&cep->timer))
		siw_cep_put(cep);
}

/* ---- socket callbacks (softirq) ---- */

static struct siw_cep *siw_sk_cep(struct sock *sk)
{
	return (struct siw_cep *)((uintptr_t)sk->sk_user_data &
				  SK_USER_DATA_PTRMASK);
}

static void siw_sk_data_ready(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw_sk_cep(sk);
	if (cep) {
		if (cep->rx_qp)
			siw_qp_kick_rx(cep->rx_qp);
		else
			siw_cep_event(cep, SIW_CEP_EV_READABLE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siw_sk_write_space(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw_sk_cep(sk);
	if (cep && cep->rx_qp && sk_stream_is_writeable(sk))
		siw_qp_kick_tx(cep->rx_qp);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siw_sk_state_change(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw_sk_cep(sk);
	if (cep)
		siw_cep_event(cep, SIW_CEP_EV_STATE);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Takes over sock for cep. orig: the callbacks to restore later (a
 * socket accepted from our listener inherited ours, so it gets the
 * listener's saved ones). NOCOPY keeps accepted clones from inheriting
 * the pointer.
 */
static void siw_sk_attach(struct siw_cep *cep, struct socket *sock,
			  const struct siw_cep *orig)
{
	struct sock *sk = sock->sk;

	siw_cep_get(cep);	/* sk_user_data's */
	write_lock_bh(&sk->sk_callback_lock);
	if (orig) {
		cep->sk_state_change = orig->sk_state_change;
		cep->sk_data_ready = orig->sk_data_ready;
		cep->sk_write_space = orig->sk_write_space;
	} else {
		cep->sk_state_change = sk->sk_state_change;
		cep->sk_data_ready = sk->sk_data_ready;
		cep->sk_write_space = sk->sk_write_space;
	}
	sk->sk_user_data = (void *)((uintptr_t)cep | SK_USER_DATA_NOCOPY);
	sk->sk_state_change = siw_sk_state_change;
	sk->sk_data_ready = siw_sk_data_ready;
	sk->sk_write_space = siw_sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	cep->sock = sock;
}

static void siw_sk_detach(struct siw_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	bool had;

	write_lock_bh(&sk->sk_callback_lock);
	had = siw_sk_cep(sk) == cep;
	sk->sk_user_data = NULL;
	cep->rx_qp = NULL;
	sk->sk_state_change = cep->sk_state_change;
	sk->sk_data_ready = cep->sk_data_ready;
	sk->sk_write_space = cep->sk_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	if (had)
		siw_cep_put(cep);
}

/* Discards unread bytes so that close sends FIN, not RST. */
static int siw_discard_actor(read_descriptor_t *desc, struct sk_buff *skb,
			     unsigned int off, size_t len)
{
	return len;
}

static void siw_sock_drain(struct socket *sock)
{
	read_descriptor_t desc = { .count = 1 };

	lock_sock(sock->sk);
	tcp_read_sock(sock->sk, &desc, siw_discard_actor);
	release_sock(sock->sk);
}

/* Gives up cep's socket: gracefully (FIN after queued data) or by RST. */
static void siw_cep_sock_release(struct siw_cep *cep, bool abrupt)
{
	struct socket *sock = cep->sock;

	if (!sock)
		return;
	siw_sk_detach(cep);
	if (abrupt) {
		sock_no_linger(sock->sk);
	} else if (cep->state != SIW_EPSTATE_LISTENING) {
		siw_sock_drain(sock);
		kernel_sock_shutdown(sock, SHUT_WR);
	}
	sock_release(sock);
	cep->sock = NULL;
}

/*
 * A socket from sock_create_kern() holds no reference on its netns, and
 * tcp_close() therefore stops all its TCP timers (the netns may go away
 * under it). Ours outlive sock_release() after a graceful close: the FIN
 * still has to be delivered, and without the retransmit timer a lost FIN
 * or a lost ACK of it leaves an orphan in FIN-WAIT-1, CLOSING or LAST-ACK
 * for ever. So each holds its netns as a user's socket does; sockets
 * accepted from our listeners inherit that from the listener.
 */
static void siw_sock_hold_net(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (sk->sk_net_refcnt)
		return;
	sk->sk_net_refcnt = 1;
	get_net_track(net, &sk->ns_tracker, GFP_KERNEL);
	sock_inuse_add(net, 1);
}

static int siw_sock_create(struct siw_device *sdev, int family,
			   struct socket **sock)
{
	int err;

	err = sock_create_kern(dev_net(sdev->netdev), family, SOCK_STREAM,
			       IPPROTO_TCP, sock);
	if (err)
		return err;
	siw_sock_hold_net((*sock)->sk);
	sock_set_reuseaddr((*sock)->sk);
	return 0;
}

static void siw_sock_tune(struct socket *sock)
{
	if (!siw_tcp_nagle)
		tcp_sock_set_nodelay(sock->sk);
}

/* ---- events to iw_cm ---- */

/*
 * Non-zero when iw_cm did not take the event (its id is being destroyed,
 * or out of event slots): for a CONNECT_REQUEST no accept or reject will
 * follow then.
 */
static int siw_cm_upcall(struct siw_cep *cep, enum iw_cm_event_type type,
			 int status, const void *pdata, u8 plen)
{
	struct iw_cm_id *id = cep->cm_id;
	struct iw_cm_event ev = {};

	if (type == IW_CM_EVENT_CONNECT_REQUEST)
		id = cep->parent ? cep->parent->cm_id : NULL;
	if (!id)
		return -ENOENT;

	ev.event = type;
	ev.status = status;
	ev.private_data = (void *)pdata;
	ev.private_data_len = plen;
	if (type == IW_CM_EVENT_CONNECT_REQUEST) {
		ev.provider_data = cep;
		ev.ird = cep->peer_ird;
		ev.ord = cep->peer_ord;
	} else {
		ev.ird = cep->ird;
		ev.ord = cep->ord;
	}
	if (cep->sock && (type == IW_CM_EVENT_CONNECT_REQUEST ||
			  type == IW_CM_EVENT_CONNECT_REPLY ||
			  type == IW_CM_EVENT_ESTABLISHED)) {
		kernel_getsockname(cep->sock, (struct sockaddr *)&ev.local_addr);
		kernel_getpeername(cep->sock,
				   (struct sockaddr *)&ev.remote_addr);
	}
	return id->event_handler(id, &ev);
}

/* The last event on cep's cm_id: drop the reference we held on it. */
static void siw_cm_release_id(struct siw_cep *cep)
{
	struct iw_cm_id *id = cep->cm_id;

	if (!id)
		return;
	cep->cm_id = NULL;
	if (id->provider_data == cep)
		id->provider_data = NULL;
	id->rem_ref(id);
}

static void siw_cm_hold_id(struct siw_cep *cep, struct iw_cm_id *id)
{
	id->add_ref(id);
	cep->cm_id = id;
}

/* ---- the QP's side of the connection ---- */

/* Stops the QP using the socket; waits for its works. cep->lock held. */
static void siw_cep_detach_qp(struct siw_cep *cep)
{
	struct siw_qp *qp = cep->qp;
	unsigned long flags;

	if (!qp)
		return;
	if (cep->sock) {
		struct sock *sk = cep->sock->sk;

		write_lock_bh(&sk->sk_callback_lock);
		cep->rx_qp = NULL;
		write_unlock_bh(&sk->sk_callback_lock);
	}
	spin_lock_irqsave(&qp->lock, flags);
	if (qp->cep == cep) {
		qp->cep = NULL;
		qp->sock = NULL;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	/* the works read qp->sock once per run: let running ones finish */
	cancel_work_sync(&qp->tx_work);
	cancel_work_sync(&qp->rx_work);
	siw_qp_error(qp);
	cep->qp = NULL;
	siw_qp_put(qp);
}

/*
 * Tears the connection down. In RDMA mode iw_cm hears DISCONNECT (if the
 * peer started it or an error ended the stream) and then CLOSE.
 */
static void siw_cep_close(struct siw_cep *cep, bool abrupt, int status)
{
	enum siw_cep_state old = cep->state;

	siw_cep_timer_stop(cep);
	siw_cep_detach_qp(cep);
	siw_cep_sock_release(cep, abrupt);
	cep->state = SIW_EPSTATE_CLOSED;

	switch (old) {
	case SIW_EPSTATE_RDMA_MODE:
		if (cep->peer_closed || status)
			siw_cm_upcall(cep, IW_CM_EVENT_DISCONNECT, 0, NULL, 0);
		siw_cm_upcall(cep, IW_CM_EVENT_CLOSE, status, NULL, 0);
		break;
	case SIW_EPSTATE_CONNECTING:
	case SIW_EPSTATE_AWAIT_MPAREP:
		siw_cm_upcall(cep, IW_CM_EVENT_CONNECT_REPLY,
			      status ? status : -ECONNRESET, NULL, 0);
		break;
	default:
		break;
	}
	siw_cm_release_id(cep);
}

/* ---- MPA frames on the socket ---- */

static int siw_send_all(struct socket *sock, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int rv;

	rv = kernel_sendmsg(sock, &msg, &iov, 1, len);
	if (rv < 0)
		return rv;
	/* an MPA frame fits an empty send buffer; less means trouble */
	return rv == len ? 0 : -EAGAIN;
}

/*
 * Reads the rest of the frame into cep->mpa_buf without touching what
 * follows it. 1 when complete, 0 when more is needed, else an error.
 */
static int siw_mpa_recv(struct siw_cep *cep)
{
	struct mpa_rr *rr = (struct mpa_rr *)cep->mpa_buf;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	u32 want;
	int rv;

	for (;;) {
		struct kvec iov;

		if (cep->mpa_rcvd < sizeof(*rr)) {
			want = sizeof(*rr);
		} else {
			u32 pd_len = be16_to_cpu(rr->pd_len);

			if (pd_len > MPA_MAX_PRIVDATA)
				return -EPROTO;
			want = sizeof(*rr) + pd_len;
		}
		if (cep->mpa_rcvd == want)
			return 1;
		iov.iov_base = cep->mpa_buf + cep->mpa_rcvd;
		iov.iov_len = want - cep->mpa_rcvd;
		rv = kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				    MSG_DONTWAIT);
		if (rv == -EAGAIN)
			return 0;
		if (rv < 0)
			return rv;
		if (rv == 0)
			return -ECONNRESET;
		cep->mpa_rcvd += rv;
	}
}

static const u8 *siw_mpa_pdata(struct siw_cep *cep, u8 *plen)
{
	struct mpa_rr *rr = (struct mpa_rr *)cep->mpa_buf;
	u16 pd_len = be16_to_cpu(rr->pd_len);
	u16 skip = cep->enhanced ? sizeof(struct mpa_v2_data) : 0;

	/* iw_cm events carry at most 255 bytes */
	*plen = min_t(u16, pd_len - skip, U8_MAX);
	return cep->mpa_buf + sizeof(*rr) + skip;
}

static void siw_mpa_v2_parse(struct siw_cep *cep)
{
	struct mpa_v2_data *v2 =
		(struct mpa_v2_data *)(cep->mpa_buf + sizeof(struct mpa_rr));
	u16 ird = be16_to_cpu(v2->ird), ord = be16_to_cpu(v2->ord);

	cep->peer_ird = ird & MPA_V2_MASK_IRD_ORD;
	cep->peer_ord = ord & MPA_V2_MASK_IRD_ORD;
	cep->peer_p2p = ird & MPA_V2_PEER_TO_PEER;
}

/* Reject reply (R bit), best effort, for a request we refuse. */
static void siw_mpa_send_reject(struct siw_cep *cep, const void *pdata,
				u8 plen)
{
	u8 buf[SIW_MPA_BUF_SIZE];
	u16 bits = MPA_RR_FLAG_REJECT | (cep->rev ? cep->rev : MPA_REVISION_1);
	int len;

	len = siw_mpa_build(buf, true, bits, NULL, pdata, plen);
	if (len > 0 && !siw_send_all(cep->sock, buf, len))
		siw_count(cep->sdev, SIW_CNT_MPA_REJECT_SENT);
}

/* ---- passive side ---- */

static void siw_listen_accept(struct siw_cep *lcep)
{
	struct socket *newsock;
	struct siw_cep *cep;
	int err;

	while (lcep->state == SIW_EPSTATE_LISTENING) {
		err = kernel_accept(lcep->sock, &newsock, O_NONBLOCK);
		if (err)
			return;
		cep = siw_cep_alloc(lcep->sdev);
		if (IS_ERR(cep)) {
			sock_release(newsock);
			continue;
		}
		/* inherited from the listener already; never left out */
		siw_sock_hold_net(newsock->sk);
		siw_sock_tune(newsock);
		/* not yet reachable by anyone: no need for its lock */
		cep->state = SIW_EPSTATE_AWAIT_MPAREQ;
		siw_cep_get(lcep);
		cep->parent = lcep;
		siw_cep_get(cep);	/* the listener's list */
		list_add_tail(&cep->listenq, &lcep->children);
		siw_sk_attach(cep, newsock, lcep);
		siw_cep_timer_start(cep, SIW_MPA_TIMEOUT);
		/* the request may have arrived before we took over */
		siw_cep_event(cep, SIW_CEP_EV_READABLE);
		siw_cep_put(cep);
	}
}

/* A child leaves its listener's list (it is accepted, refused or gone). */
static void siw_cep_unlink_parent(struct siw_cep *cep)
{
	struct siw_cep *lcep = cep->parent;
	bool linked = false;

	if (!lcep)
		return;
	mutex_lock(&lcep->lock);
	if (!list_empty(&cep->listenq)) {
		list_del_init(&cep->listenq);
		linked = true;
	}
	mutex_unlock(&lcep->lock);
	if (linked)
		siw_cep_put(cep);
}

static void siw_mpa_req_received(struct siw_cep *cep)
{
	struct siw_cep *lcep = cep->parent;
	struct mpa_rr *rr = (struct mpa_rr *)cep->mpa_buf;
	u16 bits = be16_to_cpu(rr->bits);
	const u8 *pdata;
	u8 plen;
	int why;

	why = siw_mpa_check(rr, false, &cep->rev);
	if (why) {
		siw_count(cep->sdev, why);
		/* a peer that speaks MPA at all gets a reject reply */
		if (why != SIW_CNT_MPA_BAD_KEY) {
			if (why == SIW_CNT_MPA_BAD_REV)
				cep->rev = MPA_REVISION_1;
			siw_mpa_send_reject(cep, NULL, 0);
		}
		siw_cep_close(cep, false, 0);
		return;
	}

	cep->enhanced = cep->rev == MPA_REVISION_2 &&
			(bits & MPA_RR_FLAG_ENHANCED);
	/* we answer with our own revision if it is lower */
	if (cep->rev > siw_mpa_version)
		cep->rev = siw_mpa_version;
	if (cep->rev < MPA_REVISION_2)
		cep->enhanced = false;
	if (cep->enhanced) {
		siw_mpa_v2_parse(cep);
	} else {
		cep->peer_ird = SIW_MAX_IRD_QP;
		cep->peer_ord = SIW_MAX_ORD_QP;
	}

	cep->crc = (bits & MPA_RR_FLAG_CRC) || siw_mpa_crc_required;
	if (siw_mpa_crc_strict && (bits & MPA_RR_FLAG_CRC) !=
	    (siw_mpa_crc_required ? MPA_RR_FLAG_CRC : 0)) {
		siw_count(cep->sdev, SIW_CNT_MPA_CRC_MISMATCH);
		siw_mpa_send_reject(cep, NULL, 0);
		siw_cep_close(cep, false, 0);
		return;
	}

	pdata = siw_mpa_pdata(cep, &plen);
	/* the listener's cm_id stays while we hold its endpoint's lock */
	mutex_lock(&lcep->lock);
	if (lcep->state == SIW_EPSTATE_LISTENING && lcep->cm_id) {
		cep->state = SIW_EPSTATE_RECVD_MPAREQ;
		/* iw_cm answers with accept or reject: provider_data holds */
		siw_cep_get(cep);
		if (siw_cm_upcall(cep, IW_CM_EVENT_CONNECT_REQUEST, 0, pdata,
				  plen)) {
			/* never reached iw_cm: nobody will answer it */
			cep->state = SIW_EPSTATE_AWAIT_MPAREQ;
			siw_cep_put(cep);	/* the work holds another */
		}
	}
	mutex_unlock(&lcep->lock);
	if (cep->state != SIW_EPSTATE_RECVD_MPAREQ)
		siw_cep_close(cep, true, 0);
}

/* ---- active side ---- */

/* Builds our MPA request into mpa_buf; it goes out once TCP is up. */
static int siw_mpa_req_prepare(struct siw_cep *cep, const void *pdata,
			       u16 plen)
{
	struct mpa_v2_data v2;
	u16 bits;
	int len;

	cep->rev = siw_mpa_version == MPA_REVISION_1 ? MPA_REVISION_1 :
						       MPA_REVISION_2;
	bits = cep->rev;
	if (siw_mpa_crc_required)
		bits |= MPA_RR_FLAG_CRC;
	if (cep->rev == MPA_REVISION_2) {
		u16 ird = cep->ird, ord = cep->ord;

		bits |= MPA_RR_FLAG_ENHANCED;
		if (siw_peer_to_peer) {
			ird |= MPA_V2_PEER_TO_PEER;
			ord |= MPA_V2_WRITE_RTR | MPA_V2_READ_RTR;
		}
		v2.ird = cpu_to_be16(ird);
		v2.ord = cpu_to_be16(ord);
	}
	len = siw_mpa_build(cep->mpa_buf, false, bits,
			    cep->rev == MPA_REVISION_2 ? &v2 : NULL,
			    pdata, plen);
	if (len < 0)
		return len;
	cep->mpa_rcvd = len;
	return 0;
}

/* The QP is the endpoint's from now on; destroying it ends the attempt. */
static void siw_cep_bind_qp(struct siw_cep *cep, struct siw_qp *qp)
{
	unsigned long flags;

	cep->qp = qp;
	spin_lock_irqsave(&qp->lock, flags);
	if (!qp->cep)
		qp->cep = cep;
	spin_unlock_irqrestore(&qp->lock, flags);
}

static struct siw_conn_params siw_cep_conn_params(struct siw_cep *cep)
{
	struct siw_conn_params p = {
		.sock = cep->sock,
		.cep = cep,
		.ird = cep->ird,
		.ord = cep->ord,
		.crc = cep->crc,
	};

	return p;
}

/* Hands the stream to the QP: its works take over the socket. */
static int siw_cep_enter_rdma_mode(struct siw_cep *cep)
{
	struct siw_conn_params p = siw_cep_conn_params(cep);
	struct sock *sk = cep->sock->sk;
	int err;

	err = siw_qp_connect(cep->qp, &p);
	if (err)
		return err;
	cep->state = SIW_EPSTATE_RDMA_MODE;
	write_lock_bh(&sk->sk_callback_lock);
	cep->rx_qp = cep->qp;
	write_unlock_bh(&sk->sk_callback_lock);
	/* bytes behind the MPA frame may be waiting already */
	siw_qp_kick_rx(cep->qp);
	return 0;
}

static void siw_mpa_rep_received(struct siw_cep *cep)
{
	struct mpa_rr *rr = (struct mpa_rr *)cep->mpa_buf;
	u16 bits = be16_to_cpu(rr->bits);
	u8 sent_rev = cep->rev, rev;
	const u8 *pdata;
	u8 plen;
	int why;

	why = siw_mpa_check(rr, true, &rev);
	if (why) {
		siw_count(cep->sdev, why);
		siw_cep_close(cep, true, -ECONNRESET);
		return;
	}
	/* a responder may answer with a lower revision, never higher */
	if (rev > sent_rev) {
		siw_count(cep->sdev, SIW_CNT_MPA_BAD_REV);
		siw_cep_close(cep, true, -ECONNRESET);
		return;
	}
	cep->rev = rev;
	cep->enhanced = rev == MPA_REVISION_2 && (bits & MPA_RR_FLAG_ENHANCED);
	pdata = siw_mpa_pdata(cep, &plen);

	if (bits & MPA_RR_FLAG_REJECT) {
		siw_count(cep->sdev, SIW_CNT_MPA_REJECT_RCVD);
		siw_cep_timer_stop(cep);
		siw_cm_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, -ECONNREFUSED,
			      pdata, plen);
		siw_cm_release_id(cep);
		cep->state = SIW_EPSTATE_CLOSED;
		siw_cep_close(cep, false, 0);
		return;
	}

	cep->crc = !!(bits & MPA_RR_FLAG_CRC);
	if (siw_mpa_crc_required && !cep->crc) {
		siw_count(cep->sdev, SIW_CNT_MPA_CRC_MISMATCH);
		siw_cep_close(cep, true, -ECONNRESET);
		return;
	}
	if (cep->enhanced) {
		siw_mpa_v2_parse(cep);
		/* we may not have more reads out than the peer takes */
		cep->ord = min_t(u16, cep->ord, cep->peer_ird);
	}

	siw_cep_timer_stop(cep);
	if (!cep->qp || siw_cep_enter_rdma_mode(cep)) {
		siw_cep_close(cep, true, -EINVAL);
		return;
	}
	siw_cm_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, 0, pdata, plen);
}

/* ---- the endpoint work ---- */

static bool siw_sock_dead(struct socket *sock)
{
	int st = READ_ONCE(sock->sk->sk_state);

	return st != TCP_ESTABLISHED && st != TCP_SYN_SENT &&
	       st != TCP_SYN_RECV && st != TCP_LISTEN;
}

/*
 * Before the MPA exchange is done: the QP side asked to close, or the
 * exchange took too long. Ends the endpoint and returns true then.
 */
static bool siw_cep_end_requested(struct siw_cep *cep, unsigned long ev)
{
	if (ev & BIT(SIW_CEP_EV_CLOSE)) {
		siw_cep_close(cep, true, -ECONNRESET);
		return true;
	}
	if (ev & BIT(SIW_CEP_EV_TIMEOUT)) {
		siw_count(cep->sdev, SIW_CNT_MPA_TIMEOUT);
		siw_cep_close(cep, true, -ETIMEDOUT);
		return true;
	}
	return false;
}

static void siw_cep_handle(struct siw_cep *cep, unsigned long ev)
{
	int rv;

	/* the netdev is gone: end everything but listening */
	if ((ev & BIT(SIW_CEP_EV_ABORT)) &&
	    cep->state != SIW_EPSTATE_LISTENING) {
		if (cep->state == SIW_EPSTATE_RECVD_MPAREQ)
			siw_cep_sock_release(cep, true);
		else if (cep->state != SIW_EPSTATE_CLOSED)
			siw_cep_close(cep, true, -ECONNRESET);
		return;
	}

	switch (cep->state) {
	case SIW_EPSTATE_LISTENING:
		if (ev & (BIT(SIW_CEP_EV_READABLE) | BIT(SIW_CEP_EV_STATE)))
			siw_listen_accept(cep);
		return;

	case SIW_EPSTATE_CONNECTING:
		if (siw_cep_end_requested(cep, ev))
			return;
		if (cep->sock->sk->sk_state == TCP_ESTABLISHED) {
			cep->state = SIW_EPSTATE_AWAIT_MPAREP;
			/* the request was stashed in mpa_buf by connect */
			rv = siw_send_all(cep->sock, cep->mpa_buf,
					  cep->mpa_rcvd);
			cep->mpa_rcvd = 0;
			if (rv)
				siw_cep_close(cep, true, rv);
			return;
		}
		if (siw_sock_dead(cep->sock)) {
			rv = -READ_ONCE(cep->sock->sk->sk_err);
			siw_cep_close(cep, true, rv ? rv : -ECONNREFUSED);
		}
		return;

	case SIW_EPSTATE_AWAIT_MPAREQ:
	case SIW_EPSTATE_AWAIT_MPAREP:
		if (siw_cep_end_requested(cep, ev))
			return;
		rv = siw_mpa_recv(cep);
		if (rv < 0) {
			if (rv == -EPROTO)
				siw_count(cep->sdev, SIW_CNT_MPA_BAD_PDLEN);
			siw_cep_close(cep, true, -ECONNRESET);
			return;
		}
		if (rv == 1) {
			if (cep->state == SIW_EPSTATE_AWAIT_MPAREQ) {
				siw_cep_timer_stop(cep);
				siw_mpa_req_received(cep);
			} else {
				siw_mpa_rep_received(cep);
			}
			return;
		}
		if (siw_sock_dead(cep->sock))
			siw_cep_close(cep, true, -ECONNRESET);
		return;

	case SIW_EPSTATE_RECVD_MPAREQ:
		/* accept or reject will find the socket gone */
		if (siw_sock_dead(cep->sock) || (ev & BIT(SIW_CEP_EV_TIMEOUT)))
			siw_cep_sock_release(cep, true);
		return;

	case SIW_EPSTATE_RDMA_MODE:
		if (ev & BIT(SIW_CEP_EV_CLOSE)) {
			siw_cep_close(cep, cep->close_abrupt, 0);
			return;
		}
		if (ev & BIT(SIW_CEP_EV_TIMEOUT)) {
			siw_cep_close(cep, true, 0);
			return;
		}
		if (siw_sock_dead(cep->sock) ||
		    READ_ONCE(cep->sock->sk->sk_shutdown) & RCV_SHUTDOWN) {
			cep->peer_closed = true;
			siw_cep_close(cep, false,
				      READ_ONCE(cep->sock->sk->sk_err) ?
				      -ECONNRESET : 0);
		}
		return;

	default:
		return;
	}
}

static void siw_cep_work(struct work_struct *work)
{
	struct siw_cep *cep = container_of(work, struct siw_cep, work);
	unsigned long ev = xchg(&cep->events, 0);
	bool unlink;

	mutex_lock(&cep->lock);
	siw_cep_handle(cep, ev);
	unlink = cep->state == SIW_EPSTATE_CLOSED ||
		 cep->state == SIW_EPSTATE_RECVD_MPAREQ;
	mutex_unlock(&cep->lock);
	if (unlink)
		siw_cep_unlink_parent(cep);
	siw_cep_put(cep);	/* the queued work's */
}

/* ---- iw_* methods ---- */

static struct siw_qp *siw_qp_by_id(struct siw_device *sdev, u32 qpn)
{
	struct siw_qp *qp;

	xa_lock(&sdev->qp_xa);
	qp = xa_load(&sdev->qp_xa, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	xa_unlock(&sdev->qp_xa);
	return qp;
}

int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct sockaddr *laddr = (struct sockaddr *)&id->m_local_addr;
	struct sockaddr *raddr = (struct sockaddr *)&id->m_remote_addr;
	struct socket *sock = NULL;
	struct siw_cep *cep;
	struct siw_qp *qp;
	int len, err;

	if (laddr->sa_family != raddr->sa_family ||
	    (raddr->sa_family != AF_INET && raddr->sa_family != AF_INET6))
		return -EAFNOSUPPORT;
	if (param->ord > SIW_MAX_ORD_QP || param->ird > SIW_MAX_IRD_QP ||
	    param->private_data_len > MPA_MAX_PRIVDATA -
				      sizeof(struct mpa_v2_data))
		return -EINVAL;

	qp = siw_qp_by_id(sdev, param->qpn);
	if (!qp)
		return -EINVAL;
	cep = siw_cep_alloc(sdev);
	if (IS_ERR(cep)) {
		siw_qp_put(qp);
		return PTR_ERR(cep);
	}
	mutex_lock(&cep->lock);
	siw_cep_bind_qp(cep, qp);
	cep->ird = param->ird ? param->ird : 1;
	cep->ord = param->ord ? param->ord : 1;

	err = siw_sock_create(sdev, raddr->sa_family, &sock);
	if (err)
		goto err_out;
	siw_sock_tune(sock);
	len = laddr->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
					    sizeof(struct sockaddr_in6);
	err = kernel_bind(sock, laddr, len);
	if (err) {
		sock_release(sock);
		goto err_out;
	}

	err = siw_mpa_req_prepare(cep, param->private_data,
				  param->private_data_len);
	if (err) {
		sock_release(sock);
		goto err_out;
	}

	siw_cm_hold_id(cep, id);
	id->provider_data = cep;
	cep->state = SIW_EPSTATE_CONNECTING;
	siw_sk_attach(cep, sock, NULL);
	siw_cep_timer_start(cep, SIW_MPA_TIMEOUT);
	err = kernel_connect(sock, raddr, len, O_NONBLOCK);
	if (err && err != -EINPROGRESS) {
		/* no event follows a failed connect call */
		siw_cep_timer_stop(cep);
		siw_sk_detach(cep);
		sock_release(cep->sock);
		cep->sock = NULL;
		cep->cm_id = NULL;
		id->provider_data = NULL;
		id->rem_ref(id);
		goto err_out;
	}
	/* connected already (loopback): the state change may be past */
	if (sock->sk->sk_state == TCP_ESTABLISHED)
		siw_cep_event(cep, SIW_CEP_EV_STATE);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);	/* the socket and iw_cm keep it */
	return 0;

err_out:
	cep->state = SIW_EPSTATE_CLOSED;
	siw_cep_detach_qp(cep);
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
	return err;
}

int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct siw_cep *cep = id->provider_data;
	u8 buf[SIW_MPA_BUF_SIZE];
	struct mpa_v2_data v2;
	struct siw_qp *qp;
	u16 bits;
	int len, err;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state != SIW_EPSTATE_RECVD_MPAREQ || !cep->sock) {
		err = -ECONNRESET;
		goto out_close;
	}
	if (param->ord > SIW_MAX_ORD_QP || param->ird > SIW_MAX_IRD_QP ||
	    param->private_data_len > MPA_MAX_PRIVDATA -
				      sizeof(struct mpa_v2_data)) {
		err = -EINVAL;
		goto out_reject;
	}
	qp = siw_qp_by_id(sdev, param->qpn);
	if (!qp) {
		err = -EINVAL;
		goto out_reject;
	}
	siw_cep_bind_qp(cep, qp);
	siw_cm_hold_id(cep, id);

	cep->ird = param->ird ? param->ird : 1;
	cep->ord = param->ord ? param->ord : 1;
	if (cep->enhanced) {
		/* cover the reads the initiator may have out, within limits */
		cep->ird = clamp_t(u16, max(cep->ird, cep->peer_ord), 1,
				   SIW_MAX_IRD_QP);
		cep->ord = min_t(u16, cep->ord, cep->peer_ird);
		if (!cep->ord)
			cep->ord = 1;
	}

	bits = cep->rev;
	if (cep->crc)
		bits |= MPA_RR_FLAG_CRC;
	if (cep->enhanced) {
		u16 ird = cep->ird, ord = cep->ord;

		bits |= MPA_RR_FLAG_ENHANCED;
		/* we take any RTR a peer-to-peer initiator sends */
		if (cep->peer_p2p) {
			ird |= MPA_V2_PEER_TO_PEER;
			ord |= MPA_V2_WRITE_RTR | MPA_V2_READ_RTR;
		}
		v2.ird = cpu_to_be16(ird);
		v2.ord = cpu_to_be16(ord);
	}
	len = siw_mpa_build(buf, true, bits, cep->enhanced ? &v2 : NULL,
			    param->private_data, param->private_data_len);
	if (len < 0) {
		err = len;
		goto out_fail;
	}
	/* the QP must own the stream before the peer can send on it */
	err = siw_cep_enter_rdma_mode(cep);
	if (err)
		goto out_fail;
	err = siw_send_all(cep->sock, buf, len);
	if (err) {
		siw_cep_close(cep, true, -ECONNRESET);
		mutex_unlock(&cep->lock);
		goto out_put;
	}
	siw_cm_upcall(cep, IW_CM_EVENT_ESTABLISHED, 0, NULL, 0);
	mutex_unlock(&cep->lock);
	goto out_put;

out_fail:
	/* iw_cm treats a failed accept as the end: no events follow */
	cep->state = SIW_EPSTATE_CLOSED;
	siw_cep_detach_qp(cep);
	siw_cep_sock_release(cep, true);
	cep->cm_id = NULL;
	if (id->provider_data == cep)
		id->provider_data = NULL;
	id->rem_ref(id);
	mutex_unlock(&cep->lock);
	goto out_put;
out_reject:
	siw_mpa_send_reject(cep, NULL, 0);
out_close:
	cep->state = SIW_EPSTATE_CLOSED;
	siw_cep_sock_release(cep, false);
	mutex_unlock(&cep->lock);
	id->provider_data = NULL;
out_put:
	siw_cep_unlink_parent(cep);
	siw_cep_put(cep);	/* the CONNECT_REQUEST's */
	return err;
}

int siw_reject(struct iw_cm_id *id, const void *pdata, u8 plen)
{
	struct siw_cep *cep = id->provider_data;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (cep->state == SIW_EPSTATE_RECVD_MPAREQ && cep->sock) {
		if (plen > MPA_MAX_PRIVDATA)
			plen = 0;
		siw_mpa_send_reject(cep, pdata, plen);
	}
	cep->state = SIW_EPSTATE_CLOSED;
	siw_cep_sock_release(cep, false);
	mutex_unlock(&cep->lock);
	id->provider_data = NULL;
	siw_cep_unlink_parent(cep);
	siw_cep_put(cep);	/* the CONNECT_REQUEST's */
	return 0;
}

/* ---- listening ---- */

static int siw_listen_one(struct siw_device *sdev, struct iw_cm_id *id,
			  struct siw_listener *lst, struct sockaddr *addr,
			  int backlog)
{
	struct socket *sock;
	struct siw_cep *cep;
	int len, err;

	err = siw_sock_create(sdev, addr->sa_family, &sock);
	if (err)
		return err;
	if (addr->sa_family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;

		/* a specific IPv6 address listens for IPv6 only */
		if (!ipv6_addr_any(&a6->sin6_addr) || id->afonly)
			ip6_sock_set_v6only(sock->sk);
		len = sizeof(struct sockaddr_in6);
	} else {
		len = sizeof(struct sockaddr_in);
	}
	err = kernel_bind(sock, addr, len);
	if (!err)
		err = kernel_listen(sock, backlog);
	if (err) {
		sock_release(sock);
		return err;
	}

	cep = siw_cep_alloc(sdev);
	if (IS_ERR(cep)) {
		sock_release(sock);
		return PTR_ERR(cep);
	}
	lockdep_set_class(&cep->lock, &siw_listener_lock_key);
	mutex_lock(&cep->lock);
	siw_cm_hold_id(cep, id);
	cep->state = SIW_EPSTATE_LISTENING;
	siw_sk_attach(cep, sock, NULL);
	mutex_unlock(&cep->lock);
	list_add_tail(&cep->listenq, &lst->ceps);
	return 0;
}

/* Addresses of the device's netdev, for a wildcard listen. */
static int siw_listen_all(struct siw_device *sdev, struct iw_cm_id *id,
			  struct siw_listener *lst, int backlog)
{
	struct sockaddr_storage *addrs;
	struct sockaddr *want = (struct sockaddr *)&id->m_local_addr;
	__be16 port = want->sa_family == AF_INET ?
		((struct sockaddr_in *)want)->sin_port :
		((struct sockaddr_in6 *)want)->sin6_port;
	bool v4 = want->sa_family == AF_INET || !id->afonly;
	bool v6 = want->sa_family == AF_INET6;
	struct net_device *ndev = sdev->netdev;
	int n = 0, max = 32, i, err = 0;

	addrs = kcalloc(max, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;

	/*
	 * RCU, not rtnl: rdma_listen() calls us with rdma_cm's mutex held,
	 * and lockdep saw rtnl held on a path that ends in that mutex.
	 */
	rcu_read_lock();
	if (v4) {
		struct in_device *in_dev = __in_dev_get_rcu(ndev);
		const struct in_ifaddr *ifa;

		if (in_dev) {
			in_dev_for_each_ifa_rcu(ifa, in_dev) {
				struct sockaddr_in *a =
					(struct sockaddr_in *)&addrs[n];

				if (n == max)
					break;
				a->sin_family = AF_INET;
				a->sin_addr.s_addr = ifa->ifa_local;
				a->sin_port = port;
				n++;
			}
		}
	}
	if (v6) {
		struct inet6_dev *idev = __in6_dev_get(ndev);
		struct inet6_ifaddr *ifp;

		if (idev) {
			read_lock_bh(&idev->lock);
			list_for_each_entry(ifp, &idev->addr_list, if_list) {
				struct sockaddr_in6 *a =
					(struct sockaddr_in6 *)&addrs[n];

				if (n == max)
					break;
				a->sin6_family = AF_INET6;
				a->sin6_addr = ifp->addr;
				a->sin6_port = port;
				if (ipv6_addr_type(&ifp->addr) &
				    IPV6_ADDR_LINKLOCAL)
					a->sin6_scope_id = ndev->ifindex;
				n++;
			}
			read_unlock_bh(&idev->lock);
		}
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		err = siw_listen_one(sdev, id, lst, (struct sockaddr *)&addrs[i],
				     backlog);
		if (err)
			break;
	}
	kfree(addrs);
	return err;
}

static bool siw_addr_any(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
}

static void siw_listener_free(struct siw_listener *lst)
{
	struct siw_cep *cep, *child, *tmp;
	LIST_HEAD(children);

	while (!list_empty(&lst->ceps)) {
		cep = list_first_entry(&lst->ceps, struct siw_cep, listenq);
		list_del_init(&cep->listenq);

		mutex_lock(&cep->lock);
		cep->state = SIW_EPSTATE_CLOSED;
		siw_cep_sock_release(cep, false);
		siw_cm_release_id(cep);
		list_splice_init(&cep->children, &children);
		mutex_unlock(&cep->lock);

		/* connections still in the MPA exchange go with it */
		list_for_each_entry_safe(child, tmp, &children, listenq) {
			list_del_init(&child->listenq);
			mutex_lock(&child->lock);
			if (child->state == SIW_EPSTATE_AWAIT_MPAREQ)
				siw_cep_close(child, true, 0);
			mutex_unlock(&child->lock);
			siw_cep_put(child);
		}
		/* a queued work (an abort, say) holds a reference of its own */
		if (cancel_work_sync(&cep->work))
			siw_cep_put(cep);
		siw_cep_put(cep);
	}
	kfree(lst);
}

int siw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct siw_device *sdev = to_siw_dev(id->device);
	struct sockaddr *addr = (struct sockaddr *)&id->m_local_addr;
	struct siw_listener *lst;
	int err;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	lst = kzalloc(sizeof(*lst), GFP_KERNEL);
	if (!lst)
		return -ENOMEM;
	INIT_LIST_HEAD(&lst->ceps);

	if (siw_addr_any(addr))
		err = siw_listen_all(sdev, id, lst, backlog);
	else
		err = siw_listen_one(sdev, id, lst, addr, backlog);
	if (err) {
		siw_listener_free(lst);
		return err;
	}
	id->provider_data = lst;
	return 0;
}

int siw_destroy_listen(struct iw_cm_id *id)
{
	struct siw_listener *lst = id->provider_data;

	if (!lst)
		return 0;
	id->provider_data = NULL;
	siw_listener_free(lst);
	return 0;
}

/* ---- requests from the QP side ---- */

static struct siw_cep *siw_qp_cep_get(struct siw_qp *qp)
{
	struct siw_cep *cep;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	cep = qp->cep;
	if (cep)
		siw_cep_get(cep);
	spin_unlock_irqrestore(&qp->lock, flags);
	return cep;
}

/* SQD (graceful) or ERR (abrupt); any context. */
void siw_cm_qp_disconnect(struct siw_qp *qp, bool abrupt)
{
	struct siw_cep *cep = siw_qp_cep_get(qp);

	if (!cep)
		return;
	if (abrupt)
		cep->close_abrupt = true;
	siw_cep_event(cep, SIW_CEP_EV_CLOSE);
	siw_cep_put(cep);
}

/* destroy_qp: returns once no endpoint uses the QP any more. */
void siw_cm_qp_detach(struct siw_qp *qp)
{
	struct siw_cep *cep = siw_qp_cep_get(qp);

	if (!cep)
		return;
	mutex_lock(&cep->lock);
	if (cep->qp == qp) {
		switch (cep->state) {
		case SIW_EPSTATE_RDMA_MODE:
			cep->close_abrupt = true;
			siw_cep_close(cep, true, 0);
			break;
		case SIW_EPSTATE_CONNECTING:
		case SIW_EPSTATE_AWAIT_MPAREP:
			siw_cep_close(cep, true, -ECONNRESET);
			break;
		default:
			siw_cep_detach_qp(cep);
			break;
		}
	}
	mutex_unlock(&cep->lock);
	siw_cep_put(cep);
}

/*
 * The device's netdev went down or is being unregistered (RTNL held, so
 * nothing here waits): every connection and connection attempt is aborted
 * now, as upstream siw does, since its frames can no longer go anywhere.
 * The QPs go to error and iw_cm hears DISCONNECT/CLOSE (or a failed
 * CONNECT_REPLY), so consumers let go of the device and its
 * unregistration can finish. Listeners stay until rdma_cm removes them;
 * once the netdev is gone new endpoints are refused.
 */
void siw_cm_dev_abort(struct siw_device *sdev, bool gone)
{
	struct siw_cep *cep;

	spin_lock_bh(&sdev->lock);
	if (gone)
		sdev->netdev_gone = true;
	list_for_each_entry(cep, &sdev->cep_list, devq) {
		/* one whose last reference went waits for our lock to go */
		if (!kref_get_unless_zero(&cep->ref))
			continue;
		set_bit(SIW_CEP_EV_ABORT, &cep->events);
		/* a pending work holds a reference: ours is never the last */
		if (!queue_work(siw_cm_wq, &cep->work))
			siw_cep_put(cep);
	}
	spin_unlock_bh(&sdev->lock);
}

/* debugfs "endpoints": a line per live endpoint, read without its lock. */
void siw_cm_show_endpoints(struct seq_file *m)
{
	static const char * const names[] = {
		[SIW_EPSTATE_IDLE] = "idle",
		[SIW_EPSTATE_LISTENING] = "listening",
		[SIW_EPSTATE_CONNECTING] = "connecting",
		[SIW_EPSTATE_AWAIT_MPAREQ] = "await_mpareq",
		[SIW_EPSTATE_RECVD_MPAREQ] = "recvd_mpareq",
		[SIW_EPSTATE_AWAIT_MPAREP] = "await_mparep",
		[SIW_EPSTATE_RDMA_MODE] = "rdma_mode",
		[SIW_EPSTATE_CLOSED] = "closed",
	};
	struct siw_cep *cep;
	unsigned int st;

	spin_lock_bh(&siw_cep_all_lock);
	list_for_each_entry(cep, &siw_cep_all, allq) {
		st = READ_ONCE(cep->state);
		seq_printf(m, "%s %s refs %u events %#lx%s%s%s%s\n",
			   dev_name(&cep->sdev->base_dev.dev),
			   st < ARRAY_SIZE(names) ? names[st] : "?",
			   kref_read(&cep->ref), READ_ONCE(cep->events),
			   READ_ONCE(cep->sock) ? " sock" : "",
			   READ_ONCE(cep->cm_id) ? " cm_id" : "",
			   READ_ONCE(cep->qp) ? " qp" : "",
			   cep->parent ? " child" : "");
	}
	spin_unlock_bh(&siw_cep_all_lock);
}

int siw_cm_init(void)
{
	return 0;
}

void siw_cm_exit(void)
{
	/* every endpoint holds its device, which is gone by now */
	flush_workqueue(siw_cm_wq);
	wait_event(siw_cep_gone, !atomic_read(&siw_cep_count));
}
