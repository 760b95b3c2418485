#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Prints the kernel version to build for, or with --kdir KVER its build directory:
# the running kernel's when its headers exist, else the newest Debian
# linux-headers-*-amd64 installed. The debug kernel's release
# (*-rdma-kmod-debug) has its build tree in scripts/debug-kernel's cache.
set -eu
if [ "${1:-}" = "--kdir" ]; then
	if [ -d "/lib/modules/$2/build" ]; then
		echo "/lib/modules/$2/build"
	elif [ "${2%-rdma-kmod-debug}" != "$2" ] &&
	     d=$("$(dirname "$0")/debug-kernel/build.sh" --print-dir) &&
	     [ "$(cat "$d/kver")" = "$2" ]; then
		echo "$d/build"
	else
		echo "/usr/src/linux-headers-$2"
	fi
	exit 0
fi
if [ -d "/lib/modules/$(uname -r)/build" ]; then
	uname -r
	exit 0
fi
ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's,.*/linux-headers-,,' | sort -V | tail -n 1
