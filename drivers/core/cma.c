// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm: IP-addressed RDMA connection management over ib_cm (RoCE and
 * InfiniBand: cma_ib.c), and over iw_cm on iWARP devices (cma_iw.c).
 *
 * An id binds to an IP address and port of a port space, resolves the
 * peer's address (addr.c) and a route (a path record built locally from
 * the RoCE GIDs, or asked from the SA on InfiniBand), and connects
 * through ib_cm: REQ/REP/RTU for connected
 * QPs, SIDR for UD. The first 36 bytes of REQ/SIDR_REQ private data carry
 * the IP addresses and source port so the passive side finds its listener.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/xarray.h>
#include <linux/workqueue.h>
#include <linux/inetdevice.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/tcp.h>
#include <rdma/ib_cache.h>
#include <rdma/ib.h>

#include "core_priv.h"
#include "cma_priv.h"

MODULE_AUTHOR("rdma-kmod");
MODULE_DESCRIPTION("RDMA connection manager");
MODULE_LICENSE("Dual BSD/GPL");

#define CMA_CM_RESPONSE_TIMEOUT		20
#define CMA_MAX_CM_RETRIES		15
#define CMA_CM_MRA_SETTING		(IB_CM_MRA_FLAG_DELAY | CMA_CM_RESPONSE_TIMEOUT)
#define CMA_IBOE_PACKET_LIFETIME	16
#define CMA_VERSION			0x00

/* The private half of every rdma_cm_id we hand out. */
static inline struct rdma_id_private *cma_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

union cma_ip_addr {
	struct in6_addr ip6;
	struct {
		__be32 pad[3];
		__be32 addr;
	} ip4;
};

/* The rdma_cm header at the start of REQ/SIDR_REQ private data. */
struct cma_hdr {
	u8 cma_version;
	u8 ip_version;		/* IP version in bits 7:4 */
	__be16 port;		/* active side's source port */
	union cma_ip_addr src_addr;
	union cma_ip_addr dst_addr;
} __packed;

static_assert(sizeof(struct cma_hdr) == 36);

static int cma_add_one(struct ib_device *device);
static void cma_remove_one(struct ib_device *device, void *client_data);

static struct ib_client cma_client = {
	.name = "cma",
	.add = cma_add_one,
	.remove = cma_remove_one,
};

/* Protects dev_list, listen_any_list, the port spaces and bind lists. */
static DEFINE_MUTEX(lock);
static LIST_HEAD(dev_list);
static LIST_HEAD(listen_any_list);
static DEFINE_XARRAY(tcp_ps);
static DEFINE_XARRAY(udp_ps);
static DEFINE_XARRAY(ipoib_ps);
static DEFINE_XARRAY(ib_ps);
struct workqueue_struct *cma_wq;

/* The names ULPs print for an rdma_cm event. */
const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	switch (event) {
	/* Resolution. */
	case RDMA_CM_EVENT_ADDR_RESOLVED:	return "address resolved";
	case RDMA_CM_EVENT_ROUTE_RESOLVED:	return "route resolved ";
	case RDMA_CM_EVENT_ADDR_ERROR:		return "address error";
	case RDMA_CM_EVENT_ROUTE_ERROR:		return "route error";
	case RDMA_CM_EVENT_ADDR_CHANGE:		return "address change";
	/* Connection life. */
	case RDMA_CM_EVENT_CONNECT_REQUEST:	return "connect request";
	case RDMA_CM_EVENT_CONNECT_RESPONSE:	return "connect response";
	case RDMA_CM_EVENT_ESTABLISHED:		return "established";
	case RDMA_CM_EVENT_CONNECT_ERROR:	return "connect error";
	case RDMA_CM_EVENT_REJECTED:		return "rejected";
	case RDMA_CM_EVENT_UNREACHABLE:		return "unreachable";
	case RDMA_CM_EVENT_DISCONNECTED:	return "disconnected";
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:	return "timewait exit";
	/* Others. */
	case RDMA_CM_EVENT_MULTICAST_JOIN:	return "multicast join";
	case RDMA_CM_EVENT_MULTICAST_ERROR:	return "multicast error";
	case RDMA_CM_EVENT_DEVICE_REMOVAL:	return "device removal";
	}
	return "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

const char *__attribute_const__ rdma_reject_msg(struct rdma_cm_id *id,
						int reason)
{
	return ibcm_reject_msg(reason);
}
EXPORT_SYMBOL(rdma_reject_msg);

bool rdma_is_consumer_reject(struct rdma_cm_id *id, int reason)
{
	return reason == IB_CM_REJ_CONSUMER_DEFINED;
}
EXPORT_SYMBOL(rdma_is_consumer_reject);

const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	if (ev->event != RDMA_CM_EVENT_REJECTED ||
	    !rdma_is_consumer_reject(id, ev->status)) {
		*data_len = 0;
		return NULL;
	}
	*data_len = ev->param.conn.private_data_len;
	return ev->param.conn.private_data;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);

struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *id)
{
	return cma_priv(id)->cm_id_iw;
}
EXPORT_SYMBOL(rdma_iw_cm_id);

struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

/* ------------------------------------------------------------ helpers */

struct sockaddr *cma_src_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.src_addr;
}

struct sockaddr *cma_dst_addr(struct rdma_id_private *id_priv)
{
	return (struct sockaddr *)&id_priv->id.route.addr.dst_addr;
}

static sa_family_t cma_family(struct rdma_id_private *id_priv)
{
	return id_priv->id.route.addr.src_addr.ss_family;
}

static bool cma_any_addr(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(((struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&((struct sockaddr_in6 *)addr)->sin6_addr);
	default:
		return true;
	}
}

static __be16 cma_port(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ((struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((struct sockaddr_in6 *)addr)->sin6_port;
	default:
		return 0;
	}
}

static void cma_set_port(struct sockaddr *addr, __be16 port)
{
	if (addr->sa_family == AF_INET)
		((struct sockaddr_in *)addr)->sin_port = port;
	else if (addr->sa_family == AF_INET6)
		((struct sockaddr_in6 *)addr)->sin6_port = port;
}

/* Same IP address (ports ignored); false across families. */
static bool cma_addr_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((struct sockaddr_in6 *)a)->sin6_addr,
			       &((struct sockaddr_in6 *)b)->sin6_addr);
}

bool cma_comp_exch(struct rdma_id_private *id_priv,
		   enum rdma_cm_state comp, enum rdma_cm_state exch)
{
	unsigned long flags;
	bool ret;

	spin_lock_irqsave(&id_priv->lock, flags);
	ret = id_priv->state == comp;
	if (ret)
		id_priv->state = exch;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}

void cma_id_get(struct rdma_id_private *id_priv)
{
	refcount_inc(&id_priv->refcount);
}

void cma_id_put(struct rdma_id_private *id_priv)
{
	if (refcount_dec_and_test(&id_priv->refcount))
		complete(&id_priv->comp);
}

static void cma_dev_get(struct cma_device *cma_dev)
{
	refcount_inc(&cma_dev->refcount);
}

void cma_dev_put(struct cma_device *cma_dev)
{
	if (refcount_dec_and_test(&cma_dev->refcount))
		complete(&cma_dev->comp);
}

/* The rdma_cm state of the device named @name, referenced, or NULL. */
struct cma_device *cma_get_device_by_name(const char *name)
{
	struct cma_device *cma_dev, *found = NULL;

	mutex_lock(&lock);
	list_for_each_entry(cma_dev, &dev_list, list) {
		if (!strcmp(dev_name(&cma_dev->device->dev), name)) {
			cma_dev_get(cma_dev);
			found = cma_dev;
			break;
		}
	}
	mutex_unlock(&lock);
	return found;
}

enum ib_gid_type cma_get_default_gid_type(struct cma_device *cma_dev,
					  u32 port)
{
	return READ_ONCE(cma_dev->default_gid_type[port -
				rdma_start_port(cma_dev->device)]);
}

/*
 * "IB/RoCE v1" arrives as IB_GID_TYPE_IB; on a RoCE port that means v1.
 * Only a type the port's GID table carries can be the default.
 */
int cma_set_default_gid_type(struct cma_device *cma_dev, u32 port,
			     enum ib_gid_type type)
{
	struct ib_device *device = cma_dev->device;

	if (!rdma_is_port_valid(device, port))
		return -EINVAL;
	if (type == IB_GID_TYPE_IB && rdma_protocol_roce_eth_encap(device, port))
		type = IB_GID_TYPE_ROCE;
	if (!(roce_gid_type_mask_support(device, port) & BIT(type)))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_gid_type[port - rdma_start_port(device)],
		   type);
	return 0;
}

u8 cma_get_default_roce_tos(struct cma_device *cma_dev, u32 port)
{
	return READ_ONCE(cma_dev->default_roce_tos[port -
				rdma_start_port(cma_dev->device)]);
}

int cma_set_default_roce_tos(struct cma_device *cma_dev, u32 port, u8 tos)
{
	if (!rdma_is_port_valid(cma_dev->device, port))
		return -EINVAL;
	WRITE_ONCE(cma_dev->default_roce_tos[port -
			rdma_start_port(cma_dev->device)], tos);
	return 0;
}

static struct xarray *cma_pernet_xa(enum rdma_ucm_port_space ps)
{
	switch (ps) {
	case RDMA_PS_TCP:
		return &tcp_ps;
	case RDMA_PS_UDP:
		return &udp_ps;
	case RDMA_PS_IPOIB:
		return &ipoib_ps;
	case RDMA_PS_IB:
		return &ib_ps;
	default:
		return NULL;
	}
}

__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cpu_to_be64(((u64)id->ps << 16) + be16_to_cpu(cma_port(addr)));
}
EXPORT_SYMBOL(rdma_get_service_id);

/*
 * The GIDs of both ends: zero without a device, those of the resolved L2
 * addresses on iWARP (MAC based) and InfiniBand (IPoIB), those of the IP
 * addresses otherwise.
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_addr *addr = &cm_id->route.addr;
	union ib_gid *out[] = { sgid, dgid };
	/* iWARP and IPoIB addresses carry the GIDs in the L2 addresses. */
	bool iw = cm_id->device &&
		  (rdma_protocol_iwarp(cm_id->device, cm_id->port_num) ||
		   rdma_protocol_ib(cm_id->device, cm_id->port_num));
	int end;

	for (end = 0; end < ARRAY_SIZE(out); end++) {
		union ib_gid *gid = out[end];

		if (!gid)
			continue;
		if (!cm_id->device)
			memset(gid, 0, sizeof(*gid));
		else if (iw && !end)
			rdma_addr_get_sgid(&addr->dev_addr, gid);
		else if (iw)
			rdma_addr_get_dgid(&addr->dev_addr, gid);
		else
			rdma_ip2gid((struct sockaddr *)(end ? &addr->dst_addr :
							&addr->src_addr), gid);
	}
}
EXPORT_SYMBOL(rdma_read_gids);

