#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The table of Documentation/consumers.md and the summary line of the
# README's status, made from what decides them: the in-tree modules of KVER
# that use the RDMA core (modules.dep), ours (obj-m of our Kbuild files),
# scripts/compat/consumers.txt, the rebuild's status.txt, and the VM tests
# that run a rebuilt consumer (those calling lib.sh's need_module NAME..., or a
# helper of selftests/*.sh that calls it;
# selftests/vm/PENDING marks the ones not passing yet).
#   table.sh [--kver KVER] [--status FILE]           print both
#   table.sh [--kver KVER] [--status FILE] --write   put them in the files
#   table.sh [--kver KVER] [--status FILE] --check   exit 1 if the files differ
# Without --status, build/compat/KVER/status.txt (make compat makes it).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
KVER="" status="" mode=print
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) KVER=$2; shift ;;
	--status) status=$2; shift ;;
	--write) mode=write ;;
	--check) mode=check ;;
	*) echo "usage: $0 [--kver KVER] [--status FILE] [--write|--check]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$KVER" ] || KVER=$("$top/scripts/kver.sh")
[ -n "$status" ] || status=$top/build/compat/$KVER/status.txt
dep=/lib/modules/$KVER/modules.dep
doc=$top/Documentation/consumers.md
readme=$top/README.md
[ -r "$dep" ] || { echo "table: no $dep" >&2; exit 1; }
[ -r "$status" ] || { echo "table: no $status (run make compat)" >&2; exit 1; }

norm() { tr - _; }
# The stock modules, "name path" sorted by name.
stock=$(grep -E '(ib_core|rdma_cm|ib_uverbs)\.ko' "$dep" | cut -d: -f1 |
	awk -F/ '{ n = $NF; sub(/\.ko.*/, "", n); gsub("-", "_", n); print n, $0 }' | sort)
# Our ULPs count once the top Kbuild builds them unconditionally (outside any
# ifeq switch); until then the rebuilt in-tree module of the name is installed.
ulps=$(awk '/^if/ { d++ } /^endif/ { d-- } d == 0 && /^obj-m.*ulp\// { print $NF }' "$top/Kbuild")
ours=" $(cd "$top" && find drivers $ulps -name Kbuild 2>/dev/null | xargs grep -h '^obj-m' |
	sed 's/^[^=]*=//' | tr ' \t' '\n\n' | sed -n 's/\.o$//p' | norm | sort -u | tr '\n' ' ')"
listed=" $(sed -e 's/#.*//' "$top/scripts/compat/consumers.txt" | awk 'NF { print $1 }' | norm | tr '\n' ' ')"
# "FUNCTION NAME..." per helper of selftests/*.sh that calls need_module (a
# test calling the helper needs those modules too).
helpers=$(awk '/^[a-z_0-9]+\(\) *\{/ { f = $1; sub(/\(.*/, "", f) } /^}/ { f = "" }
	f != "" && /need_module / { l = $0; sub(/.*need_module /, "", l)
		sub(/[)|;&].*/, "", l); print f, l }' "$top"/selftests/*.sh)
