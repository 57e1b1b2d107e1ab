/*
 * replication.pml - the replication protocol of spec/replication.md as a
 * Promela model, checked by spin (tests/model/test_spin.sh, make
 * verify-model; README "The formal model").
 *
 * What is modelled
 *   - NP seats (2, 3 or 4), one peer per seat. Peer i owns branch i and
 *     keeps a local copy of every other branch (br[i][j]); only its own
 *     actions move br[i][i], only sync moves the others.
 *   - Commits live in one content-addressed table (a commit written twice
 *     with the same fields is the same commit, as with git ids). Each has
 *     a kind (main action, fan-out child, merge), an author, the seat whose
 *     key signed it (issue 15: signed commits), its parent(s), the event
 *     of the game script it belongs to, a value and a legality bit (the
 *     game itself is abstracted: an action is legal or not).
 *   - The game: a fixed script of events. Event 0 is the genesis; event 1
 *     a rolled 7: the roller's commit, a discard by every owing seat on
 *     its own branch as a child of it, and the roller's merge of all of
 *     them; event 2 a fair random event (spec "Randomness", fair dice):
 *     the acting seat's request carrying its chain value, a reveal by
 *     every other seat as a child of the request, and the acting seat's
 *     completion, a merge of the reveals stating the outcome.
 *   - Sync: a peer sends the snapshot of its branches to another peer
 *     over a channel per ordered pair of peers (capacity CAP). A message
 *     may be lost, duplicated or taken before an older one (reordered),
 *     within a budget of FAULTS faults. The receiver treats each branch of
 *     the snapshot as spec/replication.md steps 2-5 say: behind or equal
 *     ignored, ahead verified (every new commit: signature, legality, who
 *     may act, the discard/merge and request/reveal/completion structure,
 *     the hash chain of a reveal, no fork, on its author's branch at that
 *     remote), then adopted; rewritten refused (with a verdict when the
 *     divergence is an equivocation); an invalid commit quarantined; a
 *     valid commit off its author's branch held back once, refused the
 *     second time it is seen from that remote; a branch whose tip is not
 *     its player's commit (the genesis aside) refused, as src/store does.
 *   - Crashes: a peer may crash between any two of its steps (at most
 *     CRASHES times): what was written but not yet on its branch is lost,
 *     the messages in flight to it are lost; refs are durable (a sync's
 *     branch moves are one atomic step, as the packed-refs rewrite is).
 *   - One dishonest seat DIS (or none: DIS = NONE): it may act honestly,
 *     withhold anything (it never has to act, send or receive), fork (a
 *     second, different child of a parent it already acted on), rewrite
 *     (point its branch anywhere), forge (a commit in another seat's name,
 *     signed with its own key: it cannot sign with another's), commit
 *     illegal actions, wrong or reused reveals, a wrong outcome or a merge
 *     missing a discard. It creates at most BAD commits of its own
 *     choosing and may put any commit it signed on any branch it shows
 *     (SHOW times; relaying what it read from others is not counted).
 *   - Expulsion (EXPEL; spec/replication.md "Equivocation", "Expulsion").
 *     Without it a verdict halts the peer. With it the verdict is a
 *     record (the seat E and its two children of P, vproof) that stops
 *     the game at P: every commit built on a child of P by E is void
 *     (not counted, not adopted), and the branches that held one move
 *     back to their seat's newest commit that is not void. The other
 *     seats' children owed at P still come in; then N, the seat that
 *     acts next with E skipped, writes `expel E` (kind XPEL; parents:
 *     those children, or P alone when E forked an action on P, then the
 *     proof). A peer adopts it only when the proof is two children of P
 *     signed by E, the base is complete and the author is N; it finds
 *     the proof in the commit (a fork an expulsion settles is no failure
 *     and its children need not be on E's branch) and records it. Then
 *     E's branch stands at E's newest commit in P's history and is never
 *     followed; the script goes on without E (its actions pass to the
 *     next seat, it owes nothing). A peer's record travels with its
 *     snapshot (the evidence refs). The dishonest seat may also write
 *     false expulsions (DEVS 16). A sync is atomic as two d_steps, as is
 *     a write with its branch move (spin takes no d_step that long).
 *
 * Properties (assertions, checked in every reachable state)
 *   P1 no honest peer adopts an invalid or forged commit, nor one that
 *      builds on one (tainted[]);
 *   P2 each honest peer's branches form one history (any two tips are on
 *      one line, or sibling children of one fan-out), and while no seat
 *      has equivocated, the honest peers' copies of every branch are
 *      prefixes of one another;
 *   P3 the merge a merger computes in the order the discards (reveals)
 *      arrived equals the one in seat order: the merge is order-independent;
 *   P4 a verdict names only a seat that really signed two children of one
 *      parent, never the relayer;
 *   P5 no seat (in particular the acting seat) can know every other
 *      seat's value for the random event before the request is committed.
 *   With EXPEL:
 *   P6 no honest peer adopts an expulsion whose proof is not two valid
 *      children of its parent signed by the seat it expels;
 *   P7 the honest peers that hold an expulsion expel the same seat, and
 *      (P2 again) their copies of every branch are prefixes of one another;
 *   P8 once an honest peer holds an expulsion of E, it adopts nothing
 *      signed by E (no tip, no new commit), and its copy of E's branch
 *      stands at or before the fork's parent.
 * Liveness (LIVE): under weak fairness every run ends with the honest
 *   peers converged: all hold the same branches, or all reached the same
 *   verdict; and each honest peer has finished the game, or halted on a
 *   verdict, or waits only for the dishonest seat (WAITING says whom).
 *   With EXPEL a verdict halts nobody: converged is the same record and
 *   the same branches, each game over or waiting for the dishonest seat.
 *
 * Reductions (spec/model.md, "The big configuration", argues each):
 *   commit ids are renamed into a canonical order of the commits' content
 *   (CANON); only the merger folds the merge in arrival order; with no
 *   crashes a peer's write and its branch move are one step; a sync is
 *   tried only when it can change something (NEWS, D_READ); a commit of
 *   the dishonest seat that only a show can ever read is written in the
 *   step that shows it (LAZY); a kept snapshot that can bring nothing any
 *   more is dropped (STALE), and a branch of it that can bring nothing
 *   is forgotten (FORGET); the dishonest seat's copy of an honest branch
 *   that every honest peer has passed is forgotten (RELAY); the seat's
 *   write tries only parents on which it can change something (worth).
 *
 * An abstraction (FORGETFUL, off by default; the goal configuration d4
 *   is searched with it: spec/model.md, "The forgetful peers"): the
 *   honest peers keep no memory of the tips they held back or refused
 *   (held, qoff); instead, at every sync, a peer may skip any branch of
 *   the snapshot, as that memory would have made it skip some. Every run
 *   of the model is matched by a run of the abstraction in which every
 *   step does what it did and checks what it checked, so a property that
 *   holds in the abstraction holds in the model (tests/model/test_forgetful.sh
 *   checks that on small configurations, and its mutant M_NOSKIP).
 *
 * Checks of the model itself (tests/model/test_spin.sh): SCRATCH_IN_STATE
 *   (no step depends on a hidden value pan failed to restore), CHECK_STALE,
 *   CHECK_RELAY and CHECK_FORGET (what STALE, RELAY and FORGET rest on),
 *   each with a mutant (M_HIDDEN, M_STALE, M_RELAY, M_FORGET) that must
 *   be caught.
 *
 * Mutants (each must make spin fail; tests/model/test_spin.sh):
 *   M_NOPARENT    adopt after verifying only the tip, not its ancestors
 *   M_NOSIG       accept a commit signed by another seat's key (forgery)
 *   M_EARLYMERGE  accept a merge before all discards are present
 *   M_NOCHAIN     accept a reveal without checking its hash chain
 *   M_FORK        accept a fork's second branch (no fork check)
 *   M_REWRITE     adopt a rewritten branch (no fast-forward check): dead
 *                 code here, REWRITE_DEAD asserts it is never reached
 *   M_ORDER       merge folded in arrival order (not commutative)
 *   M_BLAME       the verdict names the relayer, not the signer
 *   M_EARLYREVEAL honest seats reveal before the request is committed
 *   M_TIPOWNER    adopt a branch whose tip is another seat's commit (what
 *                 src/store did before the fair-dice work)
 *   M_UNFAIR      the last peer is left out of the sync rotation: it never
 *                 fetches (liveness)
 *   M_NOPROOF     (EXPEL) adopt an expulsion without checking its proof
 *   M_FOLLOW      (EXPEL) keep following the expelled seat's branch
 *   M_HIDDEN      the values carried across a choice hidden again (the
 *                 model until 30 November): the state count changes
 *   M_STALE       every kept snapshot called stale (CHECK_STALE fails)
 *   M_RELAY       a relay forgotten when behind some honest peer's copy,
 *                 not every one (CHECK_RELAY's count changes)
 *   M_FORGET      a kept branch forgotten when it is ahead of the peer's
 *                 copy, not behind (CHECK_FORGET fails)
 */

#ifndef NP
#define NP 3
#endif
#ifndef DIS
#define DIS 1
#endif
#ifndef CAP
#define CAP 1
#endif
#ifndef FAULTS
#define FAULTS 1
#endif
#ifndef FORGETFUL
#define FORGETFUL 0
#endif
#if FORGETFUL && (defined(EXPEL) || defined(LIVE))
#error "FORGETFUL (the abstraction of the refusals) is argued without EXPEL and LIVE"
#endif
#if defined(FAULT_AT) && FAULTS > 1
#error "FAULT_AT splits a search by the peer of its one fault: FAULTS must be 1"
#endif
#ifndef CRASHES
#define CRASHES 1
#endif
#ifndef BAD
#define BAD 1
#endif
#ifndef SHOW
#define SHOW 2
#endif
/* The deviations the dishonest seat may choose from (a smaller set makes
 * a smaller configuration, for the mutants): 1 a commit as it is (forged,
 * out of turn), 2 the other choice (a fork) or a wrong value, 4 a reused
 * chain value, 8 an illegal action. */
#ifndef DEVS
#ifdef EXPEL
#define DEVS 31
#else
#define DEVS 15
#endif
#endif

#if defined(DEV_AUTHOR) && (DEVS != 1 || BAD != 1 || DEV_AUTHOR >= NP)
#error "DEV_AUTHOR splits a search by the name on its one deviation: DEVS=1, BAD=1, DEV_AUTHOR 0 to NP-1"
#endif

#define NONE 255
#define MAXC 15 /* commits in the table (ids fit a 16-bit set) */
#define ALL ((1 << NP) - 1)
#define ALL_COMMITS 32767
#define BIT(h_x) (1 << (h_x))
#define HAS(set, h_c) (((set) >> (h_c)) & 1)
#define HONEST(i) ((i) != DIS)

/* Commit kinds. */
#define MAIN 0  /* an ordinary action, a rolled 7, a random request */
#define CHILD 1 /* a discard, a reveal: a child of the fan-out commit */
#define MERGE 2 /* merge discards; the completion of a random event */
#define XPEL 3  /* expel E (EXPEL): settles the event where E forked */

/* The game script: 0 genesis (seat 0), 1 a rolled 7 (seat 0), 2 a
 * random event (seat 1). */
#define NEV 3
#define EV_ACTOR(e) ((e) == 2 -> 1 : 0)
#if NP == 2
#define DISCARDERS 3 /* seats 0 and 1 owe discards (the roller too) */
#else
#define DISCARDERS 6 /* seats 1 and 2 */
#endif
#define EV_SET(e) ((e) == 1 -> DISCARDERS : ((e) == 2 -> (ALL & ~BIT(1)) : 0))
#define EV_RAND(e) ((e) == 2)
/* With the seats in o expelled (EXPEL): the actor is the next seat not
 * out, and nobody out owes a child. o is 0 without EXPEL. */
#define ACT(e, o) (HAS(o, EV_ACTOR(e)) -> (HAS(o, (EV_ACTOR(e) + 1) % NP) -> \
	(EV_ACTOR(e) + 2) % NP : (EV_ACTOR(e) + 1) % NP) : EV_ACTOR(e))
#define SET(e, o) ((e) == 1 -> (DISCARDERS & ~(o)) : ((e) == 2 -> (ALL & ~(o) & ~BIT(ACT(2, o))) : 0))
#define LEFT2(o) (((ALL & ~(o)) & ((ALL & ~(o)) - 1)) != 0) /* two seats play on */
#define OTHERS (ALL & ~BIT(EV_ACTOR(2)))

