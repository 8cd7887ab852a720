#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh - what `make lint` runs: the kernel's own static checks over the
# sources, one TAP result per check, and a non-zero exit on any finding.
#
#   checkpatch   checkpatch.pl --strict --no-tree -f (from linux-source)
#                over every C source and header of module/, schemes/,
#                bench/, include/, selftests/ (its modules/ too) and the
#                kernel-style tools (libcallout, calloutctl): no ERROR,
#                WARNING or CHECK, but for the one LINUX_VERSION_CODE test
#                of the public header
#   W=1          the modules built with W=1: no compiler warning
#   sparse       the module checked with KBUILD_CHECKSRC=2 (set
#                explicitly: Debian's 7.x headers lack checker-valid.sh,
#                and C=2 alone would skip sparse there without a word): no
#                sparse warning; and sparse shown to run: every source file
#                checked, and a canary with a known finding caught
#   kernel-doc   kernel-doc -none -v over module/, schemes/, bench/, the
#                test modules, include/ and libcallout's header: no
#                warning; and every EXPORT_SYMBOL*() has a kernel-doc
#                comment
#   client       an out-of-tree client module built with W=1 against
#                include/ alone (no private include path), its symbols
#                resolved against the module built above: no warning, and
#                it imports the namespace callout.ko exports its API in
#   scripts      shellcheck on every shell script of the project
#   rst          every Documentation/*.rst parsed by docutils (Debian's,
#                /usr/bin/python3): no warning or error
#
# sparse and kernel-doc exit 0 with warnings, so their output is what counts.
# The W=1 and sparse builds run on a copy of the sources in build/lint/, so
# that they always compile from scratch (a finding is never hidden by an
# up-to-date object) and never touch the callout.ko that the VM loads.
#
# A kernel whose headers only sid has (Linux 7.x) is built against in its
# sid build root (scripts/buildroot.sh run); everything else runs here.
#
# Environment: KVER (default: deps.sh --print-kver), KDIR (default: that
# kernel's headers), CALLOUT_CACHE (default: <top>/.cache).
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# kmod's modinfo is in sbin, which a normal user's PATH lacks.
PATH=$PATH:/usr/sbin:/sbin
cache=${CALLOUT_CACHE:-$top/.cache}
export CALLOUT_CACHE=$cache
cd "$top" || exit 1
# Run alike from make and by hand: a `make -s lint` would pass -s down and
# hide kbuild's CHECK lines, which show that sparse ran.
unset MAKEFLAGS MFLAGS MAKELEVEL

kver=${KVER:-$("$top/scripts/deps.sh" --print-kver)}
kdir=${KDIR:-}
if [ -z "$kdir" ]; then
	kdir=$cache/kernels/$kver/build
	[ -d "$kdir" ] || kdir=/usr/src/linux-headers-$kver
fi
ksrc=$cache/linux-source
out=$top/build/lint
n=0 bad=0

# result NAME LOG: one TAP line for a check; every line of LOG that is a
# finding (the lines the caller left in it) is printed as a diagnostic.
result() {
	local name=$1 log=$2 count
	n=$((n + 1))
	count=$(grep -c . "$log")
	if [ "$count" -eq 0 ]; then
		echo "ok $n $name"
	else
		sed 's/^/# /' "$log"
		echo "not ok $n $name: $count finding(s)"
		bad=1
	fi
}

# kmake ARG...: make for the kernel KVER, where its modules are built.
kmake() {
	"$top/scripts/buildroot.sh" run "$kver" make "$@"
}

# findings: the lines of a build log that are a compiler's or sparse's
# warning or error (sparse also says "error:" for what it cannot parse).
findings() {
	grep -E ':[0-9]+(:[0-9]+)?: (warning|error|fatal error|note): ' || true
}

# failed_run TOOL RC OUTPUT LOG: a tool that failed without saying why in a
# way LOG caught (it could not run at all) is a finding too.
failed_run() {
	if [ "$2" -ne 0 ] && ! grep -q . "$4"; then
		echo "$1 exited $2: $(tail -n 3 "$3" | tr '\n' ' ')" >>"$4"
	fi
}

