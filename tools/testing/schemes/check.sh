#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the scheme tests twice - the ASan/UBSan build, then the plain build
# under valgrind - and print one TAP stream: the two runs' test points
# renumbered into one sequence, their diagnostics kept, and one more point
# per run for its exit status: 0, or 1 after failed test points (already
# counted), passes; anything else - a sanitizer report (98), a valgrind
# error (99), a crash, 1 without a failed point - fails, even when every
# test point passed.
#
# Usage: check.sh ASAN_COMMAND VALGRIND_COMMAND
set -u

n=0
failed=0

# run LABEL COMMAND: stream COMMAND's TAP, renumbered, prefixed by LABEL.
run() {
	local label=$1 cmd=$2 line status rest rc=lost t0 t1 bad=0
	t0=$(date +%s)
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			n=$((n + 1))
			status=${line%% [0-9]*}
			rest=${line#* [0-9]* - }
			if [ "$status" != "ok" ]; then
				failed=$((failed + 1))
				bad=$((bad + 1))
			fi
			echo "$status $n - $label: $rest"
			;;
		"TAP version"*|1..*)
			;;
		__rc=*)
			rc=${line#__rc=}
			;;
		*)
			echo "# $label: ${line#\# }"
			;;
		esac
	done < <(bash -c "$cmd" 2>&1; echo "__rc=$?")
	t1=$(date +%s)
	n=$((n + 1))
	if [ "$rc" = 0 ] || { [ "$rc" = 1 ] && [ "$bad" -gt 0 ]; }; then
		echo "ok $n - $label: exit status $rc ($((t1 - t0)) s)"
	else
		failed=$((failed + 1))
		echo "not ok $n - $label: exit status $rc ($((t1 - t0)) s)"
	fi
}

echo "TAP version 13"
run asan "$1"
run valgrind "$2"
echo "1..$n"
echo "# schemes: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
