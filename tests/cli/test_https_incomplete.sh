#!/usr/bin/env bash
# An https host that leaves objects out of the packs it sends: a blob of a
# new commit's tree, a subtree, or the commit's parent. The peer that
# fetched such a pack must refuse the commit with the reason (what is
# missing), blame nobody for it (no quarantine record: the commit is
# valid, the host's pack was not), and fetch the commit again at its next
# sync, so that once the host sends whole packs the commit is adopted.
# Before that, the peer had the commit object itself, so its fetches
# never asked for it again (a fetch wanted only tips it lacked and named
# its remote-tracking refs as haves) and it stayed refused for good.
#
# Both ways a peer fetches over https are tried: its own requests on the
# connection it keeps (protocol v2), and libgit2's (CATAN_HTTP_QUICK=0,
# protocol v0), which never asks again for a commit it has: then the
# remote is fetched whole into a repository of its own.
#
# The host is a small Python TLS server in front of a bare relay
# repository: the plain ref list (GET info/refs), protocol v2's ls-refs
# and fetch (POST git-upload-pack), and protocol v0 for libgit2 (the
# advertisement and the answers of `git upload-pack --stateless-rpc`);
# while the file `drop` exists, a pack is built by `git pack-objects` from
# `git rev-list --objects`, less the ids that file lists.
# Needs python3 and openssl; says "skipped" otherwise.
#   test_https_incomplete.sh CATAN_BINARY
set -euo pipefail
catan=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/https_host.sh
source "$here/../../tools/https_host.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$here/lib.sh"
tls_host_env 13
export GIT_SSL_CAINFO=$tmp/ca.crt CATAN_HTTP_TOKEN=x
git init -q --bare "$tmp/relay.git"
python3 - "$here" "$tmp/server.crt" "$tmp/server.key" "$tmp/relay.git" "$tmp/drop" \
	>>"$tmp/host.log" 2>&1 <<'EOF' &
import os, subprocess, sys
sys.path.insert(0, sys.argv[1])
from tls_host import answer, pkt, serve
cert, key, repo, drop = sys.argv[2:6]
def git(*args, inp=None):
    return subprocess.run(["git", "-C", repo] + list(args), input=inp,
                          stdout=subprocess.PIPE, check=True).stdout
def lines(body):
    out, i = [], 0
    while i + 4 <= len(body):
        n = int(body[i:i + 4], 16)
        out.append(body[i + 4:i + n].rstrip(b"\n") if n > 4 else None)
        i += max(n, 4)
    return out
def refs():
    text = git("for-each-ref", "--format=%(objectname) %(refname)").decode()
    return [l.split(" ", 1) for l in text.splitlines()]
def fetch(req):
    wants = [l[5:].decode() for l in req if l and l.startswith(b"want ")]
    haves = [l[5:].decode() for l in req if l and l.startswith(b"have ")]
    known = [h for h in haves
             if subprocess.run(["git", "-C", repo, "cat-file", "-e", h]).returncode == 0]
    ids = [l.split(b" ")[0] for l in
           git("rev-list", "--objects", *wants, "--not", *known).splitlines()]
    left = set()
    if os.path.exists(drop):
        left = set(open(drop, "rb").read().split())
    print("fetch: %d wants, %d haves, %d objects, %d left out"
          % (len(wants), len(haves), len(ids), len(left & set(ids))), flush=True)
    pack = git("pack-objects", "--stdout", "-q",
               inp=b"".join(i + b"\n" for i in ids if i not in left))
    out = pkt(b"packfile\n")
    for k in range(0, len(pack), 65000):
        out += pkt(b"\x01" + pack[k:k + 65000])
    return out + b"0000"
