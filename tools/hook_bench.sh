#!/usr/bin/env bash
# hook_bench.sh - what the pre-receive hook of catan host-hook costs per
# pushed commit. Plays one signed 3-player game between bots in one
# repository (hot-seat, every seat's key local), then pushes it commit by
# commit (each to its author's branch, in the game's order) with stock
# git into two bare repositories, one with the hook and one without, and
# prints the time per push of each and the difference; then pushes the
# whole game at once into two more (the hook's cost per commit when a push
# carries many, its fixed cost spread). A third repository gets the same
# hook with `catan host-hook serve` answering its checks (the hook is
# then a small client that hands the push to the running server).
#
# With CALLGRIND=1 (valgrind installed) it also counts the instructions
# of one 1-commit push (the last commit, onto the others) with and
# without the hook, every process of it counted (git push, receive-pack,
# the hook): what the hook adds, free of the machine's load.
#
#   tools/hook_bench.sh CATAN_BINARY [COMMITS]     (default 200 commits)
#   CALLGRIND=1 tools/hook_bench.sh CATAN_BINARY 41
set -euo pipefail
catan=$(realpath "$1")
limit=${2:-200}
tmp=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
d=$tmp
for p in red blue white; do $catan key new "$d/key_$p" >/dev/null 2>&1; done
$catan new "$d/game" --players red,blue,white --me red --seed 11 \
	--key "$d/key_red" --seat blue="$d/key_blue.pub" \
	--seat white="$d/key_white.pub" --dice seeded >/dev/null
for p in blue white; do git -C "$d/game" config --add catan.key "$d/key_$p"; done
git -C "$d/game" config --unset catan.me
# random legal moves (no offers) for whoever the game waits for
RANDOM=1
for i in $(seq 1 "$limit"); do
	next=$($catan -C "$d/game" show --json | sed -n 's/.*"next":"\([a-z]*\)".*/\1/p')
	[[ -n $next ]] || break
	mapfile -t moves < <($catan -C "$d/game" legal --as "$next" 2>/dev/null | grep -v '^trade offer')
	((${#moves[@]})) || break
	$catan -C "$d/game" act --as "$next" ${moves[RANDOM % ${#moves[@]}]} >/dev/null
done
mapfile -t commits < <(git -C "$d/game" rev-list --reverse --topo-order --all | sed 1d | head -n "$limit")
for h in plain hooked served; do
	git init -q --bare "$d/$h.git"
	git -C "$d/game" push -q "$d/$h.git" "$(git -C "$d/game" rev-list --all | tail -1):refs/heads/red"
done
$catan host-hook install "$d/hooked.git" >/dev/null
# served: the same hook, its checks answered by catan host-hook serve
$catan host-hook install "$d/served.git" >/dev/null
$catan host-hook serve "$d/served.git" >/dev/null &
server=$!
trap 'kill $server 2>/dev/null; [[ -n ${KEEP:-} ]] || rm -rf "$tmp"' EXIT
for i in $(seq 1 100); do [[ -S $d/served.git/catan-hook.sock ]] && break; sleep 0.05; done
declare -A ms
for h in plain hooked served; do
	t0=$(date +%s%N)
	for c in "${commits[@]}"; do
		a=$(git -C "$d/game" log -1 --format=%an "$c")
		git -C "$d/game" push -q "$d/$h.git" "$c:refs/heads/$a"
	done
	t1=$(date +%s%N)
	ms[$h]=$(((t1 - t0) / 1000 / ${#commits[@]}))
done
# and the whole game in one push
for h in plain1 hooked1; do
	git init -q --bare "$d/$h.git"
	git -C "$d/game" push -q "$d/$h.git" "$(git -C "$d/game" rev-list --all | tail -1):refs/heads/red"
done
$catan host-hook install "$d/hooked1.git" >/dev/null
for h in plain1 hooked1; do
	t0=$(date +%s%N)
	git -C "$d/game" push -q "$d/$h.git" red blue white
	t1=$(date +%s%N)
	ms[$h]=$(((t1 - t0) / 1000))
done
all=$(git -C "$d/game" rev-list --all | wc -l)
echo "one push of the whole game ($((all - 1)) commits): $((ms[plain1] / 1000)) ms without the hook, $((ms[hooked1] / 1000)) ms with it:"
echo "  the hook:         $(((ms[hooked1] - ms[plain1]) / (all - 1))) us per pushed commit"
echo "${#commits[@]} pushes of one commit each (signed game, 3 players):"
echo "  without the hook: ${ms[plain]} us per push"
echo "  with the hook:    ${ms[hooked]} us per push"
echo "  the hook:         $((ms[hooked] - ms[plain])) us per pushed commit"
echo "  with the hook and catan host-hook serve: ${ms[served]} us per push"
echo "  the served hook:  $((ms[served] - ms[plain])) us per pushed commit"

if [[ -n ${CALLGRIND:-} ]]; then
	last=${commits[${#commits[@]} - 1]}
	a=$(git -C "$d/game" log -1 --format=%an "$last")
	for h in plain hooked; do
		git init -q --bare "$d/cg_$h.git"
		git -C "$d/game" push -q "$d/cg_$h.git" "$(git -C "$d/game" rev-list --all | tail -1):refs/heads/red"
		for c in "${commits[@]:0:${#commits[@]}-1}"; do
			git -C "$d/game" push -q "$d/cg_$h.git" "$c:refs/heads/$(git -C "$d/game" log -1 --format=%an "$c")"
		done
	done
	$catan host-hook install "$d/cg_hooked.git" >/dev/null
	declare -A ins
	for h in plain hooked; do
		mkdir "$d/cg_$h"
		valgrind -q --tool=callgrind --trace-children=yes \
			--callgrind-out-file="$d/cg_$h/out.%p" \
			git -C "$d/game" push -q "$d/cg_$h.git" "$last:refs/heads/$a" 2>/dev/null
		ins[$h]=$(cat "$d/cg_$h"/out.* | awk '/^summary:/ { s += $2 } END { print s }')
	done
	echo "one push of one commit (commit ${#commits[@]} of the game, onto the others), instructions (callgrind):"
	echo "  without the hook: ${ins[plain]}"
	echo "  with the hook:    ${ins[hooked]}"
	echo "  the hook:         $((ins[hooked] - ins[plain]))"
fi
