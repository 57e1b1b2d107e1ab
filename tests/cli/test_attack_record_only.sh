#!/usr/bin/env bash
# Evidence a peer holds only in its record (attack by a helper, 29
# November): white signs three moves X, Y, Z on one commit. Red is shown
# Y, blue X; they sync and both record {X, Y}. Then blue alone is shown Z
# (the smallest id of the three), which it keeps only through its record
# (refs/catan/equivocation-a/-b): no branch it serves holds Z. Before,
# red never learnt of Z and the two peers kept different records for
# good. Now a peer serves its record's two children and every sync
# offers them to the other's record, so both keep {Z, min(X, Y)}.
# Once for each way the evidence can travel from blue to red: a path
# remote, git:// (catan serve), a bundle, a shared repository with the
# hook (pushed there, taken from there). A last case shows that a
# record holding no proof (two moves by two seats) is ignored with a
# sentence and changes nothing.
# Usage: test_attack_record_only.sh CATAN_BINARY
set -uo pipefail; catan=$1; d=$(mktemp -d); C=$catan
server=
trap '[[ -n $server ]] && kill $server 2>/dev/null; rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done

# setup G: the game in G with red recording {X, Y} and blue {Z, ...}
# (record_only_game, lib.sh).
setup() { record_only_game $C $1 $d; }

# same G WHAT: red and blue keep the same record and tips, verify clean.
same() {
	records_agree $C $1 "$2"
	echo "ok: $2"
}

# 1. A path remote.
g=$d/path; setup $g
$C -C $g/red sync blue | grep -q "^equivocation: white signed" ||
	fail "path: red reported no proof from blue's record"
same $g "path remote"

# 2. git:// through catan serve (libgit2's fetch).
g=$d/net; setup $g
port=$((20000 + RANDOM % 20000))
$C -C $g/blue serve --port $port >$d/serve.log 2>&1 &
server=$!
for i in $(seq 1 50); do grep -q serving $d/serve.log && break; sleep 0.1; done
$C -C $g/red remote add blue-net git://127.0.0.1:$port/
$C -C $g/red sync blue-net | grep -q "^equivocation: white signed" ||
	fail "git://: red reported no proof from blue's record"
kill $server; wait $server 2>/dev/null; server=
same $g "git:// remote"
# A second sync brings nothing and says nothing of evidence.
$C -C $g/blue serve --port $port >$d/serve.log 2>&1 &
server=$!
for i in $(seq 1 50); do grep -q serving $d/serve.log && break; sleep 0.1; done
$C -C $g/red sync blue-net | grep -q "equivocation" &&
	fail "git://: the same evidence was taken again"
kill $server; wait $server 2>/dev/null; server=

# 3. A bundle.
g=$d/bundle; setup $g
$C -C $g/blue bundle create $d/stick.bundle >/dev/null || fail "bundle create"
$C -C $g/red bundle apply $d/stick.bundle | grep -q "^equivocation: white signed" ||
	fail "bundle: red reported no proof from blue's record"
same $g "bundle"

# 4. A shared repository, the only way between red and blue: each pushes
#    its record's pair there, and takes the pair found there. (catan sync
#    writes a path remote itself and runs no hook.)
g=$d/hub; setup $g
git init -q --bare $g/hub.git
git -C $g/red push -q $g/hub.git red:refs/heads/red
$C host-hook install $g/hub.git >/dev/null || fail "hook install"
for p in red blue; do $C -C $g/$p remote add hub $g/hub.git --push; done
out=$($C -C $g/red sync hub)
grep -q "pushed the equivocation record to hub" <<<"$out" || fail "hub: red's pair not pushed ($out)"
out=$($C -C $g/blue sync hub)
grep -q "pushed the equivocation record to hub" <<<"$out" || fail "hub: blue's pair not pushed ($out)"
$C -C $g/red sync hub | grep -q "^equivocation: white signed" ||
	fail "hub: red took no proof from the shared repository"
same $g "a shared repository"
$C -C $g/red sync hub | grep -q "equivocation record" && fail "hub: pushed again"