/* ULPs serialise their own calls with our event handlers through this. */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/* ------------------------------------------------------------ devices */

static void cma_attach_to_dev(struct rdma_id_private *id_priv,
			      struct cma_device *cma_dev)
{
	cma_dev_get(cma_dev);
	id_priv->cma_dev = cma_dev;
	id_priv->id.device = cma_dev->device;
	id_priv->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(cma_dev->device->node_type);
	list_add_tail(&id_priv->dev_item, &cma_dev->id_list);
	/* `rdma resource` counts the ids of a device. */
	rdma_restrack_add(&id_priv->res);
}

static void cma_release_dev(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	mutex_lock(&lock);
	if (id_priv->cma_dev) {
		rdma_restrack_del(&id_priv->res);
		list_del_init(&id_priv->dev_item);
		cma_dev_put(id_priv->cma_dev);
		id_priv->cma_dev = NULL;
	}
	id_priv->id.device = NULL;
	if (dev_addr->sgid_attr) {
		rdma_put_gid_attr(dev_addr->sgid_attr);
		dev_addr->sgid_attr = NULL;
	}
	mutex_unlock(&lock);
}

/* Take @sgid_attr (referenced) as the id's source GID on @port. */
static void cma_attach_with_gid(struct rdma_id_private *id_priv,
				struct cma_device *cma_dev, u32 port,
				const struct ib_gid_attr *sgid_attr)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;

	if (dev_addr->sgid_attr)
		rdma_put_gid_attr(dev_addr->sgid_attr);
	dev_addr->sgid_attr = sgid_attr;
	id_priv->id.port_num = port;
	id_priv->gid_type = sgid_attr->gid_type;
	cma_attach_to_dev(id_priv, cma_dev);
}

/*
 * An IPoIB address: the InfiniBand port whose GID table holds the GID of
 * the interface's hardware address and whose P_Key table its P_Key.
 */
static int cma_acquire_ib_dev(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *sgid_attr;
	struct cma_device *cma_dev;
	u32 port;

	list_for_each_entry(cma_dev, &dev_list, list) {
		rdma_for_each_port(cma_dev->device, port) {
			sgid_attr = cma_ib_port_sgid(cma_dev->device, port,
						     dev_addr);
			if (IS_ERR(sgid_attr))
				continue;
			cma_attach_with_gid(id_priv, cma_dev, port, sgid_attr);
			return 0;
		}
	}
	return -ENODEV;
}

/*
 * Attach the id to the RDMA device whose port has a GID for the id's
 * source IP on the netdev dev_addr->bound_dev_if (RoCE), or whose iWARP
 * port is bound to that netdev, or (IPoIB) whose InfiniBand port has the
 * GID of that netdev's address. Called with lock held.
 */
static int cma_acquire_dev_by_src_ip(struct rdma_id_private *id_priv)
{
	struct rdma_dev_addr *dev_addr = &id_priv->id.route.addr.dev_addr;
	const struct ib_gid_attr *sgid_attr;
	struct cma_device *cma_dev;
	struct net_device *ndev;
	union ib_gid gid;
	u32 port;

	lockdep_assert_held(&lock);
	if (cma_ib_dev_addr(dev_addr))
		return cma_acquire_ib_dev(id_priv);
	/* The IPoIB port space belongs to InfiniBand ports, never to RoCE. */
	if (id_priv->id.ps == RDMA_PS_IPOIB)
		return -EINVAL;
	if (rdma_ip2gid(cma_src_addr(id_priv), &gid))
		return -EAFNOSUPPORT;
	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;

	list_for_each_entry(cma_dev, &dev_list, list) {
		rdma_for_each_port(cma_dev->device, port) {
			if (rdma_protocol_iwarp(cma_dev->device, port) &&
			    cma_iw_port_on_ndev(cma_dev->device, port, ndev)) {
				id_priv->id.port_num = port;
				cma_attach_to_dev(id_priv, cma_dev);
				dev_put(ndev);
				return 0;
			}
			if (!rdma_protocol_roce(cma_dev->device, port))
				continue;
			sgid_attr = rdma_find_gid_by_port(cma_dev->device, &gid,
						cma_get_default_gid_type(cma_dev, port),
						port, ndev);
			if (IS_ERR(sgid_attr))
				continue;
			cma_attach_with_gid(id_priv, cma_dev, port, sgid_attr);
			dev_put(ndev);
			return 0;
		}
	}
	dev_put(ndev);
	return -ENODEV;
}

/* ------------------------------------------------------------ id life */

struct rdma_id_private *
__rdma_create_id(struct net *net, rdma_cm_event_handler event_handler,
		 void *context, enum rdma_ucm_port_space ps,
		 enum ib_qp_type qp_type)
{
	struct rdma_id_private *id_priv;

	id_priv = kzalloc(sizeof(*id_priv), GFP_KERNEL);
	if (!id_priv)
		return ERR_PTR(-ENOMEM);

	id_priv->id.ps = ps;
	id_priv->id.qp_type = qp_type;
	id_priv->id.event_handler = event_handler;
	id_priv->id.context = context;
	id_priv->state = RDMA_CM_IDLE;
	id_priv->gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	id_priv->tos_set = false;
	refcount_set(&id_priv->refcount, 1);
	init_completion(&id_priv->comp);
	spin_lock_init(&id_priv->lock);
	mutex_init(&id_priv->handler_mutex);
	mutex_init(&id_priv->qp_mutex);
	INIT_LIST_HEAD(&id_priv->dev_item);
	INIT_LIST_HEAD(&id_priv->listen_any_item);
	INIT_LIST_HEAD(&id_priv->listen_ents);
	INIT_LIST_HEAD(&id_priv->mc_list);
	INIT_HLIST_NODE(&id_priv->node);
	id_priv->seq_num = get_random_u32() & 0xffffff;
	id_priv->id.route.addr.dev_addr.net = get_net(net);
	rdma_restrack_new(&id_priv->res, RDMA_RESTRACK_CM_ID);
	return id_priv;
}

struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	struct rdma_id_private *id_priv;

	if (!cma_pernet_xa(ps))
		return ERR_PTR(-EINVAL);
	id_priv = __rdma_create_id(net, event_handler, context, ps, qp_type);
	if (IS_ERR(id_priv))
		return ERR_CAST(id_priv);
	rdma_restrack_set_name(&id_priv->res, caller);
	return &id_priv->id;
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	struct rdma_id_private *id_priv;

	if (!cma_pernet_xa(ps))
		return ERR_PTR(-EINVAL);
	id_priv = __rdma_create_id(current->nsproxy->net_ns, event_handler,
				   context, ps, qp_type);
	if (IS_ERR(id_priv))
		return ERR_CAST(id_priv);
	rdma_restrack_set_name(&id_priv->res, NULL);
	return &id_priv->id;
}
EXPORT_SYMBOL(rdma_create_user_id);

static void cma_release_port(struct rdma_id_private *id_priv)
{
	struct rdma_bind_list *bind_list = id_priv->bind_list;

	if (!bind_list)
		return;
	mutex_lock(&lock);
	hlist_del(&id_priv->node);
	id_priv->bind_list = NULL;
	if (hlist_empty(&bind_list->owners)) {
		xa_erase(cma_pernet_xa(bind_list->ps), bind_list->port);
		kfree(bind_list);
	}
	mutex_unlock(&lock);
}

/*
 * `rdma resource show cm_id` lists a wildcard listener once per device it
 * listens on, with its owner, state and source address, as the upstream
 * stack does (where a child id per device carries them). Here the listen
 * is the transport's own id, so a shadow id in that device's resource
 * table stands for it; nothing else ever sees the shadow.
 */
static void cma_listen_shadow_add(struct rdma_id_private *id_priv,
				  struct cma_listen_ent *ent)
{
	struct rdma_id_private *sh;

	sh = __rdma_create_id(id_priv->id.route.addr.dev_addr.net, NULL, NULL,
			      id_priv->id.ps, id_priv->id.qp_type);
	/* only the listing lacks it: the listen itself stands */
	if (IS_ERR(sh))
		return;
	sh->state = RDMA_CM_LISTEN;
	memcpy(cma_src_addr(sh), cma_src_addr(id_priv),
	       sizeof(sh->id.route.addr.src_addr));
	sh->id.device = ent->cma_dev->device;
	rdma_restrack_parent_name(&sh->res, &id_priv->res);
	rdma_restrack_add(&sh->res);
	ent->shadow = sh;
}

static void cma_listen_shadow_free(struct rdma_id_private *sh)
{
	/* waits for a netlink dump reading it */
	rdma_restrack_del(&sh->res);
	put_net(sh->id.route.addr.dev_addr.net);
	kfree(sh);
}

static void cma_destroy_listen_ents(struct list_head *ents)
{
	struct cma_listen_ent *ent, *tmp;

	list_for_each_entry_safe(ent, tmp, ents, list) {
		struct cma_device *cma_dev = ent->cma_dev;

		if (ent->iw_id)
			iw_destroy_cm_id(ent->iw_id);
		else
			ib_destroy_cm_id(ent->cm_id);
		if (ent->shadow)
			cma_listen_shadow_free(ent->shadow);
		kfree(ent);
		/* the device may finish going away now */
		cma_dev_put(cma_dev);
	}
}

static void cma_cancel_listens(struct rdma_id_private *id_priv)
{
	LIST_HEAD(ents);

	mutex_lock(&lock);
	list_del_init(&id_priv->listen_any_item);
	list_splice_init(&id_priv->listen_ents, &ents);
	mutex_unlock(&lock);
	cma_destroy_listen_ents(&ents);
}

static void cma_cancel_operation(struct rdma_id_private *id_priv,
				 enum rdma_cm_state state)
{
	switch (state) {
	case RDMA_CM_ADDR_QUERY:
	case RDMA_CM_DEVICE_REMOVAL:
		/* After a device removal a resolution may still be pending. */
		rdma_addr_cancel(&id_priv->id.route.addr.dev_addr);
		break;
	case RDMA_CM_ROUTE_QUERY:
		/* The work sees DESTROYING and does nothing. */
		if (id_priv->id.device &&
		    rdma_protocol_ib(id_priv->id.device, id_priv->id.port_num))
			cma_ib_cancel_route(id_priv);
		break;
	case RDMA_CM_LISTEN:
		cma_cancel_listens(id_priv);
		break;
	default:
		break;
	}
}

