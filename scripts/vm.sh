#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh - the callout test VM: a Debian kernel under qemu-system-x86_64 (TCG)
# with a busybox initramfs holding callout.ko, the installed kselftests and
# whatever --add brings.
#
# Usage:
#   scripts/vm.sh run [--add PATH]... [--smp N] [--mem MB] [--kernel KVER]
#                     [--params 'k=v ...'] [--expect-splat ERE]...
#                     [--allow-splat ERE]... -- CMD [ARG]...
#   scripts/vm.sh shell [same options, no CMD]
#
# --kernel debug: the KASAN/lockdep/kmemleak kernel of debug-kernel.sh;
# --kernel kcsan: its KCSAN kernel (either built first if it is not cached:
# 7-10 minutes).
#
# run:   insmod callout.ko with --params, run CMD (no shell in between: use
#        `sh -c '...'` for pipes), rmmod callout, power off. The serial
#        console streams to stdout. Exit status: CMD's, or
#          124 the wall-clock limit ($CALLOUT_VM_TIMEOUT s, default 600) hit,
#          125 the run was not clean: insmod or the final rmmod failed, the
#              guest did not finish, a kernel splat (WARNING, BUG, Oops,
#              KASAN, KFENCE, KCSAN, UBSAN, lockdep, scheduling while atomic,
#              hung task, RCU stall, ...) in the kernel log, or a W/D/L/B
#              taint; or KFENCE was turned on and did not start.
# KFENCE: a kernel built with it and sampling off (Debian's 6.12 and 7.x:
#        CONFIG_KFENCE_SAMPLE_INTERVAL=0) boots with kfence.sample_interval=100,
#        so that a misuse of a sampled allocation is a splat.
# --expect-splat ERE: for a boot that plants a bug on purpose (check-debug's
#        lockdep boot): exactly one splat line must match each ERE, every
#        splat line must match one, and a W taint (which those may leave)
#        is allowed; D/L/B still fail. Without it, any splat fails the run.
# --allow-splat ERE: splat lines matching ERE, any number of them, do not
#        fail the run (check-kcsan's boots, which judge KCSAN's reports
#        themselves from the log CALLOUT_VM_LOGDIR keeps).
# shell: the same guest with an interactive shell; `exit` powers off
#        (Ctrl-A x quits QEMU).
#
# In the guest: modules (callout.ko and every other *.ko of the top
# directory) in /lib/modules/$(uname -r)/extra/, kselftests in /kselftest
# (/kselftest/run_kselftest.sh), --add files in /add/ (on PATH), kmod's
# modprobe/depmod, debugfs and tracefs mounted. CMD sees CALLOUT_KO (the
# path of callout.ko) and CALLOUT_PARAMS (the --params string).
#
# Environment:
#   CALLOUT_VM_TIMEOUT  wall-clock limit of a run in seconds (default 600)
#   CALLOUT_VM_APPEND   more kernel command line (e.g. loglevel=8)
#   CALLOUT_VM_ACCEL    kvm to use KVM (default tcg: a /dev/kvm may not work)
#   CALLOUT_VM_NOBUILD  1: do not run make first (the Makefile's targets set it)
#   CALLOUT_VM_LOGDIR   keep console.log and dmesg.log of a run there
#   CALLOUT_VM_MONITOR  a socket path: QEMU's monitor listens there, to ask
#                       a guest that hangs without a word where its vCPUs
#                       are (`info registers -a`)
#   CALLOUT_CACHE       kernels and linux-source files (see deps.sh)
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}
# kmod's modinfo and depmod are in sbin, which a normal user's PATH lacks.
PATH=$PATH:/usr/sbin:/sbin

die() {
	echo "vm.sh: $*" >&2
	exit 2
}

usage() {
	sed -n '4,55s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit "${1:-0}"
}

# Kernel log lines that fail a run. Only timestamped kernel lines are
# scanned, so a test that prints "BUG:" does not trip it.
splat_re='WARNING:|BUG:|Oops|general protection fault|Kernel panic|kernel BUG at|KASAN:|KFENCE:|KCSAN:|UBSAN:|kmemleak: .*suspected memory leak|possible .*locking|inconsistent lock state|scheduling while atomic|sleeping function called from invalid context|hung task|blocked for more than|self-detected stall|detected stalls|RCU stall|soft lockup|hard LOCKUP|list_(add|del) corruption|refcount_t: '

