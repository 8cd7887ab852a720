#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh - what `make check-debug` runs: the whole kselftest suite
# (fuzz_test and torture_test included) in one boot of the debug kernel of
# scripts/debug-kernel.sh (KASAN, lockdep, debug objects, kmemleak, UBSAN,
# DEBUG_LIST) on 4 vCPUs, then two kmemleak scans more than 5 s apart with
# callout.ko still loaded; any leak it reports fails, and so does any splat
# (scripts/vm.sh scans the kernel log). Then a second boot of its own plants
# a lock inversion between a func and callout_unset_sync() (callout_client
# test=inversion) and passes only if lockdep reports exactly that, on the
# first call (see inversion_script). The last line is, as for make check,
#
#	N passed, N failed
#
# after one for the smoke checks, counted apart as make check does.
#
# With --kcsan (`make check-kcsan`) it boots the KCSAN kernel of
# debug-kernel.sh --kcsan instead, runs the whole suite there with the
# torture test for 300 s (CPU hotplug beside it) and the fuzzer for a
# million calls, and judges KCSAN's reports from the kernel log: one that
# names a frame of callout's modules fails the run; any other is listed in
# the summary ("# KCSAN elsewhere: ..."), and passes. A second boot plants a
# race (callout_client test=race) and passes only if KCSAN reports it, so a
# detector that reports nothing is not taken for a clean run.
#
# Usage: scripts/check-debug.sh [--long | --kcsan]
#   --long   the torture test for 300 s and the fuzzer for a million calls
#            (the issue's bar); the default is a short run for every
#            landing: 30 s of torture and the fuzzer's default 100000 calls.
#   --kcsan  the KCSAN run above (logs in build/check-kcsan/).
#
# Environment:
#   CHECK_DEBUG_TORTURE  seconds of torture_test (TORTURE_SECONDS in the guest)
#   CHECK_DEBUG_FUZZ     calls of fuzz_test (CALLOUT_FUZZ_CALLS in the guest)
#   CHECK_DEBUG_PARAMS   module parameters (default: none)
#   CHECK_DEBUG_SMP      vCPUs (default 4)
#   CALLOUT_VM_*         passed on to scripts/vm.sh (CALLOUT_VM_TIMEOUT
#                        defaults to an hour plus the torture time here)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=/dev/null # check.sh, for tap_count, account and step
. "$top/scripts/check.sh"
logs=$top/build/check-debug
cd "$top"

torture=30 fuzz=100000 kcsan=
case ${1:-} in
--long) torture=300 fuzz=1000000 ;;
--kcsan) torture=300 fuzz=1000000 kcsan=1 logs=$top/build/check-kcsan ;;
'') ;;
-h|--help) sed -n '3,36s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "check-debug.sh: unknown argument $1" >&2; exit 2 ;;
esac
torture=${CHECK_DEBUG_TORTURE:-$torture}
fuzz=${CHECK_DEBUG_FUZZ:-$fuzz}
smp=${CHECK_DEBUG_SMP:-4}
params=${CHECK_DEBUG_PARAMS:-}
# The fuzzer makes about 500 calls a second on the debug kernel (474 with
# SUBMIT in it, another VM running beside, 2026-11-28): allow it 250.
fuzz_s=$((fuzz / 250))

