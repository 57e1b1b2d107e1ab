"""A client for the catan-git agent protocol, version 1 (spec/agents.md).

Standard library only. An agent is a program whose stdin and stdout are
the connection to the server (catan peer --agent / catan host): it reads
messages from stdin and writes its moves to stdout.

    import catan_agent as ca

    class Mine(ca.Agent):
        def move(self, view):          # called on every VIEW
            return ca.Pass()           # one move message

    ca.run(Mine())

Messages are plain dataclass-like objects; encode()/decode() follow the
byte layouts of spec/agents.md (one type byte, packed fields,
little-endian). The Board class gives the geometry (vertices, edges and
who touches what) with the protocol's coordinate names.
"""
import struct
import sys

VERSION = 1

# Message types (seed protocol 0-3 and 10-21; v1 additions 4, 5, 22, 23).
BEGIN, SETUP, KICK, END, HELLO, VIEW = 0, 1, 2, 3, 4, 5
TURN, ROLL, ROLL_RESULT, PLAY, BUILD, BUILD_RESULT = 10, 11, 12, 13, 14, 15
TRADE, TRADE_ACCEPT, TRADE_REJECT, PASS, ROB, ROB_RESULT = 16, 17, 18, 19, 20, 21
PLACE, DISCARD = 22, 23

# Resources (wire numbering) and card arrays of five in this order.
ANY, BRICK, GRAIN, LUMBER, ORE, WOOL = 0, 1, 2, 3, 4, 5
RESOURCES = (BRICK, GRAIN, LUMBER, ORE, WOOL)
RES_NAMES = {ANY: "any", BRICK: "brick", GRAIN: "grain", LUMBER: "lumber",
             ORE: "ore", WOOL: "wool"}
DESERT = 6
ROAD, SETTLEMENT, CITY, DEVELOPMENT_CARD = 0, 1, 2, 3
KNIGHT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY, VICTORY_POINT = 0, 1, 2, 3, 4
N, S = 0, 1            # vertex directions
W, NW, NE = 0, 1, 2    # edge directions
NOBODY = BANK = 0xFF
NOPOS = (-128, -128, 0)

# Phases of the VIEW (the engine's numbering).
(PH_SETUP, PH_ROLL, PH_DISCARD, PH_ROBBER, PH_MAIN, PH_TRADE, PH_BUILD,
 PH_OFFER, PH_OVER, PH_SPECIAL) = range(10)

COST = {  # in wire order: brick, grain, lumber, ore, wool
    ROAD: (1, 0, 1, 0, 0),
    SETTLEMENT: (1, 1, 1, 0, 1),
    CITY: (0, 2, 0, 3, 0),
    DEVELOPMENT_CARD: (0, 1, 0, 1, 1),
}


class ProtocolError(Exception):
    pass


class Msg:
    """A message: `type` plus the fields of its layout as attributes."""

    def __init__(self, type, **fields):
        self.type = type
        self.__dict__.update(fields)

    def __repr__(self):
        f = ", ".join("%s=%r" % kv for kv in self.__dict__.items()
                      if kv[0] != "type")
        return "Msg(%d, %s)" % (self.type, f)


# ---- moves an agent sends ----
def Hello():
    return Msg(HELLO, version=VERSION)


def Place(house, road):
    return Msg(PLACE, house=tuple(house), road=tuple(road))


def Roll():
    return Msg(ROLL)


def Pass():
    return Msg(PASS)


def Discard(cards):
    return Msg(DISCARD, cards=tuple(cards))


def Rob(tile, target=NOBODY):
    return Msg(ROB, tile=tuple(tile), target=target)


def Build(me, kind, pos=None):
    return Msg(BUILD, player_id=me, kind=kind, pos=tuple(pos) if pos else None)


def Trade(me, target, offer_res, offer_count, ask_res, ask_count):
    return Msg(TRADE, player_id=me, target_id=target, offer_res=offer_res,
               offer_count=offer_count, ask_res=ask_res, ask_count=ask_count)


def Accept(offerer, me):
    return Msg(TRADE_ACCEPT, player_id=offerer, target_id=me)


def Reject(offerer, me):
    return Msg(TRADE_REJECT, player_id=offerer, target_id=me)


def Play(me, card, tile=None, target=NOBODY, road1=None, road2=None,
         res1=ANY, res2=ANY):
    return Msg(PLAY, player_id=me, card=card, tile=tile, target=target,
               road1=road1, road2=road2, res1=res1, res2=res2)


