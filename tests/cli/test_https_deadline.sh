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
if ! command -v openssl >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip_all 1 "needs openssl and python3"
fi
tmp=$(mktemp -d)
host=
cleanup() {
	[[ -n $host ]] && kill "$host" 2>/dev/null
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
unset GIT_SSL_CAPATH SSL_CERT_FILE SSL_CERT_DIR CATAN_HTTP_USER GIT_ASKPASS
mkdir -p "$HOME"
_https_ca "$tmp" ca
_https_cert "$tmp" server localhost ca
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$port" "$tmp/server.crt" "$tmp/server.key" >"$tmp/host.log" 2>&1 <<'EOF' &
import socket, ssl, sys, threading, time
port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(cert, key)
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port)); srv.listen(8)
print("listening", flush=True)
def pkt(s): return b"%04x" % (len(s) + 4) + s
def serve(c):
    try:
        c = ctx.wrap_socket(c, server_side=True)
        f = c.makefile("rb")
        while f.readline():
            hdr = {}
            while True:
                h = f.readline()
                if h in (b"\r\n", b"\n", b""): break
                k, _, v = h.decode().partition(":"); hdr[k.strip().lower()] = v.strip()
            body = f.read(int(hdr.get("content-length", "0")))
            if b"command=ls-refs" in body:
                out = pkt(b"1" * 40 + b" refs/heads/red\n") + b"0000"
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(out) + out)
            elif b"command=fetch" in body:
                print("fetch", flush=True)
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + pkt(b"packfile\n"))
                while True:
                    for b in b"0006\x02x":
                        c.sendall(bytes([b])); time.sleep(0.5)
            else:
                c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
EOF
host=$!
for _ in $(seq 100); do grep -q listening "$tmp/host.log" && break; sleep 0.05; done
grep -q listening "$tmp/host.log" || fail "the host did not start: $(cat "$tmp/host.log")"
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
