// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_core device and client registry: allocation, registration with name
 * templates, lifetimes, clients (add/remove exactly once per pair), events,
 * port queries and the module init of ib_core.
 *
 * Lifetime: a registered device holds one reference on ->refcount; users
 * take more with ib_device_try_get(). Unregistration drops the registration
 * reference and waits for the others before tearing the device down, so
 * netlink readers and notifiers never see freed memory.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <linux/kmod.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/sock.h>
#include <rdma/ib_cache.h>
#include "core_priv.h"
#include "sa.h"

MODULE_AUTHOR("rdma-kmod developers");
MODULE_DESCRIPTION("RDMA core: devices, clients, caches, sysfs, netlink");
MODULE_LICENSE("Dual BSD/GPL");

/* Registered devices carry this mark in the devices xarray. */
#define DEVICE_REGISTERED	XA_MARK_1
#define CLIENT_REGISTERED	XA_MARK_1

static DEFINE_XARRAY_FLAGS(devices, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(devices_rwsem);	/* devices, names, marks */
static u32 devices_next_index;

static DEFINE_XARRAY_FLAGS(clients, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(clients_rwsem);	/* clients, their order */
static u32 highest_client_id;

static struct workqueue_struct *ib_unreg_wq;

static struct workqueue_struct *ib_event_wq;	/* ordered: events in order */

/* The names ULPs print for an asynchronous event. */
const char *__attribute_const__ ib_event_msg(enum ib_event_type event)
{
	switch (event) {
	/* Affiliated with a QP, SRQ, WQ or CQ. */
	case IB_EVENT_COMM_EST:		return "communication established";
	case IB_EVENT_SQ_DRAINED:	return "send queue drained";
	case IB_EVENT_QP_LAST_WQE_REACHED: return "last WQE reached";
	case IB_EVENT_PATH_MIG:		return "path migration successful";
	case IB_EVENT_PATH_MIG_ERR:	return "path migration error";
	case IB_EVENT_QP_FATAL:		return "QP fatal error";
	case IB_EVENT_QP_REQ_ERR:	return "QP request error";
	case IB_EVENT_QP_ACCESS_ERR:	return "QP access error";
	case IB_EVENT_SRQ_LIMIT_REACHED: return "SRQ limit reached";
	case IB_EVENT_SRQ_ERR:		return "SRQ error";
	case IB_EVENT_WQ_FATAL:		return "WQ fatal error";
	case IB_EVENT_CQ_ERR:		return "CQ error";
	/* Of a port or the whole device. */
	case IB_EVENT_PORT_ACTIVE:	return "port active";
	case IB_EVENT_PORT_ERR:		return "port error";
	case IB_EVENT_LID_CHANGE:	return "LID change";
	case IB_EVENT_PKEY_CHANGE:	return "P_key change";
	case IB_EVENT_GID_CHANGE:	return "GID table change";
	case IB_EVENT_SM_CHANGE:	return "SM change";
	case IB_EVENT_CLIENT_REREGISTER: return "client reregister";
	case IB_EVENT_DEVICE_FATAL:	return "device fatal error";
	}
	return "unrecognized event";
}
EXPORT_SYMBOL(ib_event_msg);

/* ------------------------------------------------------------ lifetime */

bool ib_device_try_get(struct ib_device *dev)
{
	return refcount_inc_not_zero(&dev->refcount);
}
EXPORT_SYMBOL(ib_device_try_get);

void ib_device_put(struct ib_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->unreg_completion);
}
EXPORT_SYMBOL(ib_device_put);

static void ib_device_release(struct device *dev)
{
	struct ib_device *device = container_of(dev, struct ib_device, dev);

	ib_cache_release_one(device);
	if (device->port_data) {
		u32 p;

		rdma_for_each_port(device, p)
			WARN_ON(rcu_access_pointer(device->port_data[p].netdev));
	}
	kfree(device->port_data);
	xa_destroy(&device->client_data);
	kfree_rcu(device, rcu_head);
}

static void ib_unregister_work(struct work_struct *work);
static void free_netdevs(struct ib_device *device);
static void ib_client_put(struct ib_client *client);

struct ib_device *_ib_alloc_device(size_t size)
{
	struct ib_device *device;

	if (WARN_ON(size < sizeof(struct ib_device)))
		return NULL;
	device = kzalloc(size, GFP_KERNEL);
	if (!device)
		return NULL;

	device_initialize(&device->dev);
	device->dev.class = &ib_class;
	device->dev.release = ib_device_release;
	INIT_LIST_HEAD(&device->event_handler_list);
	init_rwsem(&device->event_handler_rwsem);
	init_rwsem(&device->client_data_rwsem);
	xa_init_flags(&device->client_data, XA_FLAGS_ALLOC);
	mutex_init(&device->unregistration_lock);
	rwlock_init(&device->cache_lock);
	INIT_LIST_HEAD(&device->coredev.port_list);
	device->coredev.owner = device;
	write_pnet(&device->coredev.rdma_net, &init_net);
	spin_lock_init(&device->qp_open_list_lock);
	mutex_init(&device->compat_devs_mutex);
	xa_init_flags(&device->compat_devs, XA_FLAGS_ALLOC);
	init_completion(&device->unreg_completion);
	INIT_WORK(&device->unregistration_work, ib_unregister_work);
	ib_cq_pool_init(device);
	return device;
}
EXPORT_SYMBOL(_ib_alloc_device);

/* Frees a device that is not (or no longer) registered. */
void ib_dealloc_device(struct ib_device *device)
{
	/* A driver that bound netdevs but never registered drops them here. */
	free_netdevs(device);
	rdma_restrack_clean(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

void ib_set_device_ops(struct ib_device *dev, const struct ib_device_ops *ops)
{
	struct ib_device_ops *d = &dev->ops;

#define SET_OP(name) do { if (ops->name) d->name = ops->name; } while (0)
	if (ops->driver_id != RDMA_DRIVER_UNKNOWN)
		d->driver_id = ops->driver_id;
	SET_OP(owner);
	if (ops->uverbs_abi_ver)
		d->uverbs_abi_ver = ops->uverbs_abi_ver;
	d->uverbs_no_driver_id_binding |= ops->uverbs_no_driver_id_binding;
	SET_OP(device_group);
	SET_OP(port_groups);
	SET_OP(post_send);
	SET_OP(post_recv);
	SET_OP(drain_rq);
	SET_OP(drain_sq);
	SET_OP(poll_cq);
	SET_OP(peek_cq);
	SET_OP(req_notify_cq);
	SET_OP(post_srq_recv);
	SET_OP(process_mad);
	SET_OP(query_device);
	SET_OP(modify_device);
	SET_OP(get_dev_fw_str);
	SET_OP(get_vector_affinity);
	SET_OP(query_port);
	SET_OP(modify_port);
	SET_OP(get_port_immutable);
	SET_OP(get_link_layer);
	SET_OP(get_netdev);
	SET_OP(alloc_rdma_netdev);
	SET_OP(rdma_netdev_get_params);
	SET_OP(query_gid);
	SET_OP(add_gid);
	SET_OP(del_gid);
	SET_OP(query_pkey);
	SET_OP(alloc_ucontext);
	SET_OP(dealloc_ucontext);
	SET_OP(mmap);
	SET_OP(mmap_free);
	SET_OP(disassociate_ucontext);
	SET_OP(alloc_pd);
	SET_OP(dealloc_pd);
	SET_OP(create_ah);
	SET_OP(create_user_ah);
	SET_OP(modify_ah);
	SET_OP(query_ah);
	SET_OP(destroy_ah);
	SET_OP(create_srq);
	SET_OP(modify_srq);
	SET_OP(query_srq);
	SET_OP(destroy_srq);
	SET_OP(create_qp);
	SET_OP(modify_qp);
	SET_OP(query_qp);
	SET_OP(destroy_qp);
	SET_OP(create_cq);
	SET_OP(modify_cq);
	SET_OP(destroy_cq);
	SET_OP(resize_cq);
	SET_OP(pre_destroy_cq);
	SET_OP(post_destroy_cq);
	SET_OP(get_dma_mr);
	SET_OP(reg_user_mr);
	SET_OP(reg_user_mr_dmabuf);
	SET_OP(rereg_user_mr);
	SET_OP(dereg_mr);
	SET_OP(alloc_mr);
	SET_OP(alloc_mr_integrity);
	SET_OP(advise_mr);
	SET_OP(map_mr_sg);
	SET_OP(check_mr_status);
	SET_OP(alloc_mw);
	SET_OP(dealloc_mw);
	SET_OP(attach_mcast);
	SET_OP(detach_mcast);
	SET_OP(alloc_xrcd);
	SET_OP(dealloc_xrcd);
	SET_OP(create_flow);
	SET_OP(destroy_flow);
	SET_OP(destroy_flow_action);
	SET_OP(set_vf_link_state);
	SET_OP(get_vf_config);
	SET_OP(get_vf_stats);
	SET_OP(get_vf_guid);
	SET_OP(set_vf_guid);
	SET_OP(create_wq);
	SET_OP(destroy_wq);
	SET_OP(modify_wq);
	SET_OP(create_rwq_ind_table);
	SET_OP(destroy_rwq_ind_table);
	SET_OP(alloc_dm);
	SET_OP(dealloc_dm);
	SET_OP(reg_dm_mr);
	SET_OP(create_counters);
	SET_OP(destroy_counters);
	SET_OP(read_counters);
	SET_OP(map_mr_sg_pi);
	SET_OP(alloc_hw_device_stats);
	SET_OP(alloc_hw_port_stats);
	SET_OP(get_hw_stats);
	SET_OP(modify_hw_stat);
	SET_OP(fill_res_mr_entry);
	SET_OP(fill_res_mr_entry_raw);
	SET_OP(fill_res_cq_entry);
	SET_OP(fill_res_cq_entry_raw);
	SET_OP(fill_res_qp_entry);
	SET_OP(fill_res_qp_entry_raw);
	SET_OP(fill_res_cm_id_entry);
	SET_OP(enable_driver);
	SET_OP(dealloc_driver);
	SET_OP(iw_add_ref);
	SET_OP(iw_rem_ref);
	SET_OP(iw_get_qp);
	SET_OP(iw_connect);
	SET_OP(iw_accept);
	SET_OP(iw_reject);
	SET_OP(iw_create_listen);
	SET_OP(iw_destroy_listen);
	SET_OP(counter_bind_qp);
	SET_OP(counter_unbind_qp);
	SET_OP(counter_dealloc);
	SET_OP(counter_alloc_stats);
	SET_OP(counter_update_stats);
	SET_OP(fill_stat_mr_entry);
	SET_OP(query_ucontext);
	SET_OP(get_numa_node);
	SET_OP(size_ib_ah);
	SET_OP(size_ib_counters);
	SET_OP(size_ib_cq);
	SET_OP(size_ib_mw);
	SET_OP(size_ib_pd);
	SET_OP(size_ib_qp);
	SET_OP(size_ib_rwq_ind_table);
	SET_OP(size_ib_srq);
	SET_OP(size_ib_ucontext);
	SET_OP(size_ib_xrcd);
#undef SET_OP
}
EXPORT_SYMBOL(ib_set_device_ops);

/* ------------------------------------------------------------ lookups */

static struct ib_device *__ib_device_get_by_name(const char *name)
{
	struct ib_device *device;
	unsigned long index;

	xa_for_each(&devices, index, device)
		if (!strcmp(name, dev_name(&device->dev)))
			return device;
	return NULL;
}

struct ib_device *ib_device_get_by_name(const char *name,
					enum rdma_driver_id driver_id)
{
	struct ib_device *device;
	unsigned long index;

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED) {
		if (strcmp(name, dev_name(&device->dev)))
			continue;
		if ((driver_id == RDMA_DRIVER_UNKNOWN ||
		     device->ops.driver_id == driver_id) &&
		    ib_device_try_get(device)) {
			up_read(&devices_rwsem);
			return device;
		}
		break;
	}
	up_read(&devices_rwsem);
	return NULL;
}
EXPORT_SYMBOL(ib_device_get_by_name);

struct ib_device *ib_device_get_by_index(const struct net *net, u32 index)
{
	struct ib_device *device;

	down_read(&devices_rwsem);
	device = xa_load(&devices, index);
	if (device && (!rdma_dev_access_netns(device, net) ||
		       !xa_get_mark(&devices, index, DEVICE_REGISTERED) ||
		       !ib_device_try_get(device)))
		device = NULL;
	up_read(&devices_rwsem);
	return device;
}

static bool port_has_ndev(struct ib_device *dev, u32 port,
			  struct net_device *ndev)
{
	return rcu_access_pointer(dev->port_data[port].netdev) == ndev;
}

struct ib_device *ib_device_get_by_netdev(struct net_device *ndev,
					  enum rdma_driver_id driver_id)
{
	struct ib_device *device;
	unsigned long index;
	u32 p;

	/*
	 * Under RCU, not devices_rwsem: drivers' netdev notifiers call this
	 * under the rtnl, and clients' add() (ib_ipoib's register_netdev)
	 * take the rtnl under a device's client_data_rwsem, which nests in
	 * devices_rwsem. A device unmarked meanwhile is no longer gettable
	 * (its refcount went to zero); unregistration waits for readers
	 * (free_netdevs' synchronize_rcu) and devices are freed by RCU.
	 */
	rcu_read_lock();
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED) {
		if (driver_id != RDMA_DRIVER_UNKNOWN &&
		    device->ops.driver_id != driver_id)
			continue;
		rdma_for_each_port(device, p) {
			if (port_has_ndev(device, p, ndev) &&
			    ib_device_try_get(device)) {
				rcu_read_unlock();
				return device;
			}
		}
	}
	rcu_read_unlock();
	return NULL;
}
EXPORT_SYMBOL(ib_device_get_by_netdev);

/* The capabilities the driver gave @port at registration, or NULL. */
const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *dev, unsigned int port)
{
	if (WARN_ON(!rdma_is_port_valid(dev, port)))
		return NULL;
	return &dev->port_data[port].immutable;
}
EXPORT_SYMBOL(ib_port_immutable_read);

