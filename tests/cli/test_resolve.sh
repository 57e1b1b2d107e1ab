#!/usr/bin/env bash
# A remote whose host name never resolves in time: the name server (a
# small Python UDP server here) takes every query and never answers, and
# resolv.conf lets the system's resolver wait 60 s for it. `catan sync`
# stops waiting after CATAN_RESOLVE_TIMEOUT_MS, says which name did not
# resolve, and changes nothing; a remote given as an address needs no
# lookup. Runs in a network and mount namespace of its own (unshare), so
# the fake resolv.conf and name server are seen by nothing else. Needs
# root, unshare and python3; says "skipped" otherwise.
#   test_resolve.sh CATAN_BINARY
set -euo pipefail
here=$(dirname "$(readlink -f "$0")")
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$here/lib.sh"

if [[ $(id -u) != 0 ]] || ! command -v unshare >/dev/null ||
	! command -v python3 >/dev/null || ! unshare -mn true 2>/dev/null; then
	skip_all 2 "a name server that never answers needs root, unshare and python3"
fi

if [[ ${1:-} != --inside ]]; then
	exec unshare -mn "$0" --inside "$(readlink -f "$1")"
fi
catan=$2
tmp=$(mktemp -d)
dns=
cleanup() {
	[[ -n $dns ]] && kill "$dns" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up
printf 'nameserver 127.0.0.1\noptions timeout:60 attempts:1\n' >"$tmp/resolv.conf"
printf '127.0.0.1 localhost\n' >"$tmp/hosts"
mount --bind "$tmp/resolv.conf" /etc/resolv.conf
mount --bind "$tmp/hosts" /etc/hosts
python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
print("ready", flush=True)
while True:
    s.recvfrom(4096)   # taken, never answered
' >"$tmp/dns.out" &
dns=$!
for _ in $(seq 100); do grep -q ready "$tmp/dns.out" 2>/dev/null && break; sleep 0.05; done
grep -q ready "$tmp/dns.out" || fail "the silent name server did not start"

export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
"$catan" new "$tmp/red" --players red,blue --me red --seed 3 >/dev/null
"$catan" -C "$tmp/red" remote add far git://far.example.org:9418/game >/dev/null
before=$(git -C "$tmp/red" for-each-ref --format='%(objectname) %(refname)')

# 1. The lookup is given up after the limit, naming the host.
start=$(date +%s%N)
if CATAN_RESOLVE_TIMEOUT_MS=1500 "$catan" -C "$tmp/red" sync >"$tmp/out" 2>&1; then
	: # a sync may report an unreachable remote and still succeed
fi
ms=$((($(date +%s%N) - start) / 1000000))
grep -q "cannot resolve far.example.org within 1500 ms" "$tmp/out" ||
	fail "sync does not say the name did not resolve in time: $(cat "$tmp/out")"
((ms < 10000)) || fail "sync waited $ms ms for the name server (limit 1500 ms)"
[[ $(git -C "$tmp/red" for-each-ref --format='%(objectname) %(refname)') == "$before" ]] ||
	fail "a sync that reached nobody changed a ref"
echo "ok 1 - a name server that never answers: sync gives the lookup up after $ms ms (limit 1500), naming the host; nothing changed"

# 2. An address needs no lookup: refused at once by the closed port.
git -C "$tmp/red" remote remove far
"$catan" -C "$tmp/red" remote add near git://127.0.0.1:9/game >/dev/null
start=$(date +%s%N)
CATAN_RESOLVE_TIMEOUT_MS=60000 "$catan" -C "$tmp/red" sync >"$tmp/out" 2>&1 || true
ms=$((($(date +%s%N) - start) / 1000000))
grep -q "cannot connect to 127.0.0.1" "$tmp/out" ||
	fail "the address remote: $(cat "$tmp/out")"
echo "ok 2 - a remote given as an address is not looked up (its sync: $ms ms)"
echo "2 passed, 0 failed"
