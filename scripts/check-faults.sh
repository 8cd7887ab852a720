#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-faults.sh - what `make check-faults` runs: torture_test and
# fuzz_test in the debug kernel of scripts/debug-kernel.sh (KASAN, lockdep,
# kmemleak...) with callout.ko's allocations and user copies failing on
# purpose, in two passes:
#
#   random    failslab, fail_page_alloc and fail_usercopy each fail 30% of
#             the calls made with callout.ko's text on the stack (a SET's
#             index node is tried twice, so 9% of those fail);
#   interval  each fails the calls whose number is a multiple of 7 in the
#             count of all the kernel's calls of it, when callout.ko's
#             text is on the stack: about one in 7 of callout's, in an
#             order the whole kernel sets.
#
# The injection is aimed by the stack-trace filter (require-start and
# require-end: callout.ko's core from /proc/modules; debug-kernel.sh lets
# 6.1 build it on x86_64, see its tree_fixups), so the tests' own
# system calls and the rest of the kernel allocate as usual; failslab's
# ignore-gfp-wait and fail_page_alloc's min-order are off, so every
# allocation callout makes for a caller, sleeping or not, order 0 or not,
# can fail. The tests run with CALLOUT_FAULTS=1: they accept ENOMEM where
# something is allocated and EFAULT where memory is copied, hold every
# other result to what the ABI promises, and account for every arming as
# ever (one expiry or one cancel each; nothing silently lost). A CPU
# hotplug loop runs beside the fuzzer (the torture test has its own).
# fault_sites then drives the sites their random mix reaches rarely (the
# due table's pages and its index: a file of 600 SETs allocates two pages
# and one index node).
#
# A pass fails unless the tests pass and the fault-injection attributes
# really fired; the run, unless every allocation site of callout's debugfs
# alloc_failures that failed at all failed at least 100 times over both.
# Then two kmemleak scans with callout.ko loaded must find nothing,
# kmemleak and debug objects must still be on (their own allocations fail
# in callout's calls too), and vm.sh fails on any splat. The last line is,
# as for make check,
#
#	N passed, N failed
#
# Environment:
#   CHECK_FAULTS_TORTURE  seconds of torture_test per pass (default 120)
#   CHECK_FAULTS_FUZZ     calls of fuzz_test per pass (default 200000)
#   CHECK_FAULTS_SITES    files of fault_sites per pass (default 1500)
#   CHECK_FAULTS_SMP      vCPUs (default 4)
#   CALLOUT_VM_*          passed on to scripts/vm.sh
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/check-debug.sh # build_or_close, guest_file, debug_summary
. "$top/scripts/check-debug.sh" ''
logs=$top/build/check-faults
cd "$top"

case ${1:-} in
'') ;;
-h|--help) sed -n '3,47s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "check-faults.sh: unknown argument $1" >&2; exit 2 ;;
esac
torture=${CHECK_FAULTS_TORTURE:-120}
fuzz=${CHECK_FAULTS_FUZZ:-200000}
sites=${CHECK_FAULTS_SITES:-1500}
smp=${CHECK_FAULTS_SMP:-4}
# In fault mode beside two other guests (2026-12-02): the fuzzer 301 calls
# a second, fault_sites about 4 files; allow twice as long.
fuzz_s=$((fuzz / 150)) sites_s=$((sites / 2))
export CALLOUT_VM_TIMEOUT=${CALLOUT_VM_TIMEOUT:-$((1800 + 2 * (torture + fuzz_s + sites_s)))}

