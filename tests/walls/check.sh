#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The walls of lib/: every header in a folder of lib/ is private to that
# folder. Compiled from outside, each must stop the build with its own
# "is private" error; compiled with its folder's LATSCOPE_INSIDE_* macro
# (what the folder's library is built with), each must compile, so that
# the refusal is the wall's and not a broken header's.
#
#   tests/walls/check.sh SOURCE-ROOT CC [CC-ARGS...]
set -eu
root=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

failed=0
checked=0
for header in "$root"/lib/*/*.h; do
	name=${header#"$root"/}
	folder=$(basename "$(dirname "$header")")
	inside=LATSCOPE_INSIDE_$(echo "$folder" | tr '[:lower:]' '[:upper:]')
	printf '#include "%s"\n' "$name" > "$scratch/outside.c"
	if "$@" -fsyntax-only -D_GNU_SOURCE -I"$root" -I"$root/include" -I"$BUILD_LIB/monitor" \
		"$scratch/outside.c" 2> "$scratch/err"; then
		echo "$name: compiled from outside lib/$folder/"
		failed=1
	elif ! grep -q "$name is private to lib/$folder/" "$scratch/err"; then
		echo "$name: refused from outside, but not by its wall:"
		cat "$scratch/err"
		failed=1
	fi
	if ! "$@" -fsyntax-only -D_GNU_SOURCE -D"$inside" -I"$root" -I"$root/include" \
		-I"$BUILD_LIB/monitor" "$scratch/outside.c" 2> "$scratch/err"; then
		echo "$name: does not compile with $inside:"
		cat "$scratch/err"
		failed=1
	fi
	checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || { echo "no private header found under $root/lib"; exit 1; }
echo "$checked private headers: each refused outside its folder, each compiling inside"
exit $failed
