#!/usr/bin/env bash
# Equivocation in a signed game (spec/replication.md, "Equivocation"):
# white signs two different moves on one commit and shows one to red and
# the other to blue. Once red and blue sync with each other, both hold the
# same verdict (white, the commit, both moves), the same tips of the honest
# players' branches, neither blames the other (the relayer), and the game
# stops there: no one can act on. A host that signs two starts of one
# lobby is caught the same way, the genesis being the parent of both
# (however they are met). Of three or more children every peer that has
# seen them all records the same pair. An unsigned game keeps calling a fork a
# rewritten history from whoever relayed it (the hole signatures close).
# Usage: test_equivocation.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp

for p in red blue white; do $catan key new "$d/key_$p" >/dev/null 2>&1; done

# game DIR [signed]: red hosts, blue and white join; full mesh of paths.
game() {
	local g=$1 sign=()
	mkdir -p "$g"
	[[ ${2:-} == signed ]] && sign=(--key "$d/key_red"
		--seat blue="$d/key_blue.pub" --seat white="$d/key_white.pub")
	$catan new "$g/red" --players red,blue,white --me red --seed 4 \
		"${sign[@]}" >/dev/null 2>&1
	for p in blue white; do
		local k=()
		[[ ${2:-} == signed ]] && k=(--key "$d/key_$p")
		$catan join "$g/red" "$g/$p" --as $p "${k[@]}" >/dev/null
	done
	for p in red blue white; do
		for q in red blue white; do
			[[ $p == "$q" || ($p != red && $q == red) ]] && continue
			$catan -C "$g/$p" remote add $q "$g/$q"
		done
	done
	# red and blue place; white's turn
	$catan -C "$g/red" step >/dev/null
	for p in blue white; do $catan -C "$g/$p" sync >/dev/null; done
	$catan -C "$g/blue" step >/dev/null
	for p in red white; do $catan -C "$g/$p" sync >/dev/null; done
	# white's first placement: white shows X (and its second placement on
	# it) to blue and Y to red (red's "white" is a copy of it); blue then
	# places its second settlement on the X side
	cp -a "$g/white" "$g/white2"
	cp -a "$g/white" "$g/white3" # (a third move, for the three-children case)
	x=$($catan -C "$g/white" legal --as white | sed -n 1p)
	y=$($catan -C "$g/white2" legal --as white | sed -n 2p)
	$catan -C "$g/white" act --as white $x >/dev/null
	$catan -C "$g/white" step >/dev/null
	$catan -C "$g/white2" act --as white $y >/dev/null
	git -C "$g/red" remote set-url white "$g/white2"
	$catan -C "$g/red" sync white >/dev/null
	$catan -C "$g/blue" sync white >/dev/null
	[[ $(git -C "$g/red" rev-parse white) != $(git -C "$g/blue" rev-parse white) ]] ||
		fail "the two sides are the same"
	blue_before=$(git -C "$g/blue" rev-parse blue)
	$catan -C "$g/blue" step >/dev/null
}

g=$d/signed
game "$g" signed
fork=$(git -C "$g/red" rev-parse white~1)



out_r=$($catan -C "$g/red" sync blue 2>&1) || fail "red's sync failed: $out_r"
out_b=$($catan -C "$g/blue" sync origin 2>&1) || fail "blue's sync failed: $out_b"
for out in "$out_r" "$out_b"; do
	grep -q "equivocation: white signed two different moves on ${fork:0:10}" <<<"$out" ||
		fail "no verdict: $out"
	grep -q "rejected [a-z]* from" <<<"$out" && fail "a relayer was blamed: $out"
done
for p in red blue; do
	git -C "$g/$p" for-each-ref refs/catan/quarantine | grep -q . &&
		fail "$p quarantined a relayer"
	v=$($catan -C "$g/$p" verify) || fail "verify at $p: $v"
	grep -q "^ok: " <<<"$v" || fail "verify at $p: $v"
	grep -q "^stopped: white signed two different moves on ${fork:0:10}" <<<"$v" ||
		fail "verify at $p does not say it stopped: $v"
	git -C "$g/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
done
[[ $(git -C "$g/red" cat-file -p refs/catan/equivocation) == \
	$(git -C "$g/blue" cat-file -p refs/catan/equivocation) ]] || fail "verdicts differ"
for b in red blue; do
	[[ $(git -C "$g/red" rev-parse $b) == $(git -C "$g/blue" rev-parse $b) ]] ||
		fail "tips of $b differ"
done
[[ $(git -C "$g/blue" rev-parse blue) == "$blue_before" ]] ||
	fail "blue's move on the voided side was not undone"
