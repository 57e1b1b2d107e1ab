#!/usr/bin/env bash
# The lobby (spec/replication.md, "Keys and signatures"): a signed game
# whose host leaves two seats open (catan new --open); two friends who
# never exchanged keys join with fresh keys (each joiner's claim presents
# its key, signed by it), the host's sync starts the game (a merge of the
# claims whose game/signers binds every seat), and they play. On the way,
# misbehaviour pushed with stock git to the shared repository is refused
# by name and quarantined: an action before the start, a claim for a
# bound seat, a claim not signed by the key it presents, a second key for
# a claimed seat (before and after the start), a start by a non-host, a
# start that changes a bound key. Stock git checks every commit of the
# game with the final game/signers.
# Usage: test_lobby.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
players=(red blue white)
d=$tmp

for k in red blue white eve mallory; do
	$catan key new "$d/key_$k" >/dev/null 2>&1
done
fp() { ssh-keygen -l -f "$d/key_$1.pub" | cut -d' ' -f2; }

refused() { # WANT COMMAND...: the command fails saying WANT
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then fail "accepted: $*"; fi
	grep -q -- "$want" <<<"$out" || fail "$*: $out"
}

git init -q --bare "$d/hub.git"
$catan new "$d/red" --players red,blue,white --me red --seed 5 --dice seeded \
	--key "$d/key_red" --open blue --open white | grep -q signed ||
	fail "new with open seats"
$catan -C "$d/red" remote add hub "$d/hub.git" --push
$catan -C "$d/red" sync | grep -q "pushed red to hub" || fail "first push"
genesis=$(git -C "$d/red" rev-parse red)
[[ $(git -C "$d/red" show red:game/open) == $'blue\nwhite' ]] || fail "game/open"
[[ $(git -C "$d/red" show red:game/signers | wc -l) == 1 ]] || fail "genesis signers"
grep -q "waits for seats blue, white to be claimed" <<<"$($catan -C "$d/red" show)" ||
	fail "show does not say the game waits"
refused "has not started: it waits for seats blue, white" \
	$catan -C "$d/red" act --as red "$($catan -C "$d/red" legal --as red | head -1)"
$catan -C "$d/red" key list | grep -q "^blue open" || fail "key list: blue not open"
$catan -C "$d/red" step >/dev/null || fail "catan step before the start"
[[ $(git -C "$d/red" rev-parse red) == "$genesis" ]] || fail "a step acted before the start"
refused "open PLAYER\|first seat\|seat is yours" $catan new "$d/x" \
	--players red,blue --me red --key "$d/key_red" --open red
refused "already" $catan new "$d/y" --players red,blue --me red \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" --open blue
ok "catan new --open: the genesis lists the open seats (game/open) and binds the host's key only; nobody acts before the start"

# A seat bound to another key is not joined with yours: the join says
# whose seat it is and which are open, and keeps nothing.
refused "key_eve is not red's: seat red is bound to another key; open seats: blue, white" \
	$catan join "$d/hub.git" "$d/eve0" --as red --key "$d/key_eve"
[[ ! -e $d/eve0 ]] || fail "a refused join left $d/eve0 behind"
ok "a join with a key that is not the seat's is refused, saying whose seat it is and which are open, and leaves no directory"

# Refusal checks: a branch of the hub moved by stock git, then a peer's
# sync must refuse it naming the player, the commit and the reason, keep
# a quarantine record, and adopt nothing.
expect_refusal() { # PEER PLAYER COMMIT WANT
	local peer=$1 player=$2 c=$3 want=$4 out before
	before=$(git -C "$d/$peer" rev-parse "$player")
	out=$($catan -C "$d/$peer" sync 2>&1 || true)
	grep -q "$player" <<<"$out" && grep -q "${c:0:10}" <<<"$out" &&
		grep -q -- "$want" <<<"$out" || fail "$peer on $player ${c:0:10}: want \"$want\": $out"
	[[ $(git -C "$d/$peer" rev-parse "$player") == "$before" ]] ||
		fail "$peer adopted $player ${c:0:10}"
	git -C "$d/$peer" for-each-ref "refs/catan/quarantine/*/$player" | grep -q . ||
		fail "$peer did not quarantine $player"
	$catan -C "$d/$peer" verify >/dev/null || fail "$peer broken by $want"
	last_out=$out
}
# at_hub PEER PLAYER COMMIT WANT THEN: the hub's branch of PLAYER moved
# to COMMIT with stock git, refused by PEER's sync (expect_refusal), then
# moved to THEN.
at_hub() {
	git -C "$d/hub.git" update-ref "refs/heads/$2" "$3"
	expect_refusal "$1" "$2" "$3" "$4"
	git -C "$d/hub.git" update-ref "refs/heads/$2" "$5"
}

