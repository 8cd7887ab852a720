#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-native.sh - the scheme library in wall-clock time on this machine's
# own CPU (tw_native.c says what is timed and how): ns per remove+insert of
# a uniformly chosen resident entry, ns per tick with none due, and bytes
# per entry, for hashed, hierarchical, hashed_sorted, lawn and tree at
# n = 10^3 .. 10^7; the schemes run in turn at each n. Then, unless
# NATIVE_MODEL=0, the same loops once more under callgrind's cache
# simulator: D1 and LL misses per operation, a model (this machine's
# hardware counters are not available to perf here, see below).
#
# Usage: bench-native.sh TW_NATIVE OUT_DIR
#   NATIVE_NS       the values of n (default "1000 10000 100000 1000000 10000000")
#   NATIVE_SCHEMES  default "hashed hierarchical hashed_sorted lawn tree"
#   NATIVE_RUNS     runs per scheme and n (default 7): the median, min-max
#   NATIVE_MS       ms each run's batches of one loop aim at (default 40)
#   NATIVE_SCALED   1 (default): hashed once more with wheel_bits scaled
#                   to n, ceil(log2 n) within [12, 24] (hashed-scaled)
#   NATIVE_MODEL    1 (default): the callgrind miss model
#
# Geometry: every scheme in its default (tw_ops.geometry.def: hashed and
# hashed_sorted 4096 slots, hierarchical 6 x 2048, lawn 4096 TTLs) at
# every n, as callout.ko loads without parameters and as make bench runs;
# hashed-scaled is what a user who sets wheel_bits for n would run.
#
# Writes OUT_DIR/raw.csv (rep,series,n,metric,value) and summary.csv
# (series,n,metric,median,min,max,runs), the columns of make bench's
# (scripts/bench.sh), series native:SCHEME; results.md with the tables
# and the issue's targets, met or missed; pair.png and tick.png; and the
# program's own output in OUT_DIR/log/.
set -euo pipefail

native=$1
out=$2
ns=${NATIVE_NS:-1000 10000 100000 1000000 10000000}
read -r -a schemes <<<"${NATIVE_SCHEMES:-hashed hierarchical hashed_sorted lawn tree}"
runs=${NATIVE_RUNS:-7}
ms=${NATIVE_MS:-40}
scaled=${NATIVE_SCALED:-1}
model=${NATIVE_MODEL:-1}
mkdir -p "$out/log"
out=$(cd "$out" && pwd)
t_start=$(date +%s)

load() { cut -d' ' -f1-3 /proc/loadavg; }
cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)
cpu_fm=$(lscpu | awk -F: '/^CPU family/ { f = $2 } /^Model:/ { m = $2 } END { gsub(/ /, "", f); gsub(/ /, "", m); print "family " f " model " m }')
hyper=$(lscpu | sed -n 's/^Hypervisor vendor: *//p')
caches=$(lscpu | awk -F: '/^L[123][di]? cache/ { gsub(/^ +/, "", $2); printf "%s%s %s", sep, $1, $2; sep = ", " }')
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')
perf_hw='not checked (no perf)'
if command -v perf >/dev/null; then
	# Into a variable first: with pipefail, grep -q's early exit could
	# fail the pipeline (SIGPIPE to perf) and read as "supported".
	perf_out=$(perf stat -x, -e cache-misses,dTLB-load-misses true 2>&1 || true)
	if grep -q 'not supported' <<<"$perf_out"; then
		perf_hw='not supported here (perf stat -e cache-misses,dTLB-load-misses: <not supported>)'
	else
		perf_hw='supported (not used by this script)'
	fi
fi
load_before=$(load)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

# wheel_bits for hashed-scaled: ceil(log2 n), within the ring's [12, 24].
scaled_bits() {
	awk -v n="$1" 'BEGIN { b = 0; while (2 ^ b < n) b++; print (b < 12 ? 12 : (b > 24 ? 24 : b)) }'
}

# kv LINE KEY: the value of KEY=... in LINE.
kv() { echo " $1 " | sed -n "s/.* $2=\([^ ]*\) .*/\1/p"; }

