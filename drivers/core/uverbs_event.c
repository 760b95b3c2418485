// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event files of ib_uverbs: async event files (16-byte struct
 * ib_uverbs_async_event_desc per event) and completion channels (8-byte
 * struct ib_uverbs_comp_event_desc, the CQ's user_handle). Both are fd
 * uobjects (uverbs_std_events.c declares their types).
 *
 * Each event that belongs to an object also sits on that object's list, so
 * that destroying the object can drop what userspace has not read yet. The
 * object's counter is bumped when userspace reads the event: DESTROY_*
 * reports exactly the events read, which libibverbs then waits to be acked.
 */
#include <linux/file.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

struct ib_uverbs_event {
	union {
		struct ib_uverbs_async_event_desc	async;
		struct ib_uverbs_comp_event_desc	comp;
	} desc;
	struct list_head	list;		/* in the queue */
	struct list_head	obj_list;	/* in the object's list */
	u32			*counter;	/* NULL: not an object's event */
};

void ib_uverbs_init_event_queue(struct ib_uverbs_event_queue *q)
{
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->event_list);
	init_waitqueue_head(&q->poll_wait);
	q->is_closed = false;
	q->async_queue = NULL;
	q->ready = true;
}

/* Caller holds q->lock. */
static void uverbs_free_event(struct ib_uverbs_event *ev)
{
	list_del(&ev->list);
	if (ev->counter)
		list_del(&ev->obj_list);
	kfree(ev);
}

/* The file is gone: queued events are dropped, none are taken. */
static void uverbs_drain_queue(struct ib_uverbs_event_queue *q)
{
	struct ib_uverbs_event *ev, *tmp;

	spin_lock_irq(&q->lock);
	q->is_closed = true;
	list_for_each_entry_safe(ev, tmp, &q->event_list, list)
		uverbs_free_event(ev);
	spin_unlock_irq(&q->lock);
}

void ib_uverbs_shutdown_event_queue(struct ib_uverbs_event_queue *q)
{
	spin_lock_irq(&q->lock);
	q->is_closed = true;
	spin_unlock_irq(&q->lock);
	wake_up_interruptible(&q->poll_wait);
	kill_fasync(&q->async_queue, SIGIO, POLL_IN);
}

/* Any context. Takes ownership of ev. */
static void uverbs_queue_event(struct ib_uverbs_event_queue *q,
			       struct ib_uverbs_event *ev,
			       struct list_head *obj_list)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	if (q->is_closed) {
		spin_unlock_irqrestore(&q->lock, flags);
		kfree(ev);
		return;
	}
	list_add_tail(&ev->list, &q->event_list);
	if (ev->counter)
		list_add_tail(&ev->obj_list, obj_list);
	spin_unlock_irqrestore(&q->lock, flags);

	wake_up_interruptible(&q->poll_wait);
	kill_fasync(&q->async_queue, SIGIO, POLL_IN);
}

