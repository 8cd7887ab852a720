# SPDX-License-Identifier: GPL-2.0
#
# callout: build the module against an installed Debian kernel's headers and
# test it in a QEMU VM. The module's objects are listed in Kbuild; this file
# is the front door for people (make help).
#
#   make [KVER=6.1.0-xx-amd64]   build callout.ko (default: the kernel of
#                                Debian's linux-headers-amd64, not -rt or
#                                -cloud, never uname -r)
#   make check                   every test; ends with "N passed, N failed"
#   make check-matrix            make check on 6.1, 6.12, 6.12-rt and the
#                                newest released 7.x and 7.x-rt Debian has
#   make dkms-check              the README's DKMS commands on 6.1, 6.12 and
#                                the newest released 7.x
#   make fresh-check             make demo and make check on new Debian 12
#                                and 13 roots (debootstrap; as root)
#   make check-debug             the VM suite under the debug kernel (KASAN,
#                                lockdep, kmemleak...; built once, 7-10 min)
#   make check-kcsan             the VM suite, 5 min of torture and 10^6
#                                fuzzer calls under KCSAN (its own kernel)
#   make check-faults            torture and fuzzer in the debug kernel with
#                                callout's allocations and copies failing
#   make demo / make shell       the VM, scripted / interactive

CALLOUT_CACHE ?= $(CURDIR)/.cache
export CALLOUT_CACHE

# Evaluated when used, so a fresh machine's first `make` sees the headers
# that deps.sh has just installed: Debian's default -amd64 headers. GNU make
# expands all of a recipe before running its first line, so a recipe that
# uses $(KVER), $(KDIR) or the cache never installs them itself: its target
# has `deps` as a prerequisite, which runs first.
KVER ?= $(shell scripts/deps.sh --print-kver)
# A kernel built from source can be used by linking its tree to
# $(CALLOUT_CACHE)/kernels/<kver>/build beside its vmlinuz.
KDIR ?= $(or $(wildcard $(CALLOUT_CACHE)/kernels/$(KVER)/build),/usr/src/linux-headers-$(KVER))
# A kernel whose headers need a newer Debian's compiler than this one's
# (Linux 7.x from trixie-backports or sid) is built against in a build root
# of that release made by deps.sh: KDIR is a path in that root, and KRUN runs
# the kernel's make there (directly otherwise).
KRUN = scripts/buildroot.sh run $(KVER)

# The kernel deps.sh and vm.sh are asked for: only one named by the user.
user_kver := $(if $(filter command line environment,$(origin KVER)),$(KVER))

DEPS := scripts/deps.sh

# Module parameters for the VM targets: make demo PARAMS='scheme=hashed'
PARAMS ?=
VM := CALLOUT_VM_NOBUILD=1 scripts/vm.sh
VM_OPTS = $(if $(user_kver),--kernel $(user_kver)) $(if $(PARAMS),--params '$(PARAMS)')

