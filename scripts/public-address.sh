#!/bin/sh
# public-address.sh: the project's public address and its maintainers'
# address, written once in configure.ac, in every file that cannot take
# them from configure.
#
#   scripts/public-address.sh            check every copy (the default)
#   scripts/public-address.sh --write    rewrite every copy from configure.ac
#   scripts/public-address.sh --values   print the values, NAME=VALUE a line
#
# configure.ac holds the two (m4_define modrot_url and modrot_maintainer,
# which AC_INIT and AC_SUBST hand to the build): the build takes them from
# configure (the manual pages, libmodrot.pc, modrot-metrics'
# modrot_build_info, ./configure --help). The files read before configure
# runs, or without it, keep copies, listed below: debian/control and
# debian/changelog (dpkg-source reads them first), debian/copyright, the
# Ansible collection's galaxy.yml, the README, the Grafana dashboard and
# the kernel series' author and sign-off.
# From the home page URL come the rest: the bug tracker URL/issues (also
# AC_INIT's bug-report address), the git repository URL.git.
#
# The check fails, naming file, line and both values, when a copy differs
# or is missing, and when the address's host turns up in a file that is
# neither configure.ac nor a copy below (a copy nobody would update).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mode=check
case ${1:-} in
--write) mode="write" ;;
--values) mode=values ;;
--check | '') ;;
*)
	echo "usage: public-address.sh [--check | --write | --values]" >&2
	exit 2
	;;
esac

m4_value() { sed -n "s/^m4_define(\\[$1\\], \\[\\(.*\\)\\])\$/\\1/p" "$top/configure.ac"; }
url=$(m4_value modrot_url)
maintainer=$(m4_value modrot_maintainer)
if [ -z "$url" ] || [ -z "$maintainer" ]; then
	echo "public-address.sh: configure.ac has no m4_define([modrot_url], [...]) or m4_define([modrot_maintainer], [...])" >&2
	exit 2
fi
bugs=$url/issues
vcs_git=$url.git
host=$(echo "$url" | sed 's|^[a-z]*://\([^/:]*\).*|\1|')

if [ "$mode" = values ]; then
	printf 'url=%s\nbugs=%s\nvcs_git=%s\nmaintainer=%s\nhost=%s\n' \
		"$url" "$bugs" "$vcs_git" "$maintainer" "$host"
	exit 0
fi

# Each copy, FILE|BEFORE|AFTER|VALUE: the text before and after the value on its line
# (sed basic regular expressions, the line being ^BEFORE(VALUE)AFTER$),
# and the value. Every line of FILE that has BEFORE and AFTER must hold
# the value, and one at least must be there.
copies() {
	cat <<-EOF
		debian/control|Maintainer: ||$maintainer
		debian/control|Homepage: ||$url
		debian/control|Vcs-Browser: ||$url
		debian/control|Vcs-Git: ||$vcs_git
		debian/changelog| -- |  [A-Z][a-z][a-z], .*|$maintainer
		debian/copyright|Source: ||$url
		ansible/ansible_collections/modrot/rot/galaxy.yml|homepage: ||$url
		ansible/ansible_collections/modrot/rot/galaxy.yml|repository: ||$url
		ansible/ansible_collections/modrot/rot/galaxy.yml|documentation: ||$url
		ansible/ansible_collections/modrot/rot/galaxy.yml|issues: ||$bugs
		README.md|Home page: <|>|$url
		README.md|Bug reports: <|>|$bugs
	EOF
}
# The dashboard's links, by jq: every link's url is the home page.
dashboard=prometheus/grafana/modrot-dashboard.json

# sed's replacement text for VALUE
repl() { printf '%s' "$1" | sed 's/[\\|&]/\\&/g'; }

bad=0
while IFS='|' read -r file before after value; do
	f=$top/$file
	if [ "$mode" = write ]; then
		sed -i "s|^\\($before\\).*\\($after\\)\$|\\1$(repl "$value")\\2|" "$f"
		continue
	fi
	found=$(sed -n "s|^$before\\(.*\\)$after\$|\\1|p" "$f" | wc -l)
	if [ "$found" -eq 0 ]; then
		echo "$file: no line '$before...$after' (configure.ac: $value)"
		bad=1
		continue
	fi
	sed -n "/^$before.*$after\$/=" "$f" | while read -r n; do
		have=$(sed -n "${n}s|^$before\\(.*\\)$after\$|\\1|p" "$f")
		[ "$have" = "$value" ] || echo "$file:$n: '$have', but configure.ac says '$value'"
	done > "${TMPDIR:-/tmp}/public-address.$$"
	if [ -s "${TMPDIR:-/tmp}/public-address.$$" ]; then
		cat "${TMPDIR:-/tmp}/public-address.$$"
		bad=1
	fi
	rm -f "${TMPDIR:-/tmp}/public-address.$$"
