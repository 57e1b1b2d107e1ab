#!/usr/bin/env bash
# tools/figures.sh (make figures): the thesis's figures 5.2-5.5 for 2, 3
# and 4 players in one command, here with 2 plain games and 1 --peers
# game per player count: every figure as SVG and PNG, three groups in
# the tables, figure 5.5's sync part from the --peers games only, the
# README that says so, and a second run replacing the first.
# Usage: test_figures.sh CATAN_BINARY SOURCE_DIR
set -euo pipefail
catan=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
out=$tmp/fig
# The --peers games on a tmpfs of their own when there is one (as by default).
ptmp=$tmp
if [[ -d /dev/shm && -w /dev/shm ]]; then
	ptmp=$(mktemp -d /dev/shm/catan-test-figures.XXXXXX)
	trap 'rm -rf "$tmp" "$ptmp"' EXIT
fi
export FIGURES_TMP=$ptmp
JOBS=1 bash "$src/tools/figures.sh" "$catan" "$out" 2 1 >"$tmp/log"
for f in fig5_2 fig5_3 fig5_4 fig5_5 peers/fig5_5; do
	[[ -s $out/$f.svg && $(stat -c %s "$out/$f.png") -gt 5000 ]] || fail "$f missing or blank"
done
for d in "$out" "$out/peers"; do
	grep -q '| quantity | 2 players | thesis | 3 players | thesis | 4 players | thesis |' "$d/index.md" ||
		fail "$d/index.md: not 2, 3 and 4 players: $(grep quantity "$d/index.md")"
done
for p in 2 3 4; do
	[[ $(ls -d "$out/games/p$p"/game-* | wc -l) == 2 ]] || fail "plain games for $p players"
	[[ $(($(wc -l <"$out/peers/games-p$p.csv") - 1)) == 1 ]] || fail "peers games.csv for $p players"
done
# Sync is measured in the --peers games, not in the plain ones.
grep '^| sync per commit' "$out/peers/index.md" | grep -q '[0-9]\.[0-9]* ±' || fail "no sync in peers/index.md"
! grep '^| sync per commit' "$out/index.md" | grep -q '[0-9]\.[0-9]* ±' || fail "sync in the plain games"
grep -q "2 plain games per player count" "$out/README.md" && grep -q "from 1" "$out/README.md" ||
	fail "README.md: $(cat "$out/README.md")"
[[ -z $(ls "$ptmp" | grep catan-figures) ]] || fail "the --peers games were left in FIGURES_TMP"
# A second run replaces what the first made; a foreign folder is refused.
JOBS=1 bash "$src/tools/figures.sh" "$catan" "$out" 1 1 >/dev/null
[[ $(ls -d "$out/games/p2"/game-* | wc -l) == 1 ]] || fail "second run did not replace the first"
mkdir "$tmp/mine" && echo keep >"$tmp/mine/file"
if bash "$src/tools/figures.sh" "$catan" "$tmp/mine" 1 1 2>/dev/null; then fail "wrote into a foreign folder"; fi
[[ $(cat "$tmp/mine/file") == keep ]] || fail "touched a foreign folder"
ok "figures.sh: figures 5.2-5.5 for 2, 3 and 4 players, 5.5's sync from --peers games, README; rerun replaces, foreign folder refused"
