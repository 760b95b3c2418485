/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Private interface of the SA client: record packing (sa_records.c), the
 * query engine (sa_query.c) and multicast membership (sa_mcast.c).
 */
#ifndef RDMA_KMOD_SA_H
#define RDMA_KMOD_SA_H

#include <rdma/ib_sa.h>

#define SA_PATH_REC_BYTES	64
#define SA_MCMEMBER_REC_BYTES	52
#define SA_GUIDINFO_REC_BYTES	72

/* MAD status codes of the SA (class-specific bits 15:8). */
#define SA_STATUS_NO_RECORDS	0x0300

/* sa_records.c */
/* @rec: the host struct of the record (void * to share a signature). */
void sa_pack_mcmember(const void *rec, void *attribute);
void sa_unpack_mcmember(const void *attribute, struct ib_sa_mcmember_rec *rec);
void sa_pack_guidinfo(const void *rec, void *attribute);
void sa_unpack_guidinfo(const void *attribute, struct ib_sa_guidinfo_rec *rec);

/* sa_query.c: MCMemberRecord Set (join) or Delete (leave) for sa_mcast.c. */
int sa_mcmember_query(struct ib_sa_client *client, struct ib_device *device,
		      u32 port_num, u8 method,
		      const struct ib_sa_mcmember_rec *rec,
		      ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		      gfp_t gfp_mask,
		      void (*callback)(int status,
				       struct ib_sa_mcmember_rec *resp,
				       void *context),
		      void *context, struct ib_sa_query **query);
/* Whether this port has an SA client (an InfiniBand port of a device). */
bool sa_port_has_sa(struct ib_device *device, u32 port_num);

int ib_sa_init(void);
void ib_sa_cleanup(void);
int ib_sa_mcast_init(void);
void ib_sa_mcast_cleanup(void);

#endif /* RDMA_KMOD_SA_H */
