#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# buildroot.sh - kernels that this host's apt does not have: Debian's newer
# ones, from bookworm-backports, trixie-backports, sid and experimental.
# apt is asked about those suites with options of this script's own (its own
# sources and lists in the cache), never through the system's sources. Each
# kernel is built where the compiler its headers name (gcc-N-for-host) is:
# on the host, when the kernel comes from the host release's own backports
# (its headers are installed from there, through the same options); else in
# a minimal root (debootstrap --variant=minbase) of the release the kernel
# was built for: trixie for trixie-backports (gcc-14), sid for sid and
# experimental (gcc-16), one root per kernel, cached outside the tree and
# made again when the kernel's headers package changes. Everything else
# (user-space programs, the selftests, the VM) stays on the host.
#
# Usage: scripts/buildroot.sh run KVER CMD [ARG]...
#            CMD where modules for KVER are built: directly when the host
#            has KVER's headers, else in KVER's root, in the same directory,
#            with the tree, CALLOUT_CACHE and /tmp at their own paths, as the
#            caller's user; in a private mount namespace, so nothing stays
#            mounted. Needs root or sudo without a password for a root.
#        scripts/buildroot.sh need KVER
#            exit 0 if KVER's headers come from here: the host has none
#            and its apt does not know them, and one of our suites does
#        scripts/buildroot.sh root KVER
#            the path of KVER's root if its modules are built in one (run
#            would use it); nothing if they are built here
#        scripts/buildroot.sh ready KVER
#            exit 0 if KVER's headers are where they are built (the host
#            or a root) at the version our suites have
#        scripts/buildroot.sh create KVER
#            install KVER's headers on the host or make its root, unless
#            ready (as root, or with sudo)
#        scripts/buildroot.sh newest FLAVOUR
#            the newest released kernel of FLAVOUR (amd64, rt-amd64) in
#            bookworm-backports, trixie-backports or sid, by Debian version
#            (dpkg --compare-versions); experimental is left out
#        scripts/buildroot.sh where KVER
#            "SUITE gcc-N host|ROOT": where KVER's headers come from, the
#            compiler they name, and where its modules are built
#        scripts/buildroot.sh version KVER
#            the version of KVER's headers package that is installed (on the
#            host or in its root), else the one our suites have
#        scripts/buildroot.sh apt-get|apt-cache ARG...
#            apt on our suites' lists (fetched when absent, older than a
#            day, or when the suites change)
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
state=$roots/apt
log=$roots/buildroot.log

# What a root holds besides debootstrap's minbase and the headers: make for
# Kbuild, sparse for make lint, dkms and openssl (DKMS makes its signing key
# with it) for make dkms-check, libc6-dev to try user space with the root's
# compiler. Changing this, or how a root is made (bump recipe), makes the
# roots again.
# A root's sparse is the newest Debian has: sid's sparse binary (it needs
# only libc) in /usr/local/bin where the release's is older, since 7.3's
# headers use __typeof_unqual__ under __CHECKER__, which sparse parses from
# 0.6.5 on (trixie has 0.6.4).
root_pkgs=(make sparse dkms openssl libc6-dev)
recipe=3
# The suites that can hold a kernel newer than a Debian 12 or 13 user's own,
# then experimental, whose release candidates are used only when named.
released=(bookworm-backports trixie-backports sid)
suites=("${released[@]}" experimental)

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
		die "$roots (kernels from Debian's newer suites) needs root;" \
			"as root, run: $top/scripts/deps.sh${kver:+ $kver} (then make again)"
	fi
}

# The host's mirror of Debian, for our suites.
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

# sources SUITE...: a sources.list of the host's mirror for SUITEs.
sources() {
	local s uri
	uri=$(archive)
	for s in "$@"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
	done
}

# Our lists, fetched when absent, a day old, or of other suites. The
# registry's sid Release is past its Valid-Until: hence
# Check-Valid-Until=false.
lists() {
	local want
	want=$(sources "${suites[@]}")
	if [ -n "$(find "$state/updated" -mmin -1440 2>/dev/null)" ] &&
	   [ "$(cat "$state/sources.list" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	if ! mkdir -p "$state/lists/partial" "$state/cache/archives/partial" 2>/dev/null ||
	   [ ! -w "$state/lists" ]; then
		as_root "$0" lists
		return
	fi
	echo "$want" >"$state/sources.list"
	logged "$log" "apt-get update (${suites[*]})" \
		apt-get "${apt_opts[@]}" update
	touch "$state/updated"
}

our_apt() {
	lists
	"$@" "${apt_opts[@]}"
}

# candidate PKG: the version of PKG our suites would install.
candidate() {
	our_apt apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' |
		grep -vx '(none)' || true
}

# origin: the suite of the candidate of KVER's headers.
origin() {
	local ver
	ver=$(candidate "linux-headers-$kver")
	[ -n "$ver" ] || return 0
	our_apt apt-cache madison "linux-headers-$kver" | awk -F '|' -v v="$ver" '
		{ gsub(/ /, "", $2) }
		$2 == v { split($3, w, " "); sub(/\/.*/, "", w[2]); print w[2]; exit }'
}

# compiler: the gcc-N that the candidate of KVER's headers depends on
# (gcc-N-for-host from 7.x, gcc-N before).
compiler() {
	local ver
	ver=$(candidate "linux-headers-$kver")
	[ -n "$ver" ] || return 0
	our_apt apt-cache show "linux-headers-$kver=$ver" 2>/dev/null |
		sed -En 's/^Depends:.*[ ,](gcc-[0-9]+)(-for-host|-x86)?( |,|$).*/\1/p' | head -n 1
}

# release SUITE: the release whose root builds SUITE's kernels (and whose
# compiler they name): X for X-backports; sid for sid and experimental.
release() {
	case $1 in
	*-backports) echo "${1%-backports}" ;;
	*) echo sid ;;
	esac
}

