/*
 * board.c - the `catan board` subcommand: show any board (a board file,
 * the beginner board, an official random one, a balanced one) as text with
 * its balance score, or generate a balanced board into a board file.
 *
 *   catan board show FILE|beginner|random|balanced [options] [--json]
 *   catan board generate [options] --out FILE
 *
 * The generation and the score are the core's (catan/boardgen.h); the file
 * format is spec/board.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "catan/boardfile.h"
#include "catan/boardgen.h"
#include "cli.h"

void cli_boardfile_error(const char *cmd, const char *file,
			 const struct catan_boardfile_error *e)
{
	if (e->line > 0)
		fprintf(stderr, "%s: %s:%d: %s\n", cmd, file, e->line, e->msg);
	else
		fprintf(stderr, "%s: %s: %s\n", cmd, file, e->msg);
}

static void board_usage(FILE *f)
{
	fprintf(f,
		"usage: catan board show FILE|beginner|random|balanced "
		"[OPTIONS] [--json]\n"
		"       catan board generate [OPTIONS] --out FILE\n"
		"options for balanced boards:\n"
		"  --radius N          hexagon of radius N (default 2)\n"
		"  --shape 5-6         the official 5-6 player board\n"
		"  --rules LIST        rules on: all, none, or names/numbers "
		"(1 same-resource,\n"
		"                      2 same-token, 3 red-apart, 4 "
		"low-spread, 5 max-pips)\n"
		"  --no-rule RULE      switch one rule off (repeatable)\n"
		"  --max-pips N        rule 5's limit (default 11)\n"
		"  --pin Q,R=SPEC      fix a tile: forest:8, desert, ore, 6 "
		"(repeatable)\n"
		"  --seed N            (default 1)\n"
		"  --method auto|exact|search, --budget STEPS\n"
		"  --players N         starting spots scored: 2 per player "
		"(default 4)\n");
}

static int parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		     uint64_t *out)
{
	char *end = NULL;
	errno = 0;
	if (!s || !*s || *s == '-') {
		fprintf(stderr, "catan board: %s needs a number\n", opt);
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr,
			"catan board: %s must be a whole number from %" PRIu64
			" to %" PRIu64 ", got \"%s\"\n",
			opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* A rule from its number (1-5) or name; -1 if neither. */
static int rule_from(const char *s, size_t n)
{
	if (n == 1 && s[0] >= '1' && s[0] <= '5')
		return s[0] - '1';
	for (int r = 0; r < CATAN_RULE_COUNT; r++) {
		const char *name = catan_rule_name(r);
		if (strlen(name) == n && !strncmp(name, s, n))
			return r;
	}
	return -1;
}

static int parse_rules(const char *s, uint8_t *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "all")) {
		*out = CATAN_RULES_ALL;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*out = 0;
		return 0;
	}
	unsigned rules = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		int r = rule_from(s, n);
		if (r < 0)
			return -1;
		rules |= 1u << r;
		s += n;
		if (*s == ',')
			s++;
	}
	*out = (uint8_t)rules;
	return 0;
}


static const char *harbour_name(int k)
{
	return k == CATAN_HARBOUR_GENERIC ? "3:1" : catan_res_name(k);
}