# commit_as PLAYER KEY TREE SUBJECT TURN PARENT...: a commit as catan
# writes it, signed with KEY by stock git (in the repository $forge).
forge=$d/hub.git
commit_as() {
	local who=$1 key=$2 tree=$3 subject=$4 turn=$5
	shift 5
	local ps=() p
	for p in "$@"; do ps+=(-p "$p"); done
	printf '%s\n\nPlayer: %s\nTurn: %s\n' "$subject" "$who" "$turn" |
		GIT_AUTHOR_NAME=$who GIT_AUTHOR_EMAIL=$who@catan \
			GIT_COMMITTER_NAME=$who GIT_COMMITTER_EMAIL=$who@catan \
			GIT_AUTHOR_DATE="1795000000 +0000" \
			GIT_COMMITTER_DATE="1795000000 +0000" \
			git -C "$forge" -c gpg.format=ssh \
			-c user.signingkey="$d/key_$key" commit-tree -S "$tree" "${ps[@]}"
}
# game_tree SIGNERS_LINES OPEN_LINES: the genesis tree with that game/.
game_tree() {
	local signers open gt entries
	signers=$(printf '%s' "$1" | git -C "$forge" hash-object -w --stdin)
	{
		git -C "$forge" ls-tree "$genesis:game" | grep -v -e '	signers$' -e '	open$'
		printf '100644 blob %s\tsigners\n' "$signers"
		if [[ -n $2 ]]; then
			open=$(printf '%s' "$2" | git -C "$forge" hash-object -w --stdin)
			printf '100644 blob %s\topen\n' "$open"
		fi
	} >"$d/game_entries"
	gt=$(git -C "$forge" mktree <"$d/game_entries")
	git -C "$forge" ls-tree "$genesis" | grep -v '	game$' >"$d/entries"
	printf '040000 tree %s\tgame\n' "$gt" >>"$d/entries"
	git -C "$forge" mktree <"$d/entries"
}
line() { # SEAT KEY: its allowed_signers line
	echo "$1@catan namespaces=\"git\" $(cut -d' ' -f1,2 "$d/key_$2.pub")"
}
red_line=$(line red red)

# Blue joins with a fresh key: its claim, pushed to the hub.
$catan join "$d/hub.git" "$d/blue" --as blue --key "$d/key_blue" |
	grep -q "claimed seat blue" || fail "blue's claim"
$catan -C "$d/blue" remote push origin
$catan -C "$d/blue" sync | grep -q "pushed blue to origin" || fail "blue's push"
claim_blue=$(git -C "$d/blue" rev-parse blue)
[[ $(git -C "$d/blue" log -1 --format=%s blue) == claim ]] || fail "subject"
[[ $(git -C "$d/blue" rev-parse blue^) == "$genesis" ]] || fail "claim's parent"
git -C "$d/blue" show blue:game/signers | grep -qF "$(line blue blue)" ||
	fail "the claim does not present blue's key"
git -C "$d/blue" show blue:game/open | grep -qx white || fail "claim's game/open"
ok "blue joins with a fresh key: its first commit claims the seat (on the genesis, presenting its key, signed by it)"

# The host adopts the first claim of each seat.
$catan -C "$d/red" sync | grep -q "adopted blue" || fail "red adopts blue's claim"
[[ $(git -C "$d/red" rev-parse blue) == "$claim_blue" ]] || fail "red's blue"
refused "has not started" $catan -C "$d/red" act --as red "$($catan -C "$d/red" legal --as red | head -1)"