/* Hash chains: H(x) = x - 1 stands for the hash. ANCHOR(s) = H^N(s_p),
 * published in the seat's first commit (before any random event: known
 * to all here); the seat's value for the event is CHAIN(s), with
 * H(CHAIN(s)) = ANCHOR(s). A reused value is the anchor itself. */
#define ANCHOR(s) (8 * (s) + 3)
#define CHAIN(s) (ANCHOR(s) + 1)
#define CHAIN_OK(s, h_v) ((h_v) - 1 == ANCHOR(s))

/* The merger of fan-out commit f (its author, the actor of its event). */
#define MERGER(f) author[f]

/* A child's share of the merge, and the fold that makes the merge. */
#define CONTRIB(h_c) (EV_RAND(step[h_c]) -> val[h_c] : (val[h_c] << (2 * author[h_c])))
#ifdef M_ORDER
#define FOLD(h_x, h_y) (((h_x) * 3 + (h_y) + 1) % 251)
#else
#define FOLD(h_x, h_y) ((h_x) ^ (h_y))
#endif

/* The commit table (append-only, content-addressed). */
byte nc;
byte kind[MAXC];
byte author[MAXC];
byte signer[MAXC];
byte par[MAXC]; /* first parent; a merge's is the fan-out commit */
short mpar[MAXC]; /* a merge's parents: the children it joins */
byte step[MAXC];  /* event of the script */
byte val[MAXC];
bit legal[MAXC];
short anc[MAXC];  /* ghost: ancestors, itself included */
bit tainted[MAXC]; /* ghost: invalid or built on an invalid commit */
byte eq;           /* ghost: seats that signed two valid children of one parent */
bit req_done;      /* ghost: the request of the random event exists */
byte revealed;     /* ghost: seats whose value for it is in some commit */

/* Peers (peer i plays seat i). */
byte br[NP * NP]; /* br[i*NP+j]: peer i's copy of branch j */
byte verdict[NP]; /* the seat a fork proof names, or NONE */
#ifdef EXPEL
short vproof[NP]; /* the record: the two children of the proof */
short stash_rec[NP]; /* the record of a snapshot kept for later */
#endif
short qbad[NP];   /* commits found invalid (quarantine) */
short qoff[NP * NP]; /* per remote: tips refused as off-branch */
byte held[NP * NP];  /* per remote: the tip held back once */
byte arr[NP];        /* the merge folded in the order children arrived (by
                      * the merger only: nobody else reads it) */
byte pend[NP];       /* written, not yet on the branch */
bit todo[NP];        /* the peer's position asks it to write */
byte waitfor[NP];    /* seats peer i's game waits for */
bit up[NP];
byte faults, crashes, bad;
byte sb[NP]; /* the branches the dishonest seat shows */
#ifdef CHECK_FORGET
bit forget_mark[NP * NP]; /* ghosts of CHECK_FORGET (reduction 12) */
byte forget_val[NP * NP];
/* a kept branch found old at the end of the last step is read as the
 * genesis, as FORGET would have made it (the check's second half) */
#define KEPT_READ(l_) (forget_mark[l_] -> 0 : stash[l_])
#else
#define KEPT_READ(l_) stash[l_]
#endif
#ifdef CHECK_RELAY
bit relay_mark[NP]; /* ghosts of CHECK_RELAY (reduction 8) */
byte relay_val[NP];
#endif
short dsig;  /* the commits it signed */
byte shown;  /* times it pointed a branch somewhere (at most SHOW) */
#ifdef LIVE
byte rr[NP]; /* round-robin partner of each peer's next sync */
#endif

typedef snap {
	byte h_t[NP];
	short h_rec /* the remote's record (EXPEL: the evidence is exchanged) */
};
byte stash[NP * NP]; /* a snapshot peer i keeps for later (a fault) */
byte stash_from[NP]; /* whose, or NONE */

/*
 * Scratch. pan keeps hidden variables out of the state vector. When it
 * backs up to try the next option of a choice it undoes the steps since,
 * but a d_step's undo restores the state vector only (not what the
 * d_step wrote into hidden variables), and the undo of a plain statement
 * that wrote an array element indexes the array with the hidden index as
 * it is then. So a value that must outlive a choice inside a step (an if
 * or do with more than one open option, inside an atomic) is carried in
 * the state (CARRIED) and cleared at the end of every step (STEP_END),
 * which keeps states apart no more than before; every other scratch
 * variable is written before it is read with no choice in between, and
 * what writes arrays through a scratch index is inside a d_step. With
 * SCRATCH_IN_STATE every scratch variable is in the state and cleared at
 * the end of every step: ctest model_spin checks that the state counts are
 * the same either way, which they are only when no step depends on a
 * hidden value pan failed to restore.
 */
#ifdef SCRATCH_IN_STATE
#define SCRATCH
#else
#define SCRATCH hidden
#endif
SCRATCH byte h_j, h_t, h_l, h_x, h_y, h_z, h_p, h_q, h_v, h_top, hF, h_act, h_apar, h_first, h_res;
SCRATCH byte h_a1, h_a2;
SCRATCH short h_kn, h_news, h_amp, h_qq;
SCRATCH byte h_rewritten;
SCRATCH byte h_rP, h_rE, h_rk, h_oi, h_ox, h_sk, h_E, h_P, h_pk, h_f, h_e1, h_e2, h_e3, h_sib, h_v0, h_xst, h_ok2, h_b1, h_b2, h_zz;
SCRATCH short h_vd, h_pf, h_bs, h_stl, h_kx, h_ch, h_xs;
#ifndef LIVE
/* (worth's: the dishonest seat's parents worth a write) */
SCRATCH byte h_dp, h_dst, h_dv, h_do, h_dc, h_dok;
SCRATCH short h_dm, h_ds;
#define CLEAR_WORTH h_dp = 0; h_dst = 0; h_dv = 0; h_do = 0; h_dc = 0; h_dok = 0; h_dm = 0; h_ds = 0
#else
#define CLEAR_WORTH skip
#endif
/* Carried across a choice: the remote of a sync and its snapshot (kept,
 * or taken now); the dishonest seat's commit as it builds it, choice by
 * choice (parent, author, kind, event, value, merge parents, legality),
 * and what it found on the way. */
#ifdef M_HIDDEN
#define CARRIED hidden /* the seeded fault: the model until 30 November */
#else
#define CARRIED
#endif
CARRIED byte h_k;
CARRIED snap h_m;
CARRIED byte h_pw, h_aa, h_kk, h_st, h_vv, h_lg, h_o, h_ok, h_c, h_n0, h_due, h_wt;
CARRIED short h_mp, h_seats;
#if FORGETFUL
/* the branches of the snapshot being taken that the peer skips */
CARRIED byte h_skip;
#define CLEAR_SKIP ; h_skip = 0
#else
#define CLEAR_SKIP
#endif
#define CLEAR_CARRIED h_k = 0; h_m.h_t[0] = 0; h_m.h_t[1] = 0; h_m.h_t[2 % NP] = 0; \
	h_m.h_t[3 % NP] = 0; h_m.h_rec = 0; h_pw = 0; h_aa = 0; h_kk = 0; h_st = 0; h_vv = 0; \
	h_lg = 0; h_o = 0; h_ok = 0; h_c = 0; h_n0 = 0; h_due = 0; h_wt = 0; h_mp = 0; h_seats = 0 CLEAR_SKIP
#ifdef SCRATCH_IN_STATE
#define CLEAR_SCRATCH h_j = 0; h_t = 0; h_l = 0; h_x = 0; h_y = 0; h_z = 0; h_p = 0; h_q = 0; \
	h_v = 0; h_top = 0; hF = 0; h_act = 0; h_apar = 0; h_first = 0; h_res = 0; h_a1 = 0; \
	h_a2 = 0; h_kn = 0; h_news = 0; h_amp = 0; h_qq = 0; h_rewritten = 0; h_rP = 0; \
	h_rE = 0; h_rk = 0; h_oi = 0; h_ox = 0; h_sk = 0; h_E = 0; h_P = 0; h_pk = 0; h_f = 0; \
	h_e1 = 0; h_e2 = 0; h_e3 = 0; h_sib = 0; h_v0 = 0; h_xst = 0; h_ok2 = 0; h_b1 = 0; \
	h_b2 = 0; h_zz = 0; h_vd = 0; h_pf = 0; h_bs = 0; h_stl = 0; h_kx = 0; h_ch = 0; \
	h_xs = 0; n_kind = 0; n_author = 0; n_signer = 0; n_par = 0; n_step = 0; n_val = 0; \
	n_legal = 0; n_tainted = 0; n_mpar = 0; n_anc = 0; CLEAR_WORTH
#else
#define CLEAR_SCRATCH skip
#endif

#define ANCESTOR(a, b) HAS(anc[b], a) /* a is b or an ancestor of b */
#define COMPARABLE(a, b) (ANCESTOR(a, b) || ANCESTOR(b, a))

/* The children of fan-out F in set s (out), and their seats. */
inline children_of(F_, s, out, seats_)
{
	out = 0;
	seats_ = 0;
	h_x = 0;
	do
	:: h_x < nc ->
		if
		:: HAS(s, h_x) && kind[h_x] == CHILD && par[h_x] == F_ ->
			out = out | BIT(h_x);
			seats_ = seats_ | BIT(author[h_x])
		:: else
		fi;
		h_x++
	:: else -> break
	od
}

/* The merge of children set m_ of fan-out F_, folded in seat order. */
inline merge_value(F_, m_, v_)
{
	v_ = (EV_RAND(step[F_]) -> val[F_] : 0);
	h_y = 0;
	do
	:: h_y < NP ->
		h_x = 0;
		do
		:: h_x < nc ->
			if
			:: HAS(m_, h_x) && author[h_x] == h_y -> v_ = FOLD(v_, CONTRIB(h_x))
			:: else
			fi;
			h_x++
		:: else -> break
		od;
		h_y++
	:: else -> break
	od
}

inline popcount(s, n)
{
	n = 0;
	h_x = 0;
	do
	:: h_x < MAXC ->
		if
		:: HAS(s, h_x) -> n++
		:: else
		fi;
		h_x++
	:: else -> break
	od
}

/* o_ := the seats expelled in the commits of set s_ (EXPEL; else none). */
#ifdef EXPEL
inline out_of(s_, o_)
{
	o_ = 0;
	h_e1 = 0;
	do
	:: h_e1 < nc ->
		if
		:: HAS(s_, h_e1) && kind[h_e1] == XPEL -> o_ = o_ | BIT(val[h_e1])
		:: else
		fi;
		h_e1++
	:: else -> break
	od
}
#else
#define out_of(s_, o_) o_ = 0
#endif

/*
 * Is commit c_ valid, its parents being valid? ok = 1 if so. The checks
 * a verifying peer makes; a mutant switches one off, except when strict
 * (the ghost's own judgement).
 */