grep -q "moved blue back to ${blue_before:0:10}" <<<"$out_b" || fail "rewind not said: $out_b"
ok "white signs two moves on one commit, one shown to red and one to blue, and blue plays on its side: after red and blue sync with each other both hold the same verdict (white, the commit, both moves) and the same tips (blue's move on the voided side undone, kept in its reflog), and neither blames the other"

out=$($catan -C "$g/red" act --as red end 2>&1 || true)
grep -q "the game stopped at ${fork:0:10}: white signed two different moves" <<<"$out" ||
	fail "red may act on: $out"
# a third sync changes nothing and finds nothing new to blame
out=$($catan -C "$g/blue" sync 2>&1) || fail "sync after the verdict: $out"
grep -q "rejected [a-z]* from" <<<"$out" && fail "after the verdict: $out"
grep -q "^now: the game stopped at ${fork:0:10} (white signed two different moves there); blue to expel white, then the game goes on" <<<"$out" ||
	fail "sync does not say who expels white: $out"
$catan -C "$g/red" status | grep -q "^now: the game stopped at ${fork:0:10}" ||
	fail "catan status does not say the game stopped"
$catan -C "$g/blue" status | grep -q "(your move: catan act expel white)" ||
	fail "catan status does not tell blue to expel white"
# legal lists nothing for red (act would refuse each) and says why, and
# for blue only the expulsion; a peer with a bot of a seat that does not
# expel says it once and tries no move.
[[ -z $($catan -C "$g/red" legal --as red 2>$d/legal.err) ]] || fail "legal lists moves of a stopped game"
grep -q "nothing to do now: the game stopped at ${fork:0:10}" $d/legal.err ||
	fail "legal does not say the game stopped: $(cat $d/legal.err)"
[[ $($catan -C "$g/blue" legal --as blue) == "expel white" ]] ||
	fail "legal of blue: $($catan -C "$g/blue" legal --as blue)"
[[ -z $($catan -C "$g/blue" legal --as white 2>/dev/null) ]] || fail "legal lists moves of the equivocator"
timeout 3 $catan -C "$g/red" peer --bot greedy --interval 0.3 >$d/peer.out 2>$d/peer.err || true
grep -q "^waiting: the game stopped at ${fork:0:10}" $d/peer.out || fail "peer: $(cat $d/peer.out)"
grep -q "catan peer:" $d/peer.err && fail "the peer tried to move: $(cat $d/peer.err)"
out=$($catan -C "$g/red" act --as red expel white 2>&1) && fail "red expelled white out of turn: $out"
grep -q "blue goes on without it: catan act expel white --as blue" <<<"$out" ||
	fail "the refusal does not say who expels: $out"
# Both show the game where it stopped (red's and blue's branches of
# white hold one child each).
for p in red blue; do
	grep -q "^commit $fork," <<<"$($catan -C "$g/$p" show)" || fail "$p does not show the game at the fork"
	$catan -C "$g/$p" log | tail -n 1 | grep -q "^${fork:0:10} " || fail "$p's log does not end at the fork"
done
[[ $($catan -C "$g/red" log) == $($catan -C "$g/blue" log) ]] || fail "red and blue log different histories"
# A revision past the fork still names what the branches hold.
y=$(git -C "$g/red" rev-parse white)
grep -q "^${y:0:10} " <<<"$($catan -C "$g/red" log "white~1..white")" || fail "log of the voided child: nothing"
$catan render "$g/red" white --out "$d/child.png" >/dev/null 2>&1 || fail "render of the voided child"
ok "the game stops at the fork: acting is refused, naming white and both moves; sync, status, legal and peer say that blue is to expel white, show and the window show the fork; later syncs blame nobody"

# Blue expels white: a merge of the fork's parent and both children (its
# proof), signed by blue. Red, which holds the other child, adopts it;
# both then stand white's branch at its last move before the fork, and
# red and blue play on without white to a winner. Every commit verifies
# at both, with catan and with stock git.
exp_out=$($catan -C "$g/blue" act --as blue expel white 2>&1) || fail "blue cannot expel white: $exp_out"
z=$(git -C "$g/blue" rev-parse blue)
[[ $(git -C "$g/blue" log -1 --format=%s "$z") == "expel white" ]] || fail "no expel commit"
[[ $(git -C "$g/blue" log -1 --format=%P "$z" | wc -w) == 3 ]] || fail "the expulsion does not carry its proof"
git -C "$g/blue" log -1 --format=%P "$z" | grep -q "^$fork " || fail "the expulsion does not rest on the fork"
out=$($catan -C "$g/red" sync blue 2>&1) || fail "red's sync of the expulsion: $out"
grep -q "adopted blue from blue" <<<"$out" || fail "red did not adopt the expulsion: $out"
grep -q "rejected [a-z]* from" <<<"$out" && fail "red rejected something: $out"
# (white's first move was the one it forked: it stands at the genesis)
genesis=$(git -C "$g/red" rev-list --max-parents=0 red)
grep -q "moved white to ${genesis:0:10}, its last move before it equivocated: it was expelled" <<<"$out" ||
	fail "red does not say where white's branch stands: $out"