# The guest's part. One TAP plan over both passes and the leak check; the
# tests' own TAP goes in between as diagnostics.
faults_guest() {
	cat <<EOF
#!/bin/sh
torture=$torture fuzz=$fuzz sites=$sites
EOF
	cat <<'EOF'
d=/sys/kernel/debug
km=$d/kmemleak
# The tests' fault mode; KASAN's quarantine makes their slab counts moot.
export CALLOUT_FAULTS=1 CALLOUT_KASAN=1
n=0 failed=0
result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; failed=1; fi
}
# attrs: the fault-injection attributes, each armed with "times" so high
# that what is left of it counts what fired.
attrs="failslab fail_page_alloc fail_usercopy"
times=1000000000
# The core of callout.ko: "callout SIZE REFS - Live 0xADDR". The shell's
# arithmetic is signed 64-bit, so the end is its low 32 bits plus the size
# below the same high ones (modules sit far below a 4 GiB boundary).
set -- $(grep '^callout ' /proc/modules)
size=$2 start=$6
hi=${start%????????} lo=0x${start#"${start%????????}"}
[ $((lo + size)) -le $((0xffffffff)) ] ||
	{ echo "Bail out! callout.ko at $start crosses a 4 GiB boundary"; exit 1; }
end=$(printf '%s%08x' "$hi" $((lo + size)))

# aim PROBABILITY INTERVAL: every attribute fails that share of the calls
# with callout.ko on the stack, or 0 to stop. The probability goes last:
# until the filter is set, an attribute armed would fail anyone's calls.
aim() {
	for a in $attrs; do
		echo 0 >$d/$a/probability
		echo $start >$d/$a/require-start
		echo $end >$d/$a/require-end
		echo 32 >$d/$a/stacktrace-depth
		echo N >$d/$a/task-filter
		echo "$2" >$d/$a/interval
		echo $times >$d/$a/times
		echo 0 >$d/$a/verbose
		echo 0 >$d/$a/space
	done
	echo N >$d/failslab/ignore-gfp-wait
	echo N >$d/failslab/cache-filter
	echo N >$d/fail_page_alloc/ignore-gfp-wait
	echo N >$d/fail_page_alloc/ignore-gfp-highmem
	echo 0 >$d/fail_page_alloc/min-order
	for a in $attrs; do
		echo "$1" >$d/$a/probability
	done
}

# A CPU hotplug loop, beside the fuzzer.
hotplug() {
	while :; do
		for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
			echo 0 >"$c" 2>/dev/null
			sleep 1
			echo 1 >"$c" 2>/dev/null
			sleep 1
		done
	done
}

# pass NAME PROBABILITY INTERVAL
pass() {
	local before a left fired ok=0 r hp site now was
	before=$(cat $d/callout/alloc_failures)
	aim "$2" "$3"
	echo "# $1 pass: probability $2%, interval $3, callout.ko at $start..$end"
	TORTURE_SECONDS=$torture /kselftest/callout/torture_test >/tmp/out 2>&1
	r=$?
	sed 's/^/# /' /tmp/out
	result $r "$1: torture_test for $torture s, callout's allocations and copies failing"
	hotplug &
	hp=$!
	CALLOUT_FUZZ_CALLS=$fuzz /kselftest/callout/fuzz_test >/tmp/out 2>&1
	r=$?
	kill $hp
	wait $hp 2>/dev/null
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do echo 1 >"$c" 2>/dev/null; done
	sed 's/^/# /' /tmp/out
	result $r "$1: fuzz_test for $fuzz calls with CPU hotplug beside, the same failing"
	/kselftest/callout/fault_sites $sites 600 >/tmp/out 2>&1
	r=$?
	sed 's/^/# /' /tmp/out
	result $r "$1: fault_sites: $sites files of 600 SETs, each SET armed or ENOMEM, each armed one cancelled"
	fired=
	for a in $attrs; do
		left=$(cat $d/$a/times)
		fired="$fired $a=$((times - left))"
		[ $((times - left)) -gt 0 ] || ok=1
	done
	aim 0 1
	echo "# $1: injected:$fired"
	result $ok "$1: every fault-injection attribute fired"
	# Per site: the failures of this pass (after - before).
	echo "$before" >/tmp/before
	while read -r site now; do
		was=$(sed -n "s/^$site //p" /tmp/before)
		echo "# $1: $site $((now - was)) allocation failures"
	done <$d/callout/alloc_failures
}

echo "TAP version 13"
echo "1..11"
for a in $attrs; do
	[ -d $d/$a ] || { echo "Bail out! no $d/$a: a kernel without fault injection"; exit 1; }
done
pass random 30 1
pass interval 100 7
# Per site over the run (both passes): >= 100 where any failed at all.
low=
while read -r site now; do
	echo "# run: $site $now allocation failures"
	[ "$now" -eq 0 ] || [ "$now" -ge 100 ] || low="$low ${site%:}=$now"
done <$d/callout/alloc_failures
[ -z "$low" ]
result $? "every allocation site that failed failed at least 100 times over the run${low:+ (not:$low)}"
# kmemleak and debug objects allocate for themselves in callout's calls
# too: a failure they cannot absorb turns them off, which would pass for a
# clean run. "scan" is refused (EPERM) once kmemleak is off.
sleep 6
echo scan >$km && sleep 6 && echo scan >$km
scanned=$?
leaks=$(cat $km)
[ $scanned = 0 ] && [ -z "$leaks" ]
result $? "kmemleak: on, and no leak after both passes ($(echo "$leaks" | grep -c '^unreferenced object') reported)"
echo "$leaks" | sed 's/^/# /'
off=$(dmesg | grep -E 'kmemleak: .*disabled|ODEBUG.*disabled')
[ -z "$off" ]
result $? "kmemleak and debug objects stayed on through the injection"
echo "$off" | sed 's/^/# /'
exit $failed
EOF
}

faults_main() {
	local rc=0 kver
	build_or_close "debug kernel and module" || return 1
	kver=$(cat "$logs/kver")
	guest_file check-faults-guest.sh faults_guest
	step vm env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
		--smp "$smp" --mem 2048 \
		--add "$logs/check-faults-guest.sh" -- check-faults-guest.sh || rc=$?
	account "torture and fuzz under fault injection, $kver ($smp vCPUs)" "$logs/vm.log" \
		"$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"
	debug_summary
}

start=$SECONDS
mkdir -p "$logs"
passed=0 failed=0 skipped=0 summary=()
# shellcheck disable=SC2034 # account() (check.sh) adds to s_skipped
s_passed=0 s_failed=0 s_skipped=0
faults_main
