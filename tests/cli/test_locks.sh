#!/usr/bin/env bash
# Lock files like git's: catan never removes a lock file another program
# may hold. (1) A stock git holding a ref lock in a paused transaction
# (git update-ref --stdin, "prepare"), and lock files as git leaves them
# while it works (packed-refs.lock, config.lock, HEAD.lock, a reflog's
# and another ref's): every catan command keeps them; one that needs a
# held lock fails naming it, and git then finishes its transaction. (2) A
# catan killed (strace, SIGKILL) holding its own lock file: the next
# writer removes that one and goes on, and still keeps git's. (3) A sync
# and git's packed-refs.lock: named and kept, or waited for up to 1 s.
# Usage: test_locks.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
gitpid=
trap '[[ -n $gitpid ]] && kill $gitpid 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"
passed=0
ok() { passed=$((passed + 1)); echo "ok $passed - $*"; }

$catan new "$tmp/red" --players red,blue --me red --seed 21 >/dev/null
$catan join "$tmp/red" "$tmp/blue" --as blue >/dev/null
$catan -C "$tmp/red" remote add blue "$tmp/blue"
$catan -C "$tmp/blue" remote add red "$tmp/red"
turn() { # one round: each syncs and plays what it can
	for p in red blue; do
		$catan -C "$tmp/$p" sync >/dev/null
		$catan -C "$tmp/$p" step >/dev/null
	done
}
turn
turn
# The player who has something to do now, in their own repository.
for p in red blue; do $catan -C "$tmp/$p" sync >/dev/null; done
me=
for p in red blue; do
	want=$($catan -C "$tmp/$p" legal --as $p 2>/dev/null | head -1)
	[[ -z $want ]] || { me=$p; break; }
done
[[ -n $me ]] || fail "nobody has anything to do"
r=$tmp/$me

# 1. A stock git holds refs/heads/$me.lock: its transaction is prepared
#    (the lock taken, the new value written) and waits on its input.
mkfifo "$tmp/in"
git -C "$r" update-ref --stdin <"$tmp/in" >"$tmp/git.out" 2>&1 &
gitpid=$!
exec 9>"$tmp/in"
genesis=$(git -C "$r" rev-list --max-parents=0 $me)
printf 'start\nupdate refs/heads/x %s\nupdate refs/heads/%s %s\nprepare\n' \
	"$genesis" $me "$(git -C "$r" rev-parse $me)" >&9
# Until git says its transaction is prepared: every lock it takes taken.
# (Its branch's lock alone is not enough: git then locks HEAD, which names
# the branch, for its reflog, and a HEAD.lock made below before git got
# there made git give up after its 100 ms and drop all its locks: CI saw
# catan's step pass "git's" lock that way.)
for _ in $(seq 200); do
	grep -q "prepare: ok" "$tmp/git.out" && break
	grep -q "fatal" "$tmp/git.out" && break
	sleep 0.05
done
grep -q "prepare: ok" "$tmp/git.out" || fail "git did not prepare: $(cat "$tmp/git.out")"
[[ -e $r/refs/heads/$me.lock && -e $r/refs/heads/x.lock ]] || fail "git did not take its locks"
# Lock files as git holds them while it works elsewhere.
# (HEAD.lock may be git's already: HEAD names the branch it updates.)
held=()
for l in packed-refs.lock config.lock HEAD.lock logs/refs/heads/y.lock refs/heads/y.lock; do
	[[ -e $r/$l ]] || { echo "git's" >"$r/$l"; held+=("$l"); }
done
before=$(git -C "$r" rev-parse $me)
$catan -C "$r" act --as $me $want >/dev/null 2>"$tmp/err" &&
	fail "act moved $me past git's lock"
grep -q "refs/heads/$me.lock" "$tmp/err" ||
	fail "the error does not name the lock: $(cat "$tmp/err")"
grep -qi "exists" "$tmp/err" || fail "the error does not say why: $(cat "$tmp/err")"
if $catan -C "$r" step >"$tmp/out" 2>"$tmp/err"; then
	# What step saw, for a failure that does not repeat.
	echo "step said: $(cat "$tmp/out" "$tmp/err")" >&2
	echo "legal --as $me now: $($catan -C "$r" legal --as $me 2>&1 | head -3)" >&2
	echo "$me: $before -> $(git -C "$r" rev-parse $me)" >&2
	ls -la --time-style=full-iso "$r" "$r/refs/heads" >&2
	od -c "$r/catan.lock" | head >&2
	fail "step moved $me past git's lock"
fi
grep -q "refs/heads/$me.lock" "$tmp/err" ||
	fail "step's error does not name the lock: $(cat "$tmp/err")"
[[ $(git -C "$r" rev-parse $me) == "$before" ]] || fail "$me moved while git held its lock"
# Other commands, reading and writing, keep every lock.
$catan -C "$r" show >/dev/null
$catan -C "$r" verify >/dev/null
$catan -C "$r" sync >/dev/null 2>&1 || true
$catan -C "$r" gc >/dev/null 2>&1 || true
$catan -C "$r" remote add green "$tmp/none" >/dev/null 2>"$tmp/err" &&
	fail "remote add wrote config past git's config.lock"
grep -q "config.lock" "$tmp/err" || fail "remote add does not name config.lock: $(cat "$tmp/err")"
for l in refs/heads/$me.lock refs/heads/x.lock HEAD.lock "${held[@]}"; do
	[[ -e $r/$l ]] || fail "catan removed $l, held by git"