[[ $(git -C "$g/red" rev-parse blue) == "$z" ]] || fail "red's blue is not at the expulsion"
$catan -C "$g/blue" sync >/dev/null 2>&1 || fail "blue's sync after the expulsion"
for p in red blue; do
	[[ $(git -C "$g/$p" rev-parse white) == "$genesis" ]] ||
		fail "$p's white is not at its last move before the fork"
	$catan -C "$g/$p" status | grep -q "^now: blue to place a settlement and road" ||
		fail "the game does not go on at $p: $($catan -C "$g/$p" status)"
	v=$($catan -C "$g/$p" verify) || fail "verify at $p after the expulsion: $v"
done
for b in red blue white; do
	[[ $(git -C "$g/red" rev-parse $b) == $(git -C "$g/blue" rev-parse $b) ]] ||
		fail "after the expulsion, tips of $b differ"
done
out=$($catan -C "$g/red" act --as white end 2>&1) && fail "white acted after its expulsion: $out"
# (three rounds: fair rolls now need red's and blue's secrets only)
for i in $(seq 1 200); do
	$catan -C "$g/red" status | grep -q "^at: commit [0-9a-f]*, turn 7," && break
	for p in red blue; do
		$catan -C "$g/$p" step >/dev/null 2>&1 || true
		$catan -C "$g/$p" sync >/dev/null 2>&1 || fail "sync at $p while playing on"
	done
done
$catan -C "$g/red" status | grep -q "^at: commit [0-9a-f]*, turn 7," ||
	fail "red and blue did not play on: $($catan -C "$g/red" status)"
grep -q "^roll [1-6] [1-6]$" <<<"$(git -C "$g/red" log --format=%s red)" || fail "no fair roll after the expulsion"
for p in red blue; do
	v=$($catan -C "$g/$p" verify) || fail "verify at $p after the game: $v"
	grep -q "^ok: " <<<"$v" || fail "verify at $p after the game: $v"
	git -C "$g/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p after the game"
done
for b in red blue white; do
	[[ $(git -C "$g/red" rev-parse $b) == $(git -C "$g/blue" rev-parse $b) ]] ||
		fail "after the game, tips of $b differ"
done
ok "blue expels white (a merge of the fork and both children, signed): red adopts it, both stand white's branch at its last move before the fork, white may not act, and red and blue play on (fair rolls from their two secrets) with the same tips; verify and fsck pass at both"

# Three children: white also signs a third move Z, which both red and
# blue fetch. Red then proves {Y,Z} and blue {X,Z}; once they sync with
# each other each has seen all three and records the two smallest ids.
g=$d/three
game "$g" signed
fork=$(git -C "$g/red" rev-parse white~1)
z=$($catan -C "$g/white3" legal --as white | sed -n 3p)
$catan -C "$g/white3" act --as white $z >/dev/null
kids=$(for c in "$g/white" "$g/white2" "$g/white3"; do
	git -C "$c" log --first-parent --format=%H white | grep -B1 "^$fork" | head -1
done | sort | head -2)
for p in red blue; do
	$catan -C "$g/$p" remote add white3 "$g/white3"
	$catan -C "$g/$p" sync white3 >/dev/null 2>&1 || true
done
[[ $(git -C "$g/red" cat-file -p refs/catan/equivocation) != \
	$(git -C "$g/blue" cat-file -p refs/catan/equivocation) ]] ||
	fail "(setup) red and blue hold one record before they sync"
$catan -C "$g/red" sync blue >/dev/null 2>&1 || fail "red's sync with blue"
$catan -C "$g/blue" sync origin >/dev/null 2>&1 || fail "blue's sync with red"
vr=$(git -C "$g/red" cat-file -p refs/catan/equivocation)
[[ $vr == "$(git -C "$g/blue" cat-file -p refs/catan/equivocation)" ]] ||
	fail "three children: the records differ: $vr"
