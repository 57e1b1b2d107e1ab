#!/usr/bin/env bash
# A shared repository that refuses bad pushes (catan host-hook install):
# three players of a signed game push to one bare repository with a
# pre-receive hook. Honest pushes pass and the game finishes; pushes made
# with stock git of a commit in another player's name, an illegal action,
# a rewrite, a deletion and a branch that is nobody's are each refused,
# with the reason shown by git push, and leave the repository as it was.
# With "serve", the same pushes are checked by `catan host-hook serve`
# (the hook a small client handing each push to it), and then the client
# still refuses when the server is gone (catan-hook checks instead), when
# it answers nonsense or not at all.
# Usage: test_hook.sh CATAN_BINARY [serve]
set -euo pipefail
catan=$(realpath "$1")
mode=${2:-}
tmp=$(mktemp -d)
server=
trap '[[ -z $server ]] || kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
d=$tmp
players=(red blue white)

for p in "${players[@]}"; do $catan key new "$d/key_$p" >/dev/null 2>&1; done
git init -q --bare "$d/hub.git"
# (Seeded dice: fewer rounds to a winner; fair games: test_fair*.sh.)
$catan new "$d/red" --players red,blue,white --me red --seed 8 --dice seeded \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" \
	--seat white="$d/key_white.pub" >/dev/null
$catan -C "$d/red" remote add hub "$d/hub.git" --push
$catan -C "$d/red" sync >/dev/null

out=$($catan host-hook install "$d/nothing" 2>&1 || true)
grep -q "catan host-hook:" <<<"$out" || fail "install on nothing: $out"
$catan host-hook install "$d/hub.git" | grep -q installed || fail install
[[ -x $d/hub.git/hooks/pre-receive ]] || fail "no hook"
# The hook is a copy of catan-hook-client (libc only), which hands each
# push to catan host-hook serve, or runs catan-hook (beside catan, named in
# hooks/catan-hook-path): the check without the window's libraries, whose
# loading was most of a push's cost.
hookbin=$(dirname "$(readlink -f "$catan")")/catan-hook
cmp -s "$d/hub.git/hooks/pre-receive" "${hookbin}-client" ||
	fail "the hook is not catan-hook-client"
[[ $(cat "$d/hub.git/hooks/catan-hook-path") == "$hookbin" ]] ||
	fail "the hook does not fall back on catan-hook: $(cat "$d/hub.git/hooks/catan-hook-path")"
# (libc alone; a sanitizer build adds its runtime, nothing of catan's)
if ldd "$d/hub.git/hooks/pre-receive" | grep -q "libgit2\|libsodium\|libSDL\|libz\.so"; then
	fail "the hook loads catan's libraries: $(ldd "$d/hub.git/hooks/pre-receive")"
fi
if ldd "$hookbin" | grep -qi "sdl"; then fail "catan-hook loads SDL"; fi
if [[ $mode == serve ]]; then
	CATAN_HOOK_TIMING=1 $catan host-hook serve "$d/hub.git" >"$d/serve.out" 2>"$d/serve.err" &
	server=$!
	for i in $(seq 1 100); do [[ -S $d/hub.git/catan-hook.sock ]] && break; sleep 0.05; done
	[[ -S $d/hub.git/catan-hook.sock ]] || fail "serve: no socket: $(cat "$d/serve.err")"
	out=$($catan host-hook serve "$d/hub.git" 2>&1) && fail "a second server started: $out"
	grep -q "served already" <<<"$out" || fail "a second server: $out"
fi
for p in blue white; do
	$catan join "$d/hub.git" "$d/$p" --as $p --key "$d/key_$p" >/dev/null
	$catan -C "$d/$p" remote push origin
done
ok "host-hook install puts a pre-receive hook running catan-hook into a bare repository holding a game (and refuses a folder that holds none)"

# A branch fast-forwarded onto another player's commit brings no new
# commit, but a branch ends at its owner's own commit: a sync would
# quarantine it and catan verify of the hub would fail. Refused.
$catan -C "$d/red" step >/dev/null
$catan -C "$d/red" sync >/dev/null
r1=$(git -C "$d/hub.git" rev-parse red)
git -C "$d/hub.git" merge-base --is-ancestor white $r1 || fail "(setup) white's tip not under red's"
git -C "$d/blue" fetch -q "$d/hub.git" red
out=$(git -C "$d/blue" push "$d/hub.git" $r1:refs/heads/white 2>&1) &&
	fail "white's branch moved onto red's commit: $out"
grep -q "ends at its owner's own commit" <<<"$out" || fail "no reason: $out"
[[ $(git -C "$d/hub.git" rev-parse white) != "$r1" ]] || fail "white's branch moved"
ok "a push moving a branch onto another player's commit is refused"