static ssize_t uverbs_event_read(struct ib_uverbs_event_queue *q,
				 struct file *filp, char __user *buf,
				 size_t count, size_t eventsz)
{
	struct ib_uverbs_event *ev;
	int ret;

	if (count < eventsz)
		return -EINVAL;

	spin_lock_irq(&q->lock);
	while (list_empty(&q->event_list)) {
		if (q->is_closed) {
			spin_unlock_irq(&q->lock);
			return -EIO;
		}
		spin_unlock_irq(&q->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(q->poll_wait,
					       !list_empty(&q->event_list) ||
					       READ_ONCE(q->is_closed));
		if (ret)
			return ret;
		spin_lock_irq(&q->lock);
	}

	/* Counted as reported now: it leaves the queue for userspace. */
	ev = list_first_entry(&q->event_list, struct ib_uverbs_event, list);
	list_del(&ev->list);
	if (ev->counter) {
		++(*ev->counter);
		list_del(&ev->obj_list);
	}
	spin_unlock_irq(&q->lock);

	ret = copy_to_user(buf, &ev->desc, eventsz) ? -EFAULT : 0;
	kfree(ev);
	return ret ? ret : eventsz;
}

static __poll_t uverbs_event_poll(struct ib_uverbs_event_queue *q,
				  struct file *filp,
				  struct poll_table_struct *wait)
{
	__poll_t mask = 0;

	poll_wait(filp, &q->poll_wait, wait);

	spin_lock_irq(&q->lock);
	if (!list_empty(&q->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (q->is_closed)
		mask = EPOLLERR;
	spin_unlock_irq(&q->lock);
	return mask;
}

/* The queue of an event file, whichever kind it is. */
static struct ib_uverbs_event_queue *file_queue(struct file *filp)
{
	struct ib_uobject *uobj = filp->private_data;

	if (filp->f_op == &uverbs_async_event_fops)
		return &container_of(uobj, struct ib_uverbs_async_event_file,
				     uobj)->ev_queue;
	return &container_of(uobj, struct ib_uverbs_completion_event_file,
			     uobj)->ev_queue;
}

static ssize_t async_event_read(struct file *filp, char __user *buf,
				size_t count, loff_t *pos)
{
	return uverbs_event_read(file_queue(filp), filp, buf, count,
				 sizeof(struct ib_uverbs_async_event_desc));
}

static ssize_t comp_event_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	return uverbs_event_read(file_queue(filp), filp, buf, count,
				 sizeof(struct ib_uverbs_comp_event_desc));
}

static __poll_t event_file_poll(struct file *filp,
				struct poll_table_struct *wait)
{
	return uverbs_event_poll(file_queue(filp), filp, wait);
}

static int event_file_fasync(int fd, struct file *filp, int on)
{
	return fasync_helper(fd, filp, on, &file_queue(filp)->async_queue);
}

static int event_file_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_event_queue *q = file_queue(filp);

	/* A file whose object was aborted before it was set up. */
	if (q->ready)
		uverbs_drain_queue(q);
	return uverbs_uobject_fd_release(inode, filp);
}

const struct file_operations uverbs_async_event_fops = {
	.owner	 = THIS_MODULE,
	.read	 = async_event_read,
	.poll	 = event_file_poll,
	.release = event_file_close,
	.fasync	 = event_file_fasync,
	.llseek	 = no_llseek,
};

const struct file_operations uverbs_comp_event_fops = {
	.owner	 = THIS_MODULE,
	.read	 = comp_event_read,
	.poll	 = event_file_poll,
	.release = event_file_close,
	.fasync	 = event_file_fasync,
	.llseek	 = no_llseek,
};

/* ------------------------------------------------------ async events */

/* An event of no object (port, device): element is the port number. */
void ib_uverbs_async_file_device_event(
	struct ib_uverbs_async_event_file *ev_file, enum ib_event_type type,
	u32 port_num)
{
	struct ib_uverbs_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.async.element = port_num;
	ev->desc.async.event_type = type;
	uverbs_queue_event(&ev_file->ev_queue, ev, NULL);
}

static void uverbs_device_event_handler(struct ib_event_handler *handler,
					struct ib_event *event)
{
	struct ib_uverbs_async_event_file *ev_file =
		container_of(handler, struct ib_uverbs_async_event_file,
			     event_handler);

	ib_uverbs_async_file_device_event(ev_file, event->event,
					  event->element.port_num);
}

void ib_uverbs_init_async_event_file(struct ib_uverbs_async_event_file *f,
				     struct ib_device *ib_dev)
{
	ib_uverbs_init_event_queue(&f->ev_queue);
	INIT_IB_EVENT_HANDLER(&f->event_handler, ib_dev,
			      uverbs_device_event_handler);
	ib_register_event_handler(&f->event_handler);
	f->handler_registered = true;
}

/*
 * The async file's destroy_object: no more events; what is queued stays
 * readable until the file is closed.
 */
void ib_uverbs_free_async_event_file(struct ib_uobject *uobj,
				     enum rdma_remove_reason why)
{
	struct ib_uverbs_async_event_file *f =
		container_of(uobj, struct ib_uverbs_async_event_file, uobj);

	if (f->handler_registered) {
		ib_unregister_event_handler(&f->event_handler);
		f->handler_registered = false;
	}
	ib_uverbs_shutdown_event_queue(&f->ev_queue);
}

void ib_uverbs_free_comp_event_file(struct ib_uobject *uobj,
				    enum rdma_remove_reason why)
{
	struct ib_uverbs_completion_event_file *f =
		container_of(uobj, struct ib_uverbs_completion_event_file,
			     uobj);

	ib_uverbs_shutdown_event_queue(&f->ev_queue);
}

static void uverbs_uobj_event(struct ib_uevent_object *uevent,
			      enum ib_event_type type)
{
	struct ib_uverbs_async_event_file *ev_file = uevent->event_file;
	struct ib_uverbs_event *ev;

	if (!ev_file)
		return;
	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.async.element = uevent->uobject.user_handle;
	ev->desc.async.event_type = type;
	ev->counter = &uevent->events_reported;
	uverbs_queue_event(&ev_file->ev_queue, ev, &uevent->event_list);
}

void ib_uverbs_cq_event_handler(struct ib_event *event, void *context)
{
	struct ib_ucq_object *ucq = event->element.cq->uobject;

	if (ucq)
		uverbs_uobj_event(&ucq->uevent, event->event);
}

void ib_uverbs_qp_event_handler(struct ib_event *event, void *context)
{
	struct ib_uqp_object *uqp = event->element.qp->uobject;

	if (uqp)
		uverbs_uobj_event(&uqp->uevent, event->event);
}

void ib_uverbs_srq_event_handler(struct ib_event *event, void *context)
{
	struct ib_usrq_object *usrq = event->element.srq->uobject;

	if (usrq)
		uverbs_uobj_event(&usrq->uevent, event->event);
}

void uverbs_uevent_attach(struct uverbs_attr_bundle *attrs,
			  struct ib_uevent_object *uevent, u16 event_fd_attr)
{
	struct ib_uverbs_async_event_file *ev_file =
		attrs->ufile->default_async_file;
	struct ib_uobject *uobj;

	INIT_LIST_HEAD(&uevent->event_list);
	uobj = uverbs_attr_get_uobject(attrs, event_fd_attr);
	if (!IS_ERR(uobj))
		ev_file = container_of(uobj, struct ib_uverbs_async_event_file,
				       uobj);
	if (ev_file) {
		uverbs_uobject_get(&ev_file->uobj);
		uevent->event_file = ev_file;
	}
}

/* The hardware object is gone: drop its unread events. */
void ib_uverbs_release_uevent(struct ib_uevent_object *uevent)
{
	struct ib_uverbs_async_event_file *ev_file = uevent->event_file;
	struct ib_uverbs_event *ev, *tmp;

	if (!ev_file)
		return;
	spin_lock_irq(&ev_file->ev_queue.lock);
	list_for_each_entry_safe(ev, tmp, &uevent->event_list, obj_list)
		uverbs_free_event(ev);
	spin_unlock_irq(&ev_file->ev_queue.lock);

	uevent->event_file = NULL;
	uverbs_uobject_put(&ev_file->uobj);
}

/* ----------------------------------------------------- completion events */

/* Completion handler of every user CQ; cq_context is its channel. */
void ib_uverbs_comp_handler(struct ib_cq *cq, void *cq_context)
{
	struct ib_uverbs_completion_event_file *ev_file = cq_context;
	struct ib_ucq_object *ucq = cq->uobject;
	struct ib_uverbs_event *ev;

	if (!ev_file || !ucq)
		return;
	ev = kzalloc(sizeof(*ev), GFP_ATOMIC);
	if (!ev)
		return;
	ev->desc.comp.cq_handle = ucq->uevent.uobject.user_handle;
	ev->counter = &ucq->comp_events_reported;
	uverbs_queue_event(&ev_file->ev_queue, ev, &ucq->comp_list);
}

/* The CQ is destroyed: drop its unread completion and async events. */
void ib_uverbs_release_ucq(struct ib_ucq_object *ucq,
			   struct ib_uverbs_completion_event_file *ev_file)
{
	struct ib_uverbs_event *ev, *tmp;

	if (ev_file) {
		spin_lock_irq(&ev_file->ev_queue.lock);
		list_for_each_entry_safe(ev, tmp, &ucq->comp_list, obj_list)
			uverbs_free_event(ev);
		spin_unlock_irq(&ev_file->ev_queue.lock);
		uverbs_uobject_put(&ev_file->uobj);
	}
	ib_uverbs_release_uevent(&ucq->uevent);
}
