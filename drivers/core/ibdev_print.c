// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ibdev_printk() and its per-level wrappers: kernel log lines that name the
 * RDMA device, preceded by its parent's driver and bus name when it has a
 * parent (a PCI function), as dev_printk() does for other devices.
 */
#include <linux/device.h>
#include <linux/printk.h>
#include <rdma/ib_verbs.h>

static void ibdev_vprintk(const char *level, const struct ib_device *ibdev,
			  struct va_format *vaf)
{
	const struct device *parent = ibdev ? ibdev->dev.parent : NULL;

	if (!ibdev)
		printk("%s(NULL ib_device): %pV", level, vaf);
	else if (parent)
		printk("%s%s %s %s: %pV", level, dev_driver_string(parent),
		       dev_name(parent), dev_name(&ibdev->dev), vaf);
	else
		printk("%s%s: %pV", level, dev_name(&ibdev->dev), vaf);
}

void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, format);
	vaf.fmt = format;
	vaf.va = &args;
	ibdev_vprintk(level, ibdev, &vaf);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_printk);

/* One exported function per level, each a fixed-level ibdev_printk(). */
#define IBDEV_LEVEL_FN(fn, kern_level)					\
void fn(const struct ib_device *ibdev, const char *fmt, ...)		\
{									\
	struct va_format vaf;						\
	va_list args;							\
									\
	va_start(args, fmt);						\
	vaf.fmt = fmt;							\
	vaf.va = &args;							\
	ibdev_vprintk(kern_level, ibdev, &vaf);				\
	va_end(args);							\
}									\
EXPORT_SYMBOL(fn)

IBDEV_LEVEL_FN(ibdev_emerg, KERN_EMERG);
IBDEV_LEVEL_FN(ibdev_alert, KERN_ALERT);
IBDEV_LEVEL_FN(ibdev_crit, KERN_CRIT);
IBDEV_LEVEL_FN(ibdev_err, KERN_ERR);
IBDEV_LEVEL_FN(ibdev_warn, KERN_WARNING);
IBDEV_LEVEL_FN(ibdev_notice, KERN_NOTICE);
IBDEV_LEVEL_FN(ibdev_info, KERN_INFO);
