// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PortInfo of a sib port (IB-FABRIC 2.6-2.8): what a Get reports and what
 * a Set may change, including the logical port state the SM drives. The
 * cable gives DOWN or INIT (sib_set_port_state); only a Set takes the port
 * on to ARMED and then ACTIVE. A Set is checked whole before anything is
 * applied: one invalid field or transition and nothing changes (IBA lets
 * the SMA ignore such a Set; OpenSM sends state changes in Sets of their
 * own). Called with the SMA's lock held.
 */
#include "rxe.h"

/* PortInfo.RespTimeValue: 4.096 us x 2^8, about a millisecond */
#define SIB_RESP_TIME		8

/* "Set to Supported" in LinkWidthEnabled / LinkSpeedEnabled */
#define SIB_WIDTH_ALL		255
#define SIB_SPEED_ALL		15

/* A PortInfo Set, decoded and checked, before it is applied. */
struct sib_pi_set {
	u64 mkey;
	u64 gid_prefix;
	u16 lid;
	u16 sm_lid;
	u16 lease;
	u8 width;
	u8 speed;
	u8 state;
	bool retrain;		/* Down requested, or PhysState Polling */
	u8 link_down;
	u8 prot;
	u8 lmc;
	u8 mtu;
	u8 sm_sl;
	u8 vl_high;
	u8 op_vls;
	bool clear_mkey_viol;
	bool clear_pkey_viol;
	bool clear_qkey_viol;
	u8 subnet_timeout;
	u8 init_type_reply;
	u8 phy_threshold;
	u8 overrun_threshold;
	bool rereg;
};

/* 4X unless the SM enabled 1X only. */
u8 sib_active_width(struct rxe_dev *rxe)
{
	return READ_ONCE(rxe->sib->sma.width_enabled) & 2 ? 2 : 1;
}

__be16 sib_sma_get_portinfo(struct rxe_dev *rxe, u8 *data, bool hide_mkey)
{
	struct ib_port_info *pi = (struct ib_port_info *)data;
	struct sib_sma *sma = &rxe->sib->sma;
	struct ib_port_attr a;

	spin_lock_bh(&rxe->port.lock);
	a = rxe->port.attr;
	spin_unlock_bh(&rxe->port.lock);

	/* bytes 58-63 (CapabilityMask2, extended speeds) stay 0 */
	memset(data, 0, IB_SMP_DATA_SIZE);
	pi->mkey = hide_mkey ? 0 : cpu_to_be64(sma->mkey);
	pi->gid_prefix = cpu_to_be64(sma->gid_prefix);
	pi->lid = cpu_to_be16(a.lid);
	pi->sm_lid = cpu_to_be16(a.sm_lid);
	pi->cap_mask = cpu_to_be32(a.port_cap_flags);
	pi->mkey_lease_period = cpu_to_be16(sma->mkey_lease_period);
	pi->local_port_num = 1;
	pi->link_width_enabled = sma->width_enabled;
	pi->link_width_supported = SIB_WIDTH_SUPPORTED;
	pi->link_width_active = sib_active_width(rxe);
	pi->linkspeed_portstate = SIB_SPEED_SUPPORTED << 4 | (a.state & 0xf);
	pi->portphysstate_linkdown = sib_phys_state(rxe) << 4 |
				     sma->link_down_default;
	pi->mkeyprot_resv_lmc = sma->mkey_prot << 6 | (a.lmc & 7);
	pi->linkspeedactive_enabled = SIB_SPEED_SUPPORTED << 4 |
				      sma->speed_enabled;
	pi->neighbormtu_mastersmsl = a.active_mtu << 4 | (a.sm_sl & 0xf);
	pi->vlcap_inittype = SIB_VL_CAP << 4;
	pi->vl_high_limit = sma->vl_high_limit;
	pi->vl_arb_high_cap = SIB_VLARB_CAP;
	pi->vl_arb_low_cap = SIB_VLARB_CAP;
	pi->inittypereply_mtucap = sma->init_type_reply << 4 | sma->mtu_cap;
	pi->operationalvl_pei_peo_fpi_fpo = sma->op_vls << 4;
	pi->mkey_violations = cpu_to_be16(sma->mkey_violations);
	pi->pkey_violations = cpu_to_be16(min_t(u32, a.bad_pkey_cntr, 0xffff));
	pi->qkey_violations = cpu_to_be16(min_t(u32, a.qkey_viol_cntr, 0xffff));
	pi->guid_cap = SIB_GUID_CAP;
	pi->clientrereg_resv_subnetto = sma->subnet_timeout & 0x1f;
	pi->resv_resptimevalue = SIB_RESP_TIME;
	pi->localphyerrors_overrunerrors = sma->phy_err_threshold << 4 |
					   sma->overrun_threshold;
	return 0;
}

