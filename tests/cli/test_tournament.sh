#!/usr/bin/env bash
# catan tournament: seats rotated so every bot plays every seat equally,
# the same seed gives the same table whatever --jobs is, another seed
# another table, bad bot names are refused with a sentence, and a game
# with a bot that cannot move legally still ends (minimum viable move).
# Usage: test_tournament.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

bots=random,greedy,value,mcts:20
$catan tournament --bots $bots --games 24 --seed 5 --json >"$tmp/j1" 2>/dev/null
$catan tournament --bots $bots --games 24 --seed 5 --jobs 3 --json >"$tmp/j3" 2>/dev/null
$catan tournament --bots $bots --games 24 --seed 6 --json >"$tmp/s6" 2>/dev/null
cmp -s "$tmp/j1" "$tmp/j3" || { diff "$tmp/j1" "$tmp/j3" >&2; fail "--jobs 1 and --jobs 3 give different tables"; }
ok "same seed, same table with --jobs 1 and 3"
cmp -s "$tmp/j1" "$tmp/s6" && fail "seeds 5 and 6 give the same table"
ok "another seed, another table"

# Every bot plays each of the 4 seats 6 times in 24 games.
c=$(grep -c '"games_by_seat": \[6, 6, 6, 6\]' "$tmp/j1" || true)
[[ $c == 4 ]] || { cat "$tmp/j1" >&2; fail "seats not balanced"; }
ok "rotation balanced (each bot 6 games in each seat)"
wins=$(grep -o '"wins": [0-9]*' "$tmp/j1" | awk '{s += $2} END {print s}')
draws=$(grep -o '"no_winner": [0-9]*' "$tmp/j1" | awk '{print $2}')
[[ $((wins + draws)) == 24 ]] || fail "wins $wins + no winner $draws != 24 games"
ok "every game has one winner or none"

# 10 games with 3 players: rounded up to 12, said on stderr.
$catan tournament --bots greedy,greedy,value --games 10 --csv >"$tmp/csv" 2>"$tmp/err"
grep -q "12 games" "$tmp/err" || fail "no rounding note: $(cat "$tmp/err")"
[[ $(head -1 "$tmp/csv") == bot,games,wins,win_rate,ci95_lo,ci95_hi,mean_vp,fouls ]] || fail "csv header"
[[ $(grep -c ',12,' "$tmp/csv") == 3 ]] || fail "csv rows: $(cat "$tmp/csv")"
ok "games rounded to a multiple of the players; csv"

# Refusals: exit 2 and a sentence naming the problem.
for bad in "--bots greedy,wizard" "--bots greedy,value:3" "--bots greedy" \
	"--bots greedy,greedy --players 3" "--bots a,b --games 0" "--games 4"; do
	set +e
	# shellcheck disable=SC2086
	$catan tournament $bad >/dev/null 2>"$tmp/err"
	rc=$?
	set -e
	[[ $rc == 2 ]] || fail "'$bad' exit $rc"
	[[ -s $tmp/err ]] || fail "'$bad' without a message"
done
msg=$($catan tournament --bots greedy,wizard 2>&1 || true)
[[ $msg == *'unknown bot "wizard"'* ]] || fail "no name in message: $msg"
ok "bad bots and options refused with a sentence"

# A bot whose moves do not apply: replaced by the minimum viable move,
# counted as fouls, and every game still ends with a winner.
$catan tournament --bots illegal,greedy,value --games 6 --json >"$tmp/ill" 2>/dev/null
grep -q '"bot": "illegal", "games": 6, "wins": 0, .*"fouls": [1-9]' "$tmp/ill" || fail "no fouls: $(cat "$tmp/ill")"
grep -q '"no_winner": 0' "$tmp/ill" || fail "a game without a winner"
$catan bots --players 2 --bots illegal,greedy --display nosleep --seed 4 >"$tmp/mvm" || fail "catan bots with an illegal bot failed"
grep -q "minimum viable move" "$tmp/mvm" || fail "no minimum viable move in the log"
ok "illegal moves replaced by the minimum viable move; games end"

# The terminal display: hexagons with the robber and harbours; step mode
# reads Enter, s (the full state) and q (stops early, exit 0).
$catan bots --bots value,mcts:10,greedy,random --display nosleep --seed 3 >"$tmp/ns"
grep -q 'ROB' "$tmp/ns" && grep -q '3:1' "$tmp/ns" && grep -q 'wins on turn' "$tmp/ns" || fail "nosleep display"
printf '\n\ns\nq\n' | $catan bots --bots greedy --display step --seed 3 >"$tmp/step" || fail "step mode exit"
grep -q 'bank: lumber' "$tmp/step" || fail "s did not print the full state"
grep -q 'wins on turn' "$tmp/step" && fail "q did not stop the game"
steps=$(grep -o ' setup -*[0-9]' "$tmp/step" | wc -l)
[[ $steps == 3 ]] || fail "step mode did not stop after 3 actions: $steps"
$catan bots --display sleep --delay 0 --seed 2 --quiet >/dev/null || fail "sleep display"
msg=$($catan bots --display fast 2>&1 || true)
[[ $msg == *"nosleep, sleep or step"* ]] || fail "bad --display accepted: $msg"
ok "display: nosleep board, step mode Enter/s/q, sleep"

# An agent (spec/agents.md) enters like a bot: a process per game and seat.
example=$(cd "$(dirname "$0")/../.." && pwd)/agents/python/example.py
$catan tournament --bots "agent:python3 $example,greedy" --games 4 --jobs 2 \
	--seed 1 --csv >"$tmp/ag" || fail "tournament with an agent"
grep -q "^agent:python3 .*example.py,4,[0-9],[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*,0$" "$tmp/ag" ||
	fail "agent row: $(cat "$tmp/ag")"
msg=$($catan tournament --bots "agent:exit 3,greedy" --games 2 2>&1 || true)
[[ $msg == *"agent:exit 3"* ]] || fail "a dead agent not named: $msg"
ok "agent:CMD plays in a tournament like a bot (no fouls); an agent that does not start is named"
echo "1..$n"