/* Tear down an id whose state is already DESTROYING. */
static void _destroy_id(struct rdma_id_private *id_priv,
			enum rdma_cm_state state)
{
	cma_cancel_operation(id_priv, state);
	cma_leave_all_mcast(id_priv);

	if (id_priv->cm_id_ib) {
		ib_destroy_cm_id(id_priv->cm_id_ib);
		id_priv->cm_id_ib = NULL;
	}
	if (id_priv->cm_id_iw) {
		iw_destroy_cm_id(id_priv->cm_id_iw);
		id_priv->cm_id_iw = NULL;
	}
	cma_release_port(id_priv);
	cma_id_put(id_priv);
	wait_for_completion(&id_priv->comp);
	/* Work still queued holds a reference: none is left here. */
	cma_release_dev(id_priv);
	/* Also an id that never had a device holds its owner task. */
	rdma_restrack_del(&id_priv->res);

	kfree(id_priv->id.route.path_rec);
	put_net(id_priv->id.route.addr.dev_addr.net);
	kfree(id_priv);
}

/*
 * Destroy from a context holding handler_mutex (after the user handler
 * asked for it): mark it DESTROYING first so no further event reaches it.
 */
/*
 * Moves the id to @to unless its state is one of @keep (a mask of state
 * bits); returns the state it was in.
 */
static enum rdma_cm_state cma_state_move(struct rdma_id_private *id_priv,
					 enum rdma_cm_state to,
					 unsigned long keep)
{
	enum rdma_cm_state was;
	unsigned long flags;

	spin_lock_irqsave(&id_priv->lock, flags);
	was = id_priv->state;
	if (!(keep & BIT(was)))
		id_priv->state = to;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return was;
}

/* Called with handler_mutex held; the id is gone on return. */
void destroy_id_handler_unlock(struct rdma_id_private *id_priv)
{
	enum rdma_cm_state was;

	lockdep_assert_held(&id_priv->handler_mutex);
	was = cma_state_move(id_priv, RDMA_CM_DESTROYING, 0);
	mutex_unlock(&id_priv->handler_mutex);
	_destroy_id(id_priv, was);
}

void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	/*
	 * A listener's mutex is the lockdep class the request path gives it.
	 * ULPs destroy their listener under a lock of theirs that their
	 * handlers take for a connected id (nvmet: nvmet_config_sem, taken
	 * by a command run from the ESTABLISHED event); in one class the two
	 * orders look like a cycle, though no id is ever both. The state
	 * cannot change here: only the owner, destroying it, could.
	 */
	if (READ_ONCE(id_priv->state) == RDMA_CM_LISTEN)
		mutex_lock_nested(&id_priv->handler_mutex, CMA_LOCK_LISTENER);
	else
		mutex_lock(&id_priv->handler_mutex);
	destroy_id_handler_unlock(id_priv);
}
EXPORT_SYMBOL(rdma_destroy_id);

/* ------------------------------------------------------------ binding */

/*
 * Does b's address clash with a's on one port? As upstream: a wildcard
 * overlaps everything (-EADDRNOTAVAIL), one address twice is -EADDRINUSE.
 */
static int cma_addrs_conflict(struct rdma_id_private *a,
			      struct rdma_id_private *b)
{
	struct sockaddr *sa = cma_src_addr(a), *sb = cma_src_addr(b);

	if (cma_any_addr(sa) || cma_any_addr(sb)) {
		/* An IPv6 wildcard with afonly does not cover IPv4. */
		if (sa->sa_family != sb->sa_family &&
		    ((sa->sa_family == AF_INET6 && a->afonly) ||
		     (sb->sa_family == AF_INET6 && b->afonly)))
			return 0;
		return -EADDRNOTAVAIL;
	}
	return cma_addr_equal(sa, sb) ? -EADDRINUSE : 0;
}

/* Would id_priv on bind_list clash with an existing owner? lock held. */
static int cma_check_port(struct rdma_bind_list *bind_list,
			  struct rdma_id_private *id_priv, bool reuseaddr)
{
	struct rdma_id_private *cur;
	int ret;

	hlist_for_each_entry(cur, &bind_list->owners, node) {
		if (cur == id_priv)
			continue;
		if (reuseaddr && cur->reuseaddr &&
		    cur->state != RDMA_CM_LISTEN)
			continue;
		ret = cma_addrs_conflict(id_priv, cur);
		if (ret)
			return ret;
	}
	return 0;
}

static int cma_bind_port(struct rdma_id_private *id_priv, unsigned short port)
{
	struct xarray *xa = cma_pernet_xa(id_priv->id.ps);
	struct rdma_bind_list *bind_list;
	int ret;

	bind_list = xa_load(xa, port);
	if (bind_list) {
		ret = cma_check_port(bind_list, id_priv, id_priv->reuseaddr);
		if (ret)
			return ret;
	} else {
		bind_list = kzalloc(sizeof(*bind_list), GFP_KERNEL);
		if (!bind_list)
			return -ENOMEM;
		bind_list->ps = id_priv->id.ps;
		bind_list->port = port;
		INIT_HLIST_HEAD(&bind_list->owners);
		ret = xa_insert(xa, port, bind_list, GFP_KERNEL);
		if (ret) {
			kfree(bind_list);
			return ret;
		}
	}
	id_priv->bind_list = bind_list;
	hlist_add_head(&id_priv->node, &bind_list->owners);
	cma_set_port(cma_src_addr(id_priv), htons(port));
	return 0;
}

static int cma_alloc_any_port(struct rdma_id_private *id_priv)
{
	struct net *net = id_priv->id.route.addr.dev_addr.net;
	struct xarray *xa = cma_pernet_xa(id_priv->id.ps);
	int low, high, remaining;
	unsigned int rover;

	inet_get_local_port_range(net, &low, &high);
	remaining = high - low + 1;
	rover = get_random_u32_below(remaining) + low;
	while (remaining--) {
		if (!xa_load(xa, rover) && !inet_is_local_reserved_port(net, rover))
			return cma_bind_port(id_priv, rover);
		if (++rover > high)
			rover = low;
	}
	return -EADDRNOTAVAIL;
}

static int cma_get_port(struct rdma_id_private *id_priv)
{
	unsigned short port = ntohs(cma_port(cma_src_addr(id_priv)));
	int ret;

	mutex_lock(&lock);
	if (port)
		ret = cma_bind_port(id_priv, port);
	else
		ret = cma_alloc_any_port(id_priv);
	mutex_unlock(&lock);
	return ret;
}

int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct rdma_dev_addr *dev_addr = &id->route.addr.dev_addr;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (!cma_comp_exch(id_priv, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;

	memcpy(cma_src_addr(id_priv), addr, rdma_addr_size(addr));
	if (!cma_any_addr(addr)) {
		if (addr->sa_family == AF_INET6 &&
		    (ipv6_addr_type(&((struct sockaddr_in6 *)addr)->sin6_addr) &
		     IPV6_ADDR_LINKLOCAL))
			dev_addr->bound_dev_if =
				((struct sockaddr_in6 *)addr)->sin6_scope_id;
		ret = rdma_translate_ip(addr, dev_addr);
		if (ret)
			goto err;
		mutex_lock(&lock);
		ret = cma_acquire_dev_by_src_ip(id_priv);
		mutex_unlock(&lock);
		if (ret)
			goto err;
	}

	ret = cma_get_port(id_priv);
	if (ret)
		goto err_dev;
	return 0;

err_dev:
	cma_release_dev(id_priv);
err:
	memset(&id->route.addr.src_addr, 0, sizeof(id->route.addr.src_addr));
	dev_addr->bound_dev_if = 0;
	cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_IDLE);
	return ret;
}
EXPORT_SYMBOL(rdma_bind_addr);