# ---- encoding (agent -> server) ----
def _pos(p):
    q, r, d = p if p is not None else NOPOS
    return struct.pack("<bbB", q, r, d)


def encode(m):
    t = bytes([m.type])
    if m.type in (ROLL, PASS):
        return t
    if m.type == HELLO:
        return t + b"CATN" + struct.pack("<H", m.version)
    if m.type == PLACE:
        return t + _pos(m.house) + _pos(m.road)
    if m.type == DISCARD:
        return t + bytes(m.cards)
    if m.type == ROB:
        return t + struct.pack("<bbB", m.tile[0], m.tile[1], m.target)
    if m.type == BUILD:
        body = bytes([m.player_id, m.kind])
        if m.kind != DEVELOPMENT_CARD:
            body += _pos(m.pos)
        return t + body
    if m.type == TRADE:
        return t + bytes([m.player_id, m.target_id, m.offer_res,
                          m.offer_count, m.ask_res, m.ask_count])
    if m.type in (TRADE_ACCEPT, TRADE_REJECT):
        return t + bytes([m.player_id, m.target_id])
    if m.type == PLAY:
        body = bytes([m.player_id, m.card])
        if m.card == KNIGHT:
            body += struct.pack("<bbB", m.tile[0], m.tile[1], m.target)
        elif m.card == ROAD_BUILDING:
            body += _pos(m.road1) + _pos(m.road2)
        elif m.card == YEAR_OF_PLENTY:
            body += bytes([m.res1, m.res2])
        elif m.card == MONOPOLY:
            body += bytes([m.res1])
        return t + body
    raise ProtocolError("cannot encode message type %d" % m.type)


# ---- decoding (server -> agent) ----
class _Reader:
    def __init__(self, stream):
        self.f = stream

    def take(self, n):
        b = b""
        while len(b) < n:
            chunk = self.f.read(n - len(b))
            if not chunk:
                raise EOFError("connection closed")
            b += chunk
        return b

    def u8(self):
        return self.take(1)[0]

    def i8(self):
        return struct.unpack("<b", self.take(1))[0]

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def tile(self):
        return (self.i8(), self.i8())

    def pos(self):
        return (self.i8(), self.i8(), self.u8())

    def five(self):
        return tuple(self.take(5))


def read_message(rd, begin):
    """Reads one server message; `begin` is the BEGIN seen (for SETUP)."""
    t = rd.u8()
    if t == HELLO:
        if rd.take(4) != b"CATN":
            raise ProtocolError("HELLO without magic")
        return Msg(HELLO, version=rd.u16())
    if t == BEGIN:
        return Msg(BEGIN, timeout_secs=rd.u32(), thread_limit=rd.u32(),
                   memory_limit=rd.u32(), board_radius=rd.u8(),
                   player_id=rd.u8(), cell_count=rd.u32(),
                   harbour_count=rd.u32(), player_count=rd.u32())
    if t == SETUP:
        cells = [(rd.tile(), rd.u8(), rd.u8()) for _ in range(begin.cell_count)]
        harbours = [(rd.pos(), rd.pos(), rd.u8(), rd.u8())
                    for _ in range(begin.harbour_count)]
        players = [dict(id=rd.u8(), house1=rd.pos(), road1=rd.pos(),
                        house2=rd.pos(), road2=rd.pos(),
                        starting_hand=tuple(rd.take(3)))
                   for _ in range(begin.player_count)]
        return Msg(SETUP, cells=cells, harbours=harbours, players=players)
    if t in (KICK, END, TURN, ROLL_RESULT):
        name = {KICK: "kick_id", END: "winner_id", TURN: "player_id",
                ROLL_RESULT: "roll"}[t]
        return Msg(t, **{name: rd.u8()})
    if t == BUILD_RESULT:
        kind = rd.u8()
        return Msg(t, kind=kind, card=rd.u8() if kind == DEVELOPMENT_CARD
                   else None)
    if t == ROB_RESULT:
        return Msg(t, player_id=rd.u8(), target_id=rd.u8(), card=rd.u8())
    if t == TRADE:  # a counter-offer passed on by a host
        b = rd.take(6)
        return Msg(t, player_id=b[0], target_id=b[1], offer_res=b[2],
                   offer_count=b[3], ask_res=b[4], ask_count=b[5])
    if t == VIEW:
        v = Msg(VIEW)
        v.phase, v.active, v.you = rd.u8(), rd.u8(), rd.u8()
        v.turn = rd.u16()
        v.dice = (rd.u8(), rd.u8())
        v.robber = rd.tile()
        v.vp_target, v.dev_played = rd.u8(), rd.u8()
        v.longest_road, v.largest_army = rd.u8(), rd.u8()
        v.bank, v.deck = rd.five(), rd.u8()
        v.offer_from, v.offer_to = rd.u8(), rd.u8()
        v.offer_give, v.offer_get = rd.five(), rd.five()
        v.hand, v.devs, v.bought = rd.five(), rd.five(), rd.five()
        v.players = []
        for _ in range(rd.u8()):
            b = rd.take(10)
            v.players.append(dict(
                cards=b[0], devcards=b[1], knights=b[2], public_vp=b[3],
                road_length=b[4], discard=b[5], roads_left=b[6],
                settlements_left=b[7], cities_left=b[8], harbours=b[9]))
        v.buildings = [(rd.pos(), rd.u8(), rd.u8()) for _ in range(rd.u8())]
        v.roads = [(rd.pos(), rd.u8()) for _ in range(rd.u8())]
        return v
    raise ProtocolError("unknown message type %d from the server" % t)


