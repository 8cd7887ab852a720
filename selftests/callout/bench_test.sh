#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A tiny run of both benchmarks (callout_bench.ko through debugfs, and
# tools/callout-bench), so that make bench cannot rot between runs. It
# checks the structure of what they print and that the counts agree, never
# the speed: timing claims live in make bench, not in pass/fail tests.
# Counts are less than one batch or whole batches (of 100 in the kernel,
# 200 in user space), so each line reports the count asked for.
# Every case is a smoke check ("ok N smoke: ..."): it proves that the
# benchmarks still run and print what scripts/bench.sh parses, which no
# defect of callout's logic breaks that the other tests would not catch
# first, so make check counts them apart from callout's test cases.
B=/sys/kernel/debug/callout/bench
dir=$(dirname "$0")
n=0 fail=0

echo "TAP version 13"
echo "1..19"

ok() {	# ok DESC CONDITION-STATUS
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n smoke: $1"; else echo "not ok $n smoke: $1"; fail=1; fi
}
skip() {
	n=$((n + 1))
	echo "ok $n smoke: $1 # SKIP $2"
}
# has LINE KEY=VALUE...: every pair is in LINE; KEY=~ means a number
has() {
	line=" $1 "
	shift
	for kv in "$@"; do
		case $kv in
		*=~) echo "$line" | grep -Eq " ${kv%=~}=-?[0-9]+(\.[0-9]+)? " || return 1 ;;
		*) case $line in *" $kv "*) ;; *) return 1 ;; esac ;;
		esac
	done
}
# kb CMD: run one in-kernel bench command, print its line
kb() {
	echo "$*" >$B && cat $B
}

# The in-kernel half is a module of its own: load it after callout.ko, and
# unload it at the end so that callout.ko can still be unloaded.
if [ -d /sys/module/callout ] && [ ! -d /sys/module/callout_bench ]; then
	if ! insmod "/lib/modules/$(uname -r)/extra/callout_bench.ko"; then
		echo "not ok 1 insmod callout_bench.ko"
		exit 1
	fi
	trap 'rmmod callout_bench' EXIT
fi
if [ ! -w $B ]; then
	echo "# $B is missing: callout.ko not loaded or debugfs not mounted"
	echo "1..0 # SKIP no $B"
	exit 4
fi
scheme=$(grep '^scheme: ' /sys/kernel/debug/callout/stats | cut -d' ' -f2)

for s in hashed bsd lawn; do
	l=$(kb wheel scheme=$s n=100 reps=64 ticks=32)
	has "$l" test=wheel scheme=$s n=100 pending=100 ticks=32 pair_ns=~ tick_ns=~ \
		examined_per_tick=~
	ok "wheel scheme=$s: $l" $?
done
l=$(kb burst scheme=hierarchical n=200)
has "$l" test=burst scheme=hierarchical n=200 expired=200 expire_ns=~
ok "burst: $l" $?
for t in timer_list hrtimer; do
	l=$(kb $t n=50 reps=64)
	has "$l" test=$t scheme=linux n=50 reps=64 pair_ns=~ setup_ns=~
	ok "$t: $l" $?
done
case $scheme in
simple|lawn)
	skip "handle" "scheme $scheme cannot hold the bench's far times"
	skip "hash" "scheme $scheme cannot hold the bench's far times"
	if echo "handle n=10" 2>/dev/null >$B; then r=1; else r=0; fi
	ok "handle refused on $scheme" $r ;;
*)
	for t in handle hash; do
		l=$(kb $t n=50 reps=64)
		has "$l" test=$t scheme="$scheme" n=50 reps=64 pair_ns=~
		ok "$t: $l" $?
	done
	pending=$(grep '^pending: ' /sys/kernel/debug/callout/stats | cut -d' ' -f2)
	if [ "$pending" = 0 ]; then r=0; else r=1; fi
	ok "handle and hash left nothing pending ($pending)" $r ;;
esac
l=$(kb clock reps=200)
has "$l" test=clock reps=200 read_ns=~ jiffies_ns=~ lock_ns=~
ok "clock: $l" $?
if echo "wheel scheme=nosuch" 2>/dev/null >$B; then r=1; else r=0; fi
ok "an unknown scheme is refused" $r

l=$("$dir"/callout-bench set -n 20 -r 64)
has "$l" test=set iface=callout_set n=20 reps=64 pair_ns=~ setup_ns=~
ok "callout-bench set: $l" $?
l=$("$dir"/callout-bench reset -n 20 -r 64)
has "$l" test=reset iface=callout_reset n=20 reps=64 rearm_ns=~ rearm_random_ns=~
ok "callout-bench reset: $l" $?
l=$("$dir"/callout-bench submit -n 20 -r 64 -b 8)
has "$l" test=submit iface=callout_submit_8 n=20 reps=64 pair_ns=~ rearm_ns=~ \
	rearm_random_ns=~ setup_ns=~
ok "callout-bench submit: $l" $?
l=$("$dir"/callout-bench timerfd -n 20 -r 64)
has "$l" test=timerfd iface=timerfd n=20 pair_ns=~ rearm_ns=~ rearm_random_ns=~
ok "callout-bench timerfd: $l" $?
l=$("$dir"/callout-bench iouring -n 20 -r 64 -b 8)
rc=$?
if [ $rc -eq 4 ]; then
	skip "callout-bench iouring" "no io_uring in this kernel"
else
	has "$l" test=iouring iface=iouring_8 n=20 reps=64 pair_ns=~ \
		rearm_ns=~ rearm_random_ns=~ setup_ns=~
	ok "callout-bench iouring: $l" $?
fi
l=$("$dir"/callout-bench late -n 20 -m 1 -M 20)
has "$l" test=late n=20 callout_early=0 callout_read_early=0 timerfd_early=0 \
	callout_p99_ns=~ timerfd_p99_ns=~
ok "callout-bench late, none early: $l" $?
l=$("$dir"/callout-bench late -n 20 -m 1 -M 20 -b 8)
has "$l" test=late iface=callout_submit_late n=20 batch=8 submit_early=0 \
	submit_user_early=0 submit_p99_ns=~
ok "callout-bench late through SUBMIT, none early: $l" $?
l=$("$dir"/callout-bench unread -n 64 -s 1)
has "$l" test=unread iface=callout_unread n=64 seconds=1 softirq_share=~ \
	funcs=~ owner_cpu_ms=~ &&
	[ "$(echo " $l " | sed -n 's/.* funcs=\([0-9]*\) .*/\1/p')" -le 64 ]
ok "callout-bench unread, at most one func each: $l" $?
exit $fail
