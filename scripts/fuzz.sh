#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Fuzz every parser of outside input with libFuzzer under ASan and UBSan.
#
# usage: scripts/fuzz.sh SECONDS [HARNESS...]
#
# Sets up a clang build (FUZZ_BUILD, default build-fuzz), replays the crash
# regressions of tests/fuzz/regressions/<harness>/, then fuzzes each harness
# for SECONDS from the seeds of tests/fuzz/seeds/<harness>/ and of the
# fixtures in tests/data/. The corpus grows in FUZZ_BUILD/corpus/<harness>;
# a crash lands in FUZZ_BUILD/crashes/ and fails the run: copy it into
# tests/fuzz/regressions/<harness>/ once it is fixed.
set -eu
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
ALL="interrupts cpulist numbers kconfig proc_pid irqjournal timer_options"
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
	esac
	return 0
}

status=0
for h in $harnesses; do
	exe=$BUILD/tests/fuzz/fuzz_$h
	mkdir -p "$BUILD/crashes"
	regressions=tests/fuzz/regressions/$h
	if [ -d "$regressions" ] && [ -n "$(ls -A "$regressions")" ]; then
		if ! "$exe" -runs=1 "$regressions"/* >"$BUILD/fuzz_$h.log" 2>&1; then
			echo "fuzz: $h: a regression input crashes again (see $BUILD/fuzz_$h.log)" >&2
			status=1
			continue
		fi
	fi
	seed_fixtures "$h"
	seeds=tests/fuzz/seeds/$h
	[ -d "$seeds" ] || seeds=
	if "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$BUILD/crashes/$h-" \
		"$BUILD/corpus/$h" $seeds >"$BUILD/fuzz_$h.log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$BUILD/fuzz_$h.log")
		echo "fuzz: $h: ${runs:-?} executions in ${seconds} s, no crash"
	else
		echo "fuzz: $h: crashed (see $BUILD/fuzz_$h.log and $BUILD/crashes/)" >&2
		status=1
	fi
done
exit $status
