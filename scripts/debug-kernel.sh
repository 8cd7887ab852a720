#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - build (once per machine) the QEMU-only debug kernels
# that `scripts/vm.sh --kernel debug` and `--kernel kcsan` boot: the Debian
# release's linux-source (that of its default kernel: 6.1 on Debian 12, 6.12
# on Debian 13) from tinyconfig plus the fragments below. Two variants:
#   debug  KASAN (generic, inline), lockdep (PROVE_LOCKING),
#          DEBUG_ATOMIC_SLEEP, debug objects for timers and hrtimers,
#          kmemleak, UBSAN, DEBUG_LIST, and fault injection (failslab,
#          fail_page_alloc, fail_usercopy, with the stack-trace filter);
#   kcsan  the race detector KCSAN (which excludes KASAN) with lockdep,
#          DEBUG_ATOMIC_SLEEP and DEBUG_LIST.
#
# Usage: scripts/debug-kernel.sh [--kcsan]           build it unless it is
#                                                    cached; print its directory
#        scripts/debug-kernel.sh [--kcsan] --dir     print the directory it has
#                                                    (or would have); build nothing
#        scripts/debug-kernel.sh [--kcsan] --check   exit 0 if it is built
#        scripts/debug-kernel.sh [--kcsan] --config  print the config fragment
#
# A kernel lives in $CALLOUT_CACHE/kernels/<variant>-<hash>/: vmlinuz, release
# (its `uname -r`, e.g. 6.1.<sublevel>-debug-<hash>) and build/ (the whole tree,
# for building modules with M=). <hash> covers the fragment, the
# linux-source package version and the compiler, so changing any of them
# builds a new kernel and a cached one is never stale. The symbolic link
# kernels/<release> -> debug-<hash> makes it a KVER like Debian's for the
# Makefile, deps.sh and vm.sh: `make KVER=$(cat .../release)` builds
# callout.ko against its tree (the vermagic differs from Debian's). The build takes about 7-10 minutes on 2 cores (`nice make
# -j2`) for either variant; set CALLOUT_DEBUG_JOBS to change -j.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CALLOUT_CACHE:-$top/.cache}
# shellcheck source=scripts/progress.sh
. "$top/scripts/progress.sh"

# What the debug kernel is, on top of tinyconfig. tinyconfig is allnoconfig
# plus a few tiny choices, so everything the VM and the tests use is named
# here: a 64-bit SMP kernel with ACPI and PCI (without ACPI only one CPU
# comes up), CPU hotplug, the serial console, an initramfs, devtmpfs,
# debugfs, modules, the syscalls the selftests use (futex, POSIX timers,
# timerfd, epoll...), users and cgroups. tinyconfig's SLOB, -Os and xz are
# replaced (KASAN needs SLUB, and from 6.2 on not SLUB_TINY, which tinyconfig
# picks; -O2 and gzip build faster).
#
# HYPERVISOR_GUEST and PARAVIRT(_SPINLOCKS) as in Debian's kernel: in a guest
# without paravirtual spinlocks (TCG has none) a spinlock is then a
# test-and-set lock, virt_spin_lock(). Without them it is the fair queued
# (MCS) lock, which hands a released lock to the next vCPU in line even while
# the host has that vCPU's thread descheduled: on this overcommitted 2-core
# host each uc_fire() then waited 200-370 ms for its file's lock, and
# fuzz_test's expiries, which take one file's lock on every vCPU, kept every
# vCPU in softirq for minutes (soft lockups, RCU stalls; testing.rst).
common_fragment() {
	cat <<'EOF'
CONFIG_64BIT=y
CONFIG_SMP=y
CONFIG_NR_CPUS=8
CONFIG_HOTPLUG_CPU=y
CONFIG_ACPI=y
CONFIG_PCI=y
CONFIG_PREEMPT=y
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PARAVIRT=y
CONFIG_PARAVIRT_SPINLOCKS=y
CONFIG_HZ_250=y
# CONFIG_SLUB_TINY is not set
CONFIG_HIGH_RES_TIMERS=y
CONFIG_NO_HZ_IDLE=y
CONFIG_NO_HZ=y
CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y
CONFIG_KERNEL_GZIP=y
CONFIG_SLUB=y
CONFIG_SLUB_DEBUG=y
CONFIG_PRINTK=y
CONFIG_PRINTK_TIME=y
CONFIG_BUG=y
CONFIG_KALLSYMS=y
CONFIG_MULTIUSER=y
CONFIG_FUTEX=y
CONFIG_POSIX_TIMERS=y
CONFIG_EPOLL=y
CONFIG_SIGNALFD=y
CONFIG_TIMERFD=y
CONFIG_EVENTFD=y
CONFIG_SHMEM=y
CONFIG_FILE_LOCKING=y
CONFIG_ADVISE_SYSCALLS=y
CONFIG_MEMBARRIER=y
CONFIG_CGROUPS=y
CONFIG_MEMCG=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_PROC_FS=y
CONFIG_PROC_SYSCTL=y
CONFIG_SYSFS=y
CONFIG_DEBUG_FS=y
CONFIG_TTY=y
CONFIG_UNIX98_PTYS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_8250_NR_UARTS=4
CONFIG_SERIAL_8250_RUNTIME_UARTS=4
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_UNWINDER_ORC=y
CONFIG_FTRACE=y
CONFIG_ENABLE_DEFAULT_TRACERS=y
CONFIG_KUNIT=y
CONFIG_DEBUG_KERNEL=y
CONFIG_FRAME_WARN=2048
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_PREEMPT=y
CONFIG_DEBUG_LIST=y
CONFIG_SOFTLOCKUP_DETECTOR=y
CONFIG_DETECT_HUNG_TASK=y
# CONFIG_LOCALVERSION_AUTO is not set
EOF
}

