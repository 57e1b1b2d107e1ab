#!/usr/bin/env bash
# Equivocation in a signed game (spec/replication.md, "Equivocation"):
# white signs two different moves on one commit and shows one to red and
# the other to blue. Once red and blue sync with each other, both hold the
# same verdict (white, the commit, both moves), the same tips of the honest
# players' branches, neither blames the other (the relayer), and the game
# stops there: no one can act on. An unsigned game keeps calling a fork a
# rewritten history from whoever relayed it (the hole signatures close).
# Usage: test_equivocation.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp

for p in red blue white; do $catan key new "$d/key_$p" >/dev/null 2>&1; done

# game DIR [signed]: red hosts, blue and white join; full mesh of paths.
game() {
	local g=$1 sign=()
	mkdir -p "$g"
	[[ ${2:-} == signed ]] && sign=(--key "$d/key_red"
		--seat blue="$d/key_blue.pub" --seat white="$d/key_white.pub")
	$catan new "$g/red" --players red,blue,white --me red --seed 4 \
		"${sign[@]}" >/dev/null 2>&1
	for p in blue white; do
		local k=()
		[[ ${2:-} == signed ]] && k=(--key "$d/key_$p")
		$catan join "$g/red" "$g/$p" --as $p "${k[@]}" >/dev/null
	done
	for p in red blue white; do
		for q in red blue white; do
			[[ $p == "$q" || ($p != red && $q == red) ]] && continue
			$catan -C "$g/$p" remote add $q "$g/$q"
		done
	done
	# red and blue place; white's turn
	$catan -C "$g/red" step >/dev/null
	for p in blue white; do $catan -C "$g/$p" sync >/dev/null; done
	$catan -C "$g/blue" step >/dev/null
	for p in red white; do $catan -C "$g/$p" sync >/dev/null; done
	# white's first placement: white shows X (and its second placement on
	# it) to blue and Y to red (red's "white" is a copy of it); blue then
	# places its second settlement on the X side
	cp -a "$g/white" "$g/white2"
	x=$($catan -C "$g/white" legal --as white | sed -n 1p)
	y=$($catan -C "$g/white2" legal --as white | sed -n 2p)
	$catan -C "$g/white" act --as white $x >/dev/null
	$catan -C "$g/white" step >/dev/null
	$catan -C "$g/white2" act --as white $y >/dev/null
	git -C "$g/red" remote set-url white "$g/white2"
	$catan -C "$g/red" sync white >/dev/null
	$catan -C "$g/blue" sync white >/dev/null
	[[ $(git -C "$g/red" rev-parse white) != $(git -C "$g/blue" rev-parse white) ]] ||
		fail "the two sides are the same"
	blue_before=$(git -C "$g/blue" rev-parse blue)
	$catan -C "$g/blue" step >/dev/null
}

g=$d/signed
game "$g" signed
fork=$(git -C "$g/red" rev-parse white~1)



out_r=$($catan -C "$g/red" sync blue 2>&1) || fail "red's sync failed: $out_r"
out_b=$($catan -C "$g/blue" sync origin 2>&1) || fail "blue's sync failed: $out_b"
for out in "$out_r" "$out_b"; do
	grep -q "equivocation: white signed two different moves on ${fork:0:10}" <<<"$out" ||
		fail "no verdict: $out"
	grep -q "rejected [a-z]* from" <<<"$out" && fail "a relayer was blamed: $out"
done
for p in red blue; do
	git -C "$g/$p" for-each-ref refs/catan/quarantine | grep -q . &&
		fail "$p quarantined a relayer"
	v=$($catan -C "$g/$p" verify) || fail "verify at $p: $v"
	grep -q "^ok: " <<<"$v" || fail "verify at $p: $v"
	grep -q "^stopped: white signed two different moves on ${fork:0:10}" <<<"$v" ||
		fail "verify at $p does not say it stopped: $v"
	git -C "$g/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
done
[[ $(git -C "$g/red" cat-file -p refs/catan/equivocation) == \
	$(git -C "$g/blue" cat-file -p refs/catan/equivocation) ]] || fail "verdicts differ"
for b in red blue; do
	[[ $(git -C "$g/red" rev-parse $b) == $(git -C "$g/blue" rev-parse $b) ]] ||
		fail "tips of $b differ"
done
[[ $(git -C "$g/blue" rev-parse blue) == "$blue_before" ]] ||
	fail "blue's move on the voided side was not undone"
grep -q "moved blue back to ${blue_before:0:10}" <<<"$out_b" || fail "rewind not said: $out_b"
ok "white signs two moves on one commit, one shown to red and one to blue, and blue plays on its side: after red and blue sync with each other both hold the same verdict (white, the commit, both moves) and the same tips (blue's move on the voided side undone, kept in its reflog), and neither blames the other"

out=$($catan -C "$g/red" act --as red end 2>&1 || true)
grep -q "the game stopped at ${fork:0:10}: white signed two different moves" <<<"$out" ||
	fail "red may act on: $out"
# a third sync changes nothing and finds nothing new to blame
out=$($catan -C "$g/blue" sync 2>&1) || fail "sync after the verdict: $out"
grep -q "rejected [a-z]* from" <<<"$out" && fail "after the verdict: $out"
ok "the game stops at the fork: acting is refused, naming white and both moves; later syncs blame nobody"

# The same in an unsigned game: no proof, the relayer is blamed.
g=$d/unsigned
game "$g"
out=$($catan -C "$g/red" sync blue 2>&1 || true)
grep -q "rejected white from blue: history rewritten" <<<"$out" ||
	fail "unsigned: $out"
ok "without signatures the same fork is a rewritten history blamed on the relayer (blue)"
