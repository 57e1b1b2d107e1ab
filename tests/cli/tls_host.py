"""A small TLS host for the cli tests that need a host that misbehaves
(tests/cli/test_https_deadline.sh, test_https_incomplete.sh).

serve(cert, key, handle) listens on a free loopback port, prints
"listening on PORT", and calls handle(conn, method, path, headers, body)
for every HTTP/1.1 request of every connection, each connection in a
thread of its own; handle sends the answer (answer() for a whole one).
An OSError or a failed git ends that connection, said on stdout.
"""
import socket
import ssl
import subprocess
import threading


def pkt(s):
    """s as one pkt-line."""
    return b"%04x" % (len(s) + 4) + s


def answer(c, status, body, kind="application/x-git-upload-pack-result"):
    c.sendall(b"HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
              % (status, kind.encode(), len(body)) + body)


def _connection(ctx, c, handle):
    try:
        c = ctx.wrap_socket(c, server_side=True)
        f = c.makefile("rb")
        while True:
            first = f.readline()
            if not first:
                break
            method, path = first.split(b" ")[:2]
            hdr = {}
            while True:
                h = f.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode().partition(":")
                hdr[k.strip().lower()] = v.strip()
            body = f.read(int(hdr.get("content-length", "0")))
            handle(c, method, path, hdr, body)
    except (OSError, subprocess.CalledProcessError) as e:
        print("error:", e, flush=True)


def serve(cert, key, handle):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    print("listening on", srv.getsockname()[1], flush=True)
    while True:
        c, _ = srv.accept()
        threading.Thread(target=_connection, args=(ctx, c, handle),
                         daemon=True).start()
