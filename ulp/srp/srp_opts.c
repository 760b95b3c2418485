// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_srp: the add_target string, "key=value" tokens separated by commas or
 * newlines, with the keys and checks of 6.1 (ULP.md 5.3).
 */
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/net_namespace.h>

#include "srp.h"

enum srp_key {
	K_ID_EXT, K_IOC_GUID, K_DGID, K_PKEY, K_SERVICE_ID, K_SRC, K_DEST,
	K_MAX_SECT, K_QUEUE_SIZE, K_MAX_CMD_PER_LUN, K_TARGET_CAN_QUEUE,
	K_IO_CLASS, K_INITIATOR_EXT, K_CMD_SG_ENTRIES, K_ALLOW_EXT_SG,
	K_SG_TABLESIZE, K_COMP_VECTOR, K_TL_RETRY_COUNT, K_MAX_IT_IU_SIZE,
	K_CH_COUNT, K_NR
};

static const char * const srp_key_names[K_NR] = {
	[K_ID_EXT] = "id_ext",
	[K_IOC_GUID] = "ioc_guid",
	[K_DGID] = "dgid",
	[K_PKEY] = "pkey",
	[K_SERVICE_ID] = "service_id",
	[K_SRC] = "src",
	[K_DEST] = "dest",
	[K_MAX_SECT] = "max_sect",
	[K_QUEUE_SIZE] = "queue_size",
	[K_MAX_CMD_PER_LUN] = "max_cmd_per_lun",
	[K_TARGET_CAN_QUEUE] = "target_can_queue",
	[K_IO_CLASS] = "io_class",
	[K_INITIATOR_EXT] = "initiator_ext",
	[K_CMD_SG_ENTRIES] = "cmd_sg_entries",
	[K_ALLOW_EXT_SG] = "allow_ext_sg",
	[K_SG_TABLESIZE] = "sg_tablesize",
	[K_COMP_VECTOR] = "comp_vector",
	[K_TL_RETRY_COUNT] = "tl_retry_count",
	[K_MAX_IT_IU_SIZE] = "max_it_iu_size",
	[K_CH_COUNT] = "ch_count",
};

/* "a.b.c.d[:port]" or "[v6[%scope]][:port]"; the port may be required. */
static int srp_parse_addr(const char *s, struct sockaddr_storage *ss,
			  bool need_port)
{
	char *copy, *host, *port = NULL, *end;
	int ret = -EINVAL;

	copy = kstrdup(s, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	host = copy;
	if (*host == '[') {
		end = strchr(++host, ']');
		if (!end)
			goto out;
		*end++ = '\0';
		if (*end == ':')
			port = end + 1;
		else if (*end)
			goto out;
	} else {
		end = strrchr(host, ':');
		if (end) {
			*end = '\0';
			port = end + 1;
		}
	}
	if (need_port && (!port || !*port))
		goto out;
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, host, port, ss);
out:
	kfree(copy);
	return ret;
}

static int srp_key_of(const char *name)
{
	int k;

	for (k = 0; k < K_NR; k++)
		if (!strcmp(name, srp_key_names[k]))
			return k;
	return -1;
}

static int srp_int_in(const char *v, int lo, int hi, int *out)
{
	int n;

	if (kstrtoint(v, 0, &n) || n < lo || n > hi)
		return -EINVAL;
	*out = n;
	return 0;
}

