----------------------------- MODULE replication -----------------------------
(***************************************************************************)
(* The replication protocol of spec/replication.md at the level of        *)
(* branches, fetches and verification. The Promela model                  *)
(* (spec/replication.pml) is the one spin checks; this module states the  *)
(* same protocol and properties in TLA+.                                  *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS
    Seats,      \* the players; peer p plays seat p
    Dishonest,  \* a set of at most one seat
    Commits,    \* every commit that can be written (a finite universe)
    Genesis,
    Parents(_), \* a commit's parents
    Author(_), Signer(_),
    Valid(_),   \* the rules core accepts the commit on its parents
    MayAct(_, _) \* MayAct(c, p): p may act in c's state

Honest == Seats \ Dishonest
None == CHOOSE x : x \notin Commits

VARIABLES
    written,   \* commits that exist somewhere
    br,        \* br[p][q]: peer p's copy of branch q
    verdict    \* verdict[p]: the seat a fork proof names, or None

vars == <<written, br, verdict>>

RECURSIVE Ancestors(_)
Ancestors(c) == {c} \cup UNION {Ancestors(x) : x \in Parents(c)}
IsAncestor(a, c) == a \in Ancestors(c)
Comparable(a, b) == IsAncestor(a, b) \/ IsAncestor(b, a)
Known(p) == UNION {Ancestors(br[p][q]) : q \in Seats}

(* Equivocation: two different children of one parent signed by one seat *)
Fork(a, b) ==
    /\ a # b /\ Signer(a) = Signer(b) /\ Author(a) = Signer(a)
    /\ Author(b) = Signer(b) /\ Parents(a) \cap Parents(b) # {}
    /\ Valid(a) /\ Valid(b)

(* What a verifying peer checks on every new commit *)
Verified(c) ==
    /\ Signer(c) = Author(c)
    /\ Valid(c)
    /\ \A x \in Parents(c) : MayAct(x, Author(c))

TypeOK ==
    /\ written \subseteq Commits
    /\ br \in [Seats -> [Seats -> Commits]]
    /\ verdict \in [Seats -> Seats \cup {None}]

Init ==
    /\ written = {Genesis}
    /\ br = [p \in Seats |-> [q \in Seats |-> Genesis]]
    /\ verdict = [p \in Seats |-> None]

(* An honest seat acts on its own branch: a fast-forward. *)
Act(p, c) ==
    /\ p \in Honest /\ verdict[p] = None
    /\ Author(c) = p /\ Signer(c) = p /\ Valid(c)
    /\ Parents(c) \subseteq Known(p)
    /\ \A x \in Parents(c) : MayAct(x, p)
    /\ IsAncestor(br[p][p], c)
    /\ written' = written \cup {c}
    /\ br' = [br EXCEPT ![p][p] = c]
    /\ UNCHANGED verdict

(* The dishonest seat writes anything signed with its own key. *)
Misbehave(c) ==
    /\ Signer(c) \in Dishonest
    /\ Parents(c) \subseteq written
    /\ written' = written \cup {c}
    /\ UNCHANGED <<br, verdict>>

(* Peer p syncs branch q from a remote showing tip t (any written commit *)
(* whose history is written: messages may be stale, lost, duplicated).  *)
Sync(p, q, t) ==
    /\ p \in Honest /\ q # p /\ verdict[p] = None
    /\ t \in written /\ Ancestors(t) \subseteq written
    /\ LET new == Ancestors(t) \ Known(p)
           forks == {c \in new : \E d \in Known(p) \cup new : Fork(c, d)}
       IN IF forks # {}
          THEN /\ verdict' = [verdict EXCEPT ![p] = Signer(CHOOSE c \in forks : TRUE)]
               /\ UNCHANGED <<written, br>>
          ELSE IF IsAncestor(br[p][q], t) /\ \A c \in new : Verified(c)
          THEN /\ br' = [br EXCEPT ![p][q] = t]
               /\ UNCHANGED <<written, verdict>>
          ELSE UNCHANGED vars \* refused (rewritten, invalid) or held back

Next ==
    \/ \E p \in Seats, c \in Commits : Act(p, c)
    \/ \E c \in Commits : Misbehave(c)
    \/ \E p, q \in Seats, t \in Commits : Sync(p, q, t)

Spec == Init /\ [][Next]_vars /\ \A p, q \in Seats, t \in Commits : WF_vars(Sync(p, q, t))

(* Safety *)
NoBadAdopted == \A p \in Honest : \A c \in Known(p) \ {Genesis} : Verified(c)
Equivocated == {s \in Seats : \E a, b \in written : Fork(a, b) /\ Signer(a) = s}
Prefixes ==
    Equivocated = {} =>
        \A p, r \in Honest, q \in Seats : Comparable(br[p][q], br[r][q])
VerdictJust == \A p \in Honest : verdict[p] # None => verdict[p] \in Equivocated
(* The discard merge's tree is a function of the set of its parents *)
MergeOrderIndependent ==
    \A c \in written : Cardinality(Parents(c)) > 1 =>
        \A d \in written : Parents(d) = Parents(c) /\ Author(d) = Author(c)
                           /\ Valid(c) /\ Valid(d) => c = d \/ Fork(c, d)

Safety == TypeOK /\ NoBadAdopted /\ Prefixes /\ VerdictJust

(* Liveness under fair sync: the honest peers converge *)
Converged ==
    \A p, r \in Honest :
        \/ verdict[p] # None /\ verdict[p] = verdict[r]
        \/ verdict[p] = None /\ verdict[r] = None /\ br[p] = br[r]
Converge == <>[]Converged

THEOREM Spec => []Safety
=============================================================================
