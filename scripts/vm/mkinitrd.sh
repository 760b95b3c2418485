#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds the tiny busybox initramfs that mounts the host root over 9p and
# hands over to scripts/vm/guest.sh. Usage: mkinitrd.sh KVER OUT.gz [ROOT]
# ROOT holds lib/modules/KVER (default /; the debug kernel's is in its cache).
# Cached: rebuilt only when this script or the kernel modules change.
set -eu
KVER=$1
OUT=$2
ROOT=${3:-/}
MODS="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci
 9pnet 9pnet_virtio netfs fscache 9p overlay"

if [ -s "$OUT" ] && [ "$OUT" -nt "$0" ] && [ "$OUT" -nt "$ROOT/lib/modules/$KVER/modules.dep" ]; then
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/mods" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/newroot"
cp /bin/busybox "$tmp/bin/busybox"
order=""
for m in $MODS; do
	# Dependencies first, each module once, in the order modprobe would load them.
	for f in $(modprobe -d "$ROOT" -S "$KVER" --show-depends "$m" 2>/dev/null | awk '$1 == "insmod" { print $2 }'); do
		base=$(basename "$f")
		case " $order " in *" $base "*) continue ;; esac
		case "$f" in
		*.ko.xz) xz -dc "$f" > "$tmp/mods/${base%.xz}"; base=${base%.xz} ;;
		*) cp "$f" "$tmp/mods/$base" ;;
		esac
		order="$order $base"
	done
done
cat > "$tmp/init" <<INIT
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
for m in $order; do /bin/busybox insmod /mods/\$m; done
/bin/busybox mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 hostroot /newroot || exec /bin/busybox sh
/bin/busybox mount --move /proc /newroot/proc
/bin/busybox mount --move /sys /newroot/sys
/bin/busybox mount --move /dev /newroot/dev
exec /bin/busybox switch_root /newroot /bin/sh "\$RDMA_KMOD_GUEST"
INIT
chmod +x "$tmp/init"
mkdir -p "$(dirname "$OUT")"
# a name of its own: two runners may build it at once (make check)
(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT.$$.tmp"
mv "$OUT.$$.tmp" "$OUT"