static bool sib_ucast_lid(u16 lid)
{
	return lid && lid <= SIB_LID_UCAST_LAST;
}

/*
 * IBA 7.2 as IB-FABRIC 2.7 tabulates it: NoChange and Down always; ARMED
 * only from INIT, ACTIVE only from ARMED; Init, a same-state request and
 * unknown codes are invalid.
 */
static bool sib_state_change_ok(struct rxe_dev *rxe, u8 want)
{
	enum ib_port_state cur = READ_ONCE(rxe->port.attr.state);

	switch (want) {
	case 0:
	case IB_PORT_DOWN:
		return true;
	case IB_PORT_ARMED:
		return cur == IB_PORT_INIT;
	case IB_PORT_ACTIVE:
		return cur == IB_PORT_ARMED;
	default:
		return false;
	}
}

/* Decodes @pi into @s; false if any field the SMA acts on is invalid. */
static bool sib_pi_decode(struct rxe_dev *rxe, const struct ib_port_info *pi,
			  struct sib_pi_set *s)
{
	struct sib_sma *sma = &rxe->sib->sma;
	u8 phys = pi->portphysstate_linkdown >> 4;

	s->mkey = be64_to_cpu(pi->mkey);
	s->gid_prefix = be64_to_cpu(pi->gid_prefix);
	s->lid = be16_to_cpu(pi->lid);
	s->sm_lid = be16_to_cpu(pi->sm_lid);
	if (!sib_ucast_lid(s->lid) || !sib_ucast_lid(s->sm_lid))
		return false;
	s->lease = be16_to_cpu(pi->mkey_lease_period);

	s->width = pi->link_width_enabled;
	if (s->width == SIB_WIDTH_ALL)
		s->width = SIB_WIDTH_SUPPORTED;
	else if (s->width & ~SIB_WIDTH_SUPPORTED)
		return false;
	s->speed = pi->linkspeedactive_enabled & 0xf;
	if (s->speed == SIB_SPEED_ALL)
		s->speed = SIB_SPEED_SUPPORTED;
	else if (s->speed & ~SIB_SPEED_SUPPORTED)
		return false;

	s->state = pi->linkspeed_portstate & 0xf;
	if (!sib_state_change_ok(rxe, s->state))
		return false;
	/* PhysState: no change, or Polling (retrain) beside NoChange/Down */
	if (phys && (phys != IB_PORT_PHYS_STATE_POLLING ||
		     (s->state != 0 && s->state != IB_PORT_DOWN)))
		return false;
	s->retrain = s->state == IB_PORT_DOWN || phys;
	s->link_down = pi->portphysstate_linkdown & 0xf;
	if (s->link_down > 2)
		return false;

	s->prot = pi->mkeyprot_resv_lmc >> 6;
	s->lmc = pi->mkeyprot_resv_lmc & 7;
	s->mtu = pi->neighbormtu_mastersmsl >> 4;
	if (s->mtu < IB_MTU_256 || s->mtu > sma->mtu_cap)
		return false;
	s->sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	s->vl_high = pi->vl_high_limit;
	s->op_vls = pi->operationalvl_pei_peo_fpi_fpo >> 4;
	if (s->op_vls > SIB_VL_CAP)
		return false;

