#!/usr/bin/env bash
# test_trace.sh CATAN CATAN_TRACE SRCDIR [GAMES [FAIR_BENCH]] - trace validation
# (README "The formal model"): catan-trace (tools/trace.c) checks every
# commit of a game repository against spec/catan.tla's invariants and
# actions. Traced here: the golden games (tests/data/games, made into
# repositories by catan-trace --from-log) and GAMES (default 100)
# simulated games, 2 to 6 players, every board kind, both phase styles,
# with and without the special building phase, and with FAIR_BENCH
# (catan-fair-bench) a signed 4-player game with fair dice (reveals
# merged into each chance action's completion), and a signed two-player
# game ended by an expulsion (Expel: a merge of the fork and the
# equivocator's two children; one with a bad proof is refused). Then it
# proves the tracer
# can fail: repositories corrupted with stock git (a card created from
# nothing; an unearned trophy; a commit whose tree is not its action's
# result; an action by a player who may not act; a merge of two discards
# that are not siblings) must be refused, each naming the commit
# and the invariant or action; and the table generator must refuse a model
# whose invariant has no C check. About 30 s on 2 cores.
set -euo pipefail
catan=${1:?usage: test_trace.sh CATAN CATAN_TRACE SRCDIR [GAMES]}
trace=${2:?usage: test_trace.sh CATAN CATAN_TRACE SRCDIR [GAMES]}
src=${3:?usage: test_trace.sh CATAN CATAN_TRACE SRCDIR [GAMES]}
games=${4:-100}
fair=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The golden games.
n=0
for log in "$src"/tests/data/games/*.txt; do
	"$trace" --from-log "$log" --out "$tmp/golden-$(basename "$log" .txt)"
	n=$((n + 1))
done
((n > 0)) || { echo "test_trace: no golden game in $src/tests/data/games" >&2; exit 1; }
"$trace" --quiet "$tmp"/golden-*
echo "test_trace: $n golden games traced"

# Simulated games: GAMES in five runs of 2..6 players.
per=$(((games + 4) / 5))
sim() { # players board phases [options]
	local p=$1 board=$2 phases=$3
	shift 3
	"$catan" simulate --games "$per" --players "$p" --board "$board" \
		--phases "$phases" --seed $((p * 1000)) --out "$tmp/sim$p" \
		--quiet "$@" >/dev/null
}
sim 2 random combined
sim 3 beginner classic
sim 4 balanced combined
sim 5 random combined
sim 6 balanced classic --no-special-build
"$trace" --quiet --json "$tmp/trace.jsonl" "$tmp"/sim*/game-*/
lines=$(wc -l <"$tmp/trace.jsonl")
merges=$(grep -c '"parents":\["[0-9a-f]*","' "$tmp/trace.jsonl" || true)
echo "test_trace: $((5 * per)) simulated games traced ($lines commits, $merges discard merges)"
((merges > 0)) || { echo "test_trace: no discard merge traced" >&2; exit 1; }
if [[ -n $fair ]]; then
	mkdir "$tmp/fair"
	"$fair" --rolls 100 --players 4 --dir "$tmp/fair" --keep >/dev/null
	"$trace" --quiet --json "$tmp/fair.jsonl" "$tmp"/fair/*/game-*/
	reveals=$(grep -c '"action":"Reveal"' "$tmp/fair.jsonl" || true)
	((reveals > 0)) || { echo "test_trace: no reveal in the fair game" >&2; exit 1; }
	echo "test_trace: a fair-dice game traced ($(wc -l <"$tmp/fair.jsonl") commits, $reveals reveals)"
fi

# A signed game whose seats were claimed in its lobby: the claims and the
# start change no variable of the model (stuttering steps), then play.
lob=$tmp/lobby
mkdir "$lob"
for p in red blue white; do "$catan" key new "$lob/k_$p" >/dev/null 2>&1; done
"$catan" new "$lob/red" --players red,blue,white --me red --key "$lob/k_red" \
	--open blue --open white >/dev/null 2>&1
for p in blue white; do
	"$catan" join "$lob/red" "$lob/$p" --as "$p" --key "$lob/k_$p" >/dev/null
	"$catan" -C "$lob/red" remote add "$p" "$lob/$p" >/dev/null
done
"$catan" -C "$lob/red" sync >/dev/null
for i in 1 2 3; do
	next=$("$catan" -C "$lob/red" show --json | sed -n 's/.*"next":"\([a-z]*\)".*/\1/p')
	[[ $next == red ]] || break
	"$catan" -C "$lob/red" act $("$catan" -C "$lob/red" legal --as red | head -1) >/dev/null