inline local_valid(c_, strict)
{
	h_ok = legal[c_];
	if
	:: signer[c_] != author[c_] ->
#ifdef M_NOSIG
		h_ok = h_ok && !strict
#else
		h_ok = 0
#endif
	:: else
	fi;
	h_p = par[c_];
	out_of(anc[h_p], h_o); /* who is out where c_ is played */
	if
	:: kind[c_] == MAIN ->
		h_ok = h_ok && ((kind[h_p] == MAIN && step[h_p] == 0) || kind[h_p] == MERGE || kind[h_p] == XPEL) &&
		     step[c_] == step[h_p] + 1 && step[c_] < NEV && LEFT2(h_o) &&
		     author[c_] == ACT(step[c_], h_o) && mpar[c_] == 0;
		if
		:: EV_RAND(step[c_]) -> h_ok = h_ok && CHAIN_OK(author[c_], val[c_])
		:: else -> h_ok = h_ok && val[c_] < 2
		fi
	:: kind[c_] == CHILD ->
		h_ok = h_ok && kind[h_p] == MAIN && step[h_p] >= 1 && step[c_] == step[h_p] &&
		     HAS(SET(step[c_], h_o), author[c_]) && mpar[c_] == 0;
		if
		:: EV_RAND(step[c_]) ->
#ifdef M_NOCHAIN
			h_ok = h_ok && (CHAIN_OK(author[c_], val[c_]) || !strict)
#else
			h_ok = h_ok && CHAIN_OK(author[c_], val[c_])
#endif
		:: else -> h_ok = h_ok && val[c_] < 2
		fi
	:: kind[c_] == MERGE ->
		children_of(h_p, mpar[c_], h_qq, h_seats);
		h_ok = h_ok && kind[h_p] == MAIN && step[h_p] >= 1 && h_qq == mpar[c_] &&
		     author[c_] == ACT(step[c_], h_o) && step[c_] == step[h_p];
		/* one child per seat, every seat that owes one */
		popcount(h_seats, h_z);
		popcount(h_qq, h_q);
#ifdef M_EARLYMERGE
		h_ok = h_ok && h_z == h_q && (h_seats == SET(step[c_], h_o) || (!strict && h_seats != 0 &&
		     (h_seats & ~SET(step[c_], h_o)) == 0));
#else
		h_ok = h_ok && h_z == h_q && h_seats == SET(step[c_], h_o);
#endif
		merge_value(h_p, h_qq, h_v);
		h_ok = h_ok && val[c_] == h_v
#ifdef EXPEL
	:: kind[c_] == XPEL ->
		/* expel E = val: its parents are the base (the other seats'
		 * children of P when P opened a fan; none when E forked an
		 * action on P) and the proof: two children of P signed by E */
		h_E = val[c_];
		h_pk = (kind[h_p] == MAIN && step[h_p] >= 1 -> CHILD : MAIN);
		h_xst = (h_pk == CHILD -> step[h_p] : step[h_p] + 1);
		h_pf = 0;
		h_bs = 0;
		h_ok2 = 1;
		h_x = 0;
		do
		:: h_x < nc ->
			if
			:: HAS(mpar[c_], h_x) && signer[h_x] == h_E ->
				h_pf = h_pf | BIT(h_x);
				h_ok2 = h_ok2 && par[h_x] == h_p && kind[h_x] == h_pk
			:: HAS(mpar[c_], h_x) && signer[h_x] != h_E -> h_bs = h_bs | BIT(h_x)
			:: else
			fi;
			h_x++
		:: else -> break
		od;
		popcount(h_pf, h_z);
		h_ok2 = h_ok2 && h_z == 2;
#ifdef M_NOPROOF
		h_ok2 = h_ok2 || !strict; /* the seeded fault: the proof is not checked */
#endif
		if
		:: h_pk == CHILD ->
			children_of(h_p, h_bs, h_qq, h_seats);
			popcount(h_qq, h_q);
			popcount(h_seats, h_z);
			h_ok = h_ok && h_qq == h_bs && h_q == h_z && h_seats == (SET(h_xst, h_o) & ~BIT(h_E))
		:: else -> h_ok = h_ok && h_bs == 0
		fi;
		h_ok = h_ok && h_ok2 && h_E < NP && !HAS(h_o, h_E) && author[c_] != h_E &&
		     step[c_] == h_xst && h_xst < NEV && author[c_] == ACT(h_xst, h_o | BIT(h_E))
#endif
	:: else -> h_ok = 0
	fi
}

/*
 * Canonical commit ids (symmetry reduction; spec/model.md "The big
 * configuration"). The table is kept sorted by a key of the commit's
 * content: (event, kind, parent, author, signer, value, legality, merge
 * parents). Parents sort before their children (a main action's parent
 * is of an earlier event, a child's and a merge's parents are of a
 * smaller kind), so the order is a topological one, as the order of
 * writing was; two runs that wrote the same commits in different orders
 * reach the same state. The new commit h_c (the last) moves to its place
 * h_p and every id and set of ids is renamed: ids in h_p..h_c-1 move up
 * one. CANON=0 keeps the order of writing (the model as it was).
 */
#ifndef CANON
#define CANON 1
#endif
#define KEY(c_) ((((((step[c_] * 4 + kind[c_]) * 16 + (par[c_] & 15)) * 4 + author[c_]) * 4 + \
	signer[c_]) * 256 + val[c_]) * 2 + legal[c_])
#define BEFORE(a, b) (KEY(a) < KEY(b) || (KEY(a) == KEY(b) && mpar[a] < mpar[b]))
#define RN_ID(x) ((x) == NONE -> NONE : ((x) == h_c -> h_p : ((x) >= h_p -> (x) + 1 : (x))))
#define RN_SET(s) ((((s) & ~BIT(h_c)) & (BIT(h_p) - 1)) | ((((s) & ~BIT(h_c)) >> h_p) << (h_p + 1)) | \
	(HAS(s, h_c) -> BIT(h_p) : 0))
SCRATCH byte n_kind, n_author, n_signer, n_par, n_step, n_val;
SCRATCH byte n_legal, n_tainted;
SCRATCH short n_mpar, n_anc;

inline canon_insert()
{
	h_p = (CANON -> 0 : h_c);
	do
	:: h_p < h_c && BEFORE(h_p, h_c) -> h_p++
	:: else -> break
	od;
	if
	:: h_p < h_c ->
		n_kind = kind[h_c];
		n_author = author[h_c];
		n_signer = signer[h_c];
		n_par = par[h_c];
		n_step = step[h_c];
		n_val = val[h_c];
		n_legal = legal[h_c];
		n_tainted = tainted[h_c];
		n_mpar = mpar[h_c];
		n_anc = anc[h_c];
		h_x = h_c;
		do
		:: h_x > h_p ->
			kind[h_x] = kind[h_x - 1];
			author[h_x] = author[h_x - 1];
			signer[h_x] = signer[h_x - 1];
			par[h_x] = par[h_x - 1];
			step[h_x] = step[h_x - 1];
			val[h_x] = val[h_x - 1];
			legal[h_x] = legal[h_x - 1];
			tainted[h_x] = tainted[h_x - 1];
			mpar[h_x] = mpar[h_x - 1];
			anc[h_x] = anc[h_x - 1];
			h_x--
		:: else -> break
		od;
		kind[h_p] = n_kind;
		author[h_p] = n_author;
		signer[h_p] = n_signer;
		par[h_p] = n_par;
		step[h_p] = n_step;
		val[h_p] = n_val;
		legal[h_p] = n_legal;
		tainted[h_p] = n_tainted;
		mpar[h_p] = n_mpar;
		anc[h_p] = n_anc;
		/* rename: RN_* read the old ids h_p (the place) and h_c (the new) */
		h_x = 0;
		do
		:: h_x < nc ->
			par[h_x] = RN_ID(par[h_x]);
			mpar[h_x] = RN_SET(mpar[h_x]);
			anc[h_x] = RN_SET(anc[h_x]);
			h_x++
		:: else -> break
		od;
		h_x = 0;
		do
		:: h_x < NP ->
			h_y = 0;
			do
			:: h_y < NP ->
				br[h_x * NP + h_y] = RN_ID(br[h_x * NP + h_y]);
				held[h_x * NP + h_y] = RN_ID(held[h_x * NP + h_y]);
				stash[h_x * NP + h_y] = RN_ID(stash[h_x * NP + h_y]);
				qoff[h_x * NP + h_y] = RN_SET(qoff[h_x * NP + h_y]);
#ifdef CHECK_FORGET
				forget_val[h_x * NP + h_y] = RN_ID(forget_val[h_x * NP + h_y]);
#endif
				h_y++
			:: else -> break
			od;
			qbad[h_x] = RN_SET(qbad[h_x]);
#ifdef EXPEL
			vproof[h_x] = RN_SET(vproof[h_x]);
			stash_rec[h_x] = RN_SET(stash_rec[h_x]);
#endif
			pend[h_x] = RN_ID(pend[h_x]);
			sb[h_x] = RN_ID(sb[h_x]);
#ifdef CHECK_RELAY
			relay_val[h_x] = RN_ID(relay_val[h_x]);
#endif
			h_x++
		:: else -> break
		od;
		dsig = RN_SET(dsig);
		h_c = h_p
	:: else
	fi
}

/* Commit c_ has these fields: it is that commit (content-addressed). */
#define IS_COMMIT(c_, k_, a_, s_, p_, mp_, st_, v_, lg_) (kind[c_] == k_ && author[c_] == a_ && \
	signer[c_] == s_ && par[c_] == p_ && mpar[c_] == mp_ && step[c_] == st_ && val[c_] == v_ && \
	legal[c_] == lg_)

/* Write a commit, or find the same one: its id in c. Ghost bookkeeping. */
inline write_commit(k_, a_, s_, p_, mp_, st_, v_, lg_)
{
	h_c = 0;
	do
	:: h_c < nc && !IS_COMMIT(h_c, k_, a_, s_, p_, mp_, st_, v_, lg_) -> h_c++
	:: else -> break
	od;
	if
	:: h_c == nc ->
		assert(nc < MAXC);
		kind[h_c] = k_;
		author[h_c] = a_;
		signer[h_c] = s_;
		par[h_c] = p_;
		mpar[h_c] = mp_;
		step[h_c] = st_;
		val[h_c] = v_;
		legal[h_c] = lg_;
		anc[h_c] = anc[p_] | BIT(h_c);
		h_x = 0;
		do
		:: h_x < nc ->
			if
			:: HAS(mp_, h_x) -> anc[h_c] = anc[h_c] | anc[h_x]
			:: else
			fi;
			h_x++
		:: else -> break
		od;
		nc++;
		if
		:: s_ == DIS -> dsig = dsig | BIT(h_c)
		:: else
		fi;
		local_valid(h_c, 1);
		tainted[h_c] = !h_ok || tainted[p_];
		h_x = 0;
		do
		:: h_x < h_c ->
			if
			:: HAS(mp_, h_x) -> tainted[h_c] = tainted[h_c] || tainted[h_x]
			:: else
			fi;
			/* an equivocation: a second valid child of one parent */
			if
			:: h_ok && !tainted[h_c] && !tainted[h_x] && kind[h_x] == k_ &&
			   par[h_x] == p_ && signer[h_x] == s_ && author[h_x] == a_ ->
				eq = eq | BIT(s_)
			:: else
			fi;
			h_x++
		:: else -> break
		od;
		/* P5: who has published its value of the random event */
		if
		:: EV_RAND(st_) && k_ == MAIN -> req_done = 1
		:: EV_RAND(st_) && k_ == CHILD && CHAIN_OK(a_, v_) ->
			revealed = revealed | BIT(a_)
		:: else
		fi;
		/* P5: every other seat's value is public only after the request */
		assert(req_done || (revealed & OTHERS) != OTHERS);
		canon_insert()
	:: else
	fi
}

/* Commits peer i_ holds: what its branches reach. */
inline known_of(i_, kn_)
{
	kn_ = 0;
	h_y = 0;
	do
	:: h_y < NP -> kn_ = kn_ | anc[br[i_ * NP + h_y]]; h_y++
	:: else -> break
	od
}

/*
 * Peer i_'s position: act (NONE or the kind it is to write), apar (the
 * parent), amp (a merge's parents), and waitfor[i_] (whom the game
 * waits for, as this peer sees it).
 */
#ifndef EXPEL
inline position(i_)
{
	known_of(i_, h_kn);
	/* the newest commit: the highest event, then main < child < merge */
	h_top = 0;
	h_x = 0;
	do
	:: h_x < nc ->
		if
		:: HAS(h_kn, h_x) && (step[h_x] > step[h_top] ||
		   (step[h_x] == step[h_top] && kind[h_x] > kind[h_top])) -> h_top = h_x
		:: else
		fi;
		h_x++
	:: else -> break
	od;
	h_act = NONE;
	if
	:: (kind[h_top] == MAIN && step[h_top] == 0) || kind[h_top] == MERGE ->
		if
		:: step[h_top] + 1 < NEV ->
			waitfor[i_] = BIT(EV_ACTOR(step[h_top] + 1));
			if
			:: EV_ACTOR(step[h_top] + 1) == i_ -> h_act = MAIN; h_apar = h_top
			:: else
			fi
		:: else -> waitfor[i_] = 0 /* the game is over */
		fi
	:: else ->
		hF = (kind[h_top] == CHILD -> par[h_top] : h_top);
		children_of(hF, h_kn, h_amp, h_seats);
		if
		:: h_seats == EV_SET(step[hF]) -> waitfor[i_] = BIT(EV_ACTOR(step[hF]))
		:: else -> waitfor[i_] = EV_SET(step[hF]) & ~h_seats
		fi;
		if
		:: HAS(EV_SET(step[hF]), i_) && !HAS(h_seats, i_) -> h_act = CHILD; h_apar = hF
		:: h_seats == EV_SET(step[hF]) && EV_ACTOR(step[hF]) == i_ -> h_act = MERGE; h_apar = hF
		:: else
		fi
	fi;
	todo[i_] = (h_act != NONE)
}
#else
/* The set of commits void at peer i_ (h_vd): with a record against E
 * of children of P (h_rE, h_rP, their kind h_rk), every commit that
 * builds on a child of P by E, recorded or not, and not on an expulsion
 * of E at P (spec/replication.md "Equivocation"). h_rP = NONE: no record. */
