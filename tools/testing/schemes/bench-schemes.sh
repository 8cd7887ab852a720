#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per insert, remove and one-tick advance of every scheme at
# n = 10, 1k, 100k and 1M callouts outstanding, counted by callgrind (stable
# on a noisy machine, unlike cycles). See tw_bench.c for the workload.
#
# Usage: bench-schemes.sh TW_BENCH RESULTS_DIR
#   BENCH_NS       the values of n (default "10 1000 100000 1000000")
#   BENCH_SCHEMES  the schemes (default: every one linked into TW_BENCH)
#
# Writes RESULTS_DIR/bench-schemes.csv, the same as Markdown tables in
# bench-schemes.md and as reStructuredText for Documentation/ in
# bench-schemes.rst, and ends
# with TAP lines checking the paper's shapes between n = 1k and n = 1M:
# ordered/bsd insert linear, tree insert logarithmic, hashed/hierarchical
# insert flat (within 2x), list tick linear.
set -euo pipefail

bench=$1
results=$2
ns=${BENCH_NS:-10 1000 100000 1000000}
read -r -a schemes <<<"${BENCH_SCHEMES:-$("$bench" -l | tr '\n' ' ')}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
csv=$results/bench-schemes.csv
md=$results/bench-schemes.md
rst=$results/bench-schemes.rst

# inclusive FILE FUNCTION: callgrind's inclusive Ir of FUNCTION in FILE.
inclusive() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" |
		awk -v fn=":$2 " 'index($0, fn) { gsub(",", "", $1); print $1; exit }'
}

# per TOTAL COUNT: TOTAL / COUNT with one decimal, 0 if TOTAL is empty.
per() {
	awk -v t="${1:-0}" -v c="$2" 'BEGIN { printf "%.1f", t / c }'
}

echo "scheme,n,insert_ir,remove_ir,tick_ir,examined_per_tick,expired_per_tick,k,t,seconds" >"$csv"
for s in "${schemes[@]}"; do
	for n in $ns; do
		t0=$(date +%s.%N)
		valgrind --tool=callgrind --instr-atstart=no \
			--callgrind-out-file="$tmp/cg.$s.$n" \
			"$bench" "$s" "$n" >"$tmp/out" 2>"$tmp/err" || {
			cat "$tmp/err" >&2
			echo "bench-schemes: $s at n=$n failed" >&2
			exit 1
		}
		t1=$(date +%s.%N)
		read -r k t examined expired <"$tmp/out"
		ins=$(per "$(inclusive "$tmp/cg.$s.$n.1" tw_insert)" "$k")
		rem=$(per "$(inclusive "$tmp/cg.$s.$n.1" tw_remove)" "$k")
		tick=$(per "$(inclusive "$tmp/cg.$s.$n.2" tw_advance)" "$t")
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
		echo "$s,$n,$ins,$rem,$tick,$examined,$expired,$k,$t,$secs" | tee -a "$csv"
	done
done

# table FORMAT FIELD: one operation's costs, a row per scheme, a column
# per n, as Markdown (md) or a reStructuredText simple table (rst).
table() {
	awk -F, -v fmt="$1" -v field="$2" -v ns="$ns" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	{
		if (!($1 in seen)) { seen[$1] = 1; order[++rows] = $1 }
		v[$1, $2] = $idx[field]
	}
	function label(n) {
		return n >= 1000000 ? n / 1000000 "M" : n >= 1000 ? n / 1000 "k" : n
	}
	END {
		cols = split(ns, nn, " ")
		if (fmt == "rst") {
			rule = sprintf("%-14s", "==============")
			for (c = 1; c <= cols; c++) rule = rule " ==========="
			print rule
			line = sprintf("%-14s", "scheme")
			for (c = 1; c <= cols; c++) line = line sprintf(" %11s", "n=" label(nn[c]))
			print line; print rule
			for (r = 1; r <= rows; r++) {
				line = sprintf("%-14s", order[r])
				for (c = 1; c <= cols; c++) line = line sprintf(" %11s", v[order[r], nn[c]])
				print line
			}
			print rule
			exit
		}
		line = "| scheme |"; sep = "|---|"
		for (c = 1; c <= cols; c++) { line = line " n=" label(nn[c]) " |"; sep = sep "---:|" }
		print line; print sep
		for (r = 1; r <= rows; r++) {
			line = "| " order[r] " |"
			for (c = 1; c <= cols; c++) line = line " " v[order[r], nn[c]] " |"
			print line
		}
	}' "$csv"
}

ops=("insert_ir:insert" "remove_ir:remove" "tick_ir:one-tick advance")
{
	echo "Instructions (callgrind Ir) per operation, n callouts outstanding."
	for col in "${ops[@]}"; do
		echo
		echo "**${col#*:}**"
		echo
		table md "${col%%:*}"
	done
} >"$md"
{
	for col in "${ops[@]}"; do
		echo "${col#*:}"
		echo "${col#*:}" | tr '[:print:]' '~'
		echo
		table rst "${col%%:*}"
		echo
	done
} >"$rst"
cat "$md"

# The shapes, as TAP: ratio of the cost at n=1M to the cost at n=1k.
ratio() {
	awk -F, -v s="$1" -v f="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
	$1 == s && $2 == 1000 { a = $idx[f] }
	$1 == s && $2 == 1000000 { b = $idx[f] }
	END { if (a > 0 && b != "") printf "%.2f", b / a }' "$csv"
}
n=0
failed=0
shape() {
	local s=$1 f=$2 lo=$3 hi=$4 what=$5 r
	r=$(ratio "$s" "$f")
	[ -n "$r" ] || return 0
	n=$((n + 1))
	if awk -v r="$r" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(r >= lo && r <= hi) }'; then
		echo "ok $n - $s ${f%_ir} 1M/1k = $r: $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - $s ${f%_ir} 1M/1k = $r: not $what [$lo, $hi]"
	fi
}
shape ordered insert_ir 100 100000 "linear"
shape bsd insert_ir 100 100000 "linear"
shape tree insert_ir 1.2 4 "logarithmic"
shape hashed insert_ir 0 2 "flat"
shape hierarchical insert_ir 0 2 "flat"
shape list tick_ir 100 100000 "linear"
echo "1..$n"
[ "$failed" = 0 ]