/* Bind to the wildcard address of @family (or of @src_addr) if unbound. */
static int cma_bind_for_resolve(struct rdma_id_private *id_priv,
				struct sockaddr *src_addr,
				const struct sockaddr *dst_addr)
{
	struct sockaddr_storage any = {};

	if (src_addr && src_addr->sa_family)
		return rdma_bind_addr(&id_priv->id, src_addr);

	any.ss_family = dst_addr->sa_family;
	if (dst_addr->sa_family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&any;
		const struct sockaddr_in6 *d6 =
			(const struct sockaddr_in6 *)dst_addr;

		a6->sin6_scope_id = d6->sin6_scope_id;
		if (ipv6_addr_type(&d6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			id_priv->id.route.addr.dev_addr.bound_dev_if =
				d6->sin6_scope_id;
	}
	return rdma_bind_addr(&id_priv->id, (struct sockaddr *)&any);
}

/* ------------------------------------------------------------ events */

/* Deliver @event with handler_mutex held; destroy the id on request. */
int cma_cm_event_handler(struct rdma_id_private *id_priv,
			 struct rdma_cm_event *event)
{
	lockdep_assert_held(&id_priv->handler_mutex);
	return id_priv->id.event_handler(&id_priv->id, event);
}

/* ------------------------------------------------------------ address */

/*
 * No reference is held for the resolution: rdma_destroy_id() cancels it
 * synchronously (rdma_addr_cancel) while the state is ADDR_QUERY.
 */
static void addr_handler(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *dev_addr, void *context)
{
	struct rdma_id_private *id_priv = context;
	struct rdma_cm_event event = {};
	struct sockaddr *src = cma_src_addr(id_priv);
	__be16 port = cma_port(src);

	mutex_lock(&id_priv->handler_mutex);
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED))
		goto out;

	/* Keep the bound port; take the IP the route chose. */
	if (!status && cma_any_addr(src)) {
		memcpy(src, src_addr, rdma_addr_size(src_addr));
		cma_set_port(src, port);
	}
	if (!status && !id_priv->cma_dev) {
		mutex_lock(&lock);
		status = cma_acquire_dev_by_src_ip(id_priv);
		mutex_unlock(&lock);
		if (status)
			pr_debug_ratelimited("rdma_cm: no RDMA device for the resolved address: %d\n",
					     status);
	}

	if (status) {
		if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
				   RDMA_CM_ADDR_BOUND))
			goto out;
		event.event = RDMA_CM_EVENT_ADDR_ERROR;
		event.status = status;
	} else {
		event.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	}

	if (cma_cm_event_handler(id_priv, &event)) {
		destroy_id_handler_unlock(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
}

int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6)
		return -EAFNOSUPPORT;

	if (id_priv->state == RDMA_CM_IDLE) {
		ret = cma_bind_for_resolve(id_priv, src_addr, dst_addr);
		if (ret)
			return ret;
	}
	if (cma_family(id_priv) != dst_addr->sa_family)
		return -EINVAL;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY))
		return -EINVAL;

	memcpy(cma_dst_addr(id_priv), dst_addr, rdma_addr_size(dst_addr));
	ret = rdma_resolve_ip(cma_src_addr(id_priv), dst_addr,
			      &id->route.addr.dev_addr, timeout_ms,
			      addr_handler, false, id_priv);
	if (ret) {
		memset(cma_dst_addr(id_priv), 0, sizeof(struct sockaddr_storage));
		cma_comp_exch(id_priv, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

/* ------------------------------------------------------------ route */

u8 cma_tos(struct rdma_id_private *id_priv)
{
	if (id_priv->tos_set || !id_priv->cma_dev)
		return id_priv->tos;
	return cma_get_default_roce_tos(id_priv->cma_dev, id_priv->id.port_num);
}

/* The RoCE path record, built from the GIDs and the netdev. */
static int cma_build_roce_path(struct rdma_id_private *id_priv,
			       struct sa_path_rec *path)
{
	struct rdma_addr *addr = &id_priv->id.route.addr;
	struct rdma_dev_addr *dev_addr = &addr->dev_addr;
	const struct ib_gid_attr *sgid_attr = dev_addr->sgid_attr;
	struct ib_port_attr port_attr;
	struct net_device *ndev;
	enum ib_mtu mtu;
	int rate, ret;

	if (!sgid_attr)
		return -ENODEV;
	ndev = dev_get_by_index(dev_addr->net, dev_addr->bound_dev_if);
	if (!ndev)
		return -ENODEV;

	memset(path, 0, sizeof(*path));
	path->rec_type = sa_conv_gid_to_pathrec_type(sgid_attr->gid_type);
	path->sgid = sgid_attr->gid;
	rdma_ip2gid(cma_dst_addr(id_priv), &path->dgid);
	path->pkey = cpu_to_be16(0xffff);
	path->service_id = rdma_get_service_id(&id_priv->id,
					       cma_dst_addr(id_priv));
	path->reversible = 1;
	path->numb_path = 1;
	path->traffic_class = cma_tos(id_priv);
	path->sl = rt_tos2priority(path->traffic_class);
	path->hop_limit = sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP ?
			  dev_addr->hoplimit : 1;
	if (!path->hop_limit)
		path->hop_limit = 64;

	mtu = iboe_get_mtu(ndev->mtu);
	ret = ib_query_port(id_priv->id.device, id_priv->id.port_num,
			    &port_attr);
	if (!ret && port_attr.active_mtu && port_attr.active_mtu < mtu)
		mtu = port_attr.active_mtu;
	path->mtu = mtu ? mtu : IB_MTU_1024;
	path->mtu_selector = IB_SA_EQ;
	rate = iboe_get_rate(ndev);
	path->rate = rate;
	path->rate_selector = IB_SA_EQ;
	path->packet_life_time = CMA_IBOE_PACKET_LIFETIME;
	path->packet_life_time_selector = IB_SA_EQ;
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, dev_addr->dst_dev_addr);
	dev_put(ndev);

	if (is_zero_ether_addr(path->roce.dmac))
		return -EINVAL;
	return 0;
}

/*
 * The end of rdma_resolve_route(), from rdma_cm's work queue: @path (owned
 * by the id from here on) or the error @status, told to the user. Drops
 * the reference the resolution held.
 */
void cma_route_finish(struct rdma_id_private *id_priv,
		      struct sa_path_rec *path, int status)
{
	struct rdma_cm_event event = {};

	mutex_lock(&id_priv->handler_mutex);
	id_priv->sa_query = NULL;
	if (READ_ONCE(id_priv->state) != RDMA_CM_ROUTE_QUERY) {
		kfree(path);
		goto out;
	}
	if (status) {
		kfree(path);
		if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
				   RDMA_CM_ADDR_RESOLVED))
			goto out;
		event.event = RDMA_CM_EVENT_ROUTE_ERROR;
		event.status = status;
	} else {
		kfree(id_priv->id.route.path_rec);
		id_priv->id.route.path_rec = path;
		id_priv->id.route.num_pri_alt_paths = 1;
		if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
				   RDMA_CM_ROUTE_RESOLVED))
			goto out;
		event.event = RDMA_CM_EVENT_ROUTE_RESOLVED;
	}

	if (cma_cm_event_handler(id_priv, &event)) {
		cma_id_put(id_priv);
		destroy_id_handler_unlock(id_priv);
		return;
	}
out:
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

/* RoCE: the path is built from what address resolution found. */
static void cma_route_work(struct work_struct *work)
{
	struct rdma_id_private *id_priv =
		container_of(work, struct rdma_id_private, route_work);
	struct sa_path_rec *path;
	int ret;

	path = kmalloc(sizeof(*path), GFP_KERNEL);
	ret = path ? cma_build_roce_path(id_priv, path) : -ENOMEM;
	cma_route_finish(id_priv, path, ret);
}

int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	bool iwarp, ib;
	int ret;

	if (!id->device)
		return -ENOSYS;
	iwarp = rdma_protocol_iwarp(id->device, id->port_num);
	ib = rdma_protocol_ib(id->device, id->port_num);
	if (!iwarp && !ib && !rdma_protocol_roce(id->device, id->port_num))
		return -ENOSYS;
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;

	id_priv->timeout_ms = timeout_ms;
	cma_id_get(id_priv);
	if (ib) {
		ret = cma_ib_resolve_route(id_priv, timeout_ms);
		if (ret) {
			cma_comp_exch(id_priv, RDMA_CM_ROUTE_QUERY,
				      RDMA_CM_ADDR_RESOLVED);
			cma_id_put(id_priv);
		}
		return ret;
	}
	INIT_WORK(&id_priv->route_work,
		  iwarp ? cma_iw_route_work : cma_route_work);
	queue_work(cma_wq, &id_priv->route_work);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_route);

int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct sa_path_rec *path;

	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_RESOLVED,
			   RDMA_CM_ROUTE_RESOLVED))
		return -EINVAL;
	path = kmemdup(path_rec, sizeof(*path_rec), GFP_KERNEL);
	if (!path) {
		cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED,
			      RDMA_CM_ADDR_RESOLVED);
		return -ENOMEM;
	}
	if (id->device && rdma_protocol_roce(id->device, id->port_num)) {
		path->rec_type = sa_conv_gid_to_pathrec_type(id_priv->gid_type);
		sa_path_set_dmac(path, id->route.addr.dev_addr.dst_dev_addr);
		path->roce.route_resolved = true;
	}
	kfree(id->route.path_rec);
	id->route.path_rec = path;
	id->route.num_pri_alt_paths = 1;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ib_path);

/* ------------------------------------------------------------ options */

int rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->tos = (u8)tos;
	id_priv->tos_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_service_type);

int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&id_priv->lock, flags);
	if ((reuse && id_priv->state != RDMA_CM_LISTEN) ||
	    id_priv->state == RDMA_CM_IDLE)
		id_priv->reuseaddr = !!reuse;
	else
		ret = -EINVAL;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&id_priv->lock, flags);
	if (id_priv->state == RDMA_CM_IDLE ||
	    id_priv->state == RDMA_CM_ADDR_BOUND)
		id_priv->afonly = !!afonly;
	else
		ret = -EINVAL;
	spin_unlock_irqrestore(&id_priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	id_priv->timeout = timeout;
	id_priv->timeout_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_TGT)
		return -EINVAL;
	if (min_rnr_timer > 31)
		return -EINVAL;
	id_priv->min_rnr_timer = min_rnr_timer;
	id_priv->min_rnr_timer_set = true;
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/* ------------------------------------------------------------ QPs */

/*
 * The Q_Key of a UD id that has none yet: rdma_cm's own, except for the
 * IPoIB port space on InfiniBand, whose ids talk to IPoIB (the Q_Key of
 * the partition's broadcast group).
 */
int cma_set_default_qkey(struct rdma_id_private *id_priv)
{
	struct rdma_cm_id *id = &id_priv->id;

	if (id_priv->qkey)
		return 0;
	if (id->ps == RDMA_PS_IPOIB && id->device &&
	    rdma_protocol_ib(id->device, id->port_num))
		return cma_ib_ipoib_qkey(id_priv, &id_priv->qkey);
	id_priv->qkey = RDMA_UDP_QKEY;
	return 0;
}

static int cma_ib_init_qp_attr(struct rdma_id_private *id_priv,
			       struct ib_qp_attr *qp_attr, int *qp_attr_mask)
{
	u16 pkey, index = 0;
	int ret;

	/* InfiniBand: the partition of the IPoIB interface; RoCE: index 0. */
	if (rdma_protocol_ib(id_priv->id.device, id_priv->id.port_num))
		ret = cma_ib_pkey_index(id_priv, &index);
	else
		ret = ib_get_cached_pkey(id_priv->id.device,
					 id_priv->id.port_num, 0, &pkey);
	qp_attr->pkey_index = index;
	if (ret)
		return ret;
	qp_attr->port_num = id_priv->id.port_num;
	*qp_attr_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;

	if (id_priv->id.qp_type == IB_QPT_UD) {
		/* The QP exists before connect: fix the Q_Key now. */
		ret = cma_set_default_qkey(id_priv);
		if (ret)
			return ret;
		qp_attr->qkey = id_priv->qkey;
		*qp_attr_mask |= IB_QP_QKEY;
	} else {
		qp_attr->qp_access_flags = 0;
		*qp_attr_mask |= IB_QP_ACCESS_FLAGS;
	}
	return 0;
}

int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (!id->device)
		return -EINVAL;
	if (rdma_cap_iw_cm(id->device, id->port_num))
		return cma_iw_init_qp_attr(id_priv, qp_attr, qp_attr_mask);
	if (!id_priv->cm_id_ib || id->qp_type == IB_QPT_UD) {
		if (qp_attr->qp_state != IB_QPS_INIT)
			return -EINVAL;
		return cma_ib_init_qp_attr(id_priv, qp_attr, qp_attr_mask);
	}

	ret = ib_cm_init_qp_attr(id_priv->cm_id_ib, qp_attr, qp_attr_mask);
	if (ret)
		return ret;
	/*
	 * Receive PSN: the REQ's on the active side, our REP's on the passive
	 * side (both are seq_num); a user QP reaches RTR before the REP goes.
	 */
	if (qp_attr->qp_state == IB_QPS_RTR)
		qp_attr->rq_psn = id_priv->seq_num;
	if (qp_attr->qp_state == IB_QPS_RTR && id_priv->min_rnr_timer_set) {
		qp_attr->min_rnr_timer = id_priv->min_rnr_timer;
		*qp_attr_mask |= IB_QP_MIN_RNR_TIMER;
	}
	if (qp_attr->qp_state == IB_QPS_RTS && id_priv->timeout_set) {
		qp_attr->timeout = id_priv->timeout;
		*qp_attr_mask |= IB_QP_TIMEOUT;
	}
	return 0;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