	/* violation counters: writing 0 clears, anything else is ignored */
	s->clear_mkey_viol = !pi->mkey_violations;
	s->clear_pkey_viol = !pi->pkey_violations;
	s->clear_qkey_viol = !pi->qkey_violations;
	s->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	s->init_type_reply = pi->inittypereply_mtucap >> 4;
	s->rereg = pi->clientrereg_resv_subnetto & 0x80;
	s->phy_threshold = pi->localphyerrors_overrunerrors >> 4;
	s->overrun_threshold = pi->localphyerrors_overrunerrors & 0xf;
	return true;
}

/* The state part of a Set, after every other field. */
static __be16 sib_pi_apply_state(struct rxe_dev *rxe,
				 const struct sib_pi_set *s)
{
	if (s->retrain) {
		/* the link goes down and trains again: INIT with a cable */
		sib_port_set_state(rxe, IB_PORT_DOWN);
		sib_set_port_state(rxe);
		return 0;
	}
	if (s->state && sib_port_set_state(rxe, s->state))
		/* the cable went between the check and now */
		return cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);
	return 0;
}

__be16 sib_sma_set_portinfo(struct rxe_dev *rxe, const u8 *data)
{
	struct sib_sma *sma = &rxe->sib->sma;
	struct rxe_port *port = &rxe->port;
	bool lmc_moved, sl_moved;
	struct sib_pi_set s;
	u16 old_lid, old_sm;
	__be16 status;

	if (!sib_pi_decode(rxe, (const struct ib_port_info *)data, &s))
		return cpu_to_be16(IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE);

	sma->mkey = s.mkey;
	sma->mkey_lease_period = s.lease;
	sma->mkey_prot = s.prot;
	if (s.gid_prefix != sma->gid_prefix) {
		/* GID 0 is the prefix and the port GUID */
		WRITE_ONCE(sma->gid_prefix, s.gid_prefix);
		sib_port_event(rxe, IB_EVENT_GID_CHANGE);
	}

	spin_lock_bh(&port->lock);
	old_lid = port->attr.lid;
	old_sm = port->attr.sm_lid;
	lmc_moved = port->attr.lmc != s.lmc;
	sl_moved = port->attr.sm_sl != s.sm_sl;
	WRITE_ONCE(port->attr.lmc, s.lmc);
	port->attr.sm_sl = s.sm_sl;
	port->attr.active_mtu = s.mtu;
	if (s.clear_pkey_viol)
		port->attr.bad_pkey_cntr = 0;
	if (s.clear_qkey_viol)
		port->attr.qkey_viol_cntr = 0;
	spin_unlock_bh(&port->lock);

	/* each raises its event when the value moves */
	sib_port_set_lid(rxe, s.lid, false);
	if (lmc_moved && old_lid == s.lid)
		sib_port_event(rxe, IB_EVENT_LID_CHANGE);
	sib_port_set_lid(rxe, s.sm_lid, true);
	if (sl_moved && old_sm == s.sm_lid)
		sib_port_event(rxe, IB_EVENT_SM_CHANGE);

	if (s.width)
		WRITE_ONCE(sma->width_enabled, s.width);
	if (s.speed)
		sma->speed_enabled = s.speed;
	if (s.link_down)
		sma->link_down_default = s.link_down;
	if (s.op_vls)
		sma->op_vls = s.op_vls;
	sma->vl_high_limit = s.vl_high;
	if (s.clear_mkey_viol)
		sma->mkey_violations = 0;
	/* both also read by query_port, outside sma->lock */
	WRITE_ONCE(sma->subnet_timeout, s.subnet_timeout);
	WRITE_ONCE(sma->init_type_reply, s.init_type_reply);
	sma->phy_err_threshold = s.phy_threshold;
	sma->overrun_threshold = s.overrun_threshold;

	status = sib_pi_apply_state(rxe, &s);
	/* SA clients (multicast, IPoIB) re-register with the SM */
	if (s.rereg)
		sib_port_event(rxe, IB_EVENT_CLIENT_REREGISTER);
	return status;
}