def handle(c, method, path, hdr, body):
    if method == b"GET" and path == b"/game.git/info/refs?service=git-upload-pack":
        adv = subprocess.run(["git", "upload-pack", "--stateless-rpc",
                              "--advertise-refs", repo],
                             stdout=subprocess.PIPE, check=True).stdout
        answer(c, b"200 OK", pkt(b"# service=git-upload-pack\n") + b"0000" + adv,
               "application/x-git-upload-pack-advertisement")
    elif method == b"POST" and path == b"/game.git/git-upload-pack" and \
            b"command=" not in body[:24]:
        # (protocol version 0, libgit2's: honest, or the pack as
        # fetch() makes it once the client says done)
        if not os.path.exists(drop):
            out = subprocess.run(["git", "upload-pack", "--stateless-rpc", repo],
                                 input=body, stdout=subprocess.PIPE, check=True).stdout
        elif b"0009done\n" in body:
            req = [l.split(b" ")[0] + b" " + l.split(b" ")[1] if l and l.startswith(b"want ") else l
                   for l in lines(body)]
            out = b"0008NAK\n" + fetch(req)[len(pkt(b"packfile\n")):]
        else:
            out = b"0008NAK\n"
        answer(c, b"200 OK", out)
    elif method == b"GET" and path == b"/game.git/info/refs":
        text = "".join("%s\t%s\n" % (i, r) for i, r in refs())
        answer(c, b"200 OK", text.encode(), "text/plain")
    elif method == b"POST" and path == b"/game.git/git-upload-pack":
        req = lines(body)
        if b"command=ls-refs" in req:
            out = b"".join(pkt(("%s %s\n" % (i, r)).encode()) for i, r in refs())
            answer(c, b"200 OK", out + b"0000")
        elif b"command=fetch" in req:
            answer(c, b"200 OK", fetch(req))
        else:
            answer(c, b"400 Bad Request", b"")
    else:
        answer(c, b"404 Not Found", b"", "text/plain")
serve(cert, key, handle)
EOF
tls_host_wait "$tmp/host.log"
url=https://localhost:$port/game.git

n=0
# new_red [ARG...]: a new 2-player game at red (catan new with the ARGs),
# an empty relay it pushes to over a path; no blue yet.
new_red() {
	rm -rf "$tmp/red" "$tmp/blue" "$tmp/relay.git"
	git init -q --bare "$tmp/relay.git"
	$catan new "$tmp/red" --players red,blue --me red --seed 9 "$@" >/dev/null 2>&1
	$catan -C "$tmp/red" remote add relay "$tmp/relay.git" --push >/dev/null
}

# case_ WHAT PICK MOVE...: red plays the MOVEs; the host leaves out what
# PICK names of red's new commits (blob: a file that differs from the
# parent's tree; tree: the new commit's tree; parent: the first of the
# two new commits); blue's sync refuses them, saying what is missing, and
# records nothing against red; with the host honest again, blue's next
# sync adopts red's moves.
# first_file TIP: the id of the first file red's commit TIP changed
first_file() {
	git -C "$tmp/red" diff-tree -r "$1~1" "$1" | awk '$2 == "100644" { print $4; exit }'
}

# adopted_next_sync LABEL TIP [EARLIER]: blue's next sync from the host
# (honest again) adopts red's branch at TIP; EARLIER is the output of the
# sync before, shown when it does not.
adopted_next_sync() {
	local label=$1 at=$2 earlier=${3:-}
	$catan -C "$tmp/blue" sync origin >"$tmp/out2" 2>&1 ||
		fail "$label: the next sync: $(cat "$tmp/out2")"
	[[ $(git -C "$tmp/blue" rev-parse red) == "$at" ]] ||
		fail "$label: the next sync did not adopt red's moves: ${earlier:+$(cat "$earlier") / }$(cat "$tmp/out2")"
}

