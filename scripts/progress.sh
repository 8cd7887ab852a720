# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# progress.sh - sourced by the set-up scripts (deps.sh, debug-kernel.sh):
# run a long, quiet step with its output in a log and a line on the terminal
# at least every 10 s, so nobody stares at a silent screen for minutes.
#
#   logged LOG WHAT CMD [ARG]...
#
# prints "WHAT" on stderr (stdout may be a caller's answer), runs CMD with stdout and stderr appended to LOG, and every
# 10 s prints "WHAT: N s: <the log's last line>". When CMD fails it prints
# the log's last 20 lines and its path, and returns CMD's status.
# PROGRESS_TAG (default: the script's name) prefixes every line.

logged() {
	local log=$1 what=$2 tag=${PROGRESS_TAG:-${0##*/}} pid rc=0 t=0 last size
	shift 2
	mkdir -p "$(dirname "$log")"
	echo "$tag: $what" >&2
	printf '## %s %s: %s\n' "$(date -u +%FT%TZ)" "$what" "$*" >>"$log"
	size=$(stat -c %s "$log")
	"$@" </dev/null >>"$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		t=$((t + 1))
		if [ $((t % 10)) -eq 0 ] && kill -0 "$pid" 2>/dev/null; then
			last=
			[ "$(stat -c %s "$log")" -eq "$size" ] ||
				last=$(tail -n 1 "$log" | tr -d '\r' | cut -c1-100)
			echo "$tag: $what: $t s${last:+: $last}" >&2
		fi
	done
	wait "$pid" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "$tag: $what failed (exit $rc); the end of $log:" >&2
		tail -n 20 "$log" | sed 's/^/    /' >&2
	fi
	return "$rc"
}
