#!/usr/bin/env bash
# Scripted sessions of issue 18 in a real window (Xvfb when installed, else
# SDL's offscreen driver): each part drives `catan play` by synthetic
# clicks and keys and asserts on the game's commits and on what the window
# wrote about its own state (--state FILE). Run by ctest as ui_window.
set -euo pipefail
catan=$1
pngcmp=${2:-}
golden=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() {
	echo "FAIL: $*"
	exit 1
}

# 1. No display: one clear sentence and a non-zero exit, fast (< 2 s),
# for play, replay and play --new (which must not start bot peers).
"$catan" new nd --players red,blue --seed 2 >/dev/null
for cmd in "play nd" "replay nd" "play --new ndnew"; do
	t0=$(date +%s%N)
	if env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER \
		timeout 10 "$catan" $cmd 2>nd.err; then
		fail "catan $cmd without a display exited 0"
	fi
	ms=$((($(date +%s%N) - t0) / 1000000))
	test "$ms" -lt 2000 || fail "catan $cmd without a display took $ms ms"
	test "$(wc -l <nd.err)" -eq 1 || fail "catan $cmd: $(cat nd.err)"
	grep -q "no display" nd.err || fail "catan $cmd: $(cat nd.err)"
done
test ! -e ndnew || fail "play --new without a display created a game"
echo "ok - no display: one sentence, exit 1, under 2 s"

# 2. The terminal: --help on every subcommand (exit 0, its usage line),
# errors that list the valid choices, q documented.
for c in play replay render new show step serve peer act join remote sync \
	bundle legal verify gc bots log stats report simulate board; do
	"$catan" $c --help >help.out 2>help.err || fail "catan $c --help exited non-zero: $(cat help.err)"
	grep -q "usage" help.out || fail "catan $c --help: $(cat help.out)"
	grep -q "catan.* $c\b" help.out || fail "catan $c --help names no usage of $c"
done
"$catan" play --help | grep -q -- "--pace" || fail "play --help lacks --pace"
"$catan" new --help | grep -q -- "--me" || fail "new --help lacks --me"
"$catan" new --help | grep -q "balanced" || fail "new --help lacks balanced"
"$catan" --help | grep -q "q or Ctrl+Q quits" || fail "catan --help does not say how to quit"
if "$catan" new nb --board nosuch 2>nb.err; then fail "--board nosuch accepted"; fi
grep -q "beginner, random, balanced" nb.err || fail "--board nosuch: $(cat nb.err)"
echo "ok - --help on every subcommand, valid choices listed"