case_() {
	local what=$1 pick=$2
	shift 2
	local before
	before=$(git -C "$tmp/red" rev-parse red)
	for mv in "$@"; do
		# shellcheck disable=SC2086 # (a move is several words)
		$catan -C "$tmp/red" act $mv >/dev/null || fail "$what: red's $mv"
	done
	$catan -C "$tmp/red" sync >/dev/null
	local tip left
	tip=$(git -C "$tmp/red" rev-parse red)
	case $pick in
	blob) left=$(first_file "$tip") ;;
	tree) left=$(git -C "$tmp/red" rev-parse "$tip^{tree}") ;;
	parent) left=$(git -C "$tmp/red" rev-parse "$tip~1") ;;
	fair) left=$(git -C "$tmp/red" rev-parse "$tip:fair-red") ;;
	esac
	[[ -n $left ]] || fail "$what: nothing to leave out"
	echo "$left" >"$tmp/drop"
	: >"$tmp/host.log"
	$catan -C "$tmp/blue" sync origin >"$tmp/out" 2>&1 || true
	rm -f "$tmp/drop"
	grep -qw "1 left out" "$tmp/host.log" ||
		fail "$how: $what: the host did not leave it out: $(cat "$tmp/host.log")"
	[[ $(git -C "$tmp/blue" rev-parse red) == "$before" ]] ||
		fail "$how: $what: blue adopted red's moves with $left missing: $(cat "$tmp/out")"
	grep -q "is missing" "$tmp/out" ||
		fail "$how: $what: blue's sync does not say what is missing: $(cat "$tmp/out")"
	if git -C "$tmp/blue" for-each-ref refs/catan/quarantine | grep . >/dev/null; then
		fail "$how: $what: blue quarantined red's branch for the host's pack: $(cat "$tmp/out")"
	fi
	adopted_next_sync "$how: $what" "$tip" "$tmp/out"
	git -C "$tmp/blue" fsck --no-progress >/dev/null 2>&1 || fail "$how: $what: git fsck fails in blue"
	if ls -d "$tmp"/blue/.git/catan-whole-* >/dev/null 2>&1; then
		fail "$how: $what: a whole fetch's folder was left behind"
	fi
	n=$((n + 1))
	echo "ok $n - $how: $what left out: refused ($(grep -o "is missing" "$tmp/out" | head -1)), nobody blamed, adopted at the next sync"
}

# join_case: blue joins while the host leaves out a file of red's first
# move: the join succeeds at the genesis with red's branch held back,
# and blue's first sync adopts red's move.
join_case() {
	new_red
	$catan -C "$tmp/red" act setup 0,-1,n 0,-1,nw >/dev/null
	$catan -C "$tmp/red" sync >/dev/null
	local tip
	tip=$(git -C "$tmp/red" rev-parse red)
	first_file "$tip" >"$tmp/drop"
	: >"$tmp/host.log"
	$catan join "$url" "$tmp/blue" --as blue >"$tmp/out" 2>&1 ||
		fail "$how: a join from a host that left a file out: $(cat "$tmp/out")"
	rm -f "$tmp/drop"
	grep -qw "1 left out" "$tmp/host.log" ||
		fail "$how: join: the host did not leave it out: $(cat "$tmp/host.log")"
	grep -q "held back red from origin.*is missing" "$tmp/out" ||
		fail "$how: join: red's move not held back with what is missing: $(cat "$tmp/out")"
	[[ $(git -C "$tmp/blue" rev-parse red) == "$(git -C "$tmp/red" rev-parse red~1)" ]] ||
		fail "$how: join: red's branch is not at the genesis"
	adopted_next_sync "$how: join" "$tip"
	n=$((n + 1))
	echo "ok $n - $how: a join from a host that left a file out: red's move held back, adopted at the first sync"
}

# game [signed]: red plays and pushes to the relay over a path; blue
# joins through the host, syncs with it, and pushes its own moves to the
# relay over a path; then the cases. Signed: fair dice (the default
# there), whose trees hold each seat's chain value, fair-<seat>, which
# verify reads before it looks the tree's objects up.
game() {
	local sig=() jsig=() tag=
	if [[ ${1:-} == signed ]]; then
		for p in red blue; do
			[[ -e $tmp/key_$p ]] || $catan key new "$tmp/key_$p" >/dev/null 2>&1
		done
		sig=(--key "$tmp/key_red" --seat blue="$tmp/key_blue.pub")
		jsig=(--key "$tmp/key_blue")
		tag="(signed) "
	fi
	new_red "${sig[@]}"
	$catan -C "$tmp/red" sync >/dev/null
	$catan join "$url" "$tmp/blue" --as blue "${jsig[@]}" >"$tmp/out" 2>&1 ||
		fail "join $tag: $(cat "$tmp/out")"
	$catan -C "$tmp/blue" remote add relay "$tmp/relay.git" --push >/dev/null
	if [[ -n $tag ]]; then
		case_ "${tag}red's chain value, fair-red, in its first move" fair "setup 0,-1,n 0,-1,nw"
	else
		case_ "a file of the new commit's tree" blob "setup 0,-1,n 0,-1,nw"
	fi
	$catan -C "$tmp/blue" act setup 0,1,n 0,1,nw >/dev/null || fail "${tag}blue's first setup"
	$catan -C "$tmp/blue" act setup 2,-1,n 2,-1,nw >/dev/null || fail "${tag}blue's second setup"
	$catan -C "$tmp/blue" sync relay >/dev/null
	$catan -C "$tmp/red" sync >/dev/null
	case_ "${tag}the new commit's tree" tree "setup -1,0,n -1,0,nw"
	[[ -n $tag ]] ||
		case_ "the parent of the new tip (red's first of two moves)" parent roll end
	$catan -C "$tmp/blue" verify >"$tmp/out" 2>&1 || fail "${tag}blue does not verify: $(cat "$tmp/out")"
}

