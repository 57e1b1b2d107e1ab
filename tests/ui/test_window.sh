#!/usr/bin/env bash
# Scripted sessions of issue 18 in a real window (Xvfb when installed, else
# SDL's offscreen driver): each part drives `catan play` by synthetic
# clicks and keys and asserts on the game's commits and on what the window
# wrote about its own state (--state FILE). Run by ctest as ui_window.
set -euo pipefail
catan=$1
pngcmp=${2:-}
golden=${3:-}
fairbench=${4:-}
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
grep -q -- "--pace" <<<"$("$catan" play --help)" || fail "play --help lacks --pace"
grep -q -- "--me" <<<"$("$catan" new --help)" || fail "new --help lacks --me"
grep -q "balanced" <<<"$("$catan" new --help)" || fail "new --help lacks balanced"
grep -q "q or Ctrl+Q quits" <<<"$("$catan" --help)" || fail "catan --help does not say how to quit"
if "$catan" new nb --board nosuch 2>nb.err; then fail "--board nosuch accepted"; fi
grep -q "beginner, random, balanced" nb.err || fail "--board nosuch: $(cat nb.err)"
grep -q "seeded|manual|fair" <<<"$("$catan" new --help)" || fail "new --help lacks fair dice"
if "$catan" new nd2 --dice nosuch 2>nd.err; then fail "--dice nosuch accepted"; fi
grep -q "seeded, manual or fair" nd.err || fail "--dice nosuch: $(cat nd.err)"
echo "ok - --help on every subcommand, valid choices listed"

# The graphical parts: Xvfb with a screen of the size each part needs, or
# SDL's offscreen driver (no screen: the size parts are skipped).
if command -v xvfb-run >/dev/null 2>&1 && command -v Xvfb >/dev/null 2>&1; then
	xvfb=1
	run() { xvfb-run -a -s "-screen 0 1400x900x24" "$@"; }
else
	[[ ${CI:-} == true ]] && fail "Xvfb is missing (apt-get install xvfb)"
	xvfb=0
	export SDL_VIDEODRIVER=offscreen
	run() { "$@"; }
fi
export XDG_CONFIG_HOME=$tmp/config CATAN_UI_BOT_SEED=1
# Golden images (CATAN_REGEN=1 rewrites them).
same() {
	[[ -n $golden && -n $pngcmp ]] || return 0
	if [[ ${CATAN_REGEN:-} == 1 ]]; then
		mkdir -p "$golden"
		cp "$1" "$golden/$2"
		echo "regenerated $golden/$2"
	else
		# SDL's software renderer (the sanitizer build) smooths edges
		# differently from the GL one the images were drawn with.
		local share=2.0
		[[ ${SDL_RENDER_DRIVER:-} == software ]] && share=4.0
		"$pngcmp" "$1" "$golden/$2" --share $share --mean 4.0 ||
			fail "$1 differs from $golden/$2"
	fi
}
val() { sed -n "s/^$1 //p" "$2" | head -1; }
log_has() {
	grep -q -- "$1" "$2" || {
		echo "--- $2:"
		cat "$2"
		fail "\"$1\" not in $2"
	}
}

# A 3-player game with manual dice, placed by catan act: red, blue, white.
setup3() {
	"$catan" new "$1" --players red,blue,white --seed 2 --board beginner \
		--dice manual >/dev/null
	while read -r who what; do
		"$catan" -C "$1" act --as "$who" "$what" >/dev/null
	done <<-'A'
		red setup 0,-1,n 0,-1,nw
		blue setup 1,0,n 1,0,nw
		white setup 2,-2,n 2,-2,nw
		white setup -2,2,n -2,2,nw
		blue setup -2,1,n -2,1,ne
		red setup 0,1,s 0,2,nw
	A
}