inline void_set(i_)
{
	h_vd = 0;
	h_rP = NONE;
	if
	:: verdict[i_] != NONE && vproof[i_] != 0 ->
		h_rE = verdict[i_];
		h_e1 = 0;
		do
		:: !HAS(vproof[i_], h_e1) -> h_e1++
		:: else -> break
		od;
		h_rP = par[h_e1];
		h_rk = kind[h_e1];
		h_ch = 0;
		h_xs = 0;
		h_e1 = 0;
		do
		:: h_e1 < nc ->
			if
			:: kind[h_e1] == h_rk && par[h_e1] == h_rP && signer[h_e1] == h_rE -> h_ch = h_ch | BIT(h_e1)
			:: kind[h_e1] == XPEL && par[h_e1] == h_rP && val[h_e1] == h_rE -> h_xs = h_xs | BIT(h_e1)
			:: else
			fi;
			h_e1++
		:: else -> break
		od;
		h_e1 = 0;
		do
		:: h_e1 < nc ->
			if
			:: (anc[h_e1] & h_ch) != 0 && (anc[h_e1] & h_xs) == 0 -> h_vd = h_vd | BIT(h_e1)
			:: else
			fi;
			h_e1++
		:: else -> break
		od
	:: else
	fi
}

/* h_f := the newest commit by seat j_ in set s_ that is not void, else
 * the genesis (a seat's commits in one history are on one line) */
inline newest(j_, s_)
{
	h_f = 0;
	h_e2 = 0;
	do
	:: h_e2 < nc ->
		if
		:: HAS(s_, h_e2) && author[h_e2] == j_ && signer[h_e2] == j_ && !HAS(h_vd, h_e2) &&
		   ANCESTOR(h_f, h_e2) -> h_f = h_e2
		:: else
		fi;
		h_e2++
	:: else -> break
	od
}

/* The position with expulsions: the void commits do not count; a record
 * against E not yet expelled stops the game at P, where the other seats
 * still owe their children, and then N, the seat that acts next with E
 * skipped, writes the expulsion (parents: the others' children of P,
 * then the proof); afterwards the script goes on without E. */
inline position(i_)
{
	known_of(i_, h_kn);
	out_of(h_kn, h_o);
	void_set(i_);
	h_sk = h_o;
	if
	:: h_rP != NONE && !HAS(h_o, h_rE) -> h_sk = h_sk | BIT(h_rE)
	:: else -> h_rP = NONE /* nothing to expel */
	fi;
	h_kn = h_kn & ~h_vd;
	h_top = 0;
	h_x = 0;
	do
	:: h_x < nc ->
		if
		:: HAS(h_kn, h_x) && (step[h_x] > step[h_top] ||
		   (step[h_x] == step[h_top] && kind[h_x] > kind[h_top])) -> h_top = h_x
		:: else
		fi;
		h_x++
	:: else -> break
	od;
	h_act = NONE;
	if
	:: (kind[h_top] == MAIN && step[h_top] == 0) || kind[h_top] == MERGE || kind[h_top] == XPEL ->
		if
		:: h_rP == h_top && h_rk == MAIN ->
			/* E forked its action on top */
			waitfor[i_] = BIT(ACT(step[h_top] + 1, h_sk));
			if
			:: ACT(step[h_top] + 1, h_sk) == i_ ->
				h_act = XPEL; h_apar = h_top; h_amp = vproof[i_]; h_xst = step[h_top] + 1
			:: else
			fi
		:: else ->
			if
			:: step[h_top] + 1 < NEV && LEFT2(h_o) ->
				waitfor[i_] = BIT(ACT(step[h_top] + 1, h_o));
				if
				:: ACT(step[h_top] + 1, h_o) == i_ -> h_act = MAIN; h_apar = h_top
				:: else
				fi
			:: else -> waitfor[i_] = 0 /* the game is over */
			fi
		fi
	:: else ->
		hF = (kind[h_top] == CHILD -> par[h_top] : h_top);
		children_of(hF, h_kn, h_amp, h_seats);
		h_kx = SET(step[hF], h_o);
		if
		:: h_rP == hF && h_rk == CHILD ->
			/* E forked its child of hF */
			h_kx = h_kx & ~BIT(h_rE);
			if
			:: h_seats == h_kx ->
				waitfor[i_] = BIT(ACT(step[hF], h_sk));
				if
				:: ACT(step[hF], h_sk) == i_ ->
					h_act = XPEL; h_apar = hF; h_amp = h_amp | vproof[i_]; h_xst = step[hF]
				:: else
				fi
			:: else ->
				waitfor[i_] = h_kx & ~h_seats;
				if
				:: HAS(h_kx, i_) && !HAS(h_seats, i_) -> h_act = CHILD; h_apar = hF
				:: else
				fi
			fi
		:: else ->
			if
			:: h_seats == h_kx -> waitfor[i_] = BIT(ACT(step[hF], h_o))
			:: else -> waitfor[i_] = h_kx & ~h_seats
			fi;
			if
			:: HAS(h_kx, i_) && !HAS(h_seats, i_) -> h_act = CHILD; h_apar = hF
			:: h_seats == h_kx && ACT(step[hF], h_o) == i_ -> h_act = MERGE; h_apar = hF
			:: else
			fi
		fi
	fi;
	todo[i_] = (h_act != NONE)
}

/* peer p_'s expelled seats: h_ox */
inline peer_out(p_)
{
	h_kx = 0;
	h_e2 = 0;
	do
	:: h_e2 < NP -> h_kx = h_kx | anc[br[p_ * NP + h_e2]]; h_e2++
	:: else -> break
	od;
	out_of(h_kx, h_ox)
}

/* After a sync or a branch move of peer i_ holding a record: the void
 * branches move back to their seat's newest commit that is not void
 * (its reflog's newest position holding neither child), a void write
 * not yet on the branch is dropped, and once E is expelled its branch
 * stands at E's newest commit in P's history and is never followed. */
inline settle(i_)
{
	void_set(i_);
	if
	:: h_rP != NONE ->
		h_e3 = 0;
		do
		:: h_e3 < NP ->
			if
			:: h_e3 != h_rE && HAS(h_vd, br[i_ * NP + h_e3]) ->
				newest(h_e3, anc[br[i_ * NP + h_e3]]);
				br[i_ * NP + h_e3] = h_f
			:: else
			fi;
			h_e3++
		:: else -> break
		od;
		if
		:: pend[i_] != NONE && HAS(h_vd, pend[i_]) -> pend[i_] = NONE
		:: else
		fi;
#ifndef M_FOLLOW
		known_of(i_, h_kn);
		h_e3 = 0;
		do
		:: h_e3 < nc ->
			if
			:: HAS(h_kn, h_e3) && kind[h_e3] == XPEL && val[h_e3] == h_rE ->
				newest(h_rE, anc[par[h_e3]]);
				br[i_ * NP + h_rE] = h_f
			:: else
			fi;
			h_e3++
		:: else -> break
		od
#endif
		skip
	:: else
	fi
}

/* P6-P8 and P2 after an expulsion, at peer i_ */
inline expel_props(i_)
{
	known_of(i_, h_kn);
	out_of(h_kn, h_oi);
	/* P8: an expelled seat's branch stands before the fork's parent */
	h_e3 = 0;
	do
	:: h_e3 < nc ->
		if
		:: HAS(h_kn, h_e3) && kind[h_e3] == XPEL ->
			assert(ANCESTOR(br[i_ * NP + val[h_e3]], par[h_e3]))
		:: else
		fi;
		h_e3++
	:: else -> break
	od;
	/* P7: the honest peers holding an expulsion expel the same seat; P2:
	 * and their copies are prefixes of one another again */
	h_e3 = 0;
	do
	:: h_e3 < NP ->
		if
		:: HONEST(h_e3) && h_e3 != i_ && h_oi != 0 ->
			peer_out(h_e3);
			assert(h_ox == 0 || h_ox == h_oi);
			if
			:: h_ox != 0 ->
				h_e2 = 0;
				do
				:: h_e2 < NP ->
					assert(COMPARABLE(br[i_ * NP + h_e2], br[h_e3 * NP + h_e2]));
					h_e2++
				:: else -> break
				od
			:: else
			fi
		:: else
		fi;
		h_e3++
	:: else -> break
	od
}
#endif

/* P2, one peer: its branches are one history (on one line, or sibling
 * children of one fan-out). */
inline one_history(i_)
{
	h_x = 0;
	do
	:: h_x < NP ->
		h_y = h_x + 1;
		do
		:: h_y < NP ->
			h_a1 = br[i_ * NP + h_x];
			h_a2 = br[i_ * NP + h_y];
			assert(COMPARABLE(h_a1, h_a2) ||
			       (kind[h_a1] == CHILD && kind[h_a2] == CHILD && par[h_a1] == par[h_a2]));
			h_y++
		:: else -> break
		od;
		h_x++
	:: else -> break
	od
}

/* P2, across peers: while nobody equivocated, copies are prefixes. */
inline prefixes(i_)
{
	if
	:: eq == 0 ->
		h_x = 0;
		do
		:: h_x < NP ->
			if
			:: HONEST(h_x) && h_x != i_ ->
				h_y = 0;
				do
				:: h_y < NP ->
					assert(COMPARABLE(br[i_ * NP + h_y], br[h_x * NP + h_y]));
					h_y++
				:: else -> break
				od
			:: else
			fi;
			h_x++
		:: else -> break
		od
	:: else
	fi
}

/* Is there a valid sibling of c_ by its signer in set s? (first = it) */
inline sibling(c_, s)
{
	h_x = 0;
	do
	:: h_x < nc ->
		if
		:: h_x != c_ && HAS(s, h_x) && par[h_x] == par[c_] && kind[h_x] == kind[c_] &&
		   author[h_x] == author[c_] && signer[h_x] == signer[c_] -> h_first = c_; h_sib = h_x; h_res = 2
		:: else
		fi;
		h_x++
	:: else -> break
	od
}

/*
 * Peer i_ takes snapshot m from remote k_: spec/replication.md steps
 * 2-5, one atomic step (a sync's branches move together).
 */
