#!/bin/sh
# layering.sh - the layers of src/store, checked.
#
# usage: layering.sh SPEC STOREDIR
#
# The layer of every file of src/store is written once, in SPEC
# (spec/format.md, between the "store-layers" markers), one line a layer:
#     N name   file file ...
# This script reads that table and fails when
#   - a file of STOREDIR is in no layer, or a listed file does not exist;
#   - a file of STOREDIR is not named in base.h's opening comment;
#   - a file includes a header of STOREDIR ("x.h") of a higher layer than
#     its own: lower layers never see, and so never call, higher ones.
# It prints each offence as FILE:LINE: and exits 1; 0 when there is none.
set -eu
spec=$1
dir=$2

table=$(sed -n '/<!-- store-layers begin -->/,/<!-- store-layers end -->/p' "$spec" |
	awk '/^    [0-9] / { for (i = 3; i <= NF; i++) print $i, $1 }')
if [ -z "$table" ]; then
	echo "layering.sh: no layer table in $spec" >&2
	exit 1
fi

bad=0
layer_of() {
	printf '%s\n' "$table" | awk -v f="$1" '$1 == f { print $2; exit }'
}

for path in "$dir"/*.c "$dir"/*.h; do
	f=${path##*/}
	if [ -z "$(layer_of "$f")" ]; then
		echo "$f: in no layer of $spec (add it to the table)"
		bad=1
	fi
done
# base.h's opening comment draws the layers too: every file is named there.
for path in "$dir"/*.c "$dir"/*.h; do
	f=${path##*/}
	if ! sed -n '1,/\*\//p' "$dir/base.h" | grep -qw -- "$f"; then
		echo "$f: not named in base.h's comment on the layers"
		bad=1
	fi
done
for f in $(printf '%s\n' "$table" | awk '{ print $1 }'); do
	if [ ! -e "$dir/$f" ]; then
		echo "$f: listed in $spec but not in $dir"
		bad=1
	fi
done

for path in "$dir"/*.c "$dir"/*.h; do
	f=${path##*/}
	mine=$(layer_of "$f")
	[ -n "$mine" ] || continue
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$path" |
		sed 's/^\([0-9]*\):.*"\([^"]*\)".*/\1 \2/' >"${TMPDIR:-/tmp}/layering.$$" || true
	while read -r line h; do
		[ -e "$dir/$h" ] || continue # (catan/*.h: the public API)
		theirs=$(layer_of "$h")
		[ -n "$theirs" ] || continue # (reported above)
		if [ "$theirs" -gt "$mine" ]; then
			echo "$f:$line: includes $h (layer $theirs) from layer $mine"
			bad=1
		fi
	done <"${TMPDIR:-/tmp}/layering.$$"
	rm -f "${TMPDIR:-/tmp}/layering.$$"
done
exit $bad
