#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make deb: rdma-kmod-dkms_VERSION_all.deb, laid out as Debian's *-dkms
# packages are: the source under /usr/src/rdma-kmod-VERSION, a postinst that
# has DKMS build and install it for every installed kernel with headers (and
# DKMS's kernel hook does so for every later one), a prerm that removes it
# from DKMS. Built with dpkg-deb from a staging directory.
#   build.sh [--out DIR]        (default build/; prints the package's path)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build
[ "${1:-}" = --out ] && out=$2
ver=$(cat "$top/VERSION")
grep -q "^PACKAGE_VERSION=\"$ver\"\$" "$top/dkms.conf" ||
	{ echo "deb: dkms.conf's PACKAGE_VERSION is not $ver (VERSION)" >&2; exit 1; }
pkg=rdma-kmod-dkms
stage=$out/deb/${pkg}_${ver}_all
deb=$out/${pkg}_${ver}_all.deb
maint="rdma-kmod infra team <rdma-kmod-infra@invalid>"
# Reproducible: file times and the changelog date are the last commit's.
SOURCE_DATE_EPOCH=$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH

rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/share/doc/$pkg"
"$top/scripts/dkms-source.sh" "$stage/usr/src/rdma-kmod-$ver"
for s in postinst prerm postrm; do
	sed "s/@VERSION@/$ver/g" "$here/$s" > "$stage/DEBIAN/$s"
done
# Neither the stock modules nor ours carry a MODULE_VERSION: DKMS would
# take ours for the same version as the kernel's and not install them.
# Debian's DKMS skips that check for the modules this directory names.
mkdir -p "$stage/usr/share/dkms/modules_to_force_install"
echo "rdma-kmod_version-override" > "$stage/usr/share/dkms/modules_to_force_install/rdma-kmod"
cp "$top/README.md" "$stage/usr/share/doc/$pkg/"
cat > "$stage/usr/share/doc/$pkg/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: rdma-kmod

Files: *
Copyright: the rdma-kmod authors
License: GPL-2.0 OR BSD-2-Clause
 On Debian systems the GPL 2 is in /usr/share/common-licenses/GPL-2 and the
 BSD licenses in /usr/share/common-licenses/BSD.
COPYRIGHT
{
	echo "$pkg ($ver) unstable; urgency=medium"
	echo
	echo "  * Built from $(git -C "$top" describe --always --dirty 2>/dev/null || echo "a source tree")."
	echo
	echo " -- $maint  $(date -R -u -d "@$SOURCE_DATE_EPOCH")"
} | gzip -9n > "$stage/usr/share/doc/$pkg/changelog.Debian.gz"

cat > "$stage/DEBIAN/control" <<CONTROL
Package: $pkg
Version: $ver
Architecture: all
Maintainer: $maint
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: dkms, linux-headers-amd64 | linux-headers
Recommends: linux-source-6.1
Section: kernel
Priority: optional
Description: clean-room RDMA subsystem for Debian 12's kernel (DKMS source)
 Out-of-tree replacements for the kernel's RDMA modules (ib_core, ib_uverbs,
 ib_umad, ib_cm, iw_cm, rdma_cm, rdma_ucm, rdma_rxe, siw), built by DKMS for every
 installed 6.1 kernel and installed in updates/, ahead of the in-tree ones.
 .
 With linux-source-6.1 installed, every DKMS build also rebuilds the
 distribution's other RDMA consumers (ULPs, NVMe over Fabrics, SMC-R, RDS,
 9P, hardware drivers) on rdma-kmod's core; those that do not build yet stay
 blocked by /etc/modprobe.d/rdma-kmod.conf with the reason. Removing the
 package gives the stock RDMA stack back.
CONTROL

(cd "$stage" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$stage/DEBIAN/md5sums"
chmod -R u+rwX,go+rX,go-w "$stage"
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm" "$stage/DEBIAN/postrm"
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >&2
echo "$deb"