# measure SERIES N ARGS...: one tw_native process; its lines into raw.csv.
measure() {
	local series=$1 n=$2 log setup
	shift 2
	log=$out/log/${series#native:}.$n.txt
	if ! "$native" -r "$runs" -t "$ms" "$@" "$n" >"$log" 2>&1; then
		cat "$log" >&2
		echo "bench-native: $series at n=$n failed" >&2
		exit 1
	fi
	setup=$(grep '^setup ' "$log")
	for m in bytes_per_entry entries_per_slot wheel_bits setup_s huge_kb entries_kb; do
		echo "1,$series,$n,$m,$(kv "$setup" "$m")"
	done >>"$out/raw.csv"
	awk -v s="$series" -v n="$n" '
	/^run=/ {
		for (i = 1; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
		for (k in kv)
			if (k != "run" && k != "pairs" && k != "ticks")
				printf "%s,%s,%s,%s,%s\n", kv["run"], s, n, k, kv[k]
	}' "$log" >>"$out/raw.csv"
	printf 'bench-native: %-24s n=%-9s pair %s ns, tick %s ns (fastest batch, run 1)\n' \
		"$series" "$n" "$(kv "$(grep -m 1 '^run=' "$log")" pair_ns)" \
		"$(kv "$(grep -m 1 '^run=' "$log")" tick_ns)"
}

# A miss count of one callgrind dump: D1 or LL, reads plus writes.
misses() {
	awk -v which="$2" '
	/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
	/^totals:/ {
		r = (which == "D1") ? "D1mr" : "DLmr"
		w = (which == "D1") ? "D1mw" : "DLmw"
		print ($(col[r] + 1) + 0) + ($(col[w] + 1) + 0)
	}' "$1"
}

# model SERIES N PAIRS TICKS ARGS...: D1 and LL misses per pair (less the
# bare loop's) and per tick, simulated by callgrind: a 32 KiB 8-way D1 and
# a 32 MiB 16-way LL (this CPU's L1d and L3), 64-byte lines.
model() {
	local series=$1 n=$2 k=$3 t=$4 cg
	shift 4
	cg=$out/log/cg.${series#native:}.$n
	rm -f "$cg".*
	if ! valgrind -q --tool=callgrind --cache-sim=yes --instr-atstart=no \
		--D1=32768,8,64 --LL=33554432,16,64 --callgrind-out-file="$cg" \
		"$native" -r 1 -b 1 -k "$k" -T "$t" "$@" "$n" >"$cg.txt" 2>&1; then
		cat "$cg.txt" >&2
		echo "bench-native: the model of $series at n=$n failed" >&2
		exit 1
	fi
	for c in D1 LL; do
		awk -v s="$series" -v n="$n" -v c="$c" -v k="$k" -v t="$t" \
			-v p="$(misses "$cg.1" "$c")" -v l="$(misses "$cg.2" "$c")" \
			-v q="$(misses "$cg.3" "$c")" 'BEGIN {
			printf "1,%s,%s,model_%s_per_pair,%.2f\n", s, n, tolower(c), (p - l) / k
			printf "1,%s,%s,model_%s_per_tick,%.2f\n", s, n, tolower(c), q / t
		}'
	done >>"$out/raw.csv"
}

echo "rep,series,n,metric,value" >"$out/raw.csv"
echo "bench-native: $cpu_model ($cpu_fm), load $load_before, $runs runs, pinned to one CPU"
for n in $ns; do
	for s in "${schemes[@]}"; do
		measure "native:$s" "$n" "$s"
	done
	if [ "$scaled" = 1 ]; then
		measure native:hashed-scaled "$n" -w "$(scaled_bits "$n")" hashed
	fi
done
t_wall=$(date +%s)
if [ "$model" = 1 ] && command -v valgrind >/dev/null; then
	echo "bench-native: the miss model (callgrind --cache-sim=yes)"
	for n in $ns; do
		for s in "${schemes[@]}"; do
			k=20000
			# hashed_sorted walks n / 2M entries an insert: fewer.
			[ "$s" = hashed_sorted ] && [ "$n" -ge 1000000 ] && k=500
			model "native:$s" "$n" "$k" 16 "$s"
		done
		if [ "$scaled" = 1 ]; then
			model native:hashed-scaled "$n" 20000 16 -w "$(scaled_bits "$n")" hashed
		fi
	done
fi
load_after=$(load)
t_end=$(date +%s)

# summary.csv: series,n,metric,median,min,max,runs (as scripts/bench.sh).
{
	echo "series,n,metric,median,min,max,runs"
	tail -n +2 "$out/raw.csv" | sort -t, -k2,2 -k3,3n -k4,4 -k5,5g | awk -F, '
	function flush() {
		if (cnt) printf "%s,%s,%s,%s,%s,%s,%d\n", ks, kn, km, \
			(cnt % 2 ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2), \
			v[1], v[cnt], cnt
		cnt = 0
	}
	{ key = $2 "," $3 "," $4; if (key != last) { flush(); last = key; ks = $2; kn = $3; km = $4 } v[++cnt] = $5 }
	END { flush() }'
} >"$out/summary.csv"

# med SERIES N METRIC: the median, or "-".
med() {
	awk -F, -v s="$1" -v n="$2" -v m="$3" '
		$1 == s && $2 == n && $3 == m { print $4; f = 1 } END { if (!f) print "-" }' \
		"$out/summary.csv"
}
# cell SERIES N METRIC: "median (min-max)", or the value of a single run.
cell() {
	awk -F, -v s="$1" -v n="$2" -v m="$3" '
		$1 == s && $2 == n && $3 == m {
			if ($7 > 1) printf "%.4g (%.4g-%.4g)", $4, $5, $6; else printf "%.4g", $4; f = 1 }
		END { if (!f) printf "-" }' "$out/summary.csv"
}
# ratio A B: A / B to two decimals, or "-".
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'
}
# table TITLE METRIC SERIES...: a Markdown table, a row per n.
table() {
	local title=$1 metric=$2 s n row
	shift 2
	printf '\n### %s\n\n| n |' "$title"
	for s in "$@"; do printf ' %s |' "${s#native:}"; done
	printf '\n|---:|'
	for s in "$@"; do printf -- '---:|'; done
	printf '\n'
	for n in $ns; do
		row="| $n |"
		for s in "$@"; do row+=" $(cell "$s" "$n" "$metric") |"; done
		echo "$row"
	done
}
# target TEXT MET REASON: one line, met or missed (with why).
target() {
	if [ "$2" = 1 ]; then
		echo "- met: $1"
	else
		echo "- MISSED: $1${3:+ ($3)}"
	fi
}

series=()
for s in "${schemes[@]}"; do series+=("native:$s"); done
[ "$scaled" = 1 ] && series+=(native:hashed-scaled)
top_n=${ns##* }
first_n=${ns%% *}
{
	echo "# bench-native: the scheme library on this machine's CPU"
	echo
	echo "$cpu_model ($cpu_fm; $caches; hypervisor: ${hyper:-none}), $(uname -r)."
	echo "Started $started; load average $load_before before, $load_after after;"
	echo "$((t_wall - t_start)) s of wall-clock runs, $((t_end - t_wall)) s of the miss model."
	echo "Pinned to one CPU; entries on 2 MiB pages (THP: $thp); $runs runs of $ms ms per loop,"
	echo "each in 16 batches: a run's figure is its fastest batch, a cell the median of the"
	echo "runs with (min-max). Hardware counters: $perf_hw;"
	echo "the miss counts below are callgrind's cache simulation (32 KiB D1, 32 MiB LL), a model."
	echo
	echo "Geometry: each scheme's default at every n (hashed and hashed_sorted M = 4096 slots,"
	echo "hierarchical 6 levels x 2048, lawn 4096 queues: its intervals are 4096 distinct TTLs);"
	echo "hashed-scaled is hashed with wheel_bits = ceil(log2 n) within [12, 24]."
	echo "Expiries uniform in [t0 + 2^19, t0 + 2^20) ticks, t0 the time at set-up, for every insert"
	echo "(lawn: now + one of its 4096 TTLs); the tree set up in random order, hashed_sorted in"
	echo "order of expiry (the same sorted slots); ticks with none due (tw_native.c)."
	table "ns per remove+insert of a uniformly chosen resident entry" pair_ns "${series[@]}"
	printf '\n### Against tree, the same run: pair_ns / tree'"'"'s\n\n| n |'
	for s in "${series[@]}"; do [ "$s" = native:tree ] || printf ' %s |' "${s#native:}"; done
	printf '\n|---:|'
	for s in "${series[@]}"; do [ "$s" = native:tree ] || printf -- '---:|'; done
	printf '\n'
	for n in $ns; do
		row="| $n |"
		for s in "${series[@]}"; do
			[ "$s" = native:tree ] || row+=" $(ratio "$(med "$s" "$n" pair_ns)" "$(med native:tree "$n" pair_ns)") |"
		done
		echo "$row"
	done
	table "ns per tick with none due" tick_ns "${series[@]}"
	table "Entries examined per tick" examined_per_tick "${series[@]}"
	printf '\n### hashed: the tick against N/M\n\n| n | M | N/M | examined per tick | ns per tick | ns per entry examined |\n|---:|---:|---:|---:|---:|---:|\n'
	for s in native:hashed native:hashed-scaled; do
		for n in $ns; do
			b=$(med "$s" "$n" wheel_bits)
			[ "$b" != - ] || continue
			awk -v n="$n" -v b="$b" -v e="$(med "$s" "$n" examined_per_tick)" \
				-v t="$(med "$s" "$n" tick_ns)" -v s="${s#native:}" 'BEGIN {
				printf "| %s %s | %d | %.3g | %.4g | %.4g | %s |\n", s, n, 2 ^ b, n / 2 ^ b, e, t,
					(e >= 1 ? sprintf("%.3g", t / e) : "-") }'
		done
	done
	table "Bytes per entry: struct tw_entry + the scheme's allocations / n" bytes_per_entry "${series[@]}"
	if grep -q ',model_' "$out/summary.csv"; then
		table "Model: D1 misses per remove+insert (callgrind, less the bare loop's)" model_d1_per_pair "${series[@]}"
		table "Model: LL misses per remove+insert" model_ll_per_pair "${series[@]}"
		table "Model: LL misses per tick with none due" model_ll_per_tick "${series[@]}"
	fi

	echo
	echo "### The issue's targets"
	echo
	tr=$(med native:tree "$top_n" pair_ns)
	for s in hashed hierarchical; do
		p=$(med "native:$s" "$top_n" pair_ns)
		r=$(ratio "$p" "$tr")
		why="LL misses per pair, model: $s $(med "native:$s" "$top_n" model_ll_per_pair), tree $(med native:tree "$top_n" model_ll_per_pair)"
		target "$s remove+insert at n=$top_n <= 0.3x tree's: $p vs $tr ns, ${r}x" \
			"$(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 0.3) }')" "$why"
	done
	lo=- hi=- lo_n='' hi_n=''
	for n in $ns; do
		v=$(med native:hierarchical "$n" tick_ns)
		[ "$v" != - ] || continue
		if [ "$lo" = - ] || awk -v a="$v" -v b="$lo" 'BEGIN { exit !(a < b) }'; then lo=$v lo_n=$n; fi
		if [ "$hi" = - ] || awk -v a="$v" -v b="$hi" 'BEGIN { exit !(a > b) }'; then hi=$v hi_n=$n; fi
	done
	r=$(ratio "$hi" "$lo")
	target "hierarchical tick with none due flat in n (most / least within 1.5x): $lo ns (n=$lo_n) .. $hi ns (n=$hi_n), ${r}x" \
		"$(awk -v r="$r" 'BEGIN { print (r != "-" && r <= 1.5) }')" \
		"LL misses per tick, model: $(med native:hierarchical "$lo_n" model_ll_per_tick) at n=$lo_n, $(med native:hierarchical "$hi_n" model_ll_per_tick) at n=$hi_n"
	ok=1 worst=''
	for n in $ns; do
		b=$(med native:hashed "$n" wheel_bits)
		e=$(med native:hashed "$n" examined_per_tick)
		if [ "$b" = - ] || [ "$e" = - ]; then
			continue
		fi
		r=$(awk -v n="$n" -v b="$b" -v e="$e" 'BEGIN { printf "%.2f", e / (n / 2 ^ b) }')
		worst+=" n=$n: ${r}"
		awk -v n="$n" -v b="$b" -v r="$r" 'BEGIN { exit !(n / 2 ^ b < 1 || (r >= 0.8 && r <= 1.25)) }' || ok=0
	done
	target "hashed tick reported against N/M: entries examined per tick / (N/M) within [0.8, 1.25] where N/M >= 1 (${worst# }); ns per tick $(med native:hashed "$first_n" tick_ns) at n=$first_n, $(med native:hashed "$top_n" tick_ns) at n=$top_n, N/M = $(awk -v n="$top_n" 'BEGIN { printf "%.0f", n / 4096 }')" \
		"$ok" "a tick examines other than the entries of one slot"
} >"$out/results.md"

# pair.dat, tick.dat: n, then a column per series; "-" where not measured.
dat() {
	local file=$1 metric=$2 s n row
	shift 2
	{
		printf 'N'
		for s in "$@"; do printf ' %s' "${s#native:}"; done
		printf '\n'
		for n in $ns; do
			row=$n
			for s in "$@"; do row+=" $(med "$s" "$n" "$metric")"; done
			echo "$row"
		done
	} >"$file"
}
dat "$out/pair.dat" pair_ns "${series[@]}"
dat "$out/tick.dat" tick_ns "${series[@]}"
plot() {
	local dat=$1 png=$2 title=$3 ylabel=$4 cols
	cols=$(head -n 1 "$dat" | wc -w)
	gnuplot <<EOF
set terminal png size 1000,650
set output '$png'
set title '$title'
set logscale x 10
set logscale y 10
set xlabel 'entries resident (N)'
set ylabel '$ylabel'
set datafile missing '-'
set key outside right top noenhanced
set grid
plot for [c=2:$cols] '$dat' using 1:c with linespoints title columnheader(c)
EOF
}
if command -v gnuplot >/dev/null; then
	plot "$out/pair.dat" "$out/pair.png" \
		"Native ($cpu_model): remove+insert of a random resident entry" 'ns per pair'
	plot "$out/tick.dat" "$out/tick.png" \
		"Native ($cpu_model): one tick with none due, N resident" 'ns per tick'
else
	echo "bench-native: no gnuplot, no plots (scripts/deps.sh installs it)" >&2
fi
cat "$out/results.md"
echo
echo "bench-native: results in $out: raw.csv summary.csv results.md pair.png tick.png ($((t_end - t_start)) s)"
