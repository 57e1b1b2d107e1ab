#!/usr/bin/env bash
# Games over https:// only, as on a Git hosting server: nginx with TLS (a
# throwaway certificate authority made here) and HTTP basic
# authentication, in front of git's git-http-backend, on loopback
# (tools/https_host.sh):
#   1. refusals, each a clear sentence naming host and port, and nothing
#      created: a certificate signed by an authority not trusted here, a
#      certificate for another name, an expired certificate, a wrong
#      password, no login at all, a URL holding a password;
#   2. a server that stops answering mid-fetch: the sync gives up after
#      CATAN_IO_TIMEOUT_MS naming host and port, nothing adopted, and the
#      next sync works;
#      a waiting peer fetches a move with one POST over the connection it
#      keeps; bad answers to that POST (a packet too long, no band, the
#      host's error, a bad pack, too many objects) are refused with their
#      reason, nothing adopted; a host without protocol version 2 is
#      fetched from through libgit2;
#   3. 4 `catan peer --bot` processes in separate repositories play a game
#      to a winner through the hosted repository (each pushes its own
#      branch and fetches the others'); the logins come from
#      CATAN_HTTP_TOKEN (red) and from a git credential helper (the
#      others), the authority from GIT_SSL_CAINFO (red) and http.sslCAInfo
#      (the others); identical tips, verify and fsck clean everywhere;
#   4. the hosted repository's pre-receive hook (catan host-hook) refuses
#      a rewrite pushed over https with stock git, the reason shown.
# With "six": instead, 6 `catan peer --bot` processes play a 6-player game
# (5-6 board, special building phase) to a winner through one relay
# repository over https that answers them itself (catan host-hook serve
# --http; ctest cli_https_six).
# Needs nginx, fcgiwrap and openssl (tools/deps.sh); says "skipped"
# otherwise.
#   test_https.sh CATAN_BINARY [six]
set -euo pipefail
catan=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/https_host.sh
source "$here/../../tools/https_host.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$here/lib.sh"

if ! https_host_ok; then
	skip_all 4 "the https test needs nginx, fcgiwrap, openssl and git-http-backend"
fi

