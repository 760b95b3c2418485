// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test only: hands MADs straight to a device's process_mad, so a driver's
 * SMA/PMA can be tested without QP0. One debugfs file,
 * /sys/kernel/debug/rdma_mad_inject/mad: write one request (struct
 * mad_inject_req, packed, little-endian host) and read back one answer
 * (struct mad_inject_ans) from the same open file. The request names the
 * device, port, process_mad flags and, when with_wc is set, the SLID,
 * SL and P_Key index of a receive completion (else in_wc is NULL, as for
 * a MAD generated on the node). The answer holds process_mad's return
 * value, out_mad_size and the 256-byte out_mad. Write errors: ENODEV (no
 * such device), EOPNOTSUPP (no process_mad), EINVAL (wrong size).
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

MODULE_DESCRIPTION("rdma-kmod process_mad injector (test only)");
MODULE_LICENSE("Dual BSD/GPL");

struct mad_inject_req {
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	u32 flags;
	u32 with_wc;
	u32 slid;
	u32 sl;
	u32 pkey_index;
	u8 mad[sizeof(struct ib_mad)];
} __packed;

struct mad_inject_ans {
	s32 ret;
	u32 out_size;
	u8 mad[sizeof(struct ib_mad)];
} __packed;

/* Per open file: the last answer, read back after the write. */
struct mad_inject_file {
	struct mutex lock;	/* one request at a time per file */
	bool have_answer;
	struct mad_inject_ans ans;
};

static struct dentry *mad_inject_dir;

static int mad_inject_open(struct inode *inode, struct file *file)
{
	struct mad_inject_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return 0;
}

static int mad_inject_release(struct inode *inode, struct file *file)
{
	struct mad_inject_file *f = file->private_data;

	mutex_destroy(&f->lock);
	kfree(f);
	return 0;
}

static int mad_inject_call(struct mad_inject_req *req,
			   struct mad_inject_ans *ans)
{
	struct ib_device *dev;
	struct ib_wc wc = {};
	size_t out_size = sizeof(struct ib_mad);
	u16 pkey_index = 0;
	struct ib_mad *in, *out;
	int err = 0;

	req->dev[sizeof(req->dev) - 1] = 0;
	dev = ib_device_get_by_name(req->dev, RDMA_DRIVER_UNKNOWN);
	if (!dev)
		return -ENODEV;
	if (!dev->ops.process_mad) {
		err = -EOPNOTSUPP;
		goto put;
	}
	in = kmemdup(req->mad, sizeof(*in), GFP_KERNEL);
	out = kzalloc(sizeof(*out), GFP_KERNEL);
	if (!in || !out) {
		err = -ENOMEM;
		goto free;
	}
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_RECV;
	wc.port_num = req->port;
	wc.slid = req->slid;
	wc.sl = req->sl;
	wc.pkey_index = req->pkey_index;
	wc.byte_len = sizeof(struct ib_mad) + sizeof(struct ib_grh);

	ans->ret = dev->ops.process_mad(dev, req->flags, req->port,
					req->with_wc ? &wc : NULL, NULL, in,
					out, &out_size, &pkey_index);
	ans->out_size = out_size;
	memcpy(ans->mad, out, sizeof(ans->mad));
free:
	kfree(out);
	kfree(in);
put:
	ib_device_put(dev);
	return err;
}

static ssize_t mad_inject_write(struct file *file, const char __user *buf,
				size_t len, loff_t *ppos)
{
	struct mad_inject_file *f = file->private_data;
	struct mad_inject_req *req;
	int err;

	if (len != sizeof(*req))
		return -EINVAL;
	req = memdup_user(buf, len);
	if (IS_ERR(req))
		return PTR_ERR(req);

	mutex_lock(&f->lock);
	f->have_answer = false;
	memset(&f->ans, 0, sizeof(f->ans));
	err = mad_inject_call(req, &f->ans);
	if (!err)
		f->have_answer = true;
	mutex_unlock(&f->lock);
	kfree(req);
	return err ? err : len;
}

static ssize_t mad_inject_read(struct file *file, char __user *buf,
			       size_t len, loff_t *ppos)
{
	struct mad_inject_file *f = file->private_data;
	ssize_t ret;

	mutex_lock(&f->lock);
	if (!f->have_answer) {
		ret = -ENODATA;
	} else if (len < sizeof(f->ans)) {
		ret = -EINVAL;
	} else if (copy_to_user(buf, &f->ans, sizeof(f->ans))) {
		ret = -EFAULT;
	} else {
		ret = sizeof(f->ans);
		f->have_answer = false;
	}
	mutex_unlock(&f->lock);
	return ret;
}

static const struct file_operations mad_inject_fops = {
	.owner = THIS_MODULE,
	.open = mad_inject_open,
	.release = mad_inject_release,
	.write = mad_inject_write,
	.read = mad_inject_read,
	.llseek = no_llseek,
};

static int __init mad_inject_init(void)
{
	mad_inject_dir = debugfs_create_dir("rdma_mad_inject", NULL);
	debugfs_create_file("mad", 0600, mad_inject_dir, NULL,
			    &mad_inject_fops);
	return 0;
}

static void __exit mad_inject_exit(void)
{
	debugfs_remove(mad_inject_dir);
}

module_init(mad_inject_init);
module_exit(mad_inject_exit);