# The memory checkers, and the fault injection of check-faults.sh
# (failslab, fail_page_alloc and fail_usercopy, aimed at callout.ko's text
# by the stack-trace filter: require-start/require-end; see tree_fixups).
debug_fragment() {
	cat <<'EOF'
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_FREE=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_DEBUG_OBJECTS_WORK=y
CONFIG_DEBUG_OBJECTS_RCU_HEAD=y
CONFIG_DEBUG_KMEMLEAK=y
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
CONFIG_UBSAN=y
CONFIG_FAULT_INJECTION=y
CONFIG_FAILSLAB=y
CONFIG_FAIL_PAGE_ALLOC=y
CONFIG_FAULT_INJECTION_USERCOPY=y
CONFIG_FAULT_INJECTION_DEBUG_FS=y
CONFIG_FAULT_INJECTION_STACKTRACE_FILTER=y
EOF
}

# The debug variant's one change to the source: 6.1's lib/Kconfig.debug
# keeps FAULT_INJECTION_STACKTRACE_FILTER off x86_64 ("depends on
# !X86_64", from before x86_64 had a reliable unwinder), though the filter
# walks the stack with stack_trace_save(), which the ORC unwinder serves
# like any other. That line goes (a no-op where it is not there).
tree_fixups() {
	[ "$variant" = debug ] || return 0
	sed -i '/^config FAULT_INJECTION_STACKTRACE_FILTER$/,/^config /{/^\tdepends on !X86_64$/d}' \
		"$1/lib/Kconfig.debug"
}

# KCSAN with its defaults, those of the kernel's own KCSAN runs (syzbot):
# a race is reported when a watched access saw the value change, and plain
# aligned writes of up to a word are taken as atomic. The interrupt watcher
# stays off (it slows every access further).
kcsan_fragment() {
	cat <<'EOF'
CONFIG_KCSAN=y
CONFIG_KCSAN_VERBOSE=y
EOF
}

fragment() {
	common_fragment
	case $variant in
	debug) debug_fragment ;;
	kcsan) kcsan_fragment ;;
	esac
}

# The options whose absence after olddefconfig means a broken build: each
# is checked, so a Kconfig dependency that silently drops one fails here.
must_have=(64BIT SMP ACPI PCI HOTPLUG_CPU SLUB PROVE_LOCKING
	   DEBUG_ATOMIC_SLEEP DEBUG_LIST DEBUG_FS MODULE_UNLOAD DEVTMPFS
	   BLK_DEV_INITRD SERIAL_8250_CONSOLE HIGH_RES_TIMERS NO_HZ_IDLE
	   PRINTK_TIME EVENT_TRACING MULTIUSER FUTEX POSIX_TIMERS MEMCG)
