// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The performance management agent of a sib port (PerfMgt, class 0x04 on
 * QP1; IB-FABRIC 3): ClassPortInfo, PortCounters and PortCountersExtended
 * (Get; a Set clears the counters CounterSelect names and answers with
 * the result), what perfquery asks for.
 *
 * Where the numbers come from: data words and packets of every packet
 * the cable carries (sib_pma_count_tx/rx, LRH through ICRC as PktLen
 * counts them); LinkDowned from the link code (carrier lost); receive
 * errors from the engine's drops of malformed packets (VCRC, ICRC, LVer,
 * lengths, GRH); receive constraint errors from P_Key violations;
 * transmit discards from packets a port not ACTIVE could not send;
 * VL15Dropped from the engine's QP0 (sib_counters.vl15_dropped). The sources
 * never go back: each attribute keeps the value it last cleared to, so a
 * clear here does not clear the other attribute, PortInfo's
 * P_KeyViolations or rx_drops.
 */
#include <rdma/ib_pma.h>
#include "rxe.h"

/* ClassPortInfo.RespTimeValue: 4.096 us x 2^18, about a second */
#define SIB_PMA_RESP_TIME		18

struct sib_pma_sel {
	u16 bit;		/* CounterSelect, host order */
	enum sib_pma_ctr ctr;
};

static const struct sib_pma_sel sib_pc_sel[] = {
	{ 0x0004, SIB_PMA_LINK_DOWNED },
	{ 0x0008, SIB_PMA_RCV_ERR },
	{ 0x0040, SIB_PMA_XMIT_DISCARDS },
	{ 0x0100, SIB_PMA_RCV_CONSTRAINT },
	{ 0x0800, SIB_PMA_VL15_DROPPED },
	{ 0x1000, SIB_PMA_XMIT_DATA },
	{ 0x2000, SIB_PMA_RCV_DATA },
	{ 0x4000, SIB_PMA_XMIT_PKTS },
	{ 0x8000, SIB_PMA_RCV_PKTS },
};

static const struct sib_pma_sel sib_pcx_sel[] = {
	{ 0x01, SIB_PMA_XMIT_DATA },
	{ 0x02, SIB_PMA_RCV_DATA },
	{ 0x04, SIB_PMA_XMIT_PKTS },
	{ 0x08, SIB_PMA_RCV_PKTS },
	{ 0x10, SIB_PMA_XMIT_UCAST },
	{ 0x20, SIB_PMA_RCV_UCAST },
	{ 0x40, SIB_PMA_XMIT_MCAST },
	{ 0x80, SIB_PMA_RCV_MCAST },
};

static bool sib_mcast_dlid(u16 dlid)
{
	return dlid >= SIB_LID_MCAST_FIRST && dlid != SIB_LID_PERMISSIVE;
}

/* One packet of one direction; @lrh is its LRH (PktLen filled in). */
static void sib_pma_count(const u8 *lrh, atomic64_t *words, atomic64_t *pkts,
			  atomic64_t *mcast_pkts)
{
	atomic64_add(get_unaligned_be16(lrh + 4) & 0x7ff, words);
	atomic64_inc(pkts);
	if (sib_mcast_dlid(get_unaligned_be16(lrh + 2)))
		atomic64_inc(mcast_pkts);
}

/* A packet leaves on the cable. */
void sib_pma_count_tx(struct rxe_dev *rxe, const u8 *lrh)
{
	struct sib_counters *k = &rxe->sib->ctr;

	sib_pma_count(lrh, &k->xmit_words, &k->xmit_pkts, &k->xmit_mcast_pkts);
}

/* A packet came in on the cable, good or not (IBA counts both). */
void sib_pma_count_rx(struct rxe_dev *rxe, const u8 *lrh)
{
	struct sib_counters *k = &rxe->sib->ctr;

	sib_pma_count(lrh, &k->rcv_words, &k->rcv_pkts, &k->rcv_mcast_pkts);
}

