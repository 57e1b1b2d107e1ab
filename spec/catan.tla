-------------------------------- MODULE catan --------------------------------
(***************************************************************************)
(* The game as the rules core implements it (src/core/rules.c, check.c,   *)
(* spec/rules.md): one state, one action at a time, the invariants that   *)
(* catan_state_check recomputes after every action. Written for this      *)
(* project from the official rules as the core reads them.                *)
(*                                                                         *)
(* Each invariant is named after the C check it mirrors: the comment      *)
(* C: "..." above it is the text catan_state_check reports (spec/model.md *)
(* maps every one to its C code and to the test that shows the check     *)
(* detects its violation; tools/model_names.sh keeps the three in step).  *)
(*                                                                         *)
(* Unlike the thesis's model: the longest road is computed for each       *)
(* player from that player's roads; the dice are two dice 1..6 each (the  *)
(* sum is not uniform); the robber moves to any other land tile, a victim *)
(* being optional when nobody there holds cards; domestic trade (offer,   *)
(* accept, reject, counter-offer) is modelled; classic and combined       *)
(* phases, 5-6 players with the special building phase, and the          *)
(* concurrent discards after a 7 are modelled.                            *)
(*                                                                         *)
(* Expulsion (spec/rules.md "Expelled seats", invariant 11): a seat      *)
(* proven to have signed two moves on one commit is out (the variable    *)
(* out); the action Expel, by the seat that acts next without it, hands  *)
(* its cards back and moves the game past it, and every turn, set-up     *)
(* step, special building phase, production and offer skips the seats    *)
(* that are out. The proof itself (two children of one commit signed by  *)
(* the seat) is the store's, not the game's: spec/replication.md,        *)
(* "Equivocation" and "Expulsion", and spec/replication.pml.             *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, Sequences

CONSTANTS
    N,              \* players, 2..6
    VpTarget,       \* 3..20
    Classic,        \* TRUE: trade phase then build phase; FALSE: combined
    SpecialBuild,   \* the 5-6 player special building phase
    OfferLimit,     \* offers per turn, 0 = none
    Tiles, Land,    \* tiles; the land tiles (the robber's places)
    Vertices, Edges,
    Ends(_),        \* the two vertices of an edge
    Nbrs(_),        \* the vertices one edge away from a vertex
    TileVertices(_),\* the six corners of a tile
    Produces(_),    \* a land tile's resource, or "none" (the desert)
    Token(_),       \* a land tile's number, 0 for the desert
    HarbourVertices(_), \* the vertices of each harbour kind
    RobberStart

None == "none"
Players == 0 .. N - 1
Resources == {"lumber", "brick", "wool", "grain", "ore"}
DevKinds == {"knight", "road-building", "year-of-plenty", "monopoly",
             "victory-point"}
HarbourKinds == {"generic"} \cup Resources
Phases == {"setup", "roll", "discard", "robber", "main", "trade", "build",
           "offer", "over", "special", "reveal"}
ResTotal == IF N <= 4 THEN 19 ELSE 24
DevStart(d) ==
    CASE d = "knight" -> (IF N <= 4 THEN 14 ELSE 20)
      [] d = "victory-point" -> 5
      [] OTHER -> (IF N <= 4 THEN 2 ELSE 3)
Settlements == 5
Cities == 4
Roads == 15
MaxPlayersBase == 4

ASSUME N \in 2 .. 6 /\ VpTarget \in 3 .. 20 /\ SpecialBuild \in {0, 1}

VARIABLES
    hand,        \* hand[p][r]
    devs,        \* devs[p][d]: unplayed cards, victory points included
    knights,     \* knights[p]: knights played
    settlements, cities, roads, \* pieces on the board: sets per player
    settlementsLeft, citiesLeft, roadsLeft,
    bank, deck, played, bought,
    robber, phase, resume, active, builder, winner,
    discard,     \* cards still owed after a 7, per player
    offerFrom, offerTo, offerGive, offerGet, offers,
    devPlayed,   \* a card was played this turn
    longestRoad, largestArmy,
    setupStep,
    dice,
    out          \* the expelled seats (equivocation): they never act again

vars == <<hand, devs, knights, settlements, cities, roads, settlementsLeft,
          citiesLeft, roadsLeft, bank, deck, played, bought, robber, phase,
          resume, active, builder, winner, discard, offerFrom, offerTo,
          offerGive, offerGet, offers, devPlayed, longestRoad, largestArmy,
          setupStep, dice, out>>

-----------------------------------------------------------------------------
(* Helpers *)

Sum(f, S) ==
    LET F[T \in SUBSET S] ==
            IF T = {} THEN 0
            ELSE LET x == CHOOSE y \in T : TRUE IN f[x] + F[T \ {x}]
    IN F[S]
Cards(p) == Sum(hand[p], Resources)
Occupied == UNION {settlements[p] \cup cities[p] : p \in Players}
RoadSet == UNION {roads[p] : p \in Players}
Blocked == Occupied \cup UNION {Nbrs(v) : v \in Occupied}
Reach(p) == UNION {Ends(e) : e \in roads[p]}
Opponents(p) == Players \ {p}
OpponentBuildings(p) ==
    UNION {settlements[q] \cup cities[q] : q \in Opponents(p)}
Harbours(p) ==
    {k \in HarbourKinds : HarbourVertices(k) \cap (settlements[p] \cup cities[p]) # {}}
Max(S) == CHOOSE x \in S : \A y \in S : y <= x
Min(S) == CHOOSE x \in S : \A y \in S : x <= y

(* The seats still in: every seat but the expelled ones. *)
In == Players \ out

(* The seat after p in turn order that is not in o (p itself when every *)
(* other seat is: the game is over then), as rules.c's next_seat.       *)
NextIn(p, o) ==
    LET ks == {k \in 1 .. N - 1 : (p + k) % N \notin o}
    IN IF ks = {} THEN p ELSE (p + Min(ks)) % N
FirstIn(o) == IF 0 \notin o THEN 0 ELSE NextIn(0, o)

(* Set-up step k's seat: 0 .. N-1, then back N-1 .. 0; an expelled     *)
(* seat's steps are skipped (rules.c's setup_advance).                  *)
SetupSeat(k) == IF k < N THEN k ELSE 2 * N - 1 - k
RECURSIVE SkipSetup(_, _)
SkipSetup(k, o) ==
    IF k < 2 * N /\ SetupSeat(k) \in o THEN SkipSetup(k + 1, o) ELSE k

(* The longest trail in p's roads: each road at most once; a trail may *)
(* end at, not pass through, a vertex holding an opponent's building.  *)
(* Computed for p (the thesis used the active player for everyone).    *)
RECURSIVE Trail(_, _, _)
Trail(p, v, used) ==
    LET next == {e \in roads[p] \ used : v \in Ends(e)}
    IN IF next = {} \/ (v \in OpponentBuildings(p) /\ used # {}) THEN 0
       ELSE Max({1 + Trail(p, CHOOSE w \in Ends(e) : w # v, used \cup {e}) :
                 e \in next})
RoadLength(p) ==
    IF roads[p] = {} THEN 0 ELSE Max({Trail(p, v, {}) : v \in Reach(p)})

VP(p) == Cardinality(settlements[p]) + 2 * Cardinality(cities[p])
         + (IF longestRoad = p THEN 2 ELSE 0)
         + (IF largestArmy = p THEN 2 ELSE 0)
PublicVP(p) == VP(p)
TotalVP(p) == VP(p) + devs[p]["victory-point"]

(* Who may act: exactly one player, except in the discard phase. *)
MayAct(p) ==
    CASE phase = "discard" -> discard[p] > 0
      [] phase = "offer" -> p = offerTo
      [] phase = "special" -> p = builder
      [] phase = "over" -> FALSE
      [] phase = "setup" -> p = SetupSeat(setupStep)
      [] OTHER -> p = active

(* The one seat that acts next outside the discard phase (the set-up   *)
(* step's seat is the active one: Setup keeps them equal).              *)
NextActor ==
    CASE phase = "offer" -> offerTo
      [] phase = "special" -> builder
      [] OTHER -> active

-----------------------------------------------------------------------------
(* TypeOK and the invariants of catan_state_check, under its names. *)

TypeOK ==
    /\ hand \in [Players -> [Resources -> 0 .. 24]]
    /\ devs \in [Players -> [DevKinds -> 0 .. 20]]
    /\ knights \in [Players -> 0 .. 20]
    /\ settlements \in [Players -> SUBSET Vertices]
    /\ cities \in [Players -> SUBSET Vertices]
    /\ roads \in [Players -> SUBSET Edges]
    /\ settlementsLeft \in [Players -> 0 .. Settlements]
    /\ citiesLeft \in [Players -> 0 .. Cities]
    /\ roadsLeft \in [Players -> 0 .. Roads]
    /\ bank \in [Resources -> 0 .. 24]
    /\ deck \in [DevKinds -> 0 .. 20]
    /\ played \in [DevKinds -> 0 .. 20]
    /\ bought \in [DevKinds -> 0 .. 20]
    /\ robber \in Land \cup {None}
    /\ phase \in Phases
    /\ resume \in Phases
    /\ active \in Players
    /\ builder \in Players \cup {None}
    /\ winner \in Players \cup {None}
    /\ discard \in [Players -> 0 .. 60]
    /\ offerFrom \in Players \cup {None}
    /\ offerTo \in Players \cup {None}
    /\ offerGive \in [Resources -> 0 .. 24]
    /\ offerGet \in [Resources -> 0 .. 24]
    /\ offers \in Nat
    /\ devPlayed \in BOOLEAN
    /\ longestRoad \in Players \cup {None}
    /\ largestArmy \in Players \cup {None}
    /\ setupStep \in 0 .. 2 * N
    /\ dice \in (1 .. 6) \X (1 .. 6) \cup {<<0, 0>>}
    /\ out \in SUBSET Players

\* C: "player count"
PlayerCount == N \in 2 .. 6

\* C: " cards in play" (preceded by the resource's name)
CardsInPlay == \A r \in Resources :
    bank[r] + Sum([p \in Players |-> hand[p][r]], Players) = ResTotal

\* C: "knights played"
KnightsPlayed == Sum(knights, Players) = played["knight"]

\* C: "victory point cards played"
VictoryPointCardsPlayed == played["victory-point"] = 0

\* C: " cards" (preceded by the card's name): deck + hands + played
DevCards == \A d \in DevKinds :
    deck[d] + played[d] + Sum([p \in Players |-> devs[p][d]], Players)
        = DevStart(d)

\* C: "cards bought this turn"
CardsBoughtThisTurn == \A d \in DevKinds : bought[d] <= devs[active][d]

\* C: "card count" (the cached count is Cards(p) itself here)
CardCount == \A p \in Players : Cards(p) = Sum(hand[p], Resources)

\* C: "settlements on board + in supply"
SettlementsOnBoardAndInSupply == \A p \in Players :
    Cardinality(settlements[p]) + settlementsLeft[p] = Settlements

\* C: "cities on board + in supply"
CitiesOnBoardAndInSupply == \A p \in Players :
    Cardinality(cities[p]) + citiesLeft[p] = Cities

\* C: "roads on board + in supply"
RoadsOnBoardAndInSupply == \A p \in Players :
    Cardinality(roads[p]) + roadsLeft[p] = Roads

\* C: "vertices holding two buildings"
VerticesHoldingTwoBuildings == \A p, q \in Players :
    /\ settlements[p] \cap cities[q] = {}
    /\ p # q => settlements[p] \cap settlements[q] = {}
    /\ p # q => cities[p] \cap cities[q] = {}

\* C: "edges holding two roads"
EdgesHoldingTwoRoads == \A p, q \in Players : p # q => roads[p] \cap roads[q] = {}

\* C: "road off the board"
RoadOffTheBoard == RoadSet \subseteq Edges

\* C: "cached road reach" (Reach is derived, so it holds by definition)
CachedRoadReach == \A p \in Players : Reach(p) = UNION {Ends(e) : e \in roads[p]}

\* C: "roads not connected to own buildings": every road is joined to
\* one of p's buildings through p's roads
RECURSIVE Connected(_, _)
Connected(p, S) ==
    LET more == {e \in roads[p] \ S :
                    \E f \in S : Ends(e) \cap Ends(f) # {}}
    IN IF more = {} THEN S ELSE Connected(p, S \cup more)
RoadsNotConnectedToOwnBuildings == \A p \in Players :
    Connected(p, {e \in roads[p] :
                    Ends(e) \cap (settlements[p] \cup cities[p]) # {}})
        = roads[p]

\* C: "cached longest road"
CachedLongestRoad == \A p \in Players : RoadLength(p) \in 0 .. Roads

\* C: "harbour access bits"
HarbourAccessBits == \A p \in Players : Harbours(p) \subseteq HarbourKinds

\* C: "public victory points"
PublicVictoryPoints == \A p \in Players : PublicVP(p) = VP(p)

\* C: "active player at target but not won"
ActivePlayerAtTargetButNotWon ==
    phase \notin {"over", "setup", "special"} => TotalVP(active) < VpTarget

\* C: "pieces of a seat nobody plays" (seats >= N do not exist here)
PiecesOfASeatNobodyPlays == DOMAIN settlements = Players

\* C: "cached building at vertex"
CachedBuildingAtVertex == \A v \in Occupied : \E p \in Players :
    v \in settlements[p] \cup cities[p]

\* C: "cached occupied vertices"
CachedOccupiedVertices == Occupied \subseteq Vertices

\* C: "cached road set"
CachedRoadSet == RoadSet = UNION {roads[p] : p \in Players}

\* C: "building off the board"
BuildingOffTheBoard == Occupied \subseteq Vertices

\* C: "distance rule broken at vertex"
DistanceRuleBrokenAtVertex == \A v \in Occupied : Nbrs(v) \cap Occupied = {}

\* C: "cached blocked vertices"
CachedBlockedVertices == Blocked = Occupied \cup UNION {Nbrs(v) : v \in Occupied}

\* (The trophies are contested by the seats still in: an expelled seat's
\* roads and knights stay on the board but compete for nothing.)

\* C: "longest road holder's length"
LongestRoadHoldersLength ==
    longestRoad # None =>
        /\ RoadLength(longestRoad) >= 5
        /\ \A p \in In : RoadLength(p) <= RoadLength(longestRoad)

\* C: "longest road unawarded with a unique leader"
LongestRoadUnawardedWithAUniqueLeader ==
    longestRoad = None =>
        ~\E p \in In : RoadLength(p) >= 5 /\
            \A q \in In \ {p} : RoadLength(q) < RoadLength(p)

ArmyLeaders(S) == {p \in S : \A q \in S : knights[q] <= knights[p]}

\* C: "largest army unawarded": nobody has 3 knights, or, after the
\* expulsion of its holder, the seats still in are tied at the top
LargestArmyUnawarded ==
    largestArmy = None =>
        \A p \in In : knights[p] < 3
                     \/ (out # {} /\ Cardinality(ArmyLeaders(In)) > 1)

\* C: "largest army holder outnumbered"
LargestArmyHolderOutnumbered ==
    largestArmy # None => \A p \in In : knights[p] <= knights[largestArmy]

\* C: "largest army holder's knights"
LargestArmyHoldersKnights == largestArmy # None => knights[largestArmy] >= 3

\* C: "phase"
PhaseKnown == phase \in Phases

\* C: "active player"
ActivePlayer == active \in Players

\* C: "robber tile"
RobberTile == robber \in Land \cup {None}

\* C: "winner set iff game over"
WinnerSetIffGameOver == (phase = "over") <=> (winner # None)

\* C: "winner's victory points": the winner reached the target, or is
\* the one seat left in
WinnersVictoryPoints ==
    winner # None => TotalVP(winner) >= VpTarget \/ In = {winner}

\* C: "stale resume phase"
StaleResumePhase == phase \notin {"discard", "robber", "offer"} => resume = "setup"

\* ---- Fair dice (spec/replication.md, "Fair dice") ----
\* The C state holds a request waiting in the phase "reveal": the dice
\* mode (dice), who asked (requester), who still owes a reveal (waiting),
\* the phase it was asked in (fairPhase), the action asked for (reqKind)
\* and the outcomes so far (events). This module's Next does not play
\* fair dice (spec/replication.pml has the commit-reveal); the
\* invariants are stated over those fields, passed in.
FairKinds == {"roll", "buy", "robber", "knight"}

\* C: "reveal phase outside fair dice"
RevealPhaseOutsideFairDice(dice) == phase = "reveal" => dice = "fair"

\* C: "requester"
Requester(requester) == phase = "reveal" => requester \in Players

\* C: "reveals owed by requester or nobody"
RevealsOwedByRequesterOrNobody(requester, waiting) ==
    phase = "reveal" => waiting \subseteq Players \ {requester}

\* C: "requested action"
RequestedAction(reqKind) == phase = "reveal" => reqKind \in FairKinds

\* C: "phase of the request"
PhaseOfTheRequest(fairPhase) ==
    phase = "reveal" => fairPhase \in Phases \ {"reveal", "over"}

\* C: "reveal owed by an expelled seat" (a request waits for the
\* seats still in: the expulsion of one it waits for drops it from
\* waiting, that of the requester drops the request)
RevealOwedByAnExpelledSeat(waiting) == waiting \cap out = {}

\* C: "request outside the reveal phase"
RequestOutsideTheRevealPhase(requester, waiting) ==
    phase # "reveal" => requester = None /\ waiting = {}

\* C: "chance outcomes counted outside fair dice"
ChanceOutcomesCountedOutsideFairDice(dice, events) ==
    events > 0 => dice = "fair"

\* C: "players owing discards outside discard phase"
PlayersOwingDiscardsOutsideDiscardPhase ==
    (phase = "discard") <=> (\E p \in Players : discard[p] > 0)

\* C: "pending offer parties"
PendingOfferParties ==
    phase = "offer" =>
        /\ offerFrom \in Players /\ offerTo \in Players
        /\ offerFrom # offerTo
        /\ active \in {offerFrom, offerTo}

\* C: "offer parties outside an offer"
OfferPartiesOutsideAnOffer ==
    phase # "offer" => offerFrom = None /\ offerTo = None

\* C: "special building option with players"
SpecialBuildingOptionWithPlayers == SpecialBuild = 1 => N > MaxPlayersBase

\* C: "special building phase's builder"
SpecialBuildingPhasesBuilder ==
    phase = "special" =>
        SpecialBuild = 1 /\ builder \in Players /\ builder # active

\* C: "builder outside a special building phase"
BuilderOutsideASpecialBuildingPhase == phase # "special" => builder = None

\* C: "set-up settlements": step k, each player placed its share so far
\* (an expelled seat missed its steps from its expulsion on)
SetUpSettlements ==
    phase = "setup" => \A p \in Players :
        LET placed == (IF setupStep > p THEN 1 ELSE 0)
                      + (IF setupStep > 2 * N - 1 - p THEN 1 ELSE 0)
        IN \/ Cardinality(settlements[p]) = placed
           \/ p \in out /\ Cardinality(settlements[p]) < placed

\* ---- Expelled seats (spec/rules.md "Expelled seats", invariant 11) ----
\* Seats of the game, at least one still in, holding no card, owing
\* nothing, holding no trophy, never the one to act.

\* C: "expelled seats that nobody plays"
ExpelledSeatsThatNobodyPlays == out \subseteq Players

\* C: "every seat expelled"
EverySeatExpelled == out # Players

\* C: "resource cards of an expelled seat"
ResourceCardsOfAnExpelledSeat == \A p \in out : Cards(p) = 0

\* C: "development cards of an expelled seat"
DevelopmentCardsOfAnExpelledSeat ==
    \A p \in out : \A d \in DevKinds : devs[p][d] = 0

\* C: "discard owed by an expelled seat"
DiscardOwedByAnExpelledSeat == \A p \in out : discard[p] = 0

\* C: "trophy held by an expelled seat"
TrophyHeldByAnExpelledSeat == longestRoad \notin out /\ largestArmy \notin out

\* C: "expelled seat as winner"
ExpelledSeatAsWinner == winner \notin out

\* C: "expelled seat still to act": neither the active seat (in a
\* special building phase it only marks whose turn ended, and may be
\* out), the builder, nor a party to an offer (nor a fair-dice request's
\* requester: RevealOwedByAnExpelledSeat has the request's fields)
ExpelledSeatStillToAct ==
    phase # "over" =>
        /\ phase # "special" => active \notin out
        /\ builder \notin out
        /\ offerFrom \notin out /\ offerTo \notin out

Invariants ==
    /\ TypeOK /\ PlayerCount /\ CardsInPlay /\ KnightsPlayed
    /\ VictoryPointCardsPlayed /\ DevCards /\ CardsBoughtThisTurn
    /\ CardCount /\ SettlementsOnBoardAndInSupply /\ CitiesOnBoardAndInSupply
    /\ RoadsOnBoardAndInSupply /\ VerticesHoldingTwoBuildings
    /\ EdgesHoldingTwoRoads /\ RoadOffTheBoard /\ CachedRoadReach
    /\ RoadsNotConnectedToOwnBuildings /\ CachedLongestRoad
    /\ HarbourAccessBits /\ PublicVictoryPoints
    /\ ActivePlayerAtTargetButNotWon /\ PiecesOfASeatNobodyPlays
    /\ CachedBuildingAtVertex /\ CachedOccupiedVertices /\ CachedRoadSet
    /\ BuildingOffTheBoard /\ DistanceRuleBrokenAtVertex
    /\ CachedBlockedVertices /\ LongestRoadHoldersLength
    /\ LongestRoadUnawardedWithAUniqueLeader /\ LargestArmyUnawarded
    /\ LargestArmyHolderOutnumbered /\ LargestArmyHoldersKnights
    /\ PhaseKnown /\ ActivePlayer /\ RobberTile /\ WinnerSetIffGameOver
    /\ StaleResumePhase /\ PlayersOwingDiscardsOutsideDiscardPhase
    /\ PendingOfferParties /\ OfferPartiesOutsideAnOffer
    /\ SpecialBuildingOptionWithPlayers /\ SpecialBuildingPhasesBuilder
    /\ BuilderOutsideASpecialBuildingPhase /\ SetUpSettlements
    /\ WinnersVictoryPoints /\ ExpelledSeatsThatNobodyPlays
    /\ EverySeatExpelled /\ ResourceCardsOfAnExpelledSeat
    /\ DevelopmentCardsOfAnExpelledSeat /\ DiscardOwedByAnExpelledSeat
    /\ TrophyHeldByAnExpelledSeat /\ ExpelledSeatAsWinner
    /\ ExpelledSeatStillToAct

-----------------------------------------------------------------------------
(* The initial state *)

Init ==
    /\ hand = [p \in Players |-> [r \in Resources |-> 0]]
    /\ devs = [p \in Players |-> [d \in DevKinds |-> 0]]
    /\ knights = [p \in Players |-> 0]
    /\ settlements = [p \in Players |-> {}]
    /\ cities = [p \in Players |-> {}]
    /\ roads = [p \in Players |-> {}]
    /\ settlementsLeft = [p \in Players |-> Settlements]
    /\ citiesLeft = [p \in Players |-> Cities]
    /\ roadsLeft = [p \in Players |-> Roads]
    /\ bank = [r \in Resources |-> ResTotal]
    /\ deck = [d \in DevKinds |-> DevStart(d)]
    /\ played = [d \in DevKinds |-> 0]
    /\ bought = [d \in DevKinds |-> 0]
    /\ robber = RobberStart
    /\ phase = "setup" /\ resume = "setup"
    /\ active = 0 /\ builder = None /\ winner = None
    /\ discard = [p \in Players |-> 0]
    /\ offerFrom = None /\ offerTo = None
    /\ offerGive = [r \in Resources |-> 0] /\ offerGet = [r \in Resources |-> 0]
    /\ offers = 0 /\ devPlayed = FALSE
    /\ longestRoad = None /\ largestArmy = None
    /\ setupStep = 0 /\ dice = <<0, 0>>
    /\ out = {}

-----------------------------------------------------------------------------
(* Trophies and victory after an action *)

(* The longest road among the seats S still in (an expelled seat's    *)
(* roads win nothing).                                                  *)
AwardedAmong(lr, S) ==
    LET best == Max({RoadLength(p) : p \in S})
        leaders == {p \in S : RoadLength(p) = best}
    IN IF lr # None /\ RoadLength(lr) >= 5 /\ RoadLength(lr) = best THEN lr
       ELSE IF best >= 5 /\ Cardinality(leaders) = 1
            THEN CHOOSE p \in leaders : TRUE
            ELSE None
Awarded(lr) == AwardedAmong(lr, In)

(* The largest army after the expulsion of its holder: the one seat of *)
(* S with the most knights, 3 or more; a tie takes nothing.             *)
ArmyAmong(S) ==
    LET top == ArmyLeaders(S)
    IN IF Cardinality(top) = 1 /\ knights[CHOOSE p \in top : TRUE] >= 3
       THEN CHOOSE p \in top : TRUE ELSE None

Pay(p, cost) == [hand EXCEPT ![p] = [r \in Resources |-> @[r] - cost[r]]]
CanPay(p, cost) == \A r \in Resources : hand[p][r] >= cost[r]
Cost(l, b, w, g, o) ==
    [r \in Resources |-> CASE r = "lumber" -> l [] r = "brick" -> b
                           [] r = "wool" -> w [] r = "grain" -> g
                           [] OTHER -> o]
RoadCost == Cost(1, 1, 0, 0, 0)
SettlementCost == Cost(1, 1, 1, 1, 0)
CityCost == Cost(0, 0, 0, 2, 3)
DevCost == Cost(0, 0, 1, 1, 1)
Refund(cost) == [r \in Resources |-> bank[r] + cost[r]]

BuildPhase == IF Classic THEN "build" ELSE "main"
TradePhase == IF Classic THEN "trade" ELSE "main"
CanBuild(p) ==
    (phase \in {BuildPhase, "main"} /\ p = active) \/ (phase = "special" /\ p = builder)

-----------------------------------------------------------------------------
(* Actions: one per action of spec/actions.md; p is the commit's author. *)

Setup(p, v, e) ==
    /\ phase = "setup" /\ MayAct(p)
    /\ v \in Vertices \ Blocked /\ e \in Edges \ RoadSet /\ v \in Ends(e)
    /\ settlements' = [settlements EXCEPT ![p] = @ \cup {v}]
    /\ roads' = [roads EXCEPT ![p] = @ \cup {e}]
    /\ settlementsLeft' = [settlementsLeft EXCEPT ![p] = @ - 1]
    /\ roadsLeft' = [roadsLeft EXCEPT ![p] = @ - 1]
    \* the second settlement pays one card per producing tile around it
    /\ LET pays == {t \in Land : v \in TileVertices(t) /\ Produces(t) # None}
           gain(r) == IF setupStep >= N
                      THEN Cardinality({t \in pays : Produces(t) = r}) ELSE 0
       IN /\ hand' = [hand EXCEPT ![p] = [r \in Resources |-> @[r] + gain(r)]]
          /\ bank' = [r \in Resources |-> bank[r] - gain(r)]
    \* the next step whose seat is still in; after the last, the first
    \* turn, of the first seat still in
    /\ LET k == SkipSetup(setupStep + 1, out)
       IN /\ setupStep' = k
          /\ phase' = IF k = 2 * N THEN "roll" ELSE "setup"
          /\ active' = IF k = 2 * N THEN FirstIn(out) ELSE SetupSeat(k)
    /\ longestRoad' = longestRoad
    /\ UNCHANGED <<out, devs, knights, cities, citiesLeft, deck, played, bought,
                   robber, resume, builder, winner, discard, offerFrom,
                   offerTo, offerGive, offerGet, offers, devPlayed, largestArmy,
                   dice>>

(* Production: bank shortage per resource pays nobody, unless only one *)
(* player is owed it, who gets what is left. An expelled seat's       *)
(* buildings produce nothing.                                           *)
Owed(r, s) ==
    [p \in Players |-> IF p \in out THEN 0 ELSE
        Sum([t \in {t \in Land : Token(t) = s /\ t # robber /\ Produces(t) = r} |->
                Cardinality(TileVertices(t) \cap settlements[p])
                + 2 * Cardinality(TileVertices(t) \cap cities[p])],
            {t \in Land : Token(t) = s /\ t # robber /\ Produces(t) = r})]
Paid(r, s) ==
    LET owed == Owed(r, s)
        owing == {p \in Players : owed[p] > 0}
    IN IF Sum(owed, Players) <= bank[r] THEN owed
       ELSE IF Cardinality(owing) = 1
            THEN [p \in Players |-> IF p \in owing THEN bank[r] ELSE 0]
            ELSE [p \in Players |-> 0]

Roll(p, d1, d2) ==
    /\ phase = "roll" /\ MayAct(p)
    /\ d1 \in 1 .. 6 /\ d2 \in 1 .. 6  \* two dice: the sum is triangular
    /\ dice' = <<d1, d2>>
    /\ IF d1 + d2 = 7
       THEN LET owe == [q \in Players |-> IF Cards(q) > 7 THEN Cards(q) \div 2 ELSE 0]
            IN /\ discard' = owe
               /\ phase' = IF \E q \in Players : owe[q] > 0 THEN "discard" ELSE "robber"
               /\ resume' = TradePhase
               /\ UNCHANGED <<hand, bank>>
       ELSE /\ hand' = [q \in Players |-> [r \in Resources |->
                            hand[q][r] + Paid(r, d1 + d2)[q]]]
            /\ bank' = [r \in Resources |-> bank[r] - Sum(Paid(r, d1 + d2), Players)]
            /\ phase' = TradePhase
            /\ UNCHANGED <<discard, resume>>
    /\ UNCHANGED <<out, devs, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, deck, played, bought, robber, active,
                   builder, winner, offerFrom, offerTo, offerGive, offerGet,
                   offers, devPlayed, longestRoad, largestArmy, setupStep>>

(* The concurrent discards: every owing player acts on the 7-roll state; *)
(* they touch disjoint hands, so any order gives the same state (the    *)
(* replication layer merges them: spec/replication.tla).                *)
Discard(p, give) ==
    /\ phase = "discard" /\ MayAct(p)
    /\ give \in [Resources -> 0 .. 24]
    /\ Sum(give, Resources) = discard[p] /\ CanPay(p, give)
    /\ hand' = Pay(p, give)
    /\ bank' = Refund(give)
    /\ discard' = [discard EXCEPT ![p] = 0]
    /\ phase' = IF \E q \in Opponents(p) : discard[q] > 0 THEN "discard" ELSE "robber"
    /\ UNCHANGED <<out, devs, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, deck, played, bought, robber, resume,
                   active, builder, winner, offerFrom, offerTo, offerGive,
                   offerGet, offers, devPlayed, longestRoad, largestArmy,
                   setupStep, dice>>

(* The robber goes to any other land tile (the desert too); the victim, *)
(* if any, has a building there; nobody is named only when nobody there *)
(* holds a card.                                                        *)
OnTile(t) == {q \in Players : TileVertices(t) \cap (settlements[q] \cup cities[q]) # {}}
Rob(p, t, victim, r) ==
    /\ t \in Land /\ t # robber
    /\ \/ /\ victim = None
          /\ \A q \in OnTile(t) \ {p} : Cards(q) = 0
          /\ UNCHANGED hand
       \/ /\ victim \in OnTile(t) \ {p}
          /\ IF Cards(victim) = 0 THEN UNCHANGED hand
             ELSE /\ r \in Resources /\ hand[victim][r] > 0
                  /\ hand' = [hand EXCEPT ![victim][r] = @ - 1, ![p][r] = @ + 1]
    /\ robber' = t

Robber(p, t, victim, r) ==
    /\ phase = "robber" /\ MayAct(p)
    /\ Rob(p, t, victim, r)
    /\ phase' = resume /\ resume' = "setup"
    /\ UNCHANGED <<out, devs, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, bank, deck, played, bought, active,
                   builder, winner, discard, offerFrom, offerTo, offerGive,
                   offerGet, offers, devPlayed, longestRoad, largestArmy,
                   setupStep, dice>>

Win(p) ==
    IF phase # "special" /\ p = active /\ TotalVP(p) >= VpTarget
    THEN phase' = "over" /\ winner' = p
    ELSE UNCHANGED <<phase, winner>>

BuildRoad(p, e) ==
    /\ CanBuild(p) /\ MayAct(p) /\ roadsLeft[p] > 0 /\ CanPay(p, RoadCost)
    /\ e \in Edges \ RoadSet
    /\ \E v \in Ends(e) : v \in settlements[p] \cup cities[p]
                          \/ (v \in Reach(p) /\ v \notin OpponentBuildings(p))
    /\ roads' = [roads EXCEPT ![p] = @ \cup {e}]
    /\ roadsLeft' = [roadsLeft EXCEPT ![p] = @ - 1]
    /\ hand' = Pay(p, RoadCost) /\ bank' = Refund(RoadCost)
    /\ longestRoad' = Awarded(longestRoad)
    /\ UNCHANGED <<out, devs, knights, settlements, cities, settlementsLeft,
                   citiesLeft, deck, played, bought, robber, resume, active,
                   builder, winner, phase, discard, offerFrom, offerTo,
                   offerGive, offerGet, offers, devPlayed, largestArmy,
                   setupStep, dice>>

BuildSettlement(p, v) ==
    /\ CanBuild(p) /\ MayAct(p) /\ settlementsLeft[p] > 0
    /\ CanPay(p, SettlementCost)
    /\ v \in (Vertices \ Blocked) \cap Reach(p)
    /\ settlements' = [settlements EXCEPT ![p] = @ \cup {v}]
    /\ settlementsLeft' = [settlementsLeft EXCEPT ![p] = @ - 1]
    /\ hand' = Pay(p, SettlementCost) /\ bank' = Refund(SettlementCost)
    /\ longestRoad' = Awarded(longestRoad) \* it may cut an opponent's road
    /\ Win(p)
    /\ UNCHANGED <<out, devs, knights, roads, cities, roadsLeft, citiesLeft, deck,
                   played, bought, robber, resume, active, builder, discard,
                   offerFrom, offerTo, offerGive, offerGet, offers, devPlayed,
                   largestArmy, setupStep, dice>>

BuildCity(p, v) ==
    /\ CanBuild(p) /\ MayAct(p) /\ citiesLeft[p] > 0 /\ CanPay(p, CityCost)
    /\ v \in settlements[p]
    /\ settlements' = [settlements EXCEPT ![p] = @ \ {v}]
    /\ cities' = [cities EXCEPT ![p] = @ \cup {v}]
    /\ settlementsLeft' = [settlementsLeft EXCEPT ![p] = @ + 1]
    /\ citiesLeft' = [citiesLeft EXCEPT ![p] = @ - 1]
    /\ hand' = Pay(p, CityCost) /\ bank' = Refund(CityCost)
    /\ Win(p)
    /\ UNCHANGED <<out, devs, knights, roads, roadsLeft, deck, played, bought,
                   robber, resume, active, builder, discard, offerFrom,
                   offerTo, offerGive, offerGet, offers, devPlayed,
                   longestRoad, largestArmy, setupStep, dice>>

BuyDev(p, d) ==
    /\ CanBuild(p) /\ MayAct(p) /\ CanPay(p, DevCost) /\ deck[d] > 0
    /\ devs' = [devs EXCEPT ![p][d] = @ + 1]
    /\ deck' = [deck EXCEPT ![d] = @ - 1]
    \* bought this turn is the active player's bookkeeping only
    /\ bought' = IF p = active THEN [bought EXCEPT ![d] = @ + 1] ELSE bought
    /\ hand' = Pay(p, DevCost) /\ bank' = Refund(DevCost)
    /\ Win(p)
    /\ UNCHANGED <<out, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, played, robber, resume, active,
                   builder, discard, offerFrom, offerTo, offerGive, offerGet,
                   offers, devPlayed, longestRoad, largestArmy, setupStep, dice>>

(* A card: one per turn, not one bought this turn, in the player's own *)
(* turn (before the roll too), never in discards, robber or an offer.  *)
CanPlay(p, d) ==
    /\ p = active /\ MayAct(p) /\ ~devPlayed
    /\ phase \in {"roll", "main", "trade", "build"}
    /\ devs[p][d] - bought[d] > 0
Played(p, d) ==
    /\ devs' = [devs EXCEPT ![p][d] = @ - 1]
    /\ played' = [played EXCEPT ![d] = @ + 1]
    /\ devPlayed' = TRUE

PlayKnight(p, t, victim, r) ==
    /\ CanPlay(p, "knight") /\ Played(p, "knight")
    /\ Rob(p, t, victim, r)
    /\ knights' = [knights EXCEPT ![p] = @ + 1]
    \* unawarded, it goes to p alone above every other seat still in (after
    \* an expulsion the others may be tied above 3)
    /\ largestArmy' =
        IF knights[p] + 1 >= 3 /\ largestArmy # p
           /\ IF largestArmy = None
              THEN \A q \in In \ {p} : knights[q] < knights[p] + 1
              ELSE knights[p] + 1 > knights[largestArmy]
        THEN p ELSE largestArmy
    /\ UNCHANGED <<out, settlements, cities, roads, settlementsLeft, citiesLeft,
                   roadsLeft, bank, deck, bought, phase, resume, active,
                   builder, winner, discard, offerFrom, offerTo, offerGive,
                   offerGet, offers, longestRoad, setupStep, dice>>

PlayRoadBuilding(p, e1, e2) ==
    /\ CanPlay(p, "road-building") /\ Played(p, "road-building")
    /\ e1 \in Edges \ RoadSet /\ roadsLeft[p] > 0
    /\ \E v \in Ends(e1) : v \in settlements[p] \cup cities[p]
                           \/ (v \in Reach(p) /\ v \notin OpponentBuildings(p))
    /\ LET two == e2 # None
       IN /\ two => (e2 \in Edges \ (RoadSet \cup {e1}) /\ roadsLeft[p] > 1)
          /\ roads' = [roads EXCEPT ![p] = @ \cup {e1} \cup (IF two THEN {e2} ELSE {})]
          /\ roadsLeft' = [roadsLeft EXCEPT ![p] = @ - (IF two THEN 2 ELSE 1)]
    /\ longestRoad' = Awarded(longestRoad)
    /\ UNCHANGED <<out, hand, knights, settlements, cities, settlementsLeft,
                   citiesLeft, bank, deck, bought, robber, phase, resume,
                   active, builder, winner, discard, offerFrom, offerTo,
                   offerGive, offerGet, offers, largestArmy, setupStep, dice>>

PlayYearOfPlenty(p, r1, r2) ==
    /\ CanPlay(p, "year-of-plenty") /\ Played(p, "year-of-plenty")
    /\ bank[r1] > 0 /\ (r2 # None => bank[r2] - (IF r1 = r2 THEN 1 ELSE 0) > 0)
    /\ hand' = [hand EXCEPT ![p][r1] = @ + 1 + (IF r2 = r1 THEN 1 ELSE 0)]
    /\ UNCHANGED <<out, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, deck, bought, robber, phase, resume,
                   active, builder, winner, discard, offerFrom, offerTo,
                   offerGive, offerGet, offers, longestRoad, largestArmy,
                   setupStep, dice, bank>>

PlayMonopoly(p, r) ==
    /\ CanPlay(p, "monopoly") /\ Played(p, "monopoly")
    /\ hand' = [q \in Players |-> IF q = p
                    THEN [hand[p] EXCEPT ![r] = Sum([x \in Players |-> hand[x][r]], Players)]
                    ELSE [hand[q] EXCEPT ![r] = 0]]
    /\ UNCHANGED <<out, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, bank, deck, bought, robber, phase,
                   resume, active, builder, winner, discard, offerFrom,
                   offerTo, offerGive, offerGet, offers, longestRoad,
                   largestArmy, setupStep, dice>>

Rate(p, r) ==
    IF r \in Harbours(p) THEN 2 ELSE IF "generic" \in Harbours(p) THEN 3 ELSE 4

TradeBank(p, r, n, r2) ==
    /\ phase = TradePhase /\ MayAct(p) /\ r # r2
    /\ n \in {2, 3, 4} /\ n >= Rate(p, r)
    /\ (n = 4 \/ (n = 3 /\ "generic" \in Harbours(p)) \/ (n = 2 /\ r \in Harbours(p)))
    /\ hand[p][r] >= n /\ bank[r2] > 0
    /\ hand' = [hand EXCEPT ![p][r] = @ - n, ![p][r2] = @ + 1]
    /\ bank' = [bank EXCEPT ![r] = @ + n, ![r2] = @ - 1]
    /\ UNCHANGED <<out, devs, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, deck, played, bought, robber, phase,
                   resume, active, builder, winner, discard, offerFrom,
                   offerTo, offerGive, offerGet, offers, devPlayed,
                   longestRoad, largestArmy, setupStep, dice>>

(* Domestic trade: the active player and one other; the target answers, *)
(* or counters to the active player (a counter-offer is an offer).      *)
TradeOffer(p, q, give, get) ==
    /\ \/ phase = TradePhase /\ p = active
       \/ phase = "offer" /\ p = offerTo /\ q = offerFrom
    /\ MayAct(p) /\ q \in Opponents(p) \ out /\ active \in {p, q}
    /\ Sum(give, Resources) > 0 /\ Sum(get, Resources) > 0
    /\ \A r \in Resources : give[r] = 0 \/ get[r] = 0
    /\ CanPay(p, give)
    /\ OfferLimit = 0 \/ offers < OfferLimit
    /\ offers' = offers + 1
    /\ offerFrom' = p /\ offerTo' = q /\ offerGive' = give /\ offerGet' = get
    /\ phase' = "offer"
    /\ resume' = IF phase = "offer" THEN resume ELSE phase
    /\ UNCHANGED <<out, hand, devs, knights, settlements, cities, roads,
                   settlementsLeft, citiesLeft, roadsLeft, bank, deck, played,
                   bought, robber, active, builder, winner, discard, devPlayed,
                   longestRoad, largestArmy, setupStep, dice>>

CloseOffer ==
    /\ offerFrom' = None /\ offerTo' = None
    /\ phase' = resume /\ resume' = "setup"

TradeAccept(p) ==
    /\ phase = "offer" /\ MayAct(p) /\ CanPay(p, offerGet)
    /\ hand' = [hand EXCEPT
                  ![offerFrom] = [r \in Resources |-> @[r] - offerGive[r] + offerGet[r]],
                  ![p] = [r \in Resources |-> @[r] + offerGive[r] - offerGet[r]]]
    /\ CloseOffer
    /\ UNCHANGED <<out, devs, knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, bank, deck, played, bought, robber,
                   active, builder, winner, discard, offerGive, offerGet,
                   offers, devPlayed, longestRoad, largestArmy, setupStep, dice>>

TradeReject(p) ==
    /\ phase = "offer" /\ MayAct(p)
    /\ CloseOffer
    /\ UNCHANGED <<out, hand, devs, knights, settlements, cities, roads,
                   settlementsLeft, citiesLeft, roadsLeft, bank, deck, played,
                   bought, robber, active, builder, winner, discard, offerGive,
                   offerGet, offers, devPlayed, longestRoad, largestArmy,
                   setupStep, dice>>

EndTrade(p) ==
    /\ Classic /\ phase = "trade" /\ MayAct(p)
    /\ phase' = "build"
    /\ UNCHANGED <<out, hand, devs, knights, settlements, cities, roads,
                   settlementsLeft, citiesLeft, roadsLeft, bank, deck, played,
                   bought, robber, resume, active, builder, winner, discard,
                   offerFrom, offerTo, offerGive, offerGet, offers, devPlayed,
                   longestRoad, largestArmy, setupStep, dice>>

(* End of turn; with the special building phase each other player builds *)
(* in turn before the next turn begins. A player at the target wins when *)
(* its own turn begins. Expelled seats are skipped.                    *)
NextTurn(n) ==
    /\ active' = n /\ builder' = None
    /\ bought' = [d \in DevKinds |-> 0] /\ devPlayed' = FALSE /\ offers' = 0
    /\ IF TotalVP(n) >= VpTarget
       THEN phase' = "over" /\ winner' = n
       ELSE phase' = "roll" /\ winner' = None

(* The special building phase's next builder after b: the next seat  *)
(* not in o, or, back at the active seat (out or not), nobody.          *)
NextBuilder(b, o) ==
    LET ks == {k \in 1 .. N : (b + k) % N = active \/ (b + k) % N \notin o}
    IN (b + Min(ks)) % N

End(p) ==
    /\ MayAct(p)
    /\ \/ /\ phase = BuildPhase /\ p = active
          /\ IF SpecialBuild = 1
             THEN /\ phase' = "special" /\ builder' = NextIn(active, out)
                  /\ UNCHANGED <<active, bought, devPlayed, offers, winner>>
             ELSE NextTurn(NextIn(active, out))
       \/ /\ phase = "special" /\ p = builder
          /\ IF NextBuilder(builder, out) = active
             THEN NextTurn(NextIn(active, out))
             ELSE /\ builder' = NextBuilder(builder, out)
                  /\ UNCHANGED <<phase, active, bought, devPlayed, offers, winner>>
    /\ UNCHANGED <<out, hand, devs, knights, settlements, cities, roads,
                   settlementsLeft, citiesLeft, roadsLeft, bank, deck, played,
                   robber, resume, discard, offerFrom, offerTo, offerGive,
                   offerGet, longestRoad, largestArmy, setupStep, dice>>

(* Expulsion (spec/rules.md "Expelled seats", spec/actions.md `expel`): *)
(* p expels e, a seat proven to have equivocated. The proof (two        *)
(* different children of one commit, both signed by e) is the store's,  *)
(* not the game's: spec/replication.md "Equivocation" and "Expulsion",  *)
(* spec/replication.pml. Here, as in rules.c's do_expel: e, still in,   *)
(* is the only seat that may act, and p, still in, is the seat that     *)
(* acts next once e is out (the winner when p is the last seat left).   *)
(* e's resource cards go to the bank, its unplayed development cards to *)
(* the deck, its trophies to whoever of the others leads alone; then   *)
(* the game goes on as if e had done the least it could, phase by      *)
(* phase (rules.c's expel_step): a set-up step is skipped; the builder *)
(* of a special building phase passes; an offer to e is rejected; e's  *)
(* discard is dropped; e's own turn (after that offer or discard too)  *)
(* ends as End ends it. With one seat left, that seat wins. A seat the *)
(* new turn begins with wins at the target, as with End. (Fair dice,    *)
(* which Next does not play: a reveal e owes is dropped, a request by  *)
(* e is dropped and the phase it was made in resumes.)                  *)
Expel(p, e) ==
    LET o == out \cup {e}
        left == Players \ o
        lr == IF longestRoad = e THEN AwardedAmong(None, left) ELSE longestRoad
        la == IF largestArmy = e THEN ArmyAmong(left) ELSE largestArmy
        vp(q) == Cardinality(settlements[q]) + 2 * Cardinality(cities[q])
                 + (IF lr = q THEN 2 ELSE 0) + (IF la = q THEN 2 ELSE 0)
                 + devs[q]["victory-point"]
        NoCards == [d \in DevKinds |-> 0]
        \* a turn begins for n (NextTurn, with the trophies recounted)
        Begin(n) ==
            /\ active' = n /\ builder' = None /\ resume' = "setup"
            /\ bought' = NoCards /\ devPlayed' = FALSE /\ offers' = 0
            /\ IF vp(n) >= VpTarget
               THEN phase' = "over" /\ winner' = n
               ELSE phase' = "roll" /\ winner' = None
    IN
    /\ phase # "over"
    /\ e \in In /\ p \in In /\ p # e
    /\ \A q \in Players : MayAct(q) <=> q = e
    /\ hand' = [hand EXCEPT ![e] = [r \in Resources |-> 0]]
    /\ bank' = [r \in Resources |-> bank[r] + hand[e][r]]
    /\ devs' = [devs EXCEPT ![e] = [d \in DevKinds |-> 0]]
    /\ deck' = [d \in DevKinds |-> deck[d] + devs[e][d]]
    /\ out' = o
    /\ longestRoad' = lr /\ largestArmy' = la
    \* only e may act: in a discard phase e alone owes
    /\ discard' = [q \in Players |-> 0]
    /\ IF Cardinality(left) = 1
       THEN \* one seat left: it wins, nothing is pending any more
            /\ phase' = "over" /\ winner' = CHOOSE q \in left : TRUE
            /\ resume' = "setup" /\ builder' = None
            /\ offerFrom' = None /\ offerTo' = None
            /\ bought' = IF active = e THEN NoCards ELSE bought
            /\ UNCHANGED <<active, setupStep, devPlayed, offers>>
       ELSE IF phase = "setup"
       THEN \* e's set-up steps are skipped
            LET k == SkipSetup(setupStep + 1, o)
            IN /\ setupStep' = k
               /\ IF k = 2 * N THEN Begin(FirstIn(o))
                  ELSE /\ active' = SetupSeat(k)
                       /\ UNCHANGED <<phase, resume, builder, winner, bought,
                                      devPlayed, offers>>
               /\ UNCHANGED <<offerFrom, offerTo>>
       ELSE IF phase = "special"
       THEN \* e, the builder, passes (the active seat may be out)
            /\ IF NextBuilder(builder, o) = active
               THEN Begin(NextIn(active, o))
               ELSE /\ builder' = NextBuilder(builder, o)
                    /\ UNCHANGED <<phase, resume, active, winner, bought,
                                   devPlayed, offers>>
            /\ UNCHANGED <<setupStep, offerFrom, offerTo>>
       ELSE IF phase \in {"offer", "discard"} /\ active # e
       THEN \* the offer to e is rejected; e's discard is dropped
            /\ phase' = IF phase = "offer" THEN resume ELSE "robber"
            /\ resume' = IF phase = "offer" THEN "setup" ELSE resume
            /\ offerFrom' = None /\ offerTo' = None
            /\ UNCHANGED <<active, builder, winner, setupStep, bought,
                           devPlayed, offers>>
       ELSE \* e's own turn ends, as End ends it
            /\ offerFrom' = None /\ offerTo' = None
            /\ UNCHANGED setupStep
            /\ IF SpecialBuild = 1
               THEN /\ phase' = "special" /\ builder' = NextIn(active, o)
                    /\ resume' = "setup" /\ bought' = NoCards
                    /\ UNCHANGED <<active, winner, devPlayed, offers>>
               ELSE Begin(NextIn(active, o))
    \* p is the seat that acts next in the result
    /\ p = IF phase' = "over" THEN winner' ELSE NextActor'
    /\ UNCHANGED <<knights, settlements, cities, roads, settlementsLeft,
                   citiesLeft, roadsLeft, played, robber, offerGive, offerGet,
                   dice>>

Next ==
    \E p \in Players :
        \/ \E v \in Vertices, e \in Edges : Setup(p, v, e)
        \/ \E d1, d2 \in 1 .. 6 : Roll(p, d1, d2)
        \/ \E give \in [Resources -> 0 .. 12] : Discard(p, give)
        \/ \E t \in Land, v \in Players \cup {None}, r \in Resources :
              Robber(p, t, v, r) \/ PlayKnight(p, t, v, r)
        \/ \E e \in Edges : BuildRoad(p, e)
        \/ \E v \in Vertices : BuildSettlement(p, v) \/ BuildCity(p, v)
        \/ \E d \in DevKinds : BuyDev(p, d)
        \/ \E e1 \in Edges, e2 \in Edges \cup {None} : PlayRoadBuilding(p, e1, e2)
        \/ \E r1 \in Resources, r2 \in Resources \cup {None} : PlayYearOfPlenty(p, r1, r2)
        \/ \E r \in Resources : PlayMonopoly(p, r)
        \/ \E r, r2 \in Resources, n \in {2, 3, 4} : TradeBank(p, r, n, r2)
        \/ \E q \in Players, give, get \in [Resources -> 0 .. 4] :
              TradeOffer(p, q, give, get)
        \/ TradeAccept(p) \/ TradeReject(p) \/ EndTrade(p) \/ End(p)
        \/ \E e \in Players : Expel(p, e)

Spec == Init /\ [][Next]_vars

THEOREM Spec => []Invariants

(* The discards commute: any two owing players' discards, applied in     *)
(* either order, reach the same state (what the merge relies on).        *)
DiscardsCommute ==
    \A p, q \in Players, gp, gq \in [Resources -> 0 .. 12] :
        (p # q /\ discard[p] > 0 /\ discard[q] > 0) =>
            ([hand EXCEPT ![p] = [r \in Resources |-> @[r] - gp[r]],
                          ![q] = [r \in Resources |-> @[r] - gq[r]]]
             = [hand EXCEPT ![q] = [r \in Resources |-> @[r] - gq[r]],
                            ![p] = [r \in Resources |-> @[r] - gp[r]]])
=============================================================================