void ib_for_each_ndev_port(struct net_device *ndev,
			   void (*fn)(struct ib_device *dev, u32 port,
				      struct net_device *ndev, void *ctx),
			   void *ctx)
{
	struct ib_device *device;
	unsigned long index;
	u32 p;

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED)
		rdma_for_each_port(device, p)
			if (port_has_ndev(device, p, ndev))
				fn(device, p, ndev, ctx);
	up_read(&devices_rwsem);
}

int ib_enum_all_devs(nldev_callback nldev_cb, struct sk_buff *skb,
		     struct netlink_callback *cb)
{
	struct ib_device *device;
	unsigned long index;
	unsigned int idx = 0;
	int ret = 0;

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED) {
		if (!rdma_dev_access_netns(device, sock_net(skb->sk)))
			continue;
		ret = nldev_cb(device, skb, cb, idx);
		if (ret)
			break;
		idx++;
	}
	up_read(&devices_rwsem);
	return ret;
}

/* ------------------------------------------------------------ netdevs */

static int alloc_port_data(struct ib_device *device)
{
	u32 p;

	if (device->port_data)
		return 0;
	if (WARN_ON(!device->phys_port_cnt && device->node_type !=
		    RDMA_NODE_IB_SWITCH))
		return -EINVAL;

	device->port_data = kcalloc(rdma_end_port(device) + 1,
				    sizeof(*device->port_data), GFP_KERNEL);
	if (!device->port_data)
		return -ENOMEM;
	rdma_for_each_port(device, p) {
		device->port_data[p].ib_dev = device;
		spin_lock_init(&device->port_data[p].netdev_lock);
	}
	return 0;
}