variant_must_have() {
	case $variant in
	debug) echo KASAN KASAN_GENERIC KASAN_INLINE DEBUG_OBJECTS_TIMERS \
		    DEBUG_KMEMLEAK UBSAN FAILSLAB FAIL_PAGE_ALLOC \
		    FAULT_INJECTION_USERCOPY FAULT_INJECTION_DEBUG_FS \
		    FAULT_INJECTION_STACKTRACE_FILTER ;;
	kcsan) echo KCSAN ;;
	esac
}

src_version() {
	dpkg-query -W -f='${Version}' "$(basename "$tarball" .tar.xz)" 2>/dev/null ||
		stat -c '%s %Y' "$tarball"
}

key() {
	{
		fragment
		[ "$variant" != debug ] || declare -f tree_fixups
		echo "source $(src_version)"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-12
}

locate() {
	tarball=$("$top/scripts/deps.sh" --print-ksrc)
	name=$variant-$(key)
	dir=$cache/kernels/$name
}

built() {
	[ -f "$dir/vmlinuz" ] && [ -f "$dir/release" ]
}

# Link kernels/<release> to this kernel and print its directory.
finish() {
	ln -sfn "$name" "$cache/kernels/$(cat "$dir/release")"
	echo "$dir"
	exit 0
}

# Before deps.sh has run (--dir, --check on a fresh machine) there is no
# linux-source yet: the kernel named then is one not built.
variant=debug
if [ "${1:-}" = --kcsan ]; then
	variant=kcsan
	shift
fi
case ${1:-} in
--dir) locate; echo "$dir"; exit 0 ;;
--check) locate; built; exit ;;
--config) fragment; exit 0 ;;
-h|--help) sed -n '3,29s/^# \{0,1\}//p' "$0"; exit 0 ;;
'') ;;
*) echo "debug-kernel.sh: unknown argument $1" >&2; exit 2 ;;
esac

"$top/scripts/deps.sh" --check || "$top/scripts/deps.sh" >&2
locate
built && finish

# One build per machine at a time: whoever comes second waits and finds it.
mkdir -p "$cache/kernels"
exec 9>"$cache/kernels/.$variant.lock"
flock 9
built && finish

[ -f "$tarball" ] || { echo "debug-kernel.sh: no $tarball (make deps)" >&2; exit 2; }

start=$(date +%s)
tree=$dir/build
log=$dir/build.log
if [ ! -f "$tree/.extracted" ]; then
	rm -rf "$tree"
	mkdir -p "$tree"
	logged "$log" "extracting $tarball into $tree" \
		tar -xJf "$tarball" -C "$tree" --strip-components=1
	touch "$tree/.extracted"
fi

tree_fixups "$tree"
kmake=(make -C "$tree" ARCH=x86_64)
# shellcheck disable=SC2317 # logged runs it
configure() {
	"${kmake[@]}" -s tinyconfig
	{
		fragment
		echo "CONFIG_LOCALVERSION=\"-$name\""
	} >"$tree/$variant.config"
	# merge_config.sh says every choice the fragment overrides.
	(cd "$tree" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m -O . .config "$variant.config")
	"${kmake[@]}" -s olddefconfig
}
logged "$log" "configuring (tinyconfig + fragment)" configure
missing=()
# shellcheck disable=SC2046 # a list of words
for opt in "${must_have[@]}" $(variant_must_have); do
	grep -qx "CONFIG_$opt=y" "$tree/.config" || missing+=("$opt")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "debug-kernel.sh: the config lost: ${missing[*]}" >&2
	exit 1
fi

jobs=${CALLOUT_DEBUG_JOBS:-2}
logged "$log" "building bzImage and modules with -j$jobs (7-10 minutes)" \
	nice "${kmake[@]}" -j"$jobs" bzImage modules
"${kmake[@]}" -s kernelrelease >"$dir/release.tmp"
cp "$tree/arch/x86/boot/bzImage" "$dir/vmlinuz.tmp"
mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
mv "$dir/release.tmp" "$dir/release"
echo "debug-kernel.sh: $(cat "$dir/release") built in $(( $(date +%s) - start )) s" >&2
finish
