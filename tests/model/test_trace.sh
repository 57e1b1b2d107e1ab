#!/usr/bin/env bash
# test_trace.sh CATAN [GAMES] - simulates GAMES games each of 2 and 3
# players and turns each into a trace with tools/trace.sh (every commit's
# state checked against the invariants of catan_state_check, the history
# verified). About 30 s a game on this machine.
set -euo pipefail
catan=${1:?usage: test_trace.sh CATAN [GAMES]}
games=${2:-1}
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in 2 3; do
	"$catan" simulate --games "$games" --players "$p" --out "$tmp/p$p" --seed $((p * 7)) >/dev/null
	for g in "$tmp/p$p"/game-*/; do
		bash "$here/tools/trace.sh" "$catan" "$g" >"$tmp/trace.jsonl"
	done
done
echo "test_trace: every simulated game traced"