[[ $(sed -n 's/^commit //p' <<<"$vr") == "$kids" ]] ||
	fail "three children: the record does not name the two smallest: $vr"
for b in red blue; do
	[[ $(git -C "$g/red" rev-parse $b) == $(git -C "$g/blue" rev-parse $b) ]] ||
		fail "three children: tips of $b differ"
done
for p in red blue; do
	v=$($catan -C "$g/$p" verify) || fail "verify at $p: $v"
	git -C "$g/$p" for-each-ref refs/catan/quarantine | grep -q . &&
		fail "three children: $p quarantined a relayer"
done
ok "white signs three moves on one commit, red and blue each prove a different pair: once they sync with each other both record the same two children (the smallest ids), blame nobody and hold the same tips"

# The host equivocates before the game begins: two starts of one lobby.
# Red leaves blue's seat open and keeps two copies of its repository, one
# pushing to hub1, one to hub2; blue joins through hub1, eve (as blue)
# through hub2; each copy starts the game with the claim it saw, and both
# sides play on. Once blue and eve fetch the other hub, both record the
# same proof against red, parent the genesis (two starts are two children
# of it, whatever claims they merge), undo their moves and cannot act.
g=$d/starts
mkdir -p "$g"
$catan key new "$d/key_eve" >/dev/null 2>&1
git init -q --bare "$g/hub1.git"
git init -q --bare "$g/hub2.git"
$catan new "$g/red" --players red,blue --me red --seed 5 --dice seeded \
	--key "$d/key_red" --open blue >/dev/null
genesis=$(git -C "$g/red" rev-parse red)
cp -a "$g/red" "$g/red2"
$catan -C "$g/red" remote add hub1 "$g/hub1.git" --push
$catan -C "$g/red2" remote add hub2 "$g/hub2.git" --push
for r in red red2; do $catan -C "$g/$r" sync >/dev/null; done
$catan join "$g/hub1.git" "$g/blue" --as blue --key "$d/key_blue" >/dev/null
$catan join "$g/hub2.git" "$g/eve" --as blue --key "$d/key_eve" >/dev/null
for j in blue eve; do
	$catan -C "$g/$j" remote push origin
	$catan -C "$g/$j" sync >/dev/null
done
for r in red red2; do
	$catan -C "$g/$r" sync | grep -q "started the game" || fail "$r did not start"
	$catan -C "$g/$r" step >/dev/null
	$catan -C "$g/$r" sync >/dev/null
done
start_of() { git -C "$1" log --first-parent --format='%H %s' red | awk '$2 == "start" { print $1 }'; }
s1=$(start_of "$g/red")
s2=$(start_of "$g/red2")
[[ -n $s1 && -n $s2 && $s1 != "$s2" ]] || fail "no two starts"
for j in blue eve; do
	$catan -C "$g/$j" sync >/dev/null
	claim=$(git -C "$g/$j" rev-parse blue)
	$catan -C "$g/$j" step >/dev/null
	$catan -C "$g/$j" sync >/dev/null
	eval "claim_$j=$claim"
done
$catan -C "$g/blue" remote add hub2 "$g/hub2.git"
$catan -C "$g/eve" remote add hub1 "$g/hub1.git"
out_b=$($catan -C "$g/blue" sync hub2 2>&1 || true)
out_e=$($catan -C "$g/eve" sync hub1 2>&1 || true)
for out in "$out_b" "$out_e"; do
	grep -q "equivocation: red signed two different moves on ${genesis:0:10}" <<<"$out" ||
		fail "no verdict on the two starts: $out"
	grep -q "rejected red from" <<<"$out" && fail "a relayer of red's starts was blamed: $out"
done
[[ $(git -C "$g/blue" cat-file -p refs/catan/equivocation) == \
	$(git -C "$g/eve" cat-file -p refs/catan/equivocation) ]] || fail "verdicts on the starts differ"
git -C "$g/blue" cat-file -p refs/catan/equivocation | grep -q "^parent $genesis" ||
	fail "the verdict's parent is not the genesis"