static int cma_init_ud_qp(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr qp_attr = {};
	int mask, ret;

	qp_attr.qp_state = IB_QPS_INIT;
	ret = cma_ib_init_qp_attr(id_priv, &qp_attr, &mask);
	if (ret)
		return ret;
	ret = ib_modify_qp(qp, &qp_attr, mask);
	if (ret)
		return ret;
	qp_attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(qp, &qp_attr, IB_QP_STATE);
	if (ret)
		return ret;
	qp_attr.qp_state = IB_QPS_RTS;
	qp_attr.sq_psn = 0;
	return ib_modify_qp(qp, &qp_attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int cma_init_conn_qp(struct rdma_id_private *id_priv, struct ib_qp *qp)
{
	struct ib_qp_attr qp_attr = {};
	int mask, ret;

	qp_attr.qp_state = IB_QPS_INIT;
	ret = rdma_init_qp_attr(&id_priv->id, &qp_attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(qp, &qp_attr, mask);
}

int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;
	if (id->qp)
		return -EEXIST;

	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	if (id->qp_type == IB_QPT_UD)
		ret = cma_init_ud_qp(id_priv, qp);
	else
		ret = cma_init_conn_qp(id_priv, qp);
	if (ret)
		goto err;

	id->qp = qp;
	id_priv->qp_num = qp->qp_num;
	id_priv->srq = (qp->srq != NULL);
	return 0;
err:
	ib_destroy_qp(qp);
	return ret;
}
EXPORT_SYMBOL(rdma_create_qp);

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	mutex_lock(&id_priv->qp_mutex);
	if (id->qp)
		ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&id_priv->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

int cma_modify_qp_rtr(struct rdma_id_private *id_priv,
		      struct rdma_conn_param *conn_param)
{
	struct ib_qp_attr qp_attr = {};
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;

	/* Re-apply INIT: access flags are known only once ib_cm has them. */
	qp_attr.qp_state = IB_QPS_INIT;
	ret = rdma_init_qp_attr(&id_priv->id, &qp_attr, &mask);
	if (ret)
		goto out;
	ret = ib_modify_qp(id_priv->id.qp, &qp_attr, mask);
	if (ret)
		goto out;

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_state = IB_QPS_RTR;
	ret = rdma_init_qp_attr(&id_priv->id, &qp_attr, &mask);
	if (ret)
		goto out;
	if (conn_param)
		qp_attr.max_dest_rd_atomic = conn_param->responder_resources;
	ret = ib_modify_qp(id_priv->id.qp, &qp_attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

static int cma_modify_qp_rts(struct rdma_id_private *id_priv,
			     struct rdma_conn_param *conn_param)
{
	struct ib_qp_attr qp_attr = {};
	int mask, ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (!id_priv->id.qp)
		goto out;
	qp_attr.qp_state = IB_QPS_RTS;
	ret = rdma_init_qp_attr(&id_priv->id, &qp_attr, &mask);
	if (ret)
		goto out;
	if (conn_param)
		qp_attr.max_rd_atomic = conn_param->initiator_depth;
	ret = ib_modify_qp(id_priv->id.qp, &qp_attr, mask);
out:
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

static int cma_modify_qp_err(struct rdma_id_private *id_priv)
{
	struct ib_qp_attr qp_attr = { .qp_state = IB_QPS_ERR };
	int ret = 0;

	mutex_lock(&id_priv->qp_mutex);
	if (id_priv->id.qp)
		ret = ib_modify_qp(id_priv->id.qp, &qp_attr, IB_QP_STATE);
	mutex_unlock(&id_priv->qp_mutex);
	return ret;
}

/* ------------------------------------------------------------ ib_cm events */

static void cma_set_rep_event_data(struct rdma_cm_event *event,
				   const struct ib_cm_rep_event_param *rep,
				   void *private_data)
{
	event->param.conn.private_data = private_data;
	event->param.conn.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE;
	event->param.conn.responder_resources = rep->responder_resources;
	event->param.conn.initiator_depth = rep->initiator_depth;
	event->param.conn.flow_control = rep->flow_control;
	event->param.conn.rnr_retry_count = rep->rnr_retry_count;
	event->param.conn.srq = rep->srq;
	event->param.conn.qp_num = rep->remote_qpn;
	event->ece = rep->ece;
}

/* Active side got a REP: finish the handshake for a kernel QP. */
static int cma_rep_recv(struct rdma_id_private *id_priv)
{
	int ret;

	ret = cma_modify_qp_rtr(id_priv, NULL);
	if (ret)
		goto reject;
	ret = cma_modify_qp_rts(id_priv, NULL);
	if (ret)
		goto reject;
	ret = ib_send_cm_rtu(id_priv->cm_id_ib, NULL, 0);
	if (ret)
		goto reject;
	return 0;
reject:
	pr_debug_ratelimited("rdma_cm: completing the connection failed: %d\n",
			     ret);
	cma_modify_qp_err(id_priv);
	ib_send_cm_rej(id_priv->cm_id_ib, IB_CM_REJ_CONSUMER_DEFINED,
		       NULL, 0, NULL, 0);
	return ret;
}

/*
 * Hands @ev to the user and drops handler_mutex. A non-zero answer
 * destroys the id; ib_cm then destroys its cm_id itself.
 */
static int cma_ib_deliver_unlock(struct rdma_id_private *id_priv,
				 struct rdma_cm_event *ev)
{
	int ret = cma_cm_event_handler(id_priv, ev);

	if (!ret) {
		mutex_unlock(&id_priv->handler_mutex);
		return 0;
	}
	id_priv->cm_id_ib = NULL;
	destroy_id_handler_unlock(id_priv);
	return ret;
}

/* The active side got the REP: finish (or let the user finish) the QP. */
static void cma_ib_rep_event(struct rdma_id_private *id_priv,
			     struct ib_cm_id *cm_id,
			     const struct ib_cm_event *ib_event,
			     struct rdma_cm_event *ev)
{
	/* Moving the QP may take a while: ask the peer to wait for the RTU. */
	if (id_priv->id.qp_type != IB_QPT_UD)
		ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING, NULL, 0);
	ev->event = RDMA_CM_EVENT_CONNECT_RESPONSE;
	if (id_priv->id.qp) {
		ev->status = cma_rep_recv(id_priv);
		ev->event = ev->status ? RDMA_CM_EVENT_CONNECT_ERROR :
					 RDMA_CM_EVENT_ESTABLISHED;
	}
	cma_set_rep_event_data(ev, &ib_event->param.rep_rcvd,
			       ib_event->private_data);
}

/*
 * The rdma_cm event an ib_cm event on a connected id means; false when
 * there is none to report.
 */
static bool cma_ib_event_xlate(struct rdma_id_private *id_priv,
			       struct ib_cm_id *cm_id,
			       const struct ib_cm_event *ib_event,
			       struct rdma_cm_event *ev)
{
	switch (ib_event->event) {
	case IB_CM_REP_RECEIVED:
		cma_ib_rep_event(id_priv, cm_id, ib_event, ev);
		return true;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		ev->event = RDMA_CM_EVENT_ESTABLISHED;
		return true;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		ev->status = -ETIMEDOUT;
		ev->event = RDMA_CM_EVENT_UNREACHABLE;
		return true;
	case IB_CM_REJ_RECEIVED:
		cma_modify_qp_err(id_priv);
		ev->status = ib_event->param.rej_rcvd.reason;
		ev->event = RDMA_CM_EVENT_REJECTED;
		ev->param.conn.private_data = ib_event->private_data;
		ev->param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
		return true;
	case IB_CM_DREQ_RECEIVED:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
		/* Whichever comes first disconnects; the others are news. */
		if (!cma_comp_exch(id_priv, RDMA_CM_CONNECT,
				   RDMA_CM_DISCONNECT))
			return false;
		if (ib_event->event == IB_CM_DREQ_ERROR)
			ev->status = -ETIMEDOUT;
		ev->event = RDMA_CM_EVENT_DISCONNECTED;
		return true;
	case IB_CM_TIMEWAIT_EXIT:
		ev->event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		return true;
	default:	/* MRA and the like: ib_cm's business only */
		return false;
	}
}

static int cma_ib_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ib_event)
{
	struct rdma_id_private *id_priv = cm_id->context;
	/* Only TIMEWAIT_EXIT comes after the disconnect. */
	enum rdma_cm_state want = ib_event->event == IB_CM_TIMEWAIT_EXIT ?
				  RDMA_CM_DISCONNECT : RDMA_CM_CONNECT;
	struct rdma_cm_event ev = {};

	mutex_lock(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) == want &&
	    cma_ib_event_xlate(id_priv, cm_id, ib_event, &ev))
		return cma_ib_deliver_unlock(id_priv, &ev);
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* The UD peer's answer to our SIDR REQ. */
static void cma_sidr_rep_event(struct rdma_id_private *id_priv,
			       const struct ib_cm_event *ib_event,
			       struct rdma_cm_event *ev)
{
	const struct ib_cm_sidr_rep_event_param *rep =
		&ib_event->param.sidr_rep_rcvd;
	const struct ib_gid_attr *sgid_attr =
		id_priv->id.route.addr.dev_addr.sgid_attr;
	struct sa_path_rec *path = id_priv->id.route.path_rec;
	struct rdma_ah_attr *ah = &ev->param.ud.ah_attr;

	ev->param.ud.private_data = ib_event->private_data;
	ev->param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	ev->event = RDMA_CM_EVENT_UNREACHABLE;
	if (rep->status != IB_SIDR_SUCCESS) {
		ev->status = rep->status;
		return;
	}
	/* A Q_Key the user chose must be the one the peer answers with. */
	if ((id_priv->qkey && id_priv->qkey != rep->qkey) || !path ||
	    !sgid_attr) {
		ev->status = -EINVAL;
		return;
	}

	if (!sa_path_is_roce(path)) {
		/* InfiniBand: the peer's LID (and a GRH if routed). */
		ev->status = cma_ib_ud_ah(id_priv, ah);
		if (ev->status)
			return;
		goto done;
	}
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_sl(ah, path->sl);
	rdma_ah_set_port_num(ah, id_priv->id.port_num);
	memcpy(ah->roce.dmac, path->roce.dmac, ETH_ALEN);
	rdma_ah_set_grh(ah, &path->dgid, be32_to_cpu(path->flow_label),
			sgid_attr->index, path->hop_limit, path->traffic_class);
	/* The event's ah_attr holds its own GID reference. */
	rdma_hold_gid_attr(sgid_attr);
	ah->grh.sgid_attr = sgid_attr;
done:
	ev->param.ud.qkey = rep->qkey;
	ev->param.ud.qp_num = rep->qpn;
	ev->status = 0;
	ev->event = RDMA_CM_EVENT_ESTABLISHED;
}

static int cma_sidr_rep_handler(struct ib_cm_id *cm_id,
				const struct ib_cm_event *ib_event)
{
	struct rdma_id_private *id_priv = cm_id->context;
	struct rdma_cm_event ev = {};
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT)
		goto ignore;
	if (ib_event->event == IB_CM_SIDR_REP_RECEIVED) {
		cma_sidr_rep_event(id_priv, ib_event, &ev);
	} else if (ib_event->event == IB_CM_SIDR_REQ_ERROR) {
		ev.status = -ETIMEDOUT;
		ev.event = RDMA_CM_EVENT_UNREACHABLE;
	} else {
		goto ignore;
	}
	ret = cma_ib_deliver_unlock(id_priv, &ev);
	rdma_destroy_ah_attr(&ev.param.ud.ah_attr);
	return ret;

ignore:
	mutex_unlock(&id_priv->handler_mutex);
	return 0;
}

/* ------------------------------------------------------------ passive */

static void cma_hdr_to_addr(struct sockaddr *sa, const union cma_ip_addr *ip,
			    int ip_ver, __be16 port, int scope)
{
	if (ip_ver == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)sa;

		memset(s4, 0, sizeof(*s4));
		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = ip->ip4.addr;
		s4->sin_port = port;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;

		memset(s6, 0, sizeof(*s6));
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = ip->ip6;
		s6->sin6_port = port;
		if (ipv6_addr_type(&ip->ip6) & IPV6_ADDR_LINKLOCAL)
			s6->sin6_scope_id = scope;
	}
}

/*
 * Does listener @l accept a request for @dst (an IP of family @fam)? On
 * InfiniBand @net is the namespace of the IPoIB interface owning @dst.
 */
static bool cma_listener_match(struct rdma_id_private *l,
			       const struct sockaddr *dst,
			       struct ib_device *device, struct net *net)
{
	struct sockaddr *src = cma_src_addr(l);

	if (l->state != RDMA_CM_LISTEN)
		return false;
	if (l->id.device && l->id.device != device)
		return false;
	if (net && !net_eq(l->id.route.addr.dev_addr.net, net))
		return false;
	if (cma_any_addr(src)) {
		if (src->sa_family == dst->sa_family)
			return true;
		return src->sa_family == AF_INET6 && !l->afonly;
	}
	return cma_addr_equal(src, dst);
}

/* Find (and get) the listener for a request; NULL if there is none. */
static struct rdma_id_private *
cma_find_listener(__be64 service_id, const struct sockaddr *dst,
		  struct ib_device *device, struct net *net)
{
	u64 sid = be64_to_cpu(service_id);
	struct rdma_id_private *cur, *wild = NULL, *found = NULL;
	struct rdma_bind_list *bind_list;
	struct xarray *xa;

	if (sid >> 32)
		return NULL;
	xa = cma_pernet_xa((sid >> 16) & 0xffff);
	if (!xa)
		return NULL;

	mutex_lock(&lock);
	bind_list = xa_load(xa, sid & 0xffff);
	if (bind_list) {
		hlist_for_each_entry(cur, &bind_list->owners, node) {
			if (!cma_listener_match(cur, dst, device, net))
				continue;
			if (!cma_any_addr(cma_src_addr(cur))) {
				found = cur;
				break;
			}
			if (!wild)
				wild = cur;
		}
	}
	if (!found)
		found = wild;
	if (found)
		cma_id_get(found);
	mutex_unlock(&lock);
	return found;
}

static int cma_check_req_hdr(const struct cma_hdr *hdr)
{
	int ver = hdr->ip_version >> 4;

	if (hdr->cma_version != CMA_VERSION)
		return -EINVAL;
	if (ver != 4 && ver != 6)
		return -EINVAL;
	return ver;
}

/* Attach a new connection's id to the device the request came in on. */
int cma_attach_to_device(struct rdma_id_private *id_priv,
			 struct ib_device *device)
{
	struct cma_device *cma_dev;

	mutex_lock(&lock);
	cma_dev = ib_get_client_data(device, &cma_client);
	/* Off dev_list: the device is going away, take no new ids. */
	if (cma_dev && list_empty(&cma_dev->list))
		cma_dev = NULL;
	if (cma_dev)
		cma_attach_to_dev(id_priv, cma_dev);
	mutex_unlock(&lock);
	return cma_dev ? 0 : -ENODEV;
}

/*
 * Fill the new id's addressing and device from the request. @ib_ndev is
 * the IPoIB interface of a request on an InfiniBand port; on RoCE the
 * netdev is the one of the GID entry.
 */
static int cma_setup_conn_id(struct rdma_id_private *conn_id,
			     struct rdma_id_private *listen_id,
			     const struct cma_hdr *hdr, int ip_ver,
			     struct ib_cm_id *cm_id, u32 port,
			     const struct ib_gid_attr *sgid_attr,
			     struct sa_path_rec *path,
			     struct net_device *ib_ndev)
{
	struct rdma_dev_addr *dev_addr = &conn_id->id.route.addr.dev_addr;
	struct net_device *ndev;
	int scope = 0;

	if (!sgid_attr)
		return -EINVAL;

	rcu_read_lock();
	ndev = ib_ndev ? ib_ndev : rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	rdma_copy_src_l2_addr(dev_addr, ndev);
	scope = ndev->ifindex;
	rcu_read_unlock();

	cma_hdr_to_addr(cma_src_addr(conn_id), &hdr->dst_addr, ip_ver,
			cma_port(cma_src_addr(listen_id)), scope);
	cma_hdr_to_addr(cma_dst_addr(conn_id), &hdr->src_addr, ip_ver,
			hdr->port, scope);
	dev_addr->network = ip_ver == 4 ? RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	if (ib_ndev) {
		dev_addr->network = RDMA_NETWORK_IB;
		/* The peer's GID where an IPoIB address keeps it. */
		if (path)
			rdma_addr_set_dgid(dev_addr, &path->dgid);
	}
	if (path) {
		if (sa_path_is_roce(path))
			memcpy(dev_addr->dst_dev_addr, path->roce.dmac,
			       ETH_ALEN);
		conn_id->id.route.path_rec = kmemdup(path, sizeof(*path),
						     GFP_KERNEL);
		if (!conn_id->id.route.path_rec)
			return -ENOMEM;
		conn_id->id.route.num_pri_alt_paths = 1;
	}

	rdma_hold_gid_attr(sgid_attr);
	dev_addr->sgid_attr = sgid_attr;
	conn_id->gid_type = sgid_attr->gid_type;
	conn_id->id.port_num = port;
	return cma_attach_to_device(conn_id, cm_id->device);
}

static int cma_ib_req_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *ib_event)
{
	const struct cma_hdr *hdr = ib_event->private_data;
	struct rdma_id_private *listen_id, *conn_id;
	struct rdma_cm_event event = {};
	const struct ib_gid_attr *sgid_attr;
	struct sockaddr_storage dst = {};
	struct sa_path_rec *path = NULL;
	const struct ib_gid_attr *ib_sgid = NULL;
	struct net_device *ib_ndev = NULL;
	enum ib_qp_type qp_type;
	__be64 service_id;
	bool sidr;
	u32 port;
	int ver, ret;

	sidr = ib_event->event == IB_CM_SIDR_REQ_RECEIVED;
	if (!sidr && ib_event->event != IB_CM_REQ_RECEIVED)
		return -EINVAL;
	if (!hdr)
		return -EINVAL;
	ver = cma_check_req_hdr(hdr);
	if (ver < 0)
		return ver;

	if (sidr) {
		service_id = ib_event->param.sidr_req_rcvd.service_id;
		sgid_attr = ib_event->param.sidr_req_rcvd.sgid_attr;
		port = ib_event->param.sidr_req_rcvd.port;
		qp_type = IB_QPT_UD;
	} else {
		service_id = cm_id->service_id;
		if (!service_id && ib_event->param.req_rcvd.primary_path)
			service_id =
				ib_event->param.req_rcvd.primary_path->service_id;
		sgid_attr = ib_event->param.req_rcvd.ppath_sgid_attr;
		port = ib_event->param.req_rcvd.port;
		path = ib_event->param.req_rcvd.primary_path;
		qp_type = ib_event->param.req_rcvd.qp_type;
	}

	cma_hdr_to_addr((struct sockaddr *)&dst, &hdr->dst_addr, ver, 0, 0);
	/* InfiniBand: the IPoIB interface the request is for, and its GID. */
	if (rdma_protocol_ib(cm_id->device, port)) {
		ret = cma_ib_req_target(cm_id->device, port, ib_event,
					(struct sockaddr *)&dst, &ib_ndev,
					&ib_sgid);
		if (ret)
			return ret;
		sgid_attr = ib_sgid;
	}
	listen_id = cma_find_listener(service_id, (struct sockaddr *)&dst,
				      cm_id->device,
				      ib_ndev ? dev_net(ib_ndev) : NULL);
	if (!listen_id) {
		ret = -ECONNREFUSED;
		goto out_target;
	}

	mutex_lock_nested(&listen_id->handler_mutex, CMA_LOCK_LISTENER);
	if (READ_ONCE(listen_id->state) != RDMA_CM_LISTEN) {
		ret = -ECONNABORTED;
		goto err_unlock_listen;
	}

	conn_id = __rdma_create_id(listen_id->id.route.addr.dev_addr.net,
				   listen_id->id.event_handler,
				   listen_id->id.context, listen_id->id.ps,
				   qp_type);
	if (IS_ERR(conn_id)) {
		ret = PTR_ERR(conn_id);
		goto err_unlock_listen;
	}
	rdma_restrack_parent_name(&conn_id->res, &listen_id->res);
	conn_id->state = RDMA_CM_CONNECT;
	conn_id->afonly = listen_id->afonly;
	conn_id->tos = listen_id->tos;
	conn_id->tos_set = listen_id->tos_set;
	conn_id->qkey = listen_id->qkey ? listen_id->qkey : RDMA_UDP_QKEY;

	mutex_lock_nested(&conn_id->handler_mutex, CMA_LOCK_REQ_ID);
	ret = cma_setup_conn_id(conn_id, listen_id, hdr, ver, cm_id, port,
				sgid_attr, path, ib_ndev);
	if (ret)
		goto err_destroy_conn;

	conn_id->cm_id_ib = cm_id;
	cm_id->context = conn_id;
	cm_id->cm_handler = sidr ? cma_sidr_rep_handler : cma_ib_handler;

	event.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	if (sidr) {
		event.param.ud.private_data = hdr + 1;
		event.param.ud.private_data_len =
			IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE - sizeof(*hdr);
	} else {
		const struct ib_cm_req_event_param *req =
			&ib_event->param.req_rcvd;

		event.param.conn.private_data = hdr + 1;
		event.param.conn.private_data_len =
			IB_CM_REQ_PRIVATE_DATA_SIZE - sizeof(*hdr);
		event.param.conn.responder_resources = req->responder_resources;
		event.param.conn.initiator_depth = req->initiator_depth;
		event.param.conn.flow_control = req->flow_control;
		event.param.conn.retry_count = req->retry_count;
		event.param.conn.rnr_retry_count = req->rnr_retry_count;
		event.param.conn.srq = req->srq;
		event.param.conn.qp_num = req->remote_qpn;
		event.ece = req->ece;
		/* Our REP advertises the REQ's PSN (any value would do). */
		conn_id->seq_num = req->starting_psn & 0xffffff;
	}

	ret = cma_cm_event_handler(conn_id, &event);
	if (ret) {
		/* ib_cm destroys cm_id (and rejects) on our non-zero return. */
		conn_id->cm_id_ib = NULL;
		mutex_unlock(&listen_id->handler_mutex);
		cma_id_put(listen_id);
		destroy_id_handler_unlock(conn_id);
		goto out_target;
	}

	/* Not accepted yet: ask the peer for patience if it re-sends. */
	if (READ_ONCE(conn_id->state) == RDMA_CM_CONNECT && !sidr)
		ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING, NULL, 0);

	mutex_unlock(&conn_id->handler_mutex);
	mutex_unlock(&listen_id->handler_mutex);
	cma_id_put(listen_id);
	ret = 0;
	goto out_target;

