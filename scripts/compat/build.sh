#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Rebuilds the distribution's own RDMA consumers (scripts/compat/consumers.txt)
# from linux-source-6.1 against our include/ and Module.symvers, so that they
# load on our ib_core. The upstream source is read from the installed package
# at build time, into OUT/src (never into the repository).
#
#   build.sh [--kver KVER] [--kdir DIR] [--out DIR] [--top DIR] [--only NAME]... [--force]
#
# OUT (default build/compat/KVER) gets:
#   modules/NAME.ko    every consumer that built and links only to what we export
#   status.txt         "NAME built" or "NAME blocked REASON", one line each
#   logs/NAME.log      the compiler's output
# A consumer that does not build, or that would need a symbol only the stock
# RDMA core exports, is "blocked"; the exit status is 0 all the same (1 only
# when nothing could be tried). The result is reused while the source package,
# our headers, our Module.symvers and this script are unchanged (--force
# rebuilds).
#
# RDMA_KMOD_COMPAT_CACHE=DIR: results are also kept in DIR by a key that does
# not depend on where the tree is (symbol CRCs, not paths), so that another
# tree of the same sources reuses them. make check sets it: its consumers
# table, DKMS and Debian package tests each rebuild the consumers in a tree of
# their own, and the three builds are the same one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
KVER="" kdir="" out="" only="" force=0
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--kdir) kdir=$2; shift ;;
	--out) out=$2; shift ;;
	--top) top=$(cd "$2" && pwd); shift ;;
	--only) only="$only $2"; shift ;;
	--force) force=1 ;;
	*) echo "usage: $0 [--kver KVER] [--kdir DIR] [--out DIR] [--top DIR] [--only NAME]... [--force]" >&2
	   exit 2 ;;
	esac
	shift