# 3. Year of plenty by mouse: red holds the card (bought at turn 23 of a
# manual-dice game), the Plenty button, two cards in the dialog, OK.
"$catan" new yp --players red,blue --seed 2 --dice manual --board beginner >/dev/null
acts() { local d=$1 p=$2; shift 2; for x in "$@"; do "$catan" -C "$d" act --as "$p" "$x" >/dev/null; done; }
acts yp red "setup 0,-1,n 0,-1,nw"
acts yp blue "setup 1,0,n 1,0,nw" "setup -2,1,n -2,1,ne"
acts yp red "setup -2,1,s -2,2,nw"
for d in "1 1" "1 2" "1 3" "2 2" "2 3" "3 3" "4 4" "4 5" "5 5" "5 6" "6 6"; do
	acts yp red "roll $d" end
	acts yp blue "roll 1 1" end
done
acts yp red "roll 1 1" "trade bank wool:4 grain" "buy devcard year-of-plenty" end
acts yp blue "roll 1 1" end
acts yp red "roll 1 1"
cat >yp.script <<'S'
wait 200
click-button Plenty
click-control get+ grain
click-control get+ ore
wait 100
screenshot plenty.png
click-control ok
wait 300
state yp.state
quit
S
run "$catan" play yp --script yp.script --size 1280x800 --pace 0 2>err || { cat err; fail "plenty session"; }
"$catan" -C yp log | tail -1 | grep -q "red *play year-of-plenty grain ore" ||
	fail "year of plenty: $("$catan" -C yp log | tail -1)"
log_has "log Red played Year of Plenty: grain and ore" yp.state
test "$(val clipped yp.state)" = 0 || fail "plenty: $(val first_clipped yp.state)"
same plenty.png plenty.png
echo "ok - year of plenty played by mouse"

# 4. A bot's 7: blue (the window's bot) has rolled 3+4; it moves the robber
# and robs; the window (red's view) tells it and marks the tile.
setup3 seven
acts seven red "roll 1 1" end
acts seven blue "roll 3 4"
cat >seven.script <<'S'
wait 1500
state seven.state
screenshot seven.png
quit
S
run "$catan" play seven --as red --bots blue,white --script seven.script \
	--size 1280x800 --pace 0 2>err || { cat err; fail "seven session"; }
"$catan" -C seven log >seven.log
grep -q "blue *robber" seven.log || fail "the bot did not move the robber: $(tail -3 seven.log)"
log_has "log Blue rolled 3+4 = 7" seven.state
log_has "log Blue moved the robber to the" seven.state
test "$(val recent_tile seven.state)" -ge 0 || fail "the robber's tile is not marked"
test "$(val recent_tile_by seven.state)" = 1 || fail "the robber mark is not blue's"
tile=$(grep "blue *robber" seven.log | tail -1 | awk '{print $5}')
victim=$(grep "blue *robber" seven.log | tail -1 | awk '{print $6}')
if [[ $victim == red ]]; then
	log_has "log Blue stole a card from you: " seven.state
elif [[ -n $victim ]]; then
	log_has "log Blue stole a card from $victim\$" seven.state
fi
echo "ok - a bot's 7 in the log (robber on $tile, victim ${victim:-none}), the tile marked"

# 5. A trade offered to all, answered by two bots; then one they accept.
setup3 tr
acts tr red "roll 2 3"
cat >tr.script <<'S'
wait 200
key f
wait 100
state tr0.state
click-control give+ grain
click-control get+ lumber
wait 100
state tr00.state
screenshot offer-all.png
click-control ok
wait 1500
state tr1.state
key f
click-control give+ grain
click-control give+ grain
click-control get+ lumber
click-control ok
wait 1500
state tr2.state
quit
S
run "$catan" play tr --bots blue,white --script tr.script --size 1280x800 --pace 0 2>err ||
	{ cat err; fail "trade session"; }
"$catan" -C tr log >tr.log
for l in "red *trade offer blue give grain:1 get lumber:1" "blue *trade reject" \
	"red *trade offer white give grain:1 get lumber:1" "white *trade reject" \
	"red *trade offer blue give grain:2 get lumber:1" "blue *trade accept"; do
	log_has "$l" tr.log