err_destroy_conn:
	conn_id->cm_id_ib = NULL;
	mutex_unlock(&listen_id->handler_mutex);
	cma_id_put(listen_id);
	destroy_id_handler_unlock(conn_id);
	goto out_target;

err_unlock_listen:
	mutex_unlock(&listen_id->handler_mutex);
	cma_id_put(listen_id);
out_target:
	if (ib_sgid)
		rdma_put_gid_attr(ib_sgid);
	dev_put(ib_ndev);
	return ret;
}

/* ------------------------------------------------------------ listen */

static int cma_listen_on_dev(struct rdma_id_private *id_priv,
			     struct cma_device *cma_dev)
{
	struct ib_device *device = cma_dev->device;
	struct cma_listen_ent *ent;
	struct ib_cm_id *cm_id;
	int ret;

	ent = kzalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->cma_dev = cma_dev;
	if (cma_iw_device(device)) {
		ret = cma_iw_listen(id_priv, ent);
	} else {
		cm_id = ib_cm_insert_listen(device, cma_ib_req_handler,
					    rdma_get_service_id(&id_priv->id,
							cma_src_addr(id_priv)));
		ret = PTR_ERR_OR_ZERO(cm_id);
		if (!ret)
			ent->cm_id = cm_id;
	}
	/* No listen: an error, or an iWARP device for a UD id. */
	if (ret || (!ent->cm_id && !ent->iw_id)) {
		kfree(ent);
		return ret;
	}
	/* a listener bound to the device is in its table already */
	if (!id_priv->cma_dev)
		cma_listen_shadow_add(id_priv, ent);
	cma_dev_get(cma_dev);
	list_add_tail(&ent->list, &id_priv->listen_ents);
	return 0;
}

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	struct cma_device *cma_dev;
	int ret;

	if (READ_ONCE(id_priv->state) == RDMA_CM_IDLE) {
		struct sockaddr_in any = { .sin_family = AF_INET };

		ret = rdma_bind_addr(id, (struct sockaddr *)&any);
		if (ret)
			return ret;
	}
	if (!cma_comp_exch(id_priv, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN))
		return -EINVAL;

	mutex_lock(&lock);
	/* A listener must be alone on its address, reuseaddr or not. */
	if (id_priv->reuseaddr) {
		ret = cma_check_port(id_priv->bind_list, id_priv, false);
		if (ret)
			goto err_unlock;
	}
	id_priv->backlog = backlog > 0 ? backlog : 1024;
	if (id->device) {
		/* cma_remove_one() may have passed this id already */
		ret = id_priv->cma_dev && !list_empty(&id_priv->cma_dev->list) ?
			cma_listen_on_dev(id_priv, id_priv->cma_dev) : -ENODEV;
		if (ret)
			goto err_unlock;
	} else {
		list_for_each_entry(cma_dev, &dev_list, list) {
			ret = cma_listen_on_dev(id_priv, cma_dev);
			if (ret)
				goto err_unlock;
		}
		list_add_tail(&id_priv->listen_any_item, &listen_any_list);
	}
	mutex_unlock(&lock);
	return 0;

