#!/usr/bin/env bash
# Peers in separate repositories, syncing through Git remotes: complete
# games between bots over a path, file:// and a bundle, gossip through a
# ring, a peer that was away catching up, and misbehaving peers caught.
# Usage: test_peers.sh CATAN_BINARY [VP]
# (the games are played to VP points, default 7: a complete game in two
# thirds of the commits of a 10-point one)
set -euo pipefail
catan=$1
vp=${2:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
players=(red blue white orange)

# make_game DIR: host red creates the game, the others join it.
make_game() {
	local d=$1 seed=$2
	mkdir -p "$d"
	$catan new "$d/red" --players red,blue,white,orange --me red --seed "$seed" \
		--vp "$vp" >/dev/null
	for p in blue white orange; do
		$catan join "$d/red" "$d/$p" --as "$p" >/dev/null
	done
}

# red_then_blue DIR: red acts, blue (which fetches from red) acts after
# it, and red fetches blue's move back: white and orange (whose only
# remote is red) are then two moves behind.
red_then_blue() {
	local d=$1
	$catan -C "$d/red" remote add blue "$d/blue"
	$catan -C "$d/red" step >/dev/null
	$catan -C "$d/blue" sync >/dev/null
	$catan -C "$d/blue" step >/dev/null
	$catan -C "$d/red" sync >/dev/null
}

# play DIR PEER... : rounds of sync + bot step until someone wins.
play() {
	local d=$1
	for round in $(seq 1 4000); do
		for p in "${players[@]}"; do
			$catan -C "$d/$p" sync >/dev/null || fail "sync $p"
			if $catan -C "$d/$p" step | grep -q '^over:'; then
				return 0
			fi
		done
	done
	fail "no winner"
}

converged() {
	local d=$1 want=""
	for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null; done
	for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null; done
	for p in "${players[@]}"; do
		$catan -C "$d/$p" verify >/dev/null || fail "verify at $p"
		git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
		got=$(git -C "$d/$p" rev-parse "${players[@]}" | tr '\n' ' ')
		[[ -z $want || $got == "$want" ]] || fail "$p differs: $got vs $want"
		want=$got
	done
}

# 1. Full mesh over paths (one peer uses file:// URLs): a complete game.
d=$tmp/mesh
make_game "$d" 26
for p in blue white orange; do
	for q in blue white orange; do
		[[ $p == "$q" ]] && continue
		if [[ $p == orange ]]; then url=file://$d/$q; else url=$d/$q; fi
		$catan -C "$d/$p" remote add "$q" "$url"
	done
	$catan -C "$d/red" remote add "$p" "$d/$p"
done
git -C "$d/orange" remote -v | grep -q "file://" || fail "remote -v"
play "$d"
converged "$d"
merges=$($catan -C "$d/red" verify | sed -n 's/.*(\([0-9]*\) discard merges.*/\1/p')
# (seed 26 to 7 points has two: discards at once, merged between peers)
[[ ${merges:-0} -ge 1 ]] || fail "no discard merge in the game"
ok "4 peers, full mesh over paths and file://, a complete game ($merges discard merges), identical tips, verify and fsck everywhere"

# 1a. What a path remote's sync leaves for git: remote-tracking refs (in
#     packed-refs, one write per sync) equal to the remotes' branches, a
#     reflog for each that git reads and that ends where the ref is, and
#     packs (written with our own index) that git verifies.
for p in "${players[@]}"; do
	for r in $(git -C "$d/$p" remote); do
		[[ $r == origin ]] && src=$d/red || src=$d/$r
		for q in "${players[@]}"; do
			want=$(git -C "$src" rev-parse "refs/heads/$q")
			got=$(git -C "$d/$p" rev-parse "refs/remotes/$r/$q") || fail "$p: no refs/remotes/$r/$q"
			[[ $got == "$want" ]] || fail "$p: refs/remotes/$r/$q is $got, $r has $want"
			if [[ -f $d/$p/logs/refs/remotes/$r/$q ]]; then
				last=$(git -C "$d/$p" reflog show --format=%H -n 1 "refs/remotes/$r/$q") ||
					fail "$p: git cannot read the reflog of refs/remotes/$r/$q"
				[[ $last == "$want" ]] || fail "$p: reflog of refs/remotes/$r/$q ends at $last"
			fi
		done
	done
	git -C "$d/$p" for-each-ref >/dev/null 2>&1 || fail "$p: git cannot list the refs"
	for idx in "$d/$p"/objects/pack/*.idx; do
		git -C "$d/$p" verify-pack "$idx" >/dev/null 2>&1 || fail "$p: git verify-pack $idx"
	done
done
[[ -f $d/blue/packed-refs ]] || fail "no packed-refs at blue"
git -C "$d/blue" pack-refs --all && $catan -C "$d/blue" sync >/dev/null &&
	$catan -C "$d/blue" verify >/dev/null || fail "sync or verify after git pack-refs"
ok "remote-tracking refs equal each remote's branches, with reflogs git reads; every pack passes git verify-pack"

# 1b. The branches a sync adopts move in one write of packed-refs, with
#     the remote-tracking refs: no loose file is left for them (a peer that
#     never synced since it joined has one for each), and each ends where
#     its reflog does.
d2=$tmp/lag
make_game "$d2" 9
red_then_blue "$d2"
w=$d2/white
cp -a "$w" "$tmp/white-before"
$catan -C "$w" sync >/dev/null
for q in red blue; do
	[[ $(git -C "$tmp/white-before" rev-parse "$q") != $(git -C "$w" rev-parse "$q") ]] ||
		fail "white did not adopt $q"
done
for q in "${players[@]}"; do
	[[ $q == white || $q == orange || ! -e $w/refs/heads/$q ]] ||
		fail "white: a loose refs/heads/$q is left after the sync"
	want=$(git -C "$w" rev-parse "refs/heads/$q")
	last=$(git -C "$w" reflog show --format=%H -n 1 "refs/heads/$q")
	[[ $last == "$want" ]] || fail "white: reflog of $q ends at $last, the branch is at $want"
done
ok "adopted branches move in one packed-refs write, no loose file left, each reflog ending at its branch"

# 1c. A crash inside that write, made at the exact system call (strace
#     kills the sync as it renames packed-refs.lock into place): (1) the
#     write that puts the loose branches into packed-refs where they are,
#     (2) the move itself. Either way no branch moved, the stale lock is
#     cleared by the next writer, verify passes (after 2 each log is one
#     forward move ahead), and the next sync makes the moves.
if strace -o /dev/null true 2>/dev/null; then
	for at in 1 2; do
		c=$tmp/white-kill$at
		cp -a "$tmp/white-before" "$c"
		lines=$(cat "$c"/logs/refs/heads/{red,blue} | wc -l)
		if strace -o /dev/null -P "$c/packed-refs.lock" -e trace=rename \
			-e inject=rename:signal=KILL:when=$at $catan -C "$c" sync >/dev/null 2>&1; then
			fail "kill $at: the sync was not killed"
		fi
		[[ -e $c/packed-refs.lock ]] || fail "kill $at: not killed inside the write"
		[[ $(git -C "$c" rev-parse red blue) == $(git -C "$tmp/white-before" rev-parse red blue) ]] ||
			fail "kill $at: a branch moved"
		now=$(cat "$c"/logs/refs/heads/{red,blue} | wc -l)
		(( now == lines + (at == 2 ? 2 : 0) )) || fail "kill $at: $now log lines, $lines before"
		$catan -C "$c" verify >/dev/null || fail "kill $at: verify refuses the state the crash left"
		$catan -C "$c" sync >/dev/null || fail "kill $at: sync after the crash"
		[[ $(git -C "$c" rev-parse "${players[@]}") == $(git -C "$w" rev-parse "${players[@]}") ]] ||
			fail "kill $at: the next sync did not make the moves"
		[[ ! -e $c/refs/heads/red && ! -e $c/refs/heads/blue ]] || fail "kill $at: loose files left"
		$catan -C "$c" verify >/dev/null || fail "kill $at: verify after the crash and a sync"
		git -C "$c" fsck --strict >/dev/null 2>&1 || fail "kill $at: fsck after the crash and a sync"
	done
	ok "killed at either rename of that write: no branch moved, logs at most one move ahead, verify passes, the next sync moves them"
else
	skip_part 1c "strace cannot trace here"
fi

# 1d. packed-refs as other programs leave it: without the traits line, or
#     locked (here: a directory where the lock file would go). The first is
#     rewritten in git's format with the traits it had (none); the second
#     moves no branch (two at once through libgit2 would pass through a
#     state verify refuses) and says why; the next sync adopts them.
c=$tmp/white-oldgit
cp -a "$tmp/white-before" "$c"
[[ -f $c/packed-refs ]] || git -C "$c" pack-refs --all
sed -i '/^#/d' "$c/packed-refs"
$catan -C "$c" sync >/dev/null || fail "sync with a packed-refs without traits"
[[ $(git -C "$c" rev-parse "${players[@]}") == $(git -C "$w" rev-parse "${players[@]}") ]] ||
	fail "the sync with a packed-refs without traits did not make the moves"
[[ $(head -n 1 "$c/packed-refs") == "# pack-refs with: sorted " ]] ||
	fail "packed-refs traits: $(head -n 1 "$c/packed-refs")"
$catan -C "$c" verify >/dev/null || fail "verify after a sync with a packed-refs without traits"
git -C "$c" for-each-ref >/dev/null || fail "git cannot read the packed-refs we wrote"
c=$tmp/white-locked
cp -a "$tmp/white-before" "$c"
mkdir "$c/packed-refs.lock"
$catan -C "$c" sync >"$tmp/locked.out" 2>&1 && fail "a sync with packed-refs locked succeeded"
grep -q "packed-refs.lock.*branches adopted were not moved" "$tmp/locked.out" ||
	fail "no reason given: $(cat "$tmp/locked.out")"
[[ $(git -C "$c" rev-parse red blue) == $(git -C "$tmp/white-before" rev-parse red blue) ]] ||
	fail "a branch moved with packed-refs locked"
$catan -C "$c" verify >/dev/null || fail "verify with packed-refs locked"
rmdir "$c/packed-refs.lock"
$catan -C "$c" sync >/dev/null || fail "sync once the lock is gone"
[[ $(git -C "$c" rev-parse "${players[@]}") == $(git -C "$w" rev-parse "${players[@]}") ]] ||
	fail "the sync once the lock is gone did not make the moves"
c=$tmp/white-twice
cp -a "$tmp/white-before" "$c"
$catan -C "$c" sync origin origin >/dev/null || fail "sync origin origin"
[[ -z $(grep -v '^#' "$c/packed-refs" | cut -d' ' -f2 | sort | uniq -d) ]] ||
	fail "a remote named twice left records twice in packed-refs"
ok "packed-refs without traits is rewritten in git's format; locked, no branch moves, the reason is given, the next sync adopts; a remote named twice is synced once"

# 2. Gossip: a ring, each peer fetches from one neighbour only.
d=$tmp/ring
make_game "$d" 6
# red <- blue <- white <- orange <- red  (joined peers drop origin)
for p in blue white orange; do git -C "$d/$p" remote remove origin; done
$catan -C "$d/red" remote add orange "$d/orange"
$catan -C "$d/orange" remote add white "$d/white"
$catan -C "$d/white" remote add blue "$d/blue"
$catan -C "$d/blue" remote add red "$d/red"
play "$d"
converged "$d"
ok "ring topology (gossip through third peers) converges"

# 3. A peer away: white stops syncing while the others go on as far as the
#    rules let them, then catches up by fetching.
d=$tmp/away
make_game "$d" 7
for p in blue white orange; do
	for q in red blue white orange; do
		[[ $p == "$q" || $q == red ]] && continue
		$catan -C "$d/$p" remote add "$q" "$d/$q"
	done
	$catan -C "$d/red" remote add "$p" "$d/$p"
done
for round in 1 2 3; do
	for p in red blue orange; do
		$catan -C "$d/$p" sync >/dev/null 2>&1 || true
		$catan -C "$d/$p" step >/dev/null
	done
done
before=$(git -C "$d/white" rev-parse red)
$catan -C "$d/white" sync | grep -q adopted || fail "white adopted nothing"
[[ $(git -C "$d/white" rev-parse red) != "$before" ]] || fail "white did not move"
play "$d"
converged "$d"
ok "a peer that was away catches up by fetching, and the game finishes"

# 4. A bundle on a USB stick: a peer with no network at all.
d=$tmp/usb
make_game "$d" 8
$catan -C "$d/red" act setup 0,-1,n 0,-1,nw >/dev/null
$catan -C "$d/red" bundle create "$tmp/stick.bundle" >/dev/null
$catan -C "$d/blue" bundle apply "$tmp/stick.bundle" | grep -q "adopted red" ||
	fail "bundle apply"
grep -q '"next":"blue"' <<<"$($catan -C "$d/blue" show --json)" || fail "blue not next after bundle"
ok "bundle create / apply carries commits between peers with no network"

# 4b. git:// on loopback through catan serve (git daemon, read-only).
d=$tmp/daemon
make_game "$d" 10
$catan -C "$d/red" act setup 0,-1,n 0,-1,nw >/dev/null
port=$((20000 + RANDOM % 20000))
$catan -C "$d/red" serve --port "$port" >"$tmp/serve.log" 2>&1 &
server=$!
for i in $(seq 1 50); do grep -q serving "$tmp/serve.log" && break; sleep 0.1; done
$catan join "git://127.0.0.1:$port/" "$d/net" --as white >/dev/null || fail "join over git://"
[[ $(git -C "$d/net" rev-parse red) == $(git -C "$d/red" rev-parse red) ]] || fail "git:// join"
$catan -C "$d/blue" remote add red-daemon "git://127.0.0.1:$port/"
$catan -C "$d/blue" act setup 1,0,n 1,0,nw >/dev/null 2>&1 && fail "blue acted before seeing red"
$catan -C "$d/blue" sync red-daemon | grep -q "adopted red" || fail "sync over git://"
$catan -C "$d/blue" act setup 1,0,n 1,0,nw >/dev/null || fail "blue cannot act after git:// sync"
# Read-only: a push is refused.
git -C "$d/blue" push -q "git://127.0.0.1:$port/" blue 2>/dev/null && fail "the daemon accepted a push"
# A sync stopped after its fetch moved the remote-tracking refs and before
# it adopted (a crash, a kill) left them ahead of the branch: the next
# process's first sync adopts them, though the remote has not moved since.
g=$(git -C "$d/net" rev-list --max-parents=0 red)
git -C "$d/net" update-ref refs/heads/red "$g"
# (a quarantine record of red from there at another tip, judged before,
# does not hold it back)
x=$(git -C "$d/net" commit-tree "$g^{tree}" -p "$g" -m other)
rec=$(printf 'tip %s\nbad %s\nremote origin\nplayer red\nreason a test\n' "$x" "$x" |
	git -C "$d/net" hash-object -w --stdin)
git -C "$d/net" update-ref refs/catan/quarantine/origin/red "$rec"
[[ $(git -C "$d/net" rev-parse refs/remotes/origin/red) == $(git -C "$d/red" rev-parse red) ]] ||
	fail "4b: origin/red is not red's tip"
out=$($catan -C "$d/net" sync) || fail "4b: sync with origin/red ahead: $out"
grep -q "adopted red" <<<"$out" || fail "4b: origin/red left ahead was not adopted: $out"
[[ $(git -C "$d/net" rev-parse red) == $(git -C "$d/red" rev-parse red) ]] || fail "4b: red not moved"
out=$($catan -C "$d/net" sync) || fail "4b: sync: $out"
! grep -q "adopted red" <<<"$out" || fail "4b: adopted again: $out"
kill "$server"; wait "$server" 2>/dev/null || true
ok "git:// through catan serve: join, sync, read-only; remote-tracking refs a stopped sync left ahead are adopted"

# 5. Misbehaving peers: the receiving peer rejects, reports, quarantines,
#    and its game is untouched.
d=$tmp/bad
make_game "$d" 9
$catan -C "$d/blue" remote add evil "$d/red"
$catan -C "$d/red" act setup 0,-1,n 0,-1,nw >/dev/null
$catan -C "$d/blue" sync >/dev/null
snapshot() { git -C "$d/blue" for-each-ref --format='%(objectname) %(refname)' refs/heads; }
base=$(snapshot)
tip=$(git -C "$d/red" rev-parse red)
tree=$(git -C "$d/red" rev-parse "red^{tree}")
forge() { # forge MESSAGE AUTHOR TREE PARENT -> commit id in red's repo
	GIT_AUTHOR_NAME=$2 GIT_AUTHOR_EMAIL=$2@catan GIT_COMMITTER_NAME=$2 \
	GIT_COMMITTER_EMAIL=$2@catan git -C "$d/red" commit-tree "$3" -p "$4" -m "$1"
}
expect_rejected() { # expect_rejected WHAT PATTERN
	local out
	out=$($catan -C "$d/blue" sync evil) && fail "$1 was accepted"
	grep -q "rejected" <<<"$out" || fail "$1 not reported: $out"
	grep -qi "$2" <<<"$out" || fail "$1: reason not given: $out"
	[[ $(snapshot) == "$base" ]] || fail "$1 changed the local game"
	git -C "$d/blue" show-ref -q refs/catan/quarantine/evil/red || fail "$1 not quarantined"
	git -C "$d/blue" update-ref -d refs/catan/quarantine/evil/red
}
# An illegal action (blue is next, not red; and a city without a settlement).
bad=$(forge $'build city 1,0,n\n\nPlayer: red\nTurn: 0' red "$tree" "$tip")
git -C "$d/red" update-ref refs/heads/red "$bad"
expect_rejected "an illegal action" "may not act"
# A tampered tree: red's real first move, with a card added to a hand,
# in a fresh game whose blue has not seen the real one.
t2=$tmp/tamper
make_game "$t2" 9
$catan -C "$t2/red" act setup 0,-1,n 0,-1,nw >/dev/null
real=$(git -C "$t2/red" rev-parse red)
genesis=$(git -C "$t2/red" rev-parse "$real^")
now=$(git -C "$t2/red" show "$real:now" | sed 's/^red 0 0 0 0 0$/red 1 0 0 0 0/')
blob=$(printf '%s\n' "$now" | git -C "$t2/red" hash-object -w --stdin)
newtree=$(git -C "$t2/red" ls-tree "$real" | sed "s/[0-9a-f]\{40\}\tnow\$/$blob\tnow/" | git -C "$t2/red" mktree)
bad=$(GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan git -C "$t2/red" commit-tree "$newtree" -p "$genesis" \
	-m $'setup 0,-1,n 0,-1,nw\n\nPlayer: red\nTurn: 0')
git -C "$t2/red" update-ref refs/heads/red "$bad"
out=$($catan -C "$t2/blue" sync) && fail "a tampered tree was accepted"
grep -q "not the state" <<<"$out" || fail "tampered tree: reason not given: $out"
[[ $(git -C "$t2/blue" rev-parse red) == "$genesis" ]] || fail "tampered tree adopted"
git -C "$t2/blue" show-ref -q refs/catan/quarantine/origin/red || fail "tampered tree not quarantined"
# A rewritten branch: red's history replaced by a different genesis child.
git -C "$d/red" update-ref refs/heads/red "$(git -C "$d/red" rev-list --max-parents=0 "$tip")"
other=$(forge $'setup 2,-2,n 2,-2,nw\n\nPlayer: red\nTurn: 0' red "$tree" "$(git -C "$d/red" rev-parse red)")
git -C "$d/red" update-ref refs/heads/red "$other"
expect_rejected "a rewritten branch" "rewritten"
# A commit that does not parse.
git -C "$d/red" update-ref refs/heads/red "$tip"
bad=$(forge $'bild road 0,0,w\n\nPlayer: red\nTurn: 0' red "$tree" "$tip")
git -C "$d/red" update-ref refs/heads/red "$bad"
expect_rejected "an unparsable message" "parse\|may not act"
# A commit without a Turn: trailer (walks for a rewrite go by them): the
# verification's reason, not "rewritten".
bad=$(forge $'end\n\nPlayer: red' red "$tree" "$tip")
git -C "$d/red" update-ref refs/heads/red "$bad"
out=$($catan -C "$d/blue" sync evil) && fail "a commit without Turn: was accepted"
grep -q "rejected red.*Turn" <<<"$out" || fail "a commit without Turn: reason not given: $out"
! grep -q "rewritten" <<<"$out" || fail "a commit without Turn: called a rewrite: $out"
[[ $(snapshot) == "$base" ]] || fail "a commit without Turn: changed the local game"
# The same over git:// (fetched whole, then judged)
port=$((20000 + RANDOM % 20000))
$catan -C "$d/red" serve --port "$port" >"$tmp/serve5t.log" 2>&1 &
server=$!
for i in $(seq 1 50); do grep -q serving "$tmp/serve5t.log" && break; sleep 0.1; done
$catan -C "$d/blue" remote add evil-net "git://127.0.0.1:$port/"
out=$($catan -C "$d/blue" sync evil-net) && fail "git://: a commit without Turn: was accepted"
kill "$server"; wait "$server" 2>/dev/null || true
grep -q "rejected red.*Turn" <<<"$out" || fail "git://: a commit without Turn: reason not given: $out"
! grep -q "rewritten" <<<"$out" || fail "git://: a commit without Turn: called a rewrite: $out"
[[ $(snapshot) == "$base" ]] || fail "git://: a commit without Turn: changed the local game"
ok "illegal action, tampered tree, rewritten branch, unparsable message, no Turn: trailer: rejected, reported, quarantined, local game untouched"

# 5c. A branch holding a valid commit that its author's branch there does
#     not: a peer read in the middle of a move can show that for an
#     instant, so the first sync holds the branch back without a verdict
#     and says so; the same tip at the next sync is misbehaviour: rejected,
#     reported, quarantined. If the peer's refs settle in between, the next
#     sync adopts. Here: red's last set-up move rests on blue's last, and
#     red's repository still shows blue's branch one move back (a branch
#     ends at its owner's own commit: red's tip is red's).
d=$tmp/offbranch
make_game "$d" 13
for p in blue white orange; do $catan -C "$d/red" remote add $p "$d/$p"; done
for p in red blue white orange white blue; do
	$catan -C "$d/$p" sync >/dev/null 2>&1 || true
	$catan -C "$d/$p" step >/dev/null
	$catan -C "$d/red" sync >/dev/null 2>&1 || true
done
bo=$(git -C "$d/blue" rev-parse 'blue@{1}')
b1=$(git -C "$d/red" rev-parse blue)
[[ $bo != "$b1" && $(git -C "$d/red" log -1 --format=%an "$bo") == blue ]] ||
	fail "5c: no first move of blue"
for c in white2 white3 white4; do cp -a "$d/white" "$tmp/$c"; done
$catan -C "$d/red" step --max 1 >/dev/null
r2=$(git -C "$d/red" rev-parse red)
[[ $(git -C "$d/red" rev-parse "$r2^") == "$b1" ]] || fail "5c: red's move is not on blue's"
git -C "$d/red" update-ref refs/heads/blue "$bo"
before=$(git -C "$tmp/white2" rev-parse red blue)
out=$($catan -C "$tmp/white2" sync) || fail "5c: a held-back branch failed the sync: $out"
grep -q "held back red from origin.*not on its own branch" <<<"$out" || fail "5c: not held back: $out"
! git -C "$tmp/white2" show-ref -q refs/catan/quarantine/origin/red || fail "5c: quarantined at once"
[[ $(git -C "$tmp/white2" rev-parse red blue) == "$before" ]] || fail "5c: a branch moved"
out=$($catan -C "$tmp/white2" sync) && fail "5c: the same tip again was accepted: $out"
grep -q "rejected red from origin.*not on its own branch" <<<"$out" || fail "5c: not rejected: $out"
git -C "$tmp/white2" show-ref -q refs/catan/quarantine/origin/red || fail "5c: not quarantined"
[[ $(git -C "$tmp/white2" rev-parse red blue) == "$before" ]] || fail "5c: a branch moved"
# The same over git://, where a fetch that brings nothing new still has
# the held tip judged again; once judged it is not held back anew.
port=$((20000 + RANDOM % 20000))
$catan -C "$d/red" serve --port "$port" >"$tmp/serve5c.log" 2>&1 &
server=$!
for i in $(seq 1 50); do grep -q serving "$tmp/serve5c.log" && break; sleep 0.1; done
for c in white3 white4; do git -C "$tmp/$c" remote set-url origin "git://127.0.0.1:$port/"; done
out=$($catan -C "$tmp/white3" sync) || fail "5c git://: a held-back branch failed the sync: $out"
grep -q "held back red from origin.*not on its own branch" <<<"$out" || fail "5c git://: not held back: $out"
out=$($catan -C "$tmp/white3" sync) && fail "5c git://: the same tip again was accepted: $out"
grep -q "rejected red from origin.*not on its own branch" <<<"$out" || fail "5c git://: not rejected: $out"
git -C "$tmp/white3" show-ref -q refs/catan/quarantine/origin/red || fail "5c git://: not quarantined"
! git -C "$tmp/white3" show-ref -q refs/catan/held/origin/red || fail "5c git://: the held record outlived the verdict"
out=$($catan -C "$tmp/white3" sync) || fail "5c git://: a sync after the verdict: $out"
! grep -q "held back" <<<"$out" || fail "5c git://: held back anew after the verdict: $out"
[[ $(git -C "$tmp/white3" rev-parse red blue) == "$before" ]] || fail "5c git://: a branch moved"
# Held back, then the peer settles: adopted, the record gone (a path and
# git://).
for c in "$d/white" "$tmp/white4"; do
	out=$($catan -C "$c" sync) || fail "5c: sync at $c: $out"
	grep -q "held back red" <<<"$out" || fail "5c: not held back at $c: $out"
	git -C "$c" show-ref -q refs/catan/held/origin/red || fail "5c: no held record at $c"
done
git -C "$d/red" update-ref refs/heads/blue "$b1"
for c in "$d/white" "$tmp/white4"; do
	out=$($catan -C "$c" sync) || fail "5c: sync once settled at $c: $out"
	[[ $(git -C "$c" rev-parse red) == "$r2" && $(git -C "$c" rev-parse blue) == "$b1" ]] ||
		fail "5c: not adopted once settled at $c: $out"
	! git -C "$c" show-ref -q refs/catan/quarantine/origin/red || fail "5c: quarantined once settled at $c"
	! git -C "$c" show-ref -q refs/catan/held/origin/red || fail "5c: the held record outlived the adoption at $c"
	$catan -C "$c" verify >/dev/null || fail "5c: verify at $c"
done
kill "$server"; wait "$server" 2>/dev/null || true
ok "a branch holding a commit its author's branch lacks (a path and git://): held back once, rejected and quarantined if it stays, adopted once the peer's refs settle; the record goes with the verdict"

# 5d. Views of a peer read mid-move only move forward: a peer that shows
#     one off-branch tip and then another that does not descend from it
#     (white's moves on two different moves of blue on one parent, in
#     turn) is misbehaving, and that tip is rejected and quarantined at
#     once; one that does descend from it (white's next move) is held back
#     again. (A branch ends at its owner's own commit: the tips shown are
#     white's, resting on moves of blue's that blue's branch there lacks.)
d=$tmp/alternate
make_game "$d" 14
$catan -C "$d/red" step >/dev/null
$catan -C "$d/blue" sync >/dev/null
$catan -C "$d/orange" sync >/dev/null
cp -a "$d/blue" "$d/blue2"
cp -a "$d/orange" "$d/orange4"
mapfile -t acts < <($catan -C "$d/blue" legal --as blue)
(( ${#acts[@]} >= 2 )) || fail "5d: blue has fewer than two moves"
$catan -C "$d/blue" act --as blue "${acts[0]}" >/dev/null
$catan -C "$d/blue2" act --as blue "${acts[1]}" >/dev/null
# White's move on each (scratch copies that play every seat in turn), and
# on x, orange's two and white's next.
for v in x y; do
	src=$d/blue
	[[ $v == y ]] && src=$d/blue2
	cp -a "$src" "$d/scratch-$v"
	git -C "$d/scratch-$v" config catan.me white
	mapfile -t acts < <($catan -C "$d/scratch-$v" legal --as white)
	$catan -C "$d/scratch-$v" act "${acts[0]}" >/dev/null
done
git -C "$d/scratch-x" config catan.me orange
for i in 1 2; do
	mapfile -t acts < <($catan -C "$d/scratch-x" legal --as orange)
	$catan -C "$d/scratch-x" act "${acts[0]}" >/dev/null
done
wx=$(git -C "$d/scratch-x" rev-parse white)
git -C "$d/scratch-x" config catan.me white
mapfile -t acts < <($catan -C "$d/scratch-x" legal --as white)
$catan -C "$d/scratch-x" act "${acts[0]}" >/dev/null
for v in x y; do
	git -C "$d/red" fetch -q "$d/scratch-$v" "refs/heads/white:refs/evil/w$v" \
		"refs/heads/blue:refs/evil/$v"
done
x=$(git -C "$d/red" rev-parse refs/evil/x)
y=$(git -C "$d/red" rev-parse refs/evil/y)
wy=$(git -C "$d/red" rev-parse refs/evil/wy)
w2=$(git -C "$d/red" rev-parse refs/evil/wx)
git -C "$d/red" cat-file -e "$wx" || fail "5d: white's first move not fetched"
[[ $(git -C "$d/red" rev-parse "$wx^") == "$x" && $(git -C "$d/red" rev-parse "$wy^") == "$y" ]] ||
	fail "5d: white did not act after blue's x and y"
git -C "$d/red" merge-base --is-ancestor "$wx" "$w2" || fail "5d: white's next move is not after its first"
before=$(git -C "$d/orange" rev-parse red blue white)
git -C "$d/red" update-ref refs/heads/white "$wx"
out=$($catan -C "$d/orange" sync) || fail "5d: sync: $out"
grep -q "held back white from origin" <<<"$out" || fail "5d: not held back: $out"
git -C "$d/red" update-ref refs/heads/white "$w2"
out=$($catan -C "$d/orange" sync) || fail "5d: a tip moved forward from the held one failed the sync: $out"
grep -q "held back white from origin" <<<"$out" || fail "5d: a tip moved forward was not held back: $out"
[[ $(git -C "$d/orange" rev-parse refs/catan/held/origin/white) == "$w2" ]] || fail "5d: the held record did not follow"
git -C "$d/red" update-ref refs/heads/white "$wy"
out=$($catan -C "$d/orange" sync) && fail "5d: a second bad tip was accepted: $out"
grep -q "rejected white from origin.*not on its own branch" <<<"$out" || fail "5d: not rejected: $out"
git -C "$d/orange" cat-file blob refs/catan/quarantine/origin/white | grep -qx "tip $wy" || fail "5d: $wy not quarantined"
[[ $(git -C "$d/orange" rev-parse red blue white) == "$before" ]] || fail "5d: a branch moved"
$catan -C "$d/orange" verify >/dev/null || fail "5d: verify"
# Only the author's branch as the peer has it counts: when this sync
# drops it (there, blue's branch ends in an illegal move after x), a tip
# holding x is refused at once, not held back.
git -C "$d/red" update-ref refs/heads/white "$wx"
bad=$(forge $'build city 1,0,n\n\nPlayer: blue\nTurn: 0' blue "$x^{tree}" "$x")
git -C "$d/red" update-ref refs/heads/blue "$bad"
out=$($catan -C "$d/orange4" sync) && fail "5d: an illegal blue branch was accepted: $out"
grep -q "rejected blue from origin" <<<"$out" || fail "5d: blue's illegal move not rejected: $out"
grep -q "rejected white from origin.*not on its own branch" <<<"$out" || fail "5d: white not refused at once: $out"
! grep -q "held back" <<<"$out" || fail "5d: held back against a dropped branch: $out"
$catan -C "$d/orange4" verify >/dev/null || fail "5d: verify after the dropped branch"
ok "off-branch tips held back while they move forward; one that does not descend from the held tip, or whose author's branch the sync dropped, is rejected and quarantined at once"

# 5a. A path remote is read directly (no fetch): an object it lacks or that
#     does not hash to its id is caught as the ordinary fetch catches it
#     (the remote is reported, nothing adopted), and once the remote is
#     whole again the same commit is adopted.
d=$tmp/broken
make_game "$d" 11
$catan -C "$d/red" act setup 0,-1,n 0,-1,nw >/dev/null
tip=$(git -C "$d/red" rev-parse red)
blob=$(git -C "$d/red" rev-parse "red:now")
obj=$d/red/objects/${blob:0:2}/${blob:2}
[[ -f $obj ]] || fail "the new blob is not a loose object"
cp "$obj" "$tmp/blob.saved"
before=$(git -C "$d/blue" rev-parse red)
rm -f "$obj"
out=$($catan -C "$d/blue" sync origin) || fail "sync failed: $out"
grep -q "could not reach origin" <<<"$out" || fail "missing object not reported: $out"
[[ $(git -C "$d/blue" rev-parse red) == "$before" ]] || fail "adopted with a missing object"
# The same object's name with other contents (a valid zlib stream).
printf 'blob 5\0junk\n' | python3 -c 'import sys,zlib; sys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read()))' >"$obj"
out=$($catan -C "$d/blue" sync origin) || fail "sync failed: $out"
grep -q "could not reach origin" <<<"$out" || fail "corrupt object not reported: $out"
[[ $(git -C "$d/blue" rev-parse red) == "$before" ]] || fail "adopted a corrupt object"
cp "$tmp/blob.saved" "$obj"
out=$($catan -C "$d/blue" sync origin)
[[ $(git -C "$d/blue" rev-parse red) == "$tip" ]] || fail "not adopted once whole: $out"
git -C "$d/blue" fsck --strict >/dev/null 2>&1 || fail "fsck after the broken remote"
$catan -C "$d/blue" verify >/dev/null || fail "verify after the broken remote"
ok "path remote read directly: a missing or corrupt object is reported and nothing adopted; adopted once whole"

# 5b. A shared bare repository on a "server": every peer pushes its own
#     branch there and fetches the others from it; no peer talks to another.
d=$tmp/hub
mkdir -p "$d"
git init -q --bare "$d/hub.git"
$catan new "$d/red" --players red,blue,white,orange --me red --seed 12 --vp "$vp" >/dev/null
$catan -C "$d/red" remote add hub "$d/hub.git" --push
$catan -C "$d/red" sync | grep -q "pushed red to hub" || fail "first push"
for p in blue white orange; do
	$catan join "$d/hub.git" "$d/$p" --as "$p" >/dev/null
	$catan -C "$d/$p" remote push origin
done
play "$d"
converged "$d"
[[ $(git -C "$d/hub.git" rev-parse red) == $(git -C "$d/red" rev-parse red) ]] || fail "hub behind"
ok "a shared bare repository: peers push their own branch, fetch the rest, finish a game"

# 6. Four long-running peers at once (catan peer), each syncing on its own
#    schedule with backoff and letting its bot act: a complete game.
d=$tmp/live
make_game "$d" 11
for p in blue white orange; do
	for q in blue white orange; do
		[[ $p == "$q" ]] || $catan -C "$d/$p" remote add "$q" "$d/$q"
	done
	$catan -C "$d/red" remote add "$p" "$d/$p"
done
pids=()
for p in "${players[@]}"; do
	timeout 600 $catan -C "$d/$p" peer --bot greedy --interval 0.02 \
		--max-interval 0.2 >"$tmp/live-$p.log" 2>&1 &
	pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "a peer failed or timed out"; done
for p in "${players[@]}"; do grep -q "has won" "$tmp/live-$p.log" || fail "$p did not see the end"; done
converged "$d"
ok "four concurrent long-running peers (catan peer) play a game to the end and converge"

echo "$n passed, 0 failed"
