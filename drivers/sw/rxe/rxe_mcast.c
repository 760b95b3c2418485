// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_rxe multicast groups: UD QPs attach to a group named by its MGID
 * (an IPv4-mapped or IPv6 multicast address). The receive path looks a
 * group up by the packet's destination address and hands a copy to every
 * attached QP (rxe_recv.c). The first attach of a group adds its Ethernet
 * multicast address to the netdev's filter, the last detach removes it.
 *
 * Locking: rxe->mcg_mutex serialises attach/detach (they may sleep in the
 * netdev filter update); rxe->mcg_lock guards the tree and the QP lists
 * against the receive softirq. Writers hold both, readers either.
 */
#include <linux/if_ether.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "rxe.h"

struct rxe_mcg {
	struct rb_node node;
	union ib_gid mgid;
	struct list_head qp_list;	/* of struct rxe_mca */
	unsigned int num_qp;
};

/*
 * One QP in one group. It holds no QP reference: rxe_qp_destroy() detaches
 * the QP from every group before the QP goes away.
 */
struct rxe_mca {
	struct list_head list;
	struct rxe_qp *qp;
	/*
	 * Attaches of this QP to this group not yet undone. The core counts
	 * every attach that succeeded on the QP (qp->usecnt) and undoes each
	 * with one detach; userspace may attach one GID under several LIDs
	 * (LIDs mean nothing on RoCE), so each attach must be undoable.
	 */
	unsigned int attached;
};

void rxe_mcast_init(struct rxe_dev *rxe)
{
	mutex_init(&rxe->mcg_mutex);
	spin_lock_init(&rxe->mcg_lock);
	rxe->mcg_tree = RB_ROOT;
	rxe->num_mcg = 0;
	rxe->num_mca = 0;
}

/* Caller holds mcg_mutex or mcg_lock. */
static struct rxe_mcg *rxe_mcg_find(struct rxe_dev *rxe,
				    const union ib_gid *mgid)
{
	struct rb_node *n = rxe->mcg_tree.rb_node;
	struct rxe_mcg *mcg;
	int cmp;

	while (n) {
		mcg = rb_entry(n, struct rxe_mcg, node);
		cmp = memcmp(mgid->raw, mcg->mgid.raw, sizeof(mgid->raw));
		if (cmp < 0)
			n = n->rb_left;
		else if (cmp > 0)
			n = n->rb_right;
		else
			return mcg;
	}
	return NULL;
}

