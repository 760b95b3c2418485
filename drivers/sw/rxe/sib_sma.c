// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The subnet management agent of a sib port, reached through the device's
 * process_mad: the core offers it every MAD that arrives on QP0/QP1 and
 * every SMP an agent of this node addresses to the node itself. SMPs
 * (LID-routed and directed route) are answered here; PerfMgt goes to
 * sib_pma.c; anything else is left to the core's agents.
 *
 * For a directed-route SMP the core has done the receive-side hop step
 * before we see it and does the returning one on the way back: all the
 * SMA adds is method GetResp, the status and the D bit.
 *
 * Attributes: NodeInfo, NodeDescription (Get); PortInfo (sib_sma_port.c),
 * P_KeyTable, SLtoVLMappingTable, VLArbitrationTable (Get/Set); GUIDInfo
 * (Get; a Set can change nothing: the one GUID is the port's); SMInfo
 * passed to the SM's agent while IsSM is set; TrapRepress, once its
 * M_Key passed, left to the agent whose Trap it answers.
 */
#include "rxe.h"

/* What the SMA does with an SMP once its attribute has been handled. */
enum sib_sma_verdict {
	SIB_SMA_REPLY,		/* send the response in out_mad */
	SIB_SMA_CONSUME,	/* nothing goes back, nobody else sees it */
	SIB_SMA_PASS,		/* not the SMA's: for the core's agents */
};

/* One SMP being handled; the response starts as a copy of the request. */
struct sib_smp_job {
	struct rxe_dev *rxe;
	const struct ib_smp *req;
	struct ib_smp *resp;
	u32 modifier;
	bool hide_mkey;		/* protect 1, wrong key: M_Key reads 0 */
	__be16 status;		/* without the D bit */
};

/* 0x001C: a bad AttributeModifier or attribute field */
static int sib_smp_bad_value(struct sib_smp_job *j)
{
	j->status = cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	return SIB_SMA_REPLY;
}

/* 0x000C: no such attribute here, or not with this method */
static int sib_smp_unsupported(struct sib_smp_job *j)
{
	j->status = cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	return SIB_SMA_REPLY;
}

void sib_sma_init(struct rxe_dev *rxe)
{
	struct sib_sma *sma = &rxe->sib->sma;

	/* zeroed: M_Key 0 (no protection), every SL on VL0, no VLArb */
	mutex_init(&sma->lock);
	sma->width_enabled = SIB_WIDTH_SUPPORTED;
	sma->speed_enabled = SIB_SPEED_SUPPORTED;
	sma->link_down_default = 2;	/* Polling */
	sma->op_vls = SIB_VL_CAP;
	/* 2^18 x 4.096 us, about a second: OpenSM's default */
	sma->subnet_timeout = 18;
}

/*
 * IBA 14.2.4 (IB-FABRIC 1.6). Under sma->lock. False: the SMP must get no
 * answer and counts as a violation. A Get below protect level 2 passes
 * with a wrong key, but level 1 then hides the M_Key in PortInfo.
 */
static bool sib_mkey_ok(struct sib_sma *sma, const struct ib_smp *smp,
			int mad_flags, bool *hide)
{
	bool match;

	*hide = false;
	if (sma->lease_running && time_after_eq(jiffies, sma->lease_end)) {
		/* the lease ran out: the SM lost its claim on the port */
		sma->mkey_prot = 0;
		sma->lease_running = false;
	}
	if (mad_flags & IB_MAD_IGNORE_MKEY)
		return true;

	match = !sma->mkey || be64_to_cpu(smp->mkey) == sma->mkey;
	if (match) {
		sma->lease_running = false;
		return true;
	}
	if (smp->method == IB_MGMT_METHOD_GET && sma->mkey_prot < 2) {
		*hide = sma->mkey_prot == 1;
		return true;
	}

	if (sma->mkey_violations < 0xffff)
		sma->mkey_violations++;
	if (sma->mkey_lease_period && !sma->lease_running) {
		sma->lease_end = jiffies + sma->mkey_lease_period * HZ;
		sma->lease_running = true;
	}
	return false;
}

/* ---- attributes ---- */

static int sib_get_node_info(struct sib_smp_job *j)
{
	struct ib_node_info *ni = (struct ib_node_info *)j->resp->data;
	struct rxe_dev *rxe = j->rxe;
	u32 vendor = rxe->attr.vendor_id;

	if (j->modifier)
		return sib_smp_bad_value(j);
	ni->base_version = IB_MGMT_BASE_VERSION;
	ni->class_version = 1;
	ni->node_type = RDMA_NODE_IB_CA;
	ni->num_ports = 1;
	ni->sys_guid = rxe->attr.sys_image_guid;
	/* one port: its GUID is the node's */
	ni->node_guid = rxe->ib_dev.node_guid;
	ni->port_guid = rxe->ib_dev.node_guid;
	ni->partition_cap = cpu_to_be16(SIB_PKEY_TBL_LEN);
	ni->device_id = cpu_to_be16(rxe->attr.vendor_part_id);
	ni->revision = cpu_to_be32(rxe->attr.hw_ver);
	ni->local_port_num = 1;
	ni->vendor_id[0] = vendor >> 16;
	ni->vendor_id[1] = vendor >> 8;
	ni->vendor_id[2] = vendor;
	return SIB_SMA_REPLY;
}

static int sib_get_node_desc(struct sib_smp_job *j)
{
	if (j->modifier)
		return sib_smp_bad_value(j);
	/* 64 bytes, NUL-padded; sysfs node_desc may rewrite it any time */
	memcpy(j->resp->data, j->rxe->ib_dev.node_desc, IB_SMP_DATA_SIZE);
	return SIB_SMA_REPLY;
}

/* CA: AttributeModifier 0 (or 1, our only port) is the receiving port. */
static int sib_get_port_info(struct sib_smp_job *j)
{
	if ((j->modifier & 0xffff) > 1)
		return sib_smp_bad_value(j);
	j->status = sib_sma_get_portinfo(j->rxe, j->resp->data, j->hide_mkey);
	return SIB_SMA_REPLY;
}

static int sib_set_port_info(struct sib_smp_job *j)
{
	/* bit 31: "SM supports extended speeds", nothing to us */
	if ((j->modifier & 0xffff) > 1)
		return sib_smp_bad_value(j);
	j->status = sib_sma_set_portinfo(j->rxe, j->req->data);
	/* the answer is the attribute as it is now, ClientReregister echoed */
	sib_sma_get_portinfo(j->rxe, j->resp->data, false);
	j->resp->data[51] |= j->req->data[51] & 0x80;
	return SIB_SMA_REPLY;
}

/* One block of SIB_PKEY_TBL_LEN entries: block 0 is the whole table. */
static int sib_get_pkeys(struct sib_smp_job *j)
{
	__be16 *out = (__be16 *)j->resp->data;
	int i;

	if (j->modifier)
		return sib_smp_bad_value(j);
	for (i = 0; i < SIB_PKEY_TBL_LEN; i++)
		out[i] = cpu_to_be16(sib_pkey(j->rxe, i));
	return SIB_SMA_REPLY;
}

static int sib_set_pkeys(struct sib_smp_job *j)
{
	const __be16 *in = (const __be16 *)j->req->data;
	struct sib_port *sp = j->rxe->sib;
	bool changed = false;
	u16 key;
	int i;

	if (j->modifier)
		return sib_smp_bad_value(j);
	/* the data path reads entries one by one (READ_ONCE) */
	spin_lock_bh(&j->rxe->port.lock);
	for (i = 0; i < SIB_PKEY_TBL_LEN; i++) {
		key = be16_to_cpu(in[i]);
		if (sp->pkeys[i] != key) {
			WRITE_ONCE(sp->pkeys[i], key);
			changed = true;
		}
	}
	spin_unlock_bh(&j->rxe->port.lock);
	if (changed)
		sib_port_event(j->rxe, IB_EVENT_PKEY_CHANGE);
	return sib_get_pkeys(j);
}

/* GUIDCap 1: block 0 holds the port GUID, read-only, and seven zeros. */
static int sib_get_guids(struct sib_smp_job *j)
{
	if (j->modifier)
		return sib_smp_bad_value(j);
	memset(j->resp->data, 0, IB_SMP_DATA_SIZE);
	memcpy(j->resp->data, &j->rxe->ib_dev.node_guid, sizeof(__be64));
	return SIB_SMA_REPLY;
}

static int sib_get_sl2vl(struct sib_smp_job *j)
{
	struct sib_sma *sma = &j->rxe->sib->sma;
	int n;

	if (j->modifier)
		return sib_smp_bad_value(j);
	memset(j->resp->data, 0, IB_SMP_DATA_SIZE);
	/* byte n: SL 2n in the high nibble, SL 2n+1 in the low one */
	for (n = 0; n < 8; n++)
		j->resp->data[n] = sma->sl2vl[n];
	return SIB_SMA_REPLY;
}

static int sib_set_sl2vl(struct sib_smp_job *j)
{
	if (!j->modifier)
		memcpy(j->rxe->sib->sma.sl2vl, j->req->data, 8);
	return sib_get_sl2vl(j);
}

/* Modifier b31:16 = block 1..4 (low 0-31, low 32-63, high 0-31, 32-63). */
static int sib_vlarb_block(struct sib_smp_job *j)
{
	u32 block = j->modifier >> 16;

	if (j->modifier & 0xffff || block < 1 || block > SIB_VLARB_BLOCKS) {
		sib_smp_bad_value(j);
		return -1;
	}
	return block - 1;
}

static int sib_get_vlarb(struct sib_smp_job *j)
{
	int b = sib_vlarb_block(j);

	if (b >= 0)
		memcpy(j->resp->data, j->rxe->sib->sma.vlarb[b],
		       IB_SMP_DATA_SIZE);
	return SIB_SMA_REPLY;
}

static int sib_set_vlarb(struct sib_smp_job *j)
{
	int b = sib_vlarb_block(j);

	if (b >= 0)
		memcpy(j->rxe->sib->sma.vlarb[b], j->req->data,
		       IB_SMP_DATA_SIZE);
	return sib_get_vlarb(j);
}

/*
 * SMInfo belongs to the SM (IB-FABRIC 2.12): while one holds issmN it
 * answers through its QP0 agent; a port that disabled SM support drops
 * the query; otherwise nobody here implements it.
 */
static int sib_sm_info(struct sib_smp_job *j)
{
	u32 caps = READ_ONCE(j->rxe->port.attr.port_cap_flags);

	if (caps & IB_PORT_SM)
		return SIB_SMA_PASS;
	if (caps & IB_PORT_SM_DISABLED)
		return SIB_SMA_CONSUME;
	return sib_smp_unsupported(j);
}

struct sib_sma_attr {
	__be16 id;
	int (*get)(struct sib_smp_job *j);
	int (*set)(struct sib_smp_job *j);	/* NULL: Get only */
};

static const struct sib_sma_attr sib_sma_attrs[] = {
	{ IB_SMP_ATTR_NODE_INFO, sib_get_node_info, NULL },
	{ IB_SMP_ATTR_NODE_DESC, sib_get_node_desc, NULL },
	{ IB_SMP_ATTR_PORT_INFO, sib_get_port_info, sib_set_port_info },
	{ IB_SMP_ATTR_PKEY_TABLE, sib_get_pkeys, sib_set_pkeys },
	/* a Set may only write entry 0, which is read-only: a Get */
	{ IB_SMP_ATTR_GUID_INFO, sib_get_guids, sib_get_guids },
	{ IB_SMP_ATTR_SL_TO_VL_TABLE, sib_get_sl2vl, sib_set_sl2vl },
	{ IB_SMP_ATTR_VL_ARB_TABLE, sib_get_vlarb, sib_set_vlarb },
	{ IB_SMP_ATTR_SM_INFO, sib_sm_info, sib_sm_info },
};

static int sib_sma_attr(struct sib_smp_job *j)
{
	const struct sib_sma_attr *a;
	int i;

	for (i = 0; i < ARRAY_SIZE(sib_sma_attrs); i++) {
		a = &sib_sma_attrs[i];
		if (a->id != j->req->attr_id)
			continue;
		if (j->req->method == IB_MGMT_METHOD_GET) {
			memset(j->resp->data, 0, IB_SMP_DATA_SIZE);
			return a->get(j);
		}
		if (a->set)
			return a->set(j);
		break;
	}
	/* switch tables, Notice, LedInfo, vendor attributes... */
	return sib_smp_unsupported(j);
}

/* ---- process_mad ---- */

static int sib_sma_smp(struct rxe_dev *rxe, int mad_flags,
		       const struct ib_smp *req, struct ib_smp *resp)
{
	struct sib_sma *sma = &rxe->sib->sma;
	struct sib_smp_job j = {
		.rxe = rxe,
		.req = req,
		.resp = resp,
		.modifier = be32_to_cpu(req->attr_mod),
	};
	int verdict;

	/* responses and traps go to whoever asked or to the SM's agent */
	if (req->method != IB_MGMT_METHOD_GET &&
	    req->method != IB_MGMT_METHOD_SET &&
	    req->method != IB_MGMT_METHOD_TRAP_REPRESS)
		return IB_MAD_RESULT_SUCCESS;

	*resp = *req;
	if (req->class_version != 1) {
		j.status = cpu_to_be16(IB_MGMT_MAD_STATUS_BAD_VERSION);
		verdict = req->method == IB_MGMT_METHOD_TRAP_REPRESS ?
			  SIB_SMA_CONSUME : SIB_SMA_REPLY;
		goto out;
	}

	mutex_lock(&sma->lock);
	if (!sib_mkey_ok(sma, req, mad_flags, &j.hide_mkey)) {
		mutex_unlock(&sma->lock);
		return IB_MAD_RESULT_FAILURE;
	}
	/*
	 * The SMA sends no traps, but an SM on this port does (through
	 * umad): the repress answers its Trap, and the MAD layer hands it
	 * to that agent by TID, completing the send. Only the M_Key check
	 * above (as for a Set, IBA 14.2.4) is the SMA's part.
	 */
	if (req->method == IB_MGMT_METHOD_TRAP_REPRESS)
		verdict = SIB_SMA_PASS;
	else
		verdict = sib_sma_attr(&j);
	mutex_unlock(&sma->lock);

out:
	if (verdict == SIB_SMA_PASS)
		return IB_MAD_RESULT_SUCCESS;
	if (verdict == SIB_SMA_CONSUME)
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;

	resp->method = IB_MGMT_METHOD_GET_RESP;
	resp->status = j.status;
	if (req->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		resp->status |= IB_SMP_DIRECTION;
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/*
 * process_mad: called in process context (the MAD layer's completion work,
 * or its work item for a local SMP); @in_wc is NULL for a MAD generated on
 * this node. The answer, when there is one, is a whole 256-byte MAD.
 */
int sib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in, struct ib_mad *out,
		    size_t *out_size, u16 *out_pkey_index)
{
	struct rxe_dev *rxe = to_rdev(ibdev);
	int ret;

	if (port_num != 1 || !rxe->sib)
		return IB_MAD_RESULT_FAILURE;
	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION)
		return IB_MAD_RESULT_SUCCESS;

	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		ret = sib_sma_smp(rxe, mad_flags, (const struct ib_smp *)in,
				  (struct ib_smp *)out);
		break;
	case IB_MGMT_CLASS_PERF_MGMT:
		ret = sib_pma_mad(rxe, port_num, in, out);
		break;
	default:
		return IB_MAD_RESULT_SUCCESS;
	}
	if (ret & IB_MAD_RESULT_REPLY)
		*out_size = sizeof(*out);
	return ret;
}
