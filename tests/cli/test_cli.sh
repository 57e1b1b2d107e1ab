#!/usr/bin/env bash
# End-to-end checks of the catan command on real repositories, with stock
# git reading what catan wrote. Usage: test_cli.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# A hot-seat game: set-up by hand, then the first roll.
g=$tmp/game
$catan new "$g" --players ann,bob --seed 3 >/dev/null
ok "new"
$catan -C "$g" act --as ann setup 0,-1,n 0,-1,nw >/dev/null
$catan -C "$g" act --as bob setup 1,0,n 1,0,nw >/dev/null
$catan -C "$g" act --as bob Build Village -2,1,S -2,2,NW 2>/dev/null &&
	fail "a build during set-up was accepted"
$catan -C "$g" act --as bob setup -2,1,s -2,2,nw >/dev/null
$catan -C "$g" act --as ann setup -2,1,n -2,1,ne >/dev/null
ok "set-up through act, aliases and case accepted"

# Refused actions: clear message, non-zero exit, repository unchanged.
before=$(git -C "$g" for-each-ref --format='%(objectname) %(refname)'; git -C "$g" count-objects -v)
if $catan -C "$g" act --as bob roll 2>"$tmp/err"; then fail "bob rolled out of turn"; fi
grep -q "may not" "$tmp/err" || fail "no reason given: $(cat "$tmp/err")"
if $catan -C "$g" act --as ann build rod 0,0,w 2>"$tmp/err"; then fail "a typo parsed"; fi
grep -q "rod" "$tmp/err" || fail "the bad word is not named: $(cat "$tmp/err")"
if $catan -C "$g" act --as carol roll 2>/dev/null; then fail "an unknown player acted"; fi
after=$(git -C "$g" for-each-ref --format='%(objectname) %(refname)'; git -C "$g" count-objects -v)
[[ $before == "$after" ]] || fail "a refused action changed the repository"
ok "refused actions leave the repository as it was"

$catan -C "$g" act --as ann roll >/dev/null
$catan -C "$g" legal --as ann | grep -qx end || fail "end is not legal after the roll"
grep -q "turn 1" <<<"$($catan -C "$g" show)" || fail "show has no turn"
json=$($catan -C "$g" show --json)
grep -q '"phase":"main"' <<<"$json" || fail "show --json"
grep -qF '"settlements":["0,-1,n","-2,1,n"],"cities":[],"roads":["0,-1,nw","-2,1,ne"]}' <<<"$json" ||
	fail "show --json: ann's pieces: $json"
[[ $(tr -cd '[' <<<"$json" | wc -c) == $(tr -cd ']' <<<"$json" | wc -c) &&
   $(tr -cd '{' <<<"$json" | wc -c) == $(tr -cd '}' <<<"$json" | wc -c) ]] ||
	fail "show --json: unbalanced brackets"
grep -q "phase setup" <<<"$($catan -C "$g" show HEAD~3)" || fail "show REV"
st=$($catan -C "$g" status)
grep -qx "game: ann, bob (10 VP to win); unsigned, seeded dice; every seat plays here (hot-seat)" <<<"$st" ||
	fail "status: the game line: $st"
grep -qx "now: ann to trade, build or end the turn" <<<"$st" || fail "status: the wait: $st"
grep -q "^  ann " <<<"$st" || fail "status: no scores: $st"
$catan -C "$g" status extra 2>/dev/null && fail "status takes no argument"
ok "roll, legal, show, show --json, show REV, status"

[[ $($catan -C "$g" log | wc -l) == 6 ]] || fail "log length"
[[ $(git -C "$g" log --format=%s ann | head -1) == roll ]] || fail "git log subject"
git -C "$g" fsck --strict >/dev/null 2>&1 || fail "git fsck --strict"
$catan -C "$g" verify | grep -q "^ok: 6 commits" || fail "verify"
ok "log, git log, git fsck --strict, verify"

# git worktree of an old commit: its files are the state show reports.
git -C "$g" worktree add -q --detach "$tmp/wt" HEAD~2 2>/dev/null
grep -q "^turn 0 [a-z]* setup$" "$tmp/wt/now" || fail "worktree now file"
grep -q "^ann settlement" "$tmp/wt/buildings" || fail "worktree buildings"
ok "git worktree add shows the state as files"

# Games on generated boards: a board file of radius 3, a balanced board.
$catan board generate --radius 3 --seed 5 --out "$tmp/big.board" >/dev/null
$catan new "$tmp/big" --board "$tmp/big.board" --players a,b,c >/dev/null
$catan -C "$tmp/big" verify | grep -q "^ok" || fail "radius-3 game"
[[ $(git -C "$tmp/big" show a:game/board | grep -c '^tile') == 37 ]] || fail "37 tiles"
$catan new "$tmp/bal" --board balanced --seed 4 >/dev/null
$catan -C "$tmp/bal" act --as red setup 0,-1,n 0,-1,nw >/dev/null || fail "balanced board game"
echo junk >"$tmp/bad.board"
if $catan new "$tmp/nope" --board "$tmp/bad.board" 2>"$tmp/err"; then fail "bad board file accepted"; fi
grep -q "bad.board:1" "$tmp/err" || fail "bad board file: no line named"
[[ ! -e $tmp/nope ]] || fail "a refused new left a directory"
: >"$tmp/empty.board"
if $catan new "$tmp/nope" --board "$tmp/empty.board" 2>"$tmp/err"; then fail "empty board file accepted"; fi
grep -q "empty.board: empty file" "$tmp/err" || fail "empty board file: $(cat "$tmp/err")"
if $catan board show "$tmp/empty.board" 2>"$tmp/err"; then fail "board show: empty file accepted"; fi
grep -q "empty.board: empty file" "$tmp/err" || fail "board show, empty file: $(cat "$tmp/err")"
ok "new --board FILE (radius 3) and --board balanced; a bad board file is refused with its line"