static u64 sib_pma_rx_errors(struct rxe_dev *rxe)
{
	static const enum rxe_rx_drop kinds[] = {
		RXE_DROP_LENGTH, RXE_DROP_TVER, RXE_DROP_ICRC, RXE_DROP_GRH,
		RXE_DROP_LRH, RXE_DROP_VCRC,
	};
	u64 sum = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		sum += atomic64_read(&rxe->rx_drops[kinds[i]]);
	return sum;
}

/* The running value of counter @c, from its source. */
static u64 sib_pma_source(struct rxe_dev *rxe, enum sib_pma_ctr c)
{
	struct sib_counters *k = &rxe->sib->ctr;

	switch (c) {
	case SIB_PMA_LINK_DOWNED:
		return atomic64_read(&k->link_downed);
	case SIB_PMA_RCV_ERR:
		return sib_pma_rx_errors(rxe);
	case SIB_PMA_XMIT_DISCARDS:
		return atomic64_read(&k->xmit_discards);
	case SIB_PMA_RCV_CONSTRAINT:
		return atomic64_read(&k->pkey_viol);
	case SIB_PMA_VL15_DROPPED:
		return atomic64_read(&k->vl15_dropped);
	case SIB_PMA_XMIT_DATA:
		return atomic64_read(&k->xmit_words);
	case SIB_PMA_RCV_DATA:
		return atomic64_read(&k->rcv_words);
	case SIB_PMA_XMIT_PKTS:
		return atomic64_read(&k->xmit_pkts);
	case SIB_PMA_RCV_PKTS:
		return atomic64_read(&k->rcv_pkts);
	case SIB_PMA_XMIT_UCAST:
		return atomic64_read(&k->xmit_pkts) -
		       atomic64_read(&k->xmit_mcast_pkts);
	case SIB_PMA_RCV_UCAST:
		return atomic64_read(&k->rcv_pkts) -
		       atomic64_read(&k->rcv_mcast_pkts);
	case SIB_PMA_XMIT_MCAST:
		return atomic64_read(&k->xmit_mcast_pkts);
	case SIB_PMA_RCV_MCAST:
		return atomic64_read(&k->rcv_mcast_pkts);
	default:
		return 0;
	}
}

/*
 * Since the last clear (the sources only grow: this is for safety).
 */
static u64 sib_pma_value(struct rxe_dev *rxe, const u64 *base,
			 enum sib_pma_ctr c)
{
	u64 now = sib_pma_source(rxe, c);

	return now > base[c] ? now - base[c] : 0;
}

static void sib_pma_clear(struct rxe_dev *rxe, u64 *base,
			  const struct sib_pma_sel *sel, int n, u16 select)
{
	int i;

	for (i = 0; i < n; i++)
		if (select & sel[i].bit)
			base[sel[i].ctr] = sib_pma_source(rxe, sel[i].ctr);
}

/*
 * PortCounters saturate at their width instead of wrapping. (A function:
 * the value is read once, so a counter moving meanwhile cannot slip past
 * the comparison and wrap in the field.)
 */
static u64 sib_sat(u64 v, u64 max)
{
	return min(v, max);
}

static void sib_pma_fill_pc(struct rxe_dev *rxe, struct ib_pma_portcounters *pc)
{
	const u64 *b = rxe->sib->pma_base;

#define PC(c) sib_pma_value(rxe, b, c)
	pc->link_downed_counter = sib_sat(PC(SIB_PMA_LINK_DOWNED), 0xff);
	pc->port_rcv_errors = cpu_to_be16(sib_sat(PC(SIB_PMA_RCV_ERR), 0xffff));
	pc->port_xmit_discards =
		cpu_to_be16(sib_sat(PC(SIB_PMA_XMIT_DISCARDS), 0xffff));
	pc->port_rcv_constraint_errors =
		sib_sat(PC(SIB_PMA_RCV_CONSTRAINT), 0xff);
	pc->vl15_dropped =
		cpu_to_be16(sib_sat(PC(SIB_PMA_VL15_DROPPED), 0xffff));
	pc->port_xmit_data =
		cpu_to_be32(sib_sat(PC(SIB_PMA_XMIT_DATA), 0xffffffffULL));
	pc->port_rcv_data =
		cpu_to_be32(sib_sat(PC(SIB_PMA_RCV_DATA), 0xffffffffULL));
	pc->port_xmit_packets =
		cpu_to_be32(sib_sat(PC(SIB_PMA_XMIT_PKTS), 0xffffffffULL));
	pc->port_rcv_packets =
		cpu_to_be32(sib_sat(PC(SIB_PMA_RCV_PKTS), 0xffffffffULL));
#undef PC
}

