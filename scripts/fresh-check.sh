#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-check.sh - what `make fresh-check` runs: prove that the README's two
# commands work on a freshly installed Debian, the way a new user meets them.
# For each release it unpacks a pristine root (debootstrap, default variant,
# plus only git make gcc sudo ca-certificates, with the apt sources of an
# installed system: <rel>, <rel>-updates, <rel>-security, main), clones the
# committed HEAD of this repository into it (not the work tree), and with
# chroot:
#
#   1. as a normal user without sudo rights, in ~/callout: make demo must
#      fail within 10 s saying what to run "as root" (it runs first, while
#      nothing is installed, as such a user meets it);
#   2. as root, in /root/callout: make demo, then make check, each on its
#      first try;
#   3. as root, the command the message of 1 named (in the user's tree),
#      then as the user make demo again: it must now work.
#
# Each step's output goes to build/fresh-check/<release>/<step>.log (the
# clone's own build/*.log, e.g. apt's, to .../<release>/clone/), with a
# line of progress every 10 s on the terminal. Then a table (release, step,
# exit status, time, closing line), and a last line, exactly
#
#	N passed, N failed
#
# counting each step of each release as one case. Exits non-zero if a case
# failed, or if two releases' make check counted different numbers of tests.
#
# The pristine roots are built once and kept as tarballs in the cache, and
# rebuilt when their inputs (release, packages, mirrors) change or they are
# older than CALLOUT_FRESH_MAX_AGE days. The mirrors are the host's own: the
# URIs of its apt sources for its release and its release's -security.
# Needs root (debootstrap, mount, chroot), debootstrap and git; one run at a
# time. Nothing stays mounted, also after a failure or an interrupt.
#
# Usage: scripts/fresh-check.sh [--release bookworm|trixie]... [--keep]
#                               [--rebuild]
#   --release REL  check REL (repeatable; default: bookworm, then trixie)
#   --keep         keep each unpacked root (unmounted) for inspection
#   --rebuild      build the cached roots again even if they are current
#
# Environment:
#   CALLOUT_FRESH_CACHE     where the roots are cached and unpacked (default
#                           /var/cache/callout-fresh; not in the tree)
#   CALLOUT_FRESH_MAX_AGE   rebuild a cached root older than this many days
#                           (default 7: its apt lists are a fresh install's)
#   CALLOUT_FRESH_TIMEOUT   minutes allowed to each of make demo and make
#                           check (default 60)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"
# shellcheck source=scripts/apt-sources.sh
. "$top/scripts/apt-sources.sh"
PROGRESS_TAG=fresh-check
cache=${CALLOUT_FRESH_CACHE:-/var/cache/callout-fresh}
max_age=${CALLOUT_FRESH_MAX_AGE:-7}
step_timeout=$((${CALLOUT_FRESH_TIMEOUT:-60} * 60))
logs=$top/build/fresh-check

# What a fresh machine has besides debootstrap's default variant. Changing
# this, or how a root is built (bump root_recipe), rebuilds the roots.
pkgs=(git make gcc sudo ca-certificates)
root_recipe=1
known_releases=(bookworm trixie)
# The normal user's make demo must stop within this many seconds.
user_limit=10
user=fresh

usage() {
	sed -n '/^# Usage:/,/^# Environment:/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

releases=() keep='' rebuild=''
while [ $# -gt 0 ]; do
	case $1 in
	--release)
		[ $# -ge 2 ] || usage
		case " ${known_releases[*]} " in
		*" $2 "*) releases+=("$2") ;;
		*) echo "fresh-check: unknown release '$2' (${known_releases[*]})" >&2; exit 2 ;;
		esac
		shift 2
		;;
	--release=*) set -- --release "${1#--release=}" "${@:2}" ;;
	--keep) keep=y; shift ;;
	--rebuild) rebuild=y; shift ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done
