// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srpt: the LIO fabric "srpt" under /sys/kernel/config/target/srpt:
 * discovery_auth/rdma_cm_port, target ports named after an RDMA port's
 * GID[0] (GUID or GID form), portal groups with their attributes and
 * enable, initiator ACL names. Command callbacks are in srpt_xmit.c.
 */
#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "srpt.h"

/* discovery_auth/rdma_cm_port */
static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", srpt_listener_port());
}

static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 port;
	int ret;

	ret = kstrtou16(page, 0, &port);
	if (ret)
		return ret;
	if (port == srpt_listener_port())
		return count;
	srpt_listener_set(port, &ret);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

static struct configfs_attribute *srpt_discovery_attrs[] = {
	&srpt_attr_rdma_cm_port,
	NULL,
};

/* <port>/version */
static ssize_t srpt_wwn_version_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "\n");
}

CONFIGFS_ATTR_RO(srpt_wwn_, version);

static struct configfs_attribute *srpt_wwn_attrs[] = {
	&srpt_wwn_attr_version,
	NULL,
};

static struct se_wwn *srpt_make_wwn(struct target_fabric_configfs *tf,
				    struct config_group *group,
				    const char *name)
{
	struct srpt_port *found = NULL;
	struct srpt_dev *sdev;
	struct srpt_wwn *w;
	int f = 0, ret = -EINVAL;
	u32 p;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&srpt_mutex);
	list_for_each_entry(sdev, &srpt_devs, node) {
		for (p = 0; p < sdev->nr_ports && !found; p++)
			for (f = 0; f < SRPT_NR_FORMS; f++)
				if (sdev->port[p].name[f][0] &&
				    !strcasecmp(sdev->port[p].name[f], name)) {
					found = &sdev->port[p];
					break;
				}
		if (found)
			break;
	}
	if (found && found->wwn[f]) {
		ret = -EEXIST;
		found = NULL;
	}
	if (found) {
		INIT_LIST_HEAD(&w->tpgs);
		w->form = f;
		w->port = found;
		found->wwn[f] = w;
	}
	mutex_unlock(&srpt_mutex);
	if (!found) {
		if (ret == -EEXIST)
			pr_err(SRPT_NAME ": a target port named %s exists already\n",
			       name);
		else
			pr_err(SRPT_NAME ": %s is neither the GUID nor the GID of an RDMA port\n",
			       name);
		kfree(w);
		return ERR_PTR(ret);
	}
	strscpy(w->name, name, sizeof(w->name));
	return &w->wwn;
}

static void srpt_drop_wwn(struct se_wwn *wwn)
{
	struct srpt_wwn *w = container_of(wwn, struct srpt_wwn, wwn);

	mutex_lock(&srpt_mutex);
	if (w->port)
		w->port->wwn[w->form] = NULL;
	w->port = NULL;
	mutex_unlock(&srpt_mutex);
	kfree(w);
}

static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_tpg *stpg;
	int ret;

	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->swwn = container_of(wwn, struct srpt_wwn, wwn);
	stpg->max_rdma_size = 65536;
	stpg->max_rsp_size = 256;
	stpg->sq_size = 4096;
	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}
	mutex_lock(&srpt_mutex);
	list_add_tail(&stpg->node, &stpg->swwn->tpgs);
	mutex_unlock(&srpt_mutex);
	return &stpg->tpg;
}

static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct srpt_tpg *stpg = srpt_tpg(se_tpg);

	mutex_lock(&srpt_mutex);
	stpg->enabled = enable;
	mutex_unlock(&srpt_mutex);
	/* every initiator of the group logged out and released */
	if (!enable)
		srpt_close_matching_sync(stpg, NULL);
	return 0;
}

static void srpt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct srpt_tpg *stpg = srpt_tpg(se_tpg);

	srpt_enable_tpg(se_tpg, false);
	mutex_lock(&srpt_mutex);
	list_del(&stpg->node);
	mutex_unlock(&srpt_mutex);
	core_tpg_deregister(se_tpg);
	kfree(stpg);
}

/* <port>/<tpg>/attrib/ */
static struct srpt_tpg *srpt_attr_tpg(struct config_item *item)
{
	struct se_portal_group *se_tpg = container_of(to_config_group(item),
			struct se_portal_group, tpg_attrib_group);

	return srpt_tpg(se_tpg);
}

static ssize_t srpt_attr_u32_store(u32 *field, const char *page,
				   size_t count, u32 lo, u32 hi)
{
	u32 v;
	int ret;

	ret = kstrtou32(page, 0, &v);
	if (ret)
		return ret;
	if (v < lo || v > hi)
		return -EINVAL;
	WRITE_ONCE(*field, v);
	return count;
}

#define SRPT_TPG_ATTR(_name, _lo, _hi)					\
static ssize_t srpt_tpg_attrib_##_name##_show(struct config_item *item,	\
					      char *page)		\
{									\
	return sysfs_emit(page, "%u\n", srpt_attr_tpg(item)->_name);	\
}									\
static ssize_t srpt_tpg_attrib_##_name##_store(struct config_item *item,\
		const char *page, size_t count)				\
{									\
	return srpt_attr_u32_store(&srpt_attr_tpg(item)->_name, page,	\
				   count, _lo, _hi);			\
}									\
static struct configfs_attribute srpt_tpg_attrib_attr_##_name = {	\
	.ca_name = "srp_" __stringify(_name),				\
	.ca_mode = 0644,						\
	.ca_owner = THIS_MODULE,					\
	.show = srpt_tpg_attrib_##_name##_show,				\
	.store = srpt_tpg_attrib_##_name##_store,			\
}

