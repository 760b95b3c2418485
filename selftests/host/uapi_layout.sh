#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Our include/uapi/rdma headers equal the installed 6.1 kernel's as ABI.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=${KVER:-$("$top/scripts/kver.sh")}
sys=/usr/src/linux-headers-${KVER%-amd64}-common/include/uapi/rdma
[ -d "$sys" ] || sys=/usr/src/linux-headers-$KVER/include/uapi/rdma
exec python3 "$top/selftests/host/uapi_layout.py" "$top/include/uapi/rdma" "$sys"
