/*
 * catan_client.c - I/O and geometry for C agents (catan_client.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "catan_client.h"

static bool same(catan_wpos a, catan_wpos b)
{
	return a.q == b.q && a.r == b.r && a.d == b.d;
}

int cc_vertex(const catan_client *c, catan_wpos p)
{
	for (int i = 0; i < c->nvertices; i++)
		if (same(c->vertex[i], p))
			return i;
	return -1;
}

int cc_edge(const catan_client *c, catan_wpos p)
{
	for (int i = 0; i < c->nedges; i++)
		if (same(c->edge[i], p))
			return i;
	return -1;
}

void cc_tile_corners(int q, int r, catan_wpos out[6])
{
	catan_wpos v[6] = {{q, r, 0}, {q + 1, r - 1, 1}, {q, r + 1, 0},
			   {q, r, 1}, {q - 1, r + 1, 0}, {q, r - 1, 1}};
	memcpy(out, v, sizeof v);
}

static void edge_ends(catan_wpos e, catan_wpos out[2])
{
	int q = e.q, r = e.r;
	if (e.d == 0) { /* W */
		out[0] = (catan_wpos){q, r - 1, 1};
		out[1] = (catan_wpos){q - 1, r + 1, 0};
	} else if (e.d == 1) { /* NW */
		out[0] = (catan_wpos){q, r - 1, 1};
		out[1] = (catan_wpos){q, r, 0};
	} else { /* NE */
		out[0] = (catan_wpos){q, r, 0};
		out[1] = (catan_wpos){q + 1, r - 1, 1};
	}
}

static int add_vertex(catan_client *c, catan_wpos p)
{
	int i = cc_vertex(c, p);
	if (i >= 0 || c->nvertices == CC_MAX_VERTICES)
		return i;
	c->vertex[c->nvertices] = p;
	return c->nvertices++;
}

static void board_from_setup(catan_client *c, const catan_msg_setup *s)
{
	c->ntiles = (int)c->begin.cell_count;
	for (int t = 0; t < c->ntiles; t++) {
		c->tile[t] = s->cells[t].pos;
		c->tile_type[t] = s->cells[t].type;
		c->tile_counter[t] = s->cells[t].counter;
		catan_wpos v[6];
		int q = s->cells[t].pos.q, r = s->cells[t].pos.r;
		cc_tile_corners(q, r, v);
		for (int k = 0; k < 6; k++)
			add_vertex(c, v[k]);
		catan_wpos e[6] = {{q, r, 0},	  {q, r, 1},
				   {q, r, 2},	  {q + 1, r, 0},
				   {q, r + 1, 1}, {q - 1, r + 1, 2}};
		for (int k = 0; k < 6; k++) {
			if (cc_edge(c, e[k]) >= 0 || c->nedges == CC_MAX_EDGES)
				continue;
			catan_wpos ends[2];
			edge_ends(e[k], ends);
			c->edge[c->nedges] = e[k];
			c->edge_end[c->nedges][0] = add_vertex(c, ends[0]);
			c->edge_end[c->nedges][1] = add_vertex(c, ends[1]);
			c->nedges++;
		}
	}
	for (int t = 0; t < c->ntiles; t++) {
		int n = c->tile_counter[t];
		if (c->tile_type[t] == CATAN_WIRE_DESERT || !n)
			continue;
		catan_wpos v[6];
		cc_tile_corners(c->tile[t].q, c->tile[t].r, v);
		for (int k = 0; k < 6; k++) {
			int i = cc_vertex(c, v[k]);
			if (i >= 0)
				c->pips[i] += 6 - (n > 7 ? n - 7 : 7 - n);
		}
	}
}

static int send_msg(const catan_client *c, const catan_msg *m)
{
	uint8_t buf[CATAN_MSG_MAX];
	int n = catan_msg_encode(buf, sizeof buf, m, &c->begin);
	if (n < 0)
		return -1;
	for (int off = 0; off < n;) {
		ssize_t w = write(1, buf + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (int)w;
	}
	return 0;
}

int catan_client_run(catan_client_move move, void *ctx)
{
	static catan_client c;
	static uint8_t buf[2 * CATAN_MSG_MAX];
	static catan_msg m;
	size_t len = 0;
	bool have_begin = false;
	for (;;) {
		char why[160];
		int n =
		    catan_msg_decode(&m, buf, len, have_begin ? &c.begin : NULL,
				     why, sizeof why);
		if (n < 0) {
			fprintf(stderr, "agent: bad message: %s\n", why);
			return 1;
		}
		if (n == 0) {
			if (len == sizeof buf)
				return 1;
			ssize_t r = read(0, buf + len, sizeof buf - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return 0;
			len += (size_t)r;
			continue;
		}
		memmove(buf, buf + n, len - (size_t)n);
		len -= (size_t)n;
		switch (m.type) {
		case CATAN_MSG_HELLO:
			m.u.hello.version = CATAN_AGENT_VERSION;
			if (send_msg(&c, &m))
				return 1;
			break;
		case CATAN_MSG_BEGIN:
			c.begin = m.u.begin;
			c.me = m.u.begin.player_id;
			have_begin = true;
			break;
		case CATAN_MSG_SETUP:
			board_from_setup(&c, &m.u.setup);
			break;
		case CATAN_MSG_VIEW: {
			static catan_msg out;
			if (move(ctx, &c, &m.u.view, &out) ||
			    send_msg(&c, &out))
				return 1;
			break;
		}
		case CATAN_MSG_END:
		case CATAN_MSG_KICK:
			return 0;
		default:
			break; /* TURN, results, counter-offers */
		}
	}
}
