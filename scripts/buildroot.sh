#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# buildroot.sh - kernels newer than this host's Debian: Linux 7.x, from
# Debian's sid and experimental. Their headers need sid's compiler (gcc-16),
# so a module for one of them is built inside a minimal sid root
# (debootstrap --variant=minbase) that holds that kernel's headers, one root
# per kernel, cached outside the tree and made again when the kernel's
# headers package changes. apt is asked about sid with options of this
# script's own (its own sources and lists in the cache), never through the
# system's sources. Everything else (user-space programs, the selftests, the
# VM) stays on the host.
#
# Usage: scripts/buildroot.sh run KVER CMD [ARG]...
#            CMD where modules for KVER are built: directly when the host
#            has KVER's headers, else in KVER's root, in the same directory,
#            with the tree, CALLOUT_CACHE and /tmp at their own paths, as the
#            caller's user; in a private mount namespace, so nothing stays
#            mounted. Needs root or sudo without a password for a root.
#        scripts/buildroot.sh need KVER
#            exit 0 if KVER is a kernel for a build root: the host has no
#            headers for it and its apt does not know them
#        scripts/buildroot.sh root KVER
#            the path of KVER's root if its modules are built in one (run
#            would use it); nothing if they are built here
#        scripts/buildroot.sh ready KVER
#            exit 0 if KVER's root is there and holds the headers sid has
#        scripts/buildroot.sh create KVER
#            make KVER's root unless ready (as root, or with sudo)
#        scripts/buildroot.sh newest FLAVOUR
#            the newest kernel of FLAVOUR (amd64, rt-amd64) in sid itself,
#            not experimental
#        scripts/buildroot.sh apt-get|apt-cache ARG...
#            apt on sid's and experimental's lists (fetched when absent or
#            older than a day)
#
# Environment: CALLOUT_ROOTS  where roots and lists are kept (default
#                             /var/cache/callout; not in the tree)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
# shellcheck source=scripts/apt-sources.sh
. "$top/scripts/apt-sources.sh"
PROGRESS_TAG=buildroot
roots=${CALLOUT_ROOTS:-/var/cache/callout}
state=$roots/sid-apt
log=$roots/buildroot.log

# What a root holds besides debootstrap's minbase and the headers: make for
# Kbuild, sparse for make lint, dkms and openssl (DKMS makes its signing key
# with it) for make dkms-check, libc6-dev to try user space with sid's
# compiler. Changing this, or how a root is made (bump recipe), makes the
# roots again.
root_pkgs=(make sparse dkms openssl libc6-dev)
recipe=1
suites=(sid experimental)

die() {
	echo "buildroot: $*" >&2
	exit 1
}

# as_root CMD...: CMD as root, through sudo when it needs no password.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif sudo -n true 2>/dev/null; then
		sudo -n -E "$@"
	else
		die "$roots (kernels that need a sid build root) needs root;" \
			"as root, run: $top/scripts/deps.sh${kver:+ $kver} (then make again)"
	fi
}

# The host's mirror of Debian, for sid.
archive() {
	local u
	u=$(mirror "$(host_release)" "$(host_release)-updates") ||
		die "no Debian archive in the host's apt sources"
	echo "${u%/}"
}

apt_opts=(-o "Dir::Etc::sourcelist=$state/sources.list" -o Dir::Etc::sourceparts=-
	  -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache"
	  -o Dir::State::status=/dev/null -o Acquire::Check-Valid-Until=false
	  -o Acquire::Languages=none -o Debug::NoLocking=1)

# Our sid lists, fetched when absent or a day old. The registry's sid
# Release is past its Valid-Until: hence Check-Valid-Until=false.
lists() {
	local s uri
	if [ -n "$(find "$state/updated" -mmin -1440 2>/dev/null)" ]; then
		return 0
	fi
	if ! mkdir -p "$state/lists/partial" "$state/cache/archives/partial" 2>/dev/null ||
	   [ ! -w "$state/lists" ]; then
		as_root "$0" lists
		return
	fi
	uri=$(archive)
	for s in "${suites[@]}"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
	done >"$state/sources.list"
	logged "$log" "apt-get update (sid, experimental)" \
		apt-get "${apt_opts[@]}" update
	touch "$state/updated"
}

sid_apt() {
	lists
	"$@" "${apt_opts[@]}"
}

# candidate PKG: the version of PKG sid or experimental would install.
candidate() {
	sid_apt apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' |
		grep -vx '(none)' || true
}

host_has() {
	[ -d "/usr/src/linux-headers-$1" ] ||
		[ -d "${CALLOUT_CACHE:-$top/.cache}/kernels/$1/build" ] ||
		apt-cache show "linux-headers-$1" >/dev/null 2>&1
}

stamp() {
	echo "recipe=$recipe pkgs=${root_pkgs[*]} headers=$1"
}

ready() {
	local want
	[ -f "$roots/$kver/.callout-root" ] || return 1
	want=$(candidate "linux-headers-$kver")
	[ -n "$want" ] || return 0 # sid has moved on: keep what we have
	[ "$(cat "$roots/$kver/.callout-root")" = "$(stamp "$want")" ]
}

# in_ns ROOT CMD...: CMD chrooted into ROOT in a private mount namespace
# with /dev, /proc and /sys, and the host's DNS.
in_ns() {
	local r=$1
	shift
	unshare --mount --propagation private -- "$0" in-ns "$r" "$@"
}

