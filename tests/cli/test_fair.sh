#!/usr/bin/env bash
# Fair dice (spec/replication.md, "Fair dice"): three players share one
# bare repository. Every chance outcome is asked for in a request, every
# other seat reveals the next value of its hash chain, and the requester's
# completion states what all the values give. A dishonest player, using
# stock git and its own key, reveals a value that is not the next of its
# chain (chosen late, or a reused one), or states another outcome than the
# reveals give: every honest peer refuses it, naming the player, the commit
# and the reason. A player who withholds its reveal stalls the game, and
# the others see whose reveal it waits for. Every commit verifies with
# stock git and `catan verify`.
# Usage: test_fair.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp

for p in red blue white; do
	$catan key new "$d/key_$p" >/dev/null 2>&1
done
out=$($catan new "$d/x" --players red,blue --dice fair 2>&1) &&
	fail "an unsigned fair game was made"
grep -q "signed game" <<<"$out" || fail "unsigned fair: $out"
git init -q --bare "$d/hub.git"
$catan new "$d/red" --players red,blue,white --me red --seed 5 \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" \
	--seat white="$d/key_white.pub" | grep -q "signed, fair dice" ||
	fail "a signed game is not fair by default"
grep -qx "dice fair" <(git -C "$d/red" show red:game/options) ||
	fail "options"
$catan -C "$d/red" remote add hub "$d/hub.git" --push >/dev/null
$catan -C "$d/red" sync >/dev/null
for p in blue white; do
	$catan join "$d/hub.git" "$d/$p" --as $p --key "$d/key_$p" >/dev/null
	$catan -C "$d/$p" remote push origin >/dev/null
done
ok "a signed game has fair dice by default; fair dice without keys are refused"

sync() { for p in "$@"; do $catan -C "$d/$p" sync >/dev/null 2>&1 || true; done; }
# The set-up: each peer steps when it may, up to red's first roll.
now=
for i in $(seq 1 8); do
	for p in red blue white; do
		now=$($catan -C "$d/$p" sync 2>&1 | tail -1)
		[[ $now == "now: red to roll" ]] && break 2
		$catan -C "$d/$p" step --bot value --max 1 >/dev/null 2>&1 || true
		sync $p
	done
done
sync red blue white
now=$($catan -C "$d/red" sync 2>&1 | tail -1)
[[ $now == "now: red to roll" ]] || fail "after the set-up: $now"
for p in red blue white; do
	[[ $(git -C "$d/red" show red:fair-$p | wc -c) == 65 ]] ||
		fail "no anchor for $p"
done
anchor_blue=$(git -C "$d/red" show red:fair-blue)
ok "each seat's first commit anchors its chain (files fair-<seat>)"

out=$($catan -C "$d/red" act "roll 3 4" 2>&1) && fail "stated roll accepted"
grep -q "with fair dice nobody states an outcome" <<<"$out" ||
	fail "stated roll: $out"
$catan -C "$d/red" act roll >/dev/null
request=$(git -C "$d/red" rev-parse red)
# The request publishes red's next value in its tree: it hashes to the last.
[[ $(git -C "$d/red" show red:fair-red | xxd -r -p | sha256sum | cut -c1-64) == \
	"$(git -C "$d/red" show red^:fair-red)" ]] ||
	fail "the request does not publish red's next value in fair-red"
git -C "$d/red" cat-file commit red | grep -q "^Dice" && fail "request with dice"
# All that red knows when it asks: a copy of its repository now.
cp -a "$d/red" "$d/red-asked"
sync red blue white
TZ=UTC $catan -C "$d/red" sync | tail -1 |
	grep -qx "now: blue, white to reveal a secret for red's roll (fair dice), asked $(TZ=UTC git -C "$d/red" log -1 --format=%cd --date=format-local:'%Y-%m-%d %H:%M:%S' "$request") UTC" ||
	fail "red does not say whose reveals it waits for, and since when: $($catan -C "$d/red" sync | tail -1)"
ok "red asks for a roll (a stated roll is refused); every peer sees whose reveals it waits for"

