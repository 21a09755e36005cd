#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a command as on a machine just booted, without touching the machine's
# own mounts (doc/HACKING.md):
#
#   scripts/fresh-namespace.sh [--tracefs] COMMAND [ARGS...]
#
# The command runs in a private mount namespace where every tracefs mount
# is unmounted and the directories where latscope keeps state between runs
# (/run/latscope, /var/lib/latscope) are hidden under empty file systems.
# With --tracefs, tracefs is then mounted at /sys/kernel/tracing, as on a
# machine where something mounted it. Needs root.
set -eu
if [ "${LATSCOPE_FRESH_NAMESPACE:-}" != inside ]; then
	exec env LATSCOPE_FRESH_NAMESPACE=inside unshare --mount --propagation private "$0" "$@"
fi
unset LATSCOPE_FRESH_NAMESPACE
tracefs=
if [ "${1:-}" = --tracefs ]; then
	tracefs=1
	shift
fi
[ $# -gt 0 ] || { echo "usage: $0 [--tracefs] COMMAND [ARGS...]" >&2; exit 129; }

# innermost first: a mount point may hold several tracefs mounts
awk '$3 == "tracefs" { print $2 }' /proc/mounts | sort -r | while read -r dir; do
	umount "$dir"
done
for dir in /run/latscope /var/lib/latscope; do
	if [ -d "$dir" ]; then
		mount -t tmpfs -o mode=0755,size=64m latscope-fresh "$dir"
	fi
done
if [ -n "$tracefs" ]; then
	mount -t tracefs nodev /sys/kernel/tracing
fi
exec "$@"