static void sib_pma_fill_pcx(struct rxe_dev *rxe,
			     struct ib_pma_portcounters_ext *x)
{
	const u64 *b = rxe->sib->pma_ext_base;
	__be64 *field[] = {
		&x->port_xmit_data, &x->port_rcv_data,
		&x->port_xmit_packets, &x->port_rcv_packets,
		&x->port_unicast_xmit_packets, &x->port_unicast_rcv_packets,
		&x->port_multicast_xmit_packets,
		&x->port_multicast_rcv_packets,
	};
	int i;

	/* sib_pcx_sel lists the counters in the attribute's order */
	for (i = 0; i < ARRAY_SIZE(sib_pcx_sel); i++)
		*field[i] = cpu_to_be64(sib_pma_value(rxe, b,
						      sib_pcx_sel[i].ctr));
}

static void sib_pma_class_info(struct ib_class_port_info *cpi)
{
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	/* 64-bit counters; no PortXmitWait, no all-ports select */
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	ib_set_cpi_resp_time(cpi, SIB_PMA_RESP_TIME);
}

/* Get/Set of one attribute; returns the status for the GetResp. */
static u16 sib_pma_attr(struct rxe_dev *rxe, u32 port_num,
			const struct ib_pma_mad *in, struct ib_pma_mad *out)
{
	const struct ib_pma_portcounters *pc_in = (const void *)in->data;
	bool set = in->mad_hdr.method == IB_MGMT_METHOD_SET;
	struct sib_port *sp = rxe->sib;
	u16 select;

	switch (in->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		if (set)
			return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		memset(out->data, 0, sizeof(out->data));
		sib_pma_class_info((struct ib_class_port_info *)out->data);
		return 0;
	case IB_PMA_PORT_COUNTERS:
	case IB_PMA_PORT_COUNTERS_EXT:
		break;
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}

	/* both attributes start with reserved, PortSelect, CounterSelect */
	if (pc_in->port_select != port_num)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	select = be16_to_cpu(pc_in->counter_select);
	memset(out->data, 0, sizeof(out->data));
	out->data[1] = pc_in->port_select;

	if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS) {
		if (set)
			sib_pma_clear(rxe, sp->pma_base, sib_pc_sel,
				      ARRAY_SIZE(sib_pc_sel), select);
		sib_pma_fill_pc(rxe, (void *)out->data);
	} else {
		if (set)
			sib_pma_clear(rxe, sp->pma_ext_base, sib_pcx_sel,
				      ARRAY_SIZE(sib_pcx_sel), select);
		sib_pma_fill_pcx(rxe, (void *)out->data);
	}
	/* a Set's answer shows which counters it cleared */
	if (set)
		memcpy(out->data + 2, &pc_in->counter_select, 2);
	return 0;
}

int sib_pma_mad(struct rxe_dev *rxe, u32 port_num, const struct ib_mad *in,
		struct ib_mad *out)
{
	const struct ib_pma_mad *req = (const void *)in;
	struct ib_pma_mad *resp = (void *)out;
	u8 method = req->mad_hdr.method;
	u16 status;

	/* responses, traps: not for the agent */
	if (method != IB_MGMT_METHOD_GET && method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;

	*resp = *req;
	if (req->mad_hdr.class_version != 1) {
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	} else {
		mutex_lock(&rxe->sib->sma.lock);
		status = sib_pma_attr(rxe, port_num, req, resp);
		mutex_unlock(&rxe->sib->sma.lock);
	}
	resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	resp->mad_hdr.status = cpu_to_be16(status);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
