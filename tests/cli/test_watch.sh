#!/usr/bin/env bash
# Waking peers over git:// (spec/replication.md, "Waking peers over
# git://"): a `catan peer` whose remotes are all served by `catan serve`
# is woken by the server when a branch moves, and does not poll.
#   1. A move reaches a waiting peer at once, though its intervals are
#      20 s: only the server's wake-up can explain it.
#   2. A waiting peer asked to sync every 50 ms spends almost no CPU: it
#      does not poll a watched remote.
#   3. A remote that is a stock git daemon (no watch requests) is polled
#      instead, says so, and the move still arrives.
#   4. The server's bounds: 70 watchers at once (64 kept, the rest
#      closed), a silent connection closed after 5 s, a garbled request
#      closed; a fetch is served throughout.
#   5. The window (`catan play`, SDL's offscreen driver) is woken the same
#      way: its sync interval is 20 s, the move shows at once.
#   6. A connection that has sent part of a watch request costs the server
#      no CPU while it waits for the rest (it used to be looked at again
#      in a busy loop for 5 s, its bytes being unread), and a request that
#      comes in two pieces is still answered.
#   7. A server that answers every watch request "moved" at once (a lying
#      or broken peer): after two wake-ups that brought nothing, a waiting
#      peer syncs no more often than its --interval would have polled; it
#      used to sync in a loop without pause, each sync a fetch from every
#      remote.
#   8. A server that answers every watch request "same" at once is asked
#      again a second later at the soonest: the watch used to ask again at
#      once, a connection after another for the whole wait.
#   9. Silent connections beyond the 32 pending go to git daemon, which
#      gives them up after its --init-timeout (it used to wait for ever, a
#      process each).
#  10. The window's waker against a server answering "moved" at once: it
#      waits for the sync a wake-up asked for and then paces them as the
#      peer does (7.); it used to ask again at once, without end.
# Usage: test_watch.sh CATAN_BINARY
set -euo pipefail
catan=$(realpath "$1")
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export HOME=$tmp/home GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# serve DIR LOG: catan serve for DIR; sets url.
serve() {
	local port
	port=$(free_port)
	$catan -C "$1" serve --port "$port" >"$2" 2>&1 &
	serve_pid=$!
	pids+=($!)
	for _ in $(seq 100); do grep -q serving "$2" && break; sleep 0.05; done
	grep -q serving "$2" || fail "catan serve did not start: $(cat "$2")"
	url=git://127.0.0.1:$port/
}
# wait_for FILE PATTERN SECONDS: until FILE holds PATTERN; 1 if it never does.
wait_for() {
	local end=$((SECONDS + $3))
	while ((SECONDS < end)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
cpu_ticks() { # utime + stime of a process, in clock ticks
	local f
	read -r -a f </proc/"$1"/stat
	echo $((f[13] + f[14]))
}

# A 2-player game: red made and served, blue joined over git://.
d=$tmp/g
$catan new "$d/red" --players red,blue --me red --seed 3 >/dev/null 2>&1
serve "$d/red" "$tmp/serve.log"
red_serve=$serve_pid
red_url=$url
$catan join "$url" "$d/blue" --as blue >/dev/null

# 1. Blue's peer: every interval 20 s. Red moves once blue waits.
$catan -C "$d/blue" peer --bot greedy --interval 20 --max-interval 20 \
	--watch-interval 20 >"$tmp/blue.log" 2>&1 &
peer=$!
pids+=($peer)
wait_for "$tmp/blue.log" "^waiting:" 10 || fail "blue's peer never said what it waits for: $(cat "$tmp/blue.log")"
sleep 1 # (blue is in its 20 s wait now)
$catan -C "$d/red" act setup 0,-1,n 0,-1,nw >/dev/null
t0=$SECONDS
wait_for "$tmp/blue.log" "^blue setup" 8 ||
	fail "blue was not woken by red's move (its interval is 20 s): $(cat "$tmp/blue.log")"
echo "ok 1 - a move wakes a waiting peer over git:// within $((SECONDS - t0)) s (its interval: 20 s)"

# 2. Blue's own moves are made (it plays both set-up moves of the snake's
#    turn); now it waits for red with a 50 ms interval: no polling.
wait_for "$tmp/blue.log" "waiting: red" 10 || fail "blue does not wait for red: $(cat "$tmp/blue.log")"
kill "$peer"
wait "$peer" 2>/dev/null || true
$catan -C "$d/blue" peer --bot greedy --interval 0.05 --max-interval 0.05 \
	--hot 0 --watch-interval 30 >"$tmp/blue2.log" 2>&1 &
peer=$!
pids+=($peer)
wait_for "$tmp/blue2.log" "^waiting:" 10 || fail "blue's second peer: $(cat "$tmp/blue2.log")"
sleep 1
before=$(cpu_ticks "$peer")
sleep 5
used=$(($(cpu_ticks "$peer") - before))
hz=$(getconf CLK_TCK)
# Polling every 50 ms costs a fetch each (several ms of CPU): over 5 s,
# far more than 0.2 s.
((used * 5 < hz)) || fail "a waiting peer used $used ticks (of $hz a second) in 5 s: it polls"
echo "ok 2 - a waiting peer with every remote watched used $used ticks in 5 s"
kill "$peer"
wait "$peer" 2>/dev/null || true

# 3. A remote served by a stock git daemon is polled instead.
d3=$tmp/g3
$catan new "$d3/red" --players red,blue --me red --seed 4 >/dev/null 2>&1
port=$(free_port)
git daemon --export-all --base-path="$d3/red" --listen=127.0.0.1 --port="$port" \
	--reuseaddr "$d3/red" >"$tmp/daemon.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	git ls-remote "git://127.0.0.1:$port/" >/dev/null 2>&1 && break
	sleep 0.05
done
$catan join "git://127.0.0.1:$port/" "$d3/blue" --as blue >/dev/null
$catan -C "$d3/blue" peer --bot greedy --interval 0.1 --max-interval 0.3 \
	>"$tmp/blue3.log" 2>&1 &
pids+=($!)
wait_for "$tmp/blue3.log" "not watched, polled instead: origin" 10 ||
	fail "a stock git daemon's remote was not said to be polled: $(cat "$tmp/blue3.log")"
$catan -C "$d3/red" act setup 0,-1,n 0,-1,nw >/dev/null
wait_for "$tmp/blue3.log" "^blue setup" 10 || fail "polling did not bring red's move: $(cat "$tmp/blue3.log")"
echo "ok 3 - a stock git daemon's remote is polled, and said so"

# 4. The server's bounds, from a client that misbehaves.
python3 - "${url#git://}" <<'EOF' || fail "the server's bounds"
import socket, subprocess, sys, time
host, port = sys.argv[1].rstrip("/").split(":")
addr = (host, int(port))
req = b"0021catan-watch " + b"0" * 16 + b"\n"   # digest 0: answered at once
# A watcher that knows the digest waits; 70 of them.
s = socket.create_connection(addr); s.sendall(req)
ans = s.recv(64); s.close()
assert ans.startswith(b"0021catan-moved "), ans
req = b"0021catan-watch " + ans[16:32] + b"\n"
ws = []
for i in range(70):
    c = socket.create_connection(addr); c.sendall(req); ws.append(c)
time.sleep(0.5)
closed = 0
for c in ws:
    c.setblocking(False)
    try:
        if c.recv(64) == b"":
            closed += 1
    except BlockingIOError:
        pass
assert closed == 6, f"{closed} of 70 watchers closed (64 kept)"
# A fetch is served meanwhile.
subprocess.run(["git", "ls-remote", f"git://{host}:{port}/"], check=True,
               stdout=subprocess.DEVNULL, timeout=10)
# A garbled request: closed, no answer.
g = socket.create_connection(addr)
g.sendall(b"0021catan-watch " + b"Z" * 16 + b"\n")
g.settimeout(5)
assert g.recv(64) == b"", "a garbled request was answered"
# A silent connection: closed after 5 s.
q = socket.create_connection(addr); q.settimeout(9)
t = time.time()
assert q.recv(64) == b"" and time.time() - t < 8.5
for c in ws: c.close()
EOF
echo "ok 4 - watchers bounded, garbled and silent connections closed, fetches served"

# 5. The window: blue's, syncing every 20 s, waits for its turn; red moves.
d5=$tmp/g5
$catan new "$d5/red" --players red,blue --me red --seed 5 >/dev/null 2>&1
serve "$d5/red" "$tmp/serve5.log"
$catan join "$url" "$d5/blue" --as blue >/dev/null
printf 'wait-turn\nstate %s\nquit\n' "$tmp/window.state" >"$tmp/window.script"
# (No leak checks for the window in the sanitizer build: SDL's drivers, as
# for ui_window.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	SDL_VIDEODRIVER=offscreen XDG_CONFIG_HOME=$tmp/config $catan play "$d5/blue" \
	--interval 20 --pace 0 --script "$tmp/window.script" >"$tmp/window.log" 2>&1 &
win=$!
pids+=($win)
sleep 3 # (the window is open and its first syncs are done)
$catan -C "$d5/red" act setup 0,-1,n 0,-1,nw >/dev/null
t0=$SECONDS
wait_for "$tmp/window.state" . 10 ||
	fail "the window did not see red's move (its interval is 20 s): $(cat "$tmp/window.log")"
wait "$win" || fail "the window failed: $(cat "$tmp/window.log")"
echo "ok 5 - the window is woken by a move over git:// within $((SECONDS - t0)) s (its interval: 20 s)"

# 6. Part of a request, then nothing (one connection keeps quiet, another
#    closes its side): the server waits without spinning.
python3 - "${red_url#git://}" "$red_serve" "$(getconf CLK_TCK)" <<'EOF' || fail "a part of a watch request"
import socket, sys, time
host, port = sys.argv[1].rstrip("/").split(":")
addr, pid, hz = (host, int(port)), sys.argv[2], int(sys.argv[3])
def ticks():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
quiet = socket.create_connection(addr); quiet.sendall(b"0021catan")
gone = socket.create_connection(addr); gone.sendall(b"0021catan-wa")
gone.shutdown(socket.SHUT_WR)
time.sleep(0.3)
before = ticks(); time.sleep(2); used = ticks() - before
assert used * 10 < hz, f"catan serve used {used} ticks (of {hz} a second) in 2 s waiting for the rest of a request"
# A request in two pieces is answered as one.
s = socket.create_connection(addr); s.sendall(b"0021catan-wat")
time.sleep(0.2)
s.sendall(b"ch " + b"0" * 16 + b"\n"); s.settimeout(5)
ans = s.recv(64)
assert ans.startswith(b"0021catan-moved "), ans
for c in (quiet, gone, s): c.close()
EOF
echo "ok 6 - part of a watch request: the server waits for the rest without spinning; a request in two pieces is answered"

# 7. and 8. A liar: every watch request answered at once, "moved" (a new
#    digest each time) or "same", every other connection closed.
#    liar SECONDS WORD LOG: counts the requests of the first SECONDS s.
liar() {
	python3 - "$liar_port" "$1" "$2" >"$3" 2>&1 <<'EOF' &
import socket, sys, time, os
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1]))); srv.listen(64)
print("listening", flush=True)
srv.settimeout(0.1)
secs, word = float(sys.argv[2]), sys.argv[3]
watches, end = 0, time.time() + secs + 30
start = None
while time.time() < end:
    # The count is told once secs have passed since the first request,
    # whether or not another request comes (a client that paces itself
    # well may send none before it quits).
    if start is not None and time.time() - start >= secs:
        print("watches", watches, flush=True)
        break
    try:
        c, _ = srv.accept()
    except socket.timeout:
        continue
    c.settimeout(1)
    try:
        req = c.recv(64)
        if req.startswith(b"0021catan-watch "):
            if start is None:
                start = time.time()
            if time.time() - start < secs:
                watches += 1
            d = int.from_bytes(os.urandom(8), "big")
            if word == "moved":
                c.sendall(b"0021catan-moved %016x\n" % d)
            else:
                c.sendall(b"0020catan-same %016x\n" % d)
    except OSError:
        pass
    c.close()