/* Caller holds both locks; @mcg's MGID is not in the tree. */
static void rxe_mcg_insert(struct rxe_dev *rxe, struct rxe_mcg *mcg)
{
	struct rb_node **link = &rxe->mcg_tree.rb_node;
	struct rb_node *parent = NULL;
	struct rxe_mcg *tmp;

	while (*link) {
		parent = *link;
		tmp = rb_entry(parent, struct rxe_mcg, node);
		if (memcmp(mcg->mgid.raw, tmp->mgid.raw,
			   sizeof(mcg->mgid.raw)) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&mcg->node, parent, link);
	rb_insert_color(&mcg->node, &rxe->mcg_tree);
}

static struct rxe_mca *rxe_mca_find(struct rxe_mcg *mcg, struct rxe_qp *qp)
{
	struct rxe_mca *mca;

	list_for_each_entry(mca, &mcg->qp_list, list)
		if (mca->qp == qp)
			return mca;
	return NULL;
}

/*
 * Join (@add) or leave the group's Ethernet address on the netdev: the
 * address IP itself would use for this IPv4 or IPv6 group. Process
 * context, no spinlock held (the filter update takes the netdev's own).
 */
static int rxe_mcg_filter(struct rxe_dev *rxe, const union ib_gid *mgid,
			  bool add)
{
	const struct in6_addr *a = (const struct in6_addr *)mgid->raw;
	unsigned char mac[ETH_ALEN];

	/* IB multicast frames go to the broadcast address (sib_xmit.c) */
	if (rxe->sib)
		return 0;
	if (ipv6_addr_v4mapped(a))
		ip_eth_mc_map(a->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(a, mac);

	return add ? dev_mc_add(rxe->ndev, mac) : dev_mc_del(rxe->ndev, mac);
}

/* Caller holds mcg_mutex. Frees @mca and, if it was the last, the group. */
static void rxe_mca_remove(struct rxe_dev *rxe, struct rxe_mcg *mcg,
			   struct rxe_mca *mca)
{
	bool last;

	spin_lock_bh(&rxe->mcg_lock);
	list_del(&mca->list);
	mcg->num_qp--;
	rxe->num_mca--;
	last = !mcg->num_qp;
	if (last) {
		rb_erase(&mcg->node, &rxe->mcg_tree);
		rxe->num_mcg--;
	}
	spin_unlock_bh(&rxe->mcg_lock);

	atomic_dec(&mca->qp->mcg_num);
	kfree(mca);
	if (last) {
		/* nothing to do if it fails: the filter only lets more in */
		rxe_mcg_filter(rxe, &mcg->mgid, false);
		kfree(mcg);
	}
}

int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_mcg *mcg, *new_mcg = NULL;
	struct rxe_mca *mca;
	int err;

	if (qp_type(qp) != IB_QPT_UD)
		return -EINVAL;

	mca = kzalloc(sizeof(*mca), GFP_KERNEL);
	if (!mca)
		return -ENOMEM;
	mca->qp = qp;
	mca->attached = 1;

	mutex_lock(&rxe->mcg_mutex);
	mcg = rxe_mcg_find(rxe, mgid);
	if (mcg) {
		struct rxe_mca *old = rxe_mca_find(mcg, qp);

		if (old) {
			/* already a member: one more attach to undo */
			old->attached++;
			err = 0;
			goto err_unlock;
		}
		if (mcg->num_qp >= RXE_MAX_MCAST_QP_ATTACH ||
		    rxe->num_mca >= RXE_MAX_TOT_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto err_unlock;
		}
	} else {
		if (rxe->num_mcg >= RXE_MAX_MCAST_GRP ||
		    rxe->num_mca >= RXE_MAX_TOT_MCAST_QP_ATTACH) {
			err = -ENOMEM;
			goto err_unlock;
		}
		new_mcg = kzalloc(sizeof(*new_mcg), GFP_KERNEL);
		if (!new_mcg) {
			err = -ENOMEM;
			goto err_unlock;
		}
		new_mcg->mgid = *mgid;
		INIT_LIST_HEAD(&new_mcg->qp_list);
		err = rxe_mcg_filter(rxe, mgid, true);
		if (err)
			goto err_free_mcg;
		mcg = new_mcg;
	}

	spin_lock_bh(&rxe->mcg_lock);
	if (new_mcg) {
		rxe_mcg_insert(rxe, new_mcg);
		rxe->num_mcg++;
	}
	list_add_tail(&mca->list, &mcg->qp_list);
	mcg->num_qp++;
	rxe->num_mca++;
	spin_unlock_bh(&rxe->mcg_lock);
	atomic_inc(&qp->mcg_num);

	mutex_unlock(&rxe->mcg_mutex);
	return 0;

err_free_mcg:
	kfree(new_mcg);
err_unlock:
	mutex_unlock(&rxe->mcg_mutex);
	kfree(mca);
	return err;
}

int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 mlid)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_mcg *mcg;
	struct rxe_mca *mca = NULL;
	int err = -EINVAL;

	mutex_lock(&rxe->mcg_mutex);
	mcg = rxe_mcg_find(rxe, mgid);
	if (mcg)
		mca = rxe_mca_find(mcg, qp);
	if (mca) {
		/* the QP leaves the group with its last attach */
		if (!--mca->attached)
			rxe_mca_remove(rxe, mcg, mca);
		err = 0;
	}
	mutex_unlock(&rxe->mcg_mutex);
	return err;
}

void rxe_mcast_detach_all(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = rxe_from_qp(qp);
	struct rb_node *n, *next;
	struct rxe_mcg *mcg;
	struct rxe_mca *mca;

	if (!atomic_read(&qp->mcg_num))
		return;

	mutex_lock(&rxe->mcg_mutex);
	for (n = rb_first(&rxe->mcg_tree); n; n = next) {
		/* the group may go away with this QP's attachment */
		next = rb_next(n);
		mcg = rb_entry(n, struct rxe_mcg, node);
		mca = rxe_mca_find(mcg, qp);
		if (mca)
			rxe_mca_remove(rxe, mcg, mca);
	}
	mutex_unlock(&rxe->mcg_mutex);
}

int rxe_mcast_get_qps(struct rxe_dev *rxe, const union ib_gid *mgid,
		      struct rxe_qp **qps, int max)
{
	struct rxe_mcg *mcg;
	struct rxe_mca *mca;
	int n = 0;

	spin_lock_bh(&rxe->mcg_lock);
	mcg = rxe_mcg_find(rxe, mgid);
	if (mcg) {
		list_for_each_entry(mca, &mcg->qp_list, list) {
			if (n >= max)
				break;
			/* a QP being destroyed gets nothing more */
			if (rxe_get(mca->qp))
				qps[n++] = mca->qp;
		}
	}
	spin_unlock_bh(&rxe->mcg_lock);
	return n;
}

/* Whether a QP of @rxe is attached to @mgid. Any context but hard IRQ. */
bool rxe_mcast_has_group(struct rxe_dev *rxe, const union ib_gid *mgid)
{
	bool found;

	spin_lock_bh(&rxe->mcg_lock);
	found = rxe_mcg_find(rxe, mgid);
	spin_unlock_bh(&rxe->mcg_lock);
	return found;
}
