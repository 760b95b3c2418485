#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdma_fuzz_wire's RoCE frames: the same seed gives the same bytes, and the
# ICRC of every unmutated frame (v1 and v2) equals the one roce_inject.py
# computes (that one is checked against captured rxe traffic).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=${RDMA_KMOD_TOOLS:-$top/build/tools}/rdma_fuzz_wire
# host tests run before make check builds the tools: build them here
[ -n "${RDMA_KMOD_TOOLS:-}" ] || make -C "$top" -s tools >/dev/null
[ -x "$bin" ] || { echo "FAIL: $bin missing (make tools)"; exit 1; }
trap 'rm -f /tmp/fuzz_wire_dump.$$ /tmp/fuzz_wire_dump2.$$' EXIT
"$bin" --dump --seed 7 --packets 3000 >/tmp/fuzz_wire_dump.$$
"$bin" --dump --seed 7 --start 1000 --packets 10 >/tmp/fuzz_wire_dump2.$$
sed -n 1001,1010p /tmp/fuzz_wire_dump.$$ | cmp -s - /tmp/fuzz_wire_dump2.$$ ||
	{ echo "FAIL: packets 1000..1009 of seed 7 differ when generated alone"; exit 1; }
python3 - "$top/selftests/vm/roce_inject.py" /tmp/fuzz_wire_dump.$$ <<'PY'
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("roce_inject", sys.argv[1])
ri = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ri)
seen = {"v1": 0, "v2": 0}
for line in open(sys.argv[2]):
    hexbytes, desc = line.split(" ", 1)
    if "mut=none" not in desc:
        continue
    f = bytes.fromhex(hexbytes)
    kind = desc[:2]
    if kind == "v2":
        want = ri.icrc(f[14:34], f[34:42], f[42:-4])
    else:
        want = ri.icrc_v1(f[14:54], f[54:-4])
    if want != f[-4:]:
        sys.exit("FAIL: ICRC differs: " + desc.strip())
    seen[kind] += 1
if not seen["v1"] or not seen["v2"]:
    sys.exit("FAIL: no unmutated frame of each kind: %s" % seen)
print("ok: ICRC of %d RoCE v2 and %d RoCE v1 frames as roce_inject.py's" % (seen["v2"], seen["v1"]))
PY