done
test "$(val message tr1.state)" = "done: offer: blue rejected, white rejected" ||
	fail "offer to all: $(val message tr1.state)"
test "$(val message tr2.state)" = "done: offer: blue accepted" || fail "$(val message tr2.state)"
log_has "log White rejected red's offer" tr1.state
# The dialog's line above OK: a hint while nothing is chosen, then what OK
# does in plain words.
test "$(val dialog_line tr0.state)" = "choose cards with + and -, then OK" ||
	fail "offer dialog, nothing chosen: $(val dialog_line tr0.state)"
test "$(val dialog_line tr00.state)" = "OK offers 1 grain for 1 lumber to blue, white" ||
	fail "offer dialog: $(val dialog_line tr00.state)"
same offer-all.png offer-all.png
echo "ok - a trade offered to all, each answer shown"

# 6. A counter-offer (hot-seat): red offers blue; blue's Offer button opens
# the counter-offer with the terms turned round; a third player is refused.
setup3 co
acts co red "roll 2 3"
cat >co.script <<'S'
wait 200
key f
click-control player blue
click-control give+ grain
click-control get+ lumber
click-control ok
wait-turn
wait 300
key f
wait 100
state co1.state
click-control player white
wait 100
state co2.state
click-control get+ grain
wait 100
screenshot counter.png
click-control ok
wait-turn
wait 300
click-button Accept
wait 300
state co3.state
quit
S
run "$catan" play co --script co.script --size 1280x800 --pace 0 2>err ||
	{ cat err; fail "counter-offer session"; }
"$catan" -C co log >co.log
log_has "red *trade offer blue give grain:1 get lumber:1" co.log
log_has "blue *trade offer red give lumber:1 get grain:2" co.log
log_has "red *trade accept" co.log
test "$(val dialog co1.state)" = 5 || fail "the counter-offer dialog did not open"
grep -q "^message a counter-offer goes back" co2.state || fail "third player: $(val message co2.state)"
log_has "log Blue counter-offered red 1 lumber for 2 grain" co3.state
same counter.png counter.png
echo "ok - a counter-offer, shown as one"

# 7. A finished game's results panel (a simulated game), and its buttons.
"$catan" simulate --games 1 --players 4 --out sim --seed 3 >/dev/null 2>&1
printf 'wait 300\nstate fin.state\nscreenshot results.png\nwheel 4\nwait 100\nstate scroll.state\nclick-result new\nwait 200\n' >fin.script
run "$catan" play sim/game-00000 --script fin.script --size 1280x800 --pace 0 >fin.out 2>err ||
	{ cat err; fail "results session"; }
test "$(val phase fin.state)" = 8 || fail "the game is not over"
test "$(val clipped fin.state)" = 0 || fail "results: $(val first_clipped fin.state)"
grep -q "won the game with" fin.state || fail "no winner line in the log"
grep -q "^window closed: new game" fin.out || fail "New game: $(cat fin.out)"
test "$(val log_scroll scroll.state)" = 12 || fail "the log did not scroll: $(val log_scroll scroll.state)"
test "$(val log_lines fin.state)" -gt 1000 || fail "the log keeps $(val log_lines fin.state) lines"
same results.png results.png
echo "ok - the results panel, New game"

# 7b. The results panel's buttons go on: Replay opens the replay at the
# first commit, New game a new game that is played in the next window
# (the script goes on in each).
printf 'wait 300\nclick-result replay\nwait 300\nstate rp.state\nscreenshot replay.png\nkey l\nwait 100\nstate rp2.state\nquit\n' >rp.script
run "$catan" play sim/game-00000 --script rp.script --size 1280x800 --pace 0 >rp.out 2>err ||
	{ cat err; fail "replay session"; }