int ib_device_set_netdev(struct ib_device *ib_dev, struct net_device *ndev,
			 u32 port)
{
	struct ib_port_data *pd;
	struct net_device *old;
	unsigned long flags;
	int ret;

	ret = alloc_port_data(ib_dev);
	if (ret)
		return ret;
	if (!rdma_is_port_valid(ib_dev, port))
		return -EINVAL;

	pd = &ib_dev->port_data[port];
	spin_lock_irqsave(&pd->netdev_lock, flags);
	old = rcu_dereference_protected(pd->netdev,
					lockdep_is_held(&pd->netdev_lock));
	if (old == ndev) {
		spin_unlock_irqrestore(&pd->netdev_lock, flags);
		return 0;
	}
	if (old)
		netdev_put(old, &pd->netdev_tracker);
	if (ndev)
		netdev_hold(ndev, &pd->netdev_tracker, GFP_ATOMIC);
	rcu_assign_pointer(pd->netdev, ndev);
	spin_unlock_irqrestore(&pd->netdev_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_device_set_netdev);

struct net_device *ib_device_get_netdev(struct ib_device *ib_dev, u32 port)
{
	struct net_device *ndev = NULL;

	if (!rdma_is_port_valid(ib_dev, port) || !ib_dev->port_data)
		return NULL;

	if (ib_dev->ops.get_netdev)
		return ib_dev->ops.get_netdev(ib_dev, port);

	rcu_read_lock();
	ndev = rcu_dereference(ib_dev->port_data[port].netdev);
	/* A netdev on its way out is as good as none. */
	if (ndev && ndev->reg_state >= NETREG_UNREGISTERING)
		ndev = NULL;
	dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}
EXPORT_SYMBOL(ib_device_get_netdev);

static void free_netdevs(struct ib_device *device)
{
	unsigned long flags;
	u32 p;

	if (!device->port_data)
		return;
	rdma_for_each_port(device, p) {
		struct ib_port_data *pd = &device->port_data[p];
		struct net_device *ndev;

		spin_lock_irqsave(&pd->netdev_lock, flags);
		ndev = rcu_dereference_protected(pd->netdev,
					lockdep_is_held(&pd->netdev_lock));
		if (ndev) {
			RCU_INIT_POINTER(pd->netdev, NULL);
			netdev_put(ndev, &pd->netdev_tracker);
		}
		spin_unlock_irqrestore(&pd->netdev_lock, flags);
	}
	synchronize_rcu();
}

/* ------------------------------------------------------------ clients */

void *ib_get_client_data(struct ib_device *device, struct ib_client *client)
{
	return xa_load(&device->client_data, client->client_id);
}
EXPORT_SYMBOL(ib_get_client_data);

void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data)
{
	if (WARN_ON(IS_ERR(data)))
		data = NULL;
	WARN_ON(xa_is_err(xa_store(&device->client_data, client->client_id,
				   data, GFP_KERNEL)));
}
EXPORT_SYMBOL(ib_set_client_data);