# An action before the start (a legal first move, signed by red).
move=$($catan -C "$d/red" legal --as red | head -1)
early=$(commit_as red red "$genesis^{tree}" "$move" 0 "$genesis")
at_hub blue red "$early" "acts before the start" "$genesis"
ok "an action before the start is refused and quarantined"

# A claim for a bound seat: red's, by eve.
tree=$(game_tree "$red_line"$'\n' $'blue\nwhite\n')
bound=$(commit_as red eve "$tree" claim 0 "$genesis")
at_hub blue red "$bound" "claim for seat red, which the genesis binds" "$genesis"
ok "a claim for a bound seat is refused and quarantined"

# A claim for white presenting eve's key, signed by mallory's.
tree=$(game_tree "$red_line"$'\n'"$(line white eve)"$'\n' $'blue\n')
notself=$(commit_as white mallory "$tree" claim 0 "$genesis")
at_hub red white "$notself" "is signed by $(fp mallory) (a claim is signed by the key it presents)" "$genesis"
ok "a claim not signed by the key it presents is refused and quarantined"

# A second key for blue's seat before the start: eve's own claim, signed
# by eve (self-signed: valid but for the seat being taken).
tree=$(game_tree "$red_line"$'\n'"$(line blue eve)"$'\n' $'white\n')
second=$(commit_as blue eve "$tree" claim 0 "$genesis")
git -C "$d/hub.git" update-ref refs/heads/blue "$second"
expect_refusal red blue "$second" "seat blue is already claimed by key $(fp blue); a second key $(fp eve) is refused"
git -C "$d/red" for-each-ref refs/catan/equivocation | grep -q . &&
	fail "two joiners' claims taken for an equivocation"
refused "seat blue is already claimed by key $(fp eve)" \
	$catan join "$d/hub.git" "$d/eve" --as blue --key "$d/key_eve"
git -C "$d/hub.git" update-ref refs/heads/blue "$claim_blue"
# Blue's own key claiming again (a joiner who joined again elsewhere): a
# second claim, refused, but no equivocation (a claim is no move).
tree=$(game_tree "$red_line"$'\n'"$(line blue blue)"$'\n' $'white\n')
again=$(commit_as blue blue "$tree" claim 0 "$genesis")
at_hub red blue "$again" "seat blue is already claimed by key $(fp blue), by another claim" "$claim_blue"
git -C "$d/red" for-each-ref refs/catan/equivocation | grep -q . &&
	fail "a second claim by one key taken for an equivocation"
ok "a second key presented for a claimed seat before the start is refused (by the host's sync, and by catan join); so is a second claim by the same key, without stopping the game"

# One key claiming two seats: blue's key, claimed already for blue, now
# for white too (one joiner, two votes; no start could merge both).
tree=$(game_tree "$red_line"$'\n'"$(line white blue)"$'\n' $'blue\n')
twin=$(commit_as white blue "$tree" claim 0 "$genesis")
at_hub red white "$twin" "white's claim presents key $(fp blue), which blue's claim holds already" "$genesis"
ok "one key claiming a second seat is refused and quarantined"

# Eve claims white too, in her own repository, and pushes only later.
$catan join "$d/hub.git" "$d/eve2" --as white --key "$d/key_eve" |
	grep -q "claimed seat white" || fail "eve's claim"
$catan -C "$d/eve2" remote push origin

# White joins; before the host syncs, blue forges a start of its own.
$catan join "$d/hub.git" "$d/white" --as white --key "$d/key_white" |
	grep -q "claimed seat white" || fail "white's claim"
$catan -C "$d/white" remote push origin
$catan -C "$d/white" sync >/dev/null
claim_white=$(git -C "$d/white" rev-parse white)
git -C "$d/hub.git" cat-file -e "$claim_white" || fail "white's push"
full=$(game_tree "$red_line"$'\n'"$(line blue blue)"$'\n'"$(line white white)"$'\n' "")
forged=$(commit_as blue blue "$full" start 0 "$claim_blue" "$claim_white")
at_hub red blue "$forged" "a start by blue: only red" "$claim_blue"
grep -q "started the game: every seat is bound" <<<"$last_out" ||
	fail "no start: $last_out"
