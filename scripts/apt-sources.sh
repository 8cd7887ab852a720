# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# apt-sources.sh - sourced by the scripts that make Debian roots
# (fresh-check.sh, buildroot.sh): the host's own apt mirrors, so that a root
# is fetched from where this machine's packages come from.
#
#   host_sources	"URI SUITE" for each enabled deb source of the host
#   mirror SUITE...	the URI of the host's first source for one of SUITEs
#   host_release	the host's codename (bookworm, trixie)

# host_sources: the host's apt mirrors, "URI SUITE" for each enabled deb
# source, from deb822 .sources files and one-line .list files.
host_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
		function flush(  n, m, i, j, u, s) {
			if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled != "no") {
				n = split(uris, u, /[ \t]+/); m = split(suites, s, /[ \t]+/)
				for (i = 1; i <= n; i++)
					for (j = 1; j <= m; j++)
						if (u[i] != "" && s[j] != "")
							print u[i], s[j]
			}
			types = uris = suites = enabled = key = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ {
			if (key == "uris") uris = uris " " $0
			else if (key == "suites") suites = suites " " $0
			else if (key == "types") types = types " " $0
			next
		}
		{
			key = tolower($0); sub(/:.*/, "", key)
			val = $0; sub(/^[^:]*:[ \t]*/, "", val)
			if (key == "uris") uris = val
			else if (key == "suites") suites = val
			else if (key == "types") types = val
			else if (key == "enabled") enabled = tolower(val)
		}
		END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) {
				while (i < NF && $i !~ /\]$/) i++
				i++
			}
			print $i, $(i + 1)
		}' "$f"
	done
}

# mirror SUITE...: the URI of the host's first source for one of SUITEs.
mirror() {
	local s
	for s in "$@"; do
		host_sources | awk -v s="$s" '$2 == s { print $1; exit }' | grep . && return 0
	done
	return 1
}

host_release() {
	sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"'
}