static void print_balance(FILE *f, const catan_board *b,
			  const catan_balance *bal)
{
	char name[32];
	fprintf(f, "balance:\n");
	fprintf(f, "  %-7s %5s %5s %8s %4s %6s %7s\n", "", "tiles", "pips",
		"pips/tile", "low", "pairs", "cluster");
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		fprintf(f, "  %-7s %5d %5d %8.2f %4d %6d %7d\n",
			catan_res_name(x), bal->res_tiles[x], bal->res_pips[x],
			bal->res_tiles[x]
			    ? (double)bal->res_pips[x] / bal->res_tiles[x]
			    : 0.0,
			bal->res_low[x], bal->res_pairs[x],
			bal->res_cluster[x]);
	catan_vertex_format(name, sizeof name, b, bal->max_pips_vertex);
	fprintf(f, "  richest intersection: %d pips at %s\n", bal->max_pips,
		name);
	fprintf(f, "  starting spots (greedy draft, %d picks):", bal->nspots);
	for (int i = 0; i < bal->nspots; i++) {
		catan_vertex_format(name, sizeof name, b, bal->spot[i]);
		fprintf(f, " %s=%d", name, bal->spot_pips[i]);
	}
	fprintf(f, "\n  best start %d pips, worst start %d pips\n",
		bal->nspots ? bal->spot_pips[0] : 0,
		bal->nspots ? bal->spot_pips[bal->nspots - 1] : 0);
	fprintf(f, "  rules met (pip limit 11):");
	for (int r = 0; r < CATAN_RULE_COUNT; r++)
		fprintf(f, " %s=%s", catan_rule_name(r),
			(bal->rules_met >> r) & 1 ? "yes" : "no");
	fprintf(f, "\n");
}

static void print_json(FILE *f, const catan_board *b, const catan_balance *bal)
{
	char name[32];
	fprintf(f, "{\"radius\":%d,\"tiles\":[", b->radius);
	for (int t = 0; t < b->ntiles; t++)
		fprintf(f,
			"%s{\"q\":%d,\"r\":%d,\"terrain\":\"%s\",\"token\":%d}",
			t ? "," : "", b->tile_hex[t].q, b->tile_hex[t].r,
			catan_res_name(b->tile_terrain[t]), b->tile_token[t]);
	fprintf(f, "],\"harbours\":[");
	for (int h = 0; h < b->nharbours; h++) {
		catan_edge_format(name, sizeof name, b, b->harbour_edge[h]);
		fprintf(f, "%s{\"edge\":\"%s\",\"kind\":\"%s\"}", h ? "," : "",
			name, harbour_name(b->harbour_kind[h]));
	}
	fprintf(f, "],\"robber\":");
	if (b->robber_start != CATAN_NONE)
		fprintf(f, "\"%d,%d\"", b->tile_hex[b->robber_start].q,
			b->tile_hex[b->robber_start].r);
	else
		fprintf(f, "null");
	fprintf(f, ",\"balance\":{\"resources\":{");
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		fprintf(f,
			"%s\"%s\":{\"tiles\":%d,\"pips\":%d,\"low\":%d,"
			"\"pairs\":%d,\"cluster\":%d}",
			x ? "," : "", catan_res_name(x), bal->res_tiles[x],
			bal->res_pips[x], bal->res_low[x], bal->res_pairs[x],
			bal->res_cluster[x]);
	catan_vertex_format(name, sizeof name, b, bal->max_pips_vertex);
	fprintf(f, "},\"max_pips\":%d,\"max_pips_vertex\":\"%s\",\"spots\":[",
		bal->max_pips, name);
	for (int i = 0; i < bal->nspots; i++) {
		catan_vertex_format(name, sizeof name, b, bal->spot[i]);
		fprintf(f, "%s{\"vertex\":\"%s\",\"pips\":%d,\"resources\":%d}",
			i ? "," : "", name, bal->spot_pips[i],
			bal->spot_kinds[i]);
	}
	fprintf(f, "],\"best_start\":%d,\"worst_start\":%d,\"rules_met\":[",
		bal->nspots ? bal->spot_pips[0] : 0,
		bal->nspots ? bal->spot_pips[bal->nspots - 1] : 0);
	bool first = true;
	for (int r = 0; r < CATAN_RULE_COUNT; r++)
		if ((bal->rules_met >> r) & 1) {
			fprintf(f, "%s\"%s\"", first ? "" : ",",
				catan_rule_name(r));
			first = false;
		}
	fprintf(f, "]}}\n");
}

