#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The reference peer for our siw: upstream Soft-iWARP (siw.ko) built from
# Debian's linux-source-6.1 against the stock kernel's headers, for the stock
# stack in the test VMs (Debian's kernel is built without siw). Test
# infrastructure only: the upstream source is extracted under build/peer/
# (git-ignored), compiled as is and never read to write our code.
#
#   upstream-siw.sh [--kver KVER]   builds (once) and prints the path of siw.ko
#
# Installs linux-source-6.1 with apt-get when it is missing (idempotent).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER=$("$top/scripts/kver.sh")
[ "${1:-}" = --kver ] && KVER=$2
kdir=/lib/modules/$KVER/build
tarball=/usr/src/linux-source-6.1.tar.xz
out=$top/build/peer/$KVER
ko=$out/siw/siw.ko

log() { echo "upstream-siw: $*" >&2; }

# Rebuilt only when missing or older than the source package or this script.
if [ -f "$ko" ] && [ "$ko" -nt "$tarball" ] && [ "$ko" -nt "$0" ]; then
	echo "$ko"
	exit 0
fi

if [ ! -r "$tarball" ]; then
	log "installing linux-source-6.1"
	[ "$(id -u)" = 0 ] || SUDO=sudo
	${SUDO:-} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=600 --no-install-recommends linux-source-6.1 >&2
fi
[ -d "$kdir" ] || { log "no kernel headers at $kdir"; exit 1; }

# Only the siw driver directory leaves the tarball.
log "extracting drivers/infiniband/sw/siw from $tarball"
rm -rf "$out/siw"
mkdir -p "$out/siw"
tar -xJf "$tarball" -C "$out/siw" --strip-components=5 \
	linux-source-6.1/drivers/infiniband/sw/siw >&2
# Upstream 6.1 siw has no module parameters. The tests switch MPA CRC on
# both sides alike, so the peer build turns upstream's internal CRC switch
# (mpa_crc_required, default off) into a writable parameter of that name;
# our siw offers the same. Nothing else is changed.
sed -i 's/^const bool mpa_crc_required;/bool mpa_crc_required;\
module_param(mpa_crc_required, bool, 0644);\
MODULE_PARM_DESC(mpa_crc_required, "Require MPA CRC on new connections (test peer knob)");/' \
	"$out/siw/siw_main.c"
sed -i 's/^extern const bool mpa_crc_required;/extern bool mpa_crc_required;/' "$out/siw/siw.h"
grep -q '^module_param(mpa_crc_required' "$out/siw/siw_main.c" &&
	grep -q '^extern bool mpa_crc_required;' "$out/siw/siw.h" ||
	{ log "cannot expose mpa_crc_required (source layout changed?)"; exit 1; }
# Against the stock headers: their Module.symvers has the stock ib_core.
log "building siw.ko for $KVER"
make -s -C "$kdir" M="$out/siw" CONFIG_RDMA_SIW=m modules >&2
[ -f "$ko" ] || { log "build produced no siw.ko"; exit 1; }
echo "$ko"
