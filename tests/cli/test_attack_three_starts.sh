#!/usr/bin/env bash
# A dishonest host signs three sound starts S1, S2, S3 of one lobby (one
# claim, three times) and pushes one to each of three hubs. Honest blue
# (the open seat) follows hub1, honest white (a bound seat) hub3; then
# both fetch hub2, so blue proves {S1,S2} and white {S2,S3}, both at the
# genesis. Once blue and white have synced with each other every peer
# holds the same record: of one seat's children at one parent it names
# the two smallest ids known (spec/replication.md, "Equivocation").
# Without that, each kept the first pair it found, and the two records
# never became the same bytes.
# Usage: test_attack_three_starts.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
d=$tmp
for k in red blue white; do $catan key new "$d/key_$k" >/dev/null 2>&1; done
for h in hub1 hub2 hub3; do git init -q --bare "$d/$h.git"; done
$catan new "$d/red1" --players red,white,blue --me red --seed 5 --dice seeded \
	--key "$d/key_red" --open blue --seat white="$d/key_white.pub" >/dev/null
genesis=$(git -C "$d/red1" rev-parse red)
cp -a "$d/red1" "$d/red2"
cp -a "$d/red1" "$d/red3"
for i in 1 2 3; do
	$catan -C "$d/red$i" remote add hub$i "$d/hub$i.git" --push
	$catan -C "$d/red$i" sync >/dev/null
done
$catan join "$d/hub1.git" "$d/blue" --as blue --key "$d/key_blue" >/dev/null
$catan -C "$d/blue" remote push origin
$catan -C "$d/blue" sync >/dev/null
git -C "$d/blue" push -q "$d/hub2.git" blue
git -C "$d/blue" push -q "$d/hub3.git" blue
for i in 1 2 3; do
	$catan -C "$d/red$i" sync | grep -q "started the game" || fail "(setup) red$i did not start"
	sleep 1
done
$catan join "$d/hub3.git" "$d/white" --as white --key "$d/key_white" >/dev/null
$catan -C "$d/blue" sync >/dev/null
$catan -C "$d/white" sync >/dev/null
s() { git -C "$1" log --first-parent --format='%H %s' red | awk '$2 == "start" { print $1 }'; }
[[ $(s "$d/blue") != "$(s "$d/white")" && -n $(s "$d/blue") && -n $(s "$d/white") ]] ||
	fail "(setup) blue and white hold the same start"
$catan -C "$d/blue" remote add hub2 "$d/hub2.git"
$catan -C "$d/white" remote add hub2 "$d/hub2.git"
ob=$($catan -C "$d/blue" sync hub2 2>&1 || true)
ow=$($catan -C "$d/white" sync hub2 2>&1 || true)
$catan -C "$d/blue" remote add white "$d/white"
$catan -C "$d/white" remote add blue "$d/blue"
for i in 1 2; do
	o1=$($catan -C "$d/white" sync blue 2>&1 || true)
	o2=$($catan -C "$d/blue" sync white 2>&1 || true)
done
echo "--- blue: $ob"; echo "--- white: $ow"; echo "--- then: $o1 / $o2"
vb=$(git -C "$d/blue" cat-file -p refs/catan/equivocation 2>/dev/null || echo none)
vw=$(git -C "$d/white" cat-file -p refs/catan/equivocation 2>/dev/null || echo none)
echo "--- blue's verdict:"; echo "$vb"; echo "--- white's verdict:"; echo "$vw"
bad=0
[[ $vb != none && $vw != none ]] || { echo "FAIL: an honest peer recorded no verdict" >&2; bad=1; }
[[ $vb == "$vw" ]] || { echo "FAIL: honest blue and white hold different verdict blobs after syncing with each other" >&2; bad=1; }
for b in blue white; do # (the equivocator's own branch stays where each saw it, by design)
	tb=$(git -C "$d/blue" rev-parse $b) tw=$(git -C "$d/white" rev-parse $b)
	[[ $tb == "$tw" ]] || { echo "FAIL: tips of $b differ: blue ${tb:0:10}, white ${tw:0:10}" >&2; bad=1; }
done
for j in blue white; do
	v=$($catan -C "$d/$j" verify 2>&1) || { echo "FAIL: verify at $j: $v" >&2; bad=1; }
	git -C "$d/$j" for-each-ref refs/catan/quarantine | grep . && { echo "FAIL: $j blamed a relayer" >&2; bad=1; }
done
[[ $bad == 0 ]] && echo "defence held"
exit $bad
