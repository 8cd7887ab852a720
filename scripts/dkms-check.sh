#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh - what `make dkms-check` runs: prove that dkms.conf builds
# and installs callout.ko for each kernel, the way a user would:
#
#	dkms add <src> && dkms build -k KVER && dkms install -k KVER
#
# in throwaway DKMS trees under a temporary directory (--dkmstree,
# --sourcetree, --installtree; no depmod of /lib/modules), with a throwaway
# PACKAGE_VERSION, then boot each KVER in the test VM with the installed
# module, loaded as the VM loads callout.ko. Nothing of it stays on the host;
# a DKMS signing key (/var/lib/dkms/mok.*) that DKMS generated for the run
# is removed again. Prints TAP; exits non-zero if any step failed.
#
# Usage: scripts/dkms-check.sh [KVER]...   (default: the first two kernels
#                                          of deps.sh --print-matrix, 6.1 and
#                                          6.12)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CALLOUT_CACHE=${CALLOUT_CACHE:-$top/.cache}

kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	mapfile -t kvers < <("$top/scripts/deps.sh" --print-matrix | head -n 2)
fi
"$top/scripts/deps.sh" --check "${kvers[@]}" || "$top/scripts/deps.sh" "${kvers[@]}"
command -v dkms >/dev/null || { echo "dkms-check: no dkms: run make deps" >&2; exit 2; }

tmp=$(mktemp -d)
ver=0.0.check$$
mok=/var/lib/dkms/mok
# One run at a time: the signing key is shared.
mkdir -p "$CALLOUT_CACHE"
exec 9>"$CALLOUT_CACHE/.dkms-check.lock"
flock 9
mok_was=
[ -f "$mok.key" ] && mok_was=y
cleanup() {
	rm -rf "$tmp"
	[ -n "$mok_was" ] || rm -f "$mok.key" "$mok.pub"
}
trap cleanup EXIT

# The sources as a user's checkout has them: tracked and new files.
src=$tmp/callout
mkdir -p "$src"
git -C "$top" ls-files -z -co --exclude-standard |
	(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"
sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf"
trees=(--dkmstree "$tmp/dkms" --sourcetree "$tmp/src" --installtree "$tmp/lib/modules")
mkdir -p "$tmp/dkms" "$tmp/src"

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n $*"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n $*"
}
# run LOG CMD...: CMD's output to LOG, shown only when it fails.
run() {
	local log=$1
	shift
	if "$@" >"$log" 2>&1; then
		return 0
	fi
	sed 's/^/# /' "$log"
	return 1
}

echo "TAP version 13"
echo "1..$((1 + 4 * ${#kvers[@]}))"
if run "$tmp/add.log" dkms add "${trees[@]}" "$src"; then
	ok "dkms add: callout/$ver"
else
	not_ok "dkms add"
fi
for k in "${kvers[@]}"; do
	mkdir -p "$tmp/lib/modules/$k"
	if ! run "$tmp/build.log" dkms build "${trees[@]}" -m callout -v "$ver" -k "$k"; then
		not_ok "dkms build -k $k"
		n=$((n + 3)) failed=$((failed + 3))
		continue
	fi
	ok "dkms build -k $k"
	if ! run "$tmp/install.log" dkms install "${trees[@]}" --no-depmod \
			-m callout -v "$ver" -k "$k"; then
		not_ok "dkms install -k $k"
		n=$((n + 2)) failed=$((failed + 2))
		continue
	fi
	ko=$(find "$tmp/lib/modules/$k/updates/dkms" -name 'callout.ko*' | head -n 1)
	if [ -z "$ko" ]; then
		not_ok "dkms install -k $k: no updates/dkms/callout.ko"
		n=$((n + 1)) failed=$((failed + 1))
		continue
	fi
	ok "dkms install -k $k: ${ko#"$tmp/lib/modules/"}"
	vermagic=$(modinfo -F vermagic "$ko")
	signer=$(modinfo -F signer "$ko" || true)
	# DKMS signs when the kernel's sign-file is there, as Debian's is.
	if [ "${vermagic%% *}" != "$k" ]; then
		not_ok "modinfo $k: vermagic ${vermagic%% *}"
	elif [ -z "$signer" ] && grep -q '^Signing key:' "$tmp/build.log"; then
		not_ok "modinfo $k: DKMS said it signed, the module has no signature"
	else
		ok "modinfo $k: vermagic $k, signer '${signer:-none}'"
	fi
	# The VM loads the top directory's callout.ko: give it the installed one.
	vmtop=$tmp/vm-$k
	mkdir -p "$vmtop"
	cp -a "$top/scripts" "$vmtop/"
	case $ko in
	*.xz) xz -dc "$ko" >"$vmtop/callout.ko" ;;
	*.zst) zstd -qdc "$ko" >"$vmtop/callout.ko" ;;
	*) cp "$ko" "$vmtop/callout.ko" ;;
	esac
	if run "$tmp/vm.log" env CALLOUT_VM_NOBUILD=1 "$vmtop/scripts/vm.sh" run \
			--kernel "$k" -- sh -c 'test -c /dev/callout &&
			grep -qx hashed /sys/module/callout/parameters/scheme'; then
		ok "VM $k: the DKMS-installed callout.ko loads, /dev/callout, unloads"
	else
		not_ok "VM $k: the DKMS-installed callout.ko"
	fi
done
run "$tmp/remove.log" dkms remove "${trees[@]}" --no-depmod -m callout -v "$ver" --all || true
echo "# dkms-check: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