err_unlock:
	mutex_unlock(&lock);
	cma_cancel_listens(id_priv);
	cma_comp_exch(id_priv, RDMA_CM_LISTEN, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_listen);

/* ------------------------------------------------------------ active */

static int cma_format_hdr(struct cma_hdr *hdr, struct rdma_id_private *id_priv)
{
	struct sockaddr *src = cma_src_addr(id_priv);
	struct sockaddr *dst = cma_dst_addr(id_priv);

	memset(hdr, 0, sizeof(*hdr));
	hdr->cma_version = CMA_VERSION;
	if (src->sa_family == AF_INET) {
		hdr->ip_version = 4 << 4;
		hdr->src_addr.ip4.addr = ((struct sockaddr_in *)src)->sin_addr.s_addr;
		hdr->dst_addr.ip4.addr = ((struct sockaddr_in *)dst)->sin_addr.s_addr;
		hdr->port = ((struct sockaddr_in *)src)->sin_port;
	} else if (src->sa_family == AF_INET6) {
		hdr->ip_version = 6 << 4;
		hdr->src_addr.ip6 = ((struct sockaddr_in6 *)src)->sin6_addr;
		hdr->dst_addr.ip6 = ((struct sockaddr_in6 *)dst)->sin6_addr;
		hdr->port = ((struct sockaddr_in6 *)src)->sin6_port;
	} else {
		return -EAFNOSUPPORT;
	}
	return 0;
}

static void *cma_build_private_data(struct rdma_id_private *id_priv,
				    const struct rdma_conn_param *conn_param,
				    u8 max_len, u8 *len)
{
	u8 user_len = conn_param ? conn_param->private_data_len : 0;
	u8 *buf;

	if (user_len > max_len - sizeof(struct cma_hdr))
		return ERR_PTR(-EINVAL);
	*len = sizeof(struct cma_hdr) + user_len;
	buf = kzalloc(*len, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	if (cma_format_hdr((struct cma_hdr *)buf, id_priv)) {
		kfree(buf);
		return ERR_PTR(-EAFNOSUPPORT);
	}
	if (user_len && conn_param->private_data)
		memcpy(buf + sizeof(struct cma_hdr), conn_param->private_data,
		       user_len);
	return buf;
}

static int cma_resolve_ib_udp(struct rdma_id_private *id_priv,
			      struct rdma_conn_param *conn_param)
{
	struct ib_cm_sidr_req_param req = {};
	struct ib_cm_id *cm_id;
	void *private_data;
	u8 len;
	int ret;

	private_data = cma_build_private_data(id_priv, conn_param,
					      IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE,
					      &len);
	if (IS_ERR(private_data))
		return PTR_ERR(private_data);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_sidr_rep_handler,
				id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id_ib = cm_id;

	req.path = id_priv->id.route.path_rec;
	req.sgid_attr = id_priv->id.route.addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8);
	req.private_data = private_data;
	req.private_data_len = len;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;

	ret = ib_send_cm_sidr_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_id_ib = NULL;
	}
out:
	kfree(private_data);
	return ret;
}

static int cma_connect_ib(struct rdma_id_private *id_priv,
			  struct rdma_conn_param *conn_param)
{
	struct ib_cm_req_param req = {};
	struct rdma_route *route = &id_priv->id.route;
	struct ib_cm_id *cm_id;
	void *private_data;
	u8 len;
	int ret;

	private_data = cma_build_private_data(id_priv, conn_param,
					      IB_CM_REQ_PRIVATE_DATA_SIZE,
					      &len);
	if (IS_ERR(private_data))
		return PTR_ERR(private_data);

	cm_id = ib_create_cm_id(id_priv->id.device, cma_ib_handler, id_priv);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto out;
	}
	id_priv->cm_id_ib = cm_id;

	req.primary_path = route->path_rec;
	req.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	req.service_id = rdma_get_service_id(&id_priv->id,
					     cma_dst_addr(id_priv));
	req.qp_num = id_priv->qp_num;
	req.qp_type = id_priv->id.qp_type;
	req.starting_psn = id_priv->seq_num;
	req.responder_resources = conn_param->responder_resources;
	req.initiator_depth = conn_param->initiator_depth;
	req.flow_control = conn_param->flow_control;
	req.retry_count = min_t(u8, 7, conn_param->retry_count);
	req.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	req.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT;
	req.max_cm_retries = CMA_MAX_CM_RETRIES;
	req.srq = id_priv->srq ? 1 : 0;
	req.private_data = private_data;
	req.private_data_len = len;
	req.ece = id_priv->ece;

	ret = ib_send_cm_req(cm_id, &req);
	if (ret) {
		ib_destroy_cm_id(cm_id);
		id_priv->cm_id_ib = NULL;
	}
out:
	kfree(private_data);
	return ret;
}

