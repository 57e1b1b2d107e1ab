#!/usr/bin/env bash
# Commit times of a simulated game (spec/format.md, "Commits"): the
# genesis at the seed's date, every other commit one second after the
# latest of its parents, author and committer alike, so that the dates
# are distinct along every branch, rise with the history, and a seed
# still gives byte-identical repositories.
# Usage: test_commit_times.sh CATAN_BINARY
set -euo pipefail
catan=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }

for run in a b; do
	$catan simulate --games 2 --players 3 --seed 41 --out "$tmp/$run" --quiet
done
for g in game-00000 game-00001; do
	d=$tmp/a/$g
	seed=$((41 + ${g#game-0000}))
	[[ $(git -C "$d" rev-parse --all) == $(git -C "$tmp/b/$g" rev-parse --all) ]] ||
		fail "$g: the same seed gave other commits"
	# %H %at %ct %P for every commit; times by id for the parents.
	git -C "$d" log --all --format='%H %at %ct %P' >"$tmp/log"
	awk -v base=$((1700000000 + seed)) '
		{ id[NR] = $1; at[$1] = $2; ct[$1] = $3; np[NR] = NF - 3
		  for (i = 4; i <= NF; i++) par[NR, i - 3] = $i }
		END {
			for (k = 1; k <= NR; k++) {
				c = id[k]; want = base
				for (i = 1; i <= np[k]; i++)
					if (ct[par[k, i]] + 1 > want) want = ct[par[k, i]] + 1
				if (ct[c] != want || at[c] != ct[c]) {
					printf "%s: author %s committer %s, want %s\n", c, at[c], ct[c], want
					bad = 1
				}
			}
			exit bad
		}' "$tmp/log" || fail "$g: commit times"
	# Along the first-parent chain of each branch, one second per action.
	for b in $(git -C "$d" for-each-ref --format='%(refname:short)' refs/heads); do
		[[ $(git -C "$d" log --first-parent --format=%ct "$b" | sort | uniq -d | wc -l) == 0 ]] ||
			fail "$g: two commits of one date on $b's first-parent chain"
	done
	commits=$(wc -l <"$tmp/log")
	dates=$(cut -d' ' -f3 "$tmp/log" | sort -u | wc -l)
	[[ $dates -gt $((commits * 9 / 10)) ]] || fail "$g: $dates dates for $commits commits"
done
ok "simulated commits: genesis at the seed's date, each a second after its latest parent ($dates dates for $commits commits), same seed byte-identical"
