#!/usr/bin/env bash
# Expulsion (spec/replication.md, "Expulsion"): once a seat is proven to
# have signed two moves on one commit, the seat that acts next without it
# writes "expel <seat>", a merge of the fork (or the other seats'
# discards on it) and the two children, its proof; the game goes on
# without the seat. Checked here: a two-player game ends there, the
# other seat winning; an expulsion made while another seat still owed a
# discard waits for it and merges it; and forged expulsions (by a seat
# whose turn it is not, without a proof, with a proof by two seats, in a
# game where nobody equivocated) are refused by every honest peer and by
# the host's hook. (cli_equivocation plays a three-player game on after
# one.) Usage: test_expel.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp
. "$(dirname "$0")/lib.sh"
for p in red blue white; do $catan key new "$d/key_$p" >/dev/null 2>&1; done

# sign_as REPO PLAYER TREE SUBJECT TURN PARENT...: a commit in catan's
# form, signed with PLAYER's key by stock git (what a dishonest peer can
# write by hand); prints its id.
sign_as() {
	local repo=$1 who=$2 tree=$3 subject=$4 turn=$5 ps=() p
	shift 5
	for p in "$@"; do ps+=(-p "$p"); done
	printf '%s\n\nPlayer: %s\nTurn: %s\n' "$subject" "$who" "$turn" |
		GIT_AUTHOR_NAME=$who GIT_AUTHOR_EMAIL=$who@catan \
			GIT_COMMITTER_NAME=$who GIT_COMMITTER_EMAIL=$who@catan \
			git -C "$repo" -c gpg.format=ssh -c user.signingkey="$d/key_$who" \
			commit-tree -S "$tree" "${ps[@]}"
}

# fork_first_move DIR: white, to place in DIR/white, signs two different
# placements: X (DIR/white) and Y (DIR/white2, which is what red's remote
# "white" reads). Prints the commit both build on.
fork_first_move() {
	local g=$1 x y
	cp -a "$g/white" "$g/white2"
	x=$($catan -C "$g/white" legal --as white | sed -n 1p)
	y=$($catan -C "$g/white2" legal --as white | sed -n 2p)
	$catan -C "$g/white" act --as white $x >/dev/null
	$catan -C "$g/white2" act --as white $y >/dev/null
	git -C "$g/white" rev-parse white~1
}

# recorded_fork DIR: trio_game (seeded) in DIR where white forks its
# first placement (fork_first_move), X shown to blue and Y to red; red
# and blue sync with each other, both recording the proof.
recorded_fork() {
	local g=$1
	trio_game $catan "$g" "$d" seeded
	fork_first_move "$g" >/dev/null
	git -C "$g/red" remote set-url white "$g/white2"
	$catan -C "$g/red" sync white >/dev/null 2>&1
	$catan -C "$g/blue" sync white >/dev/null 2>&1
	$catan -C "$g/red" sync blue >/dev/null 2>&1
	$catan -C "$g/blue" sync origin >/dev/null 2>&1
}

# --- Two players: the expulsion ends the game, the other seat wins.
g=$d/two
mkdir -p "$g"
$catan new "$g/red" --players red,white --me red --seed 4 --dice seeded \
	--key "$d/key_red" --seat white="$d/key_white.pub" >/dev/null 2>&1
$catan join "$g/red" "$g/white" --as white --key "$d/key_white" >/dev/null
$catan -C "$g/red" remote add white "$g/white"
$catan -C "$g/red" step >/dev/null
$catan -C "$g/white" sync >/dev/null
fork=$(fork_first_move "$g")
$catan -C "$g/red" remote add white2 "$g/white2"
$catan -C "$g/red" sync white >/dev/null 2>&1
out=$($catan -C "$g/red" sync white2 2>&1) || fail "red's sync of the other side: $out"
grep -q "equivocation: white signed two different moves on ${fork:0:10}" <<<"$out" ||
	fail "two players: no verdict: $out"
grep -q "^now: the game stopped at ${fork:0:10} (white signed two different moves there); red to expel white" <<<"$out" ||
	fail "two players: red is not told to expel white: $out"
