#!/usr/bin/env python3
"""Misbehaving agents for tests/agent/test_agents.sh.

bad_agent.py MODE plays like the example agent until its first move of
turn 3 or later, then misbehaves:
  sleep    sleeps far past its time limit
  memory   allocates past its memory limit (RLIMIT_AS: MemoryError, exit)
  garbage  sends bytes that are no message
  illegal  sends a well-formed but illegal move (a city on a bare corner)
  close    closes its connection and goes on living
  threads  starts more threads than BEGIN allows, then moves
  chatter  sends a move when none was asked (after its answer)
  version  answers HELLO with protocol version 99 (misbehaves at once)
"""
import os
import sys
import threading
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "agents", "python"))
import catan_agent as ca  # noqa: E402
import example  # noqa: E402

MODE = sys.argv[1]


class Bad(example.Example):
    def move(self, v):
        good = super().move(v)
        if v.turn < 3:
            return good
        if MODE == "sleep":
            time.sleep(60)
        elif MODE == "memory":
            hog = bytearray(4 << 30)
            hog[0] = 1
        elif MODE == "garbage":
            sys.stdout.buffer.write(b"\x63garbage")
            sys.stdout.buffer.flush()
            time.sleep(60)
        elif MODE == "illegal":
            corner = sorted(self.board.vertices)[0]
            return ca.Build(self.me, ca.CITY, corner)
        elif MODE == "close":
            os.close(1)
            os.close(0)
            time.sleep(60)
        elif MODE == "threads":
            for _ in range(8):
                threading.Thread(target=time.sleep, args=(60,),
                                 daemon=True).start()
        elif MODE == "chatter":
            sys.stdout.buffer.write(ca.encode(good))
        return good


if MODE == "version":
    rd = ca._Reader(sys.stdin.buffer)
    ca.read_message(rd, None)
    sys.stdout.buffer.write(bytes([ca.HELLO]) + b"CATN" + bytes([99, 0]))
    sys.stdout.buffer.flush()
    time.sleep(60)
else:
    ca.run(Bad())
