#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A base's tick runs on its own CPU. A callout set on CPU Y may stay on the
# base of CPU X in two ways: Y's base lock is busy (the set does not wait
# for it), or the callout's func runs on X at that moment. Either way X's
# hrtimer may have to fire earlier; Y must not start it itself (a pinned
# hrtimer started on Y moves to Y, and X's funcs would run there) but kick
# X. callout_client.ko test=remote (modules/callout_client.c) takes both
# ways, from two threads on two CPUs, for a second a round, in up to 30
# rounds until each way has been taken 100 times (debugfs
# remote_stays_lock_busy, remote_stays_func_running). The one case, the only
# thing here callout can fail, is that no tick ran on another CPU than its
# base's meanwhile (ticks_off_cpu, which the tick also reports with a WARN:
# any WARN fails the VM run). How often each way was taken and the kicks
# sent instead are reported, not counted: reaching the ways is the test's
# doing, not callout's. Both need the two vCPUs to run at once (or one to be
# descheduled by the host inside a base lock): a host so busy that neither
# way is ever taken makes the case a SKIP saying so, not a pass.

stats=/sys/kernel/debug/callout/stats
ko_dir=/lib/modules/$(uname -r)/extra
rounds=${CALLOUT_REMOTE_ROUNDS:-30}
want=100
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
if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 2 ]; then
	echo "1..0 # SKIP needs two online CPUs"
	exit 4
fi
echo "1..1"

busy0=$(stat remote_stays_lock_busy)
running0=$(stat remote_stays_func_running)
kicks0=$(stat kicks)
off0=$(stat ticks_off_cpu)
i=0 loaded=0 busy=0 running=0
while [ $i -lt "$rounds" ]; do
	i=$((i + 1))
	if ! insmod "$ko_dir/callout_client.ko" test=remote remote_ms=1000; then
		break
	fi
	loaded=$((loaded + 1))
	rmmod callout_client
	busy=$(($(stat remote_stays_lock_busy) - busy0))
	running=$(($(stat remote_stays_func_running) - running0))
	[ "$busy" -ge $want ] && [ "$running" -ge $want ] && break
done
kicks=$(($(stat kicks) - kicks0))
off=$(($(stat ticks_off_cpu) - off0))
dmesg | grep 'callout_client: remote' | tail -n 3 | sed 's/^/# /'
echo "# $loaded rounds: remote_stays_lock_busy +$busy," \
	"remote_stays_func_running +$running, kicks +$kicks, ticks_off_cpu +$off"

[ "$busy" -gt 0 ] || echo "# no set found its own base lock busy"
[ "$running" -gt 0 ] || echo "# no set found its callout's func running on another CPU"
if [ "$loaded" -ne "$i" ]; then
	not_ok "callout_client.ko test=remote failed to load in round $i (see dmesg)"
elif [ "$off" -ne 0 ]; then
	not_ok "ticks_off_cpu +$off, want 0: a tick ran off its base's CPU (kicks +$kicks)"
elif [ "$busy" -eq 0 ] && [ "$running" -eq 0 ]; then
	ok "no set left a callout on another CPU's base in $loaded rounds" \
		"# SKIP the two vCPUs never ran at once"
else
	ok "every tick ran on its base's CPU; other CPUs were kicked $kicks times"
fi
[ "$failed" -eq 0 ]
