#!/usr/bin/env python3
"""An example agent for catan-git (spec/agents.md), standard library only.

It plays legal moves sensibly: set-up on the corners with the most pips,
cities before settlements before roads, development cards with what is
left, knights against the robber, maritime trades toward what it lacks,
discards from its largest piles, the robber on the best opponent tile.

    catan -C DIR peer --agent 'python3 agents/python/example.py'
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import catan_agent as ca  # noqa: E402

IDX = {res: i for i, res in enumerate(ca.RESOURCES)}


def covers(hand, cost):
    return all(h >= c for h, c in zip(hand, cost))


class Example(ca.Agent):
    def __init__(self):
        self.offered_turn = -1   # one domestic offer a turn
        self.counter = None      # a counter-offer received (host only)
        self.countered = None    # the offer this seat countered with

    def event(self, m):
        if m.type == ca.TRADE and m.target_id == self.me:
            self.counter = m

    def state(self, v):
        """Occupied vertices, roads and this player's pieces from a VIEW."""
        self.owner = {pos: (who, kind) for pos, who, kind in v.buildings}
        self.road_owner = {pos: who for pos, who in v.roads}

    def free_vertex(self, v):
        b = self.board
        return v not in self.owner and all(
            n not in self.owner for n in b.neighbours(v))

    def my_reach(self, v):
        """Vertices where this player may extend a road from."""
        out = set()
        for e, who in self.road_owner.items():
            if who != self.me:
                continue
            for x in ca.edge_ends(e):
                o = self.owner.get(x)
                if o is None or o[0] == self.me:
                    out.add(x)
        for x, (who, _) in self.owner.items():
            if who == self.me:
                out.add(x)
        return out

    def road_spots(self):
        """Free edges this player may build on, the most promising first:
        toward a free corner with many pips, or one step short of it."""
        reach = self.my_reach(None)
        spots = set()
        for x in reach:
            for e in self.board.vertex_edges[x]:
                if e not in self.road_owner:
                    spots.add(e)
        b = self.board

        def promise(e):
            best = 0
            for x in ca.edge_ends(e):
                if x in reach:
                    continue
                if self.free_vertex(x):
                    best = max(best, 2 * b.pips(x))
                for n in b.neighbours(x):
                    if n not in reach and self.free_vertex(n):
                        best = max(best, b.pips(n))
            return best
        return sorted(spots, key=lambda e: (-promise(e), e))

    def settlement_spots(self):
        touched = set()
        for e, who in self.road_owner.items():
            if who == self.me:
                touched.update(ca.edge_ends(e))
        spots = [x for x in touched if self.free_vertex(x)]
        return sorted(spots, key=lambda x: -self.board.pips(x))

    # ---- phases ----
    def setup(self, v):
        best = max((x for x in self.board.vertices if self.free_vertex(x)),
                   key=lambda x: (self.board.pips(x), x))
        edge = sorted(e for e in self.board.vertex_edges[best]
                      if e not in self.road_owner)[0]
        return ca.Place(best, edge)

    def discard(self, v):
        owe = v.players[self.me]["discard"]
        hand = list(v.hand)
        give = [0] * 5
        for _ in range(owe):
            i = max(range(5), key=lambda k: hand[k])
            hand[i] -= 1
            give[i] += 1
        return ca.Discard(give)

    def robber_target(self, v):
        best, best_score = None, -1
        for t in self.board.tiles:
            if t == v.robber:
                continue
            mine, victims, score = False, [], 0
            kind, counter = self.board.tiles[t]
            pips = 6 - abs(7 - counter) if counter else 0
            for x in ca.tile_corners(*t):
                o = self.owner.get(x)
                if o is None:
                    continue
                if o[0] == self.me:
                    mine = True
                else:
                    victims.append(o[0])
                    score += pips * o[1]
            if mine:
                score = -1 if victims else -2
            if score > best_score:
                best_score = score
                target = max(victims, key=lambda p: v.players[p]["cards"],
                             default=ca.NOBODY)
                best = (t, target)
        return best

    def robber_on_me(self, v):
        return any(self.owner.get(x, (None,))[0] == self.me
                   for x in ca.tile_corners(*v.robber))

    def playable(self, v, card):
        return (not v.dev_played and v.devs[card] - v.bought[card] > 0)

    def main(self, v, special=False):
        hand = v.hand
        me = v.players[self.me]
        if not special and self.playable(v, ca.KNIGHT):
            # Knights move the robber off its own tiles and count toward
            # the largest army (2 points): play them all.
            t, target = self.robber_target(v)
            return ca.Play(self.me, ca.KNIGHT, tile=t, target=target)
        if covers(hand, ca.COST[ca.CITY]) and me["cities_left"]:
            mine = sorted(x for x, (w, k) in self.owner.items()
                          if w == self.me and k == ca.SETTLEMENT)
            if mine:
                best = max(mine, key=self.board.pips)
                return ca.Build(self.me, ca.CITY, best)
        spots = self.settlement_spots()
        if covers(hand, ca.COST[ca.SETTLEMENT]) and spots and \
                me["settlements_left"]:
            return ca.Build(self.me, ca.SETTLEMENT, spots[0])
        roads = self.road_spots()
        if covers(hand, ca.COST[ca.ROAD]) and roads and me["roads_left"] \
                and (not spots or me["roads_left"] > 10):
            return ca.Build(self.me, ca.ROAD, roads[0])
        if covers(hand, ca.COST[ca.DEVELOPMENT_CARD]) and v.deck:
            return ca.Build(self.me, ca.DEVELOPMENT_CARD)
        if special:
            return ca.Pass()
        if self.playable(v, ca.YEAR_OF_PLENTY):
            want = [r for r in (ca.ORE, ca.GRAIN, ca.BRICK, ca.LUMBER, ca.WOOL)
                    if v.bank[IDX[r]] >= 2]
            if want:
                return ca.Play(self.me, ca.YEAR_OF_PLENTY, res1=want[0],
                               res2=want[0])
        if self.playable(v, ca.MONOPOLY):
            need = self.goal()
            lack = max(ca.RESOURCES,
                       key=lambda r: need[IDX[r]] - v.hand[IDX[r]])
            return ca.Play(self.me, ca.MONOPOLY, res1=lack)
        if self.playable(v, ca.ROAD_BUILDING) and me["roads_left"] >= 2 \
                and len(roads) >= 2:
            first = roads[0]
            self.road_owner[first] = self.me
            rest = [e for e in self.road_spots() if e != first]
            return ca.Play(self.me, ca.ROAD_BUILDING, road1=first,
                           road2=rest[0] if rest else None)
        trade = self.domestic(v) or self.bank_trade(v) \
            if v.phase == ca.PH_MAIN else None
        if trade:
            return trade
        return ca.Pass()

    def goal(self):
        """The cost this agent saves for: a city once it has a settlement."""
        if any(k == ca.SETTLEMENT and w == self.me
               for w, k in self.owner.values()):
            return ca.COST[ca.CITY]
        return ca.COST[ca.SETTLEMENT]

    def domestic(self, v):
        """One offer a turn to another player: a counter-offer it was
        sent, taken as it stands, or one surplus card for one missing."""
        c, self.counter = self.counter, None
        if c and v.hand[IDX[c.ask_res]] >= c.ask_count:
            return ca.Trade(self.me, c.player_id, c.ask_res, c.ask_count,
                            c.offer_res, c.offer_count)
        if self.offered_turn == v.turn:
            return None
        need = self.goal()
        missing = [r for r in ca.RESOURCES if v.hand[IDX[r]] < need[IDX[r]]]
        surplus = [r for r in ca.RESOURCES
                   if v.hand[IDX[r]] - need[IDX[r]] >= 2]
        others = [p for p in range(len(v.players))
                  if p != self.me and v.players[p]["cards"] > 0]
        if not (missing and surplus and others):
            return None
        self.offered_turn = v.turn
        to = max(others, key=lambda p: v.players[p]["cards"])
        return ca.Trade(self.me, to, surplus[0], 1, missing[0], 1)

    def rate(self, v, res):
        h = v.players[self.me]["harbours"]
        if h >> res & 1:
            return 2
        return 3 if h & 1 else 4

    def bank_trade(self, v):
        hand = v.hand
        target = ca.COST[ca.CITY] if any(
            k == ca.SETTLEMENT and w == self.me
            for w, k in self.owner.values()) else ca.COST[ca.SETTLEMENT]
        missing = [r for r in ca.RESOURCES
                   if hand[IDX[r]] < target[IDX[r]] and v.bank[IDX[r]] > 0]
        if not missing:
            return None
        for r in ca.RESOURCES:
            n = self.rate(v, r)
            if hand[IDX[r]] - target[IDX[r]] >= n:
                return ca.Trade(self.me, ca.BANK, r, n, missing[0], 1)
        return None

    def answer(self, v):
        give_ok = covers(v.hand, v.offer_get)
        gains = any(v.offer_give[i] and v.hand[i] == 0 for i in range(5))
        mine = (v.offer_from, v.offer_give, v.offer_get) == self.countered
        if give_ok and (mine or (gains and
                                 sum(v.offer_get) <= sum(v.offer_give))):
            return ca.Accept(v.offer_from, self.me)
        # A counter-offer: the same cards, one more for this seat.
        gives = [i for i in range(5) if v.offer_give[i]]
        gets = [i for i in range(5) if v.offer_get[i]]
        if give_ok and len(gives) == 1 and len(gets) == 1 and \
                v.offer_give[gives[0]] < 9:
            g, t = gives[0], gets[0]
            more = v.offer_give[g] + 1
            give = [0] * 5
            give[g] = more
            get = [0] * 5
            get[t] = v.offer_get[t]
            self.countered = (v.offer_from, tuple(give), tuple(get))
            return ca.Trade(self.me, v.offer_from, ca.RESOURCES[t],
                            v.offer_get[t], ca.RESOURCES[g], more)
        return ca.Reject(v.offer_from, self.me)

    def move(self, v):
        self.state(v)
        if v.phase == ca.PH_SETUP:
            return self.setup(v)
        if v.phase == ca.PH_DISCARD:
            return self.discard(v)
        if v.phase == ca.PH_ROBBER:
            t, target = self.robber_target(v)
            return ca.Rob(t, target)
        if v.phase == ca.PH_OFFER:
            return self.answer(v)
        if v.phase == ca.PH_ROLL:
            if self.playable(v, ca.KNIGHT):
                t, target = self.robber_target(v)
                return ca.Play(self.me, ca.KNIGHT, tile=t, target=target)
            return ca.Roll()
        if v.phase == ca.PH_SPECIAL:
            return self.main(v, special=True)
        if v.phase == ca.PH_TRADE:  # classic phases: trade, then build
            return self.bank_trade(v) or ca.Pass()
        return self.main(v)


if __name__ == "__main__":
    ca.run(Example())
