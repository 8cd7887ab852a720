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
#
# Exits with CMD's status; the load ends with it (also on an interrupt).
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -gt 0 ] || { sed -n '4,13s/^# \{0,1\}//p' "$0"; exit 2; }

pids=()
# shellcheck disable=SC2317 # the EXIT trap calls it
stop_load() {
	local p
	for p in "${pids[@]}"; do
		kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap stop_load EXIT
trap 'exit 130' INT TERM

# The guest is the test VM: it needs callout.ko.
make -s -C "$top" modules selftests >/dev/null
# Each in its own process group, so that stop_load ends all it started.
set -m
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	pids+=($!)
done
CALLOUT_VM_TIMEOUT=86400 CALLOUT_VM_NOBUILD=1 "$top/scripts/vm.sh" run --smp 2 -- \
	sh -c 'while :; do :; done & while :; do :; done' >/dev/null 2>&1 &
pids+=($!)
set +m
sleep 5
kill -0 "${pids[2]}" 2>/dev/null || { echo "under-load: the busy guest did not start" >&2; exit 2; }
echo "under-load: two host busy loops and a busy 2-vCPU guest (pids ${pids[*]})" >&2

rc=0
"$@" || rc=$?
exit "$rc"
