#!/usr/bin/env bash
# Signed games (spec/replication.md, "Keys and signatures"): three players
# share one bare repository, as friends on a Git host would; a dishonest
# player pushes, with stock git, a commit on another player's branch that
# is a legal action for that player: unsigned, signed with its own key,
# signed with a key outside the game, and a commit from another game.
# Every honest peer refuses each one, names the player, the commit and the
# reason, and the game goes on to a winner. Stock git (git verify-commit
# with the game's signers file) checks every commit of the finished game.
# Usage: test_trust.sh CATAN_BINARY
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

for p in "${players[@]}" outsider; do
	$catan key new "$d/key_$p" >/dev/null 2>&1
done

# Keys: ssh-keygen reads ours, and a key made by ssh-keygen works in catan.
ssh-keygen -y -f "$d/key_red" | cut -d' ' -f1,2 |
	cmp -s - <(cut -d' ' -f1,2 "$d/key_red.pub") || fail "ssh-keygen -y"
$catan key show "$d/key_red" | cmp -s - <(cut -d' ' -f1,2 "$d/key_red.pub") ||
	fail "key show"
ok "catan key new writes an OpenSSH key that ssh-keygen reads; key show prints its public line"

git init -q --bare "$d/hub.git"
# Seeded dice: a whole game takes a third of the sync rounds fair dice
# take (tests/cli/test_fair.sh and test_fair_game.sh play fair ones); to 6
# points, half the commits of a game to 10 (91 against 183 for seed 3).
$catan new "$d/red" --players red,blue,white --me red --seed 3 --dice seeded --vp 6 \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" \
	--seat white="$(cat "$d/key_white.pub")" | grep -q signed || fail "new signed"
$catan -C "$d/red" remote add hub "$d/hub.git" --push
$catan -C "$d/red" sync | grep -q "pushed red to hub" || fail "first push"
for p in blue white; do
	$catan join "$d/hub.git" "$d/$p" --as "$p" --key "$d/key_$p" >/dev/null
	$catan -C "$d/$p" remote push origin
done
git -C "$d/red" show red:game/signers >"$d/allowed"
grep -c 'namespaces="git" ssh-ed25519' "$d/allowed" | grep -qx 3 || fail "signers"
git -C "$d/red" -c gpg.ssh.allowedSignersFile="$d/allowed" verify-commit red 2>/dev/null ||
	fail "genesis not verified by git"
ok "a signed game: genesis binds three keys (game/signers, git's allowed_signers format); git verify-commit accepts the genesis"

# Binding: a key of another seat, or of nobody, is refused.
refused() { # WANT COMMAND...: the command fails saying WANT
	local want=$1 out
	shift
	if out=$("$@" 2>&1); then fail "accepted: $*"; fi
	grep -q "$want" <<<"$out" || fail "$*: $out"
}
refused "white's, but this repository plays blue" \
	$catan -C "$d/blue" key use "$d/key_white"
refused "is not blue's: seat blue is bound to another key" $catan -C "$d/blue" key use "$d/key_outsider"
refused "first seat" $catan new "$d/x" --players red,blue --me blue \
	--key "$d/key_blue" --seat red="$d/key_red.pub"
refused "no --seat blue" $catan new "$d/y" --players red,blue --me red \
	--key "$d/key_red"
refused "same key" $catan new "$d/z" --players red,blue --me red \
	--key "$d/key_red" --seat blue="$d/key_red.pub"
ok "a key binds only its own seat; a game is signed with every seat's key or not created"

# A twin game, unsigned, with the same board and seed: its trees hold the
# same state files, so white can build red's legal first move with git.
$catan new "$d/twin" --players red,blue,white --seed 3 >/dev/null
move=$($catan -C "$d/twin" legal --as red 2>/dev/null | head -1)
$catan -C "$d/twin" act --as red $move >/dev/null
game=$(git -C "$d/white" rev-parse red:game)
git -C "$d/twin" cat-file -p red^{tree} | grep -v "	game$" >"$d/entries"
printf '040000 tree %s\tgame\n' "$game" >>"$d/entries"
git -C "$d/white" fetch -q "$d/twin" red:refs/twin/red
tree=$(git -C "$d/white" mktree <"$d/entries")
printf '%s\n\nPlayer: red\nTurn: 0\n' "$move" >"$d/msg"
genesis=$(git -C "$d/white" rev-parse red)

