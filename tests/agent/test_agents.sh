#!/usr/bin/env bash
# Agents as players (spec/agents.md): the example Python and C agents each
# play a complete game through catan peer --agent against greedy bots, in
# four repositories over path remotes; misbehaving agents are kicked and
# replaced as --on-kick says, named in the log, the game goes on and every
# repository verifies; catan legal feeds catan act.
# Usage: test_agents.sh CATAN C_AGENT SOURCE_DIR
set -euo pipefail
catan=$1
cagent=$2
src=$3
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
if ! command -v python3 >/dev/null; then
	[[ ${CI:-} == true ]] && fail "python3 is missing (CI)"
	echo "skipped: no python3"
	exit 77
fi
py="python3 $src/agents/python/example.py"
# The C example built with AddressSanitizer (the sanitizer build sets
# CATAN_SANITIZED) reserves terabytes of address space at its start: no
# RLIMIT_AS for the runs that start it (--agent-memory 0).
cmem=()
[[ -n ${CATAN_SANITIZED:-} ]] && cmem=(--agent-memory 0)
bad="python3 $src/tests/agent/bad_agent.py"
players=(red blue white orange)

# peer_game DIR SEED AGENT [OPTIONS...]: red's moves come from AGENT, the
# others are greedy bots; every peer fetches from every other (paths).
# With FAIR=1 the game is signed, with fair dice.
peer_game() {
	local d=$1 seed=$2 agent=$3
	shift 3
	mkdir -p "$d"
	if [[ ${FAIR:-} == 1 ]]; then
		for p in "${players[@]}"; do $catan key new "$d/key_$p" >/dev/null 2>&1; done
		$catan new "$d/red" --players red,blue,white,orange --me red --seed "$seed" \
			--key "$d/key_red" --seat blue="$d/key_blue.pub" \
			--seat white="$d/key_white.pub" --seat orange="$d/key_orange.pub" \
			--vp 6 | grep -q "fair dice" || fail "not a fair game"
		for p in blue white orange; do
			$catan join "$d/red" "$d/$p" --as "$p" --key "$d/key_$p" >/dev/null
		done
	else
		$catan new "$d/red" --players red,blue,white,orange --me red --seed "$seed" >/dev/null
		for p in blue white orange; do $catan join "$d/red" "$d/$p" --as "$p" >/dev/null; done
	fi
	for p in "${players[@]}"; do
		for q in "${players[@]}"; do
			[[ $p == "$q" || ($q == red && $p != red) ]] && continue
			$catan -C "$d/$p" remote add "$q" "$d/$q"
		done
	done
	pids=()
	timeout 600 $catan -C "$d/red" peer --agent "$agent" --interval 0.02 \
		--max-interval 0.1 "$@" >"$d/red.log" 2>&1 &
	pids+=($!)
	for p in blue white orange; do
		timeout 600 $catan -C "$d/$p" peer --bot greedy --interval 0.02 \
			--max-interval 0.1 >"$d/$p.log" 2>&1 &
		pids+=($!)
	done
	# The first peer to fail ends the game (the others would wait for it).
	local left=${#pids[@]}
	while ((left > 0)); do
		if ! wait -n "${pids[@]}"; then
			tail -n 5 "$d"/*.log >&2
			fail "a peer failed"
		fi
		left=$((left - 1))
	done
	pids=()
	local want=""
	for p in "${players[@]}"; do $catan -C "$d/$p" sync >/dev/null; done
	for p in "${players[@]}"; do
		$catan -C "$d/$p" verify >/dev/null || fail "verify at $p"
		git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
		got=$(git -C "$d/$p" rev-parse "${players[@]}" | tr '\n' ' ')
		[[ -z $want || $got == "$want" ]] || fail "$p differs"
		want=$got
	done
	grep -q "has won" "$d/red.log" || fail "no winner in red's log"
}

# 1-2. The example agents play whole peer games, never kicked.
peer_game "$tmp/py" 5 "$py"
grep -q kicked "$tmp/py/red.log" && fail "the Python agent was kicked: $(grep kicked "$tmp/py/red.log")"
moves=$(grep -c '^red ' "$tmp/py/red.log")
[[ $moves -gt 20 ]] || fail "red made only $moves moves"
ok "Python example agent: a complete peer game over path remotes ($moves moves), tips equal, verify and fsck everywhere"

# 1b. Fair dice: the peer reveals and completes for the agent, which
# asks (ROLL, BUILD a card, ROB) and is told the outcome the reveals give.
FAIR=1 peer_game "$tmp/fair" 5 "$py"
grep -q kicked "$tmp/fair/red.log" && fail "the Python agent was kicked (fair): $(grep kicked "$tmp/fair/red.log")"
grep -q "^red reveal$" "$tmp/fair/red.log" || fail "red's peer never revealed for the agent"
rolls=$(git -C "$tmp/fair/red" log --format='%an %s' red | grep -c "^red roll [1-6] [1-6]$" || true)
[[ $rolls -gt 3 ]] || fail "red completed $rolls fair rolls"
ok "Python example agent in a fair-dice game (signed, 6 points): it asks, its peer reveals and completes ($rolls rolls), the game ends, tips equal, verify and fsck everywhere"

peer_game "$tmp/c" 6 "$cagent" "${cmem[@]}"
grep -q kicked "$tmp/c/red.log" && fail "the C agent was kicked: $(grep kicked "$tmp/c/red.log")"
moves=$(grep -c '^red ' "$tmp/c/red.log")
[[ $moves -gt 20 ]] || fail "red made only $moves moves"
ok "C example agent: a complete peer game over path remotes ($moves moves), tips equal, verify and fsck everywhere"

# 3. A misbehaving agent in a peer game: kicked, replaced by random moves.
peer_game "$tmp/bad" 7 "$bad illegal" --on-kick random
grep -q "kicked: red's agent \"$bad illegal\": sent an illegal BUILD.*red plays random legal moves" "$tmp/bad/red.log" ||
	fail "no kick in red's log: $(grep -i kick "$tmp/bad/red.log")"
ok "an agent sending an illegal move in a peer game is kicked, named in the log, replaced (--on-kick random); the game ends and verifies"

# 4. Every kind of misbehaviour, in hosted games (one hot-seat repository).
host_bad() {
	local mode=$1 want=$2 d=$tmp/host-$1
	$catan new "$d" --players red,blue,white,orange --seed 4 --vp 6 >/dev/null
	timeout 300 $catan -C "$d" host --agents "$bad $mode,greedy,greedy,greedy" \
		--agent-timeout 2 --agent-memory 300 --agent-threads 2 >"$d.log" 2>&1 ||
		fail "host with a $mode agent: $(tail -n 3 "$d.log")"
	grep -q "^kicked: red's agent \"$bad $mode\": $want" "$d.log" ||
		fail "$mode: $(grep -i kick "$d.log" || echo no kick)"
	grep -q "^over: .* won" "$d.log" || fail "$mode: no winner"
	$catan -C "$d" verify >/dev/null || fail "$mode: verify"
	git -C "$d" fsck --strict >/dev/null 2>&1 || fail "$mode: fsck"
	[[ $(grep -c "^red " "$d.log") -gt 5 ]] || fail "$mode: red stopped playing"
}
host_bad sleep "timed out: waited 2 s for its move"
host_bad memory "closed its connection .*(exited with status 1)"
host_bad garbage "sent garbage: byte 0x63 is no message type"
host_bad illegal "sent an illegal BUILD"
host_bad close "closed its connection"
host_bad threads "runs [0-9]* threads (limit 2)"
host_bad chatter "sent ROLL when no move was asked"
host_bad version "speaks protocol version 99, not 1"
ok "sleep, memory, garbage, illegal, close, threads, chatter, version: each kicked with its reason, replaced by minimum viable moves; the game ends and verifies"
leftover=$(pgrep -f "$src/tests/agent/bad_agent.py" || true)
[[ -z $leftover ]] || fail "agent processes left behind: $leftover"
ok "no agent process left behind"

# 5. --on-kick stop: the host stops, the repository still verifies.
d=$tmp/stop
$catan new "$d" --players red,blue --seed 4 >/dev/null
if $catan -C "$d" host --agents "$bad illegal,greedy" --on-kick stop >"$d.log" 2>&1; then
	fail "--on-kick stop went on"
fi
grep -q "stopping (--on-kick stop)" "$d.log" || fail "stop: $(tail -n 2 "$d.log")"
$catan -C "$d" verify >/dev/null || fail "stop: verify"
ok "--on-kick stop stops the game at the kick"

# 6. A hosted game between four agents: each action on its seat's branch.
d=$tmp/four
$catan new "$d" --players red,blue,white,orange --seed 9 >/dev/null
$catan -C "$d" host --agents "$py,$py,$py,$cagent" "${cmem[@]}" >"$d.log" 2>"$d.err" || fail "host: $(tail -n 3 "$d.err")"
grep -q "^over: .* won" "$d.log" || fail "host: no winner"
grep -q kicked "$d.log" && fail "host: $(grep kicked "$d.log")"
$catan -C "$d" verify >/dev/null || fail "host: verify"
# Every action the host printed is a commit by its seat on its branch
# (the branch also has the genesis and discard merges).
for p in "${players[@]}"; do
	grep "^$p " "$d.log" | grep -v "^$p counters:" | cut -d' ' -f2- | sort >"$tmp/acts"
	git -C "$d" log --format='%an %s' "$p" | grep "^$p " | cut -d' ' -f2- |
		sort >"$tmp/commits"
	missing=$(comm -23 "$tmp/acts" "$tmp/commits")
	[[ -s $tmp/acts && -z $missing ]] || fail "$p: actions without a commit: $missing"
done
# Offers between agents, counter-offers passed on, and one taken up.
grep -q "^[a-z]* counters: " "$d.log" || fail "host: no counter-offer"
grep -A1 "^[a-z]* counters: " "$d.log" | grep -q "trade offer" ||
	fail "host: no counter-offer taken up"
grep -q "trade accept" "$d.log" || fail "host: no offer accepted"
ok "catan host: four agents (Python and C) play a game to a winner, every action a commit on its seat's branch; offers, counter-offers passed on and taken up"

# 6b. Six players on a 5-6 board with the special building phase, and
# the classic phases (trade, then build), agents in every seat.
d=$tmp/six
$catan new "$d" --players a,b,c,d,e,f --board random --seed 3 --vp 7 >/dev/null
$catan -C "$d" host --agents "$cagent,$py,$cagent,$py,$cagent,$py" "${cmem[@]}" >"$d.log" 2>"$d.err" ||
	fail "six: $(tail -n 3 "$d.err")"
grep -q "^over: .* won" "$d.log" || fail "six: no winner"
grep -q kicked "$d.log" && fail "six: $(grep kicked "$d.log")"
$catan -C "$d" verify >/dev/null || fail "six: verify"
d=$tmp/classic
$catan new "$d" --players a,b,c --phases classic --seed 3 --vp 7 >/dev/null
$catan -C "$d" host --agents "$cagent,$py,$py" "${cmem[@]}" >"$d.log" 2>"$d.err" ||
	fail "classic: $(tail -n 3 "$d.err")"
grep -q "^over: .* won" "$d.log" || fail "classic: no winner"
grep -q kicked "$d.log" && fail "classic: $(grep kicked "$d.log")"
grep -q "end trade" "$d.log" || fail "classic: no trade phase ended"
$catan -C "$d" verify >/dev/null || fail "classic: verify"
ok "agents play six players with the special building phase, and the classic phases"

# 7. catan legal prints only actions: legal | shuf -n1 | xargs act.
d=$tmp/legal
$catan new "$d" --players ann,bob --seed 3 >/dev/null
for i in 1 2 3 4; do
	who=$([[ $i == 1 || $i == 4 ]] && echo ann || echo bob)
	$catan -C "$d" legal --as $who | shuf -n1 | xargs $catan -C "$d" act --as $who >/dev/null ||
		fail "legal | shuf | xargs act ($who)"
done
out=$($catan -C "$d" legal --as bob 2>"$tmp/err")
[[ -z $out ]] || fail "legal printed a note on stdout: $out"
grep -q "nothing to do" "$tmp/err" || fail "no note on stderr"
ok "catan legal | shuf -n1 | xargs catan act plays; the nothing-to-do note goes to stderr"
