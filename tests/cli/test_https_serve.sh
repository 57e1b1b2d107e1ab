#!/usr/bin/env bash
# A host that answers catan peers itself: `catan host-hook serve BARE
# --http` behind nginx (tools/https_host.sh routes requests that carry
# Catan-Peer to it), instead of git-http-backend:
#   1. a 3-player game between separate repositories through the served
#      relay (catan-peers-bench --relay): every fetch and push after the
#      first goes to the server (nginx's access log), identical tips,
#      verify and fsck clean, the relay's info/refs and
#      objects/info/packs true;
#   2. pushes straight to its socket: a forged commit (red's move signed
#      by no one on blue's branch), a push from an old id, a push with no
#      login, a malformed request, an unknown capability, a delta bomb
#      (deltas of 16 MiB each in a pack of 1 KB): each refused
#      with its reason, the refs, the packs and the folder unchanged (no
#      quarantine left);
#   3. fetches straight to its socket: ls-refs by prefix, a want that was
#      a tip before its branch moved on, a want no ref reaches, a fetch
#      without done, garbage: answered or refused with an ERR packet;
#   3b. a client that never reads its answer: the server gives up after
#      10 s and answers the next request;
#   4. the server stopped: peers sync through git-http-backend (nginx
#      hands the request on), and stock git fetches as before.
#   test_https_serve.sh CATAN_BINARY PEERS_BENCH
set -euo pipefail
catan=$(readlink -f "$1")
bench=$(readlink -f "$2")
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/https_host.sh
source "$here/../../tools/https_host.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$here/lib.sh"
if ! https_host_ok || ! command -v curl >/dev/null || ! command -v python3 >/dev/null; then
	skip_all 5 "needs nginx, fcgiwrap, openssl, git-http-backend, curl and python3"
