#!/usr/bin/env bash
# A late fork (attack by a helper, 29 November): white signs two moves X1
# and Y1 on one commit, shows only X1, and the game goes on on X1 for a
# few turns, blue's and red's moves among white's own; then Y1 reaches
# red and blue. Both record the verdict and move their branches back to
# the fork, but white's branch (kept where each peer saw it) still holds
# blue's and red's voided commits: catan verify must not call them "not
# on its own branch" (a commit the verdict voids counts for nothing).
# Before, verify failed at both peers.
# Usage: test_attack_late_fork.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; C=$catan
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done
g=$d/g; trio_game $C $g $d seeded
cp -a $g/white $g/white2
y=$($C -C "$g/white2" legal --as white | sed -n 2p); $C -C $g/white2 act --as white $y >/dev/null
syncall() { for p in red blue white; do $C -C $g/$p sync >/dev/null 2>&1; done; }
for i in $(seq 1 40); do
  a=$($C -C "$g/red" show --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["active"], j["turn"], j["phase"])')
  set -- $a
  if [[ $1 == red && $2 -ge 6 ]]; then break; fi
  $C -C $g/$1 step --max 1 >/dev/null 2>&1
  syncall
done
echo "state: $a"
for p in red blue; do $C -C $g/$p remote add white2 $g/white2; echo "--- $p sync white2"; $C -C $g/$p sync white2; done
$C -C $g/red sync blue >/dev/null 2>&1; $C -C $g/blue sync origin >/dev/null 2>&1
bad=0
for p in red blue; do
	echo "-- $p record"
	git -C $g/$p cat-file -p refs/catan/equivocation || { echo "FAIL: no verdict at $p"; bad=1; }
	$C -C $g/$p verify || { echo "FAIL: verify at $p"; bad=1; }
	git -C $g/$p for-each-ref refs/catan/quarantine | grep . && { echo "FAIL: $p blamed a relayer"; bad=1; }
done
[[ $(git -C $g/red cat-file -p refs/catan/equivocation) == $(git -C $g/blue cat-file -p refs/catan/equivocation) ]] ||
	{ echo "FAIL: the records differ"; bad=1; }
for b in red blue; do
	[[ $(git -C $g/red rev-parse $b) == $(git -C $g/blue rev-parse $b) ]] || { echo "FAIL: tips of $b differ"; bad=1; }
done

[[ $bad == 0 ]] && echo "defence held"
exit $bad