EOF
	liar_pid=$!
	pids+=($liar_pid)
	wait_for "$3" listening 10 || fail "the liar did not start: $(cat "$3")"
}
# (blue's peer, whose only remote is the liar: it polls every 0.5 s at most)
d7=$tmp/g7
$catan join "$red_url" "$d7" --as blue >/dev/null
liar_port=$(free_port)
git -C "$d7" remote set-url origin "git://127.0.0.1:$liar_port/"
for word in moved same; do
	liar 4 $word "$tmp/liar_$word.log"
	$catan -C "$d7" peer --interval 0.5 --max-interval 0.5 --watch-interval 30 \
		>"$tmp/blue_$word.log" 2>&1 &
	peer=$!
	pids+=($peer)
	wait_for "$tmp/liar_$word.log" "^watches" 20 ||
		fail "the liar ($word) saw no watch requests: $(cat "$tmp/liar_$word.log") $(cat "$tmp/blue_$word.log")"
	kill "$peer" "$liar_pid" 2>/dev/null || true
	wait "$peer" "$liar_pid" 2>/dev/null || true
	watches=$(sed -n 's/^watches //p' "$tmp/liar_$word.log")
	if [[ $word == moved ]]; then
		# 4 s at one sync per 0.5 s: 9 requests at most (a few more for
		# slack).
		((watches <= 12)) || fail "a lying server woke the peer $watches times in 4 s (its interval: 0.5 s)"
		echo "ok 7 - a server answering every watch request \"moved\" at once woke the peer $watches times in 4 s (interval 0.5 s)"
	else
		# One request a second: 5 at most (a few more for slack).
		((watches <= 8)) || fail "a server answering \"same\" at once was asked $watches times in 4 s"
		echo "ok 8 - a server answering every watch request \"same\" at once was asked $watches times in 4 s"
	fi
