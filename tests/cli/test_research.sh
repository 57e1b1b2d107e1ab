#!/usr/bin/env bash
# The research toolkit (issue 17): --help of every command and tool,
# simulate's choice of bots, victory points and board, shards that merge
# into the unsharded run, the tables of catan stats, and catan report's
# figures and their data.
# Usage: test_research.sh BUILD_DIR
set -euo pipefail
bin=$1
catan=$bin/catan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# Column $2 of CSV $1 by its header name, for the row whose game is $3.
col() { awk -F, -v c="$2" -v g="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
	$2 == g { print $k }' "$1"; }

# 1. --help and -h: a usage on stdout, exit 0, for every command and tool.
for cmd in "$catan simulate" "$catan stats" "$catan report" \
	"$bin/catan-bench" "$bin/catan-store-bench" "$bin/catan-sync-bench" \
	"$bin/catan-peers-bench" "$bin/catan-boardgen-bench" \
	"$bin/catan-verify-bench" "$bin/catan-golden" "$bin/catan-trace"; do
	for h in --help -h; do
		$cmd $h >"$tmp/help" 2>"$tmp/err" || fail "$cmd $h exits $?"
		grep -qi usage "$tmp/help" || fail "$cmd $h prints no usage: $(head -3 "$tmp/help")"
		[[ ! -s $tmp/err ]] || fail "$cmd $h writes to stderr: $(cat "$tmp/err")"
	done
done
grep -q -- '--bots' <("$catan" simulate --help) || fail "simulate --help lacks --bots"
grep -q -- '--histogram' <("$catan" stats --help) || fail "stats --help lacks --histogram"
ok "--help and -h print a usage and exit 0 for simulate, stats, report and the 8 tools"

# Benchmarks write under the folder they are given, in a fresh folder, and
# leave the folder itself (and anything else in it) alone.
mkdir "$tmp/benchdir"
echo keep >"$tmp/benchdir/mine"
"$bin/catan-store-bench" --commits 30 --window 10 --dir "$tmp/benchdir" >/dev/null
[[ $(cat "$tmp/benchdir/mine") == keep && $(ls "$tmp/benchdir") == mine ]] ||
	fail "catan-store-bench touched its --dir: $(ls "$tmp/benchdir")"
ok "catan-store-bench works in a fresh folder under --dir and removes only that"

# 2. Choice of players: one bot kind per seat, the victory target, the board.
$catan simulate --games 3 --players 4 --seed 5 --bots random,greedy,random,greedy \
	--vp 6 --board balanced --out "$tmp/bots" --quiet 2>"$tmp/err"
[[ ! -s $tmp/err ]] || fail "simulate --quiet wrote to stderr: $(cat "$tmp/err")"
for d in "$tmp"/bots/game-*; do
	$catan -C "$d" verify >/dev/null || fail "verify $d"
	git -C "$d" show HEAD:game/options | grep -qx 'vp 6' || fail "$d: not a 6-point game"
done
grep -q ',balanced,combined,6,random-greedy-random-greedy,' "$tmp/bots/games.csv" ||
	fail "games.csv lacks the provenance: $(sed -n 2p "$tmp/bots/games.csv")"
grep -q '"bots":"random-greedy-random-greedy"' "$tmp/bots/run.json" || fail "run.json options"
grep -q '"catan_version":"[0-9]' "$tmp/bots/run.json" || fail "run.json version"
grep -q '"command":\["catan","simulate","--games","3"' "$tmp/bots/run.json" || fail "run.json command"
# The greedy seats play otherwise than random ones: the same seeds give
# other games.
$catan simulate --games 3 --players 4 --seed 5 --vp 6 --board balanced --out "$tmp/rnd" --quiet
cmp -s <(cut -d, -f4 "$tmp/bots/games.csv") <(cut -d, -f4 "$tmp/rnd/games.csv") &&
	fail "--bots changed nothing"
$catan simulate --games 1 --players 3 --bots greedy --board random --out "$tmp/g3" --quiet
grep -q ',random,combined,10,greedy-greedy-greedy,' "$tmp/g3/games.csv" || fail "--bots greedy for all seats"
for bad in "--bots random,greedy" "--bots clever" "--vp 2" "--board hexagonal" "--shard 3/2" "--shard 0/2"; do
	if $catan simulate --games 2 --players 4 $bad --out "$tmp/bad" 2>/dev/null; then
		fail "simulate accepted $bad"
	fi
done
ok "simulate --bots (per seat or one for all), --vp, --board balanced|random; bad values refused"

# The progress line: on a terminal (script(1) gives one), with rate and
# ETA; none with --quiet, none when stderr is not a terminal.
if command -v script >/dev/null 2>&1; then
	script -qec "$catan simulate --games 3 --players 2 --out $tmp/tty" /dev/null >"$tmp/tty.out" </dev/null
	grep -q 'catan simulate: 3/3 games, [0-9.]* games/s, ETA' "$tmp/tty.out" || fail "no progress line: $(cat -v "$tmp/tty.out")"
	script -qec "$catan stats $tmp/tty --csv >/dev/null" /dev/null >"$tmp/tty.out" </dev/null
	grep -q 'catan stats: 3/3 games, [0-9.]* games/s, ETA' "$tmp/tty.out" || fail "no stats progress line: $(cat -v "$tmp/tty.out")"
	script -qec "$catan stats $tmp/tty --csv --quiet >/dev/null" /dev/null >"$tmp/tty.out" </dev/null
	[[ ! -s $tmp/tty.out ]] || fail "stats --quiet on a terminal: $(cat -v "$tmp/tty.out")"
	$catan stats "$tmp/tty" --csv 2>"$tmp/err" >/dev/null
	[[ ! -s $tmp/err ]] || fail "progress written to a non-terminal: $(cat -v "$tmp/err")"
	ok "a progress line with rate and ETA on a terminal; none with --quiet or off a terminal"
fi

# 3 and 5. Shards merge into the unsharded run; stats' tables.
$catan simulate --games 5 --players 2 --seed 21 --out "$tmp/all" --quiet --jobs 2
$catan simulate --games 5 --players 2 --seed 21 --out "$tmp/sh1" --quiet --shard 1/2
$catan simulate --games 5 --players 2 --seed 21 --out "$tmp/sh2" --quiet --shard 2/2
[[ $(ls -d "$tmp"/sh1/game-* | wc -l) == 2 && $(ls -d "$tmp"/sh2/game-* | wc -l) == 3 ]] ||
	fail "shards of 5 games are not 2 + 3"
# Every column but the folder and the timings.
strip() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i !~ /^(folder|compute_ms_per_action|commit_ms_per_action|game_s)$/) keep[i] = 1 }
	{ s = ""; for (i = 1; i <= NF; i++) if (keep[i]) s = s $i ","; print s }'; }
