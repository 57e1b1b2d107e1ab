#!/bin/sh
# catan-bench plays the same games as the library's core: its own build of
# the core (profile-guided, link-time optimized, not position-independent
# in GCC Release builds; README "Speed") must give the same checksums as
# the games always gave, with every invariant checked after every action.
# The checksums change only when the rules or the random bot change a game
# (then update them here, saying why in the commit).
# usage: bench_checksums.sh CATAN_BENCH
set -eu
bench=$1
out=$($bench --games 300 --board both --check) || {
	echo "catan-bench --check failed:" >&2
	echo "$out" >&2
	exit 1
}
echo "$out"
for want in "beginner 09e05d22b3ac3a2a" "random 50c2818d4b11fe63"; do
	board=${want% *} sum=${want#* }
	got=$(echo "$out" | awk -v b="$board" '$1 == b { print $NF }' | tr -d '()')
	if [ "$got" != "$sum" ]; then
		echo "catan-bench: $board boards: checksum $got, the games give $sum" >&2
		exit 1
	fi
done
