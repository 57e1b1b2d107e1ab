/*
 * story.c - the window's log in plain words (story.h). Every line is built
 * from the event and the two states, never from the commit's text, so it
 * says the same for a commit made here, by a bot peer or by a replay.
 */
#include <stdio.h>
#include <string.h>

#include "story.h"

const char *ui_story_name(char *buf, size_t n, const catan_names *names, int p,
			  int viewer, bool cap)
{
	if (p == viewer && p != CATAN_NONE)
		snprintf(buf, n, "%s", cap ? "You" : "you");
	else if (p >= 0 && p < names->n) {
		snprintf(buf, n, "%s", names->name[p]);
		if (cap && buf[0] >= 'a' && buf[0] <= 'z')
			buf[0] = (char)(buf[0] - 'a' + 'A');
	} else
		snprintf(buf, n, "%s", cap ? "Somebody" : "somebody");
	return buf;
}

/* "2 grain, 1 ore" for counts c; "nothing" when all are zero. */
static void cards_text(char *buf, size_t n, const int *c)
{
	size_t used = 0;
	buf[0] = 0;
	for (int r = 0; r < CATAN_RES_COUNT && used < n; r++)
		if (c[r] > 0)
			used += (size_t)snprintf(buf + used, n - used,
						 "%s%d %s", used ? ", " : "",
						 c[r], catan_res_name(r));
	if (!used)
		snprintf(buf, n, "nothing");
}

static void cards_of(int *c, const uint8_t *u)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		c[r] = u[r];
}

static int cards_total(const int *c)
{
	int t = 0;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		t += c[r];
	return t;
}

/* "the 6 grain tile" / "the desert". */
static void tile_text(char *buf, size_t n, const catan_board *b, int t)
{
	if (t < 0 || t >= b->ntiles)
		snprintf(buf, n, "a tile");
	else if (b->tile_terrain[t] == CATAN_DESERT)
		snprintf(buf, n, "the desert");
	else
		snprintf(buf, n, "the %d %s tile", b->tile_token[t],
			 catan_res_name(b->tile_terrain[t]));
}

typedef struct out_lines {
	char (*l)[UI_STORY_LINE];
	int n;
} out_lines;

static void add(out_lines *o, const char *fmt, const char *a, const char *b,
		const char *c)
{
	if (o->n >= UI_STORY_MAX)
		return;
	snprintf(o->l[o->n], UI_STORY_LINE, fmt, a ? a : "", b ? b : "",
		 c ? c : "");
	o->n++;
}

/* Hand gains of every player (after - before), as "X received ..." lines;
 * `except` is left out (the actor of a trade, told otherwise). */
static void received(out_lines *o, const catan_names *names,
		     const catan_state *before, const catan_state *after,
		     const catan_outcome *oc, int viewer)
{
	for (int p = 0; p < after->opt.nplayers; p++) {
		int c[CATAN_RES_COUNT];
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			c[r] = oc ? oc->produced[p][r]
				  : after->players[p].hand[r] -
					before->players[p].hand[r];
		if (cards_total(c) <= 0)
			continue;
		char who[32], what[96];
		ui_story_name(who, sizeof who, names, p, viewer, true);
		cards_text(what, sizeof what, c);
		add(o, "%s received %s", who, what, NULL);
	}
}

/* What changed hands in a steal: the resource the victim lost. */
static int stolen_res(const ui_event *e, const catan_state *before, int victim)
{
	if (e->has_outcome && e->outcome.stolen < CATAN_RES_COUNT)
		return e->outcome.stolen;
	if (victim < 0 || victim >= before->opt.nplayers)
		return CATAN_NONE;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (e->after.players[victim].hand[r] <
		    before->players[victim].hand[r])
			return r;
	return CATAN_NONE;
}

static void robber_lines(out_lines *o, const catan_board *b,
			 const catan_names *names, const catan_state *before,
			 const ui_event *e, int viewer, bool all,
			 const char *who)
{
	const catan_action *a = &e->action;
	char where[48], line[UI_STORY_LINE];
	tile_text(where, sizeof where, b, a->tile);
	snprintf(line, sizeof line, "%s %s the robber to %s", who,
		 a->kind == CATAN_ACT_PLAY_KNIGHT ? "played a knight and moved"
						  : "moved",
		 where);
	add(o, "%s", line, NULL, NULL);
	int victim = a->player;
	if (victim == CATAN_NONE || victim >= before->opt.nplayers)
		return;
	int res = stolen_res(e, before, victim);
	char vname[32];
	ui_story_name(vname, sizeof vname, names, victim, viewer, false);
	if (res == CATAN_NONE) {
		add(o, "%s robbed %s, who had no cards", who, vname, NULL);
		return;
	}
	bool see = all || viewer == victim || viewer == e->actor;
	if (viewer == e->actor)
		add(o, "%s stole %s from %s", who, catan_res_name(res), vname);
	else if (see)
		add(o, "%s stole a card from %s: %s", who, vname,
		    catan_res_name(res));
	else
		add(o, "%s stole a card from %s", who, vname, NULL);
}

