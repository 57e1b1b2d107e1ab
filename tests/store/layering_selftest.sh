#!/bin/sh
# layering_selftest.sh - layering.sh can fail: on a copy of src/store in
# which base.c (layer 0) includes exchange.h (layer 6), it must say so
# and exit 1; on the copy as it is, it must pass.
#
# usage: layering_selftest.sh SPEC STOREDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$2"/*.c "$2"/*.h "$tmp"/
sh "$here/layering.sh" "$1" "$tmp" || { echo "FAIL: the copy as it is was refused"; exit 1; }
sed -i '0,/^#include/s//#include "exchange.h"\n#include/' "$tmp/base.c"
if out=$(sh "$here/layering.sh" "$1" "$tmp"); then
	echo "FAIL: base.c including exchange.h was not caught"
	exit 1
fi
echo "$out"
case $out in
*'base.c:'*'includes exchange.h (layer 6) from layer 0'*) ;;
*) echo "FAIL: not the offence expected"; exit 1 ;;
esac
# A file in no layer is refused too.
touch "$tmp/stray.c"
sed -i '/#include "exchange.h"/d' "$tmp/base.c"
if sh "$here/layering.sh" "$1" "$tmp" >/dev/null; then
	echo "FAIL: a file in no layer was not caught"
	exit 1
fi
echo "ok: layering.sh catches an upward include and a file in no layer"
