#!/usr/bin/env bash
# A dishonest host signs an invalid second child Y of its start S1 and
# shows it to white through hubB, while blue holds the host's legal
# placement X on S1 (hubA). SUBJECT says what Y is: 'end' (an illegal
# move during the first placement, tree unchanged) or 'start' (a commit
# merely called a start: one parent, S1). Only a second child valid in
# every other way is a proof, and two starts only when each is a sound
# start (spec/replication.md, "Equivocation"): the verification judges
# Y at blue (which meets it as a second child) as at white (which meets
# it first), so neither records a verdict and both refuse Y. Without
# that, blue took any two signed children (or any two commits called
# 'start', voiding the game back to the genesis) for a proof and stopped
# the game while white played on.
# Usage: test_attack_invalid_child.sh CATAN_BINARY [end|start]
set -euo pipefail
catan=$1
subject=${2:-end}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$tmp
for k in red blue white; do $catan key new "$d/key_$k" >/dev/null 2>&1; done

git init -q --bare "$d/hub.git"
git init -q --bare "$d/hubA.git"
git init -q --bare "$d/hubB.git"
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
$catan -C "$d/red" sync | grep -q "started the game" || fail "(setup) no start"
for j in blue white; do $catan -C "$d/$j" sync >/dev/null; done
start=$(git -C "$d/red" rev-parse red)
[[ $(git -C "$d/red" log -1 --format=%s red) == start ]] || fail "(setup) red's tip is not the start"
for j in blue white; do
	[[ $(git -C "$d/$j" rev-parse red) == "$start" ]] || fail "(setup) $j lacks the start"
done

# Red's honest first placement X, pushed (stock git) to hubA only.
$catan -C "$d/red" step >/dev/null
x=$(git -C "$d/red" rev-parse red)
[[ $x != "$start" ]] || fail "(setup) red did not move"
git -C "$d/red" push -q "$d/hubA.git" red
# The invalid child: signed by red, parent the real start, to hubB only.
y=$(printf '%s\n\nPlayer: red\nTurn: 0\n' "$subject" |
	GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan \
		GIT_COMMITTER_NAME=red GIT_COMMITTER_EMAIL=red@catan \
		git -C "$d/red" -c gpg.format=ssh -c user.signingkey="$d/key_red" \
		commit-tree -S "$start^{tree}" -p "$start")
git -C "$d/red" push -q "$d/hubB.git" "$y:refs/heads/red"

$catan -C "$d/blue" remote add hubA "$d/hubA.git"
$catan -C "$d/blue" remote add hubB "$d/hubB.git"
$catan -C "$d/white" remote add hubB "$d/hubB.git"
$catan -C "$d/blue" sync hubA >/dev/null 2>&1 || true
[[ $(git -C "$d/blue" rev-parse red) == "$x" ]] || fail "(setup) blue did not adopt X"
out_w1=$($catan -C "$d/white" sync hubB 2>&1 || true)
out_b=$($catan -C "$d/blue" sync hubB 2>&1 || true)
# now the two honest peers sync with each other, both ways, twice
$catan -C "$d/blue" remote add white "$d/white"
$catan -C "$d/white" remote add blue "$d/blue"
for i in 1 2; do
	o1=$($catan -C "$d/white" sync blue 2>&1 || true)
	o2=$($catan -C "$d/blue" sync white 2>&1 || true)
done
echo "--- white met the fake:"; echo "$out_w1"
echo "--- blue met the fake:"; echo "$out_b"
echo "--- last syncs:"; echo "$o1"; echo "$o2"
vb=$(git -C "$d/blue" cat-file -p refs/catan/equivocation 2>/dev/null || echo none)
vw=$(git -C "$d/white" cat-file -p refs/catan/equivocation 2>/dev/null || echo none)
echo "--- blue's verdict:"; echo "$vb"
echo "--- white's verdict:"; echo "$vw"
bad=0
[[ $vb == none ]] || { echo "FAIL: an invalid second child made a verdict at blue" >&2; bad=1; }
[[ $vb == "$vw" ]] || { echo "FAIL: honest blue and white record different verdicts after syncing with each other" >&2; bad=1; }
for b in blue white; do # (the equivocator's own branch stays where each saw it, by design)
	tb=$(git -C "$d/blue" rev-parse $b) tw=$(git -C "$d/white" rev-parse $b)
	[[ $tb == "$tw" ]] || { echo "FAIL: tips of $b differ: blue ${tb:0:10}, white ${tw:0:10}" >&2; bad=1; }
done
if grep -q "^parent $genesis" <<<"$vb$vw"; then
	grep -q "$y" <<<"$vb$vw" &&
		{ echo "FAIL: a non-start (${y:0:10}, subject 'start', parent ${start:0:10}) made a verdict voiding the game back to the genesis" >&2; bad=1; }
fi
for j in blue white; do
	v=$($catan -C "$d/$j" verify 2>&1) || { echo "FAIL: verify at $j: $v" >&2; bad=1; }
done
[[ $bad == 0 ]] && echo "defence held"
exit $bad
