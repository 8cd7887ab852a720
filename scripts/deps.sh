#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up from Debian's packages, on whatever release this is
# (Debian 12 and 13 are tested): kernel headers, a kernel image for the test
# VM (unpacked with dpkg -x into a cache, skipping update-initramfs), QEMU,
# busybox, and from the linux-source of the release's default kernel the
# kselftest framework, tools/include, tools/lib and checkpatch. Package names
# that differ between releases are asked of apt, never written here: the
# default kernel is the one linux-headers-amd64 depends on, linux-source is
# that kernel's, the clang runtime is that of the release's clang.
#
# Usage: scripts/deps.sh [KVER]...          install everything the project
#                                           needs, plus headers and a VM image
#                                           for each KVER (default: see
#                                           --print-kver); for a kernel only
#                                           Debian's newer suites have
#                                           (backports, sid, experimental),
#                                           its headers from there, on the
#                                           host or in a build root
#                                           (scripts/buildroot.sh)
#        scripts/deps.sh --packages [KVER]...
#                                           the packages only (root's part;
#                                           what a normal user is told to run
#                                           as root)
#        scripts/deps.sh --check [KVER]...  exit 0, silently, if all of that
#                                           is already there (cheap: a few
#                                           dpkg-queries and stats)
#        scripts/deps.sh --print-kver       print the default KVER: the kernel
#                                           of Debian's linux-headers-amd64
#                                           (else the newest generic -amd64
#                                           headers; never -rt or -cloud)
#        scripts/deps.sh --print-matrix     print the kernels of make
#                                           check-matrix, one a line: the
#                                           default, then the newest 6.12
#                                           generic and 6.12 -rt (installed,
#                                           else the newest apt knows), then
#                                           the newest released generic and
#                                           -rt of bookworm-backports,
#                                           trixie-backports and sid (today
#                                           Linux 7.3.4); each once
#        scripts/deps.sh --print-ksrc       print the linux-source tarball the
#                                           cache's files come from
#
# Installing packages needs root: as a normal user, deps.sh uses sudo when
# it works without a password, else it says what to run as root and stops.
# apt's output goes to build/deps.log. The kernel images and the files from
# linux-source go to CALLOUT_CACHE (default: <top>/.cache), as the caller.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}
log=$top/build/deps.log
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
PROGRESS_TAG=deps

# The same on every release.
base_pkgs=(qemu-system-x86 busybox-static cpio sparse xz-utils kmod rsync
	   linux-headers-amd64 clang make gcc libc6-dev
	   valgrind gnuplot-nox shellcheck dkms python3-docutils
	   liburing-dev # callout-bench's io_uring peer (static liburing.a)
	   flex bison libelf-dev bc libssl-dev) # the last five: debug-kernel.sh

# What we take from linux-source. Changing this list, or the source's
# version, makes the next run extract again: the stamp holds a hash of both.
ksrc=$cache/linux-source
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

