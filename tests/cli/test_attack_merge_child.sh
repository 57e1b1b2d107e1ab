#!/usr/bin/env bash
# A fork child off the first-parent line (attack by a helper, 29
# November): manual dice; white rolls a 7 and both blue and white owe
# discards. White signs two discards D1 and D2 on its roll. Blue takes
# white's branch from a copy where D1 sits only as the second parent of
# white's "merge discards" (first parent: blue's discard); red takes D2
# as white's tip. When red and blue sync with each other both must find
# the proof (two children of the roll signed by white, whatever line
# holds them), record the same verdict and blame no relayer. Before,
# each called the other's copy of white's branch a rewritten history and
# quarantined the honest relayer; no verdict, the game went on split.
# Usage: test_attack_merge_child.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; C=$catan
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done
g=$d/g; trio_game $C $g $d manual
st() { $C -C "$g/red" show --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["active"], j["turn"], j["phase"], *[sum(p["hand"].values()) for p in j["players"]])'; }
hands() { $C -C "$1" show --json | python3 -c 'import json,sys; j=json.load(sys.stdin); print(*[sum(p["hand"].values()) for p in j["players"]])'; }
syncall() { for p in red blue white; do $C -C $g/$p sync >/dev/null 2>&1; done; }
for i in 1 2 3 4; do set -- $(st); $C -C $g/$1 step --max 1 >/dev/null 2>&1; syncall; done
# roll (manually) what gives blue and white cards, until both hold 8, then
# white rolls 7. The search below (a copy of the repository and a python3
# per candidate roll: about a minute) found "1 3" five times for this
# seed; those are rolled first, and the search takes over only if they do
# not reach the position (the rules or the bots changed).
known=("1 3" "1 3" "1 3" "1 3" "1 3")
for t in $(seq 1 40); do
  read a _t _ph r b w < <(st)
  [[ $a == white ]] && (( w > 7 && b > 7 && r <= 7 )) && break
  best=; bv=-1
  (( t <= ${#known[@]} )) && best=${known[t-1]}
  [[ -z $best ]] && for s in "1 1" "1 2" "1 3" "1 4" "1 5" "2 6" "3 6" "4 6" "5 6" "6 6"; do
    rm -rf $d/scr; cp -a $g/$a $d/scr
    $C -C $d/scr act --as $a roll $s >/dev/null 2>&1 || continue
    set -- $(hands $d/scr); v=$(( $2 + $3 - ( $1 > 6 ? 100 : 0 ) ))
    (( v > bv )) && { bv=$v; best=$s; }
  done
  $C -C $g/$a act --as $a roll $best >/dev/null; $C -C $g/$a act --as $a end >/dev/null
  syncall
done
read a _t _ph r b w < <(st); [[ $a == white ]] && (( w > 7 && b > 7 )) || { echo "FAIL: (setup) $(st)"; exit 1; }
$C -C $g/white act --as white roll 3 4 >/dev/null; syncall
$C -C $g/blue step --max 1 >/dev/null; syncall   # blue's discard
for i in 1 2; do cp -a $g/white $d/wA$i; l=$($C -C $d/wA$i legal --as white | sed -n ${i}p)
  $C -C $d/wA$i act --as white $l >/dev/null; done
cp -a $d/wA1 $d/wM1; $C -C $d/wM1 step --max 1 >/dev/null   # white's merge (+ robber) on D1
git -C $d/wM1 log --format='%h %an %s | parents %p' -4 white
for p in red blue; do $C -C $g/$p remote add wA2 $d/wA2; $C -C $g/$p remote add wM1 $d/wM1; done
$C -C $g/blue sync wM1 | grep -v ^now
$C -C $g/red sync wA2 | grep -v ^now
o1=$($C -C $g/red sync blue 2>&1); o2=$($C -C $g/blue sync origin 2>&1)
$C -C $g/red sync blue >/dev/null 2>&1; $C -C $g/blue sync origin >/dev/null 2>&1
echo "--- red sync blue: $o1"; echo "--- blue sync red: $o2"
bad=0
for p in red blue; do
  q=$(git -C $g/$p for-each-ref refs/catan/quarantine); [[ -n $q ]] && { echo "FAIL: $p quarantined: $q"; bad=1; }
  v=$(git -C $g/$p cat-file -p refs/catan/equivocation 2>/dev/null) || { echo "FAIL: $p recorded no verdict"; bad=1; }
  eval "v_$p=\$v"
done
[[ $v_red == "$v_blue" ]] || { echo "FAIL: verdicts differ"; bad=1; }
[[ $bad == 0 ]] && echo "defence held"
exit $bad