# (red's peer, with no bot, writes the expulsion by itself)
out=$(timeout 20 $catan -C "$g/red" peer --rounds 3 --interval 0.05 2>&1) || true
grep -q "^red expel white$" <<<"$out" || fail "red's peer did not expel white: $out"
st=$($catan -C "$g/red" status)
grep -q "phase over" <<<"$st" || fail "two players: the game goes on: $st"
grep -q "^  white .* expelled$" <<<"$st" || fail "two players: the scores do not say white is out: $st"
grep -q '"name":"white",.*"expelled":true' <<<"$($catan -C "$g/red" show --json)" ||
	fail "two players: show --json does not say white is out"
grep -q '"winner": *"red"' <<<"$($catan -C "$g/red" show --json)" ||
	fail "two players: red did not win: $($catan -C "$g/red" show --json | grep -i winner)"
out=$($catan -C "$g/red" act --as red end 2>&1) && fail "red acted on a game over: $out"
v=$($catan -C "$g/red" verify) || fail "two players: verify: $v"
grep -q "^stopped" <<<"$v" && fail "two players: verify says the game stopped: $v"
git -C "$g/red" fsck --strict >/dev/null 2>&1 || fail "two players: fsck"
[[ $(git_verify_all "$g/red" red white) -gt 2 ]] || fail "two players: stock git checked nothing"
ok "two players: white signs two first placements, red records the proof, is told to expel white, its peer does, and red wins; the game is over, verify, fsck and git verify-commit pass"

# --- Forged expulsions, refused by an honest peer; the true one goes on.
g=$d/forge
recorded_fork "$g"
fork=$(git -C "$g/white" rev-parse white~1)
for p in red blue; do
	$catan -C "$g/$p" status | grep -q "blue to expel white" ||
		fail "(setup) $p does not wait for blue to expel white: $($catan -C "$g/$p" status)"
done
x=$(git -C "$g/blue" rev-parse refs/catan/equivocation-a)
y=$(git -C "$g/blue" rev-parse refs/catan/equivocation-b)
tree=$(git -C "$g/red" rev-parse "$fork^{tree}")
git init -q --bare "$g/hub.git"
$catan -C "$g/blue" remote add hub "$g/hub.git"
blue_red=$(git -C "$g/blue" rev-parse red)
# forged COMMIT WHAT REASON: red's branch at the hub moved to COMMIT;
# blue refuses it for REASON (or, with REASON "-", takes it for what the
# verdict voids: built on a child of the fork, and no proof), its
# branches and record as they were.
forged() {
	git -C "$g/red" push -q -f "$g/hub.git" "$1:refs/heads/red"
	local rec out
	rec=$(git -C "$g/blue" cat-file -p refs/catan/equivocation)
	out=$($catan -C "$g/blue" sync hub 2>&1 || true)
	if [[ $3 == - ]]; then
		grep -q "adopted red" <<<"$out" && fail "$2: adopted: $out"
	else
		grep -q "rejected red from hub: commit ${1:0:10}: .*$3" <<<"$out" ||
			fail "$2: not refused for \"$3\": $out"
	fi
	[[ $(git -C "$g/blue" rev-parse red) == "$blue_red" ]] || fail "$2: blue adopted it"
	[[ $(git -C "$g/blue" cat-file -p refs/catan/equivocation) == "$rec" ]] ||
		fail "$2: blue's record changed"
	git -C "$g/blue" update-ref -d refs/catan/quarantine/hub/red 2>/dev/null || true
}
z=$(sign_as "$g/red" red "$tree" "expel white" 0 "$fork" "$x" "$y")
forged "$z" "red expels white though blue acts next" "illegal action \"expel white\" by red"
z=$(sign_as "$g/red" red "$tree" "expel white" 0 "$fork")
forged "$z" "an expulsion without its proof" "an expulsion carries its proof"
red_move=$(git -C "$g/red" rev-parse "$fork~1") # (red's placement)
z=$(sign_as "$g/red" red "$tree" "expel white" 0 "$fork" "$x" "$red_move")
forged "$z" "a proof of two seats' commits" -
z=$(sign_as "$g/red" red "$tree" "expel blue" 0 "$fork" "$x" "$y")
forged "$z" "an expulsion of another seat than the proof's" -
# ... and where no child of the fork is among its parents, refused
z=$(sign_as "$g/red" red "$tree" "expel white" 0 "$fork" "$red_move" "$(git -C "$g/red" rev-parse "$fork~2")")
forged "$z" "a proof of commits off the fork" "an expulsion's last two parents must be two different children of one commit by the seat it expels"
# A shared repository with the host's hook (stock git push runs it):
# the forged expulsion is refused with its reason, the true one taken.
git init -q --bare "$g/hub2.git"
git -C "$g/blue" push -q "$g/hub2.git" 'refs/heads/*:refs/heads/*'
$catan host-hook install "$g/hub2.git" >/dev/null || fail "hook install"
z=$(sign_as "$g/red" red "$tree" "expel white" 0 "$fork" "$x" "$y")
git -C "$g/red" push -q "$g/hub.git" "$z:refs/heads/forged" 2>/dev/null
out=$(git -C "$g/red" push "$g/hub2.git" "$z:refs/heads/red" 2>&1) &&
	fail "hook: the forged expulsion was taken: $out"