# depends_on PKG PATTERN: the first of PKG's dependencies matching PATTERN
# (an extended regex), from dpkg if it is installed, else from apt's lists.
depends_on() {
	local d
	d=$(dpkg-query -W -f='${db:Status-Status} ${Depends}\n' "$1" 2>/dev/null |
		sed -n 's/^installed //p')
	[ -n "$d" ] || d=$(apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: //p' | tr '\n' ',')
	d=${d//|/,}
	tr ',' '\n' <<<"$d" | sed 's/^ *//; s/ .*//' | grep -Ex -m 1 "$2" || true
}

# The default kernel, for the build and the VM: the one Debian's
# linux-headers-amd64 depends on (6.1 on Debian 12, 6.12 on Debian 13), so
# that installing another kernel for the matrix does not change everybody's
# default; without that package, the newest installed
# linux-headers-*-amd64 of the generic flavour (-rt and -cloud are there to
# be asked for by name).
newest_headers() {
	local d k
	k=$( (dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true) |
		sed -n 's/^linux-headers-\([^ ,]*-amd64\).*/\1/p')
	if [ -n "$k" ] && [ -d "/usr/src/linux-headers-$k" ]; then
		echo "$k"
		return
	fi
	k=$(for d in /usr/src/linux-headers-*-amd64; do
		case $d in *-rt-amd64|*-cloud-amd64) continue ;; esac
		if [ -d "$d" ]; then echo "${d#/usr/src/linux-headers-}"; fi
	done | sort -V | tail -n 1)
	# Nothing installed yet: the kernel deps.sh would install.
	[ -n "$k" ] || k=$(depends_on linux-headers-amd64 'linux-headers-[0-9].*-amd64')
	echo "${k#linux-headers-}"
}

# The packages whose names depend on the release: linux-source-X.Y of the
# default kernel (the kselftest framework and checkpatch match the kernel
# the VM boots) and the runtime of the release's clang (ASan, libFuzzer).
# Asked of dpkg when installed, else of apt's lists; empty when neither
# knows (no lists yet: apt-get update, then ask again).
release_pkgs() {
	local k c
	k=$(depends_on linux-headers-amd64 'linux-headers-[0-9].*-amd64')
	k=${k#linux-headers-}
	c=$(depends_on clang 'clang-[0-9]+')
	[ -n "$k" ] && [ -n "$c" ] || return 0
	echo "linux-source-$(ksrc_version "$k")"
	echo "libclang-rt-${c#clang-}-dev"
}

# ksrc_version KVER: the X.Y of a kernel version (6.1.0-56-amd64 -> 6.1).
ksrc_version() {
	sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$1"
}

# The tarball our files come from: that of the default kernel.
ksrc_tarball() {
	local k
	k=$(newest_headers)
	[ -n "$k" ] || return 0
	echo "/usr/src/linux-source-$(ksrc_version "$k").tar.xz"
}

ksrc_hash() {
	local t
	t=$(ksrc_tarball)
	{
		echo "$t"
		dpkg-query -W -f='${Version}\n' "$(basename "$t" .tar.xz)" 2>/dev/null
		printf '%s\n' "${ksrc_files[@]}"
	} | md5sum | cut -d' ' -f1
}

# missing_pkgs PKG...: those of PKG not installed.
missing_pkgs() {
	local installed p
	# dpkg-query fails when it knows none of a name: that is an answer.
	installed=$( (dpkg-query -W -f='${Package} ${db:Status-Status}\n' \
		"$@" 2>/dev/null || true) | awk '$2 == "installed" { print $1 }')
	for p in "$@"; do
		grep -qx -- "$p" <<<"$installed" || echo "$p"
	done
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

# The kernels of KVERS whose headers only Debian's newer suites have
# (buildroot.sh need): installed from there or built in a root of their
# release. Asked once, before anything is installed.
newer_kvers=()
is_newer() {
	[[ " ${newer_kvers[*]} " = *" $1 "* ]]
}

kvers=()
mode=all
for arg in "$@"; do
	case $arg in
	--check) mode=check ;;
	--packages) mode=packages ;;
	--print-kver) newest_headers; exit 0 ;;
	--print-ksrc) ksrc_tarball; exit 0 ;;
	--print-matrix)
		m=$(newest_headers; matrix_kver amd64; matrix_kver rt-amd64)
		for f in amd64 rt-amd64; do
			k=$("$top/scripts/buildroot.sh" newest "$f") || exit 1
			if [ -z "$k" ]; then
				echo "deps: no released kernel of flavour $f in" \
					"bookworm-backports, trixie-backports or sid" >&2
				exit 1
			fi
			m+=$'\n'$k
		done
		awk 'NF && !seen[$0]++' <<<"$m"
		exit 0 ;;
	-h|--help) sed -n '3,40s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "deps: unknown option $arg" >&2; exit 2 ;;
	*) kvers+=("$arg") ;;
	esac
done