# "test NAME..." per test calling need_module or such a helper.
needs() {
	local t f m
	for t in ./*.sh; do
		t=${t#./}; t=${t%.sh}
		sed -n 's/.*need_module \([^)|;&]*\).*/\1/p' "$t.sh" | sed "s/^/$t /"
		echo "$helpers" | while read -r f m; do
			[ -n "$f" ] && grep -qE "(^|[^a-z_0-9])$f([^a-z_0-9]|$)" "$t.sh" && echo "$t $m"
		done
	done
}
# "name test" per module a test needs; "test (pending)" when PENDING lists it.
tested=$(cd "$top/selftests/vm" && needs |
	awk -v pending="$(sed -e 's/#.*//' PENDING 2>/dev/null | awk 'NF { print $1 }')" '
		BEGIN { split(pending, p, "\n"); for (i in p) pend[p[i]] = 1 }
		{ t = $1 (($1 in pend) ? " (pending)" : "")
		  for (i = 2; i <= NF; i++) { n = $i; gsub("-", "_", n); print n, t } }' | sort -u)

# state NAME PATH: "STATE|DETAIL"
state() {
	local n=$1 s r t load=compat_load
	case "$ours" in *" $n "*) echo "ours|built by our Kbuild"; return ;; esac
	case "$listed" in *" $n "*) ;; *) echo "blocked|not in scripts/compat/consumers.txt"; return ;; esac
	s=$(awk -F'\t' -v m="$n" '{ x = $1; gsub("-", "_", x) } x == m { print $2 "|" $3; exit }' "$status")
	case "$s" in
	built\|*)
		t=$(echo "$tested" | awk -v m="$n" '$1 == m { $1 = ""; sub(/^ /, ""); print }' |
			paste -sd, - | sed 's/,/, /g')
		case "$2" in */infiniband/hw/*|*/infiniband/sw/rdmavt/*) load=compat_hw_load ;; esac
		if [ -n "$t" ]; then echo "rebuilt, tested|VM tests: $t"
		else echo "rebuilt, load-only|loaded and unloaded on our core: $load, host/deb.sh"; fi ;;
	blocked\|*)
		# "does not build ... (N errors; first: FILE:L:C: error: MSG)": MSG
		# is enough here. Which error comes first varies with the order
		# of a parallel build: --check ignores it (stable()).
		r=$(echo "${s#blocked|}" | sed -E 's/^does not build against rdma-kmod \([0-9]+ errors; first: .*error: (.*)\)$/does not build yet; first error seen: \1/;
			s/ \[-Werror=[a-z-]*\]//; s/\|/\\|/g')
		echo "blocked|$r" ;;
	*) echo "blocked|not in $status (run make compat)" ;;
	esac
}

table() {
	echo "| module | in-tree file | state | detail |"
	echo "|---|---|---|---|"
	echo "$stock" | while read -r n path; do
		s=$(state "$n" "$path")
		echo "| \`$n\` | \`${path#kernel/}\` | ${s%%|*} | ${s#*|} |"
	done
}

summary() {
	local t total n_ours n_rb n_bl rb
	t=$(table | tail -n +3)
	total=$(echo "$t" | wc -l)
	n_ours=$(echo "$t" | grep -c '| ours |' || true)
	rb=$(echo "$t" | grep '| rebuilt' | cut -d'`' -f2 | tr '\n' ' ' | sed 's/ $//; s/ /, /g')
	n_rb=$(echo "$t" | grep -c '| rebuilt' || true)
	n_bl=$(echo "$t" | grep -c '| blocked |' || true)
	echo "Of the $total in-tree RDMA modules of Debian's $KVER, $n_ours are ours, $n_rb are rebuilt on our core from linux-source-6.1${rb:+ ($rb)} and $n_bl stay blocked: [Documentation/consumers.md](Documentation/consumers.md)."
}

# The generated text sits between "<!-- generated: scripts/compat/table.sh -->"
# and "<!-- end generated -->" in each file.
splice() { # FILE TEXT
	TEXT=$2 awk '
		/^<!-- generated: scripts\/compat\/table.sh -->$/ { print; print ENVIRON["TEXT"]; skip = 1; next }
		/^<!-- end generated -->$/ { skip = 0 }
		!skip { print }' "$1"
}

case $mode in
print) table; echo; summary ;;
write)
	for f in "$doc" "$readme"; do
		grep -q '^<!-- generated: scripts/compat/table.sh -->$' "$f" ||
			{ echo "table: no generated-text marker in $f" >&2; exit 1; }
	done
	splice "$doc" "$(table)" > "$doc.new" && mv "$doc.new" "$doc"
	splice "$readme" "$(summary)" > "$readme.new" && mv "$readme.new" "$readme"
	echo "table: $doc and $readme updated" ;;
check)
	rc=0
	stable() { sed 's/; first error seen: .* |$/ |/' "$@"; }
	diff -u <(stable "$doc") <(splice "$doc" "$(table)" | stable) || rc=1
	# Debian bumps its kernel's ABI number (6.1.0-56 -> 6.1.0-57) with
	# point releases and CI installs the current one: a README naming
	# another number is stale text, not a disagreement (a note, no failure).
	abi() { sed -E 's/6\.1\.0-[0-9]+-amd64/6.1.0-N-amd64/g' "$@"; }
	new=$(splice "$readme" "$(summary)")
	if ! diff -u <(abi "$readme") <(abi <<< "$new"); then
		rc=1
	elif ! diff -q "$readme" - <<< "$new" > /dev/null; then
		echo "table: the README names another Debian ABI number than $KVER (--write updates it)"
	fi
	[ $rc = 0 ] || echo "table: Documentation/consumers.md or README.md disagree with the build (scripts/compat/table.sh --write)"
	exit $rc ;;
esac
