#!/usr/bin/env bash
# Peers on separate hosts: each peer runs in a network namespace of its own
# (made here, on a private bridge that reaches nothing else), serves its
# repository over git:// with `catan serve` (the real git daemon), and
# fetches from the others' daemons only. Two games:
#   1. four hosts, full mesh of git:// remotes, four concurrent
#      `catan peer --bot greedy` processes play a complete game; every
#      host ends with identical branch tips, `catan verify` and
#      `git fsck --strict` clean; discard merges (several players
#      discarding at once after a 7) are counted and must be present;
#   2. a partition: three hosts play; one host's link is cut for several
#      seconds while the others go on as far as the rules let them (until
#      they wait for it); the link comes back and all converge and finish.
# Needs root and iproute2 (CI runs as root); elsewhere exits 77, which
# ctest reports as skipped.
#   test_netns.sh CATAN_BINARY [VP]
set -euo pipefail
catan=$(readlink -f "$1")
vp=${2:-7} # (7 points: a complete game in two thirds of the commits of 10)
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
# shellcheck source=lib.sh
source "$(dirname "$(readlink -f "$0")")/lib.sh"

if [[ $(id -u) != 0 ]] || ! command -v ip >/dev/null 2>&1 ||
	! ip netns add "catan-probe-$$" 2>/dev/null; then
	skip_all 2 "network namespaces need root and iproute2"
fi
ip netns del "catan-probe-$$"

tmp=$(mktemp -d)
tag=c$$
# A peer that does not answer is given up on after this long (each sync),
# and a connection on which nothing moves for 3 s (a link cut mid-fetch).
export CATAN_CONNECT_TIMEOUT_MS=300
export CATAN_IO_TIMEOUT_MS=3000
sw=$tag-sw
hosts=()
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	# Whatever still runs inside a host (a daemon started through a
	# subshell) is found by namespace, not by pid.
	for h in "${hosts[@]}"; do
		ip netns pids "$tag-$h" 2>/dev/null | xargs -r kill 2>/dev/null || true
	done
	wait 2>/dev/null || true
	for h in "${hosts[@]}"; do ip netns del "$tag-$h" 2>/dev/null || true; done
	ip netns del "$sw" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# A switch namespace with a bridge; host H gets 10.231.0.K on a veth.
ip netns add "$sw"
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
k=0
addr_of() { # host -> address
	local i
	for i in "${!hosts[@]}"; do
		[[ ${hosts[$i]} == "$1" ]] && echo "10.231.0.$((i + 1))" && return
	done
}
add_host() {
	local h=$1 ns=$tag-$1
	hosts+=("$h")
	ip netns add "$ns"
	ip link add "h$k$tag" type veth peer name "s$k$tag"
	ip link set "h$k$tag" netns "$ns"
	ip link set "s$k$tag" netns "$sw"
	ip -n "$sw" link set "s$k$tag" master br0 up
	ip -n "$ns" link set lo up
	ip -n "$ns" link set "h$k$tag" name eth0
	ip -n "$ns" addr add "10.231.0.$((k + 1))/24" dev eth0
	ip -n "$ns" link set eth0 up
	k=$((k + 1))
}
on() { local h=$1; shift; ip netns exec "$tag-$h" "$@"; }
link() { # host up|down
	local i
	for i in "${!hosts[@]}"; do
		[[ ${hosts[$i]} == "$1" ]] && ip -n "$sw" link set "s$i$tag" "$2"
	done
}

# serve DIR on HOST's address; waits until it listens.
serve() {
	local h=$1 d=$2
	on "$h" "$catan" -C "$d" serve --listen "$(addr_of "$h")" --port 9418 \
		>"$tmp/serve-$h.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 50); do
		grep -qs serving "$tmp/serve-$h.log" && return 0
		sleep 0.1
	done
	fail "serve on $h did not start"
}

# game NAME SEED PLAYER...: the first player hosts; the others join over
# git:// from it; then a full mesh of git:// remotes.
game() {
	local g=$1 seed=$2
	shift 2
	local ps=("$@") list
	list=$(IFS=,; echo "${ps[*]}")
	local d=$tmp/$g
	mkdir -p "$d"
	on "${ps[0]}" "$catan" new "$d/${ps[0]}" --players "$list" --me "${ps[0]}" \
		--seed "$seed" --vp "$vp" >/dev/null
	serve "${ps[0]}" "$d/${ps[0]}"
	for p in "${ps[@]:1}"; do
		on "$p" "$catan" join "git://$(addr_of "${ps[0]}")/" "$d/$p" --as "$p" \
			>/dev/null || fail "$p could not join over git://"
		serve "$p" "$d/$p"
	done
	for p in "${ps[@]}"; do
		for q in "${ps[@]}"; do
			[[ $p == "$q" || ($q == "${ps[0]}" && $p != "${ps[0]}") ]] && continue
			"$catan" -C "$d/$p" remote add "$q" "git://$(addr_of "$q")/"
		done
	done
}

# converge NAME PLAYER...: two sync rounds, then identical tips, verify, fsck.
converge() {
	local d=$tmp/$1 want="" got
	shift
	local ps=("$@")
	for _ in 1 2; do
		for p in "${ps[@]}"; do on "$p" "$catan" -C "$d/$p" sync >/dev/null; done
	done
	for p in "${ps[@]}"; do
		on "$p" "$catan" -C "$d/$p" verify >/dev/null || fail "verify at $p"
		git -C "$d/$p" fsck --strict >/dev/null 2>&1 || fail "fsck at $p"
		got=$(git -C "$d/$p" rev-parse "${ps[@]}" | tr '\n' ' ')
		[[ -z $want || $got == "$want" ]] || fail "$p differs: $got vs $want"
		want=$got
	done
}