#ifdef EXPEL
/* a branch not followed: the expelled seat's (not under M_FOLLOW) */
#ifdef M_FOLLOW
#define UNFOLLOWED(j_) 0
#else
#define UNFOLLOWED(j_) HAS(h_oi, j_)
#endif
#define GOES_ON (verdict[i_] == h_v0) /* a record, or no new verdict */
#else
#define GOES_ON (verdict[i_] == NONE)
#endif
inline take_br(i_, k_)
{
	h_v0 = verdict[i_];
#ifdef EXPEL
	void_set(i_);
#endif
	h_j = 0;
	do
	:: h_j < NP && GOES_ON ->
		h_t = h_m.h_t[h_j];
		h_l = br[i_ * NP + h_j];
#ifdef EXPEL
		known_of(i_, h_kn);
		out_of(h_kn, h_oi);
		/* the proofs of the expulsions on that branch: settled forks */
		h_stl = 0;
		h_e2 = 0;
		do
		:: h_t < nc && h_e2 < nc ->
			if
			:: HAS(anc[h_t], h_e2) && kind[h_e2] == XPEL ->
				h_e3 = 0;
				do
				:: h_e3 < nc ->
					if
					:: HAS(mpar[h_e2], h_e3) && signer[h_e3] == val[h_e2] && par[h_e3] == par[h_e2] ->
						h_stl = h_stl | BIT(h_e3)
					:: else
					fi;
					h_e3++
				:: else -> break
				od
			:: else
			fi;
			h_e2++
		:: else -> break
		od;
#endif
		if
		:: h_t >= nc || h_j == i_ || ANCESTOR(h_t, h_l) -> skip /* own branch; behind or equal */
#ifdef EXPEL
		:: h_t < nc && (HAS(h_vd, h_t) || UNFOLLOWED(h_j)) -> skip /* void; not followed */
#endif
#if FORGETFUL
		/* (a forgetful peer: the branches it chose to skip) */
		:: h_t < nc && h_j != i_ && !ANCESTOR(h_t, h_l) &&
		   (HAS(h_skip, h_j) || (anc[h_t] & qbad[i_])) -> skip /* skipped; refused before */
#else
		:: h_t < nc && h_j != i_ && !ANCESTOR(h_t, h_l) &&
		   (HAS(qoff[i_ * NP + k_], h_t) || (anc[h_t] & qbad[i_])) -> skip /* refused before */
#endif
		:: else ->
			h_rewritten = !ANCESTOR(h_l, h_t);
			known_of(i_, h_kn);
			h_news = anc[h_t] & ~h_kn;
			h_res = 0; /* 0 valid, 1 invalid, 2 fork, 3 off-branch, 4 rewritten */
			h_first = NONE;
			h_c = 0;
			do
			:: h_c < nc && h_res == 0 ->
				if
				:: HAS(h_news, h_c) ->
#ifdef M_NOPARENT
					if
					:: h_c == h_t -> local_valid(h_c, 0)
					:: else -> h_ok = 1
					fi;
#else
					local_valid(h_c, 0);
#endif
					if
					:: !h_ok -> h_res = 1; h_first = h_c
#ifdef EXPEL
					:: h_ok && HAS(h_stl, h_c) -> skip /* the proof of an expulsion */
#endif
					:: else ->
#ifndef M_FORK
						/* a fork: a sibling by c's signer, held or checked */
						sibling(h_c, h_kn | (h_news & (BIT(h_c) - 1)));
#endif
						/* on its author's branch at that remote, or here */
						if
						:: h_res == 0 && !ANCESTOR(h_c, h_m.h_t[author[h_c]]) &&
						   !ANCESTOR(h_c, br[i_ * NP + author[h_c]]) -> h_res = 3
						:: else
						fi
					fi
				:: else
				fi;
				h_c++
			:: else -> break
			od;
			/* a branch's tip is its player's commit, the genesis aside
			 * (what src/store checks; liveness with a dishonest seat
			 * needs it: live-d3show, live-expel3) */
#ifndef M_TIPOWNER
			if
			:: h_res == 0 && h_t != 0 && author[h_t] != h_j -> h_res = 5
			:: else
			fi;
#endif
			if
			:: h_res == 0 && h_rewritten ->
				h_res = 4;
				/* the divergence is a fork when a new commit has a sibling
				 * by its signer on this peer's branches */
				h_z = 0;
				do
				:: h_z < nc && h_res == 4 ->
					if
					:: HAS(h_news, h_z) -> sibling(h_z, h_kn)
					:: else
					fi;
					h_z++
				:: else -> break
				od;
#ifdef M_REWRITE
				if
				:: h_res == 4 -> h_res = 0
				:: else
				fi
#elif defined(REWRITE_DEAD)
				/* spec/model.md, M_REWRITE: every rewrite that reaches
				 * this check is a fork (h_res 2), so a non-fork rewrite,
				 * the only one M_REWRITE would adopt, never happens */
				assert(h_res != 4)
#else
				skip
#endif
			:: else
			fi;
			if
			:: h_res == 0 ->
#ifdef EXPEL
				/* P6: an expulsion holds two valid children of its parent
				 * signed by the seat it expels */
				h_e2 = 0;
				do
				:: h_e2 < nc ->
					if
					:: HAS(anc[h_t], h_e2) && kind[h_e2] == XPEL ->
						h_zz = 0;
						h_b1 = NONE;
						h_ok2 = 1;
						h_e3 = 0;
						do
						:: h_e3 < nc ->
							if
							:: HAS(mpar[h_e2], h_e3) && signer[h_e3] == val[h_e2] ->
								h_zz++;
								h_ok2 = h_ok2 && par[h_e3] == par[h_e2] && !tainted[h_e3] &&
								      author[h_e3] == val[h_e2] && (kind[h_e3] == CHILD || kind[h_e3] == MAIN) &&
								      (h_b1 == NONE || kind[h_b1] == kind[h_e3]);
								h_b1 = h_e3
							:: else
							fi;
							h_e3++
						:: else -> break
						od;
						assert(h_ok2 && h_zz == 2)
					:: else
					fi;
					h_e2++
				:: else -> break
				od;
				/* P8: nothing signed by a seat this peer has expelled */
				assert(!HAS(h_oi, signer[h_t]));
				h_e2 = 0;
				do
				:: h_e2 < nc ->
					assert(!(HAS(h_news, h_e2) && HAS(h_oi, signer[h_e2])));
					h_e2++
				:: else -> break
				od;
#endif
				/* P1: never an invalid commit, nor one built on it */
				assert(!tainted[h_t]);
				br[i_ * NP + h_j] = h_t;
				/* the merge folded in the order its children arrive */
				h_c = 0;
				do
				:: h_c < nc ->
					if
					:: HAS(h_news, h_c) && kind[h_c] == MAIN && MERGER(h_c) == i_ ->
						arr[i_] = (EV_RAND(step[h_c]) -> val[h_c] : 0)
					:: HAS(h_news, h_c) && kind[h_c] == CHILD && MERGER(par[h_c]) == i_ ->
						arr[i_] = FOLD(arr[i_], CONTRIB(h_c))
					:: else
					fi;
					h_c++
				:: else -> break
				od;
				if
				:: held[i_ * NP + k_] == h_t -> held[i_ * NP + k_] = NONE
				:: else
				fi
			:: h_res == 1 -> qbad[i_] = qbad[i_] | BIT(h_first)
			:: h_res == 2 ->
#ifdef M_BLAME
				verdict[i_] = k_
#elif defined(EXPEL)
				/* recorded: the proof is the two children (the earlier
				 * record is kept) */
				if
				:: verdict[i_] == NONE ->
					verdict[i_] = signer[h_first];
					vproof[i_] = BIT(h_first) | BIT(h_sib)
				:: else
				fi
#else
				verdict[i_] = signer[h_first]
#endif
#if FORGETFUL
			/* not adopted, and nothing remembered */
			:: h_res == 5 || h_res == 3 -> skip
#else
			:: h_res == 5 -> qoff[i_ * NP + k_] = qoff[i_ * NP + k_] | BIT(h_t)
			:: h_res == 3 ->
				/* held back once; the same tip again, or another that does
				 * not build on the held one, is refused */
				if
				:: held[i_ * NP + k_] == h_t || (held[i_ * NP + k_] != NONE &&
				   !ANCESTOR(held[i_ * NP + k_], h_t)) ->
					qoff[i_ * NP + k_] = qoff[i_ * NP + k_] | BIT(h_t);
					held[i_ * NP + k_] = NONE
				:: else -> held[i_ * NP + k_] = h_t
				fi
#endif
			:: else
			fi
		fi;
		h_j++
	:: else -> break
	od
}

/* The end of a sync: the record, the properties, the position. */
inline take_end(i_)
{
#ifdef EXPEL
	/* the remote's record: taken when it is a proof (two valid children
	 * of a commit this peer holds, signed by one seat) */
	if
	:: verdict[i_] == NONE && h_m.h_rec != 0 ->
		h_b1 = NONE;
		h_b2 = NONE;
		h_e2 = 0;
		do
		:: h_e2 < nc ->
			if
			:: HAS(h_m.h_rec, h_e2) && h_b1 == NONE -> h_b1 = h_e2
			:: HAS(h_m.h_rec, h_e2) && h_b1 != NONE -> h_b2 = h_e2
			:: else
			fi;
			h_e2++
		:: else -> break
		od;
		known_of(i_, h_kn);
		if
		:: h_b2 != NONE && par[h_b1] == par[h_b2] && kind[h_b1] == kind[h_b2] &&
		   signer[h_b1] == signer[h_b2] && (kind[h_b1] == CHILD || kind[h_b1] == MAIN) &&
		   HAS(h_kn, par[h_b1]) ->
			local_valid(h_b1, 0);
			h_ok2 = h_ok;
			local_valid(h_b2, 0);
			if
			:: h_ok && h_ok2 -> verdict[i_] = signer[h_b1]; vproof[i_] = h_m.h_rec
			:: else
			fi
		:: else
		fi
	:: else
	fi;
	/* an expulsion adopted: its proof is recorded */
	if
	:: verdict[i_] == NONE ->
		known_of(i_, h_kn);
		h_e2 = 0;
		do
		:: h_e2 < nc ->
			if
			:: HAS(h_kn, h_e2) && kind[h_e2] == XPEL && verdict[i_] == NONE ->
				verdict[i_] = val[h_e2];
				h_e3 = 0;
				do
				:: h_e3 < nc ->
					if
					:: HAS(mpar[h_e2], h_e3) && signer[h_e3] == val[h_e2] -> vproof[i_] = vproof[i_] | BIT(h_e3)
					:: else
					fi;
					h_e3++
				:: else -> break
				od
			:: else
			fi;
			h_e2++
		:: else -> break
		od
	:: else
	fi;
	settle(i_);
#endif
	/* P4: a verdict names a seat that signed two children of one parent */
	assert(verdict[i_] == NONE || HAS(eq, verdict[i_]));
#ifdef EXPEL
	expel_props(i_);
#endif
	one_history(i_);
	prefixes(i_);
	position(i_)
}

inline take(i_, k_)
{
	take_br(i_, k_);
	take_end(i_)
}
#ifdef EXPEL
/* two d_steps, one atomic sync: spin takes no d_step this long */
#define TAKE(i_, k_) d_step { take_br(i_, k_) }; d_step { take_end(i_) }
#else
#define TAKE(i_, k_) d_step { take(i_, k_) }
#endif

/* h_m := what peer k_ shows: its branches, or what the dishonest seat
 * chooses to show. */
inline read_remote(k_)
{
	h_j = 0;
	do
#ifdef CHECK_RELAY
	/* a copy found old at the end of the last step is read as the
	 * genesis, as RELAY would have made it (the check's second half) */
	:: h_j < NP -> h_m.h_t[h_j] = (k_ == DIS -> (relay_mark[h_j] -> 0 : sb[h_j]) : br[k_ * NP + h_j]); h_j++
#else
	:: h_j < NP -> h_m.h_t[h_j] = (k_ == DIS -> sb[h_j] : br[k_ * NP + h_j]); h_j++
#endif
	:: else -> break
	od;
#ifdef EXPEL
	/* the record's two children (the dishonest seat shows none) */
	h_m.h_rec = (k_ == DIS -> 0 : vproof[k_]);
#endif
	skip
}

/*
 * One sync of peer i_ with remote k_: it reads k_'s branches and takes
 * them; or (a fault, at most FAULTS in all) keeps that snapshot to take
 * it later, after newer ones (reordered, or also now: duplicated). A lost
 * message is a sync that did not happen.
 */
/*
 * FORGETFUL: before a snapshot is taken the peer chooses which of its
 * branches that are ahead of its copies it skips (h_skip). The model's
 * peer skips exactly the tips it refused before from that remote (qoff);
 * the abstraction, which remembers none, may skip any.
 */
#if FORGETFUL
#ifdef M_NOSKIP
#define SKIP1(i_, j_) skip /* the seeded fault: a peer never skips */
#else
#define SKIP1(i_, j_) \
	if \
	:: (j_) < NP && (j_) != (i_) && h_m.h_t[(j_) % NP] < nc && \
	   !ANCESTOR(h_m.h_t[(j_) % NP], br[(i_) * NP + (j_) % NP]) -> \
		if \
		:: skip \
		:: h_skip = h_skip | BIT(j_) \
		fi \
	:: else \
	fi
#endif
#define SKIP_PICK(i_) SKIP1(i_, 0); SKIP1(i_, 1); SKIP1(i_, 2); SKIP1(i_, 3)
#define SKIP_TAKE(i_, k_) SKIP_PICK(i_); TAKE(i_, k_)
#else
#define SKIP_TAKE(i_, k_) TAKE(i_, k_)
#endif

inline sync(i_, k_)
{
	d_step { read_remote(k_) };
	if
	:: SKIP_TAKE(i_, k_)
#ifdef FAULT_AT
	/* (a part of a search: the fault kept by peer FAULT_AT only;
	 * spec/model.md, "The goal configuration in parts") */
	:: faults < FAULTS && stash_from[i_] == NONE && i_ == FAULT_AT ->
#else
	:: faults < FAULTS && stash_from[i_] == NONE ->
#endif
		faults++;
		stash_from[i_] = k_;
		h_j = 0;
		do
		:: h_j < NP -> stash[i_ * NP + h_j] = h_m.h_t[h_j]; h_j++
		:: else -> break
		od;
#ifdef EXPEL
		stash_rec[i_] = h_m.h_rec;
#endif
		if
		:: SKIP_TAKE(i_, k_) /* and now too: delivered twice */
		:: skip
		fi
	fi
}

/* The old snapshot arrives. */
inline late(i_)
{
	d_step {
	h_k = stash_from[i_];
	h_j = 0;
	do
	:: h_j < NP -> h_m.h_t[h_j] = KEPT_READ(i_ * NP + h_j); stash[i_ * NP + h_j] = 0; h_j++
	:: else -> break
	od;
#ifdef EXPEL
	h_m.h_rec = stash_rec[i_];
	stash_rec[i_] = 0;
#endif
	stash_from[i_] = NONE;
#if FORGETFUL
	skip
	};
	SKIP_TAKE(i_, h_k);
	d_step { skip
#elif !defined(EXPEL)
	take(i_, h_k)
#else
	skip
	};
	TAKE(i_, h_k);
	d_step { skip
#endif
	}
}