$catan stats --csv --quiet "$tmp/all" | strip >"$tmp/one"
$catan stats --csv --quiet "$tmp/sh1" "$tmp/sh2" | strip >"$tmp/merged"
[[ $(wc -l <"$tmp/one") == 6 ]] || fail "stats of 5 games: $(wc -l <"$tmp/one") lines"
diff "$tmp/one" "$tmp/merged" >/dev/null || fail "merged shards differ from one run: $(diff "$tmp/one" "$tmp/merged" | head -5)"
$catan stats --csv --quiet --jobs 2 "$tmp/sh1" "$tmp/sh2" | strip | diff - "$tmp/one" >/dev/null ||
	fail "stats --jobs 2 differs from --jobs 1"
ok "simulate --shard 1/2 and 2/2 merge in stats into the unsharded run (and stats --jobs 2 agrees)"

# The per-game table: provenance columns and metrics.
$catan stats --csv --quiet "$tmp/bots" >"$tmp/games.csv"
head -1 "$tmp/games.csv" | grep -q '^folder,game,seed,players,board,phases,vp,bots,catan_version,commits,' ||
	fail "stats header: $(head -1 "$tmp/games.csv")"
[[ $(col "$tmp/games.csv" seed game-00001) == 6 && $(col "$tmp/games.csv" board game-00001) == balanced &&
   $(col "$tmp/games.csv" bots game-00001) == random-greedy-random-greedy ]] || fail "provenance of game-00001"
