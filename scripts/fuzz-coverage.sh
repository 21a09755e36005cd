#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The line coverage of the parsers after fuzzing: what the corpus of each
# harness reaches.
#
# usage: scripts/fuzz-coverage.sh [HARNESS...]
#
# Builds the harnesses with clang's source-based coverage (COVERAGE_BUILD,
# default build-coverage; no sanitizers), runs each once over its corpus
# (FUZZ_BUILD/corpus/<harness>, as scripts/fuzz.sh left it), its seeds and
# its regressions, merges the profiles and prints llvm-cov's report for
# the files each harness parses with, then the lines never reached in them
# (FUZZ_BUILD/coverage-<file>.txt). Run scripts/fuzz.sh first (make fuzz).
set -eu
cd "$(dirname "$0")/.."

BUILD=${COVERAGE_BUILD:-build-coverage}
CORPUS=${FUZZ_BUILD:-build-fuzz}/corpus
ALL="interrupts cpulist numbers kconfig proc_pid irqjournal timer_options jsondoc
import_latscope import_rttests import_histogram web_config monitor_state"
harnesses=${*:-$ALL}

# the parser each harness feeds
parsed_by() {
	case $1 in
	interrupts) echo lib/irq/irq_interrupts.c lib/irq/irq_counts.c ;;
	cpulist) echo lib/cpuset.c ;;
	numbers) echo lib/parse.c ;;
	kconfig) echo lib/kconfig.c ;;
	proc_pid) echo lib/audit/audit_task.c ;;
	irqjournal) echo lib/irq/irq_journal.c ;;
	timer_options) echo cli/timer_options.c cli/option_table.c ;;
	jsondoc) echo lib/jsondoc.c ;;
	import_latscope) echo lib/import/import.c lib/import/import_latscope.c lib/time_blocks.c ;;
	import_rttests | import_histogram) echo lib/import/import.c lib/import/import_rttests.c ;;
	web_config) echo lib/monitor/web_config.c ;;
	monitor_state) echo lib/monitor/monitor_state.c lib/monitor/monitor_blocks.c ;;
	esac
}

if [ ! -f "$BUILD/build.ninja" ]; then
	CC=clang meson setup "$BUILD" -Dfuzz=true -Db_lundef=false \
		-Dc_args='-fprofile-instr-generate -fcoverage-mapping' \
		-Dc_link_args='-fprofile-instr-generate' >/dev/null
fi
# shellcheck disable=SC2046
meson compile -C "$BUILD" $(for h in $harnesses; do echo "fuzz_$h"; done) >/dev/null

rm -rf "$BUILD/profiles"
mkdir -p "$BUILD/profiles"
objects=
files=
for h in $harnesses; do
	inputs=
	for dir in "$CORPUS/$h" "tests/fuzz/seeds/$h" "tests/fuzz/regressions/$h"; do
		[ -d "$dir" ] && inputs="$inputs $dir"
	done
	if [ -z "$inputs" ]; then
		echo "fuzz-coverage: $h: no corpus (run scripts/fuzz.sh first)" >&2
		continue
	fi
	# -runs=0: every input of the corpus once, no fuzzing
	# shellcheck disable=SC2086
	LLVM_PROFILE_FILE="$BUILD/profiles/$h-%p.profraw" "$BUILD/tests/fuzz/fuzz_$h" \
		-runs=0 -close_fd_mask=3 $inputs >"$BUILD/profiles/$h.log" 2>&1
	# llvm-cov takes the first binary plain, the others after -object
	objects="$objects${objects:+ -object} $BUILD/tests/fuzz/fuzz_$h"
	for f in $(parsed_by "$h"); do
		case " $files " in *" $PWD/$f "*) ;; *) files="$files $PWD/$f" ;; esac
	done
done
[ -n "$objects" ] || exit 1
# the mapping names sources as the compiler was given them from the build
# directory (../lib/x.c): the same files as the source tree's
mapped="-path-equivalence=$(cd "$BUILD" && pwd)/$(realpath --relative-to="$BUILD" .),$PWD"
llvm-profdata merge -sparse "$BUILD"/profiles/*.profraw -o "$BUILD/fuzz.profdata"
# shellcheck disable=SC2086
llvm-cov report $objects -instr-profile="$BUILD/fuzz.profdata" "$mapped" $files
for f in $files; do
	out=${FUZZ_BUILD:-build-fuzz}/coverage-$(basename "$f" .c).txt
	# shellcheck disable=SC2086
	llvm-cov show $objects -instr-profile="$BUILD/fuzz.profdata" "$mapped" "$f" \
		-show-line-counts-or-regions >"$out"
done
