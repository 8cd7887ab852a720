#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# callout.ko with a kernel client, callout_client.ko (modules/callout_client.c):
#  - unload: while the client holds callouts (re-arming themselves every few
#    ticks, and a far timeout()), rmmod callout is refused (the client uses
#    its symbols); the client's exit cancels them and nothing of it runs
#    after; then rmmod callout succeeds, and it is loaded again with
#    $CALLOUT_PARAMS for the tests that follow;
#  - stall: callout's tick held off for 50 ms on a CPU with callouts due:
#    a kthread bound there spins with BHs off at SCHED_FIFO 50, above
#    PREEMPT_RT's ktimers/N (on 7.x-rt, BHs off alone no longer keep that
#    thread off): all fire once, in the first run after, none early, none
#    during it, the lateness in debugfs;
#  - backlog: 100000 callouts due at once ($CALLOUT_BACKLOG), held off the
#    same way, are run in softirq runs of at most 1024, recorded as
#    deferred_runs in debugfs;
#  - burst: $CALLOUT_BURST callouts (default 20000) due at one tick on one
#    CPU, set 2 s ahead: all fire once, none early, and those filed in
#    the wheel (at least 1024, else a skip) are collected 256 at a time under
#    the base lock, so collect_stopped in debugfs grows by at least
#    filed / 256 - 1 (the path is taken); the longest collection,
#    collect_max_ns, is shown;
#  - offline: 3000 callouts pending on a CPU that goes offline and comes
#    back: all fire once, none early, moved in chunks (moved_offline); then
#    again under lawn with 4 queues, armed in 16 groups for one interval:
#    the wheel they move to refuses most and parks them (parked), and
#    still all fire once, none early;
#  - rearm0: 2000 funcs setting themselves again for 0 ticks do not keep
#    the softirq: runs of at most 1024, in several softirq invocations.
# The module checks what it can see itself and fails its load otherwise.

stats=/sys/kernel/debug/callout/stats
ko_dir=/lib/modules/$(uname -r)/extra
backlog=${CALLOUT_BACKLOG:-100000}
burst=${CALLOUT_BURST:-20000}
n=0 failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $*"
}

not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $*"
}

# stat KEY: a value of the debugfs stats
stat() {
	sed -n "s/^$1: //p" "$stats"
}

echo "TAP version 13"
if [ ! -d /sys/module/callout ] || [ ! -r "$ko_dir/callout_client.ko" ]; then
	echo "1..0 # SKIP callout.ko not loaded or no callout_client.ko"
	exit 4
fi
if [ ! -r "$stats" ]; then
	echo "1..0 # SKIP no $stats (needs root and debugfs)"
	exit 4
fi
echo "1..10"

