#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up from Debian's packages: kernel headers, a kernel image for
# the test VM (unpacked with dpkg -x into a cache, skipping update-initramfs),
# QEMU, busybox, the kselftest framework, tools/include, tools/lib and
# checkpatch from linux-source-6.1.
#
# Usage: scripts/deps.sh [KVER]...          install everything the project
#                                           needs, plus headers and a VM image
#                                           for each KVER (default: see
#                                           --print-kver)
#        scripts/deps.sh --check [KVER]...  exit 0, silently, if all of that
#                                           is already there (cheap: one
#                                           dpkg-query and a few stats)
#        scripts/deps.sh --print-kver       print the default KVER: the kernel
#                                           of Debian's linux-headers-amd64
#                                           (else the newest generic -amd64
#                                           headers; never -rt or -cloud)
#        scripts/deps.sh --print-matrix     print the kernels of make
#                                           check-matrix, one a line: the
#                                           default, then the newest 6.12
#                                           generic and 6.12 -rt (installed,
#                                           else the newest apt knows)
#
# CALLOUT_CACHE (default: <top>/.cache) is where the kernel images and the
# files from linux-source go.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}

need_pkgs=(qemu-system-x86 busybox-static cpio sparse xz-utils kmod rsync
	   linux-headers-amd64 linux-source-6.1 make gcc libc6-dev
	   valgrind clang libclang-rt-14-dev gnuplot-nox shellcheck dkms
	   python3-docutils
	   flex bison libelf-dev bc libssl-dev) # the last five: debug-kernel.sh

# What we take from linux-source-6.1. Changing this list makes the next run
# extract again: the stamp holds a hash of the list.
ksrc_ver=6.1
ksrc=$cache/linux-source-$ksrc_ver
ksrc_files=(
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest_module.h
	tools/testing/selftests/lib.mk
	tools/testing/selftests/run_kselftest.sh
	tools/testing/selftests/kselftest
	tools/include
	tools/lib
	tools/arch/x86/include
	scripts/checkpatch.pl
	scripts/spelling.txt
	scripts/const_structs.checkpatch
	scripts/kernel-doc
)
ksrc_stamp=$ksrc/.extracted
ksrc_hash=$(printf '%s\n' "$ksrc_ver" "${ksrc_files[@]}" | md5sum | cut -d' ' -f1)

missing_pkgs() {
	# One dpkg-query for the lot; a package it does not know is missing too.
	local installed
	# dpkg-query fails when it knows none of a name: that is an answer.
	installed=$( (dpkg-query -W -f='${Package} ${db:Status-Status}\n' \
		"${need_pkgs[@]}" 2>/dev/null || true) |
		awk '$2 == "installed" { print $1 }')
	for p in "${need_pkgs[@]}"; do
		grep -qx -- "$p" <<<"$installed" || echo "$p"
	done
}

# The default kernel, for the build and the VM: the one Debian's
# linux-headers-amd64 depends on (6.1 on Debian 12), so that installing a
# 6.12 kernel for the matrix does not change everybody's default; without
# that package, the newest installed linux-headers-*-amd64 of the generic
# flavour (-rt and -cloud are there to be asked for by name).
newest_headers() {
	local d k
	k=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's/^linux-headers-\([^ ,]*-amd64\).*/\1/p')
	if [ -n "$k" ] && [ -d "/usr/src/linux-headers-$k" ]; then
		echo "$k"
		return
	fi
	for d in /usr/src/linux-headers-*-amd64; do
		case $d in *-rt-amd64|*-cloud-amd64) continue ;; esac
		if [ -d "$d" ]; then echo "${d#/usr/src/linux-headers-}"; fi
	done | sort -V | tail -n 1
}

# matrix_kver FLAVOUR: the newest installed 6.12 kernel of FLAVOUR (amd64,
# rt-amd64), else the newest apt knows of.
matrix_kver() {
	local k
	k=$(for d in /usr/src/linux-headers-6.12.*; do
		if [ -d "$d" ]; then echo "${d#/usr/src/linux-headers-}"; fi
	done | flavour "$1")
	[ -n "$k" ] || k=$(apt-cache pkgnames linux-headers-6.12. 2>/dev/null |
		sed 's/^linux-headers-//' | flavour "$1")
	echo "$k"
}