fi
tmp=$(mktemp -d)
srv=$tmp/srv
cleanup() {
	https_host_stop "$srv"
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
https_host_client "$srv" "$tmp/home" player secret env ||
	fail "the https server did not start"
relay=$srv/repos/bench.git
git init -q --bare "$relay"
# (install refuses a repository without a game: the server starts without
# the hook, and the game's first push goes to git)
"$catan" host-hook serve "$relay" --http >"$srv/logs/serve-bench.log" 2>&1 &
echo $! >>"$srv/serve.pids"
for _ in $(seq 1 100); do [[ -S $relay/catan-http.sock ]] && break; sleep 0.05; done
[[ -S $relay/catan-http.sock ]] || fail "no server: $(cat "$srv/logs/serve-bench.log")"

# 1. A game through the served relay.
"$bench" --players 3 --seed 7 --relay "$HTTPS_URL/bench.git" --dir "$tmp" \
	--keep >"$tmp/bench.out" 2>&1 || fail "the game: $(cat "$tmp/bench.out")"
dir=$(sed -n 's/.*repositories kept in //p' "$tmp/bench.out")
[[ -d $dir ]] || fail "no repositories kept: $(cat "$tmp/bench.out")"
names=(red blue white)
for p in "$dir"/*/; do "$catan" -C "$p" sync >/dev/null 2>&1 || fail "sync at $p"; done
want=$(git -C "$relay" rev-parse "${names[@]}" | tr '\n' ' ')
for p in "$dir"/*/; do
	got=$(git -C "$p" rev-parse "${names[@]}" | tr '\n' ' ')
	[[ $got == "$want" ]] || fail "tips at $p differ from the relay's"
	"$catan" -C "$p" verify >/dev/null || fail "verify at $p"
done
git -C "$relay" fsck --strict >/dev/null 2>&1 || fail "fsck of the relay"
# The remote-tracking refs a fetch moves go into packed-refs with the
# branches the sync adopts: no loose file but the peer's own seat's (its
# push moves that one), the relay's ids, fsck clean.
for p in "$dir"/*/; do
	g=$(git -C "$p" rev-parse --absolute-git-dir)
	loose=$(find "$g/refs/remotes/origin" -type f | wc -l)
	((loose <= 1)) || fail "$loose loose remote-tracking refs at $p"
	for s in "${names[@]}"; do
		[[ $(git -C "$p" rev-parse "refs/remotes/origin/$s") == $(git -C "$relay" rev-parse "$s") ]] ||
			fail "origin/$s at $p is not the relay's $s"
	done
	git -C "$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
done
log=$srv/logs/access.log
served=$srv/logs/catan.log
served_up=$(grep -c 'POST /bench.git/git-upload-pack HTTP/1.1" 200' "$served" || true)
served_rp=$(grep -c 'POST /bench.git/git-receive-pack HTTP/1.1" 200' "$served" || true)
all=$(grep -c 'POST /bench.git/git-\(upload\|receive\)-pack' "$log" || true)
backend=$((all - served_up - served_rp))
commits=$(git -C "$relay" rev-list --count "${names[@]}")
((served_up > 20 && served_rp > 20)) ||
	fail "the server answered $served_up fetches and $served_rp pushes"
# (the first push, before the game was there, goes to git; so may one
# fetch or push per peer while the server opened the game)
((backend <= 4)) || fail "$backend requests went to git-http-backend"
listed=$(awk '{print $1 " " $2}' "$relay/info/refs" | sort)
real=$(git -C "$relay" for-each-ref --format='%(objectname) %(refname)' refs/ | sort)
[[ $listed == "$real" ]] || fail "info/refs is stale: $listed vs $real"
for pk in "$relay"/objects/pack/*.pack; do
	grep -qx "P $(basename "$pk")" "$relay/objects/info/packs" ||
		fail "objects/info/packs lacks $(basename "$pk")"
done
ok "3 peers through the served relay to the end ($commits commits): $served_up fetches and $served_rp pushes answered by catan, $backend by git; identical tips, verify, fsck, info/refs true, remote-tracking refs in packed-refs"

# 2. Pushes straight to the server's socket (as nginx passes them on).
sock=$relay/catan-http.sock
pkt() { printf '%04x%s' $((${#1} + 4)) "$1"; }
post() { # SERVICE BODYFILE [USER]: the answer's body into $tmp/ans, status printed
	local h=()
	[[ -n ${3:-} ]] && h=(-H "X-Catan-User: $3")
	curl -s -o "$tmp/ans" -w '%{http_code}' --unix-socket "$sock" \
		-H 'Content-Type: application/x-git-'"$1"'-request' "${h[@]}" \
		--data-binary @"$2" "http://relay/bench.git/git-$1"
}
push_body() { # OLD NEW REF CAPS [PACKFILE]: a receive-pack request
	local line="$1 $2 $3"
	printf '%04x%s\0%s0000' $((4 + ${#line} + 1 + ${#4})) "$line" "$4"
	[[ -z ${5:-} ]] || cat "$5"
}
state() { # what must not change: refs, packs, the folder's entries
	git -C "$relay" for-each-ref --format='%(objectname) %(refname)'
	ls "$relay" "$relay/objects" "$relay/objects/pack"
}
before=$(state)
blue_tip=$(git -C "$relay" rev-parse blue)
# A commit on blue's tip whose author is red, unsigned: a forgery.
work=$tmp/work
git clone -q "$relay" "$work" 2>/dev/null
tree=$(git -C "$work" rev-parse "$blue_tip^{tree}")
forged=$(GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
	GIT_COMMITTER_EMAIL=red@catan git -C "$work" commit-tree "$tree" -p "$blue_tip" -m "end turn")
printf '%s\n^%s\n' "$forged" "$blue_tip" |
	git -C "$work" pack-objects --stdout --revs >"$tmp/pack" 2>/dev/null
push_body "$blue_tip" "$forged" refs/heads/blue report-status "$tmp/pack" >"$tmp/push"
code=$(post receive-pack "$tmp/push" eve)
[[ $code == 200 ]] || fail "the forged push: HTTP $code"
grep -qa "ng refs/heads/blue catan: refused" "$tmp/ans" ||
	fail "the forged push was not refused: $(tr -d '\0' <"$tmp/ans")"
[[ $(state) == "$before" ]] || fail "the refused push changed the repository"
why=$(tr -d '\0' <"$tmp/ans" | grep -ao "ng refs/heads/blue .*" | head -1)
# From an old id: the branch moved meanwhile.
old=$(git -C "$relay" rev-parse "blue~1")
push_body "$old" "$forged" refs/heads/blue report-status "$tmp/pack" >"$tmp/push-old"
post receive-pack "$tmp/push-old" eve >/dev/null
grep -qa "ng refs/heads/blue" "$tmp/ans" || fail "a push from an old id passed"
[[ $(state) == "$before" ]] || fail "the push from an old id changed the repository"
code=$(post receive-pack "$tmp/push")
[[ $code == 403 ]] || fail "a push with no login: HTTP $code"
printf 'zzzz garbage' >"$tmp/junk"
code=$(post receive-pack "$tmp/junk" eve)
[[ $code == 400 ]] && grep -q "ERR a malformed push request" "$tmp/ans" ||
	fail "a malformed push: HTTP $code"
push_body "$blue_tip" "$forged" refs/heads/blue atomic "$tmp/pack" >"$tmp/push-atomic"
code=$(post receive-pack "$tmp/push-atomic" eve)
[[ $code == 400 ]] || fail "a push asking for atomic: HTTP $code"
push_body "$blue_tip" "$forged" refs/heads/../x report-status >"$tmp/push-ref"
code=$(post receive-pack "$tmp/push-ref" eve)
[[ $code == 400 ]] || fail "a push to a bad ref name: HTTP $code"
# A delta bomb: a pack of 1 KB whose deltas each make a
# 16 MiB object out of a 1 MiB blob of zeros (at 256 MiB a delta, 20 of
# them held the server 45 s and 10 GB): refused before libgit2 makes one.
python3 - "$tmp/bomb" <<'PY'
import hashlib, struct, sys, zlib
def head(t, size):
    out, b, size = [], (t << 4) | (size & 15), size >> 4
    while size:
        out.append(b | 128); b, size = size & 127, size >> 7
    return bytes(out + [b])
def varint(v):
    out = []
    while v > 127:
        out.append(v & 127 | 128); v >>= 7
    return bytes(out + [v])
def distance(d):
    out = [d & 127]; d >>= 7
    while d:
        d -= 1; out.insert(0, 128 | (d & 127)); d >>= 7
    return bytes(out)
pack = head(3, 1 << 20) + zlib.compress(b"\0" * (1 << 20))
delta = varint(1 << 20) + varint(16 << 20) + b"\xc0\x10" * 16
for i in range(2):
    pack += head(6, len(delta)) + distance(len(pack)) + zlib.compress(delta)
pack = b"PACK" + struct.pack(">II", 2, 3) + pack
open(sys.argv[1], "wb").write(pack + hashlib.sha1(pack).digest())
PY
push_body "$blue_tip" "$blue_tip" refs/heads/blue report-status "$tmp/bomb" >"$tmp/push-bomb"
code=$(post receive-pack "$tmp/push-bomb" eve)
[[ $code == 200 ]] && grep -qa "unpack the pack's objects are too many or too large" "$tmp/ans" ||
	fail "a delta bomb: HTTP $code $(tr -d '\0' <"$tmp/ans")"
[[ $(state) == "$before" ]] || fail "a refused request changed the repository"
ok "pushes to the server refused, the repository unchanged: a forgery (${why:0:140}...), an old id, no login (403), garbage, atomic, a bad ref name (400), a delta bomb ($(stat -c %s "$tmp/bomb") bytes)"

# 3. Fetches straight to the socket.
{ pkt "command=ls-refs"; printf '0001'; pkt "ref-prefix refs/heads/"; printf '0000'; } >"$tmp/ls"
code=$(post upload-pack "$tmp/ls")
[[ $code == 200 ]] || fail "ls-refs: HTTP $code"
got=$(tr -d '\0' <"$tmp/ans" | grep -ao "[0-9a-f]\{40\} refs/heads/[a-z]*" | sort)
real=$(git -C "$relay" for-each-ref --format='%(objectname) %(refname)' refs/heads/ | sort)
[[ $got == "$real" ]] || fail "ls-refs: $got vs $real"
# A tip a peer read before the branch moved on is in the new tip's
# history: served (the race of every busy game). An object no ref reaches
# (the forged commit above, whose push was refused) is not.
old_tip=$(git -C "$relay" rev-parse "red~3")
{ pkt "command=fetch"; printf '0001'; pkt "want $old_tip"; pkt "done"; printf '0000'; } >"$tmp/f1"
code=$(post upload-pack "$tmp/f1")
[[ $code == 200 ]] && grep -qa "PACK" "$tmp/ans" ||
	fail "a want that was a tip before the branch moved: HTTP $code $(cat "$tmp/ans")"
git -C "$work" push -q "$relay" "$forged:refs/catan-test/unreached" 2>/dev/null ||
	fail "cannot put the forged commit's objects into the relay"
git -C "$relay" update-ref -d refs/catan-test/unreached
{ pkt "command=fetch"; printf '0001'; pkt "want $forged"; pkt "done"; printf '0000'; } >"$tmp/f1b"
code=$(post upload-pack "$tmp/f1b")
[[ $code == 400 ]] && grep -q "ERR fetch: a want that no ref reaches" "$tmp/ans" ||
	fail "a want that no ref reaches: HTTP $code $(cat "$tmp/ans")"
{ pkt "command=fetch"; printf '0001'; pkt "want $blue_tip"; printf '0000'; } >"$tmp/f2"
code=$(post upload-pack "$tmp/f2")
[[ $code == 400 ]] && grep -q "ERR" "$tmp/ans" || fail "a fetch without done: HTTP $code"
code=$(post upload-pack "$tmp/junk")
[[ $code == 400 ]] && grep -q "ERR a malformed request" "$tmp/ans" || fail "garbage: HTTP $code"
{ pkt "command=fetch"; printf '0001'; pkt "want $blue_tip"; pkt "done"; printf '0000'; } >"$tmp/f3"
code=$(post upload-pack "$tmp/f3")
[[ $code == 200 ]] && grep -qa "packfile" "$tmp/ans" && grep -qa "PACK" "$tmp/ans" ||
	fail "a good fetch: HTTP $code"
ok "fetches to the server: ls-refs by prefix, a pack for a tip and for an old tip; a want no ref reaches, no done, garbage refused with ERR"
# A client that sends its request and never reads the answer (1.5 MB,
# more than the socket holds) holds the server no longer than one that
# never sends it: 10 s, then the next request is answered.
big=$(head -c 1500000 /dev/urandom | git -C "$relay" hash-object -w --stdin)
big=$(printf '100644 blob %s\tbig\n' "$big" | git -C "$relay" mktree)
big=$(GIT_AUTHOR_NAME=x GIT_AUTHOR_EMAIL=x@catan GIT_COMMITTER_NAME=x \
	GIT_COMMITTER_EMAIL=x@catan git -C "$relay" commit-tree "$big" -m big)
git -C "$relay" update-ref refs/junk/big "$big"
{ pkt "command=fetch"; printf '0001'; pkt "want $big"; pkt "done"; printf '0000'; } >"$tmp/f4"
python3 - "$sock" "$tmp/f4" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
body = open(sys.argv[2], "rb").read()
s.sendall(b"POST /bench.git/git-upload-pack HTTP/1.0\r\nContent-Length: %d\r\n\r\n"
          % len(body) + body)
time.sleep(40)
PY
sleeper=$!
sleep 1
start=$(date +%s)
code=$(curl -s -m 30 -o "$tmp/ans" -w '%{http_code}' --unix-socket "$sock" \
	--data-binary @"$tmp/ls" "http://relay/bench.git/git-upload-pack") || true
took=$(($(date +%s) - start))
kill "$sleeper" 2>/dev/null || true
wait "$sleeper" 2>/dev/null || true
git -C "$relay" update-ref -d refs/junk/big
[[ $code == 200 ]] && ((took <= 15)) ||
	fail "a client that does not read its answer held the server: HTTP $code after $took s"
ok "a client that does not read its answer holds the server $took s, then the next request is answered"

# 4. The server stopped: nginx hands the requests to git-http-backend.
while read -r pid; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done <"$srv/serve.pids"
rm -f "$srv/serve.pids"
[[ ! -e $relay/catan-http.sock ]] || fail "the socket outlived the server"
red=$dir/$(ls "$dir" | head -1)
lines=$(wc -l <"$log")
"$catan" -C "$red" sync >"$tmp/sync.out" 2>&1 || fail "sync without the server: $(cat "$tmp/sync.out")"
git -c http.extraHeader="Authorization: Basic $(printf player:secret | base64)" \
	clone -q "$HTTPS_URL/bench.git" "$tmp/stock" 2>"$tmp/clone.err" ||
	fail "stock git clone: $(cat "$tmp/clone.err")"
[[ $(git -C "$tmp/stock" rev-parse origin/red) == "$(git -C "$relay" rev-parse red)" ]] ||
	fail "the stock clone differs"
ok "without the server: a peer's sync and a stock git clone go to git-http-backend ($(($(wc -l <"$log") - lines)) requests)"
echo "$n passed, 0 failed"