# The packages still to install, for the default kernel and for KVERS;
# empty when everything is there. Names that depend on the release come
# from apt (release_pkgs): when apt cannot tell yet, "?" stands for them.
pkgs_to_install() {
	local -a rel
	local k
	mapfile -t rel < <(release_pkgs)
	missing_pkgs "${base_pkgs[@]}" "${rel[@]}"
	[ ${#rel[@]} -gt 0 ] || echo "?"
	for k in "${kvers[@]}"; do
		have_headers "$k" || is_newer "$k" || echo "linux-headers-$k"
	done
}

# The cache's part: linux-source's files and a VM image for each kernel.
cache_ready() {
	local k
	[ "$(cat "$ksrc_stamp" 2>/dev/null)" = "$(ksrc_hash)" ] || return 1
	k=$(newest_headers)
	[ -n "$k" ] || return 1
	for k in "$k" "${kvers[@]}"; do
		[ -f "$cache/kernels/$k/vmlinuz" ] || return 1
	done
	for k in "${newer_kvers[@]}"; do
		"$top/scripts/buildroot.sh" ready "$k" || return 1
	done
}

for k in "${kvers[@]}"; do
	if ! have_headers "$k" && "$top/scripts/buildroot.sh" need "$k"; then
		newer_kvers+=("$k")
	fi
done

if [ "$mode" = check ]; then
	[ -z "$(pkgs_to_install)" ] && cache_ready
	exit
fi

# Root's part. A normal user gets sudo when it needs no password; else one
# message naming the command to run as root, at once.
as_root=()
need_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	if sudo -n true 2>/dev/null; then
		as_root=(sudo -n)
		return 0
	fi
	echo "deps: installing Debian packages needs root; as root, run:" \
		"$top/scripts/deps.sh --packages${kvers[*]:+ ${kvers[*]}}" \
		"(then make again)" >&2
	exit 1
}

# build/ and the log belong to whoever owns the tree, also when root runs
# this for a user (--packages): the user's next run writes there too.
owner=("$(stat -c %u "$top")" "$(stat -c %g "$top")")
install -d -o "${owner[0]}" -g "${owner[1]}" "$top/build"
[ -e "$log" ] || install -m 644 -o "${owner[0]}" -g "${owner[1]}" /dev/null "$log"
export DEBIAN_FRONTEND=noninteractive
updated=
apt_update() {
	[ -n "$updated" ] && return 0
	need_root
	logged "$log" "apt-get update" "${as_root[@]}" apt-get update
	updated=1
}

install_pkgs() {
	local -a missing
	mapfile -t missing < <(pkgs_to_install)
	[ ${#missing[@]} -gt 0 ] || return 0
	need_root
	if [[ " ${missing[*]} " = *" ? "* ]]; then
		# A release-dependent name apt cannot tell yet: fresh lists first.
		apt_update
		mapfile -t missing < <(pkgs_to_install)
		if [[ " ${missing[*]} " = *" ? "* ]]; then
			echo "deps: apt knows no linux-headers-amd64 or clang here" >&2
			exit 1
		fi
	fi
	[ ${#missing[@]} -gt 0 ] || return 0
	logged "$log" "installing ${missing[*]}" \
		"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}" || {
		# Lists too old for what they name (a security update): refresh.
		[ -z "$updated" ] || exit 1
		apt_update
		logged "$log" "installing ${missing[*]}" \
			"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
	}
}

# apt takes its own lock. The cache is the caller's: root's --packages run
# never touches it.
install_pkgs
[ "$mode" = packages ] && { echo "deps: packages ready" >&2; exit 0; }

# Two engineers' builds may call us at once: one set-up of the cache at a
# time.
mkdir -p "$cache"
exec 9>"$cache/.deps.lock"
flock 9

# download DIR KVER [WRAPPER]: into DIR, linux-image-KVER's package and those
# of its dependencies named for KVER. Up to 6.x the image has the kernel in
# /boot; from 7.x linux-image-KVER is empty and depends on linux-binary-KVER
# (usr/lib/modules/KVER/vmlinuz) and linux-base-KVER (.../config); the
# modules (linux-modules-KVER) are not needed.
download() {
	local dir=$1 kver=$2 p
	shift 2
	local -a pkgs=("linux-image-$kver")
	for p in $("$@" apt-cache depends "linux-image-$kver" 2>/dev/null |
		   sed -n 's/^ *Depends: //p'); do
		case $p in linux-binary-"$kver" | linux-base-"$kver") pkgs+=("$p") ;; esac
	done
	cd "$dir" && "$@" apt-get download "${pkgs[@]}"
}

# fetch_kernel KVER: the VM's kernel and its config, from linux-image-KVER,
# into $cache/kernels/KVER
fetch_kernel() {
	local kver=$1 dir=$cache/kernels/$1 tmp deb f
	local -a apt=() # our suites' apt for a newer kernel, else the host's
	[ -f "$dir/vmlinuz" ] && return 0
	is_newer "$kver" && apt=("$top/scripts/buildroot.sh")
	tmp=$(mktemp -d)
	logged "$log" "downloading linux-image-$kver for the VM" \
		download "$tmp" "$kver" "${apt[@]}" || {
		is_newer "$kver" && exit 1
		apt_update
		logged "$log" "downloading linux-image-$kver for the VM" \
			download "$tmp" "$kver" ||
			logged "$log" "downloading linux-image-$kver from Debian's newer suites" \
			download "$tmp" "$kver" "$top/scripts/buildroot.sh"
	}
	for deb in "$tmp"/*.deb; do
		dpkg -x "$deb" "$tmp/root"
	done
	mkdir -p "$dir"
	for f in "boot/config-$kver" "usr/lib/modules/$kver/config" ""; do
		[ -n "$f" ] || { echo "deps: no config in linux-image-$kver" >&2; exit 1; }
		[ -f "$tmp/root/$f" ] && { cp "$tmp/root/$f" "$dir/config"; break; }
	done
	for f in "boot/vmlinuz-$kver" "usr/lib/modules/$kver/vmlinuz" ""; do
		[ -n "$f" ] || { echo "deps: no vmlinuz in linux-image-$kver" >&2; exit 1; }
		[ -f "$tmp/root/$f" ] && { cp "$tmp/root/$f" "$dir/vmlinuz.tmp"; break; }
	done
	mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
	rm -rf "$tmp"
}

[ ${#kvers[@]} -gt 0 ] || kvers=("$(newest_headers)")
for kver in "${kvers[@]}"; do
	fetch_kernel "$kver"
done
for kver in "${newer_kvers[@]}"; do
	"$top/scripts/buildroot.sh" create "$kver"
done

# The kselftest framework, tools/ and checkpatch ship only in linux-source.
hash=$(ksrc_hash)
if [ "$(cat "$ksrc_stamp" 2>/dev/null)" != "$hash" ]; then
	tarball=$(ksrc_tarball)
	rm -rf "$ksrc" "$ksrc.tmp"
	mkdir -p "$ksrc.tmp"
	logged "$log" "extracting kselftest, tools/ and checkpatch from $tarball" \
		tar -xJf "$tarball" -C "$ksrc.tmp" --strip-components=1 \
		"${ksrc_files[@]/#/$(basename "$tarball" .tar.xz)/}"
	echo "$hash" >"$ksrc.tmp/.extracted"
	mv "$ksrc.tmp" "$ksrc"
fi
echo "deps: ready (kernel ${kvers[*]}, $(basename "$(ksrc_tarball)" .tar.xz))" >&2