# Over the connection a peer keeps (its own requests, protocol v2), then
# through libgit2 (protocol v0: it asks only for commits it lacks, so the
# remote is fetched whole into a repository of its own).
how="kept connection"
join_case
game
game signed
how="through libgit2"
export CATAN_HTTP_QUICK=0
join_case
game
game signed
grep -q "fetched all of origin again" "$tmp/out2" ||
	fail "through libgit2: the commit was not fetched whole: $(cat "$tmp/out2")"

# The whole fetch within the limits of any fetch: with
# CATAN_SYNC_MAX_FETCH_BYTES between the size of red's new move and that
# of the whole game, the fetch passes, the whole fetch is cut, the move
# stays held back (nobody blamed, the sync does not fail); without the
# limit and with the host honest, the next sync adopts it.
new_red
$catan -C "$tmp/red" sync >/dev/null
$catan join "$url" "$tmp/blue" --as blue >"$tmp/out" 2>&1 || fail "join: $(cat "$tmp/out")"
$catan -C "$tmp/red" act setup 0,-1,n 0,-1,nw >/dev/null
$catan -C "$tmp/red" sync >/dev/null
tip=$(git -C "$tmp/red" rev-parse red)
# (both packs as the host makes them while it leaves the file out)
first_file "$tip" >"$tmp/drop"
one=$(git -C "$tmp/red" rev-list --objects "$tip" --not "$tip~1" | cut -d' ' -f1 |
	grep -vxFf "$tmp/drop" | git -C "$tmp/red" pack-objects --stdout -q | wc -c)
all=$(git -C "$tmp/red" rev-list --objects "$tip" | cut -d' ' -f1 |
	grep -vxFf "$tmp/drop" | git -C "$tmp/red" pack-objects --stdout -q | wc -c)
((all > one + 400)) || fail "limits: the game's pack ($all bytes) is not much bigger than the move's ($one)"
CATAN_SYNC_MAX_FETCH_BYTES=$(((one + all) / 2)) $catan -C "$tmp/blue" sync origin >"$tmp/out" 2>&1 ||
	fail "limits: the sync failed: $(cat "$tmp/out")"
rm -f "$tmp/drop"
grep -q "could not fetch all of origin again: over CATAN_SYNC_MAX_FETCH_BYTES" "$tmp/out" ||
	fail "limits: the whole fetch was not cut by CATAN_SYNC_MAX_FETCH_BYTES ($one < limit < $all): $(cat "$tmp/out")"
[[ $(git -C "$tmp/blue" rev-parse red) == "$(git -C "$tmp/red" rev-parse red~1)" ]] ||
	fail "limits: red's move adopted"
if git -C "$tmp/blue" for-each-ref refs/catan/quarantine refs/catan/refused | grep . >/dev/null; then
	fail "limits: something recorded against red or the host: $(cat "$tmp/out")"
fi
if ls -d "$tmp"/blue/.git/catan-whole-* >/dev/null 2>&1; then
	fail "limits: the whole fetch's folder was left behind"
fi
adopted_next_sync limits "$tip"
n=$((n + 1))
echo "ok $n - $how: the whole fetch is cut by CATAN_SYNC_MAX_FETCH_BYTES ($one < $(((one + all) / 2)) < $all bytes) like any fetch; nothing recorded; adopted at the next sync"
echo "$n passed, 0 failed, 0 skipped"
