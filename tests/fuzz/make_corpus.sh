#!/usr/bin/env bash
# Writes the seed corpora of the fuzz targets from the golden games of
# tests/data/games, replayed by a built catan:
#   tests/fuzz/make_corpus.sh CATAN [OUT]      (OUT: tests/fuzz/corpus)
# action       action texts of the games (a byte choosing the board first)
# boardfile    board files from `catan board generate`
# codec        state trees of commits (=== PATH lines, then the file)
# message      raw commits and messages of commits
# sync_objects loose object files, raw trees, raw commits
# packed_refs  packed-refs of a simulated game and of `git pack-refs`
# pack         packs with their index from `catan gc` and `catan simulate`
# The prefix bytes are the harnesses' selectors (see each fuzz_*.c).
set -euo pipefail
catan=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${2:-$here/corpus}")
games=$here/../data/games
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp GIT_AUTHOR_NAME=fuzz GIT_COMMITTER_NAME=fuzz \
	GIT_AUTHOR_EMAIL=fuzz@catan GIT_COMMITTER_EMAIL=fuzz@catan

for t in action boardfile codec message sync_objects packed_refs pack; do
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t"
done
# put TARGET NAME PREFIX-PRINTF-BYTES < content
put() {
	{ printf "$3"; cat; } >"$out/$1/$2"
}