round() {
	for p in "${players[@]}"; do
		$catan -C "$d/$p" sync >/dev/null 2>&1 || true
		if $catan -C "$d/$p" step | grep -q '^over:'; then
			$catan -C "$d/$p" sync >/dev/null 2>&1 || true
			return 1
		fi
		$catan -C "$d/$p" sync | grep -q "could not push" && fail "honest push of $p refused"
	done
	return 0
}
for i in $(seq 1 6); do round || break; done
[[ $(git -C "$d/hub.git" rev-parse red) == $(git -C "$d/red" rev-parse red) ]] ||
	fail "hub behind red"
ok "honest pushes pass the hook"

# push_refused WHAT WANT REFSPEC: stock git push, refused, the reason shown,
# the hub unchanged.
push_refused() {
	local what=$1 want=$2 spec=$3 before after out
	before=$(git -C "$d/hub.git" for-each-ref)
	if out=$(git -C "$d/white" push -f "$d/hub.git" "$spec" 2>&1); then
		fail "$what pushed: $out"
	fi
	grep -q "remote: catan: refused" <<<"$out" || fail "$what: no reason: $out"
	grep -q "$want" <<<"$out" || fail "$what: $out"
	after=$(git -C "$d/hub.git" for-each-ref)
	[[ $before == "$after" ]] || fail "$what changed the hub"
}

# white writes a commit in red's name with its own signature
tip=$(git -C "$d/white" rev-parse red)
turn=$(git -C "$d/white" log -1 --format=%B red | sed -n 's/^Turn: //p')
printf 'end\n\nPlayer: red\nTurn: %s\n' "$turn" >"$d/msg"
forge() { # KEY: a commit by "red" on red's tip, signed with KEY
	GIT_AUTHOR_NAME=red GIT_AUTHOR_EMAIL=red@catan GIT_COMMITTER_NAME=red \
		GIT_COMMITTER_EMAIL=red@catan \
		git -C "$d/white" -c gpg.format=ssh -c user.signingkey="$1" \
		commit-tree -S "$(git -C "$d/white" rev-parse "$tip^{tree}")" \
		-p "$tip" -F "$d/msg"
}
c=$(forge "$d/key_white")
push_refused "a commit in red's name" "signed with white's key" "$c:refs/heads/red"
# red's own key, an action the rules refuse (same tree: nothing happened)
c=$(forge "$d/key_red")
push_refused "an illegal action" "commit ${c:0:10}" "$c:refs/heads/red"
push_refused "a rewrite" "history rewritten" "$tip~1:refs/heads/red"
# no Turn: trailer (the walk for a rewrite goes by them), red's own key:
# judged by the verification, not called a rewrite
printf 'end\n\nPlayer: red\n' >"$d/msg"
c=$(forge "$d/key_red")
push_refused "a commit without Turn:" "Turn" "$c:refs/heads/red"
out=$(git -C "$d/white" push -f "$d/hub.git" "$c:refs/heads/red" 2>&1) || true
! grep -q "history rewritten" <<<"$out" || fail "a commit without Turn: called a rewrite: $out"
push_refused "a deletion" "never deleted" ":refs/heads/red"
push_refused "a branch that is nobody's" "is not a player's branch" "$tip:refs/heads/mallory"
ok "stock git pushes of a commit in another's name, an illegal action, a rewrite, a deletion and a stray branch are refused with the reason and change nothing"

if [[ $mode == serve ]]; then
	served=$(grep -c "^served in" "$d/serve.err" || true)
	((served >= 5)) || fail "serve: only $served checks went through the server"
	ok "catan host-hook serve answered the hook's checks ($served pushes): the same refusals with their reasons, honest pushes taken"
	# a fake server: one answering nonsense, one closing without a word
	kill $server; wait $server 2>/dev/null || true; server=
	[[ ! -e $d/hub.git/catan-hook.sock ]] || fail "serve left its socket"
	push_refused "an illegal action, nothing serving" "commit ${c:0:10}" "$c:refs/heads/red"
	for answer in "x" ""; do
		python3 - "$d/hub.git/catan-hook.sock" "$answer" >"$d/fake.out" 2>&1 <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(1)
c, _ = s.accept(); c.recv(65536); c.sendall(sys.argv[2].encode()); c.close()
PY
		fake=$!
		for i in $(seq 1 100); do [[ -S $d/hub.git/catan-hook.sock ]] && break; sleep 0.05; done
		push_refused "a server answering \"$answer\"" "gave no answer" "$c:refs/heads/red"
		wait $fake || true
		rm -f "$d/hub.git/catan-hook.sock"
	done
	ok "with the server gone the hook checks the push itself; a server answering nonsense or nothing refuses the push"
fi

while round; do :; done
for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null 2>&1 || true; done
grep -q "over\|wins" <<<"$($catan -C "$d/red" show)" || true
git -C "$d/hub.git" fsck --strict >/dev/null 2>&1 || fail "fsck hub"
for p in "${players[@]}"; do
	$catan -C "$d/$p" verify >/dev/null || fail "verify $p"
	[[ $(git -C "$d/hub.git" rev-parse $p) == $(git -C "$d/$p" rev-parse $p) ]] ||
		fail "hub's $p differs"
done
ok "the game finishes through the hooked repository; verify and fsck pass"