create() {
	local tmp ver
	ready && return 0
	if [ "$(id -u)" -ne 0 ]; then
		as_root "$0" create "$kver"
		return
	fi
	command -v debootstrap >/dev/null ||
		logged "$log" "installing debootstrap" apt-get install -y debootstrap
	mkdir -p "$roots"
	exec 8>"$roots/.lock"
	flock 8
	ready && return 0
	ver=$(candidate "linux-headers-$kver")
	[ -n "$ver" ] || die "neither sid nor experimental has linux-headers-$kver"
	tmp=$roots/$kver.tmp
	rm -rf --one-file-system "$tmp"
	# debootstrap mounts /proc and /sys in the root: in a namespace of its
	# own, those go when it ends, even when it is interrupted.
	logged "$log" "debootstrap --variant=minbase sid for $kver" \
		unshare --mount --propagation private -- \
		debootstrap --variant=minbase sid "$tmp" "$(archive)" || die "debootstrap failed ($log)"
	for s in "${suites[@]}"; do
		echo "deb $(archive) $s main"
	done >"$tmp/etc/apt/sources.list"
	printf '%s\n' 'Acquire::Check-Valid-Until "false";' \
		'APT::Install-Recommends "false";' >"$tmp/etc/apt/apt.conf.d/90callout"
	logged "$log" "apt-get update in the root" in_ns "$tmp" apt-get update ||
		die "apt-get update failed in $tmp ($log)"
	# An experimental kernel's dependencies are in experimental too.
	logged "$log" "installing linux-headers-$kver ${root_pkgs[*]} in the root" \
		in_ns "$tmp" apt-get install -y "linux-headers-$kver" "${root_pkgs[@]}" ||
		logged "$log" "installing them from experimental" \
		in_ns "$tmp" apt-get install -y -t experimental "linux-headers-$kver" "${root_pkgs[@]}" ||
		die "could not install linux-headers-$kver in $tmp ($log)"
	in_ns "$tmp" apt-get clean
	ver=$(in_ns "$tmp" dpkg-query -W -f="\${Version}" "linux-headers-$kver")
	stamp "$ver" >"$tmp/.callout-root"
	rm -rf --one-file-system "${roots:?}/$kver"
	mv "$tmp" "$roots/$kver"
	echo "buildroot: $roots/$kver ready ($(du -sh "$roots/$kver" | cut -f1))" >&2
}

# newest FLAVOUR: sid's newest linux-headers-*-FLAVOUR, by version.
newest() {
	local p
	sid_apt apt-cache pkgnames linux-headers- | grep -E "^linux-headers-[0-9].*-$1\$" |
		while read -r p; do
			case $1 in amd64) case $p in *-rt-amd64|*-cloud-amd64) continue ;; esac ;; esac
			if sid_apt apt-cache madison "$p" | grep -q ' sid/main '; then
				echo "${p#linux-headers-}"
			fi
		done | sort -V | tail -n 1
}

# in_root: whether KVER's modules are built in its root.
in_root() {
	[ ! -d "/usr/src/linux-headers-$kver" ] && [ -f "$roots/$kver/.callout-root" ]
}

# run KVER CMD...: see the usage.
run() {
	local r=$roots/$kver uid gid binds=() d
	in_root || exec "$@"
	uid=${BUILDROOT_UID:-$(id -u)} gid=${BUILDROOT_GID:-$(id -g)}
	if [ "$(id -u)" -ne 0 ]; then
		BUILDROOT_UID=$uid BUILDROOT_GID=$gid as_root "$0" run "$kver" "$@"
		exit
	fi
	for d in "$top" "${CALLOUT_CACHE:-$top/.cache}" /tmp; do
		binds+=("$(readlink -f "$d")")
	done
	unshare --mount --propagation private -- "$0" in-ns "$r" \
		--bind "${binds[@]}" -- setpriv --reuid="$uid" --regid="$gid" --clear-groups \
		env -C "$PWD" PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin "$@"
}

# in-ns ROOT [--bind DIR... --] CMD...: inside the namespace unshare made.
in_ns_body() {
	local r=$1 d
	shift
	mount --rbind /dev "$r/dev"
	mount -t proc proc "$r/proc" 2>/dev/null || mount --rbind /proc "$r/proc"
	mount --rbind /sys "$r/sys"
	cp -L --remove-destination /etc/resolv.conf "$r/etc/" 2>/dev/null || true
	if [ "${1:-}" = --bind ]; then
		shift
		while [ "$1" != -- ]; do
			mkdir -p "$r$1"
			mount --rbind "$1" "$r$1"
			shift
		done
		shift
	fi
	exec chroot "$r" "$@"
}

[ $# -ge 1 ] || { sed -n '/^# Usage:/,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
cmd=$1
shift
kver=${1:-}
case $cmd in
run)
	[ $# -ge 2 ] || die "usage: run KVER CMD..."
	shift
	run "$@" ;;
need) [ -n "$kver" ] && ! host_has "$kver" && [ -n "$(candidate "linux-headers-$kver")" ] ;;
ready) [ -n "$kver" ] && ready ;;
root) [ -n "$kver" ] || die "usage: root KVER"; if in_root; then echo "$roots/$kver"; fi ;;
create) [ -n "$kver" ] || die "usage: create KVER"; create ;;
newest) [ -n "$kver" ] || die "usage: newest FLAVOUR"; newest "$kver" ;;
lists) lists ;;
apt-get|apt-cache) sid_apt "$cmd" "$@" ;;
in-ns) [ $# -ge 2 ] || die "usage: in-ns ROOT CMD..."; shift; in_ns_body "$kver" "$@" ;;
*) die "unknown command $cmd (see $0 without arguments)" ;;
esac