done
[[ $(git -C "$lob/red" log --format=%s red | grep -cx 'start\|claim') == 3 ]] ||
	{ echo "test_trace: the lobby game has no start on two claims" >&2; exit 1; }
"$trace" --quiet --json "$tmp/lobby.jsonl" "$lob/red"
grep -q '"action":"Start"' "$tmp/lobby.jsonl" ||
	{ echo "test_trace: no Start in the lobby game's trace" >&2; exit 1; }
echo "test_trace: a game started in its lobby traced ($(wc -l <"$tmp/lobby.jsonl") commits)"

# A signed two-player game where white signs two first placements and
# red expels it (spec/replication.md "Expulsion"): the merge of the fork
# and the two children is the step Expel, red winning as the last seat.
ex=$tmp/expel
mkdir "$ex"
for p in red white; do "$catan" key new "$ex/k_$p" >/dev/null 2>&1; done
"$catan" new "$ex/red" --players red,white --me red --seed 4 --dice seeded \
	--key "$ex/k_red" --seat white="$ex/k_white.pub" >/dev/null 2>&1
"$catan" join "$ex/red" "$ex/white" --as white --key "$ex/k_white" >/dev/null
"$catan" -C "$ex/red" remote add white "$ex/white"
"$catan" -C "$ex/red" step >/dev/null
"$catan" -C "$ex/white" sync >/dev/null
cp -a "$ex/white" "$ex/white2"
"$catan" -C "$ex/white" act --as white $("$catan" -C "$ex/white" legal --as white | sed -n 1p) >/dev/null
"$catan" -C "$ex/white2" act --as white $("$catan" -C "$ex/white2" legal --as white | sed -n 2p) >/dev/null
"$catan" -C "$ex/red" remote add white2 "$ex/white2"
"$catan" -C "$ex/red" sync white >/dev/null 2>&1
"$catan" -C "$ex/red" sync white2 >/dev/null 2>&1 || true
"$catan" -C "$ex/red" act --as red expel white >/dev/null
"$trace" --quiet --json "$tmp/expel.jsonl" "$ex/red"
grep -q '"action":"Expel".*"phase":"over".*"winner":0.*"out":\[1\]' "$tmp/expel.jsonl" ||
	{ echo "test_trace: no Expel to a game over in the expulsion's trace" >&2; exit 1; }
echo "test_trace: an expulsion traced ($(wc -l <"$tmp/expel.jsonl") commits)"
# The same expulsion with a proof that is not two children of the fork
# (its second child swapped for the fork itself) is refused.
m=$(git -C "$ex/red" rev-parse refs/heads/red)
read -r f c1 c2 < <(git -C "$ex/red" log -1 --format=%P "$m")
cp -a "$ex/red" "$tmp/bad5"
bad=$(GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan git -C "$tmp/bad5" commit-tree "$m^{tree}" -p "$f" \
	-p "$c1" -p "$(git -C "$ex/red" rev-parse "$f^")" -m "$(git -C "$ex/red" log -1 --format=%B "$m")")
git -C "$tmp/bad5" update-ref refs/heads/red "$bad"
if out=$("$trace" "$tmp/bad5" 2>&1) || [[ $out != *"commit $bad"* || $out != *"proof"* ]]; then
	echo "test_trace: an expulsion without its proof: $out" >&2
	exit 1
fi
echo "test_trace: an expulsion without its proof refused: ${out#catan-trace: }"

# The tracer refuses corrupted histories, naming commit and invariant.
g=$tmp/golden-greedy-4p-beginner
tip=$(git -C "$g" rev-parse refs/heads/red)
parent=$(git -C "$g" rev-parse "$tip^")
[[ $(git -C "$g" log -1 --format=%s "$tip") == end ]] ||
	{ echo "test_trace: red's tip is not an end" >&2; exit 1; }
