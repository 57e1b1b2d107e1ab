#!/usr/bin/env bash
# Evidence held only in a record travels over https:// (nginx with TLS, a
# throwaway authority and HTTP basic authentication in front of
# git-http-backend, on loopback: tools/https_host.sh). The game of
# record_only_game (lib.sh): white signed three moves X, Y, Z on one
# commit; red and blue record {X, Y}; blue alone was shown Z and keeps it
# only in its record (refs/catan/equivocation-a/-b), on no branch it
# serves. Each case ends with red and blue keeping one record, the same
# tips, verify clean. Each runs twice: through our own quick path
# (http_quick.c's ls-refs, http_fetch.c's one POST) and through libgit2's
# fetch (CATAN_HTTP_QUICK=0):
#   1. blue's own repository served over https: red syncs it, takes the
#      proof and adopts Z's pair; a second sync takes nothing again;
#   2. a bare shared repository over https with the pre-receive hook
#      (catan host-hook install), the only way between red and blue:
#      `catan sync` pushes each one's pair there over https, where
#      git-http-backend runs the hook: red's pair refused while the hub
#      cannot judge it (said, and pushed again at a later sync; before,
#      catan said "pushed" and never tried again), then taken; blue's
#      better pair taken over red's; red takes the pair found there;
#   3. the hook, run by git-http-backend, refuses a worse pair pushed over
#      https with stock git, the reason shown, the pair held there kept.
# Needs nginx, fcgiwrap and openssl (tools/deps.sh); says "skipped"
# otherwise.
#   test_https_evidence.sh CATAN_BINARY
set -uo pipefail
C=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/https_host.sh
source "$here/../../tools/https_host.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$here/lib.sh"

if ! https_host_ok; then
	skip_all 6 "the https test needs nginx, fcgiwrap, openssl and git-http-backend"
fi

