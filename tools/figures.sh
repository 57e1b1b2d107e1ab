#!/usr/bin/env bash
# figures.sh CATAN OUT [GAMES [PEER_GAMES]]: the thesis's figures 5.2-5.5
# (chapter 5) for 2, 3 and 4 players in one command (what `make figures`
# runs after building catan).
#
#   GAMES       plain `catan simulate` games per player count (100): one
#               repository each, left in OUT/games/pK on the disk of OUT,
#               as the README's measurements were; figures 5.2-5.5 in OUT
#               (5.5 without sync: one repository has nothing to sync).
#   PEER_GAMES  `catan simulate --peers` games per player count (10): each
#               player a repository of its own, syncing before each turn;
#               figure 5.5 with its sync part in OUT/peers. Fewer than
#               GAMES because a --peers game costs 0.6-1.8 s against
#               0.1-0.2 s (one loose object file per object per peer, a
#               sync per turn per peer). They are played under
#               FIGURES_TMP (default /dev/shm, a tmpfs, when writable):
#               what they measure is compute, commit and sync, not how
#               fast a disk makes a peer's objects durable (on this
#               machine's ext4, 3.7 s against 0.6 s per 2-player game),
#               and their repositories are removed once drawn (their
#               games.csv stay in OUT/peers).
#
# Environment: JOBS (2) processes per simulate and report; SEED (1).
# Writes OUT/README.md: what ran, how many games, how long each step took.
set -euo pipefail
if [[ $# -lt 2 || $1 == -h || $1 == --help ]]; then
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	[[ $# -ge 2 ]] && exit 0 || exit 2
fi
catan=$1 out=$2 games=${3:-100} peer_games=${4:-10}
jobs=${JOBS:-2} seed=${SEED:-1}
tmpbase=${FIGURES_TMP:-/dev/shm}
[[ -d $tmpbase && -w $tmpbase ]] || tmpbase=${TMPDIR:-/tmp}
work=$(mktemp -d "$tmpbase/catan-figures.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v gnuplot >/dev/null || { echo "figures: gnuplot is needed (apt-get install gnuplot-nox)" >&2; exit 1; }
# A folder this script made before is replaced; anything else is left alone.
if [[ -e $out ]]; then
	if head -1 "$out/README.md" 2>/dev/null | grep -q '^# Figures 5.2-5.5 of the thesis'; then
		rm -rf "$out"
	elif [[ -n $(ls -A "$out") ]]; then
		echo "figures: $out is not empty and not figures.sh's; give a new OUT" >&2
		exit 1
	fi
fi
mkdir -p "$out/games" "$out/peers"
t0=$(date +%s.%N)
lap() { local t; t=$(date +%s.%N); awk -v a="$1" -v b="$t" 'BEGIN { printf "%.1f", b - a }'; }

for p in 2 3 4; do
	"$catan" simulate --games "$games" --players "$p" --seed "$seed" \
		--out "$out/games/p$p" --jobs "$jobs" --quiet
done
t_plain=$(lap "$t0")
t1=$(date +%s.%N)
for p in 2 3 4; do
	"$catan" simulate --games "$peer_games" --players "$p" --seed "$seed" \
		--peers --out "$work/peers-p$p" --jobs "$jobs" --quiet
	cp "$work/peers-p$p/games.csv" "$out/peers/games-p$p.csv"
done
t_peers=$(lap "$t1")
t2=$(date +%s.%N)
"$catan" report "$out/games/p2" "$out/games/p3" "$out/games/p4" \
	--out "$out" --jobs "$jobs" --quiet
"$catan" report "$work/peers-p2" "$work/peers-p3" "$work/peers-p4" \
	--out "$out/peers" --jobs "$jobs" --quiet
t_report=$(lap "$t2")
total=$(lap "$t0")
version=$(sed -n 's/.*"catan_version": *"\([^"]*\)".*/\1/p' "$out/games/p2/run.json" | head -1)

cat >"$out/README.md" <<EOT
# Figures 5.2-5.5 of the thesis, 2, 3 and 4 players

Made by \`tools/figures.sh\` (\`make figures\`) with catan ${version:-?},
seed $seed, $jobs jobs, on $(hostname) in ${total} s: ${t_plain} s for
$games plain games per player count, ${t_peers} s for $peer_games
\`--peers\` games per player count, ${t_report} s for the two reports.

* \`fig5_2\` (repository size against commits), \`fig5_3\` (git diff
  sizes), \`fig5_4\` (seconds per game) and \`fig5_5\` (compute and
  commit per commit) from the $games plain games per player count
  (\`games/p2\`, \`games/p3\`, \`games/p4\`; tables in \`index.md\`).
* \`peers/fig5_5\`: figure 5.5 with its sync part, from $peer_games
  \`catan simulate --peers\` games per player count (each player a
  repository of its own, syncing with all the others before each turn),
  played on $tmpbase and removed once drawn (\`peers/games-pK.csv\` keep
  their rows; tables in \`peers/index.md\`). Fewer games than the plain
  ones: a --peers game costs several times a plain one.
EOT
echo "figures: $out (fig5_2..fig5_5 from $games games per player count," \
	"peers/fig5_5 with sync from $peer_games --peers games) in $total s"