commits=$(git -C "$tmp/bots/game-00002" rev-list --all | wc -l)
[[ $(col "$tmp/games.csv" commits game-00002) == "$commits" ]] || fail "commits"
# Sizes as stock tools measure them: du (apparent bytes, and disk blocks)
# and the pack files' sizes.
g2="$tmp/bots/game-00002"
[[ $(col "$tmp/games.csv" du_bytes game-00002) == "$(du -sb "$g2" | cut -f1)" ]] ||
	fail "du_bytes $(col "$tmp/games.csv" du_bytes game-00002), du -sb says $(du -sb "$g2" | cut -f1)"
[[ $(col "$tmp/games.csv" du_disk game-00002) == "$(du -s --block-size=1 "$g2" | cut -f1)" ]] ||
	fail "du_disk against du -s"
[[ $(col "$tmp/games.csv" written_bytes game-00002) == "$(cat "$g2"/objects/pack/*.pack | wc -c)" ]] ||
	fail "written_bytes against the pack files"
grep -q '"bots":"random-greedy-random-greedy"' <($catan stats --json --quiet "$tmp/bots") || fail "stats --json provenance"
ok "stats: one row per game with provenance (folder, seed, players, board, phases, vp, bots, version)"

# The summary: n, mean, sd, min, median, max per group and metric.
$catan stats --summary --csv --by players --quiet "$tmp/all" "$tmp/g3" >"$tmp/sum.csv"
head -1 "$tmp/sum.csv" | grep -qx 'group,metric,unit,n,mean,sd,min,median,max' || fail "summary header"
grep -q '^2 players,commits,commits,5,' "$tmp/sum.csv" || fail "summary of the 2-player group"
grep -q '^3 players,diff_mean,B,1,' "$tmp/sum.csv" || fail "summary of the 3-player group"
want=$(awk -F, 'NR > 1 { s += $0 ~ /./ ? 0 : 0; for (i = 1; i <= NF; i++) if (h[i] == "commits") { x[++m] = $i } next }
	{ for (i = 1; i <= NF; i++) h[i] = $i }
	END { for (i = 1; i <= m; i++) t += x[i]; printf "%.1f", t / m }' \
	<($catan stats --csv --quiet "$tmp/all"))
got=$(awk -F, '$1 == "2 players" && $2 == "commits" { print $5 }' "$tmp/sum.csv")
[[ $(printf %.1f "$got") == "$want" ]] || fail "summary mean of commits $got, games say $want"
for m in commits du_bytes written_bytes diff_mean empty_percent compute_ms_per_action commit_ms_per_action game_s; do
	grep -q "^2 players,$m," "$tmp/sum.csv" || fail "no summary of $m"
done
ok "stats --summary --by players: n, mean, sd, min, median, max for every metric"

# The histogram of diff sizes: every parent-child pair counted once.
$catan stats --histogram --csv --bin 100 --quiet "$tmp/all" >"$tmp/hist.csv"
pairs=0
for d in "$tmp"/all/game-*; do
	pairs=$((pairs + $(git -C "$d" rev-list --all --parents | awk '{ n += NF - 1 } END { print n }')))
done
[[ $(awk -F, 'NR > 1 { s += $4 } END { print s }' "$tmp/hist.csv") == "$pairs" ]] ||
	fail "histogram counts $(awk -F, 'NR > 1 { s += $4 } END { print s }' "$tmp/hist.csv") pairs, git has $pairs"
ok "stats --histogram: $pairs pairs in bins of 100 B"

# simulate --peers: each player a repository of its own, syncing; the
# first player's repository holds the whole game and verifies; stats and
# report get sync time per commit (figure 5.5).
$catan simulate --games 2 --players 3 --seed 41 --peers --out "$tmp/peers" --quiet --jobs 2
[[ $(ls "$tmp/peers") == $'game-00000\ngame-00001\ngames.csv\nrun.json' ]] ||
	fail "--peers left other repositories: $(ls "$tmp/peers")"
for d in "$tmp"/peers/game-*; do
	$catan -C "$d" verify | grep -q '^ok' || fail "verify $d"
	[[ $(git -C "$d" rev-list --all --count) -gt 100 ]] || fail "$d holds few commits"
	for who in red blue white; do
		git -C "$d" rev-parse -q --verify "refs/heads/$who" >/dev/null || fail "$d lacks $who"
	done
done
$catan stats --csv --quiet "$tmp/peers" >"$tmp/peers.csv"
for g in game-00000 game-00001; do
	sync=$(col "$tmp/peers.csv" sync_ms_per_action $g)
	awk -v x="$sync" 'BEGIN { exit !(x > 0) }' || fail "$g: no sync time ($sync)"
	# The commits are the game's: its actions and the genesis commit.
	actions=$(awk -F, -v g=$g '$1 == g { print $4 }' "$tmp/peers/games.csv")
	[[ $(col "$tmp/peers.csv" commits $g) -ge $((actions + 1)) ]] || fail "$g: commits below actions"
done
[[ -z $(col "$tmp/games.csv" sync_ms_per_action game-00001) ]] || fail "sync time for a game without peers"
ok "simulate --peers: one repository per player, syncing; sync ms per commit in stats"

# 6. catan log: a range in git's syntax, one player's actions, JSON.
g=$tmp/bots/game-00000
[[ $($catan -C "$g" log | wc -l) == $(git -C "$g" rev-list --all | wc -l) ]] || fail "log: every commit"
$catan -C "$g" log blue~4..blue | cut -c17- | sed 's/^ *[a-z]* *//' >"$tmp/log.range"
# (a roll as catan log shows it, with its Dice trailer: "roll 3+4")
git -C "$g" log --reverse --format='%s|%(trailers:key=Dice,valueonly,separator=)' blue~4..blue |
	sed 's/^roll[^|]*|\([1-6]\) \([1-6]\)$/roll \1+\2/; s/|$//' >"$tmp/git.range"
diff "$tmp/log.range" "$tmp/git.range" >/dev/null || fail "log blue~4..blue: $(cat "$tmp/log.range") vs $(cat "$tmp/git.range")"
[[ $($catan -C "$g" log --player white | awk '$3 != "white"' | wc -l) == 0 &&
   $($catan -C "$g" log --player white | wc -l) == $(git -C "$g" log --format=%an --all | grep -cx white) ]] ||
	fail "log --player white"
json=$($catan -C "$g" log HEAD~2..HEAD --json)
[[ $(grep -o '"id":"[0-9a-f]\{40\}"' <<<"$json" | wc -l) == 2 ]] || fail "log --json: $json"
grep -q '"player":"[a-z]*","action":"[^"]*","merge":false[,}]' <<<"$json" || fail "log --json fields: $json"
if $catan -C "$g" log --player nobody 2>/dev/null; then fail "log --player nobody"; fi
if $catan -C "$g" log no-such-rev 2>/dev/null; then fail "log of an unknown revision"; fi
grep -q usage <<<"$($catan -C "$g" log --help)" || fail "log --help"
ok "log REV..REV (as git log), --player, --json; unknown player or revision refused"

# 4. catan report: figures as SVG and PNG, index.md, and data files that
# hold stats' numbers.
if command -v gnuplot >/dev/null 2>&1; then
	$catan simulate --games 4 --players 4 --seed 31 --out "$tmp/r4" --quiet
	$catan report "$tmp/all" "$tmp/r4" "$tmp/peers" --out "$tmp/rep" --quiet
	for f in fig5_2 fig5_3 fig5_4 fig5_5; do
		[[ $(stat -c %s "$tmp/rep/$f.png") -gt 5000 ]] || fail "$f.png is small or missing"
		[[ $(head -c 8 "$tmp/rep/$f.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] || fail "$f.png is no PNG"
		grep -q '<svg' "$tmp/rep/$f.svg" || fail "$f.svg is no SVG"
		[[ $(grep -c '<path\|<polyline\|<rect' "$tmp/rep/$f.svg") -gt 10 ]] || fail "$f.svg draws almost nothing"
		grep -q "($f.png)" "$tmp/rep/index.md" || fail "index.md does not show $f"
	done
	grep -q '^| commits per game | .* | 880 | .* | 1168 | .* | - |$' "$tmp/rep/index.md" || fail "index.md: no thesis column"
	grep -q '^| seconds per game | .* | 113 | .* | 406 | .* | - |$' "$tmp/rep/index.md" || fail "index.md: thesis seconds"
	grep -q '^| sync per commit, ms (--peers) | - | 64 | - | 249 | [0-9.]* ± [0-9.]* | - |$' "$tmp/rep/index.md" ||
		fail "index.md: sync row: $(grep sync "$tmp/rep/index.md")"
	# The plotted numbers are stats' numbers: every game's row of
	# games-K.tsv is its row of stats --csv (metrics), ...
	$catan stats --csv --quiet "$tmp/all" "$tmp/r4" "$tmp/peers" |
		awk -F, 'NR > 1 { s = $2; for (i = 10; i <= NF; i++) s = s "\t" ($i == "" ? "NaN" : $i); print s }' |
		sort >"$tmp/stats.rows"
	cat "$tmp"/rep/games-*.tsv | grep -v '^#' | sort >"$tmp/plot.rows"
	diff "$tmp/stats.rows" "$tmp/plot.rows" >/dev/null ||
		fail "games-K.tsv differ from stats: $(diff "$tmp/stats.rows" "$tmp/plot.rows" | head -4)"
	[[ $(wc -l <"$tmp/plot.rows") == 11 ]] || fail "11 games expected in the data"
	# ... the histograms are stats --histogram's, ...
	$catan stats --histogram --csv --by players --quiet "$tmp/all" "$tmp/r4" "$tmp/peers" |
		awk -F, 'NR > 1 { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' >"$tmp/stats.hist"
	for k in 0 1 2; do
		label=$(sed -n '1s/^# group \(.*\): .*/\1/p' "$tmp/rep/hist-$k.tsv")
		grep -v '^#' "$tmp/rep/hist-$k.tsv" | sed "s/^/$label\t/"
	done >"$tmp/plot.hist"
	diff "$tmp/stats.hist" "$tmp/plot.hist" >/dev/null ||
		fail "hist-K.tsv differ from stats --histogram: $(diff "$tmp/stats.hist" "$tmp/plot.hist" | head -4)"
	# ... and the means the figures mark are stats --summary's.
	$catan stats --summary --csv --by players --quiet "$tmp/all" "$tmp/r4" "$tmp/peers" >"$tmp/sum2.csv"
	while IFS=$'\t' read -r k group games commits du compute commit sync secs; do
		[[ $k == "#"* ]] && continue
		pairs=("commits:$commits" "du_bytes:$du" "compute_ms_per_action:$compute"
			"commit_ms_per_action:$commit" "game_s:$secs")
		# Sync: the 3-player group (--peers) has it; the others plot 0.
		if [[ $group == "3 players" ]]; then
			pairs+=("sync_ms_per_action:$sync")
		else
			[[ $sync == 0.000000 ]] || fail "sync $sync plotted for $group"
		fi
		for pair in "${pairs[@]}"; do
			want=$(awk -F, -v g="$group" -v m="${pair%%:*}" '$1 == g && $2 == m { print $5 }' "$tmp/sum2.csv")
			[[ $want == "${pair#*:}" ]] || fail "groups.tsv $group ${pair%%:*} ${pair#*:}, stats says $want"
		done
	done <"$tmp/rep/groups.tsv"
	ok "report (with a --peers group): 4 figures as SVG and PNG, index.md with the thesis column; games-K.tsv, hist-K.tsv and groups.tsv hold stats' numbers"
else
	skip_part report "no gnuplot (tools/deps.sh installs gnuplot-nox)"
fi

echo "$n passed, 0 failed"
