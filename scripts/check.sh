#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - what `make check` runs: build everything, run the user-space
# suites, boot the test VM once per module parameter set and run the
# kselftests there, then print one last line, exactly
#
#	N passed, N failed
#
# counting individual test cases of callout over all suites (TAP "ok"/"not
# ok" lines; a program's subtests are counted instead of the program's own
# line). A step that fails without a failing test case (the build, a crashed
# VM, a test program that dies after its last "ok") counts as one failed
# case. The check scripts' own tests (vm.sh's splat scanner and failure
# detection, the TAP counter) test the harness, not callout, and smoke checks
# (cases named "smoke...", see tap_count) only that something runs at all:
# each gets a line of its own before it. The exit status is non-zero when
# any of the three has a failure.
#
# Environment:
#   CHECK_PARAMS       module parameter sets for the VM suite, separated by
#                      ';', one boot each; '' is the module's defaults.
#                      e.g. CHECK_PARAMS='scheme=hashed;scheme=hierarchical'
#   CHECK_SCHEMES      0 skips tools/testing/schemes (the scheme library in
#                      user space), which does not depend on the kernel
#                      (make check-matrix runs it once)
#   CHECK_VM_SELFTEST  0 skips the two boots that prove vm.sh notices a
#                      failing command and a kernel WARNING (default 1)
#   KVER               the kernel to build for and boot (default: deps.sh --print-kver)
#   CALLOUT_VM_*       passed on to scripts/vm.sh
set -euo pipefail

# The parameter sets the VM suite runs with, one boot each.
default_params='scheme=hashed;scheme=hierarchical max_per_file=100000;scheme=simple wheel_bits=14'
params_list=${CHECK_PARAMS-$default_params}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}
export CALLOUT_CACHE=$cache
logs=$top/build/check
cd "$top"

passed=0 failed=0 skipped=0
summary=()
# The harness's own tests, counted apart (harness_suite).
h_passed=0 h_failed=0
# Smoke checks, counted apart (tap_count says which cases they are).
s_passed=0 s_failed=0 s_skipped=0

# tap_count FILE: "PASSED FAILED SKIPPED SMOKE_PASSED SMOKE_FAILED
# SMOKE_SKIPPED" over the test cases in a TAP log. A result line may be
# nested under "# " (kselftest runner) or four spaces (TAP 14 subtests); a
# result with results nested above it is a program: its subtests count, plus
# one failure if it failed while none of them did (a smoke failure if all of
# them are smoke checks). A smoke check is a case whose name, after its
# fixture's ("fixture.smoke_x"), starts with "smoke" ("ok 1 smoke: ..."): it
# proves that something runs at all (the benchmarks' plumbing, a declaration
# such as .owner) and cannot fail for a defect of callout's logic, so it is
# counted apart.
tap_count() {
	awk '
	function strip(s) {
		depth = 0
		for (;;) {
			if (substr(s, 1, 2) == "# ") { s = substr(s, 3); depth++ }
			else if (substr(s, 1, 4) == "    ") { s = substr(s, 5); depth++ }
			else return s
		}
	}
	{
		sub(/\r$/, "")
		line = strip($0)
		if (line !~ /^(not )?ok( |$)/)
			next
		d = depth
		notok = line ~ /^not ok/
		skip = line ~ /# *([Ss][Kk][Ii][Pp]|TODO)/
		smoke = line ~ /^(not )?ok [0-9]+ ([A-Za-z0-9_]+\.)?smoke/
		cp = cf = cs = sp = sf = ss = 0
		for (k = d + 1; k <= maxd; k++) {
			cp += P[k]; cf += F[k]; cs += S[k]
			sp += SP[k]; sf += SF[k]; ss += SS[k]
			P[k] = F[k] = S[k] = SP[k] = SF[k] = SS[k] = 0
		}
		if (d > maxd)
			maxd = d
		if (cp + cf + cs + sp + sf + ss == 0) {
			if (smoke) {
				if (skip) SS[d]++
				else if (notok) SF[d]++
				else SP[d]++
			} else {
				if (skip) S[d]++
				else if (notok) F[d]++
				else P[d]++
			}
		} else {
			P[d] += cp; F[d] += cf; S[d] += cs
			SP[d] += sp; SF[d] += sf; SS[d] += ss
			if (notok && !skip && cf + sf == 0) {
				if (cp + cs == 0) SF[d]++
				else F[d]++
			}
		}
	}
	END {
		for (k = 0; k <= maxd; k++) {
			p += P[k]; f += F[k]; s += S[k]
			p2 += SP[k]; f2 += SF[k]; s2 += SS[k]
		}
		print p + 0, f + 0, s + 0, p2 + 0, f2 + 0, s2 + 0
	}' "$1"
}

