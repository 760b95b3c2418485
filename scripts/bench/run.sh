#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# `make bench`: the same perftest/qperf runs on the stock rxe and on ours, and
# perftest -R on upstream siw (stock kernel) and on ours with raw TCP (iperf3)
# for scale, fio over NFS/RDMA against NFS/TCP (perf-nfs.sh) and on iSER
# and SRP disks against iSCSI/TCP (perf-block.sh), in the same VM settings,
# then tables (build/bench/results.md) and a plot of the rxe numbers
# (build/bench/results.png) with their ratios. Not part of `make check`:
# numbers depend on the host's load.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench
mkdir -p "$out"
KVER=${KVER:-$("$top/scripts/kver.sh")}

# bench_run STACK SCRIPT TSV: the script's BENCH lines from a VM on STACK.
bench_run() {
	"$top/scripts/vm/run.sh" --kver "$KVER" --stack "$1" --timeout 1800 \
		--log "$out/$(basename "$3" .tsv).log" --cmd "sh selftests/bench/$2" |
		sed -n 's/^BENCH //p' | tr -d '\r' >"$3" || true
}

for stack in stock ours; do
	echo "bench: $stack stack (rxe)"
	bench_run $stack perf.sh "$out/$stack.tsv"
	# Soft-iWARP: the stock stack runs upstream siw (scripts/peer/upstream-siw.sh).
	echo "bench: $stack stack (siw)"
	bench_run $stack perf-siw.sh "$out/$stack-siw.tsv"
	# NFS over RDMA on rxe0 and, as the yardstick, over TCP (issue 14).
	echo "bench: $stack stack (NFS)"
	bench_run $stack perf-nfs.sh "$out/$stack-nfs.tsv"
	# Block storage: iSER and SRP on rxe0, iSCSI over TCP as the yardstick
	# (issue 15).
	echo "bench: $stack stack (block)"
	bench_run $stack perf-block.sh "$out/$stack-block.tsv"
done

# table STOCK.tsv OURS.tsv: markdown, stock against ours with ratios.
table() {
awk '
FNR == 1 { f++ }
f == 1 { k = $1 " " $2; order[++n] = k; sbw[k] = $3; slat[k] = $4 }
f == 2 { k = $1 " " $2; obw[k] = $3; olat[k] = $4; if (!(k in sbw)) { order[++n] = k; sbw[k] = "-"; slat[k] = "-" } }
function ratio(o, s) { return (o == "-" || s == "-" || o == "" || s == "" || s + 0 == 0) ? "-" : sprintf("%.2f", o / s) }
END {
	print "| test | bytes | stock MB/s | ours MB/s | ratio | stock usec | ours usec | ratio |"
	print "|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= n; i++) {
		k = order[i]; split(k, p, " ")
		ob = (k in obw) ? obw[k] : "-"; ol = (k in olat) ? olat[k] : "-"
		printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], p[2], sbw[k], ob, ratio(ob, sbw[k]), slat[k], ol, ratio(ol, slat[k])
	}
}' "$1" "$2"
}

{
	echo "## Soft-RoCE (rxe): stock rxe against ours"
	echo
	table "$out/stock.tsv" "$out/ours.tsv"
	echo
	echo "## Soft-iWARP (siw): upstream siw on the stock kernel against ours"
	echo
	echo "perftest over rdma_cm (-R) in loopback on siw0; iperf3_tcp is raw TCP"
	echo "on the same addresses in the same VM (the transport siw runs on)."
	echo
	table "$out/stock-siw.tsv" "$out/ours-siw.tsv"
	echo
	echo "## NFS over RDMA (rpcrdma on rxe0) and over TCP, stock stack against ours"
	echo
	echo "fio, direct I/O, NFSv4.2 in loopback on one VM (selftests/bench/perf-nfs.sh);"
	echo "usec is fio's mean completion latency; 4 KiB IOPS = MB/s * 10^6 / 4096."
	echo
	table "$out/stock-nfs.tsv" "$out/ours-nfs.tsv"
	echo
	echo "## Block storage: iSER and SRP on rxe0, iSCSI over TCP, stock stack against ours"
	echo
	echo "fio on the disk of a LIO target (128 MiB file on tmpfs) in loopback on one VM"
	echo "(selftests/bench/perf-block.sh): libaio, direct I/O, 1 MiB sequential at"
	echo "queue depth 8, 4 KiB random read at queue depth 32; usec is fio's mean"
	echo "completion latency; 4 KiB IOPS = MB/s * 10^6 / 4096. iscsi_tcp is the same"
	echo "target over TCP on the same address."
	echo
	table "$out/stock-block.tsv" "$out/ours-block.tsv"
} >"$out/results.md"
cat "$out/results.md"

# Plot: bandwidth and latency side by side, stock vs ours ("-" = NaN).
awk 'FNR == NR { b[$1] = $3; l[$1] = $4; next }
     { print $1, ($1 in b) ? b[$1] : "-", ($1 in l) ? l[$1] : "-", $3, $4 }' \
	"$out/stock.tsv" "$out/ours.tsv" | sed 's/ -/ NaN/g' >"$out/plot.dat"
gnuplot <<GP
set terminal pngcairo size 1200,500
set output "$out/results.png"
set multiplot layout 1,2
set style data histograms
set style fill solid 0.8
set xtics rotate by -30
set datafile missing "NaN"
set title "Bandwidth (MB/s, higher is better)"
plot "$out/plot.dat" using 2:xtic(1) title "stock", "" using 4 title "rdma-kmod"
set title "Latency (usec, lower is better)"
plot "$out/plot.dat" using 3:xtic(1) title "stock", "" using 5 title "rdma-kmod"
unset multiplot
GP
echo "bench: $out/results.md, $out/results.png"
