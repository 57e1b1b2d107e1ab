#!/usr/bin/env bash
# A bundle that plants refs (attack by a helper, 29 November): catan
# bundle apply fetched +refs/catan/equivocation-*:refs/catan/evidence/
# bundle/*, so a bundle made with stock git holding
# refs/catan/equivocation-a/x left refs/catan/evidence/bundle/a/x behind,
# and from then on every bundle carrying an equivocation record (an
# honest peer's) failed whole: "cannot lock ref ... a/x exists", "cannot
# read FILE as a bundle", its branches not taken either.
# Usage: test_attack_bundle_refs.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); C=$catan
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done
g=$d/g
trio_game $C $g $d seeded
b=$g/blue
git -C $b update-ref refs/catan/equivocation-a/x "$(git -C $b rev-parse blue)"
git -C $b bundle create -q $d/evil.bundle --branches --glob='refs/catan/equivocation-*'
$C -C $g/red bundle apply $d/evil.bundle >/dev/null 2>&1
git -C $b update-ref -d refs/catan/equivocation-a/x
# Blue's next bundle carries a pair (here no proof: red says so): this
# later bundle must be read whole, and the pair judged.
git -C $b update-ref refs/catan/equivocation-a "$(git -C $b rev-parse blue)"
git -C $b update-ref refs/catan/equivocation-b "$(git -C $b rev-parse red)"
$C -C $g/blue bundle create $d/good.bundle >/dev/null || fail "bundle create"
out=$($C -C $g/red bundle apply $d/good.bundle 2>&1)
grep -q "cannot read" <<<"$out" && fail "a planted ref broke every later bundle ($out)"
grep -q "ignored the equivocation record of bundle" <<<"$out" || fail "the pair was not judged ($out)"
echo "defence held"