/* Caller holds device->unregistration_lock or devices_rwsem. */
static int add_client_context(struct ib_device *device,
			      struct ib_client *client)
{
	int ret = 0;

	down_write(&device->client_data_rwsem);
	if (!refcount_inc_not_zero(&client->uses))
		goto out_unlock;
	if (xa_get_mark(&device->client_data, client->client_id,
			CLIENT_REGISTERED))
		goto out_put;
	ret = xa_err(xa_store(&device->client_data, client->client_id, NULL,
			      GFP_KERNEL));
	if (ret)
		goto out_put;
	downgrade_write(&device->client_data_rwsem);
	if (client->add) {
		if (client->add(device)) {
			xa_erase(&device->client_data, client->client_id);
			up_read(&device->client_data_rwsem);
			ib_client_put(client);
			return 0;
		}
	}
	xa_set_mark(&device->client_data, client->client_id,
		    CLIENT_REGISTERED);
	up_read(&device->client_data_rwsem);
	return 0;

out_put:
	ib_client_put(client);
out_unlock:
	up_write(&device->client_data_rwsem);
	return ret;
}

static void remove_client_context(struct ib_device *device,
				  unsigned int client_id)
{
	struct ib_client *client;
	void *client_data;

	down_write(&device->client_data_rwsem);
	if (!xa_get_mark(&device->client_data, client_id, CLIENT_REGISTERED)) {
		up_write(&device->client_data_rwsem);
		return;
	}
	client_data = xa_load(&device->client_data, client_id);
	xa_clear_mark(&device->client_data, client_id, CLIENT_REGISTERED);
	client = xa_load(&clients, client_id);
	up_write(&device->client_data_rwsem);

	/* Outside the lock: remove() may wait for the client's users. */
	if (client->remove)
		client->remove(device, client_data);

	xa_erase(&device->client_data, client_id);
	ib_client_put(client);
}

static void ib_client_put(struct ib_client *client)
{
	if (refcount_dec_and_test(&client->uses))
		complete(&client->uses_zero);
}

int ib_register_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;
	int ret;

	refcount_set(&client->uses, 1);
	init_completion(&client->uses_zero);

	down_write(&clients_rwsem);
	/* Ids increase so that add runs in registration order. */
	client->client_id = highest_client_id;
	ret = xa_insert(&clients, client->client_id, client, GFP_KERNEL);
	if (ret) {
		up_write(&clients_rwsem);
		return ret;
	}
	highest_client_id++;
	xa_set_mark(&clients, client->client_id, CLIENT_REGISTERED);
	up_write(&clients_rwsem);

	down_read(&devices_rwsem);
	xa_for_each_marked(&devices, index, device, DEVICE_REGISTERED) {
		ret = add_client_context(device, client);
		if (ret) {
			up_read(&devices_rwsem);
			ib_unregister_client(client);
			return ret;
		}
	}
	up_read(&devices_rwsem);
	return 0;
}
EXPORT_SYMBOL(ib_register_client);

void ib_unregister_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;

	down_write(&clients_rwsem);
	ib_client_put(client);
	xa_clear_mark(&clients, client->client_id, CLIENT_REGISTERED);
	up_write(&clients_rwsem);

	/* Every device, also ones being unregistered concurrently. */
	rcu_read_lock();
	xa_for_each(&devices, index, device) {
		if (!ib_device_try_get(device))
			continue;
		rcu_read_unlock();
		remove_client_context(device, client->client_id);
		ib_device_put(device);
		rcu_read_lock();
	}
	rcu_read_unlock();

	wait_for_completion(&client->uses_zero);

	down_write(&clients_rwsem);
	xa_erase(&clients, client->client_id);
	if (client->client_id == highest_client_id - 1)
		highest_client_id--;
	up_write(&clients_rwsem);
}
EXPORT_SYMBOL(ib_unregister_client);

int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res)
{
	bool tried = false;
	struct ib_client *client;
	unsigned long index;
	int ret = -EOPNOTSUPP;

again:
	down_read(&clients_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		if (strcmp(client->name, client_name))
			continue;
		if (!ibdev) {
			ret = client->get_global_nl_info ?
			      client->get_global_nl_info(res) : -EOPNOTSUPP;
			break;
		}
		down_read(&ibdev->client_data_rwsem);
		if (client->get_nl_info &&
		    xa_get_mark(&ibdev->client_data, client->client_id,
				CLIENT_REGISTERED))
			ret = client->get_nl_info(ibdev,
					xa_load(&ibdev->client_data,
						client->client_id), res);
		up_read(&ibdev->client_data_rwsem);
		break;
	}
	up_read(&clients_rwsem);

	if (ret == -EOPNOTSUPP && !tried) {
		tried = true;
		if (!request_module("rdma-client-%s", client_name))
			goto again;
	}
	if (!ret && !res->cdev)
		ret = -EINVAL;
	if (!ret)
		get_device(res->cdev);
	return ret;
}

