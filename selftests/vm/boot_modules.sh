#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Seed 002 §4.3: rdma-core's rdma-load-modules@rdma.service runs
# systemd-modules-load on /etc/rdma/modules/rdma.conf at boot. On our stack
# the modules we provide load from updates/, the others are refused with
# rdma-kmod's message, and no in-tree RDMA module gets loaded; likewise
# with the block-storage ULPs enabled (ib_iser, ib_isert, ib_srp, ib_srpt).
set -u
[ "${RDMA_KMOD_STACK:-ours}" = ours ] || { echo "boot_modules: ours only, skipped"; exit 0; }
conf=/etc/rdma/modules/rdma.conf
[ -r $conf ] || { echo "FAIL: $conf missing (rdma-core not installed?)"; exit 1; }
fail=0
before=" $(cut -d' ' -f1 /proc/modules | tr '\n' ' ') "
ours=$(ls /lib/modules/$KVER/updates | sed 's/\.ko$//; s/-/_/g')

# load_list FILE: systemd-modules-load on FILE as at boot; every listed
# module that is ours loads from updates/, the others are refused clearly.
load_list() {
	out=$(/lib/systemd/systemd-modules-load "$1" 2>&1)
	echo "$out"
	# Listed modules (comments and blank lines aside).
	listed=$(sed -e 's/#.*//' "$1" | tr -s ' \t' '\n' | grep -v '^$')
	for m in $listed; do
		m=$(echo $m | tr - _)
		# An alias (xprtrdma, svcrdma) stands for the module it names
		# (rpcrdma, ours).
		real=$(modprobe -R $m 2>/dev/null | head -n 1)
		r=${real:-$m}
		case " $(echo $ours) " in
		*" $r "*)
			case "$(modinfo -n $r)" in
			*/updates/*) [ -d /sys/module/$r ] && echo "ok: $m ($r) loaded from updates/" ||
				{ echo "FAIL: $m ($r) not loaded"; fail=1; } ;;
			*) echo "FAIL: $m resolves to $(modinfo -n $r)"; fail=1 ;;
			esac ;;
		*)
			if [ -d /sys/module/$r ]; then
				echo "FAIL: in-tree $r was loaded"; fail=1
			elif [ -n "$real" ] &&
			     echo "$out" | grep -q "Failed to insert module '$real'" &&
			     echo "$out" | grep -q "rdma-kmod: .* is not provided"; then
				# Refused itself or through a dependency (e.g. ib_cm).
				echo "ok: $m ($real) refused with rdma-kmod's message"
			else
				echo "FAIL: no clear message for $m"; fail=1
			fi ;;
		esac
	done
}

echo "--- $conf as shipped"
load_list $conf
# The block-storage ULPs an administrator enables by uncommenting them
# (rdma.conf's ib_isert, infiniband.conf's ib_srpt) and ib_srp beside them.
all=/tmp/rdma-ulps.conf
{ echo ib_srp; sed -n 's/^# *\(ib_isert\|ib_srpt\|ib_iser\)$/\1/p' /etc/rdma/modules/*.conf; } > $all
for m in ib_iser ib_isert ib_srp ib_srpt; do
	grep -qx $m $all || echo $m >> $all
done
echo "--- the block-storage ULPs enabled: $(tr "\n" " " < $all)"
load_list $all
for m in $(sh $RDMA_KMOD_SRC/scripts/blocklist.sh --names $KVER); do
	[ -d /sys/module/$m ] || continue
	case "$(modinfo -n $m)" in
	*/updates/*) ;;
	*) echo "FAIL: in-tree RDMA module $m loaded"; fail=1 ;;
	esac
done
# What the boot list loaded goes away again: the tests after this one
# load what they need (and cm_configfs checks rdma_cm unloads).
# /proc/modules lists the newest first, users before what they use.
for pass in 1 2 3; do
	for m in $(cut -d' ' -f1 /proc/modules); do
		case "$before" in *" $m "*) ;; *) rmmod $m 2>/dev/null ;; esac
	done
done
left=""
for m in $(cut -d' ' -f1 /proc/modules); do
	case "$before" in *" $m "*) ;; *) left="$left $m" ;; esac
done
[ -z "$left" ] || { echo "FAIL: could not unload what the boot list loaded:$left"; fail=1; }
exit $fail
