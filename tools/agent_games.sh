#!/usr/bin/env bash
# Games through catan host (one hot-seat repository, a commit per action):
# four agents versus four built-in greedy bots on the same seeds.
# Usage: tools/agent_games.sh CATAN AGENT_CMD [GAMES] [OUT_DIR]
# Prints seconds per game of each and the ratio.
set -euo pipefail
catan=$1
agent=$2
games=${3:-5}
out=${4:-$(mktemp -d)}
mkdir -p "$out"
run() {
	local tag=$1 seats=$2 total=0
	for g in $(seq 1 "$games"); do
		d=$out/$tag-$g
		rm -rf "$d"
		$catan new "$d" --players red,blue,white,orange --seed "$g" >/dev/null
		t0=$(date +%s.%N)
		$catan -C "$d" host --agents "$seats" >"$d.log" 2>&1
		t1=$(date +%s.%N)
		grep -q '^over:' "$d.log" || { echo "no winner: $d.log" >&2; exit 1; }
		if grep -q '^kicked' "$d.log"; then echo "kicked: $d.log" >&2; exit 1; fi
		total=$(echo "$total + $t1 - $t0" | bc -l)
		n=$(grep -c '^[a-z]* ' "$d.log" || true)
		echo "$tag game $g: $n actions, $(echo "$t1 - $t0" | bc -l | cut -c1-6) s" >&2
	done
	echo "$total"
}
ta=$(run agents "$agent,$agent,$agent,$agent")
tb=$(run greedy "greedy,greedy,greedy,greedy")
printf 'catan host, %d games each: agents %.3f s per game, greedy bots %.3f s per game, ratio %.2fx\n' \
	"$games" "$(echo "$ta / $games" | bc -l)" "$(echo "$tb / $games" | bc -l)" "$(echo "$ta / $tb" | bc -l)"