/*
 * The netdev a client (IPoIB) runs on @port with @pkey and @gid (and @addr
 * if given), referenced; rdma_cm asks this for IB connection requests.
 */
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;
	struct ib_client *client;
	unsigned long index;

	if (!rdma_protocol_ib(dev, port))
		return NULL;
	/* Clients come and go under clients_rwsem, their data under ours. */
	down_read(&clients_rwsem);
	down_read(&dev->client_data_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		if (!client->get_net_dev_by_params ||
		    !xa_get_mark(&dev->client_data, index, CLIENT_REGISTERED))
			continue;
		ndev = client->get_net_dev_by_params(dev, port, pkey, gid, addr,
				xa_load(&dev->client_data, index));
		if (ndev)
			break;
	}
	up_read(&dev->client_data_rwsem);
	up_read(&clients_rwsem);
	return ndev;
}
EXPORT_SYMBOL(ib_get_net_dev_by_params);

/* ------------------------------------------------------------ names */

static bool name_is_valid(const char *name)
{
	size_t len = strnlen(name, IB_DEVICE_NAME_MAX);

	return len && len < IB_DEVICE_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

/* devices_rwsem held for write. */
static int assign_name(struct ib_device *device, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];
	const char *pct = strchr(name, '%');
	int i, ret;

	if (!name_is_valid(name))
		return -EINVAL;

	if (!pct) {
		if (__ib_device_get_by_name(name))
			return -ENFILE;
		ret = dev_set_name(&device->dev, "%s", name);
		goto out;
	}
	/* A template ("rxe%d"): the lowest number not in use. */
	if (pct[1] != 'd' || strchr(pct + 1, '%'))
		return -EINVAL;
	for (i = 0; i < INT_MAX; i++) {
		if (snprintf(buf, sizeof(buf), name, i) >= sizeof(buf))
			return -ENFILE;
		if (!__ib_device_get_by_name(buf))
			break;
	}
	ret = dev_set_name(&device->dev, "%s", buf);
out:
	if (!ret)
		strscpy(device->name, dev_name(&device->dev),
			IB_DEVICE_NAME_MAX);
	return ret;
}

int ib_device_rename(struct ib_device *ibdev, const char *name)
{
	struct ib_client *client;
	unsigned long index;
	int ret;

	if (!name_is_valid(name) || strchr(name, '%'))
		return -EINVAL;

	down_write(&devices_rwsem);
	if (!strcmp(name, dev_name(&ibdev->dev))) {
		up_write(&devices_rwsem);
		return 0;
	}
	if (__ib_device_get_by_name(name)) {
		up_write(&devices_rwsem);
		return -EEXIST;
	}
	ret = ib_netns_device_rename(ibdev, name);
	if (ret) {
		up_write(&devices_rwsem);
		return ret;
	}
	strscpy(ibdev->name, name, IB_DEVICE_NAME_MAX);
	downgrade_write(&devices_rwsem);

	down_read(&ibdev->client_data_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED)
		if (client->rename &&
		    xa_get_mark(&ibdev->client_data, index, CLIENT_REGISTERED))
			client->rename(ibdev,
				       xa_load(&ibdev->client_data, index));
	up_read(&ibdev->client_data_rwsem);
	up_read(&devices_rwsem);
	return 0;
}

/* ------------------------------------------------------------ register */

static int setup_port_data(struct ib_device *device)
{
	u32 p;
	int ret;

	ret = alloc_port_data(device);
	if (ret)
		return ret;
	if (!device->ops.get_port_immutable)
		return -EINVAL;

	rdma_for_each_port(device, p) {
		struct ib_port_immutable *im = &device->port_data[p].immutable;

		memset(im, 0, sizeof(*im));
		ret = device->ops.get_port_immutable(device, p, im);
		if (ret)
			return ret;
		if (im->gid_tbl_len < 0 || im->pkey_tbl_len < 0)
			return -EINVAL;
	}
	return 0;
}

static int setup_device(struct ib_device *device)
{
	int ret;

	ret = setup_port_data(device);
	if (ret) {
		dev_warn(&device->dev, "couldn't get port immutable data\n");
		return ret;
	}
	memset(&device->attrs, 0, sizeof(device->attrs));
	if (device->ops.query_device) {
		ret = device->ops.query_device(device, &device->attrs, NULL);
		if (ret) {
			dev_warn(&device->dev, "couldn't query the device\n");
			return ret;
		}
	}
	return 0;
}

static void disable_device(struct ib_device *device)
{
	u32 cid, last;

	/* Unfindable first, so no new client context can appear. */
	down_write(&devices_rwsem);
	xa_clear_mark(&devices, device->index, DEVICE_REGISTERED);
	up_write(&devices_rwsem);

	down_read(&clients_rwsem);
	last = highest_client_id;
	up_read(&clients_rwsem);
	/* The reverse of registration order: later clients use earlier ones. */
	for (cid = last; cid > 0; cid--)
		remove_client_context(device, cid - 1);

	/* Drop the registration reference and wait for every user. */
	ib_device_put(device);
	wait_for_completion(&device->unreg_completion);
}

/* @registering: the driver's enable_driver() runs once, not on a move. */
static int enable_device_and_get(struct ib_device *device, bool registering)
{
	struct ib_client *client;
	unsigned long index;
	int ret = 0;

	refcount_set(&device->refcount, 2);
	down_write(&devices_rwsem);
	xa_set_mark(&devices, device->index, DEVICE_REGISTERED);
	downgrade_write(&devices_rwsem);

	if (registering && device->ops.enable_driver) {
		ret = device->ops.enable_driver(device);
		if (ret)
			goto out;
	}

	down_read(&clients_rwsem);
	xa_for_each_marked(&clients, index, client, CLIENT_REGISTERED) {
		ret = add_client_context(device, client);
		if (ret)
			break;
	}
	up_read(&clients_rwsem);
out:
	up_read(&devices_rwsem);
	return ret;
}

