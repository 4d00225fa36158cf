#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/scaling-run.sh PACK OUTDIR: the many-core comparison of
# docs/results.md ("16 CPUs"), from a folder made by bench/scaling-pack.sh,
# on a host with no liburcu.  One dcsim-bench run: the workloads final,
# hot, walk, churn and mixed at 1, 2, 4, 8, 14 and 16 threads (those the
# host has), pinned, 5 reps, the strategies below with the four bounds in
# every block.  Writes OUTDIR/scaling.json (the full report), scaling.txt
# (the table) and host.txt (CPU, TSX, load).  Exit status: dcsim-bench's.
# The host needs no gnuplot: dcsim-bench --from scaling.json --plot out.png
# draws the figures from the JSON on any machine.
set -u
[ $# = 2 ] || { echo "usage: $0 PACK OUTDIR" >&2; exit 2; }
pack=$1 out=$2
mkdir -p "$out"
export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ncpu=$(nproc)
threads=""
for t in 1 2 4 8 14 16; do
	[ "$t" -le "$ncpu" ] && threads="$threads${threads:+,}$t"
done
{
	echo "date: $(date -u +%FT%TZ)"
	echo "cpus: $ncpu"
	grep -m1 'model name' /proc/cpuinfo
	grep -qw rtm /proc/cpuinfo && echo "rtm: listed" || echo "rtm: not listed"
	echo "loadavg: $(cat /proc/loadavg)"
} > "$out/host.txt"
strategies=${SCALING_STRATEGIES:-locked,lockref,fast,retain,fast-htm,k61,k612}
"$pack/dcsim-bench" -w final,hot,walk,churn,mixed -s "$strategies" \
	-t "$threads" -r "${SCALING_REPS:-5}" --pin --no-progress \
	-f table -o "$out/scaling.txt" --save "$out/scaling.json"
rc=$?
echo "loadavg after: $(cat /proc/loadavg)" >> "$out/host.txt"
exit $rc