# The checks, in a function: bash reads a script as it runs it, and one
# edited meanwhile must not run half old and half new.
main() {
	# The folders whose sources Kbuild compiles, into four modules.
	local d ksrcs=()
	for d in module schemes bench selftests/callout/modules; do
		ksrcs+=("$d"/*.[ch])
	done
	mapfile -t kdoc_files < <(ls "${ksrcs[@]}" include/linux/*.h include/uapi/linux/*.h \
		tools/libcallout/*.h 2>/dev/null)
	mapfile -t cp_files < <(ls "${ksrcs[@]}" include/*/*.h include/*/*/*.h \
		selftests/*/*.[ch] tools/libcallout/*.[ch] tools/calloutctl/*.[ch] 2>/dev/null)
	mapfile -t scripts < <(ls scripts/*.sh .ci/run selftests/*/*.sh tools/*/*.sh \
		tools/testing/*/*.sh 2>/dev/null)

	mkdir -p "$out"
	echo "TAP version 13"
	echo "1..7"

	# checkpatch exits 1 on a finding, and says which with an ERROR, WARNING
	# or CHECK line and the FILE line after it; any other failure (a missing
	# spelling.txt, no perl) is a finding too.
	log=$out/checkpatch.log
	rc=0
	(cd "$out" && perl "$ksrc/scripts/checkpatch.pl" --no-tree --strict -q \
		--show-types -f "${cp_files[@]/#/$top/}") >"$out/checkpatch.out" 2>&1 || rc=$?
	rm -f "$out"/.checkpatch-camelcase.*
	# One line per finding, as a compiler says it: FILE:LINE: TYPE: message.
	awk -v top="$top/" '
		/^(ERROR|WARNING|CHECK):/ {
			if (msg != "")
				print msg
			msg = $0
			next
		}
		msg != "" && /^#[0-9]+: FILE: / {
			loc = $3
			sub(/:$/, "", loc)
			if (index(loc, top) == 1)
				loc = substr(loc, length(top) + 1)
			print loc ": " msg
			msg = ""
		}
		END { if (msg != "") print msg }' "$out/checkpatch.out" >"$log"
	failed_run checkpatch "$rc" "$out/checkpatch.out" "$log"
	# include/linux/callout.h spells the symbol namespace by kernel version
	# (a client's build runs no probe of ours): on its lines that test
	# LINUX_VERSION_CODE, checkpatch's advice against it, and its reading
	# of that macro as a constant on the left of a comparison, are expected.
	grep -n 'LINUX_VERSION_CODE' include/linux/callout.h | cut -d: -f1 |
		sed -E 's/.*/^include\/linux\/callout\.h:&: WARNING:(LINUX_VERSION_CODE|CONSTANT_COMPARISON):/' \
		>"$out/checkpatch.allowed"
	grep -vEf "$out/checkpatch.allowed" "$log" >"$log.tmp" || true
	mv "$log.tmp" "$log"
	result "checkpatch --strict on ${#cp_files[@]} files" "$log"

	# A fresh copy of what Kbuild builds, built with W=1, then checked by sparse
	# (C=2 checks every file again without recompiling).
	rm -rf "$out/src"
	mkdir -p "$out/src"
	cp -r Kbuild include "$out/src/"
	cp --parents "${ksrcs[@]}" "$out/src/"
	rc=0
	kmake -s -C "$kdir" M="$out/src" W=1 modules >"$out/w1.out" 2>&1 || rc=$?
	findings <"$out/w1.out" | sed "s|$out/src/||" >"$out/w1.log"
	failed_run "make W=1" "$rc" "$out/w1.out" "$out/w1.log"
	result "W=1 build of the modules" "$out/w1.log"

	# Not silent: kbuild's "CHECK file.c" lines show that sparse ran on
	# every file. The canary, a module of its own, must give its finding.
	rc=0
	kmake -C "$kdir" M="$out/src" W=1 KBUILD_CHECKSRC=2 modules >"$out/sparse.out" 2>&1 || rc=$?
	findings <"$out/sparse.out" | sed "s|$out/src/||" >"$out/sparse.log"
	failed_run "make KBUILD_CHECKSRC=2" "$rc" "$out/sparse.out" "$out/sparse.log"
	nsrc=$(printf '%s\n' "${ksrcs[@]}" | grep -c '\.c$')
	nchk=$(grep -cE '^ +CHECK +.*\.c$' "$out/sparse.out")
	[ "$nchk" -ge "$nsrc" ] ||
		echo "sparse checked $nchk of $nsrc files: it did not run" >>"$out/sparse.log"
	rm -rf "$out/canary"
	mkdir -p "$out/canary"
	echo 'obj-m := canary.o' >"$out/canary/Kbuild"
	printf '%s\n' '#include <linux/module.h>' 'int canary_undeclared;' \
		'MODULE_LICENSE("GPL");' >"$out/canary/canary.c"
	kmake -s -C "$kdir" M="$out/canary" KBUILD_CHECKSRC=2 modules >"$out/canary.out" 2>&1 || true
	grep -q "canary.c:2:.*symbol 'canary_undeclared' was not declared" "$out/canary.out" ||
		echo "sparse missed the canary's undeclared symbol: it did not run" \
			"($(tail -n 2 "$out/canary.out" | tr '\n' ' '))" >>"$out/sparse.log"
	result "sparse (KBUILD_CHECKSRC=2) on the modules, $nchk files, canary caught" "$out/sparse.log"

	# kernel-doc: the script of the kernel built against, else linux-source's.
	kdoc=$kdir/scripts/kernel-doc
	[ -x "$kdoc" ] || kdoc=$ksrc/scripts/kernel-doc
	log=$out/kernel-doc.log
	rc=0
	perl "$kdoc" -none -v "${kdoc_files[@]}" >"$out/kernel-doc.out" 2>&1 || rc=$?
	grep -E ': warning: |: error: ' "$out/kernel-doc.out" >"$log"
	failed_run kernel-doc "$rc" "$out/kernel-doc.out" "$log"
	# 6.1's kernel-doc does not know EXPORT_SYMBOL_NS*(), so -export cannot
	# find our exports: ask for each exported function by name instead.
	while read -r file sym; do
		if ! perl "$kdoc" -rst -function "$sym" "$file" 2>/dev/null |
		     grep -q "^\.\. c:function:: .*\b$sym *("; then
			echo "$file: exported $sym() has no kernel-doc comment" >>"$log"
		fi
	done < <(grep -oE '^EXPORT_SYMBOL[A-Z_]*\( *[a-z_0-9]+' "${ksrcs[@]}" |
		 sed -E 's/:EXPORT_SYMBOL[A-Z_]*\( */ /')
	nexp=$(cat "${ksrcs[@]}" | grep -cE '^EXPORT_SYMBOL')
	result "kernel-doc -none -v, and all $nexp exported functions documented" "$log"

	# An out-of-tree client: include/linux/callout.h must stand alone, and
	# its CALLOUT_NS must name the namespace the module exports in (modpost
	# checks the import; modinfo shows it).
	log=$out/client.log
	rm -rf "$out/client"
	mkdir -p "$out/client"
	printf '%s\n' 'obj-m := callout_oot.o' "ccflags-y := -I$top/include" >"$out/client/Kbuild"
	cat >"$out/client/callout_oot.c" <<-'EOF'
	// SPDX-License-Identifier: GPL-2.0
	#include <linux/callout.h>
	#include <linux/module.h>

	static struct callout oot_callout;

	static void oot_func(void *arg)
	{
	}

	static int __init oot_init(void)
	{
		callout_init(&oot_callout);
		return callout_set(&oot_callout, 1, oot_func, NULL) < 0 ? -EIO : 0;
	}

	static void __exit oot_exit(void)
	{
		callout_unset_sync(&oot_callout);
	}

	module_init(oot_init);
	module_exit(oot_exit);
	MODULE_IMPORT_NS(CALLOUT_NS);
	MODULE_DESCRIPTION("An out-of-tree client of callout");
	MODULE_LICENSE("GPL");
	EOF
	rc=0
	kmake -C "$kdir" M="$out/client" W=1 KBUILD_EXTRA_SYMBOLS="$out/src/Module.symvers" \
		modules >"$out/client.out" 2>&1 || rc=$?
	{ findings <"$out/client.out"; grep -E '(WARNING|ERROR): modpost' "$out/client.out"; } |
		sed "s|$out/||" >"$log"
	failed_run "make (client)" "$rc" "$out/client.out" "$log"
	if [ "$rc" -eq 0 ]; then
		ns=$(awk '$2 == "callout_set" { print $5 }' "$out/src/Module.symvers")
		imp=$(modinfo -F import_ns "$out/client/callout_oot.ko" 2>&1)
		[ -n "$ns" ] && [ "$imp" = "$ns" ] ||
			echo "client imports namespace '$imp', callout_set is exported in '$ns'" >>"$log"
	fi
	result "an out-of-tree client against include/ alone, importing ${ns:-?}" "$log"

	log=$out/shellcheck.log
	rc=0
	shellcheck -f gcc "${scripts[@]}" >"$out/shellcheck.out" 2>&1 || rc=$?
	grep -E ':[0-9]+:[0-9]+: ' "$out/shellcheck.out" >"$log"
	failed_run shellcheck "$rc" "$out/shellcheck.out" "$log"
	result "shellcheck on ${#scripts[@]} scripts" "$log"

	# docutils reports as FILE:LINE: (LEVEL/N) message; INFO is level 1.
	log=$out/rst.log
	rc=0
	/usr/bin/python3 -c '
import sys
import docutils.core
for name in sys.argv[1:]:
    with open(name) as f:
        docutils.core.publish_doctree(
            f.read(), source_path=name,
            settings_overrides={"report_level": 2, "halt_level": 5})
' Documentation/*.rst >"$out/rst.out" 2>&1 || rc=$?
	grep -E '^[^ ]+:[0-9]+: \((WARNING|ERROR|SEVERE)/' "$out/rst.out" >"$log"
	failed_run docutils "$rc" "$out/rst.out" "$log"
	docs=(Documentation/*.rst)
	result "reStructuredText of ${#docs[@]} documents" "$log"
}

main
exit "$bad"