# --- unload with a kernel client holding callouts
pending0=$(stat pending)
if insmod "$ko_dir/callout_client.ko" hold=1000; then
	# Its funcs run: wait for 1000 of them (a busy host may take a while;
	# 10 s says they do not run).
	expired0=$(stat expired)
	i=0
	while [ $(($(stat expired) - expired0)) -lt 1000 ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	expired1=$(stat expired)
	if [ -e /sys/module/callout/holders/callout_client ] &&
	   [ $((expired1 - expired0)) -ge 1000 ] &&
	   ! rmmod callout 2>/dev/null && [ -d /sys/module/callout ]; then
		ok "unload: refused while a kernel client holds callouts" \
			"($((expired1 - expired0)) of its funcs ran first)"
	else
		not_ok "unload: holders $(ls /sys/module/callout/holders)," \
			"$((expired1 - expired0)) funcs in $((i * 100)) ms, callout" \
			"$([ -d /sys/module/callout ] && echo loaded || echo gone)"
	fi
	if rmmod callout_client; then
		expired0=$(stat expired)
		sleep 0.1
		expired1=$(stat expired)
		pending1=$(stat pending)
		if [ "$expired0" = "$expired1" ] && [ "$pending1" = "$pending0" ]; then
			ok "unload: the client's exit leaves nothing pending or running"
		else
			not_ok "unload: after the client's exit: pending $pending1" \
				"(was $pending0), expired $expired0 -> $expired1"
		fi
	else
		not_ok "unload: rmmod callout_client"
	fi
else
	not_ok "unload: insmod callout_client.ko hold=1000"
	not_ok "unload: the client's exit # not run"
fi
if [ -e /sys/module/callout_client ]; then
	not_ok "unload: rmmod callout right after # the client is still loaded"
elif rmmod callout; then
	ok "unload: rmmod callout succeeds once the client is gone"
else
	not_ok "unload: rmmod callout after the client's exit"
fi
if [ ! -d /sys/module/callout ]; then
	# shellcheck disable=SC2086 # CALLOUT_PARAMS is a list of k=v words
	insmod "${CALLOUT_KO:-$ko_dir/callout.ko}" $CALLOUT_PARAMS ||
		not_ok "insmod callout.ko $CALLOUT_PARAMS again"
fi

# --- stall: 1000 callouts held back 50 ms, all at least 16 ms late
late0=$(stat lateness_us_ge_16384)
if insmod "$ko_dir/callout_client.ko" test=stall n=1000 stall_ms=50; then
	cpu=$(cat /sys/module/callout_client/parameters/cpu)
	late1=$(stat "cpu${cpu}_lateness_us_ge_16384")
	late_all=$(stat lateness_us_ge_16384)
	# the per-CPU bucket holds at least the 1000 of this test
	if [ $((late_all - late0)) -ge 1000 ] && [ "$late1" -ge 1000 ]; then
		ok "stall: 1000 callouts fire in the first run after the tick" \
			"was held off 50 ms, none early, lateness recorded"
	else
		not_ok "stall: lateness_us_ge_16384 grew by $((late_all - late0))," \
			"want >= 1000"
	fi
	rmmod callout_client
else
	not_ok "stall: callout_client test=stall failed (see dmesg)"
fi
dmesg | grep 'callout_client: stall' | sed 's/^/# /'

# --- backlog: worked off in bounded runs
deferred0=$(stat deferred_runs)
expired0=$(stat expired)
if insmod "$ko_dir/callout_client.ko" test=backlog n="$backlog"; then
	deferred=$(($(stat deferred_runs) - deferred0))
	expired=$(($(stat expired) - expired0))
	min=$(((backlog + 1023) / 1024 - 1))
	if [ "$deferred" -ge "$min" ] && [ "$expired" -ge "$backlog" ]; then
		ok "backlog: $backlog due callouts in runs of <= 1024," \
			"$deferred deferred_runs"
	else
		not_ok "backlog: deferred_runs +$deferred (want >= $min)," \
			"expired +$expired (want >= $backlog)"
	fi
	rmmod callout_client
else
	not_ok "backlog: callout_client test=backlog failed (see dmesg)"
fi
dmesg | grep 'callout_client: backlog' | sed 's/^/# /'

# --- burst: due at one tick, collected a chunk at a time
stopped0=$(stat collect_stopped)
expired0=$(stat expired)
if insmod "$ko_dir/callout_client.ko" test=burst n="$burst"; then
	stopped=$(($(stat collect_stopped) - stopped0))
	expired=$(($(stat expired) - expired0))
	filed=$(cat /sys/module/callout_client/parameters/filed)
	# those in the wheel: a chunk of 256 at a time, all but the last
	# stopping; a host too slow to file four chunks skips the test.
	min=$((filed / 256 - 1))
	if [ "$filed" -lt 1024 ]; then
		ok "burst # SKIP host too slow: $filed of $burst filed in time"
	elif [ "$stopped" -ge "$min" ] && [ "$expired" -ge "$burst" ]; then
		ok "burst: $burst callouts due at one tick ($filed in the" \
			"wheel), collected <= 256 at a time ($stopped" \
			"collect_stopped), longest collection" \
			"$(stat collect_max_ns) ns"
	else
		not_ok "burst: $filed of $burst in the wheel, collect_stopped" \
			"+$stopped (want >= $min), expired +$expired" \
			"(want >= $burst)"
	fi
	rmmod callout_client
else
	not_ok "burst: callout_client test=burst failed (see dmesg)"
fi
dmesg | grep 'callout_client: burst' | sed 's/^/# /'

# --- offline: a CPU goes down with callouts pending
moved0=$(stat moved_offline)
insmod "$ko_dir/callout_client.ko" test=offline n=3000 2>/dev/null
rc=$?
moved=$(($(stat moved_offline) - moved0))
if dmesg | tail -n 20 | grep -q 'callout_client: offline: cpu .* cannot go offline'; then
	ok "offline # SKIP no CPU can go offline here"
elif dmesg | tail -n 20 | grep -q 'callout_client: offline: host too slow'; then
	ok "offline # SKIP host too slow to arm 3000 callouts in 10 s"
elif [ "$rc" -eq 0 ] && [ "$moved" -ge 3000 ]; then
	ok "offline: 3000 pending callouts moved off a CPU going down" \
		"($moved moved_offline), all fired once, none early"
	rmmod callout_client
else
	not_ok "offline: insmod status $rc, moved_offline +$moved (want >= 3000)"
	[ -e /sys/module/callout_client ] && rmmod callout_client
fi
dmesg | grep 'callout_client: offline' | sed 's/^/# /'

# --- offline under lawn with 4 queues: what the new wheel refuses is parked
if rmmod callout && insmod "${CALLOUT_KO:-$ko_dir/callout.ko}" scheme=lawn \
	lawn_ttls=4; then
	insmod "$ko_dir/callout_client.ko" test=offline n=3000 groups=16 \
		2>/dev/null
	rc=$?
	parked=$(stat parked)
	moved=$(stat moved_offline)
	if dmesg | tail -n 20 | grep -q 'callout_client: offline: cpu .* cannot go offline'; then
		ok "offline, lawn parks # SKIP no CPU can go offline here"
	elif dmesg | tail -n 20 | grep -q 'callout_client: offline: host too slow'; then
		ok "offline, lawn parks # SKIP host too slow to arm 3000 callouts in 10 s"
	elif [ "$rc" -eq 0 ] && [ "$moved" -ge 3000 ] && [ "$parked" -gt 0 ]; then
		ok "offline, lawn with 4 queues: $parked of $moved moved" \
			"callouts parked, all fired once, none early"
	else
		not_ok "offline, lawn with 4 queues: insmod status $rc," \
			"moved_offline $moved, parked $parked (want > 0)"
	fi
	[ -e /sys/module/callout_client ] && rmmod callout_client
	rmmod callout
else
	not_ok "offline, lawn: reload callout.ko with scheme=lawn lawn_ttls=4"
fi
# shellcheck disable=SC2086 # CALLOUT_PARAMS is a list of k=v words
[ -d /sys/module/callout ] ||
	insmod "${CALLOUT_KO:-$ko_dir/callout.ko}" $CALLOUT_PARAMS ||
	not_ok "insmod callout.ko $CALLOUT_PARAMS again"
dmesg | grep 'callout_client: offline' | tail -n 1 | sed 's/^/# /'

# --- rearm0: funcs that set themselves again for 0 ticks
expired0=$(stat expired)
if insmod "$ko_dir/callout_client.ko" test=rearm0 n=2000 storm_ms=5000; then
	ok "rearm0: 2000 funcs re-arming for 0 ticks, $(($(stat expired) - expired0))" \
		"runs in bounded softirq runs"
	rmmod callout_client
else
	not_ok "rearm0: callout_client test=rearm0 failed (see dmesg)"
fi
dmesg | grep 'callout_client: rearm0' | sed 's/^/# /'

# --- the module is as the next test expects it
if [ -d /sys/module/callout ] && [ ! -e /sys/module/callout_client ]; then
	ok "callout.ko loaded, callout_client.ko unloaded"
else
	not_ok "module state after the test"
fi
[ "$failed" -eq 0 ]