# account NAME LOG [EXTRA_FAILURE_REASON]: add a suite's cases to the totals,
# its smoke checks to theirs.
account() {
	local name=$1 log=$2 why=${3:-} p f s sp sf ss smoke=
	read -r p f s sp sf ss < <(tap_count "$log")
	if [ $((p + f + s + sp + sf + ss)) -eq 0 ] && [ -z "$why" ]; then
		why="no test results"
	fi
	if [ -n "$why" ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	s_passed=$((s_passed + sp)) s_failed=$((s_failed + sf))
	s_skipped=$((s_skipped + ss))
	[ $((sp + sf + ss)) -eq 0 ] ||
		smoke="; smoke checks: $sp passed, $sf failed, $ss skipped"
	summary+=("# $name: $p passed, $f failed, $s skipped$smoke${why:+ ($why)}")
}

# harness_suite NAME LOG: add a suite of the check scripts' own tests to
# their totals, not to callout's.
harness_suite() {
	local p=$passed f=$failed s=$skipped
	passed=0 failed=0
	account "$@"
	h_passed=$((h_passed + passed)) h_failed=$((h_failed + failed))
	passed=$p failed=$f skipped=$s
}

# step NAME CMD...: run CMD with its output on the terminal and in a log.
step() {
	local name=$1 rc=0
	shift
	echo "# === $name: $*"
	{ "$@" 2>&1 || rc=$?; echo "$rc" >"$logs/$name.rc"; } | tee "$logs/$name.log"
	return "$(cat "$logs/$name.rc")"
}

build() {
	"$top/scripts/deps.sh" --check ${KVER:+"$KVER"} ||
		"$top/scripts/deps.sh" ${KVER:+"$KVER"}
	flock "$top/build/.lock" make --no-print-directory ${KVER:+KVER="$KVER"} modules selftests tools
}

# vm_fn FUNCTION ARG...: call one of vm.sh's functions.
vm_fn() {
	bash -c 'source "$1" && shift && "$@"' vm_fn "$top/scripts/vm.sh" "$@"
}

# The check scripts' own suite: vm.sh's splat scanner and taint decoder on
# canned kernel log lines, and check.sh's TAP counting (shellcheck is in
# make lint).
self_suite() {
	local n=0 f canned
	local bad=(
		'[    2.733510] WARNING: CPU: 0 PID: 100 at x.c:5 f+0x5/0x10 [m]'
		'[    2.733510] WARNING: x.c:5 at f+0x5/0x10 [m], CPU#0: insmod/100'
		'[   12.000001] BUG: scheduling while atomic: insmod/100/0x00000002'
		'[    1.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008'
		'[    1.000000] Oops: 0002 [#1] PREEMPT SMP NOPTI'
		'[    1.000000] BUG: KASAN: slab-use-after-free in callout_stop+0x1/0x2'
		'[    1.000000] BUG: KFENCE: use-after-free read in uc_fire+0x1/0x2'
		'[    1.000000] BUG: KCSAN: data-race in callout_tick / uc_read'
		'[    1.000000] UBSAN: shift-out-of-bounds in schemes/tw.c:12:3'
		'[    1.000000] WARNING: possible circular locking dependency detected'
		'[  130.000000] INFO: task kworker/0:1:12 blocked for more than 120 seconds.'
		'[   30.000000] rcu: INFO: rcu_preempt self-detected stall on CPU'
		'[   30.000000] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]'
		'[    5.000000] BUG: sleeping function called from invalid context at x.c:1'
	)
	local good=(
		'[    2.866950] callout: loading out-of-tree module taints kernel.'
		'[    0.541762] mtrr: your CPUs had inconsistent fixed MTRR settings'
		'WARNING: a test printing this is not the kernel'
		'# ok 1 dev.BUG_on_purpose'
	)
	echo "TAP version 13"
	canned=$logs/canned.log
	for f in "${bad[@]}"; do
		n=$((n + 1))
		printf '%s\n' "${good[@]}" "$f" >"$canned"
		if vm_fn scan_log "$canned" >/dev/null; then
			echo "not ok $n vm.sh scan_log misses: $f"
		else
			echo "ok $n vm.sh scan_log catches: ${f#*] }"
		fi
	done
	n=$((n + 1))
	printf '%s\n' "${good[@]}" >"$canned"
	if vm_fn scan_log "$canned" >/dev/null; then
		echo "ok $n vm.sh scan_log passes a clean log"
	else
		echo "not ok $n vm.sh scan_log flags a clean log"
	fi
	n=$((n + 1))
	if [ "$(vm_fn taint_problems 12288)" = "" ] &&
	   [ "$(vm_fn taint_problems 12800)" = "W(warning)" ]; then
		echo "ok $n vm.sh taint_problems: O+E pass, W fails"
	else
		echo "not ok $n vm.sh taint_problems"
	fi
	# --expect-splat, for the one boot that plants a bug on purpose.
	local circ='[    9.000001] WARNING: possible circular locking dependency detected'
	local slp='[    9.000002] BUG: sleeping function called from invalid context at m/core.c:9'
	local other='[    9.000003] WARNING: CPU: 0 PID: 1 at x.c:5 f+0x5/0x10'
	local re1='possible circular locking dependency detected'
	local re2='sleeping function called from invalid context at .*core\.c'
	n=$((n + 1))
	if vm_fn expected_splats '' 2>/dev/null &&
	   ! vm_fn expected_splats "$circ" 2>/dev/null; then
		echo "ok $n vm.sh expected_splats: without --expect-splat any splat fails"
	else
		echo "not ok $n vm.sh expected_splats: without --expect-splat"
	fi
	n=$((n + 1))
	if vm_fn expected_splats "$circ"$'\n'"$slp" "$re1" "$re2" 2>/dev/null; then
		echo "ok $n vm.sh expected_splats: the expected splats, once each, pass"
	else
		echo "not ok $n vm.sh expected_splats: the expected splats fail"
	fi
	n=$((n + 1))
	if ! vm_fn expected_splats "$circ" "$re1" "$re2" 2>/dev/null &&
	   ! vm_fn expected_splats "$circ"$'\n'"$slp"$'\n'"$other" "$re1" "$re2" 2>/dev/null &&
	   ! vm_fn expected_splats "$circ"$'\n'"${circ/9.000001/9.500001}"$'\n'"$slp" \
		"$re1" "$re2" 2>/dev/null; then
		echo "ok $n vm.sh expected_splats: a missing, an extra or a second one fails"
	else
		echo "not ok $n vm.sh expected_splats: lets a missing, extra or second splat pass"
	fi
	# --allow-splat, for the KCSAN boots that judge the reports themselves.
	local kc='[    9.000004] BUG: KCSAN: data-race in a / b'
	n=$((n + 1))
	if bash -c 'source "$1"; allows=("BUG: KCSAN: "); expected_splats "$2"' _ \
		"$top/scripts/vm.sh" "$kc"$'\n'"${kc/9.000004/9.000005}" 2>/dev/null &&
	   ! bash -c 'source "$1"; allows=("BUG: KCSAN: "); expected_splats "$2"' _ \
		"$top/scripts/vm.sh" "$kc"$'\n'"$other" 2>/dev/null; then
		echo "ok $n vm.sh expected_splats: --allow-splat passes its lines, any number, and no other"
	else
		echo "not ok $n vm.sh expected_splats: --allow-splat"
	fi
	# check-debug.sh --kcsan's classifier: a report naming a frame of
	# callout's modules is callout's, printed once though both logs have it.
	printf '%s\n' '[    7.000000] ===============' \
		'[    7.000001] BUG: KCSAN: data-race in uc_fire [callout] / uc_read [callout]' \
		'[    7.000002] read to 0xffff of 8 bytes by task 1 on cpu 0:' \
		'[    7.000003]  uc_read+0x1/0x2 [callout]' \
		'[    7.000004] ===============' \
		'[    8.000001] BUG: KCSAN: data-race in tick_sched_do_timer / tick_nohz_idle' \
		'[    8.000002]  tick_nohz_idle+0x1/0x2' \
		'[    8.000003] ===============' \
		'[    9.000001] BUG: KCSAN: data-race in hrtimer_run / hrtimer_x' \
		'[    9.000002]  hrtimer_x+0x1/0x2' \
		'[    9.000003]  callout_tick+0x1/0x2 [callout_test]' \
		'[    9.000004] ===============' >"$canned"
	cp "$canned" "$canned.2"
	n=$((n + 1))
	local got want
	got=$(bash -c 'source "$1" ""; kcsan_reports "$2" "$3"' _ \
		"$top/scripts/check-debug.sh" "$canned" "$canned.2" | tr '\n' '|')
	want='callout data-race in uc_fire [callout] / uc_read [callout]|other data-race in tick_sched_do_timer / tick_nohz_idle|callout data-race in hrtimer_run / hrtimer_x|'
	if [ "$got" = "$want" ]; then
		echo "ok $n check-debug.sh kcsan_reports: callout's reports told from others, each once"
	else
		echo "not ok $n check-debug.sh kcsan_reports: '$got', want '$want'"
	fi
	n=$((n + 1))
	printf '%s\n' 'TAP version 13' '1..3' '# selftests: callout: a' \
		'# ok 1 a.x' '# not ok 2 a.y' '# ok 3 a.z # SKIP why' \
		'not ok 1 selftests: callout: a # exit=1' \
		'# selftests: callout: b' '# ok 1 b.x' \
		'not ok 2 selftests: callout: b # exit=139' \
		'# #            OK  c.x' 'ok 3 selftests: callout: c' \
		'# selftests: callout: d' '# ok 1 d.smoke_x' '# not ok 2 smoke: y' \
		'# ok 3 d.not_smoke' 'not ok 4 selftests: callout: d # exit=1' \
		'# selftests: callout: e' '# ok 1 smoke: z' \
		'not ok 5 selftests: callout: e # exit=1' >"$canned"
	if [ "$(tap_count "$canned")" = "4 2 1 2 2 0" ]; then
		echo "ok $n check.sh counts nested TAP: cases once, a crash as a failure, smoke checks apart"
	else
		echo "not ok $n check.sh counts nested TAP as '$(tap_count "$canned")', want '4 2 1 2 2 0'"
	fi
	echo "1..$n"
}

vm_opts=()
[ -n "${KVER:-}" ] && vm_opts+=(--kernel "$KVER")

# Two boots that must fail, to prove a failure in the VM fails the run.
vm_selftest() {
	local kver kdir tmp rc=0 n=1
	kver=${KVER:-$(scripts/deps.sh --print-kver)}
	kdir=$cache/kernels/$kver/build
	[ -d "$kdir" ] || kdir=/usr/src/linux-headers-$kver
	tmp=$(mktemp -d)
	cat >"$tmp/warn_on_load.c" <<-'EOF'
	// SPDX-License-Identifier: GPL-2.0
	#include <linux/module.h>
	static int __init warn_on_load_init(void)
	{
		WARN_ON(1);
		return 0;
	}
	module_init(warn_on_load_init);
	MODULE_LICENSE("GPL");
	EOF
	echo 'obj-m := warn_on_load.o' >"$tmp/Kbuild"

	echo "TAP version 13"
	echo "1..2"
	CALLOUT_VM_NOBUILD=1 scripts/vm.sh run "${vm_opts[@]}" -- false \
		>"$logs/vm-false.log" 2>&1 || rc=$?
	if [ "$rc" -eq 1 ]; then
		echo "ok $n vm.sh run -- false exits 1"
	else
		echo "not ok $n vm.sh run -- false exits $rc, want 1"
	fi
	n=$((n + 1)) rc=0
	if ! scripts/buildroot.sh run "$kver" make -s -C "$kdir" M="$tmp" modules \
		>"$logs/vm-warn-build.log" 2>&1; then
		echo "not ok $n vm.sh catches a WARNING # cannot build the module"
	else
		CALLOUT_VM_NOBUILD=1 scripts/vm.sh run "${vm_opts[@]}" \
			--add "$tmp/warn_on_load.ko" -- insmod /add/warn_on_load.ko \
			>"$logs/vm-warn.log" 2>&1 || rc=$?
		if [ "$rc" -eq 125 ] && grep -q 'kernel splat: .*WARNING' "$logs/vm-warn.log"; then
			echo "ok $n vm.sh catches a WARNING in a module"
		else
			echo "not ok $n vm.sh run with a WARNing module exits $rc, want 125 and the line"
		fi
	fi
	rm -rf "$tmp"
}

main() {
	local start=$SECONDS rc p i=0 name built=1
	mkdir -p "$logs"

	# Static checks first: one result per check (scripts/lint.sh).
	rc=0
	step lint make --no-print-directory ${KVER:+KVER="$KVER"} lint || rc=$?
	account "make lint" "$logs/lint.log" \
		"$([ "$rc" -eq 0 ] || echo "make lint exited $rc")"

	# Without a build there is nothing to boot; the rest still runs.
	if ! step build build; then
		account build "$logs/build.log" "the build failed"
		built=
	fi

	step self self_suite || true
	harness_suite "check scripts (harness)" "$logs/self.log"

	if [ "${CHECK_SCHEMES:-1}" != 0 ]; then
		rc=0
		step schemes make --no-print-directory -C tools/testing/schemes check || rc=$?
		account "tools/testing/schemes" "$logs/schemes.log" \
			"$([ "$rc" -eq 0 ] || echo "make -C tools/testing/schemes check exited $rc")"
	fi

	IFS=';' read -r -a sets <<<"$params_list"
	[ ${#sets[@]} -gt 0 ] || sets=('')
	[ -n "$built" ] || sets=()
	for p in "${sets[@]}"; do
		i=$((i + 1)) rc=0
		name="vm$i"
		step "$name" env CALLOUT_VM_NOBUILD=1 scripts/vm.sh run "${vm_opts[@]}" \
			--params "$p" -- sh -c "CALLOUT_BOOT=$i /kselftest/run_kselftest.sh; exit 0" || rc=$?
		account "kselftests in the VM${p:+ ($p)}" "$logs/$name.log" \
			"$([ "$rc" -eq 0 ] || echo "vm.sh exited $rc")"
	done

	if [ -n "$built" ] && [ "${CHECK_VM_SELFTEST:-1}" != 0 ]; then
		step vmself vm_selftest || true
		harness_suite "vm.sh failure detection (harness)" "$logs/vmself.log"
	fi

	echo "# ===================="
	printf '%s\n' "${summary[@]}"
	echo "# $skipped skipped; $((SECONDS - start)) s; logs in ${logs#"$top"/}/"
	echo "# harness self-tests: $h_passed passed, $h_failed failed"
	echo "# smoke checks: $s_passed passed, $s_failed failed"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$h_failed" -eq 0 ] && [ "$s_failed" -eq 0 ]
}

# Sourced (by check-debug.sh, for tap_count, account and step): define only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