# root_suites SUITE: what a root for SUITE's kernels has in its sources.
root_suites() {
	case $1 in
	*-backports) echo "$(release "$1") $1" ;;
	*) echo sid experimental ;;
	esac
}

# native: whether KVER is built on the host: its headers come from the host
# release's own backports, so the host's compiler is the one they name.
native() {
	local o
	o=$(origin)
	[ -n "$o" ] && [ "$(release "$o")" = "$(host_release)" ]
}

host_has() {
	[ -d "/usr/src/linux-headers-$1" ] ||
		[ -d "${CALLOUT_CACHE:-$top/.cache}/kernels/$1/build" ] ||
		apt-cache show "linux-headers-$1" >/dev/null 2>&1
}

stamp() {
	echo "recipe=$recipe suites=$2 pkgs=${root_pkgs[*]} headers=$1"
}

ready() {
	local want
	want=$(candidate "linux-headers-$kver")
	if [ -d "/usr/src/linux-headers-$kver" ]; then
		[ -n "$want" ] || return 0
		[ "$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null)" = "$want" ]
		return
	fi
	[ -f "$roots/$kver/.callout-root" ] || return 1
	[ -n "$want" ] || return 0 # the suite has moved on: keep what we have
	[ "$(cat "$roots/$kver/.callout-root")" = "$(stamp "$want" "$(root_suites "$(origin)")")" ]
}

# in_ns ROOT CMD...: CMD chrooted into ROOT in a private mount namespace
# with /dev, /proc and /sys, and the host's DNS.
in_ns() {
	local r=$1
	shift
	unshare --mount --propagation private -- "$0" in-ns "$r" "$@"
}

# install_native: KVER's headers on the host, from the host release's
# backports, through apt options of our own: the host's sources and those
# backports, lists of our own, the host's dpkg.
install_native() {
	local o=$1 d=$state/native f
	rm -rf "$d/sources.list.d"
	mkdir -p "$d/sources.list.d" "$d/lists/partial"
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && ln -s "$f" "$d/sources.list.d/"
	done
	sources "$o" >"$d/sources.list.d/callout-$o.list"
	local opts=(-o "Dir::Etc::sourceparts=$d/sources.list.d" -o "Dir::State::Lists=$d/lists"
		    -o Acquire::Languages=none)
	logged "$log" "apt-get update (the host's sources and $o)" \
		apt-get "${opts[@]}" update || die "apt-get update failed ($log)"
	logged "$log" "installing linux-headers-$kver from $o" \
		apt-get "${opts[@]}" install -y --no-install-recommends -t "$o" \
		"linux-headers-$kver" || die "could not install linux-headers-$kver ($log)"
}

# newest_sparse ROOT: sid's sparse in ROOT/usr/local/bin if the root's own
# is older.
newest_sparse() {
	local r=$1 mine sids d
	mine=$(in_ns "$r" dpkg-query -W -f="\${Version}" sparse)
	sids=$(our_apt apt-cache madison sparse | awk -F '|' '$3 ~ / sid\// { gsub(/ /, "", $2); print $2; exit }')
	if [ -z "$sids" ] || dpkg --compare-versions "$sids" le "$mine"; then
		return 0
	fi
	d=$(mktemp -d)
	if ! (cd "$d" && our_apt apt-get download "sparse=$sids") >>"$log" 2>&1 ||
	   ! dpkg -x "$d"/sparse_*.deb "$d/x" ||
	   ! install -m 755 "$d/x/usr/bin/sparse" "$r/usr/local/bin/sparse"; then
		die "could not take sid's sparse $sids into $r ($log)"
	fi
	rm -rf "$d"
	echo "buildroot: sparse $sids from sid in /usr/local/bin of the root (its own is $mine)" >&2
}

