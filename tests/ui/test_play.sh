#!/usr/bin/env bash
# A scripted session in a real window under Xvfb: `catan play` on a
# hot-seat game, driven by synthetic mouse clicks and keys that go through
# SDL's event queue exactly as real ones do. Both players place their
# set-up settlements and roads by clicking, red rolls, offers blue a trade
# in the dialog, blue (the window switches to blue) accepts with the
# button, red ends the turn with the key. Then the repository must hold
# exactly those commits, verify must pass, and the screenshot must exist.
# Also: replay steps through the game in the window, a missing font is a
# clear error, and a bad script line is named.
set -euo pipefail
catan=$1
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CONFIG_HOME=$tmp/config # the window remembers its size there

if command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1; then
	run() { xvfb-run -a -s "-screen 0 1400x900x24" "$@"; }
	echo "display: Xvfb"
else
	export SDL_VIDEODRIVER=offscreen
	run() { "$@"; }
	echo "display: SDL offscreen driver (no Xvfb here)"
fi

"$catan" new g --players red,blue --seed 2 >/dev/null
cat >script <<'S'
wait 200
screenshot start.png
click-vertex 0,-1,n
click-edge 0,-1,nw
wait-turn
click-vertex 1,0,n
click-edge 1,0,nw
wait-turn
click-vertex -2,1,n
click-edge -2,1,ne
wait-turn

click-vertex -2,1,s
click-edge -2,2,nw
wait-turn
click-button Roll
wait 300
key f
click-control give+ brick
click-control get+ grain
click-control player blue
click-control ok
wait-turn
wait 300
screenshot offer.png
click-button Accept
wait-turn
wait 300
key e
wait 400
screenshot end.png
quit
S
run "$catan" play g --script script --size 1280x800 2>err || {
	cat err
	exit 1
}
"$catan" -C g log >log
cat log
expect() {
	grep -q -- "$1" log || {
		echo "FAIL: the log lacks \"$1\""
		exit 1
	}
}
expect "red *setup 0,-1,n 0,-1,nw"
expect "blue *setup 1,0,n 1,0,nw"
expect "blue *setup -2,1,n -2,1,ne"
expect "red *setup -2,1,s -2,2,nw"
expect "red *roll"
expect "red *trade offer blue give brick:1 get grain:1"
expect "blue *trade accept"
expect "red *end"
test "$(wc -l <log)" -eq 9 || {
	echo "FAIL: expected 9 commits (genesis + 8)"
	exit 1
}
"$catan" -C g verify
for f in start.png offer.png end.png; do
	test "$(stat -c %s $f)" -gt 20000 || {
		echo "FAIL: $f is missing or blank"
		exit 1
	}
done

# Replay: step back from the end to the start and forward again.
cat >rscript <<'S'
wait 100
key h
key h
screenshot replay.png
key l
quit
S
run "$catan" replay g --script rscript --size 1024x700 >replay.out
test "$(stat -c %s replay.png)" -gt 20000
# Two back from the end and one forward: the commit before the last.
want=$(git -C g rev-parse "$("$catan" -C g log | tail -2 | head -1 | cut -c1-10)")
grep -q "^replay: $want " replay.out || { echo "FAIL: replay ended at $(cat replay.out), not $want"; exit 1; }

# replay DIR REV opens at REV (git's syntax), here the third commit; one
# step right shows the fourth.
third=$("$catan" -C g log | sed -n 3p | cut -c1-10)
fourth=$(git -C g rev-parse "$("$catan" -C g log | sed -n 4p | cut -c1-10)")
n=$("$catan" -C g log | wc -l)
printf 'wait 100\nscreenshot rev.png\nquit\n' >rscript2
run "$catan" replay g "$third" --script rscript2 --size 1024x700 >rev.out
grep -q "^replay: $(git -C g rev-parse "$third") (3 / $n)\$" rev.out ||
	{ echo "FAIL: replay g $third showed $(cat rev.out)"; exit 1; }
test "$(stat -c %s rev.png)" -gt 20000
printf 'wait 100\nkey l\nwait 100\nquit\n' >rscript3
run "$catan" replay g "$third" --script rscript3 --size 1024x700 >rev.out
grep -q "^replay: $fourth (4 / $n)\$" rev.out ||
	{ echo "FAIL: one step from $third showed $(cat rev.out), not $fourth"; exit 1; }
if run "$catan" replay g no-such-rev --script rscript2 2>rev.err; then
	echo "FAIL: replay of an unknown revision"; exit 1
fi
grep -q "catan replay:" rev.err || { echo "FAIL: replay no-such-rev: $(cat rev.err)"; exit 1; }
echo "ok - replay DIR REV opens at REV, steps from it; an unknown REV refused"