static int read_file(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf)
		return -1;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Generates with `o`, printing why not on failure. 0, 1 (no board), 2. */
static int generate(catan_board *b, const catan_genopts *o)
{
	catan_genreport rep;
	int rc = catan_board_generate(b, o, &rep);
	if (rc == CATAN_OK)
		return 0;
	fprintf(stderr, "catan board: %s\n", rep.why);
	if (rep.status != CATAN_GEN_INFEASIBLE)
		return rep.status == CATAN_GEN_BUDGET ? 1 : 2;
	fprintf(stderr, "conflicting rules:");
	if (!rep.conflict_rules)
		fprintf(stderr, " none (the pins alone)");
	for (int r = 0; r < CATAN_RULE_COUNT; r++)
		if ((rep.conflict_rules >> r) & 1)
			fprintf(stderr, " %d %s (%s)%s", r + 1,
				catan_rule_name(r), catan_rule_sentence(r),
				";");
	fprintf(stderr, "\nconflicting pins:");
	if (!rep.nconflict_pins)
		fprintf(stderr, " none");
	for (int i = 0; i < rep.nconflict_pins; i++) {
		const catan_pin *p = &o->pins[rep.conflict_pins[i]];
		fprintf(stderr, " %d,%d=", p->hex.q, p->hex.r);
		if (p->terrain != CATAN_NONE)
			fprintf(stderr, "%s%s", catan_res_name(p->terrain),
				p->token ? ":" : "");
		if (p->token)
			fprintf(stderr, "%d", p->token);
	}
	fprintf(stderr, "\n%s\n",
		rep.minimal ? "(a minimal conflict: dropping any one of these "
			      "makes a board possible)"
			    : "(a conflict; some checks ran out of budget, so "
			      "it may not be minimal)");
	return 1;
}