# flavour FLAVOUR: of the kernel versions on stdin, the newest of FLAVOUR.
flavour() {
	local k f
	while read -r k; do
		case $k in
		*-rt-amd64) f=rt-amd64 ;;
		*-cloud-amd64) f=cloud-amd64 ;;
		*-amd64) f=amd64 ;;
		*) continue ;;
		esac
		if [ "$f" = "$1" ]; then echo "$k"; fi
	done | sort -V | tail -n 1
}

# A kernel built from source brings its tree: $cache/kernels/KVER/build.
have_headers() {
	[ -d "/usr/src/linux-headers-$1" ] || [ -d "$cache/kernels/$1/build" ]
}

kvers=()
check=
for arg in "$@"; do
	case $arg in
	--check) check=1 ;;
	--print-kver) newest_headers; exit 0 ;;
	--print-matrix) newest_headers; matrix_kver amd64; matrix_kver rt-amd64; exit 0 ;;
	-h|--help) sed -n '3,26s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "deps: unknown option $arg" >&2; exit 2 ;;
	*) kvers+=("$arg") ;;
	esac
done

ready() {
	local k
	[ -z "$(missing_pkgs)" ] || return 1
	[ "$(cat "$ksrc_stamp" 2>/dev/null)" = "$ksrc_hash" ] || return 1
	if [ ${#kvers[@]} -eq 0 ]; then
		k=$(newest_headers)
		[ -n "$k" ] || return 1
		set -- "$k"
	else
		set -- "${kvers[@]}"
	fi
	for k in "$@"; do
		have_headers "$k" && [ -f "$cache/kernels/$k/vmlinuz" ] || return 1
	done
}

if [ -n "$check" ]; then
	ready
	exit
fi

# Two engineers' builds may call us at once: one set-up at a time.
mkdir -p "$cache"
exec 9>"$cache/.deps.lock"
flock 9
ready && { echo "deps: ready (kernel ${kvers[*]:-$(newest_headers)})"; exit 0; }

export DEBIAN_FRONTEND=noninteractive
updated=
apt_update() {
	[ -n "$updated" ] && return 0
	apt-get update -qq
	updated=1
}

mapfile -t missing < <(missing_pkgs)
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	apt_update
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# fetch_kernel KVER: unpack linux-image-KVER into $cache/kernels/KVER
fetch_kernel() {
	local kver=$1 dir=$cache/kernels/$1 tmp
	[ -f "$dir/vmlinuz" ] && return 0
	echo "deps: unpacking linux-image-$kver for the VM"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq "linux-image-$kver" 2>/dev/null) || {
		apt_update
		(cd "$tmp" && apt-get download -qq "linux-image-$kver")
	}
	dpkg -x "$tmp"/linux-image-*.deb "$tmp/root"
	mkdir -p "$dir"
	cp "$tmp/root/boot/config-$kver" "$dir/config"
	cp "$tmp/root/boot/vmlinuz-$kver" "$dir/vmlinuz.tmp"
	mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	rm -rf "$tmp"
}

# Extra kernels named on the command line (e.g. for the 6.12 matrix).
[ ${#kvers[@]} -gt 0 ] || kvers=("$(newest_headers)")
for kver in "${kvers[@]}"; do
	have_headers "$kver" || {
		echo "deps: installing linux-headers-$kver"
		apt_update
		apt-get install -y -qq --no-install-recommends "linux-headers-$kver" >/dev/null
	}
	fetch_kernel "$kver"
done

# The kselftest framework, tools/ and checkpatch ship only in linux-source.
if [ "$(cat "$ksrc_stamp" 2>/dev/null)" != "$ksrc_hash" ]; then
	echo "deps: extracting kselftest, tools/include, tools/lib and checkpatch from linux-source-$ksrc_ver"
	tar -xJf "/usr/src/linux-source-$ksrc_ver.tar.xz" -C "$cache" \
		"${ksrc_files[@]/#/linux-source-$ksrc_ver/}"
	echo "$ksrc_hash" >"$ksrc_stamp"
fi
echo "deps: ready (kernel ${kvers[*]})"