# make play's game: you against three bots, each a separate peer
# repository syncing through path remotes. Red places by clicking; the
# bots, in their own processes, answer through sync.
cat >pscript <<'S'
wait-turn
click-vertex 0,-1,n
click-edge 0,-1,nw
wait 3000
wait-turn
screenshot peers.png
quit
S
run "$catan" play --new mp --seed 4 --board beginner --script pscript >/dev/null
"$catan" -C mp/red log >plog
grep -q "red *setup 0,-1,n 0,-1,nw" plog
test "$(grep -c setup plog)" -ge 7 || {
	echo "FAIL: the bot peers did not place their set-up pieces"
	cat plog
	exit 1
}
for p in red blue white orange; do
	"$catan" -C mp/$p verify >/dev/null
done
test -s mp/blue.log

# A signed game stopped by an equivocation (white signed two moves on one
# commit: tests/cli/lib.sh's record_only_game): the status line says so
# and who expels white (blue, who places next without it), the window's
# bot of white tries nothing, and the board is where the game stopped.
# Blue's own window then expels white by itself and the game goes on.
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=../cli/lib.sh
source "$here/../cli/lib.sh"
for p in red blue white; do "$catan" key new "$tmp/key_$p" >/dev/null 2>&1; done
record_only_game "$catan" "$tmp/eq" "$tmp"
fork=$(git -C "$tmp/eq/red" cat-file -p refs/catan/equivocation | sed -n 's/^parent //p')
tips=$(git -C "$tmp/eq/red" for-each-ref refs/heads)
printf 'wait 1500\nstate stopped.state\nquit\n' >sscript
run "$catan" play "$tmp/eq/red" --bots white --script sscript >/dev/null
grep -qx "status game stopped: white signed two different moves on ${fork:0:10}; blue expels white and the game goes on" stopped.state ||
	fail "the window's status: $(grep '^status' stopped.state)"
grep -qx "message " stopped.state || fail "a bot tried to move: $(grep '^message' stopped.state)"
[[ $(git -C "$tmp/eq/red" for-each-ref refs/heads) == "$tips" ]] || fail "a branch moved"
grep -q "^commit $fork," <<<"$("$catan" -C "$tmp/eq/red" show)" || fail "show is not at the fork"
printf 'wait 1500\nstate expelled.state\nscreenshot expelled.png\nquit\n' >sscript
run "$catan" play "$tmp/eq/blue" --script sscript >/dev/null
[[ $(git -C "$tmp/eq/blue" log -1 --format=%s blue) == "expel white" ]] ||
	fail "blue's window did not expel white: $(git -C "$tmp/eq/blue" log -1 --format=%s blue)"
grep -q "^status game stopped" expelled.state &&
	fail "blue's window still says the game stopped: $(grep '^status' expelled.state)"
"$catan" -C "$tmp/eq/blue" status | grep -q "^now: blue to place a settlement and road" ||
	fail "the game does not go on after the window's expulsion"
"$catan" -C "$tmp/eq/blue" verify >/dev/null || fail "verify after the window's expulsion"

# Fair dice: while a reveal is missing the status line says whose and
# since when (the request's time, local). Hot-seat, both keys here; red
# asks for a roll and blue has not revealed.
"$catan" key new "$tmp/k_red" >/dev/null 2>&1
"$catan" key new "$tmp/k_blue" >/dev/null 2>&1
"$catan" new fw --players red,blue --me red --seed 3 --dice fair \
	--key "$tmp/k_red" --seat blue="$tmp/k_blue.pub" >/dev/null
git -C fw config --add catan.key "$tmp/k_blue"
git -C fw config --unset catan.me
for i in 1 2 3 4; do
	next=$("$catan" -C fw show --json | sed -n 's/.*"next":"\([a-z]*\)".*/\1/p')
	"$catan" -C fw act --as "$next" $("$catan" -C fw legal --as "$next" | head -n 1) >/dev/null
done
"$catan" -C fw act --as red roll >/dev/null
asked=$(date -d "@$(git -C fw log -1 --format=%ct red)" +%H:%M:%S)
printf 'wait 500\nstate fair.state\nquit\n' >fscript
run "$catan" play fw --script fscript >/dev/null
grep -qx "status fair dice: waiting for .* to reveal a secret for red's roll, asked $asked" fair.state ||
	fail "the wait for a reveal: $(grep '^status' fair.state) (asked $asked)"

# A bad script line is named; a missing font is a clear error.
printf 'click-vertex 9,9,n\n' >bad
if run "$catan" play g --script bad 2>err; then
	echo "FAIL: a bad script line was accepted"
	exit 1
fi
grep -q "script line 1" err
if CATAN_FONT=/nonexistent.ttf "$catan" render g --out x.png 2>err; then
	echo "FAIL: a missing font was not an error"
	exit 1
fi
grep -q "CATAN_FONT=/nonexistent.ttf cannot be read" err
# CATAN_TEST_KEEP=DIR keeps the screenshots (for the README).
if [[ -n ${CATAN_TEST_KEEP:-} ]]; then
	mkdir -p "$CATAN_TEST_KEEP" && cp ./*.png "$CATAN_TEST_KEEP"/
fi
echo "scripted window session: ok"
