#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Driver-style uverbs object and method declarations (selftests/host/
# uverbs_decls/uverbs_decls.c: what mlx5_ib, efa, irdma, qedr declare and
# call) build against our include/rdma/uverbs_*.h, W=1, warnings are
# errors, and link only to symbols our modules export.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
KDIR=$("$top/scripts/kver.sh" --kdir "$KVER")
[ -f "$top/Module.symvers" ] || { echo "build the modules first (make)"; exit 1; }
out=$top/build/host-uverbs-decls
rm -rf "$out"
mkdir -p "$out"
cp "$top/selftests/host/uverbs_decls/uverbs_decls.c" "$top/selftests/host/uverbs_decls/Kbuild" "$out/"
make -C "$KDIR" M="$out" W=1 KCFLAGS=-Werror \
	NOSTDINC_FLAGS="-I$top/include -I$top/include/uapi" \
	KBUILD_EXTRA_SYMBOLS="$top/Module.symvers" modules >"$out/build.log" 2>&1 || {
	cat "$out/build.log"
	exit 1
}
if grep -E 'WARNING|undefined' "$out/build.log"; then
	echo "FAIL: unresolved symbols or warnings"
	exit 1
fi
echo "PASS: uverbs declarations build against our headers"