# kselftest collections: every selftests/<name>/Makefile.
SELFTEST_DIRS := $(patsubst %/Makefile,%,$(wildcard selftests/*/Makefile))
KSFT_SRC := $(CALLOUT_CACHE)/linux-source/tools/testing/selftests
KSFT_INSTALL := $(CURDIR)/build/kselftest

.PHONY: all modules selftests tools bench bench-schemes bench-core clean deps check check-matrix \
	dkms-check fresh-check demo shell vm lint help debug-kernel check-debug check-debug-long \
	check-kcsan check-faults

all: modules

modules: deps
	$(KRUN) $(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Build every collection and install it, runner and list included, the way
# the kernel's selftests Makefile does: build/kselftest/run_kselftest.sh.
selftests: deps
	@rm -rf $(KSFT_INSTALL)
	@mkdir -p $(KSFT_INSTALL)/kselftest
	@install -m 755 $(KSFT_SRC)/run_kselftest.sh $(KSFT_INSTALL)/
	@install -m 755 $(KSFT_SRC)/kselftest/* $(KSFT_INSTALL)/kselftest/
	@set -e; for d in $(SELFTEST_DIRS); do \
		c=$${d#selftests/}; \
		$(MAKE) --no-print-directory -C $$d OUTPUT=$(CURDIR)/build/$$d; \
		$(MAKE) --no-print-directory -s -C $$d OUTPUT=$(CURDIR)/build/$$d \
			INSTALL_PATH=$(KSFT_INSTALL)/$$c install >/dev/null; \
		$(MAKE) --no-print-directory -s -C $$d OUTPUT=$(CURDIR)/build/$$d \
			COLLECTION=$$c emit_tests >>$(KSFT_INSTALL)/kselftest-list.txt; \
	done

# Everything the other targets need, installed if missing (scripts/deps.sh).
deps:
	@$(DEPS) --check $(user_kver) || $(DEPS) $(user_kver)

check:
	$(if $(user_kver),KVER=$(user_kver)) scripts/check.sh

# make check on every kernel of `scripts/deps.sh --print-matrix` (the
# default 6.1, 6.12, 6.12-rt, the newest released 7.x and 7.x-rt of
# bookworm-backports, trixie-backports and sid), the scheme tests only on
# the first; one summary line per kernel at the end (its headers' package
# version, counts and time), and the status of the worst. A kernel that
# cannot be found fails.
check-matrix: deps
	@mkdir -p build; rc=0; schemes=1; : >build/check-matrix.txt; \
	kvers=$$($(DEPS) --print-matrix) || exit 1; \
	for k in $$kvers; do \
		echo "## make check KVER=$$k"; t0=$$(date +%s); \
		{ CHECK_SCHEMES=$$schemes KVER=$$k scripts/check.sh; echo $$? >build/check-matrix.rc; } | \
			tee build/check-matrix.log; \
		[ "$$(cat build/check-matrix.rc)" = 0 ] || rc=1; schemes=0; \
		echo "$$k ($$(scripts/buildroot.sh version $$k)): $$(tail -n 1 build/check-matrix.log)" \
			"($$(($$(date +%s) - t0)) s)" \
			>>build/check-matrix.txt; \
	done; \
	echo "## check-matrix $$(git rev-parse --short HEAD 2>/dev/null) $$(date -u +%F)"; \
	cat build/check-matrix.txt; exit $$rc

# The README's two commands on new debootstrap roots of Debian 12 and 13
# (scripts/fresh-check.sh; as root, minutes; not part of make check).
fresh-check:
	scripts/fresh-check.sh $(FRESH_ARGS)

# DKMS in throwaway trees, then the installed module in the VM.
DKMS_KVERS ?=
dkms-check: deps
	scripts/dkms-check.sh $(DKMS_KVERS)

# The debug kernel (scripts/debug-kernel.sh), and the whole VM suite under it
# with kmemleak scans after: a short torture run, or the long one.
debug-kernel:
	scripts/debug-kernel.sh

check-debug:
	scripts/check-debug.sh

check-debug-long:
	scripts/check-debug.sh --long

# The same suite under the KCSAN kernel, judged on its race reports.
check-kcsan:
	scripts/check-debug.sh --kcsan

# Torture and fuzzer in the debug kernel, callout's allocations failing.
check-faults:
	scripts/check-faults.sh

# The user-space programs of tools/ (callout-demo, ...), in build/tools/.
tools:
	$(MAKE) --no-print-directory -C tools

# The main job: 100000 real callouts through /dev/callout with random
# timeouts, each expiry read back and its lateness measured; then what the
# module says about it in dmesg and debugfs. Exits with callout-demo's status.
DEMO_ARGS ?= -n 100000
DEMO := echo '== callout-demo $(DEMO_ARGS)'; callout-demo $(DEMO_ARGS); rc=$$?; \
	echo '== dmesg | grep callout'; dmesg | grep callout; \
	echo '== /sys/module/callout/parameters/'; \
	grep -H . /sys/module/callout/parameters/* | sed 's|.*/||'; \
	echo '== /sys/kernel/debug/callout/stats (totals)'; \
	grep -v '^cpu[0-9]' /sys/kernel/debug/callout/stats; \
	echo '== /sys/kernel/debug/callout/stats (per CPU: set, expired, ticks)'; \
	grep -E '^cpu[0-9]+_(set|expired|ticks_run):' /sys/kernel/debug/callout/stats; \
	exit $$rc

demo: modules selftests tools
	$(VM) run $(VM_OPTS) --add build/tools/callout-demo -- sh -c "$(DEMO)"

shell: modules selftests
	$(VM) shell $(VM_OPTS)

# make vm CMD='dmesg | tail': one command in the VM
CMD ?= dmesg
vm: modules selftests
	$(VM) run $(VM_OPTS) -- sh -c '$(CMD)'

# The benchmarks, a VM boot a repetition: build/bench/<date>/ gets CSV, a Markdown
# table and the PNGs of Fig. 9 redrawn (Documentation/benchmarks.rst).
bench: modules selftests tools
	scripts/bench.sh $(if $(user_kver),--kernel $(user_kver)) $(BENCH_ARGS)

# Instructions per insert/remove/tick of every scheme, in user space
# (callgrind): results/bench-schemes.{csv,md}.
bench-schemes: deps
	$(MAKE) --no-print-directory -C tools/testing/schemes bench-schemes

# The scheme library in wall-clock time on this machine's CPU, n = 10^3 ..
# 10^7, with issue 16's targets met or missed (20-40 min):
# results/bench-native/ (Documentation/benchmarks.rst, "On this machine's CPU").
bench-core: deps
	$(MAKE) --no-print-directory -C tools/testing/schemes bench-native

# Static checks, one TAP line each, failing on any finding: checkpatch
# --strict, W=1, sparse, kernel-doc, an out-of-tree client built against
# include/ alone, shellcheck, docutils (scripts/lint.sh says how).
lint: deps
	@KVER=$(KVER) KDIR=$(KDIR) scripts/lint.sh

clean:
	@$(KRUN) sh -c 'if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi'
	rm -rf build

help:
	@sed -n '3,22s/^# \{0,1\}//p' Makefile
	@echo 'Other targets: modules selftests tools bench bench-schemes bench-core deps vm CMD=... lint clean'
	@echo '               debug-kernel check-debug-long'
	@echo 'Variables: KVER=<kver> PARAMS="k=v ..." CHECK_PARAMS="set1;set2"'