# ---- action: one of each verb (first two words) of every game
for g in "$games"/*.txt; do
	sel='\000'
	grep -q '^players 4' "$g" || sel='\001'
	grep -E '^(red|blue|white|orange) ' "$g" | cut -d' ' -f2- |
		awk '{k = $1; if (k ~ /^(build|play|trade|buy)$/) k = k " " $2
			if (c[k]++ < 1) print}' |
		while IFS= read -r a; do
			h=$(printf '%s' "$a" | sha1sum | cut -c1-12)
			printf '%s' "$a" | put action "$h" "$sel"
		done
done

# ---- boardfile
"$catan" board generate --seed 1 --out "$out/boardfile/balanced-1" >/dev/null
"$catan" board generate --seed 2 --radius 3 \
	--out "$out/boardfile/radius-3" >/dev/null
"$catan" board generate --seed 3 --radius 1 \
	--out "$out/boardfile/radius-1" >/dev/null
"$catan" board generate --seed 4 --shape 5-6 \
	--out "$out/boardfile/ext56" >/dev/null
"$catan" board generate --seed 5 --pin 0,0=forest:8 --pin 1,-1=desert \
	--out "$out/boardfile/pinned" >/dev/null

# ---- games replayed: repo NAME GAME ACTIONS
replay() {
	local dir=$tmp/$1 g=$games/$2 n=$3
	local players board seed phases dice offers
	players=$(sed -n 's/^players //p' "$g")
	board=$(sed -n 's/^board //p' "$g")
	seed=$(sed -n 's/^seed //p' "$g")
	phases=$(sed -n 's/^phases //p' "$g")
	dice=$(sed -n 's/^dice //p' "$g")
	offers=$(sed -n 's/^offer-limit //p' "$g")
	local names=red,blue,white,orange
	if [[ $board == random\ * ]]; then
		# A random board of its own seed: as a board file.
		"$catan" new "$dir.b" --board random --seed "${board#random }" \
			>/dev/null
		{ printf 'catan-board 1\nradius 2\n'
		  git -C "$dir.b" show HEAD:game/board |
			sed 's/ desert 0$/ desert/; s/ generic$/ 3:1/'
		} >"$dir.board"
		board=$dir.board
	fi
	names=$(echo "$names" | cut -d, -f1-"$players")
	"$catan" new "$dir" --players "$names" --board "$board" \
		--seed "$seed" --phases "$phases" --dice "$dice" \
		--offer-limit "$offers" >/dev/null
	grep -E '^(red|blue|white|orange) ' "$g" | sed -n "1,${n}p" |
		while read -r who act; do
			# shellcheck disable=SC2086
			"$catan" -C "$dir" act --as "$who" $act >/dev/null
		done
}
replay g4 greedy-4p-beginner.txt 400
replay g3 random-3p-manual-dice.txt 150
replay o4 random-4p-classic-offers.txt 200
replay s4 random-4p-beginner.txt 40

# Commits of a repository spread over its history (every k-th), and
# every merge of discards.
commits() {
	local n
	n=$(git -C "$1" rev-list --all | wc -l)
	git -C "$1" rev-list --all --topo-order --reverse |
		awk -v k=$(((n + $2 - 1) / $2)) 'NR == 1 || NR % k == 0'
	git -C "$1" rev-list --all --merges | sed -n 1,2p
}

for r in g4 g3 o4; do
	repo=$tmp/$r
	for c in $(commits "$repo" 4 | sort -u); do
		s=$r-${c:0:10}
		# codec: the tree as files
		for f in $(git -C "$repo" ls-tree -r --name-only "$c"); do
			printf '=== %s\n' "$f"
			git -C "$repo" cat-file blob "$c:$f"
		done | put codec "$s" ''
		# message: the raw commit, and the message under a header
		git -C "$repo" cat-file commit "$c" | put message "$s-raw" '\000'
		who=$(git -C "$repo" log -1 --format=%an "$c")
		case $who in
		red) i=0 ;; blue) i=1 ;; white) i=2 ;; *) i=3 ;;
		esac
		git -C "$repo" log -1 --format=%B "$c" | sed '$d' |
			put message "$s-msg" "\\001\\00$i"
		# sync_objects: the loose files, the raw tree and commit
		tree=$(git -C "$repo" rev-parse "$c^{tree}")
		now=$(git -C "$repo" rev-parse "$c:now")
		for o in "$c:0" "$tree:6" "$now:9"; do
			id=${o%:*}
			put sync_objects "$s-loose-${id:0:8}" "\\00${o#*:}" \
				<"$repo/objects/${id:0:2}/${id:2}"
		done
		git -C "$repo" cat-file tree "$tree" |
			put sync_objects "$s-tree" '\001'
		git -C "$repo" cat-file commit "$c" |
			put sync_objects "$s-commit" '\016'
	done
done
# the codec with its default game (no game/ files): a 4-player beginner
# game of the default options
for c in $(commits "$tmp/s4" 4 | sort -u); do
	for f in $(git -C "$tmp/s4" ls-tree -r --name-only "$c" | grep -v ^game/); do
		printf '=== %s\n' "$f"
		git -C "$tmp/s4" cat-file blob "$c:$f"
	done | put codec "default-${c:0:10}" ''
done

# ---- packed-refs: git's (peeled, with a tag) and a simulated game's
cp -r "$tmp/g4" "$tmp/refs"
git -C "$tmp/refs" tag -a -m t v1 red
git -C "$tmp/refs" pack-refs --all
put packed_refs git-none '\000' <"$tmp/refs/packed-refs"
put packed_refs git-red '\001' <"$tmp/refs/packed-refs"
put packed_refs git-two '\016' <"$tmp/refs/packed-refs"
"$catan" simulate --games 1 --players 3 --seed 5 --out "$tmp/sim" >/dev/null
simrepo=$(find "$tmp/sim" -name packed-refs -printf "%h\n" | sed -n 1p)
put packed_refs sim-none '\000' <"$simrepo/packed-refs"
put packed_refs sim-blue '\005' <"$simrepo/packed-refs"
put packed_refs sim-two '\032' <"$simrepo/packed-refs"
printf '' | put packed_refs empty '\001'

# ---- pack: chunk = 4-byte little-endian length, bytes
chunk() {
	local n
	n=$(stat -c %s "$1")
	printf "\\$(printf %03o $((n & 255)))\\$(printf %03o $((n >> 8 & 255)))"
	printf "\\$(printf %03o $((n >> 16 & 255)))\\$(printf %03o $((n >> 24 & 255)))"
	cat "$1"
}
gc_pack() { # repo copy -> the stem of its one pack
	cp -r "$tmp/$1" "$tmp/$2"
	"$catan" -C "$tmp/$2" gc >/dev/null
	ls "$tmp/$2"/objects/pack/*.pack | sed -n 1p | sed 's/\.pack$//'
}
# Small packs (a few dozen objects): a harness run costs what it reads.
replay p2 random-4p-beginner.txt 2
replay p5 random-4p-beginner.txt 5
a=$(gc_pack p2 gc-p2)
b=$(gc_pack p5 gc-p5)
{ chunk "$a.pack"; chunk "$a.idx"; } | put pack gc-one '\000'
{ chunk "$a.pack"; chunk "$a.idx"; chunk "$b.pack"; chunk "$b.idx"; } |
	put pack gc-two '\000'
{ chunk "$b.pack"; chunk "$b.idx"; } | put pack gc-one-mend '\007'
# a sync's pack (no deltas, stored blocks) of one action
"$catan" join "$tmp/p2" "$tmp/peer" --as blue >/dev/null
mkdir -p "$tmp/peer/objects/pack"
ls "$tmp/peer/objects/pack" >"$tmp/before"
"$catan" -C "$tmp/p2" act --as white setup 3,-2,s 3,-1,w >/dev/null
"$catan" -C "$tmp/peer" remote add host "$tmp/p2" >/dev/null
"$catan" -C "$tmp/peer" sync >/dev/null
for p in "$tmp"/peer/objects/pack/*.pack; do
	grep -qx "$(basename "$p")" "$tmp/before" && continue
	s=${p%.pack}
	{ chunk "$s.pack"; chunk "$s.idx"; } |
		put pack "sync-$(basename "$s" | cut -c6-15)" '\000'
done
du -sh "$out"
for t in "$out"/*; do echo "$(basename "$t"): $(ls "$t" | wc -l) files"; done