int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	int ret;

	device->dma_device = dma_device;
	down_write(&devices_rwsem);
	ret = assign_name(device, name);
	if (!ret)
		ret = xa_alloc_cyclic(&devices, &device->index, device,
				      XA_LIMIT(0, INT_MAX), &devices_next_index,
				      GFP_KERNEL);
	up_write(&devices_rwsem);
	if (ret < 0)
		return ret;

	ret = setup_device(device);
	if (ret)
		goto err_name;

	ret = ib_cache_setup_one(device);
	if (ret)
		goto err_name;
	ret = ib_port_cache_setup_one(device);
	if (ret)
		goto err_cache;

	ret = rdma_restrack_init(device);
	if (ret)
		goto err_cache;

	ret = ib_setup_device_attrs(device);
	if (ret)
		goto err_restrack;

	ret = device_add(&device->dev);
	if (ret)
		goto err_restrack;
	ret = ib_setup_port_attrs(&device->coredev);
	if (ret)
		goto err_device;
	ret = ib_netns_device_add(device);
	if (ret)
		goto err_ports;

	/* From here on lookups see the device; unregistration undoes all. */
	ret = enable_device_and_get(device, true);
	if (ret) {
		void (*dealloc_fn)(struct ib_device *) =
			device->ops.dealloc_driver;

		/* The caller frees on error: keep the driver's memory. */
		ib_device_put(device);
		device->ops.dealloc_driver = NULL;
		ib_unregister_device(device);
		device->ops.dealloc_driver = dealloc_fn;
		return ret;
	}
	roce_rescan_device(device);
	ib_device_put(device);
	return 0;

err_ports:
	ib_free_port_attrs(&device->coredev);
err_device:
	device_del(&device->dev);
err_restrack:
	rdma_restrack_clean(device);
err_cache:
	ib_cache_cleanup_one(device);
	ib_cache_release_one(device);
err_name:
	down_write(&devices_rwsem);
	xa_erase(&devices, device->index);
	up_write(&devices_rwsem);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

/* Undoes ib_register_device(); frees the device if the driver asked to. */
static void __ib_unregister_device(struct ib_device *ib_dev)
{
	mutex_lock(&ib_dev->unregistration_lock);
	/* Not registered, or someone else already unregistered it. */
	if (!refcount_read(&ib_dev->refcount)) {
		mutex_unlock(&ib_dev->unregistration_lock);
		return;
	}

	disable_device(ib_dev);
	ib_cq_pool_cleanup(ib_dev);
	ib_cache_cleanup_one(ib_dev);
	ib_netns_device_remove(ib_dev);
	ib_free_port_attrs(&ib_dev->coredev);
	device_del(&ib_dev->dev);
	free_netdevs(ib_dev);
	rdma_restrack_clean(ib_dev);

	down_write(&devices_rwsem);
	xa_erase(&devices, ib_dev->index);
	up_write(&devices_rwsem);

	if (ib_dev->ops.dealloc_driver) {
		ib_dev->ops.dealloc_driver(ib_dev);
		mutex_unlock(&ib_dev->unregistration_lock);
		put_device(&ib_dev->dev);
		return;
	}
	mutex_unlock(&ib_dev->unregistration_lock);
}

void ib_unregister_device(struct ib_device *ib_dev)
{
	get_device(&ib_dev->dev);
	__ib_unregister_device(ib_dev);
	put_device(&ib_dev->dev);
}
EXPORT_SYMBOL(ib_unregister_device);

/* The caller holds a reference from a lookup: it is consumed here. */
void ib_unregister_device_and_put(struct ib_device *ib_dev)
{
	get_device(&ib_dev->dev);
	ib_device_put(ib_dev);
	__ib_unregister_device(ib_dev);
	put_device(&ib_dev->dev);
}
EXPORT_SYMBOL(ib_unregister_device_and_put);

static void ib_unregister_work(struct work_struct *work)
{
	struct ib_device *ib_dev =
		container_of(work, struct ib_device, unregistration_work);

	__ib_unregister_device(ib_dev);
	put_device(&ib_dev->dev);
}

/* Safe under RTNL (netdev notifiers): the work runs later. */
void ib_unregister_device_queued(struct ib_device *ib_dev)
{
	WARN_ON(!ib_dev->ops.dealloc_driver);
	get_device(&ib_dev->dev);
	if (!queue_work(ib_unreg_wq, &ib_dev->unregistration_work))
		put_device(&ib_dev->dev);
}
EXPORT_SYMBOL(ib_unregister_device_queued);

/*
 * Moves a registered device to @net: its clients leave, it changes
 * namespace (netlink, uverbs and its sysfs entry follow) and the clients
 * come back, as at registration. The caller holds a get_device()
 * reference and no ib_device_try_get() one (this waits for those).
 */
int ib_device_change_net(struct ib_device *device, struct net *net)
{
	struct net *old;
	int ret = 0;

	mutex_lock(&device->unregistration_lock);
	if (!refcount_read(&device->refcount)) {
		ret = -ENODEV;		/* unregistered meanwhile */
		goto out;
	}
	old = read_pnet(&device->coredev.rdma_net);
	if (net_eq(old, net))
		goto out;

	disable_device(device);
	down_write(&devices_rwsem);
	write_pnet(&device->coredev.rdma_net, net);
	/* Same name: only the namespace tag of the sysfs entry changes. */
	ret = ib_sysfs_rename(&device->coredev, dev_name(&device->dev));
	if (ret)
		write_pnet(&device->coredev.rdma_net, old);
	up_write(&devices_rwsem);

	if (enable_device_and_get(device, false) && !ret)
		ret = -ENOMEM;	/* a client's context could not be stored */
	ib_device_put(device);
out:
	mutex_unlock(&device->unregistration_lock);
	return ret;
}

