#!/usr/bin/env bash
# What players feel over git:// on loopback: N peers (4 by default), each
# serving its own repository with `catan serve` (read-only, git-daemon
# behind catan's listener) and fetching the others' over git://, as players
# with an open port play (README "Playing over the Internet").
#   1. N `catan peer --bot greedy` processes play a game: the time from a
#      move's commit on its peer to its adoption by each other peer
#      (median, 90th percentile over all moves and peers; tools/
#      move_latency.py reads the peers' time-stamped output);
#   2. idle CPU: N-1 peers wait IDLE_S seconds (10) for a player who never
#      moves: the CPU time each used, as a share
#      of one core.
#   tools/git_bench.sh CATAN_BUILD_DIR [PLAYERS] [SEED]
# Peers poll with --interval 0.05 --max-interval PEER_MAX_INTERVAL (0.4 s
# unless set), as tools/https_bench.sh's.
set -euo pipefail
build=$(readlink -f "$1")
n=${2:-4}
seed=${3:-5}
catan=$build/catan
here=$(dirname "$(readlink -f "$0")")
maxi=${PEER_MAX_INTERVAL:-0.4}
source "$here/feel.sh"
idle_s=${IDLE_S:-10}
tmp=$(mktemp -d)
pids=()
servers=()
cleanup() {
	for p in "${pids[@]}" "${servers[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
names=(red blue white orange green brown)
list=$(IFS=,; echo "${names[*]:0:n}")

# free_port: a TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# serve P DIR: catan serve for DIR on a free port; sets port_P.
declare -A port
serve() {
	local p=$1 d=$2 pt
	pt=$(free_port)
	$catan -C "$d" serve --port "$pt" --listen 127.0.0.1 >"$tmp/serve_$p.log" 2>&1 &
	servers+=($!)
	port[$p]=$pt
	for _ in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/"$pt") 2>/dev/null && return 0
		sleep 0.05
	done
	echo "git_bench: catan serve for $p did not listen" >&2
	exit 1
}

# new_game DIR: a game of n players, red's made at DIR/red, the others
# joined over git:// from red, each serving its repository, every peer with
# a git:// remote for each other peer.
new_game() {
	local d=$1 extra=()
	((n > 4)) && extra=(--board random --special-build)
	mkdir -p "$d"
	$catan new "$d/red" --players "$list" --me red --seed "$seed" "${extra[@]}" >/dev/null
	serve red "$d/red"
	for p in "${names[@]:1:n-1}"; do
		$catan join "git://127.0.0.1:${port[red]}/" "$d/$p" --as "$p" >/dev/null
		serve "$p" "$d/$p"
	done
	for p in "${names[@]:0:n}"; do
		for q in "${names[@]:0:n}"; do
			[[ $p == "$q" ]] && continue
			# A joined peer's "origin" is red already.
			[[ $p != red && $q == red ]] && continue
			$catan -C "$d/$p" remote add "$q" "git://127.0.0.1:${port[$q]}/" >/dev/null
		done
	done
}

echo "== 1. $n catan peer processes over git:// (each serving its own): move to other peers' screens"
new_game "$tmp/live"
feel_live "$tmp/live" "${names[@]:0:n}"
for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; done
servers=()

echo "== 2. idle: $((n - 1)) peers wait ${idle_s} s for red, who never moves"
new_game "$tmp/idle"
feel_idle "$tmp/idle" "${names[@]:1:n-1}"
