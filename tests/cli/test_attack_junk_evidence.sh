#!/usr/bin/env bash
# Junk evidence from a dishonest peer (attack by a helper, 29 November):
# blue's refs/catan/equivocation-a/-b point at what is no equivocation (a
# blob, a tag, an object it lacks, two honest commits of two seats). Red,
# which syncs blue as a path remote, must say what it ignored, naming both
# objects, and keep all it holds. Before, a path remote's pair that could
# not be copied (a blob, a tag, a missing object) was dropped without a
# word, and the sentence for a pair that is no proof named one id twice
# (git_oid_tostr_s has one buffer).
# Usage: test_attack_junk_evidence.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); C=$catan
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done
g=$d/g
trio_game $C $g $d seeded
b=$g/blue
refs() { git -C $g/red for-each-ref --format='%(refname) %(objectname)' refs/heads refs/catan/quarantine refs/catan/equivocation; }
before=$(refs)
bc=$(git -C $b rev-parse blue); rc=$(git -C $b rev-parse red)
blob=$(echo junk | git -C $b hash-object -w --stdin)
tag=$(printf 'object %s\ntype commit\ntag t\ntagger x <x@x> 0 +0000\n\nm\n' $bc | git -C $b mktag)
# try WHAT A B PATTERN: blue's pair is A, B; red's sync says PATTERN.
try() {
	git -C $b update-ref refs/catan/equivocation-a $2
	git -C $b update-ref refs/catan/equivocation-b $3
	out=$($C -C $g/red sync blue 2>&1) || fail "$1: red's sync failed ($out)"
	grep -q "$4" <<<"$out" || fail "$1: no sentence naming it ($out)"
	[[ $(refs) == "$before" ]] || fail "$1: red's refs changed"
	echo "ok: $1"
}
try "a blob" $blob $bc "ignored the equivocation record of blue: cannot copy ${blob:0:10}"
try "a tag" $tag $bc "ignored the equivocation record of blue: cannot copy ${tag:0:10}"
try "two seats' commits" $bc $rc "ignored the equivocation record of blue: ${bc:0:10} and ${rc:0:10} are not"
try "one commit twice" $bc $bc "ignored the equivocation record of blue: ${bc:0:10} and ${bc:0:10} are not"
# An object blue lacks (a loose ref file naming it).
git -C $b update-ref -d refs/catan/equivocation-a
echo 1234567890123456789012345678901234567890 >"$(git -C $b rev-parse --absolute-git-dir)/refs/catan/equivocation-a"
out=$($C -C $g/red sync blue 2>&1) || fail "missing: red's sync failed ($out)"
grep -q "ignored the equivocation record of blue: cannot copy 1234567890" <<<"$out" ||
	fail "missing: no sentence naming it ($out)"
[[ $(refs) == "$before" ]] || fail "missing: red's refs changed"
$C -C $g/red verify >/dev/null || fail "verify at red"
echo "ok: an object blue lacks"
echo "defence held"
