// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Event files of ib_uverbs: the async event file returned by GET_CONTEXT
 * (16-byte struct ib_uverbs_async_event_desc per event) and completion
 * channels (8-byte struct ib_uverbs_comp_event_desc, the CQ's user_handle).
 *
 * Each event that belongs to an object also sits on that object's list, so
 * that destroying the object can drop what userspace has not read yet. The
 * object's counter is bumped when userspace reads the event: DESTROY_*
 * reports exactly the events read, which libibverbs then waits to be acked.
 */
#include <linux/anon_inodes.h>
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

static void uverbs_init_event_queue(struct ib_uverbs_event_queue *q)
{
	spin_lock_init(&q->lock);
	INIT_LIST_HEAD(&q->event_list);
	init_waitqueue_head(&q->poll_wait);
	q->is_closed = false;
	q->async_queue = NULL;
}

/* Caller holds q->lock. */
static void uverbs_free_event(struct ib_uverbs_event *ev)
{
	list_del(&ev->list);
	if (ev->counter)
		list_del(&ev->obj_list);
	kfree(ev);
}

/* No more events: queued ones are dropped, blocked readers get -EIO. */
static void uverbs_close_queue(struct ib_uverbs_event_queue *q)
{
	struct ib_uverbs_event *ev, *tmp;

	spin_lock_irq(&q->lock);
	q->is_closed = true;
	list_for_each_entry_safe(ev, tmp, &q->event_list, list)
		uverbs_free_event(ev);
	spin_unlock_irq(&q->lock);
	wake_up_interruptible(&q->poll_wait);
}

/* Marks the queue closed but keeps what is queued readable. */
static void uverbs_shutdown_queue(struct ib_uverbs_event_queue *q)
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

/* ------------------------------------------------------ async event file */

static void async_file_release(struct kref *ref)
{
	struct ib_uverbs_async_event_file *ev_file =
		container_of(ref, struct ib_uverbs_async_event_file, ref);

	WARN_ON(ev_file->handler_registered);
	kfree(ev_file);
}

void ib_uverbs_async_file_put(struct ib_uverbs_async_event_file *ev_file)
{
	kref_put(&ev_file->ref, async_file_release);
}

static ssize_t async_event_read(struct file *filp, char __user *buf,
				size_t count, loff_t *pos)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return uverbs_event_read(&ev_file->ev_queue, filp, buf, count,
				 sizeof(struct ib_uverbs_async_event_desc));
}

static __poll_t async_event_poll(struct file *filp,
				 struct poll_table_struct *wait)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return uverbs_event_poll(&ev_file->ev_queue, filp, wait);
}

static int async_event_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	return fasync_helper(fd, filp, on, &ev_file->ev_queue.async_queue);
}

static int async_event_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_async_event_file *ev_file = filp->private_data;

	uverbs_close_queue(&ev_file->ev_queue);
	ib_uverbs_async_file_put(ev_file);
	return 0;
}

static const struct file_operations uverbs_async_event_fops = {
	.owner	 = THIS_MODULE,
	.read	 = async_event_read,
	.poll	 = async_event_poll,
	.release = async_event_close,
	.fasync	 = async_event_fasync,
	.llseek	 = no_llseek,
};

/*
 * Returns the new file (not yet installed in an fd) and in *ev_file the
 * event file with a reference for the caller (the ufile).
 */
struct file *ib_uverbs_alloc_async_event_file(
	struct ib_uverbs_file *ufile,
	struct ib_uverbs_async_event_file **ev_file)
{
	struct ib_uverbs_async_event_file *f;
	struct file *filp;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	kref_init(&f->ref);
	uverbs_init_event_queue(&f->ev_queue);

	filp = anon_inode_getfile("[infinibandevent]", &uverbs_async_event_fops,
				  f, O_RDONLY);
	if (IS_ERR(filp)) {
		kfree(f);
		return filp;
	}
	/* The file's reference is the initial one; this one is the ufile's. */
	kref_get(&f->ref);
	*ev_file = f;
	return filp;
}

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

void ib_uverbs_async_file_register(struct ib_uverbs_async_event_file *ev_file,
				   struct ib_device *ib_dev)
{
	INIT_IB_EVENT_HANDLER(&ev_file->event_handler, ib_dev,
			      uverbs_device_event_handler);
	ib_register_event_handler(&ev_file->event_handler);
	ev_file->handler_registered = true;
}

