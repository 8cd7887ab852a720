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
# Usage: scripts/check-debug.sh [--long]
#   --long   the torture test for 300 s and the fuzzer for a million calls
#            (the issue's bar); the default is a short run for every
#            landing: 30 s of torture and the fuzzer's default 100000 calls.
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

torture=30 fuzz=100000
case ${1:-} in
--long) torture=300 fuzz=1000000 ;;
'') ;;
-h|--help) sed -n '3,25s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "check-debug.sh: unknown argument $1" >&2; exit 2 ;;
esac
torture=${CHECK_DEBUG_TORTURE:-$torture}
fuzz=${CHECK_DEBUG_FUZZ:-$fuzz}
smp=${CHECK_DEBUG_SMP:-4}
params=${CHECK_DEBUG_PARAMS:-}
# The fuzzer makes about 500 calls a second on the debug kernel (474 with
# SUBMIT in it, another VM running beside, 2026-11-28): allow it 250.
fuzz_s=$((fuzz / 250))
export CALLOUT_VM_TIMEOUT=${CALLOUT_VM_TIMEOUT:-$((3600 + torture + fuzz_s))}

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
	dir=$("$top/scripts/debug-kernel.sh")
	kver=$(cat "$dir/release")
	echo "$kver" >"$logs/kver"
	flock "$top/build/.lock" make --no-print-directory KVER="$kver" modules selftests
}

debug_main() {
	local start=$SECONDS rc=0 kver
	mkdir -p "$logs"
	passed=0 failed=0 skipped=0 summary=()
	# shellcheck disable=SC2034 # account() (check.sh) adds to s_skipped
	s_passed=0 s_failed=0 s_skipped=0

	if ! step build debug_build; then
		account "debug kernel and module build" "$logs/build.log" "the build failed"
	else
		kver=$(cat "$logs/kver")
		guest_script >"$logs/check-debug-guest.sh"
		chmod 755 "$logs/check-debug-guest.sh"
		step vm env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp "$smp" --mem 2048 --params "$params" \
			--add "$logs/check-debug-guest.sh" -- check-debug-guest.sh || rc=$?
		account "kselftests and kmemleak under $kver ($smp vCPUs)" "$logs/vm.log" \
			"$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"

		rc=0
		inversion_script >"$logs/check-debug-inversion.sh"
		chmod 755 "$logs/check-debug-inversion.sh"
		step inversion env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp 2 --params "$params" \
			--expect-splat 'WARNING: possible circular locking dependency detected' \
			--expect-splat 'BUG: sleeping function called from invalid context at .*core\.c' \
			--add "$logs/check-debug-inversion.sh" -- check-debug-inversion.sh || rc=$?
		account "planted func/unset_sync inversion, lockdep's report expected" \
			"$logs/inversion.log" "$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"

		rc=0
		leave_script >"$logs/check-debug-leave.sh"
		chmod 755 "$logs/check-debug-leave.sh"
		step leave env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run --kernel "$kver" \
			--smp 2 --params "$params" \
			--expect-splat 'WARNING: .*timeout\.c' \
			--add "$logs/check-debug-leave.sh" -- check-debug-leave.sh || rc=$?
		account "a timeout left pending at unload, its warning expected" \
			"$logs/leave.log" "$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"
	fi

	echo "# ===================="
	printf '%s\n' "${summary[@]}"
	echo "# $skipped skipped; $((SECONDS - start)) s; logs in ${logs#"$top"/}/"
	echo "# smoke checks: $s_passed passed, $s_failed failed"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$s_failed" -eq 0 ]
}

debug_main