int ui_story(char out[][UI_STORY_LINE], const catan_board *b,
	     const catan_names *names, const catan_state *before,
	     const ui_event *e, int viewer, bool all)
{
	out_lines o = {out, 0};
	if (e->merge)
		return 0;
	const catan_state *after = &e->after;
	char who[32], other[32], what[96], what2[96];
	ui_story_name(who, sizeof who, names, e->actor, viewer, true);
	if (!before) {
		snprintf(out[0], UI_STORY_LINE,
			 "A new game: %d players, %d VP to win",
			 after->opt.nplayers, after->opt.vp_target);
		return 1;
	}
	if (!e->has_action) {
		add(&o, "%s made a change the window cannot read", who, NULL,
		    NULL);
		return o.n;
	}
	const catan_action *a = &e->action;
	const catan_outcome *oc = e->has_outcome ? &e->outcome : NULL;
	int c[CATAN_RES_COUNT], d[CATAN_RES_COUNT];
	/* Fair dice: a request and the reveals it waits for. */
	if (after->phase == CATAN_PHASE_REVEAL &&
	    before->phase != CATAN_PHASE_REVEAL) {
		add(&o, "%s asked for %s: every player's secret decides it",
		    who,
		    a->kind == CATAN_ACT_ROLL	   ? "a roll"
		    : a->kind == CATAN_ACT_BUY_DEV ? "a development card"
						   : "a robbery",
		    NULL);
		return o.n;
	}
	/* A reveal is the protocol's, not a move: the prompt says whose the
	 * game waits for, and the completion tells the outcome. */
	if (a->kind == CATAN_ACT_REVEAL)
		return 0;
	switch (a->kind) {
	case CATAN_ACT_SETUP:
		add(&o, "%s placed a settlement and a road", who, NULL, NULL);
		received(&o, names, before, after, NULL, viewer);
		break;
	case CATAN_ACT_ROLL: {
		snprintf(what, sizeof what, "%d+%d = %d", after->dice[0],
			 after->dice[1], after->dice[0] + after->dice[1]);
		add(&o, "%s rolled %s", who, what, NULL);
		if (after->dice[0] + after->dice[1] == 7) {
			for (int p = 0; p < after->opt.nplayers; p++)
				if (after->discard[p]) {
					ui_story_name(other, sizeof other,
						      names, p, viewer, true);
					snprintf(what, sizeof what, "%d cards",
						 after->discard[p]);
					add(&o, "%s must discard %s", other,
					    what, NULL);
				}
		} else {
			int before_n = o.n;
			received(&o, names, before, after, oc, viewer);
			if (o.n == before_n)
				add(&o, "Nobody received anything", NULL, NULL,
				    NULL);
		}
		break;
	}
	case CATAN_ACT_DISCARD:
		cards_of(c, a->give);
		if (all || viewer == e->actor) {
			cards_text(what, sizeof what, c);
			add(&o, "%s discarded %s", who, what, NULL);
		} else {
			snprintf(what, sizeof what, "%d cards", cards_total(c));
			add(&o, "%s discarded %s", who, what, NULL);
		}
		break;
	case CATAN_ACT_ROBBER:
	case CATAN_ACT_PLAY_KNIGHT:
		robber_lines(&o, b, names, before, e, viewer, all, who);
		break;
	case CATAN_ACT_BUILD_ROAD:
		add(&o, "%s built a road", who, NULL, NULL);
		break;
	case CATAN_ACT_BUILD_SETTLEMENT:
		add(&o, "%s built a settlement", who, NULL, NULL);
		break;
	case CATAN_ACT_BUILD_CITY:
		add(&o, "%s built a city", who, NULL, NULL);
		break;
	case CATAN_ACT_BUY_DEV: {
		int got = oc ? oc->drawn : CATAN_NONE;
		if (got == CATAN_NONE && e->actor >= 0 &&
		    e->actor < after->opt.nplayers)
			for (int k = 0; k < CATAN_DEV_COUNT; k++)
				if (after->players[e->actor].devs[k] >
				    before->players[e->actor].devs[k])
					got = k;
		if ((all || viewer == e->actor) && got != CATAN_NONE)
			add(&o, "%s bought a development card: %s", who,
			    catan_dev_name(got), NULL);
		else
			add(&o, "%s bought a development card", who, NULL,
			    NULL);
		break;
	}
	case CATAN_ACT_PLAY_ROAD_BUILDING:
		add(&o, "%s played Road Building: %s", who,
		    a->edge2 == CATAN_NONE ? "one road" : "two roads", NULL);
		break;
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		snprintf(what, sizeof what, "%s%s%s", catan_res_name(a->res),
			 a->res2 == CATAN_NONE ? "" : " and ",
			 a->res2 == CATAN_NONE ? "" : catan_res_name(a->res2));
		add(&o, "%s played Year of Plenty: %s", who, what, NULL);
		break;
	case CATAN_ACT_PLAY_MONOPOLY: {
		int took = 0, mine = 0;
		for (int p = 0; p < after->opt.nplayers; p++)
			if (p != e->actor) {
				int k = before->players[p].hand[a->res] -
					after->players[p].hand[a->res];
				took += k;
				if (p == viewer)
					mine = k;
			}
		snprintf(what, sizeof what, "%s: took %d",
			 catan_res_name(a->res), took);
		if (mine)
			snprintf(what2, sizeof what2, " (%d of them from you)",
				 mine);
		else
			what2[0] = 0;
		add(&o, "%s played Monopoly on %s%s", who, what, what2);
		break;
	}
	case CATAN_ACT_TRADE_BANK:
		snprintf(what, sizeof what, "%d %s", a->count,
			 a->res < CATAN_RES_COUNT ? catan_res_name(a->res)
						  : "?");
		add(&o, "%s traded %s with the bank for 1 %s", who, what,
		    a->res2 < CATAN_RES_COUNT ? catan_res_name(a->res2) : "?");
		break;
	case CATAN_ACT_TRADE_OFFER:
		cards_of(c, a->give);
		cards_of(d, a->get);
		ui_story_name(other, sizeof other, names, a->player, viewer,
			      false);
		cards_text(what, sizeof what, c);
		cards_text(what2, sizeof what2, d);
		if (o.n < UI_STORY_MAX)
			snprintf(o.l[o.n++], UI_STORY_LINE,
				 "%.20s %s %.20s %.45s for %.45s", who,
				 before->phase == CATAN_PHASE_OFFER
				     ? "counter-offered"
				     : "offered",
				 other, what, what2);
		break;
	case CATAN_ACT_TRADE_ACCEPT:
	case CATAN_ACT_TRADE_REJECT:
		ui_story_name(other, sizeof other, names, before->offer_from,
			      viewer, false);
		if (!strcmp(other, "you"))
			snprintf(other, sizeof other, "your");
		else
			strncat(other, "'s", sizeof other - strlen(other) - 1);
		add(&o, "%s %s %s offer", who,
		    a->kind == CATAN_ACT_TRADE_ACCEPT ? "accepted" : "rejected",
		    other);
		break;
	case CATAN_ACT_END_TRADE:
		add(&o, "%s finished trading", who, NULL, NULL);
		break;
	case CATAN_ACT_END:
		add(&o, "%s ended the turn", who, NULL, NULL);
		break;
	case CATAN_ACT_EXPEL:
		ui_story_name(other, sizeof other, names, a->player, viewer,
			      false);
		add(&o,
		    "%s expelled %s, who signed two different moves on one "
		    "commit",
		    who, other, NULL);
		break;
	default:
		add(&o, "%s acted", who, NULL, NULL);
		break;
	}
	/* Trophies that changed hands, and the end. */
	if (after->longest_road != before->longest_road &&
	    after->longest_road < after->opt.nplayers) {
		ui_story_name(other, sizeof other, names, after->longest_road,
			      viewer, true);
		add(&o, "%s now %s the Longest Road", other,
		    after->longest_road == viewer ? "hold" : "holds", NULL);
	}
	if (after->largest_army != before->largest_army &&
	    after->largest_army < after->opt.nplayers) {
		ui_story_name(other, sizeof other, names, after->largest_army,
			      viewer, true);
		add(&o, "%s now %s the Largest Army", other,
		    after->largest_army == viewer ? "hold" : "holds", NULL);
	}
	if (after->phase == CATAN_PHASE_OVER &&
	    before->phase != CATAN_PHASE_OVER &&
	    after->winner < after->opt.nplayers) {
		ui_story_name(other, sizeof other, names, after->winner, viewer,
			      true);
		snprintf(what, sizeof what, "%d",
			 catan_state_vp(after, after->winner));
		add(&o, "%s won the game with %s VP!", other, what, NULL);
	}
	return o.n;
}
