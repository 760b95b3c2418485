// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MPA request and reply frames (RFC 5044 §7.1, enhanced connection setup
 * of RFC 6581): building what we send and checking what a peer sent.
 */
#include <linux/string.h>
#include "siw.h"
#include "siw_cm.h"

/* Frame header plus private data, in buf (at least MPA_HDR_LEN + 4 + plen). */
int siw_mpa_build(u8 *buf, bool reply, u16 bits, const struct mpa_v2_data *v2,
		  const void *pdata, u16 plen)
{
	struct mpa_rr *rr = (struct mpa_rr *)buf;
	u16 pd_len = plen + (v2 ? sizeof(*v2) : 0);
	u8 *p = buf + sizeof(*rr);

	if (pd_len > MPA_MAX_PRIVDATA)
		return -EINVAL;
	memcpy(rr->key, reply ? MPA_KEY_REP : MPA_KEY_REQ, MPA_KEY_SIZE);
	rr->bits = cpu_to_be16(bits);
	rr->pd_len = cpu_to_be16(pd_len);
	if (v2) {
		memcpy(p, v2, sizeof(*v2));
		p += sizeof(*v2);
	}
	if (plen)
		memcpy(p, pdata, plen);
	return sizeof(*rr) + pd_len;
}

/*
 * Checks a complete frame. Returns 0 or the counter that says why it is
 * refused (and so whether a reject reply is still possible).
 */
int siw_mpa_check(const struct mpa_rr *rr, bool reply, u8 *rev)
{
	u16 bits = be16_to_cpu(rr->bits);
	u16 pd_len = be16_to_cpu(rr->pd_len);

	if (memcmp(rr->key, reply ? MPA_KEY_REP : MPA_KEY_REQ, MPA_KEY_SIZE))
		return SIW_CNT_MPA_BAD_KEY;
	*rev = bits & MPA_RR_MASK_REVISION;
	if (*rev != MPA_REVISION_1 && *rev != MPA_REVISION_2)
		return SIW_CNT_MPA_BAD_REV;
	if (bits & MPA_RR_FLAG_MARKERS)
		return SIW_CNT_MPA_MARKERS;
	if (pd_len > MPA_MAX_PRIVDATA)
		return SIW_CNT_MPA_BAD_PDLEN;
	if (bits & MPA_RR_FLAG_ENHANCED) {
		if (*rev != MPA_REVISION_2 || pd_len < sizeof(struct mpa_v2_data))
			return SIW_CNT_MPA_BAD_PDLEN;
	}
	return 0;
}
