#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up from Debian's packages: kernel headers, a kernel image for
# the test VM (unpacked with dpkg -x into a cache, skipping update-initramfs),
# QEMU, busybox, the kselftest framework and checkpatch from linux-source.
#
# Usage: scripts/deps.sh            install everything the project needs
#        scripts/deps.sh --check    exit 0 if everything is already there
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}
stamp=$cache/deps.stamp

need_pkgs=(qemu-system-x86 busybox-static cpio sparse xz-utils kmod
	   linux-headers-amd64 linux-source-6.1 make gcc libc6-dev
	   valgrind clang libclang-rt-14-dev gnuplot-nox)

missing=()
for p in "${need_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

# The kernel image for the VM is the one matching the newest installed headers.
newest_headers() {
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
		sed 's|/usr/src/linux-headers-||' | sort -V | tail -n 1
}

if [ "${1:-}" = --check ]; then
	[ ${#missing[@]} -eq 0 ] && [ -f "$stamp" ] || exit 1
	kver=$(newest_headers)
	[ -n "$kver" ] && [ -f "$cache/kernels/$kver/vmlinuz" ]
	exit
fi

export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# fetch_kernel KVER: unpack linux-image-KVER into $cache/kernels/KVER
fetch_kernel() {
	local kver=$1 dir=$cache/kernels/$1 tmp
	[ -f "$dir/vmlinuz" ] && return 0
	echo "deps: unpacking linux-image-$kver for the VM"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq "linux-image-$kver" 2>/dev/null ||
		{ apt-get update -qq && apt-get download -qq "linux-image-$kver"; })
	dpkg -x "$tmp"/linux-image-*.deb "$tmp/root"
	mkdir -p "$dir"
	cp "$tmp/root/boot/vmlinuz-$kver" "$dir/vmlinuz"
	cp "$tmp/root/boot/config-$kver" "$dir/config"
	rm -rf "$tmp"
}

# Extra kernels named on the command line (e.g. for the 6.12 matrix).
kvers=("$@")
[ ${#kvers[@]} -gt 0 ] || kvers=("$(newest_headers)")
for kver in "${kvers[@]}"; do
	[ -d "/usr/src/linux-headers-$kver" ] || {
		echo "deps: installing linux-headers-$kver"
		apt-get install -y -qq --no-install-recommends "linux-headers-$kver" >/dev/null
	}
	fetch_kernel "$kver"
done

# The kselftest framework and checkpatch ship only in linux-source.
ksrc=$cache/linux-source-6.1
if [ ! -f "$ksrc/scripts/checkpatch.pl" ] || [ ! -f "$ksrc/tools/lib/find_bit.c" ]; then
	echo "deps: extracting kselftest and checkpatch from linux-source-6.1"
	mkdir -p "$cache"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cache" \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest_module.h \
		linux-source-6.1/tools/testing/selftests/lib.mk \
		linux-source-6.1/tools/testing/selftests/kselftest \
		linux-source-6.1/tools/include \
		linux-source-6.1/tools/lib/rbtree.c \
		linux-source-6.1/tools/lib \
		linux-source-6.1/tools/arch/x86/include \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/scripts/kernel-doc
fi
touch "$stamp"
echo "deps: ready (kernel $(newest_headers))"
