#!/usr/bin/env bash
# Read commands write nothing: every file and directory of a game
# repository (name, type, size, mtime, ctime, inode) is the same after
# show, legal, log, verify, stats and render as before, whether they
# succeed or fail, on a peer's repository (reflogs), a simulated game (no
# reflogs), one holding a stale lock file, and one without catan.lock.
# Usage: test_readonly.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
snap() { find "$1" -printf '%P %y %s %T@ %C@ %i %m\n' | sort; }
n=0

# Runs one read command (args after the repository) and checks the
# repository did not change; the command may fail.
check() {
	local g=$1
	shift
	snap "$g" >"$tmp/before"
	sleep 0.01 # a change would show in the timestamps
	"$catan" -C "$g" "$@" >/dev/null 2>&1 || true
	snap "$g" >"$tmp/after"
	diff "$tmp/before" "$tmp/after" >"$tmp/diff" ||
		fail "catan -C $g $* changed the repository: $(cat "$tmp/diff")"
	n=$((n + 1))
}

reads() {
	local g=$1
	check "$g" show
	check "$g" show --json
	check "$g" show red
	check "$g" show 'red@{1}'
	check "$g" show 'red@{0}'
	check "$g" show 'blue@{99}'
	check "$g" show '@{1}'
	check "$g" show '@{-1}'
	check "$g" show 'red@{yesterday}'
	check "$g" show 'red~1'
	check "$g" show nosuchbranch
	check "$g" show 'nosuch@{1}'
	check "$g" show --nosuchoption
	check "$g" legal --as red
	check "$g" legal --as blue
	check "$g" legal --as nobody
	check "$g" log
	check "$g" log extra
	check "$g" log 'red@{1}'
	check "$g" log 'red@{1}..red'
	check "$g" log 'red~3..red' --player red
	check "$g" verify
	snap "$g" >"$tmp/before"
	"$catan" stats "$g" >/dev/null 2>&1 || true
	"$catan" render "$g" --out "$tmp/out.png" >/dev/null 2>&1 || true
	"$catan" render "$g" 'red@{3}' --out "$tmp/out.png" >/dev/null 2>&1 || true
	snap "$g" >"$tmp/after"
	diff "$tmp/before" "$tmp/after" >/dev/null || fail "stats or render changed $g"
	n=$((n + 1))
}

# A peer's repository, with reflogs, a few moves in.
$catan new "$tmp/red" --players red,blue --me red --seed 3 >/dev/null
$catan join "$tmp/red" "$tmp/blue" --as blue >/dev/null
$catan -C "$tmp/red" remote add blue "$tmp/blue"
for i in 1 2 3 4; do
	for p in red blue; do
		$catan -C "$tmp/$p" sync >/dev/null
		$catan -C "$tmp/$p" step >/dev/null
	done
done
reads "$tmp/red"
reads "$tmp/blue"

# A simulated game: no reflogs at all ("red@{1}" made an empty one).
$catan simulate --games 1 --players 2 --seed 1 --out "$tmp/sim" >/dev/null 2>&1
reads "$tmp/sim/game-00000"

# A lock file another program holds, and a repository without catan.lock
# (as stock git clones it): a reader neither removes nor creates them.
: >"$tmp/red/refs/heads/red.lock"
: >"$tmp/red/packed-refs.lock"
reads "$tmp/red"
[[ -e $tmp/red/refs/heads/red.lock && -e $tmp/red/packed-refs.lock ]] ||
	fail "a read removed a lock file"
rm "$tmp/red/refs/heads/red.lock" "$tmp/red/packed-refs.lock"
git clone -q --mirror "$tmp/blue" "$tmp/clone"
[[ ! -e $tmp/clone/catan.lock ]] || fail "git clone copied catan.lock?"
reads "$tmp/clone"
[[ ! -e $tmp/clone/catan.lock ]] || fail "a read created catan.lock"
echo "ok 1 - $n read commands (failing ones included) left the repository as it was"
echo "1 passed, 0 failed"
