#!/usr/bin/env bash
# junk_bench.sh - what a peer sending junk costs the peer that syncs from it.
#
# Two peers (red hosts, blue joined) play STEPS moves by their bots; then
# red's branch gets a chain of N junk commits on top of its tip (each one
# "SUBJECT\n\nPlayer: red\nTurn: 0\n" by red, red's tree, written by git
# fast-import; SUBJECT "junk", which is no action, or "end", which is one
# in canonical form but illegal here), and blue syncs from red three times: the first sync (the
# whole chain is new), the same again (nothing new), and after one more
# junk commit on top. Prints the wall time of each sync in seconds and
# the verdict blue reported.
#
# Over a path (blue reads red's directory) or git:// (catan serve on
# loopback).
#
#   tools/junk_bench.sh CATAN_BINARY [N [STEPS [path|git [junk|end]]]]
#                                      (defaults 10000 1 path junk)
set -euo pipefail
catan=$(realpath "$1")
n=${2:-10000}
steps=${3:-1}
via=${4:-path}
subject=${5:-junk}
tmp=$(mktemp -d)
server=
trap '[[ -z $server ]] || kill "$server"; rm -rf "$tmp"' EXIT
$catan new "$tmp/red" --players red,blue --me red --seed 3 >/dev/null
$catan join "$tmp/red" "$tmp/blue" --as blue >/dev/null
$catan -C "$tmp/red" remote add blue "$tmp/blue"
for ((i = 0; i < steps; i++)); do
	$catan -C "$tmp/red" sync >/dev/null
	$catan -C "$tmp/red" step >/dev/null || true
	$catan -C "$tmp/blue" sync >/dev/null
	$catan -C "$tmp/blue" step >/dev/null || true
done
$catan -C "$tmp/blue" sync >/dev/null
base=$(git -C "$tmp/red" rev-parse red)
tree=$(git -C "$tmp/red" rev-parse "red^{tree}")
# junk COUNT FROM: a chain of COUNT junk commits on FROM, printed as a
# fast-import stream that leaves refs/heads/red at its end.
junk() {
	local count=$1 from=$2
	for ((k = 1; k <= count; k++)); do
		printf 'commit refs/heads/red\nmark :%d\n' "$k"
		printf 'author red <red@catan> 1700000000 +0000\n'
		printf 'committer red <red@catan> 1700000000 +0000\n'
		printf 'data %d\n%s\n\nPlayer: red\nTurn: 0\n\n' $((${#subject} + 22)) "$subject"
		if ((k == 1)); then printf 'from %s\n' "$from"; else printf 'from :%d\n' $((k - 1)); fi
		printf 'M 040000 %s \n\n' "$tree" # (the whole tree at the root)
	done
}
junk "$n" "$base" | git -C "$tmp/red" fast-import --quiet --force
if [[ $via == git ]]; then
	port=$((20000 + RANDOM % 20000))
	$catan -C "$tmp/red" serve --port "$port" >"$tmp/serve.log" 2>&1 &
	server=$!
	for i in $(seq 1 50); do grep -q serving "$tmp/serve.log" && break; sleep 0.1; done
	git -C "$tmp/blue" remote set-url origin "git://127.0.0.1:$port/"
fi
timed() {
	local t0 t1 out
	t0=$(date +%s.%N)
	out=$($catan -C "$tmp/blue" sync 2>&1 || true)
	t1=$(date +%s.%N)
	printf '%-28s %6.2f s  %s\n' "$1" "$(echo "$t1 - $t0" | bc)" \
		"$(grep -m1 -o 'rejected [^;]*\|refused .*\|sync: .*' <<<"$out" | cut -c1-110)"
}
echo "chain of $n \"$subject\" commits on red's tip after $steps rounds of play, over $via"
timed "first sync"
timed "again, nothing new"
junk 1 "$(git -C "$tmp/red" rev-parse red)" | git -C "$tmp/red" fast-import --quiet --force
timed "one more junk commit"
