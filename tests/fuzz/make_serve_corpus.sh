#!/usr/bin/env bash
# Writes the seed corpus of fuzz_serve (tests/fuzz/corpus/serve/) with
# stock git and printf, against the game the harness makes (its ids do
# not change from run to run):
#   tests/fuzz/make_serve_corpus.sh build-fuzz/tests/fuzz/fuzz_serve [OUT]
# The first byte is the harness's mode: \000 upload-pack, \001 a push the
# check refuses, \003 a push it accepts.
set -euo pipefail
fuzzer=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${2:-$here/corpus/serve}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp GIT_AUTHOR_NAME=red GIT_COMMITTER_NAME=red \
	GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_EMAIL=red@catan \
	GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
mkdir -p "$tmp/empty"
FUZZ_SERVE_KEEP=$tmp/game.git "$fuzzer" -runs=0 "$tmp/empty" >/dev/null 2>&1
repo=$tmp/game.git
g=$(git -C "$repo" rev-parse refs/heads/red)
rm -rf "$out"
mkdir -p "$out"
pkt() { printf '%04x%s' $((${#1} + 4)) "$1"; }
# NAME MODE: the body from standard input, after the mode byte
put() { { printf "$2"; cat; } >"$out/$1"; }

{ pkt "command=ls-refs"; pkt "agent=git/2.39"; pkt "object-format=sha1"
	printf 0001; pkt "peel"; pkt "symrefs"; pkt "ref-prefix refs/heads/"
	printf 0000; } | put ls-refs '\000'
{ pkt "command=ls-refs"; printf 0000; } | put ls-refs-all '\000'
{ pkt "command=fetch"; pkt "object-format=sha1"; printf 0001
	pkt "thin-pack"; pkt "no-progress"; pkt "ofs-delta"
	pkt "want $g"$'\n'; pkt "have $g"$'\n'; pkt "done"$'\n'; printf 0000; } |
	put fetch-done '\000'
{ pkt "command=fetch"; printf 0001; pkt "want $g"$'\n'; pkt "done"$'\n'
	printf 0000; } | put fetch-all '\000'

# A push of blue: a commit on the genesis with its tree (a pack of one
# commit), and one adding a file (commit, tree, blob).
tree=$(git -C "$repo" rev-parse "$g^{tree}")
c1=$(git -C "$repo" commit-tree "$tree" -p "$g" -m "end turn")
blob=$(printf 'x\n' | git -C "$repo" hash-object -w --stdin)
tree2=$( (git -C "$repo" ls-tree "$tree"; printf '100644 blob %s\tzz\n' "$blob") |
	git -C "$repo" mktree)
c2=$(git -C "$repo" commit-tree "$tree2" -p "$g" -m "end turn")
zero=0000000000000000000000000000000000000000
push() { # OLD NEW REF CAPS: the body (the pack of NEW not in OLD)
	local line="$1 $2 $3"
	printf '%04x%s\0%s' $((${#line} + 5 + ${#4})) "$line" "$4"
	printf 0000
	printf '%s\n^%s\n' "$2" "$g" | git -C "$repo" pack-objects --stdout --revs 2>/dev/null
}
push "$g" "$c1" refs/heads/blue "report-status side-band-64k agent=git/2.39" |
	put push-blue '\003'
push "$g" "$c1" refs/heads/blue "report-status" | put push-blue-refused '\001'
push "$g" "$c2" refs/heads/white "report-status-v2 ofs-delta quiet" |
	put push-white-file '\003'
push "$zero" "$c2" refs/heads/new "report-status" | put push-new-ref '\003'
# two refs, and the pack of both
{
	line1="$g $c1 refs/heads/blue" line2="$g $c2 refs/heads/orange"
	printf '%04x%s\0report-status' $((${#line1} + 5 + 13)) "$line1"
	pkt "$line2"$'\n'
	printf 0000
	printf '%s\n%s\n^%s\n' "$c1" "$c2" "$g" |
		git -C "$repo" pack-objects --stdout --revs 2>/dev/null
} | put push-two '\003'
ls -l "$out"
