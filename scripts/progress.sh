# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# progress.sh - sourced by the set-up scripts (deps.sh, debug-kernel.sh,
# fresh-check.sh): run a long, quiet step with its output in a log and a line
# on the terminal at least every 10 s, so nobody stares at a silent screen
# for minutes. Lines go to stderr (stdout may be a caller's answer), each
# prefixed with PROGRESS_TAG (default: the script's name).
#
#   progress LOG WHAT CMD [ARG]...
#	prints "WHAT", runs CMD with stdout and stderr appended to LOG, and
#	every 10 s prints "WHAT: N s: <the log's last line>". While CMD runs,
#	progress_pid is its pid and process group; an INT or TERM meanwhile
#	ends that group and exits 130 (the caller's EXIT trap runs). Then
#	progress_rc is CMD's exit status and progress_time its seconds.
#	Returns 0.
#   logged LOG WHAT CMD [ARG]...
#	the same, and when CMD fails prints the log's last 20 lines and its
#	path; returns CMD's status.
#   last_line LOG
#	the log's last complete non-empty line, without CRs and colours.

progress_pid='' progress_rc=0 progress_time=0

last_line() {
	local drop=
	[ -z "$(tail -c 1 "$1" 2>/dev/null)" ] || drop="\$d;"
	tail -c 4096 "$1" 2>/dev/null | sed "$drop"'s/\x1b\[[0-9;?]*[A-Za-z]//g' |
		tr '\r' '\n' | sed '/^[[:space:]]*$/d' | tail -n 1 | cut -c 1-100
}

# shellcheck disable=SC2034 # progress_time is the callers'
progress() {
	local log=$1 what=$2 tag=${PROGRESS_TAG:-${0##*/}} start=$SECONDS last size
	local next=$((SECONDS + 10)) saved_traps
	shift 2
	mkdir -p "$(dirname "$log")"
	echo "$tag: $what" >&2
	printf '## %s %s: %s\n' "$(date -u +%FT%TZ)" "$what" "$*" >>"$log"
	size=$(stat -c %s "$log")
	# A process group of its own (set -m), to be ended whole.
	saved_traps=$(trap -p INT TERM)
	trap 'kill -TERM -- "-$progress_pid" 2>/dev/null; exit 130' INT TERM
	set -m
	"$@" </dev/null >>"$log" 2>&1 &
	progress_pid=$!
	set +m
	while kill -0 "$progress_pid" 2>/dev/null; do
		sleep 1
		if [ "$SECONDS" -ge "$next" ] && kill -0 "$progress_pid" 2>/dev/null; then
			next=$((next + 10))
			last=
			[ "$(stat -c %s "$log")" -eq "$size" ] || last=$(last_line "$log")
			echo "$tag: $what: $((SECONDS - start)) s${last:+: $last}" >&2
		fi
	done
	progress_rc=0
	wait "$progress_pid" || progress_rc=$?
	progress_pid=
	progress_time=$((SECONDS - start))
	trap - INT TERM
	eval "$saved_traps"
}

logged() {
	progress "$@"
	if [ "$progress_rc" -ne 0 ]; then
		echo "${PROGRESS_TAG:-${0##*/}}: $2 failed (exit $progress_rc); the end of $1:" >&2
		tail -n 20 "$1" | sed 's/^/    /' >&2
	fi
	return "$progress_rc"
}
