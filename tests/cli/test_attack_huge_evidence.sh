#!/usr/bin/env bash
# Evidence pointing at a huge history costs a bounded amount (the "bounded
# cost" of every untrusted input): blue, dishonest, serves
# refs/catan/equivocation-a and -b at the tips of two long chains it made
# on white's branch instead of the pair it recorded. Red syncs blue over a
# path remote and over git:// (catan serve, libgit2's fetch):
#   1. unsigned chains of 5,000 commits each (canonical "end" commits):
#      over the path, the copy stops at the first commit (no signature),
#      the record is ignored with a sentence; over git:// the fetch is cut
#      by CATAN_SYNC_MAX_COMMITS (1000) and nothing is stored;
#   2. chains of 130 commits signed by white's own key, each one a valid
#      form (so the copy goes on past the first), with
#      CATAN_SYNC_MAX_COMMITS=50: over the path the copy stops at the
#      limit, over git:// the fetch is refused by it (its 260 commits,
#      one tree, are over 4 x 50 objects; chains are signed by a process
#      each, so kept short).
# Each time: red's record, tips and verify are as before, its object
# store grew by less than 200 KB, and the sync's CPU time is bounded.
#   3. then blue serves the pair it recorded, its branches unchanged:
#      fetched again (the memory of a refused fetch covers the evidence
#      refs too), and red and blue keep the same record.
# Usage: test_attack_huge_evidence.sh CATAN_BINARY
set -uo pipefail
C=$(readlink -f "$1")
d=$(mktemp -d)
server=
trap '[[ -n $server ]] && kill $server 2>/dev/null; rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for p in red blue white; do $C key new "$d/key_$p" >/dev/null 2>&1; done
g=$d/g
record_only_game $C $g $d
tip=$(git -C $g/blue rev-parse white)
pair=$(git -C $g/blue rev-parse refs/catan/equivocation-a refs/catan/equivocation-b)
tree=$(git -C $g/blue rev-parse "$tip^{tree}")
record=$(git -C $g/red cat-file -p refs/catan/equivocation)
tips=$(git -C $g/red for-each-ref refs/heads)
kb() { du -sk "$1/objects" | cut -f1; }
base=$(kb $g/red)
# CPU time (user + system) of a sync, in ms, as test_hostile.sh bounds it
# (AddressSanitizer's build is 4-8 times dearer).
bound=2000
[[ -n ${CATAN_SANITIZED:-} ]] && bound=8000
TIMEFORMAT='%U %S'
timed_sync() { # timed_sync REMOTE ENV...: the sync's output in $out, CPU in $ms
	local remote=$1
	shift
	{ time out=$(env "$@" $C -C $g/red sync "$remote" 2>&1); } 2>$d/cpu
	ms=$(tail -n 1 $d/cpu | awk '{printf "%d", ($1 + $2) * 1000}')
}
unchanged() { # unchanged WHAT
	[[ $(git -C $g/red cat-file -p refs/catan/equivocation) == "$record" ]] ||
		fail "$1: red's record changed"
	[[ $(git -C $g/red for-each-ref refs/heads) == "$tips" ]] ||
		fail "$1: red's branches moved"
	$C -C $g/red verify >/dev/null || fail "$1: verify at red"
	local grew=$(($(kb $g/red) - base))
	((grew < 200)) || fail "$1: red's objects grew by $grew KB"
	((ms <= bound)) || fail "$1: the sync took $ms ms of CPU (bound $bound)"
	echo "ok: $1 ($ms ms of CPU, objects +$grew KB)"
}

