#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh - what `make dkms-check` runs: the command blocks of
# README.md's "Installing on a real machine", read from the README itself and
# run in order, line by line, for each kernel, the way a user types them from
# a checkout (a copy of this one's tracked and new files), so that the recipe
# and the proof of it cannot drift apart. Each kernel gets fresh throwaway
# DKMS trees under a temporary directory; on this host:
#
#   `uname -r`     gives the kernel under test (the host runs another one)
#   sudo           runs the command as it is (this script runs as root)
#   dkms           gets --dkmstree, --sourcetree, --installtree, and
#                  --no-depmod where it would run depmod
#   rm /usr/src/X  removes X from the throwaway source tree instead
#   dkms, Linux 7.x  a kernel whose headers need a newer Debian's compiler
#                  (trixie-backports, sid) is built for in its build root
#                  (scripts/buildroot.sh): dkms runs there, with that root's
#                  DKMS, compiler and signing key
#   modprobe       cannot run here (this host cannot load modules, nor boot
#                  another kernel): it runs in the test VM booting the kernel,
#                  with the DKMS-installed callout.ko in its /lib/modules
#   mokutil,reboot not run (TAP SKIP, saying why): they need the firmware
#
# Any other command fails the check (teach this script to run it). Checked
# besides: that the README names the version dkms.conf has, the installed
# module's vermagic and DKMS signature, /dev/callout after modprobe, and that
# the removal commands leave nothing behind. Nothing of a run stays on the
# host; a DKMS signing key (/var/lib/dkms/mok.*) that DKMS generated for the
# run is removed again. Prints TAP; exits non-zero if any step failed.
#
# Usage: scripts/dkms-check.sh [KVER]...   (default: the generic kernels
#                                          of deps.sh --print-matrix: 6.1,
#                                          6.12 and the newest released 7.x)
# Environment: DKMS  the dkms to run (default: the one on PATH), e.g. another
#                    release's script, to try the recipe on that DKMS
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CALLOUT_CACHE=${CALLOUT_CACHE:-$top/.cache}
section='## Installing on a real machine'

