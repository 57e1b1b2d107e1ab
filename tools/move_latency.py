#!/usr/bin/env python3
"""What players feel: from the time-stamped output of N `catan peer`
processes of one game, the time from each move's commit on its peer to its
adoption by every other peer.

    tools/move_latency.py DIR HISTORY NAME...

DIR/live_NAME.log is NAME's peer output, each line prefixed by the epoch
time it was read at ("1764043200.123456 red: build road ..."); HISTORY is
`git log --reverse --format='%H %an' <branch>` of the finished game. A
peer prints a line starting with its own name for each of its moves, in
order, and "adopted ... now at <short id>" when a sync adopts something.
Prints the median, 90th percentile and maximum over every (move, other
peer) pair; exits 1 when no pair was seen.
"""
import statistics
import sys


def main():
    tmp, history, names = sys.argv[1], sys.argv[2], sys.argv[3:]
    hist = [l.split() for l in open(history)]
    index = {h: i for i, (h, a) in enumerate(hist)}
    # The k-th action line of a peer is its k-th commit in the history.
    mine = {p: [i for i, (h, a) in enumerate(hist) if a == p and i > 0]
            for p in names}
    acted, adopted = {}, {p: [] for p in names}
    for p in names:
        k = 0
        for line in open(f"{tmp}/live_{p}.log"):
            t, _, rest = line.rstrip("\n").partition(" ")
            word = rest.split(" ", 1)[0]
            if word == p and k < len(mine[p]):
                acted[mine[p][k]] = float(t)
                k += 1
            elif word == "adopted" and " now at " in rest:
                short = rest.rsplit(" ", 1)[1]
                full = [i for h, i in index.items() if h.startswith(short)]
                if full:
                    adopted[p].append((float(t), full[0]))
    lat = []
    for i, t0 in acted.items():
        author = hist[i][1]
        for q in names:
            if q == author:
                continue
            seen = [t for t, j in adopted[q] if j >= i and t >= t0]
            if seen:
                lat.append((min(seen) - t0) * 1000)
    if not lat:
        print("  no move was seen adopted by another peer")
        return 1
    lat.sort()
    print(f"  {len(hist) - 1} commits; {len(lat)} (move, other peer) pairs: "
          f"median {statistics.median(lat):.0f} ms, 90th percentile "
          f"{lat[len(lat) * 9 // 10]:.0f} ms, max {lat[-1]:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