/* h_k := a peer other than i_ for which cond(h_k) holds (blocks if none). */
#define PICK(cond) \
	if \
	:: (cond(0)) -> h_k = 0 \
	:: (cond(1)) -> h_k = 1 \
	:: (NP > 2 && cond(2)) -> h_k = 2 \
	:: (NP > 3 && cond(3)) -> h_k = 3 \
	fi

#ifdef LIVE
/* Converged: two honest peers hold the same branches, or reached the
 * same verdict; and every honest peer has finished, or halted on a
 * verdict, or waits for nobody but the dishonest seat. */
#define PAIR(a, b) (!(a < NP && b < NP && HONEST(a) && HONEST(b)) || \
	(verdict[a % NP] != NONE && verdict[a % NP] == verdict[b % NP]) || \
	(verdict[a % NP] == NONE && verdict[b % NP] == NONE && \
	 br[(a % NP) * NP] == br[(b % NP) * NP] && br[(a % NP) * NP + 1] == br[(b % NP) * NP + 1] && \
	 (NP < 3 || br[(a % NP) * NP + 2 % NP] == br[(b % NP) * NP + 2 % NP]) && \
	 (NP < 4 || br[(a % NP) * NP + 3 % NP] == br[(b % NP) * NP + 3 % NP])))
#ifdef EXPEL
/* a record does not halt: the same record and the same branches, and
 * the game over or waiting for the dishonest seat alone */
#undef PAIR
#define PAIR(a, b) (!(a < NP && b < NP && HONEST(a) && HONEST(b)) || \
	(verdict[a % NP] == verdict[b % NP] && \
	 br[(a % NP) * NP] == br[(b % NP) * NP] && br[(a % NP) * NP + 1] == br[(b % NP) * NP + 1] && \
	 (NP < 3 || br[(a % NP) * NP + 2 % NP] == br[(b % NP) * NP + 2 % NP]) && \
	 (NP < 4 || br[(a % NP) * NP + 3 % NP] == br[(b % NP) * NP + 3 % NP])))
#define SETTLED(a) (!(a < NP && HONEST(a)) || (waitfor[a % NP] & ~BIT(DIS)) == 0)
#else
#define SETTLED(a) (!(a < NP && HONEST(a)) || verdict[a % NP] != NONE || \
	(waitfor[a % NP] & ~BIT(DIS)) == 0)
#endif
#define CONVERGED (PAIR(0, 1) && PAIR(0, 2) && PAIR(0, 3) && PAIR(1, 2) && \
	PAIR(1, 3) && PAIR(2, 3) && SETTLED(0) && SETTLED(1) && SETTLED(2) && SETTLED(3))
/* A ghost: CONVERGED after each step (spin's LTL parser takes no
 * formula this long, so the claim below reads this bit). */
bit conv;
#define LIVE_UPDATE conv = (CONVERGED)
#else
#define LIVE_UPDATE skip
#endif
/*
 * A relay the dishonest seat can no longer use is forgotten (RELAY,
 * default 1 but with LIVE, EXPEL or M_REWRITE, or no dishonest seat;
 * spec/model.md, "The big configuration", reduction 8). Its copy sb[j] of
 * an honest seat's branch j that is behind or equal to every honest
 * peer's copy of branch j stays so (their copies only move forward), and
 * is read for nothing that the genesis in its place would not give: a
 * sync from the seat skips branch j either way (behind, or the peer's
 * own), the check that a new commit of seat j is on its author's branch
 * at that remote finds it on the peer's own copy anyway, and the seat's
 * read of an honest peer sets sb[j] to that peer's copy either way. So it
 * is set to the genesis, and states that differ in nothing else are one.
 */
#ifndef RELAY
#if defined(LIVE) || defined(EXPEL) || defined(M_REWRITE) || DIS == NONE
#define RELAY 0
#else
#define RELAY 1
#endif
#endif
#if RELAY && (defined(LIVE) || defined(EXPEL) || defined(M_REWRITE))
#error "RELAY (reduction 8) is sound only without LIVE, EXPEL and M_REWRITE"
#endif
#define BEHIND_AT(i_, j_) (!HONEST(i_) || ANCESTOR(sb[j_], br[(i_) * NP + (j_)]))
#ifdef M_RELAY
/* the seeded fault: forgotten when behind some honest peer's copy */
#define BEHIND_SOME(i_, j_) (HONEST(i_) && ANCESTOR(sb[j_], br[(i_) * NP + (j_)]))
#define RELAY_OLD(j_) ((j_) != DIS && sb[j_] != 0 && (BEHIND_SOME(0, j_) || BEHIND_SOME(1, j_) || \
	(NP > 2 && BEHIND_SOME(2 % NP, j_)) || (NP > 3 && BEHIND_SOME(3 % NP, j_))))
#else
#define RELAY_OLD(j_) ((j_) != DIS && sb[j_] != 0 && BEHIND_AT(0, j_) && BEHIND_AT(1, j_) && \
	(NP < 3 || BEHIND_AT(2 % NP, j_)) && (NP < 4 || BEHIND_AT(3 % NP, j_)))
#endif
/* CHECK_RELAY (with RELAY=0; ctest model_spin) checks what reduction 8
 * rests on: a copy found old at the end of a step and left as it is by
 * the next step is still old then (an assertion); and a sync from the
 * seat that reads such a copy as the genesis (read_remote) reaches the
 * same states (the count must be RELAY=0's). */
#ifdef CHECK_RELAY
#define RELAY_CHECK h_j = 0; \
	do \
	:: h_j < NP -> \
		assert(!(relay_mark[h_j] && sb[h_j] == relay_val[h_j]) || RELAY_OLD(h_j)); \
		relay_mark[h_j] = RELAY_OLD(h_j); \
		relay_val[h_j] = (RELAY_OLD(h_j) -> sb[h_j] : 0); \
		h_j++ \
	:: else -> break \
	od
#else
#define RELAY_CHECK skip
#endif
#if RELAY
#define RELAY_FORGET h_j = 0; \
	do \
	:: h_j < NP -> if :: RELAY_OLD(h_j) -> sb[h_j] = 0 :: else fi; h_j++ \
	:: else -> break \
	od
#else
#define RELAY_FORGET skip
#endif
/*
 * A kept snapshot's branch that can bring nothing any more is forgotten
 * (FORGET, default 1 but with LIVE, EXPEL or M_REWRITE; spec/model.md,
 * "The big configuration", reduction 12). Branch j of the snapshot peer
 * i keeps, behind or equal to i's copy of branch j, stays so (i's copies
 * only move forward), and is read for nothing that the genesis in its
 * place would not give: when the snapshot is taken, branch j is skipped
 * either way (behind or equal), and the check that a new commit of seat
 * j is on its author's branch at that remote finds it on i's own copy
 * anyway; a kept branch behind is no news (KEPT_NEWJ) either way. So it
 * is set to the genesis, and states that differ in nothing else are one.
 */
#ifndef FORGET
#if defined(LIVE) || defined(EXPEL) || defined(M_REWRITE)
#define FORGET 0
#else
#define FORGET 1
#endif
#endif
#if FORGET && (defined(LIVE) || defined(EXPEL) || defined(M_REWRITE))
#error "FORGET (reduction 12) is sound only without LIVE, EXPEL and M_REWRITE"
#endif
#if FORGET && defined(CHECK_FORGET)
#error "CHECK_FORGET checks FORGET's premise: it needs FORGET=0"
#endif
#define KEPT_OLD(l_) (stash[l_] != 0 && ANCESTOR(stash[l_], br[l_]))
#ifdef M_FORGET
/* the seeded fault: a kept branch forgotten when it is not behind */
#undef KEPT_OLD
#define KEPT_OLD(l_) (stash[l_] != 0 && !ANCESTOR(stash[l_], br[l_]))
#endif
/* CHECK_FORGET (with FORGET=0; ctest model_spin) checks what reduction
 * 12 rests on: a kept branch found old at the end of a step and left as
 * it is by the next step is still old then (an assertion); and taking
 * the snapshot with such branches read as the genesis (late) reaches
 * the same states (the count must be FORGET=0's). */
#ifdef CHECK_FORGET
#define FORGET_CHECK h_l = 0; \
	do \
	:: h_l < NP * NP -> \
		assert(!(forget_mark[h_l] && stash[h_l] == forget_val[h_l]) || KEPT_OLD(h_l)); \
		forget_mark[h_l] = KEPT_OLD(h_l); \
		forget_val[h_l] = (KEPT_OLD(h_l) -> stash[h_l] : 0); \
		h_l++ \
	:: else -> break \
	od
#else
#define FORGET_CHECK skip
#endif
#if FORGET
#define KEPT_FORGET h_l = 0; \
	do \
	:: h_l < NP * NP -> if :: KEPT_OLD(h_l) -> stash[h_l] = 0 :: else fi; h_l++ \
	:: else -> break \
	od
#else
#define KEPT_FORGET skip
#endif
/* The end of every step: the scratch cleared, conv updated. STEP_END inside
 * a d_step, STEP_END_A inside an atomic (one transition). */
#if FORGET || defined(CHECK_FORGET)
#define STEP_END RELAY_CHECK; RELAY_FORGET; FORGET_CHECK; KEPT_FORGET; CLEAR_CARRIED; CLEAR_SCRATCH; LIVE_UPDATE
#else
#define STEP_END RELAY_CHECK; RELAY_FORGET; CLEAR_CARRIED; CLEAR_SCRATCH; LIVE_UPDATE
#endif
#define STEP_END_A d_step { STEP_END }

#ifdef M_UNFAIR
#define SYNCS(i) ((i) != NP - 1) /* the seeded fault: it never syncs */
#else
#define SYNCS(i) 1
#endif
/*
 * Only a sync that can change something is tried (a reduction,
 * spec/model.md): one where some branch of remote kk_'s snapshot is
 * neither behind peer i's copy nor refused before. Any other sync leaves
 * the state as it is (take skips every branch), and so does its snapshot
 * kept for later: i's copies only move forward and its refusals only
 * grow, so what brings nothing now brings nothing later.
 */
#define SNAP(kk_, j_) ((kk_) == DIS -> sb[j_] : br[(kk_) * NP + (j_)])
/* Branch j_ of a snapshot from remote k_, at commit v_, is news to peer
 * i_: not i_'s own branch, not behind or equal to i_'s copy, not refused
 * before from k_, not built on a commit found invalid. Asked alike of a
 * snapshot read now (NEWJ) and of one kept for later (KEPT_NEWJ,
 * reduction 7). */
#define NEWV(i_, v_, k_, j_) ((j_) < NP && (j_) != (i_) && (v_) < nc && \
	!ANCESTOR(v_, br[(i_) * NP + (j_) % NP]) && \
	!HAS(qoff[(i_) * NP + (k_)], v_) && (anc[v_] & qbad[i_]) == 0)
#define NEWJ(kk_, j_) NEWV(i, SNAP(kk_, (j_) % NP), kk_, j_)
#ifdef EXPEL
/* a record does not stop the syncs; a remote's record is news to a peer
 * with none (a void or unfollowed branch counts as news: such a sync
 * changes nothing, a self-loop) */
#define NEWS(kk_) (NEWJ(kk_, 0) || NEWJ(kk_, 1) || NEWJ(kk_, 2) || NEWJ(kk_, 3) || \
	(verdict[i] == NONE && (kk_) != DIS && vproof[(kk_) % NP] != 0))
#else
#define NEWS(kk_) (verdict[i] == NONE && (NEWJ(kk_, 0) || NEWJ(kk_, 1) || NEWJ(kk_, 2) || NEWJ(kk_, 3)))
#endif
#define CAN_SYNC(kk_) (up[i] && (kk_) != i && NEWS(kk_))

/*
 * A kept snapshot that can bring nothing any more is dropped at the end
 * of the sync that made it so (STALE, default 1 but with LIVE or EXPEL;
 * spec/model.md, "The big configuration", reduction 7). "Nothing": each
 * branch of it is peer i_'s own, behind or equal to i_'s copy, refused
 * before from that remote, or built on a commit found invalid; taking it
 * later skips every branch (take_br) and recomputes the same position, as
 * a sync that NEWS rules out does. Without EXPEL (whose settle moves
 * copies back) and M_REWRITE (which adopts a rewrite), i_'s copies only
 * move forward and its refusals only grow, so a snapshot that brings
 * nothing now brings nothing later: the state that keeps it and the one
 * whose late() already took it (the same but for the slot) behave alike,
 * and are made one, as if late() ran at once.
 */