# scan_log FILE...: print each kernel splat line, fail if there is one.
scan_log() {
	awk -v re="$splat_re" '
		{ sub(/\r$/, "") }
		/^(<[0-9]+>)?\[ *[0-9]+\.[0-9]+\] / && $0 ~ re {
			if (!seen[$0]++) { print; n++ }
		}
		END { exit n > 0 }' "$@"
}

# expected_splats LINES [ERE]...: LINES are scan_log's splat lines. With no
# ERE, fail on any of them; with EREs (--expect-splat), on a line that no
# ERE matches, and on an ERE that matches other than exactly one line. A
# line matching one of the array allows (--allow-splat) is passed over.
# Prints why it fails.
expected_splats() {
	local lines=$1 re n line ok=0
	shift
	local -A seen=()
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		for re in ${allows[@]+"${allows[@]}"}; do
			grep -qE -- "$re" <<<"$line" && continue 2
		done
		for re in "$@"; do
			if grep -qE -- "$re" <<<"$line"; then
				seen[$re]=$((${seen[$re]:-0} + 1))
				continue 2
			fi
		done
		echo "vm.sh: FAIL: kernel splat: $line" >&2
		ok=1
	done <<<"$lines"
	for re in "$@"; do
		n=${seen[$re]:-0}
		if [ "$n" -ne 1 ]; then
			echo "vm.sh: FAIL: $n kernel splat lines match /$re/, want exactly 1" >&2
			ok=1
		fi
	done
	return $ok
}

# taint_problems N: the taint flags of N that fail a run (W, D, L, B).
taint_problems() {
	local t=$1 out=
	(( t & (1 << 9) )) && out+=" W(warning)"
	(( t & (1 << 7) )) && out+=" D(died: oops or BUG)"
	(( t & (1 << 14) )) && out+=" L(soft lockup)"
	(( t & (1 << 5) )) && out+=" B(bad page)"
	echo "${out# }"
}