grep -q "illegal action \"expel white\" by red" <<<"$out" || fail "hook: no reason: $out"
# blue's true expulsion goes on, at red too, and through the hook
$catan -C "$g/blue" act --as blue expel white >/dev/null || fail "blue cannot expel white"
out=$(git -C "$g/blue" push "$g/hub2.git" blue 2>&1) || fail "hook: the expulsion refused: $out"
out=$($catan -C "$g/red" sync blue 2>&1) || fail "red's sync of the expulsion: $out"
grep -q "adopted blue from blue" <<<"$out" || fail "red did not adopt the expulsion: $out"
records_agree $catan "$g" "after the expulsion"
# A second equivocation after the first expulsion: blue signs two
# placements, red meets both; the new proof replaces the record whose
# seat is out, red expels blue as well and, alone, wins.
cp -a "$g/blue" "$g/blue2"
fork2=$(git -C "$g/blue" rev-parse blue)
$catan -C "$g/blue" act --as blue "$($catan -C "$g/blue" legal --as blue | sed -n 1p)" >/dev/null
$catan -C "$g/blue2" act --as blue "$($catan -C "$g/blue2" legal --as blue | sed -n 2p)" >/dev/null
$catan -C "$g/red" remote add blue2 "$g/blue2"
$catan -C "$g/red" sync blue >/dev/null 2>&1
out=$($catan -C "$g/red" sync blue2 2>&1) || fail "second: red's sync: $out"
grep -q "equivocation: blue signed two different moves on ${fork2:0:10}" <<<"$out" ||
	fail "second: no verdict against blue: $out"
grep -q "red to expel blue" <<<"$out" || fail "second: red is not to expel blue: $out"
$catan -C "$g/red" act --as red expel blue >/dev/null || fail "second: red cannot expel blue"
grep -q '"winner": *"red"' <<<"$($catan -C "$g/red" show --json)" || fail "second: red did not win"
v=$($catan -C "$g/red" verify) || fail "second: verify: $v"
git -C "$g/red" fsck --strict >/dev/null 2>&1 || fail "second: fsck"
ok "forged expulsions (by red, whose turn it is not; without a proof; with a proof of two seats' commits or off the fork; of blue with white's proof) are refused by blue, which keeps its branches and record, and by the host's hook; blue's own expulsion passes the hook and is adopted by red; a second equivocation (blue's) replaces the record and red expels blue too, and wins"

# --- A fork among the discards of a 7: red rolls it with every seat
# holding more than 7 cards (manual dice), white signs two discards and
# shows one to each side; blue and red discard. The expulsion waits for
# them and merges them: its parents are red's and blue's discards, then
# white's two. Then red moves the robber and the game goes on.
g=$d/fan
trio_game $catan "$g" "$d" manual
syncall() { for p in red blue white; do $catan -C "$g/$p" sync >/dev/null 2>&1; done; }
whose() { $catan -C "$g/red" status | sed -n 's/^now: \([a-z]*\) to .*/\1/p'; }
for i in 1 2 3 4; do w=$(whose); $catan -C "$g/$w" step >/dev/null; syncall; done
for s in 6 8 5 9 4 10 3 11 6 8 5 9 4 10 3 11 2 12 6 8 5 9; do
	w=$(whose)
	a=$((s > 7 ? 6 : s - 1))
	$catan -C "$g/$w" act --as $w roll $a $((s - a)) >/dev/null
	$catan -C "$g/$w" act --as $w end >/dev/null
	syncall