/* The command file is closing: no more events, readers drain then -EIO. */
void ib_uverbs_async_file_shutdown(struct ib_uverbs_async_event_file *ev_file)
{
	if (ev_file->handler_registered) {
		ib_unregister_event_handler(&ev_file->event_handler);
		ev_file->handler_registered = false;
	}
	uverbs_shutdown_queue(&ev_file->ev_queue);
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
	ib_uverbs_async_file_put(ev_file);
}

/* ----------------------------------------------------- completion channel */

static void comp_file_release(struct kref *ref)
{
	struct ib_uverbs_completion_event_file *ev_file =
		container_of(ref, struct ib_uverbs_completion_event_file, ref);
	struct ib_uverbs_file *ufile = ev_file->ufile;

	spin_lock(&ufile->comp_files_lock);
	list_del(&ev_file->ufile_entry);
	spin_unlock(&ufile->comp_files_lock);
	kfree(ev_file);
	ib_uverbs_ufile_put(ufile);
}

void ib_uverbs_comp_file_put(struct ib_uverbs_completion_event_file *ev_file)
{
	kref_put(&ev_file->ref, comp_file_release);
}

void ib_uverbs_comp_file_shutdown(struct ib_uverbs_completion_event_file *ev_file)
{
	uverbs_shutdown_queue(&ev_file->ev_queue);
}

static ssize_t comp_event_read(struct file *filp, char __user *buf,
			       size_t count, loff_t *pos)
{
	struct ib_uverbs_completion_event_file *ev_file = filp->private_data;

	return uverbs_event_read(&ev_file->ev_queue, filp, buf, count,
				 sizeof(struct ib_uverbs_comp_event_desc));
}

static __poll_t comp_event_poll(struct file *filp,
				struct poll_table_struct *wait)
{
	struct ib_uverbs_completion_event_file *ev_file = filp->private_data;

	return uverbs_event_poll(&ev_file->ev_queue, filp, wait);
}

static int comp_event_fasync(int fd, struct file *filp, int on)
{
	struct ib_uverbs_completion_event_file *ev_file = filp->private_data;

	return fasync_helper(fd, filp, on, &ev_file->ev_queue.async_queue);
}

static int comp_event_close(struct inode *inode, struct file *filp)
{
	struct ib_uverbs_completion_event_file *ev_file = filp->private_data;

	uverbs_close_queue(&ev_file->ev_queue);
	ib_uverbs_comp_file_put(ev_file);
	return 0;
}

static const struct file_operations uverbs_comp_event_fops = {
	.owner	 = THIS_MODULE,
	.read	 = comp_event_read,
	.poll	 = comp_event_poll,
	.release = comp_event_close,
	.fasync	 = comp_event_fasync,
	.llseek	 = no_llseek,
};

/* Returns the new file, not yet installed in an fd. */
struct file *ib_uverbs_alloc_comp_event_file(struct ib_uverbs_file *ufile)
{
	struct ib_uverbs_completion_event_file *f;
	struct file *filp;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	kref_init(&f->ref);
	uverbs_init_event_queue(&f->ev_queue);

	filp = anon_inode_getfile("[infinibandevent]", &uverbs_comp_event_fops,
				  f, O_RDONLY);
	if (IS_ERR(filp)) {
		kfree(f);
		return filp;
	}
	kref_get(&ufile->ref);
	f->ufile = ufile;
	spin_lock(&ufile->comp_files_lock);
	list_add_tail(&f->ufile_entry, &ufile->comp_files);
	spin_unlock(&ufile->comp_files_lock);
	return filp;
}

/* The channel behind fd if it is one of ufile's, with a reference. */
struct ib_uverbs_completion_event_file *
ib_uverbs_lookup_comp_file(int fd, struct ib_uverbs_file *ufile)
{
	struct ib_uverbs_completion_event_file *ev_file = NULL;
	struct fd f = fdget(fd);

	if (!f.file)
		return NULL;
	if (f.file->f_op == &uverbs_comp_event_fops) {
		ev_file = f.file->private_data;
		if (ev_file->ufile == ufile)
			kref_get(&ev_file->ref);
		else
			ev_file = NULL;
	}
	fdput(f);
	return ev_file;
}

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
		ib_uverbs_comp_file_put(ev_file);
	}
	ib_uverbs_release_uevent(&ucq->uevent);
}
