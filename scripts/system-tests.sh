#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The system tests as on a machine just booted, then the tests that trace
# once more with tracefs mounted (make test runs this; doc/HACKING.md).
#
#   scripts/system-tests.sh [BUILD [MESON-TEST-OPTIONS...]]
#
# Each pass runs in a private mount namespace (scripts/fresh-namespace.sh),
# so the machine's own mounts are never touched. The first pass runs the
# whole system suite with tracefs unmounted and no earlier latscope state
# (what a machine looks like after boot); the second mounts tracefs and
# runs the suite "tracing" (the tests that trace or read tracefs) again.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift
fresh=$(dirname "$0")/fresh-namespace.sh

if [ "$(id -u)" != 0 ]; then
	# without root every system test skips itself (exit 77)
	exec meson test -C "$build" --suite system --print-errorlogs "$@"
fi

echo "== the system tests: tracefs unmounted, no earlier latscope state"
status=0
"$fresh" meson test -C "$build" --no-rebuild --suite system --logbase system-unmounted \
	--print-errorlogs "$@" || status=$?

echo "== the tests that trace, again: tracefs mounted"
"$fresh" --tracefs meson test -C "$build" --no-rebuild --suite tracing \
	--logbase tracing-mounted --print-errorlogs "$@" || status=$?
exit $status