# 5. The hook of a shared repository (stock git push, which runs it)
#    takes a pair as a sync does (a proof, each child valid, the pair
#    every peer keeps of two), and refuses the others with the reason.
z=$(git -C $g/blue rev-parse refs/catan/equivocation-a)
m=$(git -C $g/blue rev-parse refs/catan/equivocation-b)
x=$(git -C $g/white rev-parse white); y=$(git -C $g/white2 rev-parse white)
git -C $g/white2 fetch -q $g/white white:refs/x
out=$(git -C $g/white2 push $g/hub.git +$x:refs/catan/equivocation-a +$y:refs/catan/equivocation-b 2>&1) &&
	fail "hook: a worse pair taken"
grep -q "the pair held here is kept" <<<"$out" || fail "hook: no reason for a worse pair ($out)"
out=$(git -C $g/blue push $g/hub.git +blue:refs/catan/equivocation-a +red:refs/catan/equivocation-b 2>&1) &&
	fail "hook: a pair that is no proof taken"
grep -q "not two moves signed by one seat" <<<"$out" || fail "hook: no reason for junk ($out)"
[[ $(git -C $g/hub.git rev-parse refs/catan/equivocation-a) == "$z" ]] ||
	fail "hook: a refused push moved the pair"
# The better pair over a worse one: taken.
git -C $g/hub.git update-ref refs/catan/equivocation-a $x
git -C $g/hub.git update-ref refs/catan/equivocation-b $y
git -C $g/blue push -q $g/hub.git +$z:refs/catan/equivocation-a +$m:refs/catan/equivocation-b 2>/dev/null ||
	fail "hook: the better pair refused"
# Children built on commits the repository lacks: not judged yet.
git init -q --bare $g/hub2.git
git -C $g/red push -q $g/hub2.git red:refs/heads/red
$C host-hook install $g/hub2.git >/dev/null || fail "hook install 2"
out=$(git -C $g/blue push $g/hub2.git +$z:refs/catan/equivocation-a +$m:refs/catan/equivocation-b 2>&1) &&
	fail "hook: a pair taken before the commits it builds on"
grep -q "cannot be judged here yet" <<<"$out" || fail "hook: no reason for an early pair ($out)"
# One push carrying the branches the pair builds on and the pair: the
# pair is judged against the branches as the push leaves them (before,
# against the branches before it: refused whole).
out=$(git -C $g/blue push $g/hub2.git 'refs/heads/*:refs/heads/*' \
	+$z:refs/catan/equivocation-a +$m:refs/catan/equivocation-b 2>&1) ||
	fail "hook: the branches and the pair in one push refused ($out)"
[[ $(git -C $g/hub2.git rev-parse refs/catan/equivocation-a refs/heads/white) == \
	"$(printf '%s\n' "$z" "$(git -C $g/blue rev-parse white)")" ]] ||
	fail "hook: the pair or the branches not where pushed"
echo "ok: the hook takes the pair every peer keeps and refuses a worse one, junk, and one it cannot judge yet; one push may carry branches and pair"

# 6. A record that is no proof (blue's own move and white's on another
#    commit) is ignored, with a sentence; red's record stays.
g=$d/junk; setup $g
before=$(git -C $g/red cat-file -p refs/catan/equivocation)
git -C $g/blue update-ref refs/catan/equivocation-a "$(git -C $g/blue rev-parse blue)"
git -C $g/blue update-ref refs/catan/equivocation-b "$(git -C $g/white rev-parse white)"
out=$($C -C $g/red sync blue)
grep -q "ignored the equivocation record of blue: .* are not two moves signed by one seat on one commit" <<<"$out" ||
	fail "junk evidence: no sentence ($out)"
[[ $(git -C $g/red cat-file -p refs/catan/equivocation) == "$before" ]] ||
	fail "junk evidence changed red's record"
$C -C $g/red verify >/dev/null || fail "junk evidence: verify at red"
echo "ok: a record that is no proof is ignored"
echo "defence held"