# 1. Four hosts, four daemons, four concurrent peers.
for h in red blue white orange; do add_host "$h"; done
game four 26 red blue white orange
start=$(date +%s)
peers=()
for p in red blue white orange; do
	on "$p" timeout 900 "$catan" -C "$tmp/four/$p" peer --bot greedy \
		--interval 0.02 --max-interval 0.2 >"$tmp/four-$p.log" 2>&1 &
	peers+=($!)
	pids+=($!)
done
for pid in "${peers[@]}"; do wait "$pid" || fail "a peer failed or timed out"; done
for p in red blue white orange; do
	grep -q "has won" "$tmp/four-$p.log" || fail "$p did not see the end"
done
converge four red blue white orange
commits=$(git -C "$tmp/four/red" rev-list --all | wc -l)
merges=$(git -C "$tmp/four/red" rev-list --all --merges | wc -l)
[[ $merges -ge 1 ]] || fail "no discard merge in the game (several players discarding at once)"
ok "4 hosts, 4 git daemons, 4 concurrent peers: a $vp-VP game of $commits commits ($merges discard merges) in $(($(date +%s) - start)) s, identical tips, verified"

# 2. A partition: white's link goes down for a while, then comes back.
for h in green brown purple; do add_host "$h"; done
# (10 points: room for several attempts at a cut before the game ends)
vp=10 game part 33 green brown purple
for p in green brown purple; do
	on "$p" timeout 900 "$catan" -C "$tmp/part/$p" peer --bot greedy \
		--interval 0.02 --max-interval 0.3 >"$tmp/part-$p.log" 2>&1 &
	pids+=($!)
done
count() { git -C "$tmp/part/$1" rev-list --all | wc -l; }
# The first line of `catan show` at $1: what the game waits for there.
# The whole output is read first (a reader that exits early can kill the
# writer with SIGPIPE, a failure under pipefail), and a failed show fails
# the test rather than reading as "nobody waits for purple".
view_of() {
	local out
	out=$("$catan" -C "$tmp/part/$1" show) || fail "catan show failed at $1"
	echo "${out%%$'\n'*}"
}
next_of() {
	local v
	v=$(view_of "$1") || exit 1
	sed 's/.*: \([a-z]*\) .*/\1/' <<<"$v"
}
# Does what $1 waits for name purple (to move, discard or answer)?
waits_purple() {
	local v
	v=$(view_of "$1") || exit 1
	[[ $v == *purple* ]]
}
# Green's view, read once into $gv for both questions asked of it: does it
# wait for purple, and is the game over (nobody waits for anyone then: a
# cut after the end would look like one nobody went on from)?
read_green() { gv=$(view_of green) || exit 1; }
# Cut purple when the game is well under way, not over, purple is up to date, and
# nobody waits for purple in either view (not even for a discard, which
# purple could still commit alone): the others go on until the rules
# need purple. A view can change between that check and the cut (a sync
# lands in between): when purple then still has something to do alone, or
# green already waits for purple without having moved, the link comes
# back and another moment is looked for.
cut=0
for attempt in 1 2 3 4 5; do
	for _ in $(seq 1 600); do
		if [[ $(count purple) -ge 30 && $(count purple) -eq $(count green) ]] &&
			! waits_purple purple && read_green &&
			[[ $gv != *purple* && $gv != *"phase over"* ]]; then
			break
		fi
		sleep 0.05
	done
	link purple down
	purple_at=$(count purple) green_at=$(count green)
	sleep 2
	read_green
	if [[ $(count purple) -eq $purple_at && $gv != *"phase over"* ]] && ! waits_purple purple &&
		! [[ $(count green) -eq $green_at && $gv == *purple* ]]; then
		cut=1
		break
	fi
	echo "# attempt $attempt: the views moved at the cut; again" >&2
	link purple up
	sleep 1
done
[[ $cut == 1 ]] || fail "found no moment to cut purple off in 5 attempts"
cut_at=$(count purple)
# Green and brown go on until the rules need purple, then stop there.
last=-1 same=0
for _ in $(seq 1 90); do
	sleep 1
	now=$(count green)
	if [[ $now -eq $last ]]; then same=$((same + 1)); else same=0; fi
	last=$now
	[[ $same -ge 3 && $(next_of green) == purple ]] && break
done
still_green=$(count green)
[[ $(count purple) -eq $cut_at ]] || fail "purple moved on while cut off"
# What each peer said last, for a failure here (the test cannot see why a
# peer did not go on otherwise).
tails() {
	local p
	for p in green brown purple; do
		echo "# $p's peer, last lines:" >&2
		tail -n 12 "$tmp/part-$p.log" | sed 's/^/#   /' >&2
	done
}
[[ $still_green -gt $green_at ]] || {
	tails
	fail "green and brown did not go on without purple (green has $still_green commits, as at the cut; green: $(view_of green); brown: $(view_of brown))"
}
[[ $(next_of green) == purple ]] || { tails; fail "green stopped but does not wait for purple: $(view_of green)"; }
grep "^waiting:" "$tmp/part-green.log" | tail -1 | grep -q "waiting: purple" ||
	fail "green does not say it waits for purple"
grep -q "purple.*no answer" "$tmp/part-green.log" || fail "green did not report purple unreachable"
link purple up
for p in green brown purple; do
	wait "${pids[-1]}" 2>/dev/null || true
	pids=("${pids[@]:0:${#pids[@]}-1}")
done
for p in green brown purple; do
	grep -q "has won" "$tmp/part-$p.log" || fail "$p did not see the end after the partition"
done
converge part green brown purple
ok "partition: purple cut off at commit $cut_at; green and brown went on to commit $still_green and waited for purple; reconnected, converged, finished"

echo "$n passed, 0 failed"
