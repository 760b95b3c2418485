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