int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	if (!cma_comp_exch(id_priv, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;

	if (!id->qp && conn_param) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (id->device && rdma_cap_iw_cm(id->device, id->port_num)) {
		ret = cma_iw_connect(id_priv, conn_param);
		goto out;
	}
	if (!id->device || !rdma_cap_ib_cm(id->device, id->port_num)) {
		ret = -ENOSYS;
		goto err;
	}
	if (id->qp_type == IB_QPT_UD) {
		ret = cma_set_default_qkey(id_priv);
		if (!ret)
			ret = cma_resolve_ib_udp(id_priv, conn_param);
	} else {
		if (!conn_param) {
			ret = -EINVAL;
			goto err;
		}
		ret = cma_connect_ib(id_priv, conn_param);
	}
out:
	if (ret)
		goto err;
	return 0;
err:
	cma_comp_exch(id_priv, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	mutex_lock(&id_priv->handler_mutex);
	ret = rdma_connect_locked(id, conn_param);
	mutex_unlock(&id_priv->handler_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->ece = *ece;
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/* ------------------------------------------------------------ accept */

static int cma_accept_ib(struct rdma_id_private *id_priv,
			 struct rdma_conn_param *conn_param)
{
	struct ib_cm_rep_param rep = {};
	int ret;

	ret = cma_modify_qp_rtr(id_priv, conn_param);
	if (ret)
		return ret;
	ret = cma_modify_qp_rts(id_priv, conn_param);
	if (ret)
		return ret;

	rep.qp_num = id_priv->qp_num;
	rep.starting_psn = id_priv->seq_num;
	rep.private_data = conn_param->private_data;
	rep.private_data_len = conn_param->private_data_len;
	rep.responder_resources = conn_param->responder_resources;
	rep.initiator_depth = conn_param->initiator_depth;
	rep.failover_accepted = 0;
	rep.flow_control = conn_param->flow_control;
	rep.rnr_retry_count = min_t(u8, 7, conn_param->rnr_retry_count);
	rep.srq = id_priv->srq ? 1 : 0;
	rep.ece = id_priv->ece;
	return ib_send_cm_rep(id_priv->cm_id_ib, &rep);
}

static int cma_send_sidr_rep(struct rdma_id_private *id_priv,
			     enum ib_cm_sidr_status status, u32 qkey,
			     const void *private_data, int private_data_len)
{
	struct ib_cm_sidr_rep_param rep = {};

	if (status == IB_SIDR_SUCCESS) {
		if (qkey)
			id_priv->qkey = qkey;
		rep.qp_num = id_priv->qp_num;
		rep.qkey = id_priv->qkey;
		rep.ece = id_priv->ece;
	}
	rep.status = status;
	rep.private_data = private_data;
	rep.private_data_len = private_data_len;
	return ib_send_cm_sidr_rep(id_priv->cm_id_ib, &rep);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	lockdep_assert_held(&id_priv->handler_mutex);
	if (READ_ONCE(id_priv->state) != RDMA_CM_CONNECT)
		return -EINVAL;
	if (!id_priv->cm_id_ib && !id_priv->cm_id_iw)
		return -EINVAL;

	if (!id->qp && conn_param) {
		id_priv->qp_num = conn_param->qp_num;
		id_priv->srq = conn_param->srq;
	}

	if (id_priv->cm_id_iw) {
		ret = cma_iw_accept(id_priv, conn_param);
	} else if (id->qp_type == IB_QPT_UD) {
		if (conn_param)
			ret = cma_send_sidr_rep(id_priv, IB_SIDR_SUCCESS,
						conn_param->qkey,
						conn_param->private_data,
						conn_param->private_data_len);
		else
			ret = cma_send_sidr_rep(id_priv, IB_SIDR_SUCCESS, 0,
						NULL, 0);
	} else if (conn_param) {
		ret = cma_accept_ib(id_priv, conn_param);
	} else {
		/* Active side after CONNECT_RESPONSE: send the RTU. */
		ret = cma_rep_recv(id_priv);
	}
	if (ret)
		goto reject;
	return 0;

reject:
	cma_modify_qp_err(id_priv);
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret;
}
EXPORT_SYMBOL(rdma_accept);

int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	id_priv->ece = *ece;
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (!id_priv->cm_id_ib)
		return -EINVAL;
	return ib_cm_notify(id_priv->cm_id_ib, event);
}
EXPORT_SYMBOL(rdma_notify);

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *id_priv = cma_priv(id);

	if (id_priv->cm_id_iw)
		return iw_cm_reject(id_priv->cm_id_iw, private_data,
				    private_data_len);
	if (!id_priv->cm_id_ib)
		return -EINVAL;
	if (id->qp_type == IB_QPT_UD)
		return cma_send_sidr_rep(id_priv, IB_SIDR_REJECT, 0,
					 private_data, private_data_len);
	if (!reason)
		reason = IB_CM_REJ_CONSUMER_DEFINED;
	return ib_send_cm_rej(id_priv->cm_id_ib, reason, NULL, 0,
			      private_data, private_data_len);
}
EXPORT_SYMBOL(rdma_reject);

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *id_priv = cma_priv(id);
	int ret;

	/* iWARP: iw_cm moves the QP to SQD, which starts the close. */
	if (id_priv->cm_id_iw)
		return iw_cm_disconnect(id_priv->cm_id_iw, 0);
	if (!id_priv->cm_id_ib)
		return -EINVAL;
	ret = cma_modify_qp_err(id_priv);
	if (ret)
		return ret;
	/* Already got a DREQ: answer it instead. */
	if (ib_send_cm_dreq(id_priv->cm_id_ib, NULL, 0))
		ib_send_cm_drep(id_priv->cm_id_ib, NULL, 0);
	return 0;
}
EXPORT_SYMBOL(rdma_disconnect);

/* ------------------------------------------------------------ client */

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *id_priv;
	struct cma_device *cma_dev;
	unsigned int nports = rdma_end_port(device) - rdma_start_port(device) + 1;
	bool any = false;
	u32 port;
	int i;

	rdma_for_each_port(device, port)
		any |= rdma_cap_ib_cm(device, port) || rdma_cap_iw_cm(device, port);
	if (!any)
		return -EOPNOTSUPP;

	cma_dev = kzalloc(sizeof(*cma_dev), GFP_KERNEL);
	if (!cma_dev)
		return -ENOMEM;
	cma_dev->default_gid_type = kcalloc(nports,
					    sizeof(*cma_dev->default_gid_type),
					    GFP_KERNEL);
	cma_dev->default_roce_tos = kcalloc(nports,
					    sizeof(*cma_dev->default_roce_tos),
					    GFP_KERNEL);
	if (!cma_dev->default_gid_type || !cma_dev->default_roce_tos)
		goto err;

	i = 0;
	rdma_for_each_port(device, port) {
		if (rdma_protocol_ib(device, port))
			cma_dev->default_gid_type[i++] = IB_GID_TYPE_IB;
		else
			cma_dev->default_gid_type[i++] =
				rdma_protocol_roce_udp_encap(device, port) ?
				IB_GID_TYPE_ROCE_UDP_ENCAP : IB_GID_TYPE_ROCE;
	}
	cma_dev->device = device;
	init_completion(&cma_dev->comp);
	refcount_set(&cma_dev->refcount, 1);
	INIT_LIST_HEAD(&cma_dev->id_list);
	ib_set_client_data(device, &cma_client, cma_dev);

	mutex_lock(&lock);
	list_add_tail(&cma_dev->list, &dev_list);
	list_for_each_entry(id_priv, &listen_any_list, listen_any_item)
		if (cma_listen_on_dev(id_priv, cma_dev))
			pr_warn_ratelimited("rdma_cm: listen on %s failed\n",
					    dev_name(&device->dev));
	mutex_unlock(&lock);
	return 0;

err:
	kfree(cma_dev->default_roce_tos);
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev);
	return -ENOMEM;
}

/* Tell one id its device goes away; destroy it if its handler asks. */
static void cma_send_device_removal_put(struct rdma_id_private *id_priv)
{
	struct rdma_cm_event event = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state state;

	mutex_lock(&id_priv->handler_mutex);
	/* Told already, or being destroyed anyway: nothing to say. */
	state = cma_state_move(id_priv, RDMA_CM_DEVICE_REMOVAL,
			       BIT(RDMA_CM_DESTROYING) |
			       BIT(RDMA_CM_DEVICE_REMOVAL));
	if (state == RDMA_CM_DESTROYING || state == RDMA_CM_DEVICE_REMOVAL) {
		mutex_unlock(&id_priv->handler_mutex);
		cma_id_put(id_priv);
		return;
	}

	if (cma_cm_event_handler(id_priv, &event)) {
		/* The handler's id: our reference must go before the wait. */
		cma_id_put(id_priv);
		id_priv->state = state;
		destroy_id_handler_unlock(id_priv);
		return;
	}
	/*
	 * The owner keeps its id, device and QP until it calls
	 * rdma_destroy_id() (as upstream: ULPs tear down from a work item);
	 * cma_remove_one() waits for that on the cma_dev's references.
	 */
	mutex_unlock(&id_priv->handler_mutex);
	cma_id_put(id_priv);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cma_dev = client_data;
	struct rdma_id_private *id_priv;
	struct cma_listen_ent *ent, *tmp;
	LIST_HEAD(ents);

	if (!cma_dev)
		return;

	mutex_lock(&lock);
	list_del_init(&cma_dev->list);
	/* Wildcard listeners drop their listen on this device. */
	list_for_each_entry(id_priv, &listen_any_list, listen_any_item) {
		list_for_each_entry_safe(ent, tmp, &id_priv->listen_ents, list)
			if (ent->cma_dev == cma_dev)
				list_move_tail(&ent->list, &ents);
	}
	mutex_unlock(&lock);
	cma_destroy_listen_ents(&ents);

	mutex_lock(&lock);
	while (!list_empty(&cma_dev->id_list)) {
		id_priv = list_first_entry(&cma_dev->id_list,
					   struct rdma_id_private, dev_item);
		list_del_init(&id_priv->dev_item);
		/*
		 * An id whose last reference is gone is in _destroy_id(),
		 * waiting or about to free it: its cma_release_dev() lets go
		 * of cma_dev, which the wait below covers.
		 */
		if (!refcount_inc_not_zero(&id_priv->refcount))
			continue;
		mutex_unlock(&lock);

		if (READ_ONCE(id_priv->state) == RDMA_CM_LISTEN)
			cma_cancel_listens(id_priv);
		cma_send_device_removal_put(id_priv);

		mutex_lock(&lock);
	}
	mutex_unlock(&lock);

	cma_dev_put(cma_dev);
	wait_for_completion(&cma_dev->comp);
	kfree(cma_dev->default_roce_tos);
	kfree(cma_dev->default_gid_type);
	kfree(cma_dev);
}

static int __init cma_init(void)
{
	int ret;

	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;
	ib_sa_register_client(&cma_sa_client);
	ret = ib_register_client(&cma_client);
	if (ret)
		goto err_wq;
	ret = cma_configfs_init();
	if (ret)
		goto err_client;
	return 0;

err_client:
	ib_unregister_client(&cma_client);
err_wq:
	ib_sa_unregister_client(&cma_sa_client);
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_cleanup(void)
{
	cma_configfs_exit();
	ib_unregister_client(&cma_client);
	ib_sa_unregister_client(&cma_sa_client);
	destroy_workqueue(cma_wq);
}

module_init(cma_init);
module_exit(cma_cleanup);