# ---- geometry ----
def tile_corners(q, r):
    """The six corners of hex (q, r), canonical names: N NE SE S SW NW."""
    return [(q, r, N), (q + 1, r - 1, S), (q, r + 1, N), (q, r, S),
            (q - 1, r + 1, N), (q, r - 1, S)]


def tile_sides(q, r):
    """The six sides of hex (q, r), canonical names: W NW NE E SE SW."""
    return [(q, r, W), (q, r, NW), (q, r, NE), (q + 1, r, W),
            (q, r + 1, NW), (q - 1, r + 1, NE)]


def edge_ends(e):
    q, r, d = e
    if d == W:
        return ((q, r - 1, S), (q - 1, r + 1, N))
    if d == NW:
        return ((q, r - 1, S), (q, r, N))
    return ((q, r, N), (q + 1, r - 1, S))


class Board:
    """The board of a SETUP: tiles, vertices, edges and adjacency."""

    def __init__(self, setup):
        self.tiles = {pos: (kind, counter) for pos, kind, counter in setup.cells}
        self.harbour_at = {}
        for v1, v2, res, cost in setup.harbours:
            self.harbour_at[v1] = self.harbour_at[v2] = (res, cost)
        self.vertex_tiles = {}
        self.edges = set()
        for (q, r) in self.tiles:
            for v in tile_corners(q, r):
                self.vertex_tiles.setdefault(v, []).append((q, r))
            self.edges.update(tile_sides(q, r))
        self.vertices = set(self.vertex_tiles)
        self.vertex_edges = {v: [] for v in self.vertices}
        for e in self.edges:
            for v in edge_ends(e):
                self.vertex_edges[v].append(e)

    def neighbours(self, v):
        out = []
        for e in self.vertex_edges[v]:
            a, b = edge_ends(e)
            out.append(b if a == v else a)
        return out

    def pips(self, v):
        total = 0
        for t in self.vertex_tiles[v]:
            kind, counter = self.tiles[t]
            if kind != DESERT and counter:
                total += 6 - abs(7 - counter)
        return total


# ---- the loop ----
class Agent:
    """Override move(view) -> one move message. begin/board/me are set."""

    begin = None
    board = None
    me = None

    def move(self, view):
        raise NotImplementedError

    def event(self, msg):
        """Any message other than VIEW (TURN, results, counter-offers)."""


def run(agent, inp=None, out=None):
    """Speaks the protocol on stdin/stdout until END, KICK or EOF."""
    inp = inp or sys.stdin.buffer
    out = out or sys.stdout.buffer
    rd = _Reader(inp)

    def send(m):
        out.write(encode(m))
        out.flush()

    try:
        first = read_message(rd, None)
        if first.type != HELLO:
            raise ProtocolError("the server did not start with HELLO")
        send(Hello())
        while True:
            m = read_message(rd, agent.begin)
            if m.type == BEGIN:
                agent.begin, agent.me = m, m.player_id
            elif m.type == SETUP:
                agent.board = Board(m)
            elif m.type == VIEW:
                send(agent.move(m))
            elif m.type in (END, KICK):
                agent.event(m)
                return m
            else:
                agent.event(m)
    except EOFError:
        return None
