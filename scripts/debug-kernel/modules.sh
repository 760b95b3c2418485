#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds our modules, the test-only modules and the rebuilt consumers
# (scripts/compat) for the debug kernel, without touching the tree's own
# build for the stock kernel: the sources are copied to
# build/debug/KVER/src (external modules build where their sources are).
#
#   modules.sh [--no-compat]
# Prints build/debug/KVER, which holds (scripts/vm/run.sh takes the modules
# of a VM on the debug kernel from there):
#   src/           the copy and its objects (src/drivers: ours,
#                  src/selftests/kmod: the test-only modules)
#   compat/        scripts/compat/build.sh's output (modules/, status.txt, logs/)
#   build.log      make's output
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
compat=1
[ "${1:-}" = --no-compat ] && compat=0

log() { echo "debug-modules: $*" >&2; }

kdir=$("$here/build.sh" --print-dir) || exit 1
KVER=$(cat "$kdir/kver")
out=$top/build/debug/$KVER
src=$out/src
mkdir -p "$src"
# The sources Kbuild reads, not the stock build's objects; tar keeps the
# times, so what did not change is not rebuilt.
tar -C "$top" --exclude-vcs --exclude=./build --exclude=./tools --exclude=./Documentation \
	--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' --exclude='*.cmd' \
	--exclude='*.a' --exclude='*.order' --exclude='*.symvers' -cf - . |
	tar -C "$src" -xf - || exit 1
log "building for $KVER in $src"
# Warnings are not errors here: KASAN's instrumentation grows stack frames
# past -Wframe-larger-than; make (stock kernel) is the -Werror build.
if ! nice -n 19 make -C "$src" KVER="$KVER" KDIR="$kdir/build" WERROR=0 modules > "$out/build.log" 2>&1; then
	tail -30 "$out/build.log" >&2
	log "build failed (log $out/build.log)"
	exit 1
fi
grep -E 'warning:' "$out/build.log" | sort -u | head -20 >&2
if [ $compat = 1 ]; then
	nice -n 19 "$top/scripts/compat/build.sh" --kver "$KVER" --top "$src" --out "$out/compat" >&2 ||
		log "compat build failed: the consumers are left out"
fi
log "$(find "$src/drivers" -name '*.ko' | wc -l) of our modules," \
	"$(ls "$out"/compat/modules/*.ko 2>/dev/null | wc -l) consumers"
echo "$out"
