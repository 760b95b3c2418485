/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rdma_rxe rings (SQ, RQ, SRQ, CQ), laid out as struct rxe_queue_buf so
 * that user queues can be mmap()ed and shared with librxe.
 *
 * Every ring has one producer and one consumer. The side the kernel owns
 * keeps its index in rxe_queue (userspace cannot corrupt it) and publishes
 * it with a release store; the other side's index is read from the shared
 * header with an acquire load and masked, since userspace may write
 * anything there. Producer-side helpers may only be used by the producer
 * and consumer-side helpers only by the consumer, each under its own lock.
 */
#ifndef RXE_QUEUE_H
#define RXE_QUEUE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/spinlock_types.h>
#include <asm/barrier.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct rxe_dev;
struct rxe_mmap_info;
struct ib_udata;

enum rxe_queue_type {
	QUEUE_TYPE_TO_CLIENT,	/* kernel produces, user consumes: user CQ */
	QUEUE_TYPE_FROM_CLIENT,	/* user produces, kernel consumes: user SQ/RQ/SRQ */
	QUEUE_TYPE_KERNEL,	/* both sides in the kernel: kernel ULP queues */
};

struct rxe_queue {
	/* the kernel side's own indices: only the side it plays is used */
	u32 prod;
	u32 cons;
	enum rxe_queue_type type;	/* which side that is */

	/* geometry: num_slots is a power of two, one slot stays empty */
	u32 index_mask;			/* num_slots - 1 */
	unsigned int log2_elem_size;
	size_t elem_size;		/* stride */
	size_t buf_size;		/* header + slots, before PAGE_ALIGN */

	/* memory */
	struct rxe_queue_buf *buf;	/* vmalloc_user, maybe mmapped */
	struct rxe_mmap_info *ip;	/* owns buf once published */
	struct rxe_dev *rxe;
};

/* num_elem in: wanted entries; out: usable entries (num_slots - 1). */
struct rxe_queue *rxe_queue_init(struct rxe_dev *rxe, int *num_elem,
				 unsigned int elem_size,
				 enum rxe_queue_type type);
/*
 * Make the queue mmap()able: publishes a cookie for the buffer in the
 * device's mmap index and copies struct mminfo to @outbuf (userspace address)
 * or, if @outbuf is NULL, nothing. Kernel queues skip this.
 */
int rxe_queue_do_mmap_info(struct rxe_dev *rxe, struct ib_udata *udata,
			   struct mminfo __user *outbuf, struct rxe_queue *q);
/*
 * Grow or shrink, keeping queued entries (fails with -EINVAL if they do
 * not fit). Both locks are taken (either may be NULL) while swapping.
 */
int rxe_queue_resize(struct rxe_queue *q, int *num_elem,
		     unsigned int elem_size, struct ib_udata *udata,
		     struct mminfo __user *outbuf,
		     spinlock_t *producer_lock, spinlock_t *consumer_lock);
void rxe_queue_cleanup(struct rxe_queue *q);

static inline u32 queue_next_index(struct rxe_queue *q, u32 index)
{
	return (index + 1) & q->index_mask;
}

/* Producer index as the consumer sees it (or the kernel producer's own). */
static inline u32 queue_get_producer(const struct rxe_queue *q)
{
	if (q->type == QUEUE_TYPE_TO_CLIENT)
		return READ_ONCE(q->prod);
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

/* Consumer index as the producer sees it (or the kernel consumer's own). */
static inline u32 queue_get_consumer(const struct rxe_queue *q)
{
	if (q->type == QUEUE_TYPE_FROM_CLIENT)
		return READ_ONCE(q->cons);
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

/* Consumer side */
static inline bool queue_empty(struct rxe_queue *q)
{
	return queue_get_producer(q) == q->cons;
}

/* Producer side */
static inline bool queue_full(struct rxe_queue *q)
{
	return queue_next_index(q, q->prod) == queue_get_consumer(q);
}

/* Entries queued; exact for the caller's own side, a snapshot otherwise. */
static inline u32 queue_count(const struct rxe_queue *q)
{
	return (queue_get_producer(q) - queue_get_consumer(q)) &
	       q->index_mask;
}

static inline void *queue_addr_from_index(struct rxe_queue *q, u32 index)
{
	return q->buf->data + ((index & q->index_mask) << q->log2_elem_size);
}

static inline u32 queue_index_from_addr(const struct rxe_queue *q,
					const void *addr)
{
	return (((const u8 *)addr - q->buf->data) >> q->log2_elem_size) &
	       q->index_mask;
}

/* Producer side: the free slot to fill next. */
static inline void *queue_producer_addr(struct rxe_queue *q)
{
	return queue_addr_from_index(q, q->prod);
}

/* Producer side: publish the filled slot (release: slot before index). */
static inline void queue_advance_producer(struct rxe_queue *q)
{
	WRITE_ONCE(q->prod, queue_next_index(q, q->prod));
	smp_store_release(&q->buf->producer_index, q->prod);
}

/* Consumer side: the oldest entry. */
static inline void *queue_consumer_addr(struct rxe_queue *q)
{
	return queue_addr_from_index(q, q->cons);
}

/* Consumer side: the oldest entry, or NULL if empty. */
static inline void *queue_head(struct rxe_queue *q)
{
	return queue_empty(q) ? NULL : queue_consumer_addr(q);
}

/* Consumer side: release the oldest slot to the producer. */
static inline void queue_advance_consumer(struct rxe_queue *q)
{
	WRITE_ONCE(q->cons, queue_next_index(q, q->cons));
	smp_store_release(&q->buf->consumer_index, q->cons);
}

#endif /* RXE_QUEUE_H */
