#!/usr/bin/env bash
# The Dice trailer of a roll commit (spec/format.md, "Commits"): catan
# writes the dice the rules rolled, in seeded and manual mode, catan log
# shows them, and verify and sync refuse a roll whose trailer names other
# dice, a roll without one and a trailer on a commit that does not roll.
# Usage: test_dice.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

# play_to_roll DIR: each player's first legal action until the first roll.
play_to_roll() {
	local d=$1 l p
	for _ in $(seq 1 10); do
		for p in red blue; do
			l=$($catan -C "$d" legal --as "$p" 2>/dev/null | head -1)
			[[ -z $l ]] && continue
			[[ $l == roll* && -n ${2:-} ]] && l="roll $2"
			$catan -C "$d" act --as "$p" $l >/dev/null
			[[ $l == roll* ]] && return 0
		done
	done
	fail "no roll in $d"
}
trailer() { git -C "$1" log -1 --format='%(trailers:key=Dice,valueonly)' "$2" | sed '/^$/d'; }

# 1. Seeded dice: the trailer holds the dice the state holds after the roll.
a=$tmp/a
$catan new "$a" --players red,blue --seed 3 >/dev/null
$catan join "$a" "$tmp/b" --as blue >/dev/null
play_to_roll "$a"
roll=$(git -C "$a" rev-parse red)
git -C "$a" log -1 --format=%s "$roll" | grep -qx roll || fail "red's tip is not the roll"
want=$($catan -C "$a" show --json | sed -n 's/.*"dice":\[\([1-6]\),\([1-6]\)\].*/\1 \2/p')
[[ -n $want && $(trailer "$a" "$roll") == "$want" ]] ||
	fail "Dice trailer \"$(trailer "$a" "$roll")\", state's dice \"$want\""
git -C "$a" log -1 --format=%B "$roll" | grep -q "^Turn: 1$" || fail "Turn trailer"
[[ $(git -C "$a" log -1 --format=%B "$roll" | tail -2 | head -1) == "Dice: $want" ]] ||
	fail "Dice is not the last trailer: $(git -C "$a" log -1 --format=%B "$roll")"
[[ $(git -C "$a" log --all --format='%(trailers:key=Dice)' | grep -c Dice) == 1 ]] ||
	fail "a Dice trailer on a commit that does not roll"
$catan -C "$a" verify >/dev/null || fail "verify refused catan's own roll"
$catan -C "$a" log | tail -1 | grep -q " red  *roll ${want/ /+}\$" ||
	fail "catan log does not show the dice: $($catan -C "$a" log | tail -1)"
grep -q "\"dice\":\[${want/ /,}\]" <<<"$($catan -C "$a" log --json)" || fail "catan log --json dice"
ok "seeded roll: Dice: $want, the state's dice; verify accepts; catan log shows roll ${want/ /+}"

# 2. Manual dice: the stated dice.
m=$tmp/m
$catan new "$m" --players red,blue --seed 3 --dice manual >/dev/null
play_to_roll "$m" "6 5"
[[ $(trailer "$m" red) == "6 5" ]] || fail "manual roll's trailer: $(trailer "$m" red)"
$catan -C "$m" verify >/dev/null || fail "verify refused a manual roll"
ok "manual roll: Dice: 6 5"

# 3. Forgeries: the roll's own tree and parent, another message.
forge() { # forge MESSAGE TREE PARENT -> commit id in a
	GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan git -C "$a" commit-tree "$2" -p "$3" -m "$1"
}
tree=$(git -C "$a" rev-parse "$roll^{tree}")
parent=$(git -C "$a" rev-parse "$roll^")
set -- $want
other="$(( $1 % 6 + 1 )) $2"
expect_refused() { # expect_refused WHAT COMMIT PATTERN
	local out c=$tmp/copy
	rm -rf "$c"
	cp -a "$a" "$c"
	git -C "$c" update-ref refs/heads/red "$2"
	out=$($catan -C "$c" verify 2>&1) && fail "verify accepted $1"
	grep -q "$3" <<<"$out" || fail "verify: $1: reason not given: $out"
	rm -rf "$tmp/b2"
	cp -a "$tmp/b" "$tmp/b2"
	git -C "$a" update-ref refs/heads/red "$2"
	out=$($catan -C "$tmp/b2" sync 2>&1) && fail "sync accepted $1"
	git -C "$a" update-ref refs/heads/red "$roll"
	grep -q "rejected" <<<"$out" || fail "sync: $1 not reported: $out"
	grep -q "$3" <<<"$out" || fail "sync: $1: reason not given: $out"
	[[ $(git -C "$tmp/b2" rev-parse red) != "$2" ]] || fail "sync adopted $1"
}
expect_refused "a roll with other dice" \
	"$(forge $'roll\n\nPlayer: red\nTurn: 1\nDice: '"$other" "$tree" "$parent")" \
	"Dice trailer is not the roll"
expect_refused "a roll without dice" \
	"$(forge $'roll\n\nPlayer: red\nTurn: 1' "$tree" "$parent")" \
	"roll commit without a Dice trailer"
ptree=$(git -C "$a" rev-parse "$parent^{tree}")
pparent=$(git -C "$a" rev-parse "$parent^")
psubject=$(git -C "$a" log -1 --format=%s "$parent")
expect_refused "a Dice trailer on a commit that does not roll" \
	"$(forge "$psubject"$'\n\nPlayer: red\nTurn: 0\nDice: 3 4' "$ptree" "$pparent")" \
	"Dice trailer on a commit that does not roll"
$catan -C "$tmp/b" sync >/dev/null || fail "the honest roll did not sync"
[[ $(git -C "$tmp/b" rev-parse red) == "$roll" ]] || fail "the honest roll was not adopted"
ok "other dice ($other), no dice, dice on a setup: refused by verify and by sync; the honest roll syncs"