# A bad player list and a non-empty target directory are refused.
if $catan new "$tmp/x" --players ann,ann 2>/dev/null; then fail "duplicate names"; fi
if $catan new "$g" 2>/dev/null; then fail "overwrote a game"; fi
ok "new refuses bad input"

# Simulation is deterministic; stats reads what simulate wrote.
$catan simulate --games 2 --players 3 --seed 11 --out "$tmp/s1" 2>/dev/null
$catan simulate --games 2 --players 3 --seed 11 --out "$tmp/s2" --jobs 2 2>/dev/null
(cd "$tmp/s1" && find game-* -type f | sort | xargs sha1sum) >"$tmp/a"
(cd "$tmp/s2" && find game-* -type f | sort | xargs sha1sum) >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || fail "simulate is not byte-identical across runs"
for d in "$tmp"/s1/game-*; do
	$catan -C "$d" verify >/dev/null || fail "verify $d"
	git -C "$d" fsck --strict >/dev/null 2>&1 || fail "fsck $d"
done
$catan stats --csv "$tmp/s1" >"$tmp/stats.csv"
[[ $(wc -l <"$tmp/stats.csv") == 3 ]] || fail "stats rows"
ok "simulate twice gives identical repositories; verify, fsck, stats"

# 5-6 players: the extension's board, bank and special building phase.
$catan simulate --games 1 --players 6 --seed 12 --out "$tmp/s6" 2>/dev/null
$catan -C "$tmp/s6/game-00000" verify >/dev/null || fail "verify a 6-player game"
grep -q '^special-build yes$' <(git -C "$tmp/s6/game-00000" show HEAD:game/options) ||
	fail "6-player options without special-build yes"
grep -q '^end$' <(git -C "$tmp/s6/game-00000" log --all --format=%s) || fail "no end in a 6-player game"
$catan bots --players 6 --seed 5 --quiet >/dev/null || fail "catan bots --players 6"
$catan bots --players 5 --seed 5 --quiet --no-special-build >/dev/null || fail "catan bots --players 5 --no-special-build"
if $catan bots --players 4 --special-build 2>/dev/null; then fail "special building with 4 players"; fi
if $catan new "$tmp/b6" --players a,b,c,d,e,f --board beginner 2>/dev/null; then fail "6 players on the beginner board"; fi
$catan new "$tmp/g6" --players a,b,c,d,e,f >/dev/null || fail "new with 6 players"
grep -q '^lumber:24' <($catan -C "$tmp/g6" show --json | tr ',{' '\n\n' | sed -n 's/"lumber"/lumber/p') ||
	fail "6-player bank is not 24"
ok "5-6 players: simulate, bots, new (special building phase, 24-card bank)"

# The git diff size stats reports is git's own, over every pair.
d=$tmp/s1/game-00000
total=0 pairs=0
while read -r c parents; do
	for p in $parents; do
		total=$((total + $(git -C "$d" diff "$p" "$c" | wc -c)))
		pairs=$((pairs + 1))
	done
done < <(git -C "$d" rev-list --all --parents)
[[ $pairs -gt 100 ]] || fail "too few pairs ($pairs)"
want=$(awk -v t="$total" -v p="$pairs" 'BEGIN { printf "%.1f", t / p }')
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "diff_mean") k = i; next }
	$2 == "game-00000" { print $k }' "$tmp/stats.csv")
[[ $want == "$got" ]] || fail "stats says diff mean $got, git diff says $want"
ok "stats' diff mean is git diff's over $pairs pairs ($want bytes)"

# catan and catan-window: the window's libraries are loaded by the window
# commands only (README, "catan and catan-window"). Every other command
# starts without SDL; render, play and replay run catan-window beside
# catan with the same arguments, and say so when it is not there.
libs=$(ldd "$catan") || fail "ldd $catan"
grep -q "libSDL2" <<<"$libs" && fail "catan loads SDL2 at every start: $(grep SDL <<<"$libs")"
wlibs=$(ldd "$(dirname "$catan")/catan-window") || fail "ldd catan-window"
grep -q "libSDL2-2" <<<"$wlibs" || fail "catan-window has no SDL2"
$catan -C "$g" render --out "$tmp/r.png" --size 320x240 >/dev/null || fail "render through catan-window"
[[ $(head -c 8 "$tmp/r.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "render wrote no PNG"
mkdir "$tmp/alone"
cp "$catan" "$tmp/alone/catan"
if "$tmp/alone/catan" -C "$g" render --out "$tmp/r2.png" 2>"$tmp/err"; then fail "render without catan-window"; fi
grep -q "catan-window, which is not beside this catan ($tmp/alone/catan-window)" "$tmp/err" ||
	fail "render without catan-window: $(cat "$tmp/err")"
[[ ! -e $tmp/r2.png ]] || fail "render without catan-window wrote a file"
"$tmp/alone/catan" -C "$g" status >/dev/null || fail "status from a catan alone"
ok "catan starts without SDL ($(wc -l <<<"$libs") libraries); render runs catan-window, and without it says where it looked"

echo "$n passed, 0 failed"