for j in blue eve; do
	eval "want=\$claim_$j"
	[[ $(git -C "$g/$j" rev-parse blue) == "$want" ]] || fail "$j's move after its start stays"
	v=$($catan -C "$g/$j" verify) || fail "verify at $j: $v"
	grep -q "^stopped: red signed two different moves on ${genesis:0:10}" <<<"$v" ||
		fail "verify at $j does not say it stopped: $v"
	out=$($catan -C "$g/$j" act --as blue end 2>&1 || true)
	grep -q "the game stopped at ${genesis:0:10}: red signed" <<<"$out" ||
		fail "$j may act on: $out"
	# (the game never began: nobody is expelled from it)
	grep -q "^now: the game stopped at ${genesis:0:10} (red signed two different moves there); nobody moves on" \
		<<<"$($catan -C "$g/$j" status)" || fail "$j: status: $($catan -C "$g/$j" status)"
	out=$($catan -C "$g/$j" act --as blue expel red 2>&1) && fail "$j expelled the host: $out"
	[[ -z $($catan -C "$g/$j" legal --as blue 2>/dev/null) ]] || fail "$j: legal lists moves"
	git -C "$g/$j" for-each-ref "refs/catan/quarantine/*/red" | grep -q . &&
		fail "$j quarantined red's branch of a relayer"
	git -C "$g/$j" fsck --strict >/dev/null 2>&1 || fail "fsck at $j"
done
ok "the host signs two starts of one lobby (each merging another joiner's claim) and shows one to each side: both sides record the same proof against it, parent the genesis, undo what they built on their start, blame no relayer, and cannot act (nobody is expelled from a game that never began)"

# Two starts merging the same claim, met in the verification of another
# seat's move: red, white (bound at genesis) and blue (open). Blue's claim
# reaches both of red's copies, each starts (two commits, one tree); red2
# and white play on the second start; a relay that holds white's branch
# only (hub3) shows blue white's move. The proof is the same: parent the
# genesis, not the claim both starts merge.
g=$d/starts2
mkdir -p "$g"
for h in hub1 hub2 hub3; do git init -q --bare "$g/$h.git"; done
$catan new "$g/red" --players red,white,blue --me red --seed 5 --dice seeded \
	--key "$d/key_red" --open blue --seat white="$d/key_white.pub" >/dev/null
genesis=$(git -C "$g/red" rev-parse red)
cp -a "$g/red" "$g/red2"
$catan -C "$g/red" remote add hub1 "$g/hub1.git" --push
$catan -C "$g/red2" remote add hub2 "$g/hub2.git" --push
for r in red red2; do $catan -C "$g/$r" sync >/dev/null; done
$catan join "$g/hub1.git" "$g/blue" --as blue --key "$d/key_blue" >/dev/null
$catan -C "$g/blue" remote push origin
git -C "$g/blue" push -q "$g/hub2.git" blue
$catan -C "$g/blue" sync >/dev/null
$catan -C "$g/red" sync | grep -q "started the game" || fail "red did not start"
sleep 1 # (a second start, not the same commit)
$catan -C "$g/red2" sync | grep -q "started the game" || fail "red2 did not start"
$catan join "$g/hub2.git" "$g/white" --as white --key "$d/key_white" >/dev/null
for r in red red2; do
	$catan -C "$g/$r" step >/dev/null
	$catan -C "$g/$r" sync >/dev/null
done
$catan -C "$g/white" sync >/dev/null
$catan -C "$g/white" step >/dev/null
git -C "$g/white" push -q "$g/hub3.git" white
$catan -C "$g/blue" sync >/dev/null
[[ $(git -C "$g/blue" rev-parse white) == "$genesis" ]] || fail "white moved at blue"
$catan -C "$g/blue" remote add hub3 "$g/hub3.git"
out=$($catan -C "$g/blue" sync hub3 2>&1) || fail "blue's sync with hub3: $out"
grep -q "equivocation: red signed two different moves on ${genesis:0:10}" <<<"$out" ||
	fail "no verdict on two starts of one claim: $out"
git -C "$g/blue" cat-file -p refs/catan/equivocation | grep -q "^parent $genesis" ||
	fail "the verdict's parent is not the genesis: $(git -C "$g/blue" cat-file -p refs/catan/equivocation)"
[[ $(git -C "$g/blue" rev-parse white) == "$genesis" ]] || fail "white's move on the second start adopted"
v=$($catan -C "$g/blue" verify) || fail "verify at blue: $v"
git -C "$g/blue" for-each-ref refs/catan/quarantine | grep -q . && fail "blue blamed the relay"
ok "two starts merging the same claim, the second met under another seat's move from a relay that holds only that seat's branch: the same proof, parent the genesis, nothing adopted, no relay blamed"

# The same in an unsigned game: no proof, the relayer is blamed.
g=$d/unsigned
game "$g"
out=$($catan -C "$g/red" sync blue 2>&1 || true)
grep -q "rejected white from blue: history rewritten" <<<"$out" ||
	fail "unsigned: $out"
ok "without signatures the same fork is a rewritten history blamed on the relayer (blue)"
