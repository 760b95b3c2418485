# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fio for the `make bench` guest scripts (sourced, not run): one fio job,
# its result as a BENCH line:
#   BENCH <test> <bytes> <MB/s> <mean completion latency, usec>
# "-" for both numbers when fio gave no result.

# Seconds of each time-based run; a smoke test passes fewer
# (scripts/vm/run.sh --env BENCH_SECONDS=3).
BENCH_SECONDS=${BENCH_SECONDS:-15}

# fio_bench NAME BYTES FIO-ARGS...: one direct-I/O job of BYTES blocks; the
# caller gives where (--directory/--filename, in that order: fio places a
# file as it parses its name), how (--ioengine, --iodepth) and what (--rw,
# --size, --runtime).
fio_bench() {
	fb_name=$1 fb_bs=$2
	shift 2
	# a failed run must not report the one before it
	rm -f /tmp/fio.json
	timeout 300 fio --name=bench --direct=1 --bs="$fb_bs" \
		--output-format=json --output=/tmp/fio.json "$@" > /dev/null 2>&1
	python3 - "$fb_name" "$fb_bs" <<'PY'
import json, sys
name, bs = sys.argv[1], sys.argv[2]
try:
    job = json.load(open("/tmp/fio.json"))["jobs"][0]
except (OSError, ValueError, KeyError, IndexError):
    print("BENCH %s %s - -" % (name, bs))
    sys.exit(0)
side = job["write"] if job["write"]["io_bytes"] else job["read"]
if not side["io_bytes"] or job.get("error"):
    print("BENCH %s %s - -" % (name, bs))
    sys.exit(0)
mbs = side["bw_bytes"] / 1e6
lat = side["clat_ns"]["mean"] / 1000.0
print("BENCH %s %s %.1f %.1f" % (name, bs, mbs, lat))
PY
}