tmp=$(mktemp -d)
srv=$tmp/srv
peers=()
cleanup() {
	for pid in "${peers[@]}"; do kill "$pid" 2>/dev/null || true; done
	https_host_stop "$srv"
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Nothing of the user's own set-up takes part: no git config, no CA or
# login from the environment. The six peers take the login and the CA
# from the environment; otherwise none is given here: red is given them
# command by command, and a join without them is refused (1.), before
# the others find them in git's own config.
login=none
[[ ${2:-} == six ]] && login='env'
https_host_client "$srv" "$tmp/home" player 'open sesame' "$login" ||
	fail "the https server did not start"
hub=$HTTPS_URL/game.git
d=$tmp/g
mkdir -p "$d"

if [[ ${2:-} == six ]]; then
	six=(red blue white orange green brown)
	$catan new "$d/red" --players red,blue,white,orange,green,brown --me red \
		--seed 12 --board random --special-build --vp 7 >/dev/null 2>&1
	git init -q --bare "$srv/repos/game.git"
	$catan -C "$d/red" remote add hub "$hub" --push >/dev/null
	$catan -C "$d/red" sync >/dev/null
	$catan host-hook install "$srv/repos/game.git" >/dev/null
	# (the relay answers catan peers itself: catan host-hook serve --http)
	https_host_serve "$srv" game "$catan" || fail "catan host-hook serve --http"
	for p in "${six[@]:1}"; do
		$catan join "$hub" "$d/$p" --as $p >"$tmp/out" 2>&1 || fail "join $p: $(cat "$tmp/out")"
		$catan -C "$d/$p" remote push origin >/dev/null
	done
	start=$(date +%s)
	for p in "${six[@]}"; do
		timeout 1500 $catan -C "$d/$p" peer --bot greedy --interval 0.05 \
			--max-interval 0.4 >"$tmp/peer_$p.log" 2>&1 &
		peers+=($!)
	done
	for pid in "${peers[@]}"; do wait "$pid" || fail "a peer failed or timed out: $(tail -3 "$tmp"/peer_*.log)"; done
	peers=()
	for p in "${six[@]}"; do $catan -C "$d/$p" sync >/dev/null 2>&1; done
	want=$(git -C "$srv/repos/game.git" rev-parse "${six[@]}" | tr '\n' ' ')
	for p in "${six[@]}"; do
		got=$(git -C "$d/$p" rev-parse "${six[@]}" | tr '\n' ' ')
		[[ $got == "$want" ]] || fail "tips at $p differ from the relay's: $got vs $want"
		$catan -C "$d/$p" verify >/dev/null || fail "verify at $p"
		git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
	done
	grep -q "has won" "$tmp"/peer_*.log || fail "no winner"
	grep -q "special building phase" "$tmp"/peer_*.log || fail "no special building phase"
	commits=$(git -C "$d/red" rev-list --count "${six[@]}")
	served=$(grep -c 'POST /game.git/git-receive-pack HTTP/1.1" 200' "$srv/logs/catan.log" || true)
	((served > 50)) || fail "the relay's server answered $served pushes"
	git -C "$srv/repos/game.git" fsck --strict >/dev/null 2>&1 || fail "fsck of the relay"
	# (the server merges the small packs past 16, as peers do: a pack per
	# push would pile up)
	packs=$(find "$srv/repos/game.git/objects/pack" -name '*.pack' | wc -l)
	((packs <= 16)) || fail "the relay holds $packs packs after $served pushes"
	ok "6 peers through one relay over https (served by catan host-hook serve --http: $served pushes, $packs packs left): a 5-6 game with the special building phase, $commits commits to a winner in $(($(date +%s) - start)) s; identical tips, verify and fsck clean"
	echo "$n passed, 0 failed"
	exit 0
fi
players=(red blue white orange)
# (played to 7 points: a complete game, in two thirds of the commits)
$catan new "$d/red" --players red,blue,white,orange --me red --seed 11 \
	--vp 7 >/dev/null 2>&1
git init -q --bare "$srv/repos/game.git"
# red: the CA from GIT_SSL_CAINFO, the password from CATAN_HTTP_TOKEN.
red_env=(env GIT_SSL_CAINFO="$srv/ca.crt" CATAN_HTTP_USER=player
	CATAN_HTTP_TOKEN='open sesame')
$catan -C "$d/red" remote add hub "$hub" --push >/dev/null
"${red_env[@]}" $catan -C "$d/red" sync >"$tmp/out" 2>&1 || fail "red's first push: $(cat "$tmp/out")"
grep -q "pushed red to hub" "$tmp/out" || fail "red's first push: $(cat "$tmp/out")"
$catan host-hook install "$srv/repos/game.git" >/dev/null

# 1. Refusals.
refused() { # WHAT WANT: catan join with the rest of the line refused
	local what=$1 want=$2
	shift 2
	if "$@" >"$tmp/out" 2>&1; then fail "$what: joined"; fi
	grep -qF "$want" "$tmp/out" || fail "$what: $(cat "$tmp/out")"
	[[ ! -e $d/blue ]] || fail "$what: a refused join left $d/blue"
}
refused "unknown authority" \
	"https: refusing localhost port $HTTPS_PORT: its certificate is not signed by an authority trusted here ($srv/other-ca.crt (GIT_SSL_CAINFO))" \
	env GIT_SSL_CAINFO="$srv/other-ca.crt" CATAN_HTTP_TOKEN=x \
	$catan join "$hub" "$d/blue" --as blue
refused "another name" \
	"https: refusing 127.0.0.1 port $HTTPS_PORT: its certificate is not for the name 127.0.0.1" \
	env GIT_SSL_CAINFO="$srv/ca.crt" CATAN_HTTP_TOKEN=x \
	$catan join "https://127.0.0.1:$HTTPS_PORT/game.git" "$d/blue" --as blue
refused "an expired certificate" \
	"https: refusing localhost port $HTTPS_EXPIRED_PORT: its certificate has expired" \
	env GIT_SSL_CAINFO="$srv/ca.crt" CATAN_HTTP_TOKEN=x \
	$catan join "https://localhost:$HTTPS_EXPIRED_PORT/game.git" "$d/blue" --as blue
refused "wrong password" \
	"https: localhost port $HTTPS_PORT refused the login of \"player\" (from CATAN_HTTP_TOKEN): wrong user name, password or token" \
	env GIT_SSL_CAINFO="$srv/ca.crt" CATAN_HTTP_USER=player CATAN_HTTP_TOKEN=sesame \
	$catan join "$hub" "$d/blue" --as blue
refused "no login" \
	"https: localhost port $HTTPS_PORT asks for a login, and none was given" \
	env GIT_SSL_CAINFO="$srv/ca.crt" $catan join "$hub" "$d/blue" --as blue
refused "a password in the URL" "the URL holds a password" \
	$catan join "https://player:sesame@localhost:$HTTPS_PORT/game.git" "$d/blue" --as blue
ok "refused with a sentence naming host and port: unknown authority, another name, an expired certificate, wrong password, no login, a password in the URL; nothing created"

# The others: the CA and a credential helper from git's own config, as a
# player who uses git with that host already has them.
git config --global http.sslCAInfo "$srv/ca.crt"
git config --global credential.helper "store --file $HOME/credentials"
printf 'https://player:open%%20sesame@localhost:%s\n' "$HTTPS_PORT" >"$HOME/credentials"
for p in blue white orange; do
	$catan join "$hub" "$d/$p" --as $p >"$tmp/out" 2>&1 || fail "join $p: $(cat "$tmp/out")"
	$catan -C "$d/$p" remote push origin >/dev/null
done
ok "join over https: the login from a git credential helper, the authority from http.sslCAInfo"

# A waiting peer reads its authorities once, not at every sync (parsing
# them was the dearest step of a poll); a file changed meanwhile is read
# again. (The cheap "anything new?" below, which reads them once more for
# its own TLS, is off here: these are libgit2's.)
# LeakSanitizer cannot run under ptrace: the commands traced with strace
# run without leak checks in the sanitizer build (every other one keeps
# them).
nolsan=(env ASAN_OPTIONS=detect_leaks=0)
if command -v strace >/dev/null 2>&1; then
	CATAN_HTTP_QUICK=0 "${red_env[@]}" "${nolsan[@]}" strace -f -qq -e trace=openat,open -o "$tmp/trace" \
		$catan -C "$d/red" peer --rounds 4 --interval 0.05 \
		--max-interval 0.05 >"$tmp/out" 2>&1 || fail "red's peer: $(cat "$tmp/out")"
	reads=$(grep -c "\"$srv/ca.crt\"" "$tmp/trace" || true)
	[[ $reads == 1 ]] || fail "4 syncs of a peer read the authorities $reads times"
	# (replaced once the peer has read it: another authority added)
	cp "$srv/ca.crt" "$srv/ca2.crt"
	: >"$tmp/trace"
	(
		for _ in $(seq 1 600); do
			grep -q "\"$srv/ca2.crt\"" "$tmp/trace" && break
			sleep 0.05
		done
		cat "$srv/other-ca.crt" "$srv/ca.crt" >"$srv/ca2.crt.new"
		mv "$srv/ca2.crt.new" "$srv/ca2.crt"
	) &
	swap=$!
	env CATAN_HTTP_QUICK=0 GIT_SSL_CAINFO="$srv/ca2.crt" CATAN_HTTP_USER=player "${nolsan[@]:1}" \
		CATAN_HTTP_TOKEN='open sesame' strace -f -qq -e trace=openat,open \
		-o "$tmp/trace" $catan -C "$d/red" peer --rounds 20 --interval 0.1 \
		--max-interval 0.1 >"$tmp/out" 2>&1 || fail "red's peer: $(cat "$tmp/out")"
	wait "$swap"
	reads=$(grep -c "\"$srv/ca2.crt\"" "$tmp/trace" || true)
	[[ $reads == 2 ]] || fail "a peer whose authorities changed read them $reads times"
	ok "a waiting peer reads its authorities once, and again when the file changes"
fi

# 2. red places; the server then stops answering the fetch of the pack.
$catan -C "$d/red" step >/dev/null
"${red_env[@]}" $catan -C "$d/red" sync >/dev/null 2>&1
before=$(git -C "$d/blue" rev-parse red)
https_host_hang "$srv" on
if ! CATAN_IO_TIMEOUT_MS=1000 timeout 20 $catan -C "$d/blue" sync >"$tmp/out" 2>&1; then
	fail "sync against a silent server: $(cat "$tmp/out")"
fi
https_host_hang "$srv" off
# (the read times out, or under load the watcher of net.c cuts first)
grep -q "could not reach origin: fetching from origin: \(reading from \)\?localhost port $HTTPS_PORT: nothing moved for 1000 ms" "$tmp/out" ||
	fail "silent server: $(cat "$tmp/out")"
[[ $(git -C "$d/blue" rev-parse red) == "$before" ]] || fail "adopted from a fetch cut short"
$catan -C "$d/blue" sync >"$tmp/out" 2>&1 || fail "sync after: $(cat "$tmp/out")"
grep -q "adopted red from origin" "$tmp/out" || fail "sync after: $(cat "$tmp/out")"
ok "a server that stops answering mid-fetch: given up after CATAN_IO_TIMEOUT_MS naming host and port, nothing adopted; the next sync adopts"

# A waiting peer asks "anything new?" with a GET of the host's list of
# branches (info/refs, a plain file) over one connection kept open, not a
# fetch (a new connection and two git processes on the server) every
# round; a branch that moved is seen there and fetched. (No full fetch
# forced by time here: only the list can tell red about blue's move.)
if command -v strace >/dev/null 2>&1; then
	: >"$tmp/red_peer.log"
	CATAN_HTTP_FULL_MS=600000 "${red_env[@]}" "${nolsan[@]}" strace -f -qq -e trace=connect \
		-o "$tmp/trace" $catan -C "$d/red" peer --rounds 40 --interval 0.05 \
		--max-interval 0.05 >"$tmp/red_peer.log" 2>&1 &
	quick=$!
	for _ in $(seq 1 200); do
		grep -q "^waiting" "$tmp/red_peer.log" && break
		sleep 0.05
	done
	sleep 0.5
	$catan -C "$d/blue" step >/dev/null
	$catan -C "$d/blue" sync >"$tmp/out" 2>&1
	grep -q "pushed blue to origin" "$tmp/out" || fail "blue's push: $(cat "$tmp/out")"
	wait "$quick" || fail "red's peer: $(cat "$tmp/red_peer.log")"
	grep -q "adopted blue from hub" "$tmp/red_peer.log" ||
		fail "a waiting peer did not see a move pushed to the host: $(cat "$tmp/red_peer.log")"
	conns=$(grep -c "connect(.*AF_INET" "$tmp/trace" || true)
	((conns <= 4)) || fail "a peer waiting 40 rounds made $conns connections"
	ok "a waiting peer asks the host's list of branches over one kept connection ($conns connections in 40 rounds), and fetches the move it shows"
fi
# A host whose list is stale (white's move pushed into the repository by
# path, around git-http-backend: info/refs not rewritten) delays a move
# by CATAN_HTTP_FULL_MS at most, never hides it.
: >"$tmp/red_peer.log"
CATAN_HTTP_FULL_MS=500 "${red_env[@]}" $catan -C "$d/red" peer --rounds 60 \
	--interval 0.05 --max-interval 0.05 >"$tmp/red_peer.log" 2>&1 &
quick=$!
for _ in $(seq 1 200); do
	grep -q "^waiting" "$tmp/red_peer.log" && break
	sleep 0.05
done
$catan -C "$d/white" sync >/dev/null 2>&1
$catan -C "$d/white" step >/dev/null || fail "white's move"
stale=$(cat "$srv/repos/game.git/info/refs")
git -C "$d/white" push -q "$srv/repos/game.git" white 2>"$tmp/out" ||
	fail "white's push by path: $(cat "$tmp/out")"
[[ $(cat "$srv/repos/game.git/info/refs") == "$stale" ]] ||
	fail "a push by path rewrote info/refs"
wait "$quick" || fail "red's peer: $(cat "$tmp/red_peer.log")"
grep -q "adopted white from hub" "$tmp/red_peer.log" ||
	fail "a move behind a stale list was never seen: $(cat "$tmp/red_peer.log")"
$catan -C "$d/white" sync >/dev/null 2>&1
ok "a stale list on the host delays a move by CATAN_HTTP_FULL_MS, never hides it"
# While the game moves (--hot seconds after the last move seen) a peer
# syncs every --interval, not after an interval doubling up to
# --max-interval: 10 rounds at 0.05 s, where doubling would take 16 s.
timeout 10 "${red_env[@]}" $catan -C "$d/red" peer --rounds 10 --interval 0.05 \
	--max-interval 5 --hot 60 >"$tmp/out" 2>&1 ||
	fail "10 rounds of a hot peer did not end within 10 s: $(cat "$tmp/out")"
ok "a peer syncs every --interval for --hot seconds after the last move"

# A move fetched over the kept connection (one POST of git-upload-pack,
# protocol version 2) takes the host's answer as untrusted: a packet
# longer than the protocol allows, a side-band of no band, the host's own
# error, a pack that does not index and one of more objects than
# CATAN_SYNC_MAX_COMMITS allows are each refused with a sentence naming it, nothing adopted, the peer
# still syncing; from a host that does not answer in version 2 the move is
# fetched the usual way. (Every POST is answered so, libgit2's too: a
# peer's first round fetches through libgit2, the others over the kept
# connection.)
"${red_env[@]}" $catan -C "$d/red" sync >/dev/null 2>&1
for p in blue white orange; do $catan -C "$d/$p" sync >/dev/null 2>&1; done
mover=$($catan -C "$d/red" show --json | sed -n 's/.*"next":"\([a-z]*\)".*/\1/p')
obs=blue
[[ $mover == blue ]] && obs=white
if [[ $mover == red ]]; then pre=("${red_env[@]}"); else pre=(); fi
"${pre[@]}" $catan -C "$d/$mover" step >/dev/null || fail "$mover's move"
"${pre[@]}" $catan -C "$d/$mover" sync >"$tmp/out" 2>&1
grep -q "pushed $mover to" "$tmp/out" || fail "$mover's push: $(cat "$tmp/out")"
before=$(git -C "$d/$obs" rev-parse "$mover")
pkt() { printf '%04x%s' $((${#1} + 4)) "$1"; }
bad_answer() { # FILE WANT [ENV...]: obs's peer refuses the answer FILE
	local file=$1 want=$2
	shift 2
	https_host_answer "$srv" "$file"
	env CATAN_HTTP_FULL_MS=600000 "$@" timeout 60 $catan -C "$d/$obs" peer \
		--rounds 4 --interval 0.05 --max-interval 0.05 >"$tmp/out" 2>&1
	https_host_answer "$srv" off
	grep -q "$want" "$tmp/out" || fail "answer $file: no \"$want\": $(cat "$tmp/out")"
	[[ $(git -C "$d/$obs" rev-parse "$mover") == "$before" ]] ||
		fail "answer $file: adopted"
	[[ $(git -C "$d/$obs" rev-parse "refs/remotes/origin/$mover") != "$(git -C "$d/$mover" rev-parse "$mover")" ]] ||
		fail "answer $file: the remote-tracking ref moved"
}
{ pkt $'packfile\n'; printf 'fff5'; head -c 70000 /dev/zero; } >"$tmp/a_long"
bad_answer "$tmp/a_long" "fetching from origin: https: a packet of a length the protocol does not allow"
{ pkt $'packfile\n'; pkt $'\x09what'; printf 0000; } >"$tmp/a_band"
bad_answer "$tmp/a_band" "https: a side-band packet of no band"
{ pkt $'packfile\n'; pkt $'\x03no pack for you'; printf 0000; } >"$tmp/a_err"
bad_answer "$tmp/a_err" "https: the host gave up: no pack for you"
{ pkt $'packfile\n'; printf '0018\001PACK\000\000\000\002\000\000\000\001garbage0000'; } >"$tmp/a_pack"
bad_answer "$tmp/a_pack" "https: the pack is bad\|https: the pack does not index"
# (a pack of 100 objects, as its header says)
{ pkt $'packfile\n'; printf '0011\001PACK\000\000\000\002\000\000\000\144'; } >"$tmp/a_many"
bad_answer "$tmp/a_many" "100 objects: over 4 x CATAN_SYNC_MAX_COMMITS (1)" CATAN_SYNC_MAX_COMMITS=1
git -C "$d/$obs" update-ref -d refs/catan/refused/origin 2>/dev/null || true
ok "bad answers to a fetch over the kept connection (a packet too long, no band, the host's error, a bad pack, too many objects): each refused with its reason, nothing adopted"
# The host answers version 2 requests as git's version 0 would: the usual way.
{ pkt $'NAK\n'; printf 0000; } >"$tmp/a_v0"
https_host_answer "$srv" "$tmp/a_long"
: >"$tmp/obs.log"
CATAN_HTTP_FULL_MS=600000 timeout 60 $catan -C "$d/$obs" peer --rounds 60 \
	--interval 0.05 --max-interval 0.05 >"$tmp/obs.log" 2>&1 &
obspid=$!
for _ in $(seq 1 400); do
	grep -q "a packet of a length" "$tmp/obs.log" && break
	sleep 0.05
done
https_host_answer "$srv" "$tmp/a_v0" v2
wait "$obspid" || true
https_host_answer "$srv" off
grep -q "adopted $mover from origin" "$tmp/obs.log" ||
	fail "a host without version 2: not adopted: $(cat "$tmp/obs.log")"
ok "a host that does not answer in protocol version 2: the move fetched through libgit2 and adopted"
# And from a host that does: one POST on the kept connection, no ref
# advertisement asked for (the log of the host, our own requests).
grep -q '"POST /game.git/git-upload-pack HTTP/1.1" 200 .* "catan"' "$srv/logs/access.log" ||
	fail "no fetch over the kept connection: $(grep -c . "$srv/logs/access.log") requests"
ok "a waiting peer fetched a move with one POST over its kept connection"

# 3. Four peers play to a winner through the hosted repository.
start=$(date +%s)
for p in "${players[@]}"; do
	if [[ $p == red ]]; then pre=("${red_env[@]}"); else pre=(); fi
	"${pre[@]}" timeout 900 $catan -C "$d/$p" peer --bot greedy \
		--interval 0.05 --max-interval 0.4 >"$tmp/peer_$p.log" 2>&1 &
	peers+=($!)
done
for pid in "${peers[@]}"; do wait "$pid" || fail "a peer failed or timed out: $(tail -3 "$tmp"/peer_*.log)"; done
peers=()
for _ in 1 2; do
	"${red_env[@]}" $catan -C "$d/red" sync >/dev/null 2>&1
	for p in blue white orange; do $catan -C "$d/$p" sync >/dev/null 2>&1; done
done
want=$(git -C "$d/red" rev-parse "${players[@]}" | tr '\n' ' ')
for p in blue white orange; do
	got=$(git -C "$d/$p" rev-parse "${players[@]}" | tr '\n' ' ')
	[[ $got == "$want" ]] || fail "tips at $p differ: $got vs $want"
done
got=$(git -C "$srv/repos/game.git" rev-parse "${players[@]}" | tr '\n' ' ')
[[ $got == "$want" ]] || fail "tips at the host differ: $got vs $want"
grep -qi "wins\|over" <<<"$($catan -C "$d/red" show)" || fail "no winner: $($catan -C "$d/red" show | tail -3)"
for p in "${players[@]}"; do
	$catan -C "$d/$p" verify >/dev/null || fail "verify at $p"
	git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
done
git -C "$srv/repos/game.git" fsck --strict >/dev/null 2>&1 || fail "fsck at the host"
commits=$(git -C "$d/red" rev-list --count "${players[@]}")
ok "4 peers, https only, through one hosted repository with the hook: a game of $commits commits to a winner in $(($(date +%s) - start)) s; identical tips, verify and fsck clean"
# red (its login from CATAN_HTTP_TOKEN, known before the first request)
# pushed its moves with one POST of git-receive-pack on its kept
# connection, through the hook.
grep -q '"POST /game.git/git-receive-pack HTTP/1.1" 200 .* "catan"' "$srv/logs/access.log" ||
	fail "no push over the kept connection: $(grep -c receive-pack "$srv/logs/access.log") receive-pack requests"
ok "a peer pushed its moves over its kept connection, through the host's hook"

# 4. The hook refuses a rewrite pushed with stock git over https.
before=$(git -C "$srv/repos/game.git" for-each-ref)
if out=$(git -C "$d/white" push -f "$hub" "white~1:refs/heads/white" 2>&1); then
	fail "a rewrite was pushed: $out"
fi
grep -q "remote: catan: refused: .*refs/heads/white: history rewritten" <<<"$out" ||
	fail "rewrite: no reason: $out"
[[ $(git -C "$srv/repos/game.git" for-each-ref) == "$before" ]] || fail "the refused push changed the host"
ok "the host's pre-receive hook refuses a rewrite pushed over https, the reason shown by git push"

echo "$n passed, 0 failed"