# forge REPO TREE PARENT: a commit by red with the tip's message.
forge() {
	GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
		GIT_COMMITTER_EMAIL=red@catan git -C "$1" commit-tree "$2" -p "$3" \
		-m "$(git -C "$1" log -1 --format=%B "$tip")"
}
refused() { # name repo commit want
	local out
	if out=$("$trace" "$2" 2>&1); then
		echo "test_trace: $1: the tracer accepted a corrupted history" >&2
		exit 1
	fi
	if [[ $out != *"commit $3"* || $out != *"$4"* ]]; then
		echo "test_trace: $1: want \"$4\" about $3, got: $out" >&2
		exit 1
	fi
	echo "test_trace: $1 refused: ${out#catan-trace: }"
}
# edit REPO FILE SED: red's tip's tree with FILE edited by SED, as a
# sibling of the tip by red; moves red's branch there and prints its id.
edit() {
	git -C "$g" show "$tip:$2" | sed "$3" >"$tmp/file"
	local blob tree bad
	blob=$(git -C "$1" hash-object -w "$tmp/file")
	tree=$(git -C "$1" ls-tree "$tip" |
		sed "s/[0-9a-f]\{40\}\t$2\$/$blob\t$2/" | git -C "$1" mktree)
	bad=$(forge "$1" "$tree" "$parent")
	git -C "$1" update-ref refs/heads/red "$bad"
	echo "$bad"
}
# 1. Red's lumber raised to 19, from nowhere (the bank is derived from
# the hands: the others' lumber is then in play twice): CardsInPlay.
cp -a "$g" "$tmp/bad1"
bad=$(edit "$tmp/bad1" now 's/^red [0-9]* /red 19 /')
refused "lumber from nothing" "$tmp/bad1" "$bad" "invariant CardsInPlay broken"
# 1b. The largest army's trophy to red, who has played 1 knight.
cp -a "$g" "$tmp/bad1b"
bad=$(edit "$tmp/bad1b" trophies 's/^largest-army none/largest-army red/')
refused "an unearned trophy" "$tmp/bad1b" "$bad" "invariant LargestArmyHolderOutnumbered broken"
# 2. red's end with its parent's tree: not the action's result.
cp -a "$g" "$tmp/bad2"
bad=$(forge "$tmp/bad2" "$(git -C "$g" rev-parse "$parent^{tree}")" "$parent")
git -C "$tmp/bad2" update-ref refs/heads/red "$bad"
refused "a tree that is not apply" "$tmp/bad2" "$bad" "state is not End's result"
# 3. red ends again after its end: red may not act (End's precondition).
cp -a "$g" "$tmp/bad3"
bad=$(forge "$tmp/bad3" "$(git -C "$g" rev-parse "$tip^{tree}")" "$tip")
git -C "$tmp/bad3" update-ref refs/heads/red "$bad"
refused "an action out of turn" "$tmp/bad3" "$bad" "precondition of End fails: MayAct"
# 4. A discard merge whose parents are not siblings: the second discard
# re-made on top of the first (its tree then the merge's), merged with the
# first. Each discard applies, and so do both in turn from the 7's state,
# but the merge does not join a fan-out (MergeDiscards' parents).
m=$(git -C "$g" rev-list --merges -1 refs/heads/red)
read -r p1 p2 < <(git -C "$g" log -1 --format=%P "$m")
cp -a "$g" "$tmp/bad4"
who=$(git -C "$g" log -1 --format=%an "$p2")
chained=$(GIT_AUTHOR_NAME=$who GIT_AUTHOR_EMAIL=$who@catan GIT_COMMITTER_NAME=$who \
	GIT_COMMITTER_EMAIL=$who@catan git -C "$tmp/bad4" commit-tree "$m^{tree}" -p "$p1" \
	-m "$(git -C "$g" log -1 --format=%B "$p2")")
bad=$(GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan git -C "$tmp/bad4" commit-tree "$m^{tree}" -p "$p1" \
	-p "$chained" -m "$(git -C "$g" log -1 --format=%B "$m")")
git -C "$tmp/bad4" update-ref refs/heads/red "$bad"
refused "a merge of chained discards" "$tmp/bad4" "$bad" "merge parents do not share one fan-out commit"

# The table generator refuses a model invariant without a C check.
sed '/^\\\* C: " cards in play"/d' "$src/spec/catan.tla" >"$tmp/nocheck.tla"
if "$src/tools/model_invariants.sh" "$tmp/nocheck.tla" "$src/src/core/check.c" \
	>/dev/null 2>"$tmp/err"; then
	echo "test_trace: model_invariants.sh accepted an invariant with no C check" >&2
	exit 1
fi
grep -q "CardsInPlay (in Invariants) has no C" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
sed 's/^\\\* C: "knights played"/\\* C: "knights counted"/' "$src/spec/catan.tla" >"$tmp/badtext.tla"
if "$src/tools/model_invariants.sh" "$tmp/badtext.tla" "$src/src/core/check.c" \
	>/dev/null 2>"$tmp/err"; then
	echo "test_trace: model_invariants.sh accepted a C: text check.c lacks" >&2
	exit 1
fi
grep -q 'KnightsPlayed: "knights counted" is not a check' "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "test_trace: the generator refuses an invariant with no C check"
echo "test_trace: every game traced, every corruption refused"
