#!/usr/bin/env bash
# Golden images: `catan render` of fixed states (SDL's software renderer,
# no display) compared with tests/data/render/*.png within a tolerance
# (tests/ui/pngcmp.c). CATAN_REGEN=1 rewrites the golden images instead;
# do that only when a change to the drawing is meant, and look at them.
#   test_render.sh CATAN PNGCMP DATA_DIR
set -euo pipefail
catan=$1 pngcmp=$2 data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SDL_VIDEODRIVER=offscreen

"$catan" new "$tmp/beginner" --seed 1 >/dev/null
"$catan" simulate --games 1 --players 4 --seed 5 --out "$tmp/sim" >/dev/null
"$catan" new "$tmp/random" --board random --seed 11 --players red,blue,white >/dev/null
"$catan" simulate --games 1 --players 6 --seed 3 --out "$tmp/six" >/dev/null

render() { # name repo rev size extra...
	local name=$1 repo=$2 rev=$3 size=$4
	shift 4
	"$catan" render "$repo" $rev --size "$size" --out "$tmp/$name.png" "$@"
	if [[ ${CATAN_REGEN:-} == 1 ]]; then
		cp "$tmp/$name.png" "$data/$name.png"
		echo "regenerated $data/$name.png"
	else
		"$pngcmp" "$tmp/$name.png" "$data/$name.png"
	fi
}
render beginner "$tmp/beginner" "" 1280x800
render midgame "$tmp/sim/game-00000" "blue~60" 1280x800 --as blue
render endgame "$tmp/sim/game-00000" "" 1024x640 --reveal
render random-coords "$tmp/random" "" 900x700 --coords
render six-players "$tmp/six/game-00000" "red~40" 1280x800 --reveal

# The comparison itself can fail: a different state is caught.
"$catan" render "$tmp/sim/game-00000" "blue~59" --size 1280x800 --as blue \
	--out "$tmp/other.png"
if "$pngcmp" "$tmp/other.png" "$data/midgame.png" --share 0.05 --mean 0.3 \
	>/dev/null; then
	echo "FAIL: pngcmp accepted a different state"
	exit 1
fi
# Frame time of the software renderer (informative).
"$catan" render "$tmp/sim/game-00000" --frames 30 --size 1280x800
echo "golden renders: ok"