done
[[ $(whose) == red ]] || fail "(setup) not red's roll"
$catan -C "$g/red" act --as red roll 3 4 >/dev/null
syncall
seven=$(git -C "$g/red" rev-parse red)
$catan -C "$g/red" status | grep -q "^now: red to discard 8, blue to discard 8, white to discard" ||
	fail "(setup) not every seat owes a discard: $($catan -C "$g/red" status)"
cp -a "$g/white" "$g/white2"
$catan -C "$g/white" act --as white "$($catan -C "$g/white" legal --as white | sed -n 1p)" >/dev/null
$catan -C "$g/white2" act --as white "$($catan -C "$g/white2" legal --as white | sed -n 2p)" >/dev/null
git -C "$g/red" remote set-url white "$g/white2"
$catan -C "$g/blue" sync white >/dev/null 2>&1
$catan -C "$g/red" sync white >/dev/null 2>&1
out=$($catan -C "$g/red" sync blue 2>&1)
grep -q "equivocation: white signed two different moves on ${seven:0:10}" <<<"$out" || fail "fan: no verdict: $out"
grep -q "^now: the game stopped at ${seven:0:10} (white signed two different moves there); white is expelled once the others' moves there are in: red to discard 8, blue to discard 8" <<<"$out" ||
	fail "fan: the others' discards are not asked for first: $out"