/* One token; @seen collects the keys given. */
static int srp_parse_one(struct srp_target *t, char *tok, unsigned long *seen)
{
	char *val = strchr(tok, '=');
	int k, n, ret = 0;
	unsigned int u;
	u64 x;

	if (val)
		*val++ = '\0';
	k = srp_key_of(tok);
	if (k < 0 || !val || !*val) {
		if (val)
			val[-1] = '=';
		pr_warn(DRV_NAME ": unknown parameter or missing value '%s' in target creation request\n",
			tok);
		return -EINVAL;
	}
	switch (k) {
	case K_ID_EXT:
	case K_IOC_GUID:
	case K_INITIATOR_EXT:
	case K_SERVICE_ID:
		if (kstrtoull(val, 16, &x))
			goto bad;
		if (k == K_ID_EXT)
			t->id_ext = x;
		else if (k == K_IOC_GUID)
			t->ioc_guid = x;
		else if (k == K_INITIATOR_EXT)
			t->initiator_ext = x;
		break;
	case K_DGID:
		/* IB/CM only; checked for form, refused later on this stack */
		if (strlen(val) != 32)
			goto bad;
		for (n = 0; n < 32; n++)
			if (!isxdigit(val[n]))
				goto bad;
		break;
	case K_PKEY:
		if (kstrtouint(val, 16, &u) || u > 0xffff)
			goto bad;
		break;
	case K_SRC:
		ret = srp_parse_addr(val, &t->src, false);
		if (ret)
			goto bad;
		t->has_src = true;
		break;
	case K_DEST:
		ret = srp_parse_addr(val, &t->dest, true);
		if (ret)
			goto bad;
		break;
	case K_MAX_SECT:
		if (srp_int_in(val, 1, INT_MAX, &n))
			goto bad;
		t->max_sect = n;
		break;
	case K_QUEUE_SIZE:
		if (srp_int_in(val, 1, 4096, &n))
			goto bad;
		t->queue_size = n + SRP_RESERVED_IUS;
		if (!test_bit(K_MAX_CMD_PER_LUN, seen))
			t->cmd_per_lun = n;
		break;
	case K_MAX_CMD_PER_LUN:
		if (srp_int_in(val, 1, INT_MAX, &n))
			goto bad;
		t->cmd_per_lun = n;
		break;
	case K_TARGET_CAN_QUEUE:
		if (srp_int_in(val, 1, INT_MAX, &n))
			goto bad;
		t->target_can_queue = n;
		break;
	case K_IO_CLASS:
		if (kstrtouint(val, 16, &u) ||
		    (u != SRP_REV10_IB_IO_CLASS && u != SRP_REV16A_IB_IO_CLASS)) {
			pr_warn(DRV_NAME ": unknown really old io_class %s\n", val);
			return -EINVAL;
		}
		t->io_class = u;
		break;
	case K_CMD_SG_ENTRIES:
		if (srp_int_in(val, 1, 255, &n))
			goto bad;
		t->cmd_sg_entries = n;
		break;
	case K_ALLOW_EXT_SG:
		if (kstrtoint(val, 0, &n))
			goto bad;
		t->allow_ext_sg = n != 0;
		break;
	case K_SG_TABLESIZE:
		if (srp_int_in(val, 1, SG_MAX_SEGMENTS, &n))
			goto bad;
		t->sg_tablesize = n;
		break;
	case K_COMP_VECTOR:
		if (srp_int_in(val, 0, INT_MAX, &n))
			goto bad;
		t->comp_vector = n;
		break;
	case K_TL_RETRY_COUNT:
		if (srp_int_in(val, 2, 7, &n))
			goto bad;
		t->tl_retry_count = n;
		break;
	case K_MAX_IT_IU_SIZE:
		if (srp_int_in(val, 0, INT_MAX, &n))
			goto bad;
		t->max_it_iu_size = n;
		break;
	case K_CH_COUNT:
		if (srp_int_in(val, 1, INT_MAX, &n))
			goto bad;
		t->ch_count = n;
		break;
	}
	__set_bit(k, seen);
	return 0;
bad:
	pr_warn(DRV_NAME ": bad %s parameter '%s'\n", srp_key_names[k], val);
	return ret && ret != -EINVAL ? ret : -EINVAL;
}

int srp_parse_options(struct srp_target *t, const char *buf)
{
	const unsigned long ib_set = BIT(K_ID_EXT) | BIT(K_IOC_GUID) |
		BIT(K_DGID) | BIT(K_PKEY) | BIT(K_SERVICE_ID);
	const unsigned long cm_set = BIT(K_ID_EXT) | BIT(K_IOC_GUID) |
		BIT(K_DEST);
	unsigned long seen = 0;
	char *copy, *p, *tok;
	int ret = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	p = copy;
	while ((tok = strsep(&p, ",\n")) != NULL) {
		if (!*tok)
			continue;
		ret = srp_parse_one(t, tok, &seen);
		if (ret)
			goto out;
	}
	if ((seen & cm_set) == cm_set) {
		ret = 0;
	} else if ((seen & ib_set) == ib_set) {
		/* the IB CM needs an InfiniBand link layer; none here */
		pr_warn(DRV_NAME ": IB/CM login (dgid/pkey/service_id) needs an InfiniBand port; use dest=IP:PORT (RDMA/CM)\n");
		ret = -EOPNOTSUPP;
	} else {
		pr_warn(DRV_NAME ": target creation request is missing one or more parameters\n");
		ret = -EINVAL;
	}
	if (!ret && t->cmd_per_lun > t->queue_size - SRP_RESERVED_IUS)
		pr_warn(DRV_NAME ": cmd_per_lun = %d > queue_size = %d\n",
			t->cmd_per_lun, t->queue_size - SRP_RESERVED_IUS);
out:
	kfree(copy);
	return ret;
}