grep -q "^window closed: replay" rp.out || fail "Replay: $(cat rp.out)"
test "$(val replay_pos rp.state)" = 1 || fail "Replay did not open at the start: $(val replay_pos rp.state)"
test "$(val replay_count rp.state)" -gt 900 || fail "Replay: $(val replay_count rp.state) commits"
test "$(val replay_pos rp2.state)" = 2 || fail "Replay did not step: $(val replay_pos rp2.state)"
grep -q "^replay: .* (2 / " rp.out || fail "Replay: $(cat rp.out)"
same replay.png replay-start.png
printf 'wait 300\nclick-result new\nwait 300\nstate ng.state\nclick-ringed\nclick-ringed\nwait 300\nstate ng2.state\nquit\n' >ng.script
run "$catan" play sim/game-00000 --script ng.script --size 1280x800 --pace 0 >ng.out 2>err ||
	{ cat err; fail "new game session"; }
# (7 made sim/game-00000-2 already: New game takes the next free name.)
grep -q "^new game in sim/game-00000-3\$" ng.out || fail "New game: $(cat ng.out)"
test "$(val phase ng.state)" = 0 || fail "New game: phase $(val phase ng.state)"
grep -q "^message done: You placed a settlement and a road" ng2.state || fail "New game: $(val message ng2.state)"
grep -q "red *setup" <<<"$("$catan" -C sim/game-00000-3 log)" || fail "New game: red's setup is not in sim/game-00000-3"
# New game keeps the kind of board (a balanced game gets a balanced one).
"$catan" simulate --games 1 --players 4 --out simb --seed 3 --board balanced >/dev/null 2>&1
printf 'wait 300\nclick-result new\nwait 300\nquit\n' >nb.script
run "$catan" play simb/game-00000 --script nb.script --size 1280x800 --pace 0 >nb.out 2>err ||
	{ cat err; fail "new game after a balanced one"; }
grep -q "^new game in simb/game-00000-2: .*, balanced board" nb.out || fail "New game's board: $(cat nb.out)"
grep -q "^new game in sim/game-00000-3: .*, beginner board" ng.out || fail "New game's board: $(cat ng.out)"
echo "ok - Replay and New game open their windows (scripted and by mouse)"

# 7c. Pieces are placed in an animation (a drop and fade-in of half the
# pace, at most 300 ms; none with --pace 0): the script holds it mid-way.
"$catan" new an --players red,blue,white --seed 2 --board beginner >/dev/null
printf 'wait 200\nanim 0.5\nstate an1.state\nclick-vertex 0,-1,n\nwait 100\nstate an2.state\nclick-edge 0,-1,nw\nwait-turn\nwait 300\nstate an.state\nscreenshot anim.png\nquit\n' >an.script
run "$catan" play an --bots blue,white --script an.script --size 1280x800 --pace 0.3 2>err ||
	{ cat err; fail "animation session"; }
# (the set-up prompt says what the next click is for)
test "$(val status an1.state)" = "your move: click a ringed corner for a settlement" || fail "set-up: $(val status an1.state)"
test "$(val status an2.state)" = "your move: now click a ringed side for its road (Esc: another corner)" ||
	fail "set-up, corner chosen: $(val status an2.state)"
test "$(val anim_pieces an.state)" = 2 || fail "animation: $(val anim_pieces an.state) pieces"
test "$(val anim_ms an.state)" = 150 || fail "animation: $(val anim_ms an.state) ms at pace 0.3"
same anim.png anim.png
printf 'wait 200\nclick-ringed\nclick-ringed\nwait-turn\nwait 300\nstate an0.state\nquit\n' >an0.script
"$catan" new an0 --players red,blue,white --seed 2 --board beginner >/dev/null
run "$catan" play an0 --bots blue,white --script an0.script --size 1280x800 --pace 0 2>err ||
	{ cat err; fail "animation session, pace 0"; }
test "$(val anim_ms an0.state)" = 0 || fail "animation at pace 0: $(val anim_ms an0.state) ms"
test "$(val anim_frames an0.state)" = 0 || fail "animation at pace 0: $(val anim_frames an0.state) frames"
echo "ok - pieces drop and fade in, for half the pace"

