#!/usr/bin/env bash
# An https host that answers a fetch one byte at a time, each in time for
# CATAN_IO_TIMEOUT_MS, for ever: `catan join` over the kept connection
# (http_fetch.c: a join has no sync deadline) gives up after
# CATAN_NET_DEADLINE_MS, as a fetch through libgit2 does (net.c), instead
# of reading for hours. The host is a small Python TLS server (a
# throwaway authority made with tools/https_host.sh's helpers): it lists a
# branch (ls-refs) and then trickles side-band progress packets.
# Needs python3 and openssl; says "skipped" otherwise.
#   test_https_deadline.sh CATAN_BINARY
set -euo pipefail
catan=$(readlink -f "$1")
here=$(dirname "$(readlink -f "$0")")
# shellcheck source=../../tools/https_host.sh
source "$here/../../tools/https_host.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck source=lib.sh
source "$here/lib.sh"
tls_host_env 1
python3 - "$here" "$tmp/server.crt" "$tmp/server.key" >"$tmp/host.log" 2>&1 <<'EOF' &
import sys, time
sys.path.insert(0, sys.argv[1])
from tls_host import answer, pkt, serve
def handle(c, method, path, hdr, body):
    if b"command=ls-refs" in body:
        answer(c, b"200 OK", pkt(b"1" * 40 + b" refs/heads/red\n") + b"0000")
    elif b"command=fetch" in body:
        print("fetch", flush=True)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + pkt(b"packfile\n"))
        while True:
            for b in b"0006\x02x":
                c.sendall(bytes([b])); time.sleep(0.5)
    else:
        answer(c, b"404 Not Found", b"", "text/plain")
serve(sys.argv[2], sys.argv[3], handle)
EOF
tls_host_wait "$tmp/host.log"
start=$SECONDS
rc=0
GIT_SSL_CAINFO=$tmp/ca.crt CATAN_HTTP_TOKEN=x CATAN_IO_TIMEOUT_MS=3000 \
	CATAN_NET_DEADLINE_MS=4000 timeout 60 \
	"$catan" join "https://localhost:$port/game.git" "$tmp/blue" --as blue \
	>"$tmp/out" 2>&1 || rc=$?
took=$((SECONDS - start))
grep -q fetch "$tmp/host.log" || fail "the join did not fetch over the kept connection: $(cat "$tmp/out")"
((rc != 124)) || fail "a join from a host that trickles its answer was still reading after 60 s"
((rc != 0)) || fail "a join from a host that sent no pack succeeded"
((took < 20)) || fail "a join from a host that trickles its answer took $took s (CATAN_NET_DEADLINE_MS: 4 s)"
grep -q "CATAN_NET_DEADLINE_MS" "$tmp/out" || fail "the join's error does not name the deadline: $(cat "$tmp/out")"
echo "ok 1 - a join from a host that trickles its answer gives up after CATAN_NET_DEADLINE_MS ($took s): $(head -1 "$tmp/out")"