#ifndef STALE
#if defined(LIVE) || defined(EXPEL) || defined(M_REWRITE)
#define STALE 0
#else
#define STALE 1
#endif
#endif
#if STALE && (defined(LIVE) || defined(EXPEL) || defined(M_REWRITE))
#error "STALE (reduction 7) is sound only without LIVE, EXPEL and M_REWRITE"
#endif
#define KEPT(i_, j_) stash[(i_) * NP + (j_) % NP]
#define KEPT_NEWJ(i_, j_) NEWV(i_, KEPT(i_, j_), stash_from[i_], j_)
/* Peer i_ keeps no snapshot (a stale one dropped, a crash). (A macro,
 * not an inline: spin adds a label to each inline's expansion, and the
 * verifier stays the one generated before this was shared.) */
#define EMPTY_STASH_BR(i_) stash_from[i_] = NONE; \
	h_j = 0; \
	do \
	:: h_j < NP -> stash[(i_) * NP + h_j] = 0; h_j++ \
	:: else -> break \
	od
#ifdef EXPEL
#define EMPTY_STASH(i_) EMPTY_STASH_BR(i_); stash_rec[i_] = 0
#else
#define EMPTY_STASH(i_) EMPTY_STASH_BR(i_)
#endif
#ifdef M_STALE
#define KEPT_NEWS(i_) 0 /* the seeded fault: every kept snapshot is stale */
#else
#define KEPT_NEWS(i_) (verdict[i_] == NONE && (KEPT_NEWJ(i_, 0) || KEPT_NEWJ(i_, 1) || \
	KEPT_NEWJ(i_, 2) || KEPT_NEWJ(i_, 3)))
#endif
inline drop_stale(i_)
{
	if
	:: stash_from[i_] != NONE && !KEPT_NEWS(i_) -> EMPTY_STASH(i_)
	:: else
	fi
}
#if STALE
#define DROP_STALE(i_) d_step { drop_stale(i_) }
#else
#define DROP_STALE(i_) skip
#endif
/*
 * CHECK_STALE (with STALE=0; ctest model_spin runs it): checks what
 * reduction 7 rests on. A kept snapshot found bringing nothing at the end
 * of a sync (stale_seen) is taken later, whenever late() comes, with no
 * change to the peer but the emptied slot.
 */
#ifdef CHECK_STALE
bit stale_seen[NP];
hidden byte h_sbr[NP], h_sho[NP], h_svd, h_sto, h_swf, h_sar;
hidden short h_sqo[NP], h_sqb;
#define STALE_NEW(i_) if :: stash_from[i_] == NONE -> stale_seen[i_] = 0 :: else fi
#define STALE_SEEN(i_) d_step { if :: stash_from[i_] != NONE && !KEPT_NEWS(i_) -> stale_seen[i_] = 1 :: else fi }
#define STALE_SAVE(i_) d_step { \
	h_j = 0; \
	do \
	:: h_j < NP -> h_sbr[h_j] = br[i_ * NP + h_j]; h_sho[h_j] = held[i_ * NP + h_j]; h_sqo[h_j] = qoff[i_ * NP + h_j]; h_j++ \
	:: else -> break \
	od; \
	h_svd = verdict[i_]; h_sto = todo[i_]; h_swf = waitfor[i_]; h_sar = arr[i_]; h_sqb = qbad[i_] }
#define STALE_SAME(i_) d_step { \
	if \
	:: stale_seen[i_] -> \
		h_j = 0; \
		do \
		:: h_j < NP -> assert(h_sbr[h_j] == br[i_ * NP + h_j] && h_sho[h_j] == held[i_ * NP + h_j] && \
		                      h_sqo[h_j] == qoff[i_ * NP + h_j]); h_j++ \
		:: else -> break \
		od; \
		assert(h_svd == verdict[i_] && (h_sto == todo[i_] || pend[i_] != NONE) && h_swf == waitfor[i_] && h_sar == arr[i_] && h_sqb == qbad[i_]) \
	:: else \
	fi; \
	stale_seen[i_] = 0 }
#else
#define STALE_NEW(i_) skip
#define STALE_SEEN(i_) skip
#define STALE_SAVE(i_) skip
#define STALE_SAME(i_) skip
#endif

/*
 * Lazy deviating writes (LAZY, default 1 but with LIVE; spec/model.md,
 * "The big configuration", reduction 6). A commit of the dishonest seat
 * that nothing reads when it is written is visible to no honest step
 * until the seat shows it or writes on it. Whether a later write of the
 * seat can read the new commit of kind k_ at event st_: one more
 * deviation is left (any write may build on anything), or a due write
 * of the seat can (an action on a merge, a child or merge of a fan-out
 * of the seat's events). When not, the only read left is a show: the
 * commit is written then, in the step that shows it.
 */
#ifndef LAZY
#ifdef LIVE
#define LAZY 0
#else
#define LAZY 1
#endif
#endif
#define D_DUE_READS(k_, st_) ((!h_wt && (((k_) == MERGE && (st_) + 1 < NEV && EV_ACTOR((st_) + 1) == DIS) || \
	((k_) == MAIN && (st_) >= 1 && (HAS(EV_SET(st_), DIS) || EV_ACTOR(st_) == DIS)))) || \
	((k_) == CHILD && EV_ACTOR(st_) == DIS && !tainted[h_pw]))
#define D_LATER(k_, st_) (bad < BAD || (k_) == XPEL || D_DUE_READS(k_, st_))


/* Peer i_ moves its own branch to what it wrote (if anything). */
inline move_own(i_)
{
	if
	:: pend[i_] != NONE ->
		assert(ANCESTOR(br[i_ * NP + i_], pend[i_])); /* a fast-forward */
		br[i_ * NP + i_] = pend[i_];
		pend[i_] = NONE;
#ifdef EXPEL
		settle(i_);
		expel_props(i_);
#endif
		one_history(i_);
		prefixes(i_);
		position(i_)
	:: else
	fi
}

#ifdef EXPEL
#define PLAYS(i) 1 /* a record stops the game at P only */
#else
#define PLAYS(i) (verdict[i] == NONE) /* a verdict halts the peer */
#endif

proctype peer(byte i)
{
end:
	do
	/* act: write the commit (a crash may come next), then move the branch */
#if CRASHES == 0 && defined(EXPEL)
	:: atomic { d_step { /* two d_steps, one step: spin takes no longer d_step */
#else
	:: d_step {
#endif
		up[i] && todo[i] && PLAYS(i) && pend[i] == NONE ->
		position(i);
		if
		:: h_act == MAIN ->
			h_vv = (EV_RAND(step[h_apar] + 1) -> CHAIN(i) : 0);
			h_st = step[h_apar] + 1;
			write_commit(MAIN, i, i, h_apar, 0, h_st, h_vv, 1);
			arr[i] = (EV_RAND(h_st) -> h_vv : 0);
			pend[i] = h_c
		:: h_act == CHILD ->
			h_vv = (EV_RAND(step[h_apar]) -> CHAIN(i) : 0);
			h_st = step[h_apar];
			write_commit(CHILD, i, i, h_apar, 0, h_st, h_vv, 1);
			if
			:: MERGER(h_apar) == i -> arr[i] = FOLD(arr[i], CONTRIB(h_c))
			:: else
			fi;
			pend[i] = h_c
		:: h_act == MERGE ->
			merge_value(h_apar, h_amp, h_v);
			/* P3: the fold in arrival order is the fold in seat order */
			assert(arr[i] == h_v);
			h_st = step[h_apar];
			h_vv = arr[i];
			write_commit(MERGE, i, i, h_apar, h_amp, h_st, h_vv, 1);
			pend[i] = h_c
#ifdef EXPEL
		:: h_act == XPEL ->
			/* expel the seat of the record: the others' children of P
			 * (or P alone), then the proof */
			write_commit(XPEL, i, i, h_apar, h_amp, h_xst, verdict[i], 1);
			pend[i] = h_c
#endif
		:: else
		fi;
		todo[i] = 0;
#if CRASHES == 0
		/* With no crash to come between them, writing the commit and
		 * moving the branch are one step (a reduction: spec/model.md) */
#ifdef EXPEL
		skip
		}; d_step {
#endif
		move_own(i);
#endif
		STEP_END
#if CRASHES == 0 && defined(EXPEL)
	   } }
#else
	   }
#endif
	:: d_step {
		up[i] && pend[i] != NONE ->
		move_own(i);
		STEP_END
	   }
#ifdef M_EARLYREVEAL
	/* the seeded fault: reveal as soon as the 7 is merged */
	:: d_step {
		up[i] && verdict[i] == NONE && pend[i] == NONE &&
		HAS(OTHERS, i) && !HAS(revealed, i) ->
		position(i);
		if
		:: kind[h_top] == MERGE && step[h_top] == 1 ->
			h_vv = CHAIN(i);
			write_commit(CHILD, i, i, h_top, 0, 2, h_vv, 1);
			pend[i] = h_c
		:: else
		fi;
		STEP_END
	   }
#endif
#ifdef LIVE
	/* a fair sync: with each other peer in turn, once the peer has
	 * written and moved what its position asks for */
	:: atomic {
		up[i] && pend[i] == NONE && !(todo[i] && PLAYS(i)) &&
		SYNCS(i) ->
		h_k = rr[i];
		rr[i] = (rr[i] + 1) % NP;
		if
		:: rr[i] == i -> rr[i] = (rr[i] + 1) % NP
		:: else
		fi;
		sync(i, h_k)
		;
		STEP_END_A
	   }
#else
	:: atomic {
		PICK(CAN_SYNC) ->
		STALE_NEW(i);
		sync(i, h_k)
		;
		STALE_SEEN(i);
		DROP_STALE(i);
		STEP_END_A
	   }
#endif
	:: atomic {
		up[i] && stash_from[i] != NONE ->
		STALE_SAVE(i);
		late(i)
		;
		STALE_SAME(i);
		STEP_END_A
	   }
	/* crash (what was written but not on the branch, and the messages
	 * in flight to it, are lost), and restart */
	:: d_step {
		up[i] && crashes < CRASHES ->
		crashes++;
		up[i] = 0;
		pend[i] = NONE;
		EMPTY_STASH(i);
		position(i)
		;
		STEP_END
	   }
	:: d_step { !up[i] -> up[i] = 1; STEP_END }
	od
}

/* pw := any commit (nondeterministically). */
inline any_commit(v_)
{
	v_ = 0;
	do
	:: v_ + 1 < nc -> v_++
	:: break
	od
}

/*
 * The dishonest seat d: writes any commit of the menu below (at most BAD
 * of them), points any branch it shows at any commit it signed, relays
 * what it receives or drops it, or does nothing at all.
 */
/* a read that extends some branch it shows (any other changes nothing) */
#define DEXT(kk_, j_) ((j_) < NP && sb[(j_) % NP] != br[(kk_) * NP + (j_) % NP] && \
	ANCESTOR(sb[(j_) % NP], br[(kk_) * NP + (j_) % NP]))
#define D_READ(kk_) ((kk_) != DIS && (DEXT(kk_, 0) || DEXT(kk_, 1) || DEXT(kk_, 2) || DEXT(kk_, 3)))

/* h_wt: the commit about to be written is tainted */

/* h_wt := whether commit (h_kk, h_aa, d, h_pw, h_mp, h_st, h_vv, h_lg)
 * would be tainted: judged in the free slot nc, cleared again */
inline would_taint(d_)
{
	kind[nc] = h_kk;
	author[nc] = h_aa;
	signer[nc] = d_;
	par[nc] = h_pw;
	mpar[nc] = h_mp;
	step[nc] = h_st;
	val[nc] = h_vv;
	legal[nc] = h_lg;
	local_valid(nc, 1);
	h_wt = !h_ok || tainted[h_pw];
	h_x = 0;
	do
	:: h_x < nc ->
		if
		:: HAS(h_mp, h_x) && tainted[h_x] -> h_wt = 1
		:: else
		fi;
		h_x++
	:: else -> break
	od;
	kind[nc] = 0;
	author[nc] = 0;
	signer[nc] = 0;
	par[nc] = 0;
	mpar[nc] = 0;
	step[nc] = 0;
	val[nc] = 0;
	legal[nc] = 0
}