done <<-EOF
	$(copies)
EOF

# The kernel series (git format-patch): each patch's author, the From:
# header (folded, the address on a line of its own), and its
# Signed-off-by: line have the maintainers' address, under the name the
# series was sent with. A rewritten patch is a new kernel for kernel/run.sh
# (its cache is keyed by the patches' text): a cold build.
address=$(echo "$maintainer" | sed 's/.*<\(.*\)>.*/\1/')
patches=$(cd "$top" && for p in kernel/patches/*.patch kernel/patches-6.12/*.patch; do
	if [ -f "$p" ]; then echo "$p"; fi
done)
if [ -n "$patches" ] && [ "$mode" = write ]; then
	# shellcheck disable=SC2086
	(cd "$top" && sed -i -e "1,/^\$/s|^\(\(From: \)\{0,1\}.*<\)[^>]*\(>\)\$|\1$(repl "$address")\3|" \
		-e "s|^\(Signed-off-by: .*<\)[^>]*\(>\)\$|\1$(repl "$address")\2|" $patches)
elif [ -n "$patches" ]; then
	# shellcheck disable=SC2086
	wrong=$(cd "$top" && awk -v want="$address" '
		function take(line) { sub(/.*</, "", line); sub(/>$/, "", line); n[FILENAME]++
			if (line != want) have[FILENAME] = have[FILENAME] " " line }
		FNR == 1 { head = 1; n[FILENAME] = 0 }
		head && /^$/ { head = 0 }
		head && /<[^>]*>$/ && (/^From: / || /^ /) { take($0); next }
		/^Signed-off-by: .*<[^>]*>$/ { take($0) }
		END { for (f in n) if (n[f] < 2 || f in have)
			printf "%s: author and sign-off%s, but configure.ac says %s\n", f, (f in have) ? have[f] : " missing", want }
	' $patches | sort)
	if [ -n "$wrong" ]; then
		echo "$wrong"
		bad=1
	fi
fi

if [ "$mode" = write ]; then
	jq --arg u "$url" '.links |= map(.url = $u)' "$top/$dashboard" > "$top/$dashboard.tmp"
	mv "$top/$dashboard.tmp" "$top/$dashboard"
	echo "public-address.sh: $url and $maintainer written into every copy"
	exit 0
fi

links=$(jq -r '.links // [] | .[].url' "$top/$dashboard")
if [ -z "$links" ]; then
	echo "$dashboard: no links (configure.ac: $url)"
	bad=1
fi
for l in $links; do
	[ "$l" = "$url" ] || { echo "$dashboard: a link to '$l', but configure.ac says '$url'"; bad=1; }
done

# Any other file naming the host: a copy that would be left behind. The
# build's trees (build/ and build-*/ as .gitignore has them, distcheck's
# _build/) and what configure and make generate from configure.ac are
# not the source.
known=$(copies | cut -d'|' -f1 | sort -u)
strays=$(cd "$top" && grep -rlIF --exclude-dir=.git --exclude-dir=autom4te.cache --exclude-dir=_build \
	--exclude-dir='build' --exclude-dir='build-*' \
	--exclude=configure --exclude='config.*' --exclude=Makefile --exclude=Makefile.in --exclude='*~' \
	--exclude='*.pc' --exclude='*.[1-8]' -- "$host" . | sed 's|^\./||' | sort)
for s in $strays; do
	case $s in
	configure.ac | "$dashboard" | kernel/patches/*.patch | kernel/patches-6.12/*.patch) continue ;;
	esac
	echo "$known" | grep -qxF "$s" && continue
	echo "$s: names $host, but is not one of the copies scripts/public-address.sh keeps"
	bad=1
done
[ "$bad" -eq 0 ] || exit 1
echo "public-address.sh: every copy is configure.ac's: $url, $maintainer"
