/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ib_umad: MAD access from user space through /dev/infiniband/umadN and
 * the SM capability switch /dev/infiniband/issmN (ABI.md §6, IB-FABRIC.md
 * §5). One umad_port per MAD-capable port of every device.
 *
 * Locking, outermost first:
 *   umad_port.rwsem   read: a file's write() and ioctl(); write: open and
 *                     release (the files list) and the device's removal,
 *                     which clears ib_dev and kills every file's agents.
 *   umad_file.mutex   the file's agent slots and header flavour.
 *   umad_file.lock    (spinlock) the received and sent packet lists; the
 *                     MAD layer's handlers take only this one.
 */
#ifndef RDMA_KMOD_UMAD_H
#define RDMA_KMOD_UMAD_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_mad.h>

/* Agents per open file; ids are the slot numbers. */
#define UMAD_AGENTS_PER_FILE	32
/* Unread received MADs beyond this are dropped (the stock limit). */
#define UMAD_RECV_QUEUE_MAX	200000

/* The per-port char devices: umadN, issmN. */
struct umad_port {
	struct kref		ref;		/* one per struct device below */
	int			index;		/* the N of umadN */
	u32			port_num;

	struct device		dev;		/* umadN */
	struct cdev		cdev;
	struct device		sm_dev;		/* issmN */
	struct cdev		sm_cdev;

	struct rw_semaphore	rwsem;
	struct ib_device	*ib_dev;	/* NULL once removed */
	struct list_head	files;

	/* issmN is exclusive: one opener holds IsSM at a time. */
	spinlock_t		sm_lock;
	bool			sm_held;
	wait_queue_head_t	sm_wait;
};

struct umad_file;

/* An agent slot: the MAD layer's handler context for agent @id. */
struct umad_slot {
	struct umad_file	*file;
	struct ib_mad_agent	*agent;
	u32			id;
};

struct umad_file {
	struct umad_port	*port;
	struct list_head	port_entry;	/* port->files */

	struct mutex		mutex;
	struct umad_slot	slots[UMAD_AGENTS_PER_FILE];
	bool			registered_once;	/* ENABLE_PKEY too late */
	bool			pkey_header;	/* 64-byte header */
	bool			warned_old_header;

	spinlock_t		lock;
	struct list_head	recv_list;	/* packets for read() */
	unsigned int		recv_count;
	struct list_head	send_list;	/* sends not completed yet */
	bool			dead;		/* the device went away */
	wait_queue_head_t	wait;
};

/*
 * A MAD in flight: a send (on send_list until its send handler ran), a
 * send that timed out (its 24-byte common header, on recv_list), or a
 * received MAD (on recv_list).
 */
struct umad_packet {
	struct list_head	list;
	struct ib_user_mad_hdr	hdr;
	struct ib_mad_recv_wc	*recv_wc;	/* received MADs only */
	struct ib_mad_send_buf	*send_buf;	/* sends only */
	struct umad_file	*file;
	size_t			len;		/* MAD bytes for read() */
	u8			mad[IB_MGMT_MAD_HDR];	/* timeouts only */
};

static inline size_t umad_hdr_size(const struct umad_file *file)
{
	return file->pkey_header ? sizeof(struct ib_user_mad_hdr) :
				   sizeof(struct ib_user_mad_hdr_old);
}

/* umad_file.c */
extern const struct file_operations umad_fops;

/* umad_agent.c */
long umad_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);
void umad_file_kill_agents(struct umad_file *file);
void umad_packet_free(struct umad_packet *packet);
void umad_send_timed_out(struct umad_packet *packet);

/* umad_send.c */
ssize_t umad_write(struct file *filp, const char __user *buf, size_t count,
		   loff_t *pos);
void umad_send_handler(struct ib_mad_agent *agent,
		       struct ib_mad_send_wc *send_wc);

/* umad_issm.c */
extern const struct file_operations umad_sm_fops;

#endif /* RDMA_KMOD_UMAD_H */