done
[ -n "$KVER" ] || KVER=$("$top/scripts/kver.sh")
[ -n "$kdir" ] || kdir=$("$top/scripts/kver.sh" --kdir "$KVER")
[ -n "$out" ] || out=$top/build/compat/$KVER
tarball=${RDMA_KMOD_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
list=$here/consumers.txt
ours=$top/Module.symvers
jobs=$(nproc)

log() { echo "compat: $*" >&2; }
summary() { log "$(grep -c '	built' "$status") built, $(grep -c '	blocked' "$status") blocked (list: $status)"; }

consumers() { # NAME DIR EXTRA-DIRS... per line, comments dropped
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list"
}

[ -d "$kdir" ] || { log "no kernel headers at $kdir"; exit 1; }
[ -s "$ours" ] || { log "no $ours: build our modules first (make modules)"; exit 1; }
mkdir -p "$out"
status=$out/status.txt

if [ ! -r "$tarball" ]; then
	log "no $tarball (apt-get install linux-source-6.1): every consumer stays blocked"
	consumers | while read -r name _; do
		printf '%s\tblocked\tlinux-source-6.1 is not installed\n' "$name"
	done > "$status"
	exit 0
fi

# Reuse the last result while nothing it depends on changed. Our symbols by
# name and CRC, without the module paths, and without the test-only modules'
# (a DKMS tree has none): the same in every tree.
stamp() {
	{
		stat -c '%n %s %Y' "$tarball" "$kdir/Module.symvers"
		echo "$KVER $only"
		awk -F'\t' '$3 !~ /\/selftests\// { print $1, $2, $4 }' "$ours" | sort
		cat "$list" "$0"
		(cd "$top" && find include -type f -name '*.h' | sort | xargs cat)
	} | sha256sum | cut -d' ' -f1
}
key=$(stamp)
if [ $force = 0 ] && [ -s "$status" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ]; then
	log "up to date ($out)"
	exit 0
fi
rm -rf "$out/src" "$out/modules" "$out/logs" "$out/symvers" "$out/stamp"
cache=${RDMA_KMOD_COMPAT_CACHE:+$RDMA_KMOD_COMPAT_CACHE/$key}
if [ $force = 0 ] && [ -n "$cache" ] && [ -s "$cache/status.txt" ]; then
	cp -r "$cache/modules" "$cache/logs" "$cache/symvers" "$out/" &&
		cp "$cache/status.txt" "$status" && echo "$key" > "$out/stamp" && {
		log "reused $cache (a build of the same sources, headers and symbols)"
		summary
		exit 0
	}
	rm -rf "$out/modules" "$out/logs" "$out/symvers"
fi
mkdir -p "$out/src" "$out/modules" "$out/logs" "$out/symvers"

# Only what the list names leaves the tarball: whole directories, or for
# DIR:FILE that file with the Makefile and headers of DIR.
members=$(consumers | awk '{
	for (i = 2; i <= NF; i++) {
		n = split($i, p, ":")
		if (n == 1) { print "linux-source-6.1/" p[1]; continue }
		print "linux-source-6.1/" p[1] "/Makefile"
		print "linux-source-6.1/" p[1] "/" p[2]
		print "linux-source-6.1/" p[1] "/*.h"
	} }' | sort -u)
log "extracting $(echo "$members" | wc -l) paths of $tarball"
# shellcheck disable=SC2086
tar -xJf "$tarball" -C "$out/src" --strip-components=1 --wildcards --no-wildcards-match-slash \
	$members || { log "cannot extract from $tarball"; exit 1; }

# Symbols the stock RDMA modules export: a consumer needing one of them that
# neither we nor an earlier consumer export would not load.
stock_rdma=$out/stock-rdma-exports.txt
awk -F'\t' '$3 ~ /drivers\/infiniband\/|net\/sunrpc\/xprtrdma|net\/smc|net\/rds\/rds_rdma|drivers\/nvme\/(host|target)\/nvmet?-rdma/ { print $2 }' \
	"$kdir/Module.symvers" | sort -u > "$stock_rdma"

extra_symbols=$ours
: > "$status.new"
consumers | while read -r name dir extra; do
	if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
		continue
	fi
	dir=${dir%%:*}
	src=$out/src/$dir
	obj=${name}.o
	# Kbuild wins over Makefile: ours includes upstream's (a Kbuild of its
	# own is moved aside first) and keeps only this module's objects.
	[ -f "$src/Kbuild" ] && ! grep -q '^# rdma-kmod' "$src/Kbuild" &&
		mv "$src/Kbuild" "$src/Kbuild.upstream"
	up=Makefile
	[ -f "$src/Kbuild.upstream" ] && up=Kbuild.upstream
	printf '# rdma-kmod: builds %s only\ninclude $(src)/%s\nobj-m := $(filter %s,$(obj-m))\n' \
		"$name" "$up" "$obj" > "$src/Kbuild"
	inc="-I$top/include -I$top/include/uapi"
	for e in $extra; do inc="$inc -I$out/src/$e"; done
	rm -f "$src/$name.ko"
	log "building $name"
	make -C "$kdir" M="$src" NOSTDINC_FLAGS="$inc" \
		KBUILD_EXTRA_SYMBOLS="$extra_symbols" -j"$jobs" modules \
		> "$out/logs/$name.log" 2>&1
	rc=$?
	# A clean make without the module: the kernel's config leaves it out
	# (the trimmed debug kernel has no Ethernet half for hardware drivers).
	if [ $rc = 0 ] && [ ! -f "$src/$name.ko" ]; then
		printf '%s\tblocked\tnot enabled in the configuration of kernel %s\n' \
			"$name" "$KVER" >> "$status.new"
		continue
	fi
	if [ $rc != 0 ] || [ ! -f "$src/$name.ko" ]; then
		n=$(grep -c 'error:' "$out/logs/$name.log")
		first=$(grep -m1 -E 'error:|ERROR:' "$out/logs/$name.log" | sed "s,$out/src/,,; s,$top/,,")
		printf '%s\tblocked\tdoes not build against rdma-kmod (%s errors; first: %s)\n' \
			"$name" "$n" "$first" >> "$status.new"
		continue
	fi
	# Every symbol a stock RDMA module would have provided must come from
	# us or from a consumer rebuilt before this one.
	have=$(cat $extra_symbols "$src/Module.symvers" | awk -F'\t' '{ print $2 }' | sort -u)
	lacking=$(nm -u "$src/$name.ko" | awk '{ print $2 }' | sort -u |
		comm -12 - "$stock_rdma" | comm -23 - <(echo "$have"))
	if [ -n "$lacking" ]; then
		printf '%s\tblocked\tneeds what only the stock RDMA core exports: %s\n' \
			"$name" "$(echo $lacking)" >> "$status.new"
		continue
	fi
	cp "$src/$name.ko" "$out/modules/"
	cp "$src/Module.symvers" "$out/symvers/$name.symvers"
	extra_symbols="$extra_symbols $out/symvers/$name.symvers"
	printf '%s\tbuilt\n' "$name" >> "$status.new"
done
mv "$status.new" "$status"
echo "$key" > "$out/stamp"
# Into the cache whole or not at all (another build may read it meanwhile).
if [ -n "$cache" ] && mkdir -p "$RDMA_KMOD_COMPAT_CACHE" && tmp=$(mktemp -d "$cache.XXXXXX"); then
	cp -r "$out/modules" "$out/logs" "$out/symvers" "$status" "$tmp/" &&
		rm -rf "$cache" && mv "$tmp" "$cache" || rm -rf "$tmp"
fi
summary
exit 0
