#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzz every parser of outside input with libFuzzer under ASan and UBSan.
#
# usage: scripts/fuzz.sh SECONDS [HARNESS...]
#
# Sets up a clang build (FUZZ_BUILD, default build-fuzz), replays the crash
# regressions of tests/fuzz/regressions/<harness>/, then fuzzes each harness
# for SECONDS from the seeds of tests/fuzz/seeds/<harness>/ and of the
# fixtures in tests/data/, with the dictionary tests/fuzz/dicts/<harness>.dict
# when there is one (the keys and words the parser looks for). The corpus
# grows in FUZZ_BUILD/corpus/<harness>; a crash lands in FUZZ_BUILD/crashes/
# and fails the run: copy it into tests/fuzz/regressions/<harness>/ once it
# is fixed (tests/fuzz/regressions/README). Harnesses run FUZZ_JOBS at a
# time (default: the CPUs the script may use).
set -eu
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
ALL="interrupts cpulist numbers kconfig proc_pid irqjournal timer_options jsondoc
import_latscope import_rttests import_histogram web_config monitor_state"
seconds=${1:?usage: scripts/fuzz.sh SECONDS [HARNESS...]}
shift
harnesses=${*:-$ALL}

if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Dwerror=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args='-fsanitize=fuzzer-no-link -fno-sanitize-recover=all' >/dev/null
fi
# shellcheck disable=SC2046
meson compile -C "$BUILD" $(for h in $harnesses; do echo "fuzz_$h"; done) >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The fixtures' inputs, as each harness takes them.
seed_fixtures() {
	dir=$BUILD/corpus/$1
	mkdir -p "$dir"
	case $1 in
	interrupts)
		for f in tests/data/*/proc/interrupts; do
			cp "$f" "$dir/fixture-$(echo "$f" | cut -d/ -f3)"
		done ;;
	kconfig)
		for f in tests/data/*/proc/config.gz tests/data/*/boot/config-*; do
			[ -f "$f" ] && cp "$f" "$dir/fixture-$(echo "$f" | cut -d/ -f3)-$(basename "$f")"
		done ;;
	cpulist)
		find tests/data -type f \( -name '*list' -o -name online -o -name possible \
			-o -name isolated -o -name nohz_full -o -name '*_smp_affinity' \) |
			head -200 | while read -r f; do
				cp "$f" "$dir/fixture-$(echo "$f" | tr / _)"
			done ;;
	proc_pid)
		for d in tests/data/*/proc/[0-9]*; do
			[ -f "$d/stat" ] && [ -f "$d/status" ] &&
				{ cat "$d/stat"; printf '\0'; cat "$d/status"; } \
					>"$dir/fixture-$(echo "$d" | tr / _)"
		done ;;
	# (fixture paths hold no spaces: the word lists split as meant)
	jsondoc)
		# shellcheck disable=SC2046
		copy_fixtures "$dir" $(find tests/data -name '*.json' -size -256k) ;;
	import_latscope)
		# shellcheck disable=SC2046
		copy_fixtures "$dir" $(grep -rl '"schema": *"latscope/' tests/data --include='*.json') ;;
	import_rttests)
		copy_fixtures "$dir" tests/data/peers/*.json ;;
	import_histogram)
		copy_fixtures "$dir" tests/data/peers/*.txt tests/data/cyclictest-2.4/*.txt ;;
	web_config)
		copy_fixtures "$dir" tests/data/web/*.yml ;;
	monitor_state)
		# shellcheck disable=SC2046
		copy_fixtures "$dir" $(grep -rl '"command": *"monitor"' tests/data --include='*.json') ;;
	esac
	return 0
}

# copy_fixtures DIR FILE...: each file as a seed named after its path
copy_fixtures() {
	to=$1
	shift
	for f in "$@"; do
		cp "$f" "$to/fixture-$(echo "$f" | tr / _)"
	done
}

# The longest input a harness is given: whole result files for the JSON
# readers (the largest fixture is 128 KiB), 64 KiB for the line parsers.
max_len() {
	case $1 in
	jsondoc | import_* | monitor_state) echo 262144 ;;
	*) echo 65536 ;;
	esac
}

# One harness: its regressions replayed, then fuzzed; 1 when it crashed.
fuzz_one() {
	h=$1
	exe=$BUILD/tests/fuzz/fuzz_$h
	regressions=tests/fuzz/regressions/$h
	if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
		if ! "$exe" -runs=1 "$regressions"/* >"$BUILD/fuzz_$h.log" 2>&1; then
			echo "fuzz: $h: a regression input crashes again (see $BUILD/fuzz_$h.log)" >&2
			return 1
		fi
	fi
	seed_fixtures "$h"
	seeds=tests/fuzz/seeds/$h
	[ -d "$seeds" ] || seeds=
	dict=tests/fuzz/dicts/$h.dict
	[ -f "$dict" ] && dict=-dict=$dict || dict=
	# shellcheck disable=SC2086
	if "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$(max_len "$h")" $dict \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$h-" \
		"$BUILD/corpus/$h" $seeds >"$BUILD/fuzz_$h.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz_$h.log")
		echo "fuzz: $h: ${runs:-?} executions in ${seconds} s, no crash"
	else
		echo "fuzz: $h: crashed (see $BUILD/fuzz_$h.log and $BUILD/crashes/)" >&2
		return 1
	fi
}

# A libFuzzer process uses one CPU: FUZZ_JOBS lanes (default: the CPUs this
# script may use) each fuzz every FUZZ_JOBS-th harness in turn, so that the
# 30 s each make test gives them take a CPU count's share of the time.
jobs=${FUZZ_JOBS:-$(nproc)}
mkdir -p "$BUILD/crashes"
failed=$BUILD/fuzz-failed
rm -rf "$failed"
mkdir -p "$failed"
lane=0
while [ "$lane" -lt "$jobs" ]; do
	(
		i=0
		for h in $harnesses; do
			if [ $((i % jobs)) -eq "$lane" ] && ! fuzz_one "$h"; then
				touch "$failed/$h"
			fi
			i=$((i + 1))
		done
	) &
	lane=$((lane + 1))
done
wait
status=0
[ -z "$(ls -A "$failed")" ] || status=1
rm -rf "$failed"
exit $status