# Blue reveals, but keeps it to itself for now.
$catan -C "$d/blue" act reveal >/dev/null
honest=$(git -C "$d/blue" rev-parse blue)
value=$(git -C "$d/blue" show blue:fair-blue)
[[ $(printf '%s' "$value" | xxd -r -p | sha256sum | cut -c1-64) == "$anchor_blue" ]] ||
	fail "blue's value does not hash to its anchor"
tree=$(git -C "$d/blue" rev-parse "blue^{tree}")
# forge VALUE: blue's reveal with another value in fair-blue, signed with
# blue's key.
forge() {
	local blob ftree
	blob=$(printf '%s\n' "$1" | git -C "$d/blue" hash-object -w --stdin)
	ftree=$(git -C "$d/blue" ls-tree "$tree" |
		sed "s/ [0-9a-f]\{40\}\tfair-blue\$/ $blob\tfair-blue/" |
		git -C "$d/blue" mktree)
	printf 'reveal\n\nPlayer: blue\nTurn: 1\n' >"$d/msg"
	GIT_AUTHOR_NAME=blue GIT_AUTHOR_EMAIL=blue@catan GIT_COMMITTER_NAME=blue \
		GIT_COMMITTER_EMAIL=blue@catan GIT_AUTHOR_DATE="1795000000 +0000" \
		GIT_COMMITTER_DATE="1795000000 +0000" \
		git -C "$d/blue" -c gpg.format=ssh -c user.signingkey="$d/key_blue" \
		commit-tree -S "$ftree" -p "$request" -F "$d/msg"
}
late=$(head -c 32 /dev/urandom | xxd -p -c 64)
for kind in late reused; do
	case $kind in
	late) c=$(forge "$late") ;;
	reused) c=$(forge "$anchor_blue") ;;
	esac
	git -C "$d/blue" push -q -f "$d/hub.git" "$c:refs/heads/blue"
	out=$($catan -C "$d/red" sync 2>&1 || true)
	grep -q "blue" <<<"$out" && grep -q "${c:0:10}" <<<"$out" &&
		grep -q "not the next of blue's chain" <<<"$out" ||
		fail "$kind value: $out"
	[[ $(git -C "$d/red" rev-parse blue) != "$c" ]] || fail "$kind adopted"
	$catan -C "$d/red" verify >/dev/null || fail "red broken by $kind"
done
ok "a reveal whose value is not the next of the seat's chain (chosen late, or reused) is refused, naming the player, the commit and the reason"

# White withholds: the game waits, and says for whom.
git -C "$d/blue" push -q -f "$d/hub.git" "$honest:refs/heads/blue"
sync red
out=$($catan -C "$d/red" act roll 2>&1) && fail "completed without white"
$catan -C "$d/red" sync | tail -1 |
	grep -q "^now: white to reveal a secret for red's roll (fair dice), asked " ||
	fail "the wait for white is not named"
$catan -C "$d/red" status | grep -q "^now: white to reveal a secret for red's roll (fair dice), asked " ||
	fail "catan status does not name the wait for white"
ok "a player who withholds its reveal stalls the game; the others see it is white's turn to reveal (catan sync, catan status)"

$catan -C "$d/white" sync >/dev/null
$catan -C "$d/white" act reveal >/dev/null
$catan -C "$d/white" sync >/dev/null
$catan -C "$d/red" sync >/dev/null
$catan -C "$d/red" act roll >"$d/done"
honest=$(git -C "$d/red" rev-parse red)
git -C "$d/red" cat-file commit red | grep -c "^parent" | grep -qx 2 ||
	fail "the completion does not merge the two reveals"
rolled=$(git -C "$d/red" log -1 --format=%s red)
[[ $rolled =~ ^roll\ [1-6]\ [1-6]$ ]] || fail "completion: $rolled"
# catan log tells the completion as the roll, not as the join of a 7's
# discards (merge: false), which is what the window reads too.
grep -q "\"id\":\"$honest\".*\"merge\":false" <<<"$($catan -C "$d/red" log --json)" ||
	fail "log --json takes the completion for a discard merge: $($catan -C "$d/red" log --json | grep "$honest")"
