#!/usr/bin/env bash
# Games through one relay repository over https on loopback (nginx + TLS +
# basic authentication + git-http-backend, tools/https_host.sh), measured:
#   1. catan-peers-bench --relay: N peers (6 by default: a 5-6 board with
#      the special building phase) in one process, each syncing only with
#      the relay: sync time per commit amortised, and the median time of a
#      sync that brought exactly one new commit (fetched over https,
#      verified, adopted); first with git-http-backend answering every
#      request (1.), then with `catan host-hook serve --http` answering the
#      peers' fetches and pushes (1b.);
#   2. what players feel: N `catan peer --bot greedy` processes play a game
#      through the relay; the time from a move's commit on its peer to its
#      adoption by each other peer (median, 90th percentile over all moves
#      and peers), read from the peers' time-stamped output;
#   3. idle CPU: N-1 peers wait for a player who never moves, for
#      IDLE_S seconds (10): the CPU time each used, as a share of one core.
#   tools/https_bench.sh CATAN_BUILD_DIR [PLAYERS] [SEED]
# With HTTPS_SERVED=1, parts 2 and 3 run through a relay answered by
# `catan host-hook serve --http` too (its hook installed).
# Peers poll with --interval 0.05 --max-interval PEER_MAX_INTERVAL (0.4 s
# unless set). HTTPS_PARTS picks the parts (default "1 1b 2 3");
# HTTPS_WRAP is a command part 1b's peers and server run under (for a
# measurement: HTTPS_WRAP=eatmydata, Debian's package of that name, makes
# every fsync a no-op, to see what flushing costs; catan never runs so).
set -euo pipefail
build=$(readlink -f "$1")
n=${2:-6}
seed=${3:-5}
catan=$build/catan
here=$(dirname "$(readlink -f "$0")")
source "$here/https_host.sh"
source "$here/feel.sh"
https_host_ok || { echo "https_bench: needs nginx, fcgiwrap, openssl" >&2; exit 1; }
maxi=${PEER_MAX_INTERVAL:-0.4}
idle_s=${IDLE_S:-10}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	https_host_stop "$tmp/srv"
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
# (catan's login and CA from the environment; stock git logs in nowhere)
https_host_client "$tmp/srv" "$tmp/home" player secret env
names=(red blue white orange green brown)
list=$(IFS=,; echo "${names[*]:0:n}")
parts=" ${HTTPS_PARTS:-1 1b 2 3} "
part() { [[ $parts == *" $1 "* ]]; }
# shellcheck disable=SC2206 # (a command and its words)
wrap=(${HTTPS_WRAP:-})

if part 1; then
	echo "== 1. catan-peers-bench --players $n --relay (https, one relay: git-http-backend)"
	git init -q --bare "$tmp/srv/repos/bench.git"
	nice -n 10 "$build/catan-peers-bench" --players "$n" --seed "$seed" \
		--relay "$HTTPS_URL/bench.git" --dir "$tmp"
fi
if part 1b; then
	echo "== 1b. the same, the relay answered by catan host-hook serve --http${wrap[*]:+ (under ${wrap[*]})}"
	git init -q --bare "$tmp/srv/repos/served.git"
	"${wrap[@]}" "$catan" host-hook serve "$tmp/srv/repos/served.git" --http \
		>"$tmp/srv/logs/serve-served.log" 2>&1 &
	echo $! >>"$tmp/srv/serve.pids"
	for _ in $(seq 1 100); do
		[[ -S $tmp/srv/repos/served.git/catan-http.sock ]] && break
		sleep 0.05
	done
	nice -n 10 "${wrap[@]}" "$build/catan-peers-bench" --players "$n" --seed "$seed" \
		--relay "$HTTPS_URL/served.git" --dir "$tmp"
fi

# new_game DIR: a game of n players at DIR/red, in the relay DIR.git,
# joined by the others.
new_game() {
	local d=$1 name=$2 extra=()
	((n > 4)) && extra=(--board random --special-build)
	mkdir -p "$d"
	$catan new "$d/red" --players "$list" --me red --seed "$seed" "${extra[@]}" >/dev/null 2>&1
	git init -q --bare "$tmp/srv/repos/$name.git"
	$catan -C "$d/red" remote add origin "$HTTPS_URL/$name.git" --push >/dev/null
	$catan -C "$d/red" sync >/dev/null
	# (HTTPS_SERVED=1: the relay answered by catan host-hook serve --http)
	if [[ -n ${HTTPS_SERVED:-} ]]; then
		https_host_serve "$tmp/srv" "$name" "$catan" ||
			{ echo "https_bench: catan host-hook serve --http failed" >&2; exit 1; }
	fi
	for p in "${names[@]:1:n-1}"; do
		$catan join "$HTTPS_URL/$name.git" "$d/$p" --as "$p" >/dev/null
		$catan -C "$d/$p" remote push origin >/dev/null
	done
}

if part 2; then
	echo "== 2. $n catan peer processes through the relay: move to other peers' screens"
	new_game "$tmp/live" live
	feel_live "$tmp/live" "${names[@]:0:n}"
fi

if part 3; then
	echo "== 3. idle: $((n - 1)) peers wait ${idle_s} s for red, who never moves"
	new_game "$tmp/idle" idle
	feel_idle "$tmp/idle" "${names[@]:1:n-1}"
fi
