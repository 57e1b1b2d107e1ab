#!/usr/bin/env bash
# The pair held at a shared repository changed behind a peer's back
# (attack by a helper, 29 November): red records {X, Y}, blue the better
# {Z, M} (white signed three moves X, Y, Z on one commit, see
# test_attack_record_only.sh); they meet only at a shared repository
# reached as a path. Blue pushes {Z, M} there; then the repository's pair
# becomes red's worse {X, Y} (red synced at the same time and its forced
# push landed last; or a host or a peer with stock git wrote it). A peer
# decided whether to push its pair by refs/catan/evidence/<remote>/,
# which a path remote never updates (and a fetch never clears): blue
# thought the repository still held {Z, M} and never pushed again, so
# red and blue kept different records for good. Now a peer compares its
# record with the pair the repository holds at this sync.
# Usage: test_attack_stale_evidence.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); C=$catan
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done

# The game of test_attack_record_only.sh: red records {X, Y}, blue {Z, M}.
g=$d/g
record_only_game $C $g $d
rec() { git -C $g/$1 cat-file -p refs/catan/equivocation; }
[[ $(rec red) != "$(rec blue)" ]] || fail "red and blue record one pair (no test)"
for p in red blue; do $C -C $g/$p remote rm origin >/dev/null 2>&1 || git -C $g/$p remote rm origin 2>/dev/null; done
for p in red blue; do for q in red blue white white2 white3; do git -C $g/$p remote rm $q 2>/dev/null; done; done

git init -q --bare $d/hub.git
git -C $g/red push -q $d/hub.git red:refs/heads/red blue:refs/heads/blue white:refs/heads/white
for p in red blue; do $C -C $g/$p remote add hub $d/hub.git --push >/dev/null; done
out=$($C -C $g/blue sync hub) || fail "blue's sync ($out)"
grep -q "pushed the equivocation record to hub" <<<"$out" || fail "blue's pair not pushed ($out)"
# Red's forced push of its pair lands last.
git -C $g/red push -q -f $d/hub.git refs/catan/equivocation-a:refs/catan/equivocation-a \
	refs/catan/equivocation-b:refs/catan/equivocation-b || fail "red's push"
for i in 1 2; do
	$C -C $g/blue sync hub >/dev/null || fail "blue's sync $i"
	$C -C $g/red sync hub >/dev/null || fail "red's sync $i"
done
[[ $(rec red) == "$(rec blue)" ]] ||
	fail "red and blue keep different records for good (the shared repository holds $(git -C $d/hub.git rev-parse --short refs/catan/equivocation-a))"
echo "ok: a changed pair at a path repository is pushed over"

# The same through a deletion: the pair gone from the repository, a peer
# that pushed it before pushes it again (else a peer meeting only there
# never learns it).
git -C $d/hub.git update-ref -d refs/catan/equivocation-a
git -C $d/hub.git update-ref -d refs/catan/equivocation-b
$C -C $g/blue sync hub >/dev/null || fail "blue's sync after the deletion"
git -C $d/hub.git rev-parse -q --verify refs/catan/equivocation-a >/dev/null ||
	fail "the deleted pair was not pushed again"
echo "ok: a deleted pair is pushed again"

# And at a repository reached through git:// (git daemon, pushes on):
# a fetch kept refs/catan/evidence/hub2/ when the repository no longer
# listed the pair.
if [[ ! -x $(git --exec-path)/git-daemon ]]; then
	skip_part "git://" "git daemon missing"
	echo "defence held"; exit 0
fi
port=$((20000 + RANDOM % 20000))
git daemon --reuseaddr --base-path=$d --export-all --enable=receive-pack \
	--listen=127.0.0.1 --port=$port --pid-file=$d/daemon.pid --detach $d || fail "git daemon"
trap 'kill $(cat $d/daemon.pid) 2>/dev/null; rm -rf "$d"' EXIT
for i in $(seq 1 50); do git ls-remote git://127.0.0.1:$port/hub.git >/dev/null 2>&1 && break; sleep 0.1; done
$C -C $g/blue remote add hub2 git://127.0.0.1:$port/hub.git --push >/dev/null
$C -C $g/blue sync hub2 >/dev/null || fail "blue's sync over git://"
git -C $d/hub.git update-ref -d refs/catan/equivocation-a
git -C $d/hub.git update-ref -d refs/catan/equivocation-b
$C -C $g/blue sync hub2 >/dev/null || fail "blue's sync over git:// after the deletion"
git -C $d/hub.git rev-parse -q --verify refs/catan/equivocation-a >/dev/null ||
	fail "git://: the deleted pair was not pushed again"
echo "ok: git://: a deleted pair is pushed again"
echo "defence held"
