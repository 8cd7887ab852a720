#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The in-kernel API of callout.ko (module/callout_test.c), loaded by
# kselftest's module.sh: the module runs its tests at load.
"$(dirname "$0")"/../kselftest/module.sh "callout in-kernel API" callout_test
rc=$?
# module.sh's modprobe -r also unloads callout.ko, which callout_test used:
# load it back as the VM had it, for the tests that follow.
if [ ! -d /sys/module/callout ]; then
	# shellcheck disable=SC2086 # CALLOUT_PARAMS is a list of k=v words
	insmod "${CALLOUT_KO:-/lib/modules/$(uname -r)/extra/callout.ko}" \
		$CALLOUT_PARAMS || rc=1
fi
exit $rc