int cli_board(int argc, char **argv)
{
	catan_genopts o;
	const char *sub, *what = NULL, *out = NULL;
	bool json = false;
	uint64_t v, players = 4;
	bool players_set = false;

	catan_genopts_default(&o);
	o.seed = 1;
	if (argc < 1) {
		board_usage(stderr);
		return 2;
	}
	sub = argv[0];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help")) {
		board_usage(stdout);
		return 0;
	}
	if (strcmp(sub, "show") && strcmp(sub, "generate")) {
		fprintf(stderr, "catan board: unknown subcommand \"%s\"\n",
			sub);
		board_usage(stderr);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i],
			   *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (!strcmp(a, "--radius")) {
			if (parse_u64(a, val, 1, 100, &v))
				return 2;
			o.radius = (uint8_t)v;
		} else if (!strcmp(a, "--shape")) {
			if (val && !strcmp(val, "5-6"))
				o.shape = CATAN_SHAPE_EXT56;
			else if (val && !strcmp(val, "hexagon"))
				o.shape = CATAN_SHAPE_HEXAGON;
			else {
				fprintf(stderr, "catan board: --shape is "
						"hexagon or 5-6\n");
				return 2;
			}
		} else if (!strcmp(a, "--rules")) {
			if (parse_rules(val, &o.rules)) {
				fprintf(stderr,
					"catan board: --rules is all, none, or "
					"a comma list of 1-5 or rule names, "
					"got \"%s\"\n",
					val ? val : "");
				return 2;
			}
		} else if (!strcmp(a, "--no-rule")) {
			int r = val ? rule_from(val, strlen(val)) : -1;
			if (r < 0) {
				fprintf(stderr,
					"catan board: unknown rule \"%s\"\n",
					val ? val : "");
				return 2;
			}
			o.rules &= (uint8_t) ~(1u << r);
		} else if (!strcmp(a, "--max-pips")) {
			if (parse_u64(a, val, 1, 15, &v))
				return 2;
			o.max_pips = (uint8_t)v;
		} else if (!strcmp(a, "--pin")) {
			if (o.npins >= CATAN_MAX_TILES ||
			    catan_pin_parse(&o.pins[o.npins], val ? val : "")) {
				fprintf(stderr,
					"catan board: --pin wants Q,R=TERRAIN, "
					"Q,R=TERRAIN:TOKEN or Q,R=TOKEN, got "
					"\"%s\"\n",
					val ? val : "");
				return 2;
			}
			o.npins++;
		} else if (!strcmp(a, "--seed")) {
			if (parse_u64(a, val, 0, UINT64_MAX, &o.seed))
				return 2;
		} else if (!strcmp(a, "--method")) {
			if (val && !strcmp(val, "auto"))
				o.method = CATAN_GEN_AUTO;
			else if (val && !strcmp(val, "exact"))
				o.method = CATAN_GEN_EXACT;
			else if (val && !strcmp(val, "search"))
				o.method = CATAN_GEN_SEARCH;
			else {
				fprintf(stderr, "catan board: --method is "
						"auto, exact or search\n");
				return 2;
			}
		} else if (!strcmp(a, "--budget")) {
			if (parse_u64(a, val, 1, UINT32_MAX, &v))
				return 2;
			o.budget = (uint32_t)v;
		} else if (!strcmp(a, "--players")) {
			if (parse_u64(a, val, 1, CATAN_BALANCE_SPOTS / 2,
				      &players))
				return 2;
			players_set = true;
		} else if (!strcmp(a, "--out")) {
			if (!val) {
				fprintf(stderr, "catan board: --out needs a "
						"file\n");
				return 2;
			}
			out = val;
		} else if (!strcmp(a, "--json")) {
			json = true;
			takes = false;
		} else if (a[0] != '-' && !what && !strcmp(sub, "show")) {
			what = a;
			takes = false;
		} else {
			fprintf(stderr, "catan board: unknown option \"%s\"\n",
				a);
			board_usage(stderr);
			return 2;
		}
		i += takes;
	}

	catan_board b;
	int rc;
	if (!strcmp(sub, "generate")) {
		if (!out) {
			fprintf(stderr, "catan board generate: --out FILE is "
					"required\n");
			return 2;
		}
		if ((rc = generate(&b, &o)))
			return rc;
		int n = catan_boardfile_format(NULL, 0, &b);
		char *text = malloc((size_t)n + 1);
		FILE *f = text ? fopen(out, "wb") : NULL;
		if (!f) {
			fprintf(stderr, "catan board: cannot write %s\n", out);
			free(text);
			return 2;
		}
		catan_boardfile_format(text, (size_t)n + 1, &b);
		fputs(text, f);
		free(text);
		if (fclose(f)) {
			fprintf(stderr, "catan board: cannot write %s\n", out);
			return 2;
		}
	} else if (!what) {
		fprintf(stderr, "catan board show: which board? FILE, "
				"beginner, random or balanced\n");
		return 2;
	} else if (!strcmp(what, "beginner")) {
		catan_board_beginner(&b);
	} else if (!strcmp(what, "random")) {
		catan_board_random(&b, o.seed);
	} else if (!strcmp(what, "balanced")) {
		if ((rc = generate(&b, &o)))
			return rc;
	} else {
		char *text;
		catan_boardfile_error err;
		if (read_file(what, &text)) {
			fprintf(stderr, "catan board: cannot read %s\n", what);
			return 2;
		}
		rc = catan_boardfile_parse(&b, text, &err);
		free(text);
		if (rc) {
			cli_boardfile_error("catan board", what, &err);
			return 2;
		}
	}
	if (!players_set && b.ntiles > 19)
		players = 6;
	catan_balance bal;
	catan_board_balance(&bal, &b, (int)players * 2);
	if (json) {
		print_json(stdout, &b, &bal);
		return 0;
	}
	if (out)
		printf("wrote %s\n", out);
	cli_print_board(stdout, &b, NULL);
	print_balance(stdout, &b, &bal);
	return 0;
}
