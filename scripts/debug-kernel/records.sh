# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Records of the debug suite's results, for make check-debug (sourced by
# scripts/check.sh). Every VM selftest on the debug kernel takes longer
# under TCG than one working session lasts, so a run may stop half way: the
# tests it passed are recorded under a key of everything that decides their
# outcome (the tracked and untracked files outside Documentation/ and the
# host tests, benchmarks and packaging, the uncommitted changes, the debug
# kernel), and the next make check-debug at
# the same key runs only the others. Any change to the code, the harness or
# the scripts makes a new key: the suite starts over. The tests' own scripts
# (selftests/vm/*.sh) are outside the key: each record holds the sum of its
# test's script instead, so a fix to one test costs that test's run only.
#
# Records: Documentation/debug-records/KEY/SUITE/TEST, holding "PASS DATE
# SUM" or "XFAIL DATE SUM"; SUITE is one (one VM), stock (two VMs, the stock peer) or
# ours (two VMs, ours as the peer). They sit in the tree but outside the key,
# so that committing them keeps the key: a session on a fresh machine (which
# builds the same debug kernel again: same cache key) goes on from them.
# run.sh --journal DIR copies the VMs' results to DIR while they run;
# records_harvest reads such a directory.

rec_root=Documentation/debug-records

# Prints the key of the tree as it is (empty outside a git checkout: no
# records then).
records_key() {
	git rev-parse --git-dir > /dev/null 2>&1 || return 0
	# besides the tests' scripts, what no VM test runs: the host tests,
	# the benchmarks, the Debian packaging and make check's driver (which
	# tests run where, not what they run)
	local skip=(':!Documentation' ':!README.md' ':!MAINTAINERS' ':!.ci'
		':(exclude,glob)selftests/vm/*.sh' ':!selftests/host' ':!selftests/bench'
		':!scripts/bench' ':!scripts/deb' ':!scripts/check.sh')
	{
		git ls-files -s -- . "${skip[@]}"
		git diff HEAD -- . "${skip[@]}"
		git ls-files -o --exclude-standard -z -- . "${skip[@]}" |
			xargs -0 -r sha256sum
		scripts/debug-kernel/build.sh --print-key
	} | sha256sum | cut -c1-16
}

# records_test_sum TEST: the sum of what the test runs as it is now: its
# script and the selftests/vm scripts it names (core_multidevice runs
# core_tests); its other files (a .py beside it) are in the key.
records_test_sum() {
	local f=selftests/vm/$1.sh
	{
		cat "$f"
		grep -o 'selftests/vm/[A-Za-z0-9_.-]*\.sh' "$f" | sort -u |
			while read -r g; do [ ! -f "$g" ] || cat "$g"; done
	} 2>/dev/null | sha256sum | cut -c1-12
}

# records_has KEY SUITE TEST: TEST has a record at KEY for its script as
# it is now.
records_has() {
	local r d sum
	[ -n "$1" ] && [ -s "$rec_root/$1/$2/$3" ] || return 1
	read -r r d sum < "$rec_root/$1/$2/$3"
	[ "$sum" = "$(records_test_sum "$3")" ]
}

# records_tests SUITE: the suite's test names, in run.sh's order (a twovm
# test's "# peer-stacks:" line names the peer stacks it runs against).
records_tests() {
	local f n s
	for f in selftests/vm/*.sh; do
		n=$(basename "$f" .sh)
		case "$1:$n" in
		one:twovm-*|stock:[!t]*|ours:[!t]*) continue ;;
		one:*) echo "$n"; continue ;;
		esac
		case "$n" in twovm-*) ;; *) continue ;; esac
		s=$(sed -n 's/^# peer-stacks: *//p' "$f" | head -n 1)
		case " ${s:-stock} " in *" $1 "*) echo "$n" ;; esac
	done
}

# records_missing KEY SUITE: the suite's tests with no record at KEY.
records_missing() {
	local t
	for t in $(records_tests "$2"); do
		records_has "$1" "$2" "$t" || echo "$t"
	done
}

# records_show KEY SUITE TEST...: result lines, as run.sh prints them, for
# the recorded tests among TEST...
records_show() {
	local key=$1 suite=$2 t r d
	shift 2
	[ -n "$key" ] || return 0
	for t in "$@"; do
		records_has "$key" "$suite" "$t" || continue
		read -r r d _ < "$rec_root/$key/$suite/$t"
		echo "$r: $t (recorded $d at this tree, key $key)"
	done
}

# A test's result in a journal's results file counts if a test passed after
# it (its objects had their second kmemleak scan then, and a late report of
# its would have failed that test) or the run ended with status 0 (the last
# test's objects scanned after the unload). Prints "NAME RESULT" lines.
journal_results() { # FILE STATUS
	[ -s "$1" ] || return 0
	awk -v ok="$2" '
	# the lines guest.sh adds after the last test: "FAIL: unload", "FAIL: kmemleak
	# after unload", "FAIL: kernel report during unload"
	/^(PASS|XFAIL|FAIL): / && $2 !~ /^(unload|kmemleak|kernel)$/ {
		if (name != "" && $1 != "FAIL:") print name, res
		res = $1; sub(/:$/, "", res); name = $2
	}
	END { if (name != "" && ok == "0") print name, res }' "$1"
}

# records_harvest KEY SUITE JOURNAL: records what the journal's run passed
# (both VMs for a two-VM suite), then removes the journal.
records_harvest() {
	local key=$1 suite=$2 j=$3 st=1 n r pr sum
	[ -d "$j" ] || return 0
	[ -s "$j/status" ] && read -r st < "$j/status"
	if [ -n "$key" ] && [ "$(cat "$j/key" 2>/dev/null)" = "$key" ]; then
		mkdir -p "$rec_root/$key/$suite"
		journal_results "$j/vm2.results" "$st" > "$j/peer"
		journal_results "$j/vm1.results" "$st" | while read -r n r; do
			[ "$r" = FAIL ] && continue
			# a two-VM test run on its own (--test) has no suite here
			case "$suite:$n" in one:twovm-*) continue ;; esac
			if [ "$suite" != one ]; then
				pr=$(awk -v n="$n" '$1 == n { print $2 }' "$j/peer")
				# a peer that powers itself off on purpose (the suite's
				# last test) leaves no result, only its marker
				[ -z "$pr" ] && [ "$st" = 0 ] &&
					grep -q "^POWEROFF: $n (on purpose)" "$j/vm2.results" && pr=PASS
				case "$pr" in PASS|XFAIL) ;; *) continue ;; esac
				[ "$pr" = XFAIL ] && r=XFAIL
			fi
			# the test's script as the run started
			sum=$(awk -v n="$n" '$1 == n { print $2 }' "$j/sums")
			[ -n "$sum" ] || continue
			echo "$r $(date -u +%Y-%m-%dT%H:%MZ) $sum" > "$rec_root/$key/$suite/$n"
		done
	fi
	rm -rf "$j"
}

# records_journal KEY SUITE: a new journal directory for run.sh --journal.
records_journal() {
	local j t
	mkdir -p build/debug/journals
	j=$(mktemp -d "build/debug/journals/$2.XXXXXX")
	echo "$1" > "$j/key"
	for t in $(records_tests "$2"); do echo "$t $(records_test_sum "$t")"; done > "$j/sums"
	echo "$j"
}

# Journals a run killed with its caller left: harvested at the next start.
records_harvest_left() { # KEY
	local j
	for j in build/debug/journals/*.*; do
		[ -d "$j" ] || continue
		records_harvest "$1" "$(basename "${j%.*}")" "$j"
	done
}