tmp=$(mktemp -d)
srv=$tmp/srv
cleanup() {
	https_host_stop "$srv"
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# Nothing of the user's own set-up takes part; catan's login and
# authority from the environment, stock git's from its configuration.
https_host_client "$srv" "$tmp/home" player 'open sesame' ||
	fail "the https server did not start"

# One game for every case (copied: each case starts from it).
for p in red blue white; do $C key new "$tmp/key_$p" >/dev/null 2>&1; done
record_only_game "$C" "$tmp/game" "$tmp"
z=$(git -C "$tmp/game/white3" rev-parse white)

# same G WHAT: red and blue keep the same record (Z's pair) and tips,
# verify clean, no relayer blamed.
same() {
	records_agree "$C" $1 "$2"
	git -C $1/red cat-file -p refs/catan/equivocation | grep -q "commit $z" ||
		fail "$2: red's record does not name Z"
}

for way in quick libgit2; do
	if [[ $way == quick ]]; then q=(env); else q=(env CATAN_HTTP_QUICK=0); fi

	# 1. blue's own repository, served (as $srv/repos/<way>/blue).
	g=$srv/repos/$way
	cp -a "$tmp/game" "$g"
	$C -C $g/red remote add blue-https "$HTTPS_URL/$way/blue" >/dev/null ||
		fail "$way: remote add"
	out=$("${q[@]}" $C -C $g/red sync blue-https 2>&1)
	grep -q "^equivocation: white signed" <<<"$out" ||
		fail "$way, blue served: red reported no proof from blue's record ($out)"
	grep -q "could not reach\|refused" <<<"$out" && fail "$way, blue served: $out"
	[[ $(git -C $g/red rev-parse refs/catan/evidence/blue-https/a) == \
	   $(git -C $g/blue rev-parse refs/catan/equivocation-a) ]] ||
		fail "$way, blue served: refs/catan/evidence/blue-https/a is not blue's"
	same $g "$way, blue served"
	out=$("${q[@]}" $C -C $g/red sync blue-https 2>&1)
	grep -q "equivocation" <<<"$out" && fail "$way, blue served: the same evidence taken again ($out)"
	ok "$way: red takes blue's record from blue's repository served over https"

	# 2. A bare shared repository over https with the hook, the only way
	#    between red and blue: each pushes its record's pair there, red
	#    takes the pair found there.
	g=$tmp/hub-$way
	hub=$srv/repos/hub-$way.git
	hurl=$HTTPS_URL/hub-$way.git
	cp -a "$tmp/game" "$g"
	git init -q --bare "$hub"
	git -C $g/red push -q "$hub" red:refs/heads/red
	$C host-hook install "$hub" >/dev/null || fail "$way: hook install"
	for p in red blue; do
		$C -C $g/$p remote add hub "$hurl" --push >/dev/null ||
			fail "$way: remote add hub at $p"
	done
	# The hub lacks blue's commit that X and Y build on: the hook cannot
	# judge red's pair yet and refuses it; red says so (it said "pushed"
	# before) and tries again at its next sync.
	out=$("${q[@]}" $C -C $g/red sync hub 2>&1)
	grep -q "could not push the equivocation record to hub: the remote refused refs/catan/equivocation-" <<<"$out" ||
		fail "$way, hub: red's pair refused by the hook, not said so ($out)"
	git -C "$hub" rev-parse -q --verify refs/catan/equivocation-a >/dev/null &&
		fail "$way, hub: the hook took a pair it cannot judge"
	git -C $g/blue push -q "$hurl" blue 2>/dev/null || fail "$way, hub: blue's branch over https"
	out=$("${q[@]}" $C -C $g/red sync hub 2>&1)
	grep -q "pushed the equivocation record to hub" <<<"$out" ||
		fail "$way, hub: red's pair not pushed ($out)"
	for k in a b; do
		[[ $(git -C "$hub" rev-parse refs/catan/equivocation-$k) == \
		   $(git -C $g/red rev-parse refs/catan/equivocation-$k) ]] ||
			fail "$way, hub: the hub does not hold red's pair ($k)"
	done
	# blue's pair {Z, ...}, the better, over red's {X, Y}: the hook takes it.
	out=$("${q[@]}" $C -C $g/blue sync hub 2>&1)
	grep -q "pushed the equivocation record to hub" <<<"$out" ||
		fail "$way, hub: blue's pair not pushed ($out)"
	for k in a b; do
		[[ $(git -C "$hub" rev-parse refs/catan/equivocation-$k) == \
		   $(git -C $g/blue rev-parse refs/catan/equivocation-$k) ]] ||
			fail "$way, hub: the hub does not hold blue's pair ($k)"
	done
	out=$("${q[@]}" $C -C $g/red sync hub 2>&1)
	grep -q "^equivocation: white signed" <<<"$out" ||
		fail "$way, hub: red took no proof from the shared repository ($out)"
	same $g "$way, hub"
	for p in red blue; do
		out=$("${q[@]}" $C -C $g/$p sync hub 2>&1)
		grep -q "equivocation" <<<"$out" && fail "$way, hub: $p again: $out"
	done
	git -C "$hub" fsck --strict >/dev/null 2>&1 || fail "$way, hub: fsck"
	ok "$way: the pairs pushed over https to a shared repository through its hook; red takes blue's from there"
done

# 3. The hook under git-http-backend refuses a worse pair (X, Y) pushed
#    with stock git over https.
g=$tmp/hub-quick
hub=$srv/repos/hub-quick.git
a=$(git -C "$hub" rev-parse refs/catan/equivocation-a)
x=$(git -C $g/white rev-parse white)
y=$(git -C $g/white2 rev-parse white)
git -C $g/white2 fetch -q $g/white white:refs/x
out=$(git -C $g/white2 push "$HTTPS_URL/hub-quick.git" +$x:refs/catan/equivocation-a \
	+$y:refs/catan/equivocation-b 2>&1) && fail "hook over https: a worse pair taken"
grep -q "remote: catan: refused: .*the pair held here is kept" <<<"$out" ||
	fail "hook over https: no reason for a worse pair ($out)"
[[ $(git -C "$hub" rev-parse refs/catan/equivocation-a) == "$a" ]] ||
	fail "hook over https: a refused push moved the pair"
ok "the hook run by git-http-backend refuses a worse pair pushed over https, the reason shown"

# Each way was the one taken: the quick path's POSTs (user agent
# "catan") fetched from blue and the hub, no libgit2 fetch there; with
# CATAN_HTTP_QUICK=0 only libgit2's. The pairs went through
# git-receive-pack (libgit2's push) to both hubs.
log=$srv/logs/access.log
for r in /quick/blue /hub-quick.git; do
	grep -q "\"POST $r/git-upload-pack HTTP/1.1\" 200 .* \"catan\"" "$log" ||
		fail "the quick path did not fetch from $r"
	grep -q "GET $r/info/refs?service=git-upload-pack" "$log" &&
		fail "libgit2 fetched from $r on the quick path"
done
for r in /libgit2/blue /hub-libgit2.git; do
	grep -q "GET $r/info/refs?service=git-upload-pack" "$log" ||
		fail "libgit2 did not fetch from $r"
	grep -q "\"[A-Z]* $r/.*\"catan\"" "$log" &&
		fail "the quick path was taken to $r with CATAN_HTTP_QUICK=0"
done
for r in /hub-quick.git /hub-libgit2.git; do
	grep -q "\"POST $r/git-receive-pack HTTP/1.1\" 200 .* \"git/2.0 (libgit2" "$log" ||
		fail "no push by catan to $r"
done
ok "the quick path and libgit2's each fetched where asked; catan pushed through git-receive-pack"
echo "$n passed, 0 failed"