SRPT_TPG_ATTR(max_rdma_size, 65536, 16777216);
SRPT_TPG_ATTR(max_rsp_size, 40, 1024);
SRPT_TPG_ATTR(sq_size, 4, 65535);

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "%d\n", srpt_attr_tpg(item)->use_srq);
}

static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_tpg *stpg = srpt_attr_tpg(item);
	bool was, v;
	int ret;

	ret = kstrtobool(page, &v);
	if (ret)
		return ret;
	mutex_lock(&srpt_mutex);
	was = stpg->use_srq;
	stpg->use_srq = v;
	mutex_unlock(&srpt_mutex);
	/* channels are set up one way or the other: they log in again */
	if (was != v)
		srpt_close_matching(stpg, NULL);
	return count;
}

CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_max_rdma_size,
	&srpt_tpg_attrib_attr_max_rsp_size,
	&srpt_tpg_attrib_attr_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

/*
 * An ACL's name: a port GUID (xxxx:xxxx:xxxx:xxxx), an initiator port ID
 * in hex (0x optional, whole bytes, at most 16), or an IP address (the
 * name an RDMA/CM login to a GUID-named port is looked up by).
 */
static bool srpt_guid_name(const char *s)
{
	int i;

	if (strlen(s) != 19)
		return false;
	for (i = 0; i < 19; i++)
		if (i % 5 == 4 ? s[i] != ':' : !isxdigit(s[i]))
			return false;
	return true;
}

static bool srpt_hex_name(const char *s)
{
	size_t n;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	n = strlen(s);
	if (!n || n % 2 || n > 32)
		return false;
	while (*s)
		if (!isxdigit(*s++))
			return false;
	return true;
}

static int srpt_init_nodeacl(struct se_node_acl *acl, const char *name)
{
	u8 addr[16];

	if (srpt_guid_name(name) || srpt_hex_name(name) ||
	    in4_pton(name, -1, addr, '\0', NULL) ||
	    in6_pton(name, -1, addr, '\0', NULL))
		return 0;
	pr_err(SRPT_NAME ": invalid initiator port ID %s\n", name);
	return -EINVAL;
}

static char *srpt_tpg_get_wwn(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->swwn->name;
}

static u16 srpt_tpg_get_tag(struct se_portal_group *se_tpg)
{
	return 1;
}

static int srpt_tpg_zero(struct se_portal_group *se_tpg)
{
	return 0;
}

static int srpt_tpg_one(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_tpg_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_sess_index(struct se_session *sess)
{
	return 0;
}

static void srpt_default_node_attrs(struct se_node_acl *acl)
{
}

static int srpt_get_cmd_state(struct se_cmd *se)
{
	return 0;
}

static int srpt_check_stop_free(struct se_cmd *se)
{
	return target_put_sess_cmd(se);
}

static void srpt_release_cmd(struct se_cmd *se)
{
	srpt_cmd_put(srpt_cmd(se));
}

/* LIO drops an ACL or stops the session: the channel logs out. */
static void srpt_close_session(struct se_session *sess)
{
	srpt_ch_close(sess->fabric_sess_ptr);
}

const struct target_core_fabric_ops srpt_fabric_ops = {
	.module = THIS_MODULE,
	.fabric_name = "srpt",
	.tpg_get_wwn = srpt_tpg_get_wwn,
	.tpg_get_tag = srpt_tpg_get_tag,
	.tpg_check_demo_mode = srpt_tpg_zero,
	.tpg_check_demo_mode_cache = srpt_tpg_one,
	.tpg_check_demo_mode_write_protect = srpt_tpg_one,
	.tpg_check_prod_mode_write_protect = srpt_tpg_zero,
	.tpg_get_inst_index = srpt_tpg_inst_index,
	.check_stop_free = srpt_check_stop_free,
	.release_cmd = srpt_release_cmd,
	.close_session = srpt_close_session,
	.sess_get_index = srpt_sess_index,
	.write_pending = srpt_write_pending,
	.set_default_node_attributes = srpt_default_node_attrs,
	.get_cmd_state = srpt_get_cmd_state,
	.queue_data_in = srpt_queue_data_in,
	.queue_status = srpt_queue_status,
	.queue_tm_rsp = srpt_queue_tm_rsp,
	.aborted_task = srpt_aborted_task,
	.fabric_make_wwn = srpt_make_wwn,
	.fabric_drop_wwn = srpt_drop_wwn,
	.fabric_make_tpg = srpt_make_tpg,
	.fabric_enable_tpg = srpt_enable_tpg,
	.fabric_drop_tpg = srpt_drop_tpg,
	.fabric_init_nodeacl = srpt_init_nodeacl,
	.tfc_discovery_attrs = srpt_discovery_attrs,
	.tfc_wwn_attrs = srpt_wwn_attrs,
	.tfc_tpg_attrib_attrs = srpt_tpg_attrib_attrs,
};
