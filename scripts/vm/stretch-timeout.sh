#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `timeout` for tests on a slow kernel (the debug kernel runs 3-5x slower):
# guest.sh puts it first in the tests' PATH as "timeout" when
# RDMA_KMOD_TIME_FACTOR is above 1; it multiplies the duration by that factor
# and runs the real timeout, so a test's own limits stay meaningful.
factor=${RDMA_KMOD_TIME_FACTOR:-1}
opts=()
while [ $# -gt 0 ]; do
	case "$1" in
	-k|-s|--kill-after|--signal) opts+=("$1" "$2"); shift 2 ;;
	--) shift; break ;;
	-*) opts+=("$1"); shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || exec /usr/bin/timeout "${opts[@]}"
dur=$1
shift
unit=${dur##*[0-9.]}
num=${dur%"$unit"}
case "$num" in
''|*[!0-9.]*) exec /usr/bin/timeout "${opts[@]}" "$dur" "$@" ;;
esac
exec /usr/bin/timeout "${opts[@]}" "$(awk -v n="$num" -v f="$factor" 'BEGIN { printf "%g", n * f }')$unit" "$@"
