#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package, end to end, as `make test` runs it:
#  1. build it with dpkg-buildpackage from a scratch copy of the tree (the
#     files git tracks or would track), so nothing lands in the tree;
#  2. lintian on the binary package and the source package: no error, no
#     warning (pedantic tags are shown);
#  3. install it with dpkg -i and check what is installed: latscope
#     --version, a man page for every command the binary lists (man -w,
#     and latscope(1) naming it) and every page of doc/, the units clean
#     for systemd-analyze verify and their exposure below MAX_EXPOSURE, the
#     units' default options accepted by the binary and the options their
#     /etc/default files suggest known to it, the bash completion run by
#     bash, the units installed disabled, the conffiles;
#  4. purge it and check that nothing is left.
# The package is purged on every exit path, Ctrl-C included: the machine is
# left as found. Needs root (dpkg -i); skips, saying why, without it or
# when latscope is already installed here.
#
# Usage: scripts/check-package.sh   (from anywhere in the tree)
set -eu

MAX_EXPOSURE=3.0
# the lock scripts/install-deps.sh callers take around apt and dpkg
APT_LOCK=/tmp/latscope-apt.lock

cd "$(dirname "$0")/.."
start=$(date +%s)

say() { echo "check-package: $*"; }
# each step says how long it took: $took, the seconds since the last lap
lap=$start
lap() {
	now=$(date +%s)
	took="$((now - lap)) s"
	lap=$now
}
# dpkg under the lock the callers of apt-get and dpkg take on this machine
locked() { flock "$APT_LOCK" "$@"; }
fail() {
	echo "check-package: FAIL: $*" >&2
	exit 1
}
skip() {
	say "skipped: $*"
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip "needs root (dpkg -i and --purge)"
for tool in dpkg-buildpackage dh lintian man systemd-analyze bash python3; do
	command -v "$tool" >/dev/null 2>&1 || fail "$tool is missing: run scripts/install-deps.sh"
done
if dpkg-query -W -f='${Status}' latscope 2>/dev/null | grep -q "ok installed"; then
	skip "a latscope package is installed on this machine; the check would replace it"
fi
if [ -e /var/lib/latscope ] && pgrep -f "latscope monitor" >/dev/null; then
	skip "latscope monitor runs and /var/lib/latscope exists: purging the package would remove its state"
fi

scratch=$(mktemp -d /tmp/latscope-package.XXXXXX)
installed=no
saved=""
made_state=no
cleanup() {
	status=$?
	trap - EXIT INT TERM
	if [ "$installed" = yes ]; then
		say "purging the package"
		locked dpkg --purge latscope >"$scratch/purge.log" 2>&1 ||
			{ cat "$scratch/purge.log" >&2; status=1; }
	fi
	# the check's own state, made below to see that purge removes it
	[ "$made_state" = no ] || rm -rf /var/lib/latscope
	if [ -n "$saved" ]; then
		if ! mv -T "$saved" /var/lib/latscope; then
			echo "check-package: could not put /var/lib/latscope back: it is in $saved" >&2
			exit 1
		fi
	fi
	rm -rf "$scratch"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# A monitor state left here by a run from a build tree: purging the package
# removes /var/lib/latscope, so it is kept aside and put back at the end.
if [ -e /var/lib/latscope ]; then
	saved=$scratch/var-lib-latscope
	mv /var/lib/latscope "$saved"
	say "/var/lib/latscope kept aside in $saved until the end"
fi

# 1. Build from a copy: what git tracks and what it would track, not build/.
mkdir "$scratch/latscope"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# (a file deleted but not yet committed is left out)
	# shellcheck disable=SC2016
	git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
		tar --null -T - -cf - | tar -xf - -C "$scratch/latscope"
else
	tar --exclude=./build --exclude='./obj-*' -cf - . | tar -xf - -C "$scratch/latscope"
fi
version=$(sed -n "s/^[[:space:]]*version: '\([^']*\)'.*/\1/p" meson.build | head -n 1)
package_version=$(cd "$scratch/latscope" && dpkg-parsechangelog -S Version)
[ "$package_version" = "$version" ] ||
	fail "debian/changelog says $package_version, meson.build $version"
say "building latscope $version (dpkg-buildpackage -us -uc -b; the unit tests ran already)"
# the source package first, from the clean copy, for lintian's source checks
(cd "$scratch/latscope" && dpkg-source -b . >"$scratch/source.log" 2>&1) ||
	{ cat "$scratch/source.log" >&2; fail "dpkg-source -b failed"; }
# No network at build time: the build runs in a network namespace of its
# own (only a loopback, down) where the kernel lets us make one.
offline=""
if unshare --net true 2>/dev/null; then
	offline="unshare --net"
else
	say "no network namespace here: the build is not cut off from the network"
fi
(cd "$scratch/latscope" &&
	DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" $offline dpkg-buildpackage -us -uc -b \
		>"$scratch/build.log" 2>&1) ||
	{ tail -n 40 "$scratch/build.log" >&2; fail "dpkg-buildpackage failed (log above)"; }
deb=$(ls "$scratch"/latscope_"$version"_*.deb)
[ -f "$deb" ] || fail "no latscope_*.deb was built"
lap
say "built $(basename "$deb") in $took${offline:+, without network}"

# 2. lintian: errors and warnings fail, the rest is shown. Its temporary
# files go to the scratch directory: lintian leaves two mldbm-elf-* files
# (Berkeley DB, 8 KB each) in TMPDIR per run.
mkdir "$scratch/tmp"
TMPDIR="$scratch/tmp" lintian --fail-on error,warning --display-info --pedantic \
	"$scratch"/latscope_"$version"_*.changes "$scratch/latscope_$version.dsc" \
	>"$scratch/lintian.log" 2>&1 || { cat "$scratch/lintian.log" >&2; fail "lintian"; }
lap
if grep -q '^[EWIP]:' "$scratch/lintian.log"; then
	say "lintian (in $took):"
	grep '^[EWIP]:' "$scratch/lintian.log"
else
	say "lintian: clean (binary and source, pedantic), in $took"
fi

# What the package may touch, to compare after the purge: the directories
# of its files, where units are enabled and where deb-systemd-helper keeps
# their state, the monitor's state.
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' >"$scratch/contents"
snapshot() {
	for dir in $(xargs -n 1 dirname <"$scratch/contents" | sort -u); do
		find "$dir" -maxdepth 1 2>/dev/null || true
	done
	for dir in /etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked /var/lib/latscope; do
		find "$dir" -maxdepth 2 2>/dev/null || true
	done
}
snapshot | sort >"$scratch/before"

# 3. Install, and check what is installed.
installed=yes
# (a minimal image's path-exclude of /usr/share/man would drop the pages the
# check is about; the include, last, wins there and changes nothing elsewhere)
locked dpkg --path-include='/usr/share/man/man1/latscope*' -i "$deb" >"$scratch/install.log" 2>&1 ||
	{ cat "$scratch/install.log" >&2; fail "dpkg -i"; }
say "installed $(basename "$deb")"

[ "$(latscope --version)" = "latscope $version" ] || fail "latscope --version: $(latscope --version)"
say "latscope --version: ok"

# man finds every page the package installed, doc/ has no page it lacks,
# and every command the binary lists (its completion table) has its page,
# named in latscope(1)
pages=$(dpkg -L latscope | sed -n 's|^/usr/share/man/man1/\(.*\)\.1\.gz$|\1|p' | sort)
for name in $pages; do
	found=$(man -w "$name" 2>/dev/null) || fail "man -w $name finds nothing"
	[ "$found" = "/usr/share/man/man1/$name.1.gz" ] || fail "man -w $name is $found, not the package's page"
done
for page in doc/*.1; do
	echo "$pages" | grep -qx "$(basename "$page" .1)" || fail "$page is not in the package (doc/meson.build)"
done
commands=$(latscope --completion-table | awk -F '\t' '$1 == "command" { print $2 }')
[ -n "$commands" ] || fail "latscope --completion-table lists no command"
for name in $commands; do
	man -w "latscope-$name" >/dev/null 2>&1 ||
		fail "latscope $name has no man page: doc/latscope-$name.1, installed by doc/meson.build"
	zcat "$(man -w latscope)" | grep -q "^\.BR latscope-$name (1)" ||
		fail "latscope(1) does not name latscope-$name(1)"
done
say "man -w: $(echo "$pages" | tr '\n' ' ')(commands: $(echo "$commands" | tr '\n' ' '))"

units=$(dpkg -L latscope | grep '\.service$')
[ -n "$units" ] || fail "no systemd unit in the package"
# shellcheck disable=SC2086
systemd-analyze verify $units >"$scratch/verify.log" 2>&1 ||
	{ cat "$scratch/verify.log" >&2; fail "systemd-analyze verify"; }
[ ! -s "$scratch/verify.log" ] || { cat "$scratch/verify.log" >&2; fail "systemd-analyze verify warns"; }
for unit in $units; do
	name=$(basename "$unit")
	score=$(systemd-analyze security --offline=true "$unit" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
	[ -n "$score" ] || fail "systemd-analyze security gave no score for $name"
	awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s <= m) }' ||
		fail "$name: exposure $score, above $MAX_EXPOSURE"
	say "$name: systemd-analyze verify clean, exposure $score"
	[ ! -e "/etc/systemd/system/multi-user.target.wants/$name" ] || fail "$name is enabled"

	# the command it runs, with the options of its /etc/default file
	words=$(sed -n 's|^ExecStart=[^ ]*/latscope \([a-z ]*\) \$\([A-Z_]*\)$|\1|p' "$unit")
	variable=$(sed -n 's|^ExecStart=[^ ]*/latscope [a-z ]* \$\([A-Z_]*\)$|\1|p' "$unit")
	file=$(sed -n 's|^EnvironmentFile=-||p' "$unit")
	if [ -z "$words" ] || [ -z "$variable" ] || [ ! -f "$file" ]; then
		fail "$name: ExecStart or EnvironmentFile not as expected"
	fi
	# shellcheck disable=SC2086
	latscope $words --help >/dev/null 2>&1 || fail "$name runs 'latscope $words', which this build does not have"
	options=$(sh -c ". '$file' && eval echo \"\$$variable\"")
	# shellcheck disable=SC2086
	latscope $words $options --help >/dev/null 2>"$scratch/options.log" ||
		fail "$name: latscope $words refuses $variable=\"$options\": $(cat "$scratch/options.log")"
	say "$name: latscope $words takes $variable=\"$options\""
	# the options the file's comments suggest are the command's own
	sed -n 's/^#[[:space:]]\{1,\}\(--.*\)/\1/p' "$file" | grep -o -- '--[a-z-]*' >"$scratch/suggested"
	while read -r option; do
		latscope --completion-table |
			awk -F '\t' -v k="$words" -v o="$option" '$1 == "option" && $2 == k && $3 == o { f = 1 } END { exit !f }' ||
			fail "$file suggests $option, which latscope $words does not take"
	done <"$scratch/suggested"
	say "$name: the options $file suggests are latscope $words's"
done

conffiles=$(dpkg-query -W -f='${Conffiles}' latscope | awk '{ print $1 }' | sort | tr '\n' ' ')
[ "$conffiles" = "/etc/default/latscope-irq-balance /etc/default/latscope-monitor " ] ||
	fail "conffiles: $conffiles"
say "conffiles: $conffiles"

LATSCOPE=/usr/bin/latscope COMPLETION_SCRIPT=/usr/share/bash-completion/completions/latscope \
	python3 tests/system/completion >"$scratch/completion.log" 2>&1 ||
	{ cat "$scratch/completion.log" >&2; fail "the installed bash completion"; }
# (the loader returns 124, "retry the completion", once it has loaded one)
bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader latscope
	complete -p latscope' 2>/dev/null | grep -q -- '-F _latscope latscope' ||
	fail "bash-completion does not load the installed completion"
say "bash completion: ok"

[ -f /usr/share/latscope/latscope.rules.yml ] || fail "no Prometheus rules in /usr/share/latscope"
if command -v promtool >/dev/null 2>&1; then
	promtool check rules /usr/share/latscope/latscope.rules.yml >/dev/null ||
		fail "promtool check rules /usr/share/latscope/latscope.rules.yml"
fi
say "Prometheus rules: /usr/share/latscope/latscope.rules.yml"

# the CI examples, uncompressed, and their baseline read by compare
examples=/usr/share/doc/latscope/examples/ci
for f in latency-gate junit-to-lava gitlab-ci.yml lava/latscope.yaml baseline/README; do
	[ -f "$examples/$f" ] || fail "no $examples/$f"
done
latscope compare "$examples"/baseline/timer-*.json --vs "$examples"/baseline/timer-*.json \
	>/dev/null || fail "latscope compare cannot read the baseline in $examples"
say "CI examples: $examples"
lap
say "installed and checked in $took"

# 4. Purge: nothing of the package is left, the monitor's state neither.
made_state=yes
mkdir -p /var/lib/latscope
echo '{}' >/var/lib/latscope/monitor.json
locked dpkg --purge latscope >"$scratch/purge.log" 2>&1 || { cat "$scratch/purge.log" >&2; fail "dpkg --purge"; }
installed=no
status=$(dpkg-query -W -f='${Status}' latscope 2>/dev/null || true)
case $status in
"" | *not-installed*) ;;
*) fail "dpkg still knows latscope after the purge: $status" ;;
esac
while read -r path; do
	[ ! -e "$path" ] || fail "$path is left after the purge"
done <"$scratch/contents"
snapshot | sort >"$scratch/after"
diff -u "$scratch/before" "$scratch/after" >"$scratch/left.diff" ||
	{ cat "$scratch/left.diff" >&2; fail "the purge left the machine changed"; }
lap
say "purged: nothing left, in $took"
say "ok in $(($(date +%s) - start)) s"
