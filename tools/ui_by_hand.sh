#!/usr/bin/env bash
# Plays the game window by hand without a screen, as a newcomer would: a
# virtual X server (Xvfb), the real mouse and keyboard (xdotool), and
# screenshots to look at after each move (xwd, netpbm). How issue 18's
# full game was played.
#
#   tools/ui_by_hand.sh start DIR [SEED]   Xvfb :57 (1920x1080) and
#                                          `catan play --new DIR --board
#                                          balanced --seed SEED` in it
#   tools/ui_by_hand.sh click X Y          a left click at screen X,Y
#   tools/ui_by_hand.sh key KEY            a key (xdotool's names: q, Escape)
#   tools/ui_by_hand.sh shot FILE.png      the whole screen
#   tools/ui_by_hand.sh stop               closes the window, stops Xvfb
#
# The window opens at 1280x800 in the middle of the screen (320,140).
# Needs xvfb, xdotool, x11-apps and netpbm (tools/deps.sh installs them).
set -euo pipefail
catan=$(realpath "${CATAN:-build/catan}")
export DISPLAY=${UI_DISPLAY:-:57}
state=${TMPDIR:-/tmp}/catan-ui-by-hand${DISPLAY#:}
case ${1:-} in
start)
	dir=${2:?start DIR [SEED]}
	mkdir -p "$state"
	Xvfb "$DISPLAY" -screen 0 1920x1080x24 >"$state/xvfb.log" 2>&1 &
	echo $! >"$state/xvfb.pid"
	sleep 1
	XDG_CONFIG_HOME=$state "$catan" play --new "$dir" --board balanced \
		--seed "${3:-1}" >"$state/play.log" 2>&1 &
	echo $! >"$state/play.pid"
	# The game is made and its bots started, then the window opens.
	for _ in $(seq 60); do
		grep -q "^game in\|^a game is already" "$state/play.log" && break
		sleep 0.5
	done
	sleep 2
	cat "$state/play.log"
	;;
click) xdotool mousemove "$2" "$3" click 1 ;;
key) xdotool key "$2" ;;
shot) xwd -root | xwdtopnm 2>/dev/null | pnmtopng >"$2" ;;
stop)
	xdotool key q || true
	sleep 1
	[[ -f $state/play.pid ]] && kill "$(cat "$state/play.pid")" 2>/dev/null || true
	[[ -f $state/xvfb.pid ]] && kill "$(cat "$state/xvfb.pid")" 2>/dev/null || true
	rm -rf "$state"
	;;
*)
	sed -n '2,18p' "$0"
	exit 2
	;;
esac