create() {
	local tmp ver o rel
	ready && return 0
	if [ "$(id -u)" -ne 0 ]; then
		as_root "$0" create "$kver"
		return
	fi
	mkdir -p "$roots"
	exec 8>"$roots/.lock"
	flock 8
	ready && return 0
	ver=$(candidate "linux-headers-$kver")
	[ -n "$ver" ] || die "none of ${suites[*]} has linux-headers-$kver"
	o=$(origin)
	if native; then
		install_native "$o"
		echo "buildroot: linux-headers-$kver $ver from $o installed here" >&2
		return
	fi
	command -v debootstrap >/dev/null ||
		logged "$log" "installing debootstrap" apt-get install -y debootstrap
	rel=$(release "$o")
	tmp=$roots/$kver.tmp
	rm -rf --one-file-system "$tmp"
	# debootstrap mounts /proc and /sys in the root: in a namespace of its
	# own, those go when it ends, even when it is interrupted.
	logged "$log" "debootstrap --variant=minbase $rel for $kver ($(compiler))" \
		unshare --mount --propagation private -- \
		debootstrap --variant=minbase "$rel" "$tmp" "$(archive)" ||
		die "debootstrap failed ($log)"
	# shellcheck disable=SC2046 # the suites are words
	sources $(root_suites "$o") | sed 's/ \[[^]]*\]//' >"$tmp/etc/apt/sources.list"
	printf '%s\n' 'Acquire::Check-Valid-Until "false";' \
		'APT::Install-Recommends "false";' >"$tmp/etc/apt/apt.conf.d/90callout"
	logged "$log" "apt-get update in the root" in_ns "$tmp" apt-get update ||
		die "apt-get update failed in $tmp ($log)"
	# A kernel's dependencies may be in its own suite only (experimental).
	logged "$log" "installing linux-headers-$kver ${root_pkgs[*]} in the root" \
		in_ns "$tmp" apt-get install -y "linux-headers-$kver" "${root_pkgs[@]}" ||
		logged "$log" "installing them from $o" \
		in_ns "$tmp" apt-get install -y -t "$o" "linux-headers-$kver" "${root_pkgs[@]}" ||
		die "could not install linux-headers-$kver in $tmp ($log)"
	newest_sparse "$tmp"
	in_ns "$tmp" apt-get clean
	ver=$(in_ns "$tmp" dpkg-query -W -f="\${Version}" "linux-headers-$kver")
	stamp "$ver" "$(root_suites "$o")" >"$tmp/.callout-root"
	rm -rf --one-file-system "${roots:?}/$kver"
	mv "$tmp" "$roots/$kver"
	echo "buildroot: $roots/$kver ($rel) ready ($(du -sh "$roots/$kver" | cut -f1))" >&2
}

# newest FLAVOUR: of the released suites' linux-headers-*-FLAVOUR, the one
# of the highest Debian version (so 7.3.4-1~bpo13+1 beats 7.2.13-1).
newest() {
	local -a names
	local best='' bestv='' p v
	mapfile -t names < <(our_apt apt-cache pkgnames linux-headers- |
		grep -E "^linux-headers-[0-9].*-$1\$" |
		if [ "$1" = amd64 ]; then grep -Ev -- '-(rt|cloud)-amd64$'; else cat; fi)
	[ ${#names[@]} -gt 0 ] || return 0
	while read -r p v; do
		case $v in *~rc*) continue ;; esac
		if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then
			best=$p bestv=$v
		fi
	done < <(our_apt apt-cache madison "${names[@]}" | awk -F '|' -v rel="${released[*]}" '
		BEGIN { n = split(rel, r, " "); for (i = 1; i <= n; i++) ok[r[i] "/main"] = 1 }
		{ gsub(/ /, "", $1); gsub(/ /, "", $2); split($3, w, " ") }
		w[2] in ok { print $1, $2 }')
	echo "${best#linux-headers-}"
}

# where: see the usage.
where() {
	local o r
	o=$(origin)
	[ -n "$o" ] || { echo "host $(host_release) host"; return; }
	r=$roots/$kver
	native && r=host
	echo "$o $(compiler) $r"
}

version() {
	local v
	v=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null) ||
		v=$(sed -n 's/.* headers=//p' "$roots/$kver/.callout-root" 2>/dev/null) || true
	[ -n "$v" ] || v=$(candidate "linux-headers-$kver")
	echo "$v"
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
apt-get|apt-cache) our_apt "$cmd" "$@" ;;
where) [ -n "$kver" ] || die "usage: where KVER"; where ;;
version) [ -n "$kver" ] || die "usage: version KVER"; version ;;
in-ns) [ $# -ge 2 ] || die "usage: in-ns ROOT CMD..."; shift; in_ns_body "$kver" "$@" ;;
*) die "unknown command $cmd (see $0 without arguments)" ;;
esac