/* The next registered device of @driver_id from *@index on, pinned. */
static struct ib_device *next_driver_device(enum rdma_driver_id driver_id,
					    unsigned long *index)
{
	struct ib_device *dev;

	down_read(&devices_rwsem);
	xa_for_each_start(&devices, *index, dev, *index) {
		if (dev->ops.driver_id == driver_id) {
			get_device(&dev->dev);
			break;
		}
	}
	up_read(&devices_rwsem);
	return dev;
}

void ib_unregister_driver(enum rdma_driver_id driver_id)
{
	unsigned long index = 0;
	struct ib_device *dev;

	while ((dev = next_driver_device(driver_id, &index))) {
		WARN_ON(!dev->ops.dealloc_driver);
		__ib_unregister_device(dev);
		put_device(&dev->dev);
		index++;
	}
	/* And the ones queued by netdev events. */
	flush_workqueue(ib_unreg_wq);
}
EXPORT_SYMBOL(ib_unregister_driver);

/* ------------------------------------------------------------ events */

/* Handlers are called in registration order, under the read side. */
void ib_register_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *dev = event_handler->device;

	down_write(&dev->event_handler_rwsem);
	list_add_tail(&event_handler->list, &dev->event_handler_list);
	up_write(&dev->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_register_event_handler);

void ib_unregister_event_handler(struct ib_event_handler *event_handler)
{
	struct rw_semaphore *sem = &event_handler->device->event_handler_rwsem;

	down_write(sem);
	list_del(&event_handler->list);
	up_write(sem);
}
EXPORT_SYMBOL(ib_unregister_event_handler);

struct ib_event_work {
	struct work_struct work;
	struct ib_event event;
};

static void ib_event_work_fn(struct work_struct *_work)
{
	struct ib_event_work *work =
		container_of(_work, struct ib_event_work, work);
	struct ib_device *dev = work->event.device;
	struct ib_event_handler *handler;

	/* Handlers read the port cache: refresh it first. */
	ib_port_cache_event(&work->event);
	down_read(&dev->event_handler_rwsem);
	list_for_each_entry(handler, &dev->event_handler_list, list)
		handler->handler(handler, &work->event);
	up_read(&dev->event_handler_rwsem);
	put_device(&dev->dev);
	kfree(work);
}

/*
 * Drivers dispatch from any context (rxe from its netdev notifier, later
 * from softirq): handlers run from a work item, in order.
 */
void ib_dispatch_event(const struct ib_event *event)
{
	struct ib_event_work *work;

	work = kmalloc(sizeof(*work), GFP_ATOMIC);
	if (!work)
		return;
	work->event = *event;
	get_device(&event->device->dev);
	INIT_WORK(&work->work, ib_event_work_fn);
	queue_work(ib_event_wq, &work->work);
}
EXPORT_SYMBOL(ib_dispatch_event);

/* ------------------------------------------------------------ queries */

int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *port_attr)
{
	int err;

	if (!rdma_is_port_valid(device, port_num) || !device->ops.query_port)
		return -EINVAL;

	memset(port_attr, 0, sizeof(*port_attr));
	err = device->ops.query_port(device, port_num, port_attr);
	if (err || port_attr->subnet_prefix)
		return err;

	/* RoCE and iWARP: the subnet prefix is that of GID 0. */
	if (rdma_port_get_link_layer(device, port_num) !=
	    IB_LINK_LAYER_INFINIBAND) {
		union ib_gid gid;

		if (!rdma_query_gid(device, port_num, 0, &gid))
			port_attr->subnet_prefix =
				be64_to_cpu(gid.global.subnet_prefix);
	}
	return 0;
}
EXPORT_SYMBOL(ib_query_port);

int ib_modify_device(struct ib_device *device, int device_modify_mask,
		     struct ib_device_modify *device_modify)
{
	if (!device->ops.modify_device)
		return -EOPNOTSUPP;
	return device->ops.modify_device(device, device_modify_mask,
					 device_modify);
}
EXPORT_SYMBOL(ib_modify_device);

int ib_modify_port(struct ib_device *device, u32 port_num,
		   int port_modify_mask, struct ib_port_modify *port_modify)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (device->ops.modify_port)
		return device->ops.modify_port(device, port_num,
					       port_modify_mask, port_modify);
	/* As upstream: RoCE ports accept a no-op modification. */
	if (rdma_protocol_roce(device, port_num) &&
	    (port_modify_mask & ~(IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
				  IB_PORT_RESET_QKEY_CNTR)) == 0)
		return 0;
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_modify_port);

int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey)
{
	if (!rdma_is_port_valid(device, port_num) || !device->ops.query_pkey)
		return -EINVAL;
	if (index >= device->port_data[port_num].immutable.pkey_tbl_len)
		return -EINVAL;
	return device->ops.query_pkey(device, port_num, index, pkey);
}
EXPORT_SYMBOL(ib_query_pkey);

int ib_find_gid(struct ib_device *device, union ib_gid *gid,
		u32 *port_num, u16 *index)
{
	union ib_gid tmp;
	u32 port;
	int i;

	rdma_for_each_port(device, port) {
		if (!rdma_protocol_ib(device, port)) {
			unsigned long mask =
				roce_gid_type_mask_support(device, port);
			unsigned long type;

			for_each_set_bit(type, &mask, IB_GID_TYPE_SIZE) {
				i = rdma_find_gid_by_port_index(device, gid,
								type, port,
								NULL);
				if (i >= 0) {
					*port_num = port;
					if (index)
						*index = i;
					return 0;
				}
			}
			continue;
		}
		for (i = 0;
		     i < device->port_data[port].immutable.gid_tbl_len; i++) {
			if (rdma_query_gid(device, port, i, &tmp))
				continue;
			if (!memcmp(&tmp, gid, sizeof(*gid))) {
				*port_num = port;
				if (index)
					*index = i;
				return 0;
			}
		}
	}
	return -ENOENT;
}
EXPORT_SYMBOL(ib_find_gid);

