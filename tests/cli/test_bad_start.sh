#!/usr/bin/env bash
# A dishonest host signs starts that break the rule of the game a start's
# claims bind (store_lobby_bind, spec/replication.md "Joining a game"):
# the claims out of player order, one open seat's claim left out, a
# parent that is no claim, the right claims with a tree that is not the
# game they bind. Each is pushed (stock git, signed by the host's key) to
# a relay of its own; a joiner that fetches it refuses it with its
# reason, records no equivocation, keeps its claim and takes the honest
# start afterwards. The same four are no proof against the host next to
# the honest start either: no verdict.
# Usage: test_bad_start.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp

for k in red blue white; do $catan key new "$d/key_$k" >/dev/null 2>&1; done
git init -q --bare "$d/hub.git"
$catan new "$d/red" --players red,blue,white --me red --seed 5 --dice seeded \
	--key "$d/key_red" --open blue --open white >/dev/null
$catan -C "$d/red" remote add hub "$d/hub.git" --push
$catan -C "$d/red" sync >/dev/null
genesis=$(git -C "$d/red" rev-parse red)
for j in blue white; do
	$catan join "$d/hub.git" "$d/$j" --as $j --key "$d/key_$j" >/dev/null
	$catan -C "$d/$j" remote push origin
	$catan -C "$d/$j" sync >/dev/null
done
# The honest start is made in a copy (its tree and parents are what the
# bad starts take apart); red itself has not started yet.
cp -a "$d/red" "$d/red_honest"
$catan -C "$d/red" remote set-url hub "$d/nowhere.git" 2>/dev/null ||
	git -C "$d/red" remote set-url hub "$d/nowhere.git"
$catan -C "$d/red_honest" sync | grep -q "started the game" || fail "(setup) no start"
honest=$(git -C "$d/red_honest" rev-parse red)
cb=$(git -C "$d/red_honest" rev-parse "$honest^1")
cw=$(git -C "$d/red_honest" rev-parse "$honest^2")
[[ $(git -C "$d/red_honest" log -1 --format=%s "$cb") == claim ]] || fail "(setup) no claims"
git -C "$d/red" fetch -q "$d/red_honest" red:refs/tmp/honest

# bad NAME WHY TREE PARENT...: a start signed by red, pushed as red's branch
# to a relay of its own; a copy of blue fetches it and must refuse it with
# WHY (a regular expression), record no verdict, keep its claim.
bad() {
	local name=$1 why=$2 tree=$3 args=() out c
	shift 3
	for c in "$@"; do args+=(-p "$c"); done
	local s
	s=$(printf 'start\n\nPlayer: red\nTurn: 0\n' |
		GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan \
			GIT_COMMITTER_NAME=red GIT_COMMITTER_EMAIL=red@catan \
			git -C "$d/red" -c gpg.format=ssh -c user.signingkey="$d/key_red" \
			commit-tree -S "$tree" "${args[@]}")
	git init -q --bare "$d/hub_$name.git"
	git -C "$d/red" push -q "$d/hub_$name.git" "$s:refs/heads/red"
	for c in "$@"; do # (the claims' own branches, as a relay holds them)
		local who
		who=$(git -C "$d/red" log -1 --format=%an "$c")
		[[ $who == red ]] || git -C "$d/red" push -q "$d/hub_$name.git" "$c:refs/heads/$who"
	done
	rm -rf "$d/blue_$name"
	cp -a "$d/blue" "$d/blue_$name"
	$catan -C "$d/blue_$name" remote add bad "$d/hub_$name.git"
	out=$($catan -C "$d/blue_$name" sync bad 2>&1 || true)
	grep -Eq "rejected red from bad: commit ${s:0:10}[0-9a-f]*: $why" <<<"$out" ||
		fail "$name: not refused with '$why': $out"
	git -C "$d/blue_$name" rev-parse -q --verify refs/catan/equivocation >/dev/null &&
		fail "$name: a bad start made a verdict"
	[[ $(git -C "$d/blue_$name" rev-parse red) == "$genesis" ]] || fail "$name: red moved at blue"
	[[ $(git -C "$d/blue_$name" log -1 --format=%s blue) == claim ]] || fail "$name: blue lost its claim"
	# the honest start is still taken after it
	$catan -C "$d/blue_$name" remote add honest "$d/red_honest"
	out=$($catan -C "$d/blue_$name" sync honest 2>&1) || fail "$name: honest sync: $out"
	[[ $(git -C "$d/blue_$name" rev-parse red) == "$honest" ]] ||
		fail "$name: the honest start was not taken after the bad one: $out"
	v=$($catan -C "$d/blue_$name" verify 2>&1) || fail "$name: verify: $v"
	# met after the honest start (a second start of the host?), it is no
	# proof: refused, no verdict, the honest start stays
	rm -rf "$d/blue2_$name"
	cp -a "$d/blue" "$d/blue2_$name"
	$catan -C "$d/blue2_$name" remote add honest "$d/red_honest"
	$catan -C "$d/blue2_$name" remote add bad "$d/hub_$name.git"
	$catan -C "$d/blue2_$name" sync honest >/dev/null 2>&1 || fail "$name: honest sync first"
	out=$($catan -C "$d/blue2_$name" sync bad 2>&1 || true)
	grep -q "rejected red from bad: " <<<"$out" || fail "$name: after the honest start, not refused: $out"
	git -C "$d/blue2_$name" rev-parse -q --verify refs/catan/equivocation >/dev/null &&
		fail "$name: next to the honest start, the bad one made a verdict: $out"
	[[ $(git -C "$d/blue2_$name" rev-parse red) == "$honest" ]] || fail "$name: the honest start was left"
	v=$($catan -C "$d/blue2_$name" verify 2>&1) || fail "$name: verify after both: $v"
	ok "a start with $name is refused at a joiner (${why//\\/}), no verdict, the honest start taken after it; met after the honest start it is refused, no proof"
}

htree=$(git -C "$d/red" rev-parse "refs/tmp/honest^{tree}")
bad "the claims out of player order" "the start's parents must be the claims of seats blue, white, in player order" \
	"$htree" "$cw" "$cb"
bad "an open seat's claim left out" "the start must merge one claim for each open seat \(blue, white\)" \
	"$htree" "$cb"
bad "a parent that is no claim" "start parent 2 is not a claim" \
	"$htree" "$cb" "$genesis"
bad "the genesis's tree" "the start's tree is not the genesis's game with the merged claims' keys bound" \
	"$genesis^{tree}" "$cb" "$cw"
echo "$n passed"
