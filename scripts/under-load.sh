#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# under-load.sh - run a command while the host is as busy as a shared CI
# machine gets: two busy loops on the host and a second test VM keeping its
# two vCPUs busy. Tests must not depend on the host's speed; this is how to
# look for the ones that do (Documentation/testing.rst).
#
# Usage: scripts/under-load.sh CMD [ARG]...   e.g.
#        scripts/under-load.sh make check
#        scripts/under-load.sh scripts/vm.sh run -- sh -c '...'
#        KVER=7.2.13+deb14-rt-amd64 scripts/under-load.sh \
#                scripts/vm.sh run --kernel 7.2.13+deb14-rt-amd64 -- ...
#
# KVER (as for make) is the kernel of the busy guest too, which loads the
# callout.ko built for it. Exits with CMD's status; the load ends with it
# (also on an interrupt).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -gt 0 ] || { sed -n '4,18s/^# \{0,1\}//p' "$0"; exit 2; }

# Each load in a session of its own (setsid), so that stop_load ends all
# it started: vm.sh's timeout(1) puts QEMU in a process group of its own.
sids=()
# shellcheck disable=SC2317 # the EXIT trap calls it
stop_load() {
	local s
	for s in "${sids[@]}"; do
		pkill -TERM -s "$s" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap stop_load EXIT
trap 'exit 130' INT TERM

# The guest is the test VM: it needs callout.ko.
make -s -C "$top" modules selftests >/dev/null
for _ in 1 2; do
	setsid sh -c 'while :; do :; done' &
	sids+=($!)
done
CALLOUT_VM_TIMEOUT=86400 CALLOUT_VM_NOBUILD=1 setsid "$top/scripts/vm.sh" run --smp 2 \
	${KVER:+--kernel "$KVER"} -- \
	sh -c 'while :; do :; done & while :; do :; done' >/dev/null 2>&1 &
sids+=($!)
sleep 5
kill -0 "${sids[2]}" 2>/dev/null || { echo "under-load: the busy guest did not start" >&2; exit 2; }
echo "under-load: two host busy loops and a busy 2-vCPU guest (sessions ${sids[*]})" >&2

rc=0
"$@" || rc=$?
exit "$rc"
