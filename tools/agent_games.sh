#!/usr/bin/env bash
# Games through catan host (one hot-seat repository, a commit per action):
# four agents versus four built-in greedy bots on the same seeds, played
# alternately (agents game g, then greedy game g) so that a change of load
# on a shared machine falls on both. The repositories go to OUT_DIR
# (default: a fresh folder on /dev/shm, removed at the end, so the disk's
# fsync is not what is measured).
# Usage: tools/agent_games.sh CATAN AGENT_CMD [GAMES] [OUT_DIR]
set -euo pipefail
catan=$1
agent=$2
games=${3:-5}
base=/tmp
[[ -d /dev/shm && -w /dev/shm ]] && base=/dev/shm
if [[ -n ${4:-} ]]; then
	out=$4
else
	out=$(mktemp -d "$base/agent-games.XXXXXX")
	trap 'rm -rf "$out"' EXIT # kept only when named
fi
mkdir -p "$out"
now() { date +%s.%N; }
ta=0 tb=0 na=0 nb=0
# one TAG SEATS G: plays game G, prints "seconds actions".
one() {
	local tag=$1 seats=$2 g=$3 d=$out/$1-$3
	rm -rf "$d"
	$catan new "$d" --players red,blue,white,orange --seed "$g" >/dev/null
	local t0 t1
	t0=$(now)
	$catan -C "$d" host --agents "$seats" >"$d.log" 2>"$d.err"
	t1=$(now)
	grep -q '^over:' "$d.log" || { echo "no winner: $d.log" >&2; exit 1; }
	if grep -q '^kicked' "$d.log"; then echo "kicked: $d.log" >&2; exit 1; fi
	awk -v b="$t0" -v c="$t1" -v n="$(grep -c '^[a-z]* [a-z]' "$d.log")" \
		'BEGIN { printf "%.4f %d\n", c - b, n }'
}
for g in $(seq 1 "$games"); do
	read -r sa ca < <(one agents "$agent,$agent,$agent,$agent" "$g")
	read -r sb cb < <(one greedy "greedy,greedy,greedy,greedy" "$g")
	echo "game $g: agents $sa s ($ca actions), greedy $sb s ($cb actions)" >&2
	ta=$(awk -v a="$ta" -v b="$sa" 'BEGIN { print a + b }')
	tb=$(awk -v a="$tb" -v b="$sb" 'BEGIN { print a + b }')
	na=$((na + ca))
	nb=$((nb + cb))
done
awk -v g="$games" -v a="$ta" -v b="$tb" -v na="$na" -v nb="$nb" -v o="$out" 'BEGIN {
	printf "catan host, %d games each in %s: agents %.3f s per game (%.0f actions, %.2f ms each), greedy bots %.3f s per game (%.0f actions, %.2f ms each); ratio per game %.2fx, per action %.2fx\n",
		g, o, a / g, na / g, a / na * 1000, b / g, nb / g, b / nb * 1000, a / b, (a / na) / (b / nb) }'
