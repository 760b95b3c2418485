# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Result lines of the Python helpers of the VM selftests, as selftests/lib.sh
# prints them: "ok:   ..." and "FAIL: ...", failures counted in vmcheck.fails.
fails = 0


def ok(msg):
    print("ok:   " + msg)


def bad(msg):
    global fails
    fails += 1
    print("FAIL: " + msg)


def expect(msg, got, want):
    if got == want:
        ok(msg)
    else:
        bad("%s: got %r, want %r" % (msg, got, want))