# copy_exec FILE [DEST]: copy FILE into the initramfs at DEST (default: the
# same path) with the shared libraries and the loader it needs, as
# initramfs-tools' copy_exec does.
copy_exec() {
	local src=$1 dst=${2:-$1} lib
	mkdir -p "$stage/$(dirname "$dst")"
	cp -L "$src" "$stage/$dst"
	[ "$(od -An -tx1 -N4 "$src")" = " 7f 45 4c 46" ] || return 0
	{ ldd "$src" 2>/dev/null || true; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				     $1 ~ /^\// { print $1 }' |
	while read -r lib; do
		[ -e "$stage/$lib" ] && continue
		mkdir -p "$stage/$(dirname "$lib")"
		cp -L "$lib" "$stage/$lib"
	done
}

# add_path PATH: copy PATH under /add/, bringing the libraries of every
# dynamically linked executable in it.
add_path() {
	local src=$1 f rel
	[ -e "$src" ] || die "--add $src: no such file"
	src=$(realpath "$src")
	if [ -d "$src" ]; then
		cp -a "$src" "$stage/add/"
		while IFS= read -r -d '' f; do
			rel=${f#"$(dirname "$src")"/}
			copy_exec "$f" "/add/$rel"
		done < <(find "$src" -type f -perm -u+x -print0)
	else
		copy_exec "$src" "/add/$(basename "$src")"
		chmod --reference="$src" "$stage/add/$(basename "$src")"
	fi
}

# cpio_entry NAME MODE RDEV_MAJOR RDEV_MINOR: one newc header, no data.
cpio_entry() {
	local name=$1 mode=$2 rmaj=$3 rmin=$4 namesize pad
	namesize=$(( ${#name} + 1 ))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
		"$ino" "$mode" 0 0 1 0 0 0 0 "$rmaj" "$rmin" "$namesize" 0 "$name"
	pad=$(( (4 - (110 + namesize) % 4) % 4 ))
	[ $pad -eq 0 ] || head -c "$pad" /dev/zero
	ino=$((ino + 1))
}

# A newc archive holding /dev/console, which the kernel opens for /init
# before anything can mount devtmpfs: made by hand, it needs no mknod (and no
# root). The kernel unpacks concatenated archives in order.
cpio_console() {
	local ino=1
	cpio_entry dev $((0040755)) 0 0
	cpio_entry dev/console $((0020600)) 5 1
	cpio_entry 'TRAILER!!!' 0 0 0
}

# The guest's /init. It reads /etc/vm.conf; run mode reports on ttyS1, the
# control channel, which the host scans after the guest powers off.
write_init() {
	cat >"$stage/init" <<'EOF'
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin:/add HOME=/root TERM=linux
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
hostname callout-vm
. /etc/vm.conf

export CALLOUT_KO=/lib/modules/$(uname -r)/extra/callout.ko
export CALLOUT_PARAMS="$VM_PARAMS"
ctl=/dev/ttyS1

status() {
	{ dmesg; echo "$VM_TOKEN $*"; } >$ctl
	sync
	poweroff -f
}

# shellcheck disable=SC2086 # the parameters are one word each
if ! insmod "$CALLOUT_KO" $VM_PARAMS; then
	echo "vm: insmod $CALLOUT_KO $VM_PARAMS failed"
	[ "$VM_MODE" = run ] && status rc=125 insmod=failed
fi

if [ "$VM_MODE" = shell ]; then
	echo "callout VM: $(uname -r), $(nproc) CPUs; callout.ko loaded ($CALLOUT_KO)."
	echo "Try: dmesg | tail; ls /sys/kernel/debug/callout; /kselftest/run_kselftest.sh"
	echo "exit (or Ctrl-D) powers off; Ctrl-A x quits QEMU."
	cd /root && setsid cttyhack sh -l
	poweroff -f
fi

cd /root
sh /etc/vm-cmd </dev/null
rc=$?
echo "vm: CMD exited $rc"
unload=absent
if [ -d /sys/module/callout ]; then
	if rmmod callout; then
		unload=ok
	else
		unload=failed
		echo "vm: rmmod callout failed (refcnt $(cat /sys/module/callout/refcnt 2>/dev/null))"
	fi
fi
kfence=$(sed -n 's/^enabled: *//p' /sys/kernel/debug/kfence/stats 2>/dev/null)
status "rc=$rc unload=$unload tainted=$(cat /proc/sys/kernel/tainted) kfence=${kfence:-none}"
EOF
	chmod 755 "$stage/init"
}

# quote ARG...: one line that sh runs as exactly these words
quote() {
	local a out=
	for a in "$@"; do
		out+=" '${a//\'/\'\\\'\'}'"
	done
	echo "${out# }"
}

build_initramfs() {
	local d ko
	for d in bin sbin usr/bin usr/sbin proc sys dev tmp run root etc add \
		 "lib/modules/$kver/extra"; do
		mkdir -p "$stage/$d"
	done
	copy_exec /bin/busybox
	/bin/busybox --list-full | while read -r d; do
		[ -e "$stage/$d" ] || ln -s /bin/busybox "$stage/$d"
	done
	# kselftest's runner needs GNU timeout (--foreground), module.sh kmod's
	# modprobe; both are dynamically linked.
	rm -f "$stage/usr/bin/timeout"
	copy_exec /usr/bin/timeout
	copy_exec /bin/kmod /sbin/kmod
	for d in modprobe depmod insmod rmmod lsmod modinfo; do
		rm -f "$stage/sbin/$d"
		ln -s kmod "$stage/sbin/$d"
	done

	for ko in "$top"/*.ko; do
		[ -e "$ko" ] && cp "$ko" "$stage/lib/modules/$kver/extra/"
	done
	depmod -b "$stage" "$kver" 2>/dev/null ||
		echo "vm.sh: depmod failed; modprobe will not find the modules" >&2

	if [ -x "$top/build/kselftest/run_kselftest.sh" ]; then
		cp -a "$top/build/kselftest" "$stage/kselftest"
	fi
	for d in "${adds[@]}"; do
		add_path "$d"
	done

	cat >"$stage/etc/vm.conf" <<EOF
VM_MODE=$mode
VM_PARAMS='${params//\'/}'
VM_TOKEN=$token
EOF
	if [ "$mode" = run ]; then
		echo "exec $(quote "${cmd[@]}")" >"$stage/etc/vm-cmd"
	fi
	echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
	echo "root:x:0:" >"$stage/etc/group"
	echo "nobody:x:65534:65534:nobody:/:/bin/false" >>"$stage/etc/passwd"
	echo "nogroup:x:65534:" >>"$stage/etc/group"
	write_init

	{
		cpio_console
		(cd "$stage" && find . ! -name . | LC_ALL=C sort |
			cpio -o -H newc -R 0:0 --quiet)
	} >"$work/initramfs.cpio"
}

# kfence_param CONFIG: the command line that turns KFENCE sampling on, for
# a kernel whose config has it built in and off; nothing otherwise.
kfence_param() {
	grep -qx 'CONFIG_KFENCE=y' "$1" 2>/dev/null &&
		grep -qx 'CONFIG_KFENCE_SAMPLE_INTERVAL=0' "$1" &&
		echo kfence.sample_interval=100
	return 0
}

# The final verdict from the console log, the control channel and qemu's
# status. Prints why a run is not clean; returns the exit status.
verdict() {
	local qrc=$1 st rc tainted bad lines
	if [ "$qrc" -eq 124 ]; then
		echo "vm.sh: FAIL: the guest did not power off within ${limit}s (CALLOUT_VM_TIMEOUT)" >&2
		scan_log "$work/console.log" "$work/dmesg.log" | sed 's/^/vm.sh: splat: /' >&2 || true
		return 124
	fi
	st=$(tr -d '\r' <"$work/dmesg.log" | grep -a "^$token " | tail -n 1 || true)
	rc=125
	if [ -z "$st" ]; then
		echo "vm.sh: FAIL: the guest did not finish (panic, or qemu exited $qrc)" >&2
	else
		rc=$(sed -n 's/.* rc=\([0-9]*\).*/\1/p' <<<"$st")
	fi
	lines=$(scan_log "$work/console.log" "$work/dmesg.log") || true
	if ! expected_splats "$lines" ${expects[@]+"${expects[@]}"}; then
		rc=125
	fi
	case $st in
	*insmod=failed*)
		echo "vm.sh: FAIL: insmod callout.ko ${params:+($params) }failed" >&2
		return 125 ;;
	*unload=failed*)
		echo "vm.sh: FAIL: rmmod callout failed after CMD" >&2
		rc=125 ;;
	*unload=absent*)
		echo "vm.sh: note: callout was not loaded when CMD ended; no final rmmod" >&2 ;;
	esac
	tainted=$(sed -n 's/.* tainted=\([0-9]*\).*/\1/p' <<<"$st")
	if [ -n "$kfence" ] && [ "$(sed -n 's/.* kfence=\([^ ]*\).*/\1/p' <<<"$st")" != 1 ]; then
		echo "vm.sh: FAIL: $kfence on the command line, and KFENCE was not enabled at the end" >&2
		rc=125
	fi
	if [ -n "$tainted" ]; then
		bad=$(taint_problems "$tainted")
		# The expected splats may taint W; any other WARNING is a splat.
		[ ${#expects[@]} -eq 0 ] || bad=${bad//W(warning)/}
		bad=${bad# }
		if [ -n "$bad" ]; then
			echo "vm.sh: FAIL: kernel tainted $tainted: $bad" >&2
			rc=125
		fi
	fi
	return "$rc"
}

main() {
	mode=${1:-}
	[ $# -gt 0 ] && shift
	case $mode in
	run|shell) ;;
	-h|--help|help) usage 0 ;;
	*) usage 2 >&2 ;;
	esac

	adds=() smp=2 mem=1024 kver='' params='' cmd=() expects=() allows=()
	while [ $# -gt 0 ]; do
		case $1 in
		--add) [ $# -ge 2 ] || die "--add needs a PATH"; adds+=("$2"); shift 2 ;;
		--smp) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--smp needs a number"; smp=$2; shift 2 ;;
		--mem) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--mem needs MB"; mem=$2; shift 2 ;;
		--kernel) [ -n "${2:-}" ] || die "--kernel needs a KVER"; kver=$2; shift 2 ;;
		--params) [ $# -ge 2 ] || die "--params needs 'k=v ...'"; params=$2; shift 2 ;;
		--expect-splat) [ -n "${2:-}" ] || die "--expect-splat needs an ERE"; expects+=("$2"); shift 2 ;;
		--allow-splat) [ -n "${2:-}" ] || die "--allow-splat needs an ERE"; allows+=("$2"); shift 2 ;;
		--) shift; cmd=("$@"); break ;;
		-h|--help) usage 0 ;;
		*) die "unknown argument '$1' (CMD goes after --)" ;;
		esac
	done
	if [ "$mode" = run ] && [ ${#cmd[@]} -eq 0 ]; then
		die "run needs -- CMD [ARG]..."
	fi
	if [ "$mode" = shell ] && [ ${#cmd[@]} -gt 0 ]; then
		die "shell takes no CMD"
	fi

	# The kernels of scripts/debug-kernel.sh, built if they are not yet.
	case $kver in
	debug) kver=$(cat "$("$top/scripts/debug-kernel.sh")/release") ||
		die "no debug kernel (scripts/debug-kernel.sh failed)" ;;
	kcsan) kver=$(cat "$("$top/scripts/debug-kernel.sh" --kcsan)/release") ||
		die "no KCSAN kernel (scripts/debug-kernel.sh --kcsan failed)" ;;
	esac
	"$top/scripts/deps.sh" --check ${kver:+"$kver"} ||
		"$top/scripts/deps.sh" ${kver:+"$kver"} >&2
	[ -n "$kver" ] || kver=$("$top/scripts/deps.sh" --print-kver)
	kernel=$cache/kernels/$kver/vmlinuz
	[ -f "$kernel" ] || die "no kernel image $kernel"

	work=$(mktemp -d "${TMPDIR:-/tmp}/callout-vm.XXXXXX")
	stage=$work/root
	# shellcheck disable=SC2064 # expand now: $work is local to this run
	trap "rm -rf '$work'" EXIT
	token=CALLOUT-VM-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')

	# Others may build in this tree at the same time: build and copy the
	# results into the initramfs under the lock their builds take too.
	mkdir -p "$top/build"
	exec 8>"$top/build/.lock"
	flock 8
	if [ -z "${CALLOUT_VM_NOBUILD:-}" ]; then
		make -s -C "$top" KVER="$kver" modules selftests >&2 ||
			die "the build failed"
	fi
	[ -f "$top/callout.ko" ] || die "no $top/callout.ko: run make"
	local vermagic
	vermagic=$(modinfo -F vermagic "$top/callout.ko" 2>/dev/null) ||
		die "$top/callout.ko is not a kernel module: run make"
	[ "${vermagic%% *}" = "$kver" ] ||
		die "callout.ko is built for ${vermagic%% *}, not $kver: run make KVER=$kver"
	build_initramfs
	exec 8>&-

	# TCG unless asked: a /dev/kvm can be there and still not work (nested).
	local accel=${CALLOUT_VM_ACCEL:-tcg} append qrc=0
	kfence=$(kfence_param "$cache/kernels/$kver/config")
	append="console=ttyS0 panic=-1 loglevel=5${kfence:+ $kfence} ${CALLOUT_VM_APPEND:-}"
	local qemu=(qemu-system-x86_64 -machine q35 -accel "$accel" -cpu max
		    -smp "$smp" -m "$mem" -nic none -no-reboot -display none
		    -kernel "$kernel" -initrd "$work/initramfs.cpio"
		    -append "$append")

	if [ "$mode" = shell ]; then
		"${qemu[@]}" -serial mon:stdio -serial null
		return
	fi

	limit=${CALLOUT_VM_TIMEOUT:-600}
	local monitor=none
	[ -z "${CALLOUT_VM_MONITOR:-}" ] ||
		monitor="unix:$CALLOUT_VM_MONITOR,server=on,wait=off"
	: >"$work/dmesg.log"
	{
		qrc=0
		timeout -k 10 "$limit" "${qemu[@]}" -monitor "$monitor" \
			-serial stdio -serial "file:$work/dmesg.log" </dev/null ||
			qrc=$?
		echo "$qrc" >"$work/qemu.rc"
	} | stdbuf -oL tr -d '\r' | tee "$work/console.log"
	qrc=$(cat "$work/qemu.rc")
	if [ -n "${CALLOUT_VM_LOGDIR:-}" ]; then
		mkdir -p "$CALLOUT_VM_LOGDIR"
		cp "$work/console.log" "$work/dmesg.log" "$CALLOUT_VM_LOGDIR/"
	fi
	verdict "$qrc"
}

# Sourced (by the check script, to test scan_log): define functions only.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
