#!/usr/bin/env bash
# Crash safety: kill -9 peers at random points while they commit or sync,
# many times. After every kill the repository must be consistent (git fsck
# clean, catan verify passes), no action the peer reported as done may be
# lost, and the peer must resume. Usage: test_crash.sh CATAN_BINARY [KILLS]
set -euo pipefail
catan=$1
kills=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

d=$tmp/g
mkdir -p "$d"
$catan new "$d/red" --players red,blue --me red --seed 21 >/dev/null
$catan join "$d/red" "$d/blue" --as blue >/dev/null
$catan -C "$d/red" remote add blue "$d/blue"

reported=0 killed=0 over=0
for i in $(seq 1 "$kills"); do
	for p in red blue; do
		before=$(git -C "$d/$p" rev-list --count --author="^$p " "$p")
		# Sync then play, and kill somewhere in between (0-30 ms).
		( $catan -C "$d/$p" sync >/dev/null 2>&1; exec $catan -C "$d/$p" step ) \
			>"$tmp/out" 2>/dev/null &
		pid=$!
		sleep "0.0$((RANDOM % 30))"
		if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
		wait "$pid" 2>/dev/null || true
		pkill -9 -P "$pid" 2>/dev/null || true
		said=$(grep -c "^$p " "$tmp/out" || true)
		reported=$((reported + said))
		after=$(git -C "$d/$p" rev-list --count --author="^$p " "$p")
		(( after - before >= said )) ||
			fail "kill $i: $p reported $said actions, $((after - before)) committed"
		grep -q "^over:" "$tmp/out" && over=1
	done
	# Consistent after every round of kills.
	if (( i % 10 == 0 )); then
		for p in red blue; do
			git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "kill $i: fsck $p"
			$catan -C "$d/$p" verify >/dev/null || fail "kill $i: verify $p"
		done
	fi
	(( over )) && break
done
# Both resume and reach the same end.
for round in $(seq 1 2000); do
	for p in red blue; do
		$catan -C "$d/$p" sync >/dev/null
		$catan -C "$d/$p" step | grep -q "^over:" && over=1
	done
	(( over )) && break
done
(( over )) || fail "the game did not finish after the kills"
for p in red blue; do $catan -C "$d/$p" sync >/dev/null; done
for p in red blue; do
	git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "final fsck $p"
	$catan -C "$d/$p" verify >/dev/null || fail "final verify $p"
done
[[ $(git -C "$d/red" rev-parse red blue) == $(git -C "$d/blue" rev-parse red blue) ]] ||
	fail "peers did not converge"
echo "ok 1 - $killed kill -9s during sync and commit; $reported reported actions all kept; fsck and verify clean; resumed to a winner"
echo "1 passed, 0 failed"