done

# 9. More silent connections than may be pending (32): the ones beyond go
#    to git daemon at once, which must not wait for their request for
#    ever (a process each, as many as a client opens).
python3 - "${red_url#git://}" "$red_serve" <<'EOF' || fail "silent connections beyond the pending ones"
import os, socket, sys, time
host, port = sys.argv[1].rstrip("/").split(":")
addr, pid = (host, int(port)), sys.argv[2]
def children():
    n = 0
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1] == pid:
                n += 1
        except OSError:
            pass
    return n
quiet = [socket.create_connection(addr) for _ in range(40)]
time.sleep(1)
assert children() >= 4, f"{children()} children: the connections beyond 32 did not go to git daemon"
time.sleep(8)
left = children()
assert left == 0, f"{left} git daemons still wait for a request 9 s after a silent connection"
for c in quiet: c.close()
EOF
echo "ok 9 - silent connections beyond the pending ones: git daemon gives them up after --init-timeout"

# 10. The window against the liar ("moved" at once, every time): its waker
#     waits for the sync each wake-up asked for, then paces them as the
#     peer does (it used to ask again at once, thousands of requests).
d10=$tmp/g10
$catan join "$red_url" "$d10" --as blue >/dev/null
git -C "$d10" remote set-url origin "git://127.0.0.1:$liar_port/"
liar 4 moved "$tmp/liar_win.log"
printf 'wait 9000\nquit\n' >"$tmp/window10.script"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	SDL_VIDEODRIVER=offscreen XDG_CONFIG_HOME=$tmp/config $catan play "$d10" \
	--interval 0.5 --pace 0 --script "$tmp/window10.script" >"$tmp/window10.log" 2>&1 &
win=$!
pids+=($win)
wait_for "$tmp/liar_win.log" "^watches" 20 ||
	fail "the liar saw no watch requests from the window: $(cat "$tmp/liar_win.log") $(cat "$tmp/window10.log")"
kill "$liar_pid" 2>/dev/null || true
wait "$win" || fail "the window failed: $(cat "$tmp/window10.log")"
watches=$(sed -n 's/^watches //p' "$tmp/liar_win.log")
((watches <= 12)) || fail "a lying server was asked $watches times in 4 s by the window (its interval: 0.5 s)"
echo "ok 10 - the window against a server answering \"moved\" at once: $watches requests in 4 s (interval 0.5 s)"
