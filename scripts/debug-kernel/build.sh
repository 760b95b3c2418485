#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Builds, once, the debug kernel the tests run on with `make check-debug`:
# Debian's linux-source-6.1 with Debian's config trimmed to modules.txt, plus
# debug.config (KASAN, lockdep, kmemleak, UBSAN, fault injection...), without
# the in-tree RDMA code. Prints the cache directory, which holds:
#   bzImage, config, kver         the image, its .config, its release
#   modroot/lib/modules/KVER/     its modules (the guest's /lib/modules/KVER)
#   build/                        the build tree: KDIR for our modules
#   build.log                     the build's output
#
#   build.sh [--print-dir|--print-key] [--jobs N]
# --print-dir prints the directory without building (exit 1 if not built);
# --print-key the key of that directory, built or not.
# The key of the directory hashes what the result depends on (source package,
# base config, debug.config, modules.txt, compiler, RECIPE below): a change
# to any of them builds a new kernel; nothing else does. An interrupted build
# resumes where it stopped. The build runs at nice 19, idle I/O class.
#
# Where: $RDMA_KMOD_DEBUG_CACHE, else /var/cache/rdma-kmod/debug-kernel when
# writable, else ${XDG_CACHE_HOME:-~/.cache}/rdma-kmod/debug-kernel.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# Bump when the steps below change what gets built.
RECIPE=1
print_dir=0 print_key=0 jobs=2
while [ $# -gt 0 ]; do
	case "$1" in
	--print-dir) print_dir=1 ;;
	--print-key) print_key=1 ;;
	--jobs) jobs=$2; shift ;;
	*) echo "usage: $0 [--print-dir|--print-key] [--jobs N]" >&2; exit 2 ;;
	esac
	shift
done

log() { echo "debug-kernel: $*" >&2; }
die() { log "$*"; exit 1; }

tarball=${RDMA_KMOD_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
stock_kver=$("$top/scripts/kver.sh")
base_config=${RDMA_KMOD_DEBUG_BASE_CONFIG:-/boot/config-$stock_kver}

cache_root() {
	if [ -n "${RDMA_KMOD_DEBUG_CACHE:-}" ]; then
		echo "$RDMA_KMOD_DEBUG_CACHE"
	elif mkdir -p /var/cache/rdma-kmod/debug-kernel 2>/dev/null &&
	     [ -w /var/cache/rdma-kmod/debug-kernel ]; then
		echo /var/cache/rdma-kmod/debug-kernel
	else
		echo "${XDG_CACHE_HOME:-$HOME/.cache}/rdma-kmod/debug-kernel"
	fi
}

# Comments and blank lines do not change the kernel ("# CONFIG_X is not
# set" does).
meaningful() { sed -e '/^# CONFIG_/b' -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }

key() {
	{
		echo "recipe $RECIPE"
		dpkg-query -W -f='${Package} ${Version}\n' linux-source-6.1 2>/dev/null ||
			stat -c '%s %Y' "$tarball"
		sha256sum < "$base_config"
		meaningful "$here/debug.config"
		meaningful "$here/modules.txt"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-16
}

# The build's own needs, installed only when missing (not part of make
# check's setup: only this build needs them).
build_deps() {
	local p missing="" sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	for p in build-essential bison flex libelf-dev libssl-dev bc dwarves kmod \
		 cpio xz-utils perl python3 linux-source-6.1; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	log "installing$missing"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
		# shellcheck disable=SC2086
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $missing >/dev/null
}

# Debian's config keeps only the modules of modules.txt and what they need.
lsmod_list() {
	local m
	echo "Module Size Used"
	for m in $(sed 's/#.*//' "$here/modules.txt"); do
		echo "$m"
		modprobe -S "$stock_kver" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { n = split($2, p, "/"); print p[n] }' |
			sed 's/\.ko.*//'
	done | tr - _ | sort -u | sed 's/$/ 0 0/'
}

# The in-tree RDMA code stays out of the build, its options stay in the
# config: obj-$(CONFIG_X) of each becomes an option nobody sets.
leave_out_rdma() {
	local src=$1 f sym n
	while read -r f sym; do
		n=$(grep -c "obj-\$($sym)" "$src/$f")
		[ "$n" -ge 1 ] || die "no obj-\$($sym) in $f (source changed?)"
		sed -i "s/obj-\$($sym)/obj-\$(CONFIG_RDMA_KMOD_LEFT_OUT)/" "$src/$f"
	done <<-LIST
	drivers/Makefile CONFIG_INFINIBAND
	net/sunrpc/Makefile CONFIG_SUNRPC_XPRT_RDMA
	drivers/nvme/host/Makefile CONFIG_NVME_RDMA
	drivers/nvme/target/Makefile CONFIG_NVME_TARGET_RDMA
	net/rds/Makefile CONFIG_RDS_RDMA
	net/Makefile CONFIG_SMC
	net/9p/Makefile CONFIG_NET_9P_RDMA
	LIST
}

configure() {
	local src=$1 line sym bad=""
	cp "$base_config" "$src/.config"
	lsmod_list > "$src/rdma-kmod.lsmod"
	make -C "$src" LSMOD="$src/rdma-kmod.lsmod" localmodconfig </dev/null \
		> "$src/rdma-kmod.localmodconfig.log" 2>&1 ||
		die "make localmodconfig failed (log $src/rdma-kmod.localmodconfig.log)"
	meaningful "$here/debug.config" >> "$src/.config"
	make -C "$src" olddefconfig > /dev/null 2>&1 || die "make olddefconfig failed"
	# Every line of debug.config must have survived the dependencies.
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *} ;;
		*) continue ;;
		esac
		if [ "${line#\# }" != "$line" ]; then
			grep -q "^$sym=" "$src/.config" && bad="$bad $sym"
		else
			grep -qxF "$line" "$src/.config" || bad="$bad $sym"
		fi
	done < "$here/debug.config"
	[ -z "$bad" ] || die "debug.config does not hold for:$bad"
}