# forge KIND: a commit by "red" on genesis, with white's or no signature.
forge() {
	local sign=()
	case $1 in
	white) sign=(-c gpg.format=ssh -c user.signingkey="$d/key_white") ;;
	outsider) sign=(-c gpg.format=ssh -c user.signingkey="$d/key_outsider") ;;
	esac
	local s=()
	[[ $1 == none ]] || s=(-S)
	GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
		GIT_COMMITTER_EMAIL=red@catan GIT_AUTHOR_DATE="1795000000 +0000" \
		GIT_COMMITTER_DATE="1795000000 +0000" \
		git -C "$d/white" "${sign[@]}" commit-tree "${s[@]}" "$tree" \
		-p "$genesis" -F "$d/msg"
}

for kind in none white outsider; do
	c=$(forge $kind)
	git -C "$d/white" cat-file commit "$c" | grep -q "^gpgsig" &&
		[[ $kind == none ]] && fail "unsigned forgery is signed"
	git -C "$d/white" push -q -f "$d/hub.git" "$c:refs/heads/red"
	out=$($catan -C "$d/blue" sync 2>&1 || true)
	case $kind in
	none) want="commit is not signed" ;;
	white) want="signed with white's key" ;;
	outsider) want="signed with a key that is not in the game" ;;
	esac
	grep -q "red" <<<"$out" && grep -q "${c:0:10}" <<<"$out" &&
		grep -q "$want" <<<"$out" || fail "$kind forgery: $out"
	[[ $(git -C "$d/blue" rev-parse red) == "$genesis" ]] || fail "$kind adopted"
	git -C "$d/blue" for-each-ref refs/catan/quarantine | grep -q . ||
		fail "$kind not quarantined"
	$catan -C "$d/blue" verify >/dev/null || fail "blue broken by $kind"
done
ok "a commit on red's branch pushed by white with stock git (unsigned, signed by white, signed by an outsider) is refused by blue, naming red, the commit and the reason; nothing adopted"

# A signed commit from another game: refused (it does not descend from
# this game's genesis). Another seed: with seed 3 and the same keys, a game
# created in the same second has a byte-identical genesis, so it would be
# this very game.
$catan new "$d/other" --players red,blue,white --me red --seed 4 \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" \
	--seat white="$d/key_white.pub" >/dev/null
[[ $(git -C "$d/other" rev-parse red) != "$genesis" ]] || fail "other genesis"
$catan -C "$d/other" act --as red \
	$($catan -C "$d/other" legal --as red 2>/dev/null | head -1) >/dev/null
git -C "$d/other" push -q -f "$d/hub.git" red:refs/heads/red
out=$($catan -C "$d/blue" sync 2>&1 || true)
[[ $(git -C "$d/blue" rev-parse red) == "$genesis" ]] || fail "other game adopted: $out"
grep -q "red" <<<"$out" || fail "other game not named: $out"
ok "red's own signed commit from another game is refused"

# The honest red pushes its own branch over the forgery (a signed game's
# branch has one writer), and the game goes on to a winner.
play() {
	for round in $(seq 1 3000); do
		for p in "${players[@]}"; do
			$catan -C "$d/$p" sync >/dev/null 2>&1 || true
			if $catan -C "$d/$p" step | grep -q '^over:'; then
				return 0
			fi
		done
	done
	fail "no winner"
}
$catan -C "$d/red" remote add blue "$d/blue" # red still reads the others
play
for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null 2>&1 || true; done
for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null 2>&1 || true; done
want=$(git -C "$d/red" rev-parse red blue white | tr '\n' ' ')
for p in blue white; do
	[[ $(git -C "$d/$p" rev-parse red blue white | tr '\n' ' ') == "$want" ]] ||
		fail "$p differs"
done
ok "the honest players finish the game; identical tips"

# Stock git checks every commit, and catan verify agrees.
count=$(git_verify_all "$d/red" red blue white)
verify_everywhere "$catan" "$d" "${players[@]}"
ok "all $count commits of the finished game pass git verify-commit with the game's signers file; catan verify and git fsck --strict pass at every peer"
