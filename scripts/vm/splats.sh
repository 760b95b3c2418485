# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sourced by run.sh (host) and guest.sh (VM): splats FILE prints the lines of
# a kernel log that fail a run: warnings, BUGs, oopses, lockdep, KASAN,
# UBSAN, list corruption, hung tasks, call traces.
splats() {
	# "traps: prog[pid] general protection fault" is a user process's
	# crash (its test reports it), not a kernel splat
	grep -E 'WARNING:|BUG:|Oops|general protection|refcount_t:|list_add corruption|list_del corruption|UBSAN:|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked|KASAN:|kernel BUG|Call Trace:' "$1" |
		grep -v ' traps: '
}

# splat_chain FILE LINE: the functions of the first call trace at or after
# line LINE of FILE, innermost first, on one line ("a < b < c"): a short
# excerpt of a failed run (CI's) then still says where it broke.
splat_chain() {
	tail -n +"$2" "$1" |
		sed -n '/Call Trace:/,/<\/TASK>\|^\[[ 0-9.]*\] *---\[/p' |
		sed -n 's/^\[[ 0-9.]*\] *\([A-Za-z0-9_.]*\)+0x.*/\1/p' |
		head -n 14 | paste -s -d '<' - | sed 's/</ < /g'
}
