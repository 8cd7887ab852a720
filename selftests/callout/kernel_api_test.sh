#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The in-kernel API of callout.ko (modules/callout_test.c), loaded by
# kselftest's module.sh: the module runs its tests at load, among them a race
# of untimeout() against reuse of $KRACE_MS milliseconds (default 1000; 0
# skips it), then a torture of $KTORTURE_MS milliseconds (default 3000; 0
# skips it), whose "race:" and "torture:" lines from dmesg are shown here.
# The load, and so this test, fails on any discrepancy.
torture_ms=${KTORTURE_MS:-3000}
race_ms=${KRACE_MS:-1000}
dmesg_before=$(dmesg | wc -l)
"$(dirname "$0")"/../kselftest/module.sh "callout in-kernel API" callout_test \
	torture_ms="$torture_ms" race_ms="$race_ms"
rc=$?
dmesg | tail -n +"$((dmesg_before + 1))" | grep -E 'callout_test: (race|torture)' |
	sed 's/^/# /'
if [ "$race_ms" -gt 0 ] &&
   ! dmesg | tail -n +"$((dmesg_before + 1))" | grep -q 'callout_test: race: .* unbalanced keys'; then
	echo "# no race summary in dmesg"
	rc=1
fi
if [ "$torture_ms" -gt 0 ] &&
   ! dmesg | tail -n +"$((dmesg_before + 1))" | grep -q 'callout_test: torture: early'; then
	echo "# no torture summary in dmesg"
	rc=1
fi
# module.sh's modprobe -r also unloads callout.ko, which callout_test used:
# load it back as the VM had it, for the tests that follow.
if [ ! -d /sys/module/callout ]; then
	# shellcheck disable=SC2086 # CALLOUT_PARAMS is a list of k=v words
	insmod "${CALLOUT_KO:-/lib/modules/$(uname -r)/extra/callout.ko}" \
		$CALLOUT_PARAMS || rc=1
fi
exit $rc