# 7d. An offer the player cannot accept (blue has no brick): the prompt
# says why Accept is grey and what is left.
setup3 la
acts la red "roll 2 3" "trade offer blue give grain:1 get brick:1"
printf 'wait 300\nstate la.state\nquit\n' >la.script
run "$catan" play la --bots red,white --script la.script --size 1280x800 --pace 0 2>err ||
	{ cat err; fail "offer session"; }
test "$(val status la.state)" = "your move: you lack the cards to accept: Reject, or Offer back" ||
	fail "an offer blue cannot accept: $(val status la.state)"
echo "ok - an offer that cannot be accepted says so"

# 7e. A discard owed: the dialog opens by itself and counts down what is
# left to choose.
setup3 dc
for d in "2 4" "3 3" "4 5" "5 5" "2 2" "4 4"; do
	acts dc red "roll $d" end
	acts dc blue "roll 1 1" end
	acts dc white "roll 1 1" end
done
acts dc red "roll 3 4"
printf 'wait 300\nclick-control give+ wool\nclick-control give+ wool\nwait 100\nstate dc.state\nquit\n' >dc.script
run "$catan" play dc --bots blue,white --script dc.script --size 1280x800 --pace 0 2>err ||
	{ cat err; fail "discard session"; }
test "$(val status dc.state)" = "your move: discard 10 cards" || fail "discard: $(val status dc.state)"
test "$(val dialog_line dc.state)" = "choose 8 more with +, then OK" || fail "discard: $(val dialog_line dc.state)"
echo "ok - a discard says how many are left to choose"

# 8. The first window on screens of 1024x640, 1366x768 and 1920x1080: fully
# inside the usable area, nothing cut off, text of 12 px or more; the size
# is remembered for the next window.
if ((xvfb)); then
	"$catan" new fit --players red,blue,white,orange --seed 2 >/dev/null
	printf 'wait 300\nstate fit.state\nscreenshot fit.png\nquit\n' >fit.script
	for s in 1024x640 1366x768 1920x1080; do
		rm -rf "$XDG_CONFIG_HOME"
		xvfb-run -a -s "-screen 0 ${s}x24" "$catan" play fit --script fit.script 2>err ||
			{ cat err; fail "window at $s"; }
		read -r x y w h < <(val window fit.state)
		read -r ux uy uw uh < <(val usable fit.state)
		((x >= ux && y >= uy && x + w <= ux + uw && y + h <= uy + uh)) ||
			fail "$s: the window $x,$y ${w}x$h is not inside $ux,$uy ${uw}x$uh"
		test "$(val clipped fit.state)" = 0 || fail "$s: $(val first_clipped fit.state)"
		test "$(val min_text_px fit.state)" -ge 12 || fail "$s: text of $(val min_text_px fit.state) px"
		test "$(cat "$XDG_CONFIG_HOME/catan-git/window")" = "$w $h" || fail "$s: size not remembered"
		same fit.png "first-$s.png"
		echo "ok - first window on a $s screen: ${w}x$h at $x,$y"
	done
	# A 4K screen (no DPI from the X server): scaled twice, text 24 px+.
	rm -rf "$XDG_CONFIG_HOME"
	xvfb-run -a -s "-screen 0 3840x2160x24" "$catan" play fit --script fit.script 2>err ||
		{ cat err; fail "window at 4K"; }
	test "$(val window fit.state | cut -d' ' -f3-)" = "2560 1600" ||
		fail "4K: window $(val window fit.state)"
	test "$(val clipped fit.state)" = 0 || fail "4K: $(val first_clipped fit.state)"
	test "$(val min_text_px fit.state)" -ge 24 || fail "4K: text of $(val min_text_px fit.state) px"
	echo "ok - first window on a 3840x2160 screen: 2560x1600"
	# A high-DPI screen whose DPI the X server does not tell: CATAN_SCALE.
	rm -rf "$XDG_CONFIG_HOME"
	CATAN_SCALE=1.5 xvfb-run -a -s "-screen 0 2560x1440x24" "$catan" play fit --script fit.script 2>err ||
		{ cat err; fail "window with CATAN_SCALE"; }
	test "$(val window fit.state | cut -d' ' -f3-)" = "1920 1200" ||
		fail "CATAN_SCALE=1.5: window $(val window fit.state)"
	test "$(val clipped fit.state)" = 0 || fail "CATAN_SCALE: $(val first_clipped fit.state)"
	test "$(val min_text_px fit.state)" -ge 18 || fail "CATAN_SCALE: text of $(val min_text_px fit.state) px"
	echo "ok - CATAN_SCALE=1.5 on 2560x1440: 1920x1200"
	# The remembered size is used next time (and still fits).
	echo "900 600" >"$XDG_CONFIG_HOME/catan-git/window"
	xvfb-run -a -s "-screen 0 1920x1080x24" "$catan" play fit --script fit.script 2>err
	test "$(val window fit.state | cut -d' ' -f3-)" = "900 600" || fail "remembered size not used"
	echo "ok - the last size is remembered"
