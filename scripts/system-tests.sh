#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The system tests as on a machine just booted, then the tests that trace
# once more with tracefs mounted (make test runs this; doc/HACKING.md).
#
#   scripts/system-tests.sh [BUILD [MESON-TEST-OPTIONS...]]
#
# Each pass runs in a private mount namespace, so the machine's own mounts
# are never touched: inside it every tracefs mount is unmounted and the
# directories where latscope keeps state between runs are hidden under
# empty file systems. The first pass runs the whole system suite there
# (tracefs unmounted, no earlier latscope state: what a machine looks like
# after boot); the second mounts tracefs at /sys/kernel/tracing and runs the
# suite "tracing" (the tests that trace or read tracefs) again.
set -eu
build=${1:-build}
[ $# -gt 0 ] && shift

if [ "$(id -u)" != 0 ]; then
	# without root every system test skips itself (exit 77)
	exec meson test -C "$build" --suite system --print-errorlogs "$@"
fi

fresh='
set -eu
# innermost first: a mount point may hold several tracefs mounts
awk "\$3 == \"tracefs\" { print \$2 }" /proc/mounts | sort -r | while read -r dir; do
	umount "$dir"
done
for dir in /run/latscope /var/lib/latscope; do
	if [ -d "$dir" ]; then
		mount -t tmpfs -o mode=0755,size=64m latscope-fresh "$dir"
	fi
done
'

echo "== the system tests: tracefs unmounted, no earlier latscope state"
status=0
unshare --mount --propagation private sh -c "$fresh"'
exec meson test -C "$0" --no-rebuild --suite system --logbase system-unmounted \
	--print-errorlogs "$@"' \
	"$build" "$@" || status=$?

echo "== the tests that trace, again: tracefs mounted"
unshare --mount --propagation private sh -c "$fresh"'
mount -t tracefs nodev /sys/kernel/tracing
exec meson test -C "$0" --no-rebuild --suite tracing --logbase tracing-mounted \
	--print-errorlogs "$@"' \
	"$build" "$@" || status=$?
exit $status
