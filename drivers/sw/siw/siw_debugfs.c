// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw debugfs (/sys/kernel/debug/siw/): the zero-copy transmit switch,
 * how much payload went to TCP by page reference, and the connection
 * endpoints alive (what holds a device whose removal waits). Tests and
 * `make bench` use these to prove the path is taken, to compare it with
 * copying and to find leaks; nothing userspace relies on lives here, so
 * no rdma statistic counter that upstream siw lacks is added.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "siw.h"

/* Zero-copy transmit where siw_tx.c allows it (see siw_tx_zcopy_ok). */
bool siw_zcopy = true;
atomic64_t siw_zcopy_pages = ATOMIC64_INIT(0);
atomic64_t siw_zcopy_bytes = ATOMIC64_INIT(0);

static struct dentry *siw_debugfs_root;

static int siw_zcopy_pages_get(void *data, u64 *val)
{
	*val = atomic64_read(&siw_zcopy_pages);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(siw_zcopy_pages_fops, siw_zcopy_pages_get, NULL,
			 "%llu\n");

static int siw_zcopy_bytes_get(void *data, u64 *val)
{
	*val = atomic64_read(&siw_zcopy_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(siw_zcopy_bytes_fops, siw_zcopy_bytes_get, NULL,
			 "%llu\n");

static int siw_endpoints_show(struct seq_file *m, void *unused)
{
	siw_cm_show_endpoints(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(siw_endpoints);

/* debugfs is optional: failures only leave the files out. */
void siw_debugfs_init(void)
{
	siw_debugfs_root = debugfs_create_dir("siw", NULL);
	debugfs_create_bool("zcopy", 0600, siw_debugfs_root, &siw_zcopy);
	debugfs_create_file_unsafe("zcopy_pages", 0400, siw_debugfs_root,
				   NULL, &siw_zcopy_pages_fops);
	debugfs_create_file_unsafe("zcopy_bytes", 0400, siw_debugfs_root,
				   NULL, &siw_zcopy_bytes_fops);
	debugfs_create_file("endpoints", 0400, siw_debugfs_root, NULL,
			    &siw_endpoints_fops);
}

void siw_debugfs_exit(void)
{
	debugfs_remove_recursive(siw_debugfs_root);
	siw_debugfs_root = NULL;
}