int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index)
{
	int i, partial = -1;
	u16 tmp;

	for (i = 0; i < device->port_data[port_num].immutable.pkey_tbl_len;
	     i++) {
		if (ib_query_pkey(device, port_num, i, &tmp))
			continue;
		if ((pkey & 0x7fff) != (tmp & 0x7fff))
			continue;
		/* Full membership wins over limited. */
		if (tmp & 0x8000) {
			*index = i;
			return 0;
		}
		if (partial < 0)
			partial = i;
	}
	if (partial < 0)
		return -ENOENT;
	*index = partial;
	return 0;
}
EXPORT_SYMBOL(ib_find_pkey);

void ib_get_device_fw_str(struct ib_device *device, char *str)
{
	if (device->ops.get_dev_fw_str)
		device->ops.get_dev_fw_str(device, str);
	else
		str[0] = '\0';
}
EXPORT_SYMBOL(ib_get_device_fw_str);

enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num)
{
	if (device->ops.get_link_layer)
		return device->ops.get_link_layer(device, port_num);
	if (device->node_type == RDMA_NODE_IB_CA ||
	    device->node_type == RDMA_NODE_IB_SWITCH ||
	    device->node_type == RDMA_NODE_IB_ROUTER)
		return IB_LINK_LAYER_INFINIBAND;
	return IB_LINK_LAYER_ETHERNET;
}
EXPORT_SYMBOL(rdma_port_get_link_layer);

/*
 * Ethernet speeds (Mb/s) as the IB width x speed of about the same rate;
 * the last line takes everything faster.
 */
static const struct {
	u32	upto;
	u8	width;
	u8	speed;
} eth_as_ib[] = {
	{ SPEED_1000,	IB_WIDTH_1X,	IB_SPEED_SDR },
	{ SPEED_10000,	IB_WIDTH_1X,	IB_SPEED_FDR10 },
	{ SPEED_20000,	IB_WIDTH_4X,	IB_SPEED_DDR },
	{ SPEED_25000,	IB_WIDTH_1X,	IB_SPEED_EDR },
	{ SPEED_40000,	IB_WIDTH_4X,	IB_SPEED_FDR10 },
	{ U32_MAX,	IB_WIDTH_4X,	IB_SPEED_EDR },
};

/* Ethernet speed (Mb/s) of the port netdev as an IB speed and width. */
int ib_get_eth_speed(struct ib_device *dev, u32 port_num, u16 *speed,
		     u8 *width)
{
	unsigned int i;
	struct ethtool_link_ksettings lksettings = { };
	struct net_device *netdev;
	u32 netdev_speed = SPEED_UNKNOWN;
	int rc;

	if (rdma_port_get_link_layer(dev, port_num) != IB_LINK_LAYER_ETHERNET)
		return -EINVAL;

	netdev = ib_device_get_netdev(dev, port_num);
	if (!netdev)
		return -ENODEV;

	rtnl_lock();
	rc = __ethtool_get_link_ksettings(netdev, &lksettings);
	rtnl_unlock();
	dev_put(netdev);
	if (!rc && lksettings.base.speed != (u32)SPEED_UNKNOWN)
		netdev_speed = lksettings.base.speed;
	else
		netdev_speed = SPEED_1000;

	for (i = 0; i < ARRAY_SIZE(eth_as_ib) - 1; i++)
		if (netdev_speed <= eth_as_ib[i].upto)
			break;
	*width = eth_as_ib[i].width;
	*speed = eth_as_ib[i].speed;
	return 0;
}
EXPORT_SYMBOL(ib_get_eth_speed);

/* ------------------------------------------------------------ module */

static int __init ib_core_init(void)
{
	int ret;

	ib_unreg_wq = alloc_workqueue("ib-unreg-wq", WQ_UNBOUND,
				      WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_unreg_wq)
		return -ENOMEM;
	ib_event_wq = alloc_ordered_workqueue("ib-event-wq", 0);
	if (!ib_event_wq) {
		destroy_workqueue(ib_unreg_wq);
		return -ENOMEM;
	}

	ret = ib_cq_init();
	if (ret)
		goto err_wq;
	ret = ib_cache_init();
	if (ret)
		goto err_cq;
	ret = class_register(&ib_class);
	if (ret)
		goto err_cache;
	ret = rdma_nl_init();
	if (ret)
		goto err_class;
	ret = rdma_netns_init_module();
	if (ret)
		goto err_nl_sock;
	ret = roce_gid_mgmt_init();
	if (ret)
		goto err_nl;
	ret = nldev_init();
	if (ret)
		goto err_gid;
	ret = addr_init();
	if (ret)
		goto err_nldev;
	ret = ib_mad_init();
	if (ret)
		goto err_addr;
	ret = ib_sa_init();
	if (ret)
		goto err_mad;
	return 0;

err_mad:
	ib_mad_cleanup();
err_addr:
	addr_cleanup();
err_nldev:
	nldev_exit();
err_gid:
	roce_gid_mgmt_cleanup();
err_nl:
	rdma_netns_exit_module();
err_nl_sock:
	rdma_nl_exit();
err_class:
	class_unregister(&ib_class);
err_cache:
	ib_cache_cleanup();
err_cq:
	ib_cq_cleanup();
err_wq:
	destroy_workqueue(ib_event_wq);
	destroy_workqueue(ib_unreg_wq);
	return ret;
}

static void __exit ib_core_cleanup(void)
{
	ib_sa_cleanup();
	ib_mad_cleanup();
	addr_cleanup();
	nldev_exit();
	roce_gid_mgmt_cleanup();
	rdma_netns_exit_module();
	rdma_nl_exit();
	class_unregister(&ib_class);
	ib_cache_cleanup();
	ib_cq_cleanup();
	destroy_workqueue(ib_unreg_wq);
	/* Runs the event works still queued; they hold device references. */
	destroy_workqueue(ib_event_wq);
	WARN_ON(!xa_empty(&clients));
	WARN_ON(!xa_empty(&devices));
	/* kfree_rcu of devices and GID entries still in flight. */
	rcu_barrier();
}

subsys_initcall(ib_core_init);
module_exit(ib_core_cleanup);