ok "with every value in, red's completion merges the reveals and states the roll they give ($rolled)"

# What red knew when it asked does not determine the roll: the roll hashes
# blue's and white's values for it (spec/replication.md, "Fair dice"),
# each a preimage of the value the seat had published, and neither is
# anywhere in red's repository as it was at the request (no object, no
# file, in hex or in bytes), nor any secret key.
git -C "$d/red-asked" cat-file --batch-all-objects --batch >"$d/objects"
for p in blue white; do
	v=$(git -C "$d/red" show "$honest:fair-$p")
	was=$(git -C "$d/red-asked" show red:fair-$p)
	[[ $v != "$was" && $(printf '%s' "$v" | xxd -r -p | sha256sum | cut -c1-64) == "$was" ]] ||
		fail "$p's value for the roll is not the next of its chain"
	python3 - "$v" "$d/objects" "$d/red-asked" <<'PY' || fail "red knew $p's value for the roll before asking"
import os, sys
hexv = sys.argv[1].encode()
raw = bytes.fromhex(sys.argv[1])
files = [sys.argv[2]] + [os.path.join(r, f) for r, _, fs in os.walk(sys.argv[3]) for f in fs]
for f in files:
    data = open(f, "rb").read()
    if hexv in data or raw in data:
        print(f"{f} holds the value", file=sys.stderr)
        sys.exit(1)
PY
done
grep -rqa "PRIVATE KEY" "$d/red-asked" && fail "a secret key in red's repository"
ok "what red knew when it asked (its repository then) holds neither blue's nor white's value for the roll, nor a secret key: it cannot compute the roll before asking"

# Red states another roll than the reveals give.
other="roll 6 6"
[[ $rolled == "$other" ]] && other="roll 1 1"
printf '%s\n\nPlayer: red\nTurn: 1\nDice: %s %s\n' "$other" "${other:5:1}" \
	"${other:7:1}" >"$d/msg"
c=$(GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan GIT_AUTHOR_DATE="1795000000 +0000" \
	GIT_COMMITTER_DATE="1795000000 +0000" \
	git -C "$d/red" -c gpg.format=ssh -c user.signingkey="$d/key_red" \
	commit-tree -S "red^{tree}" $(git -C "$d/red" log -1 --format='-p %P' red | sed 's/ / -p /2') -F "$d/msg")
git -C "$d/red" push -q -f "$d/hub.git" "$c:refs/heads/red"
out=$($catan -C "$d/blue" sync 2>&1 || true)
grep -q "red" <<<"$out" && grep -q "${c:0:10}" <<<"$out" &&
	grep -q "wrong outcome: the reveals give \"$rolled\"" <<<"$out" ||
	fail "wrong outcome: $out"
git -C "$d/red" push -q -f "$d/hub.git" "$honest:refs/heads/red"
sync blue white
[[ $(git -C "$d/blue" rev-parse red) == "$honest" ]] || fail "honest roll not adopted"
ok "a completion stating another outcome than the reveals give is refused by the others"

# On to turn 8 with value bots, then stock git checks every commit.
for i in $(seq 1 60); do
	for p in red blue white; do
		sync $p
		$catan -C "$d/$p" step --bot value --max 3 >/dev/null 2>&1 || true
		sync $p
	done
	t=$(git -C "$d/red" log -1 --format=%b red | sed -n 's/^Turn: //p')
	((t >= 8)) && break
done
((t >= 8)) || fail "the game got stuck at turn $t"
sync red blue white red
verify_everywhere "$catan" "$d" red blue white
total=$(git_verify_all "$d/red" red --all)
reveals=$(git -C "$d/red" log --all --format=%s | grep -cx reveal)
((reveals >= 10)) || fail "only $reveals reveals"
ok "$total commits ($reveals reveals) to turn $t: catan verify and git fsck pass on every peer, git verify-commit on every commit"