port=$((20000 + RANDOM % 20000))
$C -C $g/red remote add blue-net git://127.0.0.1:$port/
serve() {
	$C -C $g/blue serve --port $port >$d/serve.log 2>&1 &
	server=$!
	for i in $(seq 1 50); do grep -q serving $d/serve.log && break; sleep 0.1; done
}
unserve() { kill $server; wait $server 2>/dev/null; server=; }
# both_ways LIMIT WHAT WHY: red syncs blue over the path (the record
# ignored, WHY said) and over git:// (the fetch refused by
# CATAN_SYNC_MAX_COMMITS=LIMIT), unchanged after each.
both_ways() {
	timed_sync blue CATAN_SYNC_MAX_COMMITS=$1
	grep -q "ignored the equivocation record of blue: cannot copy .*$3" <<<"$out" ||
		fail "$2, path: not ignored with '$3' ($out)"
	unchanged "$2, path remote"
	serve
	timed_sync blue-net CATAN_SYNC_MAX_COMMITS=$1
	unserve
	grep -q "refused blue-net: .*CATAN_SYNC_MAX_COMMITS ($1)" <<<"$out" ||
		fail "$2, git://: not refused by the limit ($out)"
	unchanged "$2, git://"
}

# 1. Unsigned chains.
junk() { # junk COUNT REF: a fast-import stream of a chain on white's tip
	local k
	for ((k = 1; k <= $1; k++)); do
		printf 'commit %s\nmark :%d\n' "$2" "$k"
		printf 'author white <white@catan> 1700000000 +0000\n'
		printf 'committer white <white@catan> 1700000000 +0000\n'
		printf 'data 27\nend\n\nPlayer: white\nTurn: %d\n\n' $((k % 10))
		if ((k == 1)); then printf 'from %s\n' "$tip"; else printf 'from :%d\n' $((k - 1)); fi
		printf 'M 040000 %s \n\n' "$tree"
	done
}
for k in a b; do
	junk 5000 refs/catan/equivocation-$k | git -C $g/blue fast-import --quiet --force
done
both_ways 1000 "5,000 unsigned commits under each evidence ref" "not signed"

# 2. Chains signed by white's own key (white has the key: it is white
#    that misbehaves here, through blue's repository).
signed_chain() { # signed_chain COUNT REF DATE
	local k c=$tip
	for ((k = 1; k <= $1; k++)); do
		c=$(printf 'end\n\nPlayer: white\nTurn: %d\n' $((k % 10)) |
			GIT_AUTHOR_NAME=white GIT_AUTHOR_EMAIL=white@catan \
			GIT_COMMITTER_NAME=white GIT_COMMITTER_EMAIL=white@catan \
			GIT_AUTHOR_DATE="$3 +0000" GIT_COMMITTER_DATE="$3 +0000" \
			git -C $g/blue -c gpg.format=ssh -c user.signingkey="$d/key_white" \
			commit-tree -S "$tree" -p "$c") || fail "signing a chain"
	done
	git -C $g/blue update-ref "$2" "$c"
}
signed_chain 130 refs/catan/equivocation-a 1700000000
signed_chain 130 refs/catan/equivocation-b 1700000001
git -C $g/blue cat-file commit refs/catan/equivocation-a | grep -q '^gpgsig' ||
	fail "the chain is not signed (no test)"
both_ways 50 "130 signed commits under each evidence ref" "CATAN_SYNC_MAX_COMMITS"

# 3. Blue then serves the pair it recorded, its branches where they were
#    (after an equivocation no branch moves): fetched again, not refused
#    by the memory of the refusal (before, "its branches have not moved
#    since" kept red from ever learning the pair), and red takes it.
set -- $pair
git -C $g/blue update-ref refs/catan/equivocation-a $1
git -C $g/blue update-ref refs/catan/equivocation-b $2
serve
out=$(CATAN_SYNC_MAX_COMMITS=100 $C -C $g/red sync blue-net 2>&1)
unserve
grep -q "^equivocation: white signed" <<<"$out" ||
	fail "the honest pair after a refusal: not taken ($out)"
records_agree $C $g "the honest pair after a refusal"
echo "ok: the pair blue recorded, served after the refusals, is taken"
echo "defence held"