[ ${#releases[@]} -gt 0 ] || releases=("${known_releases[@]}")

say() {
	echo "fresh-check: $*"
}
die() {
	echo "fresh-check: $*" >&2
	exit 2
}

if [ "$(id -u)" -ne 0 ]; then
	die "needs root (debootstrap, mount, chroot); as root, run: make fresh-check"
fi
# debootstrap, installed if missing (zstd only speeds up the cache).
if ! command -v debootstrap >/dev/null; then
	logged "$logs/apt.log" "installing debootstrap" \
		env DEBIAN_FRONTEND=noninteractive apt-get install -y debootstrap ||
		die "could not install debootstrap ($logs/apt.log)"
fi

host_rel=$(host_release)
archive_uri=$(mirror "$host_rel" "$host_rel-updates") ||
	die "no Debian archive for '$host_rel' in the host's apt sources"
security_uri=$(mirror "$host_rel-security" "$host_rel/updates") ||
	die "no Debian security archive for '$host_rel-security' in the host's apt sources"
archive_uri=${archive_uri%/} security_uri=${security_uri%/}

if command -v zstd >/dev/null; then
	tar_ext=tar.zst tar_z=(-I 'zstd -T0 -3')
else
	tar_ext=tar tar_z=()
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock -n 9 || { say "another fresh-check is running; waiting"; flock 9; }

# State for cleanup: a step running in the background, a root in use, a
# root being built.
active_root='' active_keep='' building='' tarball=''

fmt_time() {
	if [ "$1" -ge 60 ]; then
		printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
	else
		printf '%ds' "$1"
	fi
}

# timed WHAT LOG CMD...: progress (scripts/progress.sh) into an emptied LOG;
# sets step_rc and step_time.
timed() {
	local what=$1 log=$2
	shift 2
	: >"$log"
	progress "$log" "$what" "$@"
	step_rc=$progress_rc step_time=$progress_time
}

# mounts_under DIR: the mount points at or below DIR.
mounts_under() {
	findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1'
}

# mount_root ROOT: what a booted system has: proc, sys, dev (ptys, /dev/null,
# /dev/shm), and the host's name resolution.
mount_root() {
	local r=$1
	mount -t proc proc "$r/proc"
	mount --rbind /sys "$r/sys"
	mount --make-rslave "$r/sys"
	mount --rbind /dev "$r/dev"
	mount --make-rslave "$r/dev"
	cp -L --remove-destination /etc/resolv.conf /etc/hosts "$r/etc/"
}

# release_root ROOT KEEP: end what still runs in ROOT (only this script's
# children can be there), unmount everything below it and remove it unless
# KEEP. Never removes a root that still has a mount below it.
release_root() {
	local r=$1 k=$2 p left
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$r" ] && kill -KILL "${p#/proc/}" 2>/dev/null
	done
	for p in proc sys dev; do
		if mountpoint -q "$r/$p"; then
			umount -lR "$r/$p"
		fi
	done
	left=$(mounts_under "$r")
	if [ -n "$left" ]; then
		echo "fresh-check: still mounted, $r not removed:" "$left" >&2
		return 1
	fi
	if [ -n "$k" ]; then
		say "kept $r (unmounted)"
	else
		say "removing $r"
		rm -rf --one-file-system "$r"
	fi
}

cleanup() {
	local rc=$?
	if [ -n "$progress_pid" ]; then
		say "stopping the running step"
		kill -TERM "$progress_pid" 2>/dev/null || true
		wait "$progress_pid" 2>/dev/null || true
	fi
	[ -z "$active_root" ] || release_root "$active_root" "$active_keep" || rc=1
	if [ -n "$building" ]; then
		release_root "$building" "" || rc=1
		rm -f "$cache"/*.tmp
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# write_sources ROOT REL: the apt sources of an installed REL.
write_sources() {
	local r=$1 rel=$2
	rm -f "$r/etc/apt/sources.list"
	mkdir -p "$r/etc/apt/sources.list.d"
	cat >"$r/etc/apt/sources.list.d/debian.sources" <<-EOF
	Types: deb
	URIs: $archive_uri
	Suites: $rel $rel-updates
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

	Types: deb
	URIs: $security_uri
	Suites: $rel-security
	Components: main
	Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
	EOF
}

# root_tarball REL: set tarball to the cached pristine root of REL, built if
# it is missing, stale or its inputs changed.
root_tarball() {
	local rel=$1 key log r t0
	key=$(printf '%s\n' "$root_recipe" "$rel" default "${pkgs[*]}" "$archive_uri" \
		"$security_uri" | sha256sum | cut -c 1-12)
	tarball=$cache/$rel-$key.$tar_ext
	if [ -f "$tarball" ] && [ -z "$rebuild" ] &&
	   [ -z "$(find "$tarball" -mtime +"$max_age")" ]; then
		return
	fi
	log=$logs/$rel/root.log
	t0=$SECONDS
	say "$rel: building the pristine root in $cache (log: ${log#"$top"/})"
	r=$cache/build-$rel
	building=$r
	[ -z "$(mounts_under "$r")" ] || die "$r has mounts left from an earlier run"
	rm -rf --one-file-system "$r"
	mkdir -p "$r"
	timed "$rel: debootstrap" "$log" debootstrap "$rel" "$r" "$archive_uri"
	[ "$step_rc" -eq 0 ] || { tail -n 20 "$log" >&2; die "$rel: debootstrap failed ($log)"; }
	write_sources "$r" "$rel"
	mount_root "$r"
	timed "$rel: apt-get install ${pkgs[*]}" "$log.apt" chroot "$r" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c "apt-get update && apt-get install -y ${pkgs[*]} && apt-get clean"
	cat "$log.apt" >>"$log"
	rm -f "$log.apt"
	[ "$step_rc" -eq 0 ] || { tail -n 20 "$log" >&2; die "$rel: apt-get install failed ($log)"; }
	release_root "$r" y >/dev/null
	rm -f "$r/etc/hosts" "$r/etc/resolv.conf"
	tar --numeric-owner --xattrs --xattrs-include='*' -C "$r" "${tar_z[@]}" \
		-cf "$tarball.tmp" .
	rm -f "$cache/$rel"-*."$tar_ext"
	mv "$tarball.tmp" "$tarball"
	rm -rf --one-file-system "$r"
	building=
	say "$rel: pristine root built in $(fmt_time $((SECONDS - t0))):" \
		"$tarball, $(du -h "$tarball" | cut -f 1)"
}

head_rev=$(git -C "$top" rev-parse HEAD)
if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
	say "the work tree has uncommitted changes; checking the committed HEAD only"
fi
say "HEAD $(git -C "$top" log -1 --format='%h %s' "$head_rev")"
say "mirrors (the host's): $archive_uri, $security_uri"

# clone_into ROOT DIR: a clone of the committed HEAD at ROOT/DIR.
clone_into() {
	local dst=$1$2
	git -c safe.directory="$top" -c advice.detachedHead=false \
		clone -q --no-hardlinks "$top" "$dst"
	if [ "$(git -C "$dst" rev-parse HEAD)" != "$head_rev" ]; then
		git -C "$dst" -c advice.detachedHead=false checkout -q --detach "$head_rev"
	fi
}

# as SECONDS USER ROOT CMD: CMD in a login shell of USER in ROOT, killed
# (with what it started) after SECONDS. For timed only: it execs, so that
# progress_pid is timeout(1)'s, which passes a signal on to its process group.
as() {
	exec timeout "$1" chroot "$3" /usr/bin/env -i TERM=dumb su -l "$2" -c "$4"
}

rows=() passed=0 failed=0
declare -A total

# result REL STEP OK RC TIME LINE
result() {
	if [ "$3" = y ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	rows+=("$(printf '%-9s %-14s %-4s %4s %7s  %s' "$1" "$2" \
		"$([ "$3" = y ] && echo ok || echo FAIL)" "$4" "$(fmt_time "$5")" "$6")")
}

# first_error LOG: the first line that looks like the cause of a failure.
first_error() {
	grep -m 1 -E '^E: |(^|[[:space:]])[Ee]rror[: ]|No such file|Permission denied|\*\*\*|^not ok' "$1" |
		cut -c 1-160 || true
}

errors=()
for rel in "${releases[@]}"; do
	rm -rf "${logs:?}/$rel"
	mkdir -p "$logs/$rel/clone"
	root_tarball "$rel"
	r=$(mktemp -d "$cache/root-$rel.XXXXXX")
	chmod 755 "$r"
	active_root=$r active_keep=$keep
	say "$rel: unpacking $(basename "$tarball") into $r"
	tar --numeric-owner --xattrs --xattrs-include='*' -C "$r" "${tar_z[@]}" -xf "$tarball"
	mount_root "$r"

	# 1. A normal user, with nothing installed yet.
	chroot "$r" useradd -m -s /bin/bash "$user"
	clone_into "$r" "/home/$user/callout"
	chroot "$r" chown -R "$user:$user" "/home/$user/callout"
	log=$logs/$rel/user-demo.log
	timed "$rel: make demo as $user (no sudo rights)" "$log" as 120 "$user" "$r" 'cd ~/callout && make demo'
	line=$(grep -m 1 -i 'as root' "$log" | cut -c 1-110 || true)
	ok=n
	if [ "$step_rc" -ne 0 ] && [ "$step_time" -le "$user_limit" ] && [ -n "$line" ]; then
		ok=y
	fi
	[ -n "$line" ] || line="no 'as root' message: $(last_line "$log")"
	[ "$step_rc" -ne 0 ] || line="exited 0: $line"
	[ "$step_time" -le "$user_limit" ] || line="took over ${user_limit}s: $line"
	result "$rel" "user make demo" "$ok" "$step_rc" "$step_time" "$line"
	[ "$ok" = y ] || errors+=("$rel user make demo: $(first_error "$log")")
	# What the message told the user to have root run, for step 3.
	user_cmd=$(sed -n 's/.*as root, run: \(.*\) (then make again).*/\1/p' "$log" | head -n 1)

	# 2. Root: the README's two commands, in one clone.
	clone_into "$r" /root/callout
	for t in demo check; do
		log=$logs/$rel/$t.log
		timed "$rel: make $t as root" "$log" as "$step_timeout" root "$r" "cd /root/callout && make $t"
		ok=n
		if [ "$t" = check ]; then
			line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
			if [ -n "$line" ]; then
				n=${line#*, }
				total[$rel]=$((${line%% passed*} + ${n%% failed}))
			fi
			[ "$step_rc" -ne 0 ] || [ -z "$line" ] || ok=y
			[ -n "$line" ] || line="no closing line: $(last_line "$log")"
		else
			line=$(last_line "$log")
			[ "$step_rc" -ne 0 ] || ok=y
		fi
		[ "$step_rc" -ne 124 ] || line="timed out: $line"
		result "$rel" "make $t" "$ok" "$step_rc" "$step_time" "$line"
		[ "$ok" = y ] || errors+=("$rel make $t: $(first_error "$log")")
		say "$rel: make $t: exit $step_rc in $(fmt_time "$step_time")"
	done

	# 3. The user again, once root has run what the message named in the
	# user's tree: make demo must now work for the user.
	log=$logs/$rel/user-demo-after.log
	if [ -n "$user_cmd" ]; then
		timed "$rel: as root: $user_cmd" "$logs/$rel/user-root.log" \
			as "$step_timeout" root "$r" "$user_cmd"
		timed "$rel: make demo as $user, after that" "$log" \
			as "$step_timeout" "$user" "$r" 'cd ~/callout && make demo'
		ok=n line=$(last_line "$log")
		[ "$step_rc" -ne 0 ] || ok=y
	else
		ok=n step_rc=2 step_time=0 line="the message named no command"
		: >"$log"
	fi
	result "$rel" "user, root's" "$ok" "$step_rc" "$step_time" "$line"
	[ "$ok" = y ] || errors+=("$rel user make demo after root: $(first_error "$log")")

	# The clone's own logs (apt's build/deps.log, check.sh's per suite).
	(cd "$r/root/callout/build" 2>/dev/null &&
		find . -maxdepth 2 -name '*.log' -size -64M -print0 |
		xargs -0r cp --parents -t "$logs/$rel/clone" 2>/dev/null) || true
	active_root=
	release_root "$r" "$keep"
done

echo "# ===================="
printf '%-9s %-14s %-4s %4s %7s  %s\n' release step ok rc time "closing line"
printf '%s\n' "${rows[@]}"
if [ ${#errors[@]} -gt 0 ]; then
	echo "# first error line of each failed step (logs in ${logs#"$top"/}/<release>/):"
	printf '#   %s\n' "${errors[@]}"
fi
same=y
if [ ${#releases[@]} -lt 2 ]; then
	echo "# test count: only ${releases[*]} ran: ${total[${releases[0]}]:-none}"
else
	counts=()
	for rel in "${releases[@]}"; do
		counts+=("$rel ${total[$rel]:-none}")
		[ "${total[$rel]:-x}" = "${total[${releases[0]}]:-y}" ] || same=
	done
	if [ -n "$same" ]; then
		echo "# test count: the same on every release: ${total[${releases[0]}]}"
	else
		echo "# test count: DIFFERS between releases: $(printf '%s, ' "${counts[@]}" | sed 's/, $//')"
	fi
fi
echo "# HEAD $head_rev"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -n "$same" ]
