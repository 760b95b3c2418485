#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check-debug's records (scripts/debug-kernel/records.sh): which results
# of a run cut short or finished count, for which suite, and that a change to
# the tree makes a new key. On a scratch git tree; no VM.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() { # WHAT WANT GOT
	if [ "$2" = "$3" ]; then echo "ok:   $1"; else
		echo "FAIL: $1: want '$2', got '$3'"; fails=$((fails + 1))
	fi
}

cd "$tmp"
git init -q .
mkdir -p selftests/vm scripts/debug-kernel Documentation
for t in alpha beta gamma; do echo true > selftests/vm/$t.sh; done
echo 'exec sh selftests/vm/gamma.sh' > selftests/vm/delta.sh
printf '# peer-stacks: stock ours\ntrue\n' > selftests/vm/twovm-both.sh
printf 'true\n' > selftests/vm/twovm-plain.sh
printf '# peer-stacks: ours\ntrue\n' > selftests/vm/twovm-mine.sh
printf '#!/bin/sh\nexit 1\n' > scripts/debug-kernel/build.sh
chmod +x scripts/debug-kernel/build.sh
echo doc > Documentation/a.md
echo /build/ > .gitignore
git add -A
git -c user.name=t -c user.email=t@t commit -q -m init
. "$top/scripts/debug-kernel/records.sh"

expect "suite one" "alpha beta delta gamma" "$(records_tests one | xargs)"
expect "suite stock" "twovm-both twovm-plain" "$(records_tests stock | xargs)"
expect "suite ours" "twovm-both twovm-mine" "$(records_tests ours | xargs)"

key=$(records_key)
expect "a key" 16 "${#key}"

# A run killed during its fifth test: twovm-both, run on its own (--test),
# is no test of suite one; alpha counts (a pass followed), beta does not
# (the failure after it may be its leak), gamma does not either (the last
# result: no second scan over its objects).
j=$(records_journal "$key" one)
printf 'PASS: twovm-both\nPASS: alpha\nPASS: beta\nFAIL: delta\n    why\nXFAIL: gamma\n' > "$j/vm1.results"
records_harvest "$key" one "$j"
expect "journal removed" "" "$(ls build/debug/journals)"
expect "cut short: recorded" "alpha" "$(ls "$rec_root/$key/one" | xargs)"
expect "records keep the key" "$key" "$(records_key)"
expect "still to run" "beta delta gamma" "$(records_missing "$key" one | xargs)"
expect "shown" "PASS: alpha" "$(records_show "$key" one alpha beta | cut -d' ' -f1-2)"

# A run that ended with status 0: its last test counts too.
j=$(records_journal "$key" one)
printf 'PASS: beta\nPASS: delta\nXFAIL: gamma\n' > "$j/vm1.results"
echo 0 > "$j/status"
records_harvest "$key" one "$j"
expect "finished: all recorded" "" "$(records_missing "$key" one | xargs)"
expect "xfail kept" "XFAIL: gamma" "$(records_show "$key" one gamma | cut -d' ' -f1-2)"

# Failed unload after the last test: that test does not count.
j=$(records_journal "$key" stock)
printf 'PASS: twovm-both\nPASS: twovm-plain\nFAIL: kmemleak after unload\n' > "$j/vm1.results"
printf 'PASS: twovm-both\nPASS: twovm-plain\n' > "$j/vm2.results"
echo 1 > "$j/status"
records_harvest "$key" stock "$j"
expect "unload failed" "twovm-plain" "$(records_missing "$key" stock | xargs)"

# Two VMs: a test the peer failed does not count.
j=$(records_journal "$key" ours)
printf 'PASS: twovm-both\nPASS: twovm-mine\n' > "$j/vm1.results"
printf 'FAIL: twovm-both\nPASS: twovm-mine\n' > "$j/vm2.results"
echo 1 > "$j/status"
records_harvest "$key" ours "$j"
expect "peer failed" "twovm-both twovm-mine" "$(records_missing "$key" ours | xargs)"

# A journal of another tree is dropped; one left by a killed caller is
# harvested at the next start.
j=$(records_journal 0123456789abcdef one)
printf 'PASS: alpha\nPASS: beta\n' > "$j/vm1.results"
j=$(records_journal "$key" ours)
printf 'PASS: twovm-mine\nPASS: twovm-both\n' > "$j/vm1.results"
printf 'PASS: twovm-mine\nPASS: twovm-both\n' > "$j/vm2.results"
records_harvest_left "$key"
expect "left journals harvested" "twovm-both" "$(records_missing "$key" ours | xargs)"
expect "other tree's not" "" "$(ls "$rec_root" | grep -v "^$key\$" || true)"
expect "journals gone" "" "$(ls build/debug/journals)"

# Documentation does not change the key; an uncommitted change or a new
# file does. A test's script is outside the key: a change to it (or to a
# script it runs) undoes that test's record only.
echo more >> Documentation/a.md
expect "key: docs" "$key" "$(records_key)"
mkdir -p selftests/host && echo true > selftests/host/h.sh
expect "key: a host test" "$key" "$(records_key)"
expect "one: all recorded" "" "$(records_missing "$key" one | xargs)"
echo 'echo x' >> selftests/vm/alpha.sh
expect "key: a test's script" "$key" "$(records_key)"
expect "test changed: its record undone" "alpha" "$(records_missing "$key" one | xargs)"
git checkout -q selftests/vm/alpha.sh
expect "test change undone: recorded again" "" "$(records_missing "$key" one | xargs)"
echo 'echo y' >> selftests/vm/gamma.sh
expect "a script a test runs changed" "delta gamma" "$(records_missing "$key" one | xargs)"
git checkout -q selftests/vm/gamma.sh
echo 'x=1' > scripts/helper.sh
[ "$(records_key)" != "$key" ] && expect "key: new file" new new || expect "key: new file" new same
git add scripts/helper.sh
git -c user.name=t -c user.email=t@t commit -q -m helper
k2=$(records_key)
echo 'x=2' > scripts/helper.sh
[ "$(records_key)" != "$k2" ] && expect "key: uncommitted change" new new || expect "key: uncommitted change" new same
git checkout -q scripts/helper.sh
expect "key: change undone" "$k2" "$(records_key)"

[ $fails = 0 ] && echo "debug records: all checks passed"
exit $fails