# The guest's part, after the suite: kmemleak reports an object only once
# it is older than 5 s and a scan found no reference to it, so wait, scan,
# wait and scan again, with callout.ko loaded so backtraces have symbols.
guest_script() {
	cat <<EOF
#!/bin/sh
# The runner's per-program limit (settings) is for Debian's kernel: the
# debug kernel is several times slower, and the torture test and the
# fuzzer run longer.
sed -i 's/^timeout=.*/timeout=$((900 + torture + fuzz_s))/' /kselftest/*/settings
export TORTURE_SECONDS=$torture CALLOUT_FUZZ_CALLS=$fuzz
EOF
	if [ -n "$kcsan" ]; then
		kcsan_guest
		return
	fi
	cat <<EOF
# KASAN's quarantine keeps freed objects: the tests' slab counts are moot.
export CALLOUT_KASAN=1
if [ -x /kselftest/callout/torture_test ]; then
	echo "# torture_test: \$TORTURE_SECONDS s; fuzz_test: \$CALLOUT_FUZZ_CALLS calls"
else
	echo "# no torture_test in this tree; fuzz_test: \$CALLOUT_FUZZ_CALLS calls"
fi
start=\$(cut -d. -f1 /proc/uptime)
/kselftest/run_kselftest.sh
echo "# the suite took \$((\$(cut -d. -f1 /proc/uptime) - start)) s"

km=/sys/kernel/debug/kmemleak
echo "TAP version 13"
echo "1..1"
if [ ! -w \$km ]; then
	echo "not ok 1 kmemleak: no \$km in the debug kernel"
	exit 1
fi
sleep 6
echo scan >\$km
sleep 6
echo scan >\$km
# (a debugfs file has no size: read it)
leaks=\$(cat \$km)
if [ -n "\$leaks" ]; then
	echo "not ok 1 kmemleak: \$(echo "\$leaks" | grep -c '^unreferenced object') leaks"
	echo "\$leaks" | sed 's/^/# /'
	exit 1
fi
echo "ok 1 kmemleak: no leak after two scans (callout.ko loaded)"
EOF
}

# The KCSAN boot's guest part, after the settings: KCSAN must be on (its
# debugfs file says "enabled: 1") before and after the suite; its counters
# go to the log. The reports themselves are judged on the host.
kcsan_guest() {
	cat <<'EOF'
k=/sys/kernel/debug/kcsan
grep -q '^enabled: 1' $k 2>/dev/null
before=$?
start=$(cut -d. -f1 /proc/uptime)
/kselftest/run_kselftest.sh
echo "# the suite took $(($(cut -d. -f1 /proc/uptime) - start)) s"
sed 's/^/# kcsan: /' $k
grep -q '^enabled: 1' $k
after=$?
echo "TAP version 13"
echo "1..2"
echo "$([ $before = 0 ] || echo 'not ')ok 1 KCSAN was enabled before the suite ($k)"
echo "$([ $after = 0 ] || echo 'not ')ok 2 KCSAN stayed enabled through the suite"
[ $before = 0 ] && [ $after = 0 ]
EOF
}

# kcsan_reports LOG...: one line per KCSAN report in the kernel logs
# (vm.sh's console.log and dmesg.log; a report printed in both is counted
# once), "callout <title>" if a line of it names a frame of one of callout's
# modules, else "other <title>". A report runs from its "BUG: KCSAN:" line
# to the "====" rule that closes it.
kcsan_reports() {
	awk '
		{ sub(/\r$/, ""); line = $0; sub(/^(<[0-9]+>)?\[ *[0-9]+\.[0-9]+\] /, "", line) }
		line ~ /^BUG: KCSAN: / { title = line; sub(/^BUG: KCSAN: /, "", title); mine = 0; in_report = 1; next }
		in_report && line ~ /\[(callout|callout_test|callout_client|callout_bench)\]/ { mine = 1 }
		in_report && line ~ /^=+$/ {
			in_report = 0
			what = (mine ? "callout " : "other ") title
			if (!seen[what]++) print what
		}' "$@"
}

# kcsan_judge DIR: the verdict on the KCSAN reports of the logs in DIR.
# Reports in callout's code fail (their titles go to stderr, for account);
# others are added to the summary as "# KCSAN elsewhere: TITLE".
kcsan_judge() {
	local reports
	reports=$(kcsan_reports "$1"/console.log "$1"/dmesg.log)
	while IFS= read -r r; do
		case $r in
		other\ *) summary+=("# KCSAN elsewhere: ${r#other }") ;;
		esac
	done <<<"$reports"
	if grep -q '^callout ' <<<"$reports"; then
		sed -n 's/^callout /KCSAN: /p' <<<"$reports" >&2
		return 1
	fi
}

# race_judge DIR: the planted race's boot passes if KCSAN reported a race
# in callout's code that names race_func.
race_judge() {
	kcsan_reports "$1"/console.log "$1"/dmesg.log | grep -q '^callout .*race_func' ||
		{ echo "check-debug.sh: no KCSAN report of the planted race_func" >&2; return 1; }
}

race_script() {
	cat <<'EOF'
#!/bin/sh
echo "TAP version 13"
echo "1..1"
insmod /lib/modules/$(uname -r)/extra/callout_client.ko test=race
echo "$([ $? = 0 ] || echo 'not ')ok 1 insmod callout_client.ko test=race: the planted race ran"
# It holds callout.ko until it goes, and vm.sh then unloads callout.ko.
rmmod callout_client
EOF
}

# The guest's part of the planted-inversion boot. callout_client.ko
# test=inversion lets a func take a spinlock, and once it has run calls
# callout_unset_sync() holding that spinlock: the func does not run then, so
# only lockdep's map between funcs and callout_unset_sync() can see it. It
# must report a circular dependency between callout_func and the client's
# inversion_lock, in callout_unset_sync(); might_sleep() reports the call
# too (a spinlock held across a call that may sleep). vm.sh is told to
# expect exactly those two splat lines (and the W taint they leave) and
# nothing else; every other boot still fails on any.
inversion_script() {
	cat <<'EOF'
#!/bin/sh
ko=/lib/modules/$(uname -r)/extra/callout_client.ko
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
# after PATTERN N: the N lines that follow the first line with PATTERN
after() {
	dmesg | grep -A "$2" -m 1 -- "$1" | tail -n "$2"
}
echo "TAP version 13"
echo "1..4"
insmod "$ko" test=inversion
result $? "insmod callout_client.ko test=inversion: its func ran, the planted call returned"
rmmod callout_client
dmesg | grep -A 40 'possible circular locking dependency' | sed 's/^/# /'
reports=$(dmesg | grep -c 'possible circular locking dependency detected')
result $((reports != 1)) "lockdep: one circular dependency report ($reports)"
trying=$(after 'is trying to acquire lock:' 1)
holding=$(after 'but task is already holding lock:' 1)
case $trying$holding in
*'(callout_func)'*'at: callout_unset_sync'*'(inversion_lock)'*) ok=0 ;;
*) ok=1 ;;
esac
result $ok "lockdep: callout_unset_sync() takes callout_func holding the func's inversion_lock"
dmesg | grep -q 'sleeping function called from invalid context at .*core\.c'
result $? "might_sleep(): the planted call is also a spinlock held across callout_unset_sync()"
exit $failed
EOF
}

# The guest's part of the left-timeout boot. callout_client.ko test=leave
# arms a far callout_timeout() of kfree(NULL) and leaves it pending when it
# is unloaded; callout.ko's unload must cancel it, warn once naming kfree
# (the one splat line vm.sh is told to expect) and free it: a callout left
# in its cache would make kmem_cache_destroy() report it (a BUG line, which
# fails the boot), and KASAN watches the cancel.
leave_script() {
	cat <<'EOF'
#!/bin/sh
dir=/lib/modules/$(uname -r)/extra
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
echo "TAP version 13"
echo "1..4"
insmod "$dir/callout_client.ko" test=leave
result $? "insmod callout_client.ko test=leave: a far timeout armed"
rmmod callout_client && rmmod callout
result $? "rmmod callout_client, then callout with its timeout pending"
dmesg | grep -A 2 'left timeout' | sed 's/^/# /'
warned=$(dmesg | grep -c 'a kernel caller left timeout kfree.* pending')
result $((warned != 1)) "the unload warns once, naming kfree ($warned)"
dmesg | grep -q 'callout: unloaded'
result $? "callout.ko unloaded"
# vm.sh unloads callout.ko at the end: load it back.
# shellcheck disable=SC2086 # CALLOUT_PARAMS is a list of k=v words
insmod "$CALLOUT_KO" $CALLOUT_PARAMS
exit $failed
EOF
}

debug_build() {
	local dir
	dir=$("$top/scripts/debug-kernel.sh" ${kcsan:+--kcsan})
	kver=$(cat "$dir/release")
	echo "$kver" >"$logs/kver"
	flock "$top/build/.lock" make --no-print-directory KVER="$kver" modules selftests
}

# The closing lines, as make check's.
debug_summary() {
	echo "# ===================="
	printf '%s\n' "${summary[@]}"
	echo "# $skipped skipped; $((SECONDS - start)) s; logs in ${logs#"$top"/}/"
	echo "# smoke checks: $s_passed passed, $s_failed failed"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$s_failed" -eq 0 ]
}

# guest_file NAME FUNC: FUNC's output as the guest script $logs/NAME.
guest_file() {
	"$2" >"$logs/$1"
	chmod 755 "$logs/$1"
}

# build_or_close WHAT: the build step; if it fails, account it as WHAT's
# build and print the closing lines. 0 if it built.
build_or_close() {
	step build debug_build && return 0
	account "$1 build" "$logs/build.log" "the build failed"
	debug_summary
	return 1
}

kcsan_main() {
	local rc=0 kver
	build_or_close "KCSAN kernel and module" || return 1
	kver=$(cat "$logs/kver")
	guest_file check-kcsan-guest.sh guest_script
	rm -rf "$logs/suite" "$logs/race"
	step vm env CALLOUT_VM_NOBUILD=1 CALLOUT_VM_LOGDIR="$logs/suite" \
		scripts/vm.sh run --kernel "$kver" --smp "$smp" --mem 2048 \
		--params "$params" --allow-splat '^(<[0-9]+>)?\[ *[0-9.]+\] BUG: KCSAN: ' \
		--add "$logs/check-kcsan-guest.sh" -- check-kcsan-guest.sh || rc=$?
	[ "$rc" -ne 0 ] || kcsan_judge "$logs/suite" 2>>"$logs/vm.log" || rc=1
	account "kselftests under $kver ($smp vCPUs), no KCSAN report in callout" \
		"$logs/vm.log" "$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc or KCSAN reported callout")"

	rc=0
	guest_file check-kcsan-race.sh race_script
	step race env CALLOUT_VM_NOBUILD=1 CALLOUT_VM_LOGDIR="$logs/race" \
		scripts/vm.sh run --kernel "$kver" --smp 2 --params "$params" \
		--allow-splat '^(<[0-9]+>)?\[ *[0-9.]+\] BUG: KCSAN: ' \
		--add "$logs/check-kcsan-race.sh" -- check-kcsan-race.sh || rc=$?
	[ "$rc" -ne 0 ] || race_judge "$logs/race" 2>>"$logs/race.log" || rc=1
	account "planted data race, KCSAN's report expected" "$logs/race.log" \
		"$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc or no report of race_func")"
	debug_summary
}

debug_main() {
	local rc=0 kver
	if ! step build debug_build; then
		account "debug kernel and module build" "$logs/build.log" "the build failed"
	else
		kver=$(cat "$logs/kver")
		guest_file check-debug-guest.sh guest_script
		step vm env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp "$smp" --mem 2048 --params "$params" \
			--add "$logs/check-debug-guest.sh" -- check-debug-guest.sh || rc=$?
		account "kselftests and kmemleak under $kver ($smp vCPUs)" "$logs/vm.log" \
			"$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"

		rc=0
		guest_file check-debug-inversion.sh inversion_script
		step inversion env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp 2 --params "$params" \
			--expect-splat 'WARNING: possible circular locking dependency detected' \
			--expect-splat 'BUG: sleeping function called from invalid context at .*core\.c' \
			--add "$logs/check-debug-inversion.sh" -- check-debug-inversion.sh || rc=$?
		account "planted func/unset_sync inversion, lockdep's report expected" \
			"$logs/inversion.log" "$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"

		rc=0
		guest_file check-debug-leave.sh leave_script
		step leave env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp 2 --params "$params" \
			--expect-splat 'WARNING: .*timeout\.c' \
			--add "$logs/check-debug-leave.sh" -- check-debug-leave.sh || rc=$?
		account "a timeout left pending at unload, its warning expected" \
			"$logs/leave.log" "$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"
	fi

	debug_summary
}

# Sourced (by check.sh's self-tests, for kcsan_reports): functions only.
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0
export CALLOUT_VM_TIMEOUT=${CALLOUT_VM_TIMEOUT:-$((3600 + torture + fuzz_s))}
start=$SECONDS
mkdir -p "$logs"
passed=0 failed=0 skipped=0 summary=()
# shellcheck disable=SC2034 # account() (check.sh) adds to s_skipped
s_passed=0 s_failed=0 s_skipped=0
if [ -n "$kcsan" ]; then
	kcsan_main
else
	debug_main
fi