fi

# 9. Resuming a play --new game restarts its bot peers.
printf 'wait 200\nquit\n' >q.script
run "$catan" play --new mp --seed 4 --board beginner --script q.script --pace 0 >/dev/null
cat >r.script <<'S'
wait-turn
click-vertex 0,-1,n
click-edge 0,-1,nw
wait 500
wait-turn
wait 600
state r.state
quit
S
run "$catan" play mp/red --script r.script --pace 0 >resume.out 2>err || { cat err; fail "resume"; }
test "$(val clipped r.state)" = 0 || fail "peer window: $(val first_clipped r.state)"
grep -q "^message done: You placed a settlement and a road" r.state || fail "notice: $(val message r.state)"
grep -q "^resumed: bot peers blue, white, orange started again" resume.out || fail "resume: $(cat resume.out)"
test "$("$catan" -C mp/red log | grep -c setup)" -ge 7 || fail "the bots did not play after resuming"
# play --new makes a signed game: a key per seat, every commit signed
test "$("$catan" -C mp/red key list | grep -c ' ssh-ed25519 ')" = 4 || fail "play --new: not signed"
git -C mp/red show red:game/signers >signers
for b in red blue white orange; do
	git -C mp/red -c gpg.ssh.allowedSignersFile="$PWD/signers" verify-commit "$b" 2>/dev/null ||
		fail "play --new: $b's tip does not verify with git"
done
# play --new on the same folder resumes too (make play with one SEED).
run "$catan" play --new mp --seed 4 --board beginner --script q.script --pace 0 >again.out 2>err ||
	{ cat err; fail "play --new again"; }
grep -q "^a game is already in mp: resuming it" again.out || fail "play --new again: $(cat again.out)"
grep -q "^resumed: bot peers" again.out || fail "play --new again: $(cat again.out)"
echo "ok - resuming restarts the local bot peers"

# 10. A fair-dice game (the default of play --new): a roll, a card drawn
# and a robbery are completed by a commit that merges the reveals it
# waited for; the log tells each as the action it is (not as an internal
# merge), the reveals themselves stay out of it, and the results count
# the rolls.
if [[ -n $fairbench ]]; then
	mkdir fair
	"$fairbench" --rolls 40 --players 4 --dir fair --keep >/dev/null
	fg=$(ls -d fair/*/game-0)
	printf 'wait 300\nstate fair.state\nquit\n' >fair.script
	run "$catan" play "$fg" --script fair.script --size 1280x800 --pace 0 2>err ||
		{ cat err; fail "fair game session"; }
	rolls=$(grep -c "^log .* rolled [1-6]+[1-6] = " fair.state || true)
	asked=$(grep -c "^log .* asked for a roll" fair.state || true)
	test "$rolls" -ge 40 || fail "fair game: $rolls rolls told, $asked asked for"
	test "$rolls" = "$asked" || fail "fair game: $rolls rolls told, $asked asked for"
	grep -q "^log .* received " fair.state || fail "fair game: no production told"
	if grep -q "revealed a secret" fair.state; then fail "fair game: reveals told in the log"; fi
	echo "ok - a fair-dice game's rolls and production told"
fi
