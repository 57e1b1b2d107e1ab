#!/usr/bin/env bash
# Frame time of the game window under Xvfb: a 4-player hot-seat game the
# window's own bots play (so the board, the paced log and the marks change
# all the time) at WxH, with a click on the sea every 20 ms so that every
# frame is drawn; prints the draw time of every frame (median, p95, max)
# as the window measures it (CATAN_UI_STATS=1).
#
#   tools/ui_frames.sh [CATAN] [WxH] [CLICKS]     (defaults: build/catan 1920x1080 400)
set -euo pipefail
catan=$(realpath "${1:-build/catan}")
size=${2:-1920x1080}
clicks=${3:-400}
command -v xvfb-run >/dev/null || { echo "ui_frames: needs xvfb-run (apt-get install xvfb)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
"$catan" new g --players red,blue,white,orange --seed 7 >/dev/null
{
	echo "wait 300"
	for ((i = 0; i < clicks; i++)); do
		echo "click 5 $((5 + i % 20))"
		echo "wait 20"
	done
	echo "quit"
} >script
XDG_CONFIG_HOME=$tmp CATAN_UI_STATS=1 xvfb-run -a -s "-screen 0 ${size}x24" \
	"$catan" play g --bots red,blue,white,orange --interval 0.05 --pace 0.05 \
	--size "$size" --script script 2>&1 | grep '^frames'
echo "($size, $clicks clicks, hot-seat game played by the window's bots; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