ok "a start by a player other than the host is refused and quarantined"

# The host's sync that refused blue's start adopted white's claim and
# started the game (started: it said so, and pushed the start).
$catan -C "$d/red" sync >/dev/null
start=$(git -C "$d/red" rev-parse red)
[[ $(git -C "$d/red" log -1 --format=%s red) == start ]] || fail "start subject"
[[ $(git -C "$d/red" rev-parse red^1 red^2 | tr '\n' ' ') == "$claim_blue $claim_white " ]] ||
	fail "the start's parents are not the claims in player order"
git -C "$d/red" show red:game/signers >"$d/final"
[[ $(wc -l <"$d/final") == 3 ]] || fail "final signers"
git -C "$d/red" cat-file -e red:game/open 2>/dev/null && fail "game/open after the start"
for p in blue white; do
	$catan -C "$d/$p" sync >/dev/null
	[[ $(git -C "$d/$p" rev-parse red) == "$start" ]] || fail "$p has no start"
done
$catan -C "$d/white" key list | grep -qF "blue $(cut -d' ' -f1,2 "$d/key_blue.pub")" ||
	fail "key list after the start"
ok "once every open seat is claimed the host's sync writes the start (a merge of the claims); game/signers binds every seat"

# Eve pushes her claim after the start took white's: her sync refuses the
# start (it merges another key's claim for her seat) and must not push
# her claim over white's at the hub, where every other peer would then
# find the start's claim off white's branch.
hub_white=$(git -C "$d/hub.git" rev-parse white)
$catan -C "$d/eve2" sync >"$d/eve.out" 2>&1 || true
grep -q "pushed white" "$d/eve.out" && fail "eve's passed-over claim pushed: $(cat "$d/eve.out")"
grep -q "seat white went to another joiner's claim, with key $(fp white); this repository's claim, with key $(fp eve), lost it" "$d/eve.out" ||
	fail "eve is not told she lost the seat: $(cat "$d/eve.out")"
[[ $(git -C "$d/hub.git" rev-parse white) == "$hub_white" ]] ||
	fail "the hub's white moved from the claim the start merges"
ok "a joiner whose claim the start passed over does not push it over the one it merges"

# A start that changes a bound key (red's, to eve's), signed by red:
# only the host could write it, and even the host may not.
changed=$(game_tree "$(line red eve)"$'\n'"$(line blue blue)"$'\n'"$(line white white)"$'\n' "")
bad=$(commit_as red red "$changed" start 0 "$claim_blue" "$claim_white")
git -C "$d/hub.git" update-ref refs/heads/red "$bad"
git init -q --bare "$d/late.git"
git -C "$d/hub.git" push -q "$d/late.git" "$genesis:refs/heads/red" \
	"$claim_blue:refs/heads/blue" "$claim_white:refs/heads/white"
$catan join "$d/late.git" "$d/late" --as white >/dev/null 2>&1 || true
$catan -C "$d/late" remote add hub "$d/hub.git"
expect_refusal late red "$bad" "the start changes red's key"
git -C "$d/hub.git" update-ref refs/heads/red "$start"
ok "a start that changes a key the genesis binds is refused"

# A second key for blue after the start.
at_hub white blue "$second" "seat blue is already claimed by key $(fp blue)" "$claim_blue"
ok "a second key presented for a claimed seat after the start is refused and quarantined"

# They play: a few rounds of bot moves, every peer syncing.
for round in $(seq 1 16); do
	for p in "${players[@]}"; do
		$catan -C "$d/$p" sync >/dev/null 2>&1 || true
		$catan -C "$d/$p" step >/dev/null 2>&1 || true
	done
done
for i in 1 2; do
	for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null 2>&1 || true; done