done
for l in "${held[@]}"; do [[ $(cat "$r/$l") == "git's" ]] || fail "$l changed"; done
# git finishes: its locks were its own all along.
printf 'commit\n' >&9
exec 9>&-
wait $gitpid || fail "git update-ref failed: $(cat "$tmp/git.out")"
gitpid=
[[ $(git -C "$r" rev-parse x) == "$genesis" ]] || fail "git's transaction did not land"
for l in "${held[@]}"; do rm "$r/$l"; done
git -C "$r" update-ref -d refs/heads/x
$catan -C "$r" verify >/dev/null || fail "verify after git's transaction"
$catan -C "$r" act --as $me $want >/dev/null || fail "act once git is done"
ok "git's lock files kept by step, act, show, verify, sync, gc and remote add; the errors name them; git's transaction completes"

# 2. catan killed holding its own lock (at the rename of its branch's
#    lock file, or of packed-refs.lock in a sync): the next writer removes
#    it, and only it.
if strace -o /dev/null true 2>/dev/null; then
	for round in 1 2 3; do
		turn
		for p in red blue; do
			c=$tmp/$p
			echo "git's" >"$c/refs/heads/other.lock"
			touch -d '1 hour ago' "$c/refs/heads/other.lock"
			$catan -C "$c" sync >/dev/null
			n0=$(git -C "$c" rev-list --count $p)
			(strace -f -o /dev/null -e trace=link,rename -P "$c/refs/heads/$p.lock" \
				-e inject=link,rename:signal=KILL $catan -C "$c" step >/dev/null 2>&1 || true) 2>/dev/null
			if [[ -e $c/refs/heads/$p.lock ]]; then
				killed=1
				grep -q "refs/heads/$p.lock" "$c/catan.lock" || fail "catan.lock does not name the lock"
				$catan -C "$c" step >/dev/null || fail "step after a killed step ($p)"
				[[ ! -e $c/refs/heads/$p.lock ]] || fail "the killed catan's lock stayed"
				(( $(git -C "$c" rev-list --count $p) > n0 )) || fail "no move after recovery"
			fi
			[[ -e $c/refs/heads/other.lock ]] || fail "recovery removed git's older lock"
			rm "$c/refs/heads/other.lock"
			git -C "$c" fsck --strict >/dev/null 2>&1 || fail "fsck $p"
			$catan -C "$c" verify >/dev/null || fail "verify $p"
		done
	done
	[[ ${killed:-} ]] || fail "no step was killed holding its lock"
	# A sync killed at the rename of packed-refs.lock.
	r=$tmp/red
	$catan -C "$tmp/blue" step >/dev/null || true
	(strace -f -o /dev/null -e trace=rename -P "$r/packed-refs.lock" \
		-e inject=rename:signal=KILL $catan -C "$r" sync >/dev/null 2>&1 || true) 2>/dev/null
	if [[ -e $r/packed-refs.lock ]]; then
		$catan -C "$r" sync >/dev/null || fail "sync after a killed sync"
		[[ ! -e $r/packed-refs.lock ]] || fail "the killed sync's packed-refs.lock stayed"
	fi
	$catan -C "$r" verify >/dev/null || fail "verify after the killed sync"
	ok "a killed catan's own lock files are removed by the next writer, git's older one kept"
else
	skip_part 2 "strace cannot trace here"
fi
# 3. packed-refs.lock held by git while a sync would rewrite packed-refs:
#    held throughout, the lock stays as it was (the sync moves the one
#    branch it adopts as a loose ref instead, as git would, or fails
#    naming the lock); released within a second, the sync waits for it
#    (git's core.packedRefsTimeout) and writes packed-refs.
for p in red blue; do $catan -C "$tmp/$p" sync >/dev/null; $catan -C "$tmp/$p" step >/dev/null; done
$catan -C "$tmp/blue" sync >/dev/null
$catan -C "$tmp/blue" step >/dev/null
cp -a "$tmp/red" "$tmp/red2"
echo "git's" >"$tmp/red/packed-refs.lock"
$catan -C "$tmp/red" sync >"$tmp/out" 2>&1 || grep -q "packed-refs.lock" "$tmp/out" ||
	fail "the sync does not name packed-refs.lock: $(cat "$tmp/out")"
[[ $(cat "$tmp/red/packed-refs.lock") == "git's" ]] || fail "git's packed-refs.lock changed"
rm "$tmp/red/packed-refs.lock"
$catan -C "$tmp/red" verify >/dev/null || fail "verify after a sync past packed-refs.lock"
echo "git's" >"$tmp/red2/packed-refs.lock"
(sleep 0.3; rm "$tmp/red2/packed-refs.lock") &
$catan -C "$tmp/red2" sync >"$tmp/out" 2>&1 || fail "sync did not wait for packed-refs.lock: $(cat "$tmp/out")"
wait
grep -q "adopted" "$tmp/out" || fail "the sync that waited adopted nothing: $(cat "$tmp/out")"
[[ ! -e $tmp/red2/refs/heads/blue ]] || fail "the sync did not wait: blue moved as a loose ref"
$catan -C "$tmp/red2" verify >/dev/null || fail "verify after the sync that waited"
ok "packed-refs.lock held by git: kept as it was; released within a second, the sync waits and writes packed-refs"
echo "$passed passed, 0 failed"