/* Seat d_'s due action at event st_ (o_: the seats expelled where it is
 * played): a main action, a child (a discard, a reveal), or the merge of
 * children of the seats s_. Asked by the write step (h_ok) and worth. */
#define DUE_MAIN(d_, st_, o_) (ACT(st_, o_) == d_ && LEFT2(o_))
#define DUE_CHILD(d_, st_, o_) HAS(SET(st_, o_), d_)
#define DUE_MERGE(d_, st_, o_, s_) (ACT(st_, o_) == d_ && s_ == SET(st_, o_))

#ifndef LIVE
/* h_dok := h_dok, or whether seat d_'s due write of kind k_ on p_
 * (event h_dst, merge parents h_dm, value h_dv) changes anything: a new
 * commit, or one already written that its branch moves forward to (the
 * write step below, which finds the same commit in the table and moves
 * sb[d_] only then) */
inline due_changes(d_, k_, p_)
{
	h_dc = 0;
	do
	:: h_dc < nc && !IS_COMMIT(h_dc, k_, d_, d_, p_, h_dm, h_dst, h_dv, 1) -> h_dc++
	:: else -> break
	od;
	h_dok = h_dok || h_dc == nc || (sb[d_] != h_dc && ANCESTOR(sb[d_], h_dc))
}

/*
 * h_mp := the parents on which a write of seat d_ can change something
 * (spec/model.md, "The big configuration", 11). Nothing is built on a
 * child. With a deviation left, any other commit. With none, a commit
 * not found invalid on which its due action (h_ok in the write step: a
 * main action, a child, or a merge of the children there are, in its
 * own name) is a new commit or moves its branch; every other choice
 * ends at skipw having written nothing.
 */
inline worth(d_)
{
	h_mp = 0;
	h_dp = 0;
	do
	:: h_dp < nc ->
		if
		:: kind[h_dp] == CHILD -> skip
		:: kind[h_dp] != CHILD && bad < BAD -> h_mp = h_mp | BIT(h_dp)
		:: kind[h_dp] != CHILD && bad >= BAD && tainted[h_dp] -> skip
		:: kind[h_dp] != CHILD && bad >= BAD && !tainted[h_dp] ->
			out_of(anc[h_dp], h_do);
			h_dok = 0;
			h_dm = 0;
			if
			:: kind[h_dp] == MERGE || kind[h_dp] == XPEL || (kind[h_dp] == MAIN && step[h_dp] == 0) ->
				h_dst = step[h_dp] + 1;
				if
				:: h_dst < NEV && DUE_MAIN(d_, h_dst, h_do) ->
					h_dv = (EV_RAND(h_dst) -> CHAIN(d_) : 0);
					due_changes(d_, MAIN, h_dp)
				:: else
				fi
			:: kind[h_dp] == MAIN && step[h_dp] >= 1 ->
				h_dst = step[h_dp];
				if
				:: h_dst < NEV && DUE_CHILD(d_, h_dst, h_do) ->
					h_dv = (EV_RAND(h_dst) -> CHAIN(d_) : 0);
					due_changes(d_, CHILD, h_dp)
				:: else
				fi;
				children_of(h_dp, ALL_COMMITS, h_dm, h_ds);
				if
				:: h_dst < NEV && h_dm != 0 && DUE_MERGE(d_, h_dst, h_do, h_ds) ->
					merge_value(h_dp, h_dm, h_dv);
					due_changes(d_, MERGE, h_dp)
				:: else
				fi
			:: else
			fi;
			if
			:: h_dok -> h_mp = h_mp | BIT(h_dp)
			:: else
			fi
		fi;
		h_dp++
	:: else -> break
	od
}
#endif

proctype dishonest(byte d)
{
end:
	do
	:: atomic {
		nc < MAXC ->
#ifdef LIVE
		any_commit(h_pw);
#else
		/*
		 * Only a parent on which the write can change something is
		 * tried (worth): every other choice would reach skipw having
		 * written nothing, a step back to the state it left (the same
		 * states, a third of the transitions: spec/model.md, "The big
		 * configuration", 10 and 11). Not with LIVE, where a step to
		 * itself can close a fair cycle.
		 */
		d_step { worth(d) };
		if
		:: h_mp == 0 -> goto skipw
		:: else
		fi;
		h_pw = 0;
		do /* (the newest first, as any_commit: counterexamples stay short) */
		:: h_pw + 1 < nc && (h_mp >> (h_pw + 1)) != 0 -> h_pw++
		:: HAS(h_mp, h_pw) -> break
		od;
#endif
		h_mp = 0;
		h_lg = 1;
		if
		:: h_aa = d
#ifndef LIVE
		:: bad < BAD -> h_aa = (d + 1) % NP /* forged in another seat's name */
		:: bad < BAD && NP > 2 -> h_aa = (d + 2) % NP
		:: bad < BAD && NP > 3 -> h_aa = (d + 3) % NP
#else
		:: h_aa = (d + 1) % NP /* forged in another seat's name */
		:: NP > 2 -> h_aa = (d + 2) % NP
		:: NP > 3 -> h_aa = (d + 3) % NP
#endif
		fi;
		if
		:: kind[h_pw] == MERGE || kind[h_pw] == XPEL || (kind[h_pw] == MAIN && step[h_pw] == 0) ->
			h_kk = MAIN;
			h_st = step[h_pw] + 1;
			h_vv = (EV_RAND(h_st) -> CHAIN(h_aa) : 0)
		:: kind[h_pw] == MAIN && step[h_pw] >= 1 ->
			h_kk = CHILD;
			h_st = step[h_pw];
			h_vv = (EV_RAND(h_st) -> CHAIN(h_aa) : 0)
		:: kind[h_pw] == MAIN && step[h_pw] >= 1 ->
			/* a merge of the children there are */
			h_kk = MERGE;
			h_st = step[h_pw];
			d_step {
				children_of(h_pw, ALL_COMMITS, h_mp, h_seats);
				merge_value(h_pw, h_mp, h_vv)
			};
			skip
#ifdef EXPEL
		:: (DEVS & 16) && kind[h_pw] != CHILD ->
			/* an expulsion (never its due: it is the equivocator) of
			 * another seat, with the children of h_pw there are */
			h_kk = XPEL;
			if
			:: h_vv = (d + 1) % NP
			:: NP > 2 -> h_vv = (d + 2) % NP
			fi;
			d_step {
				h_pk = (kind[h_pw] == MAIN && step[h_pw] >= 1 -> CHILD : MAIN);
				h_st = (h_pk == CHILD -> step[h_pw] : step[h_pw] + 1);
				h_mp = 0;
				h_x = 0;
				do
				:: h_x < nc ->
					if
					:: kind[h_x] == h_pk && par[h_x] == h_pw -> h_mp = h_mp | BIT(h_x)
					:: else
					fi;
					h_x++
				:: else -> break
				od
			};
			skip
#endif
		:: else -> goto skipw /* nothing is built on a child: it would block
		                       * here, a stuck seat, which is only a silent one */
		fi;
		h_n0 = bad;
		/* its own due action on a valid commit costs nothing; anything
		 * else is one of the BAD deviations */
		d_step { out_of(anc[h_pw], h_o) };
		h_ok = h_aa == d && !tainted[h_pw] && h_st < NEV &&
		       ((h_kk == MAIN && DUE_MAIN(d, h_st, h_o)) ||
		        (h_kk == CHILD && DUE_CHILD(d, h_st, h_o)) ||
		        (h_kk == MERGE && DUE_MERGE(d, h_st, h_o, h_seats)));
		if
		:: h_st >= NEV || ((h_kk == MERGE || h_kk == XPEL) && h_mp == 0) -> skip
		:: else ->
			if
			:: h_ok -> skip                        /* as it should be */
#ifndef DEV_AUTHOR
			:: bad < BAD && (DEVS & 1) && h_kk != XPEL -> bad++ /* as it is (forged, or out of turn) */
#else
			/* (a part of a search: that deviation in seat DIS +
			 * DEV_AUTHOR's name only; spec/model.md, "The goal
			 * configuration in parts") */
			:: bad < BAD && (DEVS & 1) && h_kk != XPEL && h_aa == (d + DEV_AUTHOR) % NP -> bad++
#endif
			:: bad < BAD && h_kk == XPEL -> bad++  /* a false expulsion */
			:: bad < BAD && (DEVS & 2) && h_aa == d && h_kk != MERGE && h_kk != XPEL ->
				bad++; h_vv = h_vv ^ 1        /* the other choice (a fork); a wrong value */
			:: bad < BAD && (DEVS & 4) && h_aa == d && EV_RAND(h_st) && h_kk != XPEL ->
				bad++; h_vv = ANCHOR(h_aa)    /* a reused chain value */
			:: bad < BAD && (DEVS & 8) && h_aa == d && h_kk != XPEL -> bad++; h_lg = 0 /* an illegal action */
			:: else -> goto skipw
			fi;
#if LAZY
			/* read by nothing now nor later but a show, and no show
			 * left: it would never be seen, so it is not written
			 * (its own branch moving to it is read enough: an over-
			 * approximation here, a merge's children are not known) */
			h_due = h_ok;
			d_step { would_taint(d) };
			h_ok = h_due;
			if
			:: !D_LATER(h_kk, h_st) && shown >= SHOW &&
			   !(h_ok && (ANCESTOR(sb[d], h_pw) || h_kk == MERGE)) ->
				bad = h_n0; /* the deviation is not spent */
				goto skipw
			:: else
			fi;
#endif
			d_step {
				h_n0 = nc;
				write_commit(h_kk, h_aa, d, h_pw, h_mp, h_st, h_vv, h_lg);
				/* its own branch follows its due actions */
				if
				:: h_ok && h_aa == d && ANCESTOR(sb[d], h_c) -> sb[d] = h_c; h_n0 = nc
				:: else
				fi
			};
#if LAZY
			/* a new commit nothing has read, and nothing but a show
			 * will: shown now, in the step that writes it */
			if
			:: h_n0 != nc && !D_LATER(h_kk, h_st) && shown < SHOW ->
				shown++;
				if
				:: sb[0] = h_c
				:: sb[1] = h_c
				:: NP > 2 -> sb[2 % NP] = h_c
				:: NP > 3 -> sb[3 % NP] = h_c
				fi
			:: else
			fi;
#endif
			skip
		fi;
skipw:		skip
		;
		STEP_END_A
	   }
	/* show a branch at a commit it signed (rewrite, forge) */
	:: atomic {
		dsig != 0 && shown < SHOW ->
		shown++;
		h_pw = 0;
		do
		:: HAS(dsig, h_pw) -> break
		:: (dsig >> (h_pw + 1)) != 0 -> h_pw++
		od;
		if
		:: sb[0] = h_pw
		:: sb[1] = h_pw
		:: NP > 2 -> sb[2 % NP] = h_pw
		:: NP > 3 -> sb[3 % NP] = h_pw
		fi
		;
		STEP_END_A
	   }
	/* read an honest peer's branches: relay what extends its own */
	:: atomic {
		PICK(D_READ) ->
		d_step {
		read_remote(h_k);
		h_j = 0;
		do
		:: h_j < NP ->
			if
			:: ANCESTOR(sb[h_j], h_m.h_t[h_j]) -> sb[h_j] = h_m.h_t[h_j]
			:: else
			fi;
			h_j++
		:: else -> break
		od
		}
		;
		STEP_END_A
	   }
	od
}

init
{
	atomic {
		/* the genesis, by seat 0 */
		kind[0] = MAIN;
		author[0] = 0;
		signer[0] = 0;
		par[0] = NONE;
		step[0] = 0;
		legal[0] = 1;
		anc[0] = 1;
		nc = 1;
		h_j = 0;
		do
		:: h_j < NP ->
			verdict[h_j] = NONE;
			stash_from[h_j] = NONE;
			pend[h_j] = NONE;
			up[h_j] = 1;
			todo[h_j] = (h_j == EV_ACTOR(1));
			waitfor[h_j] = BIT(EV_ACTOR(1));
#ifdef LIVE
			rr[h_j] = (h_j + 1) % NP;
#endif
			h_k = 0;
			do
			:: h_k < NP -> held[h_j * NP + h_k] = NONE; h_k++
			:: else -> break
			od;
			h_j++
		:: else -> break
		od;
		h_j = 0;
		do
		:: h_j < NP ->
			if
			:: HONEST(h_j) -> run peer(h_j)
			:: else -> run dishonest(h_j)
			fi;
			h_j++
		:: else -> break
		od;
		STEP_END_A
	}
}

#ifdef LIVE
ltl converge { <> [] conv }
#endif
