#!/usr/bin/env bash
# A finished 4-peer fair game (catan-peers-bench --fair: four peers in
# separate repositories, path remotes, greedy bots, every outcome asked for,
# revealed and completed): every commit verifies with stock git (`git
# verify-commit` with the game's signers file), `catan verify` accepts every
# peer's history, the peers hold the same branches, and the history holds the
# requests, reveals and completions of fair dice.
# Usage: test_fair_game.sh CATAN_BINARY CATAN_PEERS_BENCH
set -euo pipefail
catan=$1
bench=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# (to 7 points: a finished game in two thirds of the commits of 10)
out=$("$bench" --players 4 --fair --keep --dir "$tmp" --seed 3 --vp 7) || fail "bench: $out"
echo "$out"
dir=$(sed -n 's/^  repositories kept in //p' <<<"$out")
[[ -d $dir/red ]] || fail "no repositories in $dir"
git -C "$dir/red" show red:game/options | grep -qx "dice fair" || fail "not fair"
for p in red blue white orange; do
	"$catan" -C "$dir/$p" verify >/dev/null || fail "$p does not verify"
done
for round in 1 2; do
	for p in red blue white orange; do
		"$catan" -C "$dir/$p" sync >/dev/null 2>&1 || true
	done
done
[[ $("$catan" -C "$dir/red" show | head -1) == *"phase over"* ]] ||
	fail "the game did not finish: $("$catan" -C "$dir/red" show | head -1)"
for b in red blue white orange; do
	t=$(git -C "$dir/red" rev-parse "$b")
	for p in blue white orange; do
		[[ $(git -C "$dir/$p" rev-parse "$b") == "$t" ]] ||
			fail "$p holds another $b than red"
	done
done
n=$(git_verify_all "$dir/red" red --all)
reveals=$(git -C "$dir/red" log --all --format=%s | grep -cx reveal)
completions=$(git -C "$dir/red" log --all --merges --format=%s | grep -vcx "merge discards" || true)
# A request is the commit a reveal rests on.
requests=$(git -C "$dir/red" log --all --format='%s %P' | sed -n 's/^reveal //p' | sort -u | wc -l)
requests=$((requests + reveals))
((reveals > 30 && completions > 10)) ||
	fail "$reveals reveals, $completions completions"
echo "ok 1 - a finished 4-peer fair game: $n commits ($((requests - reveals)) requests, $reveals reveals, $completions completing merges) pass git verify-commit; catan verify passes on all four peers"