$catan -C "$g/red" act --as red expel white >/dev/null 2>&1 && fail "fan: expelled before the others discarded"
$catan -C "$g/blue" step >/dev/null || fail "fan: blue cannot discard on a stopped game"
$catan -C "$g/red" step >/dev/null || fail "fan: red cannot discard on a stopped game"
$catan -C "$g/red" sync blue >/dev/null 2>&1
$catan -C "$g/blue" sync origin >/dev/null 2>&1
$catan -C "$g/red" status | grep -q "red to expel white" || fail "fan: red is not to expel: $($catan -C "$g/red" status)"
$catan -C "$g/red" act --as red expel white >/dev/null || fail "fan: red cannot expel white"
z=$(git -C "$g/red" rev-parse red)
ps=($(git -C "$g/red" log -1 --format=%P "$z"))
[[ ${#ps[@]} == 4 ]] || fail "fan: the expulsion has ${#ps[@]} parents, not red's and blue's discards and the two children"
for i in 0 1; do
	[[ $(git -C "$g/red" log -1 --format='%an %s' "${ps[$i]}") == "$(sed -n "$((i + 1))p" <<<"red discard
blue discard")"* ]] || fail "fan: parent $((i + 1)) is not a discard in player order"
	[[ $(git -C "$g/red" rev-parse "${ps[$i]}~1") == "$seven" ]] || fail "fan: a discard not on the 7"
done
out=$($catan -C "$g/blue" sync origin 2>&1)
grep -q "adopted red from origin" <<<"$out" || fail "fan: blue did not adopt the expulsion: $out"
for p in red blue; do
	$catan -C "$g/$p" status | grep -q "^now: red to move the robber" ||
		fail "fan: $p does not go on to the robber: $($catan -C "$g/$p" status)"
done
for i in 1 2 3 4 5 6; do w=$(whose); $catan -C "$g/$w" step >/dev/null 2>&1 || true; syncall; done
records_agree $catan "$g" "fan"
[[ $(git -C "$g/red" rev-list --count "$z..red") -gt 1 ]] || fail "fan: nobody played on"
[[ $(git_verify_all "$g/red" red blue) -gt 60 ]] || fail "fan: stock git checked too little"
ok "a fork among the discards of a 7: the expulsion waits for red's and blue's discards, merges them (player order) with white's two, red moves the robber and the game goes on; same tips, records and verify at red and blue, git verify-commit on every commit"

# After the expulsion white serves a proof of an earlier fork of its own
# (a second child of the commit its first placement built on): the
# expulsion settles every fork of white, so nothing moves back; and a
# hooked hub refuses any move of white's branch.
before=$($catan -C "$g/red" show --json)
C=$(git -C "$g/red" log --format='%H %an' --reverse red | awk '$2 == "white" { print $1; exit }')
P0=$(git -C "$g/red" rev-parse "$C~1")
cp -a "$g/white" "$g/w0"
git -C "$g/w0" fetch -q "$g/red" red
for r in refs/catan/equivocation refs/catan/equivocation-a refs/catan/equivocation-b; do
	git -C "$g/w0" update-ref -d $r 2>/dev/null || true
done
for b in red blue white; do
	l=$(git -C "$g/red" log --format='%H %an' "$P0" | awk -v b=$b '$2 == b { print $1; exit }')
	[[ -n $l ]] || l=$(git -C "$g/red" rev-list --max-parents=0 "$P0")
	git -C "$g/w0" update-ref refs/heads/$b "$l"
done
git -C "$g/w0" reflog expire --expire=now --all
c0=$(git -C "$g/red" log -1 --format=%s "$C")
$catan -C "$g/w0" act --as white "$($catan -C "$g/w0" legal --as white | grep -vx "$c0" | sed -n 1p)" >/dev/null ||
	fail "(setup) white's second child of an earlier commit"
C2=$(git -C "$g/w0" rev-parse white)
git -C "$g/white" fetch -q "$g/w0" "$C2"
git -C "$g/white" update-ref refs/catan/equivocation-a "$C"
git -C "$g/white" update-ref refs/catan/equivocation-b "$C2"
for p in red blue; do
	out=$($catan -C "$g/$p" sync white 2>&1) || fail "earlier fork: $p's sync: $out"
	grep -q "moved [a-z]* back" <<<"$out" && fail "earlier fork: $p moved back: $out"
	[[ $($catan -C "$g/$p" show --json) == "$before" ]] || fail "earlier fork: $p's game changed"
	$catan -C "$g/$p" verify >/dev/null || fail "earlier fork: verify at $p"
done
git init -q --bare "$g/hub.git"
git -C "$g/red" push -q "$g/hub.git" 'refs/heads/*:refs/heads/*'
$catan host-hook install "$g/hub.git" >/dev/null
out=$(git -C "$g/white2" push "$g/hub.git" +white:refs/heads/white 2>&1) &&
	fail "the hub took a move of white's branch after its expulsion: $out"
grep -q "white was expelled" <<<"$out" || fail "hub: no reason: $out"
ok "after the expulsion: a proof of an earlier fork of white's changes nothing (no branch moves back, the same state, verify passes), and a hooked hub refuses to move white's branch"

# --- A fork among the reveals of a fair roll: red asks for its roll,
# white signs two reveals (a second apart) and shows one to each side,
# blue reveals. Red expels white on blue's reveal with white's two, then
# completes its roll from its own and blue's secrets (white's last value
# stays in the tree, public and fixed).
g=$d/reveal
trio_game $catan "$g" "$d" fair
syncall() { for p in red blue white; do $catan -C "$g/$p" sync >/dev/null 2>&1; done; }
# (red's step places and asks for its roll at once)
for i in 1 2 3; do w=$(whose); [[ -n $w ]] || break; $catan -C "$g/$w" step >/dev/null; syncall; done
$catan -C "$g/red" status | grep -q "^now: blue, white to reveal a secret for red's roll" ||
	fail "(setup) reveal: no request of red's: $($catan -C "$g/red" status)"
request=$(git -C "$g/red" rev-parse red)
cp -a "$g/white" "$g/white2"
$catan -C "$g/white" act --as white reveal >/dev/null || fail "reveal: white's first reveal"
sleep 1.1
$catan -C "$g/white2" act --as white reveal >/dev/null || fail "reveal: white's second reveal"
[[ $(git -C "$g/white" rev-parse white) != $(git -C "$g/white2" rev-parse white) ]] ||
	fail "(setup) reveal: white's two reveals are one commit"
$catan -C "$g/blue" act --as blue reveal >/dev/null || fail "reveal: blue's reveal"
git -C "$g/red" remote set-url white "$g/white2"
$catan -C "$g/blue" sync white >/dev/null 2>&1
$catan -C "$g/red" sync white >/dev/null 2>&1
$catan -C "$g/red" sync blue >/dev/null 2>&1
$catan -C "$g/blue" sync origin >/dev/null 2>&1
$catan -C "$g/red" status | grep -q "the game stopped at ${request:0:10} .*red to expel white" ||
	fail "reveal: red is not to expel white: $($catan -C "$g/red" status)"
$catan -C "$g/red" act --as red expel white >/dev/null || fail "reveal: red cannot expel white"
z=$(git -C "$g/red" rev-parse red)
[[ $(git -C "$g/red" log -1 --format='%P' "$z" | wc -w) == 3 ]] || fail "reveal: not blue's reveal and the proof"
git -C "$g/red" log -1 --format='%P' "$z" | grep -q "^$(git -C "$g/blue" rev-parse blue) " ||
	fail "reveal: the expulsion does not rest on blue's reveal"
out=$($catan -C "$g/red" act --as red roll 2>&1) || fail "reveal: red cannot complete its roll: $out"
[[ $(git -C "$g/red" log -1 --format=%s red) =~ ^roll\ [1-6]\ [1-6]$ ]] ||
	fail "reveal: no outcome: $out"
out=$($catan -C "$g/blue" sync origin 2>&1)
grep -q "adopted red from origin" <<<"$out" || fail "reveal: blue did not adopt: $out"
for i in 1 2 3 4 5 6; do
	for p in red blue; do $catan -C "$g/$p" step >/dev/null 2>&1 || true; done
	syncall
done
records_agree $catan "$g" "reveal"
[[ $(git_verify_all "$g/red" red blue) -gt 15 ]] || fail "reveal: stock git checked too little"
ok "a fork among the reveals of a fair roll: red expels white on blue's reveal and white's two, completes its roll from red's and blue's secrets, blue adopts it and the game goes on; same tips, records and verify at both"

# --- Two expulsions signed by the expeller: blue expels white twice
# (the proof's children in either order). Red meets both: the game stops
# for good at the fork (blue signed two different expulsions), nobody
# may act, white included, and verify passes.
g=$d/twins
recorded_fork "$g"
fork=$(git -C "$g/white" rev-parse white~1)
x=$(git -C "$g/blue" rev-parse refs/catan/equivocation-a)
y=$(git -C "$g/blue" rev-parse refs/catan/equivocation-b)
cp -a "$g/blue" "$g/blue2"
$catan -C "$g/blue" act --as blue expel white >/dev/null || fail "twins: blue cannot expel white"
z1=$(git -C "$g/blue" rev-parse blue)
git -C "$g/blue2" fetch -q "$g/blue" "$z1"
z2=$(sign_as "$g/blue2" blue "$(git -C "$g/blue" rev-parse "$z1^{tree}")" "expel white" 0 "$fork" "$y" "$x")
git -C "$g/blue2" update-ref refs/heads/blue "$z2"
$catan -C "$g/red" remote add blue2 "$g/blue2"
$catan -C "$g/red" sync blue >/dev/null 2>&1
out=$($catan -C "$g/red" sync blue2 2>&1) || fail "twins: red's sync: $out"
grep -q "^now: the game stopped at ${fork:0:10} (blue signed two different expulsions there); nobody moves on" <<<"$out" ||
	fail "twins: the game does not stop for good: $out"
for p in red white blue; do
	out=$($catan -C "$g/red" act --as $p "$($catan -C "$g/red" legal --as $p 2>/dev/null | sed -n 1p)" 2>&1) &&
		fail "twins: $p acted: $out"
done
$catan -C "$g/red" verify >/dev/null || fail "twins: verify at red"
out=$($catan -C "$g/red" sync 2>&1)
grep -q "blue signed two different expulsions" <<<"$out" || fail "twins: a later sync forgets the stop: $out"
ok "two expulsions signed by the expeller: the game stops for good at the fork, nobody acts (the equivocator included), the stop holds at later syncs, verify passes"

# An unsigned or unstopped game: nobody is to be expelled.
g=$d/nothing
trio_game $catan "$g" "$d" seeded
out=$($catan -C "$g/white" act --as white expel red 2>&1) && fail "an expulsion without an equivocation: $out"
grep -q "nobody is to be expelled" <<<"$out" || fail "no reason: $out"
[[ -z $($catan -C "$g/white" legal --as white | grep expel) ]] || fail "legal lists an expulsion"
ok "without an equivocation nobody is expelled: catan act refuses, legal lists none"

echo "$n passed"