[ "$(id -u)" = 0 ] || {
	echo "dkms-check: run as root (dkms add and dkms install insist on it)" >&2
	exit 2
}
kvers=("$@")
if [ ${#kvers[@]} -eq 0 ]; then
	mapfile -t kvers < <("$top/scripts/deps.sh" --print-matrix | grep -v -- '-rt-amd64$')
fi
"$top/scripts/deps.sh" --check "${kvers[@]}" || "$top/scripts/deps.sh" "${kvers[@]}"
dkms_cmd=${DKMS:-dkms}
command -v "$dkms_cmd" >/dev/null || { echo "dkms-check: no $dkms_cmd: run make deps" >&2; exit 2; }

# The section's code blocks (indented or fenced), one "LINENO<TAB>command"
# a line; blank lines dropped.
mapfile -t cmds < <(awk -v sec="$section" '
	$0 == sec { in_sec = 1; next }
	in_sec && /^## / { exit }
	!in_sec { next }
	/^```/ { fence = !fence; next }
	fence || /^(    |\t)/ {
		line = $0
		sub(/^(    |\t)/, "", line)
		if (line ~ /[^[:space:]]/) print NR "\t" line
	}' "$top/README.md")
if [ ${#cmds[@]} -eq 0 ]; then
	echo "dkms-check: no command block in README.md's \"$section\"" >&2
	exit 2
fi
pkg=$(sed -n 's/^PACKAGE_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top/dkms.conf")
ver=$(sed -n 's/^PACKAGE_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$top/dkms.conf")

tmp=$(mktemp -d)
# One run at a time: the signing key is shared.
mkdir -p "$CALLOUT_CACHE"
exec 9>"$CALLOUT_CACHE/.dkms-check.lock"
flock 9
# DKMS's signing keys that it generated for the run: removed at the end.
made_keys=()
cleanup() {
	rm -rf "$tmp"
	[ ${#made_keys[@]} -eq 0 ] || rm -f "${made_keys[@]}"
}
trap cleanup EXIT

# The sources as a user's checkout has them: tracked and new files.
src=$tmp/callout
mkdir -p "$src"
git -C "$top" ls-files -z -co --exclude-standard |
	(cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src"

n=0 failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
not_ok() {
	n=$((n + 1)) failed=$((failed + 1))
	echo "not ok $n - $*"
}
# show LOG: LOG as TAP comments.
show() {
	sed 's/^/#   /' "$1"
}

# run_host LINE LOG: LINE as bash runs it, in the checkout, with the
# substitutions above; its output to LOG.
run_host() {
	(
		cd "$src"
		# shellcheck disable=SC2317 # called from the eval'd README line
		uname() {
			if [ "$*" = -r ]; then echo "$k"; else command uname "$@"; fi
		}
		# shellcheck disable=SC2317
		sudo() { "$@"; }
		# shellcheck disable=SC2317
		dkms() {
			local a more=()
			for a; do
				case $a in install | uninstall | remove) more=(--no-depmod) ;; esac
			done
			"$top/scripts/buildroot.sh" run "$k" \
				"$dkms_cmd" "$@" "${trees[@]}" "${more[@]}"
		}
		eval "$1"
	) >"$2" 2>&1
}

# installed: the DKMS-installed callout.ko of kernel $k, if there is one.
installed() {
	find "$tmp/$k/lib/modules" -name "$pkg.ko*" 2>/dev/null | head -n 1
}

# check_installed LOG: the module `dkms install` left, and its signature
# (DKMS signs when the kernel's sign-file is there, as Debian's is).
check_installed() {
	local ko vermagic signer key serial
	ko=$(installed)
	if [ -z "$ko" ]; then
		not_ok "$k: no $pkg.ko in the install tree after dkms install"
		return
	fi
	vermagic=$(modinfo -F vermagic "$ko")
	signer=$(modinfo -F signer "$ko" || true)
	# The signature's key id is the serial number of DKMS's certificate.
	key=$(modinfo -F sig_key "$ko" | tr -d ':' | tr 'a-f' 'A-F' | sed 's/^0*//')
	serial=
	if [ -f "$mok.pub" ]; then
		serial=$(openssl x509 -inform DER -in "$mok.pub" -noout -serial |
			sed 's/^serial=0*//')
	fi
	if [ "${vermagic%% *}" != "$k" ]; then
		not_ok "$k: ${ko#"$tmp/$k/lib/modules/"}: vermagic ${vermagic%% *}"
	elif grep -qs '^Signing module' "$tmp/$k"/*.log &&
	     { [ -z "$key" ] || [ "$key" != "$serial" ]; }; then
		not_ok "$k: DKMS said it signed; the module's key '$key' is not $mok.pub's ('$serial')"
	else
		ok "$k: ${ko#"$tmp/$k/lib/modules/"}: vermagic $k, signer '${signer:-none}'${key:+ (the key of $mok.pub)}"
	fi
}

# run_vm LINE LOG: LINE in the VM booting $k with the installed module as
# its callout.ko, after the VM's own rmmod of it; then /dev/callout, and the
# module loaded is the one DKMS built.
run_vm() {
	local ko vmtop srcversion
	ko=$(installed)
	if [ -z "$ko" ]; then
		echo "no DKMS-installed $pkg.ko for $k" >"$2"
		return 1
	fi
	# The VM loads the top directory's callout.ko: give it the installed one.
	vmtop=$tmp/$k/vm
	mkdir -p "$vmtop"
	cp -a "$top/scripts" "$vmtop/"
	case $ko in
	*.xz) xz -dc "$ko" >"$vmtop/callout.ko" ;;
	*.zst) zstd -qdc "$ko" >"$vmtop/callout.ko" ;;
	*) cp "$ko" "$vmtop/callout.ko" ;;
	esac
	srcversion=$(modinfo -F srcversion "$vmtop/callout.ko")
	env CALLOUT_VM_NOBUILD=1 "$vmtop/scripts/vm.sh" run --kernel "$k" -- sh -c "set -e
sudo() { \"\$@\"; }
rmmod $pkg
$1
test -c /dev/callout || { echo 'dkms-check: no /dev/callout'; exit 1; }
test \"\$(cat /sys/module/$pkg/srcversion)\" = '$srcversion' ||
	{ echo 'dkms-check: the loaded $pkg is not the DKMS-built one'; exit 1; }
echo \"dkms-check: /dev/callout, scheme \$(cat /sys/module/$pkg/parameters/scheme)\"" >"$2" 2>&1
}

echo "TAP version 13"
echo "# README.md \"$section\": ${#cmds[@]} command lines, for ${kvers[*]}"

# The README must name the version dkms.conf gives: `dkms add .` registers
# that one.
bad=$(printf '%s\n' "${cmds[@]}" | grep -oE "${pkg}[/-][0-9]([[:alnum:].~+_-]*[[:alnum:]])?" |
	grep -vxF -e "$pkg/$ver" -e "$pkg-$ver" | sort -u | tr '\n' ' ' || true)
if [ -z "$bad" ]; then
	ok "README.md names $pkg/$ver, the version of dkms.conf"
else
	not_ok "README.md names ${bad% }; dkms.conf has PACKAGE_VERSION=$ver"
fi

for k in "${kvers[@]}"; do
	mkdir -p "$tmp/$k/dkms" "$tmp/$k/src" "$tmp/$k/lib/modules/$k"
	# The kernel's root: / here, or its build root, where dkms runs.
	kroot=$("$top/scripts/buildroot.sh" root "$k")
	# As /lib/modules/KVER has them: DKMS 3.2 looks for the headers there.
	# 7.x's links are relative: resolved in the root, named as from inside.
	for d in build source; do
		[ -L "$kroot/lib/modules/$k/$d" ] || continue
		t=$(readlink -f "$kroot/lib/modules/$k/$d")
		ln -s "${t#"$kroot"}" "$tmp/$k/lib/modules/$k/$d"
	done
	mok=$kroot/var/lib/dkms/mok
	[ -f "$mok.key" ] || made_keys+=("$mok.key" "$mok.pub")
	trees=(--dkmstree "$tmp/$k/dkms" --sourcetree "$tmp/$k/src"
	       --installtree "$tmp/$k/lib/modules")
	start=$SECONDS
	echo "# $k: \`uname -r\` is $k; /usr/src is $tmp/$k/src, /var/lib/dkms $tmp/$k/dkms;" \
		"$("$top/scripts/buildroot.sh" run "$k" "$dkms_cmd" --version)${kroot:+ in $kroot}"
	broken=
	for c in "${cmds[@]}"; do
		lineno=${c%%$'\t'*} line=${c#*$'\t'}
		# The command alone: no comment, no leading sudo.
		cmd=$(sed 's/[[:space:]]#.*//; s/[[:space:]]*$//' <<<"$line")
		read -ra w <<<"$cmd"
		[ "${w[0]}" != sudo ] || w=("${w[@]:1}")
		what="$k: README.md:$lineno: $cmd"
		log=$tmp/$k/$lineno.log
		if [ -n "$broken" ]; then
			not_ok "$what # not run: $broken failed"
			continue
		fi
		if [[ $cmd = *[\;\&\|\<\>\`]* ]]; then
			not_ok "$what: one command a line, please (dkms-check runs them one by one)"
			broken=README.md:$lineno
			continue
		fi
		case ${w[0]} in
		dkms)
			if run_host "$line" "$log"; then
				ok "$what"
			else
				show "$log"
				not_ok "$what"
				broken=README.md:$lineno
				continue
			fi
			case " ${w[*]} " in
			*" install "*) check_installed ;;
			esac
			;;
		rm)
			# Only under /usr/src, which is the throwaway source tree.
			line=${line//\/usr\/src\//$tmp\/$k\/src\/}
			safe=y
			for a in "${w[@]:1}"; do
				case $a in
				-*) ;;
				/usr/src/?*) ;;
				*) safe= ;;
				esac
			done
			if [ -z "$safe" ]; then
				not_ok "$what: dkms-check only removes paths under /usr/src"
				broken=README.md:$lineno
			elif run_host "$line" "$log"; then
				ok "$what (in $tmp/$k/src)"
			else
				show "$log"
				not_ok "$what"
				broken=README.md:$lineno
			fi
			;;
		modprobe)
			echo "# README.md:$lineno cannot run on this host (it cannot load modules, and runs $(command uname -r)): in the VM booting $k"
			if run_vm "$line" "$log"; then
				ok "$what (in the VM: $(grep -o '/dev/callout, scheme .*' "$log" | tr -d '\r'))"
			else
				show "$log"
				not_ok "$what (in the VM)"
				broken=README.md:$lineno
			fi
			;;
		mokutil)
			ok "$what # SKIP needs UEFI Secure Boot firmware and MokManager at the next boot; checked instead: the module carries the signature of $mok.pub"
			;;
		reboot)
			ok "$what # SKIP would reboot this host"
			;;
		*)
			not_ok "$what: dkms-check does not know how to run ${w[0]} here: teach scripts/dkms-check.sh"
			broken=README.md:$lineno
			;;
		esac
	done
	# The removal commands leave nothing of callout behind.
	left=$(find "$tmp/$k/dkms" "$tmp/$k/src" "$tmp/$k/lib/modules" \
		-mindepth 1 -maxdepth 4 -name "$pkg*" -prune | sed "s|^$tmp/$k/||" | tr '\n' ' ')
	left=${left% }
	if [ -z "$left" ]; then
		ok "$k: nothing of $pkg is left in the DKMS trees"
	else
		not_ok "$k: left in the DKMS trees: $left"
	fi
	# Whatever failed above: out of the trees, so the next kernel starts clean.
	command "$dkms_cmd" remove "${trees[@]}" --no-depmod "$pkg/$ver" --all >/dev/null 2>&1 || true
	echo "# $k: $((SECONDS - start)) s"
done
echo "1..$n"
echo "# dkms-check: $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