if [ $print_key = 1 ]; then
	key
	exit 0
fi
root=$(cache_root)
if [ $print_dir = 1 ]; then
	dir=$root/$(key)
	[ -f "$dir/ok" ] || { log "not built yet: $dir (scripts/debug-kernel/build.sh)"; exit 1; }
	echo "$dir"
	exit 0
fi
[ -r "$base_config" ] || die "no $base_config (Debian's config for $stock_kver)"
build_deps || die "cannot install the build dependencies"
[ -r "$tarball" ] || die "no $tarball (apt-get install linux-source-6.1)"
dir=$root/$(key)
mkdir -p "$root" || die "cannot create $root"
exec 9> "$root/.lock"
flock -n 9 || { log "another build holds $root/.lock; waiting"; flock 9; }
if [ -f "$dir/ok" ]; then
	echo "$dir"
	exit 0
fi

src=$dir/build
mkdir -p "$dir"
if [ ! -f "$dir/extracted" ]; then
	log "extracting $tarball into $src"
	rm -rf "$src"
	mkdir -p "$src"
	nice -n 19 tar -xJf "$tarball" -C "$src" --strip-components=1 || die "cannot extract $tarball"
	leave_out_rdma "$src"
	touch "$dir/extracted"
fi
if [ ! -f "$dir/configured" ]; then
	log "configuring (Debian's $base_config, trimmed, plus debug.config)"
	configure "$src"
	touch "$dir/configured"
fi

log "building in $src with -j$jobs at nice 19 (an hour or more on 2 cores; log $dir/build.log)"
start=$(date +%s)
nice -n 19 ionice -c3 make -C "$src" -j"$jobs" bzImage modules >> "$dir/build.log" 2>&1 ||
	die "build failed: tail $dir/build.log"
kver=$(cat "$src/include/config/kernel.release")
rm -rf "$dir/modroot"
nice -n 19 make -C "$src" INSTALL_MOD_PATH="$dir/modroot" modules_install \
	>> "$dir/build.log" 2>&1 || die "modules_install failed: tail $dir/build.log"
# The tree is KDIR for our modules: the links modules_install made would
# point into it anyway.
rm -f "$dir/modroot/lib/modules/$kver/build" "$dir/modroot/lib/modules/$kver/source"
# Nothing of the stock RDMA core may have slipped in.
rdma=$(find "$dir/modroot" -path '*/infiniband/*' -name '*.ko' | head -n 3)
[ -z "$rdma" ] || die "in-tree RDMA modules were built: $rdma"
cp "$src/arch/x86/boot/bzImage" "$dir/bzImage"
cp "$src/.config" "$dir/config"
echo "$kver" > "$dir/kver"
# The objects are not needed to build external modules; vmlinux (for
# decoding reports) and the tools stay.
find "$src" \( -name '*.o' -o -name '*.ko' \) ! -path "$src/scripts/*" ! -path "$src/tools/*" -delete
echo "$(( $(date +%s) - start ))" > "$dir/build-seconds"
touch "$dir/ok"
log "built $kver in $(( ($(date +%s) - start) / 60 )) min: $dir"
echo "$dir"
