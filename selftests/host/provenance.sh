#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Clean room: no implementation file (outside include/, whose declarations
# must match upstream) reads line for line like the upstream 6.1 kernel, as
# the workplace's provenance tool measures it (over 5% of its lines, or a
# stretch of 30, fails). Skipped with a message where the tool or the
# kernel source (linux-source-6.1) is missing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=${PROVENANCE:-$top/../shared/tools/provenance}
if [ ! -x "$tool" ]; then
	echo "skipped: no provenance tool at $tool (set PROVENANCE=PATH)"
	exit 0
fi
cd "$top" || exit 1
out=$("$tool" 2>&1)
rc=$?
case $rc in
0) echo "$out" | tail -1 ;;
2) echo "skipped: $out" ;;
*) echo "$out" | grep -E '^OVER|implementation'; exit 1 ;;
esac