done
want=$(git -C "$d/red" rev-parse red blue white | tr '\n' ' ')
for p in blue white; do
	[[ $(git -C "$d/$p" rev-parse red blue white | tr '\n' ' ') == "$want" ]] ||
		fail "$p differs"
done
turns=$(git -C "$d/red" rev-list red blue white | wc -l)
((turns > 20)) || fail "only $turns commits played"
ok "the three play on after the start; identical tips at every peer"

count=$(git_verify_all "$d/red" red blue white)
verify_everywhere "$catan" "$d" "${players[@]}"
ok "all $count commits (genesis, claims, start, actions) pass git verify-commit with the final game/signers; catan verify and git fsck --strict pass at every peer"

# A shared repository with the host hook: honest claims and the start pass
# it; a claim for a bound seat and a second claim for a seat are refused
# at the push, with the reason git shows.
git init -q --bare "$d/hooked.git"
$catan new "$d/red2" --players red,blue,white --me red --seed 6 --dice seeded \
	--key "$d/key_red" --open blue --open white >/dev/null
$catan -C "$d/red2" remote add hub "$d/hooked.git" --push
$catan -C "$d/red2" sync >/dev/null
$catan host-hook install "$d/hooked.git" >/dev/null
genesis=$(git -C "$d/red2" rev-parse red)
forge=$d/hooked.git
for p in blue white; do
	$catan join "$d/hooked.git" "$d/${p}2" --as $p --key "$d/key_$p" >/dev/null
	$catan -C "$d/${p}2" remote push origin
	$catan -C "$d/${p}2" sync | grep -q "pushed $p to origin" || fail "hook refused $p's claim"
done
tree=$(game_tree "$red_line"$'\n' $'blue\nwhite\n')
bound=$(commit_as red eve "$tree" claim 0 "$genesis")
out=$(git -C "$d/hooked.git" push -f "$d/hooked.git" "$bound:refs/heads/red" 2>&1) &&
	fail "hook took a claim for a bound seat"
grep -q "claim for seat red, which the genesis binds" <<<"$out" || fail "hook: $out"
tree=$(game_tree "$red_line"$'\n'"$(line blue eve)"$'\n' $'white\n')
second=$(commit_as blue eve "$tree" claim 0 "$genesis")
out=$(git -C "$d/hooked.git" push -f "$d/hooked.git" "$second:refs/heads/blue" 2>&1) &&
	fail "hook took a second claim for blue"
grep -q "refused" <<<"$out" || fail "hook: $out"
$catan -C "$d/red2" sync | grep -q "started the game" || fail "no start behind the hook"
[[ $(git -C "$d/hooked.git" rev-parse red) == $(git -C "$d/red2" rev-parse red) ]] ||
	fail "the hook refused the start"
for round in 1 2 3; do
	for p in red2 blue2 white2; do
		$catan -C "$d/$p" sync >/dev/null 2>&1 || true
		$catan -C "$d/$p" step >/dev/null 2>&1 || true
		$catan -C "$d/$p" sync | grep -q "could not push" && fail "hook refused $p"
	done
done
verify_everywhere "$catan" "$d" red2 blue2 white2
# catan sync pushes to a path remote through libgit2, which writes the
# repository itself and runs no hook (git runs hooks in receive-pack):
# the same history pushed by stock git, through the hook, to a copy that
# holds only the genesis: the claims, the start and the moves all pass.
git init -q --bare "$d/hooked2.git"
git -C "$d/red2" push -q "$d/hooked2.git" "$genesis:refs/heads/red"
$catan host-hook install "$d/hooked2.git" >/dev/null
git -C "$d/red2" push "$d/hooked2.git" red blue white >"$d/push.out" 2>&1 ||
	fail "the hook refused the claims, the start or the moves: $(cat "$d/push.out")"
for p in red blue white; do
	[[ $(git -C "$d/hooked2.git" rev-parse $p) == $(git -C "$d/red2" rev-parse $p) ]] ||
		fail "the hook's copy is not at $p's tip"
done
ok "behind the host hook: honest claims, the start and moves pass (stock git pushes, which run it); a claim for a bound seat and a second claim for a seat are refused at the push"
