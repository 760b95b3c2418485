#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Copies the source tree DKMS builds from, as /usr/src/rdma-kmod-VERSION
# holds it, into DEST (created): the build files, our modules' sources
# (drivers/, ulp/) and headers, scripts/ (the consumer rebuild in
# scripts/compat among them); no build output, no tests.
#   dkms-source.sh DEST
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
mkdir -p "$dest"
(cd "$top" && tar --exclude='*.o' --exclude='*.ko' --exclude='*.a' --exclude='.*.cmd' \
	--exclude='*.mod' --exclude='*.mod.c' --exclude='*.symvers' --exclude='*.order' \
	--exclude='.*.d' --exclude='__pycache__' \
	-cf - Kbuild Makefile dkms.conf VERSION drivers ulp include scripts) |
	tar -xf - -C "$dest"
